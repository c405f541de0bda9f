"""jxkernel._src.interpreters, as jax._src.interpreters: the private interpreter modules
libraries reach for (pxla's result handlers, which extended dtypes' rules call)."""
