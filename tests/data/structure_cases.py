"""The cases of tests/data/structure_reference.json: jaxprs JAX 0.10.2 prints and values it
computes for the jnp/lax structure functions (einsum, split, set operations, searchsorted).
reference/gen_structure_reference.py evaluates them with JAX; the tests with jxkernel.

Each case is (function expression, argument expression), both in terms of `jax`, `jnp`,
`lax`, `np` and the arrays of PRELUDE. Plain data + NumPy only: importable by both sides.
"""
import json
import os

PRELUDE = """
import numpy as np
def f(*shape):      # deterministic floats, the same for every NumPy version
    return ((np.arange(int(np.prod(shape))) * 7 % 11 - 5) / 4).astype(np.float32).reshape(shape)
i1 = np.array([5, 1, 3, 3, 9, 1, 7, 0], np.int32)
i2 = np.array([3, 8, 1, 1, 6, 5, 2], np.int32)
e0 = np.zeros(0, np.int32)
fn1 = np.array([0.5, np.nan, -0.0, 2.0, 0.5, np.inf, 1.0], np.float32)
fn2 = np.array([np.nan, 0.0, 1.0, -np.inf, 2.0], np.float32)
srt = np.array([-np.inf, -1.0, 0.0, 0.0, 2.5, 2.5, 2.5, 7.0, np.nan], np.float32)
qry = np.array([[-np.inf, -2.0, -0.0, 0.0], [2.5, 3.0, 9.0, np.nan]], np.float32)
isrt = np.array([1, 3, 3, 3, 8, 10], np.int32)
iq = np.array([0, 1, 3, 4, 10, 11, -5], np.int32)
"""

_EINSUMS = {  # name: (spec, operand shapes, keyword arguments)
    "matmul": ("ij,jk->ik", [(2, 3), (3, 4)], {}),
    "batched_matvec": ("...ij,...j->...i", [(2, 3, 4), (2, 4)], {}),
    "bcast_matvec": ("...ij,...j->...i", [(5, 3, 4), (4,)], {}),
    "chain3": ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], {}),
    "chain3_unoptimized": ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], {"optimize": False}),
    "chain3_greedy": ("ij,jk,kl->il", [(2, 3), (3, 100), (100, 5)], {"optimize": "greedy"}),
    "chain3_path": ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], {"optimize": [(1, 2), (0, 1)]}),
    "chain4": ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)], {}),
    "chain5": ("ab,bc,cd,de,ef->af", [(2, 3), (3, 4), (4, 5), (5, 6), (6, 2)], {}),
    "attention_scores": ("bhqd,bhkd->bhqk", [(2, 4, 5, 8), (2, 4, 6, 8)], {}),
    "attention_out": ("bhqk,bhkd->bqhd", [(2, 4, 5, 6), (2, 4, 6, 8)], {}),
    "bilinear": ("bi,ij,bj->b", [(3, 4), (4, 5), (3, 5)], {}),
    "ellipsis_sum": ("...i,...i->...", [(1, 3), (4, 3)], {}),
    "trace": ("ii", [(3, 3)], {}),
    "diag": ("ii->i", [(3, 3)], {}),
    "diag_then_dot": ("iij,jk->ik", [(3, 3, 4), (4, 2)], {}),
    "diag_3": ("iii->i", [(2, 2, 2)], {}),
    "repeat_sum": ("iji->j", [(2, 3, 2)], {}),
    "transpose": ("ijk->kji", [(2, 3, 4)], {}),
    "outer": ("i,j->ij", [(3,), (4,)], {}),
    "dot3": ("i,i,i->", [(3,), (3,), (3,)], {}),
    "contract_two": ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)], {}),
    "implicit": ("ij,kj", [(2, 3), (4, 3)], {}),
    "unique_sum": ("ij,jk->k", [(2, 3), (3, 4)], {}),
}

JAXPRS = {f"einsum_{name}": (f"lambda *ops: jnp.einsum({spec!r}, *ops, **{kw!r})",
                             f"[f(*s) for s in {shapes!r}]")
          for name, (spec, shapes, kw) in _EINSUMS.items()}
JAXPRS.update({
    "einsum_sublists": ("lambda a, b: jnp.einsum(a, [0, 1], b, [1, 2], [0, 2])",
                        "[f(2, 3), f(3, 4)]"),
    "einsum_int8_preferred": (
        "lambda a, b: jnp.einsum('ij,j->i', a, b, preferred_element_type=np.int32)",
        "[f(2, 3).astype(np.int8), f(3).astype(np.int8)]"),
    "einsum_mixed_dtypes": ("lambda a, b: jnp.einsum('ij,jk->ik', a, b)",
                            "[f(2, 3).astype(np.int32), f(3, 4)]"),
    "einsum_vmap": ("jax.vmap(lambda a, b: jnp.einsum('ij,j->i', a, b))",
                    "[f(5, 2, 3), f(5, 3)]"),
    "einsum_grad": ("jax.grad(lambda a, b: jnp.einsum('ij,jk,k->', a, b, b[0]))",
                    "[f(2, 3), f(3, 4)]"),
    "split_sections": ("lambda x: jnp.split(x, 3)", "[f(6, 4)]"),
    "split_indices": ("lambda x: jnp.split(x, [1, 4])", "[f(6, 4)]"),
    "array_split": ("lambda x: jnp.array_split(x, 3, axis=1)", "[f(2, 4)]"),
    "hsplit": ("lambda x: jnp.hsplit(x, 2)", "[f(6, 4)]"),
    "vsplit_1d": ("lambda x: jnp.vsplit(x, [2])", "[f(6)]"),
    "lax_split": ("lambda x: lax.split(x, (2, 0, 4), 0)", "[f(6, 4)]"),
    "split_vmap": ("jax.vmap(lambda x: lax.split(x, (1, 3)), in_axes=1)", "[f(4, 5)]"),
    "split_grad": ("jax.grad(lambda x: (lax.split(x, (2, 4))[1] ** 2).sum())", "[f(6, 4)]"),
    "concatenate_grad": ("jax.grad(lambda x, y: (jnp.concatenate([x, y, x]) ** 2).sum(), "
                         "argnums=(0, 1))", "[f(2, 3), f(1, 3)]"),
    "concatenate_transpose": (
        "lambda x, y: jax.linear_transpose(lambda a, b: jnp.concatenate([a, b], 1), x, y)"
        "(jnp.ones((2, 5), np.float32))", "[f(2, 3), f(2, 2)]"),
})

VALUES = {
    "einsum_bilinear": ("lambda a, b, c: jnp.einsum('bi,ij,bj->b', a, b, c)",
                        "[f(3, 4), f(4, 5), f(3, 5)]"),
    "einsum_diag_then_dot": ("lambda a, b: jnp.einsum('iij,jk->ik', a, b)",
                             "[f(3, 3, 4), f(4, 2)]"),
}

_SETOPS = {  # name: call; run on the int and the NaN-holding float pairs ("unique": on their
    # unique values, for assume_unique=True)
    "intersect1d": "jnp.intersect1d(a, b)",
    "intersect1d_indices": "jnp.intersect1d(a, b, return_indices=True)",
    "intersect1d_unique": "jnp.intersect1d(a, b, assume_unique=True)",
    "intersect1d_unique_indices": "jnp.intersect1d(a, b, True, True)",
    "intersect1d_size": "jnp.intersect1d(a, b, size=5)",
    "intersect1d_size_fill": "jnp.intersect1d(a, b, size=5, fill_value=-1)",
    "intersect1d_size_small": "jnp.intersect1d(a, b, size=1)",
    "intersect1d_size_indices": "jnp.intersect1d(a, b, return_indices=True, size=5)",
    "intersect1d_size_unique_indices": "jnp.intersect1d(a, b, True, True, size=5)",
    "union1d": "jnp.union1d(a, b)",
    "union1d_size": "jnp.union1d(a, b, size=14)",
    "union1d_size_fill": "jnp.union1d(a, b, size=14, fill_value=100)",
    "union1d_size_small": "jnp.union1d(a, b, size=3)",
    "setdiff1d": "jnp.setdiff1d(a, b)",
    "setdiff1d_rev": "jnp.setdiff1d(b, a)",
    "setdiff1d_unique": "jnp.setdiff1d(a, b, assume_unique=True)",
    "setdiff1d_size": "jnp.setdiff1d(a, b, size=6)",
    "setdiff1d_size_fill": "jnp.setdiff1d(a, b, size=6, fill_value=-7)",
    "setdiff1d_size_unique": "jnp.setdiff1d(a, b, assume_unique=True, size=6)",
    "setdiff1d_size_small": "jnp.setdiff1d(a, b, size=1)",
    "setxor1d": "jnp.setxor1d(a, b)",
    "setxor1d_unique": "jnp.setxor1d(a, b, assume_unique=True)",
    "setxor1d_size": "jnp.setxor1d(a, b, size=12)",
    "setxor1d_size_fill": "jnp.setxor1d(a, b, size=12, fill_value=-3)",
    "setxor1d_size_unique": "jnp.setxor1d(a, b, True, size=12)",
    "setxor1d_size_small": "jnp.setxor1d(a, b, size=2)",
    "isin": "jnp.isin(a, b)",
    "isin_invert": "jnp.isin(a, b, invert=True)",
    "isin_binary_search": "jnp.isin(a, b, method='binary_search')",
    "isin_sort": "jnp.isin(a, b, method='sort')",
    "isin_sort_invert": "jnp.isin(a, b, invert=True, method='sort')",
    "isin_sort_unique": "jnp.isin(a, b, assume_unique=True, method='sort')",
}
for _name, _call in _SETOPS.items():
    _u = "unique" in _name
    VALUES[f"{_name}_int"] = (f"lambda a, b: {_call}",
                              "[np.unique(i1), np.unique(i2)]" if _u else "[i1, i2]")
    VALUES[f"{_name}_float"] = (f"lambda a, b: {_call}",
                                "[np.unique(fn1), np.unique(fn2)]" if _u else "[fn1, fn2]")
VALUES.update({
    "intersect1d_2d": ("lambda a, b: jnp.intersect1d(a, b)", "[i1.reshape(2, 4), i2[:6]]"),
    "union1d_mixed": ("lambda a, b: jnp.union1d(a, b)", "[i1, fn2]"),
    "setdiff1d_empty": ("lambda a, b: jnp.setdiff1d(a, b, size=3)", "[e0, i2]"),
    "setdiff1d_empty_b": ("lambda a, b: jnp.setdiff1d(a, b)", "[i1, e0]"),
    "setxor1d_empty": ("lambda a, b: jnp.setxor1d(a, b, size=3)", "[e0, e0]"),
    "intersect1d_empty": ("lambda a, b: jnp.intersect1d(a, b, size=3)", "[e0, i2]"),
    "intersect1d_empty_indices": ("lambda a, b: jnp.intersect1d(a, b, return_indices=True)",
                                  "[e0, i2]"),
    "isin_2d": ("lambda a, b: jnp.isin(a, b)", "[i1.reshape(2, 4), i2.reshape(7, 1)]"),
    "isin_mixed": ("lambda a, b: jnp.isin(a, b)", "[i1, fn1]"),
    "isin_empty": ("lambda a, b: jnp.isin(a, b, invert=True)", "[i1, e0]"),
    "unique_size": ("lambda a: jnp.unique(a, size=10)", "[fn1]"),
    "unique_all_size": ("lambda a: jnp.unique(a, True, True, True, size=10, fill_value=-1)",
                        "[i1]"),
})
for _method in ("scan", "compare_all", "sort", "scan_unrolled"):
    for _side in ("left", "right"):
        _kw = f"side={_side!r}, method={_method!r}"
        VALUES[f"searchsorted_{_method}_{_side}_float"] = (
            f"lambda a, v: jnp.searchsorted(a, v, {_kw})", "[srt, qry]")
        VALUES[f"searchsorted_{_method}_{_side}_int"] = (
            f"lambda a, v: jnp.searchsorted(a, v, {_kw})", "[isrt, iq]")
        VALUES[f"searchsorted_{_method}_{_side}_empty"] = (
            f"lambda a, v: jnp.searchsorted(a, v, {_kw})", "[e0, iq]")
        VALUES[f"searchsorted_{_method}_{_side}_scalar"] = (
            f"lambda a, v: jnp.searchsorted(a, v, {_kw})", "[isrt, 3]")
VALUES.update({
    "searchsorted_sorter": ("lambda a, v, s: jnp.searchsorted(a, v, sorter=s)",
                            "[i1, iq, np.argsort(i1, kind='stable')]"),
    "searchsorted_promote": ("lambda a, v: jnp.searchsorted(a, v)", "[isrt, qry]"),
    "searchsorted_complex": ("lambda a, v: jnp.searchsorted(a, v, method='compare_all')",
                             "[np.array([1, 1 + 1j, 2 - 1j, 2, np.nan], np.complex64), "
                             "np.array([1 + 0.5j, 2 - 1j, 0, np.nan], np.complex64)]"),
    "searchsorted_complex_scan": ("lambda a, v: jnp.searchsorted(a, v)",
                                  "[np.array([1, 1 + 1j, 2 - 1j, 2, np.nan], np.complex64), "
                                  "np.array([1 + 0.5j, 2 - 1j, 0, np.nan], np.complex64)]"),
    "searchsorted_vmap": ("jax.vmap(lambda a, v: jnp.searchsorted(a, v), in_axes=(None, 0))",
                          "[srt, qry]"),
    "searchsorted_bool": ("lambda a, v: jnp.searchsorted(a, v)",
                          "[np.array([False, False, True]), np.array([True, False])]"),
})

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "structure_reference.json")


def load_reference() -> dict:
    with open(REFERENCE) as f:
        return json.load(f)


def namespace(jax, jnp, lax) -> dict:
    """The names a case's expressions use, with the given implementation's modules."""
    import numpy as np
    ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(PRELUDE, ns)
    return ns
