"""The notebook's sharding view (jxkernel/sharding_view.py: which device holds which block)
and communication view (the collectives XLA inserted, read and shown by views/collectives.py
for explain and %hlo). The multi-device cases run in one 4-device subprocess that prints one
JSON object; the HLO parser is checked here on texts XLA printed."""

import numpy as np
import pytest
from fresh_process import run_json

import jxkernel as jax
from jxkernel.sharding import Mesh, NamedSharding
from jxkernel.sharding import PartitionSpec as P
from jxkernel.sharding_view import MIME, sharding_view
from jxkernel.views.collectives import collectives, collectives_text, replica_groups

pytestmark = pytest.mark.cpu_only("simulated CPU devices")     # the GPU tier skips this file (docs/gpu.md)

# What XLA's CPU partitioner printed (jaxlib 0.10.2), trimmed, plus the async and explicit
# forms of the groups XLA also prints.
HLO = """HloModule m, num_partitions=4
%add.clone (x.1: f32[], y.1: f32[]) -> f32[] {
  %x.1 = f32[] parameter(0)
  %y.1 = f32[] parameter(1)
  ROOT %add.1 = f32[] add(%x.1, %y.1)
}
ENTRY %main.0_spmd (param: f32[2,4], param.1: s32[4]) -> f32[2,4] {
  %param = f32[2,4]{1,0} parameter(0), sharding={devices=[2,2]<=[4]}
  %param.1 = s32[4]{0} parameter(1)
  %all-gather = f32[2,8]{0,1} all-gather(%param), channel_id=1, replica_groups=mesh['axis_0'=2,'axis_1'=2] {'axis_1'}, dimensions={1}, use_global_device_ids=true, metadata={op_name="dot.1"}
  %all-reduce = f32[2,4]{1,0} all-reduce(%param), channel_id=2, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, to_apply=%add.clone, metadata={op_name="dot.1" source_file="m.py" source_line=7}
  %reduce-scatter = f32[1,4]{1,0} reduce-scatter(%param), channel_id=3, replica_groups={{0,1},{2,3}}, dimensions={0}, to_apply=%add.clone
  %all-to-all = s32[4]{0} all-to-all(%param.1), channel_id=4, replica_groups={{0,1,2,3}}, dimensions={0}, metadata={op_name="call.1/dot.1"}
  %cp-start = (f32[2,4]{1,0}, f32[2,4]{1,0}) collective-permute-start(%param), channel_id=5, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  %cp-done = f32[2,4]{1,0} collective-permute-done(%cp-start)
  %ar-odd = f32[2,4]{1,0} all-reduce(%param), replica_groups=someday[7], to_apply=%add.clone
  ROOT %sum = f32[2,4]{1,0} add(%cp-done, %all-reduce)
}"""

# The same module before optimization: the instruction each collective serves, with its line.
BEFORE = """HloModule m
ENTRY %main (a: f32[4,8]) -> f32[4,8] {
  %a = f32[4,8]{1,0} parameter(0)
  ROOT %dot.1 = f32[4,8]{1,0} dot(%a, %a), lhs_contracting_dims={1}, rhs_contracting_dims={1}, metadata={source_file="model.py" source_line=3}
}"""


def test_collectives_parser_reads_each_op_its_bytes_groups_and_line():
    got = collectives(HLO, BEFORE)
    assert [c.opcode for c in got] == ["all-gather", "all-reduce", "reduce-scatter", "all-to-all",
                                      "collective-permute", "all-reduce"]
    gather, reduce, scatter, a2a, permute, odd = got
    assert (gather.operands, gather.shape, gather.bytes) == (["f32[2,4]"], "f32[2,8]", 32)
    assert gather.groups == [[0, 1], [2, 3]]
    assert (gather.source_file, gather.source_line) == ("model.py", 3)   # through op_name
    assert (reduce.source_file, reduce.source_line) == ("m.py", 7)       # its own line wins
    assert reduce.groups == [[0, 2], [1, 3]] and reduce.replica_groups == "[2,2]<=[2,2]T(1,0)"
    assert scatter.groups == [[0, 1], [2, 3]] and scatter.source_line is None
    assert (a2a.operands, a2a.bytes, a2a.groups) == (["s32[4]"], 16, [[0, 1, 2, 3]])
    assert a2a.source_line == 3              # a shard_map body's op_name is a path
    assert permute.name == "cp-start" and permute.groups == [[0, 1], [1, 2], [2, 3], [3, 0]]
    assert odd.groups is None and odd.replica_groups == "someday[7]"
    assert [c.text_line for c in got] == [10, 11, 12, 13, 14, 16]
    assert collectives(HLO)[0].source_line is None             # no module before
    assert replica_groups("{}") == []
    assert replica_groups("[2,4]<=[8]") == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert replica_groups("mesh['a'=4,'b'=1,'c'=2] {'a'}") == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert replica_groups("mesh['a'=2] {'z'}") is None
    text = collectives_text(got, lambda c: f"<{c.source_line}>" if c.source_line else None)
    assert text[0] == "communication: 6 collective(s) XLA inserted, 176 bytes sent in per device"
    assert text[2].split() == ["all-gather", "f32[2,4]", "32", "{0,1}", "{2,3}", "<3>"]
    assert "0→1 1→2 2→3 3→0" in text[6] and text[7].split()[-2:] == ["someday[7]", "-"]


@pytest.mark.xla_only("CPU platform")       # its blocks' labels name the devices, CPU 0
def test_view_of_a_one_device_mesh_escapes_names_and_shows_through_show_sharding(capsys):
    mesh = Mesh(np.array(jax.devices()[:1]), ("<b>&",))
    x = jax.device_put(np.arange(6, dtype=np.int16).reshape(2, 3), NamedSharding(mesh, P("<b>&")))
    bundle = x._repr_mimebundle_()
    assert bundle["text/plain"] == repr(x) and bundle[MIME]["array"] == repr(x)
    html = bundle["text/html"]
    assert "<b>&" not in html and "&#x27;&lt;b&gt;&amp;&#x27;" in html
    assert bundle[MIME]["blocks"] == [{"row": 0, "col": 0, "devices": [0], "labels": ["CPU 0"],
                                       "index": [[0, 2], [0, 3]], "color": "#a6cee3"}]
    assert (bundle[MIME]["bytes_per_device"], bundle[MIME]["dtype"]) == (12, "int16")
    from jxkernel.notebook import show_sharding
    show_sharding(x)
    shown = capsys.readouterr().out
    assert shown.startswith("i16[2,3] on mesh <b>&=1 as P('<b>&',)\nshard i16[2,3] · 12 bytes "
                             "per device · 1 device · ") and "CPU 0" in shown.split("┌")[1]
    with pytest.raises(TypeError, match="pass a sharded Array"):
        sharding_view(np.zeros(3))
    plain = jax.numpy.ones(3)
    assert not hasattr(plain, "_repr_mimebundle_")        # one-device Arrays keep their view


FOUR_DEVICES = r'''
import json, numpy as np
import jxkernel as jax, jxkernel.numpy as jnp
from jxkernel.sharding import NamedSharding, PartitionSpec as P
from jxkernel.sharding_view import sharding_view, MIME
from jxkernel.notebook.widgets.hlo_view import HloView
mesh = jax.make_mesh((2, 2), ("data", "model"))
out = {}
rows = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(mesh, P("data")))
b = rows._repr_mimebundle_()
out["rows"] = b[MIME]
out["rows_html"] = b["text/html"]
out["rows_text"] = repr(sharding_view(rows))
cols = jax.device_put(np.zeros((4, 6), np.float32), NamedSharding(mesh, P(None, "model")))
out["cols"] = sharding_view(cols).to_json()
both = jax.device_put(np.zeros((4, 4), np.float32), NamedSharding(mesh, P("data", "model")))
out["both"] = sharding_view(both).to_json()
out["flat"] = sharding_view(jax.ShapeDtypeStruct((8,), jnp.float32),
                            NamedSharding(mesh, P(("data", "model")))).to_json()
w = jax.device_put(np.ones((4, 2), np.float32), NamedSharding(mesh, P()))
def loss(w, x):
    return jnp.mean((x @ w) ** 2)
def step(w, x):
    return w - 0.1 * jax.grad(loss)(w, x)
ex = jax.explain(step, w, rows)
out["explain"] = ex.to_json()["collectives"]
out["explain_lines"] = {l["id"]: l["line"] for l in ex.to_json()["lines"]}
out["explain_text"] = repr(ex).splitlines()[-3:]
out["explain_html"] = "jx-collectives" in ex._repr_html_()
def total(block):
    return jax.lax.psum(block.sum(), "data")      # PSUM LINE
sm = jax.explain(jax.shard_map(total, mesh=mesh, in_specs=P("data"), out_specs=P()), rows)
out["shard_map"] = sm.to_json()["collectives"]
out["one_device"] = jax.explain(lambda a: a * 2, np.ones(3, np.float32)).to_json()["collectives"]
# y.T @ y contracts a split axis: an error on Explicit axes (as in JAX), XLA's choice on Auto ones
auto = jax.make_mesh((2, 2), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
both_auto = jax.device_put(np.zeros((4, 4), np.float32), NamedSharding(auto, P("data", "model")))
view = HloView("g(both)", jax.jit(lambda y: y.T @ y).lower(both_auto))
hb = view._repr_mimebundle_()
out["hlo"] = hb["application/vnd.jxkernel.hlo+json"]["collectives"]
out["hlo_text"] = "communication:" in hb["text/plain"] and "jx-collectives" in hb["text/html"]
import sys
from doc_examples import check_docstring_examples
check_docstring_examples("jxkernel.sharding_view", {"mesh": jax.make_mesh((2, 2), ("x", "y")),
                                                    "NamedSharding": NamedSharding, "P": P})
out["doc_examples"] = "ran"
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def four():
    return run_json(FOUR_DEVICES, {"JXKERNEL_CPU_DEVICES": "4"})


@pytest.mark.xla_only("several devices")
def test_sharding_view_payloads_on_a_2x2_mesh(four):
    rows = four["rows"]
    assert rows["mesh"] == {"axis_names": ["data", "model"], "axis_sizes": [2, 2]}
    assert (rows["spec"], rows["dims"], rows["replicated_over"]) == ("P('data',)", [["data"], []],
                                                                     ["model"])
    assert (rows["shard_shape"], rows["bytes_per_device"], rows["total_bytes"]) == ([4, 4], 64, 128)
    assert (rows["rows"], rows["cols"], rows["num_devices"]) == (2, 1, 4)
    assert [(b["row"], b["col"], b["devices"], b["index"]) for b in rows["blocks"]] == [
        (0, 0, [0, 1], [[0, 4], [0, 4]]), (1, 0, [2, 3], [[4, 8], [0, 4]])]
    assert rows["array"].startswith("Array([[ 0.,  1.,  2.,  3.],")
    assert four["rows_html"].count("<td") == 2 and "CPU 2, CPU 3" in four["rows_html"]
    assert four["rows_text"].splitlines()[:2] == [
        "f32[8,4] on mesh data=2 × model=2 as P('data',)",
        "shard f32[4,4] · 64 bytes per device · 4 devices · dim 0 over 'data'; dim 1 whole; "
        "replicated over 'model' (2 copies of each block)"]
    assert "│ CPU 0,1  │" in four["rows_text"]
    cols = four["cols"]
    assert [(b["row"], b["col"], b["labels"]) for b in cols["blocks"]] == [
        (0, 0, ["CPU 0", "CPU 2"]), (0, 1, ["CPU 1", "CPU 3"])]
    assert cols["shard_shape"] == [4, 3] and cols["bytes_per_device"] == 48
    both = four["both"]
    assert [(b["row"], b["col"], b["devices"]) for b in both["blocks"]] == [
        (0, 0, [0]), (0, 1, [1]), (1, 0, [2]), (1, 1, [3])]
    assert len({b["color"] for b in both["blocks"]}) == 4 and both["replicated_over"] == []
    flat = four["flat"]
    assert (flat["rows"], flat["cols"], flat["dims"], flat["array"]) == (1, 4, [["data", "model"]],
                                                                         None)


@pytest.mark.xla_only("several devices")
def test_communication_view_in_explain_and_hlo(four):
    (reduce,) = four["explain"]
    assert (reduce["opcode"], reduce["operands"], reduce["bytes"]) == ("all-reduce", ["f32[2,4]"], 32)
    assert reduce["groups"] == [[0, 2], [1, 3]]          # over 'data': devices 0,2 and 1,3
    # the gradient's all-reduce comes from transposing `x @ w`: its line, as JAX's backward
    # pass keeps the line of the equation it transposes
    step_line = FOUR_DEVICES.split("\n").index("    return jnp.mean((x @ w) ** 2)") + 1
    assert four["explain_lines"][reduce["line_id"]] == step_line
    assert reduce["source"] == f"<string>:{step_line}"
    assert four["explain_text"][0].startswith("communication: 1 collective(s) XLA inserted, 32 ")
    assert four["explain_text"][2].split()[:5] == ["all-reduce", "f32[2,4]", "32", "{0,2}", "{1,3}"]
    assert four["explain_html"] and four["one_device"] == []
    (psum,) = four["shard_map"]
    psum_line = FOUR_DEVICES.split("\n").index(
        '    return jax.lax.psum(block.sum(), "data")      # PSUM LINE') + 1
    assert (psum["opcode"], psum["operands"], psum["bytes"]) == ("all-reduce", ["f32[]"], 4)
    assert psum["groups"] == [[0, 2], [1, 3]] and psum["source"] == f"<string>:{psum_line}"
    assert four["doc_examples"] == "ran"          # sharding_view's docstring examples passed
    ops = sorted(c["opcode"] for c in four["hlo"])
    assert ops == ["all-gather", "all-reduce"] and four["hlo_text"]
    for c in four["hlo"]:
        assert c["bytes"] > 0 and c["groups"] and c["source"] is None
