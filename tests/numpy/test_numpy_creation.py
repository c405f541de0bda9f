"""Array creation against JAX's recorded results (tests/data/jnp_cases.py: dtypes, weak
types, values, errors; eagerly and under jit) and NumPy, plus the jaxprs it stages."""

import functools

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp

from backend_tier import on_numpy_backend  # tests/support
from compiled import jit_together
from jnp_check import matches_jax_tests
from numerics import ELEMENTWISE, assert_allclose_ulp, xla_fuses_multiply_adds

# Where jxkernel knowingly differs from JAX 0.10.2: nowhere now (under jit jnp.asarray(4) was
# a known constant, so arange took it where JAX's refuses the traced value; it is traced now)
KNOWN_JIT: dict = {}


test_matches_jax_eager, test_matches_jax_jit_types, test_matches_jax_jit_values, \
    test_matches_jax_x64_types = matches_jax_tests("creation", every=4, known_jit=KNOWN_JIT)

# ---------------------------------------------------------------- against NumPy
@pytest.mark.parametrize("args", [(5,), (2, 9), (1, 2, 0.25), (10, 0, -3), (0.5, 4.5),
                                  (-2.0, 2.0, 0.5)], ids=str)
def test_arange_vs_numpy(args):
    out = jnp.arange(*args)
    want = np.arange(*args)
    assert out.dtype == (np.float32 if want.dtype.kind == "f" else np.int32)
    # start + i * step of these arguments is exact in float32
    np.testing.assert_array_equal(np.asarray(out), want.astype(out.dtype))


@pytest.mark.parametrize("args,kw", [((0, 1, 5), {}), ((-3, 7, 11), {"endpoint": False}),
                                     ((1, 2, 1), {}),
                                     ((np.array([0, 1]), np.array([2, 5]), 4), {"axis": 1})],
                         ids=str)
def test_linspace_vs_numpy(args, kw):
    # JAX's formula (start * (1 - t) + stop * t) rounds differently from NumPy's (start + i *
    # step): values near 0 cancel, so errors are measured at the endpoints' magnitude
    out = np.asarray(jnp.linspace(*args, **kw))
    want = np.linspace(*args, **kw).astype(out.dtype)
    assert_allclose_ulp(out, want, ELEMENTWISE,
                        scale=np.abs(np.asarray(args[:2], np.float64)).max())


EYE_TRI = [(3, None, 0), (2, 4, 1), (4, 3, -2)]


@functools.cache
def _eye_tri_jitted():
    """jit of every case of test_eye_tri_vs_numpy, compiled together (compiled.jit_together:
    one program instead of three)."""
    return jit_together(jax, {(n, m, k): (lambda n=n, m=m, k=k: (jnp.eye(n, m, k),
                                                                  jnp.tri(n, m, k)), [])
                              for n, m, k in EYE_TRI})


@pytest.mark.parametrize("n,m,k", EYE_TRI)
def test_eye_tri_vs_numpy(n, m, k):
    np.testing.assert_array_equal(np.asarray(jnp.eye(n, m, k)), np.eye(n, m, k))
    np.testing.assert_array_equal(np.asarray(jnp.tri(n, m, k)), np.tri(n, m, k))
    jitted = _eye_tri_jitted()[n, m, k]
    np.testing.assert_array_equal(np.asarray(jitted[0]), np.eye(n, m, k))
    np.testing.assert_array_equal(np.asarray(jitted[1]), np.tri(n, m, k))


def test_meshgrid_vs_numpy():
    x, y = np.arange(3.0), np.arange(2.0)
    for kw in ({}, {"indexing": "ij"}, {"sparse": True}):
        for a, b in zip(jnp.meshgrid(x, y, **kw), np.meshgrid(x, y, **kw)):
            np.testing.assert_array_equal(np.asarray(a), b)


# ---------------------------------------------------------------- weak types and copies
def test_weak_types_as_jax():
    assert jnp.asarray(1.0).weak_type and jnp.array(1).weak_type
    assert not jnp.array([1.0, 2]).weak_type
    assert not jnp.asarray(1.0, dtype=jnp.float32).weak_type
    assert jnp.zeros_like(jnp.asarray(1.0)).weak_type
    assert not jnp.zeros_like(jnp.asarray(1.0), dtype=float).weak_type
    assert jnp.full((2,), 7).weak_type and not jnp.full((2,), 7, int).weak_type


def test_array_copies_and_asarray_does_not():
    x = jnp.arange(3.0)
    assert jnp.asarray(x) is x
    y = jnp.array(x)
    assert y is not x and np.asarray(y).tolist() == [0.0, 1.0, 2.0]
    host = np.arange(3.0)
    z = jnp.asarray(host)
    host[0] = 9.0
    assert float(z[0]) == 0.0                      # device data is a copy


def test_array_of_tracers_stacks():
    f = jax.jit(lambda a, b: jnp.array([[a, b], [b, a]]))
    out = f(1.0, 2.0)
    assert out.dtype == np.float32 and not out.weak_type
    assert np.asarray(out).tolist() == [[1.0, 2.0], [2.0, 1.0]]


def test_arange_traced_argument_errors():
    with pytest.raises(jax.ConcretizationTypeError, match="jnp.arange argument 'stop'"):
        jax.jit(lambda n: jnp.arange(n))(3)


def test_shape_errors():
    with pytest.raises(TypeError, match="Did you accidentally write"):
        jnp.zeros(2, 3)
    with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
        jnp.ones((2, 3.5))
    with pytest.raises(ValueError, match="None is not a valid value"):
        jnp.array([1, None])


@pytest.mark.parametrize("make, shown", [
    (lambda: jnp.zeros([2.0, 3]), "[2.0, 3]"), (lambda: jnp.zeros((2.0, 3)), "(2.0, 3)"),
    (lambda: jnp.ones(2.0), "(2.0,)"), (lambda: jnp.full([2.5], 1.0), "[2.5]"),
    (lambda: jnp.empty([2, 3.0]), "[2, 3.0]")])
def test_a_float_size_is_shown_as_the_shape_was_given(make, shown):
    """JAX 0.10.2 prints the shape as given: a list as a list, one size as a tuple."""
    with pytest.raises(TypeError) as raised:
        make()
    assert str(raised.value) == (f"Shapes must be 1D sequences of concrete values of integer "
                                 f"type, got {shown}.")


def test_eager_fills_do_not_compile():
    """Eager zeros/ones/full/eye/arange build on the host: no new executable per shape."""
    from jxkernel.xla import dispatch
    before = len(dispatch._executables)
    jnp.zeros((7, 5)), jnp.ones(13, int), jnp.full((3, 11), 2.5), jnp.eye(9), jnp.arange(17)
    assert len(dispatch._executables) == before


# ---------------------------------------------------------------- staged jaxprs (as JAX's)
def test_jaxpr_of_zeros_is_a_broadcast():
    assert str(jax.make_jaxpr(lambda x: jnp.zeros(3) + x)(1.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[3] = broadcast_in_dim 0.0:f32[]\n"
        "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
        "    d:f32[3] = add b c\n"
        "  in (d,) }")


def test_jaxpr_of_arange_with_step():
    assert str(jax.make_jaxpr(lambda: jnp.arange(0, 1, 0.25))()) == (
        "{ lambda ; . let\n"
        "    a:f32[4] = iota[dimension=0 dtype=float32 shape=(4,) sharding=None] \n"
        "    b:f32[4] = mul 0.25:f32[] a\n"
        "    c:f32[4] = add 0.0:f32[] b\n"
        "  in (c,) }")


def test_jaxpr_of_linspace_is_a_nested_jit():
    assert "name=_linspace" in str(jax.make_jaxpr(lambda: jnp.linspace(0, 1, 5))())


@pytest.mark.parametrize("value, first, dtype", [
    (["cat", "dog"], "cat", "<U3"), ("cat", "cat", "<U3"), ([b"a"], "b'a'", "|S1"),
    ([["a"]], "a", "<U1"), ([1.0, "x"], "x", "<U1")])
def test_text_is_refused_in_jax_words(value, first, dtype):
    """JAX 0.10.2's TypeError for strings and bytes (tests/data/error_advice_reference.json has
    its text for ["cat", "dog"]), not a list of every supported dtype."""
    for make in (jnp.array, jnp.asarray):
        with pytest.raises(TypeError) as e:
            make(value)
        assert str(e.value) == (f"Value '{first}' with dtype {dtype} is not a valid JAX array "
                                f"type. Only arrays of numeric types are supported by JAX.")


def test_like_functions_take_a_duck_typed_prototype():
    # JAX 0.10.2 (its lax_numpy_test's testDuckTypedLike, run against jxkernel by
    # conformance.jax_tests): *_like read a ShapeDtypeStruct's shape and dtype, and full_like
    # checks only its fill value ("... got <class 'object'> at position 1.")
    proto = jax.ShapeDtypeStruct((2, 3), jnp.int8)
    for like in (jnp.zeros_like, jnp.ones_like, jnp.empty_like):
        assert (like(proto).shape, like(proto).dtype) == ((2, 3), jnp.int8)
    filled = jnp.full_like(proto, 3)
    assert filled.dtype == jnp.int8 and np.array_equal(filled, np.full((2, 3), 3))
    with pytest.raises(TypeError, match=r"full_like requires ndarray or scalar arguments, got "
                                        r"<class 'object'> at position 1\.$"):
        jnp.full_like(proto, object())


def test_array_of_nested_lists_of_typed_keys():
    # JAX 0.10.2: jnp.array([[k], [k2]]) is a (2, 1) key<fry> array (blocked_sampler_test
    # makes its grid of tile keys so); NumPy has no dtype for keys, so they are stacked
    k, k2 = jax.random.split(jax.random.key(0))
    keys = jnp.array([[k], [k2]])
    assert keys.shape == (2, 1) and str(keys.dtype) == "key<fry>"
    np.testing.assert_array_equal(jax.random.key_data(keys)[:, 0],
                                  jax.random.key_data(jnp.stack([k, k2])))


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "float16"])
def test_arange_with_a_step_of_a_narrow_float_works_in_float32(dtype):
    """JAX 0.10.2 computes start + step * iota in float32 for any float under 32 bits, then
    rounds; bfloat16 and the float8s (NumPy kind 'V') were computed in their own width:
    arange(0.1, 300, 1.7) of bfloat16 summed to 26530.03, JAX's 26500.37; float8_e4m3fn's
    27436.48, JAX's 26489.35. (JAX's own sums, exact: 177 short floats. Jitted, XLA fuses
    the multiply-add, whose float32 rounding takes float8's tie at 29.0 [17] down: JAX's jit
    sums 26487.35 there, on a CPU with FMA; on one without, scripts/test_other_cpus.sh's AVX
    cap, nothing fuses and the jit sums what the eager call does.)"""
    d = getattr(jnp, dtype)
    eager, jitted = {"bfloat16": (26500.36572265625,) * 2,
                     "float8_e4m3fn": (26489.3515625, 26487.3515625),
                     "float16": (26496.841186523438,) * 2}[dtype]
    # (XLA's compiler fuses under jit where the CPU has FMA; the NumPy backend does not)
    if on_numpy_backend() or not xla_fuses_multiply_adds():
        jitted = eager
    for f, want in ((lambda: jnp.arange(0.1, 300.0, 1.7, dtype=d), eager),
                    (jax.jit(lambda: jnp.arange(0.1, 300.0, 1.7, dtype=d)), jitted)):
        out = np.asarray(f())
        assert out.dtype == np.dtype(d) and out.shape == (177,)
        assert out.astype(np.float64).sum() == want


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "int4", "uint2", "float32"])
def test_astype_complex_to_a_real_narrow_type_warns_as_jax(dtype):
    """JAX 0.10.2 warns of complex to any integral or real floating dtype; float8s and int4
    (NumPy kind 'V') were cast without the warning."""
    c = jnp.array([1 + 2j, 3 + 0j], jnp.complex64)
    with pytest.warns(DeprecationWarning, match="Casting from complex to real dtypes"):
        out = c.astype(getattr(jnp, dtype))
    assert np.asarray(out).astype(np.float32).tolist() == [1.0, 3.0]
