"""Every error card's suggested code, pasted where the card says, runs and gives what JAX
0.10.2 gives for the same pasted program (helper explain21): a learner's program that raises
(tests/data/card_rewrites_pasted_cases.py), the card's own text pasted into it by `pasted`,
run under jxkernel; the pasted program is the one JAX ran
(tests/data/card_rewrites_pasted_reference.json, reference/make_card_rewrites_pasted_reference.py).
The cards pasted here were not pasted by any test before (the others are in
test_learner_mistakes.py, test_notebook_error_cards.py, test_card_gaps.py and
test_print_when_card.py)."""
import builtins
import json
import linecache
import os

import numpy as np
import pytest
from IPython.utils.capture import capture_output

import jxkernel
from jxkernel.views import error_cards
import locations  # tests/support
from doc_examples import check_docstring_examples  # tests/support
from numerics import assert_allclose_ulp                                     # tests/support
from ipython_shell import ran_failing, shell_fixture                         # tests/support

from card_rewrites_pasted_cases import (CASES, PASTED, PATTERNS, RANDOM, REFUSED,  # tests/data
                                        REFUSED_BEFORE, pasted, snippet)

JAX = locations.recorded("card_rewrites_pasted_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp")


def _run(source, path):
    with open(path, "w") as f:                # a file of the learner's: the card reads it
        f.write(source)
    linecache.checkcache(path)
    names = {"jax": jxkernel, "jnp": jxkernel.numpy, "__name__": os.path.basename(path),
             "__builtins__": {**vars(builtins), "__import__": _import_as_jax}}
    exec(compile(source, path, "exec"), names)
    return names


def _import_as_jax(name, globals=None, locals=None, fromlist=(), level=0):
    """A pasted program's `from jax.experimental import checkify` as the notebook's alias
    answers it: jxkernel's module (the suite never imports the real JAX)."""
    if level == 0 and (name == "jax" or name.startswith("jax.")):
        name = "jxkernel" + name[len("jax"):]
    return builtins.__import__(name, globals, locals, fromlist, level)


def test_the_cases_are_the_programs_jax_ran():
    assert JAX["jax"] == "0.10.2"
    assert sorted(JAX["cases"]) == sorted(CASES) == sorted(PASTED)
    assert sorted(JAX["patterns"]) == sorted(PATTERNS)
    assert sorted(JAX["refused"]) == sorted(REFUSED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_cards_code_pasted_runs_as_jaxs(name, tmp_path):
    """The program raises JAX's class; the card's code pasted (built from card.rewrite, as
    the card wrote it) is the program JAX ran, and gives JAX's `_r`: exactly, or within 4
    ulps for the random draws (threefry's bits are exact; the floats made of them, computed,
    are compared so)."""
    program, span, take = CASES[name]
    recorded = JAX["cases"][name]
    with pytest.raises(Exception) as raised:
        _run(program, str(tmp_path / f"{name}.py"))
    jxkernel.config.update("jax_debug_key_reuse", False)
    # JAX's class, or a class of jxkernel's under it (a failed print's CallbackError is a
    # JaxRuntimeError: `except JaxRuntimeError` catches it as JAX's)
    assert recorded["program"] in [c.__name__ for c in type(raised.value).__mro__]
    card = error_cards.card_for(raised.value)
    assert card is not None
    source = pasted(program, span, take, card.rewrite)
    assert source == PASTED[name], card.rewrite
    got = json.loads(json.dumps(jxkernel.tree_util.tree_map(
        lambda a: np.asarray(a).tolist(), _run(source, str(tmp_path / f"{name}_pasted.py"))["_r"])))
    if name in RANDOM:
        for ours, theirs in zip(got, recorded["pasted"]["value"]):
            assert_allclose_ulp(np.float32(ours), np.float32(theirs), 4)
    else:
        assert got == recorded["pasted"]["value"]


# the pasted fixes whose values differ from the program's own run without jit (what it
# meant, where jit's refusal is all that failed), each saying so in its words
_CHANGES_VALUES = {
    "traced_slice": "the shape of x: 0 outside the slice",
    "scan_carry_lost_its_axis": "the results change",
    "cond_branch_named_shape": "return the shape true_fun returns",
    "elif_of_a_none_default": "given as 0 now counts as given",
    "if_not_of_a_none_default": "given as 0 now counts as given",
    "fori_carry_cast_back": "cut back each step",
    "masked_argmax_under_jit": "an index into x itself, not into the kept elements alone",
    "masked_jnp_argmin_under_jit": "an index into x itself, not into the kept elements alone",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_cards_code_pasted_computes_what_the_program_meant(name, tmp_path):
    """Where the program runs with jit off (`jax.disable_jit()`: what it computes where only
    jit's refusal failed), the card's code pasted gives that `_r`, but where the card says its
    code changes it (the padded slice, the carry kept at its shape, a given 0 counted as
    given, ...). The size= and slice cards once changed a mean or a sum silently."""
    program = CASES[name][0]
    try:
        with jxkernel.disable_jit():
            meant = _run(program, str(tmp_path / f"{name}.py"))["_r"]
    except Exception:               # (it fails without jit too: nothing it meant to compare)
        return
    finally:
        jxkernel.config.update("jax_debug_key_reuse", False)
    meant = json.loads(json.dumps(jxkernel.tree_util.tree_map(
        lambda a: np.asarray(a).tolist(), meant)))
    same = name in RANDOM or _close(meant, JAX["cases"][name]["pasted"]["value"])
    if name in _CHANGES_VALUES:
        with pytest.raises(Exception) as raised:
            _run(program, str(tmp_path / f"{name}_jitted.py"))
        card = error_cards.card_for(raised.value)
        assert not same and _CHANGES_VALUES[name] in card.rewrite + card.fix, card.rewrite
    else:
        assert same, (meant, JAX["cases"][name]["pasted"]["value"])


def _close(a, b) -> bool:
    """The same structure and values (JSON's lists, numbers and strings): floats within 4
    ulps of float32 (computed op by op with jit off, and compiled: not bit for bit), the rest
    exactly."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        try:
            assert_allclose_ulp(np.float32(a), np.float32(b), 4)
        except AssertionError:
            return False
        return True
    return a == b


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_a_card_without_code_it_can_stand_behind_gives_its_pattern_as_comments(name, tmp_path):
    """A template naming what the learner's code has not (`result, value = jax.jit(f)(x)`,
    `def true_branch(operands): ...`, `grads, aux = jax.grad(f, has_aux=True)(x)`) was code:
    pasted, a NameError, or functions returning None. It is the pattern as comments now, under
    a line saying so; the card's first fix, pasted, runs nothing."""
    with pytest.raises(Exception) as raised:
        _run(PATTERNS[name], str(tmp_path / f"{name}.py"))
    assert type(raised.value).__name__ == JAX["patterns"][name]
    card = error_cards.card_for(raised.value)
    first = snippet(card.rewrite, 0)
    assert "# the pattern, with your own names in place of these:" in first, card.rewrite
    assert all(line.startswith("#") for line in first), card.rewrite
    assert card.fix and "#" not in card.fix[:1]


def test_no_static_alternative_where_the_condition_reads_another_traced_argument(tmp_path):
    """`if x > 0 or y > 0` under jit: the card offered x static, which JAX 0.10.2 refuses
    again (y > 0 still traced when x > 0 is False: REFUSED, recorded); it offers jnp.where and
    lax.cond alone, and says no static."""
    assert JAX["refused"]["static_x_of_an_or_reading_y"] == "TracerBoolConversionError"
    with pytest.raises(Exception) as refused:
        _run(REFUSED["static_x_of_an_or_reading_y"], str(tmp_path / "refused.py"))
    assert type(refused.value).__name__ == JAX["refused"]["static_x_of_an_or_reading_y"]
    program = CASES["if_with_or"][0]
    with pytest.raises(Exception) as raised:
        _run(program, str(tmp_path / "if_with_or.py"))
    card = error_cards.card_for(raised.value)
    assert "static" not in card.rewrite and "static" not in card.fix, card.rewrite
    # a second argument static already (a Python value) asks nothing: x's static is offered
    static_y = ("from functools import partial\n@partial(jax.jit, static_argnames=('y',))\n"
                "def f(x, y):\n    if x > 0 or y > 0:\n        return x + y\n"
                "    return x - y\n_r = f(1.0, -2.0)\n")
    with pytest.raises(Exception) as raised:
        _run(static_y, str(tmp_path / "static_y.py"))
    assert "static_argnames=('x',)" in error_cards.card_for(raised.value).rewrite


def test_a_static_fix_through_a_line_magic_keeps_the_magic(shell):
    """`%timeit jax.jit(f)(1.0)` of an `if` on the argument: the static alternative is the
    magic's line with static_argnames added (it read the line IPython ran,
    get_ipython().run_line_magic(...), and wrote `get_ipython = jax.jit(branchy, ...)`, which
    would have replaced IPython's own get_ipython); pasted, it runs."""
    assert shell.run_cell("def branchy(v):\n    if v > 0:\n        return v\n"
                          "    return -v").success
    (card,) = ran_failing(shell, "%timeit -n 1 -r 1 jax.jit(branchy)(1.0)").cards
    last = card["rewrite"].splitlines()[-1]
    assert last == "%timeit -n 1 -r 1 jax.jit(branchy, static_argnames=('v',))(1.0)", \
        card["rewrite"]
    assert "get_ipython" not in card["rewrite"]
    with capture_output():
        assert shell.run_cell(last).success


def test_a_cond_of_branches_of_two_dtypes_is_offered_cast(tmp_path):
    """control-flow.md's `if x < 3: return 3. * x ** 2 else: return -4 * x` (x an int): the
    card's lax.cond, pasted, raised (JAX 0.10.2: "cond branches must have equal output
    types", REFUSED) under a comment saying "cast one with .astype where they differ"; the
    int branch is cast to float32 (jnp.where's dtype) now, and the comment says which."""
    assert JAX["refused"]["cond_of_a_float_and_an_int_branch"] == "TypeError"
    with pytest.raises(Exception) as refused:
        _run(REFUSED["cond_of_a_float_and_an_int_branch"], str(tmp_path / "refused.py"))
    assert type(refused.value).__name__ == "TypeError"
    program = CASES["if_branches_of_two_dtypes_cond"][0]
    with pytest.raises(Exception) as raised:
        _run(program, str(tmp_path / "two_dtypes.py"))
    rewrite = error_cards.card_for(raised.value).rewrite
    assert "lambda: -4 * x)" not in rewrite, rewrite
    assert "# or, to run only one branch (both must give one dtype: -4 * x (int32) cast to " \
        "jnp.where's float32):" in rewrite.splitlines(), rewrite


@pytest.mark.parametrize("refused", sorted(REFUSED_BEFORE))
def test_a_card_no_longer_pastes_a_program_jax_refuses(refused, tmp_path):
    """Stop 100's audit: the code a card offered (the first of two int() casts, a Python
    list indexed by the cast, `print(f'loss {x:.3f}')` of the array itself, x static where
    the line converts traced y too), pasted, raises JAX 0.10.2's error (REFUSED, recorded)
    and jxkernel's; the card for its case pastes another program now (checked to give JAX's
    value by test_the_cards_code_pasted_runs_as_jaxs)."""
    with pytest.raises(Exception) as raised:
        _run(REFUSED[refused], str(tmp_path / f"{refused}.py"))
    # (JAX's class or a subclass, as `except` catches it: a failed callback's CallbackError
    # is a JaxRuntimeError, JAX's class for it)
    assert JAX["refused"][refused] is not None
    assert JAX["refused"][refused] in {c.__name__ for c in type(raised.value).__mro__}
    program, span, take = CASES[REFUSED_BEFORE[refused]]
    with pytest.raises(Exception) as raised:
        _run(program, str(tmp_path / "case.py"))
    source = pasted(program, span, take, error_cards.card_for(raised.value).rewrite)
    assert _code_of(source) != _code_of(REFUSED[refused]), source


def _code_of(program) -> list:
    """A program's lines of code, comments and blank lines dropped."""
    return [code for line in program.splitlines() if (code := line.split("#")[0].rstrip())]


def test_an_assert_under_jit_is_a_check_and_the_call_is_checkified(tmp_path):
    """`assert x > 0, "x must be positive"` in a jitted function: the card gave jnp.where /
    lax.cond's pattern; it is checkify.check with the assert's message, and the call through
    checkify.checkify with err.throw(), since the check alone, the call unchanged, raises
    (JAX 0.10.2's ValueError, REFUSED, recorded). Pasted, a good input returns and a bad one
    raises the message (test_the_cards_code_pasted_runs_as_jaxs)."""
    refused = REFUSED["check_with_the_call_unchanged"]
    assert JAX["refused"]["check_with_the_call_unchanged"] == "ValueError"
    with pytest.raises(ValueError, match="not functionalized"):
        _run(refused, str(tmp_path / "refused.py"))
    program = CASES["assert_checkified_good"][0]
    with pytest.raises(Exception) as raised:
        _run(program, str(tmp_path / "assert.py"))
    card = error_cards.card_for(raised.value)
    code = _code_of(card.rewrite)
    assert code[:4] == ["from jax.experimental import checkify",
                        'checkify.check(x > 0, "x must be positive")',
                        "err, _r = checkify.checkify(f)(4.0)", "err.throw()"], card.rewrite
    assert "in place of _r = f(4.0)" in card.rewrite and "not AssertionError" in card.fix


def test_bool_dropped_where_an_if_tests_it_below_is_not_offered_as_the_whole_fix(tmp_path):
    """`flag = bool(x > 0)` then `if flag:`: `flag = x > 0` alone, pasted, raises at the `if`
    (JAX 0.10.2, REFUSED); the card says so, naming the line, and gives the `if` traced
    (pasted with it: JAX's values). Used as an array below (`x * flag`), the line alone."""
    assert JAX["refused"]["bool_dropped_then_if"] == "TracerBoolConversionError"
    with pytest.raises(Exception) as refused:
        _run(REFUSED["bool_dropped_then_if"], str(tmp_path / "refused.py"))
    assert type(refused.value).__name__ == "TracerBoolConversionError"
    for name, said in (("bool_then_if", True), ("bool_of_a_comparison", False)):
        with pytest.raises(Exception) as raised:
            _run(CASES[name][0], str(tmp_path / f"{name}.py"))
        rewrite = error_cards.card_for(raised.value).rewrite
        assert _code_of(rewrite)[0] == "flag = x > 0", rewrite
        assert ("# not the whole fix: line 4, `if flag:`, asks flag for" in
                rewrite.splitlines()) is said, rewrite


@pytest.mark.parametrize("line", ["return jnp.array([v for v in xs if v > 0])",
                                  "return sum([v * w for v in xs if v > 0])"])
def test_a_filtered_list_kept_as_a_list_gets_words_not_code(line, tmp_path):
    """A comprehension filtering a traced vector that is kept as a list (its length known
    only from the values), or whose element reads another array (`v * w`: computed on all
    of xs at once it would broadcast otherwise): no line keeps its value under jit, so the
    card's code is comments alone (it gave jnp.where / lax.cond's pattern): the mask and
    jnp.where at xs's shape, named as not the same list. Summed or counted of numbers, the
    same value traced (CASES filtered_*)."""
    program = (f"w = jnp.arange(3.0)\n@jax.jit\ndef f(xs):\n    {line}\n"
               f"_r = f(jnp.array([1.0, -2.0, 3.0]))\n")
    with pytest.raises(Exception) as raised:
        _run(program, str(tmp_path / "filtered.py"))
    assert type(raised.value).__name__ == "TracerBoolConversionError"
    card = error_cards.card_for(raised.value)
    lines = card.rewrite.splitlines()
    assert all(each.startswith("#") for each in lines), card.rewrite
    assert lines[0].startswith("# no traced line keeps this list"), card.rewrite
    assert "outside jit" in card.fix


@pytest.mark.parametrize("name, title, line", [
    ("fori_body_returning_one_of_its_pair", "fori_loop: the carry changes type in the loop",
     "#   return new_x, new_v    # in place of return x + v"),
    ("scan_body_returning_its_carry_alone", "scan: the carry changes type in the loop",
     "#   return (new_h, new_c), y    # in place of return (h + x, c * x)"),
    ("while_body_returning_one_of_its_pair", "while_loop: the carry changes type in the loop",
     "#   return new_i, new_x    # in place of return i + 1"),
    ("cond_branches_of_a_pair_and_an_array", "cond: the branches return different structures",
     None)])
def test_a_structure_card_tells_the_learners_loop_in_their_names(name, title, line, tmp_path):
    """A body or branches returning another structure (h-cards3-100): the fori_loop's card
    said `scan` and `carry[1]` (the loop it runs as, its state's index in that loop's carry),
    every one printed `<class 'jxkernel.core.avals.ShapedArray'>` (our module) and gave
    `return carry, y` as code (a NameError pasted; a scan's `, y` in a fori_loop's body);
    cond's had no card. Now: the loop called, the nodes in words, the body's own names in
    the pattern (PATTERNS: comments only, JAX's TypeError recorded)."""
    with pytest.raises(Exception) as raised:
        _run(PATTERNS[name], str(tmp_path / f"{name}.py"))
    card = error_cards.card_for(raised.value)
    text = str(card)
    assert card.title == title, text
    for leak in ("jxkernel", "ShapedArray", "loop_carry", "carry[1]", "carry[2]"):
        assert leak not in text, text
    assert "a tuple" in text and "one array" in text, text
    if line is not None:
        assert line in card.rewrite.splitlines(), card.rewrite


def test_the_examples_of_the_line_readers_run():
    """rewrites.py reads and rewrites the learner's line for every card (`_first_call`,
    `_replaced`, `_operand`, `_pattern`): its docstring examples are its contract."""
    check_docstring_examples("jxkernel.views.error_cards.rewrites")


@pytest.mark.parametrize("branch, cast", [
    ("def zero(v):\n    return 0\n", "jnp.asarray(..., jnp.float32) around what false_fun"),
    ("FIRST = True\ndef zero(v):\n    if FIRST:\n        return 0\n    return 1\n",
     ".astype(jnp.float32) in false_fun")])
def test_a_cond_branch_cards_words_name_the_cast_its_rewrite_makes(branch, cast, tmp_path):
    """A def'd branch of another dtype: the card's fix said `.astype(jnp.float32) in
    false_fun` while its rewrite wrapped the branch's own `return 0` in jnp.asarray (a Python
    number has no .astype); the words now name the cast the rewrite makes, .astype only where
    the rewrite is the pattern (a branch without one plain return)."""
    program = branch + "_r = jax.lax.cond(False, lambda v: v, zero, 1.5)\n"
    with pytest.raises(TypeError) as raised:
        _run(program, str(tmp_path / "branch.py"))
    card = error_cards.card_for(raised.value)
    assert card.kind == "branch-types" and cast in card.fix, card.fix
    assert cast.split(" ")[0].split("(")[0].strip(".") in card.rewrite, card.rewrite


@pytest.mark.parametrize("name, said, call", [
    ("leaked_from_grad", "inside the transformed function (for differentiation: jax.grad",
     "grads, value = jax.grad(loss, has_aux=True)(w)"),
    ("leaked_from_jitted_grad", "inside loss (for differentiation: jax.grad",
     "grads, value = jax.grad(loss, has_aux=True)(w)"),
    ("leaked_from_vmap", "inside the transformed function (for jax.vmap)",
     "result, value = jax.vmap(f)(x)")])
def test_a_value_leaked_from_grad_or_vmap_is_told_as_theirs(name, said, call, tmp_path):
    """A value stored from inside jax.grad's or jax.vmap's trace: JAX 0.10.2's message names
    the tracer (LinearizeTracer, BatchTracer) and no function; the card said "inside f (for
    jit)" and gave `result, value = jax.jit(f)(x)`, whose `return result, value` under grad is
    JAX's TypeError (REFUSED, recorded). It names grad's or vmap's trace, and a differentiated
    function's value leaves through has_aux."""
    assert JAX["refused"]["grad_of_a_loss_returning_its_value_too"] == "TypeError"
    with pytest.raises(TypeError, match="scalar-output"):
        _run(REFUSED["grad_of_a_loss_returning_its_value_too"], str(tmp_path / "refused.py"))
    with pytest.raises(Exception) as raised:
        _run(PATTERNS[name], str(tmp_path / f"{name}.py"))
    assert type(raised.value).__name__ == JAX["patterns"][name] == "UnexpectedTracerError"
    card = error_cards.card_for(raised.value)
    assert said in card.why and "(for jit)" not in card.why, card.why
    assert f"#   {call}" in card.rewrite.splitlines(), card.rewrite
    assert "jax.jit" not in card.rewrite, card.rewrite


def test_the_examples_of_the_loop_condition_readers_run():
    """loop_conditions.py calls a while_loop's named condition or body on the lambda's
    parameter (`partial(below, 5.0)(c)`): its docstring examples are its contract."""
    check_docstring_examples("jxkernel.views.error_cards.loop_conditions")


def test_a_dict_carry_losing_a_key_is_told_in_words(tmp_path):
    """A fori_loop's dict carry returned without one of its keys: JAX 0.10.2 says "a <class
    'dict'> with 2 children"; the card said `<class 'dict'> with 2 children` as well (its
    words leave no class's repr: "a dict with 2 children"), in why and in the pattern."""
    with pytest.raises(Exception) as raised:
        _run(PATTERNS["fori_dict_carry_losing_a_key"], str(tmp_path / "dict_carry.py"))
    assert type(raised.value).__name__ == JAX["patterns"]["fori_dict_carry_losing_a_key"]
    card = error_cards.card_for(raised.value)
    assert "<class" not in card.why and "<class" not in card.rewrite, str(card)
    assert "came in as a dict with 2 children and left as a dict with 1 child" in card.why
    check_docstring_examples("jxkernel.views.error_cards.carries")
