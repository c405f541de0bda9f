"""jxkernel.explain / %explain (jxkernel/views/call_explanation.py, jxkernel/views/hlo_text.py,
jxkernel/views/stablehlo_text.py): f's source, its jaxpr, its StableHLO (as JAX's
Lowered.as_text() prints it) and XLA's optimized HLO linked by source line, with per-line
counts."""
import functools
import html
import json
import re

import numpy as np
import pytest
from doc_examples import check_docstring_examples

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.views import hlo_text as _hlo_text
from jxkernel.explainer import MIME, Explanation, render_html, render_text
from jxkernel.views import stablehlo_text
from jxkernel.xla import client as xla_client
from gpu_tier import ON_GPU
from ipython_shell import shell_fixture
from real_kernel import running_kernel


def model(x, w):
    y = jnp.sin(x)
    z = y @ w
    return z.sum()


# the NumPy backend runs the jaxpr: no optimized HLO, and the lines' counts are the equations'
NO_XLA = jxkernel.default_backend() == "numpy"
DEF = model.__code__.co_firstlineno
A, B, C = DEF + 1, DEF + 2, DEF + 3          # sin, matmul, sum


@jxkernel.jit
def helper(v):
    return jnp.cos(v) * 2.0


def outer(x):
    return helper(x) + 1.0


def compare(x):
    return jnp.where(x < 0.5, x, 0.0)  # keeps x < 0.5 & drops the rest


def pick(x, how):
    return getattr(jnp, how)(x)


def two(x):
    y = jnp.sin(x) * 2.0
    return jnp.cos(y) + y


TWO_A, TWO_B = two.__code__.co_firstlineno + 1, two.__code__.co_firstlineno + 2


@functools.cache
def explained() -> Explanation:
    return jxkernel.explain(model, jnp.ones((4, 8)), jnp.ones((8, 3)))


def test_each_line_made_exactly_its_equations():
    ex = explained()
    assert [e.primitive for e in ex.equations_of(A)] == ["sin"]
    assert [e.primitive for e in ex.equations_of(B)] == ["dot_general"]
    assert [e.primitive for e in ex.equations_of(C)] == ["reduce_sum"]
    assert ex.equations_of(DEF) == []
    assert [s.number for s in ex.source_lines] == [DEF, A, B, C]
    assert ex.source_lines[2].text == "    z = y @ w" and ex.source_lines[2].in_function
    assert ex.per_line[B].equations == 1 and ex.per_line[DEF].equations == 0


def test_stablehlo_ops_carry_their_lines():
    ex = explained()
    assert [o.name for o in ex.stablehlo_ops_of(A)] == ["stablehlo.sine"]
    assert [o.name for o in ex.stablehlo_ops_of(B)] == ["stablehlo.dot_general"]
    # MLIR prints the sum's reducer in short (`applies stablehlo.add`): one op, one line
    assert [o.name for o in ex.stablehlo_ops_of(C)] == ["stablehlo.reduce"]
    assert "applies stablehlo.add" in ex.stablehlo_ops_of(C)[0].text
    # shown without locations; the module as lowered has them, which is where lines come from
    assert "loc(" not in ex.stablehlo and "%cst = stablehlo.constant" in ex.stablehlo
    assert 'loc("' in ex.stablehlo_with_locations and ex.file in ex.stablehlo_with_locations
    assert {o.name for o in ex.stablehlo_ops if o.line is None} == {"stablehlo.constant",
                                                                    "func.return"}
    assert ex.stablehlo_title == "StableHLO"


def test_the_stablehlo_pane_shows_the_lines_of_lowered_as_text():
    """The pane's text is what a learner gets from `jax.jit(f).lower(x).as_text()`: the module
    itself, and each op's text its line there; the ops still sit under their source lines."""
    x = jnp.ones(3)
    ex = jxkernel.explain(two, x)
    as_text = jxkernel.jit(two).lower(x).as_text()
    assert ex.stablehlo == as_text
    lines = as_text.splitlines()
    assert [o.text for o in ex.stablehlo_ops] == [lines[o.text_line - 1].strip()
                                                  for o in ex.stablehlo_ops]
    assert [o.text for o in ex.stablehlo_ops_of(TWO_A)] == [
        "%0 = stablehlo.sine %arg0 : tensor<3xf32>",
        "%1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>",
        "%2 = stablehlo.multiply %0, %1 : tensor<3xf32>"]
    assert [o.text for o in ex.stablehlo_ops_of(TWO_B)] == [
        "%3 = stablehlo.cosine %2 : tensor<3xf32>", "%4 = stablehlo.add %3, %2 : tensor<3xf32>"]
    assert ex.per_line[TWO_A].stablehlo_ops == 3 and ex.per_line[TWO_B].stablehlo_ops == 2
    page = render_html(ex)
    assert "<summary>StableHLO (7)</summary>" in page and "what jxkernel emits" not in page
    assert "%4 = stablehlo.add %3, %2 : tensor&lt;3xf32&gt;</div>" in page
    data = ex.to_json()["stablehlo"]
    assert data["text"] == as_text and [o["text"] for o in data["ops"]] == [
        o.text for o in ex.stablehlo_ops]


def test_a_region_holder_is_its_first_line_and_its_ops_keep_their_own_lines():
    def looped(x):
        y = jnp.sin(x)
        return jxkernel.lax.while_loop(lambda c: c.sum() < 100.0, lambda c: c * 2.0, y)
    ex = jxkernel.explain(looped, jnp.ones(3))
    first = looped.__code__.co_firstlineno
    (loop,) = [o for o in ex.stablehlo_ops if o.name == "stablehlo.while"]
    assert loop.line == first + 2 and loop.text.startswith("%1 = stablehlo.while(%iterArg = %0)")
    inside = [o for o in ex.stablehlo_ops if o.index > loop.index]
    assert {o.name for o in inside} >= {"stablehlo.compare", "stablehlo.multiply",
                                        "stablehlo.return"}
    # the body's ops are on the loop's line (the lambdas are written there), the return too:
    # an op in a region without a line of its own takes its holder's
    assert {o.line for o in inside if o.name != "func.return"} == {first + 2}
    assert [o.name for o in ex.stablehlo_ops_of(first + 1)] == ["stablehlo.sine"]


def test_without_jaxlib_the_pane_shows_our_own_text_and_says_so(monkeypatch):
    # the NumPy backend in Pyodide has no jaxlib to print MLIR: our text, with its locations
    ex = explained()
    monkeypatch.setattr(xla_client, "xc", None)
    own = Explanation(model, jxkernel.make_jaxpr(model)(jnp.ones((4, 8)), jnp.ones((8, 3))),
                      ex.stablehlo_with_locations, ex.optimized_hlo, ex.xla_cost, title="model")
    assert own.stablehlo == ex.stablehlo_with_locations and "jxkernel's own text" in \
        own.stablehlo_title and "no jaxlib" in own.stablehlo_title
    assert f"<summary>{html.escape(own.stablehlo_title)} (" in render_html(own)
    assert [o.name for o in own.stablehlo_ops_of(B)] == ["stablehlo.dot_general"]
    assert [o.name for o in own.stablehlo_ops_of(C)][0] == "stablehlo.reduce"
    assert all('loc(' not in o.text for o in own.stablehlo_ops)


def test_the_optimized_hlo_maps_back_to_the_lines():
    ex = explained()
    if NO_XLA:
        assert ex.optimized_hlo == "" and ex.hlo_instructions == [] and ex.cost_from == "jaxpr"
        return
    assert "dot" in {i.opcode for i in ex.hlo_instructions_of(B)}
    assert "sine" in {i.opcode for i in ex.hlo_instructions_of(A)}
    if ON_GPU:      # XLA's GPU compiler drops the fused reduce's line (the test above)
        assert [i.opcode for i in ex.unattributed] == ["reduce"]
    else:
        assert "reduce" in {i.opcode for i in ex.hlo_instructions_of(C)}
    assert f'source_line={B}' in ex.optimized_hlo


def test_per_line_costs_make_the_matmul_line_the_heavy_one():
    ex = explained()
    assert ex.per_line[B].flops == 2 * 4 * 8 * 3         # from the dot's shapes
    assert ex.per_line[A].transcendentals == 4 * 8 and ex.per_line[A].flops == 0
    # one add per reduced element (on a GPU, on no line: XLA drops the fused reduce's line)
    assert ex.per_line[C].flops == (0 if ON_GPU else 4 * 3 - 1)
    assert max(ex.per_line, key=lambda k: ex.per_line[k].flops) == B
    assert ex.per_line[B].bytes >= (4 * 8 + 8 * 3 + 4 * 3) * 4 // 2
    assert ex.estimated_totals["flops"] == 192 + 11 and ex.not_estimated == []
    assert ex.xla_cost == {} if NO_XLA else ex.xla_cost["flops"] > 0


def test_instructions_left_without_a_line_count_in_the_totals_and_are_named():
    # XLA's GPU compiler drops the metadata of a reduce it fuses into a loop (seen on an H200,
    # jaxlib 0.11.2: `%reduce.1.1 = f32[] reduce(...)` and its `%loop_reduce_fusion` have no
    # source_line): its cost stays in the sums, on no line, and the footer names it. The CPU's
    # HLO with the reduce's metadata taken out stands in for the GPU's here.
    ex = explained()
    if NO_XLA:
        pytest.skip("the NumPy backend has no optimized HLO")
    hlo = re.sub(r"^(\s*(?:ROOT )?%\w*reduce[\w.]* = [^\n]*?), metadata=\{[^}]*\}", r"\1",
                 ex.optimized_hlo, flags=re.M)          # the reduce and the fusion holding it
    assert hlo != ex.optimized_hlo
    gpu_like = Explanation(model, jxkernel.make_jaxpr(model)(jnp.ones((4, 8)), jnp.ones((8, 3))),
                           ex.stablehlo, hlo, ex.xla_cost, title="model")
    assert [i.opcode for i in gpu_like.unattributed] == ["reduce"]
    # the bundle names them by index, so the extension's footer need not know the rule
    assert gpu_like.to_json()["cost"]["unattributed"] == [gpu_like.unattributed[0].index]
    if not ON_GPU:
        assert ex.unattributed == []            # XLA's CPU keeps every line
    assert gpu_like.per_line[C].flops == 0 and gpu_like.estimated_totals["flops"] == 192 + 11
    footer = repr(gpu_like).splitlines()
    assert any(row.startswith("  on no line (XLA's optimized HLO lost their source lines): "
                              "reduce.") and row.endswith("(reduce, 11 flops)") for row in footer)


def test_text_rendering_lists_each_lines_items():
    ex = explained()
    lines = repr(ex).splitlines()
    assert lines[0] == f"explain model(f32[4,8], f32[8,3])   (test_explain.py, line {DEF})"
    assert lines[1] == "line eqns     flops  transc     bytes │ source"
    assert lines[2] == f"{DEF:>4}    .         .       .         . │ def model(x, w):"
    row = next(i for i, t in enumerate(lines) if t.startswith(f"{B:>4} "))
    assert lines[row].split("│")[0].split()[:4] == [str(B), "1", "192", "."]
    assert lines[row].endswith("│     z = y @ w")
    assert lines[row + 1].endswith("│   jaxpr      d:f32[4,3] = dot_general[dimension_numbers="
                                   "(([1], [0]), ([], [])) preferred_element_type=float32] c b")
    assert lines[row + 2].endswith("│   stablehlo  stablehlo.dot_general")
    if NO_XLA:
        assert "costs: per jaxpr equation, computed from its shapes" in repr(ex)
        assert "jaxpr_cost.py" not in repr(ex)       # a learner's footnote names no internal file
        assert "optimized HLO: none (the numpy backend runs the jaxpr" in repr(ex)
    else:
        assert lines[row + 3].split("│   hlo        ")[1].count("(dot)") == 1
        assert "costs: per optimized-HLO instruction, computed from its shapes" in repr(ex)
    assert render_text(ex) == repr(ex)


def test_html_is_static_escaped_and_linked_by_anchors():
    ex = jxkernel.explain(compare, jnp.ones(3))
    page = ex._repr_html_()
    assert "keeps x &lt; 0.5 &amp; drops the rest" in page and "x < 0.5" not in page
    assert "<script" not in page and ":target" in page
    less = next(e for e in ex.equations if e.primitive == "lt")
    prefix = page.split("<div id='")[1].split("'")[0]
    line_id = ex.line(compare.__code__.co_firstlineno + 1).id
    assert f"<tr id='{prefix}-{line_id}'>" in page                     # the line is an anchor
    assert (f"<div class='it {prefix}-{line_id}' id='{prefix}-e{less.index}'>"
            f"<a href='#{prefix}-{line_id}'>"
            in page)                                                  # its equation links to it
    assert f"<a href='#{prefix}-e{less.index}'>e{less.index}</a>" in page   # and back
    # a targeted line lights up its items and a targeted item its line, by CSS :has
    assert f"#{prefix}:has(#{prefix}-{line_id}:target) .{prefix}-{line_id}," in page
    assert f"#{prefix}:has(.{prefix}-{line_id}:target) #{prefix}-{line_id}{{" in page
    assert f"{prefix}-None" not in page


def test_json_bundle_links_every_item_to_a_line():
    ex = explained()
    bundle = ex._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", MIME}
    data = json.loads(json.dumps(bundle[MIME]))
    assert list(data)[0] == "version" and data["version"] == 1
    ids = {line["id"] for line in data["lines"]}
    items = data["equations"] + data["stablehlo"]["ops"] + data["hlo"]["instructions"]
    assert all(i["line_id"] is None or i["line_id"] in ids for i in items)
    b_id = ex.line(B).id
    assert [e["primitive"] for e in data["equations"] if e["line_id"] == b_id] == ["dot_general"]
    row = next(r for r in data["per_line"] if r["line_id"] == b_id)
    assert row["flops"] == 192 and row["equations"] == 1 and row["stablehlo_ops"] == 1
    assert data["function"] == {"name": "model", "file": ex.file, "label": "test_explain.py",
                                "first_line": DEF}
    assert data["cost"]["estimated"]["flops"] == 203 and "from its shapes" in data["cost"]["method"]
    assert data["stablehlo"]["text"].splitlines()[data["stablehlo"]["ops"][0]["text_line"] - 1] \
        .strip().startswith("%0 = stablehlo.sine")


def test_a_jitted_helper_elsewhere_shows_under_its_own_lines():
    ex = jxkernel.explain(outer, jnp.ones(3))
    call, cos, mul, add = ex.equations
    assert (call.primitive, call.depth, call.parent) == ("jit", 0, None)
    assert (cos.primitive, cos.depth, cos.parent) == ("cos", 1, 0)
    inner = helper.__wrapped__.__code__.co_firstlineno + 2     # after the decorator and def
    assert cos.line == mul.line == inner and add.line == call.line
    other = ex.line(inner)
    assert not other.in_function and other.text == "    return jnp.cos(v) * 2.0"
    assert ex.per_line[inner].transcendentals == 3
    assert [o.line for o in ex.stablehlo_ops if o.name == "func.call"] == [call.line]
    assert [o.name for o in ex.stablehlo_ops_of(inner)] == [
        "stablehlo.cosine", "stablehlo.broadcast_in_dim", "stablehlo.multiply"]
    assert "(other lines that made operations)" in repr(ex)


def test_static_arguments_and_jitted_functions():
    ex = jxkernel.explain(pick, np.ones(3, np.float32), "tanh")       # a str is static
    assert [e.primitive for e in ex.equations] == ["tanh"]
    assert ex.title == "pick(f32[3], 'tanh')"
    jitted = jxkernel.jit(pick, static_argnums=1)
    ex = jxkernel.explain(jitted, jnp.ones(3), "exp")
    assert [e.primitive for e in ex.equations] == ["exp"] and ex.name == "pick"
    assert ex.source_lines[0].text == "def pick(x, how):"


def test_docstring_examples_run():
    check_docstring_examples("jxkernel.explainer")
    check_docstring_examples("jxkernel.views.hlo_text")
    check_docstring_examples("jxkernel.views.stablehlo_text")


def test_bad_input_is_named():
    with pytest.raises(TypeError, match=r"explain\(f, \*args\): f=3 \(a int\) is not callable"):
        jxkernel.explain(3, jnp.ones(3))
    with pytest.raises(KeyError, match=rf"line=1 of .* its lines there are \[{DEF}, {A}, {B}, {C}\]"):
        explained().line(1)


# ------------------------------------------------------------------ the parsers, on fixed text
HLO = """HloModule m, entry_computation_layout={(f32[2,3]{1,0}, f32[3,4]{1,0})->f32[]}

%fused (p0: f32[2,3], p1: f32[3,4]) -> f32[2,4] {
  %p0 = f32[2,3]{1,0} parameter(0)
  %p1 = f32[3,4]{1,0} parameter(1)
  %e = f32[2,3]{1,0} exponential(%p0), metadata={source_file="m.py" source_line=2}
  ROOT %d = f32[2,4]{1,0} dot(%e, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={source_file="m.py" source_line=3}
}

%add_r (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b), metadata={source_file="-" source_line=9}
}

ENTRY %main (x: f32[2,3], w: f32[3,4]) -> f32[] {
  %x = f32[2,3]{1,0} parameter(0)
  %w = f32[3,4]{1,0} parameter(1)
  %f = f32[2,4]{1,0} fusion(%x, %w), kind=kLoop, calls=%fused, metadata={source_file="m.py" source_line=3}
  %c = f32[] constant(0)
  %cc = f32[2,4]{1,0} custom-call(%f), custom_call_target="foo", metadata={source_file="m.py" source_line=4}
  ROOT %r = f32[] reduce(%cc, %c), dimensions={0,1}, to_apply=%add_r, metadata={source_file="m.py" source_line=5}
}
"""


def test_hlo_instructions_costs_and_lines_from_fixed_text():
    got = {i.name: i for i in _hlo_text.parse_hlo(HLO)}
    assert [(n, i.opcode, i.source_line) for n, i in got.items() if i.opcode != "parameter"] == [
        ("e", "exponential", 2), ("d", "dot", 3), ("s", "add", 5), ("f", "fusion", 3),
        ("c", "constant", None), ("cc", "custom-call", 4), ("r", "reduce", 5)]
    assert (got["d"].flops, got["e"].transcendentals, got["e"].flops) == (2 * 2 * 4 * 3, 6, 0)
    assert got["r"].flops == 8 - 1 and got["s"].flops == 0       # the reducer counts in reduce
    assert got["f"].bytes == (6 + 12 + 8) * 4 and got["d"].bytes == 0   # fused: no traffic
    assert got["f"].top_level and not got["d"].top_level
    assert not got["cc"].estimated and got["cc"].flops == 0 and got["cc"].bytes == 2 * 8 * 4
    assert got["r"].bytes == (8 + 1 + 1) * 4 and got["c"].bytes == 0


# What XLA's GPU backend leaves of a matmul and a convolution: cuBLAS and cuDNN calls whose
# result is (output, scratch workspace), their dimensions in backend_config / dim_labels (the
# attribute spelling of XLA's GPU HLO; written by hand here, checked on a machine without a GPU)
GPU_HLO = """HloModule gpu

ENTRY %main (x: f32[8,3], w: f32[3,4], i: f32[1,8,8,3], k: f32[3,3,3,4]) -> f32[8,4] {
  %x = f32[8,3]{1,0} parameter(0)
  %w = f32[3,4]{1,0} parameter(1)
  %i = f32[1,8,8,3]{3,2,1,0} parameter(2)
  %k = f32[3,3,3,4]{3,2,1,0} parameter(3)
  %gemm = (f32[8,4]{1,0}, s8[4194304]{0}) custom-call(f32[8,3]{1,0} %x, f32[3,4]{1,0} %w), custom_call_target="__cublas$gemm", metadata={op_name="jit(f)/dot_general" source_file="m.py" source_line=3}, backend_config={"operation_queue_id":"0","wait_on_operation_queues":[],"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0,"epilogue":"DEFAULT"},"force_earliest_schedule":false}
  %conv = (f32[1,8,8,4]{3,2,1,0}, u8[0]{0}) custom-call(f32[1,8,8,3]{3,2,1,0} %i, f32[3,3,3,4]{3,2,1,0} %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convForward", metadata={source_file="m.py" source_line=4}, backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1}}
  %back = (f32[1,8,8,3]{3,2,1,0}, u8[0]{0}) custom-call(f32[1,8,8,4]{3,2,1,0} %i, f32[3,3,3,4]{3,2,1,0} %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convBackwardInput", metadata={source_file="m.py" source_line=5}
  ROOT %out = f32[8,4]{1,0} get-tuple-element((f32[8,4]{1,0}, s8[4194304]{0}) %gemm), index=0
}
"""


def test_gpu_library_calls_count_as_the_dot_and_convolution_they_compute():
    got = {i.name: i for i in _hlo_text.parse_hlo(GPU_HLO)}
    gemm, conv, back = got["gemm"], got["conv"], got["back"]
    # as XLA's dot: 2 * (8 * 4 outputs) * 3 contracted; bytes without the 4 MiB workspace
    assert (gemm.estimated, gemm.flops, gemm.source_line) == (True, 2 * 32 * 3, 3)
    assert gemm.bytes == (32 + 24 + 12) * 4
    # as XLA's convolution: 2 * (64 * 4 outputs) * (3 * 3 * 3 kernel elements per output)
    assert (conv.estimated, conv.flops) == (True, 2 * 256 * 27)
    assert conv.bytes == (256 + 192 + 108) * 4
    assert (back.estimated, back.flops) == (False, 0)        # not estimated, and listed so


def test_shapes_in_bytes_and_elements():
    assert _hlo_text.shape_bytes("f32[4,3]{1,0}") == 48
    assert _hlo_text.shape_bytes("(bf16[2,2]{1,0}, s8[5]{0}, pred[])") == 8 + 5 + 1
    assert _hlo_text.shape_elements("f32[<=7]{0}") == 7


def test_stablehlo_region_ops_take_the_holders_line():
    text = ('module @m {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<f32> {\n'
            '    %0 = stablehlo.constant dense<0.0> : tensor<f32>\n'
            '    %2 = "stablehlo.reduce"(%arg0, %0) ({\n'
            '    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):\n'
            '      %1 = stablehlo.add %arg1, %arg2 : tensor<f32> loc("a\\"b.py":8:0)\n'
            '      stablehlo.return %1 : tensor<f32>\n'
            '    }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32> '
            'loc("m.py":7:0)\n    return %2 : tensor<f32>\n  }\n}\n')
    assert [(name, file, line) for name, _, _, file, line in stablehlo_text.emitted_ops(text)] == [
        ("stablehlo.constant", None, None), ("stablehlo.reduce", "m.py", 7),
        ("stablehlo.add", 'a"b.py', 8), ("stablehlo.return", "m.py", 7), ("return", None, None)]


# What JAX 0.10.2 prints for this program (m.py), `as_text()` and `as_text(debug_info=True)`:
#     def f(x):                                                                  # line 2
#         y = jnp.sin(x) * 2.0
#         return jax.lax.fori_loop(0, 3, lambda i, c: c + y, y).sum()
#     lo = jax.jit(f).lower(jnp.ones(3))                                         # line 5
# Its locations nest (a name, a call site, the frame): the reader finds the user's line in them.
JAX_PRINTED = """module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<3xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3:3 = stablehlo.while(%iterArg = %2, %iterArg_1 = %c, %iterArg_2 = %2) : tensor<3xf32>, tensor<i32>, tensor<3xf32>
    cond {
      %c_3 = stablehlo.constant dense<3> : tensor<i32>
      %5 = stablehlo.compare LT, %iterArg_1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = func.call @closed_call(%iterArg, %iterArg_2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_1, %c_3 : tensor<i32>
      stablehlo.return %iterArg, %6, %5 : tensor<3xf32>, tensor<i32>, tensor<3xf32>
    }
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3#2 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    return %4 : tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.add %arg1, %arg0 : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
"""
JAX_DEBUG = """#loc = loc(unknown)
#loc1 = loc("x")
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> loc("x")) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<3xf32> loc(#loc22)
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32> loc(#loc15)
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32> loc(#loc23)
    %2 = stablehlo.multiply %0, %1 : tensor<3xf32> loc(#loc23)
    %c = stablehlo.constant dense<0> : tensor<i32> loc(#loc24)
    %3:3 = stablehlo.while(%iterArg = %2, %iterArg_1 = %c, %iterArg_2 = %2) : tensor<3xf32>, tensor<i32>, tensor<3xf32>
    cond {
      %c_3 = stablehlo.constant dense<3> : tensor<i32> loc(#loc29)
      %5 = stablehlo.compare LT, %iterArg_1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1> loc(#loc30)
      stablehlo.return %5 : tensor<i1> loc(#loc29)
    } do {
      %5 = func.call @closed_call(%iterArg, %iterArg_2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> loc(#loc31)
      %c_3 = stablehlo.constant dense<1> : tensor<i32> loc(#loc29)
      %6 = stablehlo.add %iterArg_1, %c_3 : tensor<i32> loc(#loc32)
      stablehlo.return %iterArg, %6, %5 : tensor<3xf32>, tensor<i32>, tensor<3xf32> loc(#loc29)
    } loc(#loc29)
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc27)
    %4 = stablehlo.reduce(%3#2 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32> loc(#loc27)
    return %4 : tensor<f32> loc(#loc15)
  } loc(#loc)
  func.func private @closed_call(%arg0: tensor<3xf32> loc(unknown), %arg1: tensor<3xf32> loc(unknown)) -> tensor<3xf32> {
    %0 = stablehlo.add %arg1, %arg0 : tensor<3xf32> loc(#loc21)
    return %0 : tensor<3xf32> loc(#loc)
  } loc(#loc28)
} loc(#loc)
#loc2 = loc("m.py":3:8 to :18)
#loc3 = loc("m.py":5:5 to :34)
#loc4 = loc("m.py":3:8 to :24)
#loc5 = loc("m.py":4:11 to :57)
#loc6 = loc("m.py":4:11 to :63)
#loc7 = loc("m.py":4:48 to :53)
#loc8 = loc("f"(#loc2))
#loc9 = loc("<module>"(#loc3))
#loc10 = loc("f"(#loc4))
#loc11 = loc("f"(#loc5))
#loc12 = loc("f"(#loc6))
#loc13 = loc("f.<locals>.<lambda>"(#loc7))
#loc14 = loc(callsite(#loc8 at #loc9))
#loc15 = loc("jit(f)"(#loc9))
#loc16 = loc(callsite(#loc10 at #loc9))
#loc17 = loc(callsite(#loc11 at #loc9))
#loc18 = loc(callsite(#loc11 at #loc11))
#loc19 = loc(callsite(#loc12 at #loc9))
#loc20 = loc("while/body/closed_call"(#loc11))
#loc21 = loc("add"(#loc13))
#loc22 = loc("jit(f)/sin"(#loc14))
#loc23 = loc("jit(f)/mul"(#loc16))
#loc24 = loc("jit(f)/scan"(#loc17))
#loc25 = loc(callsite(#loc11 at #loc17))
#loc26 = loc(callsite(#loc18 at #loc17))
#loc27 = loc("jit(f)/reduce_sum"(#loc19))
#loc28 = loc("closed_call:"(#loc20))
#loc29 = loc("jit(f)/while"(#loc25))
#loc30 = loc("jit(f)/while/cond/lt"(#loc26))
#loc31 = loc("jit(f)/while/body/closed_call"(#loc26))
#loc32 = loc("jit(f)/while/body/add"(#loc26))
"""


def test_jax_s_own_print_is_read_op_by_op_with_the_user_s_lines():
    """The reader takes JAX 0.10.2's print as it takes ours: each op its line of as_text(), its
    source line the innermost frame of its nested location (a call site's callee: f's line,
    not the line calling f); JAX puts a constant it makes for the call on the calling line."""
    ops = stablehlo_text.printed_ops(JAX_PRINTED, JAX_DEBUG)
    lines = JAX_PRINTED.splitlines()
    assert all(text == lines[at - 1].strip() for _, text, at, _, _ in ops)
    assert [(name, line) for name, _, _, _, line in ops] == [
        ("stablehlo.sine", 3), ("stablehlo.constant", 5), ("stablehlo.broadcast_in_dim", 3),
        ("stablehlo.multiply", 3), ("stablehlo.constant", 4), ("stablehlo.while", 4),
        ("stablehlo.constant", 4), ("stablehlo.compare", 4), ("stablehlo.return", 4),
        ("func.call", 4), ("stablehlo.constant", 4), ("stablehlo.add", 4),
        ("stablehlo.return", 4), ("stablehlo.constant", 4), ("stablehlo.reduce", 4),
        ("func.return", 5), ("stablehlo.add", 4), ("func.return", None)]
    assert {file for _, _, _, file, _ in ops} == {"m.py", None}
    assert ops[5][1] == ("%3:3 = stablehlo.while(%iterArg = %2, %iterArg_1 = %c, %iterArg_2 = "
                         "%2) : tensor<3xf32>, tensor<i32>, tensor<3xf32>")


def test_a_location_is_read_through_its_aliases_and_strings():
    aliases = {"loc1": 'loc("a \\"quoted\\" (name)"(#loc2))', "loc2": 'loc("q.py":7:1)',
               "loc3": "loc(callsite(#loc1 at #loc4))", "loc4": 'loc("main.py":40:0)'}
    read = stablehlo_text._source_of
    assert read("#loc3", aliases) == ("q.py", 7)
    assert read('callsite("x.py":2:0 at #loc4)', aliases) == ("x.py", 2)
    assert read("unknown", aliases) == (None, None) and read('"x"', aliases) == (None, None)
    line = '%0 = stablehlo.custom_call @f(%a) {backend_config = " loc(x)"} : () -> () loc(#loc3)'
    assert stablehlo_text._trailing_location(line) == (line[:-11], "#loc3")
    assert stablehlo_text._without_locations('^bb0(%a: f32 loc("p(1)"), %b: f32 loc(#l)):') == \
        "^bb0(%a: f32, %b: f32):"


# ------------------------------------------------------------------ %explain in IPython
shell = shell_fixture(fresh=True)


def test_explain_magic_reads_a_function_defined_in_a_cell(shell):
    shell.run_cell("import jxkernel.numpy as jnp\n"
                   "def f(x, w):\n    y = jnp.sin(x)\n    z = y @ w\n    return z.sum()\n"
                   "x = jnp.ones((4, 8)); w = jnp.ones((8, 3))", store_history=True)
    ex = shell.run_line_magic("explain", "f(x, w)")
    assert isinstance(ex, Explanation) and ex.title == "f(x, w)"
    assert [s.text for s in ex.source_lines] == ["def f(x, w):", "    y = jnp.sin(x)",
                                                  "    z = y @ w", "    return z.sum()"]
    assert [e.primitive for e in ex.equations_of(4)] == ["dot_general"]
    assert ex.per_line[4].flops == 192
    assert ex.label(ex.file).startswith("In[")
    assert repr(ex).splitlines()[0].startswith("explain f(x, w)   (In[")


def test_explain_magic_errors_say_what_to_do(shell):
    from IPython.core.error import UsageError
    shell.run_cell("import jxkernel.numpy as jnp\nx = jnp.ones(3)")
    with pytest.raises(UsageError, match=r"%explain takes a call .* got 'x \+ 1'"):
        shell.run_line_magic("explain", "x + 1")
    with pytest.raises(UsageError, match="e.g. %explain f"):
        shell.run_line_magic("explain", "")
    with pytest.raises(UsageError, match=r"x is not a function \(it is a Array"):
        shell.run_line_magic("explain", "x(1)")


def test_explain_in_a_real_kernel_reads_the_cell_from_ipykernels_cache():
    """ipykernel compiles a cell into a temporary file name, not <ipython-input-…>."""
    with running_kernel() as client:
        client.execute_interactive(
            "%load_ext jxkernel\nimport jxkernel.numpy as jnp\n"
            "def f(x, w):\n    y = jnp.sin(x)\n    z = y @ w\n    return z.sum()\n"
            "x = jnp.ones((4, 8)); w = jnp.ones((8, 3))", timeout=120)
        outputs = []
        reply = client.execute_interactive("%explain f(x, w)", timeout=120,
                                           output_hook=outputs.append)
        n = reply["content"]["execution_count"]
        data = next(m["content"]["data"] for m in outputs if m["msg_type"] == "execute_result")
    text = data["text/plain"]
    assert text.splitlines()[0] == f"explain f(x, w)   (In[{n - 1}], line 3)"
    assert "   5    1       192" in text and text.count("│     z = y @ w") == 1
    bundle = data[MIME]
    assert [line["text"] for line in bundle["lines"]][:2] == ["def f(x, w):", "    y = jnp.sin(x)"]
    assert bundle["function"]["label"] == f"In[{n - 1}]"


@pytest.mark.skipif(NO_XLA, reason="XLA's cost models: the numpy backend has none (its "
                                    "estimate: tests/core/test_jaxpr_cost.py)")
def test_cost_analysis_where_the_backend_has_no_unoptimized_cost_model(monkeypatch):
    # a PJRT plugin (GPU, TPU) has no GetHloCostAnalysis: Lowered.cost_analysis is None there,
    # as JAX's; the compiled program's estimate is read from the executable itself
    from jxkernel.xla import portable
    lowered = jxkernel.jit(lambda x: x @ x).lower(jnp.ones((4, 4)))
    if ON_GPU:             # as JAX's on the same GPU (scripts/gpu_parity.py): no model there
        assert lowered.cost_analysis() is None and lowered.compile().cost_analysis()["flops"] > 0
        return
    assert lowered.cost_analysis()["flops"] == 2 * 4 * 4 * 4
    assert lowered.compile().cost_analysis()["flops"] > 0

    class Plugin:
        platform_version = "PJRT C API\ncuda 12080"
    assert portable.using_pjrt_c_api(Plugin()) and not portable.using_pjrt_c_api(
        portable._client.backend_of(jxkernel.devices()[0]).client)
    monkeypatch.setattr(portable, "using_pjrt_c_api", lambda client: True)
    assert lowered.cost_analysis() is None


def test_a_compiled_program_without_a_cost_model_answers_none():
    from jxkernel.xla import client
    from jxkernel.xla.compiler import Executable

    class NoCostModel:
        def __init__(self, message):
            self.message = message

        def cost_analysis(self):
            raise client.JaxRuntimeError(self.message)

        def execute_sharded(self, *args):       # (never run: the program is only inspected)
            raise AssertionError("not run")
    none = Executable(NoCostModel("UNIMPLEMENTED: GetCostAnalysis"), [], jxkernel.devices()[0])
    assert none.cost_analysis() is None
    other = Executable(NoCostModel("INTERNAL: broken"), [], jxkernel.devices()[0])
    with pytest.raises(client.JaxRuntimeError, match="INTERNAL"):
        other.cost_analysis()


def test_a_chosen_default_device_decides_where_it_is_explained():
    # as jit's call and lower(): `jax.default_device` wins over the arguments' device (so a
    # GPU machine's learner can explain on the CPU); here the NumPy backend's device, whose
    # explanation counts from the jaxpr
    from jxkernel.xla import client
    started = "numpy" in client._backends      # later tests in the worker see the backends
    x, w = jnp.ones((4, 8)), jnp.ones((8, 3))   # as before (jax.devices(), the array API's)
    try:
        with jxkernel.default_device(jxkernel.devices("numpy")[0]):
            assert jxkernel.explain(model, x, w).cost_from == "jaxpr"
            lowered = jxkernel.jit(model).lower(x, w)
            assert lowered.cost_analysis()["estimated from"].startswith("the jaxpr")
    finally:
        if not started:
            client._backends.pop("numpy", None)
