"""A list or an array given where a jnp function takes a static value (its inner jit cannot
hash it), and the fix the card under the cell offers (jxkernel/views/error_cards/
jnp_statics.py): run by reference/make_jnp_unhashable_reference.py (JAX 0.10.2, into
jnp_unhashable_reference.json) and by tests/notebook/test_card_gaps.py.

Per case: (the call, the card's fix), both of `jnp`, `np` and `x` (a (2, 3) float32 array of
0..5); recorded: the call's error (class, first line) and the fix's shape and values.

    CASES["sort_axis_list"]
    ('jnp.sort(x, axis=[0])', 'jnp.sort(x, axis=0)')
"""
import numpy as np

CASES = {
    "pad_stat_length_list": ('jnp.pad(x, 1, mode="mean", stat_length=[1, 2])',
                             'jnp.pad(x, 1, mode="mean", stat_length=(1, 2))'),
    "pad_end_values_array": ('jnp.pad(x, 1, mode="linear_ramp", end_values=np.array([1., 2.]))',
                             'jnp.pad(x, 1, mode="linear_ramp", end_values=(1.0, 2.0))'),
    "sort_axis_list": ("jnp.sort(x, axis=[0])", "jnp.sort(x, axis=0)"),
    "cumsum_axis_list": ("jnp.cumsum(x, axis=[1])", "jnp.cumsum(x, axis=1)"),
    "diff_axis_list": ("jnp.diff(x, axis=[0])", "jnp.diff(x, axis=0)"),
    "norm_axis_list": ("jnp.linalg.norm(x, axis=[0, 1])", "jnp.linalg.norm(x, axis=(0, 1))"),
    "percentile_axis_list": ("jnp.percentile(x, 50, axis=[0])",
                             "jnp.percentile(x, 50, axis=0)"),
    "vander_n_list": ("jnp.vander(x[0], N=[2])", "jnp.vander(x[0], N=2)"),
}


def _x(jax):
    return jax.numpy.arange(6.0, dtype=np.float32).reshape(2, 3)


def run(jax) -> dict:
    names = {"jnp": jax.numpy, "np": np, "x": _x(jax)}
    out = {}
    for name, (call, fix) in CASES.items():
        try:
            eval(call, names)
            error = None
        except Exception as e:  # noqa: BLE001  (what JAX raises is the answer)
            error = [type(e).__name__, str(e).splitlines()[0]]
        fixed = np.asarray(eval(fix, names))
        out[name] = {"error": error, "shape": list(fixed.shape), "values": fixed.tolist()}
    return out
