"""jnp's elementwise functions: against JAX's recorded results (dtype, weak type, values and
errors, eagerly and under jit; tests/data/jnp_cases.py), against NumPy over shapes and
dtypes, the jaxprs they stage, and jnp.ufunc / jnp.frompyfunc."""
import functools
import operator

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp

from doc_examples import check_docstring_examples
from jnp_check import matches_jax_tests
from numerics import ELEMENTWISE, assert_allclose_ulp

# Where jxkernel knowingly differs from JAX 0.10.2 (each is reported to the lax owner).
KNOWN = {}


# JAX's frexp of a subnormal (1e-40: (0.5, -149)) is LLVM's: XLA's arithmetic reads it as 0,
# but LLVM folds frexp's isinf | isnan | x == 0 into one test of x's bits, which does not
# (docs/contributing.md, "On the NumPy backend"); the NumPy backend gives (0, 0), DAZ's answer
XLA_ONLY = {"jnp.frexp(spec)": "XLA compiler"}

# Eager values at XLA's default code: the suite's loop emitters (tests/conftest.py) flush the
# subnormals inside frexp and cbrt, which JAX's eager values keep
DEFAULT_CODE = ("jnp.frexp(spec)", "jnp.cbrt(spec)")

test_matches_jax_eager, test_matches_jax_jit_types, test_matches_jax_jit_values, \
    test_matches_jax_x64_types = matches_jax_tests("ufunc", every=5, known_jit=KNOWN,
                                                   known_eager=KNOWN, xla_only=XLA_ONLY,
                                                   default_code=DEFAULT_CODE)

# ---------------------------------------------------------------- against NumPy
RNG = np.random.default_rng(0)
SHAPES = [(), (3,), (2, 3)]
UNARY = {"sin": np.sin, "exp": np.exp, "tanh": np.tanh, "log1p": np.log1p, "abs": np.abs,
         "floor": np.floor, "sign": np.sign, "square": np.square, "rint": np.rint,
         "negative": np.negative, "isfinite": np.isfinite, "cbrt": np.cbrt}
BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "true_divide": np.true_divide, "floor_divide": np.floor_divide,
          "remainder": np.remainder, "fmod": np.fmod, "maximum": np.maximum,
          "arctan2": np.arctan2, "hypot": np.hypot, "logaddexp": np.logaddexp,
          "less": np.less, "equal": np.equal, "copysign": np.copysign, "heaviside": np.heaviside}


# NumPy's references are computed in float64 and rounded once to float32 (its own float32
# loops pick SIMD kernels per CPU, as XLA does); floor division, remainder and fmod keep
# NumPy's float32 semantics (the quotient's rounding decides the floor)
IN_DTYPE = {"floor_divide", "remainder", "fmod"}


def _reference(fun, name, *args):
    want = fun(*args)
    if want.dtype == np.float32 and name not in IN_DTYPE:
        want = fun(*[np.asarray(a, np.float64) for a in args]).astype(np.float32)
    return want


def _rand(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return (RNG.standard_normal(shape) * 3).astype(dtype)
    return RNG.integers(-9, 10, shape).astype(dtype)


# XLA's float32 tanh is a rational approximation, up to 3 ulps from the correctly rounded value
UNARY_ULPS = {"tanh": 8}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unary_vs_numpy(name, shape):
    x = np.abs(_rand(shape, np.float32)) if name == "log1p" else _rand(shape, np.float32)
    out = getattr(jnp, name)(x)
    assert_allclose_ulp(np.asarray(out), _reference(UNARY[name], name, x),
                        UNARY_ULPS.get(name, ELEMENTWISE))
    assert out.shape == shape


BINARY_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (3,))]
BINARY_DTYPES = [np.float32, np.int32]


@functools.cache
def _binary_arguments():
    """{(name, shapes, dtype): (x, y)} for every case of test_binary_vs_numpy (its own
    generator: the jitted results of all cases are computed together, on first use)."""
    rng = np.random.default_rng(1)
    args = {}
    for name in sorted(BINARY):
        for shapes in BINARY_SHAPES:
            for dtype in BINARY_DTYPES:
                dt = np.float32 if dtype == np.int32 and name in (
                    "arctan2", "hypot", "logaddexp", "copysign", "heaviside") else dtype
                if np.dtype(dt).kind == "f":
                    x, y = ((rng.standard_normal(s) * 3).astype(dt) for s in shapes)
                else:
                    x, y = (rng.integers(-9, 10, s).astype(dt) for s in shapes)
                if name in ("floor_divide", "remainder", "fmod") and dt == np.int32:
                    y = np.where(y == 0, 3, y).astype(dt)
                args[name, shapes, dtype] = (x, y)
    return args


@functools.cache
def _binary_jitted():
    """jax.jit(getattr(jnp, name))(x, y) of every case, as one compiled program (one compile
    instead of 120; each case's operations are its own)."""
    keys, args = zip(*_binary_arguments().items())
    outs = jax.jit(lambda a: [getattr(jnp, k[0])(x, y) for k, (x, y) in zip(keys, a)])(args)
    return dict(zip(keys, outs))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", BINARY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_binary_vs_numpy(name, shapes, dtype):
    x, y = _binary_arguments()[name, shapes, dtype]
    out = getattr(jnp, name)(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = _reference(BINARY[name], name, x, y)
    assert out.shape == want.shape
    # (NumPy's int32 / int32 is float64, JAX's float32: its correctly rounded quotient)
    assert_allclose_ulp(np.asarray(out), want.astype(out.dtype), ELEMENTWISE)
    # (eager runs multi-op functions op by op, jit fuses them: the last bits may differ)
    jitted = _binary_jitted()[name, shapes, dtype]
    assert jitted.dtype == out.dtype and jitted.shape == out.shape
    assert_allclose_ulp(np.asarray(jitted), np.asarray(out), ELEMENTWISE)


def test_integer_division_and_modulo_follow_python_signs():
    x = np.array([-7, -6, 7, 6, 0], np.int32)
    for y in (3, -3):
        assert np.asarray(jnp.floor_divide(x, y)).tolist() == (x // y).tolist()
        assert np.asarray(jnp.remainder(x, y)).tolist() == (x % y).tolist()
        assert np.asarray(jnp.fmod(x, y)).tolist() == np.fmod(x, y).tolist()
    # x % 0 and x // 0 on ints: JAX's semantics (remainder gives 0, floor_divide -1 or 0)
    assert np.asarray(jnp.remainder(x, 0)).tolist() == [0, 0, 0, 0, 0]


# ---------------------------------------------------------------- promotion behaviour
def test_python_scalars_are_weak():
    x16 = jnp.ones(3, jnp.float16)
    assert (x16 * 2.0).dtype == jnp.float16
    assert (x16 + 1).dtype == jnp.float16
    assert (jnp.ones(3, jnp.int8) + 300).dtype == jnp.int8       # wraps, as JAX
    assert (jnp.arange(3) + 2.5).dtype == jnp.float32
    assert jnp.add(1, 2.0).weak_type and jnp.add(1, 2.0).dtype == jnp.float32
    assert not jnp.add(jnp.float32(1), 2.0).weak_type


def test_python_int_overflow():
    # JAX's words, its jitted add's argument parsing naming the parameter (recorded:
    # learner_mistakes_reference.json's int_overflow_ cases)
    with pytest.raises(OverflowError, match="An overflow was encountered while parsing an "
                                            "argument to a jitted computation, whose argument "
                                            "path is y"):
        jnp.arange(3) + 2 ** 40


def test_scalar_constants_keep_sign_of_zero():
    x = jnp.ones(2)
    assert np.signbit(np.asarray(x * 0.0)).tolist() == [False, False]
    assert np.signbit(np.asarray(x * -0.0)).tolist() == [True, True]


def test_bool_arithmetic():
    t, f = jnp.array([True, False]), jnp.array([True, True])
    assert jnp.add(t, f).dtype == jnp.bool_ and np.asarray(jnp.add(t, f)).tolist() == [True, True]
    assert np.asarray(jnp.multiply(t, f)).tolist() == [True, False]
    with pytest.raises(TypeError, match="sub does not accept dtype bool"):
        jnp.subtract(t, f)


def test_where_one_argument_and_errors():
    (idx,) = jnp.where(jnp.array([0, 3, 0, 1]))
    assert np.asarray(idx).tolist() == [1, 3]
    # JAX's check comes first (lax_numpy_gaps_reference.json's where_missing_y), so its
    # "Either both or neither" is never reached
    with pytest.raises(TypeError, match=r"where requires ndarray or scalar arguments, got "
                                        r"<class 'NoneType'> at position 2\."):
        jnp.where(True, 1.0)


def test_clip_takes_min_and_max_not_numpys_old_keywords():
    """JAX 0.10.2's clip(arr, /, min=None, max=None): a_min and a_max are TypeErrors there,
    each with Python's words for an unknown keyword (checked under JAX 0.10.2)."""
    x = jnp.arange(5)
    assert np.asarray(jnp.clip(x, min=1, max=3)).tolist() == [1, 1, 2, 3, 3]
    for keyword in ("a_min", "a_max"):
        with pytest.raises(TypeError, match=rf"^clip\(\) got an unexpected keyword argument "
                                            rf"'{keyword}'$"):
            jnp.clip(x, **{keyword: 1})
    with pytest.raises(ValueError, match="complex"):
        jnp.clip(x + 0j, 1)


def test_power_integer_exponents():
    x = jnp.arange(4.0)
    assert np.asarray(x ** 3).tolist() == [0, 1, 8, 27]
    assert np.asarray(jnp.power(jnp.arange(4), jnp.array([3, 2, 1, 0]))).tolist() == [0, 1, 2, 1]
    with pytest.raises(TypeError, match="negative powers"):
        jnp.power(jnp.arange(3), -1)


# ---------------------------------------------------------------- staged jaxprs (as JAX's)
def _jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))


def test_jaxpr_weak_scalar_is_a_literal():
    assert _jaxpr(lambda x: x + 1, jnp.float32(2)) == \
        "{ lambda ; a:f32[]. let b:f32[] = add a 1.0:f32[] in (b,) }"


def test_jaxpr_weak_argument_converts():
    assert _jaxpr(lambda x, y: x + y, 1.0, jnp.float32(2)) == (
        "{ lambda ; a:f32[] b:f32[]. let\n"
        "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
        "    d:f32[] = add c b\n"
        "  in (d,) }")


# the NumPy backend divides (nan), eagerly too: XLA's rewrite is its compiler's
@pytest.mark.xla_only("XLA compiler")
def test_divide_of_bools_under_vmap_is_one_program_as_in_jax():
    """JAX's jnp.true_divide is jitted, so under vmap too its conversions and division run as
    one program, where XLA makes convert(p) / broadcast(y) of a bool p select(p, 1 / y, 0): 0 / 0
    of bools is 0, not nan. jxkernel bound them one by one under vmap and gave nan (the
    differential fuzzer, seed 95036: JAX 0.10.2 gives these zeros eagerly, jitted and vmapped;
    without a broadcast XLA divides, and 0 / 0 is nan under both)."""
    a, b = np.array([[False, True], [True, False]]), np.array([False, False])
    want = np.float32([[0, np.inf], [np.inf, 0]])
    np.testing.assert_array_equal(jnp.true_divide(a, b), want)
    np.testing.assert_array_equal(jax.jit(jnp.true_divide)(a, b), want)
    np.testing.assert_array_equal(jax.vmap(jnp.true_divide, (0, None))(a, b), want)
    np.testing.assert_array_equal(jax.vmap(jnp.divide)(np.stack([a, a]), np.stack([b, b])),
                                  np.stack([want, want]))
    np.testing.assert_array_equal(jax.vmap(jnp.divide)(a, np.stack([b, b])),
                                  np.float32([[np.nan, np.inf], [np.inf, np.nan]]))
    # and the staged program is as before: the jit inlines, as JAX's (inline=True)
    assert _jaxpr(jax.vmap(jnp.true_divide, (0, None)), a, b) == (
        "{ lambda ; a:bool[2,2] b:bool[2]. let\n"
        "    c:f32[2,2] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
        "    d:f32[2] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
        "    e:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] d\n"
        "    f:f32[2,2] = div c e\n"
        "  in (f,) }")


def test_jaxpr_rank_promotion():
    assert _jaxpr(lambda x, y: x + y, jnp.ones(3), jnp.ones((2, 3))) == (
        "{ lambda ; a:f32[3] b:f32[2,3]. let\n"
        "    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n"
        "    d:f32[2,3] = add c b\n"
        "  in (d,) }")


def test_jaxpr_int_to_float():
    assert _jaxpr(jnp.sin, 1) == (
        "{ lambda ; a:i32[]. let\n"
        "    b:f32[] = convert_element_type[new_dtype=float32 weak_type=True] a\n"
        "    c:f32[] = sin b\n"
        "  in (c,) }")
    assert _jaxpr(lambda x: x ** 2, jnp.arange(3.0)) == \
        "{ lambda ; a:f32[3]. let b:f32[3] = integer_pow[y=2] a in (b,) }"
    # jnp.square binds JAX 0.10.2's square primitive; its derivative is 2x, as JAX prints it
    assert _jaxpr(jnp.square, jnp.arange(3.0)) == \
        "{ lambda ; a:f32[3]. let b:f32[3] = square a in (b,) }"
    assert _jaxpr(jax.grad(lambda x: jnp.square(x).sum()), jnp.arange(2.0)) == (
        "{ lambda ; a:f32[2]. let\n    b:f32[2] = square a\n    c:f32[2] = mul 2.0:f32[] a\n"
        "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n"
        "    d:f32[2] = broadcast_in_dim 1.0:f32[]\n    e:f32[2] = mul d c\n  in (e,) }")
    np.testing.assert_array_equal(jnp.square(np.int8([3, -4])), np.int8([9, 16]))


def test_jaxpr_where_is_a_nested_jit():
    text = _jaxpr(lambda x: jnp.where(x > 0, x, 0.0), jnp.arange(3.0))
    assert "jit[\n      name=_where" in text and "select_n" in text


def test_jaxpr_floor_divide_is_a_nested_jit():
    text = _jaxpr(lambda x: x // 2, jnp.arange(3.0))
    assert "name=floor_divide" in text and "round[rounding_method=0]" in text


# ---------------------------------------------------------------- docstring examples
@pytest.mark.parametrize("module", [
    "jxkernel.numpy.dtypes", "jxkernel.numpy.scalar_types", "jxkernel.numpy.creation",
    "jxkernel.numpy.ranges", "jxkernel.numpy.ufuncs", "jxkernel.numpy.array_methods",
    "jxkernel.numpy.util", "jxkernel.numpy.ufunc_api", "jxkernel.nn.functions",
    "jxkernel.scipy.special"])
def test_docstring_examples(module):
    import jxkernel.nn as nn
    from jxkernel.scipy import special
    check_docstring_examples(module, {"nn": nn, "special": special})


# ---------------------------------------------------------------- derivatives (JAX's rules)
# (function, point, exact derivative rounded to float32, bound in ulps)
@pytest.mark.parametrize("f,x,want,ulps", [
    (lambda x: jnp.ldexp(x, 2), 1.3, 4.0, 0),               # through frexp's custom JVP
    (lambda x: jnp.frexp(x)[0], 1.3, 0.5, 0),
    # logaddexp's custom JVP: exp(x - logaddexp(x, 1)), 3 ulps from 1 / (1 + e^2) [3]
    (lambda x: jnp.logaddexp(x, 1.0), -1.0, 1 / (1 + np.e ** 2), 8),
    (lambda x: jnp.logaddexp2(x, 1.0), 1.0, 0.5, ELEMENTWISE),
    (jax.grad(jnp.sinc), 0.0, -np.pi ** 2 / 3, ELEMENTWISE),  # sinc''(0) = -pi**2 / 3 [1]
    (lambda x: jnp.hypot(x, 2.0), 1.5, 0.6, ELEMENTWISE),
    (lambda x: jnp.where(x > 0, x ** 2, -x), 1.5, 3.0, 0),
    (lambda x: jnp.clip(x, -0.5, 1.0), 0.3, 1.0, 0),
])
def test_gradients_as_jax(f, x, want, ulps):
    assert_allclose_ulp(np.asarray(jax.grad(f)(x)), np.float32(want), ulps)


def test_i0_derivatives_as_jax():
    # jnp.i0 is exp(|x|) * lax.bessel_i0e(|x|) with JAX's custom JVP (0 at x = 0); its first
    # and second derivatives' float32 bits, recorded from JAX 0.10.2 at x = -2, 0, 0.5, 9 (on
    # another CPU: to the rounding of exp and the Chebyshev series, worst seen [2] ulps)
    x = np.float32([-2, 0, 0.5, 9])
    first = np.uint32([3217791484, 0, 1048840890, 1149295942]).view(np.float32)
    second = np.uint32([1069415540, 0, 1057764795, 1148502709]).view(np.float32)
    assert_allclose_ulp(jax.vmap(jax.grad(jnp.i0))(x), first, ELEMENTWISE, err_msg="i0'")
    assert_allclose_ulp(jax.vmap(jax.grad(jax.grad(jnp.i0)))(x), second, ELEMENTWISE,
                        err_msg="i0''")


# ---------------------------------------------------------------- jnp.ufunc and frompyfunc
# (values and errors as JAX 0.10.2 gives them, checked by hand against it)
def test_frompyfunc_ufunc_methods():
    add = jnp.frompyfunc(operator.add, nin=2, nout=1, identity=0)
    big = jnp.frompyfunc(jnp.maximum, 2, 1)
    x = jnp.arange(6).reshape(2, 3)
    assert (repr(add), add.nin, add.nout, add.nargs, add.identity) == \
        ("<jnp.ufunc 'add'>", 2, 1, 2, 0)
    assert add == jnp.frompyfunc(operator.add, 2, 1, identity=0) and isinstance(add, jnp.ufunc)
    assert add(x, 10).tolist() == [[10, 11, 12], [13, 14, 15]]
    assert add.outer(jnp.arange(3), jnp.arange(2.0)).tolist() == [[0, 1], [1, 2], [2, 3]]
    assert add.reduce(x).tolist() == [3, 5, 7]
    assert add.reduce(x, axis=1, keepdims=True).tolist() == [[3], [12]]
    assert add.reduce(x, axis=None, initial=5).tolist() == 20
    assert add.reduce(x, where=x > 1).tolist() == [3, 4, 7]
    assert big.reduce(x, axis=1).tolist() == [2, 5]
    assert add.accumulate(x, axis=1).tolist() == [[0, 1, 3], [3, 7, 12]]
    ones = jnp.ones(5, int)
    assert add.at(ones, jnp.array([0, 0, 3]), jnp.array([1, 2, 3]), inplace=False).tolist() \
        == [4, 1, 1, 4, 1]
    assert add.at(ones, 2, 7, inplace=False).tolist() == [1, 1, 8, 1, 1]
    assert add.reduceat(jnp.arange(8), jnp.array([0, 2, 5])).tolist() == [1, 9, 18]
    assert add.reduceat(x, jnp.array([0, 2]), axis=1).tolist() == [[1, 2], [7, 5]]
    square = jnp.frompyfunc(lambda a: a * a, 1, 1)
    assert square(jnp.arange(3.0)).tolist() == [0, 1, 4]
    assert jax.jit(lambda u, v: u(v, v), static_argnums=0)(add, 2.0).tolist() == 4.0


def test_ufunc_errors_match_jax():
    add = jnp.frompyfunc(operator.add, 2, 1, identity=0)
    big = jnp.frompyfunc(jnp.maximum, 2, 1)
    x = jnp.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match="reduce only supported for binary ufuncs"):
        jnp.frompyfunc(lambda a: a, 1, 1).reduce(x)
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        big.reduce(jnp.zeros(0))
    with pytest.raises(NotImplementedError, match="inplace=False"):
        add.at(x, 0, 1)
    with pytest.raises(ValueError, match="does not have an identity"):
        big.reduce(x, where=x > 1)
    with pytest.raises(NotImplementedError, match="out argument"):
        add(x, x, out=x)
    with pytest.raises(ValueError, match="accumulate does not allow multiple axes"):
        add.accumulate(x, axis=None)


# jnp.sin(x=object()): JAX's jit names the keyword's value first; here Python refuses the
# keyword of the positional-only `x` (taking **kwargs would cost every call a dict)
_ARITY_DIFFERS = {"arity_sin_keyword_object"}


def test_a_call_with_too_many_arguments_fails_as_jaxs_jit_fails_it():
    # JAX's jnp.sin is a jit: it reads every argument (a leaf no jit takes: jit's error,
    # at path args[i]) before the call fails in Python's words; jnp.add, a ufunc, checks
    from surface_gaps_cases import recorded, run_mistakes
    got, want = run_mistakes(jax, "arity"), recorded("mistakes", "arity")
    assert set(got) == set(want) and _ARITY_DIFFERS <= set(got)
    assert {k: v for k, v in got.items() if k not in _ARITY_DIFFERS} == \
        {k: v for k, v in want.items() if k not in _ARITY_DIFFERS}
    assert got["arity_sin_keyword_object"] != want["arity_sin_keyword_object"]
