"""vmap: vectorize a function by interpreting it with a batch dimension on its values.

    >>> vmap(jnp.dot, in_axes=(0, None))(jnp.ones((5, 3)), jnp.ones(3)).shape
    (5,)

A `BatchTracer` is a value plus the index of its batch dimension. For every
primitive, a batching rule (beside the primitive in lax/) maps batched
operands to batched results, moving the batch dimension only where the
primitive needs it. Unbatched values stay unbatched.
"""
from __future__ import annotations

import collections
import inspect
import math
import weakref

from ..core.traceback_util import api_boundary
from ..core.config import config
from ..core.avals import (abstract_token, dim_inserted, dim_removed, explicit_axes, get_aval,
                          parts_of)
from ..core.mesh import get_mesh
from ..core import vma
from ..core.interpret import eval_jaxpr
from ..core.ir import ClosedJaxpr
from ..core.lru import TRACES, WeakLRU
from ..core.name_stack import name_scope
from ..core.primitive import axis_batching_rules
from ..core.primitive import rule as _rule
from ..core.source_info import function_source_info, user_source_info
from ..core.trace import Trace, Tracer, aval_text, new_trace, set_current_trace
from . import batch_util as bu
from . import vmappable
from .batch_util import not_mapped
from .api_util import check_callable, flatten_axes, positional_parameters, wraps
from ..tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_leaves,
                         tree_structure, tree_unflatten)
from ..core.staging import is_ref, trace_to_jaxpr
from ..core.errors import check_passed_once
from ..xla.transfers import foreign_argument, shard_arg_handlers


class AxisData:
    """A vmap's axis: its name, size and explicit mesh axes (`ema`: the mesh axes its mapped
    inputs' batch dimension is split over, JAX's explicit_mesh_axis, or None), and
    `spmd_name`: vmap's spmd_axis_name as a tuple (the mesh axes a sharding constraint or a
    shard_map inside splits the batch dimension over), or None."""
    __slots__ = ("name", "size", "ema", "spmd_name")
    on_devices = False      # whether a mesh axis's devices are batched as it (DevicesAxisData)

    def __init__(self, name, size, ema=None, spmd_name=None):
        self.name, self.size, self.ema, self.spmd_name = name, size, ema, spmd_name

    @property
    def explicit_mesh_axis(self):
        """`ema`, unless set_mesh's mesh makes those axes other than Explicit (JAX's)."""
        mesh = get_mesh()
        if self.ema is None or mesh is None or not mesh.axis_names:
            return self.ema
        return self.ema if self.ema[0] in explicit_axes(mesh) else None

    def __repr__(self):
        return f"AxisData({self.name!r}, {self.size})"


class DevicesAxisData(AxisData):
    """A mesh axis's devices batched as one axis: the NumPy backend's shard_map and pmap
    (api/shard_map/primitive.py), where collectives take axis_index_groups as XLA's do
    (vmap's refuse them, as JAX's)."""
    __slots__ = ()
    on_devices = True


def mapped_axis_spec(leaves, axes):
    """The mesh axes the batch dimension of vmap's mapped inputs is split over (a tuple,
    or None): JAX's _mapped_axis_spec, with its error where two inputs' differ."""
    found, seen = None, False
    for x, ax in zip(leaves, axes):
        if ax is None:
            continue
        try:                 # (a Ref, or another value with no array type: no spec, as JAX)
            aval = get_aval(x)
        except TypeError:
            aval = None
        sharding = getattr(aval, "split", None)
        spec = None
        if sharding is not None and ax < len(aval.shape):
            axes_of = parts_of(aval)[ax]
            spec = None if not axes_of else axes_of[0] if len(axes_of) == 1 else axes_of
        if seen and spec != found:
            raise ValueError(f"Mapped away dimension of inputs passed to vmap should be "
                             f"sharded the same. Got inconsistent axis specs: {found} vs {spec}")
        found, seen = spec, True
    ema = None if found is None else found if isinstance(found, tuple) else (found,)
    _check_unmapped(ema, leaves, axes)
    return ema


def _check_unmapped(ema, leaves, axes) -> None:
    """JAX's error for an unmapped input split over the mesh axes vmap maps over."""
    for x, ax in zip(leaves, axes):
        if ema is None or ax is not None or is_ref(x):
            continue
        aval = get_aval(x)
        if getattr(aval, "split", None) is not None and \
                any(e in ema for p in parts_of(aval) for e in p):
            raise ValueError(f"Unmapped values passed to vmap cannot be sharded along the mesh "
                             f"axis you are vmapping over. Got type: {aval.str_short(True)}, "
                             f"in_axes: None and vmapped mesh axis: {ema}")


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim", "source_info")
    # its type as JAX's messages print it (a tree_map of mismatched trees names it), JAX's own
    # path, as forward.py's tracers have (no jxkernel module holds this name)
    _jax_class_path = "jax._src.interpreters.batching.BatchTracer"

    def __init__(self, trace, val, batch_dim: int):
        self._trace, self.val, self.batch_dim = trace, val, batch_dim
        # the user's line that made it, which a tracer error and the leak checker name (as
        # JAX's BatchTracer keeps source_info_util.current())
        self.source_info = user_source_info()

    def describe_creation(self) -> str:
        """JAX's BatchTracer._origin_msg: the line that made it, where it was recorded."""
        if self.source_info is None:
            return ""
        return (f"This BatchTracer with object id {id(self)} was created on line:\n"
                f"  {self.source_info}\n")

    @property
    def aval(self):
        return dim_removed(get_aval(self.val), self.batch_dim)

    def _short_repr(self):
        return f"VmapTracer(aval={aval_text(self.aval)}, batched={aval_text(get_aval(self.val))})"


class BatchTrace(Trace):
    def __init__(self, parent, axis_data: AxisData):
        super().__init__(parent)
        self.axis_data = axis_data

    def unpack(self, x):
        if type(x) is BatchTracer and self.shares_tag(x._trace):
            return x.val, x.batch_dim
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return x, not_mapped

    def process_primitive(self, prim, args, params):
        vals, dims = zip(*map(self.unpack, args)) if args else ((), ())
        axis_rule = axis_batching_rules.get(prim)
        with set_current_trace(self.parent):
            if axis_rule is not None:
                outs, out_dims = axis_rule(self.axis_data, vals, dims, **params)
            elif all(d is not_mapped for d in dims):
                return prim.bind(*vals, **params)
            else:
                outs, out_dims = _rule("batching", prim)(vals, dims, **params)
        if prim.multiple_results:
            return [self.wrap(o, d) for o, d in zip(outs, out_dims)]
        return self.wrap(outs, out_dims)

    def wrap(self, val, dim):
        return val if dim is not_mapped else BatchTracer(self, val, dim)

    def shares_tag(self, other) -> bool:
        """Whether `other` is a live trace of the same vmap (JAX's trace tag): a custom rule
        run by `batch_subtrace` sees the tracers it closes over as batched values."""
        return other is self or (type(other) is BatchTrace and other.axis_data is self.axis_data
                                 and other.alive)

    def describe_self(self):
        return f"vmap (axis name {self.axis_data.name!r}, size {self.axis_data.size})"

    def describe_origin(self, tracer) -> str:
        """The line that made `tracer`, in a tracer error (JAX's BatchTracer._origin_msg)."""
        return tracer.describe_creation() if type(tracer) is BatchTracer else ""


def batch_subtrace(fun, axis_data: AxisData, vals, dims) -> tuple:
    """(outputs, batch dims) of `fun(*vals)`, `vals` batched at `dims`, under a new trace of
    `axis_data`'s vmap (JAX's batch_subtrace, for custom rules); a non-tracer output (a
    symbolic zero) comes back unbatched.

        >>> batch_subtrace(lambda x: [x * 2.0], AxisData(None, 2), [jnp.ones(2)], [0])
        ([Array([2., 2.], dtype=float32)], [0])
    """
    with new_trace(BatchTrace, axis_data) as trace:
        outs = fun(*[trace.wrap(v, d) for v, d in zip(vals, dims)])
        with set_current_trace(trace.parent):
            return tuple(map(list, zip(*map(trace.unpack, outs)))) if outs else ([], [])


# ------------------------------------------------------------------ vmap
def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """Vectorize `fun` over the `in_axes` of its arguments; results get a batch axis at
    `out_axes`. `in_axes`/`out_axes` are ints, None (not mapped) or pytree prefixes."""
    check_callable(fun)
    if spmd_axis_name is not None and not isinstance(spmd_axis_name, tuple):
        spmd_axis_name = (spmd_axis_name,)       # as JAX keeps it
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)     # JAX treats a list like a tuple prefix here
    # JAX checks the specs when vmap is called, before any pytree of them is unflattened
    specs = (int, *vmappable.spec_types())       # (a registered type's spec: its own)
    if not (in_axes is None or type(in_axes) in (tuple, *specs)):
        raise TypeError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding "
                        f"to the positional arguments passed to the function, but got "
                        f"{in_axes}.")
    for what, spec in (("in_axes", in_axes), ("out_axes", out_axes)):
        if not all(type(leaf) in specs for leaf in tree_flatten(spec)[0]):
            raise TypeError(f"vmap {what} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {spec}.")

    docstr = ("Vectorized version of {fun}. Takes similar arguments as {fun} but with "
              "additional array axes over which {fun} is mapped.")
    if fun.__doc__:
        docstr += "\n\nOriginal documentation:\n\n" + fun.__doc__

    @wraps(fun, docstr=docstr)
    @api_boundary
    def vmapped(*args, **kwargs):
        name = getattr(fun, "__name__", "fun")
        if in_axes is None or type(in_axes) in specs:
            axes = (in_axes,) * len(args)
        elif isinstance(in_axes, tuple):
            axes = in_axes
            if len(axes) != len(args):
                raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                                 f"corresponding to the positional arguments passed to the "
                                 f"function, but got len(in_axes)={len(axes)}, "
                                 f"len(args)={len(args)}")
        else:
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                             f"corresponding to the positional arguments passed to the function, "
                             f"but got {in_axes!r}.")
        # a registered type's values are whole leaves; keyword arguments are mapped at axis 0,
        # as JAX's
        shadow, kw_shadow = vmappable.shadowed(args), vmappable.shadowed(kwargs)
        flat_axes = flatten_axes("vmap in_axes", tree_structure((shadow, kw_shadow)), (axes, 0),
                                 kws=True)
        leaves, treedef = tree_flatten(shadow)
        kw_leaves, kw_tree = tree_flatten(kw_shadow)
        leaves = leaves + kw_leaves
        refs = [i for i, x in enumerate(leaves) if is_ref(x)]
        if len(refs) > 1:               # one Ref passed twice: JAX's error, as jit's
            source = function_source_info(fun)
            where = f"{name} at {source.file}:{source.line}" if source else name
            check_passed_once(where, leaves, refs, lambda: _arg_names(fun, args, kwargs), "vmap")
        if shard_arg_handlers:         # a library's array classes among them: their EArrays
            leaves = [foreign_argument(x) for x in leaves]
        flat_axes = _leaf_axes(flat_axes, leaves, name, shadow)
        # a registered type's values take no part in the size (JAX's rule: axis_size says it)
        plain = [i for i, x in enumerate(leaves) if type(x) is not vmappable.Whole]
        plain_leaves, plain_axes = [leaves[i] for i in plain], [flat_axes[i] for i in plain]
        try:
            size = _mapped_size(plain_leaves, plain_axes, axis_size, fun, args, kwargs)
        except ValueError as error:     # the error card tries other in_axes on them, abstractly
            error.vmap_call = (fun, args, kwargs, flat_axes, dict(
                out_axes=out_axes, axis_name=axis_name, spmd_axis_name=spmd_axis_name))
            raise
        # named under `vmap`, as JAX's vmap names what it traces (`jit(f)/vmap()/cos`)
        ema = mapped_axis_spec(plain_leaves, plain_axes)
        data = AxisData(axis_name, size, ema, _spmd_name(spmd_axis_name, ema))
        with name_scope("vmap("), new_trace(BatchTrace, data) as trace:
            tracers = [_to_elt(trace, x, ax, size, name) for x, ax in zip(leaves, flat_axes)]
            call_args = tree_unflatten(treedef, tracers[:len(leaves) - len(kw_leaves)])
            call_kwargs = tree_unflatten(kw_tree, tracers[len(leaves) - len(kw_leaves):])
            out = vmappable.shadowed(fun(*call_args, **call_kwargs))
            out_leaves, out_tree = tree_flatten(out)
            flat_out_axes = flatten_axes("vmap out_axes", out_tree, out_axes)
            results = [_from_elt(trace, x, ax, size, i, name, out)
                       for i, (x, ax) in enumerate(zip(out_leaves, flat_out_axes))]
        if config.jax_check_tracer_leaks:
            # the leak checker loads only when jax_check_tracer_leaks is on
            from ..core.tracer_errors.leaks import ensure_no_leaks
            finished = weakref.ref(trace)
            # ours: what holds the trace or its tracers after this is a leak
            del trace, tracers, call_args, call_kwargs, out, out_leaves
            ensure_no_leaks(finished)
        return tree_unflatten(out_tree, results)
    return vmapped


def _spmd_name(spmd_axis_name, ema):
    """vmap's spmd_axis_name as its AxisData keeps it: None where the mapped inputs are split
    over those Explicit mesh axes already, JAX's ValueError where over others."""
    if spmd_axis_name is None or ema is None:
        return spmd_axis_name
    mesh = get_mesh()
    if config.jax_remove_size_one_mesh_axis_from_type and mesh is not None:
        spmd_axis_name = tuple(a for a in spmd_axis_name if mesh.shape[a] != 1)
    if spmd_axis_name == ema:
        return None
    raise ValueError(f"Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis "
                     f"type is allowed. Got spmd_axis_name={spmd_axis_name!r} and arrays "
                     f"sharded on explicit_mesh_axis={ema!r}")


def _to_elt(trace, x, ax, size, name):
    """What the function sees of the argument leaf `x` mapped along `ax`."""
    if type(x) is vmappable.Whole:
        return vmappable.to_elt(x.value, ax, size, lambda v, a: _to_elt(
            trace, v, None if a is None else _normalize_axis(a, v, name), size, name))
    return x if ax is None else MappedRef(trace, x, ax) if is_ref(x) else \
        BatchTracer(trace, x, ax)


def _from_elt(trace, x, out_axis, size, index, name, out):
    """The result leaf `x` with its batch axis at `out_axis`."""
    if type(x) is vmappable.Whole:
        return vmappable.from_elt(x.value, out_axis, size, lambda v, a: _finish_output(
            trace, v, a, size, index, name, out))
    return _finish_output(trace, x, out_axis, size, index, name, out)


def _shape_of(x) -> tuple:
    if is_ref(x):
        return tuple(x.shape)
    aval = get_aval(x)      # (a token is of rank 0 to vmap, as JAX's: it maps no axis of one)
    return () if aval is abstract_token else aval.shape


class MappedRef:
    """A Ref argument of vmap, as the function sees it: its mapped axis hidden. Reads give
    the trace's batched values; a write stores the batched value back into the Ref, its
    batch axis where the Ref maps (an unbatched value is the same for every element).

    >>> out = jax.new_ref(jnp.zeros(3))
    >>> jax.vmap(lambda x, r: r.__setitem__(..., x * 2))(jnp.arange(3.), out); out
    Ref([0., 2., 4.], dtype=float32)
    """
    is_array_ref = True
    __slots__ = ("_trace", "_ref", "_axis")

    def __init__(self, trace, ref, axis):
        self._trace, self._ref, self._axis = trace, ref, axis

    shape = property(lambda self: tuple(s for i, s in enumerate(self._ref.shape)
                                        if i != self._axis))
    dtype = property(lambda self: self._ref.dtype)
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    @property
    def aval(self):
        """The Ref type the function sees (a jit inside keys its trace on it, as any Ref's)."""
        ref_aval = self._ref.aval
        return type(ref_aval)(ref_aval.inner_aval.update(shape=self.shape))

    @classmethod
    def stand_in(cls, mapped, argument: int):
        """What jit traces in place of this argument (transforms/jit/refs.py): a Ref of the
        type the function sees, without the mapped axis."""
        return type(mapped._ref).stand_in(mapped, argument)

    def _whole(self):
        with set_current_trace(self._trace.parent):
            value = self._ref[...]
        return BatchTracer(self._trace, value, self._axis)

    def __getitem__(self, idx):
        whole = self._whole()
        return whole if idx is Ellipsis or idx == () else whole[idx]

    def __setitem__(self, idx, value):
        # the batched whole with `value` written at `idx` (cast and broadcast as `.at` does:
        # the Array methods numpy installs on every Tracer; this layer imports no numpy)
        if (idx is Ellipsis or idx == ()) and get_aval(value).shape == self.shape and \
                get_aval(value).dtype == self.dtype:
            new = value              # the whole written: no read of what was there
        else:
            new = self._whole().at[idx].set(value)
        if isinstance(new, Tracer) and new._trace is not self._trace and \
                getattr(new._trace, "axis_data", None) is not None:
            # batched by an inner vmap that does not map this Ref: JAX's error
            inner = get_aval(new).update(shape=self.shape, weak_type=False)
            raise Exception(f"performing a set/swap operation with vmapped value on an "
                            f"unbatched array reference of type Ref{{{inner}}}. Move the "
                            f"array reference to be an argument to the vmapped function?")
        val, dim = self._trace.unpack(new)
        with set_current_trace(self._trace.parent):
            self._ref[...] = bu.move_to(val, dim, self._axis, self._trace.axis_data.size)

    def addupdate(self, x, idx=()):
        """`self[idx] += x` (a Ref's method, as JAX's)."""
        self[idx] = self[idx] + x

    def __repr__(self):
        return f"MappedRef(axis={self._axis}, shape={self.shape}, dtype={self.dtype.name})"


def _leaf_axes(flat_axes, leaves, name, args):
    """Each leaf's mapped axis, normalized; an axis the leaf has not raises JAX's ValueError,
    carrying which positional argument it was and every leaf's shape and axis (the notebook's
    error card reads them)."""
    try:
        return [ax if type(x) is vmappable.Whole else _normalize_axis(ax, x, name)
                for ax, x in zip(flat_axes, leaves)]
    except ValueError as error:
        counts = [len(tree_leaves(a)) for a in args]
        error.vmap_leaves = [(_shape_of(x), ax) for x, ax in zip(leaves, flat_axes)]
        error.vmap_leaf_counts = counts     # the leaves of each positional argument
        error.vmap_leaf_dtypes = [str(getattr(x, "dtype", "")) for x in leaves]   # a key's
        raise


def _normalize_axis(ax, x, name):
    if ax is None:
        return None
    if not isinstance(ax, int):
        raise TypeError(f"vmap in_axes must be an int, None, or a tree prefix of the arguments; "
                        f"got {ax!r}")
    nd = len(_shape_of(x))
    if not -nd <= ax < nd:
        raise ValueError(f"vmap was requested to map its argument along axis {ax}, which implies "
                         f"that its rank should be at least {ax + 1 if ax >= 0 else -ax}, but is "
                         f"only {nd} (its shape is {_shape_of(x)})")
    return ax % nd


def _mapped_size(leaves, axes, axis_size, fun, args, kwargs):
    """The size of the mapped axis, or JAX's ValueError saying which sizes disagree."""
    if not leaves and axis_size is None:
        raise ValueError(f"vmap wrapped function must be passed at least one argument "
                         f"containing an array or axis_size must be specified, got empty "
                         f"*args={args} and **kwargs={kwargs}")
    mapped = [None if ax is None else _shape_of(x)[ax] for x, ax in zip(leaves, axes)]
    sizes = {s for s in mapped if s is not None} | \
        ({int(axis_size)} if axis_size is not None else set())
    if len(sizes) == 1:
        return sizes.pop()
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes or axis_size "
                         "must be specified")
    raise ValueError(size_mismatch(mapped, axes, axis_size, size_names(fun, args, kwargs)))


def size_mismatch(mapped, axes, axis_size, names, name="vmap") -> str:
    """JAX's words: the most common size first, with an argument of that size for each (vmap's,
    or pmap's, whose words JAX 0.10.2 no longer says: api/pmap.py)."""
    counts = collections.Counter(s for s in mapped if s is not None).most_common()
    lines = [] if axis_size is None else [f"  * the `axis_size` argument was {axis_size};\n"]
    for n, (size, count) in enumerate(counts):
        i = mapped.index(size)
        where = f"axis {axes[i]} of {names[i]}"
        if count == 1:
            lines.append(f"  * one axis had size {size}: {where};\n")
        else:
            many = "most" if n == 0 else "some"
            lines.append(f"  * {many} axes ({count} of them) had size {size}, e.g. {where};\n")
    return (f"{name} got inconsistent sizes for array axes to be mapped:\n" +
            "".join(lines))[:-2]


def size_names(fun, args, kwargs) -> list:
    """Per flat argument leaf, as JAX's vmap names it in a size error: "argument x['a'] of
    type float32[3]" (by the signature's parameter names), `args[i]` past them or where the
    arguments do not bind, "kwargs['k']" for keyword arguments."""
    try:
        params = list(inspect.signature(fun).bind(*args, **kwargs).signature.parameters)
    except (TypeError, ValueError):
        params = None
    names = []
    for i, a in enumerate(args):
        for path, x in tree_flatten_with_path(a)[0]:
            base = f"argument {params[i]}" if params is not None and i < len(params) else \
                f"args[{i}]"
            names.append(f"{base}{keystr(path)} of type {_type_or_unknown(x)}")
    names += [f"kwargs{keystr(path)} of type {_type_or_unknown(x)}"
              for path, x in tree_flatten_with_path(kwargs)[0]]
    return names


def _type_str(x) -> str:
    aval = get_aval(x)
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _type_or_unknown(x) -> str:
    try:
        return _type_str(x)
    except TypeError:           # a leaf that is no array (a function passed unmapped)
        return "unknown"


def _arg_names(fun, args, kwargs) -> list:
    """A name per flat argument leaf, e.g. "b['w']", for error messages."""
    params = positional_parameters(fun) or []
    names = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) else f"args[{i}]"
        names.extend(base + keystr(p) for p, _ in tree_flatten_with_path(a)[0])
    for k in sorted(kwargs):
        names.extend(k + keystr(p) for p, _ in tree_flatten_with_path(kwargs[k])[0])
    return names


def _finish_output(trace, x, out_axis, size, index, name, out):
    if not isinstance(x, Tracer) and not is_ref(x):
        try:
            get_aval(x)
        except TypeError:          # JAX's words: a string or an object returned
            raise TypeError(f"Output from batched function {x!r} with type {type(x)} is not a "
                            f"valid JAX type") from None
    val, dim = trace.unpack(x)
    if out_axis is None:
        if dim is not not_mapped and trace.axis_data.name is not None:   # JAX's words
            raise ValueError(f"vmap has mapped output (axis_name={trace.axis_data.name}) but "
                             f"out_axes is None")
        if dim is not not_mapped:       # named by the output leaf's path, as JAX's
            path = keystr(tree_flatten_with_path(out)[0][index][0])
            raise ValueError(f"at vmap out_axes{path}, got axis spec None but output was "
                             f"batched on axis {dim}")
        return val
    if get_aval(val) is abstract_token:   # a token has no batch dimension to move or add:
        # JAX fails reading its sharding as it broadcasts it (its class and words)
        raise AttributeError("'AbstractToken' object has no attribute 'sharding'")
    with set_current_trace(trace.parent):
        nd = len(get_aval(val).shape) + (dim is not_mapped)
        if not -nd <= out_axis < nd:
            error = ValueError(f"axis {out_axis} is out of bounds for array of dimension {nd}")
            # JAX's words name the stacked result; the error card tells of out_axes and the
            # function's own output: (out_axes' entry, one element's shape, the leaf's path)
            shape = tuple(d for i, d in enumerate(get_aval(val).shape) if i != dim)
            error.vmap_out = (out_axis, shape, keystr(tree_flatten_with_path(out)[0][index][0]))
            raise error
        return bu.move_to(val, dim, out_axis % nd, size, trace.axis_data.explicit_mesh_axis)


# ------------------------------------------------------------------ batching jaxprs
_batched_jaxprs = WeakLRU(TRACES)   # weakly by the ClosedJaxpr, as JAX's weakref_lru_cache


def batch_jaxpr(closed: ClosedJaxpr, axis_data: AxisData, in_dims, force_out_batched=None) -> tuple:
    """(jaxpr over batched inputs, out dims): batched outputs get their batch dim at 0,
    unbatched ones stay unbatched unless `force_out_batched` says so (then they are
    broadcast). Cached, so re-batching a jitted jaxpr is free."""
    force = tuple(force_out_batched) if force_out_batched is not None else None
    key = (closed, (axis_data.name, axis_data.size, axis_data.explicit_mesh_axis,
                    axis_data.spmd_name, axis_data.on_devices, tuple(in_dims), force))
    found = _batched_jaxprs.get(key)
    if found is not None:
        return found
    in_avals = []
    for aval, d in zip(closed.in_avals, in_dims):
        if d is not_mapped:
            in_avals.append(aval)
        else:
            aval = dim_inserted(aval, d, axis_data.size,   # (its varying axes too)
                                axis_data.explicit_mesh_axis)
            if axis_data.spmd_name is not None and vma.checked:
                # a shard_map body batched over spmd_axis_name varies over those axes (JAX's)
                aval = aval.update(vma=aval.vma | frozenset(axis_data.spmd_name))
            in_avals.append(aval)
    out_dims = []

    def batched(*args):
        with new_trace(BatchTrace, axis_data) as trace:
            tracers = [a if d is not_mapped else BatchTracer(trace, a, d)
                       for a, d in zip(args, in_dims)]
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *tracers)
            result = []
            with set_current_trace(trace.parent):
                for i, o in enumerate(outs):
                    val, dim = trace.unpack(o)
                    if dim is not_mapped and force and force[i]:
                        val, dim = bu.bdim_at_front(val, dim, axis_data.size,
                                                    axis_data.explicit_mesh_axis), 0
                    out_dims.append(not_mapped if dim is not_mapped else 0)
                    result.append(val if dim is not_mapped else bu.moveaxis(val, dim, 0))
        return result

    found = _batched_jaxprs[key] = (trace_to_jaxpr(batched, in_avals), tuple(out_dims))
    return found
