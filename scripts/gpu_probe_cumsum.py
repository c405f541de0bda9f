"""The GPU tier's one open failure, test_check_grads_order_2[cumsum_rev] (docs/gpu.md), probed
in one process per variant; run by scripts/gpu_session.sh, prints one JSON line per program.

    python3 scripts/gpu_probe_cumsum.py test|alone|gc     # on a GPU machine, from the checkout

`test` replays the test's own plans in its order: check_grads_together at order 2 on the
(3, 5) sample, then at order 1 on the (4, 3) one; `alone` the (4, 3) plan without the first;
`gc` the first, then gc.collect() and a wait for every device, then the second. Each program
jit_together compiles is run again on the CPU backend with the same arguments, and each output
of the GPU's is compared with the CPU's. On the H200 (2026-11-28) the (4, 3) plan's outputs
came out wrong in row 2 where the same program written out by hand, with the same inputs, was
right under jxkernel and JAX at both optimization levels: this tells which state it needs.
"""
import gc
import json
import os
import sys

os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")     # the suite's level
sys.path[:0] = [os.path.join(os.path.dirname(__file__), "..", "tests", "support")]

import numpy as np                                                      # noqa: E402

import grads_together                                                   # noqa: E402
import jxkernel as jax                                                  # noqa: E402
from jxkernel import lax                                                # noqa: E402
from rule_checks import sample                                          # noqa: E402

_real = grads_together.jit_together


def _spy(jx, calls, **options):
    """jit_together, its outputs compared with the same program's on the CPU backend."""
    results = _real(jx, calls, **options)
    with jax.default_device(jax.devices("cpu")[0]):
        on_cpu = _real(jx, calls, **options)
    errors = {}
    for key in calls:
        got = jax.tree_util.tree_leaves(results[key])
        want = jax.tree_util.tree_leaves(on_cpu[key])
        for i, (g, w) in enumerate(zip(got, want)):
            g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
            bad = np.abs(g - w) > 1e-4 * max(1.0, float(np.max(np.abs(w))))
            if bad.any():
                errors[f"{key}.{i}"] = {"rows": sorted({int(r) for r in np.argwhere(bad)[:, 0]}),
                                        "max": float(np.max(np.abs(g - w)))}
    print(json.dumps({"variant": VARIANT, "calls": len(calls), "shape": _shape(calls),
                      "device": str(jax.devices()[0]), "wrong": errors}), flush=True)
    return results


def _shape(calls):
    return list(np.shape(next(iter(calls.values()))[1][0]))


def _check(x, order):
    try:
        grads_together.check_grads_together(F, (x,), order=order, modes=("fwd", "rev"))
        return "passed"
    except AssertionError as e:
        return str(e).splitlines()[1][:120]


F = lambda x: lax.cumsum(x, 0, reverse=True)                            # noqa: E731
VARIANT = sys.argv[1] if len(sys.argv) > 1 else "test"
grads_together.jit_together = _spy
if VARIANT in ("test", "gc"):
    print(json.dumps({"variant": VARIANT, "check (3, 5)": _check(sample((3, 5), 5), 2)}))
    if VARIANT == "gc":
        gc.collect()
        for d in jax.devices():
            jax.block_until_ready(jax.device_put(0.0, d))
print(json.dumps({"variant": VARIANT, "check (4, 3)": _check(sample((4, 3), 6), 1)}), flush=True)
