"""Transform diffs (jxkernel/views/jaxpr_diff.py, `%jaxpr --diff`): two jaxprs aligned
by name-free equation keys, with equations added, removed and changed."""
import pytest

pytest.importorskip("IPython")

from IPython.core.error import UsageError

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.views import jaxpr_diff as jd
from ipython_shell import shell_fixture


def f(x):
    return jnp.sin(x) * 2.0


shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\n"
                      "from jxkernel import grad, vmap\n"
                      "def f(x):\n    return jnp.sin(x) * 2.0\nx = 1.0\nxs = jnp.ones(3)",
                      fresh=True)


def grad_diff():
    return jd.jaxpr_diff(jxkernel.make_jaxpr(f)(1.0), jxkernel.make_jaxpr(jxkernel.grad(f))(1.0),
                         "f(x)", "grad(f)(x)")


def test_grad_adds_the_derivative_equations():
    d = grad_diff()
    assert [(r.kind, r.primitive) for r in d.rows] == [
        ("same", None), ("same", "sin"), ("added", "cos"), ("same", "mul"), ("added", "mul"),
        ("added", "mul"), ("same", None)]
    assert d.counts == {"same": 4, "added": 3, "removed": 0, "changed": 0}   # 2 signature rows
    assert [r.right_index for r in d.changes] == [1, 3, 4]


def test_text_rendering_is_a_unified_diff():
    assert repr(grad_diff()).splitlines() == [
        "--- f(x)",
        "+++ grad(f)(x)   (3 added)",
        "  { lambda ; a:f32[]. let",
        "  b:f32[] = sin a",
        "+ c:f32[] = cos a",
        "  _:f32[] = mul b 2.0:f32[]",          # alike rows as grad's jaxpr writes them
        "+ d:f32[] = mul 1.0:f32[] 2.0:f32[]",
        "+ e:f32[] = mul d c",
        "  in (e,) }"]


def test_identical_programs_have_no_changes():
    d = jd.jaxpr_diff(jxkernel.make_jaxpr(f)(1.0), jxkernel.make_jaxpr(f)(2.0))
    assert d.changes == [] and d.summary() == "no differences"
    assert d.counts == {"same": 4, "added": 0, "removed": 0, "changed": 0}


def test_vmap_changes_shapes_and_the_signature():
    d = jd.jaxpr_diff(jxkernel.make_jaxpr(f)(1.0), jxkernel.make_jaxpr(jxkernel.vmap(f))(jnp.ones(3)))
    assert [(r.kind, r.primitive) for r in d.rows] == [
        ("changed", None), ("changed", "sin"), ("changed", "mul"), ("changed", None)]
    assert d.rows[0].left == "{ lambda ; a:f32[]. let"
    assert d.rows[0].right == "{ lambda ; a:f32[3]. let"
    assert d.rows[1].right == "b:f32[3] = sin a"
    assert (d.rows[3].left, d.rows[3].right) == ("in (c,) }  # f32[]", "in (c,) }  # f32[3]")
    assert repr(d).splitlines()[2:4] == ["~ { lambda ; a:f32[]. let", "→ { lambda ; a:f32[3]. let"]


def test_other_primitives_are_removed_and_added():
    g = lambda x: jnp.cos(x) * 3.0 + 1.0   # noqa: E731
    d = jd.jaxpr_diff(jxkernel.make_jaxpr(f)(1.0), jxkernel.make_jaxpr(g)(1.0))
    assert [(r.kind, r.primitive) for r in d.changes] == [
        ("removed", "sin"), ("added", "cos"), ("changed", "mul"), ("added", "add")]
    changed = d.changes[2]
    assert (changed.left, changed.right) == ("c:f32[] = mul b 2.0:f32[]", "c:f32[] = mul b 3.0:f32[]")


def test_html_is_a_static_escaped_table_and_json_bundle():
    d = jd.jaxpr_diff(jxkernel.make_jaxpr(f)(1.0), jxkernel.make_jaxpr(jxkernel.grad(f))(1.0),
                      "<b>f</b>", "grad")
    html = d._repr_html_()
    assert "&lt;b&gt;f&lt;/b&gt;" in html and "<b>f</b>" not in html and "<script" not in html
    assert html.count("class='jx-diff-added'") == 3
    bundle = d._repr_mimebundle_()[jd.MIME]
    assert list(bundle)[0] == "version" and bundle["version"] == 1
    assert bundle["left"]["title"] == "<b>f</b>" and bundle["right"]["text"].startswith("{ lambda")
    assert bundle["rows"][2] == {"kind": "added", "primitive": "cos", "left": None,
                                 "right": "c:f32[] = cos a", "left_index": None,
                                 "right_index": 1}
    assert bundle["counts"]["added"] == 3


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match=r"jaxpr_diff: left must be a jaxpr .* got int: '3'"):
        jd.jaxpr_diff(3, jxkernel.make_jaxpr(f)(1.0))


def test_splitting_the_two_expressions():
    assert jd.split_expressions("f(x) grad(f)(x)") == ("f(x)", "grad(f)(x)")
    assert jd.split_expressions("f(x), vmap(f, in_axes=(0,))(xs)") == \
        ("f(x)", "vmap(f, in_axes=(0,))(xs)")
    with pytest.raises(ValueError, match="is one expression"):
        jd.split_expressions("(f(x), g(x))")
    with pytest.raises(ValueError, match="several ways"):
        jd.split_expressions("f(x) -g(x) -h(x)")      # f(x) | -g(x) -h(x), or f(x) -g(x) | -h(x)


# ------------------------------------------------------------------ the magic
def test_magic_diffs_two_expressions(shell):
    d = shell.run_line_magic("jaxpr", "--diff f(x) grad(f)(x)")
    assert isinstance(d, jd.JaxprDiff)
    assert (d.left_title, d.right_title) == ("f(x)", "grad(f)(x)")
    assert [r.primitive for r in d.changes] == ["cos", "mul", "mul"]
    d = shell.run_line_magic("jaxpr", "--diff f(x), vmap(f)(xs)")
    assert d.counts["changed"] == 4 and d.rows[0].right == "{ lambda ; a:f32[3]. let"


def test_magic_in_a_cell_displays_the_diff(shell):
    result = shell.run_cell("%jaxpr --diff f(x) f(x)")
    assert result.success and result.result.changes == []


def test_magic_bad_input_says_what_to_write(shell):
    with pytest.raises(UsageError, match=r"'f\(x\)' is one expression; write %jaxpr --diff "
                                         r"EXPR1 EXPR2, e.g. %jaxpr --diff f\(x\) grad\(f\)\(x\)"):
        shell.run_line_magic("jaxpr", "--diff f(x)")
    with pytest.raises(UsageError, match=r"not two Python expressions; write %jaxpr --diff"):
        shell.run_line_magic("jaxpr", "--diff f(x grad(f)(x)")
    with pytest.raises(UsageError, match="no expressions given"):
        shell.run_line_magic("jaxpr", "--diff")
    with pytest.raises(UsageError, match="not a %%jaxpr cell"):
        shell.run_cell_magic("jaxpr", "--diff", "y = x * 2")


def test_plain_jaxpr_magic_still_works(shell):
    viewer = shell.run_line_magic("jaxpr", "f(x)")
    assert "sin" in viewer.text and "mul" in viewer.text


def test_a_changed_signature_is_counted_beside_its_row():
    """An unused extra input changes only the signature row: the counts (the header of the
    view) say 1 changed, not 0 beside a row marked changed."""
    d = jd.jaxpr_diff(jxkernel.make_jaxpr(f)(1.0), jxkernel.make_jaxpr(lambda x, y: f(x))(1.0, 2.0))
    assert [r.kind for r in d.rows if r.primitive is None] == ["changed", "same"]
    assert d.counts["changed"] == sum(r.kind == "changed" for r in d.rows) == 1
    assert d.to_json()["counts"]["changed"] == 1
    assert d.summary() == "1 changed (the signature only)"
