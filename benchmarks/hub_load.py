"""Load test of the workshop hub (hub/jupyterhub_config.py): N learners at once, on loopback.

    .venv/bin/python benchmarks/hub_load.py 5 10 20      # one room per N, one after another

For each N, a fresh hub with its own data folder (the project's configuration; learners' copies
cloned by nbgitpuller from this repository, as in a workshop). N simulated learners log in
through the hub's REST API, start their servers together, then each runs the code cells of
demos/01_tour.ipynb and of one solved exercise notebook (demos/solutions/02_jit_and_tracing.ipynb)
in a kernel of their own, through the kernel's websocket, all at the same time. Reported: time
for all servers to be ready, time to the first output, p50/p95 cell latency, per-learner memory
(server + kernel RSS, measured after the notebooks ran), the hub's and its proxy's memory, and
failures (a cell that raised or timed out, a server that did not start). Nothing is left
running: every process is found by its working directory under the room's folder and ended.
Not part of the suite; the table and the conditions it was measured under are in README.md.
"""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
from test_hub import Kernel, Room  # noqa: E402  (the suite's hub driver: login, tokens, websocket)

NOTEBOOKS = ["demos/01_tour.ipynb", "demos/solutions/02_jit_and_tracing.ipynb"]
CELL_TIMEOUT = 300


def code_cells(path):
    """(source, whether the cell raises on purpose: its 'raises-exception' tag)."""
    nb = json.loads((ROOT / path).read_text())
    return [("".join(c["source"]), "raises-exception" in c["metadata"].get("tags", []))
            for c in nb["cells"] if c["cell_type"] == "code"]


def run_cells(kernel, cells, record):
    """Run `cells` in order; per cell its latency (send to idle) and its first output's time."""
    for code, raises in cells:
        msg_id = kernel.send("execute_request", {"code": code, "silent": False,
                                                 "store_history": True, "allow_stdin": False})
        start = time.monotonic()
        first, error = None, None
        deadline = start + CELL_TIMEOUT
        while True:
            if time.monotonic() > deadline:
                error = "timeout"
                break
            kernel.ws.settimeout(max(0.1, deadline - time.monotonic()))
            msg = json.loads(kernel.ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind in ("stream", "execute_result", "display_data") and first is None:
                first = time.monotonic()
            elif kind == "error":
                error = msg["content"]["ename"] + ": " + msg["content"]["evalue"][:80]
            elif kind == "status" and msg["content"]["execution_state"] == "idle":
                break
        record["cells"].append(time.monotonic() - start)
        if first is not None and record.get("first_output") is None:
            record["first_output"] = first - record["t0"]
        if error and raises and error != "timeout":
            record["expected_errors"] += 1       # the notebook shows this error on purpose
        elif error:
            record["failures"].append(error)
        elif raises:
            record["failures"].append("a cell tagged raises-exception did not raise")


def learner(room, name, record):
    try:
        kernel_pid = None
        for path in NOTEBOOKS:
            notebook_path = "workshop/" + path
            status, body = room.api(name, "POST", "kernels",
                                    {"name": "python3", "path": notebook_path})
            assert status == 201, (status, body[:200])
            kernel = Kernel(room, name, kernel_id=json.loads(body)["id"])
            record.setdefault("t0", time.monotonic())
            run_cells(kernel, code_cells(path), record)
            pid = int(kernel.execute("import os; os.getpid()"))
            record["server_pid"] = int(kernel.execute("os.getppid()"))
            kernel_pid = kernel_pid or pid
            record.setdefault("kernel_pids", []).append(pid)
        record["rss"] = sum(psutil.Process(p).memory_info().rss
                            for p in [record["server_pid"], *record["kernel_pids"]])
        record["server_rss"] = psutil.Process(record["server_pid"]).memory_info().rss
        record["kernel_rss"] = [psutil.Process(p).memory_info().rss for p in record["kernel_pids"]]
    except Exception as e:  # counted, reported, never hidden
        record["failures"].append(f"{type(e).__name__}: {e}"[:200])


def room_of(n):
    folder = Path(tempfile.mkdtemp(prefix=f"hub-load-{n}-"))
    room = Room(folder)
    for var in ("JXKERNEL_HUB_WORKSHOP_REPO", "JXKERNEL_HUB_WORKSHOP_BRANCH"):
        room.env.pop(var)          # learners' copies come from this repository, as in a room
    names = [f"learner{i}" for i in range(n)]
    records = {name: {"cells": [], "failures": [], "expected_errors": 0} for name in names}
    try:
        room.start()
        for name in names:
            room.login(name)
        t0 = time.monotonic()
        for name in names:
            room.request("POST", f"/hub/api/users/{name}/server", token=room.tokens[name],
                         timeout=120)
        room.wait("every server", lambda: all((room.server(m) or {}).get("ready")
                                             for m in names), 180 + 20 * n)
        ready = time.monotonic() - t0
        threads = [threading.Thread(target=learner, args=(room, m, records[m])) for m in names]
        for t in threads:
            t.start()
        for t in threads:
            t.join(CELL_TIMEOUT * 60)
        hub_rss = psutil.Process(room.proc.pid).memory_info().rss
        proxy_rss = sum(p.memory_info().rss for p in psutil.Process(room.proc.pid).children()
                        if "configurable-http-proxy" in " ".join(p.cmdline()))
        return summary(n, ready, records, hub_rss, proxy_rss)
    finally:
        room.kill_everything()


def summary(n, ready, records, hub_rss, proxy_rss):
    cells = sorted(c for r in records.values() for c in r["cells"])
    firsts = [r["first_output"] for r in records.values() if r.get("first_output") is not None]
    per = [r["rss"] for r in records.values() if "rss" in r]
    kern = [k for r in records.values() for k in r.get("kernel_rss", [])]
    serv = [r["server_rss"] for r in records.values() if "server_rss" in r]
    mb = 2 ** 20
    return {
        "learners": n,
        "servers_ready_s": round(ready, 1),
        "first_output_s_median": round(statistics.median(firsts), 2) if firsts else None,
        "cell_p50_s": round(cells[len(cells) // 2], 3) if cells else None,
        "cell_p95_s": round(cells[min(len(cells) - 1, int(0.95 * len(cells)))], 3) if cells else None,
        "learner_rss_mb_mean": round(statistics.mean(per) / mb) if per else None,
        "server_rss_mb_mean": round(statistics.mean(serv) / mb) if serv else None,
        "kernel_rss_mb_mean": round(statistics.mean(kern) / mb) if kern else None,
        "hub_rss_mb": round(hub_rss / mb), "proxy_rss_mb": round(proxy_rss / mb),
        "cells_run": len(cells),
        "expected_errors": sum(r["expected_errors"] for r in records.values()),
        "failures": [f for r in records.values() for f in r["failures"]],
    }


if __name__ == "__main__":
    for n in [int(a) for a in sys.argv[1:]] or [5]:
        print(json.dumps(room_of(n)), flush=True)
