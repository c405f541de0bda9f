"""jxkernel._src.interpreters, as jax._src.interpreters: the private interpreter modules
libraries reach for (pxla's result handlers, which extended dtypes' rules call), and JAX's
private paths to the public rule tables (`batching` is jax.interpreters.batching)."""
from ....core.lazy_names import module_aliases

module_aliases(__name__, {"batching": "jxkernel._jax.interpreters.batching"})
