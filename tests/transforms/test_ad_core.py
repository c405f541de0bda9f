"""Autodiff machinery: jvp/vjp/grad and their compositions with jit and vmap, higher orders
against closed forms, perturbation confusion, custom rules, remat, and JAX's errors.
(Per-primitive rules are checked with check_grads in each family's tests.)"""
import functools
import re

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core import check_jaxpr
from jxkernel.test_util import check_grads
from doc_examples import check_docstring_examples
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp

rng = np.random.default_rng(0)


def arr(x, dtype=np.float32):
    return jax.device_put(np.asarray(x, dtype))


UNARY = [lax.sin, lax.cos, lax.tan, lax.tanh, lax.exp, lax.exp2, lax.log, lax.log1p, lax.expm1,
         lax.logistic, lax.sqrt, lax.rsqrt, lax.cbrt, lax.asin, lax.acos, lax.atan, lax.sinh,
         lax.cosh, lax.asinh, lax.atanh, lax.erf, lax.erfc, lax.erf_inv, lax.lgamma, lax.digamma,
         lax.abs, lax.neg, lax.square, lax.reciprocal, lambda x: lax.integer_pow(x, 3),
         lambda x: lax.integer_pow(x, -2),
         # (float32 to float32: what float64 was narrowed to without x64, with a warning)
         lambda x: lax.convert_element_type(x, np.float32)]
BINARY = [lax.add, lax.sub, lax.mul, lax.div, lax.pow, lax.atan2, lax.max, lax.min, lax.rem]


@pytest.mark.parametrize("fun", UNARY, ids=lambda f: getattr(f, "__name__", "lambda"))
def test_unary_grads_order_2(fun):
    x = arr([0.3, 0.55, 0.8])                  # inside every domain above
    check_grads(fun, (x,), order=2)


@pytest.mark.parametrize("fun", BINARY, ids=lambda f: f.__name__)
def test_binary_grads_order_2_with_broadcasting(fun):
    x = arr([[0.4, 0.7, 1.3], [1.1, 0.6, 0.9]])
    check_grads(fun, (x, arr(0.37)), order=2)          # a rank-0 operand broadcasts
    check_grads(fun, (x, arr([[0.35, 0.8, 0.5]])), order=1)   # a size-1 dim broadcasts


def test_reverse_mode_of_a_forward_only_operation_says_linearization_failed():
    # the generic reduce_window has a jvp but no transpose-friendly linearization
    f = lambda x: lax.reduce_window(x, 1.0, lax.mul, (2,), (1,), "VALID").sum()
    np.testing.assert_allclose(jax.jvp(f, (arr([1., 2., 3.]),), (arr([1., 0., 0.]),))[1], 2.0)
    with pytest.raises(ValueError, match="Linearization failed to produce known values"):
        jax.grad(f)(arr([1., 2., 3.]))


def test_real_and_imag_transpose_to_complex_with_a_scalar_zero():
    z = np.complex64([1 + 2j, 3 - 1j])
    real_ct = jax.make_jaxpr(lambda c: jax.vjp(lax.real, z)[1](c))(np.float32([1, 2]))
    assert str(real_ct) == ("{ lambda a:c64[2]; b:f32[2]. let\n    _:f32[2] = real a\n"
                            "    c:c64[2] = complex b 0.0:f32[]\n  in (c,) }")      # JAX's text
    imag_ct = jax.make_jaxpr(lambda c: jax.vjp(lax.imag, z)[1](c))(np.float32([1, 2]))
    assert "d:c64[2] = complex 0.0:f32[] c" in str(imag_ct)
    np.testing.assert_array_equal(jax.vjp(lax.imag, z)[1](np.float32([1, 2]))[0], [-1j, -2j])


def test_a_gradients_weak_type_comes_out_of_its_rules():
    # as JAX 0.10.2 (checked there): no cast to the primal's weak type at the end; rules'
    # constants are weak where JAX's `_const` is, and strong where JAX writes np.zeros
    jnp = jax.numpy
    weak = lambda f, *args: jax.grad(f)(*args).weak_type
    z = 3.0 + 4j                       # |z|^2: real/imag transpose with a strong zero
    g = jax.grad(lambda z: jnp.real(z) ** 2 + jnp.imag(z) ** 2)(z)
    assert (g.dtype, g.weak_type, complex(g)) == (np.complex64, False, 6 - 8j)
    assert not weak(lambda x: x ** 2.5, 0.5)              # pow's jvp converts to strong
    assert weak(jnp.sin, 0.5) and not weak(jnp.sin, np.float32(0.5))
    assert weak(lambda x: jnp.logaddexp(x, 1.0), 0.5)     # custom_jvp: zero tangents weak
    assert weak(lambda x: lax.fori_loop(0, 2, lambda i, c: c * 2.0, x), 0.5)   # scan's transpose
    assert weak(lambda x: jnp.max(jnp.stack([x, 1.0])), 0.5)    # instantiated zeros weak
    assert jax.jacrev(lambda x: x ** 2)(1.0).weak_type     # jacobians cast like their example
    assert jax.jacfwd(lambda x: x ** 2)(1.0).weak_type

    @jax.custom_vjp
    def two(x):
        return x * 2.0, x * 3.0
    two.defvjp(lambda x: (two(x), None), lambda _, g: (g[0] + g[1],))
    assert weak(lambda x: two(x)[0], 0.5)     # bwd's zero cotangent of an unused output: weak


def test_atan2_of_complex_operands_is_holomorphic():
    x = np.complex128([1 + 2j, -0.5 + 0.1j])
    check_grads(lax.atan2, (x, np.complex128([0.3 - 1j, 2])), order=2)


def test_acosh_and_select_and_clamp():
    check_grads(lax.acosh, (arr([1.5, 2.0]),), order=2)
    check_grads(lambda x: lax.select_n(lax.gt(x, 0.5), lax.sin(x), lax.cos(x)),
                (arr([0.2, 0.9]),), order=2)
    check_grads(lambda x: lax.clamp(0.3, x, 0.8), (arr([0.1, 0.5, 0.95]),), order=1)


# XLA's float32 tanh is a rational approximation, up to 3 ulps from the correctly rounded value
TANH_ULPS = 8


def test_higher_order_closed_forms():
    x = 0.7
    d = [jax.grad(lax.tanh)]
    for _ in range(2):
        d.append(jax.grad(d[-1]))
    t = np.tanh(x)                             # float64 closed forms, rounded once to float32
    f32 = lambda v: np.asarray(v, np.float64).astype(np.float32)
    # tanh's float32 approximation (up to 3 ulps) carried through 1 - t**2 and its derivatives
    # [worst seen 1 ulp, on all four CPU configurations; sin/exp chains 0]
    assert_allclose_ulp(np.asarray(d[0](x)), f32(1 - t ** 2), TANH_ULPS)
    assert_allclose_ulp(np.asarray(d[1](x)), f32(-2 * t * (1 - t ** 2)), TANH_ULPS)
    # 1 - 3t**2 cancels (0.095 at x = 0.7): measured at the size of its terms, 2(1 - t**2)
    assert_allclose_ulp(np.asarray(d[2](x)), f32(-2 * (1 - t ** 2) * (1 - 3 * t ** 2)), TANH_ULPS,
                        scale=2 * (1 - t ** 2))
    sin4 = jax.grad(jax.grad(jax.grad(jax.grad(lax.sin))))
    assert_allclose_ulp(np.asarray(sin4(x)), f32(np.sin(x)), ELEMENTWISE)
    exp3 = jax.grad(jax.grad(jax.grad(lax.exp)))
    assert_allclose_ulp(np.asarray(exp3(x)), f32(np.exp(x)), ELEMENTWISE)


def test_perturbation_confusion():
    assert float(jax.grad(lambda x: jax.grad(lambda y: lax.mul(x, y))(1.0))(1.0)) == 1.0
    # d/dx [x * d/dy (x + y)] = 1
    assert float(jax.grad(lambda x: lax.mul(x, jax.grad(lambda y: lax.add(x, y))(1.0)))(2.0)) == 1.0


def test_compositions_agree():
    def f(x):
        return lax.mul(lax.sin(x), lax.exp(x))
    x = 0.4
    ref = np.float32(np.cos(x) * np.exp(x) + np.sin(x) * np.exp(x))   # float64, rounded once
    for g in [jax.grad(f), jax.jit(jax.grad(f)), jax.grad(jax.jit(f)), jax.jit(jax.grad(jax.jit(f)))]:
        assert_allclose_ulp(np.asarray(g(x)), ref, ELEMENTWISE)
    xs = rng.standard_normal(5).astype(np.float32)
    per_example = jax.vmap(jax.grad(f))(arr(xs))
    x64 = xs.astype(np.float64)
    # cos + sin cancels near x = -pi/4: measured at the size of its terms [worst seen 1]
    assert_allclose_ulp(np.asarray(per_example),
                        ((np.cos(x64) + np.sin(x64)) * np.exp(x64)).astype(np.float32),
                        ELEMENTWISE, scale=np.exp(x64))
    # (jit fuses the same ops differently from eager vmap) [worst seen 1]
    assert_allclose_ulp(np.asarray(jax.jit(jax.vmap(jax.grad(f)))(arr(xs))),
                        np.asarray(per_example), ELEMENTWISE)


def test_jvp_vjp_consistency_dot_product():
    def f(x, y):
        return {"a": lax.mul(lax.sin(x), y), "b": lax.tanh(lax.sub(x, y))}
    x, y = arr(rng.standard_normal(4)), arr(rng.standard_normal(4))
    tx, ty = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    out, tangent = jax.jvp(f, (x, y), (arr(tx), arr(ty)))
    ct = {"a": rng.standard_normal(4).astype(np.float32), "b": rng.standard_normal(4).astype(np.float32)}
    _, f_vjp = jax.vjp(f, x, y)
    cx, cy = f_vjp({"a": arr(ct["a"]), "b": arr(ct["b"])})
    lhs = np.dot(np.asarray(cx), tx) + np.dot(np.asarray(cy), ty)
    rhs = np.dot(ct["a"], np.asarray(tangent["a"])) + np.dot(ct["b"], np.asarray(tangent["b"]))
    # <ct, J t> two ways: 8-term float32 sums that cancel, measured at the sum of |terms|
    # [worst seen 1]
    terms = np.abs(np.asarray(cx) * tx).sum() + np.abs(np.asarray(cy) * ty).sum()
    assert_allclose_ulp(lhs, rhs, REDUCTION, scale=terms)


def test_linearize_matches_jvp():
    y, f_jvp = jax.linearize(lambda x: lax.mul(lax.sin(x), x), 0.8)
    _, t = jax.jvp(lambda x: lax.mul(lax.sin(x), x), (0.8,), (1.0,))
    # (the linearized program and jvp compute the same ops, compiled separately)
    assert_allclose_ulp(np.asarray(f_jvp(1.0)), np.asarray(t), ELEMENTWISE)
    assert_allclose_ulp(np.asarray(f_jvp(2.0)), 2 * np.asarray(t), ELEMENTWISE)


def test_linearized_function_is_a_pytree_of_its_residuals():
    # as JAX's (a Partial): jit can return it (Equinox's checkpointed while_loop tests do)
    y, f_jvp = jax.jit(lambda x: jax.linearize(lambda v: lax.mul(v, v), x))(3.0)
    assert [float(r) for r in jax.tree_util.tree_leaves(f_jvp)] == [3.0]
    assert float(y) == 9.0 and float(f_jvp(1.0)) == 6.0
    with pytest.raises(TypeError, match="linearized function called on tangents of structure"):
        f_jvp(1.0, 2.0)


def test_value_and_grad_has_aux_argnums():
    def loss(w, b, x):
        pred = lax.add(lax.mul(w, x), b)
        return lax.mul(pred, pred), {"pred": pred}
    (value, aux), (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1), has_aux=True)(2.0, 1.0, 3.0)
    assert float(value) == 49.0 and float(aux["pred"]) == 7.0
    assert float(gw) == 42.0 and float(gb) == 14.0


def test_grad_of_python_control_flow_on_concrete_values():
    def relu_ish(x):
        return x if x > 0 else lax.neg(x)     # concrete under grad (no jit): allowed, as in JAX
    assert float(jax.grad(relu_ish)(2.0)) == 1.0
    assert float(jax.grad(relu_ish)(-2.0)) == -1.0


def test_grad_errors():
    # JAX 0.10.2's whole message (a line of ours on jacrev came after it)
    with pytest.raises(TypeError) as raised:
        jax.grad(lambda x: lax.sin(x))(arr([1.0, 2.0, 3.0]))
    assert str(raised.value) == ("Gradient only defined for scalar-output functions. Output had "
                                 "shape: (3,).")
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs.*int32.*allow_int"):
        jax.grad(lambda x: x)(3)
    with pytest.raises(TypeError, match="primal and tangent arguments to jax.jvp must have the same tree"):
        jax.jvp(lax.sin, (1.0,), ((1.0, 2.0),))
    with pytest.raises(TypeError, match="dtypes must be equal"):
        jax.jvp(lax.sin, (arr(1.0),), (arr(1.0, np.float16),))


def test_reverse_mode_output_dtype_errors_are_jaxs():
    # the differential fuzzer's finding: jacrev of a bool or int output failed deep inside
    # (TracerArrayConversionError) where JAX says what is wrong (JAX 0.10.2's text)
    x = arr([1.0, 2.0])
    with pytest.raises(TypeError, match=r"^jacrev requires real-valued outputs \(output dtype "
                       r"that is a sub-dtype of np.floating\), but got bool. For differentiation "
                       r"of functions with integer outputs, use jax.vjp directly.$"):
        jax.jacrev(lambda v: v > 1.5)(x)
    with pytest.raises(TypeError, match="^jacrev requires real-valued outputs.*got int32"):
        jax.hessian(lambda v: jnp.sum(jnp.argsort(v)))(x)
    with pytest.raises(TypeError, match="jacrev requires real-valued outputs.*got complex64. "
                                        "For holomorphic differentiation, pass holomorphic=True"):
        jax.jacrev(lambda v: v * 1j)(x)
    with pytest.raises(TypeError, match="^jacrev with holomorphic=True requires outputs with "
                                        "complex dtype, but got float32.$"):
        jax.jacrev(lambda v: jnp.abs(v), holomorphic=True)(x.astype(np.complex64))
    with pytest.raises(TypeError, match="^grad requires real-valued outputs.*got int32. For "
                                        "differentiation of functions with integer outputs"):
        jax.grad(lambda v: jnp.argmax(v))(x)


def test_grad_with_integer_argument_allowed():
    g = jax.grad(lambda x, n: lax.mul(x, lax.convert_element_type(n, np.float32)), argnums=(0, 1),
                 allow_int=True)(2.0, 3)
    assert float(g[0]) == 3.0 and g[1].dtype == jax.transforms.ad_util.float0


def test_jacobians_and_hessian_of_elementwise():
    x = arr([0.2, 0.5, 0.9])
    f = lambda v: lax.mul(lax.sin(v), v)
    x64 = np.asarray(x, np.float64)          # float64 closed forms, rounded once to float32
    expected = np.diag(np.cos(x64) * x64 + np.sin(x64)).astype(np.float32)
    assert_allclose_ulp(np.asarray(jax.jacfwd(f)(x)), expected, ELEMENTWISE)
    assert_allclose_ulp(np.asarray(jax.jacrev(f)(x)), expected, ELEMENTWISE)
    h = jax.hessian(lambda v: lax.mul(lax.sin(v), v))(0.5)
    assert_allclose_ulp(np.asarray(h), np.float32(2 * np.cos(0.5) - 0.5 * np.sin(0.5)),
                        ELEMENTWISE)
    jac = jax.jacrev(lambda a, b: {"p": lax.mul(a, b)}, argnums=(0, 1))(arr([1.0, 2.0]), arr(3.0))
    np.testing.assert_allclose(np.asarray(jac["p"][0]), 3 * np.eye(2))
    np.testing.assert_allclose(np.asarray(jac["p"][1]), [1.0, 2.0])


def test_jacobians_check_inputs_by_rebuilding_their_pytrees():
    # JAX's jacfwd/jacrev check input dtypes with a tree_map, which unflattens the arguments'
    # pytrees with None leaves: a class validating its children raises there (custom_pytrees)
    class Checked:
        def __init__(self, a):
            self.a = jax.numpy.asarray(a)
    jax.tree_util.register_pytree_node(Checked, lambda t: ((t.a,), None),
                                       lambda _, c: Checked(*c))
    for jac in (jax.jacrev, jax.jacfwd):
        with pytest.raises(ValueError, match="None is not a valid value for jnp.array"):
            jac(lambda t: t)(Checked(arr([1.0, 2.0])))


def test_make_jaxpr_of_grad_is_checked_ir():
    closed = jax.make_jaxpr(jax.grad(jax.jit(lambda x: lax.mul(lax.sin(x), x))))(1.0)
    check_jaxpr(closed)
    assert str(closed).count("jit[") == 2


def test_stop_gradient():
    assert float(jax.grad(lambda x: lax.mul(x, lax.stop_gradient(x)))(3.0)) == 3.0
    assert "stop_gradient" in str(jax.make_jaxpr(lax.stop_gradient)(1.0))


# ------------------------------------------------------------------ custom rules
@jax.custom_jvp
def log1pexp(x):
    return lax.log(lax.add(1.0, lax.exp(x)))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), lax.mul(t, lax.logistic(x))


def test_custom_jvp_numerically_stable():
    naive = jax.grad(lambda x: lax.log(lax.add(1.0, lax.exp(x))))(100.0)
    assert np.isnan(float(naive))                      # exp overflows: inf/inf
    assert float(jax.grad(log1pexp)(100.0)) == 1.0
    assert_allclose_ulp(np.asarray(jax.jit(jax.grad(log1pexp))(3.0)),
                        np.float32(1 / (1 + np.exp(-3.0))), ELEMENTWISE)
    xs = arr([-2.0, 0.0, 2.0])
    assert_allclose_ulp(np.asarray(jax.vmap(jax.grad(log1pexp))(xs)),
                        (1 / (1 + np.exp(-np.asarray(xs, np.float64)))).astype(np.float32),
                        ELEMENTWISE)
    check_grads(log1pexp, (arr([0.3, -0.4]),), order=2, modes=("fwd",))
    text = str(jax.make_jaxpr(log1pexp)(1.0))
    assert "custom_jvp_call[" in text and "jvp=_log1pexp_jvp" in text


def test_custom_jvp_defjvps_and_nondiff_argnums():
    @jax.custom_jvp
    def f(x, y):
        return lax.mul(lax.sin(x), y)
    f.defjvps(lambda t, ans, x, y: lax.mul(lax.mul(lax.cos(x), t), y),
              lambda t, ans, x, y: lax.mul(lax.sin(x), t))
    gx, gy = jax.grad(f, argnums=(0, 1))(0.5, 2.0)
    assert_allclose_ulp(np.stack([np.asarray(gx), np.asarray(gy)]),
                        np.float32([2 * np.cos(0.5), np.sin(0.5)]), ELEMENTWISE)

    @jax.custom_jvp
    def scaled(n, x):
        return lax.mul(x, float(n))
    scaled.nondiff_argnums = (0,)

    @scaled.defjvp
    def _scaled_jvp(n, primals, tangents):
        return scaled(n, primals[0]), lax.mul(tangents[0], 10.0 * n)
    assert float(jax.grad(lambda x: scaled(3, x))(1.0)) == 30.0


def test_custom_rules_fill_in_defaults_and_keep_scalar_residuals():
    @functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
    def power(x, n=3):                    # nondiff_argnums names a defaulted parameter
        return x ** n

    @power.defjvp
    def power_jvp(n, primals, tangents):
        (x,), (t,) = primals, tangents
        return power(x, n), n * x ** (n - 1) * t

    assert float(jax.grad(power)(2.0)) == 12.0
    assert float(jax.grad(lambda x: power(x, n=2))(2.0)) == 4.0

    @jax.custom_vjp
    def scaled(x, scale=2.0):
        return x * scale
    # the residual is the Python float: bwd gets it back as a number, not an IR literal
    scaled.defvjp(lambda x, scale=2.0: (x * scale, scale), lambda s, ct: (ct * s, None))
    assert float(jax.grad(scaled)(3.0)) == 2.0
    assert float(jax.jit(jax.grad(scaled))(3.0, 5.0)) == 5.0


def test_custom_vjp_scalar_array_residuals_reach_bwd_as_arrays():
    # eager vjp: a 0-d Array residual (weak `cos` of a Python float) reaches bwd as an Array
    # of its dtype and weak type, as in JAX, and so does the cotangent bwd makes from it (JAX's
    # custom derivatives notebook prints f_vjp(1.)); host residuals stay host values, as JAX
    # 0.10.2 hands them over (checked against it): a NumPy scalar as a TypedNdArray, a Python
    # float as a TypedFloat (api_file_gaps' custom_vjp_host_residuals records JAX's answer)
    @jax.custom_vjp
    def f(x):
        return lax.sin(x)
    seen = []

    def bwd(res, g):
        seen.extend(res)
        return (lax.mul(res[0], g),)
    f.defvjp(lambda x: (f(x), (jax.numpy.cos(x), np.float32(1.0), 2.0)), bwd)
    _, f_vjp = jax.vjp(f, 3.0)
    (ct,) = f_vjp(1.0)
    assert isinstance(ct, jax.Array) and ct.weak_type and ct.dtype == np.float32
    assert [(type(r).__name__, getattr(r, "weak_type", None)) for r in seen] == [
        ("ArrayImpl", True), ("TypedNdArray", False), ("TypedFloat", None)]


def test_custom_jvp_closure_error():
    def outer(x):
        @jax.custom_jvp
        def g(y):
            return lax.mul(x, y)
        g.defjvp(lambda p, t: (g(p[0]), t[0]))
        return g(2.0)
    # JAX 0.10.2 calls the rule directly on the primals, and the closed-over tracer escapes
    with pytest.raises(jax.errors.UnexpectedTracerError, match="unexpected tracer"):
        jax.grad(outer)(1.0)


@jax.custom_vjp
def clip_gradient(x):
    return x


def _clip_fwd(x):
    return x, None


def _clip_bwd(_, g):
    return (lax.clamp(-1.0, g, 1.0),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_custom_vjp_gradient_clipper():
    loss = lambda x: lax.mul(clip_gradient(x), 5.0)
    assert float(jax.grad(loss)(2.0)) == 1.0
    assert float(jax.jit(jax.grad(loss))(2.0)) == 1.0
    np.testing.assert_allclose(np.asarray(jax.vmap(jax.grad(loss))(arr([1.0, 2.0]))), [1.0, 1.0])
    assert float(clip_gradient(3.0)) == 3.0
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(clip_gradient, (1.0,), (1.0,))


def test_custom_vjp_residual_pytrees_and_bad_bwd():
    @jax.custom_vjp
    def f(x, y):
        return lax.mul(lax.sin(x), y)

    def fwd(x, y):
        return f(x, y), {"cos": lax.cos(x), "sin": lax.sin(x), "y": y}

    def bwd(res, g):
        return lax.mul(lax.mul(res["cos"], res["y"]), g), lax.mul(res["sin"], g)
    f.defvjp(fwd, bwd)
    gx, gy = jax.grad(f, argnums=(0, 1))(0.3, 2.0)
    assert_allclose_ulp(np.stack([np.asarray(gx), np.asarray(gy)]),
                        np.float32([2 * np.cos(0.3), np.sin(0.3)]), ELEMENTWISE)

    @jax.custom_vjp
    def h(x):
        return lax.sin(x)
    h.defvjp(lambda x: (h(x), x), lambda res, g: (g, g))
    with pytest.raises(TypeError, match="tuple of length equal to the number of arguments"):
        jax.grad(h)(1.0)
    h.defvjp(lambda x: (h(x), x), lambda res, g: (arr([1.0, 2.0]),))
    with pytest.raises(ValueError,
                       match=r"at output\[0\] the bwd rule produced an output of type float32\[2\]"):
        jax.grad(h)(1.0)


def test_checkpoint_same_gradients():
    def block(x):
        return lax.sin(lax.mul(lax.sin(x), lax.cos(x)))
    x = 0.8
    expected = np.asarray(jax.grad(block)(x))
    remat_block = jax.checkpoint(block)
    # (recomputing the forward pass eagerly rounds as the plain grad does [worst seen 0]; jit
    # fuses the chain sin(sin x cos x) and its derivative, each of 5 ops a last bit apart [3])
    assert_allclose_ulp(np.asarray(jax.grad(remat_block)(x)), expected, ELEMENTWISE)
    assert_allclose_ulp(np.asarray(jax.jit(jax.grad(remat_block))(x)), expected, 3 * ELEMENTWISE)
    text = str(jax.make_jaxpr(jax.grad(remat_block))(x))
    # one remat2, of the linearized part: its forward part runs outside it, as JAX 0.10.2's
    # remat_partial_eval hoists it
    assert text.count("remat2[") == 1 and "differentiated=True" in text
    assert_allclose_ulp(np.asarray(jax.vmap(jax.grad(remat_block))(arr([0.1, 0.8]))),
                        np.stack([np.asarray(jax.grad(block)(0.1)), expected]), ELEMENTWISE)


def test_jvp_takes_float0_tangents_for_integer_primals_only():
    float0 = np.zeros((), jax.dtypes.float0)
    assert jax.jvp(lambda i: i * 2, (3,), (float0,))[1].dtype == jax.dtypes.float0
    # float0 as JAX 0.10.2's message prints it, NumPy's text of the structured dtype
    # (tests/data/learner_advanced_reference.json, jvp_int_primal_float_tangent)
    float0_text = "[('float0', 'V')]"
    for primal, tangent, expected in [(jnp_int(1), 1.0, float0_text),
                                      (jnp_int(1), jnp_int(1), float0_text),
                                      (1.0, jnp_int(5), "float32")]:
        with pytest.raises(TypeError, match=re.escape(f"expected tangent dtype {expected},")):
            jax.jvp(lambda x: x, (primal,), (tangent,))


def jnp_int(value):
    return jax.numpy.asarray(value, np.int32)


def test_a_scalar_tangent_leaves_an_operation_as_an_array():
    # JAX: a Python-float tangent comes out of x + 1 as an Array (it passes through
    # convert_element_type); unchanged through the identity
    _, t = jax.jvp(lambda x: x + 1, (1.0,), (1.0,))
    assert isinstance(t, jax.Array) and t.dtype == np.float32 and t.weak_type
    _, t = jax.jvp(lambda x: x - 1, (1.0,), (1.0,))
    assert isinstance(t, jax.Array) and float(t) == 1.0
    assert jax.jvp(lambda x: x, (1.0,), (1.0,))[1] == 1.0


def test_linear_transpose_takes_types():
    for primal in (jax.core.ShapedArray((2,), np.float32), jax.ShapeDtypeStruct((2,), np.float32)):
        (ct,) = jax.linear_transpose(lambda x: 3.0 * x, primal)(jax.numpy.ones(2))
        np.testing.assert_array_equal(ct, [3.0, 3.0])


# ---------------------------------------------------------------- vjp's pullback, has_aux
def test_the_vjp_pullback_is_a_pytree_of_its_residuals_and_passes_through_jit():
    x = jnp.arange(1.0, 4.0)
    y, f_vjp = jax.vjp(lambda v: jnp.sin(v) * v, x)
    leaves = jax.tree_util.tree_leaves(f_vjp)
    assert leaves and all(isinstance(leaf, jax.Array) for leaf in leaves)
    through_jit = jax.jit(lambda f, ct: f(ct))(f_vjp, jnp.ones(3))
    direct = f_vjp(jnp.ones(3))
    assert_allclose_ulp(through_jit[0], direct[0], ELEMENTWISE)    # fused vs eager: a few ulps
    rebuilt = jax.tree_util.tree_map(lambda r: r, f_vjp)
    np.testing.assert_array_equal(np.asarray(rebuilt(jnp.ones(3))[0]), np.asarray(direct[0]))
    with pytest.raises(TypeError, match="must be called with a single argument"):
        f_vjp(jnp.ones(3), jnp.ones(3))


def test_has_aux_outputs_come_back_as_values_not_tracers():
    def loss(w):
        pred = jnp.tanh(w * 2.0)
        return jnp.sum(pred ** 2), {"pred": pred}
    w = jnp.array([0.1, -0.3])
    (_, aux), _ = jax.value_and_grad(loss, has_aux=True)(w)
    _, aux_grad = jax.grad(loss, has_aux=True)(w)
    _, aux_jacfwd = jax.jacfwd(lambda x: (jnp.sin(x), x.sum()), has_aux=True)(w)
    _, _, aux_jvp = jax.jvp(lambda x: (x * 2, x), (1.0,), (1.0,), has_aux=True)
    for value in (aux["pred"], aux_grad["pred"], aux_jacfwd):
        assert isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer)
    np.testing.assert_array_equal(np.asarray(aux["pred"]), np.asarray(jnp.tanh(w * 2.0)))
    assert aux_jvp == 1.0 and float(aux_jacfwd) == float(w.sum())


def test_complex_transpose_sums_broadcast_dimensions_back():
    # found by JAX 0.10.2's own tests/lax_autodiff_test.py (testOpGrad of lax.complex on
    # (3, 1) and (1, 4)): each part's cotangent has its input's shape, as JAX's
    x, y = np.ones((3, 1), np.float32), np.full((1, 4), 2.0, np.float32)
    out, pullback = jax.vjp(lax.complex, x, y)
    ct_x, ct_y = pullback(np.full(out.shape, 1 + 2j, np.complex64))
    assert ct_x.shape == (3, 1) and ct_y.shape == (1, 4)
    np.testing.assert_array_equal(np.asarray(ct_x), np.full((3, 1), 4.0, np.float32))  # 4 x 1
    np.testing.assert_array_equal(np.asarray(ct_y), np.full((1, 4), -6.0, np.float32))  # 3 x -2


def test_ad_util_docstring_examples_run():
    """ad_util.py's examples (stop_gradient's called an undefined `grad`)."""
    check_docstring_examples("jxkernel.transforms.ad_util")
