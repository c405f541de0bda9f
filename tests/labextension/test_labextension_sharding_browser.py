"""Where the data lives, in a real browser (issue 18): a sharded Array's display and
`show_sharding` drawn by labextension/src/shardingView.ts from the
application/vnd.jxkernel.sharding+json bundle, and the communication table that the explain
and HLO views show for a partitioned program.

The browser tests' `jupyter lab` server (tests/labextension/conftest.py), this file's kernel
with four CPU devices (JXKERNEL_CPU_DEVICES=4), one
notebook run once (Run All). The harness is tests/labextension/test_labextension_browser.py's;
screenshots go to test-artifacts/browser/<test>-<step>.png. Skipped, saying why, only without
a browser.
"""
from __future__ import annotations

import re

import pytest
from test_labextension_browser import (  # the same harness: server, page and contrast helpers
    assert_readable,
    cell,
    expect,
    notebook_fixtures,
    palette,
    shot_view,
)

pytestmark = pytest.mark.cpu_only("simulated CPU devices")     # the GPU tier skips this file (docs/gpu.md)

SETUP, ARRAY, SHOW, EXPLAIN, HLO = range(5)
NOTEBOOK = [
    "%load_ext jxkernel\n"
    "import numpy as np, jxkernel as jax, jxkernel.numpy as jnp\n"
    "from jxkernel.sharding import NamedSharding, PartitionSpec as P\n"
    "from jxkernel.notebook import show_sharding\n\n"
    # Auto axes: XLA lays out what the program leaves open (y.T @ y contracts a split axis,
    # which Explicit axes, make_mesh's default, refuse as JAX does)
    "mesh = jax.make_mesh((2, 2), ('data', 'model'),\n"
    "                     axis_types=(jax.sharding.AxisType.Auto,) * 2)\n"
    "x = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(mesh, P('data')))\n"
    "w = jax.device_put(np.ones((4, 2), np.float32), NamedSharding(mesh, P()))\n"
    "both = jax.device_put(np.zeros((4, 4), np.float32), NamedSharding(mesh, P('data', 'model')))\n\n"
    "def loss(w, x):\n"
    "    return jnp.mean((x @ w) ** 2)\n\n"
    "def step(w, x):\n"
    "    return w - 0.1 * jax.grad(loss)(w, x)\n\n"
    "gram = jax.jit(lambda y: y.T @ y)",
    "x",
    "show_sharding(jax.device_put(np.zeros((4, 6), np.int8), NamedSharding(mesh, P(None, 'model'))))",
    "%explain step(w, x)",
    "%hlo gram(both)",
]
VIEW_CLASS = {ARRAY: "jx-ShardingOutput", SHOW: "jx-ShardingOutput", EXPLAIN: "jx-ExplainOutput",
              HLO: "jx-HloOutput"}


# sharding.ipynb open in JupyterLab with every cell run, on four CPU devices
server, console, page = notebook_fixtures("sharding.ipynb", NOTEBOOK, VIEW_CLASS, devices=4)


def view(page, index):
    return cell(page, index).locator(f".{VIEW_CLASS[index]}")


@pytest.mark.xla_only("sharded arrays")
def test_sharded_array_and_show_sharding_draw_the_blocks(page, request):
    """The array's value, then one coloured block per row block with its devices and index,
    under the mesh, the spec and the bytes per device; replicated blocks list every device."""
    v = view(page, ARRAY)
    expect(v.locator(".jx-Sharding-array")).to_contain_text("Array([[ 0.,  1.,  2.,  3.],")
    expect(v.locator(".jx-View-title")).to_have_text("f32[8,4] on mesh data=2 × model=2 as P('data',)")
    expect(v.locator(".jx-Sharding-summary")).to_contain_text(
        "shard (4, 4) · 64 bytes per device · 4 devices · dim 0 over 'data'; dim 1 whole · "
        "replicated over 'model' (2 copies of each block)")
    blocks = v.locator(".jx-Sharding-block")
    expect(blocks).to_have_count(2)
    expect(blocks.nth(0)).to_have_text("CPU 0, CPU 1[0:4, 0:4]")
    expect(blocks.nth(1)).to_have_text("CPU 2, CPU 3[4:8, 0:4]")
    first, second = blocks.nth(0).bounding_box(), blocks.nth(1).bounding_box()
    assert second["y"] >= first["y"] + first["height"] - 1        # a row each: split by rows
    colors = {blocks.nth(i).evaluate("e => getComputedStyle(e).backgroundColor") for i in (0, 1)}
    assert len(colors) == 2, colors
    shot_view(v, request, "1-array")

    s = view(page, SHOW)
    expect(s.locator(".jx-Sharding-array")).to_have_count(0)
    cols = s.locator(".jx-Sharding-block")
    expect(cols).to_have_count(2)
    expect(cols.nth(0)).to_have_text("CPU 0, CPU 2[0:4, 0:3]")
    a, b = cols.nth(0).bounding_box(), cols.nth(1).bounding_box()
    assert abs(a["y"] - b["y"]) < 1 and b["x"] > a["x"]            # side by side: split by columns
    expect(s.locator(".jx-Sharding-summary")).to_contain_text("shard (4, 3) · 12 bytes per device")
    shot_view(s, request, "2-show")


@pytest.mark.xla_only("sharded arrays")
def test_communication_in_explain_and_hlo(page, request):
    """explain and %hlo of partitioned programs list the collectives XLA inserted: the
    data-parallel step's all-reduce over 'data' (devices 0,2 and 1,3) at the line of the matmul
    it transposes (`x @ w`, line 13), as JAX's backward pass keeps the forward line."""
    e = view(page, EXPLAIN).locator(".jx-Collectives")
    expect(e.locator("summary")).to_have_text(
        "communication: 1 collective XLA inserted, 32 bytes sent in per device")
    row = e.locator("tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_have_text(re.compile(r"^all-reduce\s*f32\[2,4\]\s*32\s*\{0,2\} \{1,3\}\s*In\[\d+\]:13$"))
    shot_view(view(page, EXPLAIN), request, "1-explain")
    h = view(page, HLO).locator(".jx-Collectives")
    expect(h.locator("tbody tr", has_text="all-gather")).to_have_count(1)
    expect(h.locator("tbody tr", has_text="all-reduce")).to_have_count(1)
    shot_view(view(page, HLO), request, "2-hlo")


@pytest.mark.xla_only("sharded arrays")
def test_dark_theme_keeps_the_blocks_readable(page, request):
    palette(page, "Use Theme: JupyterLab Dark")
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
    try:
        for index in (ARRAY, EXPLAIN):
            assert_readable(view(page, index), 4.5, VIEW_CLASS[index])
        shot_view(view(page, ARRAY), request, "1-dark")
    finally:
        palette(page, "Use Theme: JupyterLab Light")
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "true")


def test_console_has_no_errors(console):
    errors = [(kind, text) for kind, text, _ in console if kind in ("error", "pageerror")]
    assert not errors, "\n".join(f"{kind}: {text}" for kind, text in errors)
