"""jax.core's public names (JAX 0.10.2's jax/core.py: twelve), the compile-time evaluation ones
among them, which treescope reaches for as `jax.core.ensure_compile_time_eval` when it
summarizes an array (Flax's nnx.display)."""
import importlib.util

import pytest

import jxkernel
from doc_examples import check_docstring_examples
from fresh_process import run_python


def test_docstring_examples():
    check_docstring_examples("jxkernel.core.compile_time_eval")


def test_jax_cores_names_are_jxkernels_own():
    core = jxkernel.core
    assert core.ensure_compile_time_eval is jxkernel.ensure_compile_time_eval
    assert (core.max_dim(3, 5), core.min_dim(3, 5)) == (5, 3)
    with core.eval_context():
        assert bool(jxkernel.numpy.add(1, 1) == 2)


_SUMMARY = """
import jax, treescope
text = treescope.render_to_text({"w": jax.numpy.arange(6.0).reshape(2, 3)})
print(text)
"""


@pytest.mark.skipif(importlib.util.find_spec("treescope") is None, reason="no treescope")
def test_treescope_summarizes_an_array_under_the_alias():
    """treescope's summary of an array (its statistics, computed under
    jax.core.ensure_compile_time_eval): it read "<AttributeError during deferred rendering>"
    for each of a Flax model's parameters in nnx.display while jax.core lacked the name.
    A fresh process: treescope imports jax, which the suite's processes never do."""
    result = run_python(["-c", _SUMMARY], {"JXKERNEL_AS_JAX": "1"})
    assert result.returncode == 0, result.stderr
    assert "AttributeError" not in result.stdout, result.stdout
    assert "float32(2, 3)" in result.stdout and "≈2.5" in result.stdout, result.stdout
