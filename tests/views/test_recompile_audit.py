"""A learner's audit of the recompile notes against JAX 0.10.2 (h-explain9): the programs of
tests/data/recompile_audit_cases.py, which tests/data/recompile_cases.py does not hold, and the
fix each note offers, applied. JAX's log of each is in tests/data/recompile_audit_reference.json
(reference/make_recompile_audit_reference.py). Per scenario:

* the jax_explain_cache_misses log says what JAX's says, message for message (ids, addresses
  and the scenario's run tag left out), but where TEXT_DIFFERS says why not;
* a compile event per miss of JAX's, each naming JAX's cause (a first call, the same leaves
  and types, a static or pytree change), and as many programs as JAX lowers;
* no note names jxkernel's modules, and the claims this audit found wrong say what JAX says;
* a fix applied (the `_fixed` and `_seen_again` scenarios) compiles as often as JAX traces it.

tests/notebook/test_notebook_recompile_audit.py runs the same programs as notebook cells.
"""
import difflib
import functools
import itertools
import linecache
import re
import sys

import numpy as np
import pytest

import jxkernel
from jxkernel import compile_log, config
from jxkernel.views.signature_changes.fixes import PATTERN_SAID

from recompile_audit_cases import FILE_PREFIX, RAISES, SCENARIOS, run  # tests/data
from logged import logged_messages      # tests/support
from doc_examples import check_docstring_examples     # tests/support
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("recompile_audit_reference.json")["scenarios"]

# where jxkernel's log may not read as JAX's, and why (each compared on what it shares)
TEXT_DIFFERS = {
    # jnp.sin is a jitted function in JAX ("<PjitFunction of <function sin at 0x…>>"), a plain
    # function here
    "static_jnp_function": "jnp.sin is a PjitFunction in JAX",
}
# jax.hessian of a jitted function (called directly, or inside another jit): JAX's jacfwd and
# jacrev trace the jaxprs they derive from it again, each logged as "never seen function"
# under the learner's function's name (and mostly "maybe the function is being re-defined
# repeatedly", which the learner did not do): 6 misses where jxkernel's log has 2. jxkernel
# logs JAX's misses of the learner's own function alone: its first trace and what changed
# (derivative_traces_dropped), message for message JAX's text (docs/seeing_inside.md)
DERIVATIVE_TRACES = {"hessian_of_jit_new_shape", "hessian_of_jit_new_shape_fixed",
                     "jit_calling_hessian_of_jit_new_shape"}


def derivative_traces_dropped(messages: list) -> list:
    """The indices of JAX's messages but the traces of a function's derivatives: a "never
    seen function" of a function (its name and line) that an earlier message names already."""
    kept, seen = [], set()
    for i, m in enumerate(messages):
        function = re.search(r"\n    (\S+) defined at (\S+)|\n  for (\S+) defined at (\S+)", m)
        key = tuple(g for g in function.groups() if g) if function else m
        if "never seen function" not in m or key not in seen:
            kept.append(i)
        seen.add(key)
    return kept


# JAX's kind of miss for a kind of Change (tests/views/test_recompile_corpus.py's JAX_KIND)
JAX_KIND = {"shape": "types", "dtype": "types", "weak_type": "types", "static": "tree",
            "traced": "tree", "structure": "tree", "config": "config",
            "fresh_jit": "never seen function", "fresh_body": "never seen function"}
# scenarios of RAISES refused while their first call traces (a fix's code that cannot work:
# n traced where the lambda slices with it), not before: JAX logs that trace
RAISED_WHILE_TRACING = {"static_n_sliced_in_jit_traced", "static_n_arange_in_jit_traced"}
_RUNS = itertools.count(1)
# the options a scenario sets and sets back, as the recording runs them: log_compiles_toggled
# ends with jax_log_compiles on (the recording's setting), which left it on for later files
# (test_recompile_explainer's log then held JAX's compile lines too: 4 failed after this one)
TOGGLED = ("jax_explain_cache_misses", "jax_log_compiles", "jax_debug_infs", "jax_enable_x64")


def jx_run(name):
    """Scenario `name` under jxkernel, its source in linecache as a cell's is: (its result,
    the compile events of its functions that missed, its misses as jax_explain_cache_misses
    logged them, in JAX's recorded form). Run once per test process (_run_once): the tests
    made 167 runs of 63 scenarios, each the same (a run of its own file sees no other),
    and none reads what a run leaves behind."""
    result, events, logged = _run_once(name)
    return result, list(events), list(logged)


@functools.cache
def _run_once(name):
    start = compile_log.last_seq() + 1
    tag = f"audit{next(_RUNS)}"
    file = f"{FILE_PREFIX}{name} {tag}>"
    source = SCENARIOS[name][1]
    linecache.cache[file] = (len(source), None, source.splitlines(True), file)
    before = {option: getattr(config, option) for option in TOGGLED}
    config.update("jax_explain_cache_misses", True)
    try:
        with logged_messages() as messages:
            result = run(jxkernel, name, tag)
    finally:
        for option, value in before.items():
            config.update(option, value)
    logged = [_as_recorded(m, tag) for m in messages
              if m.startswith("TRACING CACHE MISS") and f"defined at {file}" in m]
    events = [e for e in compile_log.events_since(start)
              if e.miss and e.source is not None and e.source.startswith(file)]
    return result, tuple(events), tuple(logged)


def _as_recorded(message: str, tag: str) -> str:
    """A logged miss as the recording writes JAX's: no id, no address, no run tag."""
    message = message.replace(f" {tag}>", ">")
    message = re.sub(r" id=\d+", "", message)
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x…>", message)


# the lines of JAX's message (after its first): jxkernel's own (what changed, the fix and its
# code, "(it is: a new object of the same code ...)") come after them
_JAX_LINE = re.compile(r"  (never seen function:|  \S+ defined at |but seen another function|"
                       r"being re-defined|for \S+ defined at |all previously seen|"
                       r"different input |Tracing context|\* )")


def _jax_part(message: str) -> str:
    """A logged miss without the lines jxkernel adds after JAX's: after each of JAX's lines
    of a type that changed, where several did (an Adam state's m and v, a batch's x and y:
    "* at state['m'], ..." then its fix, then "* at state['v'], ..."), not after the last
    alone."""
    first, *lines = message.splitlines()
    kept = [line for line in lines if _JAX_LINE.match(line)]
    return "\n".join([first, *kept])


def _cause(event) -> str:
    """The kind of JAX miss `event`'s explanation amounts to (its first in JAX's order)."""
    kinds = {JAX_KIND[c.kind] for c in event.changes if c.kind in JAX_KIND}
    order = ["never seen function", "config", "tree", "types"]
    return min(kinds, key=order.index) if kinds else "never seen function"


def _type_text(text: str) -> str:
    """A type without its weak mark, as both write it ("f32[] (weak)", "f32[]{weak_type=True}")."""
    return re.sub(r"\{weak_type=\w+\}| \(weak\)|\(\{[^)]*\}\)", "", text)


def _on_this_python(name, message: str) -> str:
    """JAX's recorded `message` (Python 3.11) as this Python's JAX writes it: since 3.12 a
    comprehension runs in its enclosing scope's frame (PEP 709), so a miss at a call in a
    module-level list comprehension is "(<module>)" where 3.11 says "(<listcomp>)" (JAX 0.10.2
    on 3.13 and jxkernel both; every such call of the scenarios is at module level)."""
    if sys.version_info < (3, 12):
        return message
    def inlined(found):
        line = SCENARIOS[name][1].splitlines()[int(found.group(1)) - 1]
        assert not line[:1].isspace(), f"{name}: a comprehension in a function, not the module"
        return f":{found.group(1)}:{found.group(2)} (<module>)"
    return re.sub(r":(\d+):(\d+) \(<(?:list|set|dict)comp>\)", inlined, message)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_audit_scenario_like_jax(name):
    expected = dict(REFERENCE[name])
    expected["messages"] = [_on_this_python(name, m) for m in expected["messages"]]
    result, events, logged = jx_run(name)
    if name in RAISES:          # refused, in JAX's words
        assert type(result).__name__ == expected["error"]
        # (an error raised while tracing names the file, which holds the run's tag)
        assert re.sub(r" audit\d+>", ">", str(result)) == expected["error_text"]
        if name in RAISED_WHILE_TRACING:     # its first trace logged, as JAX's, no program
            assert [_jax_part(m) for m in logged] == expected["messages"]
            assert sum(e.compiled for e in events) == expected["lowerings"] == 0
        else:                   # before tracing
            assert events == [] and logged == [] and expected["messages"] == []
        return
    # JAX's words, then ours: what changed and the fix, lines of their own after JAX's
    logged = [_jax_part(m) for m in logged]
    if name in TEXT_DIFFERS:    # every message of ours is one of JAX's, once its values agree
        theirs = [m.replace("<PjitFunction of <function sin at 0x…>>", "<function sin at 0x…>")
                  .replace("<PjitFunction of <function cos at 0x…>>", "<function cos at 0x…>")
                  for m in expected["messages"]]
        assert all(m in theirs for m in logged), (logged, theirs)
        assert [m for m in theirs if "never seen function" not in m] == \
            [m for m in logged if "never seen function" not in m]
    elif name in DERIVATIVE_TRACES:
        kept = derivative_traces_dropped(expected["messages"])
        assert logged == [expected["messages"][i] for i in kept]
    else:
        assert logged == expected["messages"]
    misses = expected["misses"]
    if name in DERIVATIVE_TRACES:
        misses = [misses[i] for i in derivative_traces_dropped(expected["messages"])]
    assert [_cause(e) for e in events] == [m["kind"] for m in misses], \
        [(e.reason, e.changes) for e in events]
    for event, miss in zip(events, misses):
        if miss["kind"] == "types":         # the same leaves, old and new types
            assert sorted((c.path, c.kind, _type_text(c.old), _type_text(c.new))
                          for c in event.changes if JAX_KIND.get(c.kind) == "types") == \
                sorted((c["path"], c["kind"], _type_text(c["before"]), _type_text(c["after"]))
                       for c in miss["changes"])
    # the programs the scenario's functions compiled: as many as JAX lowered, where JAX's
    # count is of the jit alone (value_and_grad and hessian lower their own programs too)
    if name.startswith(("value_and_grad", "hessian")):
        assert sum(e.compiled for e in events) <= expected["lowerings"]
    else:
        assert sum(e.compiled for e in events) == expected["lowerings"]
    if "out" in expected:            # a hit after a closed-over value changed: JAX's value
        assert jxkernel.numpy.asarray(result["out"]).tolist() == expected["out"]


def _said(event) -> str:
    """Everything a note and %jxcompiles say of `event`: its reason, each change's texts, fix
    and code."""
    return "\n".join([event.reason] + [f"{c.path} {c.old} {c.new} {c.fix} {c.snippet}"
                                       for c in event.changes])


@pytest.mark.parametrize("name", sorted(set(SCENARIOS) - RAISES))
def test_audit_notes_name_no_module_of_ours(name):
    _, events, _ = jx_run(name)
    for event in events:
        text = _said(event)
        assert "jxkernel" not in text and "_src." not in text and "<flat index" not in text, \
            text


def _recompile(name):
    """The one recompile of scenario `name`: its event's changes."""
    _, events, _ = jx_run(name)
    (first, again) = events
    assert first.reason == "first call"
    return again.changes


def test_two_functions_passed_static_are_no_function_made_anew():
    # JAX: Static(val=<custom_jvp ...>) then Static(val=<function gelu ...>); each compiles
    # once and is found again (static_activation_function_seen_again). "Make it once, outside
    # the loop" could not stop it: relu and gelu are made once already
    (change,) = _recompile("static_activation_function")
    assert change.kind == "static" and change.old == "<custom_jvp function relu>"
    # each by its name, without an address (it was "<function gelu at 0x7f…>"), the note's
    # "compiled for (..., act: static <function gelu>)" too
    _, events, _ = jx_run("static_activation_function")
    assert change.new == "<function gelu>" and "0x" not in _said(events[1])
    assert dict(events[1].signature)["act"] == "static <function gelu>"
    assert "another function" in change.fix and "outside the loop" not in change.fix
    (change,) = _recompile("static_jnp_function")
    assert "another function" in change.fix and "made anew" not in change.fix


def test_the_same_lambda_written_twice_is_a_function_made_anew():
    # JAX: two keys Static(val=<function <lambda> at 0x…>), two lowerings. The same lambda
    # written again (in another cell; here twice in one program) is a code object of its own:
    # the note said "another function ... nothing to fix unless the same function was meant",
    # where making it once compiles once (static_lambda_written_twice_fixed, as JAX)
    (change,) = _recompile("static_lambda_written_twice")
    assert "made anew" in change.fix and "another function" not in change.fix
    assert "made once, outside the loop" in change.snippet


def test_a_dicts_keys_of_another_type_are_one_change_of_the_dict():
    # JAX: "now <class 'dict'> with pytree metadata ('0', '1') and before ... (0, 1)"; before,
    # four changes, two of them "d changed length ... a list's length"
    (change,) = _recompile("dict_int_keys_then_str_keys")
    assert (change.path, change.old, change.new) == ("d", "keys 0, 1", "keys '0', '1'")
    assert "list" not in change.fix
    assert "d = {str(k): v for k, v in d.items()}" in change.snippet


def test_a_dict_with_int_keys_gaining_one_is_no_list():
    # JAX: "<class 'dict'> with 3 children and before ... 2 children ... key sets: {2}"; it
    # was "layers changed length: a list's length", its code stacking list(layers), the keys
    (change,) = _recompile("dict_int_keys_gains_a_key")
    assert change.path == "layers[2]" and "list" not in change.fix
    assert "defaults = {2: jnp.zeros((2,), jnp.float32)}" in change.snippet


def test_a_registered_class_with_another_number_of_children_is_no_list():
    # JAX: "<class '...Stack'> with 2 children and before ... with 1 child"; the list's fix
    # stacked list(Stack(...)), which is no iterable
    (change,) = _recompile("pytree_node_without_keys_child_added")
    assert change.path == "s[1]" and "Stack" in change.fix and "list" not in change.fix
    assert "jnp.stack" not in change.snippet


def test_a_keyless_pytree_nodes_leaf_is_named_as_jax_names_it():
    # JAX's debug info writes register_pytree_node's children "p[1]" (not "p[<flat index 1>]")
    (change,) = _recompile("pytree_node_without_keys_leaf_shape")
    assert change.path == "p[1]"
    # and its code pads the array before Pair holds it: `p[1] = ...` fails on a Pair
    assert "p[1] =" not in change.snippet and "leaf = jnp.pad(leaf, " in change.snippet
    assert change.fix.endswith(PATTERN_SAID)


def test_an_array_made_from_a_python_number_is_not_called_a_python_number():
    (change,) = _recompile("jnp_array_of_python_float_then_float32")
    assert "the Python number jnp.array" not in change.fix
    assert "jnp.array(1.0, jnp.float32) in place of jnp.array(1.0)" in change.fix
    assert change.snippet.startswith("f(jnp.array(1.0, jnp.float32)); ")


def test_arrays_made_from_python_numbers_are_said_to_be_weak_too():
    # State(w, jnp.array(0)), then State(w, jnp.array(0.0)): JAX's "s.step, now f32[] and
    # before i32[]", both weak; no Python number was passed, arrays made from them were
    (change,) = _recompile("register_dataclass_field_dtype")
    assert (change.path, change.old, change.new) == ("s.step", "i32[] (weak)", "f32[] (weak)")
    assert "or arrays made from them without a dtype" in change.fix


def test_hessians_own_vmap_is_not_the_learners():
    # jacfwd vmaps over tangents: the jitted function sees the learner's whole w, no row
    (change,) = _recompile("hessian_of_jit_new_shape")
    assert change.kind == "shape" and "vmap" not in change.fix + change.snippet


def test_a_batch_of_keys_is_not_padded():
    # jnp.pad refuses a key array in JAX 0.10.2; a fixed count of keys is one program
    (change,) = _recompile("typed_key_batch_grows")
    assert "jnp.pad" not in change.snippet and "jax.random.split(key, MAX)" in change.snippet


def test_a_custom_rule_function_is_named_as_jax_names_it():
    # JAX: "Static(val=<jax._src.custom_derivatives.custom_vjp object at 0x…>)"; it read
    # "<jxkernel._src.custom_derivatives.custom_vjp object at 0x…>", and the note's
    # "compiled for (..., act: static <jxkernel._src...>)" too
    _, events, logged = jx_run("static_custom_jvp_then_custom_vjp")
    assert "Static(val=<jax._src.custom_derivatives.custom_vjp object at 0x…>)" in logged[1]
    assert "jxkernel" not in "\n".join(logged)
    assert dict(events[1].signature)["act"] == "static <custom_vjp function clipgrad>"
    (change,) = events[1].changes
    assert (change.old, change.new) == ("<custom_jvp function softclip>",
                                        "<custom_vjp function clipgrad>")


@pytest.mark.parametrize("name, signature", [
    ("value_and_grad_of_jit_new_shape", (("w", "f32[4]"),)),
    ("hessian_of_jit_new_shape", (("w", "f32[3]"),))])
def test_a_derivatives_program_is_compiled_for_the_names_jax_says(name, signature):
    # the change says "w" as JAX's "* at w, now f32[4] and before f32[3]"; the signature
    # the note's "compiled for (...)" writes said "args[0]: f32[4]" (and hessian's
    # "args[0]: f32[3], args[1]: f32[3,3]", its tangents' batch too)
    (change,) = _recompile(name)
    _, events, _ = jx_run(name)
    assert change.path == "w" and events[1].signature == signature


def test_a_vmapped_jits_program_is_compiled_for_its_batch_in_the_parameters_name():
    # the miss says the rows (JAX: "x, now f32[4] and before f32[3]"), the program takes the
    # batch: "x: f32[8,4]" (it was "args[0]: f32[8,4]"; the rows' "x: f32[4]" no program's)
    from jxkernel import compile_log
    f = jxkernel.jit(lambda x: (x * 2).sum())
    start = compile_log.last_seq() + 1
    jxkernel.vmap(f)(jxkernel.numpy.ones((8, 3)))
    jxkernel.vmap(f)(jxkernel.numpy.ones((8, 4)))
    first, again = [e for e in compile_log.events_since(start) if e.key is not None]
    assert [(c.path, c.old, c.new) for c in again.changes] == [("x", "f32[3]", "f32[4]")]
    assert (first.signature, again.signature) == ((("x", "f32[8,3]"),), (("x", "f32[8,4]"),))


def test_the_docstring_examples_of_the_names_a_program_is_compiled_for():
    check_docstring_examples("jxkernel.transforms.jit.primitive", {"jxkernel": jxkernel})
    # (and of Static's repr as JAX's, tree_util._repr_as_jax)
    check_docstring_examples("jxkernel.tree_util")


def test_a_static_lambdas_fix_is_the_learners_jit_line_without_the_static_option():
    # it was `f = jax.jit(f)`: no `f` in the program, a NameError pasted. The line itself,
    # lr traced, is static_python_scalar_each_iteration_fixed: one compile, as JAX traces it
    _, events, _ = jx_run("static_python_scalar_each_iteration")
    for event in events[1:]:
        (change,) = event.changes
        assert change.snippet == ("step = jax.jit(lambda w, lr: w - lr * w)    # lr traced: "
                                  "one program for all its values")
    assert SCENARIOS["static_python_scalar_each_iteration_fixed"][1].startswith(
        "step = jax.jit(lambda w, lr: w - lr * w)\n")


def test_an_argument_is_not_named_as_a_variable_its_line_rebinds():
    # `x = f(jnp.ones(3)); x = f(x); x = f(jnp.ones(4))`: given `x`, the last call read the
    # second's result (shape 3), not the padded argument
    (change,) = _recompile("donated_then_new_shape")
    lines = change.snippet.splitlines()
    assert lines[0] == "x_arg = jnp.ones(4)    # line 2's argument, named"
    assert lines[-2] == "x = f(jnp.ones(3)); x = f(x); x = f(x_arg)    # line 2, given it"
    assert "x_arg = jnp.pad(x_arg, " in change.snippet


def test_a_padding_fix_names_the_earlier_call_to_pad_too():
    # padded at the call that recompiled alone, the earlier call's length compiles its own
    # program: two compiles pasted, as before (donated_then_new_shape_fixed pads both: one)
    (change,) = _recompile("donated_then_new_shape")
    assert change.snippet.endswith("\n# pad line 2's jnp.ones(3) so too: an unpadded length "
                                   "is a program of its own")
    (change,) = _recompile("hessian_of_jit_new_shape")
    assert change.snippet.endswith("# pad line 3's jnp.ones(2) so too: an unpadded length "
                                   "is a program of its own")
    (change,) = _recompile("sequence_lengths_vary")    # one call, in a loop: nothing to add
    assert change.snippet.endswith("f(s)    # line 3, given it")


@pytest.mark.parametrize("name", sorted(n for n in SCENARIOS
                                        if n.endswith(("_fixed", "_seen_again"))))
def test_the_fix_applied_compiles_as_jax_traces(name):
    """The note's fix pasted into the program: no compile that is not a first call, but
    where JAX, too, traces again (each of two functions passed static, once)."""
    _, events, _ = jx_run(name)
    again = [e for e in events if e.reason != "first call"]
    assert len(again) == sum(m["kind"] != "never seen function"
                             for m in REFERENCE[name]["misses"])
    assert events[0].reason == "first call"


def test_a_static_argument_passed_on_to_a_helper_is_told_both_ways():
    """A static n the jitted f passes on to a helper of the learner's (fixes._STATIC_PASSED):
    each value compiles (JAX 0.10.2: 3 lowerings for n = 1, 2, 3, whether the helper only
    computes with n or makes a shape of it), and the note's "drop it from static_argnums"
    where the helper only computes with it compiles once, with JAX's values."""
    for name, helper in (("static_passed_on_to_a_helper", "scaled"),
                         ("static_passed_on_as_a_shape", "padded")):
        assert REFERENCE[name]["lowerings"] == 3
        _, events, _ = jx_run(name)
        assert [e.reason == "first call" for e in events] == [True, False, False]
        for event in events[1:]:
            (change,) = event.changes
            assert change.kind == "static"
            assert f"f passes n on to {helper}(...), whose use of it is not read here" in \
                change.fix, change.fix
            assert "a program per value is expected" in change.fix
            assert "drop it from static_argnums/static_argnames" in change.fix
    fixed = REFERENCE["static_passed_on_to_a_helper_fixed"]
    assert fixed["lowerings"] == 1
    assert fixed["out"] == REFERENCE["static_passed_on_to_a_helper"]["out"]


def test_a_static_value_then_an_array_in_another_jit_is_told_two_programs_not_a_jit_fix():
    """n static 2 in one jit of scale, then an f32[3] traced in another (statics'
    _ARRAY_TRACED_FIX): the note offered `jax.jit(scale)` with n traced, which JAX 0.10.2
    traces twice too (the Python 2 a weak i32[], another type: _unstatic). It says two
    programs are expected and offers no code; its "an array of one shape and dtype in every
    call, to one jit" compiles once, with JAX's values (_fixed)."""
    name = "static_in_one_jit_array_in_another"
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_unstatic", "_fixed")] == [2, 2, 1]
    (change,) = _recompile(name)
    assert (change.kind, change.path, change.old, change.new) == \
        ("traced", "n", "static 2", "f32[3]")
    assert "two compiles are expected" in change.fix, change.fix
    assert "pass n as an array of one shape and dtype in every call" in change.fix
    assert change.snippet == ""
    result, events, _ = jx_run(name + "_fixed")
    assert [e.reason == "first call" for e in events] == [True]
    assert result["out"].tolist() == REFERENCE[name + "_fixed"]["out"]
    (change,) = _recompile(name + "_unstatic")       # traced in both: a type change
    assert (change.kind, change.old, change.new) == ("shape", "i32[] (weak)", "f32[3]"), \
        change


def test_an_array_then_a_tuple_of_arrays_is_one_change_of_the_argument():
    """f(x), then f((x, y)): JAX 0.10.2 misses once ("now <class 'tuple'> and before pytree
    leaf") and the tuple passed again reuses its program. The note said "t was f32[2] and is
    absent now" (an argument left out, to its default: it was passed) and "t changed length"
    twice, with code that pads a list; it is one change of t, two programs expected."""
    name = "array_then_tuple_of_arrays"
    assert REFERENCE[name]["lowerings"] == 2
    (change,) = _recompile(name)
    assert (change.path, change.old, change.new) == \
        ("t", "f32[2]", "a tuple of 2 (f32[2], f32[2])"), change
    assert "one array and a container of arrays" in change.fix, change.fix
    assert "two programs are expected" in change.fix and change.snippet == ""


def test_a_dtype_fix_casts_to_a_dtype_that_keeps_both_calls_values():
    """The dtype fix cast to the earlier call's dtype: int8 pixels, then uint8 ones, were told
    `img = jnp.asarray(img, jnp.int8)` (a pixel of 200 becomes -56), and True, then 2, were
    told 2 cast to bool (True: x * 2 became x). Now int16, which holds both (pasted before each
    call, one compile in JAX 0.10.2, 200 kept), and int(True) at the first call (a Python int,
    weak as 2 is: one compile, JAX's values; a strong int32 array there compiles twice)."""
    (change,) = _recompile("int8_then_uint8")       # one line holds both calls: a pattern
    assert change.snippet == "img = jnp.asarray(img, jnp.int16)", change.snippet
    assert change.fix.endswith(PATTERN_SAID), change.fix
    (change,) = _recompile("int8_then_uint8_at_two_calls")       # each call given its cast
    assert "Neither dtype holds all of the other's values" in change.fix, change.fix
    assert change.snippet.splitlines() == \
        SCENARIOS["int8_then_uint8_at_two_calls_fixed"][1].splitlines()[-2:]
    assert REFERENCE["int8_then_uint8_at_two_calls_fixed"]["lowerings"] == 1
    result, events, _ = jx_run("int8_then_uint8_at_two_calls_fixed")
    assert len(events) == 1
    assert np.abs(np.asarray(result["pixels"]) - np.float32(200) / np.float32(255)).max() <= \
        np.spacing(np.float32(200) / np.float32(255))
    result, events, _ = jx_run("int8_then_uint8_fixed")
    assert REFERENCE["int8_then_uint8_fixed"]["lowerings"] == 1 and len(events) == 1
    expected = np.float32(200) / np.float32(255)
    # (1 ulp: XLA may divide as it likes)
    assert np.abs(np.asarray(result["pixels"]) - expected).max() <= np.spacing(expected)
    (change,) = _recompile("bool_then_int")
    assert (change.old, change.new) == ("bool[]", "i32[] (weak)"), change
    assert change.snippet == "a = f(jnp.ones(3), int(True))    # line 2", change.snippet
    assert SCENARIOS["bool_then_int_fixed"][1].splitlines()[1] == change.snippet
    assert REFERENCE["bool_then_int_fixed"]["lowerings"] == 1
    result, events, _ = jx_run("bool_then_int_fixed")
    assert len(events) == 1
    assert result["out"].tolist() == REFERENCE["bool_then_int"]["out"]


def _code_lines(snippet: str) -> list:
    """A fix's code lines without their comments, as a pasted program holds them."""
    return [line.split("    #")[0].strip() for line in snippet.splitlines()
            if not line.startswith("#")]


def test_a_shape_changed_along_two_axes_is_padded_along_both():
    """28x28 images, then 32x32: the fix padded axis 0 alone, (32, 28) and (32, 32), which
    JAX 0.10.2 compiles twice (_one_axis_padded). It pads each axis that changed; pasted at
    both calls, one compile in JAX and here."""
    name = "image_size_changes_both_axes"
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_one_axis_padded", "_fixed")] == \
        [2, 2, 1]
    (change,) = _recompile(name)
    assert "changed along axes 0, 1" in change.fix, change.fix
    fixed = _code_lines(SCENARIOS[name + "_fixed"][1])
    code = _code_lines(change.snippet)
    assert all(line in fixed for line in code[1:4]), (code, fixed)    # floors .. jnp.pad
    _, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1
    # under vmap: what vmap is given, padded along each of the row's axes that changed
    name = "vmap_image_rows_grow_both_axes"
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    (change,) = _recompile(name)
    assert "along each of the row's axes that changed" in change.fix, change.fix
    fixed = _code_lines(SCENARIOS[name + "_fixed"][1])
    code = _code_lines(change.snippet)
    assert code[0] in fixed and code[-1] in fixed, (code, fixed)
    _, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1


def test_a_transposed_argument_is_told_as_its_lengths_in_another_order():
    """x, then x.T: the fix padded axis 0 of x.T (to (4, 2), and x's (2, 3) to (4, 3): two
    programs still). It says the lengths came in another order and transposes back; pasted,
    one compile in JAX and here."""
    (change,) = _recompile("transposed_argument")
    assert change.fix.startswith("x came as f32[3,2], the lengths of f32[2,3] in another "
                                 "order"), change.fix
    assert "jnp.pad" not in change.snippet
    fixed = SCENARIOS["transposed_argument_fixed"][1].splitlines()
    assert change.snippet.splitlines() == fixed[-3:], change.snippet
    assert REFERENCE["transposed_argument_fixed"]["lowerings"] == 1
    _, events, _ = jx_run("transposed_argument_fixed")
    assert len(events) == 1
    # under vmap: the array vmap is given, its mapped axis kept first
    (change,) = _recompile("vmap_rows_transposed")
    assert change.snippet.startswith("xs = jnp.transpose(xs, (0, 2, 1))"), change.snippet
    assert change.snippet in SCENARIOS["vmap_rows_transposed_fixed"][1]
    assert [REFERENCE["vmap_rows_transposed" + s]["lowerings"] for s in ("", "_fixed")] == \
        [2, 1]
    _, events, _ = jx_run("vmap_rows_transposed_fixed")
    assert len(events) == 1


def test_a_dataclasss_aux_data_changing_is_told_to_be_a_data_field_which_compiles_once():
    """A dataclass registered with register_pytree_node, lr its aux data (structure._META_FIX):
    each lr a structure of its own (JAX 0.10.2: 3 lowerings, "pytree metadata 0.05 and before
    0.1"); the note's register_dataclass with lr a data field, filled in, compiles once with
    JAX's values."""
    assert REFERENCE["pytree_node_dataclass_aux_changes"]["lowerings"] == 3
    _, events, _ = jx_run("pytree_node_dataclass_aux_changes")
    assert [e.reason == "first call" for e in events] == [True, False, False]
    for event, (was, now) in zip(events[1:], ((0.1, 0.05), (0.05, 0.025))):
        (change,) = event.changes
        assert (change.kind, change.old, change.new) == \
            ("structure", f"Opt meta {was}", f"Opt meta {now}"), change
        assert "make it a data field (an array, traced)" in change.fix, change.fix
        assert change.snippet.startswith("jax.tree_util.register_dataclass(Opt, data_fields=")
    fixed = REFERENCE["pytree_node_dataclass_aux_changes_fixed"]
    assert fixed["lowerings"] == 1
    assert fixed["out"] == REFERENCE["pytree_node_dataclass_aux_changes"]["out"]


def test_a_static_size_or_shape_is_told_to_stay_static_and_a_value_seen_again_compiles_not():
    """n used as a size (fixes._STATIC_STAYS) and a shape tuple (statics._STATIC_SHAPE_FIX),
    static, given 2, 3, 2, 3: the notes say a program per value is expected and a value seen
    before reuses its program; JAX 0.10.2 lowers twice for the four calls, and jxkernel
    compiles twice. That it must stay static: traced, JAX raises (ones_traced_n)."""
    corpus = locations.jax_answers("recompile_reference.json")["scenarios"]
    assert corpus["ones_traced_n"]["error"] == "TypeError"
    said = {"static_size_needed_seen_again": "f needs n as a Python value (a shape or a size), "
                                             "so it must stay static and a program per value "
                                             "is expected",
            "static_shape_tuple_seen_again": "a later call with a value seen before reuses its "
                                             "program. A tuple of ints such as a shape must "
                                             "stay a Python value while tracing"}
    for name, words in said.items():
        assert REFERENCE[name]["lowerings"] == 2
        _, events, _ = jx_run(name)
        assert [e.reason == "first call" for e in events] == [True, False]
        assert sum(e.compiled for e in events) == 2
        (change,) = events[1].changes
        assert change.kind == "static" and words in change.fix, change.fix


def test_a_closures_fix_filled_in_compiles_once_as_in_jax():
    """recompile_cases' closure_factory_in_a_loop (a factory jitting a lambda over k, made
    anew for k = 2.0, 3.0): the note's code, `def f(x, k):` with k an argument of one jitted
    function, filled in (closure_factory_in_a_loop_fixed) compiles once in JAX 0.10.2 and
    here (test_the_fix_applied_compiles_as_jax_traces), with JAX's values."""
    import recompile_cases       # tests/data
    start = compile_log.last_seq() + 1
    recompile_cases.run(jxkernel, "closure_factory_in_a_loop", f"audit{next(_RUNS)}")
    events = [e for e in compile_log.events_since(start) if e.miss and e.changes]
    (change,) = events[-1].changes
    assert change.kind == "fresh_jit" and "closure over k" in change.fix, change.fix
    fixed_source = SCENARIOS["closure_factory_in_a_loop_fixed"][1]
    for line in change.snippet.splitlines()[:2]:
        assert line in fixed_source, (line, change.snippet)
    assert REFERENCE["closure_factory_in_a_loop_fixed"]["lowerings"] == 1
    result, events, _ = jx_run("closure_factory_in_a_loop_fixed")
    assert len(events) == 1
    assert result["out"].tolist() == REFERENCE["closure_factory_in_a_loop_fixed"]["out"]


def test_a_state_started_as_a_number_at_another_call_is_made_an_array_at_that_call():
    """momentum(0.0, grads) at line 5, momentum(v, grads) at line 6: the note's code made v an
    array "from the start" before line 6, where v is that array already; pasted there, JAX
    0.10.2 still lowers twice. Written at line 5's call, which passed 0.0, and pasted in its
    place: one lowering, JAX's values."""
    recorded = {name: REFERENCE[f"scalar_then_array_at_two_calls{tail}"] for name, tail in (
        ("program", ""), ("later", "_pasted_at_the_later_call"), ("fixed", "_fixed"))}
    assert [recorded[n]["lowerings"] for n in ("program", "later", "fixed")] == [2, 2, 1]
    assert recorded["fixed"]["out"] == recorded["program"]["out"]
    (change,) = _recompile("scalar_then_array_at_two_calls")
    assert change.fix.startswith("v was a scalar (f32[] (weak)) and is an array now (f32[3])")
    assert change.snippet == (
        "v_arg = 0.0    # line 5's argument, named\n"
        "v_arg = jnp.broadcast_to(jnp.asarray(v_arg, jnp.float32), (3,))    # from the start\n"
        "v = momentum(v_arg, grads)    # line 5, given it"), change.snippet
    program = SCENARIOS["scalar_then_array_at_two_calls"][1].splitlines()
    pasted = program[:4] + change.snippet.splitlines() + program[5:]
    assert "\n".join(pasted) + "\n" == SCENARIOS["scalar_then_array_at_two_calls_fixed"][1]
    result, events, _ = jx_run("scalar_then_array_at_two_calls_fixed")
    assert len(events) == 1 and result["out"].tolist() == recorded["fixed"]["out"]


@pytest.mark.parametrize("name, line", [("none_then_array_at_two_calls", 5),
                                        ("array_then_none_at_two_calls", 6)])
def test_none_and_an_array_at_two_calls_get_zeros_at_the_call_passing_none(name, line):
    """f(x, None) and f(x, jnp.ones(3)) on two lines, in either order: the note's zeros go at
    the call that passed None. None first, they went before the array's call, where JAX
    0.10.2 still lowers twice (none_then_array_at_two_calls_pasted_at_the_later_call); the
    array first, the code renamed bias to the call's None (`None = jnp.zeros(...)`, which
    Python refuses). Pasted in place of that line: one lowering, JAX's values."""
    if name.startswith("none"):
        assert REFERENCE[f"{name}_pasted_at_the_later_call"]["lowerings"] == 2
    assert REFERENCE[name]["lowerings"] == 2 and REFERENCE[f"{name}_fixed"]["lowerings"] == 1
    assert REFERENCE[f"{name}_fixed"]["out"] == REFERENCE[name]["out"]
    (change,) = _recompile(name)
    assert change.snippet == (
        f"bias = None    # line {line}'s argument, named\n"
        "bias = jnp.zeros((3,)) if bias is None else bias    # an array in every call\n"
        f"y = f(x, bias)    # line {line}, given it"), change.snippet
    program = SCENARIOS[name][1].splitlines()
    pasted = program[:line - 1] + change.snippet.splitlines() + program[line:]
    assert "\n".join(pasted) + "\n" == SCENARIOS[f"{name}_fixed"][1]
    result, events, _ = jx_run(f"{name}_fixed")
    assert len(events) == 1 and result["out"].tolist() == REFERENCE[f"{name}_fixed"]["out"]


def test_a_lists_length_at_two_calls_names_the_earlier_call_to_stack_too():
    """total([jnp.ones(2)]) at line 4, a list of two at line 5: the note stacks line 5's list
    in its call; pasted there alone, JAX 0.10.2 still lowers twice (line 4's list is a
    structure of its own), so its last line names line 4's list; both stacked, one lowering,
    JAX's values."""
    recorded = {tail: REFERENCE[f"list_length_at_two_calls{tail}"]
                for tail in ("", "_stacked_at_the_later_call", "_fixed")}
    assert [r["lowerings"] for r in recorded.values()] == [2, 2, 1]
    assert recorded["_fixed"]["out"] == recorded[""]["out"]
    (change,) = _recompile("list_length_at_two_calls")
    *code, last = change.snippet.splitlines()
    assert last == ("# stack line 4's [jnp.ones(2)] so too: a list of another length is a "
                    "program of its own"), change.snippet
    program = SCENARIOS["list_length_at_two_calls"][1].splitlines()
    assert "\n".join(program[:4] + code + program[5:]) + "\n" == \
        SCENARIOS["list_length_at_two_calls_stacked_at_the_later_call"][1]
    result, events, _ = jx_run("list_length_at_two_calls_fixed")
    assert len(events) == 1 and result["out"].tolist() == recorded["_fixed"]["out"]


def test_a_dicts_keys_fix_is_written_in_the_name_the_calls_pass_it_by():
    """loss(p) called loss(params), params given a 'b' entry: the note's code was
    `p = {**defaults, **p}`, which names nothing at the call (NameError pasted there); in the
    calls' name, pasted before each call, JAX 0.10.2 lowers once, with the same values."""
    assert REFERENCE["dict_key_added_under_another_name"]["lowerings"] == 2
    fixed = REFERENCE["dict_key_added_under_another_name_fixed"]
    assert fixed["lowerings"] == 1
    assert fixed["out"] == REFERENCE["dict_key_added_under_another_name"]["out"]
    (change,) = _recompile("dict_key_added_under_another_name")
    assert change.snippet == (
        "defaults = {'b': jnp.zeros((3,), jnp.float32)}    # the keys some call lacks\n"
        "params = {**defaults, **params}    # the same keys in every call: before each\n"
        "# the same before line 5's call, for its params: set at one call alone, the other's "
        "structure is a program of its own"), change.snippet
    lines = SCENARIOS["dict_key_added_under_another_name"][1].splitlines()
    pasted = []
    code = [line for line in change.snippet.splitlines() if not line.startswith("#")]
    for line in lines:                  # (its last line, a comment, says to paste it so)
        pasted += code if "= loss(params)" in line else []
        pasted.append(line)
    assert "\n".join(pasted) + "\n" == SCENARIOS["dict_key_added_under_another_name_fixed"][1]
    result, events, _ = jx_run("dict_key_added_under_another_name_fixed")
    assert len(events) == 1 and result["out"].tolist() == fixed["out"]


def _pasted(name: str) -> str:
    """The lines of scenario `name` that its note's code put there (those commented "line N's
    argument, named" down to "line N, given it")."""
    lines = SCENARIOS[name][1].splitlines()
    start = next(i for i, line in enumerate(lines) if "'s argument, named" in line)
    end = next(i for i, line in enumerate(lines) if line.endswith(", given it"))
    return "\n".join(lines[start:end + 1])


@pytest.mark.parametrize("name, path, old, new", [
    ("none_then_empty_tuple_at_two_calls", "extra", "None", "a tuple"),
    ("keyword_none_then_empty_list_at_two_calls", "mask", "None", "a list"),
    ("empty_tuple_then_none_at_two_calls", "extra", "a tuple", "None")])
def test_none_then_an_empty_container_is_fixed_at_the_later_call(name, path, old, new):
    """f(x, None), then f(x, ()) (JAX: "* at input path [0][1], now <class 'tuple'> and
    before <class 'NoneType'>"): the argument is named though it has no leaves (it read "The
    arguments' pytree structure changed (PyTreeDef(((*, None), {})) -> ...)"), and the code
    making it None again is written at the later call, which passed the container. Written at
    the earlier call, which passed None already, it changed nothing (JAX 0.10.2: two
    lowerings, keyword_..._pasted_at_the_earlier_call); pasted as written, one (_fixed)."""
    (change,) = _recompile(name)
    assert (change.kind, change.path, change.old, change.new) == ("structure", path, old, new)
    assert change.fix.startswith(f"{path} was {old} and is {new} now: another kind of node")
    assert change.snippet == _pasted(name + "_fixed")
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    if name.startswith("keyword"):
        assert REFERENCE[name + "_pasted_at_the_earlier_call"]["lowerings"] == 2


def test_a_tuple_of_arrays_then_none_gets_zeros_where_none_was_passed():
    """f(x, (a,)), then f(x, None): the code made None a tuple with `extra = tuple(extra)`,
    which raises TypeError pasted (as `extra = tuple(extra)` did for an empty tuple, now
    `extra = ()`: empty_tuple_then_none_at_two_calls_fixed, one lowering in JAX 0.10.2).
    Stop 98 gave words alone; as for None, then a dict of arrays (an accumulator started as
    None), the code now gives the zeros of each array where None is passed: pasted, the
    lines of the _fixed scenario, one lowering in JAX."""
    (change,) = _recompile("tuple_of_arrays_then_none_at_two_calls")
    assert (change.path, change.old, change.new) == ("extra", "a tuple", "None")
    assert "Pass a tuple of arrays in every call" in change.fix
    assert change.snippet == _pasted("tuple_of_arrays_then_none_at_two_calls_fixed")
    assert [REFERENCE["tuple_of_arrays_then_none_at_two_calls" + s]["lowerings"]
            for s in ("", "_fixed")] == [2, 1]


@pytest.mark.parametrize("name, path, old", [("none_by_keyword_then_left_out", "mask", "None"),
                                             ("empty_tuple_by_position_then_left_out",
                                              "extra", "a tuple")])
def test_an_empty_value_passed_then_left_out_is_passed_at_the_call_leaving_it_out(name, path,
                                                                                  old):
    """f(x, mask=None), then f(x) (JAX 0.10.2 keys them apart though the default is None): the
    note printed two PyTreeDefs (structure._TREE_FIX); it names the argument left out, and
    its code, the later line given the value as the earlier passes it (by keyword, or in its
    place), is the line of the _fixed scenario, one lowering in JAX."""
    (change,) = _recompile(name)
    assert (change.kind, change.path, change.old, change.new) == ("structure", path, old,
                                                                  "absent")
    assert "PyTreeDef" not in change.fix and "an argument left out" in change.fix
    assert change.snippet == SCENARIOS[name + "_fixed"][1].splitlines()[5]
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


@pytest.mark.parametrize("name, code", [
    ("dict_entry_none_then_empty_tuple", "params['b'] = None    # one kind of empty value, "
                                         "every call"),
    ("dict_entry_none_then_empty_tuple_in_the_call", None)])
def test_an_entrys_code_is_written_in_the_name_the_call_passes(name, code):
    """params['b'] None, then () (JAX 0.10.2: "* at input path [0][0]['b'] ..."): the code was
    `p['b'] = None`, in the parameter's name, which pasted before `loss(params)` names nothing
    (NameError). It is written in the call's name, or, the call passing a dict literal, that
    argument named first (the lines of the _fixed scenario: one lowering in JAX)."""
    (change,) = _recompile(name)
    assert (change.path, change.old, change.new) == ("p['b']", "None", "a tuple")
    assert change.snippet == (code or _pasted(name + "_fixed"))
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


@pytest.mark.parametrize("name, path", [("none_then_array_in_a_variable", "bias"),
                                        ("dataclass_field_none_then_array", "s.b")])
def test_none_made_zeros_says_it_goes_before_the_earlier_call(name, path):
    """None, then an array, the calls passing a variable of the parameter's own name: the
    code (None made zeros) said nothing of where it goes, and pasted under the note, at the
    later call, it changes nothing (the variable is an array there). It now says the earlier
    call's line, and pasted there it compiles once (JAX 0.10.2: _fixed, one lowering). A
    frozen register_dataclass's field was told "s.b: absent -> f32[3]" with `s = {**defaults,
    **s}`, a dict's code (TypeError on a dataclass); it is the field None, replaced."""
    (change,) = _recompile(name)
    assert (change.path, change.old, change.new) == (path, "None", "f32[3]")
    assert change.fix.startswith(f"{path} was None and is f32[3] now: None is an empty pytree")
    assert change.snippet.startswith("# before line ")
    assert change.snippet in SCENARIOS[name + "_fixed"][1]
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_a_dtype_fix_sees_ml_dtypes_kinds_as_jxkernels_dtypes():
    """bfloat16's and int4's NumPy kind is 'V': int32 data then bfloat16 data were told to
    cast to int32 (0.5 truncated to 0), and int4 then int8 to int4 (100 wrapped). A float
    with an integer keeps the float, two integer types the one holding both, as for NumPy's."""
    from jxkernel.core import dtypes
    from jxkernel.views.signature_changes.input_types import _cast_to
    i32, i8 = np.dtype(np.int32), np.dtype(np.int8)
    assert _cast_to(i32, dtypes.bfloat16) == dtypes.bfloat16
    assert _cast_to(i8, dtypes.float8_e4m3fn) == dtypes.float8_e4m3fn
    assert _cast_to(dtypes.int4, i8) == i8
    assert _cast_to(dtypes.uint4, dtypes.int4) == i8
    # from the ranges: ml_dtypes 0.5 and 0.6 have no promotion of int2 with uint2 (the
    # explainer raised DTypePromotionError), nor of int4 with uint8
    assert _cast_to(dtypes.int2, dtypes.uint2) == i8
    assert _cast_to(dtypes.int4, np.dtype(np.uint8)) == np.int16
    assert _cast_to(np.dtype(np.uint64), np.dtype(np.int64)) == np.uint64     # none holds both
    assert _cast_to(dtypes.bfloat16, i32) == dtypes.bfloat16      # (right before, kept)
    assert _cast_to(np.dtype(np.float32), dtypes.bfloat16) == np.float32
    check_docstring_examples("jxkernel.views.signature_changes.input_types", {"np": np})


def test_a_growing_entrys_padding_is_in_the_calls_name_and_names_the_entry():
    """params['w'] of 3, then of 4 (JAX 0.10.2: "* at p['w'], now f32[4] and before
    f32[3]"): the padding code was written `p['w'] = jnp.pad(p['w'], ...)`, in the
    parameter's name (a NameError before `loss(params)`), and said to pad "line 5's params"
    too. Both in the call's names now; pasted at both calls, one lowering (_fixed)."""
    (change,) = _recompile("dict_entry_grows")
    *code, last = change.snippet.splitlines()
    assert "\n".join(code) in SCENARIOS["dict_entry_grows_fixed"][1]
    assert "p[" not in "\n".join(code)
    assert last == "# pad line 5's params['w'] so too: an unpadded length is a program of its own"
    assert [REFERENCE["dict_entry_grows" + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_a_varargs_parameter_is_no_argument_of_the_call():
    """def f(*xs), g(a) then g(a, b) (JAX 0.10.2: "* at input path [0], now tuple of length 2
    and before tuple of length 1"): the code written at the call took the call's first
    argument for xs, `g(jnp.stack(list(a) + ...), jnp.ones(3))`; xs is no one argument of the
    call, so the code stays in the function's names (at_the_calls._argument_at)."""
    (change,) = _recompile("varargs_gains_an_item")
    assert change.path == "xs[1]" and "g(" not in change.snippet
    assert "list(a)" not in change.snippet and "list(xs)" in change.snippet
    assert REFERENCE["varargs_gains_an_item"]["lowerings"] == 2


@pytest.mark.parametrize("name, path, old, new, code", [
    ("params_bias_none_then_key_dropped", "params", "a dict with keys 'b', 'w'",
     "a dict with keys 'w'", "params = {**defaults, **params}"),
    ("layer_bias_none_then_key_dropped", "params['dense']", "a dict with keys 'w'",
     "a dict with keys 'b', 'w'", "params['dense'] = {**defaults, **params['dense']}"),
    ("none_keys_renamed", "flags", "a dict with keys 'double'", "a dict with keys 'half'",
     "flags = {**defaults, **flags}"),
    ("masks_list_grows_with_none", "masks", "a list of 1 item", "a list of 2 items",
     "masks = list(masks) + [None] * (2 - len(masks))")])
def test_keys_or_items_holding_no_arrays_are_named_with_code_that_makes_one_structure(
        name, path, old, new, code):
    """A key or item that is None in one call and absent in the other (params with 'b': None,
    then without the key; JAX 0.10.2: "* at input path [0][0], now <class 'dict'> with 1
    child and before <class 'dict'> with 2 children ... {'b'}"): no leaf came or went, and
    the note printed two PyTreeDefs (structure._TREE_FIX). It names the node as JAX's path
    does, its keys or length, and gives code that the _fixed scenario pastes before each
    call, as its last line says (at the later call alone it left the earlier call's program
    apart): one lowering in JAX."""
    (change,) = _recompile(name)
    assert (change.kind, change.path, change.old, change.new) == ("structure", path, old, new)
    assert "PyTreeDef" not in change.fix + change.snippet
    pasted = SCENARIOS[name + "_fixed"][1]
    *lines, last = change.snippet.splitlines()
    assert all(line.partition("    #")[0] in pasted for line in lines
               if not line.endswith(", given it")), change.snippet
    assert code in change.snippet
    # set before the later call alone, the earlier call's structure is a program of its own:
    # the last line says where else it goes (the _fixed scenario sets it before both)
    assert re.fullmatch(r"# the same before line \d+'s call, for its .*: set at one call alone, "
                        r"the other's structure is a program of its own", last), last
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


@pytest.mark.parametrize("name, path, old, new, said", [
    ("empty_tuple_then_nested_empty_tuple_seen_again", "extra", "a tuple of 0 items",
     "a tuple of 1 item", "each length compiles anew"),
    ("two_empty_arguments_then_left_out", "(arguments)", "3 positional arguments",
     "1 positional argument", "an equal one reuses its program")])
def test_a_structure_without_arrays_is_told_by_its_length_not_two_pytreedefs(name, path, old,
                                                                             new, said):
    """f(x, ()), then f(x, ((),)) (JAX: "now tuple of length 1 and before tuple of length 0"),
    and two arguments left out at once: told by the node's length (the call's, counted), each
    structure compiled once, an equal one reusing its program (JAX 0.10.2 lowers the third
    call's f(x, ()) no more: two lowerings)."""
    (change,) = _recompile(name)
    assert (change.path, change.old, change.new) == (path, old, new)
    assert "PyTreeDef" not in change.fix and said in change.fix, change.fix
    assert REFERENCE[name]["lowerings"] == 2


def _pasted_lines(name: str) -> list:
    """The lines the `_fixed` twin of scenario `name` has that the scenario has not: the
    note's code as pasted (its indent in a loop's body dropped)."""
    program, fixed = (SCENARIOS[n][1].splitlines() for n in (name, name + "_fixed"))
    return [line.strip() for tag, _, _, j1, j2 in
            difflib.SequenceMatcher(None, program, fixed).get_opcodes()
            if tag in ("insert", "replace") for line in fixed[j1:j2]]


def test_a_none_accumulator_then_a_dict_of_arrays_is_given_zeros_not_none_again():
    """acc = None, then accumulate(acc, grads) gives back a dict (JAX 0.10.2: "* at input path
    [0][0], now <class 'dict'> and before <class 'NoneType'>"): the note's code was `acc =
    None    # one kind of empty value, every call`, which JAX compiles once with, but whose
    sum is the last step's gradients alone (reset_to_none: 1.0 where 3.0). Now the dict's
    zeros where acc is None: one lowering, JAX's sum."""
    name = "grad_accumulator_starts_as_none"
    (change,) = _recompile(name)
    assert (change.kind, change.path, change.old, change.new) == \
        ("structure", "acc", "None", "a dict")
    assert change.snippet.splitlines() == _pasted_lines(name), change.snippet
    assert "acc = None" not in change.snippet and "zeros" in change.fix
    recorded = {s: REFERENCE[name + s] for s in ("", "_fixed", "_reset_to_none")}
    assert [r["lowerings"] for r in recorded.values()] == [2, 1, 1]
    assert recorded["_fixed"]["out"] == recorded[""]["out"] != recorded["_reset_to_none"]["out"]
    result, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1 and result["out"].tolist() == recorded["_fixed"]["out"]


@pytest.mark.parametrize("name, written", [
    ("opt_state_tuple_starts_as_floats", "state = (jnp.broadcast_to("),
    ("momentum_namedtuple_starts_as_float", "opt = opt._replace(velocity="),
    ("frozen_dataclass_state_starts_as_float", "opt = dataclasses.replace(opt, mu="),
    ("tuple_batch_last_short", "batch = (jnp.pad(batch[0], ")])
def test_an_entry_of_a_tuple_or_a_class_is_given_a_new_one_not_assigned(name, written):
    """A state started as 0.0 in a tuple, a namedtuple or a frozen register_dataclass, and a
    tuple batch's last, partial batch (JAX 0.10.2: "* at state[0], now f32[3] and before
    f32[]", "* at opt.velocity", "* at batch[0]"): the code assigned the entry, `state[0] =
    ...` (TypeError on a tuple), `opt.velocity = ...` (AttributeError on a namedtuple,
    FrozenInstanceError on a frozen dataclass). It makes a new tuple or object now; pasted
    as written (the _fixed twins), one lowering in JAX, JAX's values."""
    _, events, _ = jx_run(name)
    codes = [c.snippet for c in events[1].changes]
    assert any(code.startswith(written) or f"\n{written}" in code for code in codes), codes
    assert not any(re.search(rf"(?m)^{re.escape(c.path)} = ", c.snippet)
                   for c in events[1].changes), codes
    assert _pasted_lines(name) == [line for code in codes for line in code.splitlines()]
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    assert REFERENCE[name + "_fixed"]["out"] == REFERENCE[name]["out"]
    result, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1
    assert np.asarray(result["out"]).tolist() == REFERENCE[name + "_fixed"]["out"]


@pytest.mark.parametrize("name, first", [
    ("namedtuple_batch_label_dtype", "# before line 8's call"),
    ("dict_literal_label_dtype", "batch = {'x': jnp.ones((4, 3)), "),
    ("tuple_literal_label_dtype", "batch = (jnp.ones((4, 3)), ")])
def test_an_entrys_cast_is_written_at_the_call_whose_dtype_is_not_the_one_cast_to(name, first):
    """Labels of a batch (a namedtuple's field, a dict's or tuple's entry) int32, then float32
    (JAX 0.10.2: "* at batch.y, now f32[4] and before i32[4]"): the cast to float32 was
    written in the parameter's name for no call, under the note at the later call, whose
    labels are float32 already: pasted there, two lowerings (_pasted_at_the_later_call), and
    where the call passed a literal it named nothing. It is written at the earlier call now,
    its literal named first: pasted so, one lowering (_fixed)."""
    (change,) = _recompile(name)
    assert change.kind == "dtype" and change.snippet.startswith(first), change.snippet
    pasted = [line.partition("    #")[0] for line in _pasted_lines(name)]
    assert [line.partition("    #")[0] for line in change.snippet.splitlines()
            if not line.startswith("# ")] == pasted, change.snippet
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    if name.startswith("namedtuple"):
        assert REFERENCE[name + "_pasted_at_the_later_call"]["lowerings"] == 2
    result, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1


def test_a_batch_unpacked_as_keywords_is_padded_in_the_dicts_entries():
    """loss(w, **batch), its last batch short (JAX 0.10.2: "* at x, now f32[2,3] and before
    f32[4,3]"): the padding was written `x = jnp.pad(x, ...)`, in the parameter's name, which
    names nothing before `loss(w, **batch)`. It pads batch['x'] and batch['y'] now; pasted
    before the call, one lowering, JAX's total."""
    name = "batch_unpacked_as_keywords_last_short"
    _, events, _ = jx_run(name)
    codes = "\n".join(c.snippet for c in events[1].changes)
    assert "batch['x'] = jnp.pad(batch['x'], " in codes and not re.search(r"(?m)^[xy] = ",
                                                                         codes)
    assert codes.splitlines() == _pasted_lines(name)
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    result, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1 and float(result["out"]) == REFERENCE[name + "_fixed"]["out"]


def test_an_array_default_closed_over_is_no_change_of_its_own():
    """f(x), then f(x, scale=...), scale's default an array (JAX 0.10.2: one miss, "key sets:
    {'scale'}"): left out, the default is closed over, so the note also said "(closed-over
    constants): 1 constant(s) -> 0 constant(s)" with the fix "c is closed over ... This
    compile picked up its new value": no `c` in the program, no value changed, and jit's key
    holds no constant. The argument passed is the one change."""
    (change,) = _recompile("keyword_with_an_array_default_passed")
    assert (change.kind, change.path) == ("structure", "scale")
    assert [REFERENCE["keyword_with_an_array_default_passed" + s]["lowerings"]
            for s in ("", "_fixed")] == [2, 1]


def test_a_dtype_is_written_with_its_article():
    """A step counter, a Python int, then jnp.int32: "Give that call a int32 array" read the
    fix; "an int32 array" (and "a float32 array", as before)."""
    (change,) = _recompile("step_count_int_then_int32")
    assert "Give that call an int32 array: jnp.asarray(step, jnp.int32)" in change.fix
    assert change.snippet.splitlines() == _pasted_lines("step_count_int_then_int32")
    (change,) = _recompile("jnp_float32_scalar_then_python_float")
    assert "Give that call a float32 array" in change.fix, change.fix


def test_another_rank_and_dtype_gets_no_cast_that_cannot_make_one_program():
    """One-hot labels f32[4,3], then class indices i32[4]: the note said a program per rank
    is expected, then offered `labels = jnp.asarray(labels, jnp.float32)` "so that every call
    has one dtype"; pasted, JAX 0.10.2 still lowers twice (the rank alone makes two). It
    says so now, and gives no code."""
    (change,) = _recompile("one_hot_labels_then_class_indices")
    assert (change.path, change.old, change.new) == ("labels", "f32[4,3]", "i32[4]")
    assert change.snippet == "" and "astype" not in change.fix
    assert change.fix.endswith("Its dtype changed too (float32 -> int32), but no cast makes "
                               "one program of two ranks."), change.fix
    assert [REFERENCE["one_hot_labels_then_class_indices" + s]["lowerings"]
            for s in ("", "_cast")] == [2, 2]


def test_a_lower_precision_call_is_cast_up_not_the_other_rounded():
    """bfloat16, then float32 (JAX 0.10.2: "* at x, now f32[3] and before bf16[3]"): the cast
    went to the earlier call's bfloat16, rounding the float32 call's values, unsaid; where
    the bfloat16 call was the odd one (a warm-up before float32 data) that rounded all the
    data. float32 holds every bfloat16 (and float16) value exactly: the lower precision call
    is cast up, and the fix says bfloat16 would round. Pasted, one lowering (_fixed)."""
    (change,) = _recompile("bfloat16_then_float32")
    assert change.snippet == ("f(jnp.asarray(jnp.ones(3, jnp.bfloat16), jnp.float32)); "
                              "f(jnp.ones(3))    # line 2"), change.snippet
    assert "float32 holds every bfloat16 value exactly, while a cast to bfloat16 would " \
        "round the float32 call's values" in change.fix
    (change,) = _recompile("numpy_float16_then_jnp_float32")
    assert "jnp.asarray(np.ones(3, np.float16), jnp.float32)" in change.snippet
    name = "bfloat16_warmup_then_float32_loop"
    (change,) = _recompile(name)
    assert change.snippet == _pasted_lines(name)[0], change.snippet     # (then out kept)
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


@pytest.mark.parametrize("name, code", [
    ("staticmethod_jitted_by_its_class_static_value",
     "f = jax.jit(Model.apply)    # n traced: one program for all its values"),
    ("staticmethod_keyword_left_out_then_passed", "Model.apply(..., b=b)    # in every call")])
def test_a_staticmethods_fix_calls_it_by_its_class(name, code):
    """A staticmethod `apply` of class Model: the fixes wrote `jax.jit(apply)` and
    `apply(..., b=b)`, a NameError pasted (apply is Model's). `Model.apply` now, the name
    the learner's code reaches it by (`m.apply` calls it too); the jit line pasted compiles
    once in JAX 0.10.2 (_fixed)."""
    (change,) = _recompile(name)
    assert change.snippet == code, change.snippet
    if name + "_fixed" in SCENARIOS:
        assert code in SCENARIOS[name + "_fixed"][1]
        assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_a_static_object_with_a_call_method_is_an_object_not_a_function():
    """`Net(2)(x)`, then `Net(3)(x)`, its __call__ jitted with self static (JAX 0.10.2:
    "Static(val=<...Net object at 0x…>)" twice): told "self is a function passed static ...
    a lambda or a partial made anew ... make it once, outside the loop", which no Net of
    another depth can be. It is an object hashed by identity: __hash__ and __eq__ over its
    fields, pasted in class Net, make Net(2) twice one program (_fixed: one lowering)."""
    (change,) = _recompile("static_self_model_hyper_changed")
    assert change.fix.startswith("self is a Net object"), change.fix
    assert "function passed static" not in change.fix and "made anew" not in change.fix
    fixed = SCENARIOS["static_self_model_hyper_changed_fixed"][1]
    assert all(line in fixed for line in change.snippet.splitlines()), change.snippet
    assert REFERENCE["static_self_model_hyper_changed_fixed"]["lowerings"] == 1


def test_an_entrys_python_number_is_made_an_array_in_the_calls_names():
    """hp = {'lr': 0.1}, then lr from a schedule (JAX 0.10.2: "* at hp['lr'], now
    f32[]{weak_type=False} and before f32[]{weak_type=True}"): the code was
    `hp['lr'] = jnp.asarray(hp['lr'], jnp.float32)`, no name of the program's (the call
    passed a dict literal). It names the earlier call's dict first; pasted, one lowering."""
    name = "hyperparams_dict_float_then_schedule"
    (change,) = _recompile(name)
    lines = change.snippet.splitlines()
    assert lines[:2] == _pasted_lines(name)[:2], change.snippet
    assert lines[2] == "f(jnp.ones(3), hp); f(jnp.ones(3), {'lr': lrs[1]})    # line 3, given it"
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_an_axis_written_as_an_int_and_as_a_tuple_of_it_is_told_to_be_written_one_way():
    """A static axis (0,), then 0 (JAX 0.10.2: "Static(val=0) and before ... Static(val=
    (0,))"): the plain fix said "if axis only sets values, make it traced" with
    `jax.jit(lambda x, axis: x.sum(axis))`, which JAX refuses ("The axis argument must be
    known statically"). It says they are one value written two ways, to stay static and be
    written one way; so written, one lowering (_fixed)."""
    name = "static_axis_tuple_then_int"
    (change,) = _recompile(name)
    assert (change.kind, change.old, change.new) == ("static", "(0,)", "0")
    assert "drop it from static_argnums" not in change.fix and change.snippet == ""
    assert change.fix.endswith("Write it one way in every call: 0."), change.fix
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_an_images_channels_are_not_padded():
    """RGB, then grayscale (JAX 0.10.2: "* at img, now f32[2,8,8,1] and before f32[2,8,8,3]",
    2 lowerings): the bucketing fix padded the channel axis to 4, which compiled once but gave
    f channels it computed on, its result of another shape ((2, 4), not (2, 1)). Channels are
    another kind of input: the fix says so, and its code is comments only (nothing to paste
    that would change the result)."""
    (change,) = _recompile("image_batch_hwc_channel_count")
    assert "jnp.pad" not in change.snippet and "not a length" in change.fix, change
    assert all(line.startswith("#") for line in change.snippet.splitlines())
    assert REFERENCE["image_batch_hwc_channel_count"]["lowerings"] == 2


@pytest.mark.parametrize("name, named, call", [
    ("layers_list_in_dict_grows", "p = {'layers': [w, w]}    # line 3's argument, named",
     "f({'layers': [w]}, jnp.ones(3)); f(p, jnp.ones(3))    # line 3, given it"),
    ("layers_dict_call_in_a_loop_grows", "p = dict(layers=layers)    # line 5's argument, named",
     "f(p, jnp.ones(3))    # line 5, given it")])
def test_a_list_grown_inside_a_dict_literal_is_stacked_in_the_calls_names(name, named, call):
    """params {'layers': [w]}, then [w, w] (JAX 0.10.2: "* at input path [0][0]['layers'], now
    list of length 2 and before list of length 1"): the code stacked `p['layers']`, the
    parameter's name inside f, which the call site has not (it passed a dict literal, or
    dict(layers=layers)): pasted there, a NameError. It names the call's dict first, stacks
    its entry and gives the call that name; where the earlier call is another (line 3's
    first), it says to stack that one's too (JAX 0.10.2: two lowerings stacked at the later
    call alone; one, the values JAX's, with both: the _fixed programs)."""
    _, events, _ = jx_run(name)
    change = events[1].changes[0]
    lines = change.snippet.splitlines()
    in_a_loop = "loop" in name          # (one call: no other call's list to stack)
    if not in_a_loop:
        *lines, other = lines
        assert other == ("# stack the ['layers'] of line 3's {'layers': [w]} so too: a "
                         "list of another length is a program of its own")
    assert (lines[0], lines[-1]) == (named, call), change.snippet
    assert "p['layers'] = jnp.stack(list(p['layers']) + " in change.snippet
    for line in lines[:-1]:             # (the call, pasted as `out = [...]`)
        assert line in SCENARIOS[name + "_fixed"][1], line
    if not in_a_loop:
        assert REFERENCE[name + "_stacked_at_the_later_call"]["lowerings"] == 2
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [len(events), 1]
    result, fixed_events, _ = jx_run(name + "_fixed")
    assert len(fixed_events) == 1
    assert np.asarray(result["out"]).tolist() == REFERENCE[name + "_fixed"]["out"]


@pytest.mark.parametrize("name, types, code", [
    ("static_intenum_then_int", ("Mode", "int"), ["mode = 1    # line 5's argument, named",
                                                  "mode = Mode(mode)    # one type in every call",
                                                  "f(jnp.ones(3), Mode.TRAIN); f(jnp.ones(3), "
                                                  "mode)    # line 5, given it"]),
    ("static_python_bool_then_numpy_bool", ("bool", "np.bool"),
     ["flag = np.ones(2)[0] > 0    # line 2's argument, named",
      "flag = bool(flag)    # one type in every call",
      "f(jnp.ones(3), True); f(jnp.ones(3), flag)    # line 2, given it"])])
def test_a_static_of_another_type_is_made_one_type_in_the_calls_names(name, types, code):
    """Mode.TRAIN (an IntEnum), then 1; True, then np.True_ (JAX 0.10.2: "Static(val=1) and
    before ... Static(val=<Mode.TRAIN: 1>)"): equal values of two types, two keys. The code was
    `mode = Mode(mode)`, in the parameter's name, which the call `f(x, 1)` has not; and
    np.True_'s type read "(bool)", Python's. The call's argument is named and made one type
    (pasted: one lowering in JAX, _fixed); NumPy's type is "np.bool"."""
    (change,) = _recompile(name)
    assert f"({types[1]}) now and was " in change.fix and f"({types[0]}): equal" in change.fix
    assert change.snippet.splitlines() == code, change.snippet
    assert _pasted_lines(name)[:2] == code[:2]      # (the call, pasted as `out = [...]`)
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_a_python_number_of_another_kind_is_cast_at_the_call_that_passed_the_other():
    """1, then 1.0 (JAX 0.10.2: "* at t[0], now f32[] and before i32[]"): the code made the
    later call's float a float (`s = 2.0 ... s = float(s)`: JAX still lowers twice,
    python_int_then_python_float_cast_at_the_later_call), and in a tuple named `t`, which
    `f((1, 2))` has not. The earlier call's int is named and made a float: pasted, one
    lowering (tuple_of_python_int_then_float_fixed)."""
    (change,) = _recompile("python_int_then_python_float")
    assert change.snippet.splitlines() == [
        "s = 2    # line 2's argument, named", "s = float(s)    # always a Python float",
        "f(jnp.ones(3), s); f(jnp.ones(3), 2.0)    # line 2, given it"], change.snippet
    assert REFERENCE["python_int_then_python_float_cast_at_the_later_call"]["lowerings"] == 2
    (change,) = _recompile("tuple_of_python_int_then_float")
    assert change.snippet.splitlines()[0] == "t = (1, 2)    # line 2's argument, named"
    assert change.snippet.splitlines()[-1] == "f(t); f((1.0, 2))    # line 2, given it"
    assert [REFERENCE["tuple_of_python_int_then_float" + s]["lowerings"]
            for s in ("", "_fixed")] == [2, 1]


def test_a_static_namedtuple_of_numbers_is_told_it_can_be_traced():
    """Config(lr=0.1, steps=10) static, then lr 0.05 (JAX 0.10.2: "Static(val=Config(lr=0.05,
    steps=10))"): the note said "A Config cannot be traced ... choose with lax.switch", but a
    NamedTuple is a pytree: its jit line without static_argnums, pasted, lowers once."""
    (change,) = _recompile("static_namedtuple_config_changed")
    assert "cannot be traced" not in change.fix and "lax.switch" not in change.snippet
    assert change.snippet in SCENARIOS["static_namedtuple_config_changed_fixed"][1]
    assert REFERENCE["static_namedtuple_config_changed_fixed"]["lowerings"] == 1
    (change,) = _recompile("keyword_only_static_changes")   # (a keyword-only n: the same)
    assert change.snippet in SCENARIOS["keyword_only_static_changes_fixed"][1]
    assert REFERENCE["keyword_only_static_changes_fixed"]["lowerings"] == 1


def test_a_register_static_class_is_not_given_a_second_registration():
    """A class registered with jax.tree_util.register_static, a new depth (JAX 0.10.2: "with
    pytree metadata Cfg(depth=3) and before ... Cfg(depth=2)"): the note spoke of its "meta
    fields" and gave `jax.tree_util.register_dataclass(Cfg, ...)`, a second registration of
    Cfg, which JAX refuses. It says the object is static whole; no code."""
    (change,) = _recompile("register_static_config_changed")
    assert "register_static" in change.fix and "meta fields" not in change.fix
    assert change.snippet == ""


def test_one_argument_is_named_once_for_all_its_entries():
    """betas (0.9, 0.999), then two float32 scalars (JAX 0.10.2: "* at betas[0] ... * at
    betas[1]"): each entry's code named `betas = (0.9, 0.999)` and called line 2; pasted in
    order, the second naming undid the first cast (three lowerings, measured). Named in the
    first code and called in the last, pasted in order: one lowering (_fixed)."""
    name = "tuple_of_python_floats_then_float32_scalars"
    _, events, _ = jx_run(name)
    pasted = [line for c in events[1].changes for line in c.snippet.splitlines()]
    assert sum(line.endswith("'s argument, named") for line in pasted) == 1
    assert [line.partition("    #")[0] for line in pasted[:-1]] == \
        [line.partition("    #")[0] for line in _pasted_lines(name)[:-1]]
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_an_array_reset_to_a_python_number_is_made_an_array_again():
    """An accumulator reset with jax.tree.map(lambda a: 0.0, acc) (JAX 0.10.2: "* at acc['w'],
    now f32[]{weak_type=True} and before f32[3]{weak_type=False}" and the weak types' page):
    told "changed rank ... a compile per rank is expected", which left the reset unsaid. It
    says a Python number came where an array was, and its code makes it the earlier call's
    shape and dtype: pasted before the call, one lowering, JAX's values (_fixed)."""
    name = "grads_reset_to_python_zeros_with_tree_map"
    (change,) = _recompile(name)
    assert change.fix.startswith("acc['w'] was an array (f32[3]) and is a Python number now")
    assert "compile per rank is expected" not in change.fix
    assert change.snippet.splitlines() == _pasted_lines(name)[:1], change.snippet
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    result, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1 and result["out"].tolist() == REFERENCE[name + "_fixed"]["out"]


def test_a_padded_batchs_rows_are_said_to_come_back_in_a_per_example_result():
    """jax.jit(jax.vmap(per_example)), 8 examples then 5 (JAX 0.10.2: "* at x, now f32[5,3]
    and before f32[8,3]"): padded as the note says, the result has 8 rows, 3 of them the
    padding's, where the fix spoke of sums and averages alone. It says to keep the first n
    rows of a per-example result: so pasted, one lowering and the 5 rows (_fixed)."""
    name = "jit_of_vmap_last_batch_smaller"
    (change,) = _recompile(name)
    assert "keep its first n, out[:n]" in change.fix
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    result, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1 and result["out"].tolist() == REFERENCE[name + "_fixed"]["out"]
    assert len(REFERENCE[name + "_fixed"]["out"]) == 5


def test_an_elementwise_results_padded_values_are_said_to_be_cut_off():
    """The tour's selu jitted, given 12 values then 5 (JAX 0.10.2: "* at x, now f32[5] and
    before f32[12]"): padded to 16 as the note said, it returned 16 values where the fix
    spoke of masks and sums alone. It says to keep the first n: so pasted at both calls, one
    lowering and the 5 values of the unpadded call (_fixed)."""
    name = "elementwise_length_changes"
    (change,) = _recompile(name)
    assert "keep its first n, out[:n]" in change.fix
    assert change.snippet.splitlines()[:4] == _pasted_lines(name)[5:9], change.snippet
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    assert REFERENCE[name + "_fixed"]["out"] == REFERENCE[name]["out"]
    result, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1
    assert np.array_equal(result["out"], np.asarray(REFERENCE[name + "_fixed"]["out"],
                                                    np.float32))


def test_two_arguments_named_at_one_call_are_given_to_it_once():
    """jax.jit(Model.loss), self.w and x both longer (JAX 0.10.2: "* at self.w ... * at x"):
    each change's code named its argument and rewrote line 9 with that one alone, so pasted
    in order the line ran twice, each time one argument padded. The last code gives the call
    both names, the first none: pasted so (the earlier call padded too, as the codes say),
    one lowering (_fixed)."""
    name = "class_method_jitted_self_field_shape"
    _, events, _ = jx_run(name)
    lines = [line for c in events[1].changes for line in c.snippet.splitlines()]
    given = [line for line in lines if line.endswith(", given it")]
    assert given == ["loss(Model(jnp.ones(3)), jnp.ones(3)); loss(self, x)    # line 9, given it"]
    assert events[1].changes[-1].snippet.splitlines()[-2] == given[0]
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]
    result, fixed, _ = jx_run(name + "_fixed")
    assert len(fixed) == 1 and np.asarray(result["out"]).tolist() == \
        REFERENCE[name + "_fixed"]["out"]


def test_a_list_grown_each_step_in_a_dict_the_call_makes_is_named_as_the_loop_names_it():
    """`f(dict(layers=layers), x)` in a loop that appends to layers (JAX 0.10.2: "* at input
    path [0][0]['layers'], now list of length 3 and before list of length 1"): the history
    pattern wrote `p['layers'] = jnp.zeros(...)    # once, before the loop`, where no p is; it
    is written in `layers`, the list the loop appends to. Filled in (3 steps, row i set at
    step i: _pattern_applied), one lowering, JAX's values as the list's."""
    name = "layers_dict_call_in_a_loop_grows"
    _, events, _ = jx_run(name)
    code = events[2].changes[0].snippet
    assert "p['layers']" not in code and \
        "layers = jnp.zeros((n_steps, 3, 3), jnp.float32)    # once, before the loop" in code
    applied = REFERENCE[name + "_pattern_applied"]
    assert applied["lowerings"] == 1 and applied["out"] == REFERENCE[name + "_fixed"]["out"]
    result, events, _ = jx_run(name + "_pattern_applied")
    assert len(events) == 1 and np.asarray(result["out"]).tolist() == applied["out"]


def test_an_argument_moved_from_keyword_to_position_is_named_in_its_pattern():
    """f(state=...), then f(s) (JAX 0.10.2: "* at input path [0], now tuple of length 1 and
    before tuple of length 0 ..."): the pattern read `f(..., x=x)`, a name the function has
    not (its argument is state). It names state: so written, one lowering (_fixed)."""
    name = "donated_by_name_then_by_position"
    (change,) = _recompile(name)
    assert change.snippet.startswith("f(..., state=state)"), change.snippet
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_a_cast_back_from_bfloat16_says_what_it_undoes():
    """params float32, then each leaf cast to bfloat16 (JAX 0.10.2: "* at p['b'], now bf16[2]
    and before f32[2]"): the cast back to float32 compiles once (_fixed), but keeps
    bfloat16's rounding and undoes a cast meant for mixed precision, which the fix left
    unsaid; it says both now."""
    name = "params_cast_to_bfloat16_all_leaves"
    _, events, _ = jx_run(name)
    for change in events[1].changes:
        assert "undoes a cast to bfloat16 that was meant" in change.fix, change.fix
        assert "keep the bfloat16 rounding" in change.fix
    assert [c.snippet for c in events[1].changes] == _pasted_lines(name)[:2]
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed")] == [2, 1]


def test_a_lambdas_static_used_as_a_shape_is_not_told_to_be_traced():
    """`jax.jit(lambda x, n: x[:n].sum(), static_argnums=1)` and `lambda n: jnp.arange(n)`
    with a new n each step: a program per n in JAX 0.10.2 too. The note offered the lambda
    jitted with n traced ("one program for all its values"), which JAX refuses (IndexError,
    ConcretizationTypeError: the _traced scenarios, recorded); a def's source was read for
    how it uses n, a lambda's was not. It says n must stay static, and offers no code."""
    for name, use in (("static_n_sliced_in_jit", "a slice's bounds"),
                      ("static_n_arange_in_jit", "a shape or a size")):
        assert REFERENCE[name]["lowerings"] == 3
        assert REFERENCE[name + "_traced"]["error"] in ("IndexError", "ConcretizationTypeError")
        _, events, _ = jx_run(name)
        for event in events[1:]:
            (change,) = event.changes
            assert change.kind == "static" and change.snippet == "", change.snippet
            assert f"f needs n as a Python value ({use}), so it must stay static" in \
                change.fix, change.fix
    # a lambda that only computes with its static keeps its jit line, n traced
    _, events, _ = jx_run("static_python_scalar_each_iteration")
    assert "# lr traced: one program for all its values" in events[1].changes[0].snippet


def _pasted_in_order(changes) -> list:
    """The code lines of `changes`' fixes pasted one after the other, without comments."""
    return [line for c in changes for line in _code_lines(c.snippet)]


def test_a_dict_literals_two_growing_lists_pasted_in_order_compile_once():
    """f({'a': [x], 'b': [y]}); f({'a': [x, x], 'b': [y, y]}): a note per list, each naming
    the dict literal and stacking its list. The second code named the literal again, undoing
    the first's stacking: pasted in order JAX 0.10.2 lowers twice (_pasted_before). The
    literal is named in the first code, the call given it in the last; pasted so (the
    earlier call's lists stacked as the comments say), once in JAX and here (_fixed)."""
    name = "dict_literal_two_lists_at_two_calls"
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_pasted_before", "_fixed")] == \
        [2, 2, 1]
    changes = _recompile(name)
    code = _pasted_in_order(changes)
    assert code.count("d = {'a': [x, x], 'b': [y, y]}") == 1, code
    assert code[0] == "d = {'a': [x, x], 'b': [y, y]}" and \
        code[-1] == "f({'a': [x], 'b': [y]}); f(d)", code
    fixed = _code_lines(SCENARIOS[name + "_fixed"][1])
    assert fixed[fixed.index(code[0]):] == code[:-1] + ["f(d_1); f(d)"]
    _, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1


@pytest.mark.parametrize("name, line", [
    ("two_list_arguments_grow",
     "f(jnp.stack(list(a_list) + [jnp.zeros((2,), jnp.float32)] * (MAX - len(a_list))), "
     "jnp.stack(list(b_list) + [jnp.zeros((3,), jnp.float32)] * (MAX - len(b_list))))"),
    ("two_list_arguments_at_two_calls",
     "f([x], [y]); f(jnp.stack(list([x, x]) + [jnp.zeros((2,), jnp.float32)] * "
     "(MAX - len([x, x]))), jnp.stack(list([y, y]) + [jnp.zeros((3,), jnp.float32)] * "
     "(MAX - len([y, y]))))")])
def test_two_list_arguments_stacked_in_one_call_line(name, line):
    """f(a_list, b_list), both one longer: a note per list, each stacking its list in a call
    line of its own (`f(jnp.stack(...), b_list)`, `f(a_list, jnp.stack(...))`); pasted in
    order, both lines ran, each with the other list unstacked (JAX 0.10.2: 6 lowerings in
    the loop, 4 at the two calls, _pasted_before). The last code's call stacks both, the
    first's has none: pasted in order, once (_fixed, in JAX and here)."""
    changes = _recompile(name) if name.endswith("calls") else jx_run(name)[1][1].changes
    code = _pasted_in_order(changes)
    calls = [c for c in code if c.startswith("f(")]
    assert calls == [line], calls
    assert REFERENCE[name + "_fixed"]["lowerings"] == 1
    _, events, _ = jx_run(name + "_fixed")
    assert len(events) == 1
    # the codes as they were, pasted in order: 6 lowerings in the loop, 4 at the two calls
    assert REFERENCE[name + "_pasted_before"]["lowerings"] == \
        (6 if name == "two_list_arguments_grow" else 4)


@pytest.mark.parametrize("name", ["prefix_slice_python_n_grows", "arange_argument_grows"])
def test_an_argument_made_in_the_call_one_longer_each_step_is_padded_not_grown(name):
    """f(x[:n]) and f(jnp.arange(n)) with n 2, 3, 4: one longer at each call, which read as
    an array appended to at every step, its note a pattern writing each step's value at its
    index (no fix of a slice or an arange). The argument is made anew in the call: every
    note pads it (pasted, JAX 0.10.2 lowers the padded program as often as the note says:
    once for buckets of 4, twice for 3, 4, 5 in buckets of 4 and 8, _fixed)."""
    _, events, _ = jx_run(name)
    assert len(events) == 3
    for event in events[1:]:
        (change,) = event.changes
        assert "grew by one" not in change.fix and "n_steps" not in change.snippet, change
        assert "jnp.pad(" in change.snippet and change.fix.startswith("Every new shape")
    _, fixed, _ = jx_run(name + "_fixed")
    assert len(fixed) == REFERENCE[name + "_fixed"]["lowerings"]


@pytest.mark.parametrize("name", [
    "dict_literal_two_lists_grow", "two_list_arguments_grow", "prefix_slice_python_n_grows",
    "arange_argument_grows", "list_of_scalars_float32_then_weak",
    "optax_like_state_count_made_int32", "optional_bias_none_then_array_in_a_loop",
    "x64_config_update_between_calls_int_argument"])
def test_stop_104s_fixed_programs_hold_their_notes_code_as_written(name):
    """Each `_fixed` program of stop 104's audit is its first recompile's notes' code pasted
    in order (JAX 0.10.2 lowers each as often as jxkernel compiles it, once but for
    arange_argument_grows_fixed's two buckets): every code line the notes write now is one
    of its lines, so the recording is of the code a learner is shown."""
    _, events, _ = jx_run(name)
    code = _pasted_in_order(events[1].changes)
    fixed = _code_lines(SCENARIOS[name + "_fixed"][1])
    assert code and all(line in fixed for line in code), (code, fixed)
    assert REFERENCE[name + "_fixed"]["lowerings"] == \
        (2 if name == "arange_argument_grows" else 1)


def test_two_lists_growing_unevenly_are_given_a_mask_each():
    """f(a_list, b_list), b_list two items longer (h-notes2-104): the two notes' codes are
    joined into one call line, but each wrote `mask = jnp.arange(MAX) < len(...)`, and pasted
    in order b_list's mask overwrote a_list's; f given it for both (_pasted_before) computes
    a mean over b_list's rows for a_list (JAX 0.10.2: 13.67 for 15.0). Each code names its
    mask by its list (mask_a, mask_b): pasted, one lowering and JAX's values (_fixed)."""
    name = "two_list_arguments_grow_unevenly"
    assert [REFERENCE[name + s]["lowerings"] for s in ("", "_fixed", "_pasted_before")] == \
        [3, 1, 1]
    assert REFERENCE[name + "_fixed"]["out"] == REFERENCE[name]["out"]
    assert REFERENCE[name + "_pasted_before"]["out"] != REFERENCE[name]["out"]
    _, events, _ = jx_run(name)
    code = _pasted_in_order(events[1].changes)
    masks = [line.split(" = ")[0] for line in code if "jnp.arange(MAX)" in line]
    assert masks == ["mask_a", "mask_b"], code
    fixed = _code_lines(SCENARIOS[name + "_fixed"][1])
    assert all(line in fixed for line in code if not line.startswith("out.append(")), \
        (code, fixed)
    result, fixed_events, _ = jx_run(name + "_fixed")
    assert len(fixed_events) == 1
    expected = np.asarray(REFERENCE[name]["out"], np.float32)
    # (1 ulp: a sum of rows over a mask's sum, XLA's order of adds)
    assert np.all(np.abs(np.asarray(result["out"]) - expected) <= np.spacing(expected))
    # a dict literal's two lists, each its entry's mask so too (_named_once's join)
    code = _pasted_in_order(jx_run("dict_literal_two_lists_grow")[1][1].changes)
    assert [line.split(" = ")[0] for line in code if "jnp.arange(MAX)" in line] == \
        ["mask_a", "mask_b"], code


@pytest.mark.parametrize("name", ["list_argument_grows", "layers_dict_call_in_a_loop_grows",
                                  "two_list_arguments_grow_unevenly"])
def test_a_list_two_items_longer_is_one_note_as_jaxs_one_line(name):
    """At a growing loop's third call the closest key is the first call's (JAX 0.10.2: "* at
    input path [0][0], now list of length 3 and before list of length 1", one line per list):
    a note per new item said the same twice (h-notes2-104). One note per list, as JAX says
    each cause once."""
    _, events, _ = jx_run(name)
    jaxs = [m.count("\n  * at ") for m in REFERENCE[name]["messages"]]
    assert [len(e.changes) for e in events[1:]] == jaxs[1:] and jaxs[2] >= 1, \
        [[c.path for c in e.changes] for e in events]
    for event in events[1:]:
        lists = [re.sub(r"\[\d+\]$", "", c.path) for c in event.changes]
        assert len(set(lists)) == len(lists), lists


def test_a_growing_lengths_notes_give_one_bucket():
    """f(jnp.arange(n)) for n 3, 4, 5: the closest key of both recompiles is n = 3 (JAX
    0.10.2: "now f32[4] and before f32[3]", then "now f32[5] and before f32[3]"), and the
    notes bucketed at least 4, then at least 8 (h-notes2-104): two rules for one argument.
    Both give the first's, whose code, pasted, JAX lowers twice (buckets 4 and 8), as the
    notes say (lengths up to 4 one program, each doubling one more)."""
    name = "arange_argument_grows"
    _, events, _ = jx_run(name)
    second, third = (e.changes[0] for e in events[1:])
    assert second.snippet == third.snippet and second.fix == third.fix, third.snippet
    assert "at least 4" in third.snippet and "lengths up to 4 share one program" in third.fix
    fixed = _code_lines(SCENARIOS[name + "_fixed"][1])
    assert all(line in fixed for line in _code_lines(third.snippet))
    assert REFERENCE[name + "_fixed"]["lowerings"] == 2
    _, fixed_events, _ = jx_run(name + "_fixed")
    assert len(fixed_events) == 2


def test_a_length_bucket_after_a_call_of_another_rank_leaves_the_explainer_whole():
    # the first call's shape (3,) was of a lower rank than the two compared, (2, 3) and
    # (2, 4): the bucket rule indexed it along their axis 1 and raised IndexError, which the
    # user saw as a warning that the explainer broke (stop 104's fresh clone: jnp.nonzero's
    # size= calls in test_numpy_sorting.py)
    import warnings
    import jxkernel
    import jxkernel.numpy as jnp
    f = jxkernel.jit(lambda x: x.sum())
    with warnings.catch_warnings(), jxkernel.config.override("jax_explain_cache_misses", True):
        warnings.simplefilter("error", RuntimeWarning)
        for shape in ((3,), (2, 3), (2, 4)):
            f(jnp.ones(shape, jnp.int32))


def test_a_static_definition_alike_but_for_objects_made_anew_is_told_where_they_differ():
    """A register_static definition holding an update function made anew (JAX 0.10.2: "now
    ... with pytree metadata Def(names=(...), update=<function ... at 0x…>)", the whole
    definition both times; Flax's GraphDef holding a new optax transformation is thousands of
    characters over many lines): the note gave the whole text twice in its title and said "a
    number that should change ... goes out of Def". It says where the two differ, and that
    the function is made anew: made once, one lowering (_fixed)."""
    (change,) = _recompile("register_static_holding_a_function_made_anew")
    for side in (change.old, change.new):
        assert re.fullmatch(r"Def meta …'layer_9.kernel', 'layer_10.kernel', 'layer_11.kernel'"
                            r"\), update=<function make_update.<locals>.update_fn at 0x[0-9a-f]+>"
                            r"\)", side), side
    assert "differ only in objects made anew" in change.fix and "goes out of" not in change.fix
    assert [REFERENCE["register_static_holding_a_function_made_anew" + s]["lowerings"]
            for s in ("", "_fixed")] == [2, 1]
