"""jnp's 8-bit floats (ml_dtypes' float8_e4m3fn, e5m2 and the fnuz kinds): Arrays of them,
conversions in and out of jit (rounded as ml_dtypes rounds: exact), their finfo, names in
jaxprs, and JAX's promotion rule that they meet only Python scalars."""
import ml_dtypes
import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.dtypes import TypePromotionError

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
    assert str(jxkernel.make_jaxpr(lambda a: a * 2)(x).jaxpr.invars[0].aval.str_short()) == \
        "f8_e4m3fn[2]"
    assert (x * 2).dtype == x.dtype          # a Python scalar takes the float8 type


def test_float8_promotes_with_nothing_else():
    with pytest.raises(TypePromotionError, match="8-bit floats do not support implicit"):
        jnp.result_type(jnp.float8_e4m3fn, jnp.float32)
    with pytest.raises(TypePromotionError):
        jnp.result_type(jnp.float8_e4m3fn, jnp.float8_e5m2)
