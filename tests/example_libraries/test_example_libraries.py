"""jxkernel.example_libraries (stax, optimizers) against JAX 0.10.2: the programs of
tests/data/example_libraries_cases.py, written as JAX's examples use these libraries, give
JAX's recorded results (tests/data/example_libraries_reference.npz, made by
reference/make_example_libraries_reference.py): the same tree structures, shapes, dtypes and
Python types exactly, floats within the ulps the case file states per program."""
import functools
import os

import example_libraries_cases as cases
import numpy as np
import pytest
from doc_examples import check_docstring_examples
from numerics import assert_allclose_ulp

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.example_libraries import optimizers, stax
import locations  # tests/support: the repository's folders

REF = np.load(os.path.join(locations.DATA, "example_libraries_reference.npz"))
NAMES = [program.__name__ for program in cases.PROGRAMS]


@functools.cache
def run(name):
    return getattr(cases, name)(jax, jnp, stax, optimizers)


def leaf_kind(leaf):
    if isinstance(leaf, (bool, int, float, complex, str)):
        return type(leaf).__name__
    return np.dtype(leaf.dtype).name + (" weak" if getattr(leaf, "weak_type", False) else "")


@pytest.mark.parametrize("name", NAMES)
def test_program_matches_jax(name):
    with_paths, tree = jax.tree_util.tree_flatten_with_path(run(name))
    assert str(tree) == str(REF[f"{name}:tree"])
    tolerance = cases.TOLERANCES[name]
    for j, (path, leaf) in enumerate(with_paths):
        path = jax.tree_util.keystr(path)
        expected, where = REF[f"{name}/{j}"], f"{name} leaf {j} {path}"
        assert leaf_kind(leaf) == str(REF[f"{name}/{j}:kind"]), where
        actual = np.asarray(leaf)
        if expected.dtype.kind == "f" and tolerance:
            scale = np.abs(expected).max(initial=0) if tolerance["scale"] == "max" else None
            scale = tolerance.get("leaf_scales", {}).get(path, scale)
            assert_allclose_ulp(actual, expected, tolerance["ulps"], scale=scale, err_msg=where)
        else:
            np.testing.assert_array_equal(actual, expected, err_msg=where, strict=True)


def test_docstring_examples():
    check_docstring_examples("jxkernel.example_libraries.stax")
    check_docstring_examples("jxkernel.example_libraries.optimizers")


def test_bad_input_raises_jax_classes_with_clear_messages():
    with pytest.raises(ValueError, match="rng=key"):
        stax.Dropout(0.5)[1]((), jnp.ones(2))
    opt_init, opt_update, _ = optimizers.sgd(0.1)
    state = opt_init({"w": jnp.ones(2)})
    with pytest.raises(TypeError, match=r"gradient tree PyTreeDef\(\[\*\]\) does not match"):
        opt_update(0, [jnp.ones(2)], state)
    bad_update = optimizers.optimizer(lambda: ((lambda x: (x, x)), (lambda i, g, s: s[0]),
                                               (lambda s: s[0])))()
    with pytest.raises(TypeError, match="keep its state's structure"):
        bad_update[1](0, jnp.ones(2), bad_update[0](jnp.ones(2)))
    with pytest.raises(TypeError, match=r"a step size must be .* got ndarray of shape \(2,\)"):
        optimizers.sgd(np.ones(2))
    with pytest.raises(ValueError, match="1-d sequences"):
        optimizers.piecewise_constant(1, [1.0, 2.0])
    with pytest.raises(ValueError, match="one entry fewer"):
        optimizers.piecewise_constant([1, 2], [1.0, 2.0])
    with pytest.raises(AssertionError, match="every leaf must be a JoinPoint"):
        optimizers.pack_optimizer_state({"w": 1.0})


def test_optimizer_triples_and_join_points():
    opt = optimizers.adam(0.1)
    assert isinstance(opt, optimizers.Optimizer) and opt.init_fn is opt[0]
    assert optimizers.adam.__name__ == "adam"
    assert [f.__qualname__ for f in optimizers.sgd(0.1)] == [
        "sgd.<locals>.init", "sgd.<locals>.update", "sgd.<locals>.get_params"]   # JAX's names
    state = opt.init_fn((jnp.zeros(2), {"b": jnp.ones(())}))
    assert isinstance(state, optimizers.OptimizerState)
    assert len(jax.tree.leaves(state)) == 6        # x, m and v for each of the two leaves
    unpacked = optimizers.unpack_optimizer_state(state)
    assert isinstance(unpacked[1]["b"], optimizers.JoinPoint)
    assert list(unpacked[1]["b"]) == [unpacked[1]["b"].subtree]
    assert optimizers.pack_optimizer_state(unpacked) == state
    assert stax.glorot is stax.glorot_normal and stax.randn is stax.normal
    assert stax.logsoftmax is jax.nn.log_softmax
