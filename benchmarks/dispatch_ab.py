"""jxkernel's hot calls, timed at two checkouts in alternating processes (an A/B of a change).

    nice -n 10 .venv/bin/python benchmarks/dispatch_ab.py /path/to/before . [PROCESSES]

Each checkout runs in its own fresh processes (PYTHONPATH=<checkout>, so its own jxkernel
is imported), PROCESSES times each (default 5), alternating before/after so that both see the
machine's quiet and busy minutes alike. A process times each call in batches of 2 000 and
reports the median batch, in CPU µs per call (process time: the minutes the shared machine
gave to other processes are left out; each call waited for where it returns an
Array); the table gives the median over the processes and their range. `--child` runs one
process's timings (what the parent starts). Rows:

- jit_hit: `jit(lambda x: x + 1)(x)` on f32[8], waited for (`.block_until_ready()`);
- jit_scalar_arg: `jit(lambda x, a: x * a)(x, 2.0)`, a Python scalar argument;
- eager_sin: `jnp.sin(x)` on f32[8] (eager dispatch: `Primitive.bind`, its last run);
- array_add: `x + y`, two f32[8] Arrays (Array's operator);
- scalar_mul: `x * 2.0` (an operator with a Python scalar: jnp's promotion, then eager);
- scalar_add_0d: `s + t`, two f32[] Arrays (a scalar op on device scalars);
- jit_static: `jit(lambda x, n: x * n, static_argnums=1)(x, 3)`, a static argument;
- jit_static_kw: `jit(lambda x, *, n: x * n, static_argnames="n")(x, n=3)`, by keyword.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

BATCH, BATCHES = 2_000, 15


def workloads() -> dict:
    import numpy as np
    import jxkernel as jax
    import jxkernel.numpy as jnp
    add_one = jax.jit(lambda x: x + 1)
    scale = jax.jit(lambda x, a: x * a)
    x, y = jnp.asarray(np.arange(8, dtype=np.float32)), jnp.ones(8)
    s, t = jnp.asarray(np.float32(1.5)), jnp.asarray(np.float32(2.0))
    static = jax.jit(lambda x, n: x * n, static_argnums=1)
    static_kw = jax.jit(lambda x, *, n: x * n, static_argnames="n")
    return {"jit_hit": lambda: add_one(x).block_until_ready(),
            "jit_scalar_arg": lambda: scale(x, 2.0).block_until_ready(),
            "eager_sin": lambda: jnp.sin(x).block_until_ready(),
            "array_add": lambda: (x + y).block_until_ready(),
            "scalar_mul": lambda: (x * 2.0).block_until_ready(),
            "scalar_add_0d": lambda: (s + t).block_until_ready(),
            "jit_static": lambda: static(x, 3).block_until_ready(),
            "jit_static_kw": lambda: static_kw(x, n=3).block_until_ready()}


def child() -> dict:
    calls = workloads()
    for call in calls.values():
        for _ in range(200):
            call()
    medians = {}
    for name, call in calls.items():
        batches = []
        for _ in range(BATCHES):
            start = time.process_time()
            for _ in range(BATCH):
                call()
            batches.append((time.process_time() - start) / BATCH * 1e6)
        medians[name] = statistics.median(batches)
    medians["state"] = fastpath_state()
    return medians


def fastpath_state() -> str:
    """Whether this checkout's compiled fast path ran (issue 48's STATE, or issue 38's loader)."""
    try:
        from jxkernel.core.native import STATE
        return STATE
    except ImportError:                 # before issue 48: built on first use
        from jxkernel.xla import fastpath
        return "on (built on first use)" if fastpath.native() is not None else "off"


def run(checkout: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout)}
    done = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True,
                          text=True, check=True, cwd=os.path.abspath(checkout))
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(before: str, after: str, processes: int) -> None:
    results = {"before": [], "after": []}
    for _ in range(processes):
        results["before"].append(run(before))
        results["after"].append(run(after))
    for side in ("before", "after"):
        print(f"{side}'s fast path: {results[side][0]['state']}")
    print("| call | before µs (median, range) | after µs (median, range) |")
    print("|---|---:|---:|")
    for name in results["before"][0]:
        if name == "state":
            continue
        cells = []
        for side in ("before", "after"):
            values = [r[name] for r in results[side]]
            cells.append(f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})")
        print(f"| {name} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        print(json.dumps(child()))
    else:
        main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5)
