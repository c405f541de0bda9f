"""The harnesses that check primitives' batching, jvp and transpose rules, and the checks the
families' value tests share (`check_exact`, `errors_test`, `raises_test`, printing as JAX
prints); the tables of cases live with their families in tests/lax/ (test_lax_shapes.py,
test_lax_slicing.py, test_lax_reductions.py, test_lax_dot.py, test_lax_sorting.py).

`check_vmap(f, per_example, in_axes)`: vmap on per-example arguments stacked along their axes
equals stacking f over the examples (within REDUCTION ulps: batched sums may add in another
order), the batched jaxpr type-checks, and jit(vmap) and vmap(jit) agree.

A `Case` is a function of some arguments, one maker per argument, and which arguments are
floats (differentiable). For each case the checks are:

- vmap(f)(xs) equals stacking f(x) over the examples, for in_axes 0, 1, -1 and None mixes
  (batched operand, batched indices, both), nested, and with jit in both orders;
- check_grads to order 2 in both modes on the float inputs (integer indices closed over);
- per-example vjps (vmap of the transposes);
- every transformed jaxpr type-checks.

Results are compared exactly (`close`): these rules move data.

The tests the families share are made at the end of this file (`case_tests(RULE_CASES)`,
`prints_as_jax_test(RULES_GOLDEN)`, `vmap_unary_test(UNARY)`, ...), and each family's file binds
them under its tests' names, so one check lives in one place and the ids stay the file's own.
"""
import re
from typing import NamedTuple

import ml_dtypes
import numpy as np
import pytest

import jxkernel as jax
from jxkernel import lax
from jxkernel.core import check_jaxpr
from jxkernel.test_util import check_grads
from numerics import REDUCTION, assert_allclose_ulp

F32 = np.float32
BF16 = np.dtype(ml_dtypes.bfloat16)
B = 3                                      # vmap batch size


# ------------------------------------------------------------------ argument makers
def floats(*shape):
    return lambda rng: rng.standard_normal(shape).astype(F32)


def ints(lo, hi, *shape):
    """Integers in [lo, hi): out-of-bounds and negative ones where lo/hi say so."""
    return lambda rng: rng.integers(lo, hi, shape).astype(np.int32)


def unique_rows(n, *shape):
    """Index vectors (a last dim of 1) of rows in [0, n), distinct along the last dim of
    `shape`, so that a scatter is deterministic."""
    def make(rng):
        rows = [rng.permutation(n)[:shape[-1]] for _ in range(int(np.prod(shape[:-1])))]
        return np.reshape(rows, shape + (1,)).astype(np.int32)
    return make


class Case(NamedTuple):
    name: str
    fun: object
    makers: list          # one maker per argument
    diff: tuple           # positions of the float (differentiable) arguments


# ------------------------------------------------------------------ running a case
def example(case, seed):
    rng = np.random.default_rng(seed)
    return [m(rng) for m in case.makers]


def in_axes_specs(case):
    """0, -1 and 1 everywhere (0 for rank-0 arguments), each argument alone batched, and
    each argument alone unbatched."""
    ranks = [np.ndim(a) for a in example(case, 0)]
    n = len(ranks)
    specs = [(0,) * n, (-1,) * n, tuple(1 if r else 0 for r in ranks)]
    if n > 1:
        specs += [tuple(0 if j == i else None for j in range(n)) for i in range(n)]
        specs += [tuple(None if j == i else -1 for j in range(n)) for i in range(n)]
    return list(dict.fromkeys(specs))


def batched_args(case, in_axes, seed=0):
    """(arguments stacked along in_axes, the per-example argument lists)."""
    examples = [example(case, seed + k) for k in range(B)]
    examples = [[ex[i] if ax is not None else examples[0][i] for i, ax in enumerate(in_axes)]
                for ex in examples]
    args = [examples[0][i] if ax is None else np.stack([ex[i] for ex in examples], ax)
            for i, ax in enumerate(in_axes)]
    return args, examples


def stacked(fun, examples):
    return np.stack([np.asarray(fun(*ex)) for ex in examples])


def close(got, want):
    """Exactly: these rules move data, and round at most once per element (a multiply, a
    scatter's add) in the same order batched or not, so every CPU gets the same bits. In the
    GPU tier a scatter-add's colliding updates come in the threads' order (gpu_tier's
    "scatter")."""
    got = np.asarray(got)
    want = np.asarray(want, got.dtype) if isinstance(want, list) else np.asarray(want)
    assert_allclose_ulp(got, want, 0, gpu="scatter")


# ------------------------------------------------------------------ vmap
def check_vmap_equals_stacking(case):
    for in_axes in in_axes_specs(case):
        args, examples = batched_args(case, in_axes)
        batched = jax.vmap(case.fun, in_axes=in_axes)
        close(batched(*args), stacked(case.fun, examples))
        check_jaxpr(jax.make_jaxpr(batched)(*args))


def check_vmap_with_jit_and_nested(case):
    in_axes = (-1,) * len(case.makers)
    args, examples = batched_args(case, in_axes, seed=10)
    want = stacked(case.fun, examples)
    close(jax.jit(jax.vmap(case.fun, in_axes=in_axes))(*args), want)
    close(jax.vmap(jax.jit(case.fun), in_axes=in_axes)(*args), want)
    # nested: the outer vmap maps axis 1 of the first argument (0 of the rest), the inner one
    # axis 0 of every argument but the last (if there are more), which stays the same across
    # the inner batch
    inner_axes = (0,) if len(args) == 1 else (0,) * (len(args) - 1) + (None,)
    outer_axes = (1,) + (0,) * (len(args) - 1)
    sets = [batched_args(case, inner_axes, seed=20 + 5 * k) for k in range(2)]
    outer_args = [np.stack([s[0][i] for s in sets], ax) for i, ax in enumerate(outer_axes)]
    nested = jax.vmap(jax.vmap(case.fun, in_axes=inner_axes), in_axes=outer_axes)
    close(nested(*outer_args), np.stack([stacked(case.fun, s[1]) for s in sets]))
    check_jaxpr(jax.make_jaxpr(nested)(*outer_args))


# ------------------------------------------------------------------ differentiation
def closed_over_ints(case, args):
    """(function of the float arguments only, those arguments)."""
    def fun(*floats):
        full = list(args)
        for pos, x in zip(case.diff, floats):
            full[pos] = x
        return case.fun(*full)
    return fun, [args[i] for i in case.diff]


F32_GRAD_TOL = {np.float32: 1e-2, np.complex64: 1e-2}


def check_grads_order_2(case):
    fun, floats_ = closed_over_ints(case, example(case, 1))
    # second order in float32 by JAX's step (1e-4, in float32): JAX's own tests loosen float32
    # to 1e-2 for such checks (lax_autodiff_test.py's grad_tol)
    check_grads(fun, floats_, order=2, modes=("fwd", "rev"), atol=F32_GRAD_TOL, rtol=F32_GRAD_TOL)


def check_transformed_jaxprs_typecheck(case):
    fun, floats_ = closed_over_ints(case, example(case, 2))
    out = fun(*floats_)
    ct = np.random.default_rng(3).standard_normal(np.shape(out)).astype(F32)
    check_jaxpr(jax.make_jaxpr(lambda *xs: jax.jvp(fun, xs, xs))(*floats_))
    check_jaxpr(jax.make_jaxpr(lambda *xs: jax.vjp(fun, *xs)[1](ct))(*floats_))
    check_jaxpr(jax.make_jaxpr(jax.linearize(fun, *floats_)[1])(*floats_))


def check_per_example_vjp(case):
    """vmap of a vjp: batching rules of the transposes (pad, scatter-add into zeros, ...),
    with the indices batched too."""
    def vjp_of(*args):
        ct = args[-1]
        fun, floats_ = closed_over_ints(case, list(args[:-1]))
        return jax.vjp(fun, *floats_)[1](ct)
    examples = [example(case, 30 + k) for k in range(B)]
    cts = [np.random.default_rng(40 + k).standard_normal(np.shape(case.fun(*ex))).astype(F32)
           for k, ex in enumerate(examples)]
    args = [np.stack(xs) for xs in zip(*examples)] + [np.stack(cts)]
    got = jax.vmap(vjp_of)(*args)
    for k, ex in enumerate(examples):
        for g, w in zip(got, vjp_of(*ex, cts[k])):
            close(np.asarray(g)[k], np.asarray(w))


# ------------------------------------------------------------------ printed as JAX prints
def normalized(text):
    """JAX prints params built from NumPy ints as np.int64(3) and breaks lines by the length
    of that text; ours are Python ints. Compare the tokens."""
    text = re.sub(r"np\.int64\((-?\d+)\)", r"\1", text)
    return re.sub(r"\[\s+", "[", re.sub(r"\s+\]", "]", " ".join(text.split())))


def sum_all(x):
    return lax.reduce_sum(x, tuple(range(np.ndim(x))))


# ------------------------------------------------------------------ check_vmap: vmap against stacking
STACK = 2                              # check_vmap's vmapped axis size


def sample(shape, seed=0, dtype=F32):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 8, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _moveaxis(x, src, dst):
    return np.moveaxis(np.asarray(x), src, dst)


def largest(want):
    """The largest |value| of a float result: the scale its sums and dots that cancel are
    measured at (None for integers, compared exactly)."""
    want = np.asarray(want)
    return np.abs(want.astype(np.float64)).max() if want.dtype.kind in "fc" and want.size else None


def check_vmap(f, per_example, in_axes, with_jit=True):
    """vmap(f, in_axes) on the per-example args stacked along their axes equals stacking f
    over the examples; the batched jaxpr typechecks; jit(vmap) and vmap(jit) agree."""
    shuffled = lambda a, i: np.random.default_rng(i).permutation(a.ravel()).reshape(a.shape)
    batched = [a if ax is None else _moveaxis(np.stack([shuffled(a, i) for i in range(STACK)]), 0, ax)
               for a, ax in zip(per_example, in_axes)]      # examples: `a` shuffled
    examples = [[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(batched, in_axes)]
                for i in range(STACK)]
    want = [jax.tree_util.tree_leaves(f(*map(jax.device_put, ex))) for ex in examples]
    want = [np.stack([np.asarray(w[j]) for w in want]) for j in range(len(want[0]))]
    vf = jax.vmap(f, in_axes=tuple(in_axes))
    jitted = (jax.jit(vf), jax.vmap(jax.jit(f), in_axes=tuple(in_axes))) if with_jit else ()
    for g in (vf,) + jitted:
        got = jax.tree_util.tree_leaves(g(*batched))
        assert len(got) == len(want)
        for gv, wv in zip(got, want):
            assert np.asarray(gv).dtype == wv.dtype
            # batched dots, sums and cumsums may add in another order than one example's:
            # REDUCTION ulps at the output's largest |value| [worst seen 1, all four CPUs]
            # (on a GPU, float32 dots run in TF32 whose rounding follows the shapes: its bound)
            assert_allclose_ulp(np.asarray(gv), wv, REDUCTION, scale=largest(wv), gpu="tf32")
    check_jaxpr(jax.make_jaxpr(vf)(*batched))


def same_text(ours, jax_text):
    """JAX prints some params as NumPy scalars (np.int64(0)) and wraps long lines: compare
    modulo those (`normalized`)."""
    assert normalized(str(ours)) == normalized(jax_text), str(ours)


def check_prints_as_jax(fun, args, jax_text, exact=False):
    """fun's jaxpr on args type-checks and prints as JAX 0.10.2 printed the same program:
    letter for letter when `exact` (a text with no NumPy scalars or wrapped lines), else
    modulo those (`same_text`)."""
    closed = jax.make_jaxpr(fun)(*args)
    check_jaxpr(closed)
    if exact:
        assert str(closed) == jax_text
    else:
        same_text(closed, jax_text)


def check_exact(fun, expected, *args, jitted=None):
    """fun(*args) equals `expected` exactly (shape and dtype included) eagerly and under jit,
    and its staged jaxpr type-checks. `jitted`: jit(fun)(*args) computed already, with other
    cases in one program (compiled.jit_together)."""
    expected = np.asarray(expected)
    for how, f in (("eager", fun), ("jit", jax.jit(fun) if jitted is None else
                                    lambda *_: jitted)):
        out = f(*args)
        assert out.shape == expected.shape, (how, out.shape, expected.shape)
        assert out.dtype == expected.dtype, (how, out.dtype, expected.dtype)
        out, want = np.asarray(out), expected
        if out.dtype == BF16:                # NumPy's NaN-aware comparison needs a builtin type
            out, want = out.astype(F32), want.astype(F32)
        np.testing.assert_array_equal(out, want, err_msg=how)
    check_jaxpr(jax.make_jaxpr(fun)(*args))


def check_grads_and_their_jaxprs(fun, x, x_order_1, check=check_grads):
    """check_grads to order 2 in both modes at x (and to order 1 at x_order_1, another shape);
    the jaxprs of grad and jvp type-check. `check`: check_grads or a function making the same
    checks (grads_together.check_grads_together)."""
    check(fun, (x,), order=2, modes=("fwd", "rev"))
    check(fun, (x_order_1,), order=1, modes=("fwd", "rev"))
    check_jaxpr(jax.make_jaxpr(jax.grad(lambda x: sum_all(fun(x))))(x))
    check_jaxpr(jax.make_jaxpr(lambda x, t: jax.jvp(fun, (x,), (t,)))(x, x))


def check_grad_under_jit_and_vmap(f, x, jit_inside=False):
    """grad(f) at x is the same (within REDUCTION ulps at its largest |value|) under jit,
    jitted inside (jit_inside) and per example of a jitted vmap; vmap(grad)'s jaxpr
    type-checks."""
    want = np.asarray(jax.grad(f)(x))
    # (jit fuses the gradient's products and sums differently from eager), at the
    # largest |value| [worst seen 1.1]
    assert_allclose_ulp(np.asarray(jax.jit(jax.grad(f))(x)), want, REDUCTION, scale=largest(want))
    if jit_inside:
        assert_allclose_ulp(np.asarray(jax.grad(jax.jit(f))(x)), want, REDUCTION,
                            scale=largest(want))
    xs = np.stack([x, x * 2])
    # vmap's batching rules run at trace time: under jit the whole batched gradient is one
    # compile instead of one per primitive
    per = np.asarray(jax.jit(jax.vmap(jax.grad(f)))(xs))
    assert_allclose_ulp(per[0], want, REDUCTION, scale=largest(want))
    want2 = np.asarray(jax.grad(f)(x * 2))
    assert_allclose_ulp(per[1], want2, REDUCTION, scale=largest(want2))
    check_jaxpr(jax.make_jaxpr(jax.vmap(jax.grad(f)))(xs))


def check_family_rules(linear, nonlinear):
    """Every primitive of a family has batching and jvp rules (a batching rule given vmap's
    axis, as dot_general's, counts); the linear ones transpose."""
    from jxkernel.core.primitive import (axis_batching_rules, batching_rules, jvp_rules,
                                         transpose_rules)
    for p in linear + nonlinear:
        assert (p in batching_rules or p in axis_batching_rules) and p in jvp_rules, p
    for p in linear:
        assert p in transpose_rules, p


# ------------------------------------------------------------------ the tests a family binds
# A family's test file binds these under its tests' names (`test_vmap_unary =
# vmap_unary_test(UNARY)`): pytest names a test by the module attribute it finds, so the ids
# are the family file's own. Each call makes new functions: a parametrize mark set on one
# function shared by several files would pile up.
def _over(argname, table, **kw):
    """Parametrize over a table's keys (a dict) or positions (a list)."""
    return pytest.mark.parametrize(argname, list(table) if isinstance(table, dict)
                                   else range(len(table)), **kw)


def case_tests(cases):
    """The five checks of a Case table, one test each, parametrized by case name: bind them as
    (test_vmap_equals_stacking, test_vmap_with_jit_and_nested, test_grads_order_2,
    test_transformed_jaxprs_typecheck, test_per_example_vjp)."""
    def test(check):
        @pytest.mark.parametrize("case", cases, ids=lambda c: c.name)
        def test_case(case):
            check(case)
        return test_case
    return tuple(test(c) for c in (check_vmap_equals_stacking, check_vmap_with_jit_and_nested,
                                   check_grads_order_2, check_transformed_jaxprs_typecheck,
                                   check_per_example_vjp))


def prints_as_jax_test(golden, exact=False):
    """One test per entry of `golden` (a list, ids its positions, or a dict, ids its keys) of
    (function, arguments, what JAX 0.10.2 prints for the same program): check_prints_as_jax."""
    @_over("key", golden)
    def test(key):
        check_prints_as_jax(*golden[key], exact=exact)
    return test


def errors_test(errors):
    """One test per (function, exception class, message) of `errors` (ids: positions): the
    function raises exactly that, and so does tracing it (abstract eval is shared)."""
    @_over("i", errors)
    def test(i):
        fun, exc, message = errors[i]
        with pytest.raises(exc) as info:
            fun()
        assert str(info.value) == message
        with pytest.raises(exc) as info:
            jax.make_jaxpr(fun)()
        assert str(info.value) == message
    return test


def raises_test(errors):
    """One test per (function, exception class, message) of `errors`: the function raises that
    class with a message that contains `message` (ids as pytest makes them from the three)."""
    @pytest.mark.parametrize("fn,exc,msg", errors)
    def test(fn, exc, msg):
        with pytest.raises(exc) as info:
            fn()
        assert msg in str(info.value)
    return test


def vmap_unary_test(unary):
    """check_vmap over in_axes 0, 1 and -1 of each `name: (f, x)` of `unary`; jit both ways
    once per primitive (at -1)."""
    @pytest.mark.parametrize("axis", [0, 1, -1])
    @_over("name", unary)
    def test(name, axis):
        f, x = unary[name]
        check_vmap(f, [x], [axis], with_jit=axis == -1)
    return test


MIXES = [(0, 0), (0, None), (None, 1), (-1, 0), (1, -1)]     # in_axes of a binary function


def vmap_binary_test(binary):
    """check_vmap over the in_axes MIXES of each `name: (f, a, b)` of `binary`; jit both ways
    once per primitive (at (-1, 0))."""
    @pytest.mark.parametrize("in_axes", MIXES, ids=str)
    @_over("name", binary)
    def test(name, in_axes):
        f, a, b = binary[name]
        check_vmap(f, [a, b], list(in_axes), with_jit=in_axes == (-1, 0))
    return test


def grads_order_2_test(grads, halved=(), check=check_grads):
    """check_grads_and_their_jaxprs for each `name: f` of `grads` at a (3, 5) and a (4, 3)
    sample, halved for the names in `halved` (products, whose derivatives grow fast), by
    `check` (check_grads, or grads_together.check_grads_together where that was measured to
    cost less CPU)."""
    @_over("name", grads)
    def test(name):
        scale = 0.5 if name in halved else 1
        check_grads_and_their_jaxprs(grads[name], sample((3, 5), 5) * scale,
                                     sample((4, 3), 6) * scale, check)
    return test
