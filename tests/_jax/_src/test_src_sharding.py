"""What JAX's tests/array_test.py and pjit_test.py read of `jax._src.op_shardings` and
`jax._src.sharding`, against JAX 0.10.2's answers for the same cases
(tests/data/sharding_src_cases.py, recorded by reference/make_sharding_src_reference.py on 8
CPU devices): how an HloSharding splits each dimension and into how many copies, whether it is
replicated, which two lay an array out alike, each device's index, and
`common_devices_indices_map`'s cache (one entry per sharding and shape, the same dict again,
emptied by jax.clear_caches()), and `sharding_impls.UNSPECIFIED` in jit's in_shardings and
out_shardings (no sharding given, as None), `parse_flatten_op_sharding`'s PartitionSpecs. Every value is exact (integers, booleans, text)."""
import re

import pytest

import jxkernel
from doc_examples import check_docstring_examples
from fresh_process import cases_code, run_json

import backend_tier  # tests/support: devices named as this run's backend names them
import locations  # tests/support: the repository's folders

pytestmark = pytest.mark.cpu_only("simulated CPU devices")


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers("sharding_src_reference.json")["cases"]
    return run_json(cases_code("sharding_src_cases"), {"JXKERNEL_CPU_DEVICES": "8"}), ref


@pytest.mark.parametrize(
    "case", sorted(locations.jax_answers("sharding_src_reference.json")["cases"]))
def test_case_matches_jax(runs, case):
    ours, ref = runs
    assert ours[case] == backend_tier.devices_named_here(ref[case])


@pytest.mark.parametrize("module", ["jxkernel._src.op_shardings", "jxkernel._src.sharding",
                                    "jxkernel._src.named_sharding",
                                    "jxkernel._src.pretty_printer", "jxkernel._src.pjit",
                                    "jxkernel._src.xla_metadata"])
def test_docstring_examples(module):
    check_docstring_examples(module)


def test_parse_flatten_op_sharding_example():
    # (the module's other examples, its set_mesh's, need 8 devices: RUN_ELSEWHERE)
    import doctest

    from jxkernel._jax._src import sharding_impls
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for test in finder.find(sharding_impls.parse_flatten_op_sharding,
                            globs=vars(sharding_impls)):
        runner.run(test)
    assert runner.summarize(verbose=False) == doctest.TestResults(failed=0, attempted=2)


def test_refused_private_names_say_what_is_missing():
    # JAX's names jxkernel has no counterpart of: each raises, naming what is missing
    from jxkernel._jax._src import pjit, shard_map
    with pytest.raises(NotImplementedError, match="no shared fast-path cache"):
        pjit.make_jit_cpp_cache(4)
    # (top_level_all_gather is ported since h-jtpjit6: outside an Explicit mesh, JAX 0.10.2's
    # ValueError, word for word)
    with pytest.raises(ValueError, match=re.escape(
            "top_level_all_gather works when all mesh axes of context mesh are explicit. "
            "Got AbstractMesh((), axis_types=())")):
        shard_map.top_level_all_gather(jxkernel.numpy.ones(2), jxkernel.sharding.PartitionSpec())


def test_lowering_cache_counts_hits():
    from jxkernel._jax._src.pjit import _pjit_lower, pjit
    f = pjit(lambda x: x * 3)
    f.lower(1.0)
    before = _pjit_lower.cache_info()
    f.lower(1.0)                    # the same trace, lowered already
    after = _pjit_lower.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)
