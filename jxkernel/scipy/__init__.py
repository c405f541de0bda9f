"""jxkernel.scipy: the parts of jax.scipy that jxkernel provides (special functions, linear
algebra, statistical distributions, optimization, sparse iterative solvers, signal
processing, the DCT, interpolation on grids, integration, vector quantization, rotations)."""
from . import special  # noqa: F401
from . import linalg, stats  # noqa: F401,E402
from . import sparse  # noqa: F401,E402
from ..core.lazy_names import lazy_names as _lazy_names  # noqa: E402

# these load on first use, as jax.scipy's submodules do (optimize and spatial are no names of
# JAX's jax.scipy until imported: under `import jax`, as_jax.LOADED_BY_IMPORT_ONLY)
__getattr__, __dir__ = _lazy_names(__name__, globals(), {
    name: ("." + name, None) for name in ("signal", "fft", "ndimage", "interpolate", "integrate",
                                          "cluster", "spatial", "optimize")})
