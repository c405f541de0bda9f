"""Every kind's advised fix, pasted where its note says, removes the recompile: a static
argument's value, a last partial batch (pad and mask), a growing length (buckets: the few
compiles it promises), a dict key added, a list appended to, None then an array, x64
switched on, a jit of a lambda made at every pass of a loop (its line moved above the loop),
a jit of a functools.partial or of a bound method made at every pass (the jit above the
loop, the call at the line named), a call inside a default_matmul_precision or default_device
block (set once at start-up), two jits of one function with other options (one jit left); and
a value closed over, rebound, is passed in (a cache hit then reads the new value); an argument
static in one jit and traced in another (the earlier call calls the one jit, passing it as the
other does), a static or traced argument passed by position, then by keyword (by keyword at
both), a list of numbers then an array, a static object of number fields (registered as a
pytree), a meta field given a new value (made data), a default left out then passed (given
it), symbols made anew for jax.export (made once), a Python number then vmap (an array in
its place), an input put on another device (every call's inputs on one device, in the calls'
names), a def jitted inside a factory made anew at every pass (written once at the top
level, what it closed over passed in the call).
The snippet pasted is the note's own (read from it; tests/data/pasted_fixes_cases.py holds
it as written, for the reference), and JAX 0.10.2 traces the same programs as often
(tests/data/pasted_fixes_reference.json, reference/make_pasted_fixes_reference.py)."""
import json
import re

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import compile_log, config
from fresh_process import run_python   # tests/support
from backend_tier import cases_marked   # tests/support

from pasted_fixes_cases import (  # tests/data
    CASES, CLOSED_OVER, CLOSED_OVER_SNIPPET, COMMITTED_CHANGED, COMMITTED_SNIPPET,
    DEVICE_SNIPPET, GROWN, GROWN_SNIPPET,
    JIT_OF_A_DEF_IN_A_LOOP, OPTIONS, OPTIONS_DIFFER, OPTIONS_SNIPPET, grown_filled,
    device_pasted, options_pasted, passed_in, pasted)
import locations  # tests/support: the repository's folders

REFERENCE = locations.recorded("pasted_fixes_reference.json")


def run(source, path, scope=None):
    """The compile events of the program `source`, run from the file `path` (linecache reads
    the learner's lines from it), and its globals; the options a case sets (x64, the default
    matmul precision, the default device) as they were before, after."""
    path.write_text(source)
    start = compile_log.last_seq() + 1
    scope = {"jax": jxkernel, "jnp": jnp, **(scope or {})}
    before = {name: getattr(config, name) for name in OPTIONS}
    try:
        exec(compile(source, str(path), "exec"), scope)
    finally:
        for name, value in before.items():
            config.update(name, value)
    return [e for e in compile_log.events_since(start) if e.source and str(path) in e.source], \
        scope


# The cases whose program needs XLA: jax.devices('cpu') by name, or jax.export (refused on the
# NumPy backend); the rest run there too.
_XLA_ONLY = {"default_device_in_a_block": "CPU platform",
             "symbolic_shape_made_in_a_loop": "XLA text"}


# the fixes that change a value of the program, as their notes say: padded to a size compiled
# before (the note: weigh the padded rows by the mask it writes, or drop them; the tests
# below run the mask), or to the bucket's size
_CHANGES_VALUES = {"growing_length": {"x"}, "last_partial_batch": {"batch", "l"},
                   "last_partial_batch_named_b": {"b", "l"}}


@pytest.mark.parametrize("name", cases_marked(sorted(CASES), _XLA_ONLY))
def test_the_notes_fix_pasted_traces_as_few_times_as_in_jax(name, tmp_path):
    _, program, _, _, written, traces = CASES[name]
    events, before = run(program, tmp_path / f"{name}.py")
    recorded = REFERENCE["cases"][name]
    assert len(events) == recorded["program"]["traces"] > 1, \
        [(e.reason, e.changes) for e in events]
    snippet = events[1].changes[0].snippet          # the first recompile's note
    assert snippet == written, snippet
    again, after = run(pasted(name, snippet), tmp_path / f"{name}_pasted.py")
    assert len(again) == recorded["pasted"]["traces"] == traces, \
        [(e.reason, e.changes) for e in again]
    assert again[0].reason == "first call"
    # and it computes what the program did: each number or array both bind is the same
    # (a fix that traced a value it had baked in, or padded what it computes with, would
    # change one), but where the note says its fix changes it
    values = {k: np.asarray(v) for k, v in before.items() if _number_or_array(v)}
    differ = [k for k, v in values.items() if _number_or_array(after.get(k)) and not (
        v.shape == np.shape(after[k]) and np.allclose(v, after[k], equal_nan=True))]
    assert set(differ) == _CHANGES_VALUES.get(name, set()), differ


def _number_or_array(value) -> bool:
    return isinstance(value, (int, float, np.ndarray, np.generic, jxkernel.Array)) and \
        not isinstance(value, bool)


def test_the_growing_lengths_compiles_are_the_ones_its_note_promises(tmp_path):
    """Buckets are not one program: the note says how many (lengths up to 2 share one, each
    doubling adds one), and lengths 1 to 5 padded as it says are 3, as under JAX."""
    events, _ = run(CASES["growing_length"][1], tmp_path / "growing.py")
    assert "lengths up to 2 share one program and each doubling past it adds one" in \
        events[1].changes[0].fix
    assert REFERENCE["cases"]["growing_length"]["pasted"]["traces"] == 3   # 2, 4, 8


def test_the_padded_batch_weighed_by_the_mask_is_the_unpadded_result(tmp_path):
    """The partial batch's note: padded, the mask (passed in, rows weighed by it) keeps the
    padding out, and unweighted the padding counts. The learner's loss given the mask, run
    on the pasted program: each batch's loss is the unpadded one's (integers in float32:
    exact on every CPU), as under JAX; without the mask the last one is not."""
    _, program, _, _, _, _ = CASES["last_partial_batch"]
    events, plain = run(program.replace("    l = loss(batch)\n",
                                        "    l = loss(batch)\n    losses.append(float(l))\n"),
                        tmp_path / "plain.py", {"losses": []})
    snippet = events[1].changes[0].snippet
    assert "weigh each row by it" in snippet and "keeps" not in snippet
    fix = events[1].changes[0].fix
    assert "weigh the padded rows 0" in fix and "unweighted, the padding counts" in fix
    masked = pasted("last_partial_batch", snippet).replace(
        "def loss(batch):\n    return (batch ** 2).sum(axis=1).mean()\n",
        "def loss(batch, mask):\n    return ((batch ** 2).sum(axis=1) * mask).sum() / mask.sum()\n"
    ).replace("    l = loss(batch)\n", "    l = loss(batch, mask)\n    losses.append(float(l))\n")
    again, weighed = run(masked, tmp_path / "masked.py", {"losses": []})
    assert len(again) == 1
    unweighed = pasted("last_partial_batch", snippet).replace(
        "    l = loss(batch)\n", "    l = loss(batch)\n    losses.append(float(l))\n")
    _, counted = run(unweighed, tmp_path / "unweighed.py", {"losses": []})
    losses = REFERENCE["last_partial_batch_losses"]
    assert plain["losses"] == weighed["losses"] == losses["unpadded"] == \
        losses["padded_masked"]
    assert counted["losses"] == losses["padded_unweighed"] != losses["unpadded"]


def test_a_lambda_reading_the_loops_variable_is_not_told_to_move_as_it_is(tmp_path):
    """Moved above the loop, `jax.jit(lambda v: v * i)` keeps the i of its one trace (JAX
    0.10.2 answers 0 for every i: recompile_reference.json's
    learner5_lambda_made_once_reads_i): its note keeps the advice that passes i."""
    program = CASES["jit_of_a_lambda_in_a_loop"][1].replace("v * 2", "v * i")
    events, _ = run(program, tmp_path / "reads_i.py")
    (change,) = events[1].changes
    assert change.kind == "fresh_jit" and "moved above the loop" not in change.snippet
    assert "made once it would keep the first one" in change.fix and \
        "passed as an argument" in change.fix


def test_a_grown_arrays_pattern_filled_in_with_its_mask_traces_once_and_keeps_the_means(
        tmp_path):
    """An array grown by jnp.append and read whole (a mean): the note's code is a pattern
    (it says so, and names n_steps, i and value in a comment) and says to weigh by a mask
    where the array is read whole. Filled in as it says: one trace, and each step's mean is
    the grown array's (exact in float32), as under JAX 0.10.2; without the mask, the zeros
    past the rows written would count."""
    events, plain = run(GROWN, tmp_path / "grown.py", {"means": []})
    recorded = REFERENCE["grown"]
    assert len(events) == recorded["program"]["traces"] == 4
    (change,) = events[2].changes
    assert change.snippet == GROWN_SNIPPET, change.snippet
    assert "a pattern, in names of yours to fill in" in change.fix and \
        "weigh them by it: the zeros past them would count" in change.fix
    again, filled = run(grown_filled(change.snippet), tmp_path / "filled.py", {"means": []})
    assert len(again) == recorded["filled"]["traces"] == 1
    assert plain["means"] == filled["means"] == recorded["program"]["means"] == \
        recorded["filled"]["means"]


def test_a_closed_over_values_note_passes_it_in_and_a_cache_hit_reads_the_new_value(tmp_path):
    """A global array rebound between calls, then a compile for a new shape: its note writes
    the def given the value as a parameter and the call it names passing it (it was a pattern,
    `f = jax.jit(lambda x, w: ...)`, that pasted returned an Ellipsis). The program's last
    call, a cache hit, keeps the first w (3.0, not 6.0); pasted as it says, it reads the new
    one. Traces and results as under JAX 0.10.2 (exact: small integers in float32)."""
    events, plain = run(CLOSED_OVER, tmp_path / "closed.py", {"outs": []})
    recorded = REFERENCE["closed_over"]
    assert len(events) == recorded["program"]["traces"] == 2
    (constant,) = [c for c in events[1].changes if c.kind == "constant"]
    assert constant.snippet == CLOSED_OVER_SNIPPET, constant.snippet
    assert "a parameter of f, and w in every call of it" in constant.fix and \
        "pattern" not in constant.fix
    again, fixed = run(passed_in(constant.snippet), tmp_path / "passed.py", {"outs": []})
    assert len(again) == recorded["pasted"]["traces"] == 2
    assert plain["outs"] == recorded["program"]["outs"] == [[3.0, 3.0], [6.0] * 3, [3.0, 3.0]]
    assert fixed["outs"] == recorded["pasted"]["outs"] == [[3.0, 3.0], [6.0] * 3, [6.0, 6.0]]


def test_a_closed_over_values_note_without_a_def_to_rewrite_says_its_code_is_a_pattern(
        tmp_path):
    """The same value read by a function jitted by name (no decorated def to write): the
    plain code, `f = jax.jit(lambda x, w: ...)`, stays, and the note says it is a pattern."""
    program = CLOSED_OVER.replace("@jax.jit\n", "").replace(
        "w = jnp.ones(3)\n", "w = jnp.ones(3)\n").replace(
        "    return x * w.sum()\n", "    return x * w.sum()\ng = jax.jit(f)\n").replace(
        "f(jnp.ones", "g(jnp.ones")
    events, _ = run(program, tmp_path / "by_name.py", {"outs": []})
    (constant,) = [c for c in events[1].changes if c.kind == "constant"]
    assert "..." in constant.snippet and \
        "the code below is a pattern: your function's body in place of ..." in constant.fix


def test_two_jits_with_other_options_left_one_as_the_note_says_compile_once_as_in_jax(
        tmp_path):
    """jit(f) and jit(f, donate_argnums=0), both called: JAX 0.10.2 traces once and compiles
    twice (its "Compiling jit(f)" lines), jxkernel logs two compiles. The note's code names f
    and the name the call used (it read `f = jax.jit(g, ...)`: g was nowhere); pasted over
    the first jit, the other deleted, one compile, as in JAX."""
    events, _ = run(OPTIONS_DIFFER, tmp_path / "options.py")
    recorded = REFERENCE["options_differ"]
    assert recorded["program"]["traces"] == 1
    assert len(events) == recorded["program"]["compiled"].count("jit(f)") == 2
    (change,) = events[1].changes
    assert change.kind == "config" and change.snippet == OPTIONS_SNIPPET, change.snippet
    again, _ = run(options_pasted(change.snippet), tmp_path / "options_pasted.py")
    assert len(again) == recorded["pasted"]["compiled"].count("jit(f)") == 1
    assert recorded["pasted"]["traces"] == 1


def test_a_method_jitted_anew_on_a_new_object_each_pass_writes_no_code(tmp_path):
    """jax.jit(m.apply)(x) where the loop makes m anew (its k differs): made once, the jit
    would keep the first m's k (what it reads from self is baked in when traced), so the
    note moves no line and says that no code is written; m made before the loop, it is
    hoisted (method_jitted_in_a_loop)."""
    program = CASES["method_jitted_in_a_loop"][1].replace(
        "m = Model(2.0)\n", "").replace("for i in range(3):\n",
                                         "for k in (1.0, 2.0, 3.0):\n    m = Model(k)\n")
    events, _ = run(program, tmp_path / "new_objects.py")
    assert len(events) == 3
    (change,) = events[1].changes
    assert change.kind == "fresh_jit" and change.snippet == "", change
    assert "of a new m made in the loop" in change.fix and "No code is written here" in \
        change.fix


def test_a_lambda_reading_a_name_the_loop_rebinds_is_not_told_to_move(tmp_path):
    """`for fn in (a, b, a): jax.jit(lambda v: fn(v))(x)`: made once, the jit would keep the
    first fn (it is read when traced), so neither the line nor the jit moves: the note's
    code is the plain pattern, and says so."""
    program = ("def a(v):\n    return v * 2\ndef b(v):\n    return v * 3\n"
               "x = jnp.ones(3)\nfor fn in (a, b, a):\n"
               "    step = jax.jit(lambda v: fn(v))\n    y = step(x)\n")
    events, _ = run(program, tmp_path / "rebound.py")
    assert len(events) == 3
    (change,) = events[1].changes
    assert "moved above the loop" not in change.snippet and "lambda_jit" not in change.snippet
    assert "a pattern, in names of yours to fill in" in change.fix


def test_a_jit_of_a_def_made_at_every_pass_traces_once_and_is_told_nothing(tmp_path):
    """jax.jit(f)(x) in a loop, f made once: one trace, as in JAX 0.10.2 (its cache is keyed
    on f), so no note advises anything."""
    events, _ = run(JIT_OF_A_DEF_IN_A_LOOP, tmp_path / "jit_of_f.py")
    assert len(events) == REFERENCE["jit_of_a_def_in_a_loop"]["traces"] == 1
    assert events[0].reason == "first call" and events[0].changes == ()


def test_an_object_made_in_the_loop_from_the_loops_value_is_not_moved(tmp_path):
    """`t = Trainer(lr)` with lr the loop's: moved above the loop it would keep the first lr,
    so the note moves no line and keeps the pattern (saying so), with lr an argument."""
    program = CASES["object_jitting_its_method_made_in_a_loop"][1].replace(
        "for epoch in range(3):\n    t = Trainer(0.1)\n",
        "for lr in (0.1, 0.2, 0.3):\n    t = Trainer(lr)\n")
    events, _ = run(program, tmp_path / "trainer_lr.py")
    assert len(events) == 3
    (change,) = events[1].changes
    assert "moved above the loop" not in change.snippet and "Trainer(...)" in change.snippet
    assert "a pattern, in names of yours to fill in" in change.fix


def test_a_factorys_def_written_once_ends_where_the_closures_made_anew_did(tmp_path):
    """jitted_closure_of_a_factory and its form bound above (lr 0.5, 0.25, 0.5: exact in
    float32): the note's code pasted, lr a traced parameter of the one def, w ends where the
    three closures left it; make_zeros' n, a shape, made static: the same arrays, one program
    per n."""
    for name, result in (("jitted_closure_of_a_factory", "w"),
                         ("jitted_closure_of_a_factory_bound_above", "w"),
                         ("jitted_closure_of_a_factory_static", "y")):
        events, before = run(CASES[name][1], tmp_path / f"{name}.py")
        _, after = run(pasted(name, events[1].changes[0].snippet),
                       tmp_path / f"{name}_pasted.py")
        assert before[result].tolist() == after[result].tolist(), name
        assert before[result].dtype == after[result].dtype
    assert after["y"].tolist() == [1.0] * 4


@pytest.mark.parametrize("edit", [
    ("    @jax.jit\n", "    lr = 2 * lr\n    @jax.jit\n"),        # the factory rebinds lr
    ("w - lr * g", "w - scaled(lr) * g"),                       # lr passed on to a helper
    ("    return step\n", "    return step\nstep = 1\n"),          # the name bound globally
    ("make_step(lr)(w, jnp.ones(3))", "make_step(lr)(*[w, jnp.ones(3)])"),   # *args
])
def test_a_factory_read_otherwise_keeps_the_pattern(edit, tmp_path):
    """Where the rewrite could change a result or fail (the factory rebinding what it was
    given, a use the source cannot read, a global the def would rebind, a call that cannot
    be read argument by argument), the note keeps its pattern and says so."""
    program = "def scaled(v):\n    return v\n" + CASES["jitted_closure_of_a_factory"][1]
    program = program.replace(*edit)
    events, _ = run(program, tmp_path / "factory.py")
    assert len(events) == 3
    (change,) = events[1].changes
    assert "a pattern, in names of yours to fill in" in change.fix, change.fix
    assert "static_argnames" in change.fix and "def f(x, lr):" in change.snippet


def test_an_input_committed_in_one_call_only_put_on_the_device_as_the_note_says_compiles_once(
        tmp_path):
    """v put on the default device with jax.device_put (committed) where the first call's x
    was made there (uncommitted): JAX 0.10.2 traces once and compiles jit(f) twice, as the
    note says ("the same trace, compiled again"); its code, each call's argument put on the
    device before the call, pasted: one compile, in JAX and here."""
    recorded = REFERENCE["committed_changed"]
    assert recorded["program"]["traces"] == 1
    assert recorded["program"]["compiled"] == ["jit(f)", "jit(f)"]
    events, _ = run(COMMITTED_CHANGED, tmp_path / "committed.py")
    assert [e.compiled for e in events] == [True, True]
    (change,) = events[1].changes
    assert change.kind == "committed" and change.snippet == COMMITTED_SNIPPET, change
    assert "the same trace, compiled again" in change.fix
    # (the device as the backend names it: cpu:0, numpy:0 on the NumPy backend)
    assert re.search(r"put x, v on \w+:0 before each call", change.fix), change.fix
    again, _ = run(device_pasted(change.snippet, COMMITTED_CHANGED),
                   tmp_path / "committed_pasted.py")
    assert len(again) == len(recorded["pasted"]["compiled"]) == 1


# the device case runs in a process of its own with 8 CPU devices (the suite's have one):
# the program and its note's code pasted, each from a file (argv[1], argv[2])
_ON_8_DEVICES = """
import json, sys
import jxkernel, jxkernel.numpy as jnp
from jxkernel import compile_log
from pasted_fixes_cases import DEVICE_CHANGED, device_pasted
def run(source, path):
    open(path, "w").write(source)
    start = compile_log.last_seq() + 1
    exec(compile(source, path, "exec"), {"jax": jxkernel, "jnp": jnp})
    return [e for e in compile_log.events_since(start) if e.source and path in e.source]
events = run(DEVICE_CHANGED, sys.argv[1])
(change,) = events[1].changes
again = run(device_pasted(change.snippet), sys.argv[2])
inline = run(DEVICE_CHANGED.replace("v = jax.device_put(jnp.ones(3), jax.devices()[1])\\n"
                                    "y = f(v)", "y = f(jax.device_put(jnp.ones(3), "
                                    "jax.devices()[1]))"), sys.argv[2] + "_inline.py")
print(json.dumps(dict(devices=jxkernel.device_count(), compiles=len(events), kind=change.kind,
                      snippet=change.snippet, fix=change.fix, pasted=len(again),
                      inline=inline[1].changes[0].fix)))
"""


@pytest.mark.cpu_only("simulated CPU devices")
def test_an_input_on_another_device_put_on_one_as_the_note_says_compiles_once_as_in_jax(
        tmp_path):
    """v put on cpu:1 between two calls (8 CPU devices, in a process of its own): JAX 0.10.2
    traces once and compiles twice, jxkernel logs two compiles. The note's code was
    `x = jax.device_put(x, jax.devices()[0])`, an x the call need not pass; it names each
    call's arguments, each line before the call it names (v alone put back is committed to
    cpu:0 and the first call's x is not: JAX compiles twice). Pasted: one compile, as in JAX."""
    ran = run_python(["-c", _ON_8_DEVICES, str(tmp_path / "device.py"),
                      str(tmp_path / "device_pasted.py")], {"JXKERNEL_CPU_DEVICES": "8"}, 300)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout.splitlines()[-1])
    recorded = REFERENCE["device_changed"]
    assert out["devices"] == 8 and recorded["program"]["traces"] == 1
    assert out["compiles"] == len(recorded["program"]["compiled"]) == 2
    assert out["kind"] == "config" and out["snippet"] == DEVICE_SNIPPET, out["snippet"]
    assert "pattern" not in out["fix"]
    assert out["pasted"] == len(recorded["pasted"]["compiled"]) == 1
    assert len(recorded["v_alone"]["compiled"]) == 2
    # an argument that is no name (put on the device in the call): the plain code, a pattern
    assert "a pattern, in names of yours to fill in" in out["inline"], out["inline"]
