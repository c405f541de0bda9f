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
from jxkernel.views.jaxpr_json import MIME, jaxpr_bundle, jaxpr_to_json  # noqa: E402
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


def var(name, aval, vid):
    return {"name": name, "aval": aval, "id": vid}


def test_the_structured_jaxpr_names_types_literals_and_source_lines(jaxpr):
    bundle = jaxpr_bundle(jaxpr, "f")
    assert (bundle["version"], bundle["name"]) == (2, "f")
    assert bundle["text"] == str(jaxpr)             # the printed text, names included
    top = bundle["jaxpr"]
    assert top["invars"] == [var("a", "f32[3]", 0), var("b", "i32[]", 1)] and top["constvars"] == []
    assert top["outvars"] == [var("l", "f32[]", 17), var("m", "f32[3]", 18)]
    assert [e["primitive"] for e in top["eqns"]] == \
        ["sin", "mul", "gt", "convert_element_type", "cond", "scan"]
    sin, mul = top["eqns"][:2]
    assert sin["invars"] == [var("a", "f32[3]", 0)] and sin["outvars"] == [var("c", "f32[3]", 2)]
    assert mul["invars"] == [var("c", "f32[3]", 2), {"literal": "2.0", "aval": "f32[]"}]
    here = __file__.rsplit("/", 1)[-1]
    assert (mul["source"], mul["source_line"]) == (f"{here}:{LINE}", "y = jnp.sin(x) * 2.0")
    assert top["eqns"][3]["params"]["new_dtype"] == "int32"
    json.dumps(bundle)                                       # JSON all the way down


def test_sub_jaxprs_are_structured_inside_params(jaxpr):
    eqns = jaxpr_to_json(jaxpr)["eqns"]
    cond, scan = eqns[4], eqns[5]
    false_branch, true_branch = cond["params"]["branches"]          # a list for branches
    assert false_branch["invars"] == [var("h", "f32[3]", 6)]
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
    assert body["outvars"] == [var("q", "f32[]", 14), var("s", "f32[]", 16)]
    assert (scan["params"]["length"], scan["params"]["num_carry"]) == ("3", "1")
    assert scan["invars"][0] == {"literal": "0.0", "aval": "f32[]"}


def _def_use(block, path="", table=None):
    """id -> [name, where defined, where used] from the ids a structured jaxpr carries."""
    table = {} if table is None else table

    def define(vs, site):
        for v in vs:
            if "id" in v:
                assert v["id"] not in table, "an id is defined once"
                table[v["id"]] = [v["name"], site, []]

    def use(atoms, site):
        for a in atoms:
            if "id" in a:
                table[a["id"]][2].append(site)
    define(block["constvars"] + block["invars"], path + "in")
    for i, e in enumerate(block["eqns"]):
        use(e["invars"], f"{path}{i}")
        for key, value in sorted(e["params"].items()):
            subs = value if isinstance(value, list) else [value]
            for j, sub in enumerate(s for s in subs if isinstance(s, dict)):
                _def_use(sub, f"{path}{i}.{key}{j}.", table)
        define(e["outvars"], f"{path}{i}")
    use(block["outvars"], path + "out")
    return table


def test_each_variable_has_an_id_its_uses_share_scoped_to_its_jaxpr():
    double = jxkernel.jit(lambda v: v * 2.0)

    def g(x, n):
        def body(c, xi):                     # jit's jaxpr reuses the scan body's names
            return c + double(xi), c
        y = lax.cond(n > 0, lambda v: double(v), lambda v: v, x)
        return lax.scan(body, 0.0, y)
    closed = jxkernel.make_jaxpr(g)(jnp.ones(3), 1)
    table = _def_use(jaxpr_bundle(closed, "g")["jaxpr"])
    assert sorted(table) == list(range(len(table)))                     # 0, 1, ... once each
    by_name = {}
    for name, where, uses in table.values():
        by_name.setdefault(name, []).append((where, uses))
    # one name, two variables: the cond branch's `g` and the `g` of the jit inside it
    assert by_name["g"] == [("2.branches1.in", ["2.branches1.0"]),
                            ("2.branches1.0.jaxpr0.in", ["2.branches1.0.jaxpr0.0"])]
    assert by_name["h"] == [("2.branches1.0.jaxpr0.0", ["2.branches1.0.jaxpr0.out"]),
                            ("2.branches1.0", ["2.branches1.out"])]
    assert by_name["l"] == [("3.jaxpr0.in", ["3.jaxpr0.0"]),             # scan body > jit
                            ("3.jaxpr0.0.jaxpr0.in", ["3.jaxpr0.0.jaxpr0.0"])]
    assert by_name["a"] == [("in", ["2"])]
    assert by_name["k"] == [("3.jaxpr0.in", ["3.jaxpr0.1", "3.jaxpr0.out"])]


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
