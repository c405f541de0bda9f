"""What the notebook's watches cost a loop of jitted steps: each loop timed in an IPython shell
with jxkernel's extension loaded (the NaN note's record of a step taking a gradient, the index
checks of a step indexing with a traced value: core/watches.py) and unloaded, in turn, in one
process, best of several rounds.

    .venv/bin/python benchmarks/notebook_watch.py            # ~20 s
    .venv/bin/python benchmarks/notebook_watch.py --rounds 7

Before the schedule (stop 121) every call of a watched program was looked at: a 16 µs MLP
step took ~200 µs with the extension loaded. Now each cell's first calls are, then about one
in so many (core/watches.py, SHARE of the loop's time).
"""
import argparse
import time

from IPython.core.interactiveshell import InteractiveShell

SETUP = """
import jxkernel as jax, jxkernel.numpy as jnp
key = jax.random.key(0)
def mlp_loss(p, x, y):
    return ((jnp.tanh(x @ p["w1"]) @ p["w2"])[:, 0] - y).mean() ** 2
@jax.jit
def mlp_step(p, x, y):
    g = jax.grad(mlp_loss)(p, x, y)
    return jax.tree.map(lambda a, b: a - 0.01 * b, p, g)
mlp = ({"w1": jax.random.normal(key, (64, 64)), "w2": jax.random.normal(key, (64, 1))},
       jax.random.normal(key, (32, 64)), jnp.zeros(32))
def emb_loss(p, tokens, y):
    return ((p["emb"][tokens].mean(1) @ p["w"])[:, 0] - y).mean() ** 2
@jax.jit
def emb_step(p, tokens, y):
    g = jax.grad(emb_loss)(p, tokens, y)
    return jax.tree.map(lambda a, b: a - 0.01 * b, p, g)
emb = ({"emb": jax.random.normal(key, (1000, 64)), "w": jax.random.normal(key, (64, 1))},
       jax.random.randint(key, (32, 8), 0, 1000), jnp.zeros(32))
@jax.jit
def get(x, i):
    return x[i] * 2.0
row = jnp.arange(10.0)
"""

# name: (the loop a cell runs, its calls)
STEPS = "p = {0}[0]\nfor _ in range(N):\n    p = {0}_step(p, *{0}[1:])\njax.block_until_ready(p)"
LOOPS = {
    "mlp step, grad inside (64x64)": (STEPS.format("mlp"), 2000),
    "embedding step, grad + x[i]": (STEPS.format("emb"), 2000),
    "x[i], i traced": ("for _ in range(N):\n    r = get(row, 3)\njax.block_until_ready(r)", 5000),
}


def timed(shell, loop: str, calls: int) -> float:
    """µs per call of one cell running `loop` (its first call included: each cell's first
    calls are looked at)."""
    shell.run_cell(f"N = {calls}\n_t = __import__('time').perf_counter()\n{loop}\n"
                   "_t = __import__('time').perf_counter() - _t")
    return shell.user_ns["_t"] / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jxkernel")
    shell.run_cell(SETUP)
    for loop, calls in LOOPS.values():          # (compiled, and warm, in both states)
        timed(shell, loop, 10)
    best = {name: {"loaded": [], "unloaded": []} for name in LOOPS}
    # the loaded rounds first: before stop 121 a watched program's calls that ran while the
    # extension was unloaded stayed on the fast paths when it was loaded again
    for state in ("loaded", "unloaded"):
        if state == "unloaded":
            shell.run_line_magic("unload_ext", "jxkernel")
        for _ in range(rounds):
            for name, (loop, calls) in LOOPS.items():
                best[name][state].append(timed(shell, loop, calls))
    print(f"| loop (best of {rounds} cells) | extension loaded, µs/call | unloaded, µs/call "
          "| ratio |")
    print("|---|---:|---:|---:|")
    for name, got in best.items():
        on, off = min(got["loaded"]), min(got["unloaded"])
        print(f"| {name} | {on:.1f} | {off:.1f} | {on / off:.2f} |")


if __name__ == "__main__":
    t = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t:.0f} s)")
