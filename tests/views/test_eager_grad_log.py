"""`jax_log_compiles` for eager programs under grad, against JAX 0.10.2's lines for the same
programs (tests/data/eager_grad_log_cases.py, recorded by
reference/make_eager_grad_log_reference.py). The differences that remain are those
docs/seeing_inside.md lists ("Eager operations under grad"); each is checked here, so a
change on either side shows."""
from collections import Counter

import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.xla.dispatch import JAX_JITTED_UFUNCS

from eager_grad_log_cases import PROGRAMS, steps
from logged import logged_messages      # tests/support
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("eager_grad_log_reference.json")["programs"]
# jnp functions JAX runs as a jit of their own besides the ufuncs: their known half under grad
# is what JAX compiles (recorded)
JAX_JITTED = JAX_JITTED_UFUNCS | {"_reduce_sum", "_mean", "dot"}


def ours(name) -> list:
    x = jnp.ones(3)
    x.block_until_ready()
    jxkernel.clear_caches()
    with logged_messages() as lines, jxkernel.config.override("jax_log_compiles", True):
        PROGRAMS[name](jxkernel, jnp, x)
    return steps(lines)


def _compiled(found, traced=None) -> Counter:
    """The programs compiled, by name; `traced`: only those with (True) or without (False)
    a "Finished tracing" line just before."""
    found = [tuple(step) for step in found]     # (the recording's are lists)
    out = Counter()
    for i, (kind, name) in enumerate(found):
        was = i > 0 and found[i - 1] == ("traced", name)
        if kind == "compiled" and (traced is None or was == traced):
            out[name] += 1
    return out


def test_every_program_recorded():
    assert sorted(REFERENCE) == sorted(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_primitives_jax_traces_under_grad_are_compiled_here_too(name):
    """Each program JAX traces and compiles on its own under grad (the cotangent's
    broadcast_in_dim, the transposes' mul, dot_general, the cotangents' add) is compiled here,
    with JAX's "Finished tracing" line; but JAX's convert_element_type of a Python number
    (x ** 2's jvp converts the exponent), which jxkernel folds into its program."""
    theirs = _compiled(REFERENCE[name], traced=True)
    theirs.pop("convert_element_type", None)
    mine = _compiled(ours(name), traced=True)
    assert not theirs - mine, (theirs, mine)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_jitted_jnp_function_under_grad_is_compiled_by_its_primitives_here(name):
    """JAX runs jnp.sum, jnp.mean, jnp.dot and the ufuncs (jnp.sin, x * 2.0) as jits of their
    own; under grad it compiles each one's known half (its primal and residuals: sin with
    cos) as "jit(_reduce_sum)", "jit(sin)", with no "Finished tracing" line (the jit was
    traced inside the jvp). jxkernel runs their primitives one by one there, each its own
    program named by its primitive, with its "Finished tracing" line ("reduce_sum", "mul",
    "cos"): the difference docs/seeing_inside.md states."""
    untraced = _compiled(REFERENCE[name], traced=False)
    assert untraced and set(untraced) <= JAX_JITTED, untraced
    found = ours(name)
    assert not _compiled(found, traced=False), found       # each with its tracing line
    assert not set(_compiled(found)) & {"_reduce_sum", "_mean", "dot"}, found
