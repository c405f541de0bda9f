"""Dispatch of JAX 0.10.2 and jxkernel timed in ONE process, interleaved, so that both see
the same machine at the same moment (on a shared VM, separate processes can differ by 2x).

    PYTHONPATH=$PWD .venv-jax/bin/python benchmarks/dispatch_same_process.py [ROUNDS]

It needs an interpreter where both import: .venv-jax has jax and jaxlib, and jxkernel comes
from the checkout through PYTHONPATH (the two libraries share a process by design). Each
metric is the best over ROUNDS (default 15) batches of 20 000 calls, per call, each call
waited for with `.block_until_ready()`, timed with `time.process_time` (CPU time of this
process: time spent waiting for the other engineer's processes is left out). Rows:

- jit_hit: `jit(lambda x: x + 1)` on f32[8] (workloads.py's dispatch_jit);
- eager_sin: `jnp.sin` on f32[8] (dispatch_eager);
- eager_sin_numpy: `jnp.sin` on NumPy float32[8] data, copied to the device at each call;
- cache_hit: `jit(lambda x: jnp.sum(jnp.sin(x) * x + 1.0))` on f32[100] (recompile's);
- jit_scalar_arg: `jit(lambda x, a: x * a)(x, 2.0)`, a Python scalar argument;
- jit_numpy_arg: `jit(lambda x: x + 1)` on NumPy float32[8] data (what a data loader gives),
  copied to the device at each call;
- jit_static: `jit(lambda x, n: x * n, static_argnums=1)(x, 3)`, a static argument;
- jit_static_kw: `jit(lambda x, *, n: x * n, static_argnames="n")(x, n=3)`, one by keyword;
- jit_static_alt: `jit(f, static_argnames="flag")(x, flag=True)` then `flag=False`, two
  static values in turn (two calls: the row is per pair);
- floor: jxkernel's executable for jit_hit run through jaxlib's Python API alone
  (`execute_sharded` + `consume_with_handlers`, no wrapping), the least a Python path pays.
"""
import sys
import time
import timeit

import numpy as np

import jax
import jax.numpy as jnp
import jxkernel
import jxkernel.numpy as xnp

CALLS = 20_000


def workloads(lib, np_lib):
    """(name, zero-argument callable) per metric, built and warmed with `lib`."""
    add_one = lib.jit(lambda x: x + 1)
    reduce = lib.jit(lambda x: np_lib.sum(np_lib.sin(x) * x + 1.0))
    host8 = np.arange(8, dtype=np.float32)
    x8 = np_lib.asarray(host8)
    x100 = np_lib.asarray(np.ones(100, np.float32))
    scale = lib.jit(lambda x, a: x * a)
    static = lib.jit(lambda x, n: x * n, static_argnums=1)
    static_kw = lib.jit(lambda x, *, n: x * n, static_argnames="n")
    flagged = lib.jit(lambda x, flag: x + 1 if flag else x - 1, static_argnames="flag")
    calls = {"jit_hit": lambda: add_one(x8).block_until_ready(),
             "jit_scalar_arg": lambda: scale(x8, 2.0).block_until_ready(),
             "jit_numpy_arg": lambda: add_one(host8).block_until_ready(),
             "eager_sin": lambda: np_lib.sin(x8).block_until_ready(),
             "eager_sin_numpy": lambda: np_lib.sin(host8).block_until_ready(),
             "cache_hit": lambda: reduce(x100).block_until_ready(),
             "jit_static": lambda: static(x8, 3).block_until_ready(),
             "jit_static_kw": lambda: static_kw(x8, n=3).block_until_ready(),
             "jit_static_alt": lambda: (flagged(x8, flag=True).block_until_ready(),
                                        flagged(x8, flag=False).block_until_ready())}
    for call in calls.values():
        for _ in range(3):
            call()
    return calls, add_one, x8


def jxkernel_floor(add_one, x):
    """The jaxlib calls jxkernel's jit hit makes, with nothing of jxkernel's around them."""
    exe = next(iter(add_one._cache.values())).exe
    bufs, execute, handlers = [x._buf], exe._execute, exe.handlers
    return lambda: execute(bufs).consume_with_handlers(handlers)[0].block_until_ready()


def best_per_call(timers: dict, rounds: int) -> dict:
    """Best µs per call of each timer, the timers interleaved round by round."""
    best = dict.fromkeys(timers, float("inf"))
    for _ in range(rounds):
        for name, timer in timers.items():
            best[name] = min(best[name], timer.timeit(CALLS) / CALLS * 1e6)
    return best


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    theirs, _, _ = workloads(jax, jnp)
    ours, add_one, x8 = workloads(jxkernel, xnp)
    timers = {}
    for name in theirs:
        timers[("jax", name)] = timeit.Timer(theirs[name], timer=time.process_time)
        timers[("jxkernel", name)] = timeit.Timer(ours[name], timer=time.process_time)
    timers[("jxkernel", "floor")] = timeit.Timer(jxkernel_floor(add_one, x8),
                                                 timer=time.process_time)
    best = best_per_call(timers, rounds)
    print(f"# jax {jax.__version__}, jxkernel from {jxkernel.__file__}; best of {rounds} x "
          f"{CALLS} calls, CPU µs per call")
    print("| metric | JAX | jxkernel | ratio |\n|---|---:|---:|---:|")
    for name in theirs:
        a, b = best[("jax", name)], best[("jxkernel", name)]
        print(f"| {name} | {a:.2f} | {b:.2f} | {b / a:.2f}x |")
    print(f"| floor (jaxlib alone) | | {best[('jxkernel', 'floor')]:.2f} | |")


if __name__ == "__main__":
    main()
