"""jxkernel: JAX you can see inside.

    >>> import jxkernel as jax, jxkernel.numpy as jnp
    >>> jax.jit(lambda x: jnp.sin(x) * 2)(jnp.arange(3.0))
    Array([0.       , 1.682942 , 1.8185948], dtype=float32)
"""

from types import SimpleNamespace as _SimpleNamespace

from .version import __version__
from .core.config import config
from . import core
from .core.basearray import Array
from .core.lazy_names import lazy_names as _lazy_names
from .core.lazy_names import module_aliases as _module_aliases
from .core.avals import ShapeDtypeStruct
from .core.errors import (ConcretizationTypeError, TracerArrayConversionError,
                          TracerBoolConversionError, TracerIntegerConversionError,
                          UnexpectedTracerError)
from .xla import (backends, default_backend, device_count, device_get, devices,
                  local_device_count, local_devices, process_count, process_index)
from . import lax
from . import tree_util
from .transforms.jit import jit
from .transforms.make_jaxpr import eval_shape, make_jaxpr
from .core.compile_record import compile_events, CompileEvent
# the no-recompile guard: a tool for any program (training loops too), not only notebooks
# (jxkernel.notebook re-exports it beside %jxguard)
from .core.compile_record import no_recompile
from .core.compile_record import subscribe as subscribe_compile_events
# explains each jit cache miss (installs itself in the compile record, as it loads)
from .views import recompile_explainer as compile_log  # noqa: E402,F401
from .xla.array_display import install_array_display as _install_array_display
from .transforms.batching import vmap
from .transforms.ad import grad, jvp, linearize, value_and_grad, vjp
from .transforms.custom_derivatives import custom_jvp, custom_vjp
from .core.avals import typeof
from .core.compile_time_eval import ensure_compile_time_eval
from .transforms.ad_util import float0
from .xla.client import Device
from .xla.effect_tokens import effects_barrier
from .api.device_put import device_put
from .api.named_call import named_call, named_scope
from .api.config_states import (debug_infs, debug_nans, default_device, enable_x64,
                                log_compiles)
from .api.config_states import (default_matmul_precision, numpy_dtype_promotion,  # noqa: F401
                                numpy_rank_promotion)
from .api.environment_info import print_environment_info
from .transforms.ad import linear_transpose
from .transforms import ad as _ad

# jax.ad in JAX 0.10: a namespace of the classes `vjp(...)[1].with_refs` takes and gives
ad = _SimpleNamespace(DontWant=_ad.DontWant, DidntWant=_ad.DidntWant, GradRef=_ad.GradRef,
                      GradValue=_ad.GradValue)
from ._ipython_ext import load_ipython_extension, unload_ipython_extension
from .as_jax import install_as_jax


def block_until_ready(x):
    """Wait for every Array in `x` (any pytree); returns `x`."""
    for leaf in tree_util.tree_leaves(x):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return x


def _show_sharded(x) -> dict:
    """A sharded Array in a notebook: its sharding view (xla/ reaches it through this hook)."""
    from .views.sharding_view import array_bundle   # the view loads when first shown
    return array_bundle(x)


_install_array_display(_show_sharded)


def disable_jit(disable: bool = True):
    """``with disable_jit():`` runs jitted functions op by op, for debugging."""
    return config.override("jax_disable_jit", disable)


# jax.numpy loads with the package (it installs Array's operators), and jax.nn's activations
# (first programs use them; jax.nn.initializers waits for its first use); the other libraries
# load on first use (`jax.random.key(0)` after `import jax`), which keeps `import jxkernel`
# to what a first array operation needs.
from . import numpy, nn  # noqa: E402

# Every other public name, loaded on first access: name -> (module, attribute), the attribute
# None where the name is a module. A module found elsewhere than jxkernel/<name> is importable
# under its name as well (`import jxkernel.extend.core`, `from jxkernel.sharding import P`):
# JAX's module names live in _jax/ (the modules that only answer JAX's paths), the others in
# the package that does the work (the views' old paths, `jxkernel.compile_log`, included).
_LAZY = {
    "NamedSharding": (".core.mesh", "NamedSharding"),
    "P": (".core.mesh", "P"),
    "Ref": (".api.state", "Ref"),
    "Shard": (".xla.array", "Shard"),
    "_src": ("._jax._src", None),
    "ad_checkpoint": (".api.ad_checkpoint", None),
    "allow_f16_reductions": (".api.config_states", "allow_f16_reductions"),
    "api_util": ("._jax.api_util", None),
    "array_garbage_collection_guard": (".api.config_states", "array_garbage_collection_guard"),
    "auto_pcast": (".api.config_states", "auto_pcast"),
    "check_tracer_leaks": (".api.runtime_state", "check_tracer_leaks"),
    "checking_leaks": (".api.runtime_state", "checking_leaks"),
    "checkpoint": (".api.remat", "checkpoint"),
    "checkpoint_policies": (".api.remat", "checkpoint_policies"),
    "clear_caches": (".api.runtime_state", "clear_caches"),
    "closure_convert": (".transforms.custom_gradient", "closure_convert"),
    "compile_log": (".views.recompile_explainer", None),
    "compile_report": (".views.compile_report", None),
    "copy_to_host_async": (".api.device_put", "copy_to_host_async"),
    "custom_batching": ("._jax.custom_batching", None),
    "custom_derivatives": ("._jax.custom_derivatives", None),
    "custom_gradient": (".transforms.custom_gradient", "custom_gradient"),
    "debug": (".debug", None),
    "debug_key_reuse": (".api.config_states", "debug_key_reuse"),
    "debugger": (".views.debugger", None),
    "default_prng_impl": (".api.config_states", "default_prng_impl"),
    "distributed": (".api.distributed", None),
    "dlpack": ("._jax.dlpack", None),
    "ds": (".numpy.dslice", "ds"),
    "dtypes": ("._jax.dtypes", None),
    "empty_ref": (".api.state", "empty_ref"),
    "enable_checks": (".api.config_states", "enable_checks"),
    "enable_custom_prng": (".api.config_states", "enable_custom_prng"),
    "errors": ("._jax.errors", None),
    "experimental": ("._jax.experimental", None),
    "explain": (".views.call_explanation", "explain"),
    "explain_cache_misses": (".api.config_states", "explain_cache_misses"),
    "explainer": (".views.call_explanation", None),
    "export": (".export", None),
    "extend": ("._jax.extend", None),
    "ffi": (".lax.ffi", None),
    "flatten_util": (".api.flatten_util", None),
    "free_ref": (".api.state", "free_ref"),
    "freeze": (".api.state", "freeze"),
    "fwd_and_bwd": (".api.jacobians", "fwd_and_bwd"),
    "hessian": (".api.jacobians", "hessian"),
    "host_count": (".xla.client", "host_count"),
    "host_id": (".xla.client", "host_id"),
    "host_ids": (".xla.client", "host_ids"),
    "image": (".image", None),
    "interpreters": ("._jax.interpreters", None),
    "jacfwd": (".api.jacobians", "jacfwd"),
    "jacobian": (".api.jacobians", "jacobian"),
    "jacrev": (".api.jacobians", "jacrev"),
    "jax2tf_associative_scan_reductions":
        (".api.config_states", "jax2tf_associative_scan_reductions"),
    "legacy_prng_key": (".api.config_states", "legacy_prng_key"),
    "lib": ("._jax.lib", None),
    "live_arrays": (".views.memory", "live_arrays"),
    "make_array_from_callback": (".xla.sharded", "make_array_from_callback"),
    "make_array_from_process_local_data": (".api.device_put", "make_array_from_process_local_data"),
    "make_array_from_single_device_arrays": (".xla.sharded",
                                             "make_array_from_single_device_arrays"),
    "make_mesh": (".xla.sharding", "make_mesh"),
    "make_user_context": (".core.config", "make_user_context"),
    "memory": (".views.memory", None),
    "monitoring": (".core.monitoring", None),
    "new_ref": (".api.state", "new_ref"),
    "no_execution": (".api.config_states", "no_execution"),
    "no_tracing": (".api.config_states", "no_tracing"),
    "ops": (".api.ops", None),
    "pmap": (".api.pmap", "pmap"),
    "process_indices": (".xla.client", "process_indices"),
    "profiler": (".api.profiler", None),
    "pure_callback": (".lax.callbacks", "pure_callback"),
    "random": (".random", None),
    "ref": ("._jax.ref", None),
    "remat": (".api.remat", "remat"),
    "remove_size_one_mesh_axis_from_type":
        (".api.config_states", "remove_size_one_mesh_axis_from_type"),
    "reshard": (".api.sharding", "reshard"),
    "scipy": (".scipy", None),
    "set_mesh": (".api.sharding", "set_mesh"),  # (which loads eager dispatch over a mesh)
    "shard_map": (".api.shard_map", "shard_map"),
    "sharding": (".api.sharding", None),
    "sharding_view": (".views.sharding_view", None),
    "smap": (".api.shard_map.smap", "smap"),
    "softmax_custom_jvp": (".api.config_states", "softmax_custom_jvp"),
    "stages": ("._jax.stages", None),
    "stepper": (".views.stepper", None),
    "test_util": (".api.test_util", None),
    "thread_guard": (".api.config_states", "thread_guard"),
    "threefry_partitionable": (".api.config_states", "threefry_partitionable"),
    "timing": (".views.timing", None),
    "transfer_guard": (".api.runtime_state", "transfer_guard"),
    "transfer_guard_device_to_device": (".api.runtime_state", "transfer_guard_device_to_device"),
    "transfer_guard_device_to_host": (".api.runtime_state", "transfer_guard_device_to_host"),
    "transfer_guard_host_to_device": (".api.runtime_state", "transfer_guard_host_to_device"),
    "tree": ("._jax.tree", None),
    "typing": ("._jax.typing", None),
}
_module_aliases(__name__, {name: "jxkernel" + module for name, (module, attribute) in _LAZY.items()
                           if attribute is None and module != f".{name}"})
_module_aliases(__name__, {"config": "jxkernel.core.config"})   # the name is the Config itself

_lazy_getattr, __dir__ = _lazy_names(__name__, globals(), _LAZY)

# Names JAX 0.10.2 removed, with the AttributeError its module raises for each (its
# `_deprecations` table, word for word): code written for older JAX learns what to use instead
# (as_jax.py raises the same under `import jax`).
REMOVED = {
    "device_put_replicated": (
        "jax.device_put_replicated is deprecated; use jax.device_put instead. See "
        "https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements for a drop-in "
        "replacement."),
    "device_put_sharded": (
        "jax.device_put_sharded is deprecated; use jax.device_put instead. See "
        "https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements for a drop-in "
        "replacement."),
}


def __getattr__(name):
    if name in REMOVED:
        raise AttributeError(REMOVED[name])
    return _lazy_getattr(name)
