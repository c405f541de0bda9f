"""ffi_call and ffi_lowering beside their plain use, against JAX 0.10.2's answers for the same
programs (tests/data/ffi_calls_reference.json, recorded by reference/make_ffi_calls_reference.py
from tests/data/ffi_calls_cases.py): input_output_aliases' and result_shape_dtypes'
ValueErrors, a `Layout` as an operand layout, dict and array attributes (FrozenDict and
HashableArray params, written as MLIR attributes), a token operand and result, a typed key
operand (its uint32 data), `mlir.ir_attribute`."""
import pytest

import jxkernel as jax
import locations  # tests/support
from ffi_calls_cases import run  # tests/data

JAX = locations.recorded("ffi_calls_reference.json")["cases"]


@pytest.fixture(scope="module")
def ours():
    return run(jax)


@pytest.mark.parametrize("case", sorted(JAX))
def test_each_case_as_jax(ours, case):
    assert ours[case] == JAX[case]
