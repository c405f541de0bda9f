"""Tracing (`make_jaxpr`) of JAX 0.10.2 and jxkernel paired round by round in ONE process:
each round traces a fresh function (no tracing cache) with one library and then the other (the
order alternating); a row's ratio is the median of the per-round ratios.

    PYTHONPATH=$PWD .venv-jax/bin/python benchmarks/trace_paired.py [ROUNDS]

Rows (CPU ms per trace): chain_N1000, 1000 elementwise ops (workloads.py's trace_scaling at
N=1000); mlp8_grad, grad of an 8-layer tanh MLP's loss; shapes_grad, grad of 60 rounds of
reshape, broadcast_to, expand_dims, tensordot, ravel and lax.broadcast_in_dim (the functions
whose primitives carry a `sharding` param since out_sharding=, benchmarks/README.md "Stop 62").
"""
import os
import statistics
import sys
import time

import numpy as np

import jax
import jax.numpy as jnp
import jxkernel
import jxkernel.numpy as xnp


def chain(np_, n):
    def f(x):
        for i in range(n):
            x = np_.sin(x) if i % 3 == 0 else x * 1.0001 if i % 3 == 1 else x + 0.5
        return x
    return f


def mlp_grad(lib, np_):
    def loss(ws, x):
        for w in ws:
            x = np_.tanh(x @ w)
        return np_.sum(x ** 2)
    return lib.grad(loss)


def shapes_grad(lib, np_, n=60):
    def f(x):
        for _ in range(n):
            y = np_.reshape(x, (4, 32))
            y = np_.broadcast_to(np_.expand_dims(y, 0), (2, 4, 32))
            y = np_.tensordot(y, np_.ones((32, 16)), axes=1)
            x = x + np_.ravel(y)[:128] + lib.lax.broadcast_in_dim(1.0, (128,), ())
        return np_.sum(x)
    return lib.grad(f)


def cases(lib, np_):
    """name -> (a builder of a fresh function, its arguments)."""
    x = np_.asarray(np.linspace(0, 1, 128, dtype=np.float32))
    ws = [np_.asarray(np.ones((128, 128), np.float32) * 0.01)] * 8
    return {"chain_N1000": (lambda: chain(np_, 1000), (x,)),
            "mlp8_grad": (lambda: mlp_grad(lib, np_), (ws, x)),
            "shapes_grad": (lambda: shapes_grad(lib, np_), (x,))}


def traced_once(lib, build, args) -> float:
    f = build()
    start = time.process_time()
    lib.make_jaxpr(f)(*args)
    return time.process_time() - start


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    theirs, ours = cases(jax, jnp), cases(jxkernel, xnp)
    for name in theirs:                        # (each library's first trace: imports, caches)
        traced_once(jax, *theirs[name]), traced_once(jxkernel, *ours[name])
    times = {name: ([], []) for name in theirs}
    for r in range(rounds):
        for name in theirs:
            sides = [(0, jax, theirs[name]), (1, jxkernel, ours[name])]
            for side, lib, case in (sides if r % 2 else sides[::-1]):
                times[name][side].append(traced_once(lib, *case) * 1e3)
    print(f"# jax {jax.__version__}, jxkernel from {jxkernel.__file__}; {rounds} rounds; "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| row | JAX ms | jxkernel ms | ratio (median of rounds) |\n|---|---:|---:|---:|")
    for name, (a, b) in times.items():
        ratio = statistics.median(y / x for x, y in zip(a, b))
        print(f"| {name} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | "
              f"{ratio:.3f}x |")


if __name__ == "__main__":
    main()
