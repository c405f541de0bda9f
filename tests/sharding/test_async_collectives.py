"""The asynchronous collectives' start functions staged in a shard_map body under jit, against
JAX 0.10.2's answers for the same cases (tests/data/async_collectives_cases.py, recorded by
reference/make_async_collectives_reference.py on 8 CPU devices): each start is a `*_start`
equation of type `AbstractFuture{...}` and a `*_done` where `done()` is called, lowered to a
`stablehlo.async_start` around the collective and a `stablehlo.async_done`; the values are the
synchronous collective's. Every value is exact (small integer-valued floats, text)."""
import pytest

from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders
from backend_tier import devices_named_here

pytestmark = pytest.mark.cpu_only("simulated CPU devices")

_REFERENCE = "async_collectives_reference.json"


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers(_REFERENCE)["cases"]
    # compiled as the test processes compile (their loop emitters): the same answers for
    # a third less of the child's CPU
    code = as_the_suite_compiles(cases_code("async_collectives_cases"))
    return run_json(code, {"JXKERNEL_CPU_DEVICES": "8"}), ref


@pytest.mark.parametrize("case", sorted(locations.jax_answers(_REFERENCE)["cases"]))
def test_case_matches_jax(runs, case):
    ours, ref = runs
    # recorded on XLA's CPU: its devices named as this run's backend names them
    assert ours[case] == devices_named_here(ref[case])


def test_outside_a_staged_trace_the_collective_runs_at_the_start():
    """Under vmap (JAX's start primitives have no batching rule: NotImplementedError there)
    jxkernel issues the synchronous collective at the start, as before."""
    import jxkernel as jax
    from jxkernel.lax.parallel.futures import psum_start
    f = jax.vmap(lambda x: psum_start(x, "i").done(), axis_name="i")
    assert f(jax.numpy.arange(3.0)).tolist() == [3.0, 3.0, 3.0]
    g = jax.jit(jax.vmap(lambda x: psum_start(x, "i").done(), axis_name="i"))
    assert g(jax.numpy.arange(3.0)).tolist() == [3.0, 3.0, 3.0]
