"""Every docstring example in jxkernel/random/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_docstring_examples, check_package_examples  # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers),
# or alone (keys: below).
RUN_ELSEWHERE = frozenset({
    "jxkernel.random.keys",
    "jxkernel.random.rbg",
    "jxkernel.random.sparse_bcoo",
    "jxkernel.random.stateful_rng",
})


def test_every_docstring_example_in_random_runs():
    check_package_examples("jxkernel.random", RUN_ELSEWHERE, {"jxkernel": jxkernel})


def test_the_key_examples_run_alone():
    # with the module's own names only, as `pytest --doctest-modules jxkernel/random/keys.py`
    # runs them: each example imports the `jax` it uses (they leaned on the tests' globals)
    check_docstring_examples("jxkernel.random.keys", standalone=True)
