"""A real ipykernel in a child process, as JupyterLab runs one, for what only ipykernel does
(the file names it compiles cells into, the execution counts its replies carry).

    with running_kernel() as client:                  # skips without ipykernel/jupyter_client
        client.execute_interactive("%load_ext jxkernel", timeout=TIMEOUT)
        reply, messages = execute(client, "1 + 1")    # messages: [("execute_result", {...})]
        cell = kernel_cell(client, "print(2)")        # a KernelCell: cell.stdout == "2\n"

`kernel_cell` reads the messages as a test does: what the cell printed and displayed, its
error, the error card it showed, the notes; `execute` gives them as they came.
"""
import contextlib
import os
import queue
import re
import sys

import pytest

from forked_kernel import kernels_forked  # tests/support
from ipython_shell import CardsShown  # tests/support

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


ANSI = re.compile(r"\x1b\[[0-9;]*m")
ADDRESS = re.compile(r"0x[0-9a-f]+")


class KernelCell(CardsShown):
    """What one cell did in a real kernel: `reply` (its execute_reply's content) and
    `messages` (its iopub messages, [(msg_type, content)], as `execute` gives them); its error
    cards are CardsShown's (`card_outputs`, `cards`, `card`)."""

    def __init__(self, reply: dict, messages: list):
        self.reply, self.messages = reply, messages

    def __repr__(self):
        return (f"KernelCell(count={self.count}, status={self.status!r}, error={self.error!r}, "
                f"stdout={self.stdout!r}, notes={self.notes!r}, card={self.card!r})")

    @property
    def count(self) -> int:
        """Its execution count, the number its prompt shows."""
        return self.reply["execution_count"]

    @property
    def status(self) -> str:
        """"ok" or "error"."""
        return self.reply["status"]

    @property
    def error(self):
        """Its error as "Name: message" (the whole message), or None."""
        if self.status != "error":
            return None
        return f"{self.reply['ename']}: {self.reply['evalue']}"

    @property
    def error_line(self):
        """Its error as (class name, the message's first line with object addresses written
        0x...), as the learner case lists record JAX's; or None."""
        if self.status != "error":
            return None
        return self.reply["ename"], ADDRESS.sub("0x...", self.reply["evalue"].splitlines()[0])

    def _stream(self, name: str) -> str:
        return "".join(c["text"] for kind, c in self.messages
                       if kind == "stream" and c["name"] == name)

    @property
    def stdout(self) -> str:
        return self._stream("stdout")

    @property
    def stderr(self) -> str:
        """What it wrote to stderr (jax_explain_cache_misses' log lines, say)."""
        return self._stream("stderr")

    @property
    def _displayed(self) -> list:
        return [c["data"] for kind, c in self.messages if kind == "display_data"]

    @property
    def notes(self) -> list:
        """The text/plain of each output it displayed that is not an error card (compile
        notes, warnings)."""
        from jxkernel.views import error_cards
        return [data.get("text/plain", "") for data in self._displayed
                if error_cards.MIME not in data]

    @property
    def compile_notes(self) -> list:
        """The notes that say a function compiled (again): "⚙ ..."."""
        return [note for note in self.notes if note.startswith("⚙")]

    @property
    def shown(self) -> str:
        """What it printed and displayed (text/plain) as a learner reads it, each displayed
        text on lines of its own; not the error's traceback."""
        texts = []
        for kind, content in self.messages:
            if kind in ("display_data", "execute_result"):
                texts.append(content["data"].get("text/plain", "") + "\n")
            elif kind == "stream":
                texts.append(content["text"])
        return "".join(texts)

    @property
    def tracebacks(self) -> list:
        """The traceback of each error output (one, where it failed), its lines joined,
        colours removed."""
        return [ANSI.sub("", "\n".join(content["traceback"]))
                for kind, content in self.messages if kind == "error"]

    @property
    def text(self) -> str:
        """Each of its outputs' text, in order, joined by newlines: displayed data and results
        (text/plain), streams, and the error's traceback (colours removed)."""
        texts = []
        for kind, content in self.messages:
            if kind in ("display_data", "execute_result"):
                texts.append(content["data"].get("text/plain", ""))
            elif kind == "stream":
                texts.append(content["text"])
            elif kind == "error":
                texts.append(ANSI.sub("", "\n".join(content["traceback"])))   # (tracebacks)
        return "\n".join(texts)


def kernel_cell(client, code: str, timeout: float = TIMEOUT) -> KernelCell:
    """Run `code` as a cell of the kernel `client` talks to: a KernelCell."""
    return KernelCell(*execute(client, code, timeout))


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
    # forked from a Python that imported NumPy, ml_dtypes and ipykernel alone (forked_kernel:
    # each kernel's own, nothing of another test's), or started anew where `env` asks for
    # another start-up (JXKERNEL_AS_JAX's hook runs as the interpreter starts)
    with kernels_forked():
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


def alias_kernel_cells(setup: str, sources: dict) -> dict:
    """{name: its KernelCell} of each of `sources` ({name: code}), run in order in one
    running_alias_kernel of this checkout after `setup`, which must succeed (it is checked
    that `import jax` gave jxkernel)."""
    import locations  # tests/support
    with running_alias_kernel(locations.ROOT) as client:
        ran = kernel_cell(client, setup + "assert jax.jit is jxkernel.jit\n")
        assert ran.error is None, ran
        return {name: kernel_cell(client, code) for name, code in sources.items()}


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
