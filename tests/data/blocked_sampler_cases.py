"""jax._src.blocked_sampler's keys and values, run the same way by real JAX 0.10.2
(reference/make_blocked_sampler_reference.py writes blocked_sampler_reference.json) and by
jxkernel (tests/random/test_blocked_sampler.py): the whole array drawn block by block for two
block sizes, and one block's tile keys (their key data)."""
import importlib


def _whole(jax, total, block, tile):
    """The (total) array drawn block by block, blocks laid out row-major."""
    jnp = jax.numpy
    sampler = importlib.import_module(f"{jax.__name__}._src.blocked_sampler")
    key = jax.random.key(0)
    rows = []
    for i in range(-(-total[0] // block[0])):
        row = []
        for j in range(-(-total[1] // block[1])):
            keys = sampler.blocked_fold_in(key, total, block, tile, (i, j))
            row.append(sampler.sample_block(jax.random.uniform, keys, block, tile,
                                            minval=-1.0, maxval=1.0))
        rows.append(jnp.concatenate(row, axis=1))
    return jnp.concatenate(rows, axis=0)[:total[0], :total[1]]


def run(jax) -> dict:
    sampler = importlib.import_module(f"{jax.__name__}._src.blocked_sampler")
    keys = sampler.blocked_fold_in(jax.random.key(3), (2, 8, 8), (1, 4, 4), (1, 2, 2),
                                   (1, 1, 0))
    return {
        "uniform, 2x4 blocks": _whole(jax, (5, 8), (2, 4), (1, 2)).tolist(),
        "uniform, 4x8 blocks": _whole(jax, (5, 8), (4, 8), (1, 2)).tolist(),
        "keys of block (1, 1, 0)": jax.random.key_data(
            jax.numpy.array(keys)).tolist(),
    }
