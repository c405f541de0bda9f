"""The names eager operations' programs have in jax_explain_cache_misses's persistent-cache
lines ("PERSISTENT COMPILATION CACHE MISS for 'jit_sin'"), against JAX 0.10.2's for the same
operations (tests/data/eager_program_names_cases.py, recorded by
reference/make_eager_program_names_reference.py)."""
import json
import logging
import re
from pathlib import Path

import pytest

import jxkernel

from eager_program_names_cases import CASES, inputs, run

RECORDED = json.loads((Path(__file__).parents[1] / "data" /
                       "eager_program_names_reference.json").read_text())["cases"]
MISS = re.compile(r"PERSISTENT COMPILATION CACHE MISS for '([^']*)'")

# JAX's jnp functions are jits of Python functions, named after them (jnp.multiply's program
# is jit_multiply); jxkernel's elementwise jnp functions apply the primitive itself, its
# eager program named after the primitive, as JAX names lax.mul's (jxkernel/numpy binds it
# and xla/dispatch.py names the program); and JAX's jnp.ones/zeros compile a convert and a
# broadcast where jxkernel's make the array on the host and compile nothing
DIFFERENT = {
    "multiply": "jnp.multiply applies mul: jit_mul",
    "negative": "jnp.negative applies neg: jit_neg",
    "maximum": "jnp.maximum applies max: jit_max",
    "ones_plus_one": "jnp.ones(3) compiles nothing: jit_add alone",
    "zeros": "jnp.zeros compiles nothing",
}


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.names = []

    def emit(self, record):
        found = MISS.match(record.getMessage())
        if found:
            self.names.append(found.group(1))


@pytest.mark.xla_only("XLA compiler")  # the lines of XLA's compilation cache on disk
@pytest.mark.parametrize("name", [
    pytest.param(k, marks=pytest.mark.xfail(reason=DIFFERENT[k], strict=True))
    if k in DIFFERENT else k for k in sorted(CASES)])
def test_eager_programs_are_named_as_jax_names_them(name, tmp_path):
    args = inputs(jxkernel)
    collect = Collect()
    logger = logging.getLogger("jxkernel.compilation_cache")
    # a folder of its own (every program missed there) and no program kept in memory
    with jxkernel.config.override("jax_compilation_cache_dir", str(tmp_path)), \
            jxkernel.config.override("jax_persistent_cache_min_compile_time_secs", 0.0), \
            jxkernel.config.override("jax_explain_cache_misses", True):
        jxkernel.clear_caches()
        logger.addHandler(collect)
        try:
            run(jxkernel, name, args)
        finally:
            logger.removeHandler(collect)
    assert collect.names == RECORDED[name]


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(CASES)
