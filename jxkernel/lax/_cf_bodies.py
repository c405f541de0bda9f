"""The bodies of control flow (cond's and switch's branches, scan's, while_loop's and
fori_loop's bodies, a custom solve's functions), shared by its primitives: a body traced
(pytree inputs and outputs) into a jaxpr whose constants become explicit operands, cached per
function and input types (`trace_fun`); the hijax state it carries; its carry's types checked,
with JAX's errors naming the pytree path and both types (`check_carry`); its jaxpr's inputs
and outputs reordered or dropped."""
from __future__ import annotations

import inspect

import numpy as np

from ..core import dtypes, vma
from ..core.avals import ShapedArray, get_aval, valid_jaxtype
from ..core.check import JaxprTypeError
from ..core.config import config
from ..core.compile_record import body_traced, misses_held
from ..core.avals import typeof_rules
from ..core.hijax_lower import CapturedHighValues, captured_mutable, lower_jaxpr  # noqa: F401
from ..core.lru import TRACES, WeakLRU
from ..core.trace import Tracer, _ctx
from ..core.interpret import eval_jaxpr
from ..core.hijax import AvalQDD, cur_qdd
from ..core.ir import ClosedJaxpr, Jaxpr
from ..core.source_info import function_source_info
from ..core.vma import in_mesh_order
from ..transforms.api_util import body_arg_names, flatten_fun
from ..transforms.jit.args import not_a_jax_type
from ..xla.array import HOST_READS
from ..core.staging import (DebugInfo, JaxprTrace, convert_constvars_to_invars,
                            high_jaxprs, is_ref, retyped_consts, trace_to_jaxpr)
from ..tree_util import equality_errors, keystr, tree_flatten_with_path, tree_unflatten
from .conversion import _convert_element_type


def typecheck_param(prim: str, param, name: str, required: str, ok: bool) -> None:
    """JAX's JaxprTypeError for an equation's parameter of the wrong kind (`ok` false), as
    check_jaxpr meets it in an equation a user changed."""
    if not ok:
        text = str(param)
        sep = "\n" if "\n" in text or "\r" in text else " "
        raise JaxprTypeError(f"invalid {prim} param {name} of type {type(param).__name__}, "
                             f"{required} required:{sep}{text}")


def fun_name(fun) -> str:
    return getattr(fun, "__name__", type(fun).__name__)


# A body or branch is traced once per input types, as JAX's `_initial_style_jaxpr` caches
# by the function (held weakly) and its input types: calling the same scan again, or
# retracing a jit around it, runs the Python body (and a print in it) once, not per call.
# Keyed also by what the trace reads of its surroundings, as jit's own traces are: the
# tracing options, the named axes bound, a shard_map body's manual axes.
_traced = WeakLRU(TRACES)


# what JAX's errors say a body was traced for (its debug_info's traced_for)
_JAX_TRACED_FOR = {"scan body": "scan", "while_loop body": "while_body",
                   "while_loop cond": "while_cond", "cond branch": "cond",
                   "switch branch": "switch"}


def _valid_results(flat, info: DebugInfo, out_tree):
    """`flat`, refusing a result of no JAX type (a string) in JAX's words: "function body at
    f.py:3 traced for scan returned a value of type <class 'str'> at output component [0],
    which is not a valid JAX type" (the trace's own check would name the value alone)."""
    def fun(*args):
        outs = flat(*args)
        for i, out in enumerate(outs):
            if not isinstance(out, Tracer) and not valid_jaxtype(out):
                where = f"{info.fun_name} at {info.source.file}:{info.source.line}" \
                    if info.source else info.fun_name
                raise not_a_jax_type(where, out, i, out_tree(), info.transformation)
        return outs
    return fun


def trace_fun(fun, in_tree, in_avals, what: str, promoted: tuple = ()):
    """(ClosedJaxpr of fun over flat inputs, output treedef); consts stay in the ClosedJaxpr.
    A Ref made outside and used inside is a const (core/staging.py); one written is carried
    by the loop or cond that traced it (`_cf_refs.written_refs`), or refused by `hoist`. `promoted`:
    in a loop's retrace with weakly typed carries promoted (`settle_carry`), the carry's types
    its body returned before (which the explainer tells apart from a call given other types,
    and from a promotion that still leaves them other than the start's); () otherwise."""
    key = (fun, (in_tree, tuple(in_avals), what, config._trace_state) + vma.trace_place())
    found = _traced.get(key)
    if found is not None:
        return _staged_or_threaded(found, what)
    flat, out_tree = flatten_fun(fun, in_tree)
    # a wrapper of the user's function (fori_loop's) is traced as that function, as JAX
    # traces its wrappers with the user's function's debug info
    traced_as = getattr(fun, "_jx_traced_as", (fun, None))
    user = traced_as[0]
    # told as JAX tells it ("... for scan", "for while_body", "for fori_loop")
    told = "fori_loop" if traced_as[1] == "lax.fori_loop" else _JAX_TRACED_FOR.get(what, what)
    # its inputs named by the user's parameters, so tracer errors say which one a value
    # depends on ("the argument i" of a fori_loop body), as JAX's do
    names = body_arg_names(user, in_tree, traced_as[2] if len(traced_as) > 2 else None)
    info = DebugInfo(fun_name(user), function_source_info(user), told, names)
    flat = _valid_results(flat, info, out_tree)
    # hijax equations made and used inside the body: their low equations (core/hijax_lower.py);
    # a loop body or branch capturing a mutable hijax value from outside stays high (the
    # value a `BoxTy` const, its equations inside), as JAX stages it (_staged_or_threaded)
    reads = set()               # the arrays whose values its Python read (xla/array.py)
    HOST_READS.append(reads)
    try:
        with misses_held(fun):      # (what the body meets is logged after its own miss)
            closed = trace_to_jaxpr(flat, list(in_avals), info, "lift")
    finally:
        HOST_READS.pop()
        if HOST_READS:              # (a body traced inside a jit's trace: its reads too)
            HOST_READS[-1].update(reads)
    if what in _JAX_TRACED_FOR and captured_mutable(closed):
        found = _staged_or_threaded((closed, out_tree()), what)
    else:
        found = lower_jaxpr(closed, what=what), out_tree()
    # tracers die with their trace (a finished one's: jit's stand-ins for Ref arguments)
    if not any(isinstance(c, Tracer) and c._trace.alive for c in found[0].consts):
        _traced[key] = found
    # a miss of this cache, told (and with jax_explain_cache_misses logged) as JAX tells its
    # bodies' misses: after the trace, so a body whose trace raised is not told
    body_traced(fun, in_tree, in_avals, what, info.source, promoted, closed,
                frozenset(reads))
    return found


def _staged_or_threaded(found, what):
    """`found`, a body's trace, as the loop or cond binding it takes it: one capturing
    mutable hijax values stays high where make_jaxpr or jit stages it (the enclosing trace's
    lowering threads their state, lax/_cf_high.py); elsewhere (eagerly, under grad or vmap,
    or lowering) lowering it raises CapturedHighValues, and the loop threads their state now."""
    closed = found[0]
    if not (what in _JAX_TRACED_FOR and captured_mutable(closed)):
        return found
    if not _stages_high():
        lower_jaxpr(closed, what=what)          # raises: they are captured
    if what == "while_loop body" and closed in retyped_consts:
        raise TypeError("type-changing mutations not allowed in while_loop body")
    return found


def _stages_high() -> bool:
    """Whether the current trace stages a jaxpr that may hold high equations (make_jaxpr's or
    jit's trace; not one lowering them, where a captured value's state is threaded now)."""
    trace = _ctx.trace
    return type(trace) is JaxprTrace and not trace.requires_low


def hoist(closed: ClosedJaxpr, what: str = "this function"):
    """(ClosedJaxpr taking its consts as leading inputs, the consts), a Ref's value where the
    caller runs in the Ref's place."""
    if closed.ref_writes:
        raise NotImplementedError(
            f"{what} writes a Ref made outside it: jxkernel carries such writes out of jit, "
            f"scan, fori_loop, while_loop and cond, not this one. Pass the value in and return "
            f"the new one, then write the Ref outside.")
    jaxpr, consts = convert_constvars_to_invars(closed)
    return jaxpr, [c[...] if is_ref(c) else c for c in consts]


# ------------------------------------------------------------------ high values captured
# A scan body that captured a concrete mutable high value (a Flax hijax Variable made outside
# it) is traced again taking the value's low state (its type's read_loval) as more carry: in
# the body the object holds the carried tracers (update_from_loval) and its HiPrimitives run
# their to_lojax on them (the trace "requires low"), and after the loop the object holds the
# final state, as JAX threads a captured mutable hijax value's state through the loop.
def high_state(values) -> list:
    """The low values of the state of each of `values` (flat, in order)."""
    out = []
    for value in values:
        aval = typeof_rules[type(value)](value)
        out.extend(aval.read_loval(value.cur_qdd(), value))
    return out


def set_high_state(values, lovals, qdds=None) -> None:
    """Each of `values` made to hold its part of `lovals` (as `high_state` read it, under
    `qdds`, by default each value's current quasi-dynamic data)."""
    it = iter(lovals)
    for i, value in enumerate(values):
        aval = typeof_rules[type(value)](value)
        qdd = value.cur_qdd() if qdds is None else qdds[i]
        n = len(aval.lo_ty_qdd(qdd))
        aval.update_from_loval(qdd, value, *[next(it) for _ in range(n)])


def holding_high(values, lovals, fun):
    """(fun(), the new low state of `values`): `fun` run with `values` holding `lovals` and
    their high primitives lowered as they run; afterwards they hold their state again."""
    trace = _ctx.trace
    was = trace.requires_low
    # (from here the values' own primitives, reading and writing their state too, run low:
    # none of them is staged with the value as a constant of the body)
    trace.requires_low = True
    try:
        saved = high_state(values)
        qdds = [value.cur_qdd() for value in values]
        try:
            set_high_state(values, lovals)
            out = fun()
            # (a state whose type changed, a weak type made strong say, is the loop's to
            # settle or refuse, as any carry's)
            new = high_state(values)
        finally:            # (the values hold no tracer of this trace once it is done)
            set_high_state(values, saved, qdds)
    finally:
        trace.requires_low = was
    return out, new


def with_extra_leading_inputs(closed: ClosedJaxpr, avals, position: int = 0) -> ClosedJaxpr:
    """`closed` taking extra (ignored) inputs of `avals` inserted at `position`; used to give
    all branches of a cond the same operands."""
    if not avals:
        return closed

    def f(*args):
        kept = args[:position] + args[position + len(avals):]
        return eval_jaxpr(closed.jaxpr, closed.consts, *kept)
    in_avals = list(closed.in_avals)
    return trace_to_jaxpr(f, in_avals[:position] + list(avals) + in_avals[position:])


def forwarded_carries(jaxpr, n_before: int, n_carry: int, unused_by=None) -> list:
    """Per carry: whether `jaxpr` (inputs: `n_before` others, then the carries) returns it
    unchanged, and (with `unused_by`, a while loop's cond jaxpr over the same inputs) the cond
    never reads it. JAX hands such a carry back as the very value passed in (a Python float
    stays one), since the loop never changes it."""
    carries = jaxpr.invars[n_before:n_before + n_carry]
    out = [o is v for o, v in zip(jaxpr.outvars, carries)]
    if unused_by is not None:
        read = {id(a) for e in unused_by.eqns for a in e.invars} | \
            {id(a) for a in unused_by.outvars}
        out = [f and id(v) not in read
               for f, v in zip(out, unused_by.invars[n_before:n_before + n_carry])]
    return out


def forwarded_inputs(closed: ClosedJaxpr) -> list:
    """Per output of `closed`: the index of the input it returns unchanged, or None (JAX's
    `pe._jaxpr_forwarding`, without its rules for equations that forward)."""
    index = {id(v): i for i, v in enumerate(closed.jaxpr.invars)}
    return [index.get(id(v)) for v in closed.jaxpr.outvars]


def avals_of(leaves):
    """The leaves' types; a mutable hijax value's with what it holds here (a Box a cond's
    branches capture, taken by each branch as an input: its type where the cond runs)."""
    return [_aval_qdd(x) for x in leaves]


def _aval_qdd(x):
    if type(x) in typeof_rules:
        aval = typeof_rules[type(x)](x)
        if getattr(aval, "has_qdd", False):
            return AvalQDD(aval, cur_qdd(x))
    return get_aval(x)


def type_str(aval) -> str:
    return aval.str_short(True) + (" (weak)" if aval.weak_type else "")


def describe_mismatch(what1, tree1, avals1, what2, tree2, avals2) -> str | None:
    """None if the two (tree, avals) agree (ignoring weak types); else JAX's sentence for the
    first differing leaf, naming its pytree path and both types."""
    if tree1 != tree2:
        return f"{what1} has structure {tree1} but {what2} has structure {tree2}."
    paths = _LeafPaths(tree1)
    for i, (a, b) in enumerate(zip(avals1, avals2)):
        if a == b:
            continue
        path = paths[i]
        if a.shape != b.shape or a.dtype != b.dtype:
            where = f" at path {path}" if path else ""
            what = "shapes" if a.shape != b.shape else "dtypes"
            return (f"{what1}{where} has type {_long(a)} but {what2} has type {_long(b)}, so "
                    f"the {what} do not match.")
        if getattr(a, "vma", None) != getattr(b, "vma", None) and vma.checked:
            return _vma_mismatch(what1, what2, path, a, b)      # (in a check_vma body only)
        # Explicit mesh axes: typed carries must keep their sharding. An untyped side (a
        # primitive with no sharding rule, or a one-device initial value, which JAX would
        # type as replicated) is let through
        if getattr(a, "split", None) is not None and b.split is not None and \
                a.split != b.split:
            where = f" at path {path}" if path else ""
            return (f"{what1}{where} has type {a.strip_weak_type()} but {what2} has type "
                    f"{b.strip_weak_type()}.")
    return None


class _LeafPaths:
    """The key path of each leaf of `tree`, found only when a message needs one: it unflattens
    the tree with placeholder leaves, which a pytree's unflatten may refuse (one that checks
    its children); then paths are left out of the message rather than raising its error."""

    def __init__(self, tree):
        self._tree, self._paths = tree, None

    def __getitem__(self, i) -> str:
        if self._paths is None:
            try:
                self._paths = [keystr(p) for p, _ in tree_flatten_with_path(
                    tree_unflatten(self._tree, list(range(self._tree.num_leaves))))[0]]
            except Exception:       # noqa: BLE001  (the user's unflatten, whatever it raises)
                self._paths = [""] * self._tree.num_leaves
        return self._paths[i]


def _vma_mismatch(what1, what2, path, a, b, carry=None) -> str:
    """JAX's sentence for values varying over different manual axes (and its hint); `carry`:
    a loop carry's leaf as check_carry names it (with its path)."""
    where = f" at path {path}" if path and carry is None else ""
    text = (f"{what1}{where} has type {a.strip_weak_type()} but {what2} has type "
            f"{b.strip_weak_type()}, so the manual axis types do not match.")
    missing = in_mesh_order(b.vma - a.vma)
    see = ("\nSee https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
           "information.")
    if missing and carry is not None:
        text += (f"\n\nThis might be fixed by applying `jax.lax.pcast(..., {missing}, "
                 f"to='varying')`, to the initial carry value corresponding to {carry}.{see}")
    elif what1.startswith("The output of "):        # cond's branches: JAX hints even with ()
        text += (f"\n\nThis might be fixed by applying `jax.lax.pcast(..., {missing}, "
                 f"to='varying')` to the output of {what1[len('The output of '):]}.{see}")
    return text


def _long(aval) -> str:
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def unify_weak_types(avals_a, avals_b):
    """Avals where a leaf is weak only if weak in both (JAX's rule for loop carries)."""
    return [a if a.weak_type == b.weak_type else a.update(weak_type=False)
            for a, b in zip(avals_a, avals_b)]


def settle_carry(in_avals, out_avals):
    """The carry avals to retrace a loop body with, as JAX does: a weakly typed input (a Python
    scalar, say) whose dtype differs from what the body returns is converted to the promoted
    dtype (strongly typed). A difference in weak type alone retraces nothing (the body keeps
    seeing a weak carry, and a y made from it stays weak, as in JAX)."""
    promoted = []
    for a, b in zip(in_avals, out_avals):
        if a.weak_type and a.shape == b.shape and a.dtype != b.dtype:
            a = a.update(dtype=dtypes.result_type(a, b)[0], weak_type=False)
        promoted.append(a)
    return promoted


def broadcast_aval(aval: ShapedArray, size: int, axis: int = 0) -> ShapedArray:
    shape = list(aval.shape)
    shape.insert(axis, size)
    return aval.update(shape=shape)


def cast_like(x, aval):
    """`x` converted to `aval`'s dtype and weak type (a loop's carry after unification)."""
    a = get_aval(x)
    if a.dtype == aval.dtype and a.weak_type == aval.weak_type:
        return x
    return _convert_element_type(x, aval.dtype, aval.weak_type)


def check_carry(body_fun, in_tree, in_avals, out_tree, out_avals, name="body function"):
    """JAX's errors (lax/control_flow/loops.py `_check_carry_type`) for a loop body whose carry
    leaves it with another structure or type: each differing leaf named by the body's first
    parameter and its path ("the input carry component c['x']"), all of them listed."""
    component = _carry_component(body_fun)
    if in_tree != out_tree:
        try:
            diffs = [f"{component(keystr(path))} is a {thing1} but the corresponding component "
                     f"of the carry output is a {thing2}, so {why}"
                     for path, thing1, thing2, why in
                     equality_errors(tree_unflatten(in_tree, list(in_avals)),
                                     tree_unflatten(out_tree, list(out_avals)))]
        except Exception:       # noqa: BLE001  (a pytree's unflatten may refuse avals)
            diffs = None
        differences = (f"the input tree structure is:\n{in_tree}\nthe output tree structure "
                       f"is:\n{out_tree}\n") if not diffs else _listed(diffs)
        raise TypeError(f"{name} carry input and carry output must have the same pytree "
                        f"structure, but they differ:\n\n{differences}\nRevise the function so "
                        f"that the carry output has the same pytree structure as the carry input.")
    paths = _LeafPaths(in_tree)
    diffs, hints = [], []
    for i, (a, b) in enumerate(zip(in_avals, out_avals)):
        if a == b:
            continue
        what = component(paths[i])
        if a.shape != b.shape or a.dtype != b.dtype:
            extra = " and ".join(w for w, differ in (("dtypes", a.dtype != b.dtype),
                                                     ("shapes", a.shape != b.shape)) if differ)
            extra = extra.replace("dtypes and shapes", "dtypes do not match, and the shapes")
            diffs.append(f"{what} has type {_long(a)} but the corresponding output carry "
                         f"component has type {_long(b)}, so the {extra} do not match")
        elif getattr(a, "vma", None) != getattr(b, "vma", None) and vma.checked:
            # (in a check_vma body only: an eager body's steps run with its types erased)
            diffs.append(_vma_mismatch(what, "the corresponding output carry component",
                                       None, a, b).rstrip("."))
            missing = in_mesh_order(b.vma - a.vma)
            if missing:          # JAX's advice, one per carry that gains axes in the body
                hints.append(f"applying `jax.lax.pcast(..., {missing}, to='varying')`, to the "
                             f"initial carry value corresponding to {what}")
        # Explicit mesh axes: typed carries must keep their sharding. An untyped side (a
        # primitive with no sharding rule, or a one-device initial value, which JAX would
        # type as replicated) is let through
        elif getattr(a, "split", None) is not None and b.split is not None and \
                not _same_typing(a, b):
            diffs.append(f"{what} has type {a.strip_weak_type()} but the corresponding output "
                         f"carry component has type {b.strip_weak_type()}")
    if diffs:
        advice = "" if not hints else f"This might be fixed by {hints[0]}.\n" \
            if len(hints) == 1 else "This might be fixed by:\n" + _listed(hints)
        if advice:
            advice += ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma "
                       "for more information.\n\n")
        raise TypeError(f"{name} carry input and carry output must have equal types, but they "
                        f"differ:\n\n{_listed(diffs)}\n{advice}Revise the function so that all "
                        f"output types match the corresponding input types.")


def _same_typing(a, b) -> bool:
    """Whether typed `a` and `b` are split alike over one mesh (a device Mesh and its
    AbstractMesh are one: JAX's types hold abstract meshes only)."""
    return a.split.mesh.abstract_mesh == b.split.mesh.abstract_mesh and \
        list(a.split.spec._axes(len(a.shape))) == list(b.split.spec._axes(len(b.shape)))


def _carry_component(body_fun):
    """How JAX names a carry leaf at a path: by the body's first parameter where it has one
    (a fori_loop's wrappers call theirs `loop_carry`, as JAX's do)."""
    try:
        carry_name = next(iter(inspect.signature(body_fun).parameters), None)
    except (ValueError, TypeError):
        carry_name = None
    if carry_name:
        return lambda path: (f"the input carry component {carry_name}{path}" if path else
                             f"the input carry {carry_name}")
    return lambda path: f"the input carry at path {path}" if path else "the input carry"


def _capitalize(text) -> str:
    return text[:1].upper() + text[1:]


def _listed(diffs) -> str:
    """One difference as a sentence, several as JAX's bullet list."""
    if len(diffs) == 1:
        return f"{_capitalize(diffs[0])}.\n"
    return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def _groups(group_sizes):
    starts = np.cumsum([0] + list(group_sizes))
    return [list(range(starts[i], starts[i + 1])) for i in range(len(group_sizes))]


def permute_inputs(closed, group_sizes, order):
    """`closed` with its input groups (of `group_sizes`) taken in the order `order` gives."""
    groups = _groups(group_sizes)
    return reorder_inputs(closed, [i for g in order for i in groups[g]])


def permute_outputs(closed, group_sizes, order):
    """`closed` with its output groups (of `group_sizes`) given in the order `order` gives."""
    groups = _groups(group_sizes)

    def f(*args):
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
        return [outs[i] for g in order for i in groups[g]]
    return trace_to_jaxpr(f, closed.in_avals)


def reorder_inputs(closed, order):
    """A jaxpr whose k-th input is `closed`'s input order[k]."""
    if list(order) == list(range(len(order))):
        return closed
    avals = list(closed.in_avals)

    def f(*args):
        original = [None] * len(args)
        for arg, pos in zip(args, order):
            original[pos] = arg
        return eval_jaxpr(closed.jaxpr, closed.consts, *original)
    return trace_to_jaxpr(f, [avals[i] for i in order])


def drop_outputs(closed, drop):
    """`closed` without the outputs at the indices in `drop` (the same equations: not traced
    again, which a high jaxpr's box_set could not be without what its Box held)."""
    if not drop:
        return closed
    jaxpr, drop = closed.jaxpr, set(drop)
    kept = [o for i, o in enumerate(jaxpr.outvars) if i not in drop]
    out = ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, kept, jaxpr.eqns), closed.consts,
                      closed.ref_writes)
    if closed in high_jaxprs:
        high_jaxprs.add(out)
    return out
