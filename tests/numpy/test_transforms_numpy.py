"""vmap, jit and grad over jnp's elementwise functions, jnp.where/clip, jax.nn and
jax.scipy.special: the laws of tests/data/transform_check.py for every case of the table
below. (Reductions, shapes, products, sorting and indexing: test_transforms_numpy_arrays.py.)"""
import functools
import math

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.nn as nn
import jxkernel.numpy as jnp
import jxkernel.scipy.special as special

from numerics import ELEMENTWISE as ELEMENTWISE_ULPS, assert_allclose_ulp
from transform_check import C, float0, transform_tests

M, V = "2,4", "4"              # the shapes most cases share (so their eager compiles are shared)


def unary(names, kind, **kw):
    return [C(n if kind in "xupg" else f"{n}({kind})", getattr(jnp, n), f"{kind}:{M}", **kw)
            for n in names]


def binary(names, k1, k2, s2=M, **kw):
    return [C(f"{n}({k1},{k2}:{s2})", getattr(jnp, n), f"{k1}:{M}", f"{k2}:{s2}", **kw)
            for n in names]


ELEMENTWISE = [
    *unary(["sin", "cos", "tan", "arctan", "sinh", "cosh", "tanh", "arcsinh", "exp", "exp2",
            "expm1", "deg2rad", "rad2deg", "sinc", "cbrt", "reciprocal", "square", "negative",
            "positive", "abs", "fabs", "nan_to_num", "real", "conj", "i0"], "x"),
    *unary(["arcsin", "arccos", "arctanh"], "u"),
    *unary(["log", "log2", "log10", "log1p", "sqrt"], "p"),
    *unary(["arccosh"], "g"),
    *unary(["sign", "floor", "ceil", "trunc", "rint", "round", "imag", "angle", "isnan",
            "isinf", "isfinite", "signbit", "spacing"], "x", grad="zero"),
    *unary(["abs", "real", "imag", "conj", "angle", "square", "exp", "sqrt"], "c"),
    *unary(["negative", "abs", "sign", "square", "invert", "bitwise_count"], "i"),
    *unary(["logical_not", "invert"], "b"),
    C("round(decimals=1)", lambda x: jnp.round(x, 1), f"w:{M}", grad="zero"),
    C("modf", jnp.modf, f"w:{M}"),
    C("frexp", jnp.frexp, f"w:{M}", gfn=lambda x: jnp.frexp(x)[0]),
    C("isnan(c)", jnp.isnan, f"c:{M}", grad="zero"),
    *unary(["iscomplex", "isreal", "isneginf", "isposinf"], "x", grad="zero"),
    *unary(["sin", "exp", "tanh", "abs", "floor"], "e", rtol=1e-3),
    *unary(["invert", "bitwise_count", "negative"], "z"),
    *binary(["divide", "hypot", "maximum", "logaddexp", "copysign"], "x", "x", vgrad=True),
    *binary(["add", "subtract", "multiply", "arctan2", "minimum", "fmax", "fmin", "logaddexp2",
             "nextafter"], "x", "x"),
    *binary(["add", "multiply", "divide", "maximum", "arctan2"], "x", "x", V),
    *binary(["subtract", "power", "logaddexp"], "x", "x", ""),
    *binary(["power", "float_power"], "p", "w"),
    *binary(["floor_divide", "remainder", "mod", "fmod", "divmod"], "w", "p", grad=None),
    # derivatives away from the jumps: |x / y| in (0.07, 0.75)
    *binary(["floor_divide"], "x", "g", grad="zero"),
    *binary(["remainder", "mod", "fmod", "divmod"], "x", "g"),
    *binary(["heaviside", "equal", "not_equal", "less", "less_equal", "greater",
             "greater_equal", "isclose"], "x", "x", grad="zero"),
    *binary(["ldexp"], "x", "i"),
    *binary(["power"], "x", "k4"),
    *binary(["add", "subtract", "multiply", "maximum", "floor_divide", "remainder", "fmod",
             "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "equal", "less"],
            "i", "n"),
    *binary(["left_shift", "right_shift"], "i", "k4", V),
    *binary(["logical_and", "logical_or", "logical_xor", "add", "multiply"], "b", "b"),
    *binary(["add", "multiply", "divide"], "c", "c"),
    *binary(["add", "multiply", "maximum"], "e", "e", rtol=1e-3),
    *binary(["add", "subtract", "right_shift", "floor_divide", "bitwise_xor"], "z", "n"),
    C("add(e,x)", jnp.add, f"e:{M}", f"x:{V}"),
    C("allclose", jnp.allclose, f"x:{M}", f"x:{V}", grad="zero"),
    C("array_equal", jnp.array_equal, f"k2:{M}", f"k2:{M}"),
    C("array_equiv", jnp.array_equiv, f"k2:{M}", f"k2:{V}"),
    C("multiply(c,x)", jnp.multiply, f"c:{M}", f"x:{V}"),
    C("add(x,i)", jnp.add, f"x:{M}", f"i:{M}"),
    C("where", jnp.where, f"b:{M}", f"x:{M}", f"x:{V}", vgrad=True, jit_grad=True),
    C("where(x>0)", lambda x: jnp.where(x > 0, x ** 2, -x), f"x:{M}", vgrad=True),
    C("clip", jnp.clip, f"w:{M}", "x:", "p:", vgrad=True),
    C("clip(min)", lambda x, lo: jnp.clip(x, lo), f"w:{M}", f"x:{V}"),
    C("clip(max=1)", lambda x: jnp.clip(x, max=0.5), f"w:{M}"),
    C("clip(i)", jnp.clip, f"i:{M}", "i:", "n:"),
    *[C(f"{n}(scalar)", getattr(jnp, n), *[f"{k}:" for k in ks]) for n, ks in [
        ("sin", "x"), ("tanh", "x"), ("log", "p"), ("sqrt", "p"), ("arctan2", "xx"),
        ("power", "pw"), ("logaddexp", "xx"), ("maximum", "xx")]],
    C("x ** 3", lambda x: x ** 3, f"x:{M}", vgrad=True),
    C("x ** -2", lambda x: x ** -2, f"x:{M}"),
    C("2.0 ** x", lambda x: 2.0 ** x, f"x:{M}"),
    C("x ** 0.5", lambda x: x ** 0.5, f"p:{M}"),
    C("x / 3", lambda x: x / 3, f"i:{M}"),
    C("sin(x) * y + 1", lambda x, y: jnp.sin(x) * y + 1, f"x:{M}", f"x:{M}", vgrad=True,
      jit_grad=True),
]

NN = [
    *[C(f"nn.{n}", getattr(nn, n), f"x:{M}", vgrad=n in ("relu", "gelu", "softplus", "elu"),
        jit_grad=n in ("gelu", "softplus")) for n in [
        "relu", "relu6", "sigmoid", "softplus", "soft_sign", "silu", "swish", "log_sigmoid",
        "elu", "leaky_relu", "celu", "selu", "hard_tanh", "hard_sigmoid", "hard_silu",
        "hard_swish", "mish", "squareplus", "sparse_plus", "sparse_sigmoid", "identity",
        "gelu"]],
    C("nn.gelu(exact)", functools.partial(nn.gelu, approximate=False), f"x:{M}"),
    C("nn.elu(alpha)", lambda x: nn.elu(x, 0.5), f"x:{M}"),
    C("nn.leaky_relu(slope)", lambda x: nn.leaky_relu(x, 0.2), f"x:{M}"),
    C("nn.celu(alpha)", lambda x: nn.celu(x, 2.0), f"x:{M}"),
    C("nn.log1mexp", nn.log1mexp, f"p:{M}"),
    C("nn.glu", nn.glu, f"w:{M}"),
    C("nn.glu(axis=0)", lambda x: nn.glu(x, axis=0), f"w:{M}"),
    C("nn.softmax", nn.softmax, f"w:{M}", vgrad=True, jit_grad=True),
    C("nn.softmax(axis=0)", lambda x: nn.softmax(x, axis=0), f"w:{M}"),
    C("nn.softmax(axis=None)", lambda x: nn.softmax(x, axis=None), f"w:{M}"),
    C("nn.softmax(where)", lambda x, m: nn.softmax(x, where=m), f"w:{M}", f"b:{M}"),
    C("nn.log_softmax", nn.log_softmax, f"w:{M}", vgrad=True, jit_grad=True),
    C("nn.log_softmax(axis=0)", lambda x: nn.log_softmax(x, axis=0), f"w:{M}"),
    C("nn.log_softmax(where)", lambda x, m: nn.log_softmax(x, where=m), f"w:{M}", f"b:{M}",
      gfn=lambda x, m: jnp.where(m, nn.log_softmax(x, where=m), 0.0)),   # -inf where masked
    C("nn.logsumexp", nn.logsumexp, f"w:{M}"),
    C("nn.logsumexp(axis=1)", lambda x: nn.logsumexp(x, axis=1), f"w:{M}", vgrad=True),
    C("nn.one_hot", lambda i: nn.one_hot(i, 5), f"k5:{V}"),
    C("nn.one_hot(axis=0)", lambda i: nn.one_hot(i, 5, axis=0), f"k5:{M}"),
    C("nn.standardize", nn.standardize, f"w:{M}"),
    C("nn.standardize(axis=0)", lambda x: nn.standardize(x, axis=0), f"w:{M}"),
    C("nn.standardize(where)", lambda x, m: nn.standardize(x, where=m), f"w:{M}", "b:2,1"),
]

SPECIAL = [
    *[C(f"special.{n}", getattr(special, n), f"{k}:{M}") for n, k in [
        ("erf", "x"), ("erfc", "x"), ("erfinv", "u"), ("gammaln", "p"), ("digamma", "p"),
        ("expit", "w"), ("logit", "h"), ("entr", "p"), ("ndtr", "x"), ("i0", "x"),
        ("i0e", "x")]],
    *[C(f"special.{n}", getattr(special, n), f"{k1}:{M}", f"{k2}:{M}") for n, k1, k2 in [
        ("xlogy", "x", "p"), ("xlog1py", "x", "p"), ("rel_entr", "p", "p"),
        ("kl_div", "p", "p")]],
    C("special.logsumexp", special.logsumexp, f"w:{M}"),
    C("special.logsumexp(axis=0,keepdims)", lambda x: special.logsumexp(x, 0, keepdims=True),
      f"w:{M}"),
    C("special.logsumexp(b)", lambda x, b: special.logsumexp(x, 1, b), f"w:{M}", f"p:{M}",
      vgrad=True),
    C("special.logsumexp(return_sign)",
      lambda x, b: special.logsumexp(x, 1, b, return_sign=True), f"w:{M}", f"x:{M}",
      gfn=lambda x, b: special.logsumexp(x, 1, b, return_sign=True)[0]),
    C("special.logsumexp(where)", lambda x, m: special.logsumexp(x, 1, where=m), f"w:{M}",
      "b:2,1", gfn=lambda x, m: special.logsumexp(x, 1, where=m | (jnp.arange(4) == 0))),
    C("special.softmax", special.softmax, f"w:{M}"),
    C("special.log_softmax", special.log_softmax, f"w:{M}"),
]

CASES = ELEMENTWISE + NN + SPECIAL


(test_vmap, test_grads, test_vmap_of_grad, test_jacobians,
 test_jit_path_grads) = transform_tests(CASES)


# integer and boolean outputs have float0 tangents and cotangents, as in JAX
def test_integer_output_tangent_is_float0():
    _, t = jax.jvp(jnp.isnan, (np.float32([0.5, -0.3]),), (np.ones(2, np.float32),))
    assert np.asarray(t).dtype == float0


def test_integer_output_takes_float0_cotangent():
    _, pullback = jax.vjp(jnp.argmax, np.float32([0.5, -0.3]))
    assert not np.any(np.asarray(pullback(np.zeros((), float0))[0]))


# ---------------------------------------------------------------- derivatives at special points
# JAX's conventions where the table's inputs stay away: the kinks, ties and zeros themselves.
# Values recorded from JAX 0.10.2 (grad of the sum at 0.0, -0.0 and 1.5).
NAN = float("nan")


def _bessel_i(nu, x, terms=30):
    """I_nu(x) for nu = 0, 1 from its power series, in float64."""
    return sum((x / 2) ** (2 * k + nu) / (math.factorial(k) * math.factorial(k + nu))
               for k in range(terms))


@pytest.mark.parametrize("f,want", [
    (jnp.abs, [1.0, 1.0, 1.0]),                                   # select(x >= 0, g, -g)
    (lambda x: jnp.hypot(x, 0.0), [0.5, 0.5, 1.0]),               # through |x| and max ties
    (lambda x: jnp.copysign(x, -1.0), [-1.0, -1.0, -1.0]),
    (lambda x: x ** x, [NAN, NAN, 1.5 ** 1.5 * (math.log(1.5) + 1)]),  # y x**(y-1) at 0**0
    (lambda x: jnp.power(x, jnp.arange(3)), [0.0, 1.0, 3.0]),     # int exponent 0: flat
    (jnp.i0, [0.0, 0.0, _bessel_i(1, 1.5)]), (special.i0, [1.0, 1.0, _bessel_i(1, 1.5)]),
    (special.i0e, [0.0, 0.0, math.exp(-1.5) * (_bessel_i(1, 1.5) - _bessel_i(0, 1.5))]),
], ids=["abs", "hypot", "copysign", "x**x", "power(int)", "jnp.i0", "special.i0", "i0e"])
def test_grad_at_special_points(f, want):
    got = jax.grad(lambda x: jnp.sum(f(x)))(np.float32([0.0, -0.0, 1.5]))
    # float64 derivatives rounded once; XLA's log, exp and Bessel approximations per CPU
    # [worst seen 1, all four CPUs]
    assert_allclose_ulp(np.asarray(got), np.float32(want), ELEMENTWISE_ULPS)


def test_cumlogsumexp_hessian_at_ties():
    # equal inputs: the logaddexp combine must have smooth second derivatives (JAX's values)
    h = jax.jacrev(jax.grad(lambda x: jnp.sum(jax.lax.cumlogsumexp(x))))(np.zeros(3, np.float32))
    # JAX's values are 17/36, -13/36, -1/9 and 2/9, rounded once; second derivatives through
    # exp and log1p, measured at the largest entry [worst seen 1, all four CPUs]
    want = np.float32(np.array([[17, -13, -4], [-13, 17, -4], [-4, -4, 8]]) / 36)
    assert_allclose_ulp(np.asarray(h), want, ELEMENTWISE_ULPS, scale=17 / 36)
