"""CPU time and XLA compile count of whole programs, under JAX 0.10.2 and under jxkernel.

    .venv/bin/python benchmarks/program_cpu.py --runs 3 random_guide kernel_lsq pmap_101 \\
        page:random-numbers page:jax-101/06-parallelism example:kernel_lsq
    .venv/bin/python benchmarks/program_cpu.py --impl jxkernel --profile /tmp/k.prof example:kernel_lsq

A program is a workload of benchmarks/workloads.py (its first run and the median of its reruns),
`page:NAME` a page of JAX's documentation as conformance/docs runs it (all its cells, in
order, in one namespace) or `example:NAME` a script of JAX's `examples/` (jax-v0.4.26, the last
release that had kernel_lsq.py); pages and examples are read from a JAX git mirror (`--mirror`).
Without `--impl`, each program runs in its own process per library, alternating (JAX from
.venv-jax, jxkernel from this Python), `--runs` times, and the medians are printed.

Why CPU time: on a machine shared with other work, wall time measures the machine (issue 38's
runs moved by 2.5x); the process's CPU time moves far less, and the count of compiles (each
call of the library's `backend_compile_and_load`, wrapped) not at all. Both libraries run with
their compilation caches off, so every compile is paid, as in compare_with_jax.sh.
`--profile FILE` writes a cProfile (of process CPU time) of the program's cells or runs.
"""
import argparse
import contextlib
import cProfile
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# a git clone of github.com/jax-ml/jax (bare or not): --mirror, or JAX_GIT_MIRROR
MIRROR = os.environ.get("JAX_GIT_MIRROR")
EIGHT_DEVICES = {"pmap_101", "page:jax-101/06-parallelism", "page:parallel"}


def environment(impl, program) -> dict:
    """The child's environment: caches off, 8 CPU devices where the program needs them, and
    for a JAX page XLA's optimizations off (as conformance/docs) and under jxkernel the
    `import jax` alias."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("XLA_FLAGS", "JXKERNEL_CPU_DEVICES", "JXKERNEL_AS_JAX")}
    env.update(JAX_PLATFORMS="cpu", MPLBACKEND="Agg", JXKERNEL_COMPILATION_CACHE="0",
               JAX_ENABLE_COMPILATION_CACHE="false")
    if program in EIGHT_DEVICES:
        env["XLA_FLAGS" if impl == "jax" else "JXKERNEL_CPU_DEVICES"] = \
            "--xla_force_host_platform_device_count=8" if impl == "jax" else "8"
    if ":" in program:                 # as conformance/docs runs JAX's pages
        env["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
        if impl == "jxkernel":
            env["JXKERNEL_AS_JAX"] = "1"
    return env


def count_compiles(impl) -> dict:
    """{"n", "cpu_s"} of every XLA compile from now on (the library's one compile call)."""
    if impl == "jax":
        from jax._src import compiler
    else:
        from jxkernel.xla import compiler
    counts, inner = {"n": 0, "cpu_s": 0.0}, compiler.backend_compile_and_load

    def counted(*args, **kwargs):
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            counts["n"] += 1
            counts["cpu_s"] += time.process_time() - start
    compiler.backend_compile_and_load = counted
    return counts


def cells_of(program, mirror) -> list:
    """The code cells of a JAX page (as conformance/docs runs them) or an example script."""
    sys.path.insert(0, ROOT)
    from conformance.docs import pages
    from conformance.docs.__main__ import page_cells
    kind, name = program.split(":", 1)
    if not mirror:
        raise SystemExit(f"{program} is read from a git clone of JAX: pass --mirror DIR or set "
                         f"JAX_GIT_MIRROR")
    if kind == "example":
        source = subprocess.run(["git", "-C", mirror, "show", f"jax-v0.4.26:examples/{name}.py"],
                                check=True, capture_output=True, text=True).stdout
        return [{"index": 0, "code": source}]
    page, = [p for p in pages.pages(pages.GitSource(mirror)) if p.name == name]
    return page_cells(page)[0]


def run_child(impl, program, mirror, profile) -> dict:
    """One program in this process; its CPU time, wall time and compiles."""
    profiler = cProfile.Profile(time.process_time) if profile else None
    if ":" in program:
        cells = cells_of(program, mirror)
        import random
        import numpy as np
        import jax.numpy  # noqa: F401  (the alias under jxkernel)
        from conformance.docs import worker
        compiles = count_compiles(impl)
        random.seed(0)
        np.random.seed(0)
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        sys.argv = [program]
        cpu, wall = time.process_time(), time.perf_counter()
        with profiler or contextlib.nullcontext():
            errors = [worker.run_cell(c["code"], namespace, f"<cell {c['index']}>")[1]
                      for c in cells]
        result = {"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
                  "compiles": compiles["n"], "compile_cpu_s": compiles["cpu_s"],
                  "failed_cells": sum(e is not None for e in errors)}
    else:
        sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
        import workloads
        library = workloads.load(impl)
        compiles = count_compiles(impl)
        runs = []

        def timed(fn, *args):          # each run of the program, by CPU time and compiles
            n, compile_cpu = compiles["n"], compiles["cpu_s"]
            cpu, wall = time.process_time(), time.perf_counter()
            workloads.ready(fn(*args))
            runs.append({"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
                         "compiles": compiles["n"] - n,
                         "compile_cpu_s": compiles["cpu_s"] - compile_cpu})
            return runs[-1]["wall_s"]
        workloads.timed = timed
        with profiler or contextlib.nullcontext():
            for _ in workloads.WORKLOADS[program](library):
                pass
        first, reruns = runs[0], runs[1:]
        result = {**first, "rerun_cpu_s": statistics.median(r["cpu_s"] for r in reruns),
                  "rerun_compiles": reruns[0]["compiles"]}
    if profiler:
        profiler.dump_stats(profile)
    return {"impl": impl, "program": program, **result}


def compare(programs, runs, mirror, jax_python):
    samples = {}
    for _ in range(runs):
        for program in programs:
            for impl, python in (("jax", jax_python), ("jxkernel", sys.executable)):
                done = subprocess.run([python, os.path.abspath(__file__), "--impl", impl,
                                       *(["--mirror", mirror] if mirror else []), program],
                                      cwd=ROOT,
                                      env=environment(impl, program), capture_output=True,
                                      text=True)
                lines = done.stdout.strip().splitlines()
                if done.returncode or not lines:
                    print(f"{program} under {impl} failed: {done.stderr.strip()[-300:]}")
                    continue
                samples.setdefault((program, impl), []).append(json.loads(lines[-1]))
    print("| program | JAX CPU | jxkernel CPU | ratio | JAX compiles | jxkernel compiles |")
    print("|---|---:|---:|---:|---:|---:|")
    for program in programs:
        jax_runs, ours = samples.get((program, "jax")), samples.get((program, "jxkernel"))
        if not jax_runs or not ours:
            continue
        keys = [("cpu_s", "compiles", "")] + \
            ([("rerun_cpu_s", "rerun_compiles", " rerun")] if "rerun_cpu_s" in ours[0] else [])
        for time_key, count_key, label in keys:
            a = statistics.median(r[time_key] for r in jax_runs)
            b = statistics.median(r[time_key] for r in ours)
            print(f"| {program}{label} | {a:.3f} s | {b:.3f} s | {b / a:.2f}x | "
                  f"{jax_runs[0][count_key]} | {ours[0][count_key]} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("programs", nargs="+")
    parser.add_argument("--impl", choices=("jax", "jxkernel"),
                        help="run in this process (the child of a comparison)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mirror", default=MIRROR,
                        help="a git clone of JAX (pages and examples need it; default: "
                             "$JAX_GIT_MIRROR)")
    parser.add_argument("--jax-python", default=os.path.join(ROOT, ".venv-jax", "bin", "python"))
    parser.add_argument("--profile", help="cProfile output file (with --impl)")
    args = parser.parse_args()
    if args.impl:
        program, = args.programs
        if os.environ.get("PROGRAM_CPU_CHILD") != program:  # the environment, from the start
            env = {**environment(args.impl, program), "PROGRAM_CPU_CHILD": program}
            os.execve(sys.executable, [sys.executable, *sys.argv], env)
        print(json.dumps(run_child(args.impl, program, args.mirror, args.profile)))
        sys.stdout.flush()
        os._exit(0)                 # a page may leave threads whose teardown hangs
    compare(args.programs, args.runs, args.mirror, args.jax_python)


if __name__ == "__main__":
    main()
