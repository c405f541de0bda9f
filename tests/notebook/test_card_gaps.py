"""Mistakes that had no card or a misleading one (tests/data/card_gaps_cases.py), each checked
against what JAX 0.10.2 says for the same program (tests/data/card_gaps_reference.json,
recorded by reference/make_card_gaps_reference.py): JAX's error and message, and every fix
a card advises, pasted and run, computes JAX's recorded value."""
import functools
import json
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
from card_gaps_cases import (ASSERT_FAILING, ASSERT_FIXED, ASSERT_SETUP,  # tests/data
                             ASSERT_VECTOR, CARRY_FLOAT, CARRY_LEAF, CARRY_LEAF_SETUP,
                             LAMBDA_CARRY,
                             CHECKIFY, CHECKIFY_SETUP, HASH_INDEXED, HASHES, INNER_STATIC,
                             INNER_STATIC_FIXES, INT_OUTPUTS, INT_SETUP, JIT_OBJECTS,
                             KEY_FIXES, KEYS, NANS, NANS_FIXED, NANS_GUARDED, NANS_SETUP,
                             OBJECTS, PMAP, PMAP_SETUP, PMAP_SIZES, PMAP_SIZES_SETUP,
                             PMAP_SQUEEZE, SPLIT_FIXED,
                             SPLIT_TRACED, SWITCH_DTYPES, SWITCH_OTHER_STRUCTURE,
                             SWITCH_SEVERAL, VMAP_OUT,
                             VMAP_OUT_SETUP, VMAP_OUT_VECTOR, run as facts_of,
                             switch_several_program)
import jnp_unhashable_cases  # tests/data
from recorded_errors import leaf_values  # tests/data
from card_checks import rewrite_code  # tests/support
import locations  # tests/support: the repository's folders
from ipython_shell import ran_failing, run_cell, shell_fixture
from numerics import ELEMENTWISE, assert_allclose_ulp  # tests/support

JAX = locations.recorded("card_gaps_reference.json")

# cases whose words are jxkernel's on purpose, JAX's class kept: pmap given axes of two sizes
# (JAX 0.10.2's words are its body's squeeze's, of an axis the learner wrote no squeeze of;
# ours name each argument, its type and axis)
OWN_WORDS = {f"pmap_sizes_{case}": "pmap got inconsistent sizes for array axes to be mapped:"
             for case in PMAP_SIZES}

# cases whose words differ from JAX's, a gap kept, and why: the scan body's carry compared
# with its structure names jxkernel's aval class where JAX names its own module's
# (tests/lax/test_control_flow.py keeps it so: a class named in JAX's module would not exist)
WORDS_GAPS = {"stop104_scan_body_returning_y_as_carry": ("jax._src.core.ShapedArray",
                                                         "jxkernel.core.avals.ShapedArray")}

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\n"
                      "from jxkernel import lax\n"
                      "from jxkernel.experimental import checkify", fresh=True)


@functools.cache
def _facts() -> dict:
    return facts_of(jxkernel)


def shown(shell, source):
    """(what the shell printed, colours removed, the card's JSON or None) for a failing cell."""
    ran = ran_failing(shell, source)
    return ran.printed, ran.card


@pytest.mark.parametrize("case", sorted(JAX))
def test_the_cases_say_and_compute_what_jax_does(case):
    """Every case under jxkernel: JAX's class and words (a jnp function's inner jit given a
    tracer where a static value goes: JAX's whole message, no line of ours added; grad of a
    Box: grad's words), the fixes' values, and while_loop's traces of a promoted carry in
    JAX's order (cond, body, then both again) with cond's trace kept for the next call."""
    if case in OWN_WORDS:
        assert _facts()[case] == {**JAX[case], "first_line": OWN_WORDS[case]}, case
        return
    if case in WORDS_GAPS:             # the gap stands as recorded, and is the only change
        theirs, ours = WORDS_GAPS[case]
        assert _facts()[case] != JAX[case], f"{case}: no gap now; drop it from WORDS_GAPS"
        assert json.loads(json.dumps(_facts()[case]).replace(ours, theirs)) == JAX[case]
        return
    assert _facts()[case] == JAX[case], case


def registering_card(shell, case: str, cls: str, line: str, register: str, kind: str) -> dict:
    """The card of `line` (a cell that fails) given an instance of `cls` (defined in a cell
    first): of `kind`, JAX's message (the recorded `case`'s first line: no object address, no
    `__main__.`), and a rewrite that is `register` (the class registered) then `line`. The
    program so fixed, the class defined anew (not registered yet) and the rewrite pasted,
    computes `case`_fixed's value."""
    assert shell.run_cell(cls).success
    text, card = shown(shell, line)
    assert card is not None and card["kind"] == kind, text
    assert re.sub(r" at 0x[0-9a-f]+", "", card["message"]).replace("__main__.", "") == \
        JAX[case]["first_line"]
    assert rewrite_code(card["rewrite"]) == f"{register}\n{line}", card["rewrite"]
    assert shell.run_cell(cls + rewrite_code(card["rewrite"])).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"{case}_fixed"]
    return card


@pytest.mark.parametrize("case", sorted(OBJECTS))
def test_an_unregistered_class_gets_it_registered(shell, case):
    """grad, value_and_grad, vmap or tree_map of a Box (a plain class or a @dataclass): the
    card registers the class (its number fields data), and the program so fixed gives JAX's
    value."""
    card = registering_card(shell, f"object_{case}", *OBJECTS[case], "unregistered-class")
    assert card["title"].endswith("is not a registered pytree")


def test_an_unregistered_class_with_a_setting_keeps_it_meta(shell):
    """A string field is no leaf to trace: meta_fields, so grad of the registered class runs
    (JAX's register_dataclass takes the same lists)."""
    cell = ("class Cfg:\n    def __init__(self, name, w):\n        self.name = name\n"
            "        self.w = w\n")
    assert shell.run_cell(cell).success
    text, card = shown(shell, "_y = jax.grad(lambda c: c.w ** 2)(Cfg('a', 3.0))")
    assert card["rewrite"].startswith("jax.tree_util.register_dataclass(Cfg, "
                                      "data_fields=['w'], meta_fields=['name'])")
    assert shell.run_cell(cell + rewrite_code(card["rewrite"])).success
    assert float(shell.user_ns["_y"].w) == 6.0 and shell.user_ns["_y"].name == "a"


def test_a_tree_map_of_a_dict_of_arrays_gets_no_such_card(shell):
    """The user's own TypeError inside tree_map with no object of theirs as a leaf."""
    text, card = shown(shell, "_y = jax.tree.map(lambda v: v + 'a', {'w': 1.0})")
    assert card is None or card["kind"] != "unregistered-class", card


def test_a_check_under_jit_gets_checkify(shell):
    """checkify.check in a jitted function: JAX's ValueError (whole message), and the card's
    rewrite of the calling line: checkify.checkify around the jit, then err.throw(); run, it
    gives JAX's value, and for a failing input raises JAX's words."""
    assert shell.run_cell(CHECKIFY_SETUP).success
    text, card = shown(shell, CHECKIFY["mistake"])
    assert card is not None and card["kind"] == "checkify-unwrapped", text
    assert JAX["checkify_unwrapped"]["message"] in card["traceback"]
    assert card["message"] == JAX["checkify_unwrapped"]["message"]
    assert rewrite_code(card["rewrite"]) == CHECKIFY["fixed"], card["rewrite"]
    assert shell.run_cell(CHECKIFY["fixed"]).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX["checkify_fixed"]
    failing, card = shown(shell, CHECKIFY["fixed_failing"])
    assert JAX["checkify_fixed_failing"]["first_line"] in failing + str(card and card["traceback"])


def test_a_check_under_a_decorated_jit_wraps_the_function(shell):
    cell = ("@jax.jit\ndef h(v):\n    checkify.check(v > 0, 'v must be positive')\n"
            "    return v + 1\n")
    assert shell.run_cell(cell).success
    text, card = shown(shell, "h(2.0)")
    assert rewrite_code(card["rewrite"]) == "err, out = checkify.checkify(h)(2.0)\nerr.throw()"
    assert shell.run_cell(rewrite_code(card["rewrite"])).success
    assert float(shell.user_ns["out"]) == 3.0


@pytest.mark.parametrize("case", sorted(INT_OUTPUTS))
def test_grad_of_an_integer_output_gets_a_float_output_and_says_it_is_zero(shell, case):
    """A count, an argmax, a named function returning an int: JAX's TypeError, the output
    cast to float (its derivative, zeros: JAX's value), and a smooth stand-in named."""
    mistake, fix = INT_OUTPUTS[case]
    assert shell.run_cell(INT_SETUP).success
    text, card = shown(shell, f"_y = {mistake}")
    assert card is not None and card["kind"] == "integer-grad-output", text
    assert card["message"] == JAX[f"int_output_{case}"]["first_line"]
    assert rewrite_code(card["rewrite"]) == f"_y = {fix}", card["rewrite"]
    assert "derivative is 0" in card["why"] and "jax.nn.sigmoid" in card["fix"]
    assert shell.run_cell(rewrite_code(card["rewrite"])).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"int_output_{case}_fixed"]


@pytest.mark.parametrize("case", ["keys_where_one_goes", "split_of_keys",
                                  "raw_keys_where_one_goes"])
def test_a_batch_of_keys_where_one_goes_gets_one_key_or_vmap(shell, case):
    """normal(split(key)): one key of the batch (first line), or vmap of the call, one draw
    per key (second): JAX's numbers. Raw keys (PRNGKey's): JAX's message names the array's
    shape with its key-data axis, (3, 2) (jxkernel's said (3,)); the card counts the keys."""
    text, card = shown(shell, f"_y = {KEYS[case]}")
    assert card is not None and card["kind"] == "key-batch", text
    assert card["message"] == JAX[f"key_{case}"]["first_line"]
    if case.startswith("raw"):
        assert card["title"] == "jax.random.normal was given 3 keys, not one", card["title"]
    first, *rest = rewrite_code(card["rewrite"]).splitlines()
    assert [first, *rest] == [f"_y = {KEY_FIXES[case]}", f"_y = {KEY_FIXES[case + '_vmap']}"]
    for line, fixed in ((first, f"key_{case}_fixed"), (rest[0], f"key_{case}_vmap_fixed")):
        assert shell.run_cell(line).success
        value = shell.user_ns["_y"]
        if jxkernel.dtypes.issubdtype(value.dtype, jxkernel.dtypes.prng_key):
            value = jxkernel.random.key_data(value)
        if np.asarray(value).dtype.kind == "f":   # normal's draws go through erf_inv
            assert_allclose_ulp(np.asarray(value), np.float32(JAX[fixed]), ELEMENTWISE,
                                err_msg=line)
        else:                                    # key data: PRNG bits, exact
            assert np.asarray(value).tolist() == JAX[fixed], line


def test_a_key_wrapped_again_is_used_as_it_is(shell):
    """wrap_key_data of a typed key: JAX's words are the seed's, but the card no longer
    rewrote the call as a seed's (`wrap_jax.random.key(k)ey_data(k)`): the key as it is,
    whose data is JAX's."""
    assert shell.run_cell("k = jax.random.key(0)").success
    text, card = shown(shell, "_y = jax.random.wrap_key_data(k)")
    assert card["kind"] == "key-wrapped", card
    assert card["message"] == JAX["key_key_wrapped_again"]["first_line"]
    assert rewrite_code(card["rewrite"]) == "_y = k"
    assert shell.run_cell("_y = k").success
    assert np.asarray(jxkernel.random.key_data(shell.user_ns["_y"])).tolist() == \
        JAX["key_key_wrapped_again_fixed"]


@pytest.mark.parametrize("case", ["index_scalar_key", "key_plus_one", "key_of_key",
                                  "fold_in_key"])
def test_other_typed_key_mistakes_get_no_misleading_card(shell, case):
    """JAX's words say what is wrong (a 0-d key indexed, a key added to, a key given as a
    seed): no card, or none of another kind's advice."""
    text, card = shown(shell, f"_y = {KEYS[case]}")
    assert card is None, card


@pytest.mark.parametrize("case", sorted(INNER_STATIC_FIXES))
def test_a_traced_value_where_a_jnp_function_wants_a_static_one_gets_it_static(shell, case):
    """jnp.vander's N, jnp.sort's axis from a jitted lambda's argument: JAX's whole message
    (no "take 'N' out of static_argnums" for a jit the learner never wrote, which the
    unhashable-static card's rewrite followed with a .item() of a lambda), a card naming the
    jnp function and its argument, and the lambda's argument made static: JAX's value."""
    assert shell.run_cell("x = jnp.arange(1.0, 5.0)").success
    text, card = shown(shell, f"_y = {INNER_STATIC[case]}")
    assert card is not None and card["kind"] == "jnp-static", text
    assert card["traceback"].rstrip("\n").endswith(JAX[f"inner_static_{case}"]["message"].rstrip())
    assert "static_argnums" not in card["traceback"]
    assert rewrite_code(card["rewrite"]) == f"_y = {INNER_STATIC_FIXES[case]}", card["rewrite"]
    assert shell.run_cell(rewrite_code(card["rewrite"])).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"inner_static_{case}_fixed"]


def test_a_traced_array_where_a_jnp_function_wants_a_static_value_gets_words(shell):
    """jnp.digitize's right computed from a traced array: no static fix can work (an array
    is not hashable), so words and a comment, never code."""
    assert shell.run_cell("x = jnp.arange(1.0, 5.0)").success
    text, card = shown(shell, f"_y = {INNER_STATIC['digitize']}")
    assert card["kind"] == "jnp-static" and card["title"] == \
        "jnp.digitize's right was given a traced value", card
    assert card["rewrite"].startswith("# ") and "\n" not in card["rewrite"]


def test_a_promoted_while_loop_carry_explains_conds_retrace_by_the_body():
    """jax_explain_cache_misses for lax.while_loop(cond, body, 1) with body `c * 1.5`: JAX
    0.10.2 logs four tracing misses (cond, body, then both for f32[]), and so do we; cond's
    fix says the body returned f32[] (it had said cond returned it: cond returns a bool)."""
    from logged import logged_messages              # tests/support
    from jxkernel import lax
    jxkernel.config.update("jax_explain_cache_misses", True)
    try:
        def cond(c):
            return c < 10

        def body(c):
            return c * 1.5
        with logged_messages() as messages:
            lax.while_loop(cond, body, 1)
    finally:
        jxkernel.config.update("jax_explain_cache_misses", False)
    misses = [m for m in messages if m.startswith("TRACING CACHE MISS")]
    assert [re.search(r"\b(cond|body) (?:id=|defined at)", m).group(1) for m in misses] == \
        ["cond", "body", "cond", "body"], misses
    assert "the loop's body returns f32[]" in misses[2] and "cond returns" not in misses[2]


@pytest.mark.parametrize("case", sorted(HASHES))
def test_a_traced_value_to_hash_gets_its_argument_static(shell, case):
    """jnp.tile's reps from a jitted lambda's argument (JAX: tile's parameter reps is not
    hashable), a traced key of a dict, a set or hash(): JAX's first line, a card naming the
    argument, and the lambda's argument made static, which computes JAX's value."""
    assert shell.run_cell("x = jnp.arange(1.0, 4.0)").success
    mistake, fix = HASHES[case]
    text, card = shown(shell, mistake)
    kind = "traced-parameter" if case == "tile" else "traced-hash"
    assert card is not None and card["kind"] == kind, text
    assert card["message"] == JAX[f"hash_{case}"]["first_line"]
    assert card["origin"]["argument"] == ("n" if case == "tile" else "k")
    assert rewrite_code(card["rewrite"]) == fix, card["rewrite"]
    assert shell.run_cell(fix).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"hash_{case}_fixed"]


def test_a_traced_key_s_array_lookup_advised_in_words_runs(shell):
    """The traced-hash card's other fix, an array indexed by the traced key: JAX's value."""
    text, card = shown(shell, HASHES["dict_key"][0])
    assert "jnp.array([...])[k]" in card["fix"]
    assert shell.run_cell(HASH_INDEXED).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX["hash_indexed"]


def test_a_traced_count_computed_inside_gets_words(shell):
    """tile's reps from a value computed under jit, no argument of the user's to make static:
    words and a comment, never code."""
    text, card = shown(shell, "_y = jax.jit(lambda v: jnp.tile(v, (v.sum().astype(int),)))"
                              "(jnp.ones(2))")
    assert card["kind"] == "traced-parameter", text
    assert card["rewrite"].startswith("# ") and "\n" not in card["rewrite"]
    assert "shapes are static" in card["why"]


@pytest.mark.parametrize("case", sorted(JIT_OBJECTS))
def test_a_dataclass_given_to_jit_gets_it_registered(shell, case):
    """jit of a @dataclass of numbers, frozen or not (JAX 0.10.2 traces neither: the same
    TypeError): register_dataclass, not "a tuple, then static_argnames"; JAX's value."""
    card = registering_card(shell, f"jit_object_{case}", *JIT_OBJECTS[case], "not-an-array")
    assert "static_argnames" not in card["rewrite"]


def test_a_traced_count_of_a_decorated_function_gets_its_decorator_static(shell):
    """jnp.tile's reps from an argument of a function under @jax.jit: the decorator rewritten
    with static_argnames (JAX's value, the tile case's)."""
    cell = "x = jnp.arange(1.0, 4.0)\n@jax.jit\ndef rep(v, n):\n    return jnp.tile(v, (n,))\n"
    assert shell.run_cell(cell).success
    text, card = shown(shell, "_y = rep(x, 2)")
    assert card["kind"] == "traced-parameter", text
    header = "from functools import partial\n@partial(jax.jit, static_argnames=('n',))"
    first, second, third = card["rewrite"].splitlines()
    assert [first, second.split("   # ")[0], third] == [*header.splitlines(), "def rep(v, n):"]
    assert shell.run_cell(f"{header}\ndef rep(v, n):\n    return jnp.tile(v, (n,))\n"
                          "_y = rep(x, 2)").success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX["hash_tile_fixed"]


# ------------------------------------------------------------------ stop 101 (h-cards-101)
def test_an_int_carry_made_float_offers_the_float_start_first(shell):
    """fori_loop(0, 3, lambda i, c: c + 0.5, jnp.int32(0)): the body's arithmetic is float,
    so the float start is the fix meant and comes first (JAX's 1.5 pasted); the cast back,
    kept second, gives JAX's 0 (each step's half dropped), the lambda on the line cast (it
    listed the cast back first, then as a pattern, `return new_carry.astype(...)`, which a
    lambda has no place for)."""
    text, card = shown(shell, CARRY_FLOAT["mistake"])
    assert card is not None and card["kind"] == "loop-carry", text
    assert card["message"] == JAX["carry_float_mistake"]["message"].splitlines()[0]
    lines = card["rewrite"].splitlines()
    code = [line for line in lines if not line.startswith("#")]
    assert code[0] == CARRY_FLOAT["float_start"], card["rewrite"]
    back = next(i for i, line in enumerate(lines) if line.startswith("# or"))
    assert "give carry back with the type it came in as" in lines[back]
    assert lines[back + 1:] == [CARRY_FLOAT["cast_back"]], card["rewrite"]
    for case in ("float_start", "cast_back", "weak_start"):
        assert shell.run_cell(CARRY_FLOAT[case]).success, case
        assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"carry_float_{case}"], case


def test_an_int_leaf_of_a_tuple_carry_made_float_gets_that_leaf_of_the_start_float(shell):
    """A scan's carry (jnp.int32(0), 1.0) whose first leaf the body makes float: the start's
    tuple on the line with that leaf made float32 (it gave words, `e.g. jnp.asarray(init,
    ...)`), first; pasted, JAX's value; the body's return cast back second."""
    assert shell.run_cell(CARRY_LEAF_SETUP).success
    text, card = shown(shell, CARRY_LEAF[0])
    assert card is not None and card["kind"] == "loop-carry", text
    lines = card["rewrite"].splitlines()
    assert lines[1] == CARRY_LEAF[1] and lines[2].startswith("# or"), card["rewrite"]
    assert lines[3].startswith("return ((a + x).astype(jnp.int32), b), x"), card["rewrite"]
    assert shell.run_cell(CARRY_LEAF[1]).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX["carry_leaf_float_start"]


@pytest.mark.parametrize("case", sorted(LAMBDA_CARRY))
def test_a_lambda_bodys_carry_is_given_back_in_the_line(shell, case):
    """A scan body `lambda c, x: (c + x, c)` that makes its int carry float, a while_loop body
    that sums its vector carry to a scalar: the card's way to keep the carry's type is the
    user's line with the lambda's carry cast (broadcast) back, not a pattern of names the
    lambda has not; pasted, JAX's value."""
    mistake, fix = LAMBDA_CARRY[case]
    text, card = shown(shell, mistake)
    assert card is not None and card["kind"] == "loop-carry", text
    assert card["message"] == JAX[f"lambda_carry_{case}"]["first_line"]
    assert fix in card["rewrite"].splitlines(), card["rewrite"]
    assert "pattern" not in card["rewrite"], card["rewrite"]
    assert shell.run_cell(fix).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"lambda_carry_{case}_fixed"]


@pytest.mark.parametrize("case", sorted(VMAP_OUT))
def test_out_axes_past_what_vmaps_function_returns(shell, case):
    """jax.vmap(f, out_axes=1) of an f returning a scalar: JAX's words (NumPy's, of the
    stacked result); the card tells of out_axes and of f's output (it was the axis-bounds
    card, its rewrite `# axis=0` for a line with no axis), out_axes set to the last place the
    batch can go: JAX's value. f returning a vector, the card's other way, runs (JAX's)."""
    mistake, fix = VMAP_OUT[case]
    assert shell.run_cell(VMAP_OUT_SETUP).success
    text, card = shown(shell, mistake)
    assert card is not None and card["kind"] == "vmap-out-axes", text
    assert card["message"] == JAX[f"vmap_out_{case}"]["message"]
    assert "f's output" in card["title"] and "out_axes=" in card["title"]
    assert rewrite_code(card["rewrite"]).splitlines()[0] == fix, card["rewrite"]
    assert shell.run_cell(fix).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"vmap_out_{case}_fixed"]
    assert shell.run_cell(VMAP_OUT_VECTOR).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX["vmap_out_vector_returned"]


def test_out_axes_past_one_output_of_several_gets_words(shell):
    """A pair out, one out_axes for both: out_axes=0 for all would move the vector's batch
    axis too, so the card names the output and gives no line."""
    assert shell.run_cell(VMAP_OUT_SETUP).success
    text, card = shown(shell, "_y = jax.vmap(lambda v: (v.sum(), v), out_axes=1)(xs)")
    assert card["kind"] == "vmap-out-axes" and card["origin"]["path"] == "[0]", text
    assert all(line.startswith("#") for line in card["rewrite"].splitlines())


@pytest.mark.parametrize("case", ["jit", "jit_parenthesized", "eager"])
def test_an_assert_on_a_vector_checks_every_element(shell, case):
    """`assert x > 0` of a vector: JAX's ValueError, traced or not (not a
    TracerBoolConversionError). The card's rewrite: jnp.all of the test, in checkify.check
    where x is traced (`assert jnp.all(...)` raises TracerBoolConversionError under jit, and
    check of the vector "check takes a scalar pred": JAX's words, ours too); pasted, JAX's
    values, and JAX's error for a non-positive x. It gave `y = jnp.where(cond, a, b)`."""
    program = ASSERT_VECTOR[case]
    assert shell.run_cell(ASSERT_SETUP).success
    text, card = shown(shell, program)
    assert card is not None and card["kind"] == "truth-value", text
    assert card["message"] == JAX[f"assert_vector_{case}"]["first_line"]
    assert card["title"] == "An assert on an array of booleans"
    fixed = ASSERT_FIXED["eager" if case == "eager" else "jit"]
    rewrite = rewrite_code(card["rewrite"]).splitlines()
    if case == "eager":
        assert rewrite == ["assert jnp.all(x > 0), 'x must be positive'"], card["rewrite"]
    else:
        said = "'x must be positive'" if case == "jit" else "'assert x > 0 failed'"
        assert rewrite == [f"checkify.check(jnp.all(x > 0), {said})", "# and the call, in "
                           "place of _y = f(xs) (a check under jit raises unless checkified):",
                           "err, _y = checkify.checkify(f)(xs)", "err.throw()"], card["rewrite"]
    key = "eager" if case == "eager" else "jit"
    assert shell.run_cell(ASSERT_SETUP + fixed).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"assert_vector_{key}_fixed"]
    failing = run_cell(shell, ASSERT_FAILING + fixed, store_history=False)
    assert type(failing.error).__name__ == JAX[f"assert_vector_{key}_fixed_failing"]["error"]
    assert str(failing.error).splitlines()[0] == \
        JAX[f"assert_vector_{key}_fixed_failing"]["first_line"]


@pytest.mark.parametrize("case", ["lambda", "decorated", "shape_tuple"])
def test_a_traced_split_count_is_jaxs_parameter_error_with_its_card(shell, case):
    """jax.random.split(key, n) of a jitted function's argument n: JAX's TypeError (bind's
    hash of random_split's parameter; ours was "Shapes must be 1D sequences ..."), whole;
    the traced-parameter card names split's num and makes n static: JAX's keys."""
    text, card = shown(shell, SPLIT_TRACED[case])
    assert card is not None and card["kind"] == "traced-parameter", text
    assert card["message"] == JAX[f"split_{case}"]["message"]
    assert card["title"] == "jax.random.split's num was given a traced value"
    assert card["origin"]["argument"] == "n"
    if case == "lambda":
        assert rewrite_code(card["rewrite"]) == SPLIT_FIXED, card["rewrite"]
        assert shell.run_cell(SPLIT_FIXED).success
        assert np.asarray(jxkernel.random.key_data(shell.user_ns["_y"])).tolist() == \
            JAX["split_fixed"]


@pytest.mark.parametrize("case", sorted(SWITCH_DTYPES))
def test_switch_branches_of_two_dtypes_get_the_lambda_cast(shell, case):
    """lax.switch given lambdas of two dtypes in its list: JAX's words, and the line with the
    branch JAX names (branch1, branch2) returning the promoted dtype, as the cond card's
    lambdas do (it gave `# the pattern ... return result.astype(...)`, a `return` no lambda
    has); pasted, JAX's value."""
    mistake, fix = SWITCH_DTYPES[case]
    text, card = shown(shell, mistake)
    assert card is not None and card["kind"] == "branch-types", text
    assert card["message"] == JAX[f"switch_{case}"]["lines"][0]
    assert [line for line in card["traceback"].splitlines() if line.startswith(
        ("The output", "Revise"))] == [line for line in JAX[f"switch_{case}"]["lines"] if line
                                      .startswith(("The output", "Revise"))]
    assert card["rewrite"] == fix
    assert shell.run_cell(fix).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"switch_{case}_fixed"]


@pytest.mark.parametrize("case", sorted(SWITCH_SEVERAL))
def test_switch_branches_several_off_are_fixed_at_once(shell, case):
    """lax.switch (or cond) branches off in several places: several branches, several leaves
    of a pytree, one leaf in both dtype and shape. JAX's words (a bullet per leaf that
    differs; "so the dtypes do not match, and the shapes do not match"), and a rewrite that
    changes every branch at once (it fixed the pair JAX names, and the learner's fixed line
    failed again on the next branch); the program so fixed computes JAX's value."""
    setup, mistake, rewrite, _ = SWITCH_SEVERAL[case]
    if setup:
        assert shell.run_cell(setup).success
    text, card = shown(shell, mistake)
    assert card is not None and card["kind"] == "branch-types", text
    assert card["message"] == JAX[f"switch_several_{case}"]["lines"][0]
    assert [line for line in card["traceback"].splitlines() if line.startswith(
        ("The output", "  * the output", "Revise"))] == [
        line for line in JAX[f"switch_several_{case}"]["lines"] if line.startswith(
            ("The output", "  * the output", "Revise"))]
    assert card["rewrite"] == rewrite, card["rewrite"]
    assert shell.run_cell(switch_several_program(case)).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"switch_several_{case}_fixed"]


def test_switch_branch_of_another_structure_is_named_with_the_others_fixed(shell):
    """Branches off in type and one of another structure: the others changed in the line and
    that one named; the line so changed raises JAX's next error, the structure's, for it."""
    mistake, rewrite = SWITCH_OTHER_STRUCTURE
    _, card = shown(shell, mistake)
    assert card["rewrite"] == rewrite, card["rewrite"]
    assert "branch2 returns another structure" in card["why"], card["why"]
    ran = ran_failing(shell, rewrite.splitlines()[0])
    assert type(ran.error).__name__ == JAX["switch_other_structure_fixed"]["error"]
    assert str(ran.error).splitlines()[0] == JAX["switch_other_structure_fixed"]["first_line"]
    assert "branch2 output is a" in str(ran.error)


@pytest.mark.parametrize("case", sorted(PMAP))
def test_pmap_of_more_rows_than_devices_gets_a_card_whose_rewrites_run_as_jaxs(shell, case):
    """pmap of 8 rows on the one device: JAX's squeeze error, a card saying how many devices
    run, and its rewrites (vmap; pmap of vmap over a block of rows per device), run, compute
    JAX's recorded values."""
    mistake, fixes = PMAP[case]
    assert shell.run_cell(PMAP_SETUP).success
    text, card = shown(shell, mistake)
    assert card is not None and card["kind"] == "pmap-devices", text
    assert card["message"] == JAX[f"pmap_{case}"]["first_line"]
    assert "jax.local_device_count() is 1 here" in card["why"], card["why"]
    assert "of shape (8, 2)" in card["why"], card["why"]
    assert rewrite_code(card["rewrite"]).splitlines() == fixes, card["rewrite"]
    for k, fix in enumerate(fixes):
        assert shell.run_cell(fix).success
        assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"pmap_{case}_fixed_{k}"]


@pytest.mark.parametrize("case", sorted(PMAP_SIZES))
def test_pmap_of_axes_of_two_sizes_gets_in_axes_none_whose_rewrite_runs_as_jaxs(shell, case):
    """pmap of a row per device and a w of 2 entries: our error names each argument, its type
    and axis (JAX's is its body's squeeze's: recorded, its class kept), and the card's
    rewrite, in_axes None for w, runs and computes JAX's recorded value."""
    mistake, fix = PMAP_SIZES[case]
    assert shell.run_cell(PMAP_SIZES_SETUP).success
    text, card = shown(shell, mistake)
    assert card is not None and card["kind"] == "pmap-sizes", text
    assert card["error"] == JAX[f"pmap_sizes_{case}"]["error"] == "ValueError"
    name = {"two": "w", "three": "b"}[case]        # the parameter w is passed to
    assert f"had size 2: axis 0 of argument {name} of type float32[2]" in card["traceback"]
    assert "(size 1)" in card["why"] and f"{name} with in_axes None" in card["fix"], card
    assert card["rewrite"] == fix
    assert shell.run_cell(fix).success
    assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"pmap_sizes_{case}_fixed"]


def test_pmap_of_axes_of_two_sizes_the_function_cannot_take_gets_words():
    """Where the function does not trace with w whole (x + w: (2,) and (3,)), the card
    offers no such rewrite: its pattern, as comments."""
    from jxkernel.views.error_cards import card_for
    with pytest.raises(ValueError) as raised:
        jxkernel.pmap(lambda x, w: x + w)(jxkernel.numpy.ones((1, 2)), jxkernel.numpy.ones(3))
    card = card_for(raised.value)
    assert card is not None and card.kind == "pmap-sizes"
    assert all(line.startswith("#") for line in card.rewrite.splitlines()), card.rewrite


def test_a_squeeze_in_pmaps_words_but_no_pmaps_gets_the_squeezes_card():
    """jnp.squeeze of an axis of 8 raises JAX's very words (recorded) but no pmap: pmap's card
    reads where the error came from (what pmap attaches), not its text; the squeeze's own card
    tells the axis's size."""
    from jxkernel.views.error_cards import card_for
    names = {"jax": jxkernel, "jnp": jxkernel.numpy}
    exec(PMAP_SETUP, names)
    with pytest.raises(ValueError) as raised:
        exec(PMAP_SQUEEZE, names)
    assert str(raised.value) == JAX["pmap_squeeze"]["first_line"] == \
        JAX["pmap_lambda"]["first_line"]
    card = card_for(raised.value)
    assert card.kind == "axis-bounds" and card.title == "squeeze: axis 0 has size 8, not 1"


def test_a_decorated_pmap_gets_the_card_with_vmap_in_words(shell):
    """@jax.pmap on a def, then called on 8 rows: the call's line has no pmap to rewrite, so
    the card's rewrite is vmap's pattern, as comments."""
    assert shell.run_cell(PMAP_SETUP + "@jax.pmap\ndef double(v):\n    return v * 2\n").success
    text, card = shown(shell, "_y = double(x8)")
    assert card is not None and card["kind"] == "pmap-devices", text
    assert all(line.startswith("#") for line in card["rewrite"].splitlines())
    assert "@jax.vmap" in card["rewrite"]


# per NANS case with a card: (the card's title, words of its why naming the values, the line
# it points at)
NAN_WORDS = {
    "log_jit": ("log made a nan: log of a negative number",
                "log gave nan at index 1 (1 of its 3 elements is nan), given y = -2.0",
                "return jnp.log(y)"),
    "where_grad": ("mul made a nan: 0 * inf", "The line writes no mul: JAX ran a transformed "
                   "form of it (under jax.grad, its derivative)",
                   "return jnp.where(x > 0, jnp.sqrt(x), 0.0)"),
    "where_vmap": ("sqrt made a nan: sqrt of a negative number",
                   "sqrt gave nan at index 0 (1 of its 2 elements is nan), given x = -1.0",
                   "return jnp.where(x > 0, jnp.sqrt(x), 0.0)"),
    "div": ("div made a nan: 0 / 0", "given a = 0.0 and b = 0.0", "return a / b"),
}


@pytest.mark.parametrize("case", sorted(NAN_WORDS))
def test_a_nan_under_debug_nans_gets_the_values_that_made_it(shell, case):
    """jax_debug_nans on: JAX's FloatingPointError names the primitive, its traceback the
    line; the card adds the element and the inputs there (named as the line writes them),
    and why they have no answer. For a jnp.where's branch, its rewrite of the line (the
    function given a safe input under the where's condition), run with jax_debug_nans on,
    raises nothing and computes JAX's recorded value."""
    title, words, line = NAN_WORDS[case]
    assert shell.run_cell(NANS_SETUP + "jax.config.update('jax_debug_nans', True)").success
    try:
        text, card = shown(shell, NANS[case])
        assert card is not None and card["kind"] == "debug-nans", text
        assert card["message"] == JAX[f"nans_{case}"]["first_line"]
        assert card["title"] == title and words in card["why"], card["why"]
        assert card["where"]["code"] == line
        if case in NANS_FIXED:
            guarded = NANS_GUARDED.splitlines()[1].strip()
            assert rewrite_code(card["rewrite"]) == guarded, card["rewrite"]
            assert shell.run_cell(NANS_GUARDED + NANS[case]).success
            assert leaf_values(jxkernel, shell.user_ns["_y"]) == JAX[f"nans_{case}_fixed"]
    finally:
        assert shell.run_cell("jax.config.update('jax_debug_nans', False)").success


# ------------------------------------------------------------------ a list where jnp hashes
@pytest.mark.parametrize("case", sorted(jnp_unhashable_cases.CASES))
def test_a_list_where_a_jnp_function_takes_a_static_value_gets_a_fix_jax_runs(shell, case):
    """jnp.pad's stat_length=[1, 2], jnp.sort's axis=[0]: JAX 0.10.2's error (recorded), a card
    naming the function and the argument, and the line rewritten with the value hashable (one
    number for one, a tuple for more), which JAX ran to the values recorded."""
    call, fix = jnp_unhashable_cases.CASES[case]
    theirs = locations.jax_answers("jnp_unhashable_reference.json")[case]
    assert shell.run_cell("import numpy as np\n"
                          "x = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)").success
    text, card = shown(shell, f"_y = {call}")
    assert card is not None and card["kind"] == "jnp-unhashable", text
    assert card["message"].splitlines()[0] == theirs["error"][1], card["message"]
    assert rewrite_code(card["rewrite"]) == f"_y = {fix}", card["rewrite"]
    assert shell.run_cell(rewrite_code(card["rewrite"])).success
    assert list(np.shape(shell.user_ns["_y"])) == theirs["shape"]
    # (a float32 norm's or percentile's last bits: the stated bound, 4 ulp)
    assert_allclose_ulp(np.asarray(shell.user_ns["_y"]),
                        np.asarray(theirs["values"], np.float32), 4)
