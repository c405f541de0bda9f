"""jxkernel: JAX you can see inside.

    >>> import jxkernel as jax, jxkernel.numpy as jnp
    >>> jax.jit(lambda x: jnp.sin(x) * 2)(jnp.arange(3.0))
    Array([0.       , 1.682942 , 1.8185948], dtype=float32)
"""

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
from .xla import (backends, default_backend, device_count, device_get,
                  device_put_replicated, device_put_sharded, devices, local_device_count,
                  local_devices, process_count, process_index)
from . import lax
from . import tree_util
from .transforms.jit import jit
from .transforms.make_jaxpr import eval_shape, make_jaxpr
from .core.compile_record import compile_events, CompileEvent
from .core.compile_record import subscribe as subscribe_compile_events
# explains each jit cache miss (installs itself in the compile record, as it loads)
from .views import recompile_explainer as compile_log  # noqa: E402,F401
from .xla.array import install_array_display as _install_array_display
from .transforms.batching import vmap
from .transforms.ad import grad, jvp, linearize, value_and_grad, vjp
from .transforms.custom_derivatives import custom_jvp, custom_vjp
from .api.extras import (Device, debug_infs, debug_nans, default_device, device_put,
                         effects_barrier, enable_x64, ensure_compile_time_eval, float0,
                         log_compiles, named_call, named_scope, print_environment_info, typeof)
from .api.extras import (default_matmul_precision, numpy_dtype_promotion,  # noqa: F401
                         numpy_rank_promotion)
from .lax import stop_gradient
from .transforms.ad import linear_transpose
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
from . import numpy, nn, tree  # noqa: E402
from . import dtypes, errors  # noqa: E402,F401

# The views that explain a program load on first use: `import jxkernel` (and a kernel's
# start) need none of them.
_LAZY = {"live_arrays": ("jxkernel.views.memory", "live_arrays"),
         "explain": ("jxkernel.views.explainer", "explain")}
# Submodules JAX users import themselves (`import jax.extend`); attribute access loads them too.
_LAZY.update({name: (f"jxkernel.{name}", None)
              for name in ("extend", "experimental", "interpreters", "sharding")})
_LAZY.update({name: (f"jxkernel.{name}", None) for name in (
    "scipy", "random", "debug", "ad_checkpoint", "custom_derivatives")})
_LAZY.update({n: (f"jxkernel.{module}", n) for module, names in (   # jax.hessian, jax.pmap, ...
    ("api.jacobians", ("hessian", "jacfwd", "jacobian", "jacrev")),
    ("api.remat", ("checkpoint", "checkpoint_policies", "remat")),
    ("transforms.custom_gradient", ("closure_convert", "custom_gradient")),
    ("lax.callbacks", ("pure_callback",)),
    ("api.pmap", ("pmap",))) for n in names})
_LAZY["dlpack"] = ("jxkernel.dlpack", None)     # jax.dlpack.from_dlpack after `import jax`
_LAZY["image"] = ("jxkernel.image", None)       # jax.image.resize after `import jax`
_LAZY["distributed"] = ("jxkernel.distributed", None)   # jax.distributed.initialize
_LAZY["stages"] = ("jxkernel.stages", None)     # jax.stages.Compiled after `import jax`
_LAZY["export"] = ("jxkernel.export", None)     # jax.export.export after `import jax`
_LAZY["profiler"] = ("jxkernel.profiler", None)   # jax.profiler.trace after `import jax`
_LAZY["shard_map"] = ("jxkernel.api.shard_map", "shard_map")   # jax.shard_map
_LAZY["smap"] = ("jxkernel.api.smap", "smap")   # jax.smap: shard_map over one axis
_LAZY["ffi"] = ("jxkernel.ffi", None)           # jax.ffi.ffi_call after `import jax`
_LAZY["Shard"] = ("jxkernel.xla.array", "Shard")   # jax.Shard: an item of x.addressable_shards
_LAZY["typing"] = ("jxkernel.typing", None)     # jax.typing.ArrayLike after `import jax`
_LAZY["custom_batching"] = ("jxkernel.custom_batching", None)   # jax.custom_batching.custom_vmap
_LAZY["ops"] = ("jxkernel.ops", None)           # jax.ops.segment_sum after `import jax`
_LAZY["monitoring"] = ("jxkernel.monitoring", None)   # jax.monitoring.register_event_listener
_LAZY["lib"] = ("jxkernel.lib", None)           # jax.lib.__version__: jaxlib's version
_LAZY["api_util"] = ("jxkernel.api_util", None)   # jax.api_util.flatten_fun (Flax's scan)
_LAZY.update({n: ("jxkernel.api.state", n) for n in (   # jax.new_ref, jax.freeze
    "Ref", "new_ref", "empty_ref", "free_ref", "freeze")})
_LAZY["ref"] = ("jxkernel.ref", None)           # jax.ref.get, jax.ref.swap after `import jax`
_LAZY["ds"] = ("jxkernel.numpy.dslice", "ds")   # x[jax.ds(i, 2)]: a slice with a traced start
_LAZY.update({n: ("jxkernel.xla.client", n) for n in (   # jax.process_indices, jax.host_id, ...
    "process_indices", "host_id", "host_count", "host_ids")})
_LAZY["copy_to_host_async"] = ("jxkernel.api.extras", "copy_to_host_async")
_LAZY["fwd_and_bwd"] = ("jxkernel.api.extras", "fwd_and_bwd")   # jax.fwd_and_bwd: vjp, jitted
_LAZY["make_array_from_process_local_data"] = ("jxkernel.api.extras",
                                               "make_array_from_process_local_data")
_LAZY.update({n: ("jxkernel.api.extras", n) for n in (   # config states: `with jax.no_tracing():`
    "explain_cache_misses", "enable_checks", "no_tracing", "allow_f16_reductions",
    "legacy_prng_key", "default_prng_impl", "enable_custom_prng", "softmax_custom_jvp", "no_execution",
    "jax2tf_associative_scan_reductions", "threefry_partitionable", "thread_guard", "auto_pcast")})
_LAZY["make_user_context"] = ("jxkernel.core.config", "make_user_context")   # jit-key contexts
# jax.clear_caches, jax.transfer_guard
_LAZY.update({n: ("jxkernel.api.runtime_state", n) for n in (
    "clear_caches", "check_tracer_leaks", "checking_leaks", "transfer_guard",
    "transfer_guard_host_to_device", "transfer_guard_device_to_device",
    "transfer_guard_device_to_host")})
_LAZY.update({n: (f"jxkernel.{module}", n) for module, names in (   # jax.make_mesh, jax.P, ...
    ("core.mesh", ("set_mesh", "P", "NamedSharding")),
    ("xla.sharding", ("make_mesh",)),
    ("xla.sharded", ("make_array_from_callback", "make_array_from_single_device_arrays")),
    ("sharding", ("reshard",))) for n in names})

# Modules that moved keep their old paths (`import jxkernel.compile_log`)
# (jxkernel.timing, .compile_report, ...: the views, in jxkernel/views/ now). The public
# jxkernel.compile_log is the recompile explainer, which re-exports the record's names
# (core/compile_record.py): events, subscribe, fail_on_recompile, no_recompile.
_LAZY.update(_module_aliases(__name__, {
    "config": "jxkernel.core.config", "compile_log": "jxkernel.views.recompile_explainer", **{
        name: f"jxkernel.views.{name}" for name in ("compile_report", "explainer", "memory",
                                                    "sharding_view", "stepper", "timing")}}))
del _LAZY["config"]        # jxkernel.config is the Config (`jxkernel.config.update(...)`)

__getattr__, __dir__ = _lazy_names(__name__, globals(), _LAZY)
