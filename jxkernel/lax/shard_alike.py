"""shard_alike: two values laid out alike over the mesh, whichever layout XLA's partitioner
picks for them (jax.experimental.shard_alike's). Each pair joins one Shardy sharding group
(`sdy.sharding_group`), so a sharding known for either is the other's; the values pass
through unchanged.

    >>> x, y = shard_alike(jnp.ones(2), jnp.zeros(2))
    >>> y
    Array([0., 0.], dtype=float32)
"""
from __future__ import annotations

from ..core.avals import get_aval
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, transpose_rules)
from ..tree_util import tree_flatten, tree_unflatten
from ..transforms import batch_util as bu
from ..transforms.ad_util import Zero

shard_alike_p = Primitive("shard_alike", multiple_results=True)


def shard_alike(x, y):
    """`x` and `y` (pytrees of one structure, leaves of one shape each), laid out alike.

    >>> jax.jit(lambda a: shard_alike(a, a * 2)[1])(jnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    x_flat, x_tree = tree_flatten(x)
    y_flat, y_tree = tree_flatten(y)
    if x_tree != y_tree:
        raise ValueError(f"Trees should be equal. Got x_tree: {x_tree}, y_tree: {y_tree}")
    for a, b in zip(x_flat, y_flat):
        a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
        if a_shape != b_shape:
            raise ValueError(
                f"The leaves shapes of `x` and `y` should match. Got `x` leaf shape: "
                f"{a_shape} and `y` leaf shape: {b_shape}. File an issue at "
                f"https://github.com/jax-ml/jax/issues if you want this feature.")
    outs = [shard_alike_p.bind(a, b) for a, b in zip(x_flat, y_flat)]
    return (tree_unflatten(x_tree, [o[0] for o in outs]),
            tree_unflatten(y_tree, [o[1] for o in outs]))


def _lowering(ctx, x, y):
    module_ctx = ctx.module_ctx
    if module_ctx.mesh is None:         # one device: every layout is alike
        return [x, y]
    group = module_ctx.sharding_groups  # numbered per module, so its text is its own
    module_ctx.sharding_groups += 1
    for value in (x, y):
        ctx.op("sdy.sharding_group", [value], {"group_id": f"{group} : i64"}, result_types=[])
    return [x, y]


def _jvp(primals, tangents):
    tx, ty = tangents
    if type(tx) is Zero or type(ty) is Zero:
        return shard_alike_p.bind(*primals), [tx, ty]
    return shard_alike_p.bind(*primals), shard_alike_p.bind(tx, ty)


def _transpose(cts, x, y):
    ct_x, ct_y = cts
    if type(ct_x) is Zero or type(ct_y) is Zero:
        return [ct_x, ct_y]
    return shard_alike_p.bind(ct_x, ct_y)


def _batching(vals, dims):
    (x, y), (dx, dy) = vals, dims
    if dx != dy:        # both batched along one axis: the batched one's, or x's
        size = bu.axis_size_of(vals, dims)
        d = dx if dx is not bu.not_mapped else dy
        x, y = bu.move_to(x, dx, d, size), bu.move_to(y, dy, d, size)
        dx = dy = d
    return shard_alike_p.bind(x, y), [dx, dy]


abstract_eval_rules[shard_alike_p] = lambda x, y: [x, y]
lowering_rules[shard_alike_p] = _lowering
numpy_rules[shard_alike_p] = lambda x, y: [x, y]        # one device: nothing to lay out
jvp_rules[shard_alike_p] = _jvp
transpose_rules[shard_alike_p] = _transpose
batching_rules[shard_alike_p] = _batching
