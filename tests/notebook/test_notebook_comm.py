"""The JupyterLab extension's comm target `jxkernel` (jxkernel/notebook/comm.py), driven with
fake comms in a real InteractiveShell given a kernel-like comm manager: requests and replies,
pushed state and per-cell compilations, every malformed message answered with an error."""
import sys

import numpy as np
import pytest

pytest.importorskip("IPython")
pytest.importorskip("ipywidgets")
pytest.importorskip("comm")

from comm.base_comm import CommManager  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

import jxkernel  # noqa: E402
from jxkernel import compile_log, config  # noqa: E402
from jxkernel.core import compile_record  # noqa: E402
from jxkernel.core.compile_record import USER  # noqa: E402
from jxkernel.notebook import state_of  # noqa: E402
from jxkernel.notebook.widgets.backend import platforms  # noqa: E402
from jxkernel.notebook import comm as jxcomm  # noqa: E402
from ipython_shell import ran_ok, shell_fixture  # noqa: E402

pytestmark = pytest.mark.cpu_only("CPU text")     # the GPU tier skips this file (docs/gpu.md)


class FakeKernel:
    def __init__(self):
        self.comm_manager = CommManager()


class FakeComm:
    """Records what the kernel sends; `receive` plays a message from the frontend."""

    def __init__(self):
        self.sent, self.closed = [], False
        self._on_msg = self._on_close = None

    def send(self, data):
        self.sent.append(data)

    def on_msg(self, callback):
        self._on_msg = callback

    def on_close(self, callback):
        self._on_close = callback

    def close(self):
        self.closed = True

    def receive(self, data):
        self._on_msg({"content": {"comm_id": "c", "data": data}})
        return self.sent[-1]

    def of_type(self, kind):
        return [m for m in self.sent if m["type"] == kind]


shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp", kernel=FakeKernel,
                      scope="module")


def open_comm(shell, hello=None):
    comm = FakeComm()
    target = shell.kernel.comm_manager.targets[jxcomm.TARGET]
    target(comm, {"content": {"data": {"type": "hello", "protocol": 1} if hello is None
                              else hello}})
    return comm


def test_without_a_kernel_nothing_is_registered():
    plain = InteractiveShell()            # a second shell, no kernel attribute
    plain.run_line_magic("load_ext", "jxkernel")
    try:
        assert state_of(plain).channel is None and jxcomm.comm_manager(plain) is None
    finally:
        plain.run_line_magic("unload_ext", "jxkernel")


@pytest.mark.xla_only("CPU platform")
def test_hello_answers_with_the_state(shell):
    comm = open_comm(shell)
    (state,) = comm.sent
    cpus = [f"cpu:{d.id}" for d in jxkernel.devices("cpu")]
    assert state["type"] == "state" and "id" not in state
    assert (state["protocol"], state["jxkernel_version"]) == (1, jxkernel.__version__)
    assert (state["backend"], state["device"], state["device_count"]) == ("cpu", "cpu:0", len(cpus))
    assert state["backends"][0] == {"name": "cpu", "available": True, "devices": cpus}
    # XLA's three, and the NumPy backend's once it is in use in this process (another test may
    # have started it: widgets/backend.platforms)
    assert [b["name"] for b in state["backends"]] == list(platforms())
    assert list(platforms())[:3] == ["cpu", "gpu", "tpu"]
    assert all(b["available"] or b["hint"] for b in state["backends"])
    assert state["compiles"] == len(user_events())
    assert comm.receive({"type": "get_state", "id": 7}) == dict(state, id=7)


def test_in_pyodide_a_null_field_reaches_javascript_as_null(shell, monkeypatch):
    """JupyterLite's Pyodide kernel hands a comm message to JavaScript with toJs(), which turns
    None into undefined: the state's `memory: null` (no allocator on the CPU) disappeared and
    the extension refused the state for a missing field. There jxkernel sends a JavaScript
    object made by JSON.parse (here a stand-in `js` module records the JSON text)."""
    import json
    import types
    parsed = []
    js = types.ModuleType("js")
    js.JSON = types.SimpleNamespace(parse=lambda text: parsed.append(text) or {"js": text})
    monkeypatch.setitem(sys.modules, "js", js)
    monkeypatch.setattr(sys, "platform", "emscripten")
    (sent,) = open_comm(shell).sent
    (text,) = parsed
    assert sent == {"js": text}
    state = json.loads(text)
    assert state["type"] == "state" and has_a_null_memory(state)
    monkeypatch.setattr(sys, "platform", "linux")
    (state,) = open_comm(shell).sent
    assert state["type"] == "state" and has_a_null_memory(state)   # elsewhere: as it is


def has_a_null_memory(state) -> bool:
    """The state's `memory` is null (XLA's CPU reports no allocator), or has a null
    `bytes_limit` (the NumPy backend, `--backend numpy`, reports no limit): a null it carries."""
    memory = state["memory"]
    return memory is None or ("bytes_limit" in memory and memory["bytes_limit"] is None)


@pytest.mark.xla_only("CPU platform")
def test_set_backend_does_what_jxbackend_does_and_back(shell):
    comm = open_comm(shell)
    reply = comm.receive({"type": "set_backend", "id": 2, "backend": "cpu", "device": 0})
    assert (reply["type"], reply["id"], reply["device"]) == ("state", 2, "cpu:0")
    cpu0 = jxkernel.devices("cpu")[0]
    assert config.jax_default_device == cpu0 and config.jax_platform_name == "cpu"
    with capture_output():
        selector = shell.run_line_magic("jxbackend", "")
    assert selector.current == cpu0 and "* cpu:0" in selector.text_repr()
    # %jxbackend pushes the state when it changed (here: a compile outside any cell)
    jxkernel.jit(lambda x: x - 1)(jnp_ones(2))
    before = len(comm.sent)
    with capture_output():
        shell.run_line_magic("jxbackend", "CPU")    # (jax.devices("CPU") is JAX's error)
    (pushed,) = comm.sent[before:]
    assert pushed["type"] == "state" and "id" not in pushed
    assert pushed["compiles"] == len(user_events())
    assert comm.receive({"type": "set_backend", "id": 3, "backend": "cpu"})["device"] == "cpu:0"


def user_events():
    """The compile events the status bar counts: the user's functions' compilations (not eager
    operations' nor jxkernel's or registered libraries' own functions', nor retraces that
    compiled nothing): compile_record.whose's, the notes' and %jxcompiles' answer."""
    return [e for e in compile_log.compile_events() if compile_record.whose(e) == USER and
            e.compiled]


def jnp_ones(n):
    import jxkernel.numpy as jnp
    return jnp.ones(n)


BAD = [
    ([1, 2], "a message must be a JSON object, got array", None, None),
    ("hello", "a message must be a JSON object, got string", None, None),
    (None, "a message must be a JSON object, got null", None, None),
    ({}, "a message needs a string field 'type'", None, None),
    ({"type": 5, "id": 1}, "field 'type' must be a string, got number 5", None, 1),
    ({"type": "frobnicate", "id": 2}, "unknown message type 'frobnicate'; known: hello,",
     "frobnicate", 2),
    ({"type": "get_state", "id": "x"}, "get_state: field 'id' must be an integer, got string",
     "get_state", None),
    ({"type": "hello", "protocol": 2, "id": 3}, "hello: protocol 2 is not spoken here",
     "hello", 3),
    ({"type": "hello"}, "hello: missing field 'protocol' (an integer)", "hello", None),
    ({"type": "set_backend", "id": 4}, "set_backend: missing field 'backend' (a string)",
     "set_backend", 4),
    ({"type": "set_backend", "backend": 3}, "field 'backend' must be a non-empty string, got "
     "number 3", "set_backend", None),
    ({"type": "set_backend", "backend": "cpu", "device": "0"},
     "field 'device' must be an integer, got string '0'", "set_backend", None),
    ({"type": "set_backend", "backend": "cpu", "device": True},
     "field 'device' must be an integer, got boolean True", "set_backend", None),
    ({"type": "set_backend", "backend": "cpu", "device": -1},
     "field 'device' must be >= 0, got -1", "set_backend", None),
    pytest.param({"type": "set_backend", "backend": "cpu", "device": 99}, "cpu has devices 0..",
                 "set_backend", None, marks=pytest.mark.xla_only("CPU platform")),
    ({"type": "set_backend", "backend": "abacus"}, "set_backend: Unknown backend 'abacus'",
     "set_backend", None),
    ({"type": "get_compilations", "since": 1.5}, "field 'since' must be an integer, got number",
     "get_compilations", None),
    ({"type": "set_fail_on_recompile", "function": "f@x.py:1#1", "enabled": "yes"},
     "field 'enabled' must be true or false, got string 'yes'", "set_fail_on_recompile", None),
    ({"type": "set_fail_on_recompile", "function": "f@x.py:1#1", "enabled": True},
     "no live jitted function has function_key 'f@x.py:1#1'", "set_fail_on_recompile", None),
]


@pytest.mark.parametrize("msg, message, request_type, request_id", BAD)
def test_bad_messages_get_an_error_reply(shell, msg, message, request_type, request_id):
    comm = open_comm(shell)
    device = config.jax_default_device
    reply = comm.receive(msg)
    assert reply["type"] == "error" and message in reply["message"], reply
    assert reply["request"] == request_type and reply.get("id") == request_id
    assert config.jax_default_device is device             # nothing switched


def test_a_message_without_data_and_a_bad_hello_are_answered_too(shell):
    comm = open_comm(shell, hello={"type": "hello", "protocol": "1"})
    assert comm.sent[0]["message"] == "hello: field 'protocol' must be an integer, got string '1'"
    comm._on_msg({"content": {}})
    assert comm.sent[-1]["message"] == "a message must be a JSON object, got null"


def test_a_cell_that_compiles_pushes_one_batched_message_with_its_cell_id(shell):
    comm = open_comm(shell)
    ran = ran_ok(shell, "f1 = jax.jit(lambda x: x * 2)\ng1 = jax.jit(lambda x: x + 2)\n"
                        "y1 = g1(f1(jnp.ones(3)))", cell_id="cell-one")
    (batch,) = comm.of_type("compilations")
    # an event from outside any cell (the test above) comes with the next cell, unattributed
    earlier = [e for e in batch["events"] if e["cell_id"] is None]
    assert [e["execution_count"] for e in earlier] == [None] * len(earlier)
    mine = batch["events"][len(earlier):]
    assert [e["function_key"] for e in mine] == [shell.user_ns[n].function_key
                                                 for n in ("f1", "g1")]
    count = ran.count
    for event in mine:
        assert (event["cell_id"], event["execution_count"]) == ("cell-one", count)
        assert event["signature"] == [["x", "f32[3]"]] and event["reason"] == "first call"
        assert event["cache"] in ("compiled", "memory", "disk")
        assert event["backend"] == jxkernel.default_backend()
        assert event["trace_ms"] >= 0 and event["compile_ms"] >= 0 and event["time"] > 0
    assert batch["next"] == batch["events"][-1]["seq"] + 1 == compile_log.last_seq() + 1
    assert comm.sent[-1]["type"] == "state"                 # the counts changed too
    assert comm.sent[-1]["compiles"] == len(user_events())
    hits = comm.sent[-1]["cache_hits"]
    before = len(comm.sent)
    ran_ok(shell, "y1 = g1(f1(jnp.ones(3)))", cell_id="cell-two")   # cache hits only
    assert [m["type"] for m in comm.sent[before:]] == ["state"]
    assert comm.sent[-1]["cache_hits"] == hits + 2
    ran_ok(shell, "z1 = 1")                                          # nothing changed: no message
    assert len(comm.sent) == before + 1


def test_get_compilations_since(shell):
    comm = open_comm(shell)
    ran_ok(shell, "f2 = jax.jit(lambda x: x * 3)\nf2(jnp.ones(2))\nf2(jnp.ones(5))", cell_id="c2")
    first, second = [e for e in compile_log.compile_events() if e.key is shell.user_ns["f2"]]
    reply = comm.receive({"type": "get_compilations", "id": 9, "since": first.seq})
    assert (reply["type"], reply["id"], reply["next"]) == ("compilations", 9, second.seq + 1)
    assert [e["seq"] for e in reply["events"]] == [first.seq, second.seq]
    assert reply["events"][1]["reason"] == "x: f32[2] -> f32[5]"
    assert reply["events"][1]["cell_id"] == "c2"
    assert comm.receive({"type": "get_compilations", "since": second.seq + 1})["events"] == []
    every = comm.receive({"type": "get_compilations"})["events"]        # since defaults to 0
    assert [e["seq"] for e in every] == [e.seq for e in compile_log.compile_events()]


def test_fail_on_recompile_through_the_comm(shell):
    comm, other = open_comm(shell), open_comm(shell)
    ran_ok(shell, "f3 = jax.jit(lambda x: x * 4)\ny3 = f3(jnp.ones(2))")
    key = comm.of_type("compilations")[-1]["events"][0]["function_key"]
    reply = comm.receive({"type": "set_fail_on_recompile", "id": 5, "function": key,
                          "enabled": True})
    assert reply["type"] == "state" and key in reply["fail_on_recompile"]
    assert key in other.sent[-1]["fail_on_recompile"]           # the other comm is told too
    with capture_output():
        result = shell.run_cell("y3 = f3(jnp.ones(6))", store_history=True)
    err = result.error_in_exec
    assert type(err).__name__ == "RecompileError" and err.reason == "x: f32[2] -> f32[6]"
    assert err.function_key == key and err.source.file.startswith("<ipython-input-")
    off = comm.receive({"type": "set_fail_on_recompile", "function": key, "enabled": False})
    assert key not in off["fail_on_recompile"]
    ran_ok(shell, "y3 = f3(jnp.ones(6))")
    np.testing.assert_array_equal(np.asarray(shell.user_ns["y3"]), [4.0] * 6)


def test_the_users_functions_are_counted_apart_from_eager_and_internal_work(shell):
    # as in a fresh kernel: the log's groups list their first three sites, which earlier
    # tests in this process filled with their files' lines (seen once
    # tests/data/learner_mistakes_cases.py drew more random numbers), or the cell's eager
    # work was a cache hit
    compile_log.clear()
    jxkernel.clear_caches()
    comm = open_comm(shell)
    ran_ok(shell, "k6 = jax.random.PRNGKey(0)\nw6 = jax.random.normal(k6, (7, 3))\n"
                  "b6 = jnp.arange(13.0) * 1.5 + 0.25\n"
                  "f6 = jax.jit(lambda x: x @ w6)\ny6 = f6(jnp.ones((2, 7)))", cell_id="mlp")
    batch = comm.of_type("compilations")[-1]
    origins = {e["origin"] for e in batch["events"]}
    assert {"user", "eager", "internal"} <= origins
    state = comm.sent[-1]
    events = [e for e in compile_log.compile_events() if e.compiled]
    assert state["compiles"] == len(user_events())
    assert state["other_compiles"] == len(events) - len(user_events()) > 0
    # the others, grouped per primitive or function as %jxcompiles groups them: eager first
    others = batch["others"]
    assert sum(g["count"] for g in others) == state["other_compiles"]
    kinds = [g["origin"] for g in others]
    assert kinds == sorted(kinds, key=["eager", "internal"].index)
    assert {"eager", "internal"} <= set(kinds)
    assert all(g["count"] >= 1 and len(g["sites"]) <= 3 and g["compile_ms"] >= 0 for g in others)
    assert any(s.startswith("In[") for g in others for s in g["sites"])
    assert "f6" not in {g["name"] for g in others}
    again = comm.receive({"type": "get_compilations", "since": compile_log.last_seq() + 1})
    assert again["events"] == [] and again["others"] == others    # the whole log's, always


def test_a_registered_librarys_jits_are_grouped_as_the_librarys(shell, tmp_path):
    """A library registered as not the user's (source_info.register_exclusion, as Flax and
    Optax are) compiles its own jits for the user's calls: its group says `library` (origin
    internal, as the event's), after jxkernel's own, as compile_notes.kind_of sorts them."""
    from registered_library import excluded, import_library      # tests/support
    compile_log.clear()
    jxkernel.clear_caches()
    comm = open_comm(shell)
    with excluded(str(tmp_path / "lib_for_comm.py")):
        shell.user_ns["lib_for_comm"] = import_library(
            tmp_path, "lib_for_comm",
            "import jxkernel as jax\n@jax.jit\ndef lib_thrice(x):\n    return x * 3\n")
        ran_ok(shell, "y7 = lib_for_comm.lib_thrice(jnp.ones(7))\ns7 = jnp.sum(jnp.ones(7))")
        batch = comm.of_type("compilations")[-1]
        others = batch["others"]
    # each event says so too (what the panel's JSON and CSV exports write), as its group does
    said = {e["function"]: (e["origin"], e["library"]) for e in batch["events"]}
    assert said["lib_thrice"] == ("internal", True), said
    assert not any(library for origin, library in said.values() if origin != "internal")
    assert any(not library for origin, library in said.values() if origin == "internal")
    lib = [g for g in others if g["name"] == "lib_thrice (lib_for_comm)"]    # its package
    assert [(g["origin"], g["library"]) for g in lib] == [("internal", True)], others
    assert lib[0]["sites"] and lib[0]["sites"][0].startswith("In[")
    mine = [g for g in others if g["origin"] == "internal" and not g["library"]]
    assert mine, others                         # jnp.sum's jitted helper: jxkernel's own
    kinds = ["library" if g["library"] else g["origin"] for g in others]
    assert kinds == sorted(kinds, key=["eager", "internal", "library"].index), kinds
    assert not any(g["library"] for g in others if g["origin"] == "eager")


def test_a_retrace_inside_another_function_is_listed_but_not_counted(shell):
    # g traced anew for f32[5] inside jit(f): one compilation (f's), not two
    comm = open_comm(shell)
    ran_ok(shell, "@jax.jit\ndef g7(x):\n    return x * 2\n\n"
                  "@jax.jit\ndef f7(x):\n    return g7(x) + 1\n\n"
                  "y7 = g7(jnp.ones(3))", cell_id="first")
    before = comm.sent[-1]["compiles"]
    ran_ok(shell, "z7 = f7(jnp.ones(5))", cell_id="second")
    events = comm.of_type("compilations")[-1]["events"]
    retrace = [e for e in events if e["inlined_into"] is not None]
    assert [(e["function"], e["inlined_into"]) for e in retrace] == [("g7", "jit(f7)")]
    assert comm.sent[-1]["compiles"] == before + 1 == len(user_events())


def test_clear_compilations(shell):
    comm = open_comm(shell)
    ran_ok(shell, "f4 = jax.jit(lambda x: x * 5)\ny4 = f4(jnp.ones(2))")
    last = compile_log.last_seq()
    reply = comm.receive({"type": "clear_compilations", "id": 1})
    assert (reply["type"], reply["compiles"], reply["cache_hits"]) == ("state", 0, 0)
    assert reply["other_compiles"] == 0
    assert comm.receive({"type": "get_compilations"})["others"] == []
    assert compile_log.compile_events() == []
    ran_ok(shell, "y4 = f4(jnp.ones(3))")
    assert comm.of_type("compilations")[-1]["events"][0]["seq"] == last + 1   # seq goes on


def test_unload_unregisters_and_closes(shell):
    comm = open_comm(shell)
    manager = shell.kernel.comm_manager
    shell.run_line_magic("unload_ext", "jxkernel")
    assert jxcomm.TARGET not in manager.targets and comm.closed
    before = len(comm.sent)
    ran_ok(shell, "y5 = jax.jit(lambda x: x * 6)(jnp.ones(2))")
    assert len(comm.sent) == before                   # no longer listening
    shell.run_line_magic("load_ext", "jxkernel")
    assert jxcomm.TARGET in manager.targets
    assert open_comm(shell).sent[0]["type"] == "state"
