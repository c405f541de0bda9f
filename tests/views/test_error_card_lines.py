"""Which line an error card calls the learner's ("at"), and which the call under it ("called
from"), where the error is raised for a staged operation rather than at its line: JAX 0.10.2
gives such an error a JaxStackTraceBeforeTransformation cause whose traceback is the
operation's line (tests/data/learner_debugging_reference.json, "check under jit without
checkify": the check's line), and the card names that line, the call that compiled below it."""
import linecache

from jxkernel.views.error_cards import card_for

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.experimental import checkify
import locations  # tests/support: the repository's folders

JAX = locations.jax_answers("learner_debugging_reference.json")["checkify_causes"]

# the learner's cell: checkify_guide.md's f, its check not functionalized, jitted and called
CELL = ("def f(x, i):\n"
        "    checkify.check(i >= 0, \"index needs to be non-negative!\")\n"
        "    return x[i]\n"
        "y = jax.jit(f)(jnp.ones((5,)), -1)\n")


def _card(tmp_path):
    path = str(tmp_path / "cell.py")       # a file of the learner's (not jxkernel's)
    with open(path, "w") as f:
        f.write(CELL)
    linecache.checkcache(path)
    try:
        exec(compile(CELL, path, "exec"), {"jax": jxkernel, "jnp": jnp, "checkify": checkify})
    except ValueError as e:
        return e, card_for(e)
    raise AssertionError("the unwrapped check did not raise")


def test_a_check_staged_without_checkify_names_the_checks_line_then_the_call(tmp_path):
    error, card = _card(tmp_path)
    kind, first_line, jax_line = JAX["check under jit without checkify"]
    assert (type(error).__name__, str(error).splitlines()[0]) == (kind, first_line)
    assert card.kind == "checkify-unwrapped"
    # "your line": the check, as JAX's cause names it (it was the call that compiled)
    assert (card.where["line"], card.where["function"]) == (2, "f")
    assert card.where["code"] == jax_line
    assert (card.called_from["line"], card.called_from["code"]) == \
        (4, "y = jax.jit(f)(jnp.ones((5,)), -1)")
    # the rewrite is still of the call: checkify.checkify around the jitted function
    assert card.rewrite.splitlines()[0].startswith(
        "err, y = checkify.checkify(jax.jit(f))(jnp.ones((5,)), -1)"), card.rewrite
