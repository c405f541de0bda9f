"""jnp shape manipulation against NumPy (values, shapes and dtypes), eagerly and under jit;
golden jaxprs from JAX 0.10.2; errors as JAX words them."""

import functools
import re

import ml_dtypes
import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.errors import ConcretizationTypeError

from compiled import jit_together
from structure_check import JAXPRS, check_printed_jaxpr, names
from rule_checks import same_text

rng = np.random.default_rng(0)
x234 = rng.standard_normal((2, 3, 4)).astype(np.float32)
i34 = rng.integers(-5, 5, (3, 4)).astype(np.int32)
u8 = rng.integers(0, 255, (3, 4)).astype(np.uint8)
b34 = i34 > 0
bf = x234.astype(ml_dtypes.bfloat16)
v5 = np.arange(5, dtype=np.float32)


def assert_same(got, want):
    """Equal values, shape and dtype (NumPy's 64-bit results compared in 32 bits)."""
    want = np.asarray(want)
    if want.dtype == np.float64:
        want = want.astype(np.float32)
    if want.dtype == np.int64:
        want = want.astype(np.int32)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def assert_all_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w)


CASES = [  # (id, fn taking (module, *arrays), args)
    ("reshape", lambda m, x: m.reshape(x, (4, -1)), (x234,)),
    ("reshape_int", lambda m, x: m.reshape(x, -1), (i34,)),
    ("reshape_F", lambda m, x: m.reshape(x, (3, 8), order="F"), (x234,)),
    ("ravel", lambda m, x: m.ravel(x), (b34,)),
    ("ravel_F", lambda m, x: m.ravel(x, order="F"), (i34,)),
    ("transpose", lambda m, x: m.transpose(x), (x234,)),
    ("transpose_axes", lambda m, x: m.transpose(x, (1, -1, 0)), (x234,)),
    ("permute_dims", lambda m, x: m.permute_dims(x, (2, 0, 1)), (bf,)),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, -1), (x234,)),
    ("moveaxis", lambda m, x: m.moveaxis(x, 0, -1), (x234,)),
    ("moveaxis_multi", lambda m, x: m.moveaxis(x, (0, 1), (-1, 0)), (x234,)),
    ("rollaxis", lambda m, x: m.rollaxis(x, 2, 1), (x234,)),
    ("expand_dims", lambda m, x: m.expand_dims(x, (0, -1)), (i34,)),
    ("squeeze", lambda m, x: m.squeeze(x), (x234[:1, :, :1],)),
    ("squeeze_axis", lambda m, x: m.squeeze(x, -1), (x234[..., :1],)),
    ("concatenate", lambda m, x, y: m.concatenate([x, y], 1), (i34, u8)),
    ("concatenate_neg", lambda m, x: m.concatenate([x, x[:, :1]], axis=-2), (x234,)),
    ("concatenate_none", lambda m, x, y: m.concatenate([x, y], axis=None), (x234, i34)),
    ("concatenate_array", lambda m, x: m.concatenate(x, axis=1), (x234,)),
    ("concatenate_dtype", lambda m, x, y: m.concatenate([x, y], dtype=np.float32), (i34, u8)),
    ("concat", lambda m, x: m.concat([x, x], axis=0), (b34,)),
    ("stack", lambda m, x, y: m.stack([x, y], axis=-1), (i34, b34)),
    ("stack_array", lambda m, x: m.stack(x, 1), (x234,)),
    ("hstack", lambda m, x: m.hstack([x, x]), (x234,)),
    ("hstack_1d", lambda m, x: m.hstack([x, x[:2]]), (v5,)),
    ("vstack", lambda m, x: m.vstack([x, x]), (v5,)),
    ("dstack", lambda m, x, y: m.dstack([x, y]), (i34, i34)),
    ("column_stack", lambda m, x: m.column_stack([x, x * 2, x[:, None]]), (v5,)),
    ("append", lambda m, x, y: m.append(x, y), (i34, v5)),
    ("append_axis", lambda m, x: m.append(x, x[:1], axis=0), (i34,)),
    ("broadcast_to", lambda m, x: m.broadcast_to(x, (2, 3, 4)), (i34[0],)),
    ("broadcast_to_1", lambda m, x: m.broadcast_to(x, (5, 3, 4)), (x234[:1],)),
    ("flip", lambda m, x: m.flip(x), (x234,)),
    ("flip_axes", lambda m, x: m.flip(x, (0, -1)), (x234,)),
    ("fliplr", lambda m, x: m.fliplr(x), (i34,)),
    ("flipud", lambda m, x: m.flipud(x), (i34,)),
    ("roll_flat", lambda m, x: m.roll(x, 5), (x234,)),
    ("roll_axis", lambda m, x: m.roll(x, -1, axis=1), (i34,)),
    ("roll_multi", lambda m, x: m.roll(x, (1, 7), axis=(0, 2)), (x234,)),
    ("rot90", lambda m, x: m.rot90(x), (i34,)),
    ("rot90_k", lambda m, x: m.rot90(x, -1, axes=(1, 2)), (x234,)),
    ("rot90_2", lambda m, x: m.rot90(x, 2), (i34,)),
    ("tile", lambda m, x: m.tile(x, (2, 1, 2)), (i34,)),
    ("tile_int", lambda m, x: m.tile(x, 3), (v5,)),
    ("repeat", lambda m, x: m.repeat(x, 2, axis=1), (x234,)),
    ("repeat_flat", lambda m, x: m.repeat(x, 2), (i34,)),
    ("repeat_array", lambda m, x: m.repeat(x, np.array([1, 0, 3]), axis=0), (i34,)),
    ("repeat_scalar", lambda m: m.repeat(np.float32(7), 3), ()),
    ("resize", lambda m, x: m.resize(x, (4, 4)), (v5,)),
    ("tril", lambda m, x: m.tril(x), (i34,)),
    ("tril_k", lambda m, x: m.tril(x, -1), (x234,)),
    ("triu", lambda m, x: m.triu(x, 1), (x234,)),
    ("diag_1d", lambda m, x: m.diag(x, -2), (v5,)),
    ("diag_2d", lambda m, x: m.diag(x, 1), (i34,)),
    ("diagonal", lambda m, x: m.diagonal(x), (i34,)),
    ("diagonal_axes", lambda m, x: m.diagonal(x, -1, 2, 0), (x234,)),
    ("diagflat", lambda m, x: m.diagflat(x, 1), (i34[:2, :2],)),
    ("trace", lambda m, x: m.trace(x), (i34,)),
    ("trace_axes", lambda m, x: m.trace(x, 1, 1, 2), (x234,)),
    ("atleast_1d", lambda m, x: m.atleast_1d(x), (np.float32(3),)),
    ("atleast_2d", lambda m, x: m.atleast_2d(x), (v5,)),
    ("atleast_3d_1", lambda m, x: m.atleast_3d(x), (v5,)),
    ("atleast_3d_2", lambda m, x: m.atleast_3d(x), (i34,)),
]

SPLITS = [
    ("split", lambda m, x: m.split(x, 2, axis=2), (x234,)),
    ("split_idx", lambda m, x: m.split(x, [1, 3]), (v5,)),
    ("split_idx_empty", lambda m, x: m.split(x, [2, 2], axis=1), (i34,)),
    ("array_split", lambda m, x: m.array_split(x, 3, axis=-1), (x234,)),
    ("hsplit", lambda m, x: m.hsplit(x, 2), (i34,)),
    ("vsplit", lambda m, x: m.vsplit(x, [1]), (i34,)),
    ("dsplit", lambda m, x: m.dsplit(x, 2), (x234,)),
    ("broadcast_arrays", lambda m, x, y: m.broadcast_arrays(x, y), (i34, v5[:4])),
    ("atleast_2d_many", lambda m, x, y: m.atleast_2d(x, y), (v5, i34)),
    ("unstack", lambda m, x: m.unstack(x, axis=1), (i34,)),
]

PADS = [
    ("constant", {}), ("constant", {"constant_values": 7}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}),
    ("edge", {}), ("wrap", {}), ("reflect", {}), ("symmetric", {}),
    ("reflect", {"reflect_type": "odd"}), ("symmetric", {"reflect_type": "odd"}),
    ("linear_ramp", {"end_values": (-1, 5)}), ("maximum", {}), ("minimum", {"stat_length": 2}),
    ("mean", {}), ("median", {"stat_length": (1, 3)}), ("empty", {}),
]


@pytest.mark.parametrize("name,fn,args", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(name, fn, args):
    want = fn(np, *args)
    if name == "repeat_scalar":
        want = want.astype(np.float32)
    assert_same(fn(jnp, *args), want)


@pytest.mark.parametrize("name,fn,args", SPLITS, ids=[s[0] for s in SPLITS])
def test_sequences_against_numpy(name, fn, args):
    assert_all_same(fn(jnp, *args), fn(np, *args))


@pytest.mark.parametrize("mode,kw", PADS, ids=[f"{m}-{'-'.join(kw)}" for m, kw in PADS])
def test_pad(mode, kw):
    widths = ((2, 1), (0, 3))
    want = np.pad(i34, widths, mode=mode, **kw)
    got = jnp.pad(i34, widths, mode=mode, **kw)
    if mode == "empty":
        want = np.pad(i34, widths)          # JAX's empty padding is zeros
    if mode == "linear_ramp":               # JAX floors the integer ramps; NumPy rounds
        lo, hi = floored_ramp_bounds(i34, widths, kw["end_values"])
        got = np.asarray(got)
        assert got.dtype == np.int32 and got.shape == want.shape, (got.dtype, got.shape)
        assert ((lo <= got) & (got <= hi)).all(), (got, lo, hi)
        return
    assert_same(got, want)


def floored_ramp_bounds(x, widths, end_values):
    """(lo, hi): what jnp.pad(x, mode="linear_ramp") gives for integer x, axis after axis as
    it pads: JAX's integer linspace, floor(end * (1 - t) + edge * t) in float32, t = i / n.
    XLA may fuse either product into the sum (FMA, per CPU), which moves a ramp that is an
    integer by an ulp and its floor by one: such elements may be either; elsewhere lo == hi."""
    f32 = np.float32
    lo = hi = x.astype(np.float64)
    for axis, (before, after) in enumerate(widths):
        bounds = []
        for arr, pick in ((lo, np.min), (hi, np.max)):     # the ramps grow with the edge
            parts = []
            for n, edge_at, end in ((before, 0, end_values[0]), (after, -1, end_values[1])):
                edge = np.take(arr, [edge_at], axis).astype(f32)
                t = (np.arange(n, dtype=f32) / f32(n)).reshape(
                    [-1 if d == axis else 1 for d in range(x.ndim)])
                a, b = f32(end) * (f32(1) - t), edge * t
                fused_a = (np.float64(end) * (f32(1) - t) + b).astype(f32)
                fused_b = (a + edge.astype(np.float64) * t).astype(f32)
                ramp = pick(np.floor(np.stack([a + b, fused_a, fused_b])), axis=0)
                parts.append(ramp if edge_at == 0 else np.flip(ramp, axis))
            bounds.append(np.concatenate([parts[0], arr, parts[1]], axis))
        lo, hi = bounds
    return lo, hi


def test_pad_long_reflect_and_float():
    x = np.arange(3, dtype=np.float32)
    for mode in ("reflect", "symmetric", "wrap"):
        assert_same(jnp.pad(x, (7, 5), mode=mode), np.pad(x, (7, 5), mode=mode))
    assert_same(jnp.pad(x, 2, mode="linear_ramp", end_values=1.5),
                np.pad(x, 2, mode="linear_ramp", end_values=1.5))


JIT_CASES = ["reshape_F", "concatenate", "stack", "roll_multi", "rot90_k", "tile", "repeat",
             "tril_k", "diag_1d", "diagonal_axes", "trace_axes", "column_stack"]


@functools.cache
def _jit_cases_jitted():
    """jit of every case of test_jit_matches_eager, compiled together (`jit_together`)."""
    calls = {}
    for name in JIT_CASES:
        _, fn, args = next(c for c in CASES if c[0] == name)
        calls[name] = ((lambda *a, fn=fn: fn(jnp, *a)), args)
    return jit_together(jxkernel, calls)


@pytest.mark.parametrize("name", JIT_CASES)
def test_jit_matches_eager(name):
    _, fn, args = next(c for c in CASES if c[0] == name)
    assert_same(_jit_cases_jitted()[name], fn(jnp, *args))


def test_traced_roll_and_repeat():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    roll = jxkernel.jit(lambda x, s: jnp.roll(x, s, axis=1))
    for s in (-4, 0, 2, 5):
        assert_same(roll(x, s), np.roll(x, s, axis=1))
    assert_same(jxkernel.jit(lambda x, s: jnp.roll(x, s))(x, 4), np.roll(x, 4))
    # a tuple or list of traced shifts (JAX 0.10.2 rolls it: it had raised
    # TracerArrayConversionError)
    assert_same(jxkernel.jit(lambda x, s, t: jnp.roll(x, (s, t), axis=(0, 1)))(x, 1, 2),
                np.roll(x, (1, 2), axis=(0, 1)))
    assert_same(jxkernel.jit(lambda x, s: jnp.roll(x, [s, 1], axis=(0, 1)))(x, 1),
                np.roll(x, [1, 1], axis=(0, 1)))
    reps = np.array([2, 0, 1])
    rep = jxkernel.jit(lambda x, r: jnp.repeat(x, r, axis=1, total_repeat_length=3))
    assert_same(rep(x, reps), np.repeat(x, reps, axis=1))
    # a longer total repeats the last element, a shorter one cuts, as in JAX
    assert_same(jnp.repeat(x, reps, axis=1, total_repeat_length=5),
                np.array([[0, 0, 2, 2, 2], [3, 3, 5, 5, 5]]))
    assert_same(jnp.repeat(x, reps, axis=1, total_repeat_length=2), np.array([[0, 0], [3, 3]]))
    with pytest.raises(ConcretizationTypeError, match="total_repeat_length"):
        jxkernel.jit(lambda x, r: jnp.repeat(x, r))(x, reps)


def test_dtypes_and_weak_types():
    assert jnp.concatenate([np.ones(2, np.int8), np.ones(2, np.float16)]).dtype == np.float16
    assert jnp.stack([np.ones(2, np.int32), np.ones(2, np.int32)], dtype=np.float32).dtype == \
        np.float32
    w = jnp.reshape(jxkernel.device_put(2.0), (1,))
    assert w.weak_type                           # shape functions keep weak types
    assert jnp.tril(jnp.broadcast_to(jxkernel.device_put(1.0), (2, 2))).weak_type
    assert jnp.pad(jxkernel.device_put(np.ones(2, np.float16)), 1, constant_values=2.5).dtype == \
        np.float16


def test_shape_queries():
    assert jnp.shape(x234) == (2, 3, 4) and jnp.shape(3.0) == ()
    assert jnp.ndim(i34) == 2 and jnp.size(i34) == 12 and jnp.size(x234, -1) == 4
    assert jnp.broadcast_shapes((3, 1), (4,), ()) == (3, 4)
    # a tuple of axes: the product of their lengths (jnp.size's docstring in JAX 0.10.2)
    assert jnp.size(x234, axis=(1,)) == 3 and jnp.size(x234, (0, -1)) == 8 and jnp.size(x234, ()) == 1
    with pytest.raises(ValueError, match="repeated axis"):
        jnp.size(x234, (0, 0))


def test_reshape_of_numpy_data_is_numpy():
    # JAX 0.10.2's jnp.reshape calls the argument's own reshape method: NumPy data stays a
    # NumPy array (its 64-bit dtype too) and NumPy's errors apply; other values become Arrays
    got = jnp.reshape(np.arange(6), (2, -1))
    assert type(got) is np.ndarray and got.dtype == np.int64 and got.shape == (2, 3)
    np.testing.assert_array_equal(jnp.reshape(np.arange(6), (3, 2), order="F"),
                                  [[0, 3], [1, 4], [2, 5]])
    assert type(jnp.reshape(np.float32(2), (1,))) is np.ndarray
    assert isinstance(jnp.reshape(2.0, (1,)), jxkernel.Array)
    assert isinstance(jnp.reshape(jnp.arange(6), (2, 3)), jxkernel.Array)
    with pytest.raises(ValueError, match=re.escape("cannot reshape array of size 6 into shape")):
        jnp.reshape(np.arange(6), (4, 2))
    with pytest.raises(TypeError, match="reshape requires ndarray or scalar arguments"):
        jnp.reshape([1, 2], (2,))


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda: jnp.reshape(jnp.asarray(x234), (5, -1)), TypeError,
     r"cannot reshape array of shape \(2, 3, 4\) \(size 24\) into shape \(5, -1\) because the "
     r"product of specified axis sizes \(5\) does not evenly divide 24"),
    (lambda: jnp.reshape(jnp.asarray(x234), (5, 5)), TypeError,
     r"cannot reshape array of shape \(2, 3, 4\) \(size 24\) into shape \(5, 5\) \(size 25\)"),
    (lambda: jnp.reshape(jnp.asarray(x234), (-1, -1)), TypeError, "can only specify one unknown axis size"),
    (lambda: jnp.squeeze(x234, 0), ValueError,
     r"cannot select an axis to squeeze out which has size not equal to one, got "
     r"shape=\(2, 3, 4\) and dimensions=\(0,\)"),
    (lambda: jnp.transpose(i34, (0, 2)), ValueError,
     "axis 2 is out of bounds for array of dimension 2"),
    (lambda: jnp.concatenate([]), ValueError, "Need at least one array to concatenate."),
    (lambda: jnp.concatenate([np.float32(1), np.float32(2)]), ValueError,
     "Zero-dimensional arrays cannot be concatenated."),
    (lambda: jnp.stack([v5, i34]), ValueError,       # JAX's (recorded: stack_of_two_ranks)
     re.escape("Cannot stack arrays with different numbers of dimensions: got (5,), (3, 4).")),
    (lambda: jnp.split(v5, 2), ValueError,
     "array split does not result in an equal division: rest is 1"),
    (lambda: jnp.split(i34, [2, 9], axis=1), ValueError,     # NumPy clips; JAX refuses
     r"Sizes passed to split must be nonnegative, got \[2, 7, -5\]"),
    (lambda: jnp.broadcast_to(i34, (3, 5)), ValueError,
     r"Incompatible types for broadcasting: input type=int32\[3,4\] and requested "
     r"type=int32\[3,5\]"),
    (lambda: jnp.broadcast_to(i34, (4,)), ValueError,
     "Cannot broadcast to shape with fewer dimensions"),
    (lambda: jnp.broadcast_shapes((2,), (3,)), ValueError,
     "Incompatible shapes for broadcasting"),
    (lambda: jnp.moveaxis(x234, (0, 1), 2), ValueError, "Inconsistent number of elements: 2 vs 1"),
    (lambda: jnp.rot90(v5), ValueError, "rot90 requires its first argument to have ndim at least two"),
    (lambda: jnp.tril(v5), ValueError, "Argument to jax.numpy.tril must be at least 2D"),
    (lambda: jnp.diag(x234), ValueError, "diag input must be 1d or 2d"),
    (lambda: jnp.trace(i34, axis1=1, axis2=-1), ValueError, "axis1 and axis2 can not be same"),
    (lambda: jnp.pad(i34, 1, mode="bogus"), NotImplementedError,
     "Unimplemented padding mode 'bogus' for np.pad."),
    (lambda: jnp.pad(i34, 1, mode="edge", constant_values=1), ValueError,
     "unsupported keyword arguments for mode 'edge'"),
    (lambda: jnp.pad(i34, -1), ValueError, "index can't contain negative values"),
    (lambda: jnp.pad(i34, ((1, 2, 3),)), ValueError, "has unsupported shape"),
    (lambda: jnp.reshape([1, 2], (2,)), TypeError, "reshape requires ndarray or scalar arguments"),
    (lambda: jnp.repeat(v5, [1, 2]), TypeError,
     "repeat requires ndarray or scalar arguments, got <class 'list'> at position 1."),
])
def test_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


GOLDEN = {  # printed by JAX 0.10.2 for a f32[2,3] argument
    "reshape": (lambda x: jnp.reshape(x, (3, -1)), """{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = reshape[dimensions=None new_sizes=(3, 2) sharding=None] a
  in (b,) }"""),
    "transpose": (lambda x: jnp.transpose(x), """{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = transpose[permutation=(1, 0)] a
  in (b,) }"""),
    "concatenate": (lambda x: jnp.concatenate([x, x], 1),
                    "{ lambda ; a:f32[2,3]. let b:f32[2,6] = concatenate[dimension=1] a a in (b,) }"),
    "concatenate_wide": (lambda x: jnp.concatenate([x] * 20), """{ lambda ; a:f32[2,3]. let
    b:f32[40,3] = concatenate[dimension=0] a a a a a a a a a a a a a a a a a a a a
  in (b,) }"""),
    "stack": (lambda x: jnp.stack([x, x], 1),
              "{ lambda ; a:f32[2,3]. let b:f32[2,2,3] = stack[axis=1] a a in (b,) }"),
    "expand_dims": (lambda x: jnp.expand_dims(x, (0, 3)), """{ lambda ; a:f32[2,3]. let
    b:f32[1,2,3,1] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a
  in (b,) }"""),
    "broadcast_to": (lambda x: jnp.broadcast_to(x, (4, 2, 3)), """{ lambda ; a:f32[2,3]. let
    b:f32[4,2,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a
  in (b,) }"""),
    "moveaxis": (lambda x: jnp.moveaxis(x, 0, -1), """{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = transpose[permutation=(1, 0)] a
  in (b,) }"""),
    "repeat": (lambda x: jnp.repeat(x, 2, axis=0), """{ lambda ; a:f32[2,3]. let
    b:f32[2,2,3] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a
    c:f32[4,3] = reshape[dimensions=None new_sizes=(4, 3) sharding=None] b
  in (c,) }"""),
    "ravel": (jnp.ravel, """{ lambda ; a:f32[2,3]. let
    b:f32[6] = reshape[dimensions=None new_sizes=(6,) sharding=None] a
  in (b,) }"""),
    "squeeze": (lambda x: jnp.squeeze(x[None]), """{ lambda ; a:f32[2,3]. let
    b:f32[1,2,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a
    c:f32[2,3] = squeeze[dimensions=(0,)] b
  in (c,) }"""),
}


@pytest.mark.parametrize("name", list(GOLDEN))
def test_golden_jaxprs(name):
    fn, want = GOLDEN[name]
    got = str(jxkernel.make_jaxpr(fn)(np.ones((2, 3), np.float32)))
    same_text(got, want)


def test_stack_and_wide_concatenate_run_eagerly_as_one_program(monkeypatch):
    """Eagerly, jnp.stack of 24 scalars and jnp.concatenate of 20 arrays each run one
    primitive (one XLA program), as in JAX: not an expand_dims per array and a concatenate
    per group of 16 (the random-numbers guide's `jnp.stack(draws)` compiled 4 programs,
    issue 38). The 16-at-a-time tree is in the lowering: values as NumPy's, jit or not."""
    from jxkernel.core import Primitive
    ran, bind = [], Primitive.bind      # (bind, not the eager hook: a compiled hit skips that)

    def counting(prim, *args, **params):
        ran.append(prim.name)
        return bind(prim, *args, **params)
    scalars = [jnp.asarray(np.float32(i)) for i in range(24)]
    rows = [jnp.asarray(np.full((1, 3), i, np.int16)) for i in range(20)]
    monkeypatch.setattr(Primitive, "bind", counting)
    stacked, joined = jnp.stack(scalars), jnp.concatenate(rows, axis=1)
    monkeypatch.undo()
    assert ran == ["stack", "concatenate"]
    np.testing.assert_array_equal(stacked, np.arange(24, dtype=np.float32))
    want = np.concatenate([np.asarray(r) for r in rows], axis=1)
    np.testing.assert_array_equal(joined, want)
    np.testing.assert_array_equal(jxkernel.jit(lambda *r: jnp.concatenate(r, 1))(*rows), want)


@pytest.mark.parametrize("name", names("split", JAXPRS) + names("array_split", JAXPRS) +
                         names("hsplit", JAXPRS) + names("vsplit", JAXPRS) +
                         names("lax_split", JAXPRS) + names("concatenate", JAXPRS))
def test_split_jaxprs_match_jax(name):
    """jnp.split & co. are one `split` equation, as is concatenate's transpose (JAX 0.10.2's
    printed jaxprs, tests/data/structure_reference.json)."""
    check_printed_jaxpr(name)


def test_roll_with_static_shifts_is_a_nested_jit_as_in_jax():
    closed = jxkernel.make_jaxpr(lambda x: jnp.roll(x, 1, 1))(np.ones((3, 4), np.float32))
    text = str(closed)
    assert "name=_roll_static" in text and text.count("slice[") == 2
    assert "start_indices=(0, 3)" in text and "strides=(1, 1)" in text     # JAX's slices


def test_pad_with_a_callable_mode():
    # NumPy's callable mode, as JAX 0.10.2 runs it (jnp.pad's docstring): zeros padded on,
    # then the function fills each 1-D slice's ends, axis by axis; NumPy's answers, exactly
    def custom_pad(row, pad_width, iaxis, kwargs):
        before, after = pad_width
        return row.at[:before].set(kwargs.get("before_value", 0)) \
            .at[len(row) - after:].set(kwargs.get("after_value", 0))

    def np_pad(row, pad_width, iaxis, kwargs):
        before, after = pad_width
        row[:before] = kwargs.get("before_value", 0)
        row[len(row) - after:] = kwargs.get("after_value", 0)

    x = np.array([2, 3, 4], np.int32)
    got = jnp.pad(x, 2, custom_pad, before_value=-10, after_value=10)
    np.testing.assert_array_equal(np.asarray(got), [-10, -10, 2, 3, 4, 10, 10])
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = jnp.pad(m, ((1, 0), (0, 2)), custom_pad, after_value=7)
    np.testing.assert_array_equal(np.asarray(got), np.pad(m, ((1, 0), (0, 2)), np_pad, after_value=7))
    assert got.dtype == np.int32
