"""jnp's 8-bit floats (ml_dtypes' float8_e4m3fn, e5m2 and the fnuz kinds): Arrays of them,
conversions in and out of jit (rounded as ml_dtypes rounds: exact), their finfo, names in
jaxprs, and JAX's promotion rule that they meet only Python scalars."""
import ml_dtypes
import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.dtypes import TypePromotionError

# int1 and uint1 are new in ml_dtypes 0.6 (pyproject accepts 0.5, which jxkernel runs with)
HAS_INT1 = hasattr(ml_dtypes, "int1")

VALUES = np.array([0.0, 1.5, -3.25, 0.1, 200.0, 1e-3], np.float32)
KINDS = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
         "float8_e4m3b11fnuz"]


def test_conversions_round_as_ml_dtypes():
    @jxkernel.jit
    def roundtrip(x):
        return [x.astype(getattr(jnp, k)).astype(jnp.float32) for k in KINDS]
    for kind, got in zip(KINDS, roundtrip(jnp.asarray(VALUES))):
        want = VALUES.astype(getattr(ml_dtypes, kind)).astype(np.float32)
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=kind)


def test_arrays_finfo_and_jaxpr_names():
    x = jnp.array([1.0, 2.0], jnp.float8_e4m3fn)
    assert x.dtype == np.dtype(ml_dtypes.float8_e4m3fn)
    assert float(jnp.finfo(jnp.float8_e4m3fn).max) == 448.0
    assert str(jxkernel.make_jaxpr(lambda a: a * 2)(x).jaxpr.invars[0].aval.str_short(short_dtypes=True)) == \
        "f8_e4m3fn[2]"
    assert (x * 2).dtype == x.dtype          # a Python scalar takes the float8 type


def test_float8_promotes_with_nothing_else():
    with pytest.raises(TypePromotionError, match="8-bit floats do not support implicit"):
        jnp.result_type(jnp.float8_e4m3fn, jnp.float32)
    with pytest.raises(TypePromotionError):
        jnp.result_type(jnp.float8_e4m3fn, jnp.float8_e5m2)


# JAX 0.10.2's other narrow dtypes (ml_dtypes'): the later float8s, float4, the 2- and 4-bit
# ints run on XLA's CPU backend; float6 and the 1-bit ints are dtypes only (JAX's fail there too)
NARROW = ["float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float4_e2m1fn", "int2", "int4",
          "uint2", "uint4"]


def test_narrow_dtypes_convert_and_add_as_ml_dtypes():
    ints = np.array([1, -2, 0, -1], np.float32)      # (within int2: XLA saturates, NumPy wraps)

    @jxkernel.jit
    def program(x):        # one program: each kind from float32, doubled in its own type
        out = []
        for kind in NARROW:
            v = (abs(x) if kind.startswith("u") else x).astype(getattr(jnp, kind))
            out.append([v, v + v, v.astype(jnp.float32)])
        return out
    for kind, (v, twice, back) in zip(NARROW, program(jnp.asarray(ints))):
        t = getattr(ml_dtypes, kind)
        want = (np.abs(ints) if kind.startswith("u") else ints).astype(t)
        assert v.dtype == np.dtype(t) and twice.dtype == np.dtype(t), kind
        np.testing.assert_array_equal(np.asarray(v).view(np.uint8), want.view(np.uint8), kind)
        np.testing.assert_array_equal(np.asarray(back), want.astype(np.float32), kind)
        # (sums wrap around in the ints and round in the floats, as ml_dtypes' own)
        np.testing.assert_array_equal(np.asarray(twice).astype(np.float32),
                                      (want.astype(np.float32) * 2).astype(t).astype(np.float32)
                                      if "float" in kind else
                                      (want + want).astype(np.float32), kind)


def test_narrow_dtypes_kinds_limits_names_and_promotion():
    assert jnp.iinfo(jnp.int4).min == -8 and jnp.iinfo(jnp.uint2).max == 3
    assert float(jnp.finfo(jnp.float4_e2m1fn).max) == 6.0
    assert float(jnp.finfo(jnp.float6_e2m3fn).max) == 7.5
    assert jnp.issubdtype(jnp.int4, jnp.signedinteger) and not jnp.issubdtype(jnp.uint4, jnp.signedinteger)
    assert jnp.issubdtype(jnp.uint2, jnp.integer) and jnp.issubdtype(jnp.float8_e3m4, jnp.floating)
    assert not HAS_INT1 or jnp.issubdtype(jnp.uint1, jnp.integer)
    x = jnp.array([1, 2], jnp.int4)
    assert jxkernel.make_jaxpr(lambda a: a.astype(jnp.float4_e2m1fn))(x).jaxpr.outvars[0].aval \
        .str_short(short_dtypes=True) == "f4_e2m1fn[2]"
    assert (x * 3).dtype == x.dtype            # a Python int takes the 4-bit type
    with pytest.raises(TypePromotionError, match="1-bit, 2-bit and 4-bit integers do not"):
        jnp.result_type(jnp.int4, jnp.int8)
    with pytest.raises(TypePromotionError, match="4-bit floats do not support"):
        jnp.result_type(jnp.float4_e2m1fn, jnp.float16)
    with pytest.raises(TypePromotionError, match="6-bit floats do not support"):
        jnp.result_type(jnp.float6_e3m2fn, 1.0, jnp.bfloat16)


@pytest.mark.parametrize("kind", ["float6_e2m3fn", pytest.param("int1", marks=pytest.mark.skipif(
    not HAS_INT1, reason="ml_dtypes before 0.6 has no int1"))])
def test_dtypes_without_arrays_say_so(kind):
    with pytest.raises(TypeError, match=f"jnp.array of dtype {kind}: XLA's CPU backend has no"):
        jnp.array([1], getattr(jnp, kind))
    with pytest.raises(TypeError, match=f"a value in a program of dtype {kind}"):
        jxkernel.jit(lambda v: v.astype(getattr(jnp, kind)))(1.0)
