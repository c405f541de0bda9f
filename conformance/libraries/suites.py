"""The four libraries whose own test suites conformance/README.md counts, and how each runs.

Versions and the files to run come from the README's sections and tables (readme.py); this
module says the rest: where a library's tests come from, the folder its README file names are
relative to, the `-k` parts a file runs in, and the test dependencies.

    >>> LIBRARIES["optax"].parts["optax/_src/alias_test.py"][0]
    'AliasTest and test_optimization'
"""
import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Library:
    name: str                 # pip's name, and the name on the command line
    heading: str              # the word naming it in the README's section heading ("Optax")
    tests_under: str          # folder of the source tree the README's file names start from
    test_pattern: str         # glob (under tests_under) of every test file, for --every-file
    # where the tests come from: "sdist" (PyPI's source archive holds them) or a git tag
    # "v{version}" of a bare mirror (Equinox's sdist has no tests/)
    source: str = "sdist"
    # a file run in parts: -k expressions that split it, each with its own timeout (the
    # README's parts: they keep each inside a box on a loaded machine)
    parts: dict = field(default_factory=dict)
    # failing tests that assert on wall-clock time: the load breaks them on either side
    timing_tests: tuple = ()


LIBRARIES = {
    "chex": Library("chex", "Chex", "", "chex/**/*_test.py"),
    "optax": Library("optax", "Optax", "", "optax/**/*_test.py", parts={
        "optax/_src/alias_test.py": [
            "AliasTest and test_optimization",
            "AliasTest and test_state_shape_dtype_shard_stability",
            "AliasTest and not test_optimization and not test_state_shape_dtype_shard_stability",
            "not AliasTest",                        # LBFGSTest
        ]}),
    "equinox": Library("equinox", "Equinox", "tests", "test_*.py", source="git", parts={
        "test_while_loop.py": [
            "not test_backward_checkpointed and not test_speed",
            "test_backward_checkpointed",
            "test_speed and not test_backward_checkpointed",   # the 7 timing tests
        ]}, timing_tests=("test_speed_",)),
    "flax": Library("flax", "Flax", "tests", "**/*_test.py"),
}

# Installed beside the libraries on both sides: pytest and what the tables' test files import
# (Optax's: scikit-learn, scipy, dm-tree; Chex's: cloudpickle, dm-tree; Equinox's: beartype
# through its pytest options, jaxtyping; Flax's: cloudpickle, orbax and tensorstore come
# with Flax). The libraries' own dependencies come with them, real JAX's only on JAX's side.
TEST_DEPENDENCIES = ["pytest", "absl-py", "scikit-learn", "scipy", "dm-tree", "cloudpickle",
                     "beartype", "jaxtyping"]

# Equinox's tests are on GitHub only (its sdist has none): a local git clone or bare mirror of
# the repository named by LIBS_EQUINOX_GIT, else GitHub's tag archive
EQUINOX_GIT = os.environ.get("LIBS_EQUINOX_GIT", "")
EQUINOX_ARCHIVE = "https://codeload.github.com/patrick-kidger/equinox/tar.gz/refs/tags/v{version}"
