"""The protocol between kernel and extension is defined once, in
jxkernel/views/protocol.schema.json: every MIME bundle and every comm message the kernel
sends matches it (checked with the `jsonschema` package, every object closed to fields the
schema does not name), the kernel's own request checker (jxkernel/notebook/protocol.py) agrees
with `jsonschema` on good and bad requests, and the extension's generated TypeScript types come
from this very schema (their header carries its hash)."""
import copy
import hashlib
import json
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("IPython")
pytest.importorskip("anywidget")
pytest.importorskip("comm")
jsonschema = pytest.importorskip("jsonschema")

from comm.base_comm import CommManager  # noqa: E402
import locations  # noqa: E402
from doc_examples import check_docstring_examples  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

from jxkernel import compile_log  # noqa: E402
from jxkernel.notebook import protocol, state_of  # noqa: E402
from jxkernel.notebook import comm as jxcomm  # noqa: E402
from jxkernel.views.collectives import collective_json, collectives  # noqa: E402
from jxkernel.views.signature_changes.change import _UNNAMED_KINDS, KINDS  # noqa: E402

LAB = Path(locations.ROOT) / "labextension"
GENERATED = LAB / "src" / "protocol.generated.ts"
# One bundle of each kind, as the kernel wrote it, for the TypeScript views' tests
# (labextension/test/views.test.ts); JXKERNEL_WRITE_FIXTURES=1 records it anew.
FIXTURE = LAB / "test" / "bundles.json"
# One message of each type the kernel sent, for the runtime checks' tests (protocol.test.ts).
MESSAGES = LAB / "test" / "messages.json"

# The protocol's integers are JSON integers: not 1.0, not true (jsonschema takes both).
Validator = jsonschema.validators.extend(
    jsonschema.Draft7Validator,
    type_checker=jsonschema.Draft7Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, v: type(v) is int))


def closed(node):
    """The schema with every object that lists its properties closed to others: what the kernel
    sends must be documented field by field. An `allOf` of objects (CompileEvent: a ReportEvent
    and more) is closed as the one object it makes (protocol.merged)."""
    if isinstance(node, dict):
        if "allOf" in node:
            node = protocol.merged(node)
        node = {k: closed(v) for k, v in node.items()}
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        return node
    return [closed(v) for v in node] if isinstance(node, list) else node


def validator(name, strict=True):
    defs = protocol.schema()["definitions"]
    return Validator({"definitions": closed(defs) if strict else copy.deepcopy(defs),
                      "$ref": f"#/definitions/{name}"})


def assert_matches(name, value):
    """`value`, as JSON carries it, matches definition `name`; else the field and why."""
    value = json.loads(json.dumps(value, allow_nan=False))
    wrong = sorted(validator(name).iter_errors(value), key=lambda e: list(e.absolute_path))
    assert not wrong, "\n".join(f"{name}.{'.'.join(map(str, e.absolute_path))}: {e.message}"
                                for e in wrong[:5])


def test_the_schema_is_a_draft_7_schema_and_every_table_entry_is_defined():
    Validator.check_schema(protocol.schema())
    defs = protocol.schema()["definitions"]
    for table in (protocol.requests(), protocol.messages(), protocol.bundles()):
        assert set(table.values()) <= set(defs)
    for kind, name in {**protocol.requests(), **protocol.messages()}.items():
        assert defs[name]["properties"]["type"] == {"const": kind}
    assert set(protocol.bundles()) == {f"application/vnd.jxkernel.{k}+json" for k in (
        "jaxpr", "traced", "hlo", "compilations", "explain", "stepper", "error", "jaxprdiff",
        "profile", "memory", "report", "guard", "sharding")}
    check_docstring_examples("jxkernel.notebook.protocol")


def test_every_mime_type_the_python_code_names_is_in_the_schema():
    """The schema's bundle table is where a MIME type is defined: a literal in the package that
    is not one of its keys (a typo, a bundle never added to the schema) fails here."""
    package = Path(locations.ROOT) / "jxkernel"
    named = {}
    for path in package.rglob("*.py"):
        for mime in re.findall(r"application/vnd\.jxkernel\.[\w.-]+\+json", path.read_text("utf-8")):
            named.setdefault(mime, path.relative_to(package).as_posix())
    unknown = {m: where for m, where in named.items() if m not in protocol.bundles()}
    assert not unknown, f"MIME types not in protocol.schema.json's bundles: {unknown}"
    assert protocol.mime_type("CompilationsBundle") == "application/vnd.jxkernel.compilations+json"


def test_the_code_reads_mime_types_from_the_schema_and_names_them_only_in_prose():
    """A MIME type in code is `mime_type("XBundle")` (jxkernel/views/schema.py); the literal may
    appear only in docstrings and comments, which say what a bundle is."""
    package = Path(locations.ROOT) / "jxkernel"
    assigned = re.compile(r"""^[^#]*=\s*["']application/vnd\.jxkernel\.""", re.M)
    offenders = [path.relative_to(package).as_posix() for path in package.rglob("*.py")
                 if assigned.search(path.read_text("utf-8"))]
    assert offenders == []
    check_docstring_examples("jxkernel.views.schema")


def test_the_docs_tables_are_what_the_schema_gives():
    docs = Path(locations.ROOT) / "docs" / "labextension.md"
    text = docs.read_text(encoding="utf-8")
    assert protocol.write_docs(text) == text, (
        "docs/labextension.md's protocol tables are stale: "
        "python -m jxkernel.notebook.protocol docs/labextension.md")
    assert "| `set_backend` |" in text and "| `other_compiles` | integer |" in text


def test_compile_event_is_a_report_event_and_more():
    event = protocol.definition("CompileEvent")
    assert event["allOf"][0] == {"$ref": "#/definitions/ReportEvent"}
    report = protocol.definition("ReportEvent")
    flat = protocol.merged(event)
    assert set(report["properties"]) < set(flat["properties"])
    assert set(flat["properties"]) - set(report["properties"]) == {"cell_id", "execution_count"}
    assert set(report["required"]) < set(flat["required"])
    # whose work: in the report's events too (%jxreport's JSON), given always in the panel's
    assert {"origin", "library"} <= set(report["properties"]) - set(report["required"])
    assert "origin" in flat["required"]


def test_change_kinds_are_the_explainers_kinds():
    # one list, two sides: the schema's enum is what the extension's types allow, KINDS what
    # the explainer may send (a kind added to one alone fails here)
    assert protocol.definition("ChangeKind")["enum"] == list(KINDS)


def test_the_report_view_says_in_words_the_kinds_the_kernel_says_in_words():
    """The report view heads a change with its kind's key unless the kernel says that kind in
    words alone (change.py's _UNNAMED_KINDS): a kind added to the kernel's list alone showed
    its key ("committed") as a heading a learner cannot look up."""
    source = (LAB / "src" / "reportView.ts").read_text()
    listed = re.search(r"const UNNAMED_KINDS = new Set\(\[([^\]]*)\]\)", source)
    assert listed, "reportView.ts: UNNAMED_KINDS not found"
    assert re.findall(r"'(\w+)'", listed.group(1)) == list(_UNNAMED_KINDS)


def test_the_generated_typescript_comes_from_this_schema():
    text = protocol.SCHEMA_PATH.read_bytes().replace(b"\r\n", b"\n")
    head = GENERATED.read_text()[:600]
    found = re.search(r"schema sha256: ([0-9a-f]{64})", head)
    assert found and found.group(1) == hashlib.sha256(text).hexdigest(), (
        f"{GENERATED.name} was generated from another schema: "
        "cd labextension && npm run gen:protocol (then npm run build:prod)")


# ------------------------------------------------------------------ what the kernel sends
class FakeKernel:
    def __init__(self):
        self.comm_manager = CommManager()


class FakeComm:
    def __init__(self):
        self.sent = []
        self.on_msg = self.on_close = lambda callback: None

    def send(self, data):
        self.sent.append(data)

    def close(self):
        pass


# One shell run like a notebook: each cell makes one or more of the bundles.
SETUP = """\
%load_ext jxkernel
import numpy as np
import jxkernel as jax, jxkernel.numpy as jnp
from jxkernel import grad
from jxkernel.notebook import step
from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P

def f(x, w):
    y = jnp.sin(x)
    z = y @ w
    return z.sum()

def g(x):
    return jnp.sin(x) * 2.0

x, w = jnp.ones((4, 8)), jnp.ones((8, 3))
h = jax.jit(g)
h(jnp.ones(3)); h(jnp.ones(5)).shape
"""
CELLS = [
    "%explain f(x, w)",
    "s = step(lambda v: jnp.sqrt(jnp.log(v - 3.0)), jnp.array([1.0, 4.0, 5.0]))\n"
    "s.first_nan()\ns",
    "%jaxpr --diff g(1.0) grad(g)(1.0)",
    "%timeit --phases -r 2 h(jnp.ones(3))",
    "%jxmemory",
    "%jxreport",
    "%jxguard status",
    "%jaxpr g(x)",
    "%jxtraced f(x, w)",
    "%hlo g(jnp.ones(3))",
    "%jxcompiles",
    "jax.device_put(np.arange(6, dtype=np.int16).reshape(2, 3),\n"
    "               NamedSharding(Mesh(np.array(jax.devices()[:1]), ('data',)), P('data')))",
    "jax.jit(lambda v: v if v > 0 else -v)(1.0)",          # an error card
]


@pytest.fixture(scope="module")
def notebook():
    """(bundles by MIME type, the comm that saw it all) of the cells above, from an empty
    compile log: the report, the compilations and the messages list every event the process
    logged, and after the rest of a test worker's files (thousands of events) making and
    checking them took 15 s instead of 3."""
    compile_log.clear()
    sh = InteractiveShell.instance()
    was_loaded = state_of(sh) is not None
    sh.run_line_magic("unload_ext", "jxkernel")
    sh.kernel = FakeKernel()
    comm = FakeComm()
    try:
        with capture_output():
            assert sh.run_cell(SETUP).success
        sh.kernel.comm_manager.targets[jxcomm.TARGET](
            comm, {"content": {"data": {"type": "hello", "protocol": 1}}})
        bundles = {}
        for source in CELLS:
            with capture_output() as cap:
                result = sh.run_cell(source)
            datas = [o.data for o in cap.outputs]
            if result.result is not None:
                datas.append(sh.display_formatter.format(result.result)[0])
            for data in datas:
                for mime, value in data.items():
                    if mime.startswith("application/vnd.jxkernel."):
                        bundles.setdefault(mime, []).append(value)
        yield bundles, comm
    finally:
        sh.run_line_magic("unload_ext", "jxkernel")
        del sh.kernel
        if was_loaded:
            sh.run_line_magic("load_ext", "jxkernel")


@pytest.mark.parametrize("mime", [    # the sharding view's cell lays an array out on a mesh
    pytest.param(m, marks=pytest.mark.xla_only("sharded arrays")) if m.endswith(".sharding+json")
    else m for m in sorted(protocol.bundles())])
def test_every_bundle_the_kernel_writes_matches_the_schema(notebook, mime):
    bundles, _ = notebook
    assert bundles.get(mime), f"no cell made {mime}"
    for bundle in bundles[mime]:
        assert_matches(protocol.bundles()[mime], bundle)


def test_the_typescript_tests_bundles_are_kernel_output_that_matches_the_schema(notebook):
    bundles, _ = notebook
    if os.environ.get("JXKERNEL_WRITE_FIXTURES") == "1":
        FIXTURE.write_text(json.dumps({m: bundles[m][0] for m in sorted(bundles)}, indent=1,
                                      ensure_ascii=False) + "\n", encoding="utf-8")
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert sorted(recorded) == sorted(protocol.bundles())
    for mime, bundle in recorded.items():
        assert_matches(protocol.bundles()[mime], bundle)


def test_every_message_the_kernel_sends_matches_the_schema(notebook):
    _, comm = notebook
    requests = [{"type": "get_state", "id": 1}, {"type": "get_compilations", "id": 2},
                {"type": "get_compilations", "since": 10 ** 6},
                {"type": "set_backend", "backend": " cpu ", "device": 0, "id": 3},
                {"type": "set_fail_on_recompile", "function": "nope", "enabled": True},
                {"type": "clear_compilations", "id": 4}, {"type": "frobnicate"}, [1]]
    channel = state_of(InteractiveShell.instance()).channel
    for request in requests:
        channel.receive(comm, request)
    kinds = [m["type"] for m in comm.sent]
    assert set(kinds) == set(protocol.messages()), kinds       # pushed and replies, all kinds
    for message in comm.sent:
        assert_matches(protocol.messages()[message["type"]], message)
    if os.environ.get("JXKERNEL_WRITE_FIXTURES") == "1":
        # the compilations message with eager and internal groups, the state after it
        first = {}
        for message in comm.sent:
            if message["type"] != "compilations" or message["others"]:
                first.setdefault(message["type"], message)
        MESSAGES.write_text(json.dumps(first, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    recorded = json.loads(MESSAGES.read_text(encoding="utf-8"))
    assert sorted(recorded) == sorted(protocol.messages())
    for kind, message in recorded.items():
        assert_matches(protocol.messages()[kind], message)


def test_the_numpy_backends_allocator_matches_the_schema(monkeypatch):
    """The NumPy backend (JupyterLite's) reports its allocator with no limit: the memory
    bundle's `allocator` and the state's `memory` carry bytes in use, peak and a null
    `bytes_limit`, as the schema allows (the TypeScript side: protocol.test.ts)."""
    import jxkernel
    from jxkernel.memory import memory_report
    from jxkernel.xla import client
    started = "numpy" in client._backends
    channel = jxcomm.Channel(state=None)
    channel._backends = []                   # not probed: the backends are not the question
    try:
        device = jxkernel.devices("numpy")[0]
        x = jxkernel.device_put(jxkernel.numpy.ones(300), device)
        bundle = memory_report([x], platform="numpy").to_json()
        monkeypatch.setattr(jxcomm.client, "default_device", lambda: device)
        state = channel.snapshot()
    finally:
        channel._unsubscribe()
        if not started:                      # later tests see the backends as they were
            client._backends.pop("numpy", None)
    assert_matches("MemoryBundle", bundle)
    (entry,) = bundle["allocator"]
    assert entry["bytes_in_use"] >= 1200 and entry["bytes_limit"] is None
    assert_matches("StateMessage", state)
    assert state["memory"]["bytes_in_use"] >= 1200 and state["memory"]["bytes_limit"] is None
    # it compiles nothing: the status bar counts cache misses, as %jxcompiles does
    assert state["counted"] == "cache misses"


def test_a_collective_matches_the_schema():
    hlo = ("HloModule m, num_partitions=2\nENTRY %main (p: f32[2]) -> f32[2] {\n"
           "  %p = f32[2]{0} parameter(0)\n"
           "  ROOT %ar = f32[2]{0} all-reduce(%p), channel_id=1, replica_groups={{0,1}}, "
           "use_global_device_ids=true, to_apply=%add\n}")
    (c,) = collectives(hlo)
    assert_matches("Collective", collective_json(c, "In[3]:5"))
    assert_matches("Collective", dict(collective_json(c), line_id="L0"))   # explain's


# ------------------------------------------------------------------ what the kernel accepts
REQUESTS = [
    {"type": "hello", "protocol": 1}, {"type": "hello", "protocol": 2}, {"type": "hello"},
    {"type": "hello", "protocol": "1"}, {"type": "hello", "protocol": True},
    {"type": "get_state"}, {"type": "get_state", "id": 7}, {"type": "get_state", "id": "x"},
    {"type": "get_state", "id": 1.0}, {"type": "get_state", "extra": [1, 2]},
    {"type": "set_backend", "backend": "cpu"}, {"type": "set_backend", "backend": "gpu", "device": 3},
    {"type": "set_backend"}, {"type": "set_backend", "backend": 3},
    {"type": "set_backend", "backend": "  "}, {"type": "set_backend", "backend": "cpu", "device": -1},
    {"type": "set_backend", "backend": "cpu", "device": "0"},
    {"type": "set_backend", "backend": "cpu", "device": False},
    {"type": "get_compilations"}, {"type": "get_compilations", "since": 4},
    {"type": "get_compilations", "since": 1.5}, {"type": "get_compilations", "since": -2},
    {"type": "set_fail_on_recompile", "function": "f@x.py:1#1", "enabled": True},
    {"type": "set_fail_on_recompile", "function": "f@x.py:1#1", "enabled": "yes"},
    {"type": "set_fail_on_recompile", "function": "", "enabled": False},
    {"type": "set_fail_on_recompile", "enabled": False},
    {"type": "clear_compilations"}, {"type": "clear_compilations", "id": None},
]


@pytest.mark.parametrize("msg", REQUESTS, ids=lambda m: json.dumps(m))
def test_the_kernels_request_checker_agrees_with_jsonschema(msg):
    kind = msg["type"]
    expected = list(validator(protocol.requests()[kind], strict=False).iter_errors(msg))
    got = protocol.errors(kind, msg)
    assert bool(got) == bool(expected), (got, [e.message for e in expected])
    if got:                              # the reply names the field that is wrong
        field = (expected[0].absolute_path or [re.search(r"'(\w+)'", expected[0].message)[1]])[0]
        assert any(f"'{field}'" in g or f"{field} " in g for g in got), (got, field)
