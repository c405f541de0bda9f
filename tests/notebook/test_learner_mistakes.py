"""Learners' mistakes in a notebook, each checked against what JAX 0.10.2 says for the same
program (tests/data/learner_mistakes_reference.json, recorded by
reference/make_learner_mistakes_reference.py): the message is JAX's, the traceback ends at
the user's lines, and every fix a card advises works under JAX too."""
import copy
import functools
import json
import re
import warnings

import pytest

pytest.importorskip("IPython")

from IPython.utils.capture import capture_output

import jxkernel
import jxkernel.numpy as jnp
import numpy as np
from jxkernel.views import error_cards
from learner_mistakes_cases import (  # tests/data
    APART, ARRAY_AS_DTYPE, AUTODIFF_CALLS, CARD_OTHER_FIXES, CARD_PATTERNS, CARD_PROGRAMS,
    JAX_ADVICE, STATIC_JIT_ABOVE,
    CARD_REWRITES,
    CARD_SETUP, CARD_WORDS, CONV_LAYOUTS, DEVICE_INDICES, DEVICE_NAMES, DRAW_NOTES,
    FLOATS_ONLY, FORI_FLOAT_BOUNDS, IMAGE_SHAPES, IN_AXES_KEYS, IN_PLACE, JOIN_ARGUMENTS,
    KEY_PLACES,
    KEYWORD_OPTIONS, LIST_ARGUMENTS, MATMUL_TO_GRAD,
    METHOD_PYTREE_FIX, MISSING_KEYS, NESTED_ITEMS, NOT_ARRAYS, NUMPY1_NAMES, NUMPY_RANDOM, ONE_HOT,
    OPERAND_SHAPES, RANDOM_REWRITES, SCAN_CARRIES, SHUFFLED, SOLVE_SHAPES, SPLIT_COUNTS,
    SHAPE_ARGUMENTS, SHAPE_ARGUMENTS_SAID, SQUARE_MATRICES, SQUARE_ONLY, STATE_CLASSES,
    STATIC_DICTS,
    SWITCH_PER_ELEMENT, TEXT_LEAVES, TORCH_HABITS,
    TORCH_HABITS_TRACED, TORCH_SETUP, TREE_ARITHMETIC, TREE_MAP_ARGUMENTS, UPDATE_SHAPES,
    VMAP_RANKS, WHERE_OF_TWO, _TREES, _unplaced, run as facts_of, split_count_keys)
import locations  # tests/support: the repository's folders
from numerics import assert_allclose_ulp
from ipython_shell import ran_failing, ran_ok, shell_fixture
from note_words import here  # tests/support

JAX = locations.recorded("learner_mistakes_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)


@functools.cache
def _facts() -> dict:
    facts = facts_of(jxkernel)
    # the cases ran outside any cell, and one changes a global its jitted function read (a
    # leaked tracer's list): the next cell's stale-value note tells it, which a test's cell
    # expecting its own note alone then showed too, in whichever test ran the cases first in
    # its process; a cell run now takes that note
    from IPython.core.interactiveshell import InteractiveShell
    if InteractiveShell.initialized():
        InteractiveShell.instance().run_cell("pass", store_history=False)
    return facts


def our_facts() -> dict:
    """The cases run under jxkernel (learner_mistakes_cases.run), once per test process: four
    tests compare them with JAX's, and each run traced and compiled them all again. A copy:
    a test may edit its own."""
    return copy.deepcopy(_facts())


def shown(shell, source):
    """(what the shell printed, colours removed, the card's JSON or None) for a failing cell;
    the shell must still run a cell afterwards."""
    ran = ran_failing(shell, source, recovers=True)
    return ran.printed, ran.card


def test_the_cases_say_what_jax_says():
    """The same programs under jxkernel: JAX's errors, classes and first lines."""
    ours = our_facts()
    for case in JAX:
        if case.startswith(APART):        # recorded apart from `run`: their own tests
            continue
        if case.startswith("nprandom_") and not case.endswith("_fixed"):   # our module's name
            ours[case]["first_line"] = ours[case]["first_line"].replace("jxkernel.", "jax.")
        drawn = case.startswith(("nprandom_", "card_random_")) and case.endswith("_fixed")
        if drawn and np.asarray(JAX[case]).dtype.kind == "f":   # normal's erfinv: 4 ulps
            assert_allclose_ulp(np.asarray(ours[case], np.float32),
                                np.asarray(JAX[case], np.float32), 4, err_msg=case)
        else:
            assert ours[case] == JAX[case], case


def test_attribute_error_on_a_tracer_ends_at_the_users_line(shell):
    text, card = shown(shell, "def typo(x):\n    return x.foo\njax.jit(typo)(1.0)")
    assert JAX["attribute_of_tracer"]["first_line"] in text, text
    assert "----> 2     return x.foo" in text, text
    assert "/jxkernel/" not in text, text               # none of jit's frames, as JAX


def test_users_own_error_in_a_jitted_function_ends_at_the_users_line(shell):
    text, _ = shown(shell, "def lookup(x):\n    return {'a': x}['b']\njax.jit(lookup)(1.0)")
    assert "KeyError" in text and "----> 2     return {'a': x}['b']" in text, text
    assert "/jxkernel/" not in text, text


def test_an_error_outside_jxkernel_is_ipythons(shell):
    text, card = shown(shell, "d = {}\nd['b']")
    assert card is None and "KeyError" in text and "----> 2 d['b']" in text, text


def test_a_read_only_array_of_numpys_own_gets_no_view_card(shell):
    """The readonly-view card is for a NumPy view of a JAX array (np.asarray's, device_get's:
    CARD_PROGRAMS' readonly_ cases); np.broadcast_to's read-only array, written, is NumPy's
    own error, shown as IPython shows it."""
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.views.error_cards.readonly_views")
    text, card = shown(shell, "import numpy as np\n_c = np.broadcast_to(np.arange(3), (2, 3))\n"
                              "_c[0, 0] = 5")
    assert card is None and "assignment destination is read-only" in text, text


def test_unhashable_static_advice_says_when_traced_can_work(shell):
    # a list used as a shape: the tuple works (JAX: no error), tracing it does not (JAX:
    # "Shapes must be 1D sequences of concrete values"), so tracing is offered with its condition
    assert JAX["static_list_as_tuple"] is None
    assert JAX["static_list_traced"]["first_line"].startswith("Shapes must be 1D sequences")
    text, card = shown(shell, "def zeros(x, shape):\n    return jnp.zeros(shape) + x\n"
                              "jax.jit(zeros, static_argnums=1)(1.0, [2, 3])")
    assert card["rewrite"].splitlines()[0] == "jax.jit(zeros, static_argnums=1)(1.0, (2, 3))"
    assert "never as a shape, a size or a loop count" in card["rewrite"], card["rewrite"]
    assert "a shape, a size or a loop count must stay static" in card["fix"], card["fix"]
    assert "holds numbers" not in card["rewrite"]
    # the message is JAX's alone (folded in the card): the advice is the card's
    assert "(never uses it as a shape, a size or a loop count)" not in card["traceback"]
    assert card["traceback"].rstrip().endswith(
        "An error occurred while trying to hash an object of type <class 'list'>, [2, 3]. The "
        "error was:\nTypeError: unhashable type: 'list'")


def test_item_of_a_tracer_is_not_advised_static(shell):
    # JAX: made static, x is a Python float, and a float has no .item()
    assert JAX["item_made_static"] == {"error": "AttributeError",
                                       "first_line": "'float' object has no attribute 'item'"}
    assert JAX["item_dropped"] is None
    text, card = shown(shell, "def item(x):\n    return x.item()\njax.jit(item)(1.0)")
    assert card["kind"] == "concretization"
    assert "static_argnames" not in card["rewrite"], card["rewrite"]
    assert card["rewrite"] == "return x   # the array itself, traced: no .item()", card["rewrite"]
    assert shell.run_cell("jax.jit(lambda x: x)(1.0)").success     # the advice, followed


def test_float64_warning_names_the_users_line(shell):
    assert JAX["float64_warning"]["at_caller"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert shell.run_cell("x64 = jnp.array([1.0], dtype=jnp.float64)").success
    (w,) = [w for w in caught if "float64" in str(w.message)]
    assert "/IPython/" not in w.filename and "/jxkernel/" not in w.filename, w.filename


def test_a_magics_usage_error_stays_one_line(shell):
    # a UsageError goes through jxkernel's %%jit: IPython's one line, not a traceback of
    # IPython's rewrite of the cell (`get_ipython().run_cell_magic('jit', ...)`)
    text, card = shown(shell, "%%jit\nsx = jnp.ones(3)\nsy = sx +")
    assert card is None and text.startswith("UsageError: %%jit: the cell is not valid Python"), text
    assert "run_cell_magic" not in text and "Traceback" not in text, text


DECORATED = ("@jax.jit\ndef count(n):\n    total = 0\n    for i in range(n):\n"
             "        total += i\n    return total\ncount(5)")


def test_static_advice_for_a_decorated_function_rewrites_its_decorator(shell):
    # JAX: jax.jit(count, static_argnames=...) of the @jax.jit object still fails (its own
    # jit traces n); a decorator with static_argnames works
    assert JAX["range_rejitted_static"] == JAX["range_of_tracer"]
    assert JAX["range_decorator_static"] is None
    text, card = shown(shell, DECORATED)
    assert card["kind"] == "integer-conversion"
    assert "count = jax.jit(count" not in card["rewrite"], card["rewrite"]
    assert card["rewrite"].splitlines()[2:5] == [
        "from functools import partial",
        "@partial(jax.jit, static_argnames=('n',))   # in place of @jax.jit",
        "def count(n):"], card["rewrite"]
    # the advice, followed, works here too
    fixed = DECORATED.replace("@jax.jit", "from functools import partial\n"
                              "@partial(jax.jit, static_argnames=('n',))")
    assert shell.run_cell(fixed).success
    # a function jitted where it is called: the call made static in place (the advice was
    # `count = jax.jit(count, static_argnames=...)`, and the line's own jax.jit(count) around
    # that still traced n)
    text, card = shown(shell, DECORATED.replace("@jax.jit\n", "").replace(
        "count(5)", "jax.jit(count)(5)"))
    assert card["rewrite"].splitlines()[2] == "jax.jit(count, static_argnames=('n',))(5)"
    assert shell.run_cell(DECORATED.replace("@jax.jit\n", "").replace(
        "count(5)", "assert " + card["rewrite"].splitlines()[2] + " == 10")).success


def test_float64_warning_names_the_cell_not_its_file(shell):
    # ipykernel's cells are /tmp/ipykernel_<pid>/<hash>.py, IPython's <ipython-input-N-...>:
    # Python's warning format printed that name where the notebook says In[N]. The text is
    # what warnings.showwarning prints (through warnings.formatwarning); pytest records the
    # warnings instead of printing them
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert shell.run_cell("x64 = jnp.array([1.0], dtype=jnp.float64)",
                              store_history=True).success
    (w,) = [w for w in caught if "float64" in str(w.message)]
    said = warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line)
    assert re.fullmatch(r"In\[\d+\], line 1: UserWarning: Explicitly requested dtype float64 "
                        r"[^\n]*\n  x64 = jnp.array\(\[1.0\], dtype=jnp.float64\)\n", said), said
    # a warning of another file keeps Python's format
    assert warnings.formatwarning("plain", UserWarning, "/elsewhere/mod.py", 7, "") == \
        "/elsewhere/mod.py:7: UserWarning: plain\n"


def test_timeit_warm_up_is_not_named_as_a_users_line(shell):
    # %timeit's warm-up run compiles what the statement compiles; its code (jxkernel's own,
    # `<jx-timeit-warmup>`) was shown in %jxcompiles as the line of the eager dot_general.
    # The log is the process's: cleared first, so another file's %timeit cells run earlier in
    # this worker (test_timeit_compiles_against_jax's `<magic-timeit>` lambdas) are not read
    shell.run_line_magic("jxcompiles", "--clear")
    with capture_output():
        assert shell.run_cell("tx = jnp.ones((7, 7))\n%timeit -n 1 -r 1 jnp.dot(tx, tx)",
                              store_history=True).success
    shown_log = json.dumps(shell.display_formatter.format(
        shell.run_line_magic("jxcompiles", ""))[0], default=str)
    assert "dot_general" in shown_log
    assert "jx-timeit" not in shown_log and "&lt;jx-" not in shown_log, shown_log
    # the warm-up runs IPython's own `<magic-timeit>` code now: told as the cell's line too
    assert "magic-timeit" not in shown_log, shown_log


def test_a_magics_line_in_a_card_reads_as_typed(shell):
    # IPython runs `%timeit f(x)` as get_ipython().run_line_magic('timeit', 'f(x)'): the
    # card's "called from" showed that rewrite as the user's line
    shell.run_cell("def branchy(v):\n    if v > 0:\n        return v\n    return -v")
    text, card = shown(shell, "%timeit -n 1 -r 1 jax.jit(branchy)(1.0)")
    assert card["called_from"]["code"] == "%timeit -n 1 -r 1 jax.jit(branchy)(1.0)", card
    assert "run_line_magic" not in json.dumps({k: card[k] for k in ("where", "called_from")})


# ------------------------------------------------------------------ the errors met first
def test_a_boolean_mask_under_jit_gets_a_card_whose_rewrite_runs(shell):
    # JAX: NonConcreteBooleanIndexError; jnp.where and jnp.nonzero(size=) work under jit
    assert JAX["boolean_index"]["error"] == "NonConcreteBooleanIndexError"
    assert JAX["boolean_index_where"] is None and JAX["boolean_index_nonzero_size"] is None
    text, card = shown(shell, "def pos(x):\n    return x[x > 0]\njax.jit(pos)(jnp.arange(3.0) - 1)")
    assert card["kind"] == "boolean-index"
    assert card["message"] == JAX["boolean_index"]["first_line"]
    line = card["rewrite"].splitlines()[0]
    assert line.startswith("return jnp.where(x > 0, x, 0)"), card["rewrite"]
    assert shell.run_cell(f"def pos(x):\n    {line}\n"
                          "_pos = jax.jit(pos)(jnp.arange(3.0) - 1)").success
    assert shell.user_ns["_pos"].tolist() == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("line, fixed, expected", [
    ("x[0] = 1.0", "x = x.at[0].set(1.0)", [1.0, 0.0, 0.0]),
    ("x[1:] += 2.0", "x = x.at[1:].add(2.0)", [0.0, 2.0, 2.0]),
    ("x[2] -= 1.0", "x = x.at[2].subtract(1.0)", [0.0, 0.0, -1.0]),
])
def test_an_in_place_assignment_gets_its_at_update(shell, line, fixed, expected):
    # JAX: a TypeError naming .at[]; the .at[] update works
    assert JAX["setitem"] == JAX["setitem_under_jit"] and JAX["setitem_at_set"] is None
    cell = f"def upd(x):\n    {line}\n    return x\n_upd = jax.jit(upd)(jnp.zeros(3))"
    text, card = shown(shell, cell)
    assert card["kind"] == "immutable-array" and card["message"] == JAX["setitem"]["first_line"]
    assert card["rewrite"].startswith(fixed + "    #"), card["rewrite"]
    assert shell.run_cell(cell.replace(line, fixed)).success
    assert shell.user_ns["_upd"].tolist() == expected


def test_a_reused_key_gets_a_card_to_split_it(shell):
    # JAX: one key gives the same numbers twice (silently); jax_debug_key_reuse raises
    # KeyReuseError; split keys do not
    assert JAX["key_reused_same_numbers"] is True
    assert JAX["key_reused_checked"]["error"] == "KeyReuseError" and JAX["key_split"] is None
    cell = ("jax.config.update('jax_debug_key_reuse', True)\n"
            "def two(key):\n    a = jax.random.normal(key)\n    b = jax.random.normal(key)\n"
            "    return a + b\n"
            "try:\n    jax.jit(two)(jax.random.key(1))\n"
            "finally:\n    jax.config.update('jax_debug_key_reuse', False)")
    text, card = shown(shell, cell)
    assert card["kind"] == "key-reuse"
    assert card["message"] == JAX["key_reused_checked"]["first_line"]
    body = "\n".join("    " + line for line in card["rewrite"].splitlines())
    drawn = "    a = jax.random.normal(key)\n    b = jax.random.normal(key)\n"
    fixed = cell.replace(drawn, body + "\n")
    assert shell.run_cell(fixed).success, fixed


def test_a_leaked_tracer_is_told_in_jaxs_words_and_returning_it_works(shell):
    # the words are compared case by case (test_the_cases_say_what_jax_says: jit, grad, vmap)
    assert JAX["leaked_returned"] is None
    shell.run_cell("kept = []\ndef k(x):\n    y = x * 2\n    kept.append(y)\n    return x\n"
                   "jax.jit(k)(1.0)")
    text, card = shown(shell, "kept[0] + 1")
    assert card["message"] == JAX["leaked_from_jit"]["lines"][0]
    # (JAX's "created on line FILE:3:8", `x * 2`'s start counted from 0: the cell named)
    assert re.search(r"The leaked intermediate value was created on In\[\d+\], line 3, "
                     r"column 9 \(k\)", card["traceback"]), card["traceback"]
    assert card["kind"] == "leaked-tracer" and "return result, value" in card["rewrite"]


def test_numpy_on_tracers_is_rewritten_to_jnp_which_jax_accepts(shell):
    assert JAX["numpy_array_of_tracers"]["error"] == "TracerArrayConversionError"
    assert JAX["jnp_array_of_tracers"] is None        # jnp.array of a list of tracers works
    cell = "def pair(x, y):\n    return np.array([x, y])\n_pair = jax.jit(pair)(1.0, 2.0)"
    shell.run_cell("import numpy as np")
    text, card = shown(shell, cell)
    assert card["rewrite"].splitlines()[0] == "return jnp.array([x, y])"
    assert shell.run_cell(cell.replace("np.array", "jnp.array")).success
    assert shell.user_ns["_pair"].tolist() == [1.0, 2.0]


def test_leak_messages_are_jaxs_with_the_frames_that_made_the_value():
    # the cases' own comparison covers them; stated here as what was missing: the frames from
    # the traced function to the line (a helper's too), and checking_leaks' JAX names
    ours = our_facts()
    for case in ("leaked_global_from_jit", "leaked_from_helper_in_jit", "leaked_from_scan_body",
                 "leaked_checked_jit", "leaked_checked_vmap", "if_under_vmap", "int_under_vmap"):
        assert ours[case] == JAX[case], case
    assert JAX["leaked_checked_vmap"]["lines"][3] == \
        "This BatchTracer with object id N was created on line:"


def test_a_leaked_tracer_names_the_cells_lines_that_made_it(shell):
    # JAX lists the user's frames from the traced function down to the line that made the
    # value (leaked_from_helper_in_jit): here the cell's, never jxkernel's
    assert JAX["leaked_from_helper_in_jit"]["lines"][8:10] == [
        "learner_mistakes_cases.py:89:22 (_leaks.<locals>.<lambda>)",
        "learner_mistakes_cases.py:74:12 (_leaks.<locals>.helper)"]
    shell.run_cell("held = []\ndef helper(x):\n    y = jnp.sin(x)\n    held.append(y)\n"
                   "    return y\ndef outer(x):\n    return helper(x) * 2\n"
                   "jax.jit(outer)(1.0)", store_history=True)
    text, card = shown(shell, "held[0] + 1")
    assert card["kind"] == "leaked-tracer"
    text = re.sub(r"In\[\d+\]", "In[n]", card["traceback"])   # JAX's message, in the card
    frames = text[text.index("excluding JAX-internal frames were:"):].splitlines()[1:5]
    # (JAX's 'FILE:7:11', its column counted from 0, read as the notebook's editor counts)
    assert frames == ["-" * 30, "In[n], line 7, column 12 (outer)",
                      "In[n], line 3, column 9 (helper)", "-" * 30], text
    assert "The leaked intermediate value was created on In[n], line 3, column 9 (helper). " \
        in text and "/jxkernel/" not in text, text


# ------------------------------------------------------------------ JAX's gotchas pages
def test_a_mask_named_mask_gets_its_line_kept(shell):
    # the gotchas' nansum: `x_without_nans = x[mask]` was advised as `y = jnp.where(...)`,
    # which left x_without_nans undefined
    assert JAX["nansum_masked"]["error"] == "NonConcreteBooleanIndexError"
    assert JAX["nansum_where"] is None
    cell = ("def nansum(x):\n    mask = ~jnp.isnan(x)\n    x_without_nans = x[mask]\n"
            "    return x_without_nans.sum()\n_s = jax.jit(nansum)(jnp.array([1, 2, jnp.nan, 3]))")
    text, card = shown(shell, cell)
    line = card["rewrite"].splitlines()[0].split("    #")[0]
    assert line == "x_without_nans = jnp.where(mask, x, 0)", card["rewrite"]
    assert shell.run_cell(cell.replace("x_without_nans = x[mask]", line)).success
    assert shell.user_ns["_s"] == 6.0


def test_lax_cond_is_offered_with_its_condition(shell):
    # JAX: for an int x, lax.cond of `3. * x ** 2` and `-4 * x` raises (the branches' dtypes
    # differ) where jnp.where works: the card's first line runs, and its cond casts the int
    # branch to float32 (it said "cast one with .astype where they differ" over the cond that
    # raised), which runs too (card_rewrites_pasted_cases.py: if_branches_of_two_dtypes_cond)
    assert JAX["if_int_where"] is None and JAX["if_int_cond"]["first_line"].startswith(
        "cond branches must have equal output types")
    cell = ("@jax.jit\ndef f(x):\n    if x < 3:\n        return 3. * x ** 2\n    else:\n"
            "        return -4 * x\n_f = f(2)")
    text, card = shown(shell, cell)
    lines = card["rewrite"].splitlines()
    assert lines[0] == "return jnp.where(x < 3, 3.0 * x ** 2, -4 * x)", lines
    assert "one dtype: -4 * x (int32) cast to jnp.where's float32" in lines[1], lines
    assert lines[2].endswith("lambda: (-4 * x).astype(jnp.float32))"), lines
    for line in lines[0], lines[2]:
        fixed = cell.replace("    if x < 3:\n        return 3. * x ** 2\n    else:\n"
                             "        return -4 * x\n", "    " + line + "\n")
        assert shell.run_cell(fixed).success and shell.user_ns["_f"] == 12.0


def test_and_of_tracers_is_rewritten_to_logical_and(shell):
    # the control-flow guide: `(x > 0) and (x < 3)` under jit fails; jnp.logical_and works
    assert JAX["and_of_tracers"]["error"] == "TracerBoolConversionError"
    assert JAX["and_logical_and"] is None
    cell = "@jax.jit\ndef g(x):\n    return (x > 0) and (x < 3)\n_g = g(2)"
    text, card = shown(shell, cell)
    line = card["rewrite"].splitlines()[0].split("    #")[0]
    assert line == "return jnp.logical_and(x > 0, x < 3)", card["rewrite"]
    assert shell.run_cell(cell.replace("return (x > 0) and (x < 3)", line)).success
    assert bool(shell.user_ns["_g"]) is True


@pytest.mark.parametrize("value, traced", [
    ("{'a': 2}", "static_dict_traced"), ("jnp.arange(3)", "static_array_traced")])
def test_a_dict_or_array_made_static_is_advised_traced_at_the_line(shell, value, traced):
    # JAX: the dict as a tuple of pairs fails where the function indexes it by key (advised
    # before, unqualified) and works read back with dict(...); traced, both work. An array's
    # advice was `f = jax.jit(f)`, which left the line's own jax.jit(f, static_argnums=1)
    assert JAX[traced] is None and JAX["static_dict_pairs_as_dict"] is None
    assert JAX["static_dict_pairs"]["error"] == "TypeError"
    shell.run_cell("def f(x, d):\n    return x * d['a'] if isinstance(d, dict) else x * d")
    text, card = shown(shell, f"_r = jax.jit(f, static_argnums=1)(1.0, {value})")
    line = card["rewrite"].splitlines()[0].split("   #")[0]
    assert line == f"_r = jax.jit(f)(1.0, {value})", card["rewrite"]
    assert shell.run_cell(line).success
    if value.startswith("{"):
        assert "read it inside as dict(d)" in card["rewrite"], card["rewrite"]


CUSTOM_CLASS = ("class CustomClass:\n    def __init__(self, x, mul):\n        self.x = x\n"
                "        self.mul = mul\n    @jax.jit\n    def calc(self, y):\n"
                "        if self.mul:\n            return self.x * y\n        return y\n")


def test_a_jitted_method_gets_its_class_registered_as_a_pytree(shell):
    # the gotchas page: @jax.jit on a method traces self. JAX: registered as the card writes
    # it, calc works and a changed field recompiles (6, then 3); self static and changed
    # silently keeps the old compile (6, 6), which the card says
    assert JAX["method_self_traced"]["first_line"].endswith("passed to the function at path self.")
    assert JAX["method_as_pytree"] == [6, 3] and JAX["method_self_static_changed"] == [6, 6]
    text, card = shown(shell, CUSTOM_CLASS + "c = CustomClass(2, True)\nc.calc(3)")
    assert card["kind"] == "jit-method", card
    assert card["rewrite"] == METHOD_PYTREE_FIX, card["rewrite"]
    assert "reuses the old compile, silently" in card["fix"]
    assert shell.run_cell(CUSTOM_CLASS + card["rewrite"] + "\nc = CustomClass(2, True)\n"
                          "_first = int(c.calc(3))\nc.mul = False\n_then = int(c.calc(3))").success
    assert [shell.user_ns["_first"], shell.user_ns["_then"]] == JAX["method_as_pytree"]


@pytest.mark.parametrize("body, call, expected", [
    ("return x[:n]", "jax.jit(head)(jnp.arange(5), 3)", "slice_masked"),
    ("return x[n:n + 2]", "jax.jit(head)(jnp.arange(5), 1)", "slice_dynamic"),
])
def test_a_traced_slice_bound_gets_a_static_shape_rewrite_that_runs(shell, body, call,
                                                                      expected):
    # JAX: a traced slice bound is an IndexError; masked or sliced with a fixed size it runs
    # (slice_masked, slice_dynamic), and with the bound static too (slice_static)
    assert JAX["slice_traced_stop"]["error"] == JAX["slice_traced_window"]["error"] == \
        "IndexError"
    cell = f"from jxkernel import lax\ndef head(x, n):\n    {body}\n_h = {call}"
    text, card = shown(shell, cell)
    assert card["kind"] == "traced-slice" and card["origin"]["argument"] == "n", card
    lines = card["rewrite"].splitlines()
    assert shell.run_cell(cell.replace(body, lines[0].split("    #")[0])).success, lines
    assert shell.user_ns["_h"].tolist() == JAX[expected]
    static = lines[-1]                  # the static alternative, at the calling line
    assert static == "_h = " + call.replace("jax.jit(head)",
                                            "jax.jit(head, static_argnames=('n',))")
    if expected == "slice_masked":
        assert shell.run_cell(cell.replace(f"_h = {call}", static)).success   # x[:n] again
        assert shell.user_ns["_h"].tolist() == JAX["slice_static"]


def test_a_lambda_is_made_static_on_its_own_line(shell):
    # the card wrote `jax.jit(f, static_argnames=('x',))` for a lambda, with no f; JAX takes
    # static_argnames of a lambda's parameters (lambda_float_static)
    assert JAX["lambda_static_in_place"] is None and JAX["lambda_float_static"] == 1.0
    text, card = shown(shell, "_v = jax.jit(lambda x: float(x))(1.0)")
    line = card["rewrite"].splitlines()[0]
    assert line == "_v = jax.jit(lambda x: float(x), static_argnames=('x',))(1.0)", line
    assert "then this line sees" not in card["rewrite"]        # (the line is the rewrite)
    assert shell.run_cell(line).success and shell.user_ns["_v"] == JAX["lambda_float_static"]


def test_static_advice_keeps_the_decorators_own_name_for_jit(shell):
    # the control-flow guide imports `from jax import jit` and decorates with `@jit`: the
    # advice `@partial(jax.jit, ...)` named a `jax` such a notebook may not have
    cell = ("from jxkernel import jit\n@jit\ndef f(x):\n    if x < 3:\n"
            "        return 3. * x ** 2\n    else:\n        return -4 * x\n_f = f(2)")
    text, card = shown(shell, cell)
    lines = card["rewrite"].splitlines()
    assert lines[-3:] == ["from functools import partial",
                          "@partial(jit, static_argnames=('x',))   # in place of @jit",
                          "def f(x):"], lines
    fixed = cell.replace("@jit\n", "from functools import partial\n"
                         "@partial(jit, static_argnames=('x',))\n")
    assert shell.run_cell(fixed).success and shell.user_ns["_f"] == 12.0


@pytest.mark.parametrize("seed, said, made", [
    ("0", "seed_as_key", "seed_made_key"), ("jnp.array(0)", "scalar_array_as_key",
                                            "scalar_array_made_key")])
def test_a_seed_where_a_key_goes_is_made_a_key_in_place(shell, seed, said, made):
    # JAX: a seed is "invalid PRNG key data"; jax.random.key(seed) in its place works
    assert JAX[said]["first_line"].startswith("JAX encountered invalid PRNG key data")
    assert JAX[made] is None
    text, card = shown(shell, f"_n = jax.random.normal({seed}, (2,))")
    assert card["kind"] == "seed-as-key" and card["message"] == JAX[said]["first_line"]
    line = card["rewrite"].split("    #")[0]
    assert line == f"_n = jax.random.normal(jax.random.key({seed}), (2,))", card["rewrite"]
    assert shell.run_cell(line).success and shell.user_ns["_n"].shape == (2,)


def test_a_raw_keys_word_given_as_a_key_is_told_to_split_not_unpack(shell):
    # JAX: a word of PRNGKey(0) is "invalid PRNG key data" as a seed is (the seed card's
    # key(word) would be key(0) for both words: the same draws); split works
    assert JAX["raw_key_word_as_key"] == JAX["scalar_array_as_key"]
    assert JAX["raw_key_split_as_advised"] is None and JAX["raw_key_words"] == [0, 0]
    cell = "_k1, _k2 = jax.random.PRNGKey(0)\n_n = jax.random.normal(_k1, (2,))"
    text, card = shown(shell, cell)
    assert card["kind"] == "raw-key-unpacked"
    assert card["message"] == JAX["raw_key_word_as_key"]["first_line"]
    line = card["rewrite"].split("    #")[0]
    assert line == "_k1, _k2 = jax.random.split(jax.random.PRNGKey(0))", card["rewrite"]
    assert shell.run_cell(cell.replace(cell.splitlines()[0], line)).success
    assert shell.user_ns["_n"].shape == (2,)
    # a uint32 seed bound otherwise is a seed (its card)
    seed_cell = "_s = jnp.uint32(3)\n_n = jax.random.normal(_s, (2,))"
    assert shown(shell, seed_cell)[1]["kind"] == "seed-as-key"


def test_a_raw_key_unpacked_in_an_earlier_cell_is_found_there(shell):
    """The unpacking in another cell than the failing draw: the card names that cell and
    rewrites its line, which run gives keys that draw (JAX: split works, recorded); a name
    bound again since (a later cell) is not the unpacked word: the seed card."""
    assert JAX["raw_key_split_as_advised"] is None
    unpack = "_w1, _w2 = jax.random.PRNGKey(0)"
    first = shell.execution_count                  # a notebook's cell: In[first]
    assert shell.run_cell(unpack, store_history=True).success
    text, card = shown(shell, "_n = jax.random.normal(_w1, (2,))")
    assert card["kind"] == "raw-key-unpacked", card
    assert card["message"] == JAX["raw_key_word_as_key"]["first_line"]
    assert f"(in In[{first}], line 1: change it there)" in card["fix"], card["fix"]
    line, comment = card["rewrite"].split("    #")
    assert line == "_w1, _w2 = jax.random.split(jax.random.PRNGKey(0))"
    assert comment.endswith(f"(in In[{first}])"), comment
    assert shell.run_cell(line).success
    assert shell.run_cell("_n = jax.random.normal(_w1, (2,))").success
    assert shell.user_ns["_n"].shape == (2,)
    # bound again since: a uint32 of another making, told as a seed, with the caveat
    assert shell.run_cell(unpack, store_history=True).success
    assert shell.run_cell("_w1 = jnp.uint32(3)", store_history=True).success
    text, card = shown(shell, "_m = jax.random.normal(_w1, (2,))")
    assert card["kind"] == "seed-as-key"


def test_a_uint32_seed_card_warns_of_a_raw_keys_word(shell):
    """A uint32 number given where a key goes, its making unknown: the seed card says that a
    raw key's word is no seed (JAX: PRNGKey(seed)'s first word is 0 for every seed, recorded)
    and to split the key it came from instead."""
    assert all(words[0] == 0 for words in JAX["raw_key_words_of_seeds"])
    assert [words[1] for words in JAX["raw_key_words_of_seeds"]] == [7, 2**31, 2**32 - 1]
    shell.user_ns["_u"] = jnp.uint32(5)          # made where no source says how
    text, card = shown(shell, "_n = jax.random.normal(_u, (2,))")
    assert card["kind"] == "seed-as-key"
    assert "_u is a uint32 number" in card["why"] and "first word is 0" in card["why"]
    assert "k1, k2 = jax.random.split(key)" in card["fix"]
    text, card = shown(shell, "_n = jax.random.normal(jnp.array(0), (2,))")   # an int32 seed
    assert "uint32" not in card["why"] and "split that key" not in card["fix"]


def test_a_loop_on_a_traced_bound_becomes_a_lax_loop_that_runs(shell):
    # JAX: fori_loop takes traced bounds, while_loop a traced condition (the values recorded)
    assert JAX["range_as_fori_loop"] == 10 and JAX["while_as_while_loop"] == 30
    # a learner with only `import jax` gets `jax.lax.`; one with `lax` bound gets `lax.` (the
    # namespace is set here: the process's one shell keeps what earlier tests bound)
    shell.user_ns.pop("lax", None)
    text, card = shown(shell, DECORATED)
    line = card["rewrite"].splitlines()[0].split("    #")[0]
    assert line == "total = jax.lax.fori_loop(0, n, lambda i, total: total + i, total)", line
    fixed = DECORATED.replace("    for i in range(n):\n        total += i\n",
                              f"    {line}\n").replace("count(5)", "_c = count(5)")
    assert shell.run_cell(fixed).success
    assert int(shell.user_ns["_c"]) == JAX["range_as_fori_loop"]
    assert shell.run_cell("from jxkernel import lax").success
    text, card = shown(shell, DECORATED)
    assert card["rewrite"].startswith("total = lax.fori_loop(0, n,"), card["rewrite"]
    # the jit page's while loop
    cell = ("def g(x, n):\n    i = 0\n    while i < n:\n        i += 1\n    return x + i\n"
            "_w = jax.jit(g)(10, 20)")
    text, card = shown(shell, cell)
    line = card["rewrite"].splitlines()[0].split("    #")[0]
    assert line == "i = lax.while_loop(lambda i: i < n, lambda i: i + 1, i)", line
    assert shell.run_cell(cell.replace("    while i < n:\n        i += 1\n",
                                       f"    {line}\n")).success
    assert int(shell.user_ns["_w"]) == JAX["while_as_while_loop"]


@pytest.mark.parametrize("body, data, fixed, value", [
    ("return jnp.where(x > 0)", "jnp.arange(-2, 3)",
     "return jnp.where(x > 0, size=x.size, fill_value=-1)", "where_one_argument_value"),
    ("return m.nonzero()", "jnp.arange(-2, 3) > 0",
     "return m.nonzero(size=m.size, fill_value=-1)", "nonzero_method_sized_value"),
    ("return jnp.unique(x)", "jnp.arange(-2, 3) % 2",
     "return jnp.unique(x, size=x.size)", "unique_sized_value"),
])
def test_a_result_sized_by_the_data_gets_size_given_in_place(shell, body, data, fixed, value):
    """jnp.where(mask), x.nonzero(), jnp.unique(x) under jit: JAX's error names the size
    argument; the card gives size= the data's size on the user's line, and that line runs
    and gives JAX's recorded answer."""
    arg = "m" if "m.nonzero" in body else "x"
    cell = f"def f({arg}):\n    {body}\n_out = jax.jit(f)({data})"
    text, card = shown(shell, cell)
    assert card["kind"] == "data-dependent-size", card
    case = {"where_one_argument_value": "where_one_argument",
            "nonzero_method_sized_value": "nonzero_method",
            "unique_sized_value": "unique_traced"}[value]
    assert card["message"] == JAX[case]["first_line"]
    line = card["rewrite"].splitlines()[0]
    assert line.split("    #")[0] == fixed, card["rewrite"]
    assert shell.run_cell(cell.replace(body, line)).success
    out = shell.user_ns["_out"]
    got = [a.tolist() for a in out] if isinstance(out, tuple) else out.tolist()
    assert got == JAX[value]
    if "unique" in body:            # its length is the slots': the count, traced, beside it
        count = card["rewrite"].splitlines()[1].rpartition(": ")[2]
        assert "the unused ones repeat the smallest" in card["rewrite"].splitlines()[0]
        assert shell.run_cell(f"_n = jax.jit(lambda {arg}: {count})({data})").success
        assert int(shell.user_ns["_n"]) == JAX["unique_count_traced"] == 2


def test_a_traced_slice_reduced_is_reduced_over_the_slice_alone(shell):
    """`x[:n].mean()` under jit with n traced: masked whole (jnp.where(... < n, x, 0)), the
    zeros outside the slice would count (JAX 0.10.2: 0.25, the slice's own mean 0.5); the
    card writes `x.mean(where=...)`, which JAX runs to the slice's mean."""
    cell = "def f(x, n):\n    return x[:n].mean()\n_out = jax.jit(f)(jnp.arange(4.0), 2)"
    text, card = shown(shell, cell)
    assert card["kind"] == "traced-slice", card
    line = card["rewrite"].splitlines()[0].split("    #")[0]
    assert line == "return x.mean(where=jnp.arange(x.shape[0]) < n)", card["rewrite"]
    assert JAX["traced_slice_mean_masked"] == 0.25
    assert JAX["traced_slice_mean_where"] == JAX["traced_slice_mean_eager"] == 0.5
    assert shell.run_cell(cell.replace("return x[:n].mean()", line)).success
    assert float(shell.user_ns["_out"]) == JAX["traced_slice_mean_where"]


def test_padded_indices_are_masked_where_they_index_as_the_card_says(shell):
    """`idx = jnp.nonzero(x)[0]` under jit, then `x[idx].sum()`: the card pads idx with -1,
    which as an index reads the last element (JAX 0.10.2: 5., where the nonzero elements sum
    to 3.), so it says to mask the unused slots where idx indexes; so masked, JAX's 3."""
    cell = ("def f(x):\n    idx = jnp.nonzero(x)[0]\n    return x[idx].sum()\n"
            "_out = jax.jit(f)(jnp.arange(3.0))")
    text, card = shown(shell, cell)
    assert card["kind"] == "data-dependent-size", card
    sized, masked = card["rewrite"].splitlines()[:2]
    assert sized.split("    #")[0] == "idx = jnp.nonzero(x, size=x.size, fill_value=-1)[0]"
    mask = masked.rpartition(": ")[2]
    assert masked.startswith("# -1 as an index reads the last element") and \
        mask == "jnp.where(idx >= 0, x[idx], 0)", masked
    assert JAX["nonzero_padded_read"] == 5.0 and JAX["nonzero_padded_masked"] == 3.0
    fixed = cell.replace("idx = jnp.nonzero(x)[0]", sized.split("    #")[0])
    assert shell.run_cell(fixed.replace("x[idx].sum()", f"{mask}.sum()")).success
    assert float(shell.user_ns["_out"]) == JAX["nonzero_padded_masked"]


def test_float_of_a_value_grad_traces_is_refused_and_the_card_keeps_the_array(shell):
    """JAX refuses float() of a value grad traces (its value is known, but a Python number
    would have no derivative: grad of float(w) ** 2 would be 0); bool() and int() read it.
    The card's rewrite drops float() and gives JAX's derivative."""
    for case in ("grad_of_float", "grad_of_complex", "grad_of_tolist", "jvp_of_float",
                 "linearize_of_float", "jacfwd_of_float"):
        assert JAX[case]["error"] == "ConcretizationTypeError", case
    assert JAX["grad_of_np_asarray"]["error"] == "TracerArrayConversionError"
    assert JAX["grad_of_if_on_value"] is None and JAX["grad_of_int"] is None
    cell = "def loss(w):\n    return float(w) ** 2\n_g = jax.grad(loss)(3.0)"
    text, card = shown(shell, cell)
    assert card["kind"] == "concretization", card
    line = card["rewrite"].splitlines()[0]
    assert line.split("   #")[0] == "return w ** 2", card["rewrite"]
    assert "shape" not in card["rewrite"]           # a number, not a size: no shape advice
    assert shell.run_cell(cell.replace("return float(w) ** 2", line)).success
    assert float(shell.user_ns["_g"]) == 6.0


def test_grad_of_an_int_literal_gets_a_float_in_place(shell):
    """grad(f)(3): JAX's TypeError (its advice, vjp or allow_int, gives a float0 zero); the
    card writes 3.0 in the call, which gives JAX's recorded slope."""
    assert JAX["grad_of_int_literal"]["error"] == "TypeError"
    cell = "def f(x):\n    return x ** 2\n_g = jax.grad(f)(3)"
    text, card = shown(shell, cell)
    assert card["kind"] == "integer-grad-input"
    assert card["message"] == JAX["grad_of_int_literal"]["first_line"]
    line = card["rewrite"].splitlines()[0]
    assert line.split("    #")[0] == "_g = jax.grad(f)(3.0)", card["rewrite"]
    assert shell.run_cell(cell.replace("_g = jax.grad(f)(3)", line)).success
    assert float(shell.user_ns["_g"]) == JAX["grad_of_float_literal"] == 6.0


@pytest.mark.parametrize("call, fixed", [
    ("jax.grad(loss)(jnp.arange(3))", "jax.grad(loss)(jnp.asarray(jnp.arange(3), jnp.float32))"),
    ("jax.grad(loss)(_w)", "jax.grad(loss)(jnp.asarray(_w, jnp.float32))")])
def test_grad_of_an_int_array_gets_it_made_float_in_the_call(shell, call, fixed):
    """grad(loss)(jnp.arange(3)): JAX's TypeError (recorded); the card writes the learner's
    own call with the argument made float (its template's `x = jnp.asarray(x, ...)` named an
    x the line does not have), which gives JAX's recorded gradient [0, 2, 4]."""
    assert JAX["grad_of_int_array"]["error"] == "TypeError"
    cell = f"def loss(w):\n    return jnp.sum(w ** 2)\n_w = jnp.arange(3)\n_g = {call}"
    text, card = shown(shell, cell)
    assert card["kind"] == "integer-grad-input"
    assert card["message"] == JAX["grad_of_int_array"]["first_line"]
    line = card["rewrite"].splitlines()[0]
    assert line.split("    #")[0] == f"_g = {fixed}", card["rewrite"]
    assert shell.run_cell(cell.replace(f"_g = {call}", line)).success
    assert shell.user_ns["_g"].tolist() == JAX["grad_of_int_array_as_float"] == [0.0, 2.0, 4.0]


@pytest.mark.parametrize("api", ["jacfwd", "jacrev", "hessian"])
def test_a_jacobian_or_hessian_of_ints_gets_the_card_naming_what_was_called(shell, api):
    """jax.hessian(f)(jnp.array([1, 2])) (learner6's trial): JAX 0.10.2 raises jacfwd's words
    ("requires real-valued inputs"), which had no card, and jacrev's card said "grad". The card
    names the function called, and its float input gives JAX's recorded Jacobian or Hessian."""
    assert JAX[f"{api}_of_int_array"]["error"] == "TypeError"
    cell = f"_g = jax.{api}(lambda v: v ** 3)(jnp.array([1, 2]))"
    text, card = shown(shell, cell)
    assert card["kind"] == "integer-grad-input" and card["title"].startswith(api), card
    assert card["message"] == JAX[f"{api}_of_int_array"]["first_line"]
    assert ("allow_int" in card["why"]) == (api == "jacrev")
    line = card["rewrite"].splitlines()[0]
    assert line.split("    #")[0] == \
        f"_g = jax.{api}(lambda v: v ** 3)(jnp.asarray(jnp.array([1, 2]), jnp.float32))", line
    assert shell.run_cell(line).success
    assert shell.user_ns["_g"].tolist() == JAX[f"{api}_of_int_array_as_float"]


def test_grad_of_a_dict_written_with_an_int_gets_the_int_as_a_float(shell):
    """jax.grad(f)({'w': 2.0, 'n': 3}) (learner6's second pass): JAX's TypeError (recorded);
    the card writes the learner's line with 3.0 (its template named x, loss and params, which
    the line has not), which gives JAX's recorded gradients."""
    assert JAX["grad_of_dict_with_int_leaf"]["error"] == "TypeError"
    text, card = shown(shell, "_g = jax.grad(lambda p: p['w'] * p['n'])({'w': 2.0, 'n': 3})")
    line = card["rewrite"].splitlines()[0]
    assert line.split("    #")[0] == \
        "_g = jax.grad(lambda p: p['w'] * p['n'])({'w': 2.0, 'n': 3.0})"
    assert shell.run_cell(line).success
    assert {k: float(v) for k, v in shell.user_ns["_g"].items()} == \
        JAX["grad_of_dict_with_int_leaf_as_float"]


def test_grad_of_params_holding_an_int_is_not_made_one_array(shell):
    """A dict of arrays with an int leaf: asarray of the dict is no fix, so the card keeps its
    two ways (a float, or the int passed apart) and writes no asarray of `params`."""
    cell = ("def loss(p):\n    return jnp.sum(p['w'] * p['n'])\n"
            "params = {'w': jnp.ones(2), 'n': jnp.arange(2)}\n_g = jax.grad(loss)(params)")
    text, card = shown(shell, cell)
    assert card["kind"] == "integer-grad-input"
    assert "jnp.asarray(params" not in card["rewrite"], card["rewrite"]


def test_an_if_that_counts_in_a_loop_is_rewritten_to_count(shell):
    """`for v in x: if v > 0: n += 1` under jit: JAX's TracerBoolConversionError (recorded);
    the card rewrites the `if` as `n = jnp.where(v > 0, n + 1, n)` (it gave a template of two
    branch functions to fill in), which, pasted, counts as JAX does (recorded: 2)."""
    assert JAX["count_with_if_in_jit"]["error"] == "TracerBoolConversionError"
    cell = ("@jax.jit\ndef count(x):\n    n = 0\n    for v in x:\n        if v > 0:\n"
            "            n += 1\n    return n\n_n = count(jnp.arange(-2.0, 3.0))")
    text, card = shown(shell, cell)
    assert card["kind"] == "bool-conversion"
    assert card["message"] == JAX["count_with_if_in_jit"]["first_line"]
    line = card["rewrite"].splitlines()[0]
    assert line == "n = jnp.where(v > 0, n + 1, n)", card["rewrite"]
    fixed = cell.replace("        if v > 0:\n            n += 1\n", f"        {line}\n")
    assert shell.run_cell(fixed).success
    assert int(shell.user_ns["_n"]) == JAX["count_with_where_in_jit"] == 2


def _info_notes(shell, source) -> list:
    return [text for text in ran_ok(shell, source, store_history=False).texts
            if text.startswith("⚠ print ran while tracing")]


def _notes(shell, source) -> list:
    return [text for text in ran_ok(shell, source, store_history=False).texts
            if text.startswith("⚠")]


def test_an_fstring_in_debug_print_gets_a_note_with_the_values_passed(shell):
    """jax.debug.print(f"x is {x}") inside jit (JAX's debugging tutorial, a learner's slip in
    learner6's trial): JAX 0.10.2 prints "x is JitTracer(~float32[])" on each call, the text
    Python made at the trace. The note says the f-string did it (it said "print ran while
    tracing", the wrong print) and rewrites the line with x passed, which prints the values
    as JAX's does."""
    assert JAX["debug_print_fstring_in_jit_lines"] == ["x is JitTracer(~float32[])"] * 2
    assert JAX["debug_print_fstring_fixed_lines"] == ["x is 1.0", "x is 2.0"]
    for key in ("debug_print_fstring_in_jit_lines", "debug_print_fstring_fixed_lines"):
        assert our_facts()[key] == JAX[key], key
    (note,) = _notes(shell, '@jax.jit\ndef pf(x):\n    jax.debug.print(f"x is {x}")\n'
                            '    return x\npf(1.0)')
    assert re.match(r"⚠ an f-string formatted a traced value \(at In\[\d+\]:3\): "
                    r"jax.debug.print was given the text with JitTracer\(~float32\[\]\)", note)
    assert note.splitlines()[-1].strip() == "jax.debug.print('x is {x}', x=x)", note
    assert "print ran while tracing" not in note


@pytest.mark.parametrize("line", ["msg = 'value: ' + str(x)", "return str(x)",
                                  "assert x.shape[0] == 2, f'bad {x}'"])
def test_text_made_from_a_tracer_without_a_print_is_not_told_as_a_print(shell, line):
    """str(x), an f-string of x inside jit, no print on the line: the note said "print ran
    while tracing", naming a print the cell has not; it says the value was made text while
    tracing, what the text reads, and jax.debug.print for the values."""
    body = line if line.startswith("return") else f"{line}\n    return x"
    source = f"@jax.jit\ndef made(x):\n    {body}\ntry:\n    made(jnp.ones(3))\nexcept " \
             f"Exception:\n    pass"
    texts = ran_ok(shell, source, store_history=False).texts
    assert not [t for t in texts if t.startswith("⚠ print ran while tracing")], texts
    (note,) = [t for t in texts if t.startswith("⚠ a traced value was made text")]
    assert "JitTracer(float32[3])" in note.splitlines()[0] and "jax.debug.print" in note, note


def test_text_python_made_from_a_tracer_is_rewritten_with_the_values_passed(shell):
    """`print("x is %s" % x)`, `print("x is " + str(x))` inside jit: JAX 0.10.2 prints the
    tracer once (recorded), and the note's fix was `jax.debug.print('{}', 'x is %s' % x)`,
    which JAX prints as "x is JitTracer(~float32[])" on each call (recorded). The note now
    passes the values to debug.print (recorded: the values at each call). A debug.print given
    such text ("x is %s" % x, "x is {}".format(x)) is told as the f-string's is, by what made
    the text, not "print ran while tracing"."""
    tracer = "x is JitTracer(~float32[])"
    assert JAX["print_percent_in_jit_lines"] == JAX["print_str_concat_in_jit_lines"] == [tracer]
    for key in ("print_percent_earlier_fix_lines", "debug_print_percent_in_jit_lines",
                "debug_print_format_in_jit_lines"):
        assert JAX[key] == [tracer] * 2, key
    # debug.print('x is {}', x)
    assert JAX["debug_print_in_jit_lines"] == ["x is 1.0", "x is 2.0"]
    assert JAX["debug_print_repr_concat_fixed_lines"] == \
        ["x is Array(1., dtype=float32)!", "x is Array(2., dtype=float32)!"]
    for key in ("print_percent_in_jit_lines", "print_str_concat_in_jit_lines",
                "print_percent_earlier_fix_lines", "debug_print_percent_in_jit_lines",
                "debug_print_format_in_jit_lines", "debug_print_repr_concat_fixed_lines"):
        assert our_facts()[key] == JAX[key], key
    for line, fixed in (('print("x is %s" % x)', "jax.debug.print('x is {}', x)"),
                        ('print("x is %s" % (x,))', "jax.debug.print('x is {}', x)"),
                        ('print("x is " + str(x))', "jax.debug.print('x is {}', x)"),
                        ('print("x is " + repr(x) + "!")', "jax.debug.print('x is {!r}!', x)")):
        (note,) = _info_notes(shell, f"@jax.jit\ndef pp(x):\n    {line}\n    return x\npp(1.0)")
        assert note.splitlines()[-1].strip() == fixed, (line, note)
    for line, maker in (('jax.debug.print("x is %s" % x)', "the % operator"),
                        ('jax.debug.print("x is {}".format(x))', "str.format")):
        (note,) = _notes(shell, f"@jax.jit\ndef pd(x):\n    {line}\n    return x\npd(1.0)")
        assert re.match(re.escape(f"⚠ {maker} formatted a traced value (at In[") +
                        r"\d+\]:3\): jax.debug.print was given the text with "
                        r"JitTracer\(~float32\[\]\)", note), note
        assert note.splitlines()[-1].strip() == "jax.debug.print('x is {}', x)", note
    # a format Python alone can fill ("%(x)s" % d, "{0}" among other text): no rewrite
    # offered, the general one instead
    (note,) = _info_notes(shell, '@jax.jit\ndef pk(x):\n    print("%(v)s" % {"v": x})\n'
                                 '    return x\npk(1.0)')
    assert "'{}', '%(v)s'" not in note and "x: the value to print" in note, note


def test_a_format_spec_on_an_array_raises_as_in_jax():
    """f"{v:.2f}" of a vector, and jax.debug.print("v = {:.2f}", v) under jit: JAX 0.10.2
    raises NumPy's TypeError (the print in its callback: the call raises), recorded; here the
    spec was dropped and the array printed ("v = [1. 1.]"), so a line that fails under JAX
    ran. A scalar takes the spec ("1.50"), and an array no spec, in both."""
    keys = ("format_spec_of_scalar", "format_of_vector", "format_spec_of_vector",
            "debug_print_spec_of_scalar", "debug_print_spec_of_vector")
    assert JAX["format_spec_of_vector"]["error"] == "TypeError"
    assert JAX["debug_print_spec_of_vector"] == "raised"
    assert JAX["debug_print_spec_of_scalar"] == ["v = 1.50"]
    facts = our_facts()
    assert {k: facts[k] for k in keys} == {k: JAX[k] for k in keys}


def test_print_of_a_tracer_inside_jit_gets_a_note_pointing_to_debug_print(shell):
    """JAX (recorded): print inside a jitted function shows JitTracer(~float32[]) once for two
    calls, and jax.debug.print the values on each call. The note under the cell says so, at
    the user's line; a print of an array outside any trace says nothing."""
    assert JAX["print_in_jit_lines"] == ["x is JitTracer(~float32[])"]
    assert JAX["debug_print_in_jit_lines"] == ["x is 1.0", "x is 2.0"]
    assert our_facts()["print_in_jit_lines"] == JAX["print_in_jit_lines"]
    assert our_facts()["debug_print_in_jit_lines"] == JAX["debug_print_in_jit_lines"]
    (note,) = _info_notes(shell, "@jax.jit\ndef pr(x):\n    print('x is', x)\n    return x\n"
                                 "pr(1.0)")
    first = note.splitlines()[0]
    assert re.match(r"⚠ print ran while tracing \(at In\[\d+\]:3\): it showed "
                    r"JitTracer\(~float32\[\]\), a placeholder", first), first
    assert "jax.debug.print('x is {}', x)" in note      # its own line: JAX's x is 1.0, 2.0
    assert _info_notes(shell, "pr(2.0)") == []           # a hit: print does not run
    assert _info_notes(shell, "print(jnp.ones(2))") == []
    # a %%jit cell tells its own prints (its "print() ran while tracing" note): not twice
    assert _info_notes(shell, "xs_p = jnp.ones(3)") == []
    assert _info_notes(shell, "%%jit\nprint('tracing', xs_p)\nys_p = xs_p * 2") == []


def test_a_print_under_grad_or_vmap_inside_jit_is_told_it_runs_at_the_jits_trace(shell):
    """A loss printing its argument under jit(grad(loss)) (a training step), or a row under
    jit(vmap(f)): JAX 0.10.2 prints the GradTracer or VmapTracer once for two calls, as a
    JitTracer's print. The note said "it runs on every call" (true of eager grad alone,
    which JAX prints at each call); its jax.debug.print in place prints each call's value."""
    assert len(JAX["print_under_grad_in_jit_lines"]) == 1
    assert len(JAX["print_under_vmap_in_jit_lines"]) == 1
    assert len(JAX["print_under_grad_lines"]) == 2
    assert JAX["debug_print_under_grad_in_jit_lines"] == ["w is 1.0", "w is 2.0"]
    for key in ("print_under_grad_in_jit_lines", "print_under_vmap_in_jit_lines",
                "print_under_grad_lines", "debug_print_under_grad_in_jit_lines"):
        assert our_facts()[key] == JAX[key], key
    once = ("it runs while the jitted function around it is traced, and again only when "
            "that one is traced again (a new shape or dtype), not on every call")
    (note,) = _info_notes(shell, "def loss_pg(w):\n    print('w is', w)\n    return w * w\n"
                                 "step_pg = jax.jit(jax.grad(loss_pg))\n"
                                 "step_pg(1.0)\nstep_pg(2.0)")
    assert once in note and "on every call, and shows" not in note, note
    assert note.splitlines()[-1].strip() == "jax.debug.print('w is {}', w)", note
    (note,) = _info_notes(shell, "def row_pv(r):\n    print('r is', r)\n    return r * 2\n"
                                 "jax.jit(lambda x: jax.vmap(row_pv)(jnp.ones(2) * x))(1.0)")
    assert once in note, note
    (note,) = _info_notes(shell, "def loss_pe(w):\n    print('w is', w)\n    return w * w\n"
                                 "jax.grad(loss_pe)(1.0)\njax.grad(loss_pe)(2.0)")
    assert "it runs on every call, and shows the transformation's tracer" in note, note


def test_cond_branches_of_two_types_get_a_card_whose_fixes_work_under_jax(shell):
    # cond's TypeError is JAX's (test_the_cases_say_what_jax_says); the card casts toward the
    # promoted dtype (the int branch to float32, not the float one to int32), and each shape
    # fix it writes gives the branches one type under JAX (the *_broadcast/_pad/_slice facts)
    shell.run_cell("from jxkernel import lax\nx = jnp.ones((3, 2))")
    text, card = shown(shell, "lax.cond(True, lambda v: v.astype(jnp.int32), lambda v: v, x)")
    assert JAX["cond_branch_dtypes"]["first_line"] in card["message"] and "card below" in text
    assert card["kind"] == "branch-types" and card["origin"]["mismatch"] == "dtypes"
    # (its branches lambdas on the line: the line back with the int one's result cast)
    assert card["rewrite"].splitlines()[0] == \
        "lax.cond(True, lambda v: jnp.asarray(v.astype(jnp.int32), jnp.float32), lambda v: v, x)"
    assert "jnp.asarray(..., jnp.float32) around what true_fun returns" in card["fix"]
    assert shell.run_cell("_y = " + card["rewrite"].splitlines()[0]).success
    assert [str(shell.user_ns["_y"].dtype), list(shell.user_ns["_y"].shape)] == \
        JAX["cond_branch_dtypes_cast"]
    assert JAX["cond_branch_dtypes_cast"] == JAX["cond_branch_where_promotes"] == \
        ["float32", [3, 2]]
    # (the branches lambdas of the line: the line back with the lambda's body so shaped;
    # learner6: `return result...` fits no lambda)
    fixes = {"v[:1]": ("jnp.broadcast_to(v[:1], (3, 2))", "cond_branch_shapes_broadcast"),
             "v[:2]": ("jnp.pad(v[:2], [(0, 1), (0, 0)])", "cond_branch_shapes_pad")}
    for other, (body, fact) in fixes.items():
        _, card = shown(shell, f"lax.cond(True, lambda v: v, lambda v: {other}, x)")
        assert card["origin"]["mismatch"] == "shapes"
        line, _, said = card["rewrite"].splitlines()[0].partition("    # ")
        assert line == f"lax.cond(True, lambda v: v, lambda v: {body}, x)", card["rewrite"]
        # (what a pad adds is said to be the rewrite's, not the learner's)
        assert (said == "false_fun's result padded with zeros: a value of yours to choose") \
            == ("pad" in body), said
        assert shell.run_cell("_y = " + line).success
        assert [str(shell.user_ns["_y"].dtype), list(shell.user_ns["_y"].shape)] == \
            JAX[fact] == ["float32", [3, 2]], fact
    _, card = shown(shell, "lax.cond(True, lambda v: v[:2], lambda v: v, x)")
    assert card["rewrite"].splitlines()[0] == "lax.cond(True, lambda v: v[:2], lambda v: v[:2], x)"
    assert JAX["cond_branch_shapes_slice"] == ["float32", [2, 2]]
    # a branch that is no lambda of the line: its own return so shaped (it wrote `return
    # jnp.broadcast_to(result, ...)`, a name _cut has not; pasted, test_card_rewrites_pasted.py)
    shell.run_cell("def _cut(v):\n    return v[:1]")
    _, card = shown(shell, "lax.cond(True, lambda v: v, _cut, x)")
    assert card["rewrite"].splitlines()[1] == \
        "return jnp.broadcast_to(v[:1], (3, 2))    # in place of return v[:1]"
    # switch: no jnp.where alternative (more than two branches); its lambdas in the list
    # rewritten as cond's are (stop 101: it gave `# in branch 0 (<lambda>), return float32:`
    # and the pattern; JAX's values of such lines: test_card_gaps.py's switch cases)
    _, card = shown(shell, "lax.switch(1, [lambda v: v, lambda v: v * 1.0], "
                           "jnp.ones(2, jnp.int32))")
    assert card["origin"]["api"] == "switch" and "jnp.where" not in card["rewrite"]
    assert card["rewrite"] == ("lax.switch(1, [lambda v: jnp.asarray(v, jnp.float32), "
                               "lambda v: v * 1.0], jnp.ones(2, jnp.int32))")
    assert shell.run_cell("_y = " + card["rewrite"]).success
    assert str(shell.user_ns["_y"].dtype) == "float32"


def _applied(shell, setup, rewrite):
    """Each runnable line of a card's rewrite (comments dropped) run after `setup`: the
    learner's cell with the advice applied."""
    code = "\n".join(line.split("    #")[0] for line in rewrite.splitlines()
                     if not line.startswith("#"))
    assert shell.run_cell(setup + "\n" + code).success, code


def _listed(value):
    return jxkernel.tree_util.tree_map(lambda a: np.asarray(a).tolist(), value)


def _close(ours, theirs):
    """JAX's recorded values: small integers and their sums in float32 (a few ulp)."""
    flat = [np.asarray(v, dtype=float) for v in jxkernel.tree_util.tree_leaves(ours)]
    want = [np.asarray(v, dtype=float) for v in jxkernel.tree_util.tree_leaves(theirs)]
    assert len(flat) == len(want)
    for a, b in zip(flat, want):
        np.testing.assert_allclose(a, b, rtol=4 * 2.0 ** -23, atol=0)


def test_grad_of_a_vector_output_advises_the_jacobian_and_the_sum(shell):
    """grad of x ** 2 over a vector: JAX's TypeError; the card's lines (jacrev, the sum's
    grad) run and give JAX's recorded Jacobian and gradient; vmap of grad is offered for
    elementwise functions only, and gives JAX's values for this one."""
    setup = "def square(x):\n    return x ** 2\nxs = jnp.arange(3.0)"
    text, card = shown(shell, setup + "\n_g = jax.grad(square)(xs)")
    assert card["kind"] == "grad-output"
    assert card["message"] == JAX["grad_of_vector_output"]["first_line"]
    assert "(3,)" in card["title"] and "jacrev" in card["fix"]
    lines = card["rewrite"].splitlines()
    assert lines[0].split("    #")[0] == "_g = jax.jacrev(square)(xs)", lines
    assert lines[1].split("    #")[0] == "_g = jax.grad(lambda *args: square(*args).sum())(xs)"
    assert "jax.vmap(jax.grad(square))" in lines[2] and lines[2].startswith("# square elementwise")
    shell.run_cell(setup + "\n" + lines[0].split("    #")[0])
    _close(_listed(shell.user_ns["_g"]), JAX["fix_jacrev"])
    shell.run_cell(setup + "\n" + lines[1].split("    #")[0])
    _close(_listed(shell.user_ns["_g"]), JAX["fix_grad_of_sum"])
    assert shell.run_cell(setup + "\n_g = jax.vmap(jax.grad(square))(xs)").success
    _close(_listed(shell.user_ns["_g"]), JAX["fix_vmap_grad"])


def test_grad_of_a_vector_lambda_sums_the_lambdas_body(shell):
    """jax.grad(lambda x: x ** 2)(jnp.arange(3.)) (JAX's autodiff tutorial; learner6's trial):
    the sum's line is the lambda with its body summed, not `lambda *args: (lambda x: ...)(*args)
    .sum()`, and gives JAX's recorded gradient."""
    text, card = shown(shell, "_g = jax.grad(lambda v: v ** 2)(jnp.arange(3.0))")
    line = card["rewrite"].splitlines()[1].split("    #")[0]
    assert line == "_g = jax.grad(lambda v: (v ** 2).sum())(jnp.arange(3.0))", card["rewrite"]
    assert shell.run_cell(line).success
    _close(_listed(shell.user_ns["_g"]), JAX["fix_grad_of_lambda_sum"])


def test_value_and_grad_of_a_vector_output_advises_the_sum(shell):
    setup = "def square(x):\n    return x ** 2\nxs = jnp.arange(3.0)"
    text, card = shown(shell, setup + "\n_v, _g = jax.value_and_grad(square)(xs)")
    assert card["message"] == JAX["value_and_grad_of_vector_output"]["first_line"]
    (line,) = card["rewrite"].splitlines()       # no jacrev: it gives no value
    _applied(shell, setup, line)
    _close(_listed((shell.user_ns["_v"], shell.user_ns["_g"])),
           JAX["fix_value_and_grad_of_sum"])


def test_grad_of_a_loss_and_extra_pair_advises_has_aux(shell):
    setup = "def pair(x):\n    return x.sum(), x\nxs = jnp.arange(3.0)"
    text, card = shown(shell, setup + "\n_g = jax.grad(pair)(xs)")
    assert card["kind"] == "grad-output" and "has_aux=True" in card["fix"]
    assert card["rewrite"].split("    #")[0] == "_g, aux = jax.grad(pair, has_aux=True)(xs)"
    _applied(shell, setup, card["rewrite"])
    _close(_listed((shell.user_ns["_g"], shell.user_ns["aux"])), JAX["fix_has_aux"])
    text, card = shown(shell, setup + "\n_v, _g = jax.value_and_grad(pair)(xs)")
    assert card["rewrite"].split("    #")[0] == \
        "(_v, aux), _g = jax.value_and_grad(pair, has_aux=True)(xs)"
    _applied(shell, setup, card["rewrite"])
    _close(_listed(((shell.user_ns["_v"], shell.user_ns["aux"]), shell.user_ns["_g"])),
           JAX["fix_value_and_grad_has_aux"])


def test_grad_of_a_longer_tuple_says_has_aux_takes_a_pair(shell):
    # JAX's has_aux refuses a triple: the card first has f return loss, (extra1, extra2)
    setup = "def triple(x):\n    return x.sum(), x, 1.0\nxs = jnp.arange(3.0)"
    text, card = shown(shell, setup + "\n_g = jax.grad(triple)(xs)")
    assert card["message"].startswith(JAX["grad_of_triple_output"])
    first, call = card["rewrite"].splitlines()
    assert first == "# in f: return loss, (extra1, extra2)"
    fixed = "def triple(x):\n    return x.sum(), (x, 1.0)\nxs = jnp.arange(3.0)"
    _applied(shell, fixed, call)
    _close(_listed((shell.user_ns["_g"], shell.user_ns["aux"])), JAX["fix_has_aux_of_a_triple"])


def test_grad_of_a_dict_output_differentiates_its_loss_entry(shell):
    setup = ("def entries(x):\n    return {'loss': (x ** 2).sum(), 'y': x}\n"
             "xs = jnp.arange(3.0)")
    text, card = shown(shell, setup + "\n_g = jax.grad(entries)(xs)")
    assert card["message"].startswith(JAX["grad_of_dict_output"])
    assert card["rewrite"].split("    #")[0] == \
        "_g = jax.grad(lambda *args: entries(*args)['loss'])(xs)"
    _applied(shell, setup, card["rewrite"])
    _close(_listed(shell.user_ns["_g"]), JAX["fix_dict_entry"])


def test_grad_of_none_says_a_return_is_missing(shell):
    text, card = shown(shell, "def nothing(x):\n    x.sum()\n_g = jax.grad(nothing)(1.0)")
    assert card["kind"] == "grad-output" and "missing return" in card["why"]


@pytest.mark.parametrize("cell, case, rewrite, fact", [
    ("_y = float(jnp.array([1.5]))", "float_of_one_element",
     "_y = float(jnp.array([1.5]).item())", "fix_item"),
    ("_y = int(jnp.array([1, 2]))", "int_of_vector", "_y = jnp.array([1, 2]).tolist()",
     "fix_tolist"),
    ("_y = jax.jit(lambda x: float(x) * 2)(jnp.ones(2))", "float_of_vector_in_jit",
     "_y = jax.jit(lambda x: x.astype(float) * 2)(jnp.ones(2))", "fix_astype_in_jit"),
])
def test_a_python_number_of_an_array_with_dimensions(shell, cell, case, rewrite, fact):
    """int()/float() of an array with dimensions: JAX's TypeError, even for one element; the
    card's rewrite of the user's line runs and gives JAX's recorded value (eager: the one
    element, every value; under jit: an array still, its dtype changed)."""
    text, card = shown(shell, cell)
    assert card["kind"] == "scalar-conversion"
    assert card["message"] == JAX[case]["first_line"]
    assert card["rewrite"].split("    #")[0] == rewrite, card["rewrite"]
    assert shell.run_cell(rewrite).success
    assert _listed(shell.user_ns["_y"]) == JAX[fact]
    if case == "int_of_vector":        # the other ways the card names, as JAX gives them
        assert "x.sum()" in card["fix"] and "x[i]" in card["fix"]
        assert int(jnp.array([1, 2]).sum()) == JAX["fix_sum"]
        assert int(jnp.array([1, 2])[0]) == JAX["fix_first"]


def test_complex_of_a_matrix_gets_the_card_with_its_shape(shell):
    text, card = shown(shell, "_c = complex(jnp.ones((2, 2)))")
    assert card["message"] == JAX["complex_of_matrix"]["first_line"]
    assert "(2, 2)" in card["title"] and "4 numbers" in card["why"]
    assert card["rewrite"].split("    #")[0] == "_c = jnp.ones((2, 2)).tolist()"


_ARRAYS = ("X = jnp.ones((3, 4))\nW = jnp.ones((3, 5))\nm = X.mean(axis=1)\n"
           "P = jnp.arange(6.0).reshape(2, 3)\nQ = jnp.arange(6.0, 12.0).reshape(2, 3)\n"
           "v = jnp.arange(3.0)")


@pytest.mark.parametrize("case", sorted(OPERAND_SHAPES))
def test_operands_whose_shapes_do_not_fit_get_a_rewrite_that_fits(shell, case):
    """Elementwise operands that do not broadcast and matrix products whose inner sizes
    differ: JAX's error; the card rewrites the user's line (keepdims on the reduction, the
    axis given back, an outer product, a transpose) and the rewrite runs, its result of JAX's
    recorded shape, the one the card's comment states."""
    mistake, fix = OPERAND_SHAPES[case]
    assert shell.run_cell(_ARRAYS).success
    text, card = shown(shell, f"_y = {mistake}")
    assert card["message"] == JAX[f"shapes_{case}"]["first_line"]
    assert card["kind"] == ("matmul-shapes" if case.startswith("matmul") else
                            "broadcast-shapes")
    line, _, note = card["rewrite"].partition("    # ")
    assert line == f"_y = {fix}", card["rewrite"]
    assert shell.run_cell(line).success
    shape = list(shell.user_ns["_y"].shape)
    assert shape == JAX[f"shapes_{case}_fixed"]
    assert str(tuple(shape)) in note or str(tuple(shape)) in card["fix"], (note, card["fix"])


def test_a_matrix_vector_product_names_every_order_that_fits(shell):
    # (3, 4) @ (3,): X.T @ v and v @ X both give (4,), as JAX computes them
    assert shell.run_cell(_ARRAYS).success
    text, card = shown(shell, "_y = jnp.dot(X, jnp.ones(3))")
    assert "a.T @ b gives (4,)" in card["fix"] and "b @ a gives (4,)" in card["fix"]
    assert JAX["shapes_matmul_vector_swapped"] == [4]


def test_a_batched_dot_by_hand_gets_vmap_or_the_batch_first(shell):
    """JAX's vmap tutorial batches by hand: jnp.dot of two batches of vectors (n, k) meant a
    dot per pair, jax.vmap(jnp.dot)(P, Q); a vector times a batch meant the batch times the
    vector, P @ v (jax.vmap(jnp.dot, in_axes=(0, None))(P, v)): the rewrites give JAX's
    values (exact: small integers in float32). Two stacked signals and two stacked kernels
    of other lengths (learner6's jnp.dot(xs, ws)): a.T @ b fits but mixes the batch, said."""
    assert shell.run_cell(_ARRAYS).success
    text, card = shown(shell, "_y = jnp.dot(P, Q)")
    assert card["rewrite"].split("    # ")[0] == "_y = jax.vmap(jnp.dot)(P, Q)"
    assert "a @ b.T gives (2, 2)" in card["fix"]          # the other reading still named
    assert shell.run_cell("_y = jax.vmap(jnp.dot)(P, Q)").success
    assert shell.user_ns["_y"].tolist() == JAX["shapes_matmul_batched_pairs_values"]
    text, card = shown(shell, "_y = jnp.dot(v, P)")
    assert "jax.vmap(jnp.dot, in_axes=(0, None))(b, a)" in card["fix"]
    assert shell.run_cell("_y = jnp.dot(P, v)\n_z = jax.vmap(jnp.dot, in_axes=(0, None))(P, v)"
                          ).success
    assert shell.user_ns["_y"].tolist() == JAX["shapes_matmul_vector_times_batch_values"] == \
        shell.user_ns["_z"].tolist() == JAX["shapes_matmul_vector_times_batch_vmap"]
    # the same array twice is its rows with each other, not pairs
    text, card = shown(shell, "_y = X @ X")
    assert card["rewrite"].startswith("_y = X @ X.T") and "vmap" not in card["fix"]
    assert shell.run_cell("xs = jnp.stack([jnp.arange(5), jnp.arange(5)])\n"
                          "ws = jnp.stack([jnp.array([2., 3., 4.])] * 2)").success
    text, card = shown(shell, "jnp.dot(xs, ws)")
    assert card["message"] == JAX["shapes_stacked_signals"]["first_line"]
    assert ("If the first axis (size 2) is a batch, one example per row (as jnp.stack([x, x]) "
            "makes), a.T @ b sums over it, mixing the examples: apply the per-example function "
            "to each row with jax.vmap(f)(a, b) instead; a dot per row pair needs rows of one "
            "length (5 and 3 differ).") in card["fix"]


def test_a_product_inside_vmap_names_one_examples_shapes(shell):
    """x @ w inside jax.vmap, x mapped along axis 1 of an (8, 3) array: the function sees an
    (8,) x (JAX: contracting sizes (8,) and (3,)); the card named the batched (8, 3), whose
    inner size 3 it said differs from w's 3. It names (8,) and (3, 2), and says that vmap's
    function sees one example; in_axes=(0, None) gives JAX's shape."""
    text, card = shown(shell, "def f(x, w):\n    return x @ w\n"
                              "_y = jax.vmap(f, in_axes=(1, None))(jnp.ones((8, 3)), "
                              "jnp.ones((3, 2)))")
    assert card["kind"] == "matmul-shapes", card
    assert card["message"] == JAX["shapes_matmul_under_vmap"]["first_line"]
    assert card["title"] == "Matrix product of shapes (8,) and (3, 2): inner sizes 8 and 3 differ"
    assert "Inside jax.vmap these are one example's shapes" in card["fix"]
    assert shell.run_cell("_y = jax.vmap(f, in_axes=(0, None))(jnp.ones((8, 3)), "
                          "jnp.ones((3, 2)))").success
    assert list(shell.user_ns["_y"].shape) == JAX["shapes_matmul_under_vmap_fixed"] == [8, 2]


@pytest.mark.parametrize("case", sorted(MATMUL_TO_GRAD))
def test_a_product_returned_to_grad_is_rewritten_to_one_number(shell, case):
    """A product a function returns to jax.grad: the card's first option was a @ a.T, (3, 3),
    which grad refused next. Now jnp.vdot where the two arrays have one size (JAX 0.10.2's
    value, exact: small integers), else the product that fits, summed; the fix says why."""
    mistake, fix = MATMUL_TO_GRAD[case]
    assert shell.run_cell(_ARRAYS + "\nC = jnp.arange(3.0).reshape(3, 1)").success
    text, card = shown(shell, mistake)
    assert card["kind"] == "matmul-shapes", text
    assert card["message"] == JAX[f"to_grad_{case}"]["first_line"]
    assert "returns this product to jax.grad, which needs one number" in card["fix"]
    line = card["rewrite"].split("    # ")[0]
    assert line in [part.strip() for part in fix.splitlines()], card["rewrite"]
    assert shell.run_cell(fix).success
    got = shell.user_ns["_y"]
    assert jax_tree_lists(got) == JAX[f"to_grad_{case}_fixed"], (got, case)


def test_a_product_a_loss_sums_keeps_its_shape(shell):
    """The product a model returns to the loss that sums it (`loss` calls `model`) is no
    number grad needs: the card's options are the plain ones, the first unsummed."""
    text, card = shown(shell, "def model(w, x):\n    return x @ w\n"
                              "def loss(w, x):\n    return model(w, x).sum()\n"
                              "_y = jax.grad(loss)(jnp.ones(4), jnp.ones((4, 3)))")
    assert card["kind"] == "matmul-shapes", text
    assert "jax.grad" not in card["fix"]
    assert card["rewrite"].split("    # ") == ["return x.T @ w", "(3,)"], card["rewrite"]


def jax_tree_lists(tree):
    """`tree` with its arrays as nested lists (tuples as lists): as the reference records."""
    if isinstance(tree, (tuple, list)):
        return [jax_tree_lists(t) for t in tree]
    return np.asarray(tree).tolist()


def test_elementwise_shapes_inside_vmap_are_one_examples_as_jaxs(shell):
    """a + b inside jax.vmap, a mapped along axis 0 of (8, 3), b an unmapped (4,): JAX's jnp
    functions trace one example, so its message names (3,) and (4,); jxkernel's named the
    batched (8, 3) and (1, 4), and its card with them."""
    text, card = shown(shell, "_y = jax.vmap(lambda a, b: a + b, in_axes=(0, None))("
                              "jnp.ones((8, 3)), jnp.ones(4))")
    assert card["message"] == JAX["shapes_add_under_vmap"]["first_line"] == \
        "add got incompatible shapes for broadcasting: (3,), (4,)."
    assert card["title"] == "Shapes (3,) and (4,) do not broadcast"
    # both mapped along axis 0 (the rule's fast path): (3,) and (4,) too
    text, card = shown(shell, "_y = jax.vmap(lambda a, b: a - b)(jnp.ones((8, 3)), "
                              "jnp.ones((8, 4)))")
    assert card["message"] == JAX["shapes_sub_both_mapped"]["first_line"] == \
        "sub got incompatible shapes for broadcasting: (3,), (4,)."


def test_a_where_of_three_shapes_gets_the_card_naming_each_argument(shell):
    """jnp.where(x > 0, x, jnp.ones(4)) of a (3,) x: JAX's ValueError names three shapes,
    and no card was shown (the card read two operands alone). It names each argument with
    its shape, guesses no rewrite, and its scalar fill runs to JAX's values."""
    assert shell.run_cell("x = jnp.arange(3.0) - 1").success
    text, card = shown(shell, "_y = jnp.where(x > 0, x, jnp.ones(4))")
    assert card["kind"] == "broadcast-shapes", card
    assert card["message"] == JAX["shapes_where_fill"]["first_line"]
    assert card["rewrite"] == "# jnp.where's arguments: x > 0 (3,), x (3,), jnp.ones(4) (4,)"
    assert "a scalar fill, 0., broadcasts with any" in card["fix"]
    assert shell.run_cell("_y = jnp.where(x > 0, x, 1.0)").success
    assert shell.user_ns["_y"].tolist() == JAX["shapes_where_fill_scalar"]


def test_shapes_with_nothing_to_rewrite_get_words_not_a_guess(shell):
    # (2, 3) and (4, 5): no axis given back, transpose or outer product makes them fit
    text, card = shown(shell, "_y = jnp.ones((2, 3)) + jnp.ones((4, 5))")
    assert card["kind"] == "broadcast-shapes" and card["rewrite"].startswith("# ")


_FUNCTIONS = ("x = jnp.ones(2)\ndef act(x, name):\n    return x * 2 if name == 'double' else x\n"
              "def apply(fn, x):\n    return fn(x)\ndef neg(v):\n    return -v")


@pytest.mark.parametrize("case", sorted(NOT_ARRAYS))
def test_a_string_or_function_given_to_jit_is_made_static_where_it_is_jitted(shell, case):
    """A str or a function passed where jit traces: JAX's TypeError; the card marks that
    argument static where the user's code jits the function (in the call, the name bound to
    the jit, a decorator's function through __wrapped__), and the rewrite, then the call,
    give JAX's recorded values."""
    before, mistake, fix, after = NOT_ARRAYS[case]
    assert shell.run_cell(_FUNCTIONS + "\n" + before).success
    text, card = shown(shell, mistake)
    assert card["kind"] == "not-an-array"
    assert _unplaced(card["message"]) == JAX[f"not_array_{case}"]["first_line"]
    assert card["rewrite"] == fix, card["rewrite"]
    assert shell.run_cell(fix + "\n" + after).success
    assert np.asarray(shell.user_ns["y"]).tolist() == JAX[f"not_array_{case}_fixed"]


def test_a_string_inside_a_dict_is_not_made_static(shell):
    # the dict cannot be static (unhashable): the card has the string passed on its own
    assert shell.run_cell(_FUNCTIONS).success
    text, card = shown(shell, "y = jax.jit(lambda x, cfg: x)(x, {'name': 'a'})")
    assert card["kind"] == "not-an-array" and "cfg['name'] is inside cfg" in card["fix"]
    assert "static_argnames=('cfg'" not in card["rewrite"]


@pytest.mark.parametrize("case", sorted(VMAP_RANKS))
def test_vmap_of_an_axis_an_argument_has_not(shell, case):
    """in_axes naming an axis an argument has not (a scalar mapped along 0): JAX's
    ValueError; the card names the argument and rewrites in_axes (None, or the axis of the
    others' size), and the rewrite gives JAX's recorded shape."""
    mistake, fix = VMAP_RANKS[case]
    assert shell.run_cell("xs = jnp.ones((5, 3))\ndef scale(x, s):\n    return x * s").success
    text, card = shown(shell, f"_y = {mistake}")
    assert card["kind"] == "vmap-rank"
    assert card["message"] == JAX[f"vmap_rank_{case}"]["first_line"]
    assert card["rewrite"].split("    #")[0] == f"_y = {fix}", card["rewrite"]
    assert shell.run_cell(f"_y = {fix}").success
    assert list(shell.user_ns["_y"].shape) == JAX[f"vmap_rank_{case}_fixed"]


def test_vmap_of_a_scalar_alone_asks_for_a_batch_not_in_axes_none(shell):
    # in_axes all None is JAX's own ValueError: the card asks for a batch instead
    assert JAX["vmap_all_none"]["error"] == "ValueError"
    text, card = shown(shell, "_y = jax.vmap(lambda x: x * 2)(1.0)")
    assert card["message"] == JAX["vmap_rank_scalar_alone"]["first_line"]
    assert "in_axes=None" not in card["rewrite"]
    # (the learner's line with the batch passed: it was `ys = jax.vmap(f)(xs)`, f no name of
    # the learner's, which this test had to replace before the pasted cell ran)
    assert card["rewrite"].splitlines()[1] == "_y = jax.vmap(lambda x: x * 2)(xs)"
    assert shell.run_cell(card["rewrite"]).success
    assert list(shell.user_ns["_y"].shape) == [3]


_KINDS = {"grad": "while-grad", "value": "while-grad", "cond": "cond-predicate",
          "lax": "lax-dtypes", "laxselect": "lax-shapes", "reshape": "reshape-size",
          "float": "float-index",
          "float_shape": "float-shape", "slice": "slice-indices", "scan_output": "scan-output",
          "integer": "integer-power", "vmap": "vmap-in-axes", "body": "body-arguments",
          "at": "immutable-array", "tree": "tree-structure", "axis": "axis-bounds",
          "scan": "scan-lengths", "ragged": "ragged-array", "list": "list-argument",
          "while": "while-per-element", "fori_bounds": "fori-bounds", "mask": "boolean-index",
          "list_operand": "list-operand", "list_index": "list-index",
          "python_max": "bool-conversion", "python_min": "bool-conversion",
          "python_math": "concretization", "scalar_math": "scalar-conversion",
          "scalar_fstring": "scalar-conversion", "max_of": "elementwise-max",
          "min_of": "elementwise-max",
          "truth": "truth-value", "static_shape": "concretization",
          "random": "random-arguments", "readonly": "readonly-view",
          "concatenate": "concatenate-ranks", "branch": "branch-types",
          "object": "not-an-array", "traced_slice": "traced-slice"}


def _kind_of(case):
    """The card kind a case's name starts with: its first two words, else its first."""
    words = case.split("_")
    return _KINDS.get("_".join(words[:2])) or _KINDS[words[0]]


def _value(v):
    return json.loads(json.dumps(jxkernel.tree_util.tree_map(lambda a: np.asarray(a).tolist(),
                                                             v)))


@pytest.mark.parametrize("case", sorted(CARD_REWRITES))
def test_a_card_rewrites_the_line_to_one_that_gives_jaxs_value(shell, case):
    """grad of a while_loop (jacfwd), lax.cond given a condition per element (jnp.where),
    lax given two dtypes (the jnp function JAX's tip names), a reshape of another size (-1),
    a float index (//, an integer), an integer to a negative power (a float base), an in_axes
    of another length (None added, or the last dropped), a loop body's lambda missing what
    the loop passes (fori_loop's index, scan's x): JAX's error, and the card's rewrite of the
    user's line, run, gives JAX's recorded value."""
    mistake, fix = CARD_REWRITES[case]
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, f"_y = {mistake}")
    assert card is not None, text
    assert card["kind"] == _kind_of(case)
    assert card["message"] == JAX[f"card_{case}"]["first_line"]
    line = card["rewrite"].splitlines()[0].split("    # ")[0]
    assert line == f"_y = {fix}", card["rewrite"]
    assert shell.run_cell(line).success
    assert _value(shell.user_ns["_y"]) == JAX[f"card_{case}_fixed"]


@pytest.mark.parametrize("case", sorted(CARD_OTHER_FIXES))
def test_the_other_fixes_a_card_names_work_as_in_jax(shell, case):
    """jnp.all for one branch, static fori_loop bounds, a cast for lax, 1 / x: each as the
    cards' words write it, JAX's recorded value."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    assert shell.run_cell(f"_y = {CARD_OTHER_FIXES[case]}").success
    assert _value(shell.user_ns["_y"]) == JAX[f"card_{case}"]


def test_a_cond_card_offers_jnp_all_on_its_second_line(shell):
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, "_y = lax.cond(x > 2, lambda v: v * 2, lambda v: -v, x)")
    assert card["rewrite"].splitlines()[2] == \
        "_y = " + CARD_OTHER_FIXES["cond_all"], card["rewrite"]
    assert "jnp.any" in card["fix"] and "shape (3,)" in card["why"]


def test_a_while_grad_card_names_the_static_bounds_fix(shell):
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, "_y = jax.grad(grow)(2.0)")
    assert "static_argnums" in card["fix"] and "lax.scan" in card["fix"]
    assert JAX["card_fori_loop_static_bounds"] == JAX["card_grad_of_fori_loop_traced_bounds_fixed"]


@pytest.mark.parametrize("mistake, words", [
    ("m.reshape(4)", "(6,)"),
    ("m.reshape(4, -1)", "(1, 6), (2, 3), (3, 2), (6, 1)"),
    ("m.reshape(4, 4)", "(1, 6), (2, 3), (3, 2), (6, 1)"),
])
def test_a_reshape_with_no_size_to_work_out_gets_shapes_that_fit(shell, mistake, words):
    """No one axis can be -1 (one axis, -1 given already, or no axis whose others divide 6):
    words listing shapes of 6 elements, and no code that would fail."""
    assert shell.run_cell(CARD_SETUP).success
    text, card = shown(shell, f"_y = {mistake}")
    assert card["kind"] == "reshape-size" and words in card["fix"], card["fix"]
    assert card["rewrite"].startswith("# ")


@pytest.mark.parametrize("case", sorted(CARD_PROGRAMS))
def test_a_card_rewrite_of_more_than_a_line_runs_as_jaxs(shell, case):
    """A named fori_loop body taking the value alone (its def line given the index), a
    while_loop's lambdas of two parameters (functions unpacking the one value), a lambda body
    bound to a name (the line making it given the index), a call written over two lines (one
    line given back), `x.at[0] = v` (x = x.at[0].set(v)): JAX's error, and the program the
    card's rewrite makes, run, gives JAX's recorded value."""
    mistake, program = CARD_PROGRAMS[case]
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, mistake)
    assert card is not None, text
    assert card["kind"] == _kind_of(case)
    # (a lambda's address dropped; the shell's class is __main__'s, the recording's exec's)
    assert _unplaced(card["message"]).replace("'__main__.", "'") == \
        JAX[f"card_{case}"]["first_line"]
    rewrite = "\n".join(line.split("    # ")[0] for line in card["rewrite"].splitlines())
    if rewrite.startswith("def twice(i, c):"):       # its def line: the body as before
        rewrite = rewrite + "\n    return c * 2\n" + mistake
    if case == "body_fori_lambda_named":              # the lambda's line: then the call
        rewrite = rewrite + "\n" + mistake.splitlines()[1]
    if case == "at_assigned":                         # the assignment line alone is rewritten
        rewrite = mistake.splitlines()[0] + "\n" + rewrite
    if case == "object_registered":                   # the class as before, then registered
        rewrite = mistake[:mistake.index("_y = ")] + rewrite
    if case.startswith("readonly_"):                  # the view made as before, then copied
        rewrite = mistake.rsplit("\n", 1)[0] + "\n" + rewrite
    assert rewrite == program, card["rewrite"]
    assert shell.run_cell(rewrite).success
    assert _value(shell.user_ns["_y"]) == JAX[f"card_{case}_fixed"]


@pytest.mark.parametrize("case", sorted(STATIC_JIT_ABOVE))
def test_a_list_of_sizes_given_to_a_jit_made_above_gets_it_static_as_a_tuple(shell, case):
    """fz = jax.jit(fill) on one line, fz(1.0, shp) of a list of sizes on the next: JAX's
    error, and the card's first lines make the jit again with the shape static and pass the
    list as its tuple (it said only "a size? take it from a shape"); run, JAX's value."""
    mistake, program = STATIC_JIT_ABOVE[case]
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, mistake)
    assert card is not None and card["message"] == JAX[f"card_{case}"]["first_line"], text
    lines = [line.split("    # ")[0] for line in card["rewrite"].splitlines()[:2]]
    assert "\n".join(lines) == program, card["rewrite"]
    assert shell.run_cell(program).success
    assert _value(shell.user_ns["_y"]) == JAX[f"card_{case}_fixed"]


def test_trees_of_two_structures_get_words_and_a_print_of_each(shell):
    """No part of the other tree has the first's structure: JAX's error, words naming what
    differs, and a rewrite printing both structures, which runs."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, "_y = jax.tree_util.tree_map(lambda p, g: p - g, params, {'w': 1.0})")
    assert card["kind"] == "tree-structure"
    assert "different numbers of pytree children at the top" in card["why"], card["why"]
    # what differs there, as JAX's message says below its first line (the card shows that
    # line alone): the key one tree lacks
    assert card["why"].endswith("There params has keys b, w and {'w': 1.0} has w: b is in "
                                "params alone."), card["why"]
    assert card["rewrite"].splitlines()[0] == "print(jax.tree_util.tree_structure(params))"
    assert shell.run_cell(card["rewrite"]).success


@pytest.mark.parametrize("other, said", [
    ("{'w': (1.0, 2.0), 'b': 0.0}", None),                  # a prefix: no error
    ("[1.0, 0.0]", "There params has a dict and [1.0, 0.0] a list."),
    ("{'w': 1.0, 'c': 0.0}", "There params's keys are ('b', 'w') and {'w': 1.0, 'c': 0.0}'s "
                             "('c', 'w')."),
])
def test_a_tree_structure_card_says_what_differs_where_jaxs_message_does(shell, other, said):
    """Another type, or other keys of one number: the card's why says them in the trees'
    names, from JAX's message (jxkernel's tree_util writes JAX's words)."""
    assert shell.run_cell(CARD_SETUP).success
    if said is None:
        assert shell.run_cell(f"_y = jax.tree.map(lambda p, g: p, params, {other})").success
        return
    text, card = shown(shell, f"_y = jax.tree.map(lambda p, g: p, params, {other})")
    assert card["kind"] == "tree-structure" and card["why"].endswith(said), card["why"]


def test_a_tree_structure_card_says_the_lengths_of_two_tuples():
    """The lengths of a tuple at a key path (`['a']`), from JAX's message."""
    import jxkernel
    from jxkernel.views.error_cards.trees import _difference
    try:
        jxkernel.tree.map(lambda u, v: u, {"a": (1.0, 2.0)}, {"a": (1.0, 2.0, 3.0)})
    except ValueError as e:
        assert _difference(str(e), "p", "g") == \
            " There p has a tuple of length 2 and g one of length 3."
    else:
        raise AssertionError("tree_map paired a 2-tuple with a 3-tuple")


def test_a_ragged_card_pads_the_rows_and_its_mask_runs_as_jaxs(shell):
    """Rows written out as lists: the rewrite pads them with 0 and adds a mask of the real
    entries; both lines run, the mask is JAX's value of the same code."""
    assert shell.run_cell(CARD_SETUP).success
    text, card = shown(shell, "_y = jnp.array([[1, 2], [3]])")
    assert card["kind"] == "ragged-array" and "rows of lengths 2, 1" in card["why"], card["why"]
    assert shell.run_cell(card["rewrite"]).success
    assert _value(shell.user_ns["mask"]) == JAX["card_ragged_mask"]


@pytest.mark.parametrize("mistake, axes", [("x.sum(axis=2)", "0"), ("M.sum(axis=3)", "0 and 1"),
                                           ("x.sum(axis=-2)", "0")])
def test_an_axis_past_the_last_by_more_than_one_gets_words_not_code(shell, mistake, axes):
    """Not the count-from-1 slip (axis == ndim): no guess at the axis meant, the axes listed."""
    assert shell.run_cell(CARD_SETUP).success
    text, card = shown(shell, f"_y = {mistake}")
    assert card["kind"] == "axis-bounds"
    assert card["rewrite"].startswith("# ") and card["rewrite"].endswith(f": {axes}")
    assert JAX["card_axis_last"] == JAX["card_axis_counted_from_one_fixed"]   # -1: the last


def test_a_scan_card_lists_each_xs_leaf_with_its_length(shell):
    """The leaves by key path, their types and lengths, as the origin table; a dict of xs
    (no tuple to cut) gets words, its template reading the constant in the body."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, "_y = lax.scan(lambda c, d: (c, d['a']), 0.0, {'a': x, 'w': M})")
    assert card["kind"] == "scan-lengths"
    assert card["origin"]["arguments"] == [
        {"name": "xs['a']", "axis": 0, "size": 3, "type": "float32[3]"},
        {"name": "xs['w']", "axis": 0, "size": 2, "type": "float32[2,3]"}]
    assert "xs['w'] has 2" in card["why"] and "inside the body" in card["fix"]
    assert "xs['a']: float32[3], 3 steps along axis 0" in \
        error_cards.render_text(error_cards.ErrorCard(**{k: card[k] for k in _CARD_FIELDS}))


@pytest.mark.parametrize("case", ["scan_xs_lengths", "scan_xs_lengths_longer_first"])
def test_a_scan_cards_title_gives_the_lengths_in_jaxs_order(shell, case):
    """xs[0]'s length first, as JAX's message (and the card's table) give them, not sorted."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, f"_y = {CARD_REWRITES[case][0]}")
    sizes = JAX[f"card_{case}"]["first_line"].split(": ")[1].rstrip(".").split(", ")
    assert card["title"] == f"scan's xs have different lengths ({' and '.join(sizes)})"
    assert [a["size"] for a in card["origin"]["arguments"]] == [int(s) for s in sizes]


@pytest.mark.parametrize("line, steps", [
    ("_y = lax.scan(lambda c, x: (c + x, c), 0, 10)", "10"),
    ("n = 10\n_y = lax.scan(lambda c, x: (c + x, c), 0, n)", "n")])
def test_a_scan_over_a_number_of_steps_walks_an_arange(shell, line, steps):
    """xs an int (JAX: "scan got value with no leading axis to scan over: 10."): read as the
    number of steps, the line rewritten with jnp.arange, which runs whether or not the body
    reads x; pasted, it runs those steps."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, line)
    assert card["kind"] == "scan-lengths"
    assert card["message"] == "scan got value with no leading axis to scan over: 10."
    rewritten = line.replace(f", 0, {steps})", f", 0, jnp.arange({steps}))").splitlines()[-1]
    assert card["rewrite"] == f"{rewritten}    # 10 steps, x = 0, 1, ..., 9"
    assert shell.run_cell(card["rewrite"]).success
    carry, ys = shell.user_ns["_y"]
    assert int(carry) == 45 and list(ys.shape) == [10]


def test_a_scan_over_a_float_gets_words_not_a_guess(shell):
    """2.5 is no count of steps: the card says what xs must be and gives a template."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, "_y = lax.scan(lambda c, x: (c + x, c), 0.0, 2.5)")
    assert card["kind"] == "scan-lengths" and card["title"].startswith("scan's xs is 2.5")
    assert card["rewrite"].startswith("# ") and "jnp.arange(n)" in card["fix"]


@pytest.mark.parametrize("line, fixed", [
    ("_y = lax.while_loop(lambda c: c, lambda c: c - 1.0, 3.0)", "lambda c: c != 0"),
    ("def left(c):\n    return c\n_y = lax.while_loop(left, lambda c: c - 1.0, 3.0)",
     "lambda c: left(c) != 0")])
def test_a_while_condition_giving_a_number_reads_as_python_would(shell, line, fixed):
    """`lambda c: c` (JAX: "cond_fun must return a boolean scalar, but got output type(s)
    [ShapedArray(float32[], weak_type=True)]."): the card names the dtype, and the rewrite says
    what Python's `while c:` means, c != 0; pasted, the loop runs to 0."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, line)
    assert card["kind"] == "while-condition" and "float32" in card["title"]
    assert card["message"] == ("cond_fun must return a boolean scalar, but got output type(s) "
                               "[ShapedArray(float32[], weak_type=True)].")
    assert card["rewrite"].startswith(
        f"_y = lax.while_loop({fixed}, lambda c: c - 1.0, 3.0)    #"), card["rewrite"]
    assert shell.run_cell(card["rewrite"]).success
    assert float(shell.user_ns["_y"]) == 0.0


@pytest.mark.parametrize("line, index", [
    ("_y = lax.switch(1.0, [lambda: 1.0, lambda: 2.0])", "1"),
    ("n = 3\n_y = lax.switch(n / 2, [lambda: 1.0, lambda: 2.0])", "jnp.int32(n / 2)")])
def test_a_float_switch_index_is_made_an_integer(shell, line, index):
    """JAX: "Index type must be an integer, got 1.0 as float32" (1.5 for n / 2): a whole float
    literal written as an int, anything else wrapped in jnp.int32; pasted, branch 1 runs."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, line)
    assert card["kind"] == "switch-index" and card["title"].endswith("a float32 index")
    assert card["rewrite"].startswith(
        f"_y = lax.switch({index}, [lambda: 1.0, lambda: 2.0])    #"), card["rewrite"]
    assert shell.run_cell(card["rewrite"]).success
    assert float(shell.user_ns["_y"]) == 2.0


@pytest.mark.parametrize("line, fixed, values", [
    ("g, aux = jax.grad(loss, has_aux=True)(3.0)", "g = jax.grad(loss)(3.0)", {"g": 6.0}),
    ("(v, aux), g = jax.value_and_grad(loss, has_aux=True)(3.0)",
     "v, g = jax.value_and_grad(loss)(3.0)", {"v": 9.0, "g": 6.0})])
def test_has_aux_given_a_plain_loss_is_left_out(shell, line, fixed, values):
    """JAX: "expected function with aux output to return a two-element tuple, but got type
    <class '...LinearizeTracer'> ...": has_aux dropped and the aux no longer unpacked; pasted,
    the gradient (and value) of x ** 2 at 3."""
    assert shell.run_cell("def loss(x):\n    return x ** 2").success
    text, card = shown(shell, line)
    assert card["kind"] == "aux-output" and card["title"].endswith("one value, not a pair")
    assert card["message"].startswith("expected function with aux output to return a "
                                      "two-element tuple, but got type <class '")
    assert card["rewrite"] == f"{fixed}    # no has_aux: f returns the loss alone"
    assert shell.run_cell(card["rewrite"]).success
    assert {k: float(shell.user_ns[k]) for k in values} == values


def test_has_aux_given_three_values_gets_one_pair(shell):
    """`return loss, acc, logits` with has_aux: the extras go in one tuple."""
    assert shell.run_cell("def loss(x):\n    return x ** 2, x, 2 * x").success
    text, card = shown(shell, "g, aux = jax.grad(loss, has_aux=True)(3.0)")
    assert card["kind"] == "aux-output" and "returned 3 values" in card["title"]
    assert card["rewrite"].startswith("# in f: return loss, (extra1, extra2)")
    assert shell.run_cell("def loss(x):\n    return x ** 2, (x, 2 * x)\n"
                          "g, aux = jax.grad(loss, has_aux=True)(3.0)").success
    assert float(shell.user_ns["g"]) == 6.0


_CARD_FIELDS = ("kind", "title", "why", "fix", "rewrite", "where", "called_from", "origin",
                "docs", "error", "message")


def test_a_while_card_names_the_conditions_shape_and_a_list_card_the_argument(shell):
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, "_y = lax.while_loop(lambda c: c < 10, lambda c: c * 2, M + 1)")
    assert card["kind"] == "while-per-element" and "shape (2, 3)" in card["why"], card["why"]
    text, card = shown(shell, "_y = jnp.mean((1.0, 2.0))")
    assert card["kind"] == "list-argument" and card["title"] == "jnp.mean was given a Python tuple"
    assert card["rewrite"].startswith("_y = jnp.mean(jnp.asarray((1.0, 2.0)))")


def test_a_scan_output_card_offers_each_steps_value_on_its_second_line(shell):
    """A body returning one value: `(b, None)` first, `(b, b)` on the second line, which runs
    and gives JAX's value of the same code."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, "_y = lax.scan(lambda c, v: c + v, 0.0, x)")
    assert card["kind"] == "scan-output" and "float32[]" in card["why"], card["why"]
    second = card["rewrite"].splitlines()[1].split("    # ")[0]
    assert second == "_y = " + CARD_OTHER_FIXES["scan_output_each_step"], card["rewrite"]
    assert shell.run_cell(second).success
    assert _value(shell.user_ns["_y"]) == JAX["card_scan_output_each_step"]


@pytest.mark.parametrize("case", sorted(CARD_PATTERNS))
def test_a_card_whose_fix_the_learner_chooses_shows_a_pattern_that_runs_filled_in(shell, case):
    """jax.random.randint(key, (3,), 0): JAX's "missing 1 required positional argument:
    'maxval'", and the card read it as NumPy's randint(high) though no NumPy call has a high
    of 0, inventing a bound of 10 and a line of normal's the learner never wrote. Now its
    pattern is the learner's call with `maxval` in its place, as comments: filled in, it runs
    and gives JAX's value."""
    mistake, filled = CARD_PATTERNS[case]
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, f"_y = {mistake}")
    assert card is not None and card["kind"] == _kind_of(case), text
    assert card["message"] == JAX[f"card_{case}"]["first_line"]
    assert card["title"] == "jax.random.randint takes both bounds, minval and maxval"
    assert "0, 0)" not in card["rewrite"]       # (NumPy's reading: an empty range, every draw 0)
    lines = card["rewrite"].splitlines()
    assert all(line.startswith("# ") for line in lines), card["rewrite"]
    assert lines[-1] == f"#   _y = {filled.replace(', 10)', ', maxval)')}", card["rewrite"]
    assert shell.run_cell(f"_y = {filled}").success
    assert _value(shell.user_ns["_y"]) == JAX[f"card_{case}_filled"]


@pytest.mark.parametrize("case", sorted(JAX_ADVICE))
def test_a_jnp_functions_own_fix_in_jaxs_message_leads_the_cards_fix(shell, case):
    """jnp.repeat of traced repeats, jnp.bincount of traced values under jit: JAX 0.10.2's
    message says on its second line what to pass (total_repeat_length=, length=); the card
    showed the first line alone and said "a size? take it from a shape". Now its fix starts
    with JAX's line, word for word, and its code says it first."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, f"_y = {JAX_ADVICE[case]}")
    want = JAX[f"advice_{case}"]["lines"]
    assert card is not None and card["message"] == want[0], text
    assert card["fix"].startswith(f"JAX's message says: {want[1]}"), card["fix"]
    assert card["rewrite"].startswith(f"# {want[1]}"), card["rewrite"]


@pytest.mark.parametrize("case", sorted(CARD_WORDS))
def test_a_card_with_no_rewrite_it_can_stand_behind_gives_words_not_code(shell, case):
    """A fori_loop bound of 2.5 or a traced float (no `/`, no whole float to rewrite), arrays
    of ranks 1 and 3, a stack along axis 1, hstack of a row: JAX's error, a card listing what
    it knows (each operand's shape), and a comment, never code."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, f"_y = {CARD_WORDS[case]}")
    assert card is not None, text
    assert card["kind"] == _kind_of(case)
    assert card["message"] == JAX[f"card_{case}"]["first_line"]
    assert card["rewrite"].startswith("# ") and "\n" not in card["rewrite"], card["rewrite"]
    for shape in re.findall(r"\([\d, ]*\)", card["message"]):    # concatenate's operands
        assert shape in card["why"] and shape in card["rewrite"], (shape, card)


@pytest.mark.parametrize("case, second", [("concatenate_row", "concatenate_vstack"),
                                          ("concatenate_hstack", "concatenate_column_stack")])
def test_a_concatenate_card_offers_vstack_or_column_stack_on_its_second_line(shell, case,
                                                                            second):
    """A vector joined to a matrix as a row (axis 0) or a column (axis 1): the second line
    is jnp.vstack or jnp.column_stack of the arrays as given, JAX's value of the same code;
    the card names each operand's shape."""
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, f"_y = {CARD_REWRITES[case][0]}")
    line = card["rewrite"].splitlines()[1].split("    # ")[0]
    assert line == "_y = " + CARD_OTHER_FIXES[second], card["rewrite"]
    assert shell.run_cell(line).success
    assert _value(shell.user_ns["_y"]) == JAX[f"card_{second}"]
    assert "is (2, 3) (2-D)" in card["why"] and "(1-D)" in card["why"], card["why"]


@pytest.mark.parametrize("case", sorted(FORI_FLOAT_BOUNDS))
def test_fori_loop_counts_float_bounds_with_an_int_as_jax(case):
    """Both bounds floats (concrete): JAX takes int() of each (2.5 counts as 2) and counts
    with a Python int, so `c + i` of an int carry stays an int; jxkernel's index was a float
    (a while_loop), giving 10.0 for JAX's 10."""
    names = {"jax": jxkernel, "jnp": jnp, "lax": jxkernel.lax}
    result = eval(FORI_FLOAT_BOUNDS[case], names)
    assert [str(result.dtype), _value(result)] == JAX[f"fori_float_bounds_{case}"]


def test_a_list_index_of_a_list_of_lists_offers_the_index_array_second(shell):
    """JAX's message names a tuple for a list holding lists (one index per axis); NumPy reads
    it as one index array: the card's second line, run, gives JAX's value."""
    assert shell.run_cell(CARD_SETUP).success
    text, card = shown(shell, f"_y = {CARD_REWRITES['list_index_nested'][0]}")
    assert card["rewrite"].splitlines()[1].endswith(
        ": _y = " + CARD_OTHER_FIXES["list_index_nested_array"]), card["rewrite"]
    text, card = shown(shell, "_y = M[[0, slice(None)]]")       # a slice: no index array
    assert card["kind"] == "list-index" and card["rewrite"].splitlines() == [
        "_y = M[0, slice(None)]    # one index per axis"], card["rewrite"]


def test_a_list_operand_under_jit_gets_the_list_made_an_array(shell):
    """Under jit the message names the tracer's class (JAX: DynamicJaxprTracer): the card
    reads the operand's side all the same, and its rewrite gives JAX's value."""
    assert shell.run_cell(CARD_SETUP).success
    text, card = shown(shell, "_y = jax.jit(lambda v: v * [1.0, 2.0, 3.0])(x)")
    assert card["kind"] == "list-operand" and card["title"].endswith("operand of *"), card
    line = card["rewrite"].split("    # ")[0]
    assert line == "_y = " + CARD_OTHER_FIXES["list_operand_under_jit"], card["rewrite"]
    assert shell.run_cell(line).success
    assert _value(shell.user_ns["_y"]) == JAX["card_list_operand_under_jit"]


@pytest.mark.parametrize("cell, rewrite", [
    ("_y = x\n_y -= [1.0, 2.0, 3.0]", "_y -= jnp.asarray([1.0, 2.0, 3.0])"),
    ("_w = [3.0, 2.0, 1.0]\n_y = x < _w", "_y = x < jnp.asarray(_w)"),
])
def test_a_list_operand_of_an_augmented_assignment_or_a_comparison(shell, cell, rewrite):
    # their messages name JAX's class as jaxlib._jax.ArrayImpl (JAX), ArrayImpl (jxkernel)
    assert shell.run_cell(CARD_SETUP).success
    text, card = shown(shell, cell)
    assert card["kind"] == "list-operand", text
    assert card["rewrite"].split("    # ")[0] == rewrite, card["rewrite"]
    assert shell.run_cell(rewrite).success


def test_a_shape_tuple_passed_to_a_decorated_function_gets_its_decorator_static(shell):
    """The tuple's numbers are traced one by one (`shape[0]`): the whole tuple made static,
    in the decorator; the advice, followed, gives the reshape of JAX's static_shape_tuple."""
    cell = ("@jax.jit\ndef shaped(v, shape):\n    return v.reshape(shape)\n"
            "_y = shaped(jnp.arange(6.0), (2, 3))")
    text, card = shown(shell, cell)
    assert card["kind"] == "concretization" and card["origin"]["argument"] == "shape[0]"
    assert card["rewrite"].splitlines()[:3] == [
        "from functools import partial",
        "@partial(jax.jit, static_argnames=('shape',))   # in place of @jax.jit",
        "def shaped(v, shape):"], card["rewrite"]
    fixed = cell.replace("@jax.jit", "from functools import partial\n"
                         "@partial(jax.jit, static_argnames=('shape',))")
    assert shell.run_cell(fixed).success
    assert _value(shell.user_ns["_y"]) == JAX["card_static_shape_tuple_fixed"]


def test_a_shape_tuple_holding_an_array_is_not_advised_static(shell):
    # JAX: static, a tuple holding an array is not hashable
    assert JAX["static_shape_array_inside"]["error"] == "ValueError"
    assert shell.run_cell(CARD_SETUP).success
    text, card = shown(shell, "_y = jax.jit(lambda v, s: v.reshape(s))(m, (jnp.array(2), 3))")
    assert card["kind"] == "concretization" and "static_argnames" not in card["rewrite"], card


@pytest.mark.parametrize("case", sorted(RANDOM_REWRITES))
def test_numpys_random_arguments_become_jaxs_and_draw_jaxs_numbers(shell, case):
    """size= as shape=, low/high as minval/maxval, loc + scale * normal: JAX's error, and the
    card's rewrite, run, draws JAX's recorded numbers (within 4 ulps: normal goes through
    erfinv)."""
    mistake, fix = RANDOM_REWRITES[case]
    text, card = shown(shell, f"_y = {mistake}")
    assert card["kind"] == "random-arguments", text
    assert card["message"] == JAX[f"card_{case}"]["first_line"]
    line = card["rewrite"].splitlines()[0].split("    # ")[0]
    assert line == f"_y = {fix}", card["rewrite"]
    assert shell.run_cell(line).success
    got = np.asarray(shell.user_ns["_y"])       # (float32, or the dtype the call names)
    assert_allclose_ulp(got, np.asarray(JAX[f"card_{case}_fixed"], got.dtype), 4)


@pytest.mark.parametrize("setup, line, fix", [
    ("key = jax.random.key(5)", "jnp.random.uniform(key, (2,), minval=1.0)",
     "jax.random.uniform(key, (2,), minval=1.0)"),
    ("keys = jax.random.split(jax.random.key(5), 3)", "jnp.random.normal(keys[1])",
     "jax.random.normal(keys[1])"),
    ("raw = jax.random.PRNGKey(5)", "jnp.random.randint(raw, (2,), 0, 4)",
     "jax.random.randint(raw, (2,), 0, 4)")])
def test_jaxs_call_given_a_named_key_under_jnp_random_only_changes_module(shell, setup, line,
                                                                          fix):
    """A key read by name in the learner's frame (typed, taken from a batch, raw): the call is
    JAX's already, and the card's line draws what jax.random draws with that key."""
    assert shell.run_cell(setup).success
    text, card = shown(shell, f"_y = {line}")
    assert card["kind"] == "numpy-random", text
    first = card["rewrite"].splitlines()[0].split("    # ")[0]
    assert first == f"_y = {fix}", card["rewrite"]
    assert shell.run_cell(first + f"\n_z = {fix}").success
    assert np.array_equal(shell.user_ns["_y"], shell.user_ns["_z"])


def test_the_functions_said_to_take_a_key_first_do():
    """random_calls.TAKES_KEY (JAX 0.10.2's list): each is jax.random's, its first parameter
    the key, so the module alone changed gives a call that runs."""
    import inspect
    from jxkernel.views.random_calls import TAKES_KEY
    for name in sorted(TAKES_KEY):
        first = next(iter(inspect.signature(getattr(jxkernel.random, name)).parameters))
        assert first == "key", name


@pytest.mark.parametrize("case", sorted(SPLIT_COUNTS))
def test_splits_keys_unpacked_into_other_names_get_a_key_per_name(shell, case):
    """`key, subkey = jax.random.split(key, 3)`: Python's "too many values to unpack", JAX
    0.10.2's too, and no card. The split-count card asks split for a key per name (split(key)
    for two), or takes them all, the rest as a list; each line binds JAX's keys (their bits
    exact)."""
    line, fix, rest = SPLIT_COUNTS[case]
    assert shell.run_cell("key = jax.random.key(0)").success
    text, card = shown(shell, line)
    assert card is not None and card["kind"] == "split-count", text
    assert card["message"] == JAX[f"split_count_{case}"]["first_line"]
    lines = [part.split("    # ")[0] for part in card["rewrite"].splitlines()]
    assert lines == [fix] + ([rest] if rest else []), card["rewrite"]
    for code, recorded in ((fix, "fixed"), (rest, "rest")):
        if code is None:
            continue
        assert shell.run_cell("key = jax.random.key(0)\n" + code).success
        assert split_count_keys(jxkernel, code) == JAX[f"split_count_{case}_{recorded}"]


@pytest.mark.parametrize("case", sorted(NUMPY_RANDOM))
def test_numpys_random_module_asked_of_jnp_becomes_jax_random_with_a_key(shell, case):
    """`jnp.random.normal(size=3)`, `jax.random.randn(2, 3)`: JAX's AttributeError (its
    module named jax.numpy or jax.random; ours jxkernel's), and the card's jax.random call
    with a key, run, gives JAX's numbers (integers exactly, floats within 4 ulps)."""
    mistake, fix = NUMPY_RANDOM[case]
    text, card = shown(shell, f"_y = {mistake}")
    assert card["kind"] == "numpy-random", text
    assert card["message"].replace("jxkernel.", "jax.") == JAX[f"nprandom_{case}"]["first_line"]
    assert card["title"].startswith("jax.random has no " if case.startswith("jax_") else
                                    "jax.numpy has no random module")
    line = card["rewrite"].splitlines()[0].split("    # ")[0]
    assert line == f"_y = {fix}", card["rewrite"]
    assert shell.run_cell(line).success
    want = np.asarray(JAX[f"nprandom_{case}_fixed"])
    got = np.asarray(shell.user_ns["_y"])
    if want.dtype.kind == "f":
        assert_allclose_ulp(got, want.astype(np.float32), 4)
    else:
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("line, case, fixed", [
    ("_k1, _k2 = jax.random.key(0)", "key_unpacked",
     "_k1, _k2 = jax.random.split(jax.random.key(0))"),
    ("_a, _b, _c = jax.random.key(1)", "key_unpacked_three",
     "_a, _b, _c = jax.random.split(jax.random.key(1), 3)"),
])
def test_a_key_unpacked_as_two_gets_it_split(shell, line, case, fixed):
    """JAX: "iteration over a 0-d key array"; split, the two keys are JAX's."""
    text, card = shown(shell, line)
    assert card["kind"] == "key-unpack" and card["message"] == JAX[case]["first_line"], text
    assert card["rewrite"].split("    # ")[0] == fixed, card["rewrite"]
    assert shell.run_cell(fixed).success
    if case == "key_unpacked":
        assert [np.asarray(jxkernel.random.key_data(shell.user_ns[k])).tolist()
                for k in ("_k1", "_k2")] == JAX["key_unpacked_split"]


def test_an_in_axes_card_maps_a_second_batch_of_rows_along_axis_0(shell):
    """in_axes=(0,) for two arrays of 2 rows (JAX's tutorial convolve, a learner's slip in
    learner6's trial): the missing entry is 0, said in the fix; the None the card wrote
    before passes the second array whole, and JAX 0.10.2's dot raises for it."""
    assert JAX["vmap_in_axes_none_for_rows"]["error"] == "TypeError"
    assert shell.run_cell("from jxkernel import lax\n" + CARD_SETUP).success
    text, card = shown(shell, "_y = jax.vmap(jnp.dot, in_axes=(0,))(M, M)")
    assert "along axis 0 too" in card["fix"] and "None would pass it whole" in card["fix"]
    text, card = shown(shell, "_y = jax.vmap(jnp.multiply, in_axes=(0,))(x, M)")
    assert "adds None for the last 1" in card["fix"], card["fix"]


def test_an_object_of_data_into_jit_is_registered_not_marked_static(shell):
    """The pytree tutorial's MyContainer passed to a jitted lambda (learner6's trial): the card
    registers the class (its numbers traced), and says why not static: JAX 0.10.2 compiles a
    static object again for an equal new one (two programs for two calls)."""
    assert JAX["static_object_programs"] == 2
    text, card = shown(shell, CARD_PROGRAMS["object_registered"][0])
    assert "register_dataclass" in card["rewrite"] and "static_argnames" not in card["rewrite"]
    assert "each new Box would compile anew" in card["fix"], card["fix"]
    assert "other numbers (and the same name)" in card["fix"]    # name: static, in the key
    assert card["docs"].endswith("jax.tree_util.register_dataclass.html")


def test_a_range_loop_rewrite_says_it_replaces_the_whole_loop(shell):
    """`for i in range(n): total += i` under jit (JAX's control-flow tutorial; learner6's
    trial): the card's fori_loop line replaces the loop's two lines, as its comment says
    (pasted over the `for` line alone, the body was left and the cell did not parse); so
    pasted, the cell gives JAX's recorded 45."""
    cell = ("@jax.jit\ndef sum_to(n):\n    total = 0\n    for i in range(n):\n"
            "        total += i\n    return total\n_s = sum_to(10)")
    text, card = shown(shell, cell)
    line, comment = card["rewrite"].splitlines()[0].split("    # ")
    assert comment.startswith("in place of the whole loop (its 2 lines)"), comment
    fixed = cell.replace("    for i in range(n):\n        total += i\n", f"    {line}\n")
    assert shell.run_cell(fixed).success
    assert int(shell.user_ns["_s"]) == JAX["range_loop_as_fori_loop"] == 45


COUNTER = ("class Counter:\n    def __init__(self):\n        self.n = 0\n"
           "    def count(self):\n        self.n += 1\n        return self.n\n"
           "counter = Counter()\nfast_count = jax.jit(counter.count)\n"
           "_v = [int(fast_count()) for _ in range(3)]")


def test_a_jitted_method_that_sets_an_attribute_gets_a_note(shell):
    """JAX's stateful-computations tutorial (learner6's trial): jax.jit(counter.count), where
    count does self.n += 1, gives 1 on every call in JAX 0.10.2 (recorded) and here, and
    counter.n stays 1, silently. The note says the assignment ran at the trace alone, at the
    learner's line; a method that only reads, and the state passed in and returned (the
    tutorial's CounterV2, counting as JAX's), get none."""
    facts = JAX["jitted_method_setting_self"]
    assert facts == {"values": [1, 1, 1], "n_after": 1, "state_passed": [1, 2, 3]}
    assert our_facts()["jitted_method_setting_self"] == facts
    (note,) = _notes(shell, COUNTER)
    assert shell.user_ns["_v"] == facts["values"] and shell.user_ns["counter"].n == 1
    assert re.match(here(r"⚠ count sets self.n \(at In\[\d+\]:5\) once, while traced: its "
                         r"compiled program neither reads nor changes self.n"), note), note
    assert "In[" in note and "/tmp" not in note and "ipykernel" not in note
    assert "value, state = jax.jit(counter.count)(state)" in note    # the object by its name
    assert _notes(shell, "_v = [int(fast_count()) for _ in range(3)]") == []   # said once
    reads = COUNTER.replace("        self.n += 1\n", "")
    assert _notes(shell, reads) == []
    v2 = ("class CounterV2:\n    def count(self, n):\n        return n + 1, n + 1\n"
          "fast2 = jax.jit(CounterV2().count)\nstate, _c = 0, []\nfor _ in range(3):\n"
          "    value, state = fast2(state)\n    _c.append(int(value))")
    assert _notes(shell, v2) == []
    assert shell.user_ns["_c"] == facts["state_passed"]


def test_a_numpy_random_draw_inside_jit_gets_a_note(shell):
    """np.random.normal() inside a jitted function (learner6's second pass): JAX 0.10.2 gives
    the same number on every call (recorded), silently. The note says the draw ran at the
    trace, at the learner's line, and names jax.random with a key passed in, which draws anew
    for each key (recorded); a jax.random draw gets no note."""
    facts = JAX["numpy_draw_in_jit"]
    assert facts == {"same_twice": True, "keys_differ": True}
    assert our_facts()["numpy_draw_in_jit"] == facts
    cell = ("import numpy as np\n@jax.jit\ndef noisy(x):\n    return x + np.random.normal()\n"
            "_a, _b = noisy(1.0), noisy(1.0)")
    (note,) = _notes(shell, cell)
    assert float(shell.user_ns["_a"]) == float(shell.user_ns["_b"])
    assert re.match(r"⚠ np.random.normal\(\) drew its number once, while noisy was traced "
                    r"\(at In\[\d+\]:4\)", note), note
    assert "jax.random.normal(key)" in note
    assert _notes(shell, "@jax.jit\ndef noisy2(x, key):\n    return x + jax.random.normal(key)\n"
                         "_c = noisy2(1.0, jax.random.key(0))") == []


def test_a_numpy_generator_draw_inside_jit_gets_the_draw_note(shell):
    """rng = np.random.default_rng(0) (NumPy's advice for new code) or random.Random(0), drawn
    from inside a jitted function: JAX 0.10.2 gives the same number on every call (recorded),
    as np.random.normal's; the note said nothing (it knew the modules alone). It now tells the
    draw at the learner's line; a Generator used outside the function, to make an argument,
    gets none."""
    facts = JAX["generator_draw_in_jit"]
    assert facts == {"generator_same_twice": True, "random_instance_same_twice": True}
    assert our_facts()["generator_draw_in_jit"] == facts
    for made, call in (("np.random.default_rng(0)", "rng.normal()"),
                       ("random.Random(0)", "rng.random()")):
        cell = (f"import numpy as np, random\nrng = {made}\n@jax.jit\ndef noisy_g(x):\n"
                f"    return x + {call}\n_a, _b = noisy_g(1.0), noisy_g(1.0)")
        (note,) = _notes(shell, cell)
        assert float(shell.user_ns["_a"]) == float(shell.user_ns["_b"])
        assert re.match(re.escape(f"⚠ {call} drew its number once, while noisy_g was traced "
                                  "(at In[") + r"\d+\]:5\)", note), note
    assert _notes(shell, "rng = np.random.default_rng(0)\n@jax.jit\ndef plus(x):\n"
                         "    return x + 1\n_c = plus(rng.normal())") == []


@pytest.mark.parametrize("case", sorted(DRAW_NOTES))
def test_the_draw_note_writes_the_learners_draw_with_jax_random(shell, case):
    """A NumPy draw with a size, a Generator's, Python's random.randint inside jit: JAX 0.10.2
    bakes each in (the same value on two calls, recorded). The note wrote every draw as
    `jax.random.normal(key)` (a scalar for `np.random.randn(2, 3)`) and said "its number"
    of arrays; it now rewrites the learner's line with the jax.random call that draws alike:
    under JAX that call draws NumPy's shape and kind, over the same values (integers) or with
    the same mean and spread (floats) over 2000 keys, recorded beside NumPy's own; here it
    draws JAX's first numbers (integers exactly, floats within 4 ulps)."""
    made, draw, fix = DRAW_NOTES[case]
    facts = JAX[f"draw_{case}"]
    assert facts["same_twice"]
    theirs, jaxs = facts["their_stats"], facts["stats"]
    assert {k: jaxs[k] for k in ("shape", "kind")} == {k: theirs[k] for k in ("shape", "kind")}
    if theirs["kind"] == "i":
        assert jaxs["values"] == theirs["values"]
    else:
        assert abs(jaxs["mean"] - theirs["mean"]) <= 0.1 * theirs["std"] + 1e-3, facts
        assert abs(jaxs["std"] / theirs["std"] - 1) <= 0.1, facts
    cell = (f"import numpy as np, random\nrng = {made or None}\n@jax.jit\ndef noisy(x):\n"
            f"    return x + {draw}\n_a, _b = noisy(1.0), noisy(1.0)")
    (note,) = _notes(shell, cell)
    one = jaxs["shape"] == []
    assert note.startswith(f"⚠ {draw} drew its {'number' if one else 'numbers'} once, "), note
    assert ("that same number" if one else "those same numbers") in note, note
    assert f"  def noisy(x, key):\n      return x + {fix}\n" in note, note
    assert shell.run_cell(f"_y = jax.jit(lambda key: {fix})(jax.random.key(0))").success
    got, want = np.asarray(shell.user_ns["_y"]), np.asarray(facts["first"])
    if want.dtype.kind == "f":
        assert_allclose_ulp(got, want.astype(np.float32), 4)
    else:
        assert got.tolist() == want.tolist()


def test_a_shuffle_in_place_is_written_as_a_permutation_bound_to_its_name(shell):
    """np.random.shuffle(idx) inside jit (a batch's order): JAX bakes one order in (recorded);
    the note binds jax.random's permutation to the name shuffled, which under JAX gives a new
    order per key (13 orders of 4 over 20 keys, recorded), and runs here."""
    facts = JAX["draw_shuffled_indices"]
    assert facts["same_twice"] and facts["orders"] > 1
    (note,) = _notes(shell, f"import numpy as np\n{SHUFFLED}"
                            "_b = jax.jit(batch)(jnp.arange(4.0))")
    assert note.startswith("⚠ np.random.shuffle(idx) drew its numbers once"), note
    assert "  def batch(x, key):\n      idx = jax.random.permutation(key, idx)\n" in note, note


def _same_value(got, want, case):
    """A fix's value beside JAX's recorded one: integers, shapes and text exactly, floats
    within 4 ulps (exp, sigmoid and softmax are computed)."""
    if isinstance(want, str):
        assert str(got) == want, case
    elif isinstance(want, int) or isinstance(got, tuple):
        assert (list(got) if isinstance(got, tuple) else got) == want, case
    elif np.asarray(want).dtype.kind == "f":
        assert_allclose_ulp(np.asarray(got), np.asarray(want, np.float32), 4, err_msg=case)
    else:
        assert np.asarray(got).tolist() == want, case


# (x.device() names the device's class: jaxlib's Device, the NumPy backend's NumpyDevice)
@pytest.mark.parametrize("group, case", [
    pytest.param("torch", c, marks=pytest.mark.xla_only("CPU platform")) if c == "device_call"
    else ("torch", c) for c in sorted(TORCH_HABITS)] +
    [("torch_traced", c) for c in sorted(TORCH_HABITS_TRACED)])
def test_a_pytorch_habit_gets_its_line_in_jaxs_words(shell, group, case):
    """PyTorch's names asked of a JAX array or of jax.numpy (x.unsqueeze(0), x.to('cuda'),
    x.size(1), x.sum(dim=1), jnp.cat, x.add_(1.0)): JAX 0.10.2's error, word for word (its
    module named jax.numpy, ours jxkernel's), got no card; the torch-habit card rewrites the
    line in JAX's words, and the rewrite, run, gives the value it gives under JAX."""
    line, fix = (TORCH_HABITS if group == "torch" else TORCH_HABITS_TRACED)[case]
    assert shell.run_cell(TORCH_SETUP).success
    text, card = shown(shell, line)
    assert card is not None and card["kind"] == "torch-habit", text
    assert card["message"].replace("jxkernel.", "jax.") == JAX[f"{group}_{case}"]["first_line"]
    assert card["rewrite"].splitlines()[0].split("    # ")[0] == fix, card["rewrite"]
    assert shell.run_cell(fix).success
    _same_value(shell.user_ns["_y"], JAX[f"{group}_{case}_fixed"], case)


def test_clone_gives_another_array_over_the_same_buffer_as_jaxs():
    """x.clone() (a PyTorch habit) works in JAX 0.10.2: jaxlib's ArrayImpl.clone, another
    Array over the same buffer (recorded); jxkernel's Array had no clone."""
    x = jnp.arange(6.0).reshape(2, 3)
    c = x.clone()
    assert [c is not x, c.unsafe_buffer_pointer() == x.unsafe_buffer_pointer(),
            np.asarray(c).tolist()] == JAX["torch_clone"]


@pytest.mark.parametrize("case", sorted(IN_PLACE))
def test_numpys_in_place_ways_get_the_new_array_bound_to_the_name(shell, case):
    """x.fill(0.0), x.put, x.itemset, x.partition, x.shape = ..., x.dtype = ..., np.copyto,
    np.add.at of a JAX array: JAX 0.10.2's error, word for word, and no card; the
    immutable-array card binds the array JAX's function makes to the name, which, run, gives
    the value it gives under JAX."""
    line, fix = IN_PLACE[case]
    assert shell.run_cell(TORCH_SETUP).success
    text, card = shown(shell, line)
    assert card is not None and card["kind"] == "immutable-array", text
    assert card["message"] == JAX[f"torch_in_place_{case}"]["first_line"]
    assert card["rewrite"].splitlines()[0].split("    # ")[0] == fix, card["rewrite"]
    assert shell.run_cell(fix).success
    _same_value(shell.user_ns["_y"], JAX[f"torch_in_place_{case}_fixed"], case)


def test_an_axis_counted_in_the_batch_inside_vmap_is_told_so_without_an_axis_argument(shell):
    """a.transpose(1, 0) inside jax.vmap of (8, 6) rows: one example is a vector, JAX says
    axis 1 is out of bounds for a 1-D array (recorded); the card told MATLAB's counting from
    1. It now says vmap's function sees one example, and lists that example's axes."""
    text, card = shown(shell, "_y = jax.vmap(lambda a: a.transpose(1, 0))(jnp.ones((8, 6)))")
    assert card["kind"] == "axis-bounds", text
    assert card["message"] == JAX["transpose_inside_vmap"]["first_line"]
    assert card["fix"].startswith("Inside jax.vmap the function sees one example"), card["fix"]
    assert card["rewrite"] == "# one example's axes: 0 (the batch's is vmap's)"


def _card_then_its_lines(shell, group, case, line, kinds, setup=TORCH_SETUP, message=None):
    """The card of a mistake recorded under JAX as `{group}_{case}`: one of `kinds`, its
    message JAX's first line (or `message`, where jxkernel's words differ and say why);
    returns (the card, its code lines without their comments)."""
    if setup:
        assert shell.run_cell(setup).success
    text, card = shown(shell, line)
    assert card is not None and card["kind"] in kinds, text
    assert card["message"] == (message or JAX[f"{group}_{case}"]["first_line"])
    return card, [part.split("    # ")[0] for part in card["rewrite"].splitlines()]


def _fix_gives_jaxs_value(shell, group, case, fix, lines):
    """The card's code `lines` are the fix's last lines; the fix, run, gives JAX's value."""
    assert lines == fix.splitlines()[-len(lines):], lines
    assert shell.run_cell(fix).success
    _same_value(shell.user_ns["_y"], JAX[f"{group}_{case}_fixed"], case)


@pytest.mark.parametrize("case", sorted(JOIN_ARGUMENTS))
def test_arrays_given_one_by_one_to_a_join_are_listed(shell, case):
    """jnp.stack(x, a), jnp.concatenate(v, w), jnp.vstack(x, a): the second array taken as the
    axis, dtype or out, JAX 0.10.2's error names that option (word for word), and no card
    said more; the join-arguments card lists the arrays, and its line gives JAX's value."""
    line, fix = JOIN_ARGUMENTS[case]
    _, lines = _card_then_its_lines(shell, "join_arguments", case, line, ("join-arguments",))
    _fix_gives_jaxs_value(shell, "join_arguments", case, fix, lines)


@pytest.mark.parametrize("case", sorted(SHAPE_ARGUMENTS))
def test_a_shape_given_number_by_number_is_written_as_one_tuple(shell, case):
    """jnp.zeros(2, 3, 4), jnp.reshape(v, 3, 1), jnp.transpose(x, 1, 0), jax.random.normal(key,
    3, 4): JAX 0.10.2's error names the slot the next number landed in (reshape's order, a
    dtype) or counts the arguments, word for word, and no card said more (the random-arguments
    card read normal(key, 3, 4) as a shape of 3 shifted by 4); the shape-arguments card writes
    the numbers as one tuple, and its line gives JAX's value."""
    line, fix = SHAPE_ARGUMENTS[case]
    _, lines = _card_then_its_lines(shell, "shape_arguments", case, line, ("shape-arguments",))
    _fix_gives_jaxs_value(shell, "shape_arguments", case, fix, lines)


@pytest.mark.parametrize("case", sorted(FLOATS_ONLY))
def test_an_integer_array_given_to_an_operation_of_floats_is_cast(shell, case):
    """jax.nn.sigmoid and silu (lax's logistic) and lax.exp of integers: JAX 0.10.2's "does
    not accept dtype int32", word for word, and no card; the lax-dtypes card casts the array
    the learner gave, and its line gives JAX's value."""
    line, fix = FLOATS_ONLY[case]
    card, lines = _card_then_its_lines(shell, "floats_only", case, line, ("lax-dtypes",))
    assert card["title"].endswith("takes floats, and was given int32"), card["title"]
    _fix_gives_jaxs_value(shell, "floats_only", case, fix, lines)


@pytest.mark.parametrize("case", sorted(KEYWORD_OPTIONS))
def test_an_option_given_by_position_is_named(shell, case):
    """jax.jit(f, 1), jax.nn.one_hot(labels, 3, jnp.int8), jnp.pad(v, 1, 'constant', 9),
    jax.lax.map(f, x, 2), jnp.argmax(x, 1, True): Python's count of the arguments ("jit()
    takes from 0 to 1 positional arguments but 2 were given") or JAX's refusal of NumPy's out,
    word for word, and no card named the option; the keyword-option card's line names it (and
    gives lax.map, given two sequences as Python's map takes them, one tuple), and gives JAX's
    value."""
    line, fix = KEYWORD_OPTIONS[case]
    _, lines = _card_then_its_lines(shell, "keyword_option", case, line, ("keyword-option",))
    _fix_gives_jaxs_value(shell, "keyword_option", case, fix, lines)


@pytest.mark.parametrize("case", sorted(NESTED_ITEMS))
def test_an_item_assigned_through_two_subscripts_updates_the_array_it_is_in(shell, case):
    """p['w'][1] = 2.0 of a dict of arrays, z[0][1] = 9.0 of a matrix (and += through them):
    JAX 0.10.2's "immutable" TypeError, word for word; the immutable-array card updates the
    array the item is in, p['w'] = p['w'].at[1].set(2.0), or the item (0, 1) of z, where it
    wrote p.at['w'][1] and z.at[0][1] (both raise under JAX); its line gives JAX's value."""
    line, fix = NESTED_ITEMS[case]
    assert shell.run_cell(TORCH_SETUP).success
    text, card = shown(shell, line)
    assert card is not None and card["kind"] == "immutable-array", text
    assert card["message"] == JAX[f"nested_item_{case}"]["first_line"]
    assert card["rewrite"].splitlines()[0].split("    # ")[0] == fix.splitlines()[1], \
        card["rewrite"]
    assert shell.run_cell(fix).success
    _same_value(shell.user_ns["_y"], JAX[f"nested_item_{case}_fixed"], case)


@pytest.mark.parametrize("case", sorted(LIST_ARGUMENTS))
def test_a_list_given_for_an_array_is_made_one_where_the_learner_wrote_it(shell, case):
    """jnp.full((2,), [1, 2]) (JAX's position 0 is the check's: the fill value), full_like's
    fill_value by keyword, jax.nn.softmax / relu / logsumexp of a list (JAX names the jnp
    function inside them): JAX 0.10.2's words, and the list-argument card makes the list the
    learner wrote an array (it wrapped the shape, or wrote `jnp.max(jnp.asarray(values))`),
    titled by the learner's call; its line gives JAX's value."""
    line, fix = LIST_ARGUMENTS[case]
    card, lines = _card_then_its_lines(shell, "list_arguments", case, line, ("list-argument",))
    called = fix.split(" = ", 1)[1].split("(")[0]
    assert card["title"].startswith(called + " was given"), card["title"]
    _fix_gives_jaxs_value(shell, "list_arguments", case, fix, lines)


@pytest.mark.parametrize("case", sorted(IN_AXES_KEYS))
def test_an_in_axes_dict_of_other_keys_gets_one_entry_for_the_whole_dict(shell, case):
    """jax.vmap(f, in_axes=({'w': None}, 0))(params, x) of params holding 'w' and 'b' (a key
    too many, a nested dict short of one): JAX 0.10.2's "must be a tree prefix" message, word
    for word, and no card; the in_axes-keys card gives the dict's one entry for all of it, and
    its line gives JAX's value."""
    line, fix = IN_AXES_KEYS[case]
    card, lines = _card_then_its_lines(shell, "in_axes_keys", case, line, ("vmap-in-axes",))
    assert "have the argument's keys" in card["why"], card["why"]
    _fix_gives_jaxs_value(shell, "in_axes_keys", case, fix, lines)


@pytest.mark.parametrize("case", sorted(STATIC_DICTS))
def test_a_static_dict_is_made_traced_not_a_tuple_the_function_cannot_index(shell, case):
    """A dict made static, jitted as a lambda on the line or called through a jit made above:
    the card pasted its tuple of pairs as code, which fails at the function's `d['a']` under
    JAX too (recorded: "tuple indices must be integers..."); now the jit's line with the dict
    traced (a pytree: each value traced) gives JAX's value, and the tuple is only a comment
    beside dict(d)."""
    setup, line, fix = STATIC_DICTS[case]
    assert JAX[f"dict_static_{case}_tuple"]["first_line"].startswith("tuple indices must")
    assert shell.run_cell(TORCH_SETUP + setup).success
    text, card = shown(shell, line)
    assert card is not None and card["kind"] == "unhashable-static", text
    assert card["message"] == JAX[f"dict_static_{case}"]["first_line"]
    rewrite = card["rewrite"].splitlines()
    assert rewrite[0].split("   # ")[0] == fix.splitlines()[0], card["rewrite"]
    assert all(part.startswith("#") for part in rewrite[1:] if "((" in part), card["rewrite"]
    assert shell.run_cell(fix).success
    _same_value(shell.user_ns["_y"], JAX[f"dict_static_{case}_fixed"], case)


@pytest.mark.parametrize("case", sorted(SHAPE_ARGUMENTS_SAID))
def test_a_shape_jaxs_own_message_explains_gets_no_card(shell, case):
    """jnp.zeros(3, 4): JAX's message asks "Did you accidentally write `jax.numpy.zeros(3, 4)`
    when you meant `jax.numpy.zeros((3, 4))`", as ours does, word for word: no card repeats it."""
    assert shell.run_cell(TORCH_SETUP).success
    text, card = shown(shell, SHAPE_ARGUMENTS_SAID[case])
    want = JAX[f"shape_arguments_{case}"]
    assert card is None and want["lines"][2].startswith("Did you accidentally"), text
    assert "\n".join(want["lines"]) in text


@pytest.mark.parametrize("case", sorted(MISSING_KEYS))
def test_a_draw_without_its_key_first_gets_one(shell, case):
    """jax.random.normal((2, 3)), uniform((3,), key), bernoulli(None, ...): JAX 0.10.2's
    "unexpected PRNG key type", word for word, named no key; the key-missing card puts the
    key first (moved, or a new one split from the learner's key), and its lines give JAX's
    value."""
    line, fix = MISSING_KEYS[case]
    _, lines = _card_then_its_lines(shell, "missing_key", case, line, ("key-missing",))
    assert "\n".join(lines) == fix
    _fix_gives_jaxs_value(shell, "missing_key", case, fix, lines)


def test_a_key_left_none_in_a_function_is_named_and_not_split_there(shell):
    """Inside a function whose key parameter defaulted to None: the card names the parameter,
    and splits no global key there (`key, sub = split(key)` in a function makes key a local
    read before it is bound): the line, pasted into the function, runs."""
    assert shell.run_cell("key = jax.random.key(0)\ndef init(shape, rng=None):\n"
                          "    return jax.random.normal(rng, shape)").success
    text, card = shown(shell, "_y = init((2,))")
    assert card["kind"] == "key-missing", text
    assert "rng, which is None here" in card["why"] and "rng=None" in card["why"]
    (line,) = card["rewrite"].splitlines()
    body = line.split("    # ")[0].strip()
    assert body == "return jax.random.normal(jax.random.key(0), shape)", line
    assert shell.run_cell(f"def init(shape, rng=None):\n    {body}\n_y = init((2,))").success


@pytest.mark.parametrize("case", sorted(UPDATE_SHAPES))
def test_an_update_given_a_value_of_another_shape_gets_the_two_shapes(shell, case):
    """x.at[:, 0].set(v) with v a row's length, a (2, 1) value for a column, a transposed
    matrix: JAX 0.10.2's error (word for word) names types, not which is the value; the
    update-shape card names the selection's shape and the value's, fits a value holding as
    many numbers (its line gives JAX's value) and writes no guess where it does not, saying
    instead which of x's rows or columns has the value's length."""
    line, fix = UPDATE_SHAPES[case]
    card, lines = _card_then_its_lines(shell, "update_shape", case, line, ("update-shape",))
    if fix is None:
        assert lines[0].startswith("# x.at["), card["rewrite"]
        if case in ("column_given_a_row", "entry_given_a_row"):
            assert "A row of x has 3 entries" in card["why"], card["why"]
        if case in ("row_given_a_column", "list_value"):
            assert "A column of x has 2 entries" in card["why"], card["why"]
        return
    _fix_gives_jaxs_value(shell, "update_shape", case, fix, lines)


# (the NumPy backend has no 'cpu' platform: its cards write jax.devices()[0])
@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xla_only("CPU platform")) if "'cpu'" in DEVICE_NAMES[c][1]
    else c for c in sorted(DEVICE_NAMES)])
def test_a_device_named_by_a_string_gets_the_device(shell, case):
    """jax.device_put(x, 'cpu'), x.to_device('cpu:0'), jax.jit(f, device='cpu'): JAX 0.10.2's
    error lists the types it takes (or, for jit, an attribute a str lacks: 'client', JAX's
    words now, where jxkernel's named 'platform'); the device-name card asks jax.devices for
    the Device (the jit made on a line above and called below: that line fixed, the call
    kept), and its lines give JAX's value."""
    line, fix = DEVICE_NAMES[case]
    _, lines = _card_then_its_lines(shell, "device_name", case, line, ("device-name",))
    _fix_gives_jaxs_value(shell, "device_name", case, fix, lines)


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xla_only("CPU platform")) if "'cpu'" in DEVICE_INDICES[c][0]
    else c for c in sorted(DEVICE_INDICES)])
def test_a_device_index_past_the_list_names_the_devices_there_are(shell, case):
    """jax.devices()[1] on a machine of one device (code for several GPUs): Python's
    IndexError in JAX 0.10.2 too, and no card said more. The device-index card counts the
    devices, writes the last, whose line gives JAX's value, and on the CPU says how to
    simulate as many as the index asked for."""
    line, fix = DEVICE_INDICES[case]
    card, lines = _card_then_its_lines(shell, "device_index", case, line, ("device-index",))
    assert lines[0] == fix, card["rewrite"]
    asked = {"device_put": 2, "platform_named": 4, "from_the_end": 2}[case]
    assert lines[1] == (f"# or {asked} CPU devices: jax.config.update('jax_num_cpu_devices', "
                        f"{asked}) first, in a fresh kernel"), card["rewrite"]
    assert "1 device here" in card["title"], card["title"]
    _fix_gives_jaxs_value(shell, "device_index", case, fix, lines[:1])


@pytest.mark.parametrize("case", sorted(CONV_LAYOUTS))
def test_a_convolution_of_channels_last_arrays_gets_their_layouts(shell, case):
    """lax.conv of an NHWC image (a (1, 6, 6, 3) img read as 6 channels), a Flax HWIO kernel
    given to conv_general_dilated, an image without its batch axis: JAX 0.10.2's words and no
    card. The conv-layout card writes dimension_numbers (or [None]); its line, and the shape
    its comment gives, are JAX's."""
    line, fix = CONV_LAYOUTS[case]
    card, lines = _card_then_its_lines(shell, "conv_layout", case, line, ("conv-layout",))
    assert lines == fix.splitlines()[-1:], card["rewrite"]
    shape = tuple(np.shape(JAX[f"conv_layout_{case}_fixed"]))
    assert f"    # {shape}" in card["rewrite"], (card["rewrite"], shape)
    _fix_gives_jaxs_value(shell, "conv_layout", case, fix, lines)


@pytest.mark.parametrize("case", sorted(SQUARE_MATRICES))
def test_a_symmetric_matrix_that_is_not_square_is_told_as_such(shell, case):
    """eigh, eigvalsh, cholesky of a (2, 3) matrix: JAX 0.10.2's message is the sum they
    symmetrize with, "add got incompatible shapes for broadcasting: (2, 3), (3, 2)", and the
    broadcast card offered b.T as for the learner's own sum. The square-matrix card says the
    matrix must be square; its line (a @ a.T, the symmetric matrix of a's singular values
    squared) gives JAX's eigenvalues; cholesky's says what it factors, in words."""
    line, fix = SQUARE_MATRICES[case]
    card, lines = _card_then_its_lines(shell, "square_matrix", case, line, ("square-matrix",))
    assert "takes a square, symmetric matrix" in card["title"]
    assert "b.T has" not in card["fix"]
    if fix is None:
        assert lines[0].startswith("# a: (2, 3), not square"), card["rewrite"]
        return
    assert lines[0] == fix.splitlines()[-1], card["rewrite"]
    _fix_gives_jaxs_value(shell, "square_matrix", case, fix, lines[:1])


@pytest.mark.parametrize("case", sorted(SQUARE_ONLY))
def test_inv_or_eigvals_of_a_rectangular_matrix_gets_its_rectangular_kin(shell, case):
    """inv, eigvals, det of a (2, 3) matrix: JAX 0.10.2's own words ("Argument to inv must
    have shape [..., n, n], got (2, 3)."), and no card. The square-matrix card says only a
    square matrix has them; inv's line is the pseudo-inverse and eigvals' the singular values,
    each JAX's value; det's says so in words, with the rank."""
    line, fix = SQUARE_ONLY[case]
    card, lines = _card_then_its_lines(shell, "square_only", case, line, ("square-matrix",))
    assert "takes a square matrix" in card["title"], card["title"]
    if fix is None:
        assert lines[0].startswith("# b: (3, 2), not square"), card["rewrite"]
        return
    assert lines[0] == fix.splitlines()[-1], card["rewrite"]
    _fix_gives_jaxs_value(shell, "square_only", case, fix, lines[:1])


@pytest.mark.parametrize("case", sorted(SWITCH_PER_ELEMENT))
def test_a_switch_index_per_element_gets_a_vmap_of_the_switch(shell, case):
    """lax.switch(idx, branches, xs) of an index per element: JAX 0.10.2's TypeError ("Branch
    index must be scalar") and no card. The switch-per-element card writes jax.vmap of the
    switch over the index and the operands of its length (an operand of another length
    whole), whose value is JAX's."""
    line, fix = SWITCH_PER_ELEMENT[case]
    card, lines = _card_then_its_lines(shell, "switch_per_element", case, line,
                                       ("switch-per-element",))
    assert card["title"] == "lax.switch was given one index per element: shape (3,)"
    _fix_gives_jaxs_value(shell, "switch_per_element", case, fix, lines)


@pytest.mark.parametrize("case", sorted(IMAGE_SHAPES))
def test_a_resize_given_the_spatial_sizes_alone_keeps_the_other_axes(shell, case):
    """jax.image.resize(img, (4, 4), ...) of an HWC, CHW or NHWC image: JAX 0.10.2's
    ValueError, word for word (jxkernel had its own words), and no card. The image-shape card
    gives the whole shape, the channels and the batch kept, whose value is JAX's."""
    line, fix = IMAGE_SHAPES[case]
    card, lines = _card_then_its_lines(shell, "image_shape", case, line, ("image-shape",))
    assert card["title"].startswith("resize takes a size for every axis"), card["title"]
    _fix_gives_jaxs_value(shell, "image_shape", case, fix, lines)


@pytest.mark.parametrize("case", sorted(KEY_PLACES))
def test_a_key_card_rewrites_the_call_that_raised_in_its_place(shell, case):
    """A batch of keys given to the second of two draws on a line: the card indexed the
    first's `keys[0]` again (`keys[0][0]`); a seed whose name is also the lambda's parameter:
    the card's text replace rewrote the parameter; vmap over one raw key: the card wrote
    unbalanced nonsense. Each card's line now is the fix, whose value is JAX 0.10.2's."""
    line, fix = KEY_PLACES[case]
    card, lines = _card_then_its_lines(shell, "key_place", case, line,
                                       ("key-batch", "seed-as-key"))
    _fix_gives_jaxs_value(shell, "key_place", case, fix, lines[:1])


@pytest.mark.parametrize("case", sorted(WHERE_OF_TWO))
def test_jnp_where_of_two_arguments_gets_its_third(shell, case):
    """jnp.where(x > 2, x): JAX 0.10.2's TypeError names a None at position 2, and no card
    said more. The where-arguments card gives y (0, the learner's to choose) and names the
    one-argument form; its line's value is JAX's."""
    line, fix = WHERE_OF_TWO[case]
    card, lines = _card_then_its_lines(shell, "where_of_two", case, line, ("where-arguments",))
    assert lines[1].startswith("# or the indices where it holds: jnp.where("), card["rewrite"]
    _fix_gives_jaxs_value(shell, "where_of_two", case, fix, lines[:1])


@pytest.mark.parametrize("case", sorted(SCAN_CARRIES))
def test_a_scan_carry_of_another_size_than_its_slices_starts_at_theirs(shell, case):
    """lax.scan(lambda c, r: (c + r, c), jnp.zeros(2), x) of rows of 3: JAX 0.10.2's
    broadcast TypeError; the broadcast card's outer sum, c[:, None] + r, made a (2, 3) carry,
    which scan refused next (a fix that could not work). It starts the carry at the slices'
    size, whose value is JAX's."""
    line, fix = SCAN_CARRIES[case]
    card, lines = _card_then_its_lines(shell, "scan_carry", case, line, ("broadcast-shapes",))
    assert "[:, None]" not in card["rewrite"] and "keeps one shape" in card["fix"], card
    _fix_gives_jaxs_value(shell, "scan_carry", case, fix, lines)


def test_a_gpu_named_where_there_is_none_gets_the_default_device(shell):
    """'cuda' on a machine without a GPU: the card says so and writes the default device
    (jax.devices()[0]), whose line runs; with a GPU, that GPU."""
    assert shell.run_cell(TORCH_SETUP).success
    text, card = shown(shell, "_y = jax.device_put(x, 'cuda')")
    assert card["kind"] == "device-name", text
    try:
        has_gpu = bool(jxkernel.devices("gpu"))
    except RuntimeError:
        has_gpu = False
    line = card["rewrite"].splitlines()[0]
    device = "jax.devices('gpu')[0]" if has_gpu else "jax.devices()[0]"
    assert line.split("    # ")[0] == f"_y = jax.device_put(x, {device})", line
    assert has_gpu or "this machine has no GPU" in line
    assert shell.run_cell(line).success


@pytest.mark.parametrize("case", sorted(SOLVE_SHAPES))
def test_solve_given_shapes_that_do_not_pair_names_them(shell, case):
    """jnp.linalg.solve(S, B) with B's right-hand sides as rows, a non-square a, a vector of
    another length: JAX 0.10.2's message is jnp.vectorize's (word for word), naming neither
    argument; the solve-shapes card names both shapes, transposes b where that fits, offers
    lstsq where a is not square (its value within 1e-6: an SVD's rounding on any CPU), and
    writes no guess otherwise."""
    line, fix = SOLVE_SHAPES[case]
    card, lines = _card_then_its_lines(shell, "solve_shapes", case, line, ("solve-shapes",),
                                       setup=None)
    if fix is None:
        assert lines[0].startswith("# jnp.linalg.solve(a, b)"), card["rewrite"]
        return
    if "lstsq" not in fix:
        _fix_gives_jaxs_value(shell, "solve_shapes", case, fix, lines)
        return
    assert lines == fix.splitlines()[-1:] and shell.run_cell(fix).success
    want = np.asarray(JAX[f"solve_shapes_{case}_fixed"], np.float32)
    np.testing.assert_allclose(np.asarray(shell.user_ns["_y"]), want, rtol=0, atol=1e-6)


@pytest.mark.parametrize("case", sorted(STATE_CLASSES))
def test_a_state_class_used_as_jax_would_gets_its_fix(shell, case):
    """state.step += 1 of a NamedTuple or a frozen dataclass (Python's errors), a registered
    class's flatten returning its children alone (JAX's "should return a (children, aux_data)
    tuple"): the words JAX 0.10.2 gave, word for word, and the card's line, which pasted in
    (the flatten's return, the state bound anew) gives JAX's value."""
    program, line, fixed = STATE_CLASSES[case]
    text, card = shown(shell, program)
    assert card is not None and card["kind"] in ("immutable-state", "flatten-pair"), text
    assert card["message"] == JAX[f"state_class_{case}"]["first_line"]
    assert card["rewrite"].splitlines()[0].split("    # ")[0] == line, card["rewrite"]
    assert shell.run_cell(fixed).success
    _same_value(shell.user_ns["_y"], JAX[f"state_class_{case}_fixed"], case)


def test_a_name_no_field_of_a_state_gets_no_immutable_state_card(shell):
    """s.foo = 1 of a NamedTuple without foo: no _replace(foo=...) (which raises), so no
    immutable-state card."""
    program = STATE_CLASSES["namedtuple_step"][0].replace("s.step += 1", "s.foo = 1")
    text, card = shown(shell, program)
    assert card is None or card["kind"] != "immutable-state", text


@pytest.mark.parametrize("case", sorted(AUTODIFF_CALLS))
def test_jvp_and_vjp_called_as_grad_is_get_their_forms(shell, case):
    """jax.jvp(f, x, v) (JAX: "must be tuples or lists"), jax.vjp(f, x)(v) and
    jax.linearize(f, x)(v) (Python's "'tuple' object is not callable"): JAX 0.10.2's words,
    and the card's lines (tuples; the pair unpacked, then its function called), which give
    JAX's value."""
    line, fix = AUTODIFF_CALLS[case]
    _, lines = _card_then_its_lines(shell, "autodiff", case, line, ("jvp-tuples",
                                                                    "pair-called"))
    assert "\n".join(lines) == fix
    _fix_gives_jaxs_value(shell, "autodiff", case, fix, lines)


@pytest.mark.parametrize("case", sorted(TEXT_LEAVES))
def test_a_str_among_the_leaves_given_to_grad_or_vmap_is_named(shell, case):
    """A dict of parameters holding a layer's name, given to grad, vmap or jacrev: JAX 0.10.2's
    words (a full stop for grad's and jacrev's input checks, none for vmap's), the card naming
    the leaf's path; its lines, where written (not where the function reads the str), give
    JAX's value."""
    line, fix = TEXT_LEAVES[case]
    card, lines = _card_then_its_lines(shell, "text_leaf", case, line, ("text-leaf",),
                                       setup=None)
    # a dict written on the line is named by its place among grad's arguments, JAX's args[0]
    path, text = ("args[0]['cfg']['act']", "'relu'") if case.startswith("literal") else \
        ("params['name']", "'layer1'")
    assert card["title"].startswith(f"{path} is a str"), card["title"]
    if fix is None:
        assert lines[0].startswith(f"# {path} = {text}"), card["rewrite"]
        return
    assert lines == [part for part in fix.splitlines() if not part.startswith("params = ")]
    _fix_gives_jaxs_value(shell, "text_leaf", case, fix, lines)


@pytest.mark.parametrize("case", sorted(TREE_MAP_ARGUMENTS))
def test_a_function_given_another_number_of_trees_is_told_as_tree_maps(shell, case):
    """jax.tree.map(lambda p, g: ..., params) (the gradients left out), or more trees than the
    function takes: Python's TypeError in JAX 0.10.2's words; the body-arguments card told it
    as lax.map's ("lax.map calls f(x): one slice of xs"). The tree-map-arguments card counts
    trees and parameters; where one name of the namespace has the first tree's structure, its
    line gives JAX's value, else it says what to give, in words."""
    line, fix = TREE_MAP_ARGUMENTS[case]
    card, lines = _card_then_its_lines(shell, "tree_map", case, line, ("tree-map-arguments",),
                                       setup=_TREES)
    trees, takes = {"one_tree_for_two": (1, 2), "two_trees_for_one": (2, 1),
                    "three_parameters": (2, 3)}[case]
    assert card["title"].endswith(f"{trees} tree{'s' * (trees > 1)}, {takes} "
                                  f"parameter{'s' * (takes > 1)}"), card["title"]
    assert "lax" not in card["why"] + card["fix"]
    if fix is None:
        assert lines[0].startswith("# "), card["rewrite"]
        return
    assert shell.run_cell(fix).success
    assert lines == fix.splitlines()[-1:]
    assert [np.asarray(v).tolist() for v in jxkernel.tree.leaves(shell.user_ns["_y"])] == \
        JAX[f"tree_map_{case}_fixed"]


@pytest.mark.parametrize("case", sorted(ONE_HOT))
def test_one_hot_without_the_number_of_classes_gets_it(shell, case):
    """jax.nn.one_hot(labels) (PyTorch's F.one_hot counts the classes): Python's TypeError in
    JAX 0.10.2's words, and no card. The one-hot card passes the largest label + 1 where the
    labels are a name holding integers (its line gives JAX's one-hot rows), saying that the
    dataset's count is surer; a pattern where it cannot read them."""
    line, fix = ONE_HOT[case]
    card, lines = _card_then_its_lines(shell, "one_hot", case, line, ("one-hot-classes",),
                                       setup=None)
    if fix is None:
        assert lines[0].startswith("#"), card["rewrite"]
        return
    assert "a batch may lack the last class" in card["fix"]
    _fix_gives_jaxs_value(shell, "one_hot", case, fix, lines)


@pytest.mark.parametrize("case", sorted(TREE_ARITHMETIC))
def test_arithmetic_on_a_pytree_goes_leaf_by_leaf(shell, case):
    """params - 0.5 * grads of dicts (Python's "unsupported operand type(s)"), of lists
    ("can't multiply sequence by non-int"), jnp.sum / jnp.linalg.norm of a dict (JAX's
    "requires ndarray or scalar arguments"): the card's line maps over the leaves
    (jax.tree.map) or sums over them (jax.tree.leaves), and gives JAX's values."""
    setup, line, fixed, result = TREE_ARITHMETIC[case]
    _, lines = _card_then_its_lines(shell, "tree_arithmetic", case, line,
                                    ("tree-arithmetic",), setup=setup)
    assert lines == [fixed]
    assert shell.run_cell(f"{setup}{fixed}\n_y = {result}").success
    got = shell.user_ns["_y"]
    want = JAX[f"tree_arithmetic_{case}_fixed"]
    if isinstance(got, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same_value(g, w, case)
    else:
        _same_value(got, want, case)


@pytest.mark.parametrize("case", sorted(ARRAY_AS_DTYPE))
def test_an_array_given_as_a_dtype_is_jaxs_value_error(shell, case):
    """An array where a dtype goes (jnp.hstack((v, w), v), astype(a)): JAX's ValueError, its
    words and class (jxkernel's was a TypeError, "unhashable type", for some), and no join
    card: the arrays were given as a sequence."""
    assert shell.run_cell(TORCH_SETUP).success
    text, card = shown(shell, ARRAY_AS_DTYPE[case])
    assert card is None, text
    assert JAX[f"array_as_dtype_{case}"]["error"] == "ValueError"
    assert f"ValueError: {JAX[f'array_as_dtype_{case}']['first_line']}" in text, text
    assert "unhashable" not in text, text


@pytest.mark.parametrize("case", sorted(NUMPY1_NAMES))
def test_numpy_1_names_get_numpy_2s(shell, case):
    """jnp.in1d, jnp.product, jnp.NaN, jnp.trapz, ... (an older tutorial's NumPy): JAX 0.10.2's
    AttributeError, word for word but the module's name, and no card; the numpy1-name card
    writes NumPy 2's name, which, run, gives the value JAX gives."""
    line, fix = NUMPY1_NAMES[case]
    assert shell.run_cell(TORCH_SETUP).success
    text, card = shown(shell, line)
    assert card is not None and card["kind"] == "numpy1-name", text
    assert card["message"].replace("jxkernel.", "jax.") == \
        JAX[f"torch_numpy1_{case}"]["first_line"]
    assert card["rewrite"].split("    # ")[0] == fix, card["rewrite"]
    assert shell.run_cell(fix).success
    _same_value(shell.user_ns["_y"], JAX[f"torch_numpy1_{case}_fixed"], case)
