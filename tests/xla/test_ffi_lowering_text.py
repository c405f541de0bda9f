"""FFI custom calls lowered as JAX 0.10.2 writes them (tests/data/ffi_lowering_text_cases.py,
reference/make_ffi_lowering_text_reference.py): a typed-FFI call's attributes in
`mhlo.backend_config`, NumPy arrays as dense elements, float0 as false bools, api_versions 1-3
as before, and `jax._src.interpreters.mlir.ir` to read them from compiler_ir()."""

import pytest
import locations  # tests/support: the repository's folders

import jxkernel as jax
from ffi_lowering_text_cases import run  # tests/data

JAX = locations.jax_answers("ffi_lowering_text_reference.json")["cases"]

OURS = {}


@pytest.mark.parametrize("case", sorted(JAX))
def test_ffi_custom_calls_lowered_as_jaxs(case):
    if not OURS:
        OURS.update(run(jax))
    assert OURS[case] == JAX[case]
