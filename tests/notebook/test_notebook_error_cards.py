"""Error cards (jxkernel/views/error_cards/): each error learners hit most, raised in a
real InteractiveShell, gets a card naming the user's line, where the value came from and a
rewrite; the exception stays JAX's class with JAX's message; the shell keeps working."""
import json
import os
import re

import pytest

pytest.importorskip("IPython")

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import errors
from jxkernel.views import error_cards
from error_advice_cases import run as advice_of       # tests/data
import locations  # tests/support: the repository's folders
from ipython_shell import ran_failing, shell_fixture
from registered_library import excluded, import_library

RELU_SUM = ("@jax.jit\ndef relu_sum(x):\n    if x.sum() > 0:\n        return x.sum()\n"
            "    return 0.0\nrelu_sum(jnp.arange(3.0))")

# lax.cond is offered with its condition (JAX: "cond branches must have equal output types")
ONE_BRANCH = ("# or, to run only one branch (both must give the same dtype and shape: cast one "
              "with .astype where they differ):")


shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\nfrom jxkernel import lax\n"
                      "import numpy as np", fresh=True)


def failing(shell, source, raises=None):
    """(the exception, the card's JSON, the card's text, the traceback text the card folds) of
    a cell that fails; the shell must run a cell afterwards. `raises`: (the exception's class,
    how its message starts), checked."""
    ran = ran_failing(shell, source, recovers=True)
    assert len(ran.card_outputs) == 1, [o.keys() for o in ran.outputs]
    exc = ran.error
    if raises is not None:
        assert type(exc) is raises[0]
        assert str(exc).startswith(raises[1]), str(exc)
    return exc, ran.card, ran.card_outputs[0]["text/plain"], ran.card["traceback"]


def test_unhashable_static_object_with_eq_and_no_hash_card(shell):
    """A static config class defining __eq__ without __hash__ (recompile_cases.py's
    static_eq_without_hash: JAX raises ValueError too): the card says to give it a __hash__
    (static_eq_with_hash_fixed, that fix applied, compiles once in JAX); "pass a tuple" or
    "make it traced" cannot work for an object."""
    exc, card, text, _ = failing(
        shell, "class Cfg:\n    def __init__(self, k):\n        self.k = k\n"
               "    def __eq__(self, other):\n        return self.k == other.k\n"
               "jax.jit(lambda v, c: v * c.k, static_argnums=1)(1.0, Cfg(2.0))",
        raises=(ValueError, "Non-hashable static arguments are not supported."))
    assert card["kind"] == "unhashable-static"
    assert "Give Cfg a __hash__" in card["fix"] and "traced" not in card["fix"]
    assert "def __hash__(self):" in card["rewrite"] and "tuple" not in card["fix"]


def test_unhashable_static_dataclass_cards(shell):
    """A plain @dataclass as a static argument (recompile_cases.py's
    static_self_plain_dataclass): frozen=True, not a __hash__ beside an __eq__ it never
    wrote; a frozen one holding an array (static_self_array_field): the array traced, the
    class a registered pytree, not a tuple."""
    _, card, _, _ = failing(
        shell, "import dataclasses\n@dataclasses.dataclass\nclass Cfg:\n    k: float\n"
               "jax.jit(lambda v, c: v * c.k, static_argnums=1)(1.0, Cfg(2.0))",
        raises=(ValueError, "Non-hashable static arguments are not supported."))
    assert card["kind"] == "unhashable-static"
    assert "frozen=True" in card["fix"] and "Give Cfg a __hash__" not in card["fix"]
    assert card["rewrite"].startswith("@dataclasses.dataclass(frozen=True)")
    _, card, _, _ = failing(
        shell, "@dataclasses.dataclass(frozen=True)\nclass Cfg2:\n    w: object\n"
               "jax.jit(lambda v, c: v * c.w, static_argnums=1)(1.0, Cfg2(jnp.ones(2)))",
        raises=(ValueError, "Non-hashable static arguments are not supported."))
    assert card["kind"] == "unhashable-static" and "tuple" not in card["fix"]
    assert card["rewrite"].splitlines()[0].split("    #")[0] == \
        "jax.tree_util.register_dataclass(Cfg2, data_fields=['w'], meta_fields=[])"


def test_bool_conversion_card(shell):
    exc, card, text, tb = failing(shell, "def f(x):\n    y = jnp.sin(x) * 2\n    if y > 0:\n"
                                         "        return x\n    return -x\njax.jit(f)(1.0)",
                                  raises=(errors.TracerBoolConversionError,
                                          "Attempted boolean conversion of traced array with "
                                          "shape bool[]."))
    assert card["kind"] == "bool-conversion" and card["error"] == "TracerBoolConversionError"
    assert card["where"]["code"] == "if y > 0:" and card["where"]["line"] == 3
    assert card["where"]["function"] == "f"
    assert card["called_from"]["code"] == "jax.jit(f)(1.0)"
    origin = card["origin"]
    assert origin["argument"] == "x" and origin["input_type"] == "f32[]"
    assert [s["primitive"] for s in origin["steps"]] == ["sin", "mul", "gt"]
    assert [s["code"] for s in origin["steps"]] == ["y = jnp.sin(x) * 2"] * 2 + ["if y > 0:"]
    cell = card["where"]["file"]                          # In[n], as every line of the card
    assert [s["where"] for s in origin["steps"]] == [f"{cell}, line 2"] * 2 + [f"{cell}, line 3"]
    assert card["rewrite"].splitlines()[:3] == [
        "return jnp.where(y > 0, x, -x)", ONE_BRANCH,
        "return lax.cond(y > 0, lambda: x, lambda: -x)"]
    # the calling line with the jit made static in place (`f = jax.jit(f, ...)` left the
    # line's own `jax.jit(f)` tracing x)
    assert card["rewrite"].endswith("\njax.jit(f, static_argnames=('x',))(1.0)")
    assert "at In[" in text and ", line 3, in f:  if y > 0:" in text
    assert "    argument x: f32[] of f, traced for jit" in text
    assert "----> 3     if y > 0:" in tb and "/jxkernel/" not in tb    # filtered, then the card
    # the message is JAX's whole text (no advice: JAX 0.10.2 has none under jit); the card
    # gives it, from the exception's provenance: branch in the program, or a static argument
    assert str(exc).splitlines()[2:] == [
        "See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError"]
    assert "jnp.where(cond, a, b)" in card["fix"] and "lax.cond(cond" in card["fix"]
    assert "lax.while_loop" in card["fix"] and card["fix"].endswith(
        "Or make the argument static.")


def test_bool_conversion_card_of_a_value_made_from_constants(shell):
    """No argument to name: JAX's message lists the operations that made it a tracer, each
    "from line" of the cell (never ipykernel's file), and the card shows them, escaped."""
    exc, card, text, tb = failing(shell, "def f(x):\n    y = jnp.sin(2.0) * 3.0\n"
                                         "    return x if y > 0 else -x\njax.jit(f)(1.0)",
                                  raises=(errors.TracerBoolConversionError,
                                          "Attempted boolean conversion"))
    cell = card["where"]["file"]
    assert "This value became a tracer due to JAX operations on these lines:" in tb
    assert f"  operation a:f32[] = sin 2.0:f32[]\n    from {cell}, line 2, column 9 (f)" in tb, tb
    assert "ipykernel" not in tb and "<ipython-input" not in tb, tb
    origin = card["origin"]
    assert origin["argument"] is None and origin["input_type"] is None
    assert [(s["primitive"], s["where"]) for s in origin["steps"]] == [
        ("sin", f"{cell}, line 2"), ("mul", f"{cell}, line 2"), ("gt", f"{cell}, line 3")]
    assert "no argument: made from constants by jnp operations in f, traced for jit" in text
    assert "a value f made from constants" in card["why"]
    html = error_cards.render_html(error_cards.card_for(exc))
    assert "return x if y &gt; 0 else -x" in html and "y > 0" not in html


def test_conditional_expression_becomes_where(shell):
    _, card, _, _ = failing(shell, "jax.jit(lambda v: v if v > 0 else -v)(1.0)")
    # the user's line, with the expression rewritten in place
    assert card["rewrite"].splitlines()[0] == "jax.jit(lambda v: jnp.where(v > 0, v, -v))(1.0)"
    # the lambda made static where the line jits it (JAX names its parameters: the case
    # lambda_static_in_place of learner_mistakes_reference.json works under JAX)
    assert card["rewrite"].splitlines()[-1] == \
        "jax.jit(lambda v: v if v > 0 else -v, static_argnames=('v',))(1.0)", card["rewrite"]


def test_conditional_expression_keeps_its_statement(shell):
    # `return x if flag else -x` rewritten as a bare `jnp.where(...)` lost the return: the
    # function, rewritten so, returned None
    _, card, _, _ = failing(shell, "def g(x, flag):\n    return x if flag else -x\n"
                                   "jax.jit(g)(1.0, True)")
    lines = card["rewrite"].splitlines()
    assert lines[:3] == ["return jnp.where(flag, x, -x)", ONE_BRANCH,
                         "return lax.cond(flag, lambda: x, lambda: -x)"], lines
    assert shell.run_cell("def g2(x, flag):\n    return jnp.where(flag, x, -x)\n"
                          "_r = jax.jit(g2)(1.0, True)").success      # the advice, followed
    assert float(shell.user_ns["_r"]) == 1.0
    _, card, _, _ = failing(shell, "def h(x):\n    y = x * 2 if x > 0 else x\n    return y\n"
                                   "jax.jit(h)(1.0)")
    assert card["rewrite"].splitlines()[0] == "y = jnp.where(x > 0, x * 2, x)"


def test_concretization_card(shell):
    # TypeError: JAX 0.10.2's class for a traced shape
    exc, card, text, _ = failing(shell, "def g(x, n):\n    return jnp.zeros(n) + x\n"
                                        "jax.jit(g)(1.0, 3)",
                                 raises=(TypeError,
                                         "Shapes must be 1D sequences of concrete values of "
                                         "integer type, got (JitTracer(~int32[]),)."))
    assert card["kind"] == "concretization"
    assert card["where"]["code"] == "return jnp.zeros(n) + x"
    assert card["origin"]["argument"] == "n" and card["origin"]["steps"] == []
    assert card["rewrite"].splitlines()[0] == "jax.jit(g, static_argnames=('n',))(1.0, 3)"
    assert "argument n: i32[] of g, traced for jit" in text


def test_array_conversion_card(shell):
    exc, card, _, _ = failing(shell, "def h(x):\n    return np.sin(x)\njax.jit(h)(jnp.ones(3))",
                              raises=(errors.TracerArrayConversionError,
                                      "The numpy.ndarray conversion method __array__() was called "
                                      "on traced array with shape float32[3]\n"))
    assert card["kind"] == "array-conversion" and card["where"]["code"] == "return np.sin(x)"
    assert card["origin"]["argument"] == "x"
    assert card["rewrite"].splitlines()[0] == "return jnp.sin(x)"
    # the module by the name the learner imported (jax.numpy), not jxkernel's own
    assert card["fix"].startswith("Use jax.numpy (jnp) on traced values"), card["fix"]
    # the advice is the card's: the message is JAX's alone, its last line the link
    assert "jnp" not in str(exc) and "numpy instead" not in str(exc)
    assert str(exc).splitlines()[-1].endswith("#jax.errors.TracerArrayConversionError")


def test_leaked_tracer_card(shell):
    shell.run_cell("saved = []\ndef k(x):\n    saved.append(x * 2)\n    return x\n"
                   "jax.jit(k)(1.0)")
    exc, card, _, _ = failing(shell, "saved[0] + 1",
                              raises=(errors.UnexpectedTracerError,
                                      "Encountered an unexpected tracer. A function "
                                      "transformed by JAX had a side effect, allowing for a "
                                      "reference to an intermediate value with type float32[] "
                                      "wrapped in a DynamicJaxprTracer to escape the scope of "
                                      "the transformation.\n"))
    assert card["kind"] == "leaked-tracer" and card["where"]["code"] == "saved[0] + 1"
    origin = card["origin"]
    assert origin["function"] == "k" and origin["argument"] == "x"
    assert [(s["primitive"], s["code"]) for s in origin["steps"]] == \
        [("mul", "saved.append(x * 2)")]
    assert "return result, value" in card["rewrite"]
    assert "result, value = jax.jit(k)(x)" in card["rewrite"]


def test_unhashable_static_argument_card(shell):
    exc, card, _, _ = failing(shell, "def s(x, opts):\n    return x * len(opts)\n"
                                     "jax.jit(s, static_argnames='opts')(1.0, opts=[1, 2])",
                              raises=(ValueError,
                                      "Non-hashable static arguments are not supported."))
    assert card["kind"] == "unhashable-static"
    assert card["where"]["code"] == "jax.jit(s, static_argnames='opts')(1.0, opts=[1, 2])"
    assert card["origin"] == {"argument": "opts", "value_type": "list", "value": "[1, 2]",
                              "function": "s"}
    assert card["rewrite"].splitlines()[0] == \
        "jax.jit(s, static_argnames='opts')(1.0, opts=(1, 2))"


def test_vmap_sizes_card(shell):
    exc, card, text, _ = failing(shell, "def add(x, y):\n    return x + y\n"
                                        "ys = jax.vmap(add)(jnp.ones(3), jnp.ones((4, 3)))",
                                 raises=(ValueError,
                                         "vmap got inconsistent sizes for array axes to be "
                                         "mapped:"))
    assert card["kind"] == "vmap-sizes"
    assert card["origin"]["arguments"] == [
        {"name": "x", "axis": 0, "size": 3, "type": "float32[3]"},
        {"name": "y", "axis": 0, "size": 4, "type": "float32[4,3]"}]
    # the in_axes add traces with, fewest arguments moved off their axis: x shared, y's rows
    # ((0, 1) traced too, mapping y by its columns)
    assert card["rewrite"] == \
        "ys = jax.vmap(add, in_axes=(None, 0))(jnp.ones(3), jnp.ones((4, 3)))"
    assert "    y: float32[4,3], mapped along axis 0 (size 4)" in text


def test_vmap_argument_without_the_size_is_not_mapped(shell):
    _, card, _, _ = failing(shell, "ys = jax.vmap(lambda a, b: a * b)(jnp.ones(3), jnp.ones(2))")
    assert card["rewrite"] == "ys = jax.vmap(lambda a, b: a * b, in_axes=(0, None))" \
                              "(jnp.ones(3), jnp.ones(2))"


def test_scan_carry_card(shell):
    exc, card, text, _ = failing(shell, "def body(c, x):\n    return c + x, x\n"
                                        "lax.scan(body, jnp.int32(0), jnp.ones(3))",
                                 raises=(TypeError,
                                         "scan body function carry input and carry output must "
                                         "have "
                                         "equal types, but they differ:"))
    assert card["kind"] == "loop-carry"
    assert card["where"]["code"] == "lax.scan(body, jnp.int32(0), jnp.ones(3))"
    assert card["origin"] == {"loop": "scan", "body": "body", "path": None,
                              "input_type": "int32[]", "output_type": "float32[]",
                              "mismatch": "dtypes"}
    # (the body's own return, cast back: `return new_carry.astype(...), y` named what the
    # body has not; pasted, tests/notebook/test_card_rewrites_pasted.py runs it)
    assert "return (c + x).astype(jnp.int32), x    # in place of return c + x, x" in \
        card["rewrite"].splitlines()
    assert "    body: carry came in as int32[], left as float32[]" in text


def test_jit_cell_shows_the_card(shell):
    shell.user_ns["x"] = 1.0
    exc, card, _, _ = failing(shell, "%%jit\nif x > 0:\n    y = x\nelse:\n    y = -x")
    assert type(exc.original) is errors.TracerBoolConversionError
    assert card["where"]["code"] == "if x > 0:" and card["where"]["line"] == 2
    assert card["origin"]["argument"] == "x"
    assert card["rewrite"].splitlines()[0] == "y = jnp.where(x > 0, x, -x)"
    assert card["rewrite"].splitlines()[-1] == "%%jit --static x"


def test_jaxpr_magic_shows_the_card(shell):
    shell.run_cell("def t(x):\n    return float(x)")
    _, card, _, _ = failing(shell, "%jaxpr t(1.0)")
    assert card["kind"] == "concretization" and card["where"]["code"] == "return float(x)"


def test_other_errors_get_no_card(shell):
    ran = ran_failing(shell, "def h():\n    raise ValueError('mine')\nh()")
    assert str(ran.error) == "mine"
    assert not ran.cards
    assert "----> 2     raise ValueError('mine')" in ran.printed


# ------------------------------------------------------------------ without IPython's shell
def _raise(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError("no error")


def _branchy(x):
    if x > 0 or "<script>" == "":
        return x
    return -x


def test_card_without_a_shell_text_html_and_json():
    card = error_cards.card_for(_raise(jxkernel.jit(_branchy), 1.0))
    line = _branchy.__code__.co_firstlineno + 1
    assert card.where == {"file": "test_notebook_error_cards.py", "line": line,
                          "function": "_branchy", "code": 'if x > 0 or "<script>" == "":'}
    text = repr(card).splitlines()
    assert text[0] == "TracerBoolConversionError: Python control flow on a traced value"
    assert text[1] == "  Attempted boolean conversion of traced array with shape bool[]."
    assert text[2] == (f"  at test_notebook_error_cards.py, line {line}, in _branchy:  "
                       f'if x > 0 or "<script>" == "":')
    assert text[5:7] == ["    argument x: f32[] of _branchy, traced for jit",
                         f"      → gt → bool[]   (test_notebook_error_cards.py:{line}: "
                         f'if x > 0 or "<script>" == "":)']
    assert "  try:" in text and text[-1] == \
        "  see https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError"
    html = card._repr_html_()
    assert "&lt;script&gt;" in html and "<script>" not in html
    bundle = card._repr_mimebundle_()
    assert list(bundle[error_cards.MIME])[0] == "version"
    assert bundle[error_cards.MIME]["version"] == 1
    assert set(bundle) == {"text/plain", "text/html", error_cards.MIME}


def test_provenance_through_grad_and_vmap():
    def f(x):
        return jnp.where(jnp.cos(x) > 0, x, -x) if jnp.sum(x) > 0 else x
    card = error_cards.card_for(_raise(jxkernel.jit(jxkernel.vmap(f)), jnp.ones(3)))
    assert card.origin["argument"] == "x" and card.origin["input_type"] == "f32[3]"
    assert [s["primitive"] for s in card.origin["steps"]][-1] == "gt"
    card = error_cards.card_for(_raise(jxkernel.jit(jxkernel.grad(f)), 1.0))
    assert card.origin["argument"] == "x"


def test_a_library_registered_with_source_info_is_not_the_cards_line(tmp_path):
    # the card's line is the one JAX's equations record: source_info_util's list decides it
    lib = import_library(tmp_path)

    def user(x):
        return jxkernel.jit(lib.branch)(x)

    called = user.__code__.co_firstlineno + 1
    before = jxkernel.config.jax_traceback_filtering
    # the notebook's mode: the library's frames stay in the traceback, marked
    jxkernel.config.update("jax_traceback_filtering", "tracebackhide")
    try:
        where = error_cards.card_for(_raise(user, 1.0)).where
        assert (where["file"], where["line"]) == (os.path.basename(lib.__file__), 2), where
        with excluded(lib.__file__, tracebacks=False):
            where = error_cards.card_for(_raise(user, 1.0)).where
    finally:
        jxkernel.config.update("jax_traceback_filtering", before)
    assert (where["file"], where["line"], where["function"]) == (
        "test_notebook_error_cards.py", called, "user"), where


def test_a_registered_library_in_a_cell_s_card_and_its_traceback(shell, tmp_path):
    shell.user_ns["lib"] = lib = import_library(tmp_path)
    _, card, _, traceback = failing(shell, "jax.jit(lib.branch)(1.0)")
    # the library's frame, shown as IPython shows a frame (its line, not only its file name,
    # which the message says too)
    assert card["where"]["file"] == os.path.basename(lib.__file__)
    assert "----> 2     if x > 0:" in traceback, traceback
    with excluded(lib.__file__):     # as a library registers itself with both lists
        _, card, _, traceback = failing(shell, "jax.jit(lib.branch)(1.0)")
    assert card["where"]["file"].startswith("In[") and card["where"]["line"] == 1, card
    assert "if x > 0:" not in traceback and "----> 1 jax.jit(lib.branch)(1.0)" in traceback


def test_unknown_errors_have_no_card():
    assert error_cards.card_for(ValueError("mine")) is None
    assert error_cards.card_for(TypeError("unsupported operand")) is None


def test_a_string_given_to_a_jnp_function_gets_no_static_card():
    # jnp.sum("a") and jnp.dot(x, "a") raise the error of the jit JAX runs them under (named
    # _reduce_sum, dot): there is no argument of the user's to mark static, so no card
    for call in (lambda: jnp.sum("a"), lambda: jnp.dot(jnp.ones(2), "a")):
        with pytest.raises(TypeError, match="^Error interpreting argument to <function") as e:
            call()
        assert error_cards.card_for(e.value) is None
    with pytest.raises(TypeError) as e:
        jxkernel.jit(lambda x, name: x)(1.0, "a")
    assert error_cards.card_for(e.value).kind == "not-an-array"


def test_jaxpr_of_an_expression_shows_the_card(shell):
    shell.user_ns["x"] = 1.0
    _, card, _, _ = failing(shell, "%jaxpr int(x) + 1")
    assert card["kind"] == "concretization" and card["origin"]["argument"] == "x"
    assert card["where"]["code"] == "int(x) + 1"


def test_branch_in_a_loop_body_names_its_input(shell):
    exc, card, text, _ = failing(shell, "def body(c, x):\n    if x > 0:\n        c = c + x\n"
                                      "    else:\n        c = c - x\n    return c, x\n"
                                      "lax.scan(body, 0.0, jnp.ones(3))")
    origin = card["origin"]
    assert (origin["function"], origin["transformation"]) == ("body", "scan")    # JAX: "traced for scan"
    # named by the body's parameter, as JAX names it (tracer_origin_reference.json's
    # scan_body_argument: "depends on the value of the argument x")
    assert origin["argument"] == "x" and origin["input_index"] == 1    # (c, x): x
    assert [s["primitive"] for s in origin["steps"]] == ["gt"]
    assert card["rewrite"] == (f"c = jnp.where(x > 0, c + x, c - x)\n{ONE_BRANCH}\n"
                               "c = lax.cond(x > 0, lambda: c + x, lambda: c - x)")
    assert "    argument x: f32[] of body, traced for scan" in text
    # a loop body's input cannot be static: the card keeps it traced (the message advises
    # nothing, as JAX's)
    assert "static" not in card["fix"] + card["rewrite"]
    assert "Attempted boolean conversion" in exc.args[0] and "lax.cond" not in exc.args[0]


# ------------------------------------------------------------------ static only for Python values
def test_the_messages_advise_as_jax_does():
    """JAX 0.10.2's error and advice (reference/make_error_advice_reference.py): no static
    argument for a value computed from an array, `x.astype(int)` for int() of one, static for
    a size from an int argument, and its words for jnp.array of strings."""
    assert advice_of(jxkernel) == locations.recorded("error_advice_reference.json")


def test_no_static_argument_for_an_array(shell):
    _, card, text, _ = failing(shell, RELU_SUM)
    assert card["origin"]["input_type"] == "f32[3]"
    assert "static_argnames" not in card["rewrite"] and "--static" not in card["rewrite"]
    assert card["rewrite"].splitlines() == [
        "return jnp.where(x.sum() > 0, x.sum(), 0.0)", ONE_BRANCH,
        "return lax.cond(x.sum() > 0, lambda: x.sum(), lambda: 0.0)"]
    assert "Or make the argument static" not in card["fix"]
    assert "x is an array (f32[3]): it cannot be a static argument" in card["fix"]
    _, card, _, _ = failing(shell, "def count(x):\n    return jnp.zeros(3) + int(x.sum())\n"
                                   "jax.jit(count)(jnp.arange(3.0))")
    assert card["kind"] == "concretization" and "static" not in card["rewrite"]
    assert "return jnp.zeros(3) + x.sum().astype(int)   # instead of int(x.sum()): traced, an " \
        "array of int dtype" in card["rewrite"].splitlines()
    assert "make the argument static" not in card["fix"].lower()
    # a leaf of a dict argument: the dict would have to be static, and a dict is unhashable
    _, card, _, _ = failing(shell, "def k(p):\n    if p['w'] > 0:\n        return p['w']\n"
                                   "    return -p['w']\njax.jit(k)({'w': 1.0})")
    assert card["origin"]["argument"] == "p['w']" and "static" not in card["rewrite"]


def test_static_argument_for_a_python_scalar_still_offered(shell):
    _, card, _, _ = failing(shell, "def twice(x, n):\n    return jnp.zeros(n) + x\n"
                                   "jax.jit(twice)(jnp.ones(2), 3)")
    assert card["rewrite"].splitlines()[0] == \
        "jax.jit(twice, static_argnames=('n',))(jnp.ones(2), 3)"


POWER = ("def power(x, n):\n    result = jnp.ones_like(x)\n    for _ in range(n):\n"
         "        result = result * x\n    return result\n")


def test_leaked_tracer_from_a_loop_body_rewrites_the_loop(shell):
    # a fori_loop body (a lambda) appending its index to a list: the rewrite was
    # `def <lambda>(x): ...` and `jax.jit(<lambda>)(x)`, which do not parse; the value goes
    # out through the loop's state instead. JAX says the body was traced "for fori_loop"
    exc, card, _, _ = failing(shell, "def collect(n):\n    out = []\n"
                                     "    lax.fori_loop(0, n, lambda i, c: out.append(i) or c, 0)\n"
                                     "    return out\njax.jit(collect)(3)",
                              raises=(errors.UnexpectedTracerError, "Encountered an unexpected"))
    assert card["kind"] == "leaked-tracer" and card["origin"]["transformation"] == "fori_loop"
    assert "<lambda>" not in card["rewrite"] and "lax.fori_loop(lower, upper, body" in \
        card["rewrite"]
    code = card["rewrite"].split("\n\n")[0].replace("...", "carry, value = state")
    compile(code, "<rewrite>", "exec")            # it parses


def test_static_rewrite_of_a_decorated_def_indents_the_line_in_its_body(shell):
    # `@jax.jit def f(x, n): for i in range(n)`: the static alternative rewrites the decorator
    # and the def, after which the failing line belongs in the body, indented
    _, card, _, _ = failing(shell, "@jax.jit\ndef dbl(x, n):\n    for i in range(n):\n"
                                   "        x = x * 2\n    return x\ndbl(jnp.ones(2), 3)")
    lines = card["rewrite"].splitlines()
    at = lines.index("def dbl(x, n):")
    assert lines[at + 1:at + 3] == ["    # then this line sees a Python value:",
                                    "    for i in range(n):"], lines


def test_static_rewrite_rebinds_the_name_the_learner_calls(shell):
    # `power_jit = jax.jit(power)` then `power_jit(x, 3)`: the card said
    # `power = jax.jit(power, static_argnames=('n',))`, after which power_jit(x, 3) still fails
    _, card, _, _ = failing(shell, POWER + "power_jit = jax.jit(power)\n"
                                           "power_jit(jnp.array([2.0, 3.0]), 3)")
    # (first the loop as lax.fori_loop, whose bounds may be traced: no static needed)
    assert card["rewrite"].splitlines()[0].startswith(
        "result = lax.fori_loop(0, n, lambda _, result: result * x, result)")
    assert card["rewrite"].splitlines()[2] == \
        "power_jit = jax.jit(power, static_argnames=('n',))"
    # jax.jit(power)(x, 3) on the line: the fix goes in place
    _, card, _, _ = failing(shell, "jax.jit(power)(jnp.array([2.0, 3.0]), 3)")
    assert card["rewrite"].splitlines()[2] == \
        "jax.jit(power, static_argnames=('n',))(jnp.array([2.0, 3.0]), 3)"
    # calling the function's own name, the jit already: made again from what it wraps
    # (`power = jax.jit(power, ...)` pasted below it jitted the jit, which still traced n)
    _, card, _, _ = failing(shell, "power = jax.jit(power)\npower(jnp.array([2.0, 3.0]), 3)")
    assert card["rewrite"].splitlines()[2] == \
        "power = jax.jit(power.__wrapped__, static_argnames=('n',))    # power is the jit " \
        "already: made again from the function it wraps"


def test_static_rewrite_of_a_jit_called_inside_another_function(shell):
    _, card, _, _ = failing(shell, POWER + "cube = jax.jit(power)\n"
                                           "def volume(x):\n    return cube(x, 3)\n"
                                           "volume(jnp.array([2.0]))")
    # the line calling the jit is `return cube(x, 3)`, not the cell's `volume(...)` (which the
    # card shows as "called from"): cube is rebound, volume is not
    assert card["rewrite"].splitlines()[2] == "cube = jax.jit(power, static_argnames=('n',))"


def test_unhashable_static_rewrite_names_the_jit_called(shell):
    # an Array made static by position: the rewrite named `power` and only static_argnames
    _, card, _, _ = failing(shell, POWER + "power_jit = jax.jit(power, static_argnums=0)\n"
                                           "power_jit(jnp.array([2.0, 3.0]), 3)")
    assert card["kind"] == "unhashable-static"
    assert card["rewrite"].splitlines()[0] == "power_jit = jax.jit(power)   # x traced"
    assert "power only computes with it" in card["fix"]
    # the array's type as the learner knows it, not jxkernel's class path
    assert card["origin"]["value_type"] == "jax.Array"
    assert "an array (jax.Array) is not" in card["why"]
    assert "jxkernel." not in json.dumps([card[k] for k in ("why", "fix", "rewrite", "origin")])


def test_loop_carry_rewrites_that_can_work(shell):
    # a scan carry grown by jnp.append: `return new_carry.sum(), y` was advised (shape ())
    _, card, _, _ = failing(shell, "def grow_step(c, x):\n    return jnp.append(c, x), c.sum()\n"
                                   "lax.scan(grow_step, jnp.zeros(1), jnp.arange(3.0))")
    # (the carry under grow_step's own name for it: `return carry, x` raised a NameError)
    assert ".sum()" not in card["rewrite"] and "\nreturn c, x " in card["rewrite"]
    assert "start it with the shape" not in card["rewrite"]     # it would grow from there too
    # a while_loop body returns its carry alone (no `, y`), and a leaf of it is named
    _, card, _, _ = failing(shell, "def halve(state):\n    i, v = state\n"
                                   "    return i + 1, (v / 2).astype(jnp.int32)\n"
                                   "lax.while_loop(lambda s: s[0] < 3, halve, (0, jnp.ones(2)))")
    assert card["origin"]["path"] == "[1]" and ", y" not in card["rewrite"]
    assert card["rewrite"].splitlines()[1] == \
        "return i + 1, (v / 2).astype(jnp.int32).astype(jnp.float32)    # in place of " \
        "return i + 1, (v / 2).astype(jnp.int32)"


# ------------------------------------------------------------------ an array made static
def _advice_reference():
    return locations.recorded("error_advice_reference.json")


def test_an_array_static_in_an_if_is_passed_as_its_python_value(shell):
    """`if flag` needs a Python value: traced it raises (JAX: TracerBoolConversionError), so
    the card passes flag's value, True (JAX: works), not `tuple(flag.tolist())` (JAX:
    TypeError for a 0-d array) nor the jit without static (which raises)."""
    jax_says = _advice_reference()
    assert jax_says["static_array_0d_item"] is None
    assert jax_says["static_array_0d_traced_in_if"]["error"] == "TracerBoolConversionError"
    assert jax_says["static_array_0d_tuple_of_tolist"]["error"] == "TypeError"
    _, card, _, _ = failing(shell, "def signed(x, flag):\n    return x if flag else -x\n"
                                   "jax.jit(signed, static_argnums=1)(jnp.ones(2), "
                                   "jnp.array(True))", raises=(ValueError, "Non-hashable"))
    assert "needs flag as a Python value (an `if`" in card["fix"], card["fix"]
    assert card["rewrite"] == "jax.jit(signed, static_argnums=1)(jnp.ones(2), True)"
    assert shell.run_cell("_r = " + card["rewrite"]).success          # the advice, applied


def test_an_array_static_as_a_shape_in_a_lambda_is_passed_as_a_tuple(shell):
    jax_says = _advice_reference()
    assert jax_says["static_array_1d_tuple"] is None
    line = "jax.jit(lambda x, s: jnp.zeros(s) + x, static_argnums=1)(1.0, jnp.array([2, 3]))"
    _, card, _, _ = failing(shell, line, raises=(ValueError, "Non-hashable"))
    assert "<lambda>" not in card["rewrite"], card["rewrite"]         # code that runs
    assert card["rewrite"] == line.replace("jnp.array([2, 3])", "(2, 3)")
    assert shell.run_cell("_r = " + card["rewrite"]).success
    assert shell.user_ns["_r"].shape == (2, 3)


def test_an_array_static_only_computed_with_is_traced(shell):
    _, card, _, _ = failing(shell, "def scaled(x, w):\n    return x * w.sum()\n"
                                   "jax.jit(scaled, static_argnums=1)(jnp.ones(2), "
                                   "jnp.arange(3.0))", raises=(ValueError, "Non-hashable"))
    assert "only computes with it" in card["fix"], card["fix"]
    assert card["rewrite"].splitlines()[0].startswith(
        "jax.jit(scaled)(jnp.ones(2), jnp.arange(3.0))"), card["rewrite"]
    assert shell.run_cell("_r = jax.jit(scaled)(jnp.ones(2), jnp.arange(3.0))").success


def test_the_static_alternative_passes_a_python_value_not_an_array(shell):
    """`jax.jit(signed)(x, jnp.array(True))` raises at the `if`; the card's static
    alternative passes True: the array itself, static, is unhashable (JAX: ValueError), its
    value works (JAX: static_array_0d_item)."""
    assert _advice_reference()["static_array_0d_item"] is None
    _, card, _, _ = failing(shell, "def signed(x, flag):\n    return x if flag else -x\n"
                                   "jax.jit(signed)(jnp.ones(2), jnp.array(True))")
    static = card["rewrite"].splitlines()[-1]
    assert static == "jax.jit(signed, static_argnames=('flag',))(jnp.ones(2), True)", static
    assert shell.run_cell("_r = " + static).success


def test_a_traced_if_offers_static_for_a_python_scalar_only():
    """jit knows which arguments came as Python scalars: for a 0-d array the card offers no
    static argument, for a Python bool it does, and making it static works (JAX:
    static_array_0d_item); the messages are JAX's alone, neither offering it."""
    assert _advice_reference()["static_array_0d_traced_in_if"]["suggests_static"] is False
    assert _advice_reference()["static_array_0d_item"] is None

    def signed(x, flag):
        return x if flag else -x
    with pytest.raises(errors.TracerBoolConversionError) as array:
        jxkernel.jit(signed)(jnp.ones(2), jnp.array(True))
    with pytest.raises(errors.TracerBoolConversionError) as python:
        jxkernel.jit(signed)(jnp.ones(2), True)
    assert "static" not in str(array.value) and "static" not in str(python.value)
    assert "static" not in error_cards.card_for(array.value).fix
    assert error_cards.card_for(python.value).fix.endswith("Or make the argument static.")
    assert array.value.provenance["input_kind"] == "array"
    assert python.value.provenance["input_kind"] == "python"
    assert jxkernel.jit(signed, static_argnums=1)(jnp.ones(2), True).tolist() == [1.0, 1.0]


def test_the_static_alternative_passes_a_named_arrays_value(shell):
    _, card, _, _ = failing(shell, "def signed(x, flag):\n    return x if flag else -x\n"
                                   "flag = jnp.array(False)\n"
                                   "jax.jit(signed)(jnp.ones(2), flag)")
    static = card["rewrite"].splitlines()[-1]
    assert static == "jax.jit(signed, static_argnames=('flag',))(jnp.ones(2), flag.item())"
    assert shell.run_cell("_r = " + static).success
    assert shell.user_ns["_r"].tolist() == [-1.0, -1.0]


@pytest.mark.parametrize("imports, spelled", [
    ("import jxkernel as jax, jxkernel.numpy as jnp", "jax.lax.cond"),   # no lax: jax.lax
    ("import jxkernel as jax, jxkernel.numpy as jnp\nfrom jxkernel import lax", "lax.cond")])
def test_a_rewrite_names_lax_as_the_learners_names_reach_it(tmp_path, imports, spelled):
    """The card's lax.cond, pasted in place of the learner's `if`, runs where the learner has
    `jax` but no `lax` (the JIT tutorial's `import jax, jax.numpy as jnp`): it said
    `lax.cond(...)`, a NameError there; JAX 0.10.2 runs `jax.lax.cond(x > 0, lambda: x,
    lambda: 0.0)` of relu(3.0) and relu(-2.0) as 3.0 and 0.0 (checked by hand)."""
    path = tmp_path / "relu_model.py"
    body = "@jax.jit\ndef relu(x):\n    if x > 0:\n        return x\n    return 0.0\n"
    path.write_text(f"{imports}\n{body}")
    names = {"__name__": "relu_model"}
    exec(compile(path.read_text(), str(path), "exec"), names)
    with pytest.raises(errors.TracerBoolConversionError) as raised:
        names["relu"](3.0)
    card = error_cards.card_for(raised.value)
    branch = [line for line in card.rewrite.splitlines() if "lax.cond(" in line]
    assert branch == [f"return {spelled}(x > 0, lambda: x, lambda: 0.0)"]
    # pasted over the `if` and its two returns: one branch taken, either way
    fixed = body.replace("    if x > 0:\n        return x\n    return 0.0\n",
                         f"    {branch[0]}\n")
    exec(compile(f"{imports}\n{fixed}", str(tmp_path / "fixed.py"), "exec"), names)
    assert (float(names["relu"](3.0)), float(names["relu"](-2.0))) == (3.0, 0.0)


def test_a_jitted_lambda_given_a_string_gets_a_rewrite_that_runs(shell):
    """A string passed to the jit of a lambda bound to a name (`jax.jit(f)("abc")`, or
    `g = jax.jit(lambda c: ...)` then `g("abc")`): the static fix names what the line names
    (`f`, `g.__wrapped__`); it wrote `<lambda> = jax.jit(<lambda>, ...)`, which does not parse.
    Each rewrite pasted runs (JAX 0.10.2 takes a string static by name)."""
    assert shell.run_cell("_f = lambda c: 1.0\n_g = jax.jit(lambda c: 2.0)").success
    _, card, _, _ = failing(shell, 'jax.jit(_f)("abc")')
    assert card["rewrite"] == "jax.jit(_f, static_argnames=('c',))('abc')", card["rewrite"]
    assert shell.run_cell("_r = " + card["rewrite"]).success and shell.user_ns["_r"] == 1.0
    _, card, _, _ = failing(shell, '_g("abc")')
    assert card["rewrite"] == "_g = jax.jit(_g.__wrapped__, static_argnames=('c',))"
    assert shell.run_cell(card["rewrite"] + '\n_r = _g("abc")').success
    assert shell.user_ns["_r"] == 2.0


@pytest.mark.tells_a_bug
def test_a_card_made_but_failing_to_draw_is_no_card_and_told(shell, monkeypatch):
    """A card built without a field its kind's text reads (a loop-carry card without its
    origin's body, as a new card of stop 124 was first written) raised KeyError inside
    IPython's display, whose traceback of our renderer the learner saw twice over JAX's
    error. The card is drawn where it is made now: failing there, it is no card, told once."""
    from IPython.utils.capture import capture_output
    from jxkernel.core import told_bugs
    from jxkernel.notebook import tracebacks
    from jxkernel.views.error_cards.card import ErrorCard

    def undrawable(exc):
        return ErrorCard("loop-carry", "a title", why="", fix="", rewrite="", origin={})
    monkeypatch.setattr(tracebacks, "card_for", undrawable)
    before = told_bugs.last_serial()
    with capture_output() as shown, pytest.warns(RuntimeWarning) as told:
        result = shell.run_cell(RELU_SUM, store_history=True)
    assert isinstance(result.error_in_exec, errors.TracerBoolConversionError)
    (warned,) = [w for w in told if "card" in str(w.message)]
    assert "(it raised KeyError: 'body')" in str(warned.message)
    assert "render_text" not in shown.stdout + shown.stderr      # no renderer's traceback
    (bug,) = told_bugs.told_since(before)
    assert bug.error == "KeyError"


@pytest.mark.tells_a_bug
def test_a_card_that_raises_while_drawn_is_kept_for_the_tests(shell, monkeypatch):
    """A drawing bug of ours shows the learner JAX's traceback, no card, and one line saying
    the card is missing by a bug of jxkernel's (the shell keeps going); it is kept in
    core/told_bugs.py, which tests/support's run_cell and bugs_met read, so that every card
    test fails on it (PRNG-key branch cards raised so, unseen)."""
    from IPython.utils.capture import capture_output
    from jxkernel.core import told_bugs
    from jxkernel.notebook import tracebacks

    def broken(exc):
        raise KeyError("a bug of ours while drawing")
    monkeypatch.setattr(tracebacks, "card_for", broken)
    before = told_bugs.last_serial()
    with capture_output() as shown, pytest.warns(RuntimeWarning) as told:
        result = shell.run_cell(RELU_SUM, store_history=True)
    assert isinstance(result.error_in_exec, errors.TracerBoolConversionError)
    (warned,) = [w for w in told if "card" in str(w.message)]
    assert str(warned.message) == ("jxkernel could not make the card for this TracerBoolConversionError (it "
                    "raised KeyError: 'a bug of ours while drawing'). The error is shown as JAX "
                    "gives it; only the card is missing. This is a bug in jxkernel: please "
                    "report it with the cell and what %jxbugs shows.")
    # the cell's innermost line the error came through (the `if`), none of jxkernel's files;
    # it named the next cell (the shell's count, already moved on) at line 1
    assert (warned.filename, warned.lineno) == (f"In[{result.execution_count}]", 3)
    assert "TracerBoolConversionError" in shown.stdout + shown.stderr
    (bug,) = told_bugs.told_since(before)
    assert bug.error == "KeyError" and "a bug of ours while drawing" in bug.traceback
    assert bug.message == str(warned.message)
    # what the warning says to send: %jxbugs, with the traceback and where to report it
    report = shell.run_line_magic("jxbugs", "")
    assert re.fullmatch(r"\d+ bug\(s\) of jxkernel's own told in this session( \(the last "
                        r"\d+\))?: please report them at https://github.com/jxkernel/jxkernel/"
                        r"issues, with the cells that ran and this text", report.title)
    # (the traceback holds the learner's error it was drawing for, the cell named as the
    # prompt names it, not as IPython's file)
    assert f"{bug.message}\n{tracebacks.name_cells(bug.traceback)}" in report.body
    assert "KeyError: 'a bug of ours while drawing'" in report.body
    assert "TracerBoolConversionError" in report.body and "In[" in report.body
    assert "\njxkernel: " in report.body and "\njaxlib: " in report.body     # the versions
    assert shell.run_cell("_ok = 1 + 1").success


def test_a_card_whose_fix_is_in_words_shows_no_empty_code():
    """A card with no rewrite (its fix in words alone: a NaN gradient's norm divided, a
    library's own error) printed a bare "try:" in text and an empty code box in HTML; the
    lab extension's view shows no rewrite section for it. With a rewrite, both show it."""
    from jxkernel.views.error_cards.card import ErrorCard, render_html, render_text
    card = ErrorCard(kind="demo", title="a title", why="because", fix="Do this in words.",
                     rewrite="")
    text, html = render_text(card), render_html(card)
    assert text.splitlines()[-1] == "  fix: Do this in words." and "try:" not in text
    assert "jx-rewrite" not in html and "<pre" not in html
    card = ErrorCard(kind="demo", title="a title", why="because", fix="Do it.",
                     rewrite="x = x.at[0].set(1)")
    assert render_text(card).splitlines()[-2:] == ["  try:", "    x = x.at[0].set(1)"]
    assert "<pre class='jx-rewrite'" in render_html(card)


def test_jxbugs_says_so_where_no_bug_was_told(shell, monkeypatch):
    from jxkernel.core import told_bugs
    monkeypatch.setattr(told_bugs, "told", type(told_bugs.told)(maxlen=20))
    assert repr(shell.run_line_magic("jxbugs", "")) == \
        "jxkernel has told no bug of its own in this session."
