"""scan: loop a traced body over the leading axis of its inputs, carrying state.

    >>> lax.scan(lambda c, x: (c + x, c * x), 0., jnp.arange(3.))
    (Array(3., dtype=float32), Array([0., 0., 2.], dtype=float32))

Lowered through a while loop over an index that slices the inputs and writes
the stacked outputs. Reverse-differentiable: linearization splits the body into
a forward scan that stacks its residuals (a residual that is just a known const
stays a const) and a scan consuming them; transposition runs that scan backwards.
"""
from __future__ import annotations

import numpy as np

from ..core.traceback_util import api_boundary
from ..core.symbolic import is_symbolic, symbolic_as_value
from ..core import sharding_types
from ..core.avals import MemorySpace, dim_inserted, get_aval
from .transfer import copy_semantics_of, device_put_p
from ..core.dce import dce_closed_outputs, dce_rules
from ..core.dtypes import is_extended
from ..core.errors import aval_text
from ..core.interpret import eval_jaxpr
from ..core.ir import ClosedJaxpr, check_effects, control_flow_allowed_effects
from ..core.name_stack import name_scope
from ..core.numpy_eval import eval_closed_jaxpr_numpy
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, partial_eval_rules,
                              sharding_typing_rules, transpose_rules)
from ..core.trace import concrete_or_error, current_trace, set_current_trace
from ..transforms.ad import backward_pass, jvp_jaxpr
from ..transforms.batching import batch_jaxpr
from ..core.partial_eval import PartialEvalTrace, partial_eval_jaxpr
from ..core.staging import is_ref, trace_to_jaxpr
from ..core.interpreter_primitives import typed_constant
from ..tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_leaves,
                         tree_map, tree_structure, tree_unflatten, treedef_is_leaf)
from ..transforms import batch_util as bu
from . import _cf_python as python
from . import _cf_refs as cr
from . import _cf_bodies as cf
from ..transforms.ad_util import Zero, add_tangents, instantiate, is_undefined, zeros
from ._lowering import lower_fun
from .conversion import _convert_element_type
from .elementwise import add, lt, sub
from .shapes import broadcast_in_dim, expand_dims
from .slicing import dynamic_index_in_dim, dynamic_update_index_in_dim
from .tokens import eager_tokens
from .while_loop import while_loop


scan_p = Primitive("scan", multiple_results=True)


def _slice_type(aval):
    """The type of one slice of `xs` along its leading axis; on Explicit mesh axes that axis
    must be unsplit (JAX's error) and the rest keep their sharding, the unreduced and reduced
    axes too (JAX's _map_shaped_array)."""
    if aval.split is None:
        return aval.update(shape=aval.shape[1:])
    parts = sharding_types.parts_of(aval)
    if parts[0]:
        raise ValueError(f"0th dimension of all xs should be replicated. Got "
                         f"{aval.split.spec!r}")
    spec = aval.split.spec
    return aval.update(shape=aval.shape[1:], sharding=sharding_types.make(
        aval.split.mesh, parts[1:], spec.unreduced, spec.reduced))


_LENGTH_NOT_CONCRETE = ("The `length` argument to `scan` expects a concrete `int` value. For "
                        "scan-like iteration with a dynamic length, use `while_loop` or "
                        "`fori_loop`.")


def _unroll_factor(unroll, length: int) -> int:
    """How many iterations each step of the loop runs: JAX's reading of `unroll` (True: all
    of them, False: one, 0: all, as JAX lowers it)."""
    unroll = concrete_or_error(None, unroll, "The `unroll` argument to `scan` expects a "
                               "concrete `int` or `bool` value.")
    if isinstance(unroll, (bool, np.bool_)):
        return max(length, 1) if unroll else 1
    unroll = 1 if unroll is None else int(unroll)
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return unroll                   # (0: all of them, as JAX's lowering reads it)


def _output_text(out) -> str:
    """What a body returned, as JAX's error shows it: one value's type (`float32[]`, a weak
    one `~float32[]`: the weak carry returned as it came), or the types in the body's own
    structure (a triple: `(ShapedArray(float32[]), ...)`)."""
    try:
        if out is None or not treedef_is_leaf(tree_structure(out)):    # (JAX's `got None.`)
            return str(tree_map(get_aval, out))
        return aval_text(get_aval(out))
    except TypeError:
        return type(out).__name__


def _with_xs_lengths(error, xs):
    """`error` with each xs leaf's key path, leading size and type attached, for the
    notebook's card (views/error_cards/scan_lengths.py), which names the leaf of another
    length."""
    error.xs_lengths = [(keystr(path), get_aval(x).shape[0], aval_text(get_aval(x), weak=False))
                        for path, x in tree_flatten_with_path(xs)[0]]
    return error


def _no_leading_axis(x_leaves):
    """JAX's error for an xs leaf with no axis to walk: it reads `x.shape[0]` leaf by leaf, so
    the first such leaf decides. A Python number has no `.shape` (ValueError naming the numbers);
    a 0-d array fails on `[0]`, an IndexError, which JAX words "tuple index out of range" and
    we word with its shape."""
    for x in x_leaves:
        if not hasattr(x, "shape"):
            numbers = ", ".join(str(x) for x in x_leaves if not hasattr(x, "shape"))
            # (raised from the AttributeError of its `x.shape`, as JAX's: a traceback shows it)
            raise ValueError(f"scan got value with no leading axis to scan over: {numbers}.") \
                from AttributeError(f"'{type(x).__name__}' object has no attribute 'shape'")
        if not x.shape:
            raise IndexError(f"scan got an array of shape () in xs, with no leading axis to "
                             f"scan over: {get_aval(x).str_short()}")


@api_boundary
def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs`; returns (carry, stacked ys).

    >>> lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(4))
    (Array(6, dtype=int32), Array([0, 0, 1, 3], dtype=int32, weak_type=True))
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    if any(map(is_ref, tree_leaves((init, xs)))):
        return _scan_passing_refs(f, init, xs, length, reverse, unroll)
    x_leaves, x_tree = tree_flatten(xs)
    lengths = {get_aval(x).shape[0] if get_aval(x).shape else None for x in x_leaves}
    if None in lengths:
        _no_leading_axis(x_leaves)
    if length is not None:
        length = concrete_or_error(int, length, _LENGTH_NOT_CONCRETE)
        if lengths and lengths != {length}:
            raise _with_xs_lengths(ValueError(
                f"scan got `length` argument of {length} which disagrees with leading axis "
                f"sizes {sorted(lengths)}."), xs)
    elif len(lengths) > 1:
        raise _with_xs_lengths(ValueError(
            f"scan got values with different leading axis sizes: "
            f"{', '.join(str(get_aval(x).shape[0]) for x in x_leaves)}."), xs)
    elif not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    else:
        length = lengths.pop()
    unroll = _unroll_factor(unroll, length)
    if python.disabled():
        return python.scan(f, init, xs, length, reverse)
    carry_leaves, carry_tree = tree_flatten(init)
    carry_avals = cf.avals_of(carry_leaves)
    x_avals = [_slice_type(get_aval(x)) for x in x_leaves]
    in_tree = tree_flatten((init, xs))[1]

    def body(carry, x):
        out = f(carry, x)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            got = _output_text(out)
            raise TypeError(f"scan body output must be a pair, got {got}.")
        return tuple(out)
    n_carry, returned = len(carry_avals), ()
    for attempt in range(3):             # retrace while weak carries settle (JAX's rule)
        # f itself is traced, so its trace is cached across calls (cf.trace_fun); `body`,
        # a new function each call, only to say what a body that is not a pair returned
        try:
            closed, out_tree = cf.trace_fun(f, in_tree, carry_avals + x_avals, "scan body",
                                            promoted=returned)
        except cf.CapturedHighValues as e:      # hijax values captured: their state carried
            return _scan_threading(e.values, f, init, xs, length, reverse, unroll)
        node = out_tree.node_data()
        if node is None or not issubclass(node[0], (tuple, list)) or len(out_tree.children()) != 2:
            cf.trace_fun(body, in_tree, carry_avals + x_avals, "scan body")
            raise TypeError("scan body output must be a pair (carry, y)")
        carry_out_tree, y_tree = out_tree.children()
        pair = list if issubclass(node[0], list) else tuple   # returned as the body gave it
        settled = cf.settle_carry(carry_avals, closed.out_avals[:n_carry]) \
            if carry_out_tree == carry_tree else carry_avals
        if settled == carry_avals or attempt == 2:
            break
        carry_avals, returned = settled, tuple(closed.out_avals[:n_carry])
    cf.check_carry(f, carry_tree, carry_avals, carry_out_tree,   # (its own leaves: named in errors)
                   closed.out_avals[:carry_out_tree.num_leaves], "scan body function")
    check_effects([closed.jaxpr], control_flow_allowed_effects, "`scan`")
    refs = cr.written_refs([closed])
    if refs:                            # Refs written inside: carried, written back after
        run = cr.discharged(closed, refs, out_tree)     # (f's trace, not f again)

        def carrying(carry, x):
            (carry, y), values = run(tree_flatten((carry[0], x))[0], carry[1])
            return (carry, values), y
        (carry, values), ys = scan(carrying, (init, cr.ref_values(refs)), xs, length, reverse,
                                   unroll)
        cr.write_refs(refs, values)
        return carry, ys
    given = carry_leaves
    carry_leaves = [cf.cast_like(x, a) for x, a in zip(carry_leaves, carry_avals)]
    jaxpr, consts = cf.hoist(closed)
    # a y that is the body's x itself is the xs passed in, as JAX's scan forwards it: the
    # loop does not copy it (its output pruned from the body)
    first_x = len(consts) + n_carry
    x_fwd = [None if i is None or i < first_x else i - first_x
             for i in cf.forwarded_inputs(jaxpr)[n_carry:]]
    jaxpr = cf.drop_outputs(jaxpr, [n_carry + i for i, f in enumerate(x_fwd) if f is not None])
    outs = eager_tokens(scan_p.bind(
        *consts, *carry_leaves, *x_leaves, reverse=bool(reverse), length=length, jaxpr=jaxpr,
        num_consts=len(consts), num_carry=len(carry_leaves), unroll=unroll))
    same = cf.forwarded_carries(closed.jaxpr, 0, n_carry)
    carry_out = tree_unflatten(carry_tree, [g if s else o for g, o, s in
                                            zip(given, outs[:n_carry], same)])
    computed = iter(outs[n_carry:])
    ys = tree_unflatten(y_tree, [next(computed) if f is None else python.asarray(x_leaves[f])
                                 for f in x_fwd])
    return pair((carry_out, ys))


def _scan_passing_refs(f, init, xs, length, reverse, unroll):
    """scan with Refs among its carry or xs leaves, after JAX's error for one Ref passed twice
    (lax/_cf_refs.py): a Ref in xs is scanned along its leading axis, the body handed its row
    at each step (api/state.py's RowRef), as JAX hands a Ref of the row's type; one in the
    carry is handed as an inner Ref (returning it is JAX's error for a Ref returned). A
    carried Ref the body also closes over is JAX's error."""
    carry_leaves, carry_tree = tree_flatten(init)
    x_leaves, x_tree = tree_flatten(xs)
    leaves, in_tree = carry_leaves + x_leaves, tree_flatten((init, xs))[1]
    n = len(carry_leaves)
    passed = cr.ref_operands(f, in_tree, leaves, "scan")
    inner = cr.inner_refs(leaves, [i for i in passed if i < n])
    rows = {i - n for i in passed if i >= n}
    if length is None:                  # (the scan below checks the other leading axes)
        if not x_leaves:
            raise ValueError("scan got no values to scan over and `length` not provided.")
        first = x_leaves[min(rows)] if rows else x_leaves[0]
        length = (first.shape if rows else get_aval(first).shape or (None,))[0]
    c_rest = [i for i in range(n) if i not in inner]
    x_rest = [k for k in range(len(x_leaves)) if k not in rows]
    c_paths, x_paths = cr.leaf_paths(init), cr.leaf_paths(xs)

    def body(carry, x):
        index, given = x
        given = iter(given)
        now = tree_unflatten(x_tree, [cr.row_of(x_leaves[k], index) if k in rows
                                      else next(given) for k in range(len(x_leaves))])
        if inner:
            rest = iter(carry)
            carry = tree_unflatten(carry_tree, [inner[i] if i in inner else next(rest)
                                                for i in range(n)])
        out = f(carry, now)
        cr.check_not_closed_over_here(f, in_tree, leaves, inner, "scan")
        return out

    def namer(path):                    # the body's leaves named by f's parameters
        if path[0].idx == 0:
            return (0, path[1:]) if not inner else (0, c_paths[c_rest[path[1].idx]])
        return None if path[1].idx == 0 else (1, x_paths[x_rest[path[2].idx]])
    body._jx_traced_as = (f, None, namer)
    carry = tuple(carry_leaves[i] for i in c_rest) if inner else init
    iota = np.arange(length, dtype=np.int32)
    out = scan(body, carry, (iota, tuple(x_leaves[k] for k in x_rest)), length, reverse,
               unroll)
    cr.write_back(leaves, inner)
    return out


def _scan_threading(values, f, init, xs, length, reverse, unroll):
    """scan of `f`, which captured the concrete mutable high values `values`: their low
    state is carried (lax/_cf_bodies.py's holding_high), and they hold the final one after."""
    def carrying(carry, x):
        (carry_out, y), state = cf.holding_high(values, carry[1], lambda: f(carry[0], x))
        return (carry_out, state), y
    (carry, state), ys = scan(carrying, (init, cf.high_state(values)), xs, length, reverse,
                              unroll)
    cf.set_high_state(values, state)
    return carry, ys


def _scan_abstract_eval(*avals, reverse, length, jaxpr, num_consts, num_carry, unroll):
    def nonnegative_int(x):
        return type(x) is int and x >= 0
    for name, value, required, ok in (
            ("reverse", reverse, "bool", type(reverse) is bool),
            ("num_consts", num_consts, "non-negative int", nonnegative_int(num_consts)),
            ("num_carry", num_carry, "non-negative int", nonnegative_int(num_carry)),
            ("jaxpr", jaxpr, "ClosedJaxpr", type(jaxpr) is ClosedJaxpr),
            ("unroll", unroll, "non-negative int", nonnegative_int(unroll)),
            ("length", length, "non-negative int", length >= 0)):
        cf.typecheck_param("scan", value, name, required, ok)
    carry = jaxpr.out_avals[:num_carry]
    ys = [cf.broadcast_aval(a, length) for a in jaxpr.out_avals[num_carry:]]
    return list(carry) + ys


def _scan_impl_fun(*args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    """scan written with while_loop and dynamic slicing: what scan lowers to."""
    consts, init, xs = args[:num_consts], args[num_consts:num_consts + num_carry], \
        args[num_consts + num_carry:]
    y_avals = jaxpr.out_avals[num_carry:]
    ys0 = [_stacked_zeros(a.strip_weak_type(), length) for a in y_avals]

    def step(i, carry, ys):
        t = sub(_int32(length - 1), i) if reverse else i
        # t is in range by construction: no negative-index handling in the loop body. The
        # ops are named as JAX's scan names them, whose slicing helpers are jitted and whose
        # body is a closed_call (`while/body/closed_call/sin`)
        with name_scope("jit(dynamic_index_in_dim)"):
            x = [dynamic_index_in_dim(a, t, 0, keepdims=False, allow_negative_indices=False)
                 for a in xs]
        with name_scope("closed_call"):
            outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *consts, *carry, *x)
        new_carry, y = outs[:num_carry], outs[num_carry:]
        with name_scope("jit(dynamic_update_index_in_dim)"):
            ys = [dynamic_update_index_in_dim(acc, _strip(v, acc), t, 0,
                                              allow_negative_indices=False)
                  for acc, v in zip(ys, y)]
        return add(i, np.int32(1)), list(new_carry), ys

    # JAX's trips: unroll 0, or one trip of all the iterations, is straight-line code with no
    # while loop (as `unroll=True` promises); else length // unroll trips, the rest after
    if is_symbolic(length):
        # jax.export: a trip count read from the arguments' shapes, one step a trip
        unroll = 1
    main = 0 if unroll == 0 else length // unroll
    if unroll != 1 and main == 1 and length % unroll == 0:
        main = 0
    def body(state):
        i, carry, ys = state
        for _ in range(unroll):
            i, carry, ys = step(i, carry, ys)
        return i, carry, ys
    state = (np.int32(0), list(init), ys0)
    if main:
        state = while_loop(lambda s: lt(s[0], _int32(main * unroll)), body, state)
    i, carry, ys = state
    for _ in range(length - main * unroll):       # the remainder, unrolled
        i, carry, ys = step(i, carry, ys)
    return list(carry) + list(ys)


def _int32(n):
    """An int32 scalar of `n`, or of a symbolic size's value (jax.export)."""
    return _convert_element_type(symbolic_as_value(n), np.int32) if is_symbolic(n) \
        else np.int32(n)


def _stacked_zeros(y_aval, length: int):
    """The buffer the ys are written into: zeros typed as the scan's stacked ys where a y is
    typed (its sharding, an unsplit leading axis), so each step's typed update fits it (an
    untyped buffer made under set_mesh is typed replicated over its mesh)."""
    if y_aval.memory_space is MemorySpace.Host:
        # ys in host memory (a host array's per-step gradient, sent back there): a buffer
        # typed Host, as JAX's empty2(memory_space=...) makes it, so each update fits it
        return device_put_p.bind(zeros(cf.broadcast_aval(y_aval, length)),
                                 devices=(MemorySpace.Host,), srcs=(None,),
                                 copy_semantics=(copy_semantics_of(),))[0]
    if y_aval.split is None or is_extended(y_aval.dtype):
        return zeros(cf.broadcast_aval(y_aval, length))
    stacked = dim_inserted(y_aval, 0, length)
    return broadcast_in_dim(typed_constant(0, y_aval.dtype), stacked.shape, (),
                            out_sharding=stacked.split)


def _strip(value, acc):
    """A y with its weak type dropped (the stacked buffer is strongly typed); for a buffer
    in host memory, with its step axis and typed there (a scalar y's reshape is typed Device:
    scalars take no part in the memory-space rule)."""
    a = get_aval(value)
    if a.weak_type:
        value = _convert_element_type(value, a.dtype, False)
    acc_aval = get_aval(acc)
    if acc_aval.memory_space is not MemorySpace.Device:
        if a.ndim + 1 == acc_aval.ndim:        # (its step axis first, then typed)
            value = expand_dims(value, (0,))
        if get_aval(value).memory_space is not acc_aval.memory_space:
            value = device_put_p.bind(value, devices=(acc_aval.memory_space,), srcs=(None,),
                                      copy_semantics=(copy_semantics_of(),))[0]
    return value


lowering_rules[scan_p] = lower_fun(_scan_impl_fun, multiple_results=True)


def _scan_numpy(*args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    """The body once per step (unrolling changes nothing here), each step's ys written into
    arrays stacked along a new leading axis."""
    consts, carry = args[:num_consts], list(args[num_consts:num_consts + num_carry])
    xs = args[num_consts + num_carry:]
    ys = [np.empty((length,) + a.shape, a.dtype) for a in jaxpr.out_avals[num_carry:]]
    for t in (range(length - 1, -1, -1) if reverse else range(length)):
        outs = eval_closed_jaxpr_numpy(jaxpr, *consts, *carry, *(x[t] for x in xs))
        carry = outs[:num_carry]
        for y, out in zip(ys, outs[num_carry:]):
            y[t] = out
    return carry + ys


numpy_rules[scan_p] = _scan_numpy
def _scan_dce(used_outs, eqn):
    """JAX's scan dce rule: the body computes only the used results; a carry is kept while
    a kept carry reads it (to a fixed point), its input and output together."""
    closed, nc, nk = eqn.params["jaxpr"], eqn.params["num_consts"], eqn.params["num_carry"]
    n_xs = len(closed.in_avals) - nc - nk
    used_carry, used_ys = list(used_outs[:nk]), list(used_outs[nk:])
    for _ in range(nk + 1):
        body, used_ins = dce_closed_outputs(closed, used_carry + used_ys,
                                            [False] * nc + used_carry + [False] * n_xs)
        carry_in = used_ins[nc:nc + nk]
        if carry_in == used_carry:
            break
        used_carry = [a or b for a, b in zip(used_carry, carry_in)]
    if body is closed:          # nothing to prune (cached: one body per pruning)
        return used_ins, eqn
    used_outs = used_carry + used_ys
    params = dict(eqn.params, jaxpr=body,
                  num_consts=sum(used_ins[:nc]), num_carry=sum(used_carry))
    return used_ins, eqn.replace(invars=[v for v, u in zip(eqn.invars, used_ins) if u],
                                 outvars=[v for v, u in zip(eqn.outvars, used_outs) if u],
                                 params=params)


abstract_eval_rules[scan_p] = _scan_abstract_eval
dce_rules[scan_p] = _scan_dce


def _scan_batching(axis_data, vals, dims, *, reverse, length, jaxpr, num_consts, num_carry,
                   unroll):
    size = axis_data.size
    nc, nk = num_consts, num_carry
    const_dims = list(dims[:nc])
    carry_batched = [d is not bu.not_mapped for d in dims[nc:nc + nk]]
    xs_batched = [d is not bu.not_mapped for d in dims[nc + nk:]]
    x_in_dims = [0 if b else None for b in xs_batched]
    for _ in range(nk + 1):
        carry_in_dims = [0 if b else None for b in carry_batched]
        _, out_dims = batch_jaxpr(jaxpr, axis_data, const_dims + carry_in_dims + x_in_dims)
        new = [b or d is not bu.not_mapped for b, d in zip(carry_batched, out_dims[:nk])]
        if new == carry_batched:
            break
        carry_batched = new
    carry_dims = [0 if b else None for b in carry_batched]
    n_ys = len(jaxpr.out_avals) - nk
    body, out_dims = batch_jaxpr(jaxpr, axis_data, const_dims + carry_dims + x_in_dims,
                                 force_out_batched=carry_batched + [False] * n_ys)
    vals = list(vals)
    # (an unbatched carry broadcast with its batch axis split over vmap's mesh axes, JAX's)
    carry = [bu.bdim_at_front(v, d, size, axis_data.explicit_mesh_axis) if b else v
             for v, d, b in zip(vals[nc:nc + nk], dims[nc:nc + nk], carry_batched)]
    xs = [bu.move_to(v, d, 1, size) if b else v
          for v, d, b in zip(vals[nc + nk:], dims[nc + nk:], xs_batched)]
    outs = scan_p.bind(*vals[:nc], *carry, *xs, reverse=reverse, length=length, jaxpr=body,
                       num_consts=nc, num_carry=nk, unroll=unroll)
    y_dims = [1 if d is not bu.not_mapped else None for d in out_dims[nk:]]
    return outs, carry_dims + y_dims


def _carry_tangents(tangents, carry_nz) -> list:
    """The carry tangents the JVP scan carries, a zero one made real: under linearize with
    the tangent computation (staged, after the forward scan, as JAX's scan linearization
    instantiates it in its tangent function), else where the JVP runs."""
    tangents = [t for t, n in zip(tangents, carry_nz) if n]
    trace = current_trace()
    if isinstance(trace, PartialEvalTrace) and any(type(t) is Zero for t in tangents):
        with trace.staged():
            return [instantiate(t) for t in tangents]
    return [instantiate(t) for t in tangents]


def _scan_jvp(primals, tangents, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    nc, nk = num_consts, num_carry
    nz = [type(t) is not Zero for t in tangents]
    const_nz, carry_nz, xs_nz = nz[:nc], nz[nc:nc + nk], nz[nc + nk:]
    for _ in range(nk + 1):
        _, out_nz = jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz)
        new = [a or b for a, b in zip(carry_nz, out_nz[:nk])]
        if new == carry_nz:
            break
        carry_nz = new
    n_y = len(jaxpr.out_avals) - nk
    body, out_nz = jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                             instantiate=carry_nz + [False] * n_y)
    n_x = len(xs_nz)
    # jvp body inputs: [consts, carry, xs, const_t, carry_t, xs_t] -> scan layout
    # [consts, const_t | carry, carry_t | xs, xs_t]
    body = cf.permute_inputs(body, [nc, nk, n_x, sum(const_nz), sum(carry_nz), sum(xs_nz)],
                           [0, 3, 1, 4, 2, 5])
    y_nz = out_nz[nk:]
    # outputs: [carry, ys, carry_t, ys_t] -> [carry, carry_t, ys, ys_t]
    body = cf.permute_outputs(body, [nk, n_y, sum(carry_nz), sum(y_nz)], [0, 2, 1, 3])
    ct = [instantiate(t) for t, n in zip(tangents[:nc], const_nz) if n]
    kt = _carry_tangents(tangents[nc:nc + nk], carry_nz)
    xt = [instantiate(t) for t, n in zip(tangents[nc + nk:], xs_nz) if n]
    args = list(primals[:nc]) + ct + list(primals[nc:nc + nk]) + kt + list(primals[nc + nk:]) + xt
    outs = scan_p.bind(*args, reverse=reverse, length=length, jaxpr=body,
                       num_consts=nc + len(ct), num_carry=nk + len(kt), unroll=unroll)
    carry, carry_t = outs[:nk], iter(outs[nk:nk + len(kt)])
    ys, ys_t = outs[nk + len(kt):nk + len(kt) + n_y], iter(outs[nk + len(kt) + n_y:])
    out_avals = _scan_abstract_eval(reverse=reverse, length=length, jaxpr=jaxpr, num_consts=nc,
                                    num_carry=nk, unroll=unroll)
    tangent_out = [next(carry_t) if n else Zero(a.strip_weak_type())
                   for n, a in zip(carry_nz, out_avals[:nk])] + \
        [next(ys_t) if n else Zero(a.strip_weak_type()) for n, a in zip(y_nz, out_avals[nk:])]
    return list(carry) + list(ys), tangent_out


def _scan_partial_eval(trace, args, params):
    """Known scan: known carries and ys, plus the residuals stacked as extra ys (a residual
    that is just a known const is passed as a const instead). Unknown scan: consumes them."""
    nc, nk = params["num_consts"], params["num_carry"]
    jaxpr = params["jaxpr"]
    unknowns = [trace.is_unknown(x) for x in args]
    const_uk, carry_uk, xs_uk = unknowns[:nc], unknowns[nc:nc + nk], unknowns[nc + nk:]
    n_y = len(jaxpr.out_avals) - nk
    for _ in range(nk + 1):
        _, _, out_uk, _ = partial_eval_jaxpr(jaxpr, const_uk + carry_uk + xs_uk)
        new = [a or b for a, b in zip(carry_uk, out_uk[:nk])]
        if new == carry_uk:
            break
        carry_uk = new
    known_body, unknown_body, out_uk, n_res = partial_eval_jaxpr(
        jaxpr, const_uk + carry_uk + xs_uk, instantiate=carry_uk + [False] * n_y)
    y_uk = out_uk[nk:]
    n_known_carry, n_known_y = carry_uk.count(False), y_uk.count(False)
    n_known_consts = const_uk.count(False)
    # residuals the known body merely forwards from its consts are loop-invariant; those it
    # forwards from its xs are those xs (JAX's partial_eval_jaxpr_nounits_fwd): neither is
    # stacked by the known scan
    forwarded = _forwarded_consts(known_body, n_known_consts, n_known_carry + n_known_y, n_res)
    forwarded_xs = _forwarded_xs(known_body, n_known_consts + n_known_carry,
                                 n_known_carry + n_known_y, n_res)
    known_args = [x for x, u in zip(args, unknowns[:nc] + carry_uk + xs_uk) if not u]
    stacked_body = cf.drop_outputs(known_body, [
        n_known_carry + n_known_y + i for i in range(n_res)
        if forwarded[i] is not None or forwarded_xs[i] is not None])
    with set_current_trace(trace.parent):
        known_outs = scan_p.bind(*known_args, **dict(
            params, jaxpr=stacked_body, num_consts=n_known_consts, num_carry=n_known_carry))
    known_carry = known_outs[:n_known_carry]
    known_ys = known_outs[n_known_carry:n_known_carry + n_known_y]
    stacked_res = iter(known_outs[n_known_carry + n_known_y:])
    known_consts = [x for x, u in zip(args[:nc], const_uk) if not u]
    res_consts, res_xs = [], []
    known_xs = [x for x, u in zip(args[nc + nk:], xs_uk) if not u]
    for i in range(n_res):
        if forwarded[i] is not None:
            res_consts.append((i, known_consts[forwarded[i]]))
        elif forwarded_xs[i] is not None:
            res_xs.append((i, known_xs[forwarded_xs[i]]))
        else:
            res_xs.append((i, next(stacked_res)))
    # unknown body inputs: [residuals (in order), uk consts, uk carry, uk xs];
    # as a scan: consts = [const residuals, uk consts], carry = uk carry,
    # xs = [stacked residuals, uk xs]
    order = [i for i, _ in res_consts] + [n_res + j for j in range(const_uk.count(True))] + \
        [n_res + const_uk.count(True) + j for j in range(carry_uk.count(True))] + \
        [i for i, _ in res_xs] + \
        [n_res + const_uk.count(True) + carry_uk.count(True) + j for j in range(xs_uk.count(True))]
    unknown_scan_body = cf.reorder_inputs(unknown_body, order)
    uk_args = [v for _, v in res_consts] + [x for x, u in zip(args[:nc], const_uk) if u] + \
        [x for x, u in zip(args[nc:nc + nk], carry_uk) if u] + [v for _, v in res_xs] + \
        [x for x, u in zip(args[nc + nk:], xs_uk) if u]
    atoms = [trace.to_atom(x) for x in uk_args]
    new_params = dict(params, jaxpr=unknown_scan_body,
                      num_consts=len(res_consts) + const_uk.count(True),
                      num_carry=carry_uk.count(True))
    out_avals = _scan_abstract_eval(**new_params)
    unknown_outs = trace.add_eqn(atoms, scan_p, new_params, out_avals)
    n_uk_carry = carry_uk.count(True)
    uk_carry, uk_ys = iter(unknown_outs[:n_uk_carry]), iter(unknown_outs[n_uk_carry:])
    kc, ky = iter(known_carry), iter(known_ys)
    return [next(uk_carry) if u else next(kc) for u in carry_uk] + \
        [next(uk_ys) if u else next(ky) for u in y_uk]


def _forwarded_consts(known_body, n_consts, n_outs_before_res, n_res):
    """For each residual: the index of the known const it simply is, else None."""
    jaxpr = known_body.jaxpr
    const_vars = {v: i for i, v in enumerate(jaxpr.invars[:n_consts])}
    res_vars = jaxpr.outvars[n_outs_before_res:n_outs_before_res + n_res]
    return [const_vars.get(v) for v in res_vars]


def _forwarded_xs(known_body, n_before_xs, n_outs_before_res, n_res):
    """For each residual: the index of the known xs it simply is (an element of), else None."""
    jaxpr = known_body.jaxpr
    xs_vars = {v: i for i, v in enumerate(jaxpr.invars[n_before_xs:])}
    res_vars = jaxpr.outvars[n_outs_before_res:n_outs_before_res + n_res]
    return [xs_vars.get(v) for v in res_vars]


def _scan_transpose(cts, *args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    """The transpose of a scan linear in (some consts, the carry, some xs) runs backwards:
    carry = (accumulated const cotangents, carry cotangent), xs = (ys cotangents, residual
    xs: JAX's order, so the transposed body reads `mul ct res` as JAX's), ys = cotangents of
    the linear xs."""
    nc, nk = num_consts, num_carry
    consts, carry, xs = args[:nc], args[nc:nc + nk], args[nc + nk:]
    const_lin = [is_undefined(c) for c in consts]
    xs_lin = [is_undefined(x) for x in xs]
    # A carry input may be a known value (an instantiated zero tangent): the carry is still
    # linear in the loop; such an input just gets no cotangent.
    res_consts = [c for c, lin in zip(consts, const_lin) if not lin]
    res_xs = [x for x, lin in zip(xs, xs_lin) if not lin]
    ct_carry = [instantiate(c) for c in cts[:nk]]
    # ys cotangents that are symbolic zeros are not scanned over (JAX's ct_ys_is_zeros): the
    # transposed body takes them as zeros
    ys_zero = [type(c) is Zero for c in cts[nk:]]
    ct_ys = [c for c in cts[nk:] if type(c) is not Zero]
    lin_const_avals = [c.aval for c, lin in zip(consts, const_lin) if lin]
    ct_consts0 = [zeros(a) for a in lin_const_avals]
    body_in = list(jaxpr.in_avals)
    n_res_c, n_lin_c = len(res_consts), len(lin_const_avals)
    res_x_avals = [a for a, lin in zip(body_in[nc + nk:], xs_lin) if not lin]
    # the cotangents' own types, weak types included, as JAX's transpose takes them
    carry_avals = [get_aval(c) for c in ct_carry]
    y_avals = [a.update(weak_type=get_aval(c).weak_type) for a, c in
               zip([a for a, z in zip(jaxpr.out_avals[nk:], ys_zero) if not z], ct_ys)]

    def body_t(*a):
        rc = a[:n_res_c]
        ct_c_acc = a[n_res_c:n_res_c + n_lin_c]
        ct_k = a[n_res_c + n_lin_c:n_res_c + n_lin_c + nk]
        ct_y = a[n_res_c + n_lin_c + nk:n_res_c + n_lin_c + nk + len(y_avals)]
        rx = a[n_res_c + n_lin_c + nk + len(y_avals):]
        rc_it, rx_it = iter(rc), iter(rx)
        nonlinear = [next(rc_it) for lin in const_lin if not lin] + \
            [next(rx_it) for lin in xs_lin if not lin]
        flags = list(const_lin) + [True] * nk + list(xs_lin)
        ct_y_it = iter(ct_y)
        ct_y_all = [Zero(a) if z else next(ct_y_it)
                    for a, z in zip(jaxpr.out_avals[nk:], ys_zero)]
        # the carry's transpose rules see the carry cotangent's type, as JAX's scan transpose
        # accumulates it (ValAccum(typeof(ct_carry))): a weak carry's convert_element_type
        # then transposes to a convert to that same type, which jit's trace forwards
        cts_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, flags, nonlinear,
                               list(ct_k) + ct_y_all, transform_stack=False,
                               linear_avals=[None] * nc + carry_avals + [None] * len(xs_lin))
        cts_in = [instantiate(c) if type(c) is Zero else c for c in cts_in]
        c_cts = [c for c, lin in zip(cts_in[:nc], const_lin) if lin]
        k_cts = cts_in[nc:nc + nk]
        x_cts = [c for c, lin in zip(cts_in[nc + nk:], xs_lin) if lin]
        new_acc = [add_tangents(acc, c) for acc, c in zip(ct_c_acc, c_cts)]
        return new_acc + list(k_cts) + x_cts
    in_avals = [a for a, lin in zip(body_in[:nc], const_lin) if not lin] + lin_const_avals + \
        carry_avals + y_avals + res_x_avals
    # ("lift": a Ref made outside that a custom_vjp's bwd writes is carried, written back after)
    body = trace_to_jaxpr(body_t, in_avals, ref_policy="lift")
    refs = [r for i, r in enumerate(body.consts) if is_ref(r) and
            all(r is not c for c in body.consts[:i])]      # (written, or only read: carried)
    if refs:
        body = _carrying_refs(body, refs, n_res_c, n_lin_c + nk)
    outs = scan_p.bind(*res_consts, *ct_consts0, *ct_carry, *cr.ref_values(refs), *ct_ys,
                       *res_xs, reverse=not reverse, length=length, jaxpr=body,
                       num_consts=n_res_c, num_carry=n_lin_c + nk + len(refs), unroll=unroll)
    if refs:
        n_carry = n_lin_c + nk
        cr.write_refs(refs, outs[n_carry:n_carry + len(refs)])
        outs = outs[:n_carry] + outs[n_carry + len(refs):]
    ct_consts, ct_init = iter(outs[:n_lin_c]), outs[n_lin_c:n_lin_c + nk]
    ct_xs = iter(outs[n_lin_c + nk:])
    return [next(ct_consts) if lin else None for lin in const_lin] + \
        [ct if is_undefined(c) else None for ct, c in zip(ct_init, carry)] + \
        [next(ct_xs) if lin else None for lin in xs_lin]


def _carrying_refs(body, refs, n_consts, n_carry):
    """`body`, a scan body traced with the "lift" policy that writes `refs` (Refs made
    outside), as a body taking their values as more carry, after its own, and returning
    their new values there (lax/_cf_refs.py's `discharged`, on a body's flat inputs)."""
    writes = body.ref_writes
    n_refs = len(refs)

    def at(ref):
        return next(k for k, r in enumerate(refs) if r is ref)

    def carried(*a):
        values = a[n_consts + n_carry:n_consts + n_carry + n_refs]
        args = a[:n_consts + n_carry] + a[n_consts + n_carry + n_refs:]
        consts = [values[at(c)] if any(c is r for r in refs) else c[...] if is_ref(c) else c
                  for c in body.consts]
        outs = eval_jaxpr(body.jaxpr, consts, *args)
        n = len(outs) - len(writes)
        new = list(values)
        for i, value in zip(writes, outs[n:]):
            new[at(body.consts[i])] = value
        return list(outs[:n_carry]) + new + list(outs[n_carry:n])
    avals = body.in_avals
    ref_avals = [get_aval(r[...]) for r in refs]
    return trace_to_jaxpr(carried, avals[:n_consts + n_carry] + ref_avals +
                          avals[n_consts + n_carry:])


axis_batching_rules[scan_p] = _scan_batching
jvp_rules[scan_p] = _scan_jvp
partial_eval_rules[scan_p] = _scan_partial_eval
transpose_rules[scan_p] = _scan_transpose
sharding_typing_rules[scan_p] = sharding_types.call_typing
