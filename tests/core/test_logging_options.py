"""JAX's logging options as JAX 0.10.2 has them (tests/data/logging_options_cases.py,
reference/make_logging_options_reference.py): jax_debug_log_modules, jax_logging_level (and
JAX_LOGGING_LEVEL), and the compile lines on JAX's loggers (jax._src.dispatch,
jax._src.interpreters.pxla, jax._src.interpreters.partial_eval), seen by a handler on
logging.getLogger("jax"); jxkernel's own logger of them, "jxkernel.compile_log", logs them
as before."""
import logging
import sys

import pytest
import locations  # tests/support: the repository's folders

import jxkernel as jax
from logging_options_cases import in_subprocess, run  # tests/data

RECORDED = locations.jax_answers("logging_options_reference.json")
JAX = RECORDED["cases"]

OURS = {}


@pytest.mark.parametrize("case", sorted(JAX))
def test_compile_lines_reach_jaxs_loggers(case):
    if not OURS:
        OURS.update(run(jax))
    assert OURS[case] == JAX[case]


def test_environment_level_writes_each_line_once_and_none_silences():
    ours = in_subprocess(sys.executable, "import jxkernel; jxkernel.install_as_jax(); import jax")
    assert ours == RECORDED["subprocess"]


def test_jxkernel_compile_log_still_logs_once(caplog):
    """The lines stay on "jxkernel.compile_log" (the notebook's), once each, with a handler on
    "jax" set by jax_logging_level too."""
    level = jax.config.jax_logging_level
    jax.config.update("jax_logging_level", "DEBUG")
    try:
        with caplog.at_level(logging.DEBUG, logger="jxkernel.compile_log"):
            jax.jit(lambda x: x * 7)(jax.numpy.ones(2))
    finally:
        jax.config.update("jax_logging_level", None)
        jax.config.update("jax_logging_level", level)
        logging.getLogger("jax").setLevel(logging.NOTSET)
        logging.getLogger("jaxlib").setLevel(logging.NOTSET)
    names = [r.name for r in caplog.records if "Finished tracing" in r.getMessage()]
    assert names == ["jxkernel.compile_log"]
