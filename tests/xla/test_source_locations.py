"""Where a lowered program's ops came from, against JAX 0.10.2's recorded answers
(tests/data/source_locations_cases.py, recorded by reference/make_source_locations_reference.py):
`Lowered.compiler_ir()` locates each op as JAX's does (its name stack around its call sites,
innermost first: its line and callers up to its jit's function, then, in main, the lines
that called `.lower()`; an inner jit's function its own frames only; a region's constants
and returns at its op; main's at the function), `_all_eqns_with_traceback` follows each
nested equation's frames by its holder's (pprof_equation_profile's samples, jaxpr_to_html's
data), an inlined jit's equations record the line that called it, and `core.call` stages a
`call[call_jaxpr=...]` equation lowered as a private function, as JAX's."""
import functools

import locations  # tests/support: the repository's folders
import pytest
import source_locations_cases as cases

import jxkernel

pytestmark = pytest.mark.xla_only("XLA text")


def _reference() -> dict:
    return locations.recorded("source_locations_reference.json")


@functools.cache
def _ours() -> dict:
    return cases.run(jxkernel)


@pytest.mark.parametrize("program", ["nested_jit", "while_loop", "cond", "function_body",
                                     "helper_calls"])
def test_op_locations_match_jax(program):
    # names, lines and columns: exactness is the contract
    assert _ours()["ops"][program] == _reference()["ops"][program]


def test_location_kinds_match_jax():
    assert _ours()["shapes"] == _reference()["shapes"]


def test_short_locations_match_jax():
    # jax_include_full_tracebacks_in_locations=False: each op at its innermost frame's line
    assert _ours()["short_locations"] == _reference()["short_locations"]


def test_tracebacks_and_user_frames_match_jax():
    assert _ours()["tracebacks"] == _reference()["tracebacks"]
    assert _ours()["user_frames"] == _reference()["user_frames"]


def test_equation_profile_and_page_match_jax():
    assert _ours()["profile_and_page"] == _reference()["profile_and_page"]


def test_core_call_is_jaxs_call_equation():
    # printed jaxprs, name stacks and HLO op names: exact
    assert _ours()["core_call"] == _reference()["core_call"]
