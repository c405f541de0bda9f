"""jxkernel._src.interpreters, as jax._src.interpreters: the private interpreter modules
libraries reach for (pxla's result handlers, which extended dtypes' rules call), and JAX's
private paths to the public ones (`from jax._src.interpreters import ad, batching`, as JAX's
own tests import them: the same modules as jax.interpreters.ad, ...; `mlir` is a module here,
with the lowering context JAX's rules import from it)."""
from ....core.lazy_names import module_aliases

module_aliases(__name__, {"ad": "jxkernel._jax.interpreters.ad",
                          "batching": "jxkernel._jax.interpreters.batching"})
