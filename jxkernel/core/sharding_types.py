"""Sharding in types: on a mesh with Explicit axes an array's type says how it is split.

    >>> import jxkernel as jax, numpy as np
    >>> from jxkernel.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = jax.make_mesh((4, 2), ('x', 'y'))              # 8 devices, Explicit axes
    >>> x = jax.device_put(np.arange(8.0), NamedSharding(mesh, P('x')))
    >>> jax.typeof(x), jax.typeof(x * 2), jax.typeof(x.sum())
    (ShapedArray(float32[8@x]), ShapedArray(float32[8@x]), ShapedArray(float32[]))

`ShapedArray.split` holds a NamedSharding (None off such meshes, so nothing else pays).
While tracing, `apply` gives each result of a primitive the sharding its rule says
(`sharding_rules`, which each primitive's module fills, as JAX's `sharding_rule=`); a
primitive with no rule gives results with no sharding in their type (XLA then chooses, as on
an Auto mesh). Lowering constrains each typed result to its sharding
(`sdy.sharding_constraint`), so the layout is what the type says.
"""
from __future__ import annotations

import contextlib
import math
import threading

from . import avals as _avals
from . import vma as _vma
# the sharding an aval's type carries is defined with the avals; the rules below use it and
# the lax modules reach it through this module
from .avals import (MemorySpace, ShapedArray, dim_text, explicit_axes, make,  # noqa: F401
                    parts_of, shape_text, summed_axes, typed_sharding)
from .mesh import (AbstractMesh, AxisType, NamedSharding, PartitionSpec, abstracted,
                   get_abstract_mesh, get_mesh, recording_mesh)
from .interpreter_primitives import reshard as _reshard
from .ir import jaxpr_params
from .primitive import own_vma_rules, rule, sharding_rules, sharding_typing_rules
from .source_info import user_source_info
from .trace import EvalTrace, Tracer, current_trace


class ShardingTypeError(Exception):
    """A primitive's operands' shardings do not determine its result's (JAX's class)."""


# ------------------------------------------------------------------ abstract evaluation
def abstract_eval(prim, avals, params) -> list:
    """Output avals of `prim` on input `avals`, always as a list: its abstract_eval rule's,
    with the shardings its sharding rule gives them once a mesh with Explicit axes is in use.

    >>> import numpy as np
    >>> from jxkernel import lax
    >>> from jxkernel.core import ShapedArray
    >>> abstract_eval(lax.sin_p, [ShapedArray((3,), np.float32)], {})
    [ShapedArray(float32[3])]
    """
    out = rule("abstract_eval", prim)(*avals, **params)
    if isinstance(out, (list, tuple)) != prim.multiple_results and \
            (not prim.multiple_results or hasattr(out, "dtype") or hasattr(out, "shape")):
        raise ValueError(f"{prim.name}.abstract_eval() method should return a tuple or a list "
                         f"iff {prim.name}.multiple_results.")          # (JAX's words)
    out = list(out) if prim.multiple_results else [out]
    if _avals.memory_spaces_seen and prim not in own_memory_space_rules and \
            not jaxpr_params(params):
        out = memory_space_types(prim, avals, out)
    typing = _avals.sharding_types_seen or get_mesh() is not None
    out = apply(prim, avals, params, out) if typing else out
    return _over_operands_mesh(avals, out) if _avals.meshes_seen else out


# primitives that type their results' memory spaces themselves (device_put: its target's)
own_memory_space_rules: set = set()


def memory_space_types(prim, avals, out) -> list:
    """`out` in the memory space of the inputs of rank >= 1 (Device where there are none), which
    must all be in one, as JAX's standard rule (lax/utils._default_memory_space_rule) types a
    primitive's results: a host array and a device array meet in no operation."""
    arrays = [a for a in avals if type(a) is ShapedArray]
    if arrays and all(a.memory_space is MemorySpace.Any for a in arrays):
        space = MemorySpace.Any
    else:
        first = None
        for a in arrays:
            if not a.shape:
                continue
            if first is not None and first.memory_space is not a.memory_space:
                raise ValueError(f"memory_space of all inputs passed to `{prim.name}` must be "
                                 f"the same. Got one operand with type: {first.str_short()} "
                                 f"and another operand with type: {a.str_short()}")
            first = a
        space = MemorySpace.Device if first is None else first.memory_space
    return [o.update(memory_space=space) if type(o) is ShapedArray and
            o.memory_space is not space else o for o in out]


def _over_operands_mesh(avals, out) -> list:
    """Unsplit results named over their operands' mesh (the first that names one), as
    JAX's rules take it (its broadcasting_sharding_rule's `mesh`)."""
    mesh = next((m for a in avals if (m := getattr(a, "_mesh", None)) is not None
                 and m.axis_names), None)
    if mesh is None:
        return out
    return [o.over_mesh(mesh) if type(o) is ShapedArray and o._mesh is None else o
            for o in out]


# ------------------------------------------------------------------ out_sharding= overrides
_local = threading.local()


@contextlib.contextmanager
def out_sharding(prim, sharding):
    """Within: each `prim` whose result has `sharding`'s rank is typed as `sharding` (jnp.dot's
    out_sharding=); one of another rank (an inner contraction of an einsum) gets its rule's
    sharding, or none where the rule would raise (contracted split dimensions)."""
    previous = getattr(_local, "override", None)
    _local.override = (prim, sharding)
    _avals.sharding_types_seen = True
    try:
        yield
    finally:
        _local.override = previous


def current_override():
    """The out_sharding= in force (part of eager dispatch's cache key), or None."""
    return getattr(_local, "override", None)


def _override(prim):
    found = getattr(_local, "override", None)
    return found[1] if found is not None and found[0] is prim else None


def override_for(prim, ndim: int):
    """The out_sharding= in force for `prim` where it types a result of rank `ndim` (else
    None): the lax functions bind it as their primitive's sharding param, as JAX's do, so a
    jaxpr traced again (under vmap, jit's batching) keeps it."""
    given = _override(prim)
    return given if given is not None and len(given.spec) <= ndim else None


# ------------------------------------------------------------------ rules
def _spec_text(parts) -> str:
    return "(" + ", ".join("None" if not p else repr(p[0]) if len(p) == 1 else repr(p)
                           for p in parts) + ("," if len(parts) == 1 else "") + ")"


def broadcasting_rule(name, in_avals, params, out_avals):
    """Elementwise: rank-0 operands do not count; a size-1 unsplit dimension takes any."""
    shaped = [a for a in in_avals if a.shape]
    if not shaped:
        return []
    specs = [parts_of(a) if a.split is not None else [()] * len(a.shape) for a in shaped]
    out = []
    for i, column in enumerate(zip(*specs)):
        found = [p for p, a in zip(column, shaped) if p or a.shape[i] != 1]
        chosen = ()
        for p in found:
            if p and chosen and p != chosen:
                raise ShardingTypeError(
                    f"{name} got incompatible shardings for broadcasting: "
                    f"{', '.join(_spec_text(s) for s in specs)}.")
            chosen = chosen or p
        out.append(chosen)
    return out


def same_as_operand_rule(name, in_avals, params, out_avals):
    return parts_of(in_avals[0])


def add_any_rule(name, in_avals, params, out_avals):
    """add_any (tangents and cotangents meeting): its operands' one type, as JAX's (whose
    add_any is typed as its first operand, of the second's type); an untyped operand takes
    the other's, and untyped ones stay so (not set_mesh's mesh, unlike `add`)."""
    return broadcasting_rule(name, in_avals, params, out_avals)


def reduction_rule(name, in_avals, params, out_avals):
    axes = set(params.get("axes", ()))
    if "axis" in params and not axes:          # argmax / argmin
        axes = {params["axis"]}
    return [p for i, p in enumerate(parts_of(in_avals[0])) if i not in axes]


def transpose_rule(name, in_avals, params, out_avals):
    parts = parts_of(in_avals[0])
    return [parts[i] for i in params["permutation"]]


def broadcast_in_dim_rule(name, in_avals, params, out_avals):
    out = [()] * len(out_avals[0].shape)
    for p, d in zip(parts_of(in_avals[0]), params["broadcast_dimensions"]):
        out[d] = p
    return out


def stack_rule(name, in_avals, params, out_avals):
    """stack: its operands' one splitting (same_sharding_rule's), the new dimension at
    `axis` unsplit."""
    parts = list(same_sharding_rule(name, in_avals, params, out_avals))
    parts.insert(params["axis"], ())
    return parts


def squeeze_rule(name, in_avals, params, out_avals):
    dims = {d % len(in_avals[0].shape) for d in params["dimensions"]}
    return [p for i, p in enumerate(parts_of(in_avals[0])) if i not in dims]


def unsplit_dims_only(name, changed):
    """A rule keeping the operand's sharding where the dimensions `changed(in, out, params)`
    names (those the op resizes) are unsplit; JAX's error otherwise."""
    def rule(name_, in_avals, params, out_avals):
        parts = parts_of(in_avals[0])
        for d in changed(in_avals[0], out_avals[0], params):
            if parts[d]:
                raise ShardingTypeError(
                    f"{name}: dimension {d} of the operand, of type {in_avals[0].str_short(True)}, "
                    f"is sharded over {parts[d]} and the operation changes its size; "
                    f"reshard it unsplit first (jax.sharding.reshard(x, P(...)))")
        return parts
    return rule


def varying_out_shape(name):
    """JAX's _get_sharding_for_varying_out_shape (slice, dynamic_slice): the operand's
    sharding kept where every resized split dimension's new size still divides by its
    axes' count; JAX's error otherwise."""
    def rule(name_, in_avals, params, out_avals):
        a, out = in_avals[0], out_avals[0]
        parts = parts_of(a)
        for d, (i, o) in enumerate(zip(a.shape, out.shape)):
            if i != o and parts[d] and o % _axes_size(a.split.mesh, parts[d]):
                entry = parts[d][0] if len(parts[d]) == 1 else parts[d]
                raise ShardingTypeError(
                    f"{name} on sharded dims where out dim ({o}) is not divisible by mesh "
                    f"axes ({_axes_size(a.split.mesh, parts[d])}) with spec ({entry}) is "
                    f"not implemented. Got input type={a.str_short(True)} and output shape="
                    f"{tuple(out.shape)}")
        return parts
    return rule


def resized(a, out, params):
    return [d for d, (i, o) in enumerate(zip(a.shape, out.shape)) if i != o]


def clamp_rule(name, in_avals, params, out_avals):
    """JAX's _clamp_sharding_rule: the operand's (the middle one's) sharding; the bounds'
    do not count (untyped where the operand is)."""
    operand = in_avals[1]
    return parts_of(operand) if operand.split is not None else None


def broadcast_sharding(avals, shape):
    """The type of `avals` broadcast together to `shape` (JAX's lax.broadcast_shardings, which
    jnp's broadcast_arrays gives each operand): per dimension the splitting of the operands
    that have it (ranks aligned on the right), over their one mesh; None when none is typed.

    >>> import jxkernel as jax, numpy as np
    >>> from jxkernel.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = jax.make_mesh((4, 2), ('x', 'y'))              # 8 devices, Explicit axes
    >>> x = jax.device_put(np.arange(8.0), NamedSharding(mesh, P('x')))
    >>> from jxkernel.core import ShapedArray
    >>> broadcast_sharding([ShapedArray((), np.float32), jax.typeof(x)], (3, 8)).spec
    P(None, 'x')
    """
    typed = [a for a in avals if getattr(a, "split", None) is not None]
    if not typed:
        return None
    parts = [()] * len(shape)
    for a in typed:
        for i, p in enumerate(parts_of(a), start=len(shape) - len(a.shape)):
            parts[i] = parts[i] or p
    return make(_mesh_of(typed), parts)


def _typed_text(aval) -> str:
    """A typed value's sharding as JAX's messages show it: over the abstract mesh."""
    mesh = aval.split.mesh
    return repr(make(getattr(mesh, "abstract_mesh", mesh), parts_of(aval)))


def traced_sharding(x):
    """A traced `x`'s sharding type over its abstract mesh (None: `x` is not traced, or
    untyped): what JAX's lax.full_like gives its result when no shape or sharding is asked
    (and so its _zeros/_ones of a value: select's cases stay split as that value)."""
    return abstract_sharding(x.aval) if isinstance(x, Tracer) else None


def abstract_sharding(aval):
    """`aval`'s sharding type over its abstract mesh, as a sharding= param names it (None:
    untyped).

    >>> import jxkernel as jax, numpy as np
    >>> from jxkernel.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = jax.make_mesh((4, 2), ('x', 'y'))              # 8 devices, Explicit axes
    >>> x = jax.device_put(np.arange(8.0), NamedSharding(mesh, P('x')))
    >>> s = abstract_sharding(jax.typeof(x))
    >>> type(s.mesh).__name__, s.spec
    ('AbstractMesh', P('x',))
    """
    sharding = getattr(aval, "split", None)
    return None if sharding is None else abstracted(sharding)


def same_sharding_rule(name, in_avals, params, out_avals):
    """concatenate (JAX's _concatenate_sharding_rule): every typed operand of one sharding,
    the result's, even along the concatenated dimension; untyped ones (from no mesh) take
    it. JAX's ShardingTypeError else."""
    typed = [a for a in in_avals if a.split is not None]
    if not typed:
        return [()] * len(out_avals[0].shape)
    if any(parts_of(a) != parts_of(typed[0]) for a in typed[1:]):
        raise ShardingTypeError(f"All operands should have the same sharding. Got shardings "
                                f"{', '.join(map(_typed_text, typed))}")
    return parts_of(typed[0])


def select_n_rule(name, in_avals, params, out_avals):
    """JAX's _select_sharding_rule: the typed cases of one sharding, and `which` a scalar or
    of theirs; its ShardingTypeErrors else."""
    which, cases = in_avals[0], [a for a in in_avals[1:] if a.split is not None]
    if any(parts_of(a) != parts_of(cases[0]) for a in cases[1:]):
        raise ShardingTypeError(f"select cases must have the same shardings, got "
                                f"[{', '.join(map(_typed_text, cases))}].")
    if cases and which.shape and which.split is not None and \
            parts_of(which) != parts_of(cases[0]):
        raise ShardingTypeError(f"select `which` must be scalar or have the same sharding as "
                                f"cases, got `which` sharding {_typed_text(which)} but case "
                                f"sharding {_typed_text(cases[0])}.")
    return broadcasting_rule(name, in_avals, params, out_avals)


def reshape_rule(name, in_avals, params, out_avals):
    """JAX's _reshape_sharding_rule: size-1 dimensions come and go; where one dimension is
    split into several (or several merged into one) its mesh axes go, in order, to the
    pieces they divide (from the merged ones, their axes in order); JAX's error otherwise
    (and for a reshape with `dimensions` that would move a split)."""
    a, new_sizes = in_avals[0], tuple(out_avals[0].shape)
    parts = parts_of(a)
    if not any(parts):
        return [()] * len(new_sizes)
    if [n for n in a.shape if n != 1] == [n for n in new_sizes if n != 1]:
        kept = iter([p for n, p in zip(a.shape, parts) if n != 1])
        return [() if n == 1 else next(kept) for n in new_sizes]
    dimensions = params.get("dimensions")
    try:
        split = _one_axis_split(tuple(a.shape), new_sizes)
        if split is not None:
            return _split_parts(a, parts, split, new_sizes, dimensions)
        merge = _one_axis_split(new_sizes, tuple(a.shape)) \
            if len(new_sizes) < len(a.shape) else None
        if merge is not None:
            return _merge_parts(a, parts, merge, new_sizes, dimensions)
    except _Unsupported:
        pass
    raise _reshape_error(a, new_sizes)


class _Unsupported(Exception):
    pass


def _reshape_error(a, new_sizes):
    return ShardingTypeError(f"This reshape is not supported. Please specify the sharding of "
                             f"the output via the `out_sharding` argument of jax.lax.reshape. "
                             f"Got operand type: {a}, new sizes: {new_sizes}")


def _one_axis_split(op_shape, new_sizes):
    """JAX's _split_on_one_axis: per dimension of `op_shape`, its size, or the list of the
    sizes of `new_sizes` it splits into, where exactly one dimension splits (None when
    none does or it is no split; _Unsupported for more than one)."""
    if len(new_sizes) <= len(op_shape):
        return None
    n_ones = 0
    while op_shape[-1] == 1 and new_sizes[-1] == 1:
        n_ones, op_shape, new_sizes = n_ones + 1, op_shape[:-1], new_sizes[:-1]
    i = j = count = 0
    out = []
    while j < len(new_sizes):
        if op_shape[i] == new_sizes[j]:
            out.append(op_shape[i])
        else:
            count += 1
            if count > 1:
                raise _Unsupported
            piece, next_j, next_i = [new_sizes[j]], j + 1, i + 1
            while math.prod(piece) != op_shape[i] or (
                    next_j < len(new_sizes) and new_sizes[next_j] == 1):
                if math.prod(piece) > op_shape[i]:
                    return None
                if math.prod(piece) == op_shape[i] and next_i < len(op_shape) and \
                        new_sizes[next_j] == op_shape[next_i]:
                    break
                j += 1
                if j >= len(new_sizes):
                    return None
                piece.append(new_sizes[j])
                next_j += 1
            out.append(piece)
        i, j = i + 1, j + 1
    return out + [1] * n_ones


def _spread(mesh, axes, sizes):
    """JAX's split_partitions: `axes` in order over dimensions of `sizes`, each taking
    axes while its size is above 1 (and divides by them)."""
    axis_size = dict(zip(mesh.axis_names, mesh.axis_sizes))
    left, out = iter(axes), []
    for size in sizes:
        taken = []
        while size > 1:
            axis = next(left, None)
            if axis is None:
                break
            size, remainder = divmod(size, axis_size[axis])
            if remainder:
                raise _Unsupported
            taken.append(axis)
        out.append(tuple(taken))
    if next(left, None) is not None:
        raise _Unsupported
    return out


def _split_parts(a, parts, split, new_sizes, dimensions):
    out = []
    for piece, p in zip(split, parts):
        if not isinstance(piece, list):
            out.append(p)
        elif not p:
            out.extend([()] * len(piece))
        elif dimensions is None:
            out.extend(_spread(a.split.mesh, p, piece))
        else:
            raise _Unsupported
    return out


def _merge_parts(a, parts, merge, new_sizes, dimensions):
    out, left = [], iter(parts)
    for size, piece in zip(new_sizes, merge):
        if not isinstance(piece, list):
            out.append(next(left))
            continue
        merged = [next(left) for _ in piece]
        if not any(merged):
            out.append(())
        elif dimensions is None:
            flat = [ax for p in merged for ax in (p or (None,))]
            while flat[-1] is None:
                flat.pop()
            if None in flat:
                raise _Unsupported
            out.extend(_spread(a.split.mesh, flat, [size]))
        else:
            raise _Unsupported
    return out


def _axes_size(mesh, axes) -> int:
    sizes = mesh.shape           # (a Mesh's or an AbstractMesh's: a type names the abstract one)
    n = 1
    for a in axes:
        n *= sizes[a]
    return n


def dot_general_rule(name, in_avals, params, out_avals):
    given = params.get("out_sharding")
    if given is not None and len(given.spec) <= len(out_avals[0].shape):
        return list(given.spec._axes(len(out_avals[0].shape)))
    lhs, rhs = in_avals
    lp = parts_of(lhs) if lhs.split is not None else [()] * len(lhs.shape)
    rp = parts_of(rhs) if rhs.split is not None else [()] * len(rhs.shape)
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    lcs, rcs = tuple(lp[i] for i in lc), tuple(rp[i] for i in rc)
    lbs, rbs = tuple(lp[i] for i in lb), tuple(rp[i] for i in rb)
    _check_match(lbs, rbs, f"dot_general requires lhs batch dimensions and rhs batch "
                 f"dimensions to have the consistent sharding, got {_spec_text(lbs)} and "
                 f"{_spec_text(rbs)}.")
    _check_match(lcs, rcs, f"dot_general requires contracting dimensions to have consistent "
                 f"sharding, got {_spec_text(lcs)} and {_spec_text(rcs)}.")
    if any(a and b for a, b in zip(lcs, rcs)):
        raise ShardingTypeError(
            f"Contracting dimensions are sharded and it is ambiguous how the output should be "
            f"sharded. Please specify the output sharding via the `out_sharding` parameter. "
            f"Got lhs_contracting_spec={_spec_text(lcs)} and "
            f"rhs_contracting_spec={_spec_text(rcs)}")
    free_l = [p for i, p in enumerate(lp) if i not in lc and i not in lb]
    free_r = [p for i, p in enumerate(rp) if i not in rc and i not in rb]
    return list(lbs) + free_l + free_r


def conv_rule(name, in_avals, params, out_avals):
    """JAX's _conv_general_dilated_sharding_rule: the out_sharding= given; else, with the
    kernel unsplit and the input's feature dimension unsplit, the input's spec as it is (each
    dimension where the convolution resizes it must still divide by its mesh axes); else
    JAX's error asking for out_sharding=."""
    given = params.get("out_sharding")
    out = out_avals[0]
    if given is not None:
        return list(given.spec._axes(len(out.shape)))
    lhs, rhs = in_avals
    lp = parts_of(lhs) if lhs.split is not None else [()] * len(lhs.shape)
    rp = parts_of(rhs) if rhs.split is not None else [()] * len(rhs.shape)
    if any(rp) or lp[params["dimension_numbers"].lhs_spec[1]]:
        raise ShardingTypeError("Please specify the output sharding via `out_sharding` "
                                "parameter of `conv_general_dilated`")
    for d, (size, p) in enumerate(zip(out.shape, lp)):
        if p and size != lhs.shape[d] and size % _axes_size(lhs.split.mesh, p):
            raise ShardingTypeError(
                f"conv_general_dilated on sharded dims where out dim ({size}) is not "
                f"divisible by mesh axes ({_axes_size(lhs.split.mesh, p)}) with spec "
                f"({','.join(p)}) is not implemented. Got input type={lhs.str_short(True)} and "
                f"output shape={out.shape}")
    return lp


def gather_rule(name, in_avals, params, out_avals):
    """JAX's _gather_spec_computation: with no operand or index dimension split, unsplit;
    else the operand's dimensions indexed into must be unsplit (or taken whole), paired batch
    dimensions must agree, and the indices' other dimensions must be unsplit: then offset
    dimensions take the operand's sharding and the others the indices'. JAX's error
    otherwise (`.at[...].get(out_sharding=)` is its way out)."""
    operand, indices = in_avals
    dn, slice_sizes = params["dimension_numbers"], params["slice_sizes"]
    op = parts_of(operand) if operand.split is not None else [()] * len(operand.shape)
    ix = parts_of(indices) if indices.split is not None else [()] * len(indices.shape)
    out_rank = len(out_avals[0].shape)
    if not any(op) and not any(ix):
        return [()] * out_rank
    resolvable = all(slice_sizes[d] == operand.shape[d] or not op[d]
                     for d in dn.start_index_map) and \
        all(ix[i] == op[o] or not op[o] or not ix[i]
            for o, i in zip(dn.operand_batching_dims, dn.start_indices_batching_dims)) and \
        not any(p for i, p in enumerate(ix) if i not in dn.start_indices_batching_dims)
    if not resolvable:
        raise ShardingTypeError(
            f"Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
            f"indexing as out sharding could not be resolved unambiguously (or would require "
            f"collectives on inputs). Got operand={operand!r}, indices={indices!r}")
    ix = list(ix)
    for o, i in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        ix[i] = ix[i] or op[o]
    offsets = iter([d for d in range(len(slice_sizes))
                    if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims])
    index_parts = iter(ix)
    return [op[next(offsets)] if i in dn.offset_dims else next(index_parts)
            for i in range(out_rank)]


def scatter_rule(name, in_avals, params, out_avals):
    """JAX's _scatter_spec_computation, a gather's rule read backwards: with nothing split,
    unsplit; else paired batch dimensions must agree (one axis among the three), a window
    dimension of the updates must be split as the operand's is (or both unsplit), the
    operand's inserted window dimensions unsplit, and the dimensions of updates and indices
    that pick windows (which may overlap) unsplit, the index vector too. The result is then
    the operand's sharding, its unsplit batch and window dimensions taking the indices' or
    the updates'. JAX's error otherwise (`.at[...].add(out_sharding=)` is its way out):
    `jnp.bincount` of values split over a mesh axis."""
    operand, indices, updates = in_avals[:3]
    dn = params["dimension_numbers"]
    op, ix, up = ([()] * len(a.shape) if a.split is None else parts_of(a)
                  for a in (operand, indices, updates))
    if not any(op) and not any(ix) and not any(up):
        return [()] * len(operand.shape)
    vector_dim = len(indices.shape) - 1
    scatter_dims = [d for d in range(len(updates.shape)) if d not in dn.update_window_dims]
    up_batch = [scatter_dims[i] for i in dn.scatter_indices_batching_dims]
    batches = list(zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims, up_batch))
    op_windows = [d for d in range(len(operand.shape))
                  if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    windows = list(zip(dn.update_window_dims, op_windows))
    resolvable = \
        all(len({op[o], ix[i], up[u]} - {()}) <= 1 for o, i, u in batches) and \
        all(updates.shape[u] == operand.shape[o] and up[u] == op[o] or not up[u] and not op[o]
            for u, o in windows) and \
        not any(op[d] for d in dn.inserted_window_dims) and \
        not any(p for d, p in enumerate(up) if d not in up_batch and
                d not in dn.update_window_dims) and \
        not any(p for d, p in enumerate(ix[:vector_dim])
                if d not in dn.scatter_indices_batching_dims) and \
        not ix[vector_dim]
    if not resolvable:
        raise ShardingTypeError(
            f"Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for "
            f"the scatter update as out sharding could not be resolved unambiguously (or would "
            f"require collectives on inputs). Got operand={operand!r}, indices={indices!r}, "
            f"updates={updates!r}")
    out = list(op)
    for o, i, u in batches:
        out[o] = out[o] or ix[i] or up[u]
    for u, o in windows:
        out[o] = out[o] or up[u]
    return out


def _check_match(left, right, message):
    for a, b in zip(left, right):
        if a and b and a != b:
            raise ShardingTypeError(message)


def cumulative_rule(name, in_avals, params, out_avals):
    parts, axis = parts_of(in_avals[0]), params["axis"]
    if parts[axis]:
        raise ShardingTypeError(f"Input should be unsharded over the axis being reduced. Got "
                                f"input type={in_avals[0]} and axis={axis}")
    return parts


def pad_rule(name, in_avals, params, out_avals):
    a, out = in_avals[0], out_avals[0]
    parts = parts_of(a)
    for d, p in enumerate(parts):
        if p and out.shape[d] != a.shape[d] and \
                out.shape[d] % _axes_size(a.split.mesh, p):
            raise ShardingTypeError(
                f"padding on sharded dims where out dim ({out.shape[d]}) is not divisible by "
                f"mesh axes ({_axes_size(a.split.mesh, p)}) with spec ({','.join(p)}) is "
                f"not implemented. Got input type={a.str_short(True)} and output shape="
                f"{_padded_shape(a.shape, params['padding_config'])}")
    return parts


def _padded_shape(shape, config) -> tuple:
    """pad's result shape computed from its config's own integers, as JAX's message shows it
    (`np.int64(5)` for a transpose's NumPy config)."""
    return tuple(lo + hi + (0 if d == 0 else 1 + (i + 1) * (d - 1))
                 for (lo, hi, i), d in zip(config, shape))


def dynamic_update_slice_rule(name, in_avals, params, out_avals):
    """The operand's sharding (None, untyped, for an untyped operand); a typed update must
    have the same (an untyped one, from a primitive with no rule, is let through; a one-device
    array under set_mesh is typed replicated, as in JAX)."""
    operand, update = in_avals[:2]
    if update.split is not None and operand.split is not None and \
            parts_of(update) != parts_of(operand):
        raise ShardingTypeError(
            f"dynamic_update_slice operand sharding must be equal to update sharding, got "
            f"operand sharding {with_axis_types(operand)} and update sharding "
            f"{with_axis_types(update)}.")
    return parts_of(operand) if operand.split is not None else None


def with_axis_types(aval, short: bool = False) -> str:
    """`aval` and its mesh's axes by type, as JAX's errors print it
    (`str_short(mesh_axis_types=True)`): "float32[8@x,2]({Explicit: ('x',), Auto: ('y',)})";
    `short`, with short dtype names (`str_short(True, True)`); no mesh: "f32[3]({})"."""
    text = aval.str_short(True) if short else str(aval)
    return f"{text}({axis_types_text(getattr(aval.split, 'mesh', None))})"


def axis_types_text(mesh) -> str:
    """`mesh`'s axes by type, as JAX prints them in a type (core._axis_types_dict), "{}" for
    no mesh.

        >>> axis_types_text(None)
        '{}'
    """
    by_type = {}
    for name, kind in zip(mesh.axis_names, mesh.axis_types) if mesh is not None else ():
        by_type.setdefault(kind, []).append(name)
    return str({kind: tuple(names) for kind, names in by_type.items()})


# Primitives with several results: a rule gives each result's parts.
def sort_typing(in_avals, params, out_avals):
    """sort's results keep their operands' types, as JAX's abstract eval: each operand typed
    over a mesh with Explicit axes must be unsplit along the sorting dimension and typed as the
    first such one (an iota sorted along a split value in sort's JVP is not: JAX refuses it).
    Untyped operands (JAX's empty mesh) do not count."""
    d = params["dimension"]
    typed = [a for a in in_avals if a.split is not None and explicit_axes(a.split.mesh)]
    for a in typed:
        shown = abstracted(a.split)      # (JAX's types name the AbstractMesh)
        if parts_of(a)[d]:
            raise ShardingTypeError(f"Arguments to sort must be unsharded over the sorting "
                                    f"dimension. Got arg sharding={shown} and sorting "
                                    f"dimension={d}")
        if (shown.mesh, parts_of(a)) != (abstracted(typed[0].split).mesh, parts_of(typed[0])):
            shardings = " ".join(str(abstracted(b.split)) for b in typed)
            raise ShardingTypeError(f"Arguments to sort must have equal shardings, got: "
                                    f"{shardings}")
    return [o.update(sharding=a.split) for o, a in zip(out_avals, in_avals)]


def split_rule(name, in_avals, params, out_avals):
    """JAX's _split_sharding_rule: each piece keeps the operand's sharding where its size along
    a split axis still divides by the axes' count (`split(x8@x, [4, 4])`), JAX's error else."""
    rule = varying_out_shape("split")
    return [rule(name, in_avals, params, [out]) for out in out_avals]


def top_k_rule(name, in_avals, params, out_avals):
    parts = parts_of(in_avals[0])
    if parts[-1]:
        raise ShardingTypeError(f"top_k: the operand, of type {in_avals[0]}, is sharded along "
                                f"its last axis; reshard it unsplit there first")
    return [parts] * len(out_avals)


def broadcasting_results_rule(name, in_avals, params, out_avals):
    """An elementwise primitive of several results (threefry2x32): each typed as
    broadcasting_rule types one, as JAX's abstract evaluation of the hash does."""
    parts = broadcasting_rule(name, in_avals, params, out_avals[:1])
    return [parts] * len(out_avals)


# the rules under which untyped operands give a result typed over set_mesh's mesh (JAX's
# broadcasting_sharding_rule, _select_sharding_rule, _broadcast_in_dim_sharding_rule)
_TAKE_CONTEXT_MESH = frozenset({broadcasting_rule, select_n_rule, broadcast_in_dim_rule,
                                stack_rule, same_sharding_rule})

# the rules that read every operand's sharding (the others read the first's)
_ANY_OPERAND_TYPED = frozenset({broadcasting_rule, broadcasting_results_rule,
                                select_n_rule, dot_general_rule,
                                dynamic_update_slice_rule, conv_rule, gather_rule, clamp_rule,
                                scatter_rule, stack_rule, same_sharding_rule, add_any_rule})


def _mesh_of(in_avals):
    """The operands' one mesh (None if none is typed). A Mesh and an AbstractMesh count as
    one where the AbstractMesh is the Mesh's (JAX's types hold abstract meshes only: a value
    constrained over `get_abstract_mesh()` under set_mesh meets values placed on the mesh);
    the concrete one is returned then."""
    # a high type (a hijax Box's BoxTy, a loop's captured box) carries no sharding
    meshes = {a.split.mesh for a in in_avals if getattr(a, "split", None) is not None}
    if len(meshes) > 1:
        concrete = [m for m in meshes if not isinstance(m, _avals.AbstractMesh)]
        if len(concrete) == 1 and all(m.abstract_mesh == concrete[0].abstract_mesh
                                      for m in meshes if m is not concrete[0]):
            return concrete[0]
        first, second = list(meshes)[:2]
        raise ShardingTypeError(f"Mesh for all inputs should be equal. Got one mesh: {first} "
                                f"and another mesh: {second}")
    return meshes.pop() if meshes else None


def apply(prim, in_avals, params, out_avals) -> list:
    """`out_avals` with the shardings `prim`'s rule gives them, when an operand is typed
    (and the mesh axes they are unreduced and reduced over, by `prim`'s ur rule)."""
    try:
        mesh = _mesh_of(in_avals)
    except ShardingTypeError:
        # operands over two meshes: JAX's check against the context mesh comes first (its
        # abstract evaluation's check_avals_context_mesh), naming the one over another mesh
        check_context_mesh(prim, [(a.split.mesh, a.str_short())
                                  for a in in_avals if getattr(a, "split", None) is not None])
        raise
    if mesh is not None:
        _check_abstract_size(prim, in_avals, mesh)
    given = _override(prim)
    if given is not None and params.get("sharding", params.get("out_sharding")) is None:
        out = _overridden(prim, in_avals, params, out_avals, given, mesh)
        return _summed(prim, in_avals, params, out, given)
    typing = sharding_typing_rules.get(prim)
    if typing is not None:
        return typing(in_avals, params, out_avals)
    out = by_rule(prim, in_avals, params, out_avals, mesh)
    return _summed(prim, in_avals, params, out, params.get("out_sharding", params.get("sharding")))


# ------------------------------------------------------------------ unreduced, reduced axes
# A value unreduced over a mesh axis holds a summand on each device along it (a contraction
# over a split dimension, left unsummed: out_sharding=P(..., unreduced={'x'})); one reduced
# over an axis holds the same value along it, typed so that its transpose is unreduced there.
# JAX types them per primitive (its ur_rule=); a primitive without one refuses them.
# primitive -> rule(name, in_avals, params, out spec) -> (unreduced, reduced)
ur_rules: dict = {}

_ISSUE = "Please file an issue at https://github.com/jax-ml/jax/issues"
# primitives whose results' types (with their sets) come from their params, in a body
# (custom_lin's out_avals: the tangents' types)
own_ur_rules: set = set()


# The NumPy backend batches a shard_map body over the devices (api/shard_map/numpy_rule.py):
# a body checked when it was traced, whose sets are data there (the devices' summands, laid
# out by that rule), re-traced without them. Nonzero while it does.
_sets_erased = [0]


@contextlib.contextmanager
def sets_erased():
    """Primitives bound inside this block type no unreduced or reduced sets (and check none):
    the body already passed these checks when it was traced.

        >>> with sets_erased(): pass
    """
    _sets_erased[0] += 1
    try:
        yield
    finally:
        _sets_erased[0] -= 1


def _summed(prim, in_avals, params, out_avals, given) -> list:
    """`out_avals` unreduced and reduced over the axes `prim`'s ur rule says (JAX's
    call_ur_rule). Nothing to do, and nothing checked, where no operand and no out_sharding=
    names such axes (every rule then gives none), or where the sets are erased."""
    if _sets_erased[0]:
        return out_avals
    sets = [summed_axes(a) for a in in_avals]
    checked = _vma.checked      # (in a check_vma shard_map body: its manual axes)
    if checked and (prim in own_vma_rules or prim in own_ur_rules or jaxpr_params(params)):
        # in a shard_map body: the casts and collectives, and the primitives of a jaxpr,
        # type the manual axes' sets themselves (core/vma.py)
        return out_avals
    given = getattr(given, "spec", given)       # (reduce_sum's out_sharding param is a P)
    if not hasattr(given, "unreduced"):         # a placement (io_callback's sharding=, a
        given = None                            # SingleDeviceSharding) types no sets
    given_sets = given is not None and (given.unreduced or given.reduced)
    if not given_sets and not any(u or r for u, r in sets):
        return out_avals
    if checked and not given_sets:
        # in a body a given sharding says nothing of the manual axes' sets (a transpose's
        # broadcast_in_dim carries its operand's sharding): the operands' sets rule
        given = None
    rule = ur_rules.get(prim)
    if rule is None and sharding_rules.get(prim) is broadcasting_rule:
        rule = unop_ur_rule if len(in_avals) == 1 else nary_ur_rule
    if rule is None:
        if any(u or r for u, r in sets) or given_sets:
            raise NotImplementedError(f"unreduced/reduced rule for {prim.name} is not "
                                      f"implemented. {_ISSUE}")
        return out_avals
    unreduced, reduced = rule(prim.name, in_avals, params, given)
    # (in a check_vma body: the manual axes' sets, JAX's mat)
    return [a.update(ur=(unreduced, reduced)) if checked and type(a) is _avals.ShapedArray
            else a if a.split is None else
            a.update(sharding=make(a.split.mesh, parts_of(a), unreduced, reduced))
            for a in out_avals]


def unop_ur_rule(name, in_avals, params, given):
    """An elementwise unary op: reduced axes kept; an unreduced operand refused (its summands
    do not map to the function's value, sin(a) + sin(b) != sin(a + b))."""
    unreduced, reduced = summed_axes(in_avals[0])
    if unreduced:
        raise NotImplementedError(f"unreduced rule for {name} is not implemented. {_ISSUE}")
    return frozenset(), reduced


# binary ops whose scalar operand is made reduced as the other operand is (JAX's lax
# binary functions' insert_reduced_reshard); lax/elementwise.py adds them
reduced_reshard_prims: set = set()


def insert_reduced_reshard(args):
    """`args` (two) with a scalar operand replicated over the axes the other is reduced
    over resharded reduced over them too (JAX's insert_reduced_reshard, where every axis of
    set_mesh's mesh is Explicit: `x * 2` of a reduced x multiplies by a reduced 2, so its
    transpose, `ct * 2` of an unreduced ct, types)."""
    avals = [_avals.get_aval(x) for x in args]
    sets = [a.split.spec.reduced if type(a) is ShapedArray and a.split is not None
            else frozenset() for a in avals]
    out_reduced = sets[0] | sets[1]
    if not out_reduced:
        return args
    mesh = get_abstract_mesh()
    if mesh is None or not mesh.axis_names or \
            any(t is not AxisType.Explicit for t in mesh.axis_types):
        return args
    target = NamedSharding(mesh, PartitionSpec(reduced=out_reduced))
    return [_reshard(x, target) if type(a) is ShapedArray and not a.shape and
            out_reduced <= _replicated_axes(a, mesh) else x for x, a in zip(args, avals)]


def _replicated_axes(aval, mesh) -> frozenset:
    unreduced, reduced = summed_axes(aval)
    used = {a for p in (parts_of(aval) if aval.split is not None else []) for a in p}
    return frozenset(mesh.axis_names) - used - unreduced - reduced - frozenset(aval.vma)


def nary_reduced(in_avals) -> frozenset:
    """JAX's default_nary_reduced_rule: the operands reduced over one set of axes, and none
    replicated, split or varying over them; ShardingTypeError else."""
    found = {r for a in in_avals if (r := summed_axes(a)[1])}
    if len(found) > 1:
        raise ShardingTypeError(f"All inputs should be reduced across the same mesh axes. Got "
                                f"specs: {found}")
    reduced = found.pop() if found else frozenset()
    if reduced:
        mesh = get_abstract_mesh()
        for a in in_avals:
            if a.split is None and not a.shape:
                # a Python scalar's constant: JAX's is made like the other operand (its
                # full_like), reduced alike
                continue
            if _replicated_axes(a, mesh) & reduced:
                raise ShardingTypeError(
                    f"Inputs cannot be replicated on the same axes that another input is "
                    f"reduced on. Got input type: {a} and reduced spec: {reduced}")
            used = {x for p in (parts_of(a) if a.split is not None else []) for x in p}
            if (used | set(a.vma)) & reduced:
                raise ShardingTypeError(
                    f"Inputs cannot be sharded/varying on the same axes that another input is "
                    f"reduced on. Reshard the input which is reduced to be sharded on the mesh "
                    f"axes it is reduced on via `jax.sharding.reshard(inp, jax.P(...))`. Got "
                    f"input type: {a} and reduced spec: {reduced}")
    return reduced


def nary_ur_rule(name, in_avals, params, given):
    """An elementwise n-ary op (sub, max, ...): reduced as nary_reduced; unreduced refused."""
    reduced = nary_reduced(in_avals)
    if any(summed_axes(a)[0] for a in in_avals):
        raise NotImplementedError(f"unreduced rule for {name} is not implemented. {_ISSUE}")
    return frozenset(), reduced


def add_ur_rule(name, in_avals, params, given):
    """add (and add_any): summands add, so two values unreduced over the same axes give one
    unreduced over them; one unreduced and one not would need a hidden all-reduce: refused."""
    reduced = nary_reduced(in_avals)
    (xu, _), (yu, _) = map(summed_axes, in_avals)
    if xu and yu:
        if xu != yu:
            raise ShardingTypeError(f"lhs and rhs to `add` must be unreduced along the same mesh "
                                    f"axes. Got lhs={xu}, rhs={yu}")
        return xu, reduced
    if xu or yu:
        this, other = ("lhs", "rhs") if xu else ("rhs", "lhs")
        raise ShardingTypeError(
            f"{this} is unreduced while {other} is not. `add` operation does not allow this "
            f"because there will be implicit communication. Please reduce {this} via `reshard` "
            f"before calling `add`.")
    return frozenset(), reduced


def mul_ur_rule(name, in_avals, params, given):
    """mul is bilinear: an unreduced operand times one reduced over the same axes (the same
    value on each device) is unreduced over them; two unreduced ones are refused."""
    reduced = nary_reduced(in_avals)
    x, y = in_avals
    (xu, xr), (yu, yr) = summed_axes(x), summed_axes(y)
    if xu and yu:
        raise ShardingTypeError(f"lhs and rhs to `mul` cannot be unreduced since mul is "
                                f"bilinear. Got lhs={xu}, rhs={yu}")
    if xu and xu != yr:
        raise ShardingTypeError(f"RHS should be reduced along the same axes LHS is unreduced "
                                f"on. Got lhs={x} and rhs={y}")
    if yu and yu != xr:
        raise ShardingTypeError(f"LHS should be reduced along the same axes RHS is unreduced "
                                f"on. Got lhs={x} and rhs={y}")
    unreduced = xu or yu
    return unreduced, frozenset() if unreduced else reduced


def dot_general_ur_rule(name, in_avals, params, given):
    """dot_general: operands not unreduced; a result unreduced (out_sharding=P(...,
    unreduced=...)) over exactly the axes both operands split their contracting dimensions
    over, alike (each device's partial sum is its summand)."""
    lhs, rhs = in_avals
    if summed_axes(lhs)[0] or summed_axes(rhs)[0]:
        raise ShardingTypeError(f"lhs or rhs passed to dot_general cannot be unreduced. Got "
                                f"lhs={lhs!r} and rhs={rhs!r}")
    if given is None or not given.unreduced:
        return frozenset(), frozenset()
    (lc, rc), _ = params["dimension_numbers"]
    lp, rp = _entries(lhs), _entries(rhs)
    lcs, rcs = tuple(lp[i] for i in lc), tuple(rp[i] for i in rc)
    if lcs != rcs:
        raise ShardingTypeError(
            f"lhs and rhs contracting dims should be sharded identically when out_sharding "
            f"provided to dot_general mentions unreduced_axes. Got lhs_contracting_spec={lcs}, "
            f"rhs_contracting_spec={rcs}")
    flat = {a for e in lcs if e is not None for a in (e if isinstance(e, tuple) else (e,))}
    if given.unreduced != frozenset(flat):
        raise ShardingTypeError(
            f"out_sharding's unreduced axes should be equal to the contracting specs. Got "
            f"unreduced axes={given.unreduced} and contracting spec={lcs}")
    return given.unreduced, frozenset()


def reduce_sum_ur_rule(name, in_avals, params, given):
    """reduce_sum: reduced axes kept; the result unreduced over the axes out_sharding= names
    (each device's partial sum its summand), each of which must split a summed dimension or
    be one the operand is unreduced over; else the operand's unreduced axes."""
    operand = in_avals[0]
    unreduced, reduced = summed_axes(operand)
    if given is not None and given.unreduced:
        parts = parts_of(operand) if operand.split is not None else [()] * len(operand.shape)
        used = {a for i, p in enumerate(parts) if i in set(params["axes"]) for a in p}
        if not given.unreduced <= used | unreduced:
            raise ShardingTypeError(
                f"out_sharding's unreduced axes should be in operand's specs that were summed "
                f"over. Got operand={operand!r}, axes={frozenset(params['axes'])}, "
                f"unreduced_spec={given.unreduced}")
        return given.unreduced, reduced
    return unreduced, reduced


def keeps_ur_rule(name, in_avals, params, given):
    """transpose, squeeze, slice, pad, split, reduce_precision: each result holds its part
    of each device's summand (or of the one value), so the operand's sets carry over."""
    return summed_axes(in_avals[0])


def given_or_operand_ur_rule(name, in_avals, params, given):
    """convert_element_type: each set as a given sharding names it, else the operand's."""
    unreduced, reduced = summed_axes(in_avals[0])
    if given is not None:
        unreduced, reduced = given.unreduced or unreduced, given.reduced or reduced
    return unreduced, reduced


def broadcast_ur_rule(name, in_avals, params, given):
    """broadcast_in_dim: a given sharding's sets (its whole type, as JAX's), else the
    operand's."""
    return (given.unreduced, given.reduced) if given is not None else summed_axes(in_avals[0])


def same_sets_ur_rule(name, in_avals, params, given):
    """concatenate, stack: the operands unreduced (and reduced) over one set of axes."""
    out = []
    for i, kind in enumerate(("unreduced", "reduced")):
        found = {sets[i] for a in in_avals if (sets := summed_axes(a))[i]}
        if len(found) > 1:
            raise ShardingTypeError(f"All operands should be {kind} along the same mesh axes. "
                                    f"Got {kind} specs: {found}")
        out.append(found.pop() if found else frozenset())
    return tuple(out)


def select_ur_rule(name, in_avals, params, given):
    """select_n: its cases' sets (its sharding rule has checked the cases agree)."""
    cases = [a for a in in_avals[1:] if a.split is not None]
    return summed_axes(cases[0]) if cases else (frozenset(), frozenset())


def dynamic_slice_ur_rule(name, in_avals, params, given):
    """dynamic_slice: reduced kept; an unreduced operand refused, as JAX's."""
    unreduced, reduced = summed_axes(in_avals[0])
    if unreduced:
        raise NotImplementedError(f"unreduced rule for dynamic_slice is not implemented. "
                                  f"{_ISSUE}")
    return frozenset(), reduced


def dynamic_update_slice_ur_rule(name, in_avals, params, given):
    """dynamic_update_slice: the operand's sets, the update's the same (JAX's errors else)."""
    operand, update = in_avals[:2]
    sets = []
    for i, kind in enumerate(("unreduced", "reduced")):
        have = summed_axes(operand)[i]
        if have != summed_axes(update)[i]:
            raise ShardingTypeError(
                f"dynamic_update_slice operand and update must be {kind} along the same axes. "
                f"Got operand sharding {with_axis_types(operand)} and update sharding "
                f"{with_axis_types(update)}.")
        sets.append(have)
    return tuple(sets)


def reshape_ur_rule(name, in_avals, params, given):
    """reshape: the operand's sets; an out_sharding= must name the same ones (and none where
    the operand has none), JAX's ValueErrors else."""
    operand = in_avals[0]
    out = []
    for i, kind in enumerate(("unreduced", "reduced")):
        have = summed_axes(operand)[i]
        asked = getattr(given, kind) if given is not None else frozenset()
        if have and given is not None and asked != have:
            raise ValueError(f"out_sharding passed to reshape must be {kind} over the same mesh "
                             f"axes as operand. Got out_sharding: {given} and operand type: "
                             f"{operand.str_short(True)}")
        if not have and asked:
            raise ValueError(f"out_sharding passed to `reshape` cannot contain {kind} axes. "
                             f"Got {params.get('sharding')}")
        out.append(have)
    return tuple(out)


def _entries(aval) -> tuple:
    """`aval`'s spec entries as JAX's partitions show them (None, 'x' or a tuple), one per
    dimension."""
    if aval.split is None:
        return (None,) * len(aval.shape)
    return tuple(None if not p else p[0] if len(p) == 1 else p for p in parts_of(aval))


def check_context_mesh(prim, placed) -> None:
    """JAX's ValueError for an operand over another mesh than set_mesh's (or
    use_abstract_mesh's), as its lax primitives check (core.check_avals_context_mesh): an
    array put on four devices' mesh, added under set_mesh of all eight. `placed`: per
    operand (its mesh or None, its aval). Meshes of Auto axes alone on both sides may
    differ; a primitive without a sharding rule (device_put) is not checked, as JAX's."""
    current = get_abstract_mesh()
    if not current.axis_names or prim not in sharding_rules:
        return
    for mesh, aval in placed:
        if mesh is None or not mesh.axis_names:
            continue
        mesh = mesh if isinstance(mesh, AbstractMesh) else mesh.abstract_mesh
        if mesh.are_all_axes_auto and current.are_all_axes_auto or mesh == current:
            continue
        raise ValueError(
            f"For primitive {prim.name}, context mesh {current!r} should match the aval mesh "
            f"{mesh!r} for shape {aval}. This error occurs at source:  {_source_summary()}")


def _check_abstract_size(prim, in_avals, mesh) -> None:
    """JAX's check_avals_context_mesh under use_abstract_mesh, where the operands' mesh has
    another size: its ValueError (a value typed over a mesh of one device, traced under an
    abstract mesh of two). Meshes of one size are not compared: jxkernel types values over
    set_mesh's mesh where JAX's name the abstract mesh in context (auto_axes' retyped one)."""
    current = recording_mesh()
    if type(current) is not AbstractMesh or current.empty or prim not in sharding_rules:
        return
    mesh = mesh if isinstance(mesh, AbstractMesh) else mesh.abstract_mesh
    if mesh.size == current.size or mesh.are_all_axes_auto and current.are_all_axes_auto:
        return
    aval = next(a for a in in_avals if getattr(a, "split", None) is not None)
    raise ValueError(
        f"For primitive {prim.name}, context mesh {current!r} should match the aval mesh "
        f"{mesh!r} for shape {aval.str_short()}. This error occurs at source:  "
        f"{_source_summary()}")


def _source_summary() -> str:
    """JAX's summary of where the operation was staged ("file:line (function)"), empty when it
    runs eagerly (no staged equation, no source)."""
    if type(current_trace()) is EvalTrace:
        return ""
    info = user_source_info()
    return "" if info is None else f"{info.file}:{info.line} ({info.function})"


def by_rule(prim, in_avals, params, out_avals, mesh=None) -> list:
    """`out_avals` typed by `prim`'s sharding rule (`mesh`: the operands' one mesh)."""
    if mesh is None:
        mesh = _mesh_of(in_avals)
    if mesh is None:
        given = params.get("out_sharding")
        if given is None or prim not in sharding_rules:
            return _on_context_mesh(prim, in_avals, out_avals)
        mesh = given.mesh
    rule = sharding_rules.get(prim)
    if rule is None or in_avals[0].split is None and rule not in _ANY_OPERAND_TYPED:
        # no rule, or only a secondary operand (a padding value, an index) is typed
        return [a.update(sharding=None) for a in out_avals]
    parts = rule(prim.name, in_avals, params, out_avals)
    if parts is None:                           # the rule leaves the result untyped
        return [a.update(sharding=None) for a in out_avals]
    if prim.multiple_results:
        return [a.update(sharding=make(mesh, _legal(prim, in_avals, a, p)))
                for a, p in zip(out_avals, parts)]
    return [out_avals[0].update(sharding=make(mesh, _legal(prim, in_avals, out_avals[0], parts)))]


def _on_context_mesh(prim, in_avals, out_avals, takes_it: bool = False) -> list:
    """Results of untyped operands: under set_mesh with Explicit axes, those of the
    primitives whose JAX rule then takes set_mesh's mesh (n-ary elementwise, select_n,
    broadcast_in_dim: jnp.zeros, x + 1; stack; iota, `takes_it` whatever its rule) are typed
    unsplit over it, as JAX's; the others (sin, sum, transpose, reshape, dot_general of
    untyped operands) stay untyped, their layout XLA's (JAX's empty mesh, which jax.typeof
    shows: avals.public_type). Printed alike, they differ where a jit under set_mesh returns
    them: replicated, or as XLA's propagation lays them out. Under use_abstract_mesh of the
    empty mesh (vmap's broadcast of a value on no mesh) none is typed, as JAX's rules then
    take get_abstract_mesh()'s empty mesh; under an equation's recorded Auto mesh (auto_axes'
    body, run again by a backward pass) none is typed either, as that mesh has no Explicit
    axes."""
    mesh = get_mesh()
    if mesh is None:                # (no mesh: every untyped equation's path, kept cheap)
        return out_avals
    mesh = recording_mesh() or mesh     # use_abstract_mesh's, else set_mesh's (or `with mesh:`)
    rule = sharding_rules.get(prim)
    if mesh is None or not explicit_axes(mesh) or not takes_it and (
            rule not in _TAKE_CONTEXT_MESH or
            rule in (broadcasting_rule, same_sharding_rule) and len(in_avals) < 2):
        # (a unary op, a concatenate of one: its operand's)
        return out_avals
    mesh = mesh if type(mesh) is AbstractMesh else mesh.abstract_mesh
    return [a.update(sharding=make(mesh, [()] * len(a.shape))) for a in out_avals]


def on_context_mesh(prim, out_aval):
    """`out_aval` typed unsplit over the mesh in context where it has Explicit axes (JAX's
    get_cur_mesh_sharding(), which rng_bit_generator's rule takes for its bits given no
    out_sharding), else as it is."""
    return _on_context_mesh(prim, (), [out_aval], takes_it=True)[0]


def _legal(prim, in_avals, out_aval, parts):
    """`parts`, unless a mesh axis splits two dimensions (x @ x.T with x split on its rows),
    which JAX refuses with this message."""
    used = [a for p in parts for a in p]
    if len(used) == len(set(used)):
        return parts
    short = out_aval.str_short(True).split("[")[0]
    dims = ",".join(map(dim_text, out_aval.shape, parts))
    raise ShardingTypeError(
        f"{prim.name} operation with inputs: {', '.join(a.str_short(True) for a in in_avals)} "
        f"produces an illegally sharded result: {short}[{dims}]")


def _overridden(prim, in_avals, params, out_avals, given, mesh) -> list:
    out = out_avals[0]
    if len(given.spec) <= len(out.shape):
        return [out.update(sharding=typed_sharding(given, len(out.shape)))]
    try:
        parts = sharding_rules[prim](prim.name, in_avals, params, out_avals)
    except ShardingTypeError:
        parts = [()] * len(out.shape)
    return [out.update(sharding=make(mesh or given.mesh, parts))]


def given_or_rule(prim, param="sharding", standard=False, context_mesh=False):
    """The typing of the shape primitives JAX gives a `sharding` param (broadcast_in_dim,
    reshape, iota: their out_sharding=; empty's is `param` "out_sharding"): the result typed
    as that sharding where one is given, else by the primitive's rule. `standard`: one of
    JAX's standard primitives (reshape), whose rule JAX's call_sharding_rule skips when
    neither set_mesh's mesh nor the operands' has an Explicit axis: the result is untyped
    then, out_sharding= or not (`lax.reshape(np_value, s, out_sharding=named)` outside
    set_mesh runs on one device). `context_mesh`: given none, the result is typed unsplit
    over set_mesh's mesh where it has Explicit axes, as JAX's iota (not its empty)."""
    def typing(in_avals, params, out_avals):
        given = params.get(param)
        if given is not None and standard and not explicit_anywhere(in_avals):
            given = None
        if given is None and context_mesh:
            return _on_context_mesh(prim, in_avals, out_avals, takes_it=True)
        if given is None:
            out = by_rule(prim, in_avals, params, out_avals)
        else:
            out = [out_avals[0].update(sharding=typed_sharding(given, len(out_avals[0].shape)))]
        return _summed(prim, in_avals, params, out, given)
    return typing


def explicit_anywhere(in_avals) -> bool:
    """Whether set_mesh's mesh or the operands' one has an Explicit axis."""
    mesh = _mesh_of(in_avals)
    return any(m is not None and bool(explicit_axes(m)) for m in (get_mesh(), mesh))


def constrained_typing(in_avals, params, out_avals):
    """with_sharding_constraint / reshard: the result is typed as its sharding. (On a mesh
    with Auto axes too, a constraint naming none of its Explicit axes, as the public one must,
    keeps the operand's type, as JAX's: lowering adds that type's axes to the constraint;
    reshard's, `retypes`, is always its result's type: `reshard(x, P())` unsplits x.)"""
    out, given = out_avals[0], params["sharding"]
    explicit = set(given.mesh.explicit_axes)
    if explicit and given.mesh.auto_axes and in_avals[0].split is not None and \
            not params.get("retypes") and \
            not explicit & {a for p in given.spec._axes(0) for a in p}:
        return [out.update(sharding=in_avals[0].split)]
    return [out.update(sharding=typed_sharding(given, len(out.shape)))]


def typed_by_abstract_eval(in_avals, params, out_avals):
    """A primitive whose abstract eval already types its results (device_put's target,
    shard_map's out_specs, an Exported's out_shardings): kept as they are."""
    return out_avals


def call_typing(in_avals, params, out_avals):
    """jit, custom_jvp/vjp calls, cond, while and scan: results typed as the inner jaxpr's (a
    scan's stacked ys with an unsplit leading axis)."""
    inner = params.get("jaxpr") or params.get("call_jaxpr") or params.get("body_jaxpr") or \
        params["branches"][0]
    return [_typed_like(a, i) for a, i in zip(out_avals, inner.out_avals)]


def _typed_like(aval, inner):
    if isinstance(aval, _avals.AbstractToken):      # a token result has no sharding to type
        return aval
    if inner.split is None:
        return aval.update(sharding=None)
    if inner.shape == aval.shape:
        return aval.update(sharding=inner.split)
    if aval.shape[1:] == inner.shape:               # scan's ys: stacked along a new axis
        # (unreduced and reduced as the body's ys, as JAX's _unmap_shaped_array)
        return aval.update(sharding=make(inner.split.mesh, [()] + parts_of(inner),
                                         inner.split.spec.unreduced, inner.split.spec.reduced))
    return aval.update(sharding=None)
