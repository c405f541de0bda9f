"""jit dispatch of JAX 0.10.2 and jxkernel paired round by round in ONE process: each round
times one library's call and then the other's (the order alternating), and a metric's ratio is
the median of the per-round ratios, so that both sides of a ratio saw the same moment of a
loaded machine. dispatch_same_process.py reports the best of each side instead.

    PYTHONPATH=$PWD .venv-jax/bin/python benchmarks/dispatch_paired.py [ROUNDS] [CALLS]

Rows (f32[8], each call waited for with `.block_until_ready()`, CPU time of the process):

- plain: `jit(lambda x: x + 1)(x)`;
- static: `jit(lambda x, n: x * n, static_argnums=1)(x, 3)`;
- static_kw: `jit(lambda x, *, n: x * n, static_argnames="n")(x, n=3)`;
- static_kw_pos: `jit(lambda x, n: x * n, static_argnames="n")(x, n=3)` (n also positional);
- box_read: a jit of `x + b.get()`, `b` a hijax Box it closes over (`jax._src.hijax.Box`);
- box_write: a jit that also writes its Box (`c.set(c.get() + 1.0)`). These two run CALLS // 20
  calls a round (JAX's take about 150-300 µs each).
"""
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
    calls = {"plain": lambda: plain(x).block_until_ready(),
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
    theirs, ours = workloads(jax, jnp, JaxBox), workloads(jxkernel, xnp, JxBox)
    times = {name: ([], []) for name in theirs}
    for r in range(rounds):
        for name in theirs:
            n = calls // 20 if name in SLOW else calls
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
