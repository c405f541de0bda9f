"""Start-up costs, jxkernel beside JAX 0.10.2: import + first op, restart with a warm
persistent compilation cache, and the overhead of rerunning a %%jit cell (jxkernel only).

    .venv/bin/python benchmarks/startup.py                       # all three, 9 samples each
    .venv/bin/python benchmarks/startup.py --only import,restart --samples 15
    .venv/bin/python benchmarks/startup.py --jax-python .venv-jax/bin/python

import and restart run every sample in a fresh process, jxkernel and JAX alternating (so
both see the same load), and report medians. Before sampling, each interpreter imports its
library once with bytecode writing on, so the samples read .pyc files, as a user's
second start does. %%jit runs in this process, with IPython's InteractiveShell.

- import: `import <lib>, <lib>.numpy as jnp; (jnp.ones(3) + 1).block_until_ready()`;
  seconds of the import, of the op, their total, and the process's peak RSS (ru_maxrss).
  jxkernel twice: with its persistent cache (on by default) warm, and with it off.
- restart: a first process fills an empty cache folder by calling a small jitted MLP; then
  each sample is a new process that imports (timed apart) and makes the same first call:
  trace + cache lookup + load of the executable + run. JAX is configured to cache every
  program (jax_persistent_cache_min_compile_time_secs=0, ..._min_entry_size_bytes=0).
- jit_cell: what a cache-hit rerun of a %%jit cell adds to the compiled call (reads the
  inputs, looks the program up, writes the outputs back, returns the last value for display):
  shell.run_cell_magic("jit", ...) minus the same jitted function called by hand with the
  same reads and writes (and the magic's function alone, without IPython's dispatch); and shell.run_cell of the %%jit cell minus run_cell of a plain cell
  that calls that function (IPython's own cost cancels; noisier: ~0.7 ms per run_cell).
"""
import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

IMPORT_CHILD = """
import time, resource
start = time.perf_counter()
import {lib}, {lib}.numpy as jnp
imported = time.perf_counter()
(jnp.ones(3) + 1).block_until_ready()
done = time.perf_counter()
print(imported - start, done - imported, done - start,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""

RESTART_CHILD = """
import time
start = time.perf_counter()
import {lib} as jax, {lib}.numpy as jnp
import numpy as np
{configure}
imported = time.perf_counter()

@jax.jit
def mlp(w1, w2, x):
    h = jnp.tanh(x @ w1)
    return jnp.sum(jax.nn.relu(h @ w2) ** 2)

rng = np.random.default_rng(0)
w1, w2, x = (jnp.asarray(rng.standard_normal(s).astype(np.float32))
             for s in ((16, 32), (32, 8), (4, 16)))
ready = time.perf_counter()
mlp(w1, w2, x).block_until_ready()
done = time.perf_counter()
print(imported - start, done - ready)
"""

JAX_CACHE_CONFIG = """
jax.config.update("jax_compilation_cache_dir", {folder!r})
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
"""


def child_env(extra=None):
    """This process's environment with bytecode writing on and `extra` added; the repository
    root first on PYTHONPATH, so the jxkernel measured is this checkout's."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    env.update(extra or {})
    return env


def run_child(python, code, env):
    out = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True,
                         cwd=ROOT)
    if out.returncode:
        sys.exit(f"{python} failed:\n{out.stderr}")
    return [float(v) for v in out.stdout.split()]


def medians(samples):
    return [statistics.median(column) for column in zip(*samples)]


def alternate(children, samples):
    """{name: [values of each sample]}: each child (python, code, env) once per round."""
    results = {name: [] for name in children}
    for _ in range(samples):
        for name, (python, code, env) in children.items():
            results[name].append(run_child(python, code, env))
    return results


def bench_import(pythons, samples):
    """jxkernel runs twice per round: with its persistent compilation cache (on by default;
    here a fresh folder the warm-up run fills, so the op loads its executable from disk) and
    with the cache off (the op compiles, as on a first start, and as JAX, whose cache is off by
    default, always does)."""
    with tempfile.TemporaryDirectory() as folder:
        children = {lib: (python, IMPORT_CHILD.format(lib=lib), child_env())
                    for lib, python in pythons.items()}
        children["jxkernel"][2]["JXKERNEL_COMPILATION_CACHE_DIR"] = folder
        children["jxkernel, cache off"] = (
            pythons["jxkernel"], children["jxkernel"][1],
            child_env({"JXKERNEL_COMPILATION_CACHE": "0"}))
        for python, code, env in children.values():     # writes the .pyc files, fills the cache
            run_child(python, code, env)
        results = alternate(children, samples)
    print(f"\nimport + first op, {samples} fresh processes each, medians")
    print(f"{'':21}{'import s':>10}{'op s':>10}{'total s':>10}{'maxrss MB':>11}")
    for lib, values in results.items():
        print(f"{lib:21}" + "".join(f"{m:10.3f}" for m in medians(values)[:3])
              + f"{medians(values)[3]:11.1f}")
    ratio(results, [(2, "total"), (3, "maxrss")])
    ratio(results, [(2, "total"), (3, "maxrss")], ours="jxkernel, cache off")


def bench_restart(pythons, samples):
    with tempfile.TemporaryDirectory() as jxk_dir, tempfile.TemporaryDirectory() as jax_dir:
        children = {}
        for lib, python in pythons.items():
            if lib == "jax":
                code = RESTART_CHILD.format(lib=lib,
                                            configure=JAX_CACHE_CONFIG.format(folder=jax_dir))
                env = child_env()
            else:
                code = RESTART_CHILD.format(lib=lib, configure="")
                env = child_env({"JXKERNEL_COMPILATION_CACHE_DIR": jxk_dir})
            children[lib] = (python, code, env)
        cold = {lib: run_child(*child) for lib, child in children.items()}  # fills the cache
        results = alternate(children, samples)
    print(f"\nrestart with a warm persistent cache, {samples} fresh processes each, medians")
    print(f"{'':10}{'import s':>10}{'first call s':>14}{'(cold call s)':>15}")
    for lib, values in results.items():
        imported, call = medians(values)
        print(f"{lib:10}{imported:10.3f}{call:14.4f}{cold[lib][1]:15.4f}")
    ratio(results, [(1, "first call")])


def ratio(results, columns, ours="jxkernel"):
    if ours not in results or "jax" not in results:
        return
    mine, theirs = medians(results[ours]), medians(results["jax"])
    print(f"{ours} / jax: " + ", ".join(f"{name} {mine[i] / theirs[i]:.2f}"
                                         for i, name in columns))


CELL_SETUP = """
import jxkernel as jax, jxkernel.numpy as jnp
x = jnp.ones((8, 8)); w = jnp.ones((8, 8)) * 0.5

@jax.jit
def g(x, w):                       # the %%jit cell below, as a function
    y = jnp.tanh(x @ w)
    return y, y.sum()
"""
JIT_CELL = "%%jit\ny = jnp.tanh(x @ w)\nz = y.sum()\nz\n"
PLAIN_CELL = "y, z = g(x, w)\nz\n"    # IPython's cost + the same compiled call


def interleaved(fns, calls, rounds=9):
    """{name: (best, median) seconds per call}: each round times `calls` calls of every fn in
    turn, so that a burst of load hits them all alike."""
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - start) / calls)
    return {name: (min(t), statistics.median(t)) for name, t in times.items()}


def bench_jit_cell(calls):
    sys.path.insert(0, ROOT)                      # this checkout's jxkernel
    from IPython.core.interactiveshell import InteractiveShell   # only this part needs it
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext jxkernel")
    shell.run_cell(CELL_SETUP)
    ns = shell.user_ns
    g = ns["g"]
    body = JIT_CELL.split("\n", 1)[1]
    magic = shell.magics_manager.magics["cell"]["jit"]   # without run_cell_magic's dispatch

    def direct():                       # the magic's work done by hand: read, call, write
        y, z = g(ns["x"], ns["w"])
        ns.update(y=y, z=z)
        return z.block_until_ready()
    fns = {"run_cell(%%jit cell)": lambda: shell.run_cell(JIT_CELL),
           "run_cell(plain cell)": lambda: shell.run_cell(PLAIN_CELL),
           "run_cell_magic(jit)": lambda: shell.run_cell_magic("jit", "", body)
           .block_until_ready(),
           "jit magic itself": lambda: magic("", body).block_until_ready(),
           "direct g(x, w)": direct}
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        for fn in fns.values():
            fn()
            fn()
        timings = interleaved(fns, calls)
    print(f"\n%%jit cell rerun (cache hit), µs per call: best and median of 9 interleaved "
          f"rounds of {calls}")
    for name, (best, median) in timings.items():
        print(f"{name:22}{best * 1e6:10.1f}{median * 1e6:10.1f}")
    for what, a, b in (("run_cell: %%jit cell - plain cell", "run_cell(%%jit cell)",
                        "run_cell(plain cell)"),
                       ("magic: run_cell_magic - direct", "run_cell_magic(jit)",
                        "direct g(x, w)"),
                       ("jxkernel's own: jit magic itself - direct", "jit magic itself",
                        "direct g(x, w)")):
        added = [(timings[a][i] - timings[b][i]) * 1e6 for i in range(2)]
        print(f"%%jit overhead, {what}: {added[0]:.1f} best, {added[1]:.1f} median")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="jxkernel's interpreter")
    parser.add_argument("--jax-python", default=os.path.join(ROOT, ".venv-jax/bin/python"),
                        help="JAX's interpreter ('' to skip JAX)")
    parser.add_argument("--samples", type=int, default=9)
    parser.add_argument("--calls", type=int, default=500, help="cell reruns per round")
    parser.add_argument("--only", default="import,restart,jit_cell")
    args = parser.parse_args()
    pythons = {"jxkernel": args.python}
    if args.jax_python and os.path.exists(args.jax_python):
        pythons["jax"] = args.jax_python
    elif args.jax_python:
        print(f"# no {args.jax_python} (sh scripts/jax_venv.sh makes it): jxkernel only")
    only = args.only.split(",")
    print(f"# load average {os.getloadavg()[0]:.2f} at start")
    if "import" in only:
        bench_import(pythons, args.samples)
    if "restart" in only:
        bench_restart(pythons, args.samples)
    if "jit_cell" in only:
        bench_jit_cell(args.calls)
    print(f"# load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
