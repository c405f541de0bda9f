"""custom_linear_solve and custom_root: solvers differentiated implicitly, not through.

    >>> x = lax.custom_linear_solve(lambda x: a @ x, b, solve=lambda mv, b: my_solve(b),
    ...                             symmetric=True)

`custom_linear_solve` traces matvec, solve (and, when given, the transposed matvec and
transpose_solve) to jaxprs and binds one `custom_linear_solve` equation. Running it runs
`solve`; its derivative is another solve with the same operator (A dx = db - dA x), and
its transpose solves with the transposed operator, so the solver itself (a while loop,
say) is never differentiated. `custom_root` is a custom_jvp whose tangent comes from the
implicit function theorem, with the tangent system handed to the user's `tangent_solve`.
"""
from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from ..core.traceback_util import api_boundary
from ..core import dtypes, sharding_types
from ..core.interpret import eval_jaxpr
from ..core.ir import Literal, param_printers
from ..core.numpy_eval import eval_closed_jaxpr_numpy
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, sharding_typing_rules,
                              transpose_rules)
from ..core.trace import _ctx, eval_trace
from ..transforms.ad import jvp_flat, linear_transpose, linearize
from ..transforms.batching import batch_jaxpr
from ..transforms.custom_derivatives import custom_jvp
from ..tree_util import tree_flatten, tree_leaves, tree_unflatten
from ..transforms import batch_util as bu
from . import _cf_bodies as cf
from ..transforms.ad_util import Zero, add_tangents, float0, instantiate, is_undefined
from .conversion import _convert_element_type
from .elementwise import neg

linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)


class _LinearSolveTuple(NamedTuple):
    """One entry per function of a linear solve (consts counts, or jaxprs)."""
    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self):
        return type(self)(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _split(args, const_lengths, group=_LinearSolveTuple):
    """(a `group` of the const lists, whose lengths are `const_lengths`; the leaves after them:
    the right-hand side of a linear solve, or a root's initial guess with group=_RootTuple)."""
    groups, start = [], 0
    for n in const_lengths:
        groups.append(list(args[start:start + n]))
        start += n
    return group(*groups), list(args[start:])


def _flat(groups):
    return [x for g in groups for x in g]


# ------------------------------------------------------------------ user functions
def _shape_checked(fun, name, expected_leaves, has_aux):
    """`fun` raising JAX's error when its (non-aux) output leaves' shapes differ from b's."""
    expected = [np.shape(x) for x in expected_leaves]

    def check(y):
        got = [np.shape(x) for x in tree_leaves(y)]
        if got != expected:
            raise ValueError(f"{name}() output shapes must match b, got {got} and {expected}")

    def checked(x):
        out = fun(x)
        if has_aux:
            y, _ = out
            check(y)
        else:
            check(out)
        return out
    return checked


def _check_tree(func_name, expected_name, actual_tree, expected_tree, has_aux=False):
    if has_aux:
        children = actual_tree.children()
        if len(children) != 2:
            raise ValueError(f"{func_name}() produced a pytree with structure {actual_tree}, but "
                             f"a pytree tuple with auxiliary output was expected because has_aux "
                             f"was set to True.")
        actual_tree = children[0]
    if actual_tree != expected_tree:
        raise TypeError(f"{func_name}() output pytree structure must match {expected_name}, got "
                        f"{actual_tree} and {expected_tree}.")


def _trace(fun, args_tree, avals, what):
    """(closed jaxpr taking its consts first, the consts, output tree) of fun(one pytree)."""
    closed, out_tree = cf.trace_fun(fun, args_tree, avals, what)
    jaxpr, consts = cf.hoist(closed, what)
    return jaxpr, consts, out_tree


@api_boundary
def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False, has_aux=False):
    """`solve(matvec, b)`, differentiated as the solution x of the linear system matvec(x) = b
    (implicitly: derivatives are further solves, the solver is never differentiated).

    `transpose_solve(vecmat, b)` solves with the transposed operator; reverse mode needs it
    unless `symmetric=True`, which reuses `solve`. With `has_aux`, the solvers return
    (x, aux) and aux is passed through (without derivative).

    >>> a = jnp.array([[2., 1.], [1., 3.]])
    >>> lax.custom_linear_solve(lambda x: a @ x, jnp.array([3., 4.]),
    ...                         lambda mv, b: jnp.linalg.solve(a, b), symmetric=True)
    Array([1., 1.], dtype=float32)
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_leaves, tree = tree_flatten(b)
    args_tree = tree_flatten((b,))[1]
    avals = cf.avals_of(b_leaves)

    mv_jaxpr, mv_consts, out_tree = _trace(_shape_checked(matvec, "matvec", b_leaves, False),
                                           args_tree, avals, "custom_linear_solve")
    _check_tree("matvec", "b", out_tree, tree)
    solve_jaxpr, solve_consts, solve_tree = _trace(
        _shape_checked(functools.partial(solve, matvec), "solve", b_leaves, has_aux),
        args_tree, avals, "custom_linear_solve solve")
    _check_tree("solve", "b", solve_tree, tree, has_aux)

    if transpose_solve is None:
        vm_jaxpr = tr_jaxpr = None
        vm_consts = tr_consts = []
    else:
        if symmetric:
            vecmat, vm_jaxpr, vm_consts = matvec, mv_jaxpr, mv_consts
        else:
            vecmat = _transpose_one_output(matvec, b)
            vm_jaxpr, vm_consts, _ = _trace(vecmat, args_tree, avals,
                                            "custom_linear_solve transpose_solve")
        tr_jaxpr, tr_consts, tr_tree = _trace(
            _shape_checked(functools.partial(transpose_solve, vecmat), "transpose_solve",
                           b_leaves, has_aux),
            args_tree, avals, "custom_linear_solve transpose_solve")
        _check_tree("transpose_solve", "b", tr_tree, tree, has_aux)

    consts = [mv_consts, vm_consts, solve_consts, tr_consts]
    const_lengths = _LinearSolveTuple(*map(len, consts))
    jaxprs = _LinearSolveTuple(mv_jaxpr, vm_jaxpr, solve_jaxpr, tr_jaxpr)
    outs = linear_solve_p.bind(*_flat(consts), *b_leaves, const_lengths=const_lengths,
                                      jaxprs=jaxprs)
    return tree_unflatten(solve_tree, outs)


def _transpose_one_output(linear_fun, primals):
    transposed = linear_transpose(linear_fun, primals)

    def vecmat(x):
        y, = transposed(x)
        return y
    return vecmat


# ------------------------------------------------------------------ rules
def _solve_abstract_eval(*avals, const_lengths, jaxprs):
    b_avals = list(avals[sum(const_lengths):])
    n_aux = len(jaxprs.solve.out_avals) - len(jaxprs.matvec.out_avals)
    return b_avals + (list(jaxprs.solve.out_avals[-n_aux:]) if n_aux > 0 else [])


def _solve_lowering(ctx, *args, const_lengths, jaxprs):
    params, b = _split(args, const_lengths)
    return ctx.lower_jaxpr(jaxprs.solve, params.solve + b)


def _tangent_of_matvec(matvec, params, params_dot, x):
    """dA x: the tangent of matvec(params, x) in its params alone (x held fixed)."""
    tangents = [Zero(cf.avals_of([p])[0]) if _is_float0(t) else t
                for p, t in zip(params, params_dot)]
    _, out = jvp_flat(lambda *a: eval_jaxpr(matvec.jaxpr, matvec.consts, *a),
                      list(params) + list(x),
                      tangents + [Zero(a) for a in cf.avals_of(x)])
    return out


def _is_float0(t):
    return getattr(t, "dtype", None) == float0


def _solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    # A x = b, so dA x + A dx = db and dx = A^-1 (db - dA x): one more solve
    x = linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
    params, _ = _split(primals, const_lengths)
    params_dot, b_dot = _split(tangents, const_lengths)
    n = len(b_dot)
    x_leaves = x[:n]
    if all(type(t) is Zero for t in params_dot.matvec):
        rhs = b_dot
    else:
        dax = _tangent_of_matvec(jaxprs.matvec, params.matvec, params_dot.matvec, x_leaves)
        rhs = [add_tangents(db, neg(t) if type(t) is not Zero else t) for db, t in zip(b_dot, dax)]
    rhs = [instantiate(t) for t in rhs]
    x_dot = linear_solve_p.bind(*_flat(params), *rhs, const_lengths=const_lengths,
                                       jaxprs=jaxprs)
    aux_dot = [Zero(a.strip_weak_type()) for a in cf.avals_of(x[n:])]
    return x, list(x_dot[:n]) + aux_dot


def _solve_transpose(cts, *args, const_lengths, jaxprs):
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic differentiation "
                        "of custom_linear_solve")
    params, b = _split(args, const_lengths)
    if any(is_undefined(p) for p in _flat(params)):
        raise NotImplementedError("custom_linear_solve can only be transposed in its right-hand "
                                  "side b; the operator's parameters must be known.")
    x_cts, aux_cts = cts[:len(b)], cts[len(b):]
    if any(type(c) is not Zero for c in aux_cts):
        raise NotImplementedError("custom_linear_solve: a cotangent for the solver's auxiliary "
                                  "output cannot be transposed.")
    x_cts = [instantiate(c) for c in x_cts]
    b_cts = linear_solve_p.bind(*_flat(params.transpose()), *x_cts,
                                       const_lengths=const_lengths.transpose(),
                                       jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + list(b_cts[:len(b)])


def _dims(flags):
    return [0 if f else bu.not_mapped for f in flags]


def _solve_batching(axis_data, vals, dims, *, const_lengths, jaxprs):
    # Which of x and b are batched must agree across all four jaxprs (b feeds solve and
    # vecmat, x feeds matvec and transpose_solve), so iterate to a fixed point.
    orig = [d is not bu.not_mapped for d in dims]
    params, b = _split(vals, const_lengths)
    params_dims, b_dims = _split(dims, const_lengths)
    params_bat, orig_b_bat = _split(orig, const_lengths)
    matvec, vecmat, solve, solve_t = jaxprs
    n_op = len(matvec.out_avals)
    n_aux = len(solve.out_avals) - n_op
    b_bat = orig_b_bat
    x_bat = [False] * len(solve.out_avals)
    for _ in range(1 + len(orig_b_bat) + len(solve.out_avals)):
        solve_b, solve_x_bat = batch_jaxpr(solve, axis_data, _dims(params_bat.solve + b_bat),
                                           force_out_batched=x_bat)
        solve_x_bat = [d is not bu.not_mapped for d in solve_x_bat]
        if vecmat is None:
            vecmat_b = None
            x_bat_out = solve_x_bat
        else:
            vecmat_b, vm_bat = batch_jaxpr(vecmat, axis_data, _dims(params_bat.vecmat + b_bat),
                                           force_out_batched=b_bat)
            vm_bat = [d is not bu.not_mapped for d in vm_bat] + [True] * n_aux
            x_bat_out = [a or c for a, c in zip(vm_bat, solve_x_bat)]
        x_bat_op = x_bat_out[:n_op]
        matvec_b, mv_bat = batch_jaxpr(matvec, axis_data, _dims(params_bat.matvec + x_bat_op),
                                       force_out_batched=b_bat)
        mv_bat = [d is not bu.not_mapped for d in mv_bat]
        if solve_t is None:
            solve_t_b = None
            b_bat_out = [a or c for a, c in zip(mv_bat, orig_b_bat)]
        else:
            solve_t_b, st_bat = batch_jaxpr(solve_t, axis_data,
                                            _dims(params_bat.transpose_solve + x_bat_op),
                                            force_out_batched=x_bat_out)
            st_bat = [d is not bu.not_mapped for d in st_bat[:len(orig_b_bat)]]
            b_bat_out = [m or s or o for m, s, o in zip(mv_bat, st_bat, orig_b_bat)]
        if x_bat_out == x_bat and b_bat_out == b_bat:
            break
        x_bat, b_bat = x_bat_out, b_bat_out
    else:
        raise AssertionError("custom_linear_solve batching: no fixed point")
    new_params = [v if d is bu.not_mapped else bu.moveaxis(v, d, 0)
                  for v, d in zip(_flat(params), _flat(params_dims))]
    size = axis_data.size
    new_b = [bu.bdim_at_front(v, d, size, axis_data.explicit_mesh_axis) if now else v
             for v, d, now in zip(b, b_dims, b_bat)]
    outs = linear_solve_p.bind(
        *new_params, *new_b, const_lengths=const_lengths,
        jaxprs=_LinearSolveTuple(matvec_b, vecmat_b, solve_b, solve_t_b))
    return outs, _dims(solve_x_bat)


abstract_eval_rules[linear_solve_p] = _solve_abstract_eval
# typed as b (and the solve's aux results), as JAX's abstract evaluation types them
sharding_typing_rules[linear_solve_p] = sharding_types.typed_by_abstract_eval
lowering_rules[linear_solve_p] = _solve_lowering


def _solve_numpy(*args, const_lengths, jaxprs):
    """The solve jaxpr on b, as the lowering (the others serve differentiation)."""
    params, b = _split(args, const_lengths)
    return eval_closed_jaxpr_numpy(jaxprs.solve, *params.solve, *b)


numpy_rules[linear_solve_p] = _solve_numpy
jvp_rules[linear_solve_p] = _solve_jvp
transpose_rules[linear_solve_p] = _solve_transpose
axis_batching_rules[linear_solve_p] = _solve_batching
# JAX prints both tuples as their reprs, each jaxpr named on its own
param_printers[linear_solve_p] = lambda p: [
    ("const_lengths", str(p["const_lengths"])), ("jaxprs", str(p["jaxprs"]))]


# ------------------------------------------------------------------ custom_root
class _RootTuple(NamedTuple):
    f: Any
    solve: Any
    l_and_s: Any


@api_boundary
def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """`solve(f, initial_guess)`, a root of `f`, differentiated by the implicit function
    theorem with respect to what `f` closes over: the tangent system (f linearized at the
    root) is solved by `tangent_solve(g, y)`, which returns x with g(x) = y.

    >>> def newton(f, x):                       # a few steps of Newton's method
    ...     for _ in range(6):
    ...         x = x - f(x) / jax.grad(f)(x)
    ...     return x
    >>> def sqrt(a):
    ...     return lax.custom_root(lambda x: x * x - a, 1.0, newton, lambda g, y: y / g(1.0))
    >>> sqrt(4.0), jax.grad(sqrt)(4.0)          # d sqrt(a) / da = 1 / (2 sqrt(a))
    (Array(2., dtype=float32, weak_type=True), Array(0.25, dtype=float32, weak_type=True))
    """
    guess_leaves, guess_tree = tree_flatten(initial_guess)
    args_tree = tree_flatten((initial_guess,))[1]
    avals = cf.avals_of(guess_leaves)
    f_jaxpr, f_consts, f_tree = _trace(f, args_tree, avals, "custom_root")
    _check_tree("f", "initial_guess", f_tree, guess_tree)
    solve_jaxpr, solve_consts, solution_tree = _trace(
        functools.partial(solve, f), args_tree, avals, "custom_root solve")
    _check_tree("solve", "initial_guess", solution_tree, guess_tree, has_aux)

    def linearize_and_solve(x, b):
        _, f_jvp = linearize(f, x)
        return tangent_solve(f_jvp, b)
    ls_tree = tree_flatten((initial_guess, initial_guess))[1]
    ls_jaxpr, ls_consts, ls_out_tree = _trace(linearize_and_solve, ls_tree, avals + avals,
                                              "custom_root tangent_solve")
    _check_tree("tangent_solve", "x", ls_out_tree, guess_tree)

    consts = [f_consts, solve_consts, ls_consts]
    const_lengths = _RootTuple(*map(len, consts))
    jaxprs = _RootTuple(f_jaxpr, solve_jaxpr, ls_jaxpr)
    solution = _custom_root(const_lengths, jaxprs, *_flat(consts), *guess_leaves)
    return tree_unflatten(solution_tree, solution)


@functools.partial(custom_jvp, nondiff_argnums=(0, 1))
def _custom_root(const_lengths, jaxprs, *args):
    params, guess = _split(args, const_lengths, _RootTuple)
    outs = eval_jaxpr(jaxprs.solve.jaxpr, jaxprs.solve.consts, *params.solve, *guess)
    if _ctx.trace is eval_trace:      # a constant solution comes back as a jaxpr Literal
        outs = [_convert_element_type(o.val, o.aval.dtype, o.aval.weak_type)
                if type(o) is Literal else o for o in outs]
    return outs


@_custom_root.defjvp
def _root_jvp(const_lengths, jaxprs, primals, tangents):
    # F(m, u*(m)) = 0 near the root, so dF/dm + dF/du du* = 0 and
    # du* = -(dF/du)^-1 (dF/dm dm): the tangent system goes to tangent_solve
    params, _ = _split(primals, const_lengths, _RootTuple)
    params_dot, _ = _split(tangents, const_lengths, _RootTuple)
    sol = _custom_root(const_lengths, jaxprs, *primals)
    n = len(jaxprs.f.out_avals)
    solution, aux = list(sol[:n]), list(sol[n:])
    f = jaxprs.f
    dots = [Zero(cf.avals_of([p])[0]) if _is_float0(t) or not _inexact(p) else t
            for p, t in zip(params.f, params_dot.f)]
    _, rhs = jvp_flat(lambda *ps: eval_jaxpr(f.jaxpr, f.consts, *ps, *solution),
                      params.f, dots)
    rhs = [instantiate(r) for r in rhs]
    ls = jaxprs.l_and_s
    solution_dot = [neg(t) for t in eval_jaxpr(ls.jaxpr, ls.consts, *params.l_and_s,
                                                *solution, *rhs)]
    aux_dot = [np.zeros(np.shape(a), float0) if not _inexact(a) else
               instantiate(Zero(cf.avals_of([a])[0].strip_weak_type())) for a in aux]
    return solution + aux, solution_dot + aux_dot


def _inexact(x):
    return dtypes.is_inexact(cf.avals_of([x])[0].dtype)
