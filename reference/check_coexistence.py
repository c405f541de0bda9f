"""Check that JAX 0.10.2 and jxkernel live in one process, imported in either order, each
library's Arrays behaving as that library defines (run by hand: tests never import jax).

    .venv-jax/bin/python reference/check_coexistence.py        # from the repository root

Each order runs in a fresh interpreter that imports both libraries, then checks, for each:
the type of its arrays, jit (traced once, then cache hits that give the same values), grad,
vmap, eager ops, the x64 flag (set in one, unchanged in the other), pytree registries (a
class registered with one is a leaf for the other), and that JAX's C++ dispatch stays as fast
as in a process without jxkernel (within 30%, medians of alternating samples). It prints
one line per check and exits 1 if any fails.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import sys, time, statistics
import numpy as np
order = sys.argv[1].split(",")
libs = {}
for name in order:
    libs[name] = __import__(name)
jax, jx = libs.get("jax"), libs.get("jxkernel")
failures = []

def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

def dispatch_us(lib):
    f = lib.jit(lambda x: x * 2.0 + 1.0)
    x = lib.numpy.ones(8)
    f(x).block_until_ready()
    best = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(2000):
            f(x).block_until_ready()
        best.append((time.perf_counter() - start) / 2000 * 1e6)
    return min(best)

if jx is None:                      # the baseline process: JAX alone
    print(dispatch_us(jax))
    sys.exit(0)

import jxkernel.numpy as xnp
import jax.numpy as jnp
from jxkernel.core.basearray import Array as XArray
tag = "[" + " then ".join(order) + "] "

a, b = jnp.arange(4.0), xnp.arange(4.0)
check(tag + "jax.numpy makes jax.Array", isinstance(a, jax.Array) and not isinstance(a, XArray))
check(tag + "jxkernel.numpy makes jxkernel's Array", isinstance(b, XArray)
      and not isinstance(b, jax.Array))
for name, lib, np_ in (("jax", jax, jnp), ("jxkernel", jx, xnp)):
    traces = []
    def f(x):
        traces.append(1)
        return np_.sin(x) * 2.0
    g = lib.jit(f)
    x = np_.arange(3.0)
    outs = [np.asarray(g(x)) for _ in range(3)]
    check(tag + f"{name}.jit traces once and hits its cache", len(traces) == 1 and
          all((o == outs[0]).all() for o in outs))
    check(tag + f"{name}.jit result is its own Array", type(g(x)) is type(np_.ones(1)))
    grad = lib.grad(lambda v: np_.sum(v ** 2))(np_.arange(3.0))
    check(tag + f"{name}.grad", np.allclose(np.asarray(grad), [0.0, 2.0, 4.0]))
    vm = lib.vmap(lambda v: v @ v)(np_.ones((2, 3)))
    check(tag + f"{name}.vmap", np.asarray(vm).tolist() == [3.0, 3.0])
    check(tag + f"{name} eager op", float(np_.exp(np_.zeros(())) + 1) == 2.0)
    # jax makes a device's committed and uncommitted sharding objects equal in jxkernel's
    # fast-path dict keys: each call's results must still be committed as its arguments say
    c, u = lib.device_put(np.ones(3, np.float32), lib.devices()[0]), np_.ones(3)
    h = lib.jit(lambda v: v * 2)
    check(tag + f"{name}.jit results committed as their arguments", [
        h(v).committed for v in (c, u, c, u)] == [True, False, True, False])

jax.config.update("jax_enable_x64", True)
check(tag + "jax's x64 on leaves jxkernel's off", jnp.arange(2.0).dtype == np.float64 and
      xnp.arange(2.0).dtype == np.float32)
jax.config.update("jax_enable_x64", False)
jx.config.update("jax_enable_x64", True)
check(tag + "jxkernel's x64 on leaves jax's off", xnp.arange(2.0).dtype == np.float64 and
      jnp.arange(2.0).dtype == np.float32)
jx.config.update("jax_enable_x64", False)

class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b
jx.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
check(tag + "a pytree registered with jxkernel only", len(jx.tree_util.tree_leaves(Pair(1, 2))) == 2
      and len(jax.tree_util.tree_leaves(Pair(1, 2))) == 1)
print("dispatch", dispatch_us(jax))
sys.exit(1 if failures else 0)
"""


def run(order: str):
    done = subprocess.run([sys.executable, "-c", CHILD, order], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    if done.returncode not in (0, 1):
        sys.exit(f"{order}: the check crashed\n{done.stderr[-3000:]}")
    return done


def main():
    failed = False
    alone, together = [], {"jax,jxkernel": [], "jxkernel,jax": []}
    for _ in range(3):                 # alternating, so both see the same load
        alone.append(float(run("jax").stdout.split()[-1]))
        for order in together:
            done = run(order)
            lines = done.stdout.splitlines()
            together[order].append(float(lines[-1].split()[-1]))
            if _ == 0:
                print("\n".join(lines[:-1]))
            failed |= done.returncode != 0
    base = min(alone)
    for order, samples in together.items():
        ratio = min(samples) / base
        ok = ratio < 1.3
        failed |= not ok
        print(("ok   " if ok else "FAIL ") + f"[{order.replace(',', ' then ')}] JAX's jit "
              f"dispatch {min(samples):.2f} µs against {base:.2f} µs alone ({ratio:.2f}x)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
