"""jnp.result_type / jnp.promote_types against JAX's table (tests/data/promotion_table.json,
recorded from JAX 0.10.2 by reference/gen_promotion_table.py) over all pairs of dtypes,
Python scalar types and weakly typed arrays, in both x64 modes; and the dtype API."""

import ml_dtypes
import numpy as np
import pytest

import jxkernel
import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.numpy.dtypes import dtype_and_weak, result_type
import locations  # tests/support: the repository's folders

TABLE = locations.jax_answers("promotion_table.json")

PY = {"py:int": int, "py:float": float, "py:complex": complex, "py:True": True, "py:2": 2,
      "py:2.5": 2.5}


class _Weak:
    """A stand-in for a weakly typed array (jnp.asarray(1) etc.): only its aval matters."""
    def __init__(self, kind):
        self.kind = kind

    @property
    def aval(self):
        from jxkernel.core.avals import ShapedArray
        from jxkernel.core import dtypes
        d = {"int": dtypes.default_int_dtype, "float": dtypes.default_float_dtype,
             "complex": dtypes.default_complex_dtype}[self.kind]()
        return ShapedArray((), d, True)


def value(name):
    if name in PY:
        return PY[name]
    if name.startswith("weak:"):
        return _Weak(name[5:])
    return np.dtype(name)


def x64(enabled):
    """jax_enable_x64 set to `enabled` inside a ``with`` block."""
    return jxkernel.config.override("jax_enable_x64", enabled)


# without x64 a 64-bit type asked for is narrowed with JAX's UserWarning, whose text
# tests/jax_compat/test_private_modules.py compares with JAX's; here only the types count
@pytest.mark.filterwarnings("ignore:Explicitly requested dtype:UserWarning")
@pytest.mark.parametrize("mode", ["x32", "x64"])
def test_result_type_table(mode):
    bad = []
    with x64(mode == "x64"):
        for a, b, want, weak in TABLE[mode]["result_type"]:
            args = (value(a),) if b is None else (value(a), value(b))
            got = result_type(*args, return_weak_type_flag=True)
            if (str(got[0]), got[1]) != (want, weak):
                bad.append(f"result_type({a}, {b}) = {got}, JAX: ({want}, {weak})")
            if jnp.result_type(*args) != np.dtype(want):
                bad.append(f"jnp.result_type({a}, {b}) = {jnp.result_type(*args)}, JAX: {want}")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("mode", ["x32", "x64"])
def test_promote_types_table(mode):
    bad = []
    with x64(mode == "x64"):
        for a, b, want in TABLE[mode]["promote_types"]:
            got = jnp.promote_types(value(a), value(b))
            if str(got) != want:
                bad.append(f"promote_types({a}, {b}) = {got}, JAX: {want}")
    assert not bad, "\n".join(bad[:20])


def test_table_covers_all_pairs():
    names = 15 + len(PY) + 3
    assert len(TABLE["x32"]["result_type"]) == names * names + names


def test_binary_ops_follow_the_table():
    """Arrays of each dtype combined by jnp.add: the result dtype is the table's."""
    dts = ["bool", "int8", "uint8", "int32", "uint32", "bfloat16", "float16", "float32",
           "complex64"]
    want = {(a, b): (d, w) for a, b, d, w in TABLE["x32"]["result_type"]}
    for a in dts:
        for b in dts:
            out = jnp.add(jnp.zeros(2, a), jnp.zeros(2, b))
            assert str(out.dtype) == want[(a, b)][0], (a, b)
        for s in ("py:2", "py:2.5", "py:True"):
            out = jnp.add(jnp.zeros(2, a), PY[s])
            assert (str(out.dtype), out.weak_type) == want[(a, s)], (a, s)


def test_x64_mode_arrays():
    with x64(True):
        assert jnp.array(1.5).dtype == np.float64
        assert jnp.arange(3).dtype == np.int64
        assert (jnp.ones(2, jnp.float32) + 1.0).dtype == np.float32
        assert (jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.uint32)).dtype == np.int64
    assert (jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.uint32)).dtype == np.int32


# ---------------------------------------------------------------- the dtype API
def test_scalar_types():
    assert np.dtype(jnp.float32) == np.float32 and jnp.float32 == np.float32
    assert jnp.dtype(jnp.bfloat16) == ml_dtypes.bfloat16
    x = jnp.float32(2)
    assert isinstance(x, jxkernel.Array) and x.dtype == np.float32 and not x.weak_type
    assert jnp.int8(np.array([1.7, -2.2])).tolist() == [1, -2]
    assert isinstance(np.float32(1), jnp.float32) and not isinstance(1.0, jnp.float32)
    assert {jnp.float32: 1}[np.float32] == 1
    assert jnp.float_ is jnp.float64 and jnp.int_ is jnp.int64 and jnp.complex_ is jnp.complex128
    assert jnp.zeros(2, jnp.float16).dtype == np.float16


def test_issubdtype_and_isdtype():
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating)
    assert jnp.issubdtype(jnp.bfloat16, np.inexact)
    assert not jnp.issubdtype(jnp.bfloat16, jnp.integer)
    assert jnp.issubdtype(jnp.int8, jnp.signedinteger)
    assert jnp.issubdtype(np.float32, jnp.float32)
    assert jnp.isdtype(jnp.int8, ("bool", "integral"))
    assert jnp.isdtype(jnp.bfloat16, "real floating")
    assert not jnp.isdtype(jnp.complex64, "real floating")
    assert jnp.isdtype(np.float32, jnp.float32)
    with pytest.raises(ValueError, match="Unrecognized kind"):
        jnp.isdtype(np.float32, "floats")


def test_finfo_iinfo_can_cast():
    assert jnp.finfo(jnp.bfloat16).bits == 16
    assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
    assert jnp.finfo(jnp.ones(2)).dtype == np.float32
    assert jnp.iinfo(jnp.int8).max == 127 and jnp.iinfo(np.uint16).max == 65535
    assert jnp.can_cast(jnp.int8, jnp.float32) and not jnp.can_cast(jnp.float32, jnp.int8)


def test_dtype_and_weak_of_values():
    assert dtype_and_weak(1.0) == (np.dtype("float32"), True)
    assert dtype_and_weak(True) == (np.dtype("bool"), False)
    assert dtype_and_weak(np.float64(1)) == (np.dtype("float32"), False)
    assert dtype_and_weak(jnp.asarray(1.0)) == (np.dtype("float32"), True)
    assert dtype_and_weak(jnp.float16) == (np.dtype("float16"), False)
    assert dtype_and_weak(float) == (np.dtype("float32"), True)


def test_explicit_64_bit_dtype_warns_and_truncates():
    with pytest.warns(UserWarning, match="Explicitly requested dtype int64"):
        x = jnp.zeros(2, jnp.int64)
    assert x.dtype == np.int32


def test_metadata_helpers():
    assert jnp.ndim(3.0) == 0 and jnp.shape(jnp.ones((2, 3))) == (2, 3)
    assert jnp.size(np.ones((2, 3))) == 6 and jnp.size(np.ones((2, 3)), 1) == 3
    assert jnp.isscalar(1.0) and jnp.isscalar(jnp.asarray(1.0)) and not jnp.isscalar(jnp.ones(2))
    assert jnp.iscomplexobj(1j) and not jnp.iscomplexobj(jnp.ones(2))
    assert jnp.pi == np.pi and jnp.newaxis is None


def test_strict_promotion_raises_type_promotion_error():
    i32, f32 = jnp.ones(2, jnp.int32), jnp.ones(2, jnp.float32)
    assert (i32 + f32).dtype == np.float32 and jax.config.jax_numpy_dtype_promotion == "standard"
    with jax.numpy_dtype_promotion("strict"):
        for mix in [lambda: i32 + f32, lambda: i32 + 1.0, lambda: jnp.ones(2, bool) + 1,
                    lambda: jnp.promote_types(jnp.int8, jnp.int16),
                    lambda: jnp.ones(2, jnp.float16) * f32, lambda: f32 + jnp.ones(2, jnp.complex64)]:
            with pytest.raises(jax.dtypes.TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
                mix()
        # weak Python scalars of the array's kind (or below) still promote, as in JAX
        assert (f32 + 1).dtype == np.float32 and (i32 * 2).dtype == np.int32
        assert (jnp.ones(2, jnp.complex64) + 1.0).dtype == np.complex64
        both_weak = jnp.add(1, 1.0)
        assert both_weak.dtype == np.float32 and both_weak.weak_type
        assert jnp.sin(i32).dtype == np.float32             # to-inexact is not a promotion
    assert (i32 + 1.0).dtype == np.float32                   # the cached pair verdicts reset
    add = jax.jit(lambda a, b: a + b)
    assert add(i32, f32).dtype == np.float32
    with jax.numpy_dtype_promotion("strict"), pytest.raises(jax.dtypes.TypePromotionError):
        add(i32, f32)                                        # the mode is part of jit's key
    assert issubclass(jax.dtypes.TypePromotionError, ValueError)
    with pytest.raises(ValueError, match="'bad' is not a valid NumpyDtypePromotion"):
        jax.config.update("jax_numpy_dtype_promotion", "bad")
    with pytest.raises(TypeError, match="requires an argument"):
        jax.numpy_dtype_promotion()
