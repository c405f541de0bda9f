"""Source locations print as JAX's (`file:line:column (qualified name)`, the column left out
when 0), and control-flow outputs and tangents keep JAX's weak types: the programs of
tests/data/source_columns_and_weak_types_cases.py against what JAX 0.10.2 gave
(tests/data/source_columns_and_weak_types_reference.json, recorded by
reference/make_source_columns_and_weak_types_reference.py)."""
import functools
import json

import numpy as np
import pytest
import source_columns_and_weak_types_cases as cases

import jxkernel as jax
import jxkernel.ad_checkpoint  # noqa: F401  (as the reference script imports it)
import jxkernel.numpy as jnp
from jxkernel.core.source_info import SourceInfo
import locations  # tests/support: the repository's folders


@functools.cache
def reference():
    return locations.jax_answers("source_columns_and_weak_types_reference.json")


@pytest.mark.parametrize("program", [p.__name__ for p in cases.PROGRAMS])
def test_program_matches_jax(program):
    got = json.loads(json.dumps(getattr(cases, program)(jax)))
    want = reference()[program]
    for name in want:           # one assertion per case, so a failure names it
        assert got[name] == want[name], name


def test_column_is_the_expression_start_and_is_computed_from_the_frame():
    def f(x):
        return jnp.sin(x) + jnp.cos(x)      # two calls on one line: two columns
    closed = jax.make_jaxpr(f)(1.0)
    line = f.__code__.co_firstlineno + 1
    with open(__file__) as source:
        text = source.read().splitlines()[line - 1]
    sin, cos, add = (e.source_info for e in closed.eqns)
    assert (sin.line, cos.line, add.line) == (line, line, line)
    assert sin.column == text.index("jnp.sin") and cos.column == text.index("jnp.cos")
    assert add.column == sin.column              # `a + b` starts where its left operand does
    assert sin.function == "f"                   # the plain name stays for the notebook's labels
    qualname = f"{test_column_is_the_expression_start_and_is_computed_from_the_frame.__name__}" \
               ".<locals>.f"
    assert str(cos) == f"{__file__}:{line}:{cos.column} ({qualname})"
    assert str(SourceInfo("m.py", 3, "g")) == "m.py:3 (g)"      # no frame: no column
    assert SourceInfo("m.py", 3, "g").column is None


def test_cond_takes_its_first_branch_weak_types_and_values_are_right():
    f32 = jnp.float32(3.0)
    pick = jax.jit(lambda p, x: jax.lax.cond(p, lambda x: x * 2.0, lambda x: f32 * x, x))
    got = [pick(True, 1.0), pick(False, 1.0)]
    assert [(float(v), v.weak_type, v.dtype) for v in got] == \
        [(2.0, False, np.float32), (3.0, False, np.float32)]
    assert float(jax.grad(lambda x: pick(False, x))(1.0)) == 3.0


def test_the_same_function_in_two_cells_names_its_own_cell():
    """Code objects compare equal when only their files differ: the function typed again into
    another cell traced with the first cell's file on every equation, so %explain of it in a
    second notebook (the same demo in another kernel of one process) counted nothing per line."""
    source = "def layer(x, w):\n    h = x @ w\n    return jnp.tanh(h)\n"
    files = ("<ipython-input-3-aa11>", "<ipython-input-7-bb22>")
    layers = []
    for file in files:
        namespace = {"jnp": jnp}
        exec(compile(source, file, "exec"), namespace)
        layers.append(namespace["layer"])
    assert layers[0].__code__ == layers[1].__code__           # what made the caches mix them
    x = np.ones((2, 2), np.float32)
    for file, layer in zip(files, layers):
        eqns = jax.make_jaxpr(layer)(x, x).jaxpr.eqns
        assert [(e.source_info.file, e.source_info.line) for e in eqns] == \
            [(file, 2), (file, 3)]
