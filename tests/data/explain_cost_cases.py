"""Programs a learner explains (`%explain f(x)`), for the totals of its per-line counts
against XLA's cost analysis of the same program under JAX 0.10.2: `run(jax)` gives, per
program, `jax.jit(f).lower(*args).compile().cost_analysis()`'s flops, transcendentals and
bytes accessed. The reference (explain_cost_reference.json) is real JAX's, written by
reference/make_explain_cost_reference.py; tests/views/test_explain_cost_against_jax.py
explains the same programs with jxkernel and compares its estimated sums and its `xla_cost`."""
import numpy as np

KEYS = ("flops", "transcendentals", "bytes accessed")


def programs(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    x = np.linspace(-1.0, 1.0, 32 * 64, dtype=np.float32).reshape(32, 64)
    w = np.linspace(0.5, -0.5, 64 * 16, dtype=np.float32).reshape(64, 16)
    b = np.linspace(0.0, 1.0, 16, dtype=np.float32)
    seq = np.linspace(0.0, 1.0, 10 * 8, dtype=np.float32).reshape(10, 8)

    def mlp(x, w, b):
        return jnp.tanh(x @ w + b).sum()

    def softmax(x):
        e = jnp.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def layernorm(x):
        return (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)

    def elementwise(x):
        return jnp.sin(x) * 2 + jnp.exp(x)

    def argmax(x):
        return jnp.argmax(x, -1)

    def cumsum(x):
        return jnp.cumsum(x, 0)

    def columns(x):                      # a slice read inside a fusion
        return x[:, :3] * 2.0

    def row(x, i):                       # a dynamic slice
        return x[i] + 1.0

    def set_row(x, i):                   # a dynamic update slice
        return x.at[i].set(0.0)

    def branch(x):                       # a cond: both branches' instructions count
        return lax.cond(x[0, 0] > 0, jnp.sin, jnp.cos, x)

    def gather(x, idx):
        return x[idx].sum(0)

    def scatter_add(x, idx):
        return x.at[idx].add(1.0)

    def pad_concat(x):
        return jnp.concatenate([jnp.pad(x, 1), x.T[:34, :66] * 2.0], 1)

    def rnn(h, xs):                      # a scan: its body counted once
        return lax.scan(lambda c, v: (jnp.tanh(c + v), None), h, xs)[0]

    return {
        "mlp": (mlp, (x, w, b)),
        "grad_mlp": (jax.grad(mlp, argnums=1), (x, w, b)),
        "softmax": (softmax, (x,)),
        "layernorm": (layernorm, (x,)),
        "elementwise": (elementwise, (x,)),
        "argmax": (argmax, (x,)),
        "cumsum": (cumsum, (x,)),
        "columns": (columns, (x,)),
        "row": (row, (x, np.int32(3))),
        "set_row": (set_row, (x, np.int32(3))),
        "rnn": (rnn, (seq[0], seq)),
        "branch": (branch, (x,)),
        "gather": (gather, (x, np.array([3, 1, 3], np.int32))),
        "scatter_add": (scatter_add, (x, np.array([3, 1, 3], np.int32))),
        "pad_concat": (pad_concat, (x,)),
    }


def run(jax) -> dict:
    out = {}
    for name, (fn, args) in programs(jax).items():
        cost = jax.jit(fn).lower(*args).compile().cost_analysis()
        out[name] = {k: cost[k] for k in KEYS if k in cost}
    return {"cost": out}
