"""A real ipykernel in a child process, as JupyterLab runs one, for what only ipykernel does
(the file names it compiles cells into, the execution counts its replies carry).

    with running_kernel() as client:                  # skips without ipykernel/jupyter_client
        client.execute_interactive("%load_ext jxkernel", timeout=TIMEOUT)
        reply, messages = execute(client, "1 + 1")    # messages: [("execute_result", {...})]
"""
import contextlib
import os
import queue
import sys

import pytest

TIMEOUT = 120           # seconds a start or a cell may take on a loaded machine


def execute(client, code: str, timeout: float = TIMEOUT) -> tuple:
    """Run `code`: (its execute_reply's content, its iopub messages up to its idle status as
    [(msg_type, content)]); a message of another request (wait_for_ready's) is passed over."""
    msg_id = client.execute(code)
    messages = []
    while True:
        try:
            msg = client.get_iopub_msg(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no idle status after {code!r}; messages so far: {messages}")
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            break
        messages.append((kind, content))
    reply = client.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = client.get_shell_msg(timeout=timeout)
    return reply["content"], messages


@contextlib.contextmanager
def running_kernel(timeout: float = TIMEOUT, env: dict | None = None):
    """A ready jupyter_client client of an ipykernel running this interpreter (the venv's, not
    whatever `python3` the kernelspec finds), `env` added to its environment; the kernel is
    shut down on exit."""
    pytest.importorskip("ipykernel")
    jupyter_client = pytest.importorskip("jupyter_client")
    manager = jupyter_client.KernelManager(kernel_name="python3")
    manager.kernel_spec.argv = [sys.executable, "-m", "ipykernel_launcher", "-f",
                                "{connection_file}"]
    manager.start_kernel(env={**learners_environment(), **(env or {})})
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=timeout)
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


@contextlib.contextmanager
def running_alias_kernel(root: str, timeout: float = TIMEOUT):
    """running_kernel as the kernel "JAX on jxkernel": `import jax` is jxkernel's alias
    (JXKERNEL_AS_JAX=1), the jxkernel of the checkout at `root` (the venv's editable install
    may name another), with `%load_ext jxkernel` run."""
    with running_kernel(timeout, {"JXKERNEL_AS_JAX": "1", "PYTHONPATH": root}) as client:
        reply, _ = execute(client, "%load_ext jxkernel\nimport jxkernel\n"
                                   "jxkernel.install_as_jax()    # (the variable did: said here)\n"
                                   f"assert jxkernel.__file__.startswith({root!r})")
        assert reply["status"] == "ok", reply
        yield client


def learners_environment() -> dict:
    """This process's environment, with the tests' compile-cache folder given to the kernel
    as a learner's kernel has its folder: jxkernel's default one (under XDG_CACHE_HOME), not
    one the user set (JXKERNEL_COMPILATION_CACHE_DIR, as conftest.py sets it). With a folder
    set, jax_explain_cache_misses also logs the persistent cache's lines, as JAX does, and a
    cell's output would have lines a learner's has not."""
    env = dict(os.environ)
    folder = env.pop("JXKERNEL_COMPILATION_CACHE_DIR", None)
    if folder is not None:                # (removed with the tests' folder: never ~/.cache)
        env["XDG_CACHE_HOME"] = os.path.join(folder, "xdg")
    return env
