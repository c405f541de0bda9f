"""jax_explain_cache_misses's persistent-cache lines, against JAX 0.10.2's for the same
programs (tests/data/persistent_cache_cases.py, recorded by
reference/make_persistent_cache_reference.py): which lines, in which order among the
tracing misses ("PERSISTENT COMPILATION CACHE MISS" after the miss of the trace that made the
program, as JAX logs it while tracing, before it lowers and compiles), and none where JAX
logs none (explain off, or no cache folder set); a quick compile left unwritten under the
minimum compile time's default, which is JAX's."""
import logging
import re

import pytest

import jxkernel

from fresh_process import run_code
from persistent_cache_cases import CASES, DEFAULT_MIN_TIME, FOLDERLESS, run
from logged import logged_messages      # tests/support
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("persistent_cache_reference.json")
RECORDED = REFERENCE["cases"]
LOGGERS = ("jxkernel.compile_log", "jxkernel.compilation_cache")


def normalized(message: str) -> str:
    """As the recording script's: the first line, the key's hash and a time left out."""
    first = message.splitlines()[0]
    first = re.sub(r"-[0-9a-f]{64}'", "-<hash>'", first)
    return re.sub(r"\(\d+\.\d+s\)", "(<s>)", first)


# a case whose lines name the persistent cache needs XLA's compilation cache on disk (the
# NumPy backend compiles nothing); those with none (explain off, no folder) run there too
@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xla_only("XLA compiler"))
    if any("persistent" in line.lower() for line in RECORDED[n]) else n
    for n in sorted(CASES)])
def test_the_lines_are_jaxs(name, tmp_path, monkeypatch):
    # the default folder (no folder set) under tmp_path, never the user's ~/.cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = None if name in FOLDERLESS else str(tmp_path / "cache")
    jxkernel.clear_caches()              # (a program of the same text kept in memory: no lines)
    explain = jxkernel.config.jax_explain_cache_misses
    # (the suite's conftest sets the minimum to inf: a case at the default sets it back)
    minimum = REFERENCE["min_compile_time_default"] if name in DEFAULT_MIN_TIME else 0.0
    with jxkernel.config.override("jax_compilation_cache_dir", folder), \
            jxkernel.config.override("jax_persistent_cache_min_compile_time_secs", minimum):
        # set as the recording sets it (config.update: a case may update it again)
        jxkernel.config.update("jax_explain_cache_misses", True)
        try:
            with logged_messages(*LOGGERS, level=logging.WARNING) as lines:
                run(jxkernel, name)
        finally:
            jxkernel.config.update("jax_explain_cache_misses", explain)
    assert [normalized(line) for line in lines] == RECORDED[name]


def test_the_minimum_compile_time_defaults_to_jaxs():
    # in a process of its own (the suite's conftest changes the option); "" is unset
    out = run_code("import jxkernel; print(repr(jxkernel.config."
                   "jax_persistent_cache_min_compile_time_secs))",
                   env={"JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": ""})
    assert out.stdout.strip().splitlines()[-1] == repr(REFERENCE["min_compile_time_default"])
