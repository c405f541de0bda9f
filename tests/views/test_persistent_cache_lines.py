"""jax_explain_cache_misses's persistent-cache lines, against JAX 0.10.2's for the same
programs (tests/data/persistent_cache_cases.py, recorded by
reference/make_persistent_cache_reference.py): which lines, in which order among the
tracing misses ("PERSISTENT COMPILATION CACHE MISS" after the miss of the trace that made the
program, as JAX logs it while tracing, before it lowers and compiles), and none where JAX
logs none (explain off, or no cache folder set)."""
import json
import logging
import re
from pathlib import Path

import pytest

import jxkernel

from persistent_cache_cases import CASES, FOLDERLESS, run

RECORDED = json.loads((Path(__file__).parents[1] / "data" /
                       "persistent_cache_reference.json").read_text())["cases"]
LOGGERS = ("jxkernel.compile_log", "jxkernel.compilation_cache")


def normalized(message: str) -> str:
    """As the recording script's: the first line, the key's hash and a time left out."""
    first = message.splitlines()[0]
    first = re.sub(r"-[0-9a-f]{64}'", "-<hash>'", first)
    return re.sub(r"\(\d+\.\d+s\)", "(<s>)", first)


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(normalized(record.getMessage()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_lines_are_jaxs(name, tmp_path, monkeypatch):
    # the default folder (no folder set) under tmp_path, never the user's ~/.cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = None if name in FOLDERLESS else str(tmp_path / "cache")
    collect = Collect()
    jxkernel.clear_caches()              # (a program of the same text kept in memory: no lines)
    explain = jxkernel.config.jax_explain_cache_misses
    with jxkernel.config.override("jax_compilation_cache_dir", folder), \
            jxkernel.config.override("jax_persistent_cache_min_compile_time_secs", 0.0):
        # set as the recording sets it (config.update: a case may update it again)
        jxkernel.config.update("jax_explain_cache_misses", True)
        for logger in LOGGERS:
            logging.getLogger(logger).addHandler(collect)
        try:
            run(jxkernel, name)
        finally:
            for logger in LOGGERS:
                logging.getLogger(logger).removeHandler(collect)
            jxkernel.config.update("jax_explain_cache_misses", explain)
    assert collect.lines == RECORDED[name]
