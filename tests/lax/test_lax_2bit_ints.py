"""int2 and uint2 through the ops XLA's CPU backend mishandles at that width (concatenate
aborts the process, argmax/argmin and a sort with indices do not compile, a sort or top_k
of the values alone comes out in no order): lowered on int8 (uint8) by
`lax._lowering.widen_2bit`, each under jit gives exactly the same op on int8 (uint8), whose
values an int2 (uint2) holds (docs/jaxlib.md, §10)."""
import ml_dtypes
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from fresh_process import run_code

NARROW = {"int2": np.dtype(np.int8), "uint2": np.dtype(np.uint8)}


def values(name, shape=(5, 7), seed=0):
    """Every value of the dtype, with many ties, as the int8 (uint8) that holds them."""
    info = ml_dtypes.iinfo(np.dtype(name))
    rng = np.random.default_rng(seed)
    return rng.integers(info.min, info.max + 1, shape).astype(NARROW[name])


def _reduce_pairs(a):
    """lax.reduce over (values, column indices): the last largest value and its index."""
    i = lax.broadcasted_iota(np.int32, a.shape, 1)

    def pick(x, y):
        take_y = y[0] >= x[0]
        return jnp.where(take_y, y[0], x[0]), jnp.where(take_y, y[1], x[1])
    return lax.reduce((a, i), (a[0, 0], np.int32(0)), pick, (1,))


def _reduce_same_dtype(a):
    """lax.reduce of two 2-bit operands: a sum that wraps in the dtype, and a max. XLA
    runs it unwidened too; this checks the widened reduce's region still computes in 2 bits
    (run on the int8 values as they are, its sum would not wrap, and its types mismatch)."""
    return lax.reduce((a, a), (jnp.zeros((), a.dtype), a[0, 0]),
                      lambda x, y: (x[0] + y[0], jnp.maximum(x[1], y[1])), (0,))


OPS = {
    "sort_axis1": lambda a: jnp.sort(a, axis=1),
    "sort_axis0": lambda a: jnp.sort(a, axis=0),
    "sort_flat_descending": lambda a: jnp.sort(a, axis=None, descending=True),
    "argsort_axis1": lambda a: jnp.argsort(a, axis=1),
    "argsort_axis0_descending": lambda a: jnp.argsort(a, axis=0, descending=True),
    "sort_key_val": lambda a: lax.sort_key_val(a[0], a[1]),
    "sort_two_keys": lambda a: lax.sort((a[0], a[1], a[2]), num_keys=2),
    "lexsort": lambda a: jnp.lexsort((a[0], a[1])),
    "top_k": lambda a: lax.top_k(a, 3),
    "top_k_axis0": lambda a: lax.top_k(a, 4, axis=0),
    "argmax_axis1": lambda a: jnp.argmax(a, axis=1),
    "argmin_axis0": lambda a: jnp.argmin(a, axis=0),
    "argmax_flat": lambda a: jnp.argmax(a),
    "unique": lambda a: jnp.unique(a, size=4),
    "unique_all": lambda a: jnp.unique(a, return_index=True, return_inverse=True,
                                       return_counts=True, size=5, fill_value=0),
    "reduce_with_indices": _reduce_pairs,
    "reduce_same_dtype": _reduce_same_dtype,
    "vmap_sort": jax.vmap(jnp.sort),
    "vmap_argmax": jax.vmap(jnp.argmax),
}


def _wrapped(x, name):
    """A result computed on int8 (uint8) as the 2-bit dtype has it (its low bits; integer
    results such as indices as they are)."""
    x = np.asarray(x)
    return x.astype(np.dtype(name)) if x.dtype == NARROW[name] else x


@pytest.mark.parametrize("name", sorted(NARROW))
@pytest.mark.parametrize("op", sorted(OPS))
def test_2bit_op_under_jit_is_the_op_on_8_bits(op, name):
    x = values(name)
    got = jax.tree_util.tree_leaves(jax.jit(OPS[op])(x.astype(np.dtype(name))))
    want = jax.tree_util.tree_leaves(jax.jit(OPS[op])(x))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = _wrapped(w, name)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(np.asarray(g).astype(np.int64), w.astype(np.int64)), (g, w)


def test_2bit_sort_and_top_k_match_numpy():
    # the 8-bit path is not its own proof: NumPy's stable order, written out
    for name in NARROW:
        x = values(name, (4, 9), seed=1)
        y = x.astype(np.dtype(name))
        assert np.array_equal(np.asarray(jax.jit(jnp.sort)(y)).astype(np.int64),
                              np.sort(x, axis=-1))
        order = np.argsort(-x.astype(np.int64), axis=-1, kind="stable")[:, :3]
        top, idx = jax.jit(lambda a: lax.top_k(a, 3))(y)
        assert np.array_equal(np.asarray(idx), order)
        assert np.array_equal(np.asarray(top).astype(np.int64),
                              np.take_along_axis(x, order, -1))
        argmin = jax.jit(lambda a: jnp.argmin(a, axis=0))
        assert np.array_equal(np.asarray(argmin(y)), np.argmin(x, 0))


def test_2bit_concatenate_under_jit_in_a_fresh_process():
    # XLA's CPU aborts the whole process on an unwidened 2-bit concatenate (ir_array.cc
    # "Check failed: bit_offset != nullptr"): run where an abort fails only this test
    run_code("""
        import ml_dtypes, numpy as np
        import jxkernel as jax, jxkernel.numpy as jnp
        from jxkernel import lax
        fns = [lambda a: jnp.concatenate([a, a], axis=0),
               lambda a: jnp.concatenate([a, a], axis=1),
               lambda a: jnp.concatenate([a, a[:, ::-1], a[:, :2]], axis=1),
               lambda a: lax.concatenate([a[i:i + 1] for i in range(5)] * 4, 0),  # a tree
               lambda a: jnp.stack([a, a], axis=1)]
        for name, wide in (("int2", np.int8), ("uint2", np.uint8)):
            info = ml_dtypes.iinfo(np.dtype(name))
            x = np.random.default_rng(0).integers(info.min, info.max + 1, (5, 7)).astype(wide)
            for fn in fns:
                got = jax.jit(fn)(x.astype(np.dtype(name)))
                want = np.asarray(jax.jit(fn)(x))
                assert got.dtype == np.dtype(name) and got.shape == want.shape
                assert np.array_equal(np.asarray(got).astype(wide), want), (name, got, want)
        print("ok")
    """)
