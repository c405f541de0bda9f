"""Helpers of scripts/gpu_session.sh (a session on a lent GPU machine, docs/gpu.md).

    python3 scripts/gpu_session.py notebook OUT.json   # %jxmemory, %explain, %jxbackend, %timeit
    python3 scripts/gpu_session.py outcomes LOG      # per file: outcomes of a `pytest -vv` log
    python3 scripts/gpu_session.py recorded ARGS...  # pytest ARGS on every `recorded CPU values` test

`notebook` runs a learner's cells in an IPython shell with `%load_ext jxkernel` and prints
what each shows (the GPU's allocator line, costs on the GPU); `outcomes` reads the PASSED /
FAILED lines `pytest -vv` prints as it goes, so a run stopped at its deadline still tells which
tests held (the way to narrow the `recorded CPU values` markers: JXKERNEL_GPU_TIER_RUN);
`recorded` runs pytest on the tests held for that reason, both the files holding a marker and
the single cases tests/support/gpu_tier.py's CPU_ONLY_CASES names (a grep for the marker alone
misses those).
"""
from __future__ import annotations

import collections
import json
import os
import pathlib
import re
import sys

CELLS = ["import jxkernel as jax, jxkernel.numpy as jnp\nx = jnp.ones((1024, 1024))\n"
         "y = x @ x\njax.devices()",
         "%jxmemory",
         "def f(a, w):\n    h = jnp.sin(a) @ w\n    return h.sum()",
         "%explain f(x, x)",
         "%jxbackend",
         "%timeit -n 3 -r 2 jax.jit(f)(x, x).block_until_ready()"]


def notebook(path: str) -> None:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jxkernel")
    shown = []
    for cell in CELLS:
        with capture_output() as cap:
            result = shell.run_cell(cell, store_history=True)
        texts = [str(o.data.get("text/plain")) for o in cap.outputs]
        print(f"== {cell!r}: {'ok' if result.success else result.error_in_exec}")
        print(cap.stdout[-3000:], *texts, sep="\n")
        shown.append({"cell": cell, "ok": result.success, "stdout": cap.stdout,
                      "outputs": texts})
    with open(path, "w") as f:
        json.dump(shown, f, indent=1)


# `[gw0] [ 5%] PASSED tests/a.py::test_b[c d]` (xdist) or `tests/a.py::test_b PASSED [ 5%]`
_KINDS = "PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS"
_OUTCOME = re.compile(rf"\b({_KINDS}) (tests/\S+?\.py)::(.+?)\s*$|"
                      rf"^(tests/\S+?\.py)::(.+?) ({_KINDS})\b")


def outcomes(log: str) -> None:
    per_file, failed = collections.defaultdict(collections.Counter), []
    for line in open(log, errors="replace"):
        m = _OUTCOME.search(line)
        if not m:
            continue
        kind, path, name = (m.group(1), m.group(2), m.group(3)) if m.group(1) else \
            (m.group(6), m.group(4), m.group(5))
        per_file[path][kind] += 1
        if kind in ("FAILED", "ERROR"):
            failed.append(f"{path}::{name}")
    for path in sorted(per_file):
        print(path, dict(per_file[path]))
    print("\n".join(sorted(set(failed))))


REASON = "recorded CPU values"


def _module(path: pathlib.Path):
    """The module at `path`, loaded from its file (no sys.path change in the caller's
    process), or the one already imported under its name (as in the tests' processes)."""
    import importlib.util
    if path.stem in sys.modules:
        return sys.modules[path.stem]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = sys.modules[path.stem] = importlib.util.module_from_spec(spec)   # (dataclasses
    spec.loader.exec_module(module)                                           # look it up)
    return module


def recorded_targets(root: pathlib.Path) -> list[str]:
    """The files holding a `cpu_only("recorded CPU values")` marker, then the node ids of
    CPU_ONLY_CASES given that reason in other files (pytest would run a case twice if named
    beside its file)."""
    files = sorted(str(p.relative_to(root)) for p in (root / "tests").rglob("*.py")
                   if f'cpu_only("{REASON}")' in p.read_text(errors="replace"))
    gpu_tier = _module(root / "tests" / "support" / "gpu_tier.py")
    cases = sorted(nodeid for nodeid, reason in gpu_tier.CPU_ONLY_CASES.items()
                   if reason == REASON and nodeid.split("::")[0] not in files)
    return files + cases


def recorded(*pytest_args: str) -> None:
    root = pathlib.Path(__file__).resolve().parent.parent
    targets = recorded_targets(root)
    os.execv(sys.executable, [sys.executable, "-m", "pytest", *pytest_args, *targets])


if __name__ == "__main__":
    {"notebook": notebook, "outcomes": outcomes, "recorded": recorded}[sys.argv[1]](*sys.argv[2:])
