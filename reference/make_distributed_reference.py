"""Record what real JAX answers for the multi-process program of tests/xla/test_distributed.py
(tests/data/distributed_cases.py): 2 processes x 2 CPU devices and 4 x 1 on 127.0.0.1.

    .venv-jax/bin/python reference/make_distributed_reference.py   # -> distributed_reference.json

Each run's processes start together on a free port, each bounded in time; every process's
RESULT object is stored, in process order, with JAX's version.
"""
import importlib
import json
import os
import socket
import subprocess
import sys

import jax
from recording import DATA  # also puts tests/data, where the program lives, on sys.path

source = importlib.import_module("distributed_cases").source

RUNS = {"two": (2, 2), "four": (4, 1)}     # name: (processes, CPU devices per process)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(nproc: int, devices: int) -> list:
    port, code = _free_port(), source("jax")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(port), str(pid), str(nproc),
                               "shutdown", str(devices)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for pid in range(nproc)]
    results = []
    try:
        for p in procs:
            stdout, stderr = p.communicate(timeout=120)
            line = next((x for x in stdout.splitlines() if x.startswith("RESULT ")), None)
            if p.returncode != 0 or line is None:
                raise RuntimeError(f"a JAX process failed ({p.returncode}):\n{stderr[-3000:]}")
            results.append(json.loads(line[len("RESULT "):]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return results


if __name__ == "__main__":
    recorded = {"jax_version": jax.__version__}
    recorded.update({name: run(*layout) for name, layout in RUNS.items()})
    with open(os.path.join(DATA, "distributed_reference.json"), "w") as f:
        json.dump(recorded, f, indent=1, sort_keys=True)
        f.write("\n")
    print("distributed_reference.json written")
