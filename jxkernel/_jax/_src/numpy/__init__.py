"""jxkernel._src.numpy, as jax._src.numpy: the private modules of JAX's jax.numpy that JAX's
own tests import (`indexing`, `fft`, `util`, `linalg`), and, as JAX's package does, jnp's
functions themselves (JAX's test harnesses read `jnp.take`, `jnp.triu` from it).

    >>> from jxkernel._src import numpy as private_jnp
    >>> private_jnp.take is jnp.take
    True
"""
from .... import numpy as _jnp
from ....core.lazy_names import attributes_of, module_aliases

_ALIASES = module_aliases(__name__, {"linalg": "jxkernel.numpy.linalg"})


__getattr__ = attributes_of(__name__, _jnp, _ALIASES)
