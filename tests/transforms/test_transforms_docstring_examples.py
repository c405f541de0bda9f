"""Every docstring example in jxkernel/transforms/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers);
# jit.pinned and jit.sharded need 8 devices: tests/sharding/test_sharding.py runs them.
RUN_ELSEWHERE = frozenset({
    "jxkernel.transforms.ad_util",
    "jxkernel.transforms.call_primitive",
    "jxkernel.transforms.custom_batching",
    "jxkernel.transforms.custom_derivatives",
    "jxkernel.transforms.custom_derivatives.jvp",
    "jxkernel.transforms.custom_derivatives.linear_call",
    "jxkernel.transforms.custom_derivatives.vjp",
    "jxkernel.transforms.custom_derivatives.vjp_rules",
    "jxkernel.transforms.custom_gradient",
    "jxkernel.transforms.jit.args",
    "jxkernel.transforms.jit.high",
    "jxkernel.transforms.jit.namesakes",
    "jxkernel.transforms.jit.pinned",
    "jxkernel.transforms.jit.refs",
    "jxkernel.transforms.jit.serialize_executable",
    "jxkernel.transforms.jit.sharded",
    "jxkernel.transforms.make_jaxpr",
})


def test_every_docstring_example_in_transforms_runs():
    check_package_examples("jxkernel.transforms", RUN_ELSEWHERE, {"jxkernel": jxkernel})
