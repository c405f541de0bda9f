"""Cards of a transformed function's call against JAX 0.10.2: a function given to grad,
value_and_grad, jit or vmap, called with other arguments than it takes (the call-arity card),
jnp's functions jitted whole with an axis traced (the concretization card's static fix), and
what grad returns unpacked or used otherwise (the grad-unpacked and aux-pair cards), or
unpacked in another order (the tree-structure and grad-order cards)
(tests/data/transformed_call_cases.py; JAX's words and the values of the cards' lines recorded
by reference/make_transformed_call_reference.py)."""
import numpy as np
import pytest

import jxkernel

pytest.importorskip("IPython")

from transformed_call_cases import (  # tests/data
    CASES, GRAD_RESULTS, INSIDE, ORDER, ORDER_SETUP, SETUP, STACKED, STACKED_SETUP,
    STATIC_OF_LIBRARY, STATIC_SETUP, order_fixed)
import locations  # tests/support
from ipython_shell import ran_failing, shell_fixture
from numerics import assert_allclose_ulp

JAX = locations.recorded("transformed_call_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)


def _card(shell, line):
    assert shell.run_cell(SETUP).success
    ran = ran_failing(shell, line, recovers=True)
    return ran.card


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_transformed_function_called_with_other_arguments_gets_its_call(shell, case):
    """JAX 0.10.2's words (Python's TypeError, or vmap's in_axes count) first; the card says
    the transformed function passes every argument on, and its line, pasted, gives JAX's value
    (the data passed, a parameter per argument, the batch as the tuple the step unpacks, the
    argument argnums was read as skipping). Where no name of the namespace fits, the card's
    line is a pattern, commented, and vmap's listed in_axes get an entry per argument added;
    the in_axes card no longer drops the entry of an argument the call left out (its line
    then failed in loss: "missing 1 required positional argument: 'y'")."""
    line, kind, fix = CASES[case]
    card = _card(shell, line)
    assert card is not None and card["kind"] == kind, card
    assert card["message"] == JAX[case]["first_line"]
    lines = [part.split("    # ")[0] for part in card["rewrite"].splitlines()]
    if fix is None:
        assert all(part.startswith("#") for part in lines), card["rewrite"]
        return
    assert lines == fix.splitlines(), card["rewrite"]
    assert shell.run_cell(fix).success
    assert_allclose_ulp(np.asarray(shell.user_ns["_y"]),
                        np.asarray(JAX[f"{case}_fixed"], np.float32), 4, err_msg=case)


def test_the_listed_in_axes_get_an_entry_for_the_argument_left_out(shell):
    """vmap(per_example, in_axes=(None, 0))(params, x) of per_example(p, xi, yi): nothing is
    named yi, so the card's line is a pattern, with in_axes of three entries."""
    card = _card(shell, CASES["vmap_in_axes_and_argument_short"][0])
    assert card["rewrite"].startswith(
        "# jax.vmap(per_example, in_axes=(None, 0, 0))(p, xi, yi)"), card["rewrite"]
    assert "in_axes needs an entry for each" in card["fix"]


def test_the_card_says_what_argnums_differentiates(shell):
    """argnums=1 read as choosing the arguments to pass: the card names x as what grad
    differentiates, and passes params first."""
    card = _card(shell, CASES["argnums_read_as_positions"][0])
    assert "differentiates with respect to x (argnums=1)" in card["why"], card["why"]
    assert card["title"].startswith("jax.grad(loss, argnums=1) called without params")


def test_a_wrong_call_inside_the_function_is_not_the_transformations(shell):
    """helper(p) inside the loss, helper taking two: Python's words as JAX's, and no call-arity
    card (the transformed call gave the loss what it takes)."""
    card = _card(shell, INSIDE)
    assert card is None or card["kind"] != "call-arity", card
    assert JAX["inside"]["first_line"] == "helper() missing 1 required positional argument: 'b'"


@pytest.mark.parametrize("case", sorted(STATIC_OF_LIBRARY))
def test_a_library_function_jitted_whole_gets_its_argument_static_where_it_is_jitted(
        shell, case):
    """jax.jit(jnp.sum)(x, 0): the axis traced (JAX 0.10.2: "The axis argument must be known
    statically"). The card's fix was `sum = jax.jit(sum, static_argnames=('axis',))`, which
    rebinds Python's builtin, then the line unchanged, which traced the axis again: now the
    line itself with static_argnames on its jit, or the name's jit made again from the function
    it wraps; pasted, JAX's value."""
    line, fix = STATIC_OF_LIBRARY[case]
    assert shell.run_cell(SETUP + STATIC_SETUP).success
    card = ran_failing(shell, line, recovers=True).card
    assert card is not None and card["kind"] == "concretization", card
    assert card["error"] == JAX[f"static_{case}"]["error"]      # (ConcretizationTypeError)
    lines = [part.split("    # ")[0] for part in card["rewrite"].splitlines()
             if not part.startswith("#")]
    assert lines[0] == fix, card["rewrite"]
    assert lines[1:] in ([], [line]) and (lines[1:] == [line]) == (not fix.startswith("_y"))
    assert shell.run_cell(fix if fix.startswith("_y") else f"{fix}\n{line}").success
    assert_allclose_ulp(np.asarray(shell.user_ns["_y"]),
                        np.asarray(JAX[f"static_{case}_fixed"], np.float32), 4, err_msg=case)


@pytest.mark.parametrize("case", sorted(GRAD_RESULTS))
def test_what_grad_returns_unpacked_otherwise_is_told_as_it_comes(shell, case):
    """`value, grads = jax.grad(loss)(...)` (grad returns the gradient alone: "too many values
    to unpack"), three names for value_and_grad with has_aux (it returns ((value, aux),
    grads)), grad's (gradient, aux) pair bound to one name and used as the gradient (Python's
    "can't multiply sequence"): Python's words, JAX 0.10.2's too, and no card said what grad
    returns. The card's lines (value_and_grad; the pair unpacked as it comes, where it is
    made) give JAX's value; three names of grad's pair, which cannot be told apart, get a
    pattern."""
    cell, kind, fix = GRAD_RESULTS[case]
    card = _card(shell, cell)
    assert card is not None and card["kind"] == kind, card
    assert card["message"] == JAX[f"result_{case}"]["first_line"]
    lines = [part.split("    # ")[0] for part in card["rewrite"].splitlines()]
    if fix is None:
        assert all(part.startswith("#") for part in lines), card["rewrite"]
        return
    assert lines == fix.splitlines()[:len(lines)], card["rewrite"]
    assert shell.run_cell(fix).success
    assert_allclose_ulp(np.asarray(shell.user_ns["_y"]),
                        np.asarray(JAX[f"result_{case}_fixed"], np.float32), 4, err_msg=case)


@pytest.mark.parametrize("case", sorted(STACKED))
def test_a_stacked_dict_indexed_as_a_list_gets_each_leafs_entry(shell, case):
    """vmap's (or scan's) result of a dict is one dict, each leaf stacked: `stats[0]` (a list
    of dicts read into it) is Python's KeyError, JAX 0.10.2's too, and no card. The card takes
    the entry of every leaf (jax.tree.map), or of the leaf named next (`stats['s'][1]`); its
    line, pasted, gives JAX's value."""
    line, fix = STACKED[case]
    assert shell.run_cell(SETUP + STACKED_SETUP).success
    card = ran_failing(shell, line, recovers=True).card
    assert card is not None and card["kind"] == "stacked-index", card
    assert card["message"] == str(JAX[f"stacked_{case}"]["first_line"])
    assert card["rewrite"].split("    # ")[0] == fix, card["rewrite"]
    assert shell.run_cell(fix).success
    got = jxkernel.tree.leaves(shell.user_ns["_y"])       # (a dict's: in sorted key order)
    want = JAX[f"stacked_{case}_fixed"]
    want = [want[k] for k in sorted(want)] if isinstance(want, dict) else [want]
    for g, w in zip(got, want, strict=True):
        assert_allclose_ulp(np.asarray(g), np.asarray(w, np.float32), 4, err_msg=case)


@pytest.mark.parametrize("case", sorted(ORDER))
def test_what_grad_returns_unpacked_in_another_order_is_told_where_it_was_unpacked(
        shell, case):
    """`(value, grads), aux = jax.value_and_grad(f, has_aux=True)(...)` and its kin: no error
    there, and grads (the aux, the value, or has_aux's (value, aux) pair) fails where it meets
    the parameters, JAX 0.10.2's words kept (tree_map's structures, Python's arithmetic). The
    card said only that the trees differ ("Parameters and gradients of one model match"), or
    nothing; now it reads the statement that unpacked grads, says what each name holds, and
    writes it in the order grad returns, names where the learner put them (`_` for a part no
    name held), a name the call reads never rebound (`loss_value` for a loss named loss, which
    the card had made a number). That line in its place in the cell gives JAX's value, run
    twice."""
    cell, kind, line = ORDER[case]
    assert shell.run_cell(SETUP + ORDER_SETUP).success
    card = ran_failing(shell, cell, recovers=True).card
    assert card is not None and card["kind"] == kind, card
    assert card["message"] == JAX[f"order_{case}"]["first_line"]
    rewrite = [part.split("    # ")[0] for part in card["rewrite"].splitlines()]
    failing = cell.splitlines()[-2 if case == "in_a_jitted_step" else -1].strip()
    assert rewrite == [line, failing], card["rewrite"]
    assert "grads" in card["why"] and "gradient" in card["why"], card
    fixed = order_fixed(cell, line)
    assert shell.run_cell(fixed).success and shell.run_cell(fixed).success
    got = jxkernel.tree.leaves(shell.user_ns["_y"])
    for g, w in zip(got, JAX[f"order_{case}_fixed"], strict=True):
        assert_allclose_ulp(np.asarray(g), np.asarray(w, np.float32), 4, err_msg=case)


def test_a_tree_of_another_type_is_named_in_a_learners_words(shell):
    """JAX's message names jaxlib's class (`<class 'jaxlib._jax.ArrayImpl'>`, where jxkernel's
    said `jxkernel.xla.array.ArrayImpl`); the card's why says "an array (a leaf)", and inside
    jit "a traced array"."""
    assert shell.run_cell(SETUP + ORDER_SETUP).success
    card = ran_failing(shell, "_y = jax.tree.map(lambda a, g: a - g, p, x.sum())",
                       recovers=True).card
    assert "There p has a dict and x.sum() an array (a leaf)." in card["why"], card["why"]
    assert "jxkernel" not in card["why"] + card["traceback"], card
    card = ran_failing(shell, "_y = jax.jit(lambda s: jax.tree.map(lambda a, g: a - g, p, s))"
                              "(x.sum())", recovers=True).card
    assert "There p has a dict and s a traced array (a leaf)." in card["why"], card["why"]


def test_a_librarys_tree_map_gets_the_lines_names_printed(shell):
    """A tree_map inside a library's function (Optax's apply_updates; here a function of the
    learner's namespace that is not the cell's line): the card printed
    `jax.tree_util.tree_structure(a)` and `(b)`, names the learner never bound (NameError
    when pasted); now the line's names holding the two trees."""
    assert shell.run_cell(SETUP + ORDER_SETUP).success
    assert shell.run_cell("import sys, types\nlib = types.ModuleType('lib')\n"
                          "exec('import jxkernel as jax\\ndef apply(a, b):\\n'\n"
                          "     '    return jax.tree.map(lambda u, v: u + v, a, b)', "
                          "lib.__dict__)").success
    card = ran_failing(shell, "s = x.sum()\n_y = lib.apply(p, s)", recovers=True).card
    assert card is not None and card["kind"] == "tree-structure", card
    assert [line.split("    # ")[0] for line in card["rewrite"].splitlines()] == [
        "print(jax.tree_util.tree_structure(p))", "print(jax.tree_util.tree_structure(s))"]
