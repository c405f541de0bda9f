"""Structured control flow: results against Python references, printed jaxprs (JAX 0.10.2's
text), gradients through cond/switch/scan/fori_loop, vmap with batched predicates and
carries, nesting under jit/grad/vmap, and JAX's error messages."""
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core import check_jaxpr
from doc_examples import check_docstring_examples
from grads_together import check_grads_together
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp

rng = np.random.default_rng(0)


def arr(x, dtype=np.float32):
    return jax.device_put(np.asarray(x, dtype))


# ------------------------------------------------------------------ forward values
def test_cond_and_switch_values():
    x = arr([0.5, -1.0])
    for pred, expected in [(True, np.sin([0.5, -1.0])), (False, [1.5, 0.0]), (3, np.sin([0.5, -1.0])),
                           (0.0, [1.5, 0.0])]:
        out = lax.cond(pred, lax.sin, lambda v: lax.add(v, 1.0), x)
        # (XLA's sin against float64, rounded once) [worst seen 0, all four CPUs]
        assert_allclose_ulp(np.asarray(out), np.asarray(expected, np.float64).astype(np.float32),
                            ELEMENTWISE)
    branches = [lambda v: lax.mul(v, 2.0), lambda v: v, lax.sin]
    for index, expected in [(0, [1.0, -2.0]), (1, [0.5, -1.0]), (2, np.sin([0.5, -1.0])),
                            (-5, [1.0, -2.0]), (9, np.sin([0.5, -1.0]))]:     # clamped like JAX
        assert_allclose_ulp(np.asarray(lax.switch(index, branches, x)),
                            np.asarray(expected, np.float64).astype(np.float32), ELEMENTWISE)


def test_cond_pytrees_and_closures():
    scale = arr(3.0)
    out = lax.cond(True, lambda d: {"a": lax.mul(d["x"], scale), "b": (d["x"], 1.0)},
                   lambda d: {"a": d["x"], "b": (lax.neg(d["x"]), 2.0)}, {"x": arr([1.0, 2.0])})
    np.testing.assert_allclose(np.asarray(out["a"]), [3.0, 6.0])
    assert float(out["b"][1]) == 1.0


def test_loops_values():
    assert int(lax.fori_loop(0, 10, lambda i, acc: lax.add(acc, i), 0)) == 45
    n = arr(7, np.int32)
    assert int(jax.jit(lambda n: lax.fori_loop(0, n, lambda i, acc: lax.add(acc, i), 0))(n)) == 21
    count, value = lax.while_loop(lambda c: lax.lt(c[0], 5),
                                  lambda c: (lax.add(c[0], 1), lax.mul(c[1], 2.0)), (0, 1.0))
    assert int(count) == 5 and float(value) == 32.0
    xs = rng.standard_normal(6).astype(np.float32)

    def step(c, x):
        return lax.add(lax.mul(c, 0.5), x), lax.mul(c, x)
    for reverse in (False, True):
        for unroll in (1, 2, 4, True):
            carry, ys = lax.scan(step, 0.0, arr(xs), reverse=reverse, unroll=unroll)
            c, size, expected_ys, sizes = 0.0, 0.0, [], []      # float64, and sums of |terms|
            for x in (xs[::-1] if reverse else xs).astype(np.float64):
                expected_ys.append(c * x)
                sizes.append(size * abs(x))
                c, size = c * 0.5 + x, size * 0.5 + abs(x)
            order = slice(None, None, -1 if reverse else 1)
            # a float32 rounding per step, measured at the size of the terms that cancel
            # [worst seen 0.5]
            assert_allclose_ulp(np.asarray(carry), np.float32(c), ELEMENTWISE, scale=size)
            assert_allclose_ulp(np.asarray(ys), np.float32(expected_ys[order]), ELEMENTWISE,
                                scale=np.asarray(sizes[order]))
    ys = lax.map(lambda v: lax.mul(v, v), arr(xs))
    np.testing.assert_array_equal(np.asarray(ys), xs * xs)      # one IEEE rounding: exact
    carry, none = lax.scan(lambda c, _: (lax.add(c, 1), None), 0, None, length=4)
    assert int(carry) == 4 and none is None


# ------------------------------------------------------------------ printing
def test_weak_carry_takes_the_body_dtype():
    # a Python-scalar init is converted to what the body returns (JAX retraces the same way);
    # a strongly typed init with another dtype stays an error (in test_errors)
    f32 = np.float32
    assert_same = lambda got, want: (np.testing.assert_array_equal(got, want),
                                     assert_dtype(got, f32, weak=False))
    assert_same(lax.while_loop(lambda c: c < 10, lambda c: c + f32(1.5), 0), 10.5)
    assert_same(lax.fori_loop(0, 3, lambda i, c: c * f32(2), 1), 8.0)
    carry, ys = lax.scan(lambda c, x: (c * x, c), 1, np.full(3, 2, f32))
    assert_same(carry, 8.0)
    np.testing.assert_array_equal(ys, [1, 2, 4])
    closed = jax.make_jaxpr(lambda y: lax.while_loop(lambda c: c < 10, lambda c: c + y, 0))(f32(1))
    assert "] a 0.0:f32[]" in str(closed)


def assert_dtype(x, dtype, weak):
    assert x.dtype == dtype and bool(x.weak_type) == weak, (x.dtype, x.weak_type)


def test_golden_jaxprs():
    text = str(jax.make_jaxpr(lambda p, x: lax.cond(p, lax.sin, lambda v: lax.add(v, 1.0), x))(True, 1.0))
    assert text == (
        "{ lambda ; a:bool[] b:f32[]. let\n"
        "    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
        "    d:f32[] = cond[\n"
        "      branches=(\n"
        "        { lambda ; e:f32[]. let f:f32[] = add e 1.0:f32[] in (f,) }\n"
        "        { lambda ; g:f32[]. let h:f32[] = sin g in (h,) }\n"
        "      )\n"
        "    ] c b\n"
        "  in (d,) }")
    text = str(jax.make_jaxpr(lambda x: lax.fori_loop(0, 4, lambda i, c: lax.add(c, lax.cos(c)), x))(1.0))
    assert text == (
        "{ lambda ; a:f32[]. let\n"
        "    _:i32[] b:f32[] = scan[\n"
        "      jaxpr={ lambda ; c:i32[] d:f32[]. let\n"
        "          e:i32[] = add c 1:i32[]\n"
        "          f:f32[] = cos d\n"
        "          g:f32[] = add d f\n"
        "        in (e, g) }\n"
        "      length=4\n"
        "      num_carry=2\n"
        "      num_consts=0\n"
        "      reverse=False\n"
        "      unroll=1\n"
        "    ] 0:i32[] a\n"
        "  in (b,) }")
    text = str(jax.make_jaxpr(lambda xs: lax.map(lax.sin, xs))(arr(np.ones(3))))
    assert text == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = scan[\n"
        "      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }\n"
        "      length=3\n"
        "      num_carry=0\n"
        "      num_consts=0\n"
        "      reverse=False\n"
        "      unroll=1\n"
        "    ] a\n"
        "  in (b,) }")
    text = str(jax.make_jaxpr(lambda: lax.while_loop(
        lambda c: lax.lt(c[0], 3), lambda c: (lax.add(c[0], 1), lax.mul(c[1], 2.0)), (0, 1.0)))())
    assert text == (
        "{ lambda ; . let\n"
        "    a:i32[] b:f32[] = while[\n"
        "      body_jaxpr={ lambda ; c:i32[] d:f32[]. let\n"
        "          e:i32[] = add c 1:i32[]\n"
        "          f:f32[] = mul d 2.0:f32[]\n"
        "        in (e, f) }\n"
        "      body_nconsts=0\n"
        "      cond_jaxpr={ lambda ; g:i32[] h:f32[]. let\n"
        "          i:bool[] = lt g 3:i32[]\n"
        "        in (i,) }\n"
        "      cond_nconsts=0\n"
        "    ] 0:i32[] 1.0:f32[]\n"
        "  in (a, b) }")


# ------------------------------------------------------------------ gradients
def test_grads_through_cond_and_switch():
    x = arr([0.3, 0.8])
    # check_grads's checks, each's evaluations in one program (grads_together): 31 -> 7
    # compiles, 2.6 -> 0.6 s CPU
    sin_x = lambda a: lax.mul(lax.sin(a), a)
    check_grads_together(lambda v: lax.cond(True, sin_x, lax.cos, v), (x,), order=2)
    check_grads_together(lambda v: lax.cond(False, sin_x, lax.cos, v), (x,), order=2)
    check_grads_together(lambda v: lax.switch(2, [lax.sin, lax.cos, lax.tanh], v), (x,), order=2)
    # the predicate depends on the input (a piecewise function), under jit too
    f = lambda v: lax.cond(lax.gt(v, 0.5), lambda a: lax.mul(a, a), lambda a: lax.neg(a), v)
    assert float(jax.grad(f)(0.8)) == pytest.approx(1.6)
    assert float(jax.jit(jax.grad(f))(0.2)) == -1.0


def test_grads_through_scan_and_fori():
    xs = arr(rng.standard_normal(5) * 0.5)

    def rnn(w, xs, reverse=False, unroll=1):
        step = lambda h, x: (lax.tanh(lax.add(lax.mul(w, h), x)), lax.mul(h, x))
        return lax.scan(step, 0.1, xs, reverse=reverse, unroll=unroll)
    # second order in both directions; unrolling (a lowering choice the rules pass through,
    # and the costliest to compile) and fori_loop (a scan with static bounds) at first order;
    # each check's evaluations in one program (grads_together): 49 -> 9 compiles, 3.3 -> 2.2 s
    check_grads_together(lambda w, xs: rnn(w, xs), (0.5, xs), order=2)
    check_grads_together(lambda w, xs: rnn(w, xs, reverse=True), (0.5, xs), order=2)
    check_grads_together(lambda w, xs: rnn(w, xs, reverse=True, unroll=2), (0.5, xs), order=1)
    check_grads_together(lambda w, xs: rnn(w, xs, unroll=3), (0.5, xs), order=1)
    check_grads_together(lambda a: lax.fori_loop(0, 3, lambda i, c: lax.mul(c, lax.sin(a)), a),
                         (0.7,), order=1)
    g = jax.jit(jax.grad(lambda w: rnn(w, xs)[0]))(0.5)
    # (jit fuses the scans' tanh chain differently from eager) [worst seen 0]
    assert_allclose_ulp(np.asarray(g), np.asarray(jax.grad(lambda w: rnn(w, xs)[0])(0.5)),
                        ELEMENTWISE)
    closed = jax.make_jaxpr(jax.grad(lambda w: rnn(w, xs)[0]))(0.5)
    check_jaxpr(closed)
    assert "reverse=True" in str(closed)       # the backward pass is a reversed scan


def test_while_loop_forward_mode_and_reverse_error():
    f = lambda a: lax.while_loop(lambda c: lax.lt(c[0], 3),
                                 lambda c: (lax.add(c[0], 1), lax.mul(c[1], a)), (0, 1.0))[1]
    primal, tangent = jax.jvp(f, (2.0,), (1.0,))
    assert float(primal) == 8.0 and float(tangent) == 12.0
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                                         "lax.while_loop or lax.fori_loop with dynamic start/stop"):
        jax.grad(f)(2.0)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.jit(jax.grad(lambda a, n: lax.fori_loop(0, n, lambda i, c: lax.mul(c, a), 1.0)))(2.0, 3)


# ------------------------------------------------------------------ vmap
def test_vmap_batched_predicate_and_carries():
    xs = arr([0.2, 0.9, 1.5])
    f = lambda v: lax.cond(lax.gt(v, 1.0), lambda a: lax.mul(a, 2.0), lax.sin, v)
    x64 = np.asarray(xs, np.float64)        # float64 references, rounded once [worst seen 0]
    assert_allclose_ulp(np.asarray(jax.vmap(f)(xs)),
                        np.float32([np.sin(x64[0]), np.sin(x64[1]), 3.0]), ELEMENTWISE)
    assert_allclose_ulp(np.asarray(jax.vmap(jax.grad(f))(xs)),
                        np.float32([np.cos(x64[0]), np.cos(x64[1]), 2.0]), ELEMENTWISE)
    idx = arr([0, 2, 1], np.int32)
    out = jax.vmap(lambda i, v: lax.switch(i, [lax.sin, lax.cos, lax.neg], v))(idx, xs)
    assert_allclose_ulp(np.asarray(out), np.float32([np.sin(x64[0]), -x64[1], np.cos(x64[2])]),
                        ELEMENTWISE)
    ns = arr([1, 3, 5], np.int32)
    doubled = jax.vmap(lambda n: lax.while_loop(
        lambda c: lax.lt(c[0], n), lambda c: (lax.add(c[0], 1), lax.mul(c[1], 2.0)), (0, 1.0))[1])(ns)
    np.testing.assert_allclose(np.asarray(doubled), [2.0, 8.0, 32.0])
    inits = arr([1.0, 2.0, 3.0])
    carry, ys = jax.vmap(lambda c0: lax.scan(lambda c, x: (lax.mul(c, x), c), c0, arr([2.0, 3.0])))(inits)
    np.testing.assert_allclose(np.asarray(carry), [6.0, 12.0, 18.0])
    np.testing.assert_allclose(np.asarray(ys), [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    batched_xs = arr(rng.standard_normal((4, 3)))
    _, ys = jax.vmap(lambda xs: lax.scan(lambda c, x: (lax.add(c, x), c), 0.0, xs), in_axes=1)(batched_xs)
    b64 = np.asarray(batched_xs, np.float64)   # exclusive cumsum, float64 rounded once
    # sequential float32 sums that cancel, measured at the sums of |terms| [worst seen 1]
    assert_allclose_ulp(np.asarray(ys), (np.cumsum(b64, 0) - b64).T.astype(np.float32), REDUCTION,
                        scale=(np.cumsum(np.abs(b64), 0) - np.abs(b64)).T)


def test_nested_control_flow_under_transformations():
    def f(x):
        def body(c):
            i, acc = c
            inner = lax.cond(lax.gt(acc, 1.0),
                             lambda a: lax.scan(lambda s, _: (lax.mul(s, 0.5), None), a, None, length=2)[0],
                             lambda a: lax.add(a, x), acc)
            return lax.add(i, 1), inner
        return lax.while_loop(lambda c: lax.lt(c[0], 4), body, (0, x))[1]

    def reference(x):
        acc = x
        for _ in range(4):
            acc = acc * 0.25 if acc > 1.0 else acc + x
        return acc
    # the float64 reference from float32's 0.3 and 0.7, rounded once; each float32 step rounds
    # [worst seen 0]
    want = {v: np.float32(reference(float(np.float32(v)))) for v in (0.3, 0.7)}
    for v in (0.3, 0.7):
        assert_allclose_ulp(np.asarray(f(v)), want[v], ELEMENTWISE)
        assert_allclose_ulp(np.asarray(jax.jit(f)(v)), want[v], ELEMENTWISE)
    assert_allclose_ulp(np.asarray(jax.vmap(f)(arr([0.3, 0.7]))), np.stack([want[0.3], want[0.7]]),
                        ELEMENTWISE)
    _, t = jax.jvp(f, (0.3,), (1.0,))
    eps = 1e-3        # a central difference: its own truncation and float32 rounding, not ulps
    assert float(t) == pytest.approx((reference(0.3 + eps) - reference(0.3 - eps)) / (2 * eps), rel=1e-2)

    def g(w):        # scan inside cond, differentiated in reverse mode
        return lax.cond(True, lambda v: lax.scan(lambda c, x: (lax.mul(c, v), x), 1.0, None, length=3)[0],
                        lambda v: v, w)
    # products and sums of multiples of 1/8: exact on every CPU
    assert float(jax.grad(g)(1.5)) == 3 * 1.5 ** 2
    assert float(jax.jit(jax.grad(g))(1.5)) == 3 * 1.5 ** 2


# ------------------------------------------------------------------ errors
def test_errors():
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        lax.cond(arr([True, False], np.bool_), lax.sin, lax.cos, 1.0)
    with pytest.raises(TypeError, match=r"(?s)cond branches must have equal output types.*"
                                        r"The output of true_fun at path \['a'\] has type float32\[\] "
                                        r"but the corresponding output of false_fun has type "
                                        r"float32\[2\], so the shapes do not match"):
        lax.cond(True, lambda v: {"a": v}, lambda v: {"a": arr([1.0, 2.0])}, 1.0)
    with pytest.raises(TypeError, match="cond branch outputs must have the same pytree structure"):
        lax.cond(True, lambda v: v, lambda v: (v, v), 1.0)
    with pytest.raises(TypeError, match="cond_fun must return a boolean scalar"):
        lax.while_loop(lambda c: c, lambda c: c, 1.0)
    with pytest.raises(TypeError, match=r"(?s)carry input and carry output must have equal types.*"
                                        r"The input carry c has type float32\[\] but the "
                                        r"corresponding output carry component has type int32\[\], "
                                        r"so the dtypes do not match"):
        lax.scan(lambda c, x: (lax.convert_element_type(c, np.int32), x), arr(0.0), arr([1.0, 2.0]))
    with pytest.raises(ValueError, match="scan got values with different leading axis sizes: 3, 4"):
        lax.scan(lambda c, x: (c, x), 0.0, (arr(np.ones(3)), arr(np.ones(4))))
    with pytest.raises(TypeError, match="Index type must be an integer"):
        lax.switch(1.0, [lax.sin, lax.cos], 1.0)
    # JAX reads x.shape[0] leaf by leaf: a Python number (no .shape) is a ValueError naming the
    # numbers, with its period; a 0-d array first is JAX's IndexError
    with pytest.raises(ValueError, match=r"^scan got value with no leading axis to scan over: "
                                         r"2\.0, 5\.$"):
        lax.scan(lambda c, x: (c, x), 0.0, [2.0, arr(np.ones(3)), 5])
    with pytest.raises(IndexError, match=r"array of shape \(\) in xs"):
        lax.scan(lambda c, x: (c, x), 0.0, [arr(1.0), 2.0])


def test_pytrees_whose_unflatten_checks_its_children():
    # JAX never unflattens a carry or branch output with placeholder leaves (it checks types
    # on the leaves): a node whose unflatten refuses non-arrays works as the carry
    class Checked:
        def __init__(self, a, b):
            if not hasattr(a, "shape"):
                raise TypeError(f"Checked needs arrays, got {type(a).__name__}")
            self.a, self.b = a, b
    jax.tree_util.register_pytree_node(Checked, lambda c: ((c.a, c.b), None),
                                       lambda _, children: Checked(*children))
    c = Checked(arr([1.0, 2.0]), arr(3.0))
    out = lax.cond(True, lambda c: c, lambda c: Checked(c.b * c.a, c.b), c)
    assert isinstance(out, Checked) and np.asarray(out.a).tolist() == [1.0, 2.0]
    out = lax.fori_loop(0, 2, lambda i, c: Checked(c.a * 2.0, c.b), c)
    assert np.asarray(out.a).tolist() == [4.0, 8.0]
    out, _ = lax.scan(lambda c, x: (Checked(c.a + x, c.b), None), c, arr([1.0, 1.0]))
    assert np.asarray(out.a).tolist() == [3.0, 4.0]
    with pytest.raises(TypeError, match="has type float32\\[\\] but the corresponding output "
                                        "carry component has type int32\\[\\]"):
        lax.while_loop(lambda c: False, lambda c: Checked(c.a, c.b.astype(np.int32)), c)


def test_cond_and_switch_take_one_operand_by_keyword():
    # JAX's older convention, still accepted (Optax's apply_if_finite passes operand=None)
    assert float(lax.cond(True, lambda _: 1.0, lambda _: 2.0, operand=None)) == 1.0
    assert float(lax.switch(1, [lambda x: x, lambda x: 2 * x], operand=np.float32(3))) == 6.0
    with pytest.raises(TypeError, match="no positional operands can be passed"):
        lax.cond(True, lambda x: x, lambda x: x, 1.0, operand=2.0)


# ---------------------------------------------------------------- loops with zero trips
def _kinds(tree):
    return [(type(leaf).__name__, str(leaf.dtype), leaf.weak_type)
            for leaf in jax.tree_util.tree_leaves(tree)]


def test_zero_trip_loops_return_arrays_of_the_carry_type():
    body = lambda i, c: c + 1                                          # noqa: E731
    assert _kinds(lax.fori_loop(0, 0, body, 0)) == [("ArrayImpl", "int32", True)]
    assert _kinds(lax.fori_loop(3, 1, body, 1.0)) == [("ArrayImpl", "float32", True)]
    assert _kinds(lax.fori_loop(0, 0, body, np.float32(2))) == [("ArrayImpl", "float32", False)]
    assert _kinds(lax.fori_loop(0, 0, body, 0, unroll=True)) == [("ArrayImpl", "int32", True)]
    assert _kinds(jax.jit(lambda n: lax.fori_loop(0, n, body, 0))(0)) == [("ArrayImpl", "int32", True)]
    assert _kinds(lax.while_loop(lambda c: c < 0, lambda c: c + 1, 0)) == [("ArrayImpl", "int32", True)]
    carry, ys = lax.scan(lambda c, _: (c + 1, c), 0, None, length=0)
    assert _kinds((carry, ys)) == [("ArrayImpl", "int32", True), ("ArrayImpl", "int32", True)]
    assert ys.shape == (0,) and int(carry) == 0 and int(lax.fori_loop(0, 0, body, 5)) == 5
    # a carry the body hands back unchanged is the value passed in (JAX forwards it)
    for trips in (0, 3):
        count, kept = lax.fori_loop(0, trips, lambda i, c: (c[0] + 1, c[1]), (0, 2.5))
        assert type(kept) is float and kept == 2.5 and int(count) == trips
    i, kept = lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1]), (0, 2.5))
    assert type(kept) is float and int(i) == 2
    # a y made from a weakly typed carry stays weak, and a carry that only turns strong is
    # not traced again (JAX retraces for a new dtype, not for a weak type)
    seen = []
    carry, ys = lax.scan(lambda c, x: (seen.append(1) or c + x, c), 0, jnp.arange(3))
    assert (carry.weak_type, ys.weak_type, len(seen)) == (False, True, 1)
    # the index of Python-int bounds is weakly typed: c + i keeps the carry's uint8
    for upper in (3, jnp.int32(3)):
        total = lax.fori_loop(0, upper, lambda i, c: c + i, jnp.uint8(0))
        assert (total.dtype, int(total)) == (np.uint8, 3)


# JAX 0.10.2's messages for the same programs (printed by JAX; its _check_carry_type): the
# carry named by the body's first parameter and the leaf's path, every differing leaf listed
TYPES_DIFFER = ("{loop} body function carry input and carry output must have equal types, but "
                "they differ:\n\n{diffs}\nRevise the function so that all output types match "
                "the corresponding input types.")
TREES_DIFFER = ("{loop} body function carry input and carry output must have the same pytree "
                "structure, but they differ:\n\n{diffs}\nRevise the function so that the carry "
                "output has the same pytree structure as the carry input.")


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


def test_loop_carry_errors_are_jaxs():
    def body(state):
        return {"i": state["i"] + 1, "x": state["x"][:1]}
    assert _message(lambda: lax.while_loop(lambda s: s["i"] < 3, body,
                                           {"i": 0, "x": jnp.ones(2)})) == \
        TYPES_DIFFER.format(loop="while_loop", diffs=(
            "The input carry component state['x'] has type float32[2] but the corresponding "
            "output carry component has type float32[1], so the shapes do not match.\n"))
    assert _message(lambda: lax.while_loop(
        lambda s: s[0] < 3, lambda s: (s[0].astype(jnp.float32), s[1][:1]),
        (jnp.int32(0), jnp.ones(2)))) == TYPES_DIFFER.format(loop="while_loop", diffs=(
            "  * the input carry component s[0] has type int32[] but the corresponding output "
            "carry component has type float32[], so the dtypes do not match;\n"
            "  * the input carry component s[1] has type float32[2] but the corresponding output "
            "carry component has type float32[1], so the shapes do not match.\n"))
    assert _message(lambda: lax.scan(lambda carry, x: (jnp.concatenate([carry, x[None]]), x),
                                     jnp.zeros(2), jnp.arange(3.0))) == \
        TYPES_DIFFER.format(loop="scan", diffs=(
            "The input carry carry has type float32[2] but the corresponding output carry "
            "component has type float32[3], so the shapes do not match.\n"))
    # a fori_loop's carry is its wrapper's `loop_carry` (index, [upper,] value), as in JAX
    assert _message(lambda: jax.jit(lambda n: lax.fori_loop(
        0, n, lambda i, c: (c + 1).astype(jnp.float32), jnp.int32(0)))(3)) == \
        TYPES_DIFFER.format(loop="while_loop", diffs=(
            "The input carry component loop_carry[2] has type int32[] but the corresponding "
            "output carry component has type float32[], so the dtypes do not match.\n"))
    assert _message(lambda: lax.scan(lambda c, x: ([c[0], c[1]], x), (jnp.zeros(2), 1.0),
                                     jnp.arange(3.0))) == \
        TREES_DIFFER.format(loop="scan", diffs=(
            "The input carry c is a <class 'tuple'> but the corresponding component of the carry "
            "output is a <class 'list'>, so their Python types differ.\n"))
    assert _message(lambda: lax.scan(lambda c, x: ({"a": c["a"], "c": c["a"]}, x),
                                     {"a": 1.0, "b": 2.0}, jnp.arange(3.0))) == \
        TREES_DIFFER.format(loop="scan", diffs=(
            "The input carry c is a <class 'dict'> with pytree metadata ('a', 'b') but the "
            "corresponding component of the carry output is a <class 'dict'> with pytree "
            "metadata ('a', 'c'), so the pytree node metadata does not match.\n"))
    # (JAX names its own aval class here, `jax._src.core.ShapedArray`; jxkernel its own)
    assert _message(lambda: lax.scan(lambda c, x: ((c, c), x), jnp.zeros(2), jnp.arange(3.0))
                    ).startswith(TREES_DIFFER.split("{diffs}")[0].format(loop="scan") +
                                 "The input carry c is a <class ")


def test_branch_structure_errors_are_jaxs():
    # JAX 0.10.2's texts for the same programs (its _check_branch_outputs: one sentence per
    # node that differs, switch's second branch named "branch1", as JAX names it)
    text = _message(lambda: lax.cond(True, lambda v: v, lambda v: (v, v), 1.0))
    assert text.split("\n\n", 2)[2] == (
        "true_fun output is a pytree leaf but false_fun output is a <class 'tuple'>, so their "
        "Python types differ.\n\nRevise true_fun and/or false_fun so that they have the same "
        "pytree structure.")
    text = _message(lambda: lax.switch(1, [lambda v: v, lambda v: (v, v)], 1.0))
    assert text.startswith("switch branch outputs must have the same pytree structure, but "
                           "they differ:\n\nbranch 0 is <lambda> at ")
    assert text.split("\n\n", 2)[2] == (
        "branch 0 output is a pytree leaf but branch1 output is a <class 'tuple'>, so their "
        "Python types differ.\n\nRevise branch 0 and/or branch1 so that they have the same "
        "pytree structure.")
    text = _message(lambda: lax.cond(True, lambda v: {"a": v, "b": (v,)},
                                     lambda v: {"a": (v, v), "c": v}, 1.0))
    assert "true_fun output is a <class 'dict'> with pytree metadata ('a', 'b') but false_fun " \
           "output is a <class 'dict'> with pytree metadata ('a', 'c'), so the pytree node " \
           "metadata does not match.\n" in text


def test_cond_module_docstring_examples_run():
    """cond.py's examples (its module docstring's used an undefined `x`)."""
    check_docstring_examples("jxkernel.lax.cond")
