"""Run the ``>>>`` examples of JAX 0.10.2's docstrings under real JAX and under jxkernel.

    python -m conformance.doctests --fetch PATH/TO/jax.git          # all
    python -m conformance.doctests --fetch MIRROR --only jax/_src/numpy/lax_numpy.py
    python -m conformance.doctests --fetch MIRROR --report    # also rewrite README's table

The docstrings are read from the mirror at the tag (collect.py); each side runs them in
worker processes (worker.py: ``.venv-jax/bin/python`` for JAX, this Python with
``JXKERNEL_AS_JAX=1`` for jxkernel), 8 CPU devices as JAX's CI has them, a docstring per
namespace. JAX's records are cached by the docstrings' text in ``--cache``
(default /tmp/jxkernel-doctests-cache). Prints, per module, the docstrings, their examples,
how many docstrings pass under each side, and the docstrings that pass under JAX and fail
under jxkernel with their first failing example.
"""
import argparse
import collections
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

from conformance.doctests import collect

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JAX_PYTHON = os.path.join(ROOT, ".venv-jax", "bin", "python")   # scripts/jax_venv.sh makes it
README = os.path.join(ROOT, "conformance", "README.md")


def _environment(side, workdir):
    env = {k: v for k, v in os.environ.items()
           if k not in ("JXKERNEL_AS_JAX", "XLA_FLAGS", "JXKERNEL_CPU_DEVICES", "PYTHONPATH")}
    # documentation.yml: 8 host devices, no traceback filtering
    env.update(PYTHONPATH=ROOT, TMPDIR=workdir, JAX_PLATFORMS="cpu", PYTHONHASHSEED="0",
               JAX_TRACEBACK_FILTERING="off", MPLBACKEND="Agg")
    if side == "jax":
        env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    else:
        env["JXKERNEL_AS_JAX"] = "1"
        env["JXKERNEL_CPU_DEVICES"] = "8"
    return env


def run_side(items, side, python, timeout):
    """Each docstring's record under one side; a worker that dies is restarted after the
    docstring it was running (recorded as a crash)."""
    records = {}
    with tempfile.TemporaryDirectory(prefix="jxdoctests-") as workdir:
        items_path, out_path = os.path.join(workdir, "items.json"), os.path.join(workdir, "out.jsonl")
        with open(items_path, "w") as f:
            json.dump(items, f)
        start = 0
        while start < len(items):
            done = subprocess.run([python, "-m", "conformance.doctests.worker", items_path, out_path,
                                   str(start), str(timeout)], cwd=workdir,
                                  env=_environment(side, workdir), capture_output=True, text=True)
            running = None
            with open(out_path) if os.path.exists(out_path) else open(os.devnull) as f:
                for line in f:
                    rec = json.loads(line)
                    if "start" in rec:
                        running = rec["start"]
                    else:
                        records[rec["name"]] = rec
                        running = None
            if done.returncode == 0:
                break
            names = [i["name"] for i in items]
            if running is None:   # died before its first docstring: every remaining one fails
                for item in items[start:]:
                    records[item["name"]] = _crash(item, done.stderr)
                break
            records[running] = _crash(items[names.index(running)], done.stderr)
            start = names.index(running) + 1
    return records


def _crash(item, stderr):
    return {"name": item["name"], "examples": item["text"].count(">>>"), "failed": 1,
            "first": {"line": None, "source": "", "want": "",
                      "got": "worker crashed: " + stderr.strip()[-300:]}}


def jax_side(items, args):
    key = hashlib.sha256(json.dumps(items).encode()).hexdigest()[:16]
    path = os.path.join(args.cache, f"jax.{key}.json")
    if os.path.exists(path) and not args.rerun_jax:
        with open(path) as f:
            return json.load(f)
    records = run_side(items, "jax", args.jax_python, args.timeout)
    os.makedirs(args.cache, exist_ok=True)
    with open(path, "w") as f:
        json.dump(records, f)
    return records


def summarize(items, expected, actual):
    """Per module: [docstrings, examples, pass under JAX, pass under jxkernel], and the
    docstrings that pass under JAX and fail under jxkernel."""
    table = collections.OrderedDict()
    gaps = []
    for item in items:
        module = collect.area(item["file"])
        row = table.setdefault(module, [0, 0, 0, 0])
        e, a = expected.get(item["name"]), actual.get(item["name"])
        row[0] += 1
        row[1] += e["examples"] if e else item["text"].count(">>>")
        jax_ok = bool(e) and e["failed"] == 0
        jx_ok = bool(a) and a["failed"] == 0
        row[2] += jax_ok
        row[3] += jx_ok
        if jax_ok and not jx_ok:
            gaps.append((module, item, a))
    return table, gaps


def _fmt_gap(module, item, record):
    first = (record or {}).get("first") or {}
    got = " ".join(str(first.get("got", "not run")).split())[:240]
    want = " ".join(str(first.get("want", "")).split())[:160]
    src = " ".join(str(first.get("source", "")).split())[:160]
    return f"- `{item['name']}` ({item['file']}:{item['lineno']}): `{src}` wants `{want}`, got `{got}`"


def report_text(table, gaps):
    lines = ["| module | docstrings | examples | pass under JAX | pass under jxkernel |",
             "|---|---:|---:|---:|---:|"]
    total = [0, 0, 0, 0]
    for module in sorted(table, key=lambda m: -table[m][0]):
        row = table[module]
        total = [t + r for t, r in zip(total, row)]
        lines.append(f"| {module} | " + " | ".join(str(r) for r in row) + " |")
    lines.append("| **all** | " + " | ".join(f"**{t}**" for t in total) + " |")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m conformance.doctests")
    parser.add_argument("--fetch", metavar="MIRROR", required=True,
                        help="a git mirror/checkout of JAX")
    parser.add_argument("--tag", default=collect.TAG)
    parser.add_argument("--only", nargs="*", help="files (or prefixes) under jax/ to run")
    parser.add_argument("--cache", default="/tmp/jxkernel-doctests-cache")
    parser.add_argument("--rerun-jax", action="store_true")
    parser.add_argument("--jax-python", default=JAX_PYTHON)
    parser.add_argument("--timeout", type=int, default=120, help="seconds per docstring")
    parser.add_argument("--json", help="write every docstring's records here")
    args = parser.parse_args(argv)
    items = collect.docstrings(collect.source_files(args.fetch, args.tag))
    if args.only:
        items = [i for i in items if any(i["file"].startswith(o) or i["name"].startswith(o)
                                         for o in args.only)]
    t0 = time.time()
    expected = jax_side(items, args)
    t1 = time.time()
    actual = run_side(items, "jxkernel", sys.executable, args.timeout)
    t2 = time.time()
    table, gaps = summarize(items, expected, actual)
    print(report_text(table, gaps))
    print(f"\n{len(gaps)} docstrings pass under JAX and fail under jxkernel "
          f"(JAX {t1 - t0:.0f} s, jxkernel {t2 - t1:.0f} s):")
    for gap in gaps:
        print(_fmt_gap(*gap))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"items": [{k: i[k] for k in ("name", "file", "lineno")} for i in items],
                       "jax": expected, "jxkernel": actual}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
