"""jxkernel._src: the helpers of JAX's private `jax._src` that tutorials and libraries reach for
(the custom interpreter notebook uses `jax._src.util.safe_map`; docs/jax_internals.md lists
them all).

JAX imports its `_src` modules with `import jax`, so libraries read them as attributes without
importing them (Chex reads `jax._src.xla_bridge._backends`); here each loads on first access:

    >>> import jxkernel._src as src
    >>> src.util.safe_zip([1], [2])
    [(1, 2)]
"""
import importlib

from ...core.lazy_names import module_aliases

# JAX's private modules whose code is jxkernel's own, in the engine package it belongs to
module_aliases(__name__, {"checkify": "jxkernel.api.checkify",
                          "error_check": "jxkernel.api.error_check",
                          "traceback_util": "jxkernel.core.traceback_util",
                          "monitoring": "jxkernel.core.monitoring",
                          "source_info_util": "jxkernel._jax.extend.source_info_util",
                          "ad_checkpoint": "jxkernel.api.ad_checkpoint",
                          "shard_map": "jxkernel.api.shard_map",
                          # pmap as jit of shard_map, as JAX 0.10.2's module of that name
                          "pmap": "jxkernel.api.pmap",
                          "stages": "jxkernel._jax.stages",
                          # the classes whose __module__ names them (core/mesh.py): pickles
                          "mesh": "jxkernel.core.mesh",
                          "partition_spec": "jxkernel.core.mesh",
                          "linear_util": "jxkernel.transforms.linear_util",
                          "debugging": "jxkernel.debug",
                          # the public modules JAX's re-export from these private ones
                          "api_util": "jxkernel._jax.api_util",
                          "custom_derivatives": "jxkernel._jax.custom_derivatives",
                          "layout": "jxkernel._jax.experimental.layout",
                          # jax.scipy's private home: JAX's scipy tests read its private names
                          # (`special._xlogx`, `sparse.linalg._kth_arnoldi_iteration`)
                          "scipy": "jxkernel.scipy"})


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} (jxkernel has no "
                             f"jax._src.{name})") from None
