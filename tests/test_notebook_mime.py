"""The `application/vnd.jxkernel.jaxpr+json` bundle beside the jaxpr views' text/html and
text/plain: a real traced function with a cond and a scan inside (nested jaxprs), variable
names as printed, literals, and each equation's source line."""
import json

import pytest

pytest.importorskip("IPython")
pytest.importorskip("anywidget")

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

import jxkernel  # noqa: E402
import jxkernel.numpy as jnp  # noqa: E402
from jxkernel import lax  # noqa: E402
from jxkernel.notebook import state_of  # noqa: E402
from jxkernel.notebook.jaxpr_json import MIME, jaxpr_bundle, jaxpr_to_json  # noqa: E402
from jxkernel.notebook.widgets.jaxpr_viewer import JaxprViewer  # noqa: E402

def f(x, n):
    y = jnp.sin(x) * 2.0
    z = lax.cond(n > 0, lambda v: v + 1.0, lambda v: v - 1.0, y)

    def body(c, xi):
        return c + xi, c * xi
    return lax.scan(body, 0.0, z)


LINE = f.__code__.co_firstlineno + 1            # the line of `y = ...`


@pytest.fixture(scope="module")
def jaxpr():
    return jxkernel.make_jaxpr(f)(jnp.ones(3), 1)


def var(name, aval):
    return {"name": name, "aval": aval}


def test_the_structured_jaxpr_names_types_literals_and_source_lines(jaxpr):
    bundle = jaxpr_bundle(jaxpr, "f")
    assert (bundle["version"], bundle["name"]) == (1, "f")
    assert bundle["text"] == str(jaxpr)             # the printed text, names included
    top = bundle["jaxpr"]
    assert top["invars"] == [var("a", "f32[3]"), var("b", "i32[]")] and top["constvars"] == []
    assert top["outvars"] == [var("l", "f32[]"), var("m", "f32[3]")]
    assert [e["primitive"] for e in top["eqns"]] == \
        ["sin", "mul", "gt", "convert_element_type", "cond", "scan"]
    sin, mul = top["eqns"][:2]
    assert sin["invars"] == [var("a", "f32[3]")] and sin["outvars"] == [var("c", "f32[3]")]
    assert mul["invars"] == [var("c", "f32[3]"), {"literal": "2.0", "aval": "f32[]"}]
    here = __file__.rsplit("/", 1)[-1]
    assert (mul["source"], mul["source_line"]) == (f"{here}:{LINE}", "y = jnp.sin(x) * 2.0")
    assert top["eqns"][3]["params"]["new_dtype"] == "int32"
    json.dumps(bundle)                                       # JSON all the way down


def test_sub_jaxprs_are_structured_inside_params(jaxpr):
    eqns = jaxpr_to_json(jaxpr)["eqns"]
    cond, scan = eqns[4], eqns[5]
    false_branch, true_branch = cond["params"]["branches"]          # a list for branches
    assert false_branch["invars"] == [var("h", "f32[3]")]
    assert [(e["primitive"], e["invars"][1]) for e in (false_branch["eqns"][0],
                                                       true_branch["eqns"][0])] == \
        [("sub", {"literal": "1.0", "aval": "f32[]"}), ("add", {"literal": "1.0", "aval": "f32[]"})]
    assert true_branch["eqns"][0]["source_line"] == \
        "z = lax.cond(n > 0, lambda v: v + 1.0, lambda v: v - 1.0, y)"
    body = scan["params"]["jaxpr"]
    # the weakly typed carry (0.0) is made strong before the add, as in JAX 0.10.2
    assert [e["primitive"] for e in body["eqns"]] == \
        ["convert_element_type", "add", "convert_element_type", "mul"]
    assert body["eqns"][1]["source_line"] == "return c + xi, c * xi"
    assert body["outvars"] == [var("q", "f32[]"), var("s", "f32[]")]
    assert (scan["params"]["length"], scan["params"]["num_carry"]) == ("3", "1")
    assert scan["invars"][0] == {"literal": "0.0", "aval": "f32[]"}


def test_the_views_carry_the_bundle_beside_html_and_text(jaxpr):
    data, _ = JaxprViewer(jaxpr, title="jaxpr of f")._repr_mimebundle_()
    assert {"text/plain", "text/html", MIME} <= set(data)
    assert data[MIME] == jaxpr_bundle(jaxpr, "jaxpr of f")
    shell = InteractiveShell.instance()
    loaded = state_of(shell) is not None
    shell.run_line_magic("load_ext", "jxkernel")
    try:
        shown, _ = shell.display_formatter.format(jaxpr)      # what displaying a jaxpr sends
    finally:
        if not loaded:
            shell.run_line_magic("unload_ext", "jxkernel")
    assert shown[MIME]["jaxpr"] == jaxpr_to_json(jaxpr) and "text/html" in shown
