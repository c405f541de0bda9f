"""The TracerBoolConversionError card on an `if` that only prints (a learner debugging NaNs,
`if jnp.isnan(y): print("nan!", y)` inside jit): its rewrite is jax.debug.print in a lax.cond
branch, which JAX 0.10.2 runs as recorded (tests/data/learner_debugging_reference.json,
"print_when": "nan! nan" for f(-1.0), nothing for f(2.0)); its other way, checkify's float
checks, names the operation as JAX's does. No static_argnames fix: a static x would print at
compiles alone."""
import ast
import contextlib
import io
import linecache

import pytest

import jxkernel
from jxkernel.views.error_cards import card_for
from jxkernel.views.error_cards.rewrites import _print_when

from learner_debugging_cases import PRINT_WHEN_CELL, PRINT_WHEN_LINE, print_when  # tests/data
from print_when_pasted_cases import CASES, MARGIN, pasted                         # tests/data
import locations  # tests/support: the repository's folders

JAX = locations.jax_answers("learner_debugging_reference.json")["print_when"]
PASTED = locations.recorded("print_when_pasted_reference.json")["cases"]


def _card(tmp_path, cell, call):
    path = str(tmp_path / "cell.py")        # a file of the learner's: the card reads its `if`
    with open(path, "w") as f:
        f.write(cell + call)
    linecache.checkcache(path)
    namespace = {"jax": jxkernel, "jnp": jxkernel.numpy}
    with pytest.raises(jxkernel.errors.TracerBoolConversionError) as raised:
        exec(compile(cell + call, path, "exec"), namespace)
    return card_for(raised.value)


def test_an_if_that_prints_gets_debug_print_under_cond_which_prints_as_jaxs(tmp_path):
    card = _card(tmp_path, PRINT_WHEN_CELL, "f(-1.0)\n")
    assert card.kind == "bool-conversion"
    first = card.rewrite.splitlines()[0]
    assert first.split("    #")[0] == "    " + PRINT_WHEN_LINE, card.rewrite   # the if's indent
    assert "static" not in card.rewrite and "static" not in card.fix
    assert "jax.debug.print" in card.fix and \
        "checkify.checkify(f, errors=checkify.float_checks)" in card.fix
    # the learner's cell, the fixed cell and checkify's message, under jxkernel, are JAX's
    assert print_when(jxkernel) == JAX
    assert JAX["printed"] == ["nan! nan\n", ""]


def test_an_if_printing_in_both_branches_or_with_fields_keeps_what_print_printed():
    """print's spaces, an f-string's fields (spec and conversion kept), braces doubled."""
    node = ast.parse("if y > 0:\n    print('pos {', y, f'{y:.2f} {y!r}')\n"
                     "else:\n    print('neg')\n    print(y)\n").body[0]
    assert _print_when(node).split("    #")[0] == (
        "lax.cond(y > 0, lambda: jax.debug.print('pos {{ {} {:.2f} {!r}', y, y, y), "
        "lambda: (jax.debug.print('neg'), jax.debug.print('{}', y)))")
    y = jxkernel.numpy.float32(1.5)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print('pos {', y, f'{y:.2f}', 'x')
    # (the format string gives print's text for the same values: str.format's fields)
    assert "pos {{ {} {:.2f} x".format(y, y) == out.getvalue().strip()


@pytest.mark.parametrize("source", [
    "if y > 0:\n    print('pos', file=f)\n",          # a keyword: print's own options
    "if y > 0:\n    print(*ys)\n",                      # starred
    "if y > 0:\n    print('pos')\n    z = 1\n",         # more than printing
])
def test_an_if_doing_more_than_printing_is_not_told_to_debug_print(source):
    assert _print_when(ast.parse(source).body[0]) is None


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_print_when_rewrite_pasted_over_the_if_compiles_and_prints_as_jaxs(name, tmp_path):
    """The rewrite is at the `if`'s indentation (two spaces, a tab, inside a loop) and says it
    replaces all the `if`'s lines: pasted so, the cell compiles (it was unindented: pasted
    into a function's body, the body ended) and prints what JAX 0.10.2 prints for the same
    pasted cell."""
    cell, line, rewrite = CASES[name]
    card = _card(tmp_path, cell, "f(-1.0)\n")
    assert card.rewrite == rewrite, card.rewrite
    source = pasted(cell, line, card.rewrite)
    namespace = {"jax": jxkernel, "jnp": jxkernel.numpy}
    exec(compile(source, str(tmp_path / "pasted.py"), "exec"), namespace)
    printed = []
    for x in (-1.0, 2.0):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            namespace["f"](x)
            jxkernel.effects_barrier()
        printed.append(out.getvalue())
    assert printed == PASTED[name]


def test_the_print_when_rewrite_of_an_if_at_the_margin_compiles(tmp_path):
    """A one-line `if` at the left margin (a %%jit cell's body): the rewrite is at column 0
    and replaces that line; the cell with it pasted compiles."""
    from jxkernel.views.error_cards.rewrites import _branch_rewrite
    cell, line, rewrite = MARGIN
    path = tmp_path / "margin.py"
    path.write_text(cell)
    linecache.checkcache(str(path))
    assert _branch_rewrite({"_path": str(path), "line": line}) == rewrite
    compile(pasted(cell, line, rewrite), "<margin>", "exec")


def test_an_import_led_rewrite_keeps_the_lines_indentation():
    """Where the user's names hold neither `jax` nor `lax`, the rewrite is led by `from jax
    import lax` at its own indentation (at the margin, it ended a function's body)."""
    from jxkernel.views.error_cards.reading import spelled_for

    class Frame:
        f_globals, f_locals = {}, {}
    code = spelled_for("    lax.cond(c, f, g)", Frame())
    assert code == "    from jax import lax\n    lax.cond(c, f, g)"
    compile("def h(c, f, g):\n" + code + "\n", "<h>", "exec")
