"""cond and switch: choose one of several traced branches by a runtime index.

    >>> from jxkernel import lax
    >>> x = 3.0
    >>> lax.cond(x > 0, lambda x: x * 2., lambda x: -x, x)
    Array(6., dtype=float32, weak_type=True)

Every branch is traced once into a jaxpr (all branches, even under no
transformation, as in JAX), so they must agree on output types. The `cond`
primitive takes the index and the operands; each branch jaxpr takes every
branch's constants (hoisted) followed by the operands. It lowers to
`stablehlo.case`. `platform_dependent` is a cond whose index is the platform's
(platform_index.py: the primitive and which branches a module keeps).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.traceback_util import api_boundary
from ..core import dtypes, sharding_types, vma
from ..core.avals import Token, abstract_token, get_aval
from ..core.basearray import Array
from ..core.check import JaxprTypeError
from ..core.dce import dce_closed_outputs, dce_rules
from ..core.hijax import AvalQDD
from ..core.interpret import eval_jaxpr
from ..core.ir import ClosedJaxpr, Jaxpr, Var, check_effects, control_flow_allowed_effects
from ..core.lru import TRACES, WeakLRU
from ..core.numpy_eval import eval_closed_jaxpr_numpy
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, partial_eval_rules,
                              sharding_typing_rules, transpose_rules)
from ..core.trace import Tracer, jax_type_text, set_current_trace
from ..transforms.ad import jvp_jaxpr, transpose_jaxpr
from ..transforms.batching import batch_jaxpr
from ..core.partial_eval import partial_eval_jaxpr
from ..core.staging import trace_to_jaxpr
from ..core.interpreter_primitives import typed_constant
from ..tree_util import equality_errors_pytreedef, keystr, tree_flatten, tree_unflatten
from ..transforms import batch_util as bu
from . import _cf_python as python
from . import _cf_refs as cr
from . import _cf_bodies as cf
from ..transforms.ad_util import Zero, instantiate, is_undefined, stop_gradient
from .conversion import _convert_element_type, convert_element_type
from .creation import empty_like_aval
from .elementwise import clamp, eq, ne, select_n
from ..xla import stablehlo as hlo
from ..xla.lowering import TOKEN, effect_token, has_ordered_effect
from .io_effects import check_vmap_of_cond
from .platform_index import kept_branches, platform_index_p
from .tokens import eager_tokens
from .shapes import broadcast_in_dim

cond_p = Primitive("cond", multiple_results=True)


# ------------------------------------------------------------------ user functions
# JAX's older calling convention, still accepted: one pytree operand passed by keyword
# (`cond(pred, f, g, operand=x)`); a sentinel tells "not passed" from None
_no_operand = object()


def _keyword_operand(operands, operand):
    if operand is _no_operand:
        return operands
    if operands:
        raise TypeError(f"if 'operand' keyword is passed then no positional operands can be "
                        f"passed, got operand={operand!r} and positional operands {operands}")
    return (operand,)


@api_boundary
def cond(pred, true_fun, false_fun, *operands, operand=_no_operand):
    """true_fun(*operands) if pred else false_fun(*operands), with both branches traced."""
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _keyword_operand(operands, operand)
    aval = _pred_aval(pred)
    if not (dtypes.is_bool(aval.dtype) or dtypes.is_int(aval.dtype) or dtypes.is_float(aval.dtype)):
        raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype.name}.")
    if not dtypes.is_bool(aval.dtype):
        # a Python or NumPy number is compared in Python, as JAX's `pred != 0` does: no
        # program is compiled for it
        pred = ne(pred, typed_constant(0, aval.dtype)) if isinstance(pred, (Array, Tracer)) else \
            np.not_equal(pred, 0)
    if python.disabled() and python.concrete(pred) is not None:
        return (true_fun if python.concrete(pred) else false_fun)(*operands)
    index = convert_element_type(pred, np.int32)
    return _bind_cond(index, [false_fun, true_fun], operands, ("false_fun", "true_fun"),
                      reference=1)


@api_boundary
def switch(index, branches, *operands, operand=_no_operand):
    """branches[index](*operands); the index is clamped into range, as in JAX."""
    branches = list(branches)
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _keyword_operand(operands, operand)
    if np.shape(index):
        raise TypeError(f"Branch index must be scalar, got {index} of shape {np.shape(index)}.")
    try:
        aval = get_aval(index)
    except TypeError:
        raise TypeError(f"Index type must be an integer, got {index}.") from None
    if not dtypes.is_int(aval.dtype):
        raise TypeError(f"Index type must be an integer, got {index} as {aval.dtype.name}")
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = convert_element_type(index, np.int32)
    index = clamp(np.int32(0), index, np.int32(len(branches) - 1))
    if python.disabled() and python.concrete(index) is not None:
        return branches[int(python.concrete(index))](*operands)
    # JAX's names in its errors: "branch 0", then "branch1", "branch2", ... (its switch's)
    return _bind_cond(index, branches, operands,
                      ("branch 0", *(f"branch{i}" for i in range(1, len(branches)))),
                      what="switch branch")


def _pred_aval(pred):
    """The type of cond's predicate, or JAX's errors for one that has none."""
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence):
        raise TypeError(f"Pred must be a scalar, got {pred} of type {type(pred)}")
    if np.shape(pred):
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {np.shape(pred)}.")
    try:
        return get_aval(pred)
    except TypeError:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from None


def _bind_cond(index, funs, operands, names, reference=0, what="cond branch", **params):
    """Bind cond_p over traced `funs`; type errors compare each branch with funs[reference].
    `params`: platform_dependent's `branches_platforms`."""
    leaves, in_tree = tree_flatten(operands)
    passed = cr.ref_operands(funs[reference], in_tree, leaves, what.split()[0])
    if passed:
        return _cond_passing_refs(index, funs, leaves, in_tree, passed, names, reference,
                                  what, params)
    in_avals = cf.avals_of(leaves)
    # (what: "switch branch" for lax.switch, as JAX traces a branch for "cond" or "switch": one
    # function used by both is traced for each)
    traced, captured = [], []
    for f in funs:
        try:
            traced.append(cf.trace_fun(f, in_tree, in_avals, what))
        except cf.CapturedHighValues as e:      # hijax values captured: their state carried
            captured.extend(v for v in e.values if all(v is not c for c in captured))
    if captured:
        return _cond_threading(captured, index, funs, operands, names, reference, what, params)
    ref_tree, ref_avals = traced[reference][1], traced[reference][0].out_avals
    for i, ((closed, tree), name, fun) in enumerate(zip(traced, names, funs)):
        if i != reference:
            try:
                _check_branch(funs[reference], names[reference], ref_tree, ref_avals, fun, name,
                              tree, closed.out_avals, what.split()[0])
            except TypeError as error:
                # JAX's message names the first pair that differs; the error card fixes every
                # branch at once, so it is given all of their outputs
                error.branch_outputs = _branch_outputs(traced, names, funs, reference)
                raise
    check_effects([c.jaxpr for c, _ in traced], control_flow_allowed_effects,
                  f"`{what.split()[0]}`")
    refs = cr.written_refs([c for c, _ in traced])
    if refs:                            # Refs written inside: passed in and out, written back

        def writing(closed, tree):        # (the branch's trace, not the branch again)
            run = cr.discharged(closed, refs, tree)
            return lambda ops, values: run(tree_flatten(ops)[0], values)
        out, values = _bind_cond(index, [writing(*t) for t in traced],
                                 (tuple(operands), cr.ref_values(refs)), names, reference,
                                 **params)
        cr.write_refs(refs, values)
        return out
    first_tree = traced[0][1]
    hoisted = [cf.hoist(c) for c, _ in traced]
    # Every branch takes all branches' consts, each value once, as JAX's _merge_common_consts:
    # in the order JAX traces the branches (cond's true_fun, the reference, first; switch's in
    # order), each branch padded to take the others' (pad_constvars), then each value that is
    # several consts taken once (dedup_consts). A closure over `x` in both branches of
    # `cond(p, lambda: x * y, lambda: y)` is then one operand, as in JAX's `cond[...] p x y`.
    order = [reference] + [i for i in range(len(hoisted)) if i != reference]
    consts = [c for i in order for c in hoisted[i][1]]
    avals = cf.avals_of(consts)
    start = dict(zip(order, np.cumsum([0] + [len(hoisted[i][1]) for i in order])))
    ids = tuple(id(c) for c in consts)
    branches = []
    for i, (jaxpr, own) in enumerate(hoisted):
        left, right = tuple(avals[:start[i]]), tuple(avals[start[i] + len(own):])
        padded = pad_constvars(jaxpr, len(own), left, right)
        # (weak types may differ: cond's type is branch 0's, as JAX's)
        branches.append(dedup_consts(padded, len(consts), ids))
    seen = set()
    all_consts = [c for c in consts if id(c) not in seen and not seen.add(id(c))]
    # An output every branch returns as the same input is that input, as JAX's cond prunes
    # it: the equation does not compute it, and under vmap it stays as batched as the input
    in_fwd = [f[0] if len(set(f)) == 1 else None
              for f in zip(*[cf.forwarded_inputs(b) for b in branches])]
    if any(f is not None for f in in_fwd):
        branches = [cf.drop_outputs(b, [i for i, f in enumerate(in_fwd) if f is not None])
                    for b in branches]
    outs = iter(eager_tokens(cond_p.bind(index, *all_consts, *leaves, branches=tuple(branches),
                                         **params)))
    inputs = [*all_consts, *leaves]
    return tree_unflatten(first_tree, [next(outs) if f is None else _as_array(inputs[f])
                                       for f in in_fwd])


def _cond_passing_refs(index, funs, leaves, in_tree, passed, names, reference, what, params):
    """cond/switch with Refs among its operands (lax/_cf_refs.py): each branch takes the other
    operands and is handed inner Refs, JAX's error raised where a branch also closes over a
    passed Ref; after, each Ref takes its inner one's value."""
    inner = cr.inner_refs(leaves, passed)
    taking = [cr.taking_refs(f, in_tree, leaves, inner) for f in funs]
    rest = taking[0][1]
    rest_tree = tree_flatten(tuple(rest))[1]
    traced = []
    for f, _ in taking:     # (cached by trace_fun: _bind_cond's trace of them finds these)
        try:
            traced.append(cf.trace_fun(f, rest_tree, cf.avals_of(rest), what)[0])
        except cf.CapturedHighValues:
            pass
    cr.check_not_closed_over(funs[reference], in_tree, traced, leaves, inner,
                             what.split()[0])
    out = _bind_cond(index, [f for f, _ in taking], tuple(rest), names, reference, what,
                     **params)
    cr.write_back(leaves, inner)
    return out


def _cond_threading(values, index, funs, operands, names, reference, what, params):
    """cond/switch whose branches captured the concrete mutable high values `values`: their
    low state goes into every branch and its new state comes out of the one taken
    (lax/_cf_bodies.py's holding_high); after, they hold that state, as JAX threads them."""
    def threading(f):
        return lambda ops, state: cf.holding_high(values, state, lambda: f(*ops))
    out, state = _bind_cond(index, [threading(f) for f in funs],
                            (tuple(operands), cf.high_state(values)), names, reference, what,
                            **params)
    cf.set_high_state(values, state)
    return out


# Padded and deduplicated branches, cached by the branch's jaxpr (held weakly), as JAX's
# weakref_lru_caches of the same names: a cond traced again (its branches are cached by
# cf.trace_fun) binds the same branch jaxprs, so jit's caches of the equation hit.
_padded, _deduped = WeakLRU(TRACES), WeakLRU(TRACES)


def pad_constvars(closed: ClosedJaxpr, num_consts: int, left: tuple, right: tuple):
    """`closed` (its first `num_consts` inputs its consts) taking inputs of avals `left`
    before those and `right` after, unread: JAX's `_pad_constvars`.

    >>> f32, i32s = get_aval(np.float32(1)), get_aval(np.zeros(2, np.int32))
    >>> pad_constvars(trace_to_jaxpr(lambda c, x: [c * x], [f32, f32]), 1, (i32s,), ()).jaxpr
    { lambda ; a:i32[2] b:f32[] c:f32[]. let d:f32[] = mul b c in (d,) }
    """
    key = (closed, (num_consts, left, right))
    found = _padded.get(key)
    if found is None:
        j = closed.jaxpr
        invars = [*map(_var, left), *j.invars[:num_consts], *map(_var, right),
                  *j.invars[num_consts:]]
        found = _padded[key] = ClosedJaxpr(Jaxpr(j.constvars, invars, j.outvars, j.eqns),
                                           closed.consts)
    return found


pad_constvars.cache_clear = _padded.clear


def _var(aval) -> Var:
    """An input of type `aval`; a mutable hijax value's (a Box a branch captures, its type with
    what it holds here) typed by its type alone, as a trace's input is (core/staging.py)."""
    return Var(aval.aval if type(aval) is AvalQDD else aval)


def dedup_consts(closed: ClosedJaxpr, num_consts: int, const_ids: tuple):
    """`closed` taking each of its first `num_consts` inputs once per distinct id in
    `const_ids` (the values they are bound to), its first input of each read for all: JAX's
    `_dedup_consts`.

    >>> f32 = get_aval(np.float32(1))
    >>> dedup_consts(trace_to_jaxpr(lambda a, b: [a * b], [f32, f32]), 2, (7, 7)).jaxpr
    { lambda ; a:f32[]. let b:f32[] = mul a a in (b,) }
    """
    # keyed by which consts repeat, not the ids themselves: the result depends only on that
    pattern = tuple(const_ids.index(i) for i in const_ids)
    key = (closed, (num_consts, pattern))
    found = _deduped.get(key)
    if found is None:
        j = closed.jaxpr
        first = {v: j.invars[p] for v, p in zip(j.invars[:num_consts], pattern)}

        def canon(x):
            return first.get(x, x) if isinstance(x, Var) else x
        eqns = [e.replace(invars=[canon(x) for x in e.invars]) for e in j.eqns]
        invars = [v for v, p, k in zip(j.invars, pattern, range(num_consts)) if p == k]
        found = _deduped[key] = ClosedJaxpr(
            Jaxpr(j.constvars, invars + j.invars[num_consts:], [canon(x) for x in j.outvars],
                  eqns), closed.consts)
    return found


dedup_consts.cache_clear = _deduped.clear


def _taking_consts(jaxpr, own, const_avals):
    """`jaxpr` (its consts as leading inputs) taking instead all of `const_avals`, its own
    at the positions `own`, then its other inputs."""
    n = len(const_avals)

    def f(*args):
        return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *[args[p] for p in own], *args[n:])
    return trace_to_jaxpr(f, list(const_avals) + list(jaxpr.in_avals[len(own):]))


def _as_array(x):
    """An input handed back by cond as an Array, a Python scalar weakly typed (JAX's
    lax.asarray). A token, or a tracer of one, is no array: JAX's lax.asarray refuses it so,
    with its words, eagerly and traced alike."""
    if type(x) is Token or isinstance(x, Tracer) and x.aval is abstract_token:
        raise TypeError(f"asarray: expected ArrayLike, got {x} of type {jax_type_text(x)}.")
    if isinstance(x, (Array, Tracer)):
        return x
    aval = get_aval(x)
    return _convert_element_type(x, aval.dtype, aval.weak_type)


def _check_branch(fun0, name0, tree0, avals0, fun, name, tree, avals, api="cond"):
    where = (f"{name0} is {cf.fun_name(fun0)}{_defined_at(fun0)}\n"
             f"{name} is {cf.fun_name(fun)}{_defined_at(fun)}\n\n")
    if tree0 != tree:          # JAX's sentences, one per node that differs (its _cond)
        diffs = [f"{name0} output{_at(p)} is a {thing0} but {name} output{_at(p)} is a "
                 f"{thing}, so {why}" for p, thing0, thing, why in
                 equality_errors_pytreedef(tree0, tree)]
        differences = f"{diffs[0]}.\n" if len(diffs) == 1 else \
            "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"
        raise TypeError(f"{api} branch outputs must have the same pytree structure, but they "
                        f"differ:\n\n{where}{differences}\nRevise {name0} and/or {name} so "
                        f"that they have the same pytree structure.")
    diff = _type_differences(name0, tree0, avals0, name, avals) or cf.describe_mismatch(
        f"The output of {name0}", tree0, avals0, f"the corresponding output of {name}", tree,
        avals)
    if diff:
        raise TypeError(f"{api} branches must have equal output types but they differ.\n\n{where}"
                        f"{diff}\n\nRevise {name0} and/or {name} so that all output types match.")


def _type_differences(name0, tree0, avals0, name, avals) -> str | None:
    """JAX's sentence for branch outputs of one structure whose types differ at one leaf, or a
    bullet for each leaf that does (its _check_branch_outputs): in dtype or shape ("so the
    dtypes do not match, and the shapes do not match" where both do), in the manual axes
    they vary over (check_vma: "so the manual axis types do not match", and JAX's pcast hint
    for each), or in sharding alone (an Explicit mesh: no "so"). Stop 104: a leaf off in
    sharding or manual axes was told alone, the first, where JAX lists every one. None where
    none differs."""
    paths = cf._LeafPaths(tree0)
    diffs, hints = [], []
    for i, (a, b) in enumerate(zip(avals0, avals)):
        if not all(hasattr(v, "shape") and hasattr(v, "dtype") for v in (a, b)):
            continue                    # (a token: the same in every branch)
        vma_a, vma_b = getattr(a, "vma", None), getattr(b, "vma", None)
        manual = vma_a != vma_b and bool(vma.checked)
        differ = [what for what, differs in (("dtypes", a.dtype != b.dtype),
                                             ("shapes", a.shape != b.shape),
                                             ("manual axis types", manual)) if differs]
        sharded = getattr(a, "split", None) is not None and \
            getattr(b, "split", None) is not None and a.split != b.split
        if not differ and not sharded:
            continue
        at = f" at path {paths[i]}" if paths[i] else ""
        said = [f"the {what} do not match" for what in differ]
        so = "" if not said else ", so " + (said[0] if len(said) == 1 else
                                            ", ".join(said[:-1]) + ", and " + said[-1])
        diffs.append(f"the output of {name0}{at} has type {_short(a)} but the corresponding "
                     f"output of {name} has type {_short(b)}{so}")
        if manual:
            # JAX's pairs as it writes them: the hint for a branch whose leaf varies over
            # more axes names the other's extra axes (often none, `()`)
            for named, a1, a2 in ((name0, b, a), (name, a, b)):
                if a2.vma - a1.vma:
                    hints.append(f"applying `jax.lax.pcast(..., "
                                 f"{vma.in_mesh_order(a1.vma - a2.vma)}, to='varying')` to "
                                 f"the output of {named}{at}")
    if not diffs:
        return None
    text = diffs[0][0].upper() + diffs[0][1:] + "." if len(diffs) == 1 else \
        "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}."
    if hints:
        text += "\n\nThis might be fixed by" + (
            f" {hints[0]}." if len(hints) == 1 else
            ":\n" + "\n".join(f"  * {h};" for h in hints[:-1]) + f"\n  * {hints[-1]}.")
        text += ("\nSee https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for "
                 "more information.")
    return text


def _short(aval) -> str:
    """A leaf's type as JAX's str_short prints it: `float32[4]`, with its sharding
    (`float32[4@x]`) or the manual axes it varies over (`float32[2]{V:x}`) where it has them."""
    if getattr(aval, "split", None) is not None or getattr(aval, "vma", None):
        return str(aval.strip_weak_type())
    return cf._long(aval)


def _branch_outputs(traced, names, funs, reference) -> list:
    """Every branch's (JAX's name for it, its function's name, its output leaves as (key path,
    shape, dtype name)), the reference's first (cond's true_fun, switch's branch 0), then the
    others in order; the leaves None for a branch of another structure than the reference's."""
    ref_tree = traced[reference][1]
    paths = cf._LeafPaths(ref_tree)
    found = []
    for i in [reference] + [i for i in range(len(traced)) if i != reference]:
        (closed, tree), name, fun = traced[i], names[i], funs[i]
        leaves = [(paths[k], tuple(getattr(a, "shape", ())),
                   getattr(getattr(a, "dtype", None), "name", str(a)))
                  for k, a in enumerate(closed.out_avals)] if tree == ref_tree else None
        found.append((name, cf.fun_name(fun), leaves))
    return found


def _at(path) -> str:
    return f" at path {keystr(path)}" if path else ""


def _defined_at(fun):
    code = getattr(fun, "__code__", None)
    return f" at {code.co_filename}:{code.co_firstlineno}" if code else ""


# ------------------------------------------------------------------ rules
def _cond_abstract_eval(index, *ops, branches, **params):
    cf.typecheck_param("cond", branches, "branches", "tuple of ClosedJaxpr",
                       type(branches) is tuple and
                       all(type(b) is ClosedJaxpr for b in branches))
    if not branches:
        raise JaxprTypeError("cond requires at least one branch function")
    if index.shape or index.dtype != np.int32:
        raise TypeError(f"cond index must be an int32 scalar, got {index.str_short(True)}")
    return branches[0].out_avals


def _cond_lowering(ctx, index, *ops, branches, branches_platforms=None):
    if branches_platforms is not None:
        index, branches = kept_branches(ctx, index, branches, branches_platforms)
    # ordered effects in a branch stay in order with the block's: its token goes through
    token = effect_token(ctx) if any(map(has_ordered_effect, branches)) else None
    regions = []
    for i, branch in enumerate(branches):
        block = ctx.new_block([])            # operands are captured from the enclosing scope
        block.effect_token = token
        # named `cond/branch_0_fun/sin`, as JAX's cond lowering names each branch
        outs = ctx.lower_jaxpr(branch, list(ops), block=block, scope=f"cond/branch_{i}_fun")
        block.ret(outs if token is None else [*outs, block.effect_token])
        regions.append(block)
    if token is None:
        return ctx.op("stablehlo.case", [index], regions=regions)
    outs = ctx.op("stablehlo.case", [index], regions=regions,
                  result_types=[*(hlo.aval_type(a) for a in ctx.avals_out), TOKEN])
    ctx.block.effect_token = outs[-1]
    return outs[:-1]


def _cond_numpy(index, *ops, branches, **params):
    """The chosen branch alone; an index out of range takes the last, as stablehlo.case."""
    i = int(index)
    return eval_closed_jaxpr_numpy(branches[i if 0 <= i < len(branches) else -1], *ops)


def _cond_batching(axis_data, vals, dims, *, branches, **params):
    check_vmap_of_cond(branches)
    index, ops = vals[0], list(vals[1:])
    index_dim, op_dims = dims[0], list(dims[1:])
    n_out = len(branches[0].out_avals)
    if index_dim is bu.not_mapped:
        batched_out = [False] * n_out
        for branch in branches:
            _, out_dims = batch_jaxpr(branch, axis_data, op_dims)
            batched_out = [b or d is not bu.not_mapped for b, d in zip(batched_out, out_dims)]
        new = tuple(batch_jaxpr(b, axis_data, op_dims, force_out_batched=batched_out)[0]
                    for b in branches)
        outs = cond_p.bind(index, *ops, branches=new, **params)
        return outs, [0 if b else bu.not_mapped for b in batched_out]
    # A batched predicate: run every branch on every example and select per example.
    size, ema = axis_data.size, axis_data.explicit_mesh_axis    # (split as JAX's broadcasts)
    ops = [bu.bdim_at_front(o, d, size, ema) for o, d in zip(ops, op_dims)]
    index = bu.bdim_at_front(index, index_dim, size, ema)
    results = []
    for i, branch in enumerate(branches):
        batched, _ = batch_jaxpr(branch, axis_data, [0] * len(ops),
                                 force_out_batched=[True] * n_out)
        # As JAX's rule: each branch sees its operands with the gradient stopped where another
        # branch is selected, so reverse mode through an unselected branch adds nothing (not
        # even a NaN times zero; jax#1052). Values are unchanged.
        pred = eq(index, np.array(i, get_aval(index).dtype))
        masked = [_per_example(pred, stop_gradient(x), x) for x in ops]
        results.append(eval_jaxpr(batched.jaxpr, batched.consts, *masked))
    return [_per_example(index, *[r[k] for r in results]) for k in range(n_out)], [0] * n_out


def _per_example(which, *cases):
    """select_n of `cases` (batched along their leading axis) by `which`, one choice per
    example: `which` broadcast along the cases' other axes."""
    shape = bu.shape(cases[0])
    if len(shape) > 1:
        which = broadcast_in_dim(which, shape, (0,))
    return select_n(which, *cases)


def _cond_jvp(primals, tangents, *, branches, **params):
    index, ops = primals[0], primals[1:]
    op_tangents = tangents[1:]
    nonzeros = [type(t) is not Zero for t in op_tangents]
    out_nonzeros = [False] * len(branches[0].out_avals)
    for branch in branches:
        _, nz = jvp_jaxpr(branch, nonzeros)
        out_nonzeros = [a or b for a, b in zip(out_nonzeros, nz)]
    new = tuple(jvp_jaxpr(b, nonzeros, instantiate=out_nonzeros)[0] for b in branches)
    nz_tangents = [t for t in op_tangents if type(t) is not Zero]
    outs = cond_p.bind(index, *ops, *nz_tangents, branches=new, **params)
    n = len(branches[0].out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(a.strip_weak_type())
                      for nz, a in zip(out_nonzeros, branches[0].out_avals)]


def _cond_partial_eval(trace, args, params):
    """Known branch parts run now as one cond (each also returning its residuals, zeros for
    the other branches' residuals); the unknown parts are staged as another cond."""
    branches = params["branches"]
    extra = {k: v for k, v in params.items() if k != "branches"}     # branches_platforms
    index, ops = args[0], args[1:]
    if trace.is_unknown(index):
        return trace.stage_whole(cond_p, args, params)
    unknowns = [trace.is_unknown(x) for x in ops]
    out_unknowns = [False] * len(branches[0].out_avals)
    for branch in branches:
        _, _, uk, _ = partial_eval_jaxpr(branch, unknowns)
        out_unknowns = [a or b for a, b in zip(out_unknowns, uk)]
    splits = [partial_eval_jaxpr(b, unknowns, instantiate=out_unknowns) for b in branches]
    n_known_out = out_unknowns.count(False)
    res_avals = [list(k.out_avals[n_known_out:]) for k, _, _, _ in splits]
    all_res, slots = _merge_branch_residuals(res_avals)
    known_branches, unknown_branches = [], []
    for (known, unknown, _, n_res), own in zip(splits, slots):
        known_branches.append(_join_residual_outputs(known, n_known_out, all_res, own))
        unknown_branches.append(unknown if own == list(range(len(all_res))) else
                                _taking_consts(unknown, own, all_res))
    known_ops = [x for x, u in zip(ops, unknowns) if not u]
    with set_current_trace(trace.parent):
        known_outs = cond_p.bind(index, *known_ops, branches=tuple(known_branches), **extra)
    residuals = known_outs[n_known_out:]
    atoms = [trace.to_atom(index)] + [trace.to_atom(r) for r in residuals] + \
        [trace.to_atom(x) for x, u in zip(ops, unknowns) if u]
    unknown_outs = iter(trace.add_eqn(atoms, cond_p,
                                      dict(branches=tuple(unknown_branches), **extra),
                                      unknown_branches[0].out_avals))
    known_iter = iter(known_outs[:n_known_out])
    return [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]


def _merge_branch_residuals(res_avals):
    """JAX's _merge_branch_residuals: branches share residual slots of the same type (a
    branch's k-th residual of a type takes that type's k-th slot), so grad of
    cond(p, sin, cos, x) has one residual output, not one per branch. Returns (the slots'
    avals, per branch the slot of each of its residuals)."""
    def tagged(avals):
        seen = {}
        out = []
        for a in avals:
            key = (a.shape, a.dtype, a.weak_type)
            out.append((key, seen.setdefault(key, 0)))
            seen[key] += 1
        return out
    tags = [tagged(avals) for avals in res_avals]
    slot, all_res = {}, []
    for avals, ts in zip(res_avals, tags):
        for a, t in zip(avals, ts):
            if t not in slot:
                slot[t] = len(all_res)
                all_res.append(a)
    return all_res, [[slot[t] for t in ts] for ts in tags]


def _join_residual_outputs(known, n_known_out, all_res, own):
    """`known` returning its known outputs then every residual slot: its own residuals in
    their slots, JAX's empty placeholder (empty2, zeros when run) in the others."""
    def f(*args):
        outs = eval_jaxpr(known.jaxpr, known.consts, *args)
        res = [empty_like_aval(a) for a in all_res]      # all first, as JAX's (subvals)
        for i, r in zip(own, outs[n_known_out:]):
            res[i] = r
        return list(outs[:n_known_out]) + res
    return trace_to_jaxpr(f, known.in_avals)


def _cond_transpose(cts, index, *ops, branches, **params):
    linear = [is_undefined(o) for o in ops]
    nonlinear = [o for o in ops if not is_undefined(o)]
    cts = [instantiate(c) for c in cts]
    transposed = tuple(transpose_jaxpr(b, linear) for b in branches)
    outs = iter(cond_p.bind(index, *nonlinear, *cts, branches=transposed, **params))
    return [None] + [next(outs) if lin else None for lin in linear]


def _cond_dce(used_outs, eqn):
    """JAX's cond dce rule: every branch computes only the used results, and takes the
    operands any branch then reads (the index always)."""
    branches = eqn.params["branches"]
    used_ins = [False] * (len(eqn.invars) - 1)
    for b in branches:
        used_ins = [u or v for u, v in zip(used_ins, dce_closed_outputs(b, used_outs)[1])]
    pruned = tuple(dce_closed_outputs(b, used_outs, used_ins)[0] for b in branches)
    if all(p is b for p, b in zip(pruned, branches)):
        return [True] * len(eqn.invars), eqn
    ops = [v for v, u in zip(eqn.invars[1:], used_ins) if u]
    return [True, *used_ins], eqn.replace(
        invars=[eqn.invars[0], *ops], outvars=[v for v, u in zip(eqn.outvars, used_outs) if u],
        params=dict(eqn.params, branches=pruned))


abstract_eval_rules[cond_p] = _cond_abstract_eval
dce_rules[cond_p] = _cond_dce
lowering_rules[cond_p] = _cond_lowering
numpy_rules[cond_p] = _cond_numpy
axis_batching_rules[cond_p] = _cond_batching
jvp_rules[cond_p] = _cond_jvp
partial_eval_rules[cond_p] = _cond_partial_eval
transpose_rules[cond_p] = _cond_transpose
sharding_typing_rules[cond_p] = sharding_types.call_typing


# ------------------------------------------------------------------ platform_dependent
# A cond whose index is platform_index_p's (platform_index.py): the platform's branch.
def platform_dependent(*args, default=None, **per_platform):
    """`per_platform[p](*args)` for the platform `p` the program runs on ('cpu', 'cuda',
    'rocm', 'tpu'), else `default(*args)`. Every branch is traced (as lax.switch's); the
    choice is a constant of the lowered program. The NumPy backend takes a `numpy` branch,
    else the `cpu` one (it computes what XLA's CPU does), else the default.

    >>> from jxkernel import lax, numpy as jnp
    >>> lax.platform_dependent(jnp.float32(2), cpu=lambda x: x * 10, cuda=lambda x: x * 100,
    ...                        default=lambda x: x) in (20, 200)
    True
    """
    platforms, branches = [], []
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for names, b in zip(platforms, branches):    # one branch for identical functions
            if b == branch:
                names.append(name)
                break
        else:
            platforms.append([name])
            branches.append(branch)
    platforms = [tuple(p) for p in platforms]
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        branches.append(default)
        platforms.append(None)
    index = platform_index_p.bind(platforms=tuple(platforms))
    if not isinstance(index, Tracer):
        return branches[int(index)](*args)
    # (the index is in range: no clamp, as in JAX; the cond carries the platforms, as JAX's,
    # so that its lowering keeps only the branches of the module's platforms)
    return _bind_cond(index, branches, args, tuple(f"branch {i}" for i in range(len(branches))),
                      branches_platforms=tuple(platforms))
