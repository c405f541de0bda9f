"""Rewriting the learner's code at a node's place (jxkernel/views/source_edits.py), and the
fixes built on it, on lines holding characters of more than one UTF-8 byte before the node:
ast's columns count bytes, and a fix made by slicing the str there came out garbled
(`α = jax.jit(lambda v: v * 2)(x)` in a loop: `α = jlambda_jitjnp.ones(3))`)."""
import ast

from ipython_shell import ran_failing, ran_ok, shell_fixture  # tests/support
from jxkernel.notebook.notes import key_advice
from jxkernel.views.argument_uses import with_argument
from jxkernel.views.source_edits import after, replaced, segment, span


def _node(code, kind, index=0):
    return [n for n in ast.walk(ast.parse(code)) if isinstance(n, kind)][index]


def test_a_node_after_wide_characters_is_replaced_where_it_is():
    code = "α = f(x, 1.)  # → é"
    assert replaced(code, [(_node(code, ast.Call).args[0], "y")]) == "α = f(y, 1.)  # → é"
    assert segment(code, _node(code, ast.Call)) == "f(x, 1.)"


def test_edits_apply_together_and_insert_after_a_node():
    code = "β = tree.map(lambda p: normal(key, p.shape), params)"
    lam, call = _node(code, ast.Lambda), _node(code, ast.Call)
    draw = _node(code, ast.Call, 1)
    edits = [(after(call.args[-1]), ", keys"), (draw.args[0], "k"), (after(lam.args.args[-1]), ", k")]
    assert replaced(code, edits) == \
        "β = tree.map(lambda p, k: normal(k, p.shape), params, keys)"


def test_a_node_over_several_lines_is_replaced_whole():
    code = "def f(x):\n    ü = g(a,\n          b)\n    return ü\n"
    call = _node(code, ast.Call)
    assert span(call)[0] != span(call)[2]
    assert replaced(code, [(call, "h()")]) == "def f(x):\n    ü = h()\n    return ü\n"
    crlf = code.replace("\n", "\r\n")
    assert replaced(crlf, [(_node(crlf, ast.Call), "h()")]) == \
        "def f(x):\r\n    ü = h()\r\n    return ü\r\n"


def test_the_fixes_keep_the_learners_wide_characters():
    assert with_argument("α = g(x, jnp.array(True))", "flag", 1, "True") == "α = g(x, True)"
    assert key_advice.split_fix("σ = jax.random.normal(key, (3,))", "normal") == \
        ("key", ("key, subkey = jax.random.split(key)", "σ = jax.random.normal(subkey, (3,))"))


shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp")


def test_a_jit_made_in_a_loop_is_hoisted_on_a_line_with_a_greek_name(shell):
    ran = ran_ok(shell, "for i in range(3):\n    α = jax.jit(lambda v: v * 2)(jnp.ones(3))")
    (note,) = ran.shown(" again ×")        # compiled again (XLA), traced again (NumPy)
    assert "α = lambda_jit(jnp.ones(3))    # line 2" in note


def test_an_int_given_to_grad_is_rewritten_a_float_on_a_line_with_a_greek_name(shell):
    ran_ok(shell, "def f(x):\n    return x ** 2")
    ran = ran_failing(shell, "α = jax.grad(f)(3)")
    assert ran.card["rewrite"] == "α = jax.grad(f)(3.0)    # a float input: grad differentiates it"
