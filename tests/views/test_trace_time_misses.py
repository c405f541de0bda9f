"""jax_explain_cache_misses's lines, step by step, where JAX 0.10.2 logs a miss at a line that
compiles nothing (eval_shape, `jit(f).trace(...)`, `.lower(...)`) or after jax.clear_caches():
tests/data/trace_time_misses_cases.py, JAX's messages recorded per step by
reference/make_trace_time_misses_reference.py (tests/data/trace_time_misses_reference.json).
Each message is JAX's whole (the cases' file named "<cases>"), and what follows it is
jxkernel's own: indented lines under JAX's (a difference's `fix:` and its code)."""
import json
import logging
import re
from pathlib import Path

import pytest

import jxkernel

import trace_time_misses_cases as cases   # tests/data, on pytest's pythonpath

RECORDED = json.loads((Path(__file__).parents[1] / "data" /
                       "trace_time_misses_reference.json").read_text())["cases"]
ID = re.compile(r" id=(\d+)")


class Steps(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.steps = []

    def emit(self, record):
        text = record.getMessage()
        if text and self.steps:
            self.steps[-1][1].append(text.replace(cases.__file__, "<cases>"))


_LOGGED: dict = {}


def logged(name):
    """[[step label, [message, ...]], ...] of case `name` run under jxkernel, once per process
    (run again, its call sites would have traced a function already: JAX's "re-defined" hint)."""
    if name not in _LOGGED:
        _LOGGED[name] = _run(name)
    return _LOGGED[name]


def _run(name):
    handler, logger = Steps(), logging.getLogger("jxkernel.compile_log")
    logger.addHandler(handler)
    try:
        with jxkernel.config.override("jax_explain_cache_misses", True):
            cases.run(jxkernel, name, lambda label: handler.steps.append([label, []]))
    finally:
        logger.removeHandler(handler)
    return handler.steps


def as_jax(ours: str, theirs: str) -> bool:
    """Whether `ours` is JAX's message `theirs` and then jxkernel's indented lines only (the
    function's id, which changes from run to run, written " id=<id>" on both)."""
    ours = ID.sub(" id=<id>", ours)
    more = ours[len(theirs):]
    return ours.startswith(theirs) and (not more or more.startswith("\n") and all(
        line.startswith("    ") for line in more[1:].split("\n")))


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_each_step_logs_what_jax_logs(name):
    ours, theirs = logged(name), RECORDED[name]["steps"]
    assert [label for label, _ in ours] == [label for label, _ in theirs]
    for (label, mine), (_, jax_says) in zip(ours, theirs):
        assert len(mine) == len(jax_says) and all(map(as_jax, mine, jax_says)), \
            (label, mine, jax_says)


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(cases.CASES)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_the_ids_name_one_function_where_jaxs_do(name):
    """JAX writes the id of the function object after "never seen function" (" id=140..."):
    a function whose caches were cleared is named by the same id again, as in JAX."""
    ids = [found for _, messages in logged(name) for text in messages
           for found in ID.findall(text)]
    assert [i for i, found in enumerate(ids) if found == ids[0]] == RECORDED[name]["same_ids"]

