"""pmap: run one program on several devices at once, one slice of the mapped axis each.

    >>> pmap(lambda x: x / lax.psum(x, 'i'), axis_name='i')(jnp.arange(4.0))    # 4 devices
    Array([0.        , 0.16666667, 0.33333334, 0.5       ], dtype=float32)

As in JAX 0.10.2 (jax/_src/pmap.py), pmap is `jit` of `shard_map`: the mapped axis becomes a
one-axis Mesh named `axis_name` over the first devices, each argument's mapped axis is split
over it (in_specs `P(None, ..., axis_name)`), and inside the shard_map body the size-1 block
axis is squeezed away before the user's function runs and put back (out_axes) after. A
result is therefore an ordinary Array sharded over that mesh (`.sharding` is a
NamedSharding), `jit(pmap(f))` stages the same `jit[shard_map]` equation, and grad, vmap,
jvp and checkify go through jit's and shard_map's rules. In a multi-process run (jax.
distributed) each process passes its local part; it is made a global Array over all
processes' devices and the results are cut back to this process's part, as JAX does.
"""
from __future__ import annotations

import functools
import weakref

import numpy as np

from ..core.avals import ShapedArray, get_aval
from ..core.lru import LRU, SIGNATURES
from ..core.mesh import IndivisibleError, Mesh, NamedSharding, PartitionSpec
from ..core.trace import EvalTrace, current_trace
from ..core.traceback_util import api_boundary
from ..lax.shapes import concatenate, expand_dims, squeeze
from ..tree_util import (broadcast_prefix, prefix_errors, tree_flatten, tree_leaves, tree_map,
                         tree_unflatten)
from ..transforms.api_util import check_callable, ensure_index_tuple, merge_static, wraps
from ..transforms.batching import size_mismatch, size_names
from ..transforms.jit import jit
from ..transforms.jit.sharded import _check_fit
from ..xla import client as _client
from ..xla.array import Array
from ..xla.put import device_put
from ..xla.sharded import make_array_from_single_device_arrays
from .shard_map import shard_map

# the axis name pmap gives the mesh when none is named (JAX's, seen in the result's sharding)
_DEFAULT_AXIS = "_internal_pmap_axis_name"
_is_none = lambda x: x is None    # noqa: E731  None is a leaf of in_axes/out_axes, not a node


@api_boundary
def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Map `fun` over axis `in_axes` of its arguments, one slice per device, in parallel."""
    if devices is not None:
        if not devices:
            raise ValueError("'devices' argument to pmap must be non-empty, or None.")
        devices = tuple(devices)
    check_callable(fun)
    axis_name = _DEFAULT_AXIS if axis_name is None else axis_name
    # (argnums that are no indices: Python's TypeError, as JAX's _ensure_index_tuple gives it)
    static = ensure_index_tuple(static_broadcasted_argnums)
    donated = ensure_index_tuple(donate_argnums)
    if set(static) & set(donated):       # JAX's rebase_donate_argnums
        raise ValueError(f"`static_argnums` {sorted(set(static))} and `donate_argnums` "
                         f"{sorted(set(donated))} cannot intersect.")
    # donate_argnums count positions among all arguments; jit sees the dynamic ones only
    donate = tuple(i - sum(s < i for s in static) for i in donated if i not in static)
    for what, axes in (("in_axes", in_axes), ("out_axes", out_axes)):
        if not all(type(leaf) is int for leaf in tree_leaves(axes)):
            raise TypeError(f"pmap {what} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {axes}.")
    # (statics, in tree, in axes, devices, donated) -> _Cached: its jit keeps the traces and
    # programs of the argument types it met, as JAX's lu.cache'd shard_map does; shared by
    # the pmaps of one function with the same options (pmap(f)(x) in a loop compiles once)
    cache = _shared_cache(fun, (axis_name, _hashable_tree(in_axes), _hashable_tree(out_axes),
                                static, devices, backend, axis_size, donate))

    def infer(args, kwargs):
        """(the cached jit of shard_map for this call, its flat arguments, whether it runs
        eagerly, the number of processes)."""
        eager = isinstance(current_trace(), EvalTrace)
        if static and max(static) >= len(args):
            raise ValueError(
                f"pmapped function has static_broadcasted_argnums={static} but was called "
                f"with only {len(args)} positional argument{'s' if len(args) > 1 else ''}. "
                f"All static broadcasted arguments must be passed positionally.")
        dyn = tuple(a for i, a in enumerate(args) if i not in static)
        dyn_axes = tuple(in_axes[i] for i in range(len(args)) if i not in static) \
            if static and isinstance(in_axes, tuple) else in_axes
        flat, tree = tree_flatten((dyn, kwargs))
        flat_axes = _flat_in_axes(dyn_axes, dyn, kwargs, len(flat))
        # a negative axis counts from the end (JAX 0.10.2 splits axis 0 for it instead)
        flat_axes = tuple(ax if ax is None or ax >= 0 else ax % max(_ndim(x), 1)
                          for x, ax in zip(flat, flat_axes))
        size = _mapped_axis_size(flat, flat_axes)
        mesh_devices, processes, global_size = _mesh_devices(devices, backend, size,
                                                              axis_size, eager)
        try:
            _check_sizes(fun, args, kwargs, static, flat, flat_axes, len(mesh_devices))
        except ValueError as error:     # the error card tries other in_axes, abstractly
            error.pmap_call = (functools.partial(
                pmap, fun, axis_name, out_axes=out_axes, devices=devices, backend=backend,
                static_broadcasted_argnums=static_broadcasted_argnums), args, kwargs,
                flat_axes)
            raise
        donated = tuple(i for i, leaf_arg in enumerate(_leaf_argnums(dyn, kwargs))
                        if leaf_arg in donate) if donate else ()
        statics = tuple((i, args[i]) for i in static)
        key = (statics, tree, flat_axes, mesh_devices, donated)
        try:
            cached = cache.get(key)
        except TypeError:
            for i, value in statics:             # JAX's error, naming the first unhashable
                try:
                    hash(value)
                except TypeError:
                    raise ValueError(
                        f"Non-hashable static arguments are not supported, as this can lead "
                        f"to unexpected cache-misses. Static argument (index {i}) of type "
                        f"{type(value)} for function {getattr(fun, '__name__', fun)} is "
                        f"non-hashable.") from None
            key, cached = None, None             # (unhashable in_axes leaves: a new trace)
        if cached is None:
            cached = _Cached(fun, dict(statics), len(args), tree, flat_axes, out_axes,
                             donated, mesh_devices, axis_name, global_size)
            if key is not None:
                cache[key] = cached
        cached.check_devices(flat)
        if eager and processes == 1:     # (several: each passes its part of the global axis)
            cached.check_fit(flat)
        return cached, flat, eager, processes

    @wraps(fun)            # outside the boundary, as vmap's: `__wrapped__` is the user's fun
    @api_boundary
    def pmapped(*args, **kwargs):
        cached, flat, eager, processes = infer(args, kwargs)
        if processes > 1 and eager:       # each process's part, made one global Array
            # the multi-process runtime loads only when jax.distributed is used
            from . import multihost_utils as mh
            flat = mh.host_local_array_to_global_array(tuple(flat), cached.mesh,
                                                       cached.in_specs)
            out = cached.jitted(eager)(*flat)
            return mh.global_array_to_host_local_array(out, cached.mesh, cached.out_specs)
        if eager:
            flat = cached.on_the_mesh(flat)
        return cached.jitted(eager)(*flat)

    def lower(*args, **kwargs):
        """Ahead of time, as JAX's `pmap(f).lower(*args)`: the jit of shard_map lowered for
        these arguments (a jax.stages.Lowered; `.compile()` it)."""
        cached, flat, eager, _ = infer(args, kwargs)
        # its Compiled takes the arguments as pmap does (JAX's Lowered gets their args_info)
        return cached.jitted(eager).trace(*flat).taking(cached.in_tree).lower()

    pmapped.lower = lower
    return pmapped


# fun -> {pmap options -> its LRU of _Cached}: held weakly by the function, as JAX's caches
_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _shared_cache(fun, options) -> LRU:
    """The cache of `fun`'s pmaps with these options (a cache of its own where `fun` cannot
    be held weakly or the options hashed)."""
    try:
        return _CACHES.setdefault(fun, {}).setdefault(options, LRU(SIGNATURES))
    except TypeError:
        return LRU(SIGNATURES)


def _hashable_tree(axes):
    """in_axes/out_axes as a hashable key (lists among them: their leaves and structure)."""
    leaves, tree = tree_flatten(axes, is_leaf=_is_none)
    return tuple(leaves), tree


def _ndim(x) -> int:
    return len(getattr(x, "shape", ()))


def _leaf_argnums(dyn, kwargs) -> list:
    """Per leaf of (dyn, kwargs): the dynamic argument it belongs to (None for keywords)."""
    return [i for i, a in enumerate(dyn) for _ in range(len(tree_leaves(a)))] + \
        [None] * len(tree_leaves(kwargs))


def _flat_in_axes(dyn_axes, dyn, kwargs, n) -> tuple:
    """One axis (or None) per leaf of (dyn, kwargs): keywords are mapped over axis 0."""
    if isinstance(dyn_axes, int) and (dyn_axes == 0 or not kwargs):
        return (dyn_axes,) * n
    try:
        return tuple(broadcast_prefix((dyn_axes, 0), (dyn, kwargs), is_leaf=_is_none))
    except ValueError:
        # (JAX's words: where the first mismatch is, what each tree has there)
        (msg,) = prefix_errors((dyn_axes, 0), (dyn, kwargs), is_leaf=_is_none)[0](
            "pmap in_axes").args
        msg += ("\n\nThe 'full pytree' here is the tuple of arguments passed positionally to "
                "the pmapped function, and the value of `in_axes` must be a tree prefix of "
                "that tuple. But it was not a prefix.")
        if kwargs:
            msg += ("\n\nWhen some arguments are passed by keyword to the pmapped function, "
                    "they are not included in the comparison to `in_axes`. Instead, each "
                    "argument passed by keyword is mapped over its leading axis. See the "
                    "description of `in_axes` in the `pmap` docstring: "
                    "https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html#jax.pmap")
        raise ValueError(msg + "\n\nCheck that the value of the `in_axes` argument to `pmap` "
                         "is a tree prefix of the tuple of arguments passed positionally to "
                         "the pmapped function.") from None


def _mapped_axis_size(flat, flat_axes) -> int:
    """The size of the first mapped argument's mapped axis (shard_map checks the others)."""
    for x, ax in zip(flat, flat_axes):
        if ax is not None and hasattr(x, "shape"):
            if ax >= len(x.shape):       # jxkernel's message: JAX's is a sharding's rank error
                raise ValueError(f"pmap was requested to map its argument along axis {ax}, "
                                 f"which implies that its rank should be at least {ax + 1}, "
                                 f"but is only {len(x.shape)} (its shape is {x.shape})")
            return int(x.shape[ax])
    raise ValueError("pmap requires at least one argument with a mapped axis.")


def _check_sizes(fun, args, kwargs, static, flat, flat_axes, n) -> None:
    """Refuse mapped axes of different sizes, naming each argument, its type and axis, in the
    words of vmap's error for the same mistake, and saying what to do. jxkernel's words: JAX
    0.10.2 reads the first argument's axis alone (its pmap.py: "shard_map already does a
    check") for a mesh of `n` devices, and what it raises is an accident of that, with the
    class kept here: the sharding's IndivisibleError where `n` does not divide another's
    size, else its body's squeeze of another's block ("cannot select an axis to squeeze out
    which has size not equal to one"), a ValueError."""
    mapped = [None if ax is None or ax >= _ndim(x) else int(x.shape[ax])
              for x, ax in zip(flat, flat_axes)]
    sizes = {s for s in mapped if s is not None}
    if len(sizes) < 2:
        return
    # (the static arguments as None, which has no leaves: a name per leaf of `flat`)
    named = tuple(None if i in static else a for i, a in enumerate(args))
    kind = IndivisibleError if any(s % n for s in sizes) else ValueError
    raise kind(size_mismatch(mapped, flat_axes, None, size_names(fun, named, kwargs), "pmap") +
                     "\npmap runs the function once per entry of the mapped axis, each on its "
                     "own device, so the mapped axes must have one size: map each argument "
                     "along an axis of that size (in_axes), or give None in in_axes for an "
                     "argument that every device takes whole.")


def _mesh_devices(devices, backend, size, axis_size, eager) -> tuple:
    """(the mesh's devices, the number of processes, the mapped axis's size over them all)
    for a mapped axis of `size` here."""
    processes = _client.process_count(backend)
    if processes == 1 and axis_size is not None and axis_size != size:
        raise ValueError(f"Specified axis_size {axis_size} doesn't match received "
                         f"axis_size {size}.")
    if axis_size is not None:
        global_size = axis_size
    elif processes > 1:
        global_size = size * processes
    else:
        global_size = size
    if devices is None and processes > 1:
        # devices of one process together, process by process (JAX's order)
        # (the multi-process runtime loads only when jax.distributed is used)
        from ..xla.distributed import pmap_devices
        found = pmap_devices(size, backend)
    elif devices is None:
        found = tuple(_client.devices(backend) if backend is not None else _client.devices())
    else:
        found = devices
    if processes > 1 and not eager:       # traced inside a jit: this process's devices
        found = tuple(d for d in found if d.process_index == _client.process_index())
        global_size = size
    return tuple(found[:global_size]), processes, global_size


def _axes_to_pspec(axis_name, axis):
    return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def _block_shape(shape, axis, n) -> tuple:
    """(the shape of one of `n` blocks of `shape` split along `axis`, axis)."""
    return shape[:axis] + (shape[axis] // n,) + shape[axis + 1:], axis


class _Cached:
    """A pmap for one signature: its mesh, specs, and the jit of its shard_map (with the
    mesh's shardings for an eager call, as JAX's; without, when traced inside a jit)."""

    def __init__(self, fun, statics, nargs, in_tree, flat_axes, out_axes, donated, devices,
                 axis_name, size):
        self.size = size         # the mapped axis's global size (the mesh may be smaller)
        self.in_tree = in_tree   # the (dynamic args, kwargs) the flat arguments come from
        self.mesh = mesh = Mesh(np.array(devices, dtype=object), (axis_name,))
        spec = functools.partial(_axes_to_pspec, axis_name)
        self.in_specs = tuple(spec(ax) for ax in flat_axes)
        self.flat_axes = flat_axes
        self.out_specs = tree_map(spec, out_axes, is_leaf=_is_none)

        def _fun(*flat_args):
            flat_args = [x if ax is None else squeeze(x, (ax,))
                         for x, ax in zip(flat_args, flat_axes)]
            dyn, kwargs = tree_unflatten(in_tree, flat_args)
            out = fun(*merge_static(statics, dyn, nargs), **kwargs)
            leaves, out_tree = tree_flatten(out)
            axes = broadcast_prefix(out_axes, out, is_leaf=_is_none)
            return tree_unflatten(out_tree, [x if ax is None else expand_dims(x, (ax,))
                                             for x, ax in zip(leaves, axes)])

        _fun.__name__ = _fun.__qualname__ = "_fun"      # the name JAX's jaxprs show
        # defined where `fun` is (its compiles are the user's, in the notebook's notes)
        _fun.__wrapped__ = fun
        _fun._logs_no_miss = True    # (JAX's own: no TRACING CACHE MISS for it, nor its body)
        body = shard_map(_fun, mesh=mesh, in_specs=self.in_specs, out_specs=self.out_specs,
                         check_vma=False, axis_names={axis_name})
        self._plain = jit(body, donate_argnums=donated)
        self._in_shardings = tuple(NamedSharding(mesh, s) for s in self.in_specs)
        self._placed = jit(body, donate_argnums=donated, in_shardings=self._in_shardings,
                           out_shardings=tree_map(lambda s: NamedSharding(mesh, s),
                                                  self.out_specs))
        self._placed._keeps_moved_donors = True     # (JAX's pmap donates the moved copy)
        # its event is the user's (the notes), but JAX's jit of `_fun` is JAX's own: no
        # TRACING CACHE MISS logged for it (compile_record._log_miss), its compile lines are
        self._plain._logs_no_miss = self._placed._logs_no_miss = True

    def check_devices(self, flat) -> None:
        """An error saying what to do where there are fewer devices than the mapped axis has
        entries (JAX's mesh is then the devices there are: its error is the shard_map's,
        or a squeeze's where the mesh divides the axis). The error carries `pmap_devices`
        (the axis's size, the devices, each mapped argument's shape and axis), which the
        pmap-devices error card reads: its text alone is a squeeze's, as any's."""
        if self.mesh.size >= self.size:
            return
        raise self._too_few_devices(flat)

    def _too_few_devices(self, flat) -> Exception:
        n = self.mesh.size
        platform = self.mesh.devices.flat[0].platform
        # our words after JAX's: how many there are, and what to do. Simulated devices are
        # the CPU's (and the NumPy backend's, the same knob); a GPU or TPU has the ones it has
        fix = "Map over at most that many, or use jax.vmap for a batch on one device."
        if platform in ("cpu", "numpy"):
            fix = (f"Set JXKERNEL_CPU_DEVICES={self.size} (before the first use of jxkernel) "
                   f"to simulate more {'NumPy' if platform == 'numpy' else 'CPU'} devices, "
                   f"or use jax.vmap for a batch on one device.")
        there = f"{'only 1 device is' if n == 1 else f'only {n} devices are'} available"
        error = None
        if self.size % n:         # JAX's error (its jit's), then what to do
            for x, s in zip(flat, self._in_shardings):
                try:
                    s.check_shape(get_aval(x).shape)
                except IndivisibleError as e:
                    error = IndivisibleError(f"{e}\npmap's mapped axis has size {self.size}, "
                                             f"but {there}. {fix}")
                    break
                except ValueError:
                    pass
        else:                     # JAX's error: its body's squeeze of a block of the axis
            block = next((_block_shape(get_aval(x).shape, ax, n)
                          for x, ax in zip(flat, self.flat_axes) if ax is not None), None)
            if block is not None:
                error = ValueError(f"cannot select an axis to squeeze out which has size not "
                                   f"equal to one, got shape={block[0]} and dimensions="
                                   f"({block[1]},)\npmap's mapped axis has size {self.size}, "
                                   f"but {there}. {fix}")
        if error is None:
            error = ValueError(f"compiling computation that requires {self.size} logical "
                               f"devices, but only {n} XLA devices are available "
                               f"(num_replicas={self.size}). {fix}")
        error.pmap_devices = {"size": self.size, "devices": n, "mapped": [
            (tuple(get_aval(x).shape), ax) for x, ax in zip(flat, self.flat_axes)
            if ax is not None]}
        return error

    def check_fit(self, flat) -> None:
        """JAX's errors for arguments the mesh does not split (its jit checks in_shardings
        before it traces): arguments of other sizes along the mapped axis, a scalar mapped."""
        # (an aval itself stands for its arguments in `.lower(ShapedArray(...))`, as in jit's)
        _check_fit("arguments", [f"flat_args[{i}]" for i in range(len(flat))],
                   [x if isinstance(x, ShapedArray) else get_aval(x) for x in flat],
                   self._in_shardings)

    def on_the_mesh(self, flat) -> list:
        """The arguments laid out over pmap's mesh: one sharded over another mesh of these
        devices (Chex's `_device_put_replicated` names its own axis) is put on pmap's, as
        JAX's pmap rewraps or re-places an argument before its jit."""
        return [device_put(x, s) if isinstance(getattr(x, "sharding", None), NamedSharding)
                and x.sharding.mesh != s.mesh else x for x, s in zip(flat, self._in_shardings)]

    def jitted(self, eager: bool):
        return self._placed if eager else self._plain


# ------------------------------------------------------------------ pmap-era placement
# JAX 0.10.2 removed these from `jax` (REMOVED in jxkernel/__init__.py gives its words) and
# keeps them in jax._src.api: each leaf stacked over `devices` along a new first axis, one
# slice per device (a mesh of those devices with one axis, named as JAX names it)
def device_put_sharded(shards, devices):
    """`shards` (a list of pytrees of one structure) stacked, shard i on devices[i].

    >>> device_put_sharded([np.float32(1)], jax.devices()[:1])
    Array([1.], dtype=float32)
    """
    if not isinstance(shards, (list, tuple)):
        raise TypeError(f"device_put_sharded `shards` input must be a sequence; got "
                        f"{type(shards)}")
    if len(shards) != len(devices):
        raise ValueError(f"len(shards) = {len(shards)} must equal len(devices) = "
                         f"{len(devices)}.")
    sharding = NamedSharding(Mesh(np.array(devices), ("_device_put_sharded",)),
                             PartitionSpec("_device_put_sharded"))

    def stacked(*xs):
        avals = [get_aval(x) for x in xs]
        for a1, a2 in zip(avals[:-1], avals[1:]):
            if (a1.shape, a1.dtype) != (a2.shape, a2.dtype):
                raise ValueError(f"the shards passed to device_put_sharded must have "
                                 f"consistent shape and dtype, but got {a1} and {a2}.")
        if all(type(x) is Array and x._sharding is None for x in xs):
            # each shard made on its device and put there (no transfer where it is there
            # already, as JAX's: allowed under transfer_guard("disallow_explicit"))
            blocks = [device_put(expand_dims(x, (0,)), d) for x, d in zip(xs, devices)]
            return make_array_from_single_device_arrays((len(xs), *avals[0].shape), sharding,
                                                        blocks)
        return device_put(concatenate([expand_dims(x, (0,)) for x in xs], 0), sharding)
    return tree_map(stacked, *shards)


def device_put_replicated(x, devices):
    """Each leaf of `x` on every device of `devices`, stacked along a new first axis.

    >>> device_put_replicated(np.float32(1), jax.devices()[:1])
    Array([1.], dtype=float32)
    """
    if not isinstance(devices, (list, tuple)) or not devices:
        raise ValueError("`devices` argument to `device_put_replicated must be a non-empty "
                         "sequence.")
    sharding = NamedSharding(Mesh(np.array(devices), ("_device_put_replicated",)),
                             PartitionSpec("_device_put_replicated"))
    return tree_map(lambda leaf: device_put(concatenate([expand_dims(leaf, (0,))] * len(devices),
                                                        0), sharding), x)
