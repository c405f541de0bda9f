"""The StableHLO text jaxlib's compiler accepts and refuses (docs/jaxlib.md §3), and Python
host callbacks in compiled programs (§7). One fact per test; see test_jaxlib_contract.py for
the rules these files follow and the helpers they share.
"""
import math
import re

import numpy as np
import pytest

from jxkernel.core import dtypes
from jxkernel.xla import compiler, lapack
from jxkernel.xla.client import JaxRuntimeError, xc
from numerics import ELEMENTWISE, LAPACK, assert_allclose_ulp
from test_jaxlib_contract import _no_real_jax  # noqa: F401  (autouse: jaxlib without JAX)
from test_jaxlib_contract import (CLIENT, DEVICE, DEVICES, compile_error, handler, host, main,
                                  put, run)

pytestmark = pytest.mark.xla_only("XLA compiler")     # jaxlib's facts (test_jaxlib_contract.py)


# ------------------------------------------------------------ §3 StableHLO text
def test_parse_errors_give_line_and_column_and_the_stablehlo_version():
    """compiler._explain_compile_error finds the line with its _LOCATION pattern."""
    unknown = compile_error(main("(%x: tensor<2xf32>) -> tensor<2xf32>", """\
    %0 = stablehlo.frobnicate %x : tensor<2xf32>
    return %0 : tensor<2xf32>"""))
    assert unknown.startswith("UNKNOWN: -:3:10: error: custom op 'stablehlo.frobnicate' is unknown")
    assert re.search(r"Failed to parse using StableHLO v\d+\.\d+\.\d+", unknown)
    mistyped = compile_error(main("(%x: tensor<2xf32>, %y: tensor<2xi32>) -> tensor<2xf32>", """\
    %0 = stablehlo.add %x, %y : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>"""))
    assert "-:3:10: error: op requires the same element type" in mistyped
    assert compiler._LOCATION.search(unknown).groups() == ("3", "10")


def test_the_entry_function_must_be_called_main():
    text = "module {\n  func.func @f(%a: tensor<f32>) -> tensor<f32> {\n" \
           "    return %a : tensor<f32>\n  }\n}"
    assert "INVALID_ARGUMENT: MLIR module must have a main function" in compile_error(text)


def test_tuple_results_and_dynamic_shapes_are_refused():
    tuple_result = main("(%a: tensor<f32>) -> tuple<tensor<f32>>", """\
    %t = stablehlo.tuple %a : tuple<tensor<f32>>
    return %t : tuple<tensor<f32>>""")
    assert "Invalid XLA PrimitiveType: 13 (TUPLE)" in compile_error(tuple_result)
    dynamic = main("(%a: tensor<?xf32>) -> tensor<?xf32>", """\
    %0 = stablehlo.add %a, %a : tensor<?xf32>
    return %0 : tensor<?xf32>""")
    assert "Unbounded dynamism is disabled" in compile_error(dynamic)


def test_an_unregistered_custom_call_target_fails_at_compile_time():
    text = main("(%a: tensor<3xf32>) -> tensor<3xf32>", """\
    %0 = "stablehlo.custom_call"(%a) {call_target_name = "no_such_target", api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>""")
    assert "NOT_FOUND: No FFI handler registered for no_such_target" in compile_error(text)


# The shapes of text jxkernel's emitter (stablehlo.py) and lowering rules print: module
# attributes, generic ops with attributes in a plain {...} dictionary, enum attributes,
# regions with block arguments and empty ones (`^bb0():`) that use outer values, private
# functions called with several results, chlo ops in generic form.
EMITTED = """\
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<i32>) -> (tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<2xi32>, tensor<3xf32>) {
    %0 = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = "stablehlo.reduce"(%arg0, %0) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %1 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %3 = "stablehlo.broadcast_in_dim"(%2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<3xf32>
    %4 = "stablehlo.compare"(%arg0, %3) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %5 = "stablehlo.select"(%4, %arg0, %3) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %6:2 = func.call @inner(%arg0) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<2xi32>)
    %10 = "stablehlo.case"(%arg1) ({
    ^bb0():
      %7 = stablehlo.negate %2 : tensor<f32>
      stablehlo.return %7 : tensor<f32>
    }, {
    ^bb0():
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    %11 = "chlo.erf"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
    return %5, %10, %6#0, %6#1, %11 : tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<2xi32>, tensor<3xf32>
  }
  func.func private @inner(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<2xi32>) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>
    %1 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<2xi32>
    return %0, %1 : tensor<3xf32>, tensor<2xi32>
  }
}
"""


def test_the_text_forms_jxkernel_emits_compile():
    x = np.array([0.0, 1.0, 2.0], np.float32)
    out = run(EMITTED, [x, np.int32(0)],
              [((3,), np.float32), ((), np.float32), ((3,), np.float32), ((2,), np.int32),
               ((3,), np.float32)])
    assert out[0].tolist() == [0.0, 1.0, 2.0]                # all below the sum 3
    assert out[1] == -3.0                                    # branch 0 uses outer %2
    assert out[2].tolist() == [0.0, 1.0, 4.0] and out[3].tolist() == [0, 1]
    erf = np.float32([math.erf(v) for v in (0.0, 1.0, 2.0)])  # worst seen 1
    assert_allclose_ulp(out[4], erf, ELEMENTWISE)


# stablehlo.dense_attr's encodings: splat, nested list, hex bytes for big arrays, hex for
# inf/NaN, complex pairs, booleans, extreme integers, "1.0e+300"-style exponents.
CONSTANTS = main(
    "() -> (tensor<2xf32>, tensor<f32>, tensor<2xi1>, tensor<2xbf16>, tensor<complex<f32>>, "
    "tensor<ui32>, tensor<i64>, tensor<f64>, tensor<3xi16>, tensor<f16>)", """\
    %0 = stablehlo.constant dense<[1.5, 2.5]> : tensor<2xf32>
    %1 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %2 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %3 = stablehlo.constant dense<1.0> : tensor<2xbf16>
    %4 = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f32>>
    %5 = stablehlo.constant dense<4294967295> : tensor<ui32>
    %6 = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
    %7 = stablehlo.constant dense<1.0e+300> : tensor<f64>
    %8 = stablehlo.constant dense<"0x0100FFFF0200"> : tensor<3xi16>
    %9 = stablehlo.constant dense<0x3C00> : tensor<f16>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2xf32>, tensor<f32>, tensor<2xi1>, tensor<2xbf16>, tensor<complex<f32>>, tensor<ui32>, tensor<i64>, tensor<f64>, tensor<3xi16>, tensor<f16>""")


def test_constant_encodings_and_64_bit_results():
    out = run(CONSTANTS, [], [((2,), np.float32), ((), np.float32), ((2,), dtypes.bool_),
                              ((2,), dtypes.bfloat16), ((), np.complex64), ((), np.uint32),
                              ((), np.int64), ((), np.float64), ((3,), np.int16),
                              ((), np.float16)])
    assert out[0].tolist() == [1.5, 2.5] and out[1] == np.inf and out[2].tolist() == [True, False]
    assert out[3].dtype == dtypes.bfloat16 and out[3].astype(np.float32).tolist() == [1.0, 1.0]
    assert out[4] == 1 - 2j and out[5] == 2**32 - 1 and out[6] == -2**63
    assert out[7].dtype == np.float64 and out[7] == 1e300    # f64 runs whatever x64 says
    assert out[8].tolist() == [1, -1, 2]                     # little-endian bytes
    assert out[9].dtype == np.float16 and out[9] == 1.0


SEMANTICS = main(
    "(%x: tensor<10xf32>, %i: tensor<4xi32>, %m: tensor<4x4xf32>, %s: tensor<i32>, "
    "%k: tensor<i32>) -> (tensor<4xf32>, tensor<5xf32>, tensor<2x2xf32>, tensor<4x4xf32>, "
    "tensor<f32>)", """\
    %i2 = "stablehlo.reshape"(%i) : (tensor<4xi32>) -> tensor<4x1xi32>
    %g = "stablehlo.gather"(%x, %i2) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>, indices_are_sorted = false} : (tensor<10xf32>, tensor<4x1xi32>) -> tensor<4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<5xf32>
    %u = stablehlo.constant dense<[1.0, 2.0, 4.0, 8.0]> : tensor<4xf32>
    %sc = "stablehlo.scatter"(%z, %i2, %u) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<5xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<5xf32>
    %ds = "stablehlo.dynamic_slice"(%m, %s, %s) {slice_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    %minus = stablehlo.constant dense<-1.0> : tensor<2x2xf32>
    %dus = "stablehlo.dynamic_update_slice"(%m, %minus, %s, %s) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    %c = "stablehlo.case"(%k) ({
    ^bb0():
      %c0 = stablehlo.constant dense<0.0> : tensor<f32>
      stablehlo.return %c0 : tensor<f32>
    }, {
    ^bb0():
      %c1 = stablehlo.constant dense<1.0> : tensor<f32>
      stablehlo.return %c1 : tensor<f32>
    }, {
    ^bb0():
      %c2 = stablehlo.constant dense<2.0> : tensor<f32>
      stablehlo.return %c2 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    return %g, %sc, %ds, %dus, %c : tensor<4xf32>, tensor<5xf32>, tensor<2x2xf32>, tensor<4x4xf32>, tensor<f32>""")
SEMANTICS_OUT = [((4,), np.float32), ((5,), np.float32), ((2, 2), np.float32),
                 ((4, 4), np.float32), ((), np.float32)]
MATRIX = np.arange(16, dtype=np.float32).reshape(4, 4)


@pytest.fixture(scope="module")
def semantics():
    """SEMANTICS with indices [2, 2, 99, -5] and start 3, for case indices 7 and -1."""
    x = np.arange(10, dtype=np.float32) * 10
    i = np.array([2, 2, 99, -5], np.int32)
    return {k: run(SEMANTICS, [x, i, MATRIX, np.int32(3), np.int32(k)], SEMANTICS_OUT)
            for k in (7, -1)}


def test_gather_clamps_out_of_bounds_indices(semantics):
    assert semantics[7][0].tolist() == [20.0, 20.0, 90.0, 0.0]


def test_scatter_drops_out_of_bounds_updates_and_adds_duplicates(semantics):
    assert semantics[7][1].tolist() == [0.0, 0.0, 3.0, 0.0, 0.0]


def test_dynamic_slices_clamp_their_start_into_range(semantics):
    assert semantics[7][2].tolist() == MATRIX[2:, 2:].tolist()
    expected = MATRIX.copy()
    expected[2:, 2:] = -1
    assert semantics[7][3].tolist() == expected.tolist()


def test_case_with_an_out_of_range_index_runs_the_last_branch(semantics):
    assert semantics[7][4] == 2.0 and semantics[-1][4] == 2.0


POTRF = main("(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)", """\
    %0:2 = "stablehlo.custom_call"(%a) {call_target_name = "lapack_spotrf_ffi", api_version = 4 : i32, backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
    return %0#0, %0#1 : tensor<3x3xf32>, tensor<i32>""")


def test_lapack_kernels_run_once_registered_and_write_one_triangle():
    """The text lapack.ffi_call emits for potrf; the upper triangle keeps the input."""
    lapack.ensure_registered()
    a = np.array([[4, 2, 0], [2, 5, 1], [0, 1, 3]], np.float32)
    factor, info = run(POTRF, [a], [((3, 3), np.float32), ((), np.int32)])
    assert info == 0
    want = np.linalg.cholesky(a.astype(np.float64)).astype(np.float32)   # worst seen 0
    assert_allclose_ulp(np.tril(factor), want, LAPACK)
    assert np.triu(factor, 1).tolist() == np.triu(a, 1).tolist()


# ------------------------------------------------------------ §7 host callbacks
CALLBACKS = main("(%x: tensor<3xf32>) -> tensor<3xf32>", """\
    %0 = "stablehlo.custom_call"(%x) {call_target_name = "xla_ffi_python_cpu_callback", has_side_effect = false, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<3xf32>) -> tensor<3xf32>
    "stablehlo.custom_call"(%0) {call_target_name = "xla_ffi_python_cpu_callback", has_side_effect = true, mhlo.backend_config = {index = 1 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = []} : (tensor<3xf32>) -> ()
    return %0 : tensor<3xf32>""")


class Callbacks:
    """The two host functions of CALLBACKS; `pure` does what `mode` says."""

    def __init__(self):
        self.mode, self.seen = "sin", []

    def pure(self, x):
        self.seen.append(("pure", type(x), x.dtype, x.tolist()))
        if self.mode == "raise":
            raise ValueError("boom")
        if self.mode == "int32":
            return (np.array([1, 2, 3], np.int32),)
        return (np.sin(x),)

    def side(self, x):
        self.seen.append(("side", x.tolist()))
        return ()


@pytest.fixture(scope="module")
def with_callbacks():
    callbacks = Callbacks()
    loaded = CLIENT.compile_and_load(compiler._parse_ir(CALLBACKS), DEVICES, xc.CompileOptions(),
                                     host_callbacks=[callbacks.pure, callbacks.side])
    return loaded, callbacks


def call_back(with_callbacks, mode, x):
    loaded, callbacks = with_callbacks
    callbacks.mode, callbacks.seen = mode, []
    results = loaded.execute_sharded([put(x)], with_tokens=True)
    results.consume_token().block_until_ready()
    return host(results.consume_with_handlers([handler((3,), np.float32)])[0]), callbacks.seen


def test_host_callbacks_are_accepted_only_with_an_ir_module():
    with pytest.raises(TypeError, match="compile_and_load\\(\\): incompatible function arguments"):
        CLIENT.compile_and_load(CALLBACKS, DEVICES, xc.CompileOptions(), host_callbacks=[print])
    assert type(compiler._parse_ir(CALLBACKS)).__name__ == "Module"


def test_callbacks_get_numpy_arrays_and_are_chosen_by_index(with_callbacks):
    out, seen = call_back(with_callbacks, "sin", np.array([0.0, 1.0, 2.0], np.float32))
    want = np.sin(np.float64([0.0, 1.0, 2.0])).astype(np.float32)   # rounded once
    assert_allclose_ulp(out, want, ELEMENTWISE)                         # worst seen 1
    assert seen[0][:3] == ("pure", np.ndarray, np.float32) and seen[0][3] == [0.0, 1.0, 2.0]
    assert seen[1][0] == "side" and seen[1][1] == out.tolist()   # index 1 got pure's result


def test_a_raising_callback_fails_the_execution_with_its_traceback(with_callbacks):
    with pytest.raises(JaxRuntimeError, match="(?s)INTERNAL: CpuCallback error calling "
                                              "callback.*ValueError: boom"):
        call_back(with_callbacks, "raise", np.zeros(3, np.float32))


def test_callback_results_are_copied_as_bytes_not_converted(with_callbacks):
    """Why lax/callbacks.py checks result types in Python."""
    out, _ = call_back(with_callbacks, "int32", np.zeros(3, np.float32))
    assert out.view(np.int32).tolist() == [1, 2, 3]


def test_compile_module_refuses_callbacks_without_their_functions():
    """The guard against the segfault of docs/jaxlib.md §7."""
    with pytest.raises(ValueError, match="calls Python host callbacks"):
        compiler.compile_module(CALLBACKS, [DEVICE])


def test_empty_constants_of_every_rank_lower():
    """An empty array closed over by a jitted function is a constant of its own shape:
    `dense<>` for every empty shape (`dense<[[]]>` is 1x0, which XLA refused for 0x0; JAX's
    own lax_numpy_reducers_test testEmptyCov met it through jnp.cov of a (0, 0) matrix)."""
    import jxkernel
    import jxkernel.numpy as jnp
    from jxkernel.xla.stablehlo import dense_attr
    for shape in [(0,), (0, 0), (2, 0), (0, 3, 1)]:
        empty = np.zeros(shape, np.float32)
        assert dense_attr(empty) == "dense<>"
        out = jxkernel.jit(lambda x: x + jnp.asarray(empty))(empty)
        assert out.shape == shape and out.dtype == np.float32
    cov = jxkernel.jit(jnp.cov)(np.zeros((0, 0), np.float32))
    assert cov.shape == (0, 0)
