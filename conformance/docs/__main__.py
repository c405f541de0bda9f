"""Run JAX's own documentation under real JAX and under jxkernel, cell by cell, and compare.

    python -m conformance.docs --fetch PATH/TO/jax.git            # every page
    python -m conformance.docs --fetch MIRROR notebooks/thinking_in_jax pytrees  # some pages
    python -m conformance.docs --pages JAX_CHECKOUT --report   # also rewrite README.md's table
    python -m conformance.docs --library flax --pages .libs/src/flax-0.12.7 --report
    python -m conformance.docs --library optax --fetch PATH/TO/optax.git guides/...
    python -m conformance.docs --fetch MIRROR --backend numpy --report   # jxkernel on NumPy

With ``--library`` the pages are that library's tutorial notebooks (library_pages.py) at the
version conformance/libraries pins, run under conformance/libraries' two venvs
(``.libs/venv-jax``: real JAX and the libraries; ``.libs/venv-jxkernel``: this checkout and
the libraries), and ``--report`` rewrites the library's table in LIBRARIES.md.

Each page runs in its own subprocess per side (``.venv-jax/bin/python`` for JAX, this
Python with ``JXKERNEL_AS_JAX=1`` for jxkernel) under a time limit, all its cells in one
namespace (conformance/docs/worker.py). JAX's records are cached by the page's cells in
``--cache`` (default /tmp/jxkernel-docs-cache), and each page's result is kept there too, so
``--report`` writes the table from the last result of every page.

With ``--backend numpy`` jxkernel's side runs on the NumPy backend (``JAX_PLATFORMS=numpy``,
what JupyterLite runs) against the same JAX records (from XLA's CPU); its records and results
are kept apart from the CPU run's, the differences that cannot be the same without XLA are read
past as ``settings.NUMPY_ACCEPTED`` names them, and ``--report`` rewrites README.md's NumPy table.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

from conformance.docs import compare_cells, library_pages, pages as pages_mod, settings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "conformance", "docs")
JAX_PYTHON = os.path.join(ROOT, ".venv-jax", "bin", "python")
LIBRARY_VENV = os.path.join(ROOT, ".libs", "venv-{side}", "bin", "python")


def page_cells(page):
    """The cells the workers run (skips left out, stand-ins in place, a prelude first) and
    the skipped ones with why."""
    run, skipped = [], []
    prelude = settings.PRELUDES.get(page.name)
    if prelude:
        run.append({"index": -1, "code": prelude, "expects_error": False})
    for cell in page.cells:
        reason = _match(settings.CELL_SKIPS, page.name, cell.code)
        if "skip-execution" in cell.tags:
            reason = reason or "marked skip-execution in JAX's page"
        if reason:
            skipped.append({"index": cell.index, "reason": reason})
            continue
        code = _match(settings.STANDINS, page.name, cell.code) or cell.code
        run.append({"index": cell.index, "code": code, "expects_error": cell.expects_error})
    return run, skipped


def _match(table, page_name, code):
    for (name, piece), value in table.items():
        if name == page_name and piece in code:
            return value
    return None


def _environment(side, devices, workdir, backend="cpu"):
    env = {k: v for k, v in os.environ.items()
           if k not in ("JXKERNEL_AS_JAX", "XLA_FLAGS", "JXKERNEL_CPU_DEVICES", "PYTHONPATH")}
    env.update(MPLBACKEND="Agg", PYTHONPATH=ROOT, TMPDIR=workdir, JAX_PLATFORMS="cpu",
               JAX_DISABLE_MOST_OPTIMIZATIONS="1", PYTHONHASHSEED="0")
    if side == "jax":
        if devices > 1:
            env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    else:
        env["JXKERNEL_AS_JAX"] = "1"
        env["JAX_PLATFORMS"] = backend
        if backend == "numpy":
            # NumPy's BLAS one thread, as in JupyterLite (Pyodide has no threads): on a
            # shared machine OpenBLAS's spinning threads made a 32x784 @ 784x512 float32
            # matmul 76 ms instead of 4, and examples/mnist_vae's 800 steps ran past --timeout
            env["OPENBLAS_NUM_THREADS"] = "1"
        if devices > 1:
            env["JXKERNEL_CPU_DEVICES"] = str(devices)
    return env


def run_side(page, cells, side, timeout, python, backend="cpu"):
    """Each cell's record under one side, and how the page ended: ok | timeout | crash."""
    devices = 8 if page.name in settings.MULTI_DEVICE else 1
    with tempfile.TemporaryDirectory(prefix="jxdocs-") as workdir:
        cells_path, out_path = os.path.join(workdir, "cells.json"), os.path.join(workdir, "out.jsonl")
        with open(cells_path, "w") as f:
            json.dump({"name": page.name, "cells": cells}, f)
        start = time.time()
        try:
            done = subprocess.run([python, "-m", "conformance.docs.worker", cells_path, out_path],
                                  cwd=workdir, env=_environment(side, devices, workdir, backend),
                                  capture_output=True, text=True, timeout=timeout)
            ending = "ok" if done.returncode == 0 else f"crash: {done.stderr.strip()[-500:]}"
        except subprocess.TimeoutExpired:
            ending = f"timeout after {timeout} s"
        seconds = round(time.time() - start, 1)
        records = []
        if os.path.exists(out_path):
            with open(out_path) as f:
                records = [json.loads(line) for line in f if line.strip()]
    return {"records": records, "ending": ending, "seconds": seconds, "workdir": workdir}


def _key(page, cells):
    text = json.dumps([page.name, page.tag, cells, page.name in settings.MULTI_DEVICE])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def jax_side(page, cells, args):
    """JAX's records of the page, from the cache when its cells have not changed."""
    path = os.path.join(args.cache, "jax", page.name.replace("/", "__") + "." + _key(page, cells)
                        + ".json")
    if os.path.exists(path) and not args.rerun_jax:
        with open(path) as f:
            return json.load(f)
    result = run_side(page, cells, "jax", args.timeout, args.jax_python)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(result, f)
    return result


def run_page(page, args):
    skips = dict(settings.PAGE_SKIPS, **(settings.NUMPY_PAGE_SKIPS
                                         if args.backend == "numpy" else {}))
    if page.name in skips:
        return {"name": page.name, "status": "skip", "reason": skips[page.name]}
    cells, skipped = page_cells(page)
    expected = jax_side(page, cells, args)
    actual_path = os.path.join(args.cache, _suffixed("jxkernel", args),
                               page.name.replace("/", "__") + ".json")
    if args.recompare and os.path.exists(actual_path):
        with open(actual_path) as f:
            actual = json.load(f)
    else:
        actual = run_side(page, cells, "jxkernel", args.timeout, args.jxkernel_python,
                          args.backend)
        os.makedirs(os.path.dirname(actual_path), exist_ok=True)
        with open(actual_path, "w") as f:
            json.dump(actual, f)
    result = compare_cells.compare_page(page.name, cells, expected, actual,
                                        settings.tolerance(page.name, args.backend),
                                        settings.accepted(page.name, args.backend),
                                        settings.NUMPY_XLA_ONLY.get(page.name)
                                        if args.backend == "numpy" else None)
    result.update(name=page.name, cells=len(page.cells), skipped_cells=skipped,
                  jax_unexpected=_unexpected(cells, expected),
                  seconds={"jax": expected["seconds"], "jxkernel": actual["seconds"]},
                  widened=settings.NUMPY_TOLERANCE.get(page.name)
                  if args.backend == "numpy" else None)
    return result


def _commit():
    return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()


def _unexpected(cells, expected):
    """The cells where JAX's own run raised though the page does not expect it, and how a run
    that did not end normally ended."""
    expects = {c["index"]: c["expects_error"] for c in cells}
    found = [r["index"] for r in expected["records"]
             if r["error"] and not expects.get(r["index"], False)]
    return found + ([expected["ending"][:200]] if expected["ending"] != "ok" else [])


def _suffixed(folder, args):
    """The cache's folder for jxkernel's side: the NumPy backend's records and results apart."""
    return folder if args.backend == "cpu" else f"{folder}-{args.backend}"


def _result_path(args, name):
    return os.path.join(args.cache, _suffixed("results", args), name.replace("/", "__") + ".json")


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m conformance.docs")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--fetch", metavar="MIRROR", help="a git mirror/checkout of JAX")
    source.add_argument("--pages", metavar="DIR", help="a folder laid out like JAX's repository")
    parser.add_argument("names", nargs="*", help="pages to run (default: all)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per page and side")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(),
                                                         "jxkernel-docs-cache"))
    parser.add_argument("--library", choices=sorted(library_pages.LIBRARIES),
                        help="run this library's tutorials (from --fetch/--pages) instead of JAX's")
    parser.add_argument("--jax-python", help=f"default {JAX_PYTHON}, with --library "
                        f"{LIBRARY_VENV.format(side='jax')}")
    parser.add_argument("--jxkernel-python", help="default this Python, with --library "
                        f"{LIBRARY_VENV.format(side='jxkernel')}")
    parser.add_argument("--backend", choices=("cpu", "numpy"), default="cpu",
                        help="jxkernel's platform (JAX's side always runs on XLA's CPU): numpy "
                             "is what JupyterLite runs")
    parser.add_argument("--rerun-jax", action="store_true", help="ignore JAX's cached records")
    parser.add_argument("--recompare", action="store_true",
                        help="compare jxkernel's last records of the pages again, not rerun")
    parser.add_argument("--report", action="store_true",
                        help="rewrite conformance/docs/README.md's table from the last results")
    args = parser.parse_args(argv)
    if args.library and args.backend != "cpu":
        parser.error("--backend numpy runs JAX's own pages (LIBRARIES.md's tables are the CPU's)")
    source = pages_mod.GitSource(args.fetch) if args.fetch else pages_mod.FolderSource(args.pages)
    if args.library:
        every = library_pages.pages(source, library_pages.LIBRARIES[args.library])
    else:
        every = pages_mod.pages(source)
    args.jax_python = args.jax_python or (LIBRARY_VENV.format(side="jax") if args.library
                                          else JAX_PYTHON)
    args.jxkernel_python = args.jxkernel_python or (
        LIBRARY_VENV.format(side="jxkernel") if args.library else sys.executable)
    chosen = [p for p in every if not args.names or p.name in args.names]
    unknown = set(args.names) - {p.name for p in every}
    if unknown:
        parser.error(f"no such page: {sorted(unknown)}; pages are {[p.name for p in every]}")
    for page in chosen:
        result = run_page(page, args)
        os.makedirs(os.path.dirname(_result_path(args, page.name)), exist_ok=True)
        with open(_result_path(args, page.name), "w") as f:
            json.dump(result, f, indent=1)
        print(f"{page.name}: {result['status']} {result.get('reason', '')[:300]}", flush=True)
    if args.report:
        results = []
        for page in every:
            path = _result_path(args, page.name)
            if page.name in settings.PAGE_SKIPS or (args.backend == "numpy"
                                                    and page.name in settings.NUMPY_PAGE_SKIPS):
                results.append(run_page(page, args))
            elif os.path.exists(path):
                with open(path) as f:
                    results.append(json.load(f))
            else:
                results.append({"name": page.name, "status": "not run", "reason": ""})
        if args.library:
            compare_cells.write_library_report(
                os.path.join(HERE, "LIBRARIES.md"), library_pages.LIBRARIES[args.library],
                results, _commit(), time.strftime("%Y-%m-%d"))
        else:
            compare_cells.write_report(os.path.join(HERE, "README.md"), results, args.backend)
        print(compare_cells.library_summary(results) if args.library
              else compare_cells.pass_rate(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
