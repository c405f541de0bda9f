"""shard_map's checks, with JAX's errors: the mesh and axis names (`_checked_mesh`), the
specs read against the arguments and results (`_flat_in_specs`, `_flat_out_specs`, `Infer`),
the arguments' ranks and divisibility, the results' ranks, and check_vma's replication check.
"""
from __future__ import annotations

import inspect
import math

from ...core.avals import get_aval, public_type
from ...core.config import config
from ...core.mesh import (AbstractMesh, AxisType, DuplicateSpecError, Mesh, PartitionSpec,
                         get_abstract_mesh, get_mesh)
from ...tree_util import (
    broadcast_prefix,
    keystr,
    prefix_errors,
    tree_flatten,
    tree_flatten_with_path,
)
from ...xla.array import is_sharded
from .primitive import (
    P,
    _bodies,
    _named_axes,
    _outer_manual,
    _unmentioned,
    _vmap_mesh_axes,
)


class _InferType:
    """in_specs' default: take each argument's spec from its sharding (Explicit axes only)."""

    def __repr__(self):
        return "Infer"


Infer = _InferType()


def _check_vma(fun_name, mesh, manual_axes, out_avals, out_specs, out_struct):
    """JAX's error for an out_spec that leaves out a manual axis the output varies along
    (its type says which)."""
    ordered = lambda axes: ",".join(a for a in mesh.axis_names if a in axes)    # noqa: E731
    msgs = []
    paths = [p for p, _ in tree_flatten_with_path(out_struct)[0]]
    for path, spec, aval in zip(paths, out_specs, out_avals):
        varying = aval.vma
        missing = [a for a in _unmentioned(spec, manual_axes, mesh) if a in varying]
        if not missing:
            continue
        unmentioned = [a for a in mesh.axis_names if a not in _named_axes(spec)]
        where = f"out_specs{keystr(path)}" if paths != [()] else "out_specs"
        if len(unmentioned) > 1:
            need = ordered(_named_axes(spec))
            msgs.append(f"* {where} is {spec!r} which implies that the corresponding output "
                        f"value is only varying across mesh axes {{{need}}} and not "
                        f"{{{ordered(missing)}}}, but it was inferred to be possibly varying "
                        f"over {{{ordered(varying)}}}")
        else:
            msgs.append(f"* {where} is {spec!r} which implies that the corresponding output "
                        f"value is replicated across mesh axis '{unmentioned[0]}', but could "
                        f"not infer replication over any axes")
    if not msgs:
        return
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    raise ValueError(
        f"shard_map applied to the function '{fun_name}' was given out_specs which require "
        f"replication which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names "
        f"{mesh.axis_names}.\n\n" + "\n\n".join(msgs) + "\n\n"
        "Check if these output values are meant to be replicated over those mesh axes. If "
        "not, consider revising the corresponding out_specs entries. If so, consider "
        "disabling the check by passing the check_vma=False argument to `jax.shard_map`.")


def _fun_name(f) -> str:
    return getattr(f, "__name__", str(f))


def _abstract_context(context):
    """The context mesh as JAX names it (get_abstract_mesh()): abstract, and in a shard_map
    body with that body's manual axes of type Manual."""
    abstract = context.abstract_mesh if isinstance(context, Mesh) else context
    if not _bodies:
        return abstract
    manual = _bodies[-1][1]
    return AbstractMesh(abstract.axis_sizes, abstract.axis_names,
                        tuple(AxisType.Manual if a in manual else t
                              for a, t in zip(abstract.axis_names, abstract.axis_types)),
                        _device=abstract._device)


def _checked_mesh(mesh, axis_names, in_specs, out_specs, check_vma=True):
    """(the mesh, its manual axes), with JAX's errors for a missing mesh or bad axis names.
    In another shard_map's body the mesh is that body's, and the axes it is not manual over."""
    context = _bodies[-1][0] if _bodies else get_mesh()
    if mesh is None:
        if context is None:
            raise ValueError("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to "
                             "enter into a mesh context")
        mesh = context.as_from_context() if isinstance(context, Mesh) else context
    elif _bodies and get_abstract_mesh() != mesh.abstract_mesh:
        # in a body the context is its mesh with the body's axes Manual: a mesh passed to a
        # shard_map there is another (JAX's error; leave `mesh` out to nest one)
        raise ValueError(f"The context mesh {get_abstract_mesh()} should match the mesh passed "
                         f"to shard_map {mesh}")
    elif context is not None and context.abstract_mesh != mesh.abstract_mesh:
        raise ValueError(f"The context mesh {_abstract_context(context)} should match the mesh "
                         f"passed to shard_map {mesh}")
    if not isinstance(mesh, (Mesh, AbstractMesh)):
        raise TypeError(f"shard_map requires a `jax.sharding.Mesh` or a "
                        f"`jax.sharding.AbstractMesh` instance for its second argument, but "
                        f"got {mesh} of type {type(mesh)}.")
    if mesh.empty:                                  # (JAX's words)
        raise ValueError(f"shard_map requires a non-empty mesh. Got {mesh}")
    if not isinstance(axis_names, (set, frozenset)):
        raise TypeError(f"`axis_names` argument of shard_map should be of type `frozenset` or "
                        f"`set`. Got type: {type(axis_names)}")
    outer = _outer_manual()
    # the Explicit axes an enclosing vmap maps over are not the body's to name (JAX's
    # mesh_axis_names_wo_vmap); its batching rule splits the batch over them
    vmapped = _vmap_mesh_axes("explicit") & frozenset(mesh.axis_names)
    names = frozenset(mesh.axis_names) - vmapped
    manual = frozenset(axis_names) or names - outer
    if manual & outer:
        raise ValueError(f"shard_map with axis_names={set(manual)} inside the body of a shard_map "
                         f"manual over {set(outer)}: a nested shard_map can be manual only over "
                         f"other mesh axes; pass axis_names without {set(manual & outer)}")
    if not manual <= names:
        raise ValueError(f"jax.shard_map requires axis_names={manual} to be a subset of "
                         f"mesh.axis_names={names}")
    if in_specs is Infer and not all(t is AxisType.Explicit for a, t in
                                     zip(mesh.axis_names, mesh.axis_types) if a in manual):
        types = ", ".join(str(t) for a, t in zip(mesh.axis_names, mesh.axis_types)
                          if a in manual)
        raise TypeError(f"shard_map in_specs argument must be a pytree of "
                        f"`jax.sharding.PartitionSpec` instances, but it was `None` when "
                        f"axis_names={manual} are of type {types}")
    if in_specs is not Infer and in_specs is not None:
        _check_spec_names("in_specs", in_specs, manual, mesh)
        _check_summed_specs("in", in_specs, manual, mesh, check_vma)
    _check_spec_names("out_specs", out_specs, manual, mesh)
    _check_summed_specs("out", out_specs, manual, mesh, check_vma)
    return mesh, manual | vmapped




def _check_summed_specs(prefix, specs, manual, mesh, typed=True) -> None:
    """JAX's errors for specs with unreduced or reduced axes: they need a shard_map manual
    over every mesh axis, and those axes Explicit."""
    kinds = dict(zip(mesh.axis_names, mesh.axis_types))
    for s in _spec_leaves(specs):
        if not s.unreduced and not s.reduced:
            continue
        if frozenset(mesh.axis_names) != manual:
            raise NotImplementedError(
                f"unreduced/reduced can only be passed to {prefix}_specs when shard_map is in "
                f"full manual mode. Got mesh axis names {mesh.axis_names}, manual_axes: "
                f"{manual}, specs: {s}. Please file a bug at "
                f"https://github.com/jax-ml/jax/issues.")
        for kind, axes in (("unreduced", s.unreduced), ("reduced", s.reduced)):
            if not all(kinds[a] is AxisType.Explicit for a in axes):
                raise ValueError(
                    f"{kind} in {prefix}_specs {s} can only be used when the mesh passed to "
                    f"shard_map contains axis names all of type `Explicit`. Got mesh {mesh}")


def _concrete_mesh(mesh, flat_args):
    """The Mesh a shard_map over the AbstractMesh `mesh` runs on, eagerly: the context's
    (set_mesh), else the one its arguments are placed on (JAX's errors where an argument's
    mesh has another shape, or where none is placed on a mesh)."""
    context = get_mesh()
    if isinstance(context, Mesh):
        mesh = context
    for x in flat_args:
        sharding = getattr(x, "sharding", None) if is_sharded(x) else None
        if sharding is None or not isinstance(getattr(sharding, "mesh", None), Mesh) or \
                not sharding.mesh.axis_names:
            continue
        if sharding.mesh.shape_tuple != mesh.shape_tuple:
            raise ValueError(
                f"Mesh shape of the input {sharding.mesh.shape_tuple} does not match the mesh "
                f"shape passed to shard_map  {mesh.shape_tuple} for shape "
                f"{get_aval(x).str_short()}")
        mesh = sharding.mesh
    if isinstance(mesh, AbstractMesh):
        raise ValueError("Please pass `jax.Array`s with a `NamedSharding` as input to "
                         "`shard_map` when passing `AbstractMesh` to the mesh argument.")
    return mesh


def _spec_leaves(specs) -> list:
    return [s for s in tree_flatten(specs, is_leaf=lambda s: s is None or isinstance(s, P))[0]
            if isinstance(s, P)]


def _check_spec_names(what, specs, manual, mesh) -> None:
    for spec in _spec_leaves(specs):
        seen = set()
        for axes in spec._axes(0):
            for a in axes:
                if a not in manual:
                    names = ", ".join(repr(n) for n in mesh.axis_names if n in manual)
                    raise ValueError(f"shard_map {what} argument must refer to an axis marked "
                                     f"as manual (frozenset({{{names}}})), but:\n\n  {what} "
                                     f"refers to {a!r}\n\nCheck the {what} values passed to "
                                     f"shard_map.")
                if a in seen:
                    raise DuplicateSpecError(
                        f"A single NamedSharding spec specification can map every mesh axis "
                        f"to at most one positional dimension, but {spec!r} has duplicate "
                        f"entries for `{a}`")
                seen.add(a)


def _inferred_spec(x) -> PartitionSpec:
    """An argument's spec from its own sharding: a sharded array's, or (a tracer under jit)
    the one its type carries on Explicit axes, as JAX reads typeof(x).sharding."""
    if is_sharded(x):
        return x.sharding.spec
    aval = getattr(x, "aval", None)     # a Ref's tracer: its AbstractRef's split, as JAX's
    spec = getattr(getattr(aval if hasattr(aval, "inner_aval") else get_aval(x), "split",
                           None), "spec", None)
    return spec if isinstance(spec, PartitionSpec) else P()


def _manual_spec(spec, manual) -> PartitionSpec:
    """`spec` naming the axes of `manual` only (its sets kept): a split over another axis is
    left out, as JAX's _manual_spec (its ValueError where a manual axis follows one left out
    of a dimension's tuple)."""
    if all(a in manual for axes in spec._axes(0) for a in axes):
        return spec
    parts = []
    for entry in spec.partitions:
        axes = entry if isinstance(entry, tuple) else (entry,) if entry is not None else ()
        kept = [a if a in manual else None for a in axes]
        while kept and kept[-1] is None:
            kept.pop()
        if None in kept:
            raise ValueError(f"Invalid spec: {spec}")
        parts.append(None if not kept else kept[0] if len(kept) == 1 and
                     not isinstance(entry, tuple) else tuple(kept))
    return P(*parts, unreduced=spec.unreduced, reduced=spec.reduced)


def _flat_in_specs(in_specs, args, flat_args, mesh, manual) -> list:
    """One PartitionSpec (or None: a static argument) per leaf of `args`."""
    if in_specs is Infer:           # Explicit axes: each argument's own sharding, over the
        # manual axes alone (JAX's _manual_spec: the others stay the body's to partition)
        return [_manual_spec(_inferred_spec(x), manual) for x in flat_args]
    is_leaf = lambda s: s is None or isinstance(s, P)    # noqa: E731
    if is_leaf(in_specs):
        return [in_specs] * len(flat_args)
    try:
        return broadcast_prefix(in_specs, args, is_leaf=is_leaf)
    except ValueError:
        e, *_ = prefix_errors(in_specs, args, is_leaf)
        raise e("shard_map in_specs") from None


def _flat_out_specs(out_specs, out_struct) -> list:
    is_leaf = lambda s: s is None or isinstance(s, P)    # noqa: E731
    if is_leaf(out_specs):
        return [out_specs] * len(tree_flatten(out_struct)[0])
    try:
        return broadcast_prefix(out_specs, out_struct, is_leaf=is_leaf)
    except ValueError:
        e, *_ = prefix_errors(out_specs, out_struct, is_leaf)
        raise e("shard_map out_specs") from None


def _arg_descriptions(f, args, flat_args) -> list:
    """Per leaf: ('args[0]', where known ", where args[0] is bound to f's parameter 'a'")."""
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    out = []
    fun = _fun_name(f)
    for i, a in enumerate(args):
        if not params:
            bound = ""
        elif i >= len(params) or params[i].kind == params[i].VAR_POSITIONAL:
            bound = (f", where args[{i}] is the index {i - len(params) + 1} component of "
                     f"{fun}'s varargs parameter '{params[-1].name}'")
        else:
            bound = f", where args[{i}] is bound to {fun}'s parameter '{params[i].name}'"
        out.extend((f"args[{i}]{keystr(path)}", bound)
                   for path, _ in tree_flatten_with_path(a)[0])
    return out


def _type_text(aval) -> str:
    """'float32[6,8]' (or 'float32[2]{V:x}' inside a body), as JAX's shard_map errors write a
    type."""
    return str(aval.strip_weak_type())


def _spec_keys(in_specs, args) -> list:
    """Per leaf of `args`: where its spec is in `in_specs` ('in_specs[0]'; 'in_specs' for one
    spec for all), as JAX's errors name it."""
    is_spec = lambda s: s is None or isinstance(s, PartitionSpec)  # noqa: E731
    try:
        paths = tree_flatten_with_path(in_specs, is_leaf=is_spec)[0]
        keyed = tree_flatten(in_specs, is_leaf=is_spec)[1].unflatten(
            [f"in_specs{keystr(path)}" for path, _ in paths])
        return broadcast_prefix(keyed, args, is_leaf=lambda k: isinstance(k, str))
    except (ValueError, TypeError):
        return ["in_specs"] * len(tree_flatten(args)[0])


def _check_args(f, mesh, args, flat_args, specs, avals, static, in_specs=None) -> None:
    """JAX's errors for an in_spec longer than its argument's rank, or that does not divide
    it evenly."""
    names = [n for n, s in zip(_arg_descriptions(f, args, flat_args), static) if not s]
    keys = [k for k, s in zip(_spec_keys(in_specs, args), static) if not s]
    fun = _fun_name(f)
    dyn_specs = [s for s in specs if s is not None]
    for (name, bound), key, spec, aval in zip(names, keys, dyn_specs, avals):
        if len(spec) > len(aval.shape):
            msg = (f"shard_map applied to the function '{fun}' was given an in_specs entry "
                   f"which is too long to be compatible with the corresponding input value "
                   f"from the function:\n\n{key} is {spec!r} which has length {len(spec)}, "
                   f"but the passed {name}{bound}, has shape {_type_text(aval)}, which has "
                   f"rank {len(aval.shape)} (and {len(aval.shape)} < {len(spec)})\n\nEntries "
                   f"in in_specs must be of length no greater than the number of axes in the "
                   f"corresponding input value.\n\nEither revise the spec to be shorter, or "
                   f"modify '{fun}' so that its inputs have sufficient rank.")
            if not aval.shape:
                msg += ("\n\nFor scalar values (rank 0), consider using an in_specs entry of "
                        "`P()`, where `P = jax.sharding.PartitionSpec`.")
            raise ValueError(msg)
    sizes = mesh.shape
    for (name, bound), spec, aval in zip(names, dyn_specs, avals):
        for d, axes in enumerate(spec._axes(len(aval.shape))):
            n = math.prod(sizes[a] for a in axes)
            if aval.shape[d] % n:
                where = f"mesh axis '{axes[0]}'" if len(axes) == 1 else f"mesh axes {axes}"
                raise ValueError(
                    f"shard_map applied to the function '{fun}' was given argument arrays "
                    f"with axis sizes that are not evenly divisible by the corresponding mesh "
                    f"axis sizes:\n\nThe mesh given has shape {mesh.axis_sizes} with "
                    f"corresponding axis names {mesh.axis_names}.\n\nthe passed {name} of "
                    f"shape {_type_text(aval)}{bound}, corresponds to in_specs of value "
                    f"{spec!r}, "
                    f"which maps array axis {d} (of size {aval.shape[d]}) to {where} (of size "
                    f"{n}), but {n} does not evenly divide {aval.shape[d]}\n\nArray "
                    f"arguments' axis sizes must be evenly divisible by the mesh axis or axes "
                    f"indicated by the corresponding elements of the argument's in_specs "
                    f"entry. Consider checking that in_specs are correct, and if so consider "
                    f"changing the mesh axis sizes or else padding the input and adapting "
                    f"'{fun}' appropriately.")


def _check_explicit_args(mesh, manual, dyn, specs, avals) -> None:
    """Manual over Explicit axes only, each argument must already be split as its in_spec
    says (its type tells): JAX's error otherwise (shard_map does not reshard)."""
    if manual != frozenset(mesh.axis_names) or \
            any(t is not AxisType.Explicit for t in mesh.axis_types):
        return
    for x, spec, aval in zip(dyn, specs, avals):
        ndim = len(aval.shape)
        typed = public_type(aval, x).sharding.spec
        if config.jax_remove_size_one_mesh_axis_from_type:     # (the type has none, as JAX's)
            spec = _without_size_one(spec, mesh)
        if typed._axes(ndim) != spec._axes(ndim) or typed.unreduced != spec.unreduced or \
                typed.reduced != spec.reduced:
            wanted = P(*[None if not a else a[0] if len(a) == 1 else a
                         for a in spec._axes(ndim)], unreduced=spec.unreduced,
                       reduced=spec.reduced)
            raise ValueError(
                f"in_specs passed to shard_map: {wanted} does not match the specs of the "
                f"input: {typed} for arg: {aval}. `in_specs` is an optional "
                f"argument so you can omit specifying it and shard_map will infer the "
                f"in_specs from the arguments. If you want to reshard your inputs, you can "
                f"use `jax.reshard` on the arguments and then pass those args to shard_map.")


def _without_size_one(spec, mesh) -> PartitionSpec:
    """`spec` without the mesh axes of size 1 (JAX's remove_size_one_mesh_axis)."""
    keep = lambda axes: tuple(a for a in axes if mesh.shape[a] != 1)  # noqa: E731
    return P(*[None if not (k := keep(axes)) else k[0] if len(k) == 1 else k
               for axes in spec._axes(0)])


def _check_out_ranks(f, out_specs, out_struct, flat_out, out_avals) -> None:
    fun = _fun_name(f)
    paths = [p for p, _ in tree_flatten_with_path(out_struct)[0]]
    for path, spec, aval in zip(paths, flat_out, out_avals):
        if spec is None or len(spec) <= len(aval.shape):
            continue
        where = f"out_specs{keystr(path)}" if paths != [()] else "out_specs"
        msg = (f"shard_map applied to the function '{fun}' was given an out_specs entry which "
               f"is too long to be compatible with the corresponding output value from the "
               f"function:\n\n{where} is {spec!r} which has length {len(spec)}, but "
               f"{fun}(*args){keystr(path)} has shape {_type_text(aval)}, which has rank "
               f"{len(aval.shape)} (and {len(aval.shape)} < {len(spec)})\n\nEntries in "
               f"out_specs must be of length no greater than the number of axes in the "
               f"corresponding output value.\n\nEither revise the spec to be shorter, or "
               f"modify '{fun}' so that its outputs have sufficient rank.")
        if not aval.shape:
            msg += ("\n\nFor scalar values (rank 0), consider using an out_specs entry of "
                    "`P()`, where `P = jax.sharding.PartitionSpec`. In particular, for rank 0 "
                    "outputs which are not constant over the mesh, add at least one "
                    "(singleton) axis to them so that they can be concatenated using "
                    "out_specs.")
        raise ValueError(msg)
