"""JAX's documentation pages run verbatim under real JAX and under jxkernel, cell by cell
(``python -m conformance.docs --fetch JAX_MIRROR``; see README.md). The pages are read at
run time from a JAX checkout: nothing of JAX's is kept here."""
