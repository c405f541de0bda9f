"""Small top-level utilities JAX programs call: device_put (over pytrees), typeof, float0,
named_call / named_scope,
ensure_compile_time_eval, the config context managers (enable_x64, log_compiles,
default_device), print_environment_info and Device. Re-exported by jxkernel/__init__.

    >>> jxkernel.typeof(jnp.ones(3))
    ShapedArray(float32[3])
    >>> with jxkernel.enable_x64(True):
    ...     jnp.arange(3.0).dtype
    dtype('float64')
"""
from __future__ import annotations

import contextlib
import functools
import os
import platform
import sys

import numpy as np

from ..core import mesh as _mesh
from ..core.config import config
from ..core.mesh import PartitionSpec
from ..core.traceback_util import api_boundary
from ..core.avals import get_aval, public_type, typeof_rules
from ..core.native import STATE as FASTPATH_STATE
from ..core.name_stack import name_scope
from ..core.trace import Tracer, current_trace
from ..core.compile_time_eval import ensure_compile_time_eval  # noqa: F401 (jax.*)
from ..transforms.ad import vjp
from ..transforms.ad_util import float0
from ..transforms.api_util import flatten_axes
from ..transforms.jit import jit
from ..tree_util import broadcast_prefix, tree_flatten, tree_unflatten
from ..lax import transfer as _transfer
from ..xla import put as _put
from ..xla import client as _client
from ..xla import effect_tokens as _tokens

__all__ = ["device_put", "float0", "typeof", "named_call", "named_scope", "ensure_compile_time_eval",
           "enable_x64", "log_compiles", "default_device", "debug_nans", "debug_infs",
           "effects_barrier", "print_environment_info", "Device", "numpy_dtype_promotion",
           "numpy_rank_promotion",
           "default_matmul_precision"]

# what jxkernel.devices() returns (PJRT's device class; without jaxlib, the NumPy backend's)
Device = _client.xc.Device if _client.xc is not None else _client.numpy_device.NumpyDevice


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """`x` (an array, a scalar, or a pytree of them) as Arrays on `device`: a Device, a
    Sharding, a PartitionSpec under set_mesh, or a pytree prefix of `x` holding those.
    `src` says where `x` is (the same kinds; by default where each leaf is), which the
    equation records and its transpose moves a cotangent back to. `may_alias=False` copies;
    `donate` may reuse the input (never both True); each flag a bool or a pytree prefix of
    `x` of them, as JAX's.

    >>> device_put({"a": 1.0, "b": np.ones(2)})
    {'a': Array(1., dtype=float32, weak_type=True), 'b': Array([1., 1.], dtype=float32)}
    """
    leaves, tree = tree_flatten(x)
    _refused_in_eager_body(tree_flatten(device)[0])
    if src is None and type(donate) is bool and (may_alias is None or type(may_alias) is bool) \
            and len(leaves) == 1 and leaves[0] is x and not isinstance(x, Tracer):
        # the common call: one value, no source named
        semantics = _transfer.copy_semantics_of(False, donate, may_alias)
        out = _put.device_put(x, device, copy=semantics != _transfer.ArrayCopySemantics.REUSE_INPUT)
        _donated(x, device, semantics)
        return out
    # each an entry for every leaf, or a pytree prefix of `x` of them (JAX's errors, in its
    # order); a bare PartitionSpec is a NamedSharding over the mesh in context (JAX's
    # pspec_to_sharding: outside set_mesh, its error)
    targets = flatten_axes("device_put device", tree, device)
    srcs = flatten_axes("device_put source", tree, src)
    targets, srcs = ([_mesh.resolve(d) if isinstance(d, PartitionSpec) else d for d in places]
                     for places in (targets, srcs))
    donates = flatten_axes("device_put donate", tree, donate)
    aliases = flatten_axes("device_put may_alias", tree, may_alias)
    semantics = [_transfer.copy_semantics_of(False, d, m) for d, m in zip(donates, aliases)]
    if any(isinstance(leaf, Tracer) for leaf in leaves):
        # traced: one device_put equation for all the leaves, as JAX binds it
        outs = _transfer.device_put_p.bind(
            *leaves, devices=tuple(targets),
            srcs=tuple(_transfer.source_of(leaf) if s is None else s
                       for leaf, s in zip(leaves, srcs)),
            copy_semantics=tuple(semantics))
        return tree_unflatten(tree, outs)
    outs = [_put.device_put(leaf, d, copy=c != _transfer.ArrayCopySemantics.REUSE_INPUT)
            for leaf, d, c in zip(leaves, targets, semantics)]
    for leaf, d, c in zip(leaves, targets, semantics):
        _donated(leaf, d, c)
    return tree_unflatten(tree, outs)


def _donated(x, target, semantics) -> None:
    """Delete a donated Array that JAX reshards by a jit donating it: one split over a mesh
    put onto the same devices in another order (dispatch.py's
    `_different_device_order_reshard`); JAX's other moves keep it."""
    if semantics != _transfer.ArrayCopySemantics.DONATE_INPUT or \
            not isinstance(target, _mesh.NamedSharding) or target.num_devices < 2:
        return
    own = getattr(x, "sharding", None)
    if isinstance(own, _mesh.NamedSharding) and not x.is_deleted() and \
            tuple(own._device_assignment) != tuple(target._device_assignment) and \
            set(own._device_assignment) == set(target._device_assignment):
        x.delete()


def _refused_in_eager_body(devices) -> None:
    """A device named in a shard_map body run eagerly: JAX's error (where JAX binds
    device_put_p even for a constant, jxkernel places one at once; the body's trace says)."""
    refuse = getattr(current_trace(), "refuse_device_put", None)
    if refuse is not None:
        refuse(devices)


def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    """(fwd, bwd): `fwd(*args)` is `jax.vjp` of `fun` in the arguments `argnums` (returning
    (out, residuals), or (out, residuals, aux) with `has_aux`), `bwd(residuals, cotangent)`
    their cotangents (one array for an int `argnums`). Both jitted unless `jitted=False`: the
    backward pass compiles once, not once per vjp.

    >>> fwd, bwd = fwd_and_bwd(lambda x, w: x * w, argnums=1)
    >>> y, res = fwd(2.0, 3.0)
    >>> float(bwd(res, 1.0))
    2.0
    """
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    def fwd(*args):
        def partial_fun(*dyn):
            full = list(args)
            for i, value in zip(nums, dyn):
                full[i] = value
            return fun(*full)
        return vjp(partial_fun, *[args[i] for i in nums], has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        g = f_vjp(outgrad)
        return g[0] if single else g

    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """A global Array laid out as `sharding` from the data this process holds (any pytree of
    arrays, with `sharding` and `global_shape` as prefixes). In a single-process run the
    local data is the whole array: `global_shape`, if given, must be its shape.

    >>> make_array_from_process_local_data(jxkernel.devices()[0], np.arange(3.0))
    Array([0., 1., 2.], dtype=float32)
    """
    leaves = tree_flatten(local_data)[0]
    shapes = broadcast_prefix(global_shape, local_data,
                              is_leaf=lambda s: s is None or isinstance(s, tuple))
    if _client.process_count() > 1:
        raise NotImplementedError(
            "make_array_from_process_local_data over several processes is not supported by "
            "jxkernel yet: build the array with jax.make_array_from_callback (each process "
            "answers for its devices' blocks)")
    for shape, data in zip(shapes, leaves):
        if shape is not None and tuple(shape) != np.shape(data):
            raise ValueError(f"When calling `make_array_from_process_local_data` on a single "
                             f"process, global_shape should be None or equal to "
                             f"local_data.shape.Got global_shape={tuple(shape)} and "
                             f"local_data.shape={np.shape(data)}.")
    return device_put(local_data, sharding)


def typeof(x):
    """The abstract value (shape, dtype, weak type) of an array, tracer or Python scalar.

    >>> typeof(1.0)
    ShapedArray(float32[], weak_type=True)
    """
    rule = typeof_rules.get(type(x))        # a type a library registered (hijax, refs)
    return rule(x) if rule is not None else public_type(get_aval(x), x)


# ------------------------------------------------------------------ names
@api_boundary
def named_call(fun, *, name: str | None = None):
    """`fun`, to be traced under the name `name` (default: its __name__): its equations are
    named under it, which only the HLO location metadata shows (`jit(f)/layer1/sin`, XLA's
    op_name; jaxprs do not print it), as in JAX.

    >>> named_call(jnp.sin, name="layer1")(0.0)
    Array(0., dtype=float32, weak_type=True)
    """
    name = getattr(fun, "__name__", "fun") if name is None else name
    if not isinstance(name, str):
        raise TypeError(f"named_call name argument must be a string, got {name!r}")

    @functools.wraps(fun)
    def named(*args, **kwargs):
        with name_scope(name):
            return fun(*args, **kwargs)
    return named


@contextlib.contextmanager
def named_scope(name: str):
    """``with named_scope("block"):`` names the operations traced inside (`jit(f)/block/sin` in
    the HLO's op_name); jaxprs print as JAX's, which do not show it."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    with name_scope(name):
        yield


# ------------------------------------------------------------------ config context managers
class _ConfigState:
    """A config option as JAX's top-level state objects: ``with enable_x64(True):`` sets it in
    the block only, ``enable_x64.value`` reads it."""

    _NO_DEFAULT = object()

    def __init__(self, option: str, default_arg=_NO_DEFAULT):
        self.option, self._default_arg = option, default_arg
        self.__doc__ = config._options[option].help

    @property
    def value(self):
        return getattr(config, self.option)

    def __call__(self, new_value=_NO_DEFAULT):
        if new_value is self._NO_DEFAULT:
            if self._default_arg is self._NO_DEFAULT:
                raise TypeError(f"Context manager for {self.option.removeprefix('jax_')} "
                                "config option requires an argument representing the new value "
                                "for the config option.")
            new_value = self._default_arg
        return config.override(self.option, new_value)

    def get_global(self):
        """The option's value outside any `with` block of it in this thread."""
        return config.global_value(self.option)

    def set_global(self, value) -> None:
        """Set the option for the whole process, as `config.update` does."""
        config.update(self.option, value)

    def __repr__(self):
        return f"<config state {self.option}={self.value!r}>"


enable_x64 = _ConfigState("jax_enable_x64", True)
log_compiles = _ConfigState("jax_log_compiles", True)
default_device = _ConfigState("jax_default_device")
debug_nans = _ConfigState("jax_debug_nans", True)
debug_infs = _ConfigState("jax_debug_infs", True)
numpy_dtype_promotion = _ConfigState("jax_numpy_dtype_promotion")
numpy_rank_promotion = _ConfigState("jax_numpy_rank_promotion")
default_matmul_precision = _ConfigState("jax_default_matmul_precision")
explain_cache_misses = _ConfigState("jax_explain_cache_misses", True)
enable_checks = _ConfigState("jax_enable_checks", True)
no_tracing = _ConfigState("jax_no_tracing", True)
allow_f16_reductions = _ConfigState("jax_allow_f16_reductions", True)
legacy_prng_key = _ConfigState("jax_legacy_prng_key")
default_prng_impl = _ConfigState("jax_default_prng_impl")
enable_custom_prng = _ConfigState("jax_enable_custom_prng", True)
debug_key_reuse = _ConfigState("jax_debug_key_reuse", True)
softmax_custom_jvp = _ConfigState("jax_softmax_custom_jvp", True)
no_execution = _ConfigState("jax_no_execution", True)
jax2tf_associative_scan_reductions = _ConfigState("jax2tf_associative_scan_reductions", True)
threefry_partitionable = _ConfigState("jax_threefry_partitionable", True)
thread_guard = _ConfigState("jax_thread_guard", True)
auto_pcast = _ConfigState("jax_auto_pcast", True)
array_garbage_collection_guard = _ConfigState("jax_array_garbage_collection_guard")
remove_size_one_mesh_axis_from_type = _ConfigState("jax_remove_size_one_mesh_axis_from_type", True)
disable_vmap_shmap_error = _ConfigState("jax_disable_vmap_shmap_error", True)


# ------------------------------------------------------------------ environment
def _version(package: str) -> str:
    import importlib.metadata    # here, not at the top: it loads email, zipfile, csv, ...
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def print_environment_info(return_string: bool = False) -> str | None:
    """Versions, devices and JAX_/XLA_/JXKERNEL_ environment variables, for bug reports.

    >>> print_environment_info(return_string=True).splitlines()[0]
    'jxkernel: 0.1.0'
    """
    devices = _client.devices()
    info = "\n".join([
        # version.py sits at the package root, above this layer: read it from the root
        f"jxkernel: {sys.modules['jxkernel'].__version__}",
        f"jaxlib: {_version('jaxlib')}",
        f"numpy:  {np.__version__}",
        f"python: {sys.version.replace(chr(10), ' ')}",
        f"device info: {devices[0].device_kind}-{len(devices)}, "
        f"{len(_client.local_devices())} local devices",
        f"process_count: {_client.process_count()}",
        f"platform: {platform.uname()}",
        f"fast path: {FASTPATH_STATE}"])        # the compiled cache hit: on, or why not
    for key, value in os.environ.items():
        if key.startswith(("JAX_", "XLA_", "JXKERNEL_")):
            info += f"\n{key}={value}"
    if return_string:
        return info
    print(info)
    return None


def copy_to_host_async(x):
    """Start copying every Array in the pytree `x` to the host (leaves without a
    `copy_to_host_async` method are left alone); returns `x`. A later `np.asarray` of a leaf
    then waits only for what is left of its copy."""
    for leaf in tree_flatten(x)[0]:
        copy = getattr(leaf, "copy_to_host_async", None)
        if copy is not None:
            copy()
    return x


def effects_barrier() -> None:
    """Wait until every side effect (debug.print, callbacks) of work started so far is done.
    Programs with host callbacks already finish before their call returns here; the programs
    with a library's ordered effects are waited for by their tokens, which are then dropped
    (JAX's `runtime_tokens.block_until_ready()`)."""
    if _tokens.runtime_tokens.current_tokens:
        _tokens.runtime_tokens.block_until_ready()
