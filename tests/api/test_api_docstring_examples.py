"""Every docstring example in jxkernel/api/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers);
# api.pmap and api.sharding need 8 devices: tests/sharding/test_sharding.py runs them.
RUN_ELSEWHERE = frozenset({
    "jxkernel.api.checkify",
    "jxkernel.api.checkify_errors",
    "jxkernel.api.colocated_python",
    "jxkernel.api.colocated_python.api",
    "jxkernel.api.colocated_python.serialization",
    "jxkernel.api.custom_partitioning",
    "jxkernel.api.custom_partitioning_sharding_rule",
    "jxkernel.api.jet",
    "jxkernel.api.runtime_state",
    "jxkernel.api.pmap",
    "jxkernel.api.shard_map",
    "jxkernel.api.shard_map.smap",
    "jxkernel.api.shard_map.top_level_collectives",
    "jxkernel.api.sharding",
    "jxkernel.api.sparse",
    "jxkernel.api.sparse._base",
    "jxkernel.api.sparse.ad",
    "jxkernel.api.sparse.api",
    "jxkernel.api.sparse.bcoo",
    "jxkernel.api.sparse.bcoo_layout",
    "jxkernel.api.sparse.bcoo_shape",
    "jxkernel.api.sparse.bcoo_spdot",
    "jxkernel.api.sparse.bcsr",
    "jxkernel.api.sparse.bcsr_ops",
    "jxkernel.api.sparse.coo",
    "jxkernel.api.sparse.csr",
    "jxkernel.api.sparse.cusparse",
    "jxkernel.api.sparse.linalg",
    "jxkernel.api.sparse.methods",
    "jxkernel.api.sparse.spvalues",
    "jxkernel.api.sparse.transform",
    "jxkernel.api.sparse.util",
    "jxkernel.api.state_primitives",
})


def test_every_docstring_example_in_api_runs():
    check_package_examples("jxkernel.api", RUN_ELSEWHERE, {"jxkernel": jxkernel})
