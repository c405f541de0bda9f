"""The notes under a cell whose jitted function has a Python side effect that runs at its trace
alone (jxkernel/notebook/notes/effect_notes.py): a global set, a list or dict from outside changed,
the clock read. JAX 0.10.2 says nothing for any of them; what each note claims, and each fix it
advises, is checked against what JAX does for the same program
(tests/data/effect_notes_reference.json, recorded by reference/make_effect_notes_reference.py)."""
import re

import pytest

pytest.importorskip("IPython")

import jxkernel
from effect_notes_cases import run as facts_of  # tests/data
import locations  # tests/support: the repository's folders
from ipython_shell import ran_ok, shell_fixture
from note_words import here  # tests/support

JAX = locations.recorded("effect_notes_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)


def _notes(shell, source) -> list:
    return [text for text in ran_ok(shell, source, store_history=False).texts
            if text.startswith("⚠")]


def test_the_cases_do_what_they_do_in_jax():
    """Each side effect runs once, at the trace, in JAX 0.10.2 and here alike, and each fix
    the notes advise (a count passed in and returned, a value returned and appended outside,
    jax.debug.callback, the time passed in) does what the note says under JAX."""
    assert JAX["global_counter"] == {"count_after_3_calls": 1, "count_returned": 3}
    assert JAX["list_append"]["appended"] == 1 and JAX["list_append"]["kept_a_tracer"]
    assert JAX["list_append"]["callback_appended"] == [1.0, 2.0]
    assert JAX["clock"] == {"same_twice": True, "passed_in_differs": True}
    assert facts_of(jxkernel) == JAX


def test_a_global_counter_set_inside_jit_gets_a_note_whose_fix_counts(shell):
    """`global COUNT; COUNT += 1` in a jitted step, called three times: JAX leaves COUNT at 1
    (recorded), silently. The note says the global was set once, at the learner's line, and
    writes the step with the count passed in and returned, which counts 3 under JAX."""
    cell = ("COUNT = 0\n@jax.jit\ndef step(x):\n    global COUNT\n    COUNT += 1\n"
            "    return x + 1\nfor v in (1.0, 2.0, 3.0):\n    step(v)")
    (note,) = _notes(shell, cell)
    assert shell.user_ns["COUNT"] == JAX["global_counter"]["count_after_3_calls"]
    assert re.match(here(r"⚠ step sets the global COUNT \(at In\[\d+\]:5\) once, while traced: "
                         r"calls of its compiled program leave COUNT as it is\n"), note), note
    assert "  def step(x, COUNT):\n      ...\n      return y, COUNT + 1\n" \
           "  y, COUNT = step(x, COUNT)" in note
    assert "tracer" not in note.splitlines()[0]
    assert _notes(shell, "step(4.0)") == []                    # said at its trace alone


def test_a_tracer_saved_in_a_global_is_said_to_be_one(shell):
    """JAX's sharp bits' impure_saves_global, jitted and called on one line (the jit is gone
    by the cell's end): the global holds the trace's tracer in JAX (recorded). The note says
    so, and advises returning the value, which gives 4.0 under JAX."""
    assert JAX["global_tracer"] == {"global_is_a_tracer": True, "returned": 4.0}
    cell = ("g = 0.\ndef impure_saves_global(x):\n  global g\n  g = x\n  return x\n"
            "print('First call: ', jax.jit(impure_saves_global)(4.))")
    (note,) = _notes(shell, cell)
    assert re.match(r"⚠ impure_saves_global sets the global g \(at In\[\d+\]:4\) once, while "
                    r"traced: .* and g now holds a tracer of that trace, not a value\n",
                    note), note
    assert "Return what it sets, and set it from the result:\n" \
           "  def impure_saves_global(x):\n      ...\n      return y, x\n" \
           "  y, g = jax.jit(impure_saves_global)(x)" in note


def test_a_nonlocal_set_is_told_as_nonlocal(shell):
    cell = ("def make():\n    calls = 0\n    def f(x):\n        nonlocal calls\n"
            "        calls = calls + 1\n        return x\n    return jax.jit(f)\n"
            "_f = make()\n_f(1.0)")
    (note,) = _notes(shell, cell)
    assert re.match(r"⚠ f sets the nonlocal calls \(at In\[\d+\]:5\) once", note), note


def test_a_list_appended_to_inside_jit_gets_a_note_and_both_fixes(shell):
    """LOG.append(x) in a jitted function called twice: one append, of a tracer, in JAX
    (recorded; using it raises UnexpectedTracerError there). The note says so at the line, and
    advises returning the value and appending outside, or jax.debug.callback(LOG.append, x):
    each appends 1.0 and 2.0 under JAX (recorded)."""
    facts = JAX["list_append"]
    assert facts["using_it"] == "UnexpectedTracerError"
    assert facts["returned_and_appended"] == facts["callback_appended"] == [1.0, 2.0]
    cell = ("LOG = []\n@jax.jit\ndef f(x):\n    LOG.append(x)\n    return x * 2\n"
            "f(1.0)\nf(2.0)")
    (note,) = _notes(shell, cell)
    assert len(shell.user_ns["LOG"]) == facts["appended"]
    assert re.match(here(r"⚠ f changes LOG \(LOG.append\(x\), at In\[\d+\]:4\) once, while "
                         r"traced: calls of its compiled program leave LOG as it is, and LOG "
                         r"now holds a tracer of that trace, not a value\n"), note), note
    assert "using it raises UnexpectedTracerError" in note
    assert "  y, kept = f(x)    # f returning (y, x)\n  LOG.append(kept)" in note
    assert "  jax.debug.callback(LOG.append, x)" in note


def test_a_dict_item_set_inside_jit_gets_the_note_without_a_callback(shell):
    """SEEN["last"] = x in a jitted function: set once, at the trace (JAX: a later value set
    outside stays, recorded); the note advises returning the value, and no callback (a string
    is no argument jax.debug.callback takes)."""
    assert JAX["dict_set"] == {"after_second_call": "replaced"}
    cell = ("SEEN = {}\n@jax.jit\ndef k(x):\n    SEEN['last'] = x\n    return x + 1\n_ = k(1.0)")
    (note,) = _notes(shell, cell)
    assert re.match(r"⚠ k changes SEEN \(SEEN\['last'\] = x, at In\[\d+\]:4\) once", note), note
    assert "  SEEN['last'] = kept" in note and "callback" not in note


def test_the_clock_read_inside_jit_gets_a_note(shell):
    """time.time() in a jitted function: the same number on every call in JAX (recorded); the
    note says so and advises passing the time in (a new number each call under JAX,
    recorded); two reads, a timing of the trace, are told as timing the trace."""
    cell = ("import time\n@jax.jit\ndef stamped(x):\n    return x * 0 + time.time()\n"
            "_a = stamped(1.0)")
    (note,) = _notes(shell, cell)
    assert re.match(here(r"⚠ time.time\(\) read the clock once, while stamped was traced \(at "
                         r"In\[\d+\]:4\): its number is the trace's, the same on every call of "
                         r"the compiled program\n"), note), note
    assert "  stamped(x, time.time())" in note
    assert "%timeit stamped(x).block_until_ready()" in note
    timing = ("from time import perf_counter\n@jax.jit\ndef timed(x):\n    t0 = perf_counter()\n"
              "    y = x @ x\n    took = perf_counter() - t0\n    return y\n_b = timed(jnp.ones((2, 2)))")
    (note,) = _notes(shell, timing)
    assert re.match(here(r"⚠ timed read the clock at In\[(\d+)\]:4 and In\[\1\]:6, once each, "
                         r"while traced: what they measure is its trace, not the calls of its "
                         r"compiled program\n"), note), note


def test_an_argument_dict_changed_and_not_returned_gets_a_note_whose_fix_keeps_it(shell):
    """params["w"] = ... in a jitted update that returns nothing: JAX leaves the caller's
    params as it was (recorded; the same function without jit changes it). The note says the
    function got a copy, and writes it returned and kept, which updates params under JAX
    (recorded); with `-=` beside a returned loss, the pair is returned."""
    facts = JAX["argument_dict"]
    assert facts["jitted_leaves_it"] == [1.0, 1.0] and facts["plain_changes_it"] == [0.5, 0.5]
    assert facts["returned"] == facts["step_returned"] == [0.5, 0.5]
    cell = ("params = {'w': jnp.ones(2)}\n@jax.jit\ndef update(params, g):\n"
            "    params['w'] = params['w'] - 0.5 * g\nupdate(params, jnp.ones(2))")
    (note,) = _notes(shell, cell)
    assert [float(v) for v in shell.user_ns["params"]["w"]] == facts["jitted_leaves_it"]
    assert re.match(r"⚠ update changes its argument params \(params\['w'\] = params\['w'\] - "
                    r"0.5 \* g, at In\[\d+\]:4\) but never returns it: under jit, update gets a "
                    r"copy of params that the trace made from its arrays, so the params you "
                    r"passed is left as it was\n", note), note
    assert "  def update(params, g):\n      ...\n      return params\n" \
           "  params = update(params, g)" in note
    cell = ("@jax.jit\ndef step(params, g):\n    params['w'] -= 0.5 * g\n"
            "    return jnp.sum(g)\nloss = step(params, jnp.ones(2))")
    (note,) = _notes(shell, cell)
    assert "      return y, params\n  y, params = step(params, g)" in note
    # a parameter named y: the result named otherwise (`return y, params` gave back the input)
    cell = ("@jax.jit\ndef fit(params, x, y):\n    params['w'] -= 0.5 * jnp.sum(x - y)\n"
            "    return jnp.sum(x)\nloss = fit(params, jnp.ones(2), jnp.ones(2))")
    (note,) = _notes(shell, cell)
    assert "      return out, params\n  out, params = fit(params, x, y)" in note, note
    returned = ("@jax.jit\ndef kept(params, g):\n    params['w'] = params['w'] - 0.5 * g\n"
                "    return params\nparams = kept(params, jnp.ones(2))")
    assert _notes(shell, returned) == []


def test_a_change_reading_what_it_changes_gets_words_not_a_returned_value(shell):
    """SEEN["n"] += 1 in a jitted function: returning SEEN["n"] + 1 would return the trace's
    number on every call, so the note offers no such code, only what to pass and return."""
    cell = ("SEEN = {'n': 0}\n@jax.jit\ndef cnt(x):\n    SEEN['n'] += 1\n    return x\n_ = cnt(1.0)")
    (note,) = _notes(shell, cell)
    assert re.match(r"⚠ cnt changes SEEN \(SEEN\['n'\] \+= 1, at In\[\d+\]:4\) once", note)
    assert "kept" not in note and "Pass what it reads of SEEN in as an argument" in note


def test_a_dicts_list_appended_to_inside_a_train_step_gets_the_note(shell):
    """metrics_history['loss'].append(loss) inside a jitted train step (the note saw a name or
    an attribute path alone): one append, of a tracer, in JAX (recorded); the callback it
    offers appends each step's loss under JAX (recorded)."""
    facts = JAX["history_entry"]
    assert facts == {"appended": 1, "kept_a_tracer": True, "callback_appended": [4.0, 1.0]}
    cell = ("metrics_history = {'loss': []}\n@jax.jit\ndef train_step(w, x):\n"
            "    loss = jnp.mean((x @ w) ** 2)\n    metrics_history['loss'].append(loss)\n"
            "    return w * 0.5\nw = train_step(jnp.ones(2), jnp.ones((3, 2)))")
    (note,) = _notes(shell, cell)
    assert re.match(r"⚠ train_step changes metrics_history\['loss'\] \(metrics_history\['loss'\]"
                    r"\.append\(loss\), at In\[\d+\]:5\) once, while traced: .* and "
                    r"metrics_history\['loss'\] now holds a tracer", note), note
    assert "  jax.debug.callback(metrics_history['loss'].append, loss)" in note


def test_what_a_host_callback_runs_gets_no_note(shell):
    """A lambda, a def inside the function, or a global function handed to jax.debug.callback
    appends to a list at each call, in JAX (recorded: 2 appends, 4 with two callbacks): no
    effect note, and no note that the program keeps the list's old value (the stale-read note
    said "LOG is [1.0, 2.0] now, and its compiled program keeps []")."""
    facts = JAX["callbacks"]
    assert facts == {"lambda_appended": [1.0, 2.0], "def_and_global_appended": 4}
    cell = ("LOG = []\n@jax.jit\ndef f(x):\n    jax.debug.callback(lambda v: LOG.append(v), x)\n"
            "    return x * 2\nf(1.0)\nf(2.0)\njax.effects_barrier()")
    assert _notes(shell, cell) == []
    assert [float(v) for v in shell.user_ns["LOG"]] == facts["lambda_appended"]
    assert _notes(shell, "f(3.0)\njax.effects_barrier()") == []
    cell = ("STAMPS = []\ndef record(v):\n    STAMPS.append(v)\n@jax.jit\ndef g(x):\n"
            "    def inner(v):\n        STAMPS.append(v)\n    jax.debug.callback(inner, x)\n"
            "    jax.debug.callback(record, x)\n    return x\ng(1.0)\ng(2.0)\n"
            "jax.effects_barrier()")
    assert _notes(shell, cell) == []
    assert len(shell.user_ns["STAMPS"]) == facts["def_and_global_appended"]
    assert _notes(shell, "g(3.0)\njax.effects_barrier()") == []


@pytest.mark.parametrize("cell", [
    # a list made inside the function (JAX's sharp bits: pure_uses_internal_state)
    "@jax.jit\ndef pure(x):\n    state = dict(even=0, odd=0)\n    for i in range(4):\n"
    "        state['even' if i % 2 == 0 else 'odd'] += x\n    out = []\n    out.append(x)\n"
    "    return state['even'] + out[0]\n_ = pure(5.)",
    # a list passed in: the function gets a list of its own, made from the leaves
    "@jax.jit\ndef takes(x, acc):\n    acc.append(x)\n    return acc[0]\n_ = takes(1.0, [2.0])",
    # a global read, not set; a module's function called, not a container changed
    "OFFSET = 1.0\n@jax.jit\ndef reads(x):\n    return x + OFFSET + jnp.sin(x)\n_ = reads(1.0)",
    # a global of the same name as a nested function's own list
    "acc = []\n@jax.jit\ndef nested(x):\n    def inner(y):\n        acc = [y]\n        acc.append(y)\n"
    "        return acc[0]\n    return inner(x)\n_ = nested(1.0)",
    # time used outside the jitted function
    "import time\n@jax.jit\ndef plain(x, now):\n    return x + now\n_ = plain(1.0, time.time())",
])
def test_code_without_such_effects_gets_no_note(shell, cell):
    assert _notes(shell, cell) == []


def test_a_list_of_a_jitted_methods_object_appended_to_gets_the_note(shell):
    """self.losses.append(loss) in a method jitted as `fast = jax.jit(t.step)` (a learner's
    training loop): one append, of a tracer, in JAX (recorded). The note names self.losses,
    calls the jit by the learner's name, writes the append outside with the object's name, and
    offers jax.debug.callback(self.losses.append, loss) in the method, which appends each
    step's loss under JAX (recorded)."""
    facts = JAX["method_list"]
    assert facts == {"appended": 1, "kept_a_tracer": True, "callback_appended": [2.0, 1.28]}
    cell = ("class Trainer:\n    def __init__(self):\n        self.losses = []\n"
            "    def step(self, w):\n        loss = jnp.sum(w ** 2)\n"
            "        self.losses.append(loss)\n        return w * 0.8\n"
            "t = Trainer()\nfast = jax.jit(t.step)\nw = fast(jnp.ones(2))\nw = fast(w)")
    (note,) = _notes(shell, cell)
    assert len(shell.user_ns["t"].losses) == facts["appended"]
    assert re.match(r"⚠ step changes self.losses \(self.losses.append\(loss\), at In\[\d+\]:6\) "
                    r"once, while traced: .* and self.losses now holds a tracer", note), note
    assert "  y, kept = fast(w)    # step returning (y, loss)\n  t.losses.append(kept)\n" in note
    assert "  jax.debug.callback(self.losses.append, loss)" in note


def test_the_modules_examples_run():
    import doctest
    from jxkernel.notebook.notes import effect_notes, effect_sources
    from jxkernel.views import host_callbacks
    for module in (effect_notes, effect_sources, host_callbacks):
        assert doctest.testmod(module).failed == 0
