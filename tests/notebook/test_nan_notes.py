"""The note under a cell whose line computed a gradient holding NaN where the function's
value is finite (jxkernel/notebook/notes/nan_notes.py). What it says is checked against JAX 0.10.2
(tests/data/nan_gradient_reference.json): the gradient JAX gives is NaN there and the value
finite, jax_debug_nans raises for it as the note says, and the line the note writes gives a
finite gradient under JAX."""
import math
import re
import warnings

import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
import locations  # tests/support
from numerics import assert_tree_close  # tests/support
import nan_gradient_cases as cases  # tests/data
from ipython_shell import ran_ok, shell_fixture  # tests/support

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)
THEIRS = locations.jax_answers("nan_gradient_reference.json")
NOTE = "⚠ the gradient holds NaN"
# f32 values of sqrt, log and divisions, from one machine's XLA to another's
ULPS = 4


def test_jxkernel_gives_these_gradients_as_jax_did():
    ours = cases.run(jxkernel)
    assert ours.keys() == THEIRS.keys()
    for name, theirs in THEIRS.items():
        assert ours[name]["debug_nans"] == theirs["debug_nans"], name
        for key in ("value", "grad", "fixed_grad", "rejected_grad"):
            if key in theirs:
                assert_tree_close(ours[name][key], theirs[key], ULPS, err_msg=f"{name}.{key}")


def _run(shell, name):
    source, given, _, _ = cases.CASES[name]
    ran_ok(shell, source)
    return ran_ok(shell, f"g = jax.grad(f)({given})")


@pytest.mark.parametrize("name", [n for n, c in cases.CASES.items() if c[3] is not None])
def test_a_where_passing_nan_back_is_told_with_its_line_rewritten(shell, name):
    source, _, line, fix = cases.CASES[name]
    (note,) = _run(shell, name).shown(NOTE)
    title, *body = note.splitlines()
    assert re.fullmatch(r"⚠ the gradient holds NaN, though f's value is finite \(at "
                        r"In\[(\d+)\]:1\): the jnp.where at In\[(\d+)\]:(\d+) passed it back "
                        r"from the branch it did not take", title), title
    assert int(re.search(r"where at In\[\d+\]:(\d+)", title).group(1)) == line
    assert body[-len(fix.splitlines()):] == ["  " + line for line in fix.splitlines()]
    # what it claims, as JAX gave it: a NaN gradient of a finite value; the fix's finite
    theirs = THEIRS[name]
    assert np.isnan(theirs["grad"]).any() and math.isfinite(theirs["value"])
    assert not np.isnan(theirs["fixed_grad"]).any()
    # the fixed function, defined as the note writes it, gives JAX's gradient and no note
    ran_ok(shell, cases.fixed(name))
    ran = ran_ok(shell, f"g = jax.grad(f)({cases.CASES[name][1]})")
    assert ran.shown(NOTE) == []
    assert_tree_close(np.asarray(shell.user_ns["g"]).tolist(), theirs["fixed_grad"], ULPS)


@pytest.mark.parametrize("name", [n for n, c in cases.CASES.items() if c[3] is None])
def test_a_nan_made_elsewhere_is_told_at_its_line_in_words(shell, name):
    _, _, line, _ = cases.CASES[name]
    (note,) = _run(shell, name).shown(NOTE)
    title = note.splitlines()[0]
    assert re.fullmatch(r"⚠ the gradient holds NaN, though f's value is finite \(at "
                        r"In\[\d+\]:1\): first made at In\[\d+\]:(\d+), differentiating that "
                        r"line", title), title
    assert int(re.search(r"first made at In\[\d+\]:(\d+)", title).group(1)) == line
    # the option it names raises for this gradient, in JAX as here
    assert "jax.config.update('jax_debug_nans', True) raises" in note
    assert THEIRS[name]["debug_nans"].startswith("invalid value (nan) encountered in")
    assert np.isnan(THEIRS[name]["grad"]).any()
    # a where's rewrite it does not write: JAX's gradient of it holds NaN still
    if name in cases.REJECTED:
        assert np.isnan(THEIRS[name]["rejected_grad"]).any()
        assert cases.REJECTED[name] not in note


def test_finite_gradients_nan_inputs_and_nan_values_get_no_note(shell):
    ran_ok(shell, "def f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.)")
    assert ran_ok(shell, "g = jax.grad(f)(1.)").shown(NOTE) == []
    assert ran_ok(shell, "g = jax.grad(f)(jnp.nan)").shown(NOTE) == []     # NaN in, NaN out
    ran_ok(shell, "def h(x):\n    return jnp.log(x)")
    assert ran_ok(shell, "g = jax.grad(h)(-1.)").shown(NOTE) == []         # the value is NaN
    # an infinite value is no finite one: the note's words would be false
    ran_ok(shell, "def k(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.) + 1. / x")
    assert ran_ok(shell, "g = jax.grad(k)(0.)").shown(NOTE) == []


def test_a_line_is_told_once_and_the_functions_prints_are_not_run_again(shell):
    ran_ok(shell, "def f(x):\n    print('tracing f')\n    return jnp.where(x > 0, jnp.sqrt(x), 0.)")
    ran = ran_ok(shell, "v, g = jax.value_and_grad(f)(0.)")
    assert len(ran.shown(NOTE)) == 1
    assert ran.printed.count("tracing f") == 1          # the note's trace printed nothing
    assert ran_ok(shell, "v, g = jax.value_and_grad(f)(0.)").shown(NOTE) == []


def test_a_loops_first_nan_step_is_told_though_its_later_steps_hold_nan_inputs(shell):
    # gradient descent on the FAQ's function: w walks below 0, that step's gradient is NaN,
    # and every step after it starts from a NaN w (inputs holding NaN: not told), past the
    # last four steps the record keeps
    ran_ok(shell, "def f(w):\n    return jnp.where(w > 0, jnp.sqrt(w), 0.)")
    ran = ran_ok(shell, "w = jnp.array(2.0)\nfor i in range(12):\n"
                        "    w = w - 1.0 * jax.grad(f)(w)")
    assert np.isnan(float(shell.user_ns["w"]))
    (note,) = ran.shown(NOTE)
    assert re.match(r"⚠ the gradient holds NaN, though f's value is finite \(at In\[\d+\]:3\): "
                    r"the jnp.where at In\[\d+\]:2 passed it back", note), note
    assert note.splitlines()[-1] == "  return jnp.where(w > 0, jnp.sqrt(jnp.where(w > 0, w, "\
                                    "1.0)), 0.)"


def test_a_program_calling_back_into_python_is_not_stepped_and_its_note_names_no_line(shell):
    ran_ok(shell, "def f(x):\n    jax.debug.print('x is {}', x)\n"
                  "    return jnp.where(x > 0, jnp.sqrt(x), 0.)")
    ran = ran_ok(shell, "g = jax.grad(f)(0.)")
    (note,) = ran.shown(NOTE)
    assert re.fullmatch(r"⚠ the gradient holds NaN, though f's value is finite \(at "
                        r"In\[\d+\]:1\)", note.splitlines()[0]), note
    assert "step(jax.grad(f), x).first_nan() finds the equation" in note
    assert ran.printed.count("x is 0.0") == 1              # printed by the cell's call alone


def test_an_argument_of_no_array_kind_is_not_looked_at(shell):
    # an object with a dtype that does not convert (a library's), passed beside the input
    ran_ok(shell, "import numpy as np\nclass Odd:\n    dtype = np.dtype('float32')\n"
                  "    def __array__(self, *a, **k):\n        raise RuntimeError('no')\n"
                  "def f(x, odd=None):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # no warning of a note that failed
        ran = ran_ok(shell, "g = jax.grad(f)(0., odd=Odd())")
    assert len(ran.shown(NOTE)) == 1


def test_a_norm_in_a_later_cell_is_told_at_that_cells_line(shell):
    # jnp.linalg.norm's body is traced once per shape: its equations name the line that
    # first called it (norm_at_zero's cell, where a length no other test gives is first
    # traced); the later cell's NaN is made by its own line, and told
    first = _note_at(shell, "norm_at_zero", "jnp.zeros(7)")
    second = _note_at(shell, "norm_in_another_cell", "jnp.zeros(7)")
    assert second[0] > first[0] and second[1] == cases.CASES["norm_in_another_cell"][2]
    theirs = THEIRS["norm_in_another_cell"]       # JAX 0.10.2: a NaN gradient, a finite value
    assert np.isnan(theirs["grad"]).all() and theirs["value"] == 0.0
    assert theirs["debug_nans"] == "invalid value (nan) encountered in mul"


def _note_at(shell, name, given):
    """(the cell, the line of f) the case's note, for f called at `given`, says first made
    the NaN; the cell is the one defining f."""
    ran_ok(shell, cases.CASES[name][0])
    (note,) = ran_ok(shell, f"g = jax.grad(f)({given})").shown(NOTE)
    cell, line = re.search(r"first made at In\[(\d+)\]:(\d+)", note.splitlines()[0]).groups()
    asked = re.search(r"\(at In\[(\d+)\]:1\)", note.splitlines()[0]).group(1)
    assert int(cell) == int(asked) - 1, note
    return int(cell), int(line)
