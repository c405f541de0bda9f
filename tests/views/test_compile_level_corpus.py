"""The compile log against JAX 0.10.2 where the trace is the same and the program is not (or
is): committed and uncommitted arrays, other devices, shardings, donation, in/out_shardings,
device=/backend=, `.lower().compile()` then a call, set_mesh, x64, default_device.

tests/data/compile_level_cases.py holds the scenarios; tests/data/compile_level_reference.json
what JAX logged for each on 8 CPU devices (reference/make_compile_level_reference.py). They run
here in one fresh process of 8 CPU devices (the suite's have one). For each scenario:

* the tracing-cache misses (compile events that are misses, and the TRACING CACHE MISS
  messages of jax_explain_cache_misses) are as many as JAX's;
* the programs compiled are as many as JAX's XLA compiles ("Finished XLA compilation"), and
  the "Compiling jit(f)" lines (jax_log_compiles) as many as JAX's lowerings (a lowering JAX
  reuses for another device logs no "Compiling" line);
* a compile that is no tracing miss names what JAX's log implies: an argument committed on one
  side only where JAX's "Argument mapping" differs in it (UnspecifiedValue on one side), the
  device where only the device differs;
* the note's code for a committed/uncommitted pair, pasted before the lines it names, is the
  `_pasted` scenario's source, which JAX compiles once.
"""
import functools
import json
import re

import pytest

from compile_level_cases import SCENARIOS, pasted      # tests/data
from fresh_process import as_the_suite_compiles, run_json   # tests/support
import backend_tier  # tests/support
import locations  # tests/support

REFERENCE = locations.jax_answers("compile_level_reference.json")

_CHILD = r"""
import json, linecache, logging
import jxkernel
from jxkernel import compile_log, config
from compile_level_cases import FILE_PREFIX, SCENARIOS, run
from logged import logged_messages
config.update("jax_explain_cache_misses", True)
config.update("jax_log_compiles", True)
out = {}
for name, (_, source) in SCENARIOS.items():
    if name in SKIPPED:
        continue
    file = f"{FILE_PREFIX}{name}>"
    linecache.cache[file] = (len(source), None, source.splitlines(True), file)
    start = compile_log.last_seq() + 1
    with logged_messages(level=logging.WARNING) as messages:
        run(jxkernel, name)
    events = [e for e in compile_log.events_since(start) if e.source and e.source.startswith(file)]
    out[name] = dict(
        misses=sum(bool(e.miss) for e in events), compiles=sum(e.compiled for e in events),
        compiling=sum(m.startswith("Compiling jit(") for m in messages),
        logged_misses=sum(m.startswith("TRACING CACHE MISS") and file in m for m in messages),
        placed=[[dict(kind=c.kind, path=c.path, old=c.old, new=c.new, fix=c.fix,
                      snippet=c.snippet) for c in e.changes]
                for e in events if e.compiled and not e.miss])
print(json.dumps(dict(devices=jxkernel.device_count(), scenarios=out)))
"""


# The scenarios that ask for XLA's CPU backend by name (jit(backend='cpu')): refused on the NumPy
# backend, whose platform is 'numpy'; the child runs the others there.
_NAMES_THE_CPU = {"backend_argument"}


def _scenarios():
    """Each scenario, marked xla_only where it names the CPU backend."""
    return [pytest.param(name, marks=pytest.mark.xla_only("CPU platform"))
            if name in _NAMES_THE_CPU else name for name in sorted(SCENARIOS)]


@functools.cache
def runs() -> dict:
    """What jxkernel logged for each scenario, in one process of 8 CPU devices."""
    skipped = _NAMES_THE_CPU if backend_tier.on_numpy_backend() else set()
    child = f"SKIPPED = {sorted(skipped)!r}\n" + _CHILD
    mine = run_json(as_the_suite_compiles(child), {"JXKERNEL_CPU_DEVICES": "8"}, timeout=300)
    assert mine["devices"] == REFERENCE["devices"] == 8
    return mine["scenarios"]


def test_the_corpus_is_recorded():
    assert set(REFERENCE["scenarios"]) == set(SCENARIOS)


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.parametrize("name", _scenarios())
def test_traces_and_compiles_as_many_as_jax(name):
    mine, jax = runs()[name], REFERENCE["scenarios"][name]
    assert mine["misses"] == mine["logged_misses"] == len(jax["misses"]), (mine, jax["messages"])
    assert mine["compiles"] == jax["xla_compiles"], (mine, jax["mappings"])
    assert mine["compiling"] == jax["lowerings"], (mine, jax["mappings"])


def _committed(mapping: str) -> list:
    """Per argument of JAX's "Argument mapping", whether it is committed (not
    UnspecifiedValue)."""
    return [not part.strip().startswith("UnspecifiedValue")
            for part in re.split(r",\s*(?=[A-Z]\w*[(,)]|UnspecifiedValue)", mapping.strip("()"))
            if part.strip()]


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.parametrize("name", _scenarios())
def test_a_compile_of_the_same_trace_names_what_jax_maps_otherwise(name):
    """Each compile that is no tracing miss says why, in what JAX's log differs in: which
    argument is committed (its "Argument mapping": UnspecifiedValue on one side only), or the
    device alone (no "Compiling" line in JAX: its lowering reused)."""
    mine, jax = runs()[name], REFERENCE["scenarios"][name]
    flips = len({tuple(_committed(m)) for m in jax["mappings"]}) > 1
    for changes in mine["placed"]:
        kinds = {c["kind"] for c in changes}
        assert changes and kinds <= {"committed", "config"}, changes
        assert all(c["path"] == "device" for c in changes if c["kind"] == "config"), changes
        if "committed" in kinds:
            assert flips, (changes, jax["mappings"])
            for c in changes:
                if c["kind"] == "committed":
                    assert "uncommitted" in (c["old"], c["new"]) and \
                        "UnspecifiedValue" in c["fix"] and "SingleDeviceSharding" in c["fix"]


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.parametrize("name", ["committed_named_calls", "uncommitted_named_calls"])
def test_the_committed_notes_code_pasted_compiles_once_as_in_jax(name):
    (changes,) = runs()[name]["placed"]
    (change,) = changes
    assert change["kind"] == "committed" and "pattern" not in change["fix"], change
    assert pasted(SCENARIOS[name][1], change["snippet"]) == SCENARIOS[f"{name}_pasted"][1], \
        change["snippet"]
    assert REFERENCE["scenarios"][name]["xla_compiles"] == 2
    assert REFERENCE["scenarios"][f"{name}_pasted"]["xla_compiles"] == 1
    assert runs()[f"{name}_pasted"]["compiles"] == 1
