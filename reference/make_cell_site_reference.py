"""Record what JAX 0.10.2's `jax_explain_cache_misses` prints in a real ipykernel (as
JupyterLab runs one) for a call in a cell: the call site names ipykernel's file of the cell,
"/tmp/ipykernel_<pid>/<hash>.py:1:16 (<module>)", its column counted from 0 (omitted where
it is 0). jxkernel names the cell instead, as its prompt does (notebook/tracebacks.py
`name_cells`: "In[3], line 1, column 17"); tests/notebook/test_ipykernel_cell_names.py runs
the same cells in jxkernel's kernel and compares.

    .venv-jax/bin/python reference/make_cell_site_reference.py

The kernel runs .venv-jax's Python (real JAX) with ipykernel and jupyter_client taken from
jxkernel's .venv (appended to sys.path, after JAX's own packages). Writes
tests/data/cell_site_reference.json: {"cells": [code, ...], "runs": [{"execution_count",
"misses": the TRACING CACHE MISS messages, function ids and the kernel's pid dropped,
"persistent": the persistent compilation cache's lines}],
"files": {each cell's file: its execution_count}}.
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SITE = os.path.join(ROOT, ".venv", "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}",
                    "site-packages")
sys.path.append(SITE)

import jax  # noqa: E402
import jupyter_client  # noqa: E402

# each cell as a learner types it: jit defined in one cell, called twice in the next
CELLS = ["jax.config.update('jax_explain_cache_misses', True)",
         "f = jax.jit(lambda x: x * 2)",
         "f(jnp.ones(3)); f(jnp.ones(4))",
         "y = f(jnp.ones(5))"]


def execute(client, code) -> tuple:
    """(execution_count, the text of the cell's streams and error)."""
    msg_id, texts = client.execute(code), []
    while True:
        msg = client.get_iopub_msg(timeout=120)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            texts.append(content["text"])
        elif kind == "error":
            raise RuntimeError("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle":
            break
    reply = client.get_shell_msg(timeout=120)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = client.get_shell_msg(timeout=120)
    return reply["content"]["execution_count"], "".join(texts)


def misses(text) -> list:
    """The TRACING CACHE MISS messages of a cell's output, without ids and the kernel's pid
    ("/tmp/ipykernel_<pid>/" kept as that pattern, the cell's hash kept)."""
    found = re.split(r"(?m)^(?=TRACING CACHE MISS)", text)
    return [re.sub(r"/tmp/ipykernel_\d+/", "/tmp/ipykernel_<pid>/",
                   re.sub(r" id=\d+", "", m.rstrip("\n")))
            for m in found if m.startswith("TRACING CACHE MISS")]


# how JAX's persistent-cache lines begin (jax._src.compiler, jax._src.compilation_cache)
PERSISTENT_LINES = ("PERSISTENT COMPILATION CACHE", "Writing ", "Not writing persistent",
                    "Persistent compilation cache hit")


def persistent(text) -> list:
    """The persistent cache's lines of a cell's output (JAX logs them at WARNING only where
    a cache folder was set)."""
    return [line for line in text.splitlines() if line.startswith(PERSISTENT_LINES)]


def main():
    manager = jupyter_client.KernelManager(kernel_name="python3")
    manager.kernel_spec.argv = [
        sys.executable, "-c", f"import sys; sys.path.append({SITE!r}); "
        "from ipykernel import kernelapp; kernelapp.launch_new_instance()",
        "-f", "{connection_file}"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    manager.start_kernel(env=dict(env, JAX_PLATFORMS="cpu"))
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        n, _ = execute(client, "import jax, jax.numpy as jnp\nprint(jax.__version__)")
        runs = []
        for code in CELLS:
            count, text = execute(client, code)
            runs.append({"execution_count": count, "misses": misses(text),
                         "persistent": persistent(text)})
        # which cell each file is: ipykernel names a cell's file by a hash of its code
        _, text = execute(client, "import json, re\nprint(json.dumps({re.sub(r'/tmp/"
                                  "ipykernel_\\d+/', '/tmp/ipykernel_<pid>/', k): v for k, v in "
                                  "get_ipython().compile._filename_map.items()}))")
        files = json.loads(text)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    path = os.path.join(ROOT, "tests", "data", "cell_site_reference.json")
    with open(path, "w") as f:
        json.dump({"jax_version": jax.__version__, "cells": CELLS, "runs": runs,
                   "files": files}, f, indent=1)
        f.write("\n")
    print(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
