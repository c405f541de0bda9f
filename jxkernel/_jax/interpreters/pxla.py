"""jxkernel.interpreters.pxla, as jax.interpreters.pxla: `create_compile_options` (XLA's
options for a program partitioned over an array of devices), and JAX 0.10.2's table of the
module's deprecated and removed names. Orbax imports the module (its Pathways executables
read `global_avals_to_results_handler` when called, never on import).

    >>> opts = create_compile_options(None, False, [False], [True], None,
    ...                               np.array(jax.devices()[:1]), {})
    >>> opts.num_partitions, opts.executable_build_options.allow_spmd_sharding_propagation_to_output
    (1, [True])

A deprecated name JAX still gives (with a DeprecationWarning) is given here where jxkernel has
the same thing (`Index`, `MeshAxisName`: types); the rest are JAX's dispatch internals that
jxkernel has no counterpart of, and raise AttributeError with JAX's message and saying so.
The names JAX removed in v0.10.0 raise AttributeError with JAX's message.
"""
from typing import Any as _Any
from typing import Union as _Union

from ...xla.compiler import create_compile_options  # noqa: F401
from .._src.deprecations import deprecation_getattr as _deprecation_getattr

_NONE_HERE = " (jxkernel has no counterpart of it: JAX's dispatch internals)"
_V082 = "jax.interpreters.pxla.{} is deprecated as of JAX v0.8.2."
_PMAP = " Please use `jax.shard_map` instead of `jax.pmap`."


def _removed(name: str, extra: str = "") -> tuple:
    return f"jax.interpreters.pxla.{name} was removed in JAX v0.10.0.{extra}", None


def _lacking(message: str) -> tuple:
    return message + _NONE_HERE, None


_deprecations = {
    # deprecated as of JAX v0.8.2 (JAX still gives them)
    "Index": (_V082.format("Index"),
              _Union[int, slice, tuple[_Union[int, slice], ...]]),
    "MeshAxisName": (_V082.format("MeshAxisName") + " Use jax.sharding.Mesh axis names directly.",
                     _Any),
    "MeshComputation": _lacking(_V082.format("MeshComputation")),
    "MeshExecutable": _lacking(_V082.format("MeshExecutable")),
    "global_aval_to_result_handler": _lacking(_V082.format("global_aval_to_result_handler")),
    "global_avals_to_results_handler": _lacking(_V082.format("global_avals_to_results_handler")),
    "global_result_handlers": _lacking(_V082.format("global_result_handlers")),
    "thread_resources": _lacking(
        _V082.format("thread_resources")[:-1] + ". Please switch to using `with "
        "jax.set_mesh(mesh)` instead of `with mesh:` and then use "
        "`jax.sharding.get_abstract_mesh()` to get the current mesh."),
    "are_hlo_shardings_equal": _lacking(_V082.format("are_hlo_shardings_equal")),
    "is_hlo_sharding_replicated": _lacking(_V082.format("is_hlo_sharding_replicated")),
    "op_sharding_to_indices": _lacking(_V082.format("op_sharding_to_indices")),
    "ArrayMapping": _lacking(_V082.format("ArrayMapping")),
    "_UNSPECIFIED": _lacking(_V082.format("_UNSPECIFIED")),
    "array_mapping_to_axis_resources": _lacking(_V082.format("array_mapping_to_axis_resources")),
    # removed in JAX v0.10.0
    "MapTracer": _removed("MapTracer"),
    "PmapExecutable": _removed("PmapExecutable"),
    "parallel_callable": _removed("parallel_callable"),
    "shard_args": _removed("shard_args"),
    "Chunked": _removed("Chunked", _PMAP),
    "NoSharding": _removed("NoSharding", _PMAP),
    "Replicated": _removed("Replicated", _PMAP),
    "ShardedAxis": _removed("ShardedAxis", _PMAP),
    "ShardingSpec": _removed("ShardingSpec", _PMAP),
    "Unstacked": _removed("Unstacked", _PMAP),
    "spec_to_indices": _removed("spec_to_indices", _PMAP),
}

__getattr__ = _deprecation_getattr(__name__, _deprecations)
