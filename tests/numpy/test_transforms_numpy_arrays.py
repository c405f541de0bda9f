"""vmap, jit and grad over jnp's reductions, shape functions, products, sorting, indexing
(x[idx], x.at[idx]) and the creation functions that take arrays: the laws of
tests/data/transform_check.py for every case of the table below."""
import jxkernel.numpy as jnp

from transform_check import C, transform_tests

M, V = "2,4", "4"              # the shapes most cases share (so their eager compiles are shared)
X, W = f"x:{M}", f"w:{M}"


def reduction(name, kind="w", axes=(None, 0, 1, (0, 1)), keepdims=True, grad="auto",
              vgrad=False, jit_grad=False):
    """Cases of jnp.`name` over `axes` (and axis=1 with keepdims); the axis=1 case (else the
    first) also checks vmap(grad) / the jit path when asked."""
    fn, tag = getattr(jnp, name), "" if kind == "w" else f"{kind}, "
    extra = 1 if 1 in axes else axes[0]
    cases = [C(f"{name}({tag}axis={ax})", lambda x, ax=ax: fn(x, axis=ax), f"{kind}:{M}",
               grad=grad, vgrad=vgrad and ax == extra, jit_grad=jit_grad and ax == extra)
             for ax in axes]
    if keepdims:
        cases.append(C(f"{name}({tag}axis=1, keepdims)", lambda x: fn(x, axis=1, keepdims=True),
                       f"{kind}:{M}", grad=grad))
    return cases


REDUCTIONS = [
    *reduction("sum", vgrad=True), *reduction("prod", "x", (None, 1)),
    *reduction("max", axes=(None, 0), vgrad=True), *reduction("min", axes=(1, (0, 1))),
    *reduction("mean", axes=(0, (0, 1)), jit_grad=True), *reduction("var", axes=(None, 1)),
    *reduction("std", axes=(0,)), *reduction("ptp", axes=(1,), keepdims=False),
    *reduction("nansum", axes=(None,), keepdims=False),
    *reduction("nanmean", axes=(0,), keepdims=False),
    *reduction("nanmax", axes=(1,), keepdims=False),
    *reduction("nanmin", axes=(None,), keepdims=False),
    *reduction("nanstd", axes=(0,), keepdims=False),
    *reduction("nanprod", "x", axes=(1,), keepdims=False),
    *reduction("median", axes=(None, 1), vgrad=True),
    *reduction("nanmedian", axes=(1,), keepdims=False),
    *reduction("argmax", axes=(None, 0), grad="zero"),
    *reduction("argmin", axes=(1,), grad="zero"),
    *reduction("nanargmax", axes=(1,), keepdims=False, grad="zero"),
    *reduction("nanargmin", axes=(None,), keepdims=False, grad="zero"),
    *reduction("sum", "e", axes=(1,), keepdims=False), *reduction("max", "e", axes=(0,)),
    *reduction("sum", "z", axes=(1,), keepdims=False),
    *reduction("prod", "n", axes=(0,), keepdims=False),
    *reduction("all", "b", axes=(None, 1)), *reduction("any", "b", axes=(0,), keepdims=False),
    *reduction("count_nonzero", "i", axes=(None, 1)),
    *reduction("sum", "i", axes=(None, 0), keepdims=False),
    *reduction("max", "i", axes=(1,), keepdims=False),
    C("sum(where)", lambda x, m: jnp.sum(x, axis=1, where=m), W, f"b:{M}"),
    C("max(initial, where)", lambda x, m: jnp.max(x, axis=0, initial=-5.0, where=m), W,
      f"b:{M}"),
    C("mean(where)", lambda x, m: jnp.mean(x, axis=1, where=m | (jnp.arange(4) == 0)), W,
      f"b:{M}"),
    C("var(ddof=1)", lambda x: jnp.var(x, axis=1, ddof=1), W),
    C("average", lambda x, w: jnp.average(x, axis=1, weights=w), W, f"p:{M}"),
    C("average(1-D weights)", lambda x, w: jnp.average(x, axis=1, weights=w), W, f"p:{V}"),
    C("quantile", lambda x, q: jnp.quantile(x, q, axis=1), W, "h:"),
    C("quantile(q array)", lambda x, q: jnp.quantile(x, q), W, "h:3"),
    C("percentile(nearest)", lambda x: jnp.percentile(x, 30.0, axis=0, method="nearest"), W),
    C("nanquantile", lambda x: jnp.nanquantile(x, 0.3, axis=1), W),
    C("cumsum(z)", lambda x: jnp.cumsum(x, axis=0), f"z:{M}"),
    *[C(f"{n}(axis={ax})", lambda x, n=n, ax=ax: getattr(jnp, n)(x, axis=ax), f"{k}:{M}",
        vgrad=n == "cumsum")
      for n, k, ax in [("cumsum", "w", 1), ("cumsum", "w", 0), ("cumprod", "x", 1),
                       ("nancumsum", "w", 0), ("nancumprod", "x", 1)]],
    C("cumsum(axis=None)", jnp.cumsum, W),
    C("cumsum(i)", lambda x: jnp.cumsum(x, axis=1), f"i:{M}"),
    C("cumulative_sum(include_initial)",
      lambda x: jnp.cumulative_sum(x, axis=1, include_initial=True), W),
    C("cumulative_prod", lambda x: jnp.cumulative_prod(x, axis=0), f"x:{M}"),
]

SHAPES = [
    C("reshape", lambda x: jnp.reshape(x, (4, 2)), W),
    C("reshape(order=F)", lambda x: jnp.reshape(x, (8,), order="F"), W),
    C("ravel", jnp.ravel, W), C("transpose", jnp.transpose, W),
    C("transpose(3-D)", lambda x: jnp.transpose(x, (2, 0, 1)), "w:2,4,3"),
    C("swapaxes", lambda x: jnp.swapaxes(x, 0, 2), "w:2,4,3"),
    C("moveaxis", lambda x: jnp.moveaxis(x, 0, -1), "w:2,4,3"),
    C("permute_dims", lambda x: jnp.permute_dims(x, (1, 0)), W),
    C("matrix_transpose", jnp.matrix_transpose, "w:2,4,3"),
    C("expand_dims", lambda x: jnp.expand_dims(x, (0, 2)), W),
    C("squeeze", jnp.squeeze, "w:2,1,4"), C("squeeze(axis)", lambda x: jnp.squeeze(x, 1),
                                            "w:2,1,4"),
    C("x[None, ..., None]", lambda x: x[None, ..., None], W),
    C("concatenate", lambda x, y: jnp.concatenate([x, y]), W, W),
    C("concatenate(axis=1)", lambda x, y: jnp.concatenate([x, y], axis=1), W, "w:2,3"),
    C("concatenate(axis=None)", lambda x, y: jnp.concatenate([x, y], axis=None), W, f"w:{V}"),
    C("append", lambda x, y: jnp.append(x, y, axis=0), W, "w:1,4"),
    C("concat", lambda x, y: jnp.concat([x, y], axis=1), W, f"i:{M}"),
    C("stack", lambda x, y: jnp.stack([x, y]), W, W),
    C("stack(axis=-1)", lambda x, y: jnp.stack([x, y], axis=-1), W, W),
    C("hstack", lambda x, y: jnp.hstack([x, y]), W, W),
    C("vstack", lambda x, y: jnp.vstack([x, y]), W, f"w:{V}"),
    C("dstack", lambda x, y: jnp.dstack([x, y]), W, W),
    C("column_stack", lambda x, y: jnp.column_stack([x, y]), f"w:{V}", W.replace(M, "4,2")),
    C("split", lambda x: jnp.split(x, 2, axis=1), W),
    C("split(sections)", lambda x: jnp.split(x, [1, 3], axis=1), W),
    C("array_split", lambda x: jnp.array_split(x, 3, axis=1), W),
    C("unstack", jnp.unstack, W),
    C("hsplit", lambda x: jnp.hsplit(x, 2), W), C("vsplit", lambda x: jnp.vsplit(x, 2), W),
    C("dsplit", lambda x: jnp.dsplit(x, [1]), "w:2,4,3"),
    C("rollaxis", lambda x: jnp.rollaxis(x, 2), "w:2,4,3"),
    C("broadcast_to", lambda x: jnp.broadcast_to(x, (2, 4)), f"w:{V}"),
    C("broadcast_arrays", lambda x, y: jnp.broadcast_arrays(x, y), "w:2,1", f"w:{V}"),
    C("flip", jnp.flip, W), C("flip(axis=1)", lambda x: jnp.flip(x, 1), W),
    C("fliplr", jnp.fliplr, W),
    C("roll", lambda x: jnp.roll(x, 3), W), C("roll(axis)", lambda x: jnp.roll(x, -1, 1), W),
    C("roll(traced shift)", lambda x, s: jnp.roll(x, s, axis=1), W, "k4:"),
    C("rot90(k=3)", lambda x: jnp.rot90(x, 3), W),
    C("tile", lambda x: jnp.tile(x, (2, 1)), W), C("tile(1-D)", lambda x: jnp.tile(x, 3),
                                                   f"w:{V}"),
    C("repeat", lambda x: jnp.repeat(x, 2, axis=1), W),
    C("repeat(array)", lambda x: jnp.repeat(x, jnp.array([1, 0, 2, 1]), axis=1,
                                            total_repeat_length=4), W),
    C("repeat(traced)", lambda x, r: jnp.repeat(x, r, axis=1, total_repeat_length=6), W,
      "k3:4"),
    C("pad", lambda x: jnp.pad(x, ((1, 0), (2, 1))), W),
    C("pad(edge)", lambda x: jnp.pad(x, 1, mode="edge"), W),
    C("pad(reflect)", lambda x: jnp.pad(x, ((0, 1), (2, 2)), mode="reflect"), W),
    C("pad(wrap)", lambda x: jnp.pad(x, 2, mode="wrap"), W),
    C("pad(traced value)", lambda x, v: jnp.pad(x, 1, constant_values=v), W, "w:"),
    C("tril", jnp.tril, "w:4,4"), C("triu(k=1)", lambda x: jnp.triu(x, 1), W),
    C("diag(1-D)", jnp.diag, f"w:{V}"), C("diag(2-D, k=1)", lambda x: jnp.diag(x, 1), W),
    C("diagonal", lambda x: jnp.diagonal(x, 1), W),
    C("diagonal(3-D)", lambda x: jnp.diagonal(x, 0, 1, 2), "w:2,4,3"),
    C("diagflat", jnp.diagflat, "w:2,2"),
    C("trace", jnp.trace, W), C("trace(offset)", lambda x: jnp.trace(x, -1), "w:4,4"),
    C("atleast_3d", jnp.atleast_3d, W), C("atleast_2d(scalar)", jnp.atleast_2d, "w:"),
    C("atleast_1d(2 args)", jnp.atleast_1d, "w:", f"i:{V}"),
    C("resize", lambda x: jnp.resize(x, (3, 3)), W),
]

PRODUCTS = [
    C("dot", jnp.dot, W, "w:4,3", vgrad=True, jit_grad=True),
    C("dot(1-D, 1-D)", jnp.dot, f"w:{V}", f"w:{V}"),
    C("dot(2-D, 1-D)", jnp.dot, W, f"w:{V}"),
    C("dot(scalar)", jnp.dot, W, "w:"),
    C("matmul", jnp.matmul, W, "w:4,3"),
    C("matmul(batched)", jnp.matmul, "w:2,2,4", "w:4,3"),
    C("matmul(1-D, 2-D)", jnp.matmul, f"w:{V}", "w:4,3"),
    C("x @ y", lambda x, y: x @ y, W, f"w:{V}"),
    C("matmul(i)", jnp.matmul, f"i:{M}", "i:4,3"),
    C("vdot", jnp.vdot, W, W), C("vdot(c)", jnp.vdot, f"c:{V}", f"c:{V}"),
    C("inner", jnp.inner, W, "w:3,4"), C("outer", jnp.outer, f"w:{V}", "w:3"),
    C("tensordot(axes=1)", lambda x, y: jnp.tensordot(x, y, 1), W, "w:4,3"),
    C("tensordot(axes=2)", lambda x, y: jnp.tensordot(x, y, 2), W, W),
    C("tensordot(pairs)", lambda x, y: jnp.tensordot(x, y, ([0], [1])), W, "w:3,2"),
    C("vecdot", jnp.vecdot, W, f"w:{V}"), C("matvec", jnp.matvec, W, f"w:{V}"),
    C("vecmat", jnp.vecmat, "w:2", W),
    C("kron", jnp.kron, "w:2,2", "w:2,3"), C("cross", jnp.cross, "w:2,3", "w:2,3"),
    C("cross(2-D vectors)", jnp.cross, "w:2,2", "w:2,2"),
    *[C(f"einsum({s})", lambda *xs, s=s: jnp.einsum(s, *xs), *specs,
        vgrad=s == "ij,jk->ik", jit_grad=s == "bij,bjk->bik") for s, specs in [
        ("ij,jk->ik", (W, "w:4,3")), ("ij,ij->i", (W, W)), ("ij->j", (W,)), ("ij->", (W,)),
        ("ij,kj->ik", (W, "w:3,4")), ("i,j->ij", (f"w:{V}", "w:3")), ("ii->i", ("w:4,4",)),
        ("ji", (W,)), ("bij,bjk->bik", ("w:2,2,4", "w:2,4,3")), ("ij,j,jk", (W, f"w:{V}",
                                                                             "w:4,3")),
        ("...j,j->...", ("w:2,4,3", "w:3"))]],
]

SORTING = [
    C("sort", jnp.sort, W, vgrad=True, jit_grad=True),
    C("sort(axis=0)", lambda x: jnp.sort(x, axis=0), W),
    C("sort(axis=None)", lambda x: jnp.sort(x, axis=None), W),
    C("sort(descending)", lambda x: jnp.sort(x, descending=True), W),
    C("sort(i)", jnp.sort, f"i:{M}"),
    C("argsort", jnp.argsort, W, grad="zero"),
    C("argsort(axis=0,descending)", lambda x: jnp.argsort(x, axis=0, descending=True), W,
      grad="zero"),
    C("x[argsort]", lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1), W),
    C("partition", lambda x: jnp.partition(x, 2), W),
    C("argpartition", lambda x: jnp.argpartition(x, 1, axis=0), W, grad="zero"),
    C("lexsort", lambda a, b: jnp.lexsort((a, b)), f"k3:{M}", f"k2:{M}"),
    C("sort_complex", jnp.sort_complex, f"c:{V}", grad=None),
    C("searchsorted", lambda a, v: jnp.searchsorted(jnp.sort(a), v), "w:6", f"w:{V}",
      grad="zero"),
    C("searchsorted(right)", lambda a, v: jnp.searchsorted(jnp.sort(a), v, side="right"),
      "i:6", f"i:{V}"),
    C("unique(size)", lambda x: jnp.unique(x, size=5, fill_value=-1), "k4:6"),
    C("nonzero(size)", lambda x: jnp.nonzero(x, size=4), f"k2:{M}"),
    C("argwhere(size)", lambda x: jnp.argwhere(x, size=3), f"b:{M}"),
    C("flatnonzero(size)", lambda x: jnp.flatnonzero(x, size=3), f"b:{V}"),
    C("where(size)", lambda x: jnp.where(x > 0, size=3, fill_value=9), W, grad=None),
    C("compress(size)", lambda c, x: jnp.compress(c, x, axis=1, size=2), f"b:{V}", W),
    C("extract(size)", lambda c, x: jnp.extract(c, x, size=3), f"b:{M}", W),
    C("isin", jnp.isin, f"k5:{M}", "k5:3"),
    C("intersect1d(size)", lambda a, b: jnp.intersect1d(a, b, size=3), "k5:4", "k5:4"),
    # (the other set routines compile to the same sorts and scatters, several times slower)
    C("unique_inverse(size)", lambda x: jnp.unique_inverse(x, size=4), "k4:6"),
]

INDEXING = [
    C("x[1]", lambda x: x[1], W), C("x[-1, ::2]", lambda x: x[-1, ::2], W),
    C("x[:, 1:3]", lambda x: x[:, 1:3], W), C("x[::-1]", lambda x: x[::-1], W),
    C("x[..., 1]", lambda x: x[..., 1], "w:2,4,3"),
    C("x[i] (int array)", lambda x, i: x[i], W, "k2:3", vgrad=True, jit_grad=True),
    C("x[:, i]", lambda x, i: x[:, i], W, "k4:2,3"),
    C("x[i, j]", lambda x, i, j: x[i, j], W, "k2:3", "k4:3", vgrad=True),
    C("x[i, :, j]", lambda x, i, j: x[i, :, j], "w:2,4,3", "k2:2", "k3:2"),
    C("x[i] (traced int)", lambda x, i: x[i], W, "k2:"),
    C("x[i, 1:3] (traced int)", lambda x, i: x[i, 1:3], W, "k2:"),
    C("x[neg int array]", lambda x, i: x[:, i - 4], W, "k4:3"),
    C("x[[0, 1], [2, 3]]", lambda x: x[jnp.array([0, 1]), jnp.array([2, 3])], W),
    C("take", lambda x, i: jnp.take(x, i, axis=1), W, "k4:3"),
    C("take(axis=None)", lambda x, i: jnp.take(x, i), W, "k8:2,2"),
    C("take(fill)", lambda x, i: jnp.take(x, i - 2, axis=1, mode="fill", fill_value=0.5), W,
      "k8:3"),
    C("take_along_axis", lambda x, i: jnp.take_along_axis(x, i, axis=1), W, "k4:2,3", vgrad=True),
    C("take_along_axis(axis=0)", lambda x, i: jnp.take_along_axis(x, i, axis=0), W,
      "k2:1,4"),
    C("x[ix_(i, j)]", lambda x, i, j: x[jnp.ix_(i, j)], W, "k2:3", "k4:2"),
    C("ravel_multi_index", lambda i, j: jnp.ravel_multi_index((i, j), (2, 4), mode="clip"),
      "k2:3", "k4:3"),
    C("unravel_index", lambda i: jnp.unravel_index(i, (2, 4)), "k8:3"),
    C("choose", lambda i, a, b: jnp.choose(i, [a, b], mode="clip"), f"k2:{M}", W, W),
    C("at[1].set", lambda x, v: x.at[1].set(v), W, f"w:{V}", vgrad=True),
    C("at[i].set", lambda x, i, v: x.at[i].set(v), W, "q2:2", "w:2,4"),
    C("at[:, i].set(scalar)", lambda x, i, v: x.at[:, i].set(v), W, "q4:3", "w:"),
    C("at[i].add", lambda x, i, v: x.at[i].add(v), W, "k2:5", "w:5,4", vgrad=True,
      jit_grad=True),
    C("at[i, j].add", lambda x, i, j, v: x.at[i, j].add(v), W, "k2:3", "k4:3", "w:3"),
    C("at[i].mul", lambda x, i, v: x.at[:, i].multiply(v, unique_indices=True), W, "q4:2",
      "x:2,2"),         # JAX differentiates scatter_mul only with unique_indices
    C("at[i].min", lambda x, i, v: x.at[:, i].min(v), W, "q4:3", "w:2,3"),
    C("at[i].max", lambda x, i, v: x.at[i].max(v), W, "q2:1", "w:1,4"),
    C("at[i].get", lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0), W, "k3:4"),
    C("at[1:3].set (slice)", lambda x, v: x.at[:, 1:3].set(v), W, "w:2,2"),
    C("at[i].set (traced int)", lambda x, i, v: x.at[i].set(v), W, "k2:", f"w:{V}"),
    C("at[i].add(i)", lambda x, i: x.at[i].add(3), f"i:{M}", "k2:3"),
    C("put", lambda x, i, v: jnp.put(x, i, v, inplace=False), W, "q8:3", "w:3"),
    C("put_along_axis", lambda x, i, v: jnp.put_along_axis(x, i, v, axis=1, inplace=False), W,
      "q4:2,1", "w:2,1"),
]

CREATION = [
    C("zeros_like", jnp.zeros_like, W, grad="zero"), C("ones_like", jnp.ones_like, f"i:{M}"),
    C("full_like", lambda x, v: jnp.full_like(x, v), W, "w:"),
    C("full", lambda v: jnp.full((2, 3), v), "w:3"),
    C("full(scalar)", lambda v: jnp.full(3, v), "w:"),
    C("linspace", lambda a, b: jnp.linspace(a, b, 5), "w:", "w:"),
    C("linspace(arrays, axis=1)", lambda a, b: jnp.linspace(a, b, 4, axis=1), "w:3", "w:3"),
    C("logspace", lambda a, b: jnp.logspace(a, b, 4), "x:", "x:"),
    C("geomspace", lambda a, b: jnp.geomspace(a, b, 4), "p:", "p:"),
    C("meshgrid", lambda x, y: jnp.meshgrid(x, y), f"w:{V}", "w:3"),
    C("astype(int)", lambda x: x.astype(jnp.int32), W, grad="zero"),
    C("astype(float16)", lambda x: x.astype(jnp.float16), W, rtol=1e-3, grad=None),  # FD noise
    C("astype(complex)", lambda x: x.astype(jnp.complex64), W),
    C("array([x, y])", lambda x, y: jnp.array([x, y]), W, W),
    C("asarray", jnp.asarray, W), C("copy", jnp.copy, W),
    C("tril_indices_from", lambda x: x[jnp.tril_indices_from(x)], "w:4,4"),
    C("triu_indices_from", lambda x: x[jnp.triu_indices_from(x, 1)], "w:4,4"),
    C("diag_indices_from", lambda x: x[jnp.diag_indices_from(x)], "w:4,4"),
    C("x[indices]", lambda x: x[tuple(jnp.indices((2, 2)))], W),
]

CASES = REDUCTIONS + SHAPES + PRODUCTS + SORTING + INDEXING + CREATION


# test_grads by check_grads_together: these cases' derivatives are small programs that share
# few eager compiles (the file's CPU 45.6 -> 41.9 s; in test_transforms_numpy's elementwise
# table, whose op-by-op compiles are shared, its test_grads took 10.6 -> 27.2 s)
(test_vmap, test_grads, test_vmap_of_grad, test_jacobians,
 test_jit_path_grads) = transform_tests(CASES, grads_together=True)
