"""Axes and sizes at the edge of what jnp's shape functions take, found by a wider run of the
differential fuzzer (conformance/fuzz.py's way, more functions) at stop 104: run alike by real
JAX 0.10.2 (reference/make_axis_edges_reference.py records axis_edges_reference.json) and by
jxkernel (tests/numpy/test_axis_edges.py). Per case: the result's shapes (and values, small
whole numbers, exact on both sides), or the error's class and first line.

- split / array_split of 0-, 1- and 2-D arrays along axes in and out of bounds, and h/v/dsplit
  of each rank: JAX raises IndexError (it reads ary.shape[axis]) where jxkernel raised
  ValueError;
- repeat of a 0-d array along any axis: JAX fills it (it never reads the axis there);
- compress / extract given a size larger than the axis: JAX's ValueError, where jxkernel padded;
- sort_complex of a 0-d array: JAX's ValueError (no last axis), where jxkernel returned it;
- grad of lax.cummax/cummin/cumprod/cumlogsumexp along a negative axis: JAX's jvp scans along
  it as jnp would (the primitive itself refuses negative axes), where jxkernel's raised; out of
  bounds, JAX's ValueError, where jxkernel's raised IndexError;
- jnp.eye's k not a scalar integer (1.5, [1], a traced float): JAX's ValueError, where jxkernel
  raised operator.index's TypeError;
- compress / extract without size under jit, even of a constant condition: JAX's
  TracerBoolConversionError (it tests the entries past the axis, none or some, with a traced
  reduction), where jxkernel answered (the wide differential fuzzer, stop 105, seed 3308);
- lax.cumsum/cummax of a bool array along an axis out of bounds: JAX's axis error first (its
  shape rule comes before its dtype rule), where jxkernel named the dtype.
"""
import numpy as np


def _outcome(f):
    try:
        out = f()
    except Exception as e:              # what was raised is a fact too
        return [type(e).__name__, str(e).split("\n")[0]]
    leaves = out if isinstance(out, list) else [out]
    return ["ok", [[list(np.shape(a)), _values(np.asarray(a))] for a in leaves]]


def _values(a):
    """The values as JSON has them: a complex number as its [real, imaginary] pair."""
    return np.stack([a.real, a.imag], -1).tolist() if a.dtype.kind == "c" else a.tolist()


def _splits(jnp):
    arrays = {"0d": np.float32(1), "1d": np.arange(4, dtype=np.float32),
              "2d": np.arange(8, dtype=np.float32).reshape(2, 4)}
    out = {}
    for name in ("split", "array_split"):
        for rank, a in arrays.items():
            for axis in (0, 1, -1, -2, 2, -3):
                out[f"{name}_{rank}_axis_{axis}"] = \
                    lambda name=name, a=a, axis=axis: getattr(jnp, name)(a, 2, axis=axis)
    arrays["3d"] = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    for name in ("hsplit", "vsplit", "dsplit"):
        for rank, a in arrays.items():
            out[f"{name}_{rank}"] = lambda name=name, a=a: getattr(jnp, name)(a, 2)
    return out


def _cumulative_grads(jax):
    """grad of lax's cumulative reductions summed, along axes -1 (JAX takes it under grad
    alone), -3 and 2 of a matrix: whole-number gradients (cumlogsumexp's: its shape)."""
    lax = jax.lax
    x = np.array([[1.0, 3.0, 2.0], [4.0, 1.0, 5.0]], np.float32)
    out = {}
    for name in ("cumsum", "cummax", "cummin", "cumprod", "cumlogsumexp"):
        for axis in (-1, -3, 2):
            def grad(name=name, axis=axis):
                g = jax.grad(lambda a: getattr(lax, name)(a, axis=axis).sum())(x)
                return np.shape(g) if name == "cumlogsumexp" else g
            out[f"grad_{name}_axis_{axis}"] = grad
    flags = np.array([[True, False]])
    for name in ("cumsum", "cummax"):
        for axis in (-1, 2, 0):
            out[f"bool_{name}_axis_{axis}"] = \
                lambda name=name, axis=axis: getattr(lax, name)(flags, axis=axis)
    return out


def run(jax):
    jnp = jax.numpy
    vector = np.array([1.0, -2.0, 3.0, 4.0], np.float32)
    cases = {
        **_splits(jnp), **_cumulative_grads(jax),
        "split_jit_axis_past_the_rank": lambda: jax.jit(lambda a: jnp.split(a, 2, axis=3))(
            np.ones((2, 4), np.float32)),
        "repeat_0d_axis_1": lambda: jnp.repeat(np.float32(3), 2, axis=1),
        "repeat_0d_axis_minus_5": lambda: jnp.repeat(np.float32(3), 2, axis=-5),
        "repeat_0d_axis_1_total_length": lambda: jnp.repeat(np.float32(3), 3, axis=1,
                                                            total_repeat_length=3),
        "repeat_vmap_axis_1": lambda: jax.vmap(lambda x: jnp.repeat(x, 2, axis=1))(vector),
        "repeat_1d_axis_1": lambda: jnp.repeat(vector, 2, axis=1),
        "extract_size_past_the_elements": lambda: jnp.extract(vector > 0, vector, size=6),
        "extract_size_of_the_elements": lambda: jnp.extract(vector > 0, vector, size=4),
        "extract_0d_size_2": lambda: jnp.extract(np.bool_(True), np.float32(3), size=2),
        "extract_vmap_size_2": lambda: jax.vmap(lambda x: jnp.extract(x > 0, x, size=2))(vector),
        "extract_jit_size_past": lambda: jax.jit(lambda x: jnp.extract(x > 0, x, size=6))(
            vector),
        "compress_size_past_the_axis": lambda: jnp.compress(
            np.array([True, False]), np.ones((2, 3), np.float32), axis=0, size=3),
        "compress_negative_size": lambda: jnp.compress(np.array([True, False]), vector[:2],
                                                       size=-1),
        "eye_k_float": lambda: jnp.eye(2, 3, k=1.5),
        "eye_k_bool": lambda: jnp.eye(2, 3, k=True),
        "eye_k_vector": lambda: jnp.eye(2, 3, k=np.array([1])),
        "eye_k_numpy_int": lambda: jnp.eye(2, 3, k=np.int8(1)),
        "eye_k_0d_array": lambda: jnp.eye(2, 3, k=np.array(-1)),
        "eye_k_float_array_jit": lambda: jax.jit(lambda k: jnp.eye(2, 3, k=k))(np.float32(1)),
        "eye_k_traced_int": lambda: jax.jit(lambda k: jnp.eye(2, 3, k=k))(np.int32(1)),
        "sort_complex_0d": lambda: jnp.sort_complex(np.float32(1)),
        "sort_complex_1d": lambda: jnp.sort_complex(np.array([2.0, 1.0], np.float32)),
        "compress_short_condition_size": lambda: jnp.compress(np.array([True]), vector, size=2),
        "jit_compress_short_condition": lambda: jax.jit(
            lambda x: jnp.compress(np.array([True, False]), x))(vector),
        "jit_compress_full_condition": lambda: jax.jit(
            lambda x: jnp.compress(np.array([True, False, True, True]), x))(vector),
        "jit_compress_long_condition": lambda: jax.jit(
            lambda x: jnp.compress(np.array([True, False, True, True, False]), x))(vector),
        "jit_extract_constant_mask": lambda: jax.jit(
            lambda x: jnp.extract(np.array([True, False, True, True]), x))(vector),
        "jit_compress_size": lambda: jax.jit(
            lambda x: jnp.compress(np.array([True, False]), x, size=1))(vector),
        "vmap_compress_constant_condition": lambda: jax.vmap(
            lambda x: jnp.compress(np.array([True, False]), x))(np.ones((2, 3), np.float32)),
    }
    return {name: _outcome(f) for name, f in cases.items()}
