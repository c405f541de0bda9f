"""JAX 0.10.2's own test files (tests/*.py of its repository), read from a JAX mirror at run
time, run under real JAX and under jxkernel (`jax` aliased to it): `python -m
conformance.jax_tests`; see conformance/README.md, "JAX's own tests"."""
