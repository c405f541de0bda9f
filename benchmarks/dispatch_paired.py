"""jit dispatch of JAX 0.10.2 and jxkernel paired round by round in ONE process: each round
times one library's call and then the other's (the order alternating), and a metric's ratio is
the median of the per-round ratios, so that both sides of a ratio saw the same moment of a
loaded machine. dispatch_same_process.py reports the best of each side instead.

    PYTHONPATH=$PWD .venv-jax/bin/python benchmarks/dispatch_paired.py [ROUNDS] [CALLS] [ROWS]

Rows (f32[8], each call waited for with `.block_until_ready()`, CPU time of the process):

- plain: `jit(lambda x: x + 1)(x)`;
- static: `jit(lambda x, n: x * n, static_argnums=1)(x, 3)`;
- static_kw: `jit(lambda x, *, n: x * n, static_argnames="n")(x, n=3)`;
- static_kw_pos: `jit(lambda x, n: x * n, static_argnames="n")(x, n=3)` (n also positional);
- kw: `jit(lambda x, y: x - y)(x=x, y=y)` (arrays by keyword: Flax, Equinox, optax);
- kw_mixed: the same jit, `(x, y=y)`;
- kw_swapped: the same jit, `(y=y, x=x)` (the other order: the same program);
- dict10: a jit summing a dict of 10 arrays; params50: an SGD-like update of a Flax-like tree of
  25 {"kernel", "bias"} layers (50 leaves in, 50 out);
- tuple_out: `jit(lambda x: (x + 1, x * 2))(x)`;
- method: `jit(self.f)(x)` held by an object (a bound method jitted), called as `m.step(x)`;
- partial: `functools.partial(jit(lambda s, x: x * s), 2.0)(x)` (nnx.jit-like wrappers);
- donate: `jit(lambda x: x + 1, donate_argnums=0)`, each call on the last call's result;
- static_donate: `jit(lambda x, n: x * n, static_argnums=1, donate_argnums=0)(x, 1.0)`, each
  call on the last call's result;
- static_kw_mixed: `jit(lambda x, y, *, n: x * n - y, static_argnames="n")(x, y=y, n=3)` (a
  static and an array by keyword);
- kw_two_sigs, static_kw_mixed_two_sigs: the kw and static_kw_mixed jits called on f32[8] and
  then on i32[8] (two signatures under one key in turn: a row's time is the pair's);
- plain_two_sigs, static_two_sigs, donate_two_sigs: the plain, static and donate jits the same
  way (donate: each on its own last result, f32[8] then i32[8]); shapes_four_sigs: the plain
  jit on f32[8], f32[4], f32[2, 4] and i32[8] in turn (a row's time is the four calls');
- scalar: `jit(lambda x, a: x * a)(x, 2.0)`;
- unused: `jit(lambda x, y: x + 1)(x, y)` (y never read: JAX's program, and jxkernel's since
  it drops unused arguments, takes x alone); unused_scalar: the same with y a Python 2.0;
- box_read: a jit of `x + b.get()`, `b` a hijax Box it closes over (`jax._src.hijax.Box`);
- box_write: a jit that also writes its Box (`c.set(c.get() + 1.0)`). These two run CALLS // 20
  calls a round (JAX's take about 150-300 µs each).
"""
import functools
import os
import statistics
import sys
import time
import timeit

import numpy as np

import jax
import jax.numpy as jnp
from jax._src.hijax import Box as JaxBox

import jxkernel
import jxkernel.numpy as xnp
from jxkernel._jax._src.hijax import Box as JxBox

SLOW = {"box_read", "box_write"}
HEAVY = {"params50"}            # CALLS // 4 calls a round


class Model:
    """An object holding a jit of its own bound method (`jax.jit(self.f)`), as model code does."""
    def __init__(self, lib):
        self.scale = 2.0
        self.step = lib.jit(self.f)

    def f(self, x):
        return x * self.scale


def workloads(lib, np_lib, Box):
    """(name, zero-argument callable) per row, built and warmed with `lib`."""
    x = np_lib.asarray(np.arange(8, dtype=np.float32))
    plain = lib.jit(lambda x: x + 1)
    static = lib.jit(lambda x, n: x * n, static_argnums=1)
    static_kw = lib.jit(lambda x, *, n: x * n, static_argnames="n")
    static_kw_pos = lib.jit(lambda x, n: x * n, static_argnames="n")
    read_box, write_box = Box(np_lib.ones(8)), Box(np_lib.zeros(8))
    box_read = lib.jit(lambda x: x + read_box.get())

    def increment(x):
        write_box.set(write_box.get() + 1.0)
        return x * 2
    box_write = lib.jit(increment)
    sub = lib.jit(lambda x, y: x - y)
    y = np_lib.asarray(np.ones(8, dtype=np.float32))
    dict10 = lib.jit(lambda d: sum(d.values()))
    d10 = {f"a{i}": np_lib.asarray(np.full(8, i, np.float32)) for i in range(10)}
    sgd = lib.jit(lambda p, g: lib.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g))
    params = {f"layer{i}": {"kernel": np_lib.ones((4, 4)), "bias": np_lib.zeros(4)}
              for i in range(25)}
    tuple_out = lib.jit(lambda x: (x + 1, x * 2))
    model, scaled = Model(lib), functools.partial(lib.jit(lambda s, x: x * s), 2.0)
    donate, scalar = lib.jit(lambda x: x + 1, donate_argnums=0), lib.jit(lambda x, a: x * a)
    unused = lib.jit(lambda x, y: x + 1)
    held = [np_lib.asarray(np.arange(8, dtype=np.float32)),
            np_lib.asarray(np.arange(8, dtype=np.int32))]
    static_donate = lib.jit(lambda x, n: x * n, static_argnums=1, donate_argnums=0)
    static_kw_mixed = lib.jit(lambda x, y, *, n: x * n - y, static_argnames="n")
    i = np_lib.asarray(np.arange(8, dtype=np.int32))
    x4, x24 = np_lib.asarray(np.ones(4, np.float32)), np_lib.asarray(np.ones((2, 4), np.float32))

    def donated(jitted=donate, *static, at=0):
        held[at] = jitted(held[at], *static).block_until_ready()
    calls = {"kw": lambda: sub(x=x, y=y).block_until_ready(),
             "kw_mixed": lambda: sub(x, y=y).block_until_ready(),
             "kw_swapped": lambda: sub(y=y, x=x).block_until_ready(),
             "dict10": lambda: dict10(d10).block_until_ready(),
             "params50": lambda: lib.block_until_ready(sgd(params, params)),
             "tuple_out": lambda: tuple_out(x)[1].block_until_ready(),
             "method": lambda: model.step(x).block_until_ready(),
             "partial": lambda: scaled(x).block_until_ready(),
             "donate": donated,
             "static_donate": lambda: donated(static_donate, 1.0),
             "static_kw_mixed": lambda: static_kw_mixed(x, y=y, n=3).block_until_ready(),
             "kw_two_sigs": lambda: (sub(x=x, y=y), sub(x=i, y=i))[1].block_until_ready(),
             "static_kw_mixed_two_sigs": lambda: (static_kw_mixed(x, y=y, n=3),
                                                  static_kw_mixed(i, y=i, n=3))[1]
             .block_until_ready(),
             "plain_two_sigs": lambda: (plain(x), plain(i))[1].block_until_ready(),
             "static_two_sigs": lambda: (static(x, 3), static(i, 3))[1].block_until_ready(),
             "donate_two_sigs": lambda: (donated(), donated(at=1)),
             "shapes_four_sigs": lambda: (plain(x), plain(x4), plain(x24), plain(i))[3]
             .block_until_ready(),
             "scalar": lambda: scalar(x, 2.0).block_until_ready(),
             "unused": lambda: unused(x, y).block_until_ready(),
             "unused_scalar": lambda: unused(x, 2.0).block_until_ready(),
             "plain": lambda: plain(x).block_until_ready(),
             "static": lambda: static(x, 3).block_until_ready(),
             "static_kw": lambda: static_kw(x, n=3).block_until_ready(),
             "static_kw_pos": lambda: static_kw_pos(x, n=3).block_until_ready(),
             "box_read": lambda: box_read(x).block_until_ready(),
             "box_write": lambda: box_write(x).block_until_ready()}
    for call in calls.values():
        for _ in range(3):
            call()
    return calls


def per_call(call, n) -> float:
    return timeit.Timer(call, timer=time.process_time).timeit(n) / n * 1e6


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None   # rows, comma-separated
    theirs, ours = workloads(jax, jnp, JaxBox), workloads(jxkernel, xnp, JxBox)
    if only:
        theirs, ours = ({k: v for k, v in side.items() if k in only} for side in (theirs, ours))
    times = {name: ([], []) for name in theirs}
    for r in range(rounds):
        for name in theirs:
            n = calls // 20 if name in SLOW else calls // 4 if name in HEAVY else calls
            sides = [(0, theirs[name]), (1, ours[name])]
            for side, call in (sides if r % 2 else sides[::-1]):
                times[name][side].append(per_call(call, n))
    print(f"# jax {jax.__version__}, jxkernel from {jxkernel.__file__}; {rounds} rounds x "
          f"{calls} calls (box rows {calls // 20}); load average {os.getloadavg()[0]:.1f}")
    print("| row | JAX µs | jxkernel µs | ratio (median of rounds) | q1-q3 |\n|---|---:|---:|---:|---|")
    for name, (a, b) in times.items():
        ratios = sorted(y / x for x, y in zip(a, b))
        q1, q3 = ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]
        print(f"| {name} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | "
              f"{statistics.median(ratios):.3f}x | {q1:.3f}-{q3:.3f} |")


if __name__ == "__main__":
    main()
