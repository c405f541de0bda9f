"""An export for several platforms at once against what JAX 0.10.2 gives for the same programs
(tests/data/export_platforms_cases.py, recorded by
reference/make_export_platforms_reference.py), and what only jxkernel can show here: each
platform's lowering run on the CPU by passing its index, and our serialization's round trip."""

import export_platforms_cases as cases
import locations  # tests/support: the repository's folders
import numpy as np
import pytest
from lowered import run_text
from numerics import ELEMENTWISE, LAPACK, assert_allclose_ulp, assert_matches_recorded

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import export, lax

X = np.array([0.5, -1.25, 2.0], np.float32)


def _reference() -> dict:
    return locations.jax_answers("export_platforms_reference.json")


@pytest.mark.parametrize("program", cases.PROGRAMS, ids=lambda p: p.__name__)
@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_program_matches_jax(program):
    assert_matches_recorded(program(jxkernel), _reference()[program.__name__], program.__name__)


def _sin_or_cos():
    return cases._export(jxkernel, cases._sin_or_cos(jxkernel), ("cpu", "cuda"))


def _branch_here():
    """(values, derivative) of `_sin_or_cos()` called where the tests run: its cpu branch on
    the CPU, its cuda branch in the GPU tier."""
    if jxkernel.default_backend() == "cpu":
        return np.sin, np.cos
    return np.cos, lambda x: -np.sin(x)


@pytest.mark.xla_only("XLA text")
def test_each_platform_index_runs_that_platforms_branch():
    """The module run on the CPU with index 0 computes the cpu branch (sin), with index 1 the
    cuda branch (cos): the choice is made by the argument, not when lowering."""
    text, out_avals = _sin_or_cos().mlir_module(), _sin_or_cos().out_avals
    for index, want in ((0, np.sin(X.astype(np.float64))), (1, np.cos(X.astype(np.float64)))):
        [got] = run_text(text, out_avals, (np.int32(index), X))
        assert_allclose_ulp(got, want.astype(np.float32), ELEMENTWISE, err_msg=f"index {index}")


@pytest.mark.xla_only("XLA text")
def test_a_rule_lowered_differently_per_platform_is_chosen_by_the_index():
    """threefry2x32 lowers as a loop for the CPU and unrolled elsewhere: the module holds both
    functions, a case on the platform index calls one, and both give the CPU's bits."""
    key = jxkernel.random.PRNGKey(7)
    exp = export.export(jxkernel.jit(lambda k: jxkernel.random.bits(k, (5,))),
                        platforms=("cpu", "cuda"))(key)
    text = exp.mlir_module()
    assert "func.call @threefry2x32(" in text and "func.call @threefry2x32_0(" in text
    want = np.asarray(jxkernel.random.bits(key, (5,)))
    np.testing.assert_array_equal(np.asarray(exp.call(key)), want)
    for index in (0, 1):
        [got] = run_text(text, exp.out_avals, (np.int32(index), np.asarray(key)))
        np.testing.assert_array_equal(got, want, err_msg=f"index {index}")


@pytest.mark.xla_only("XLA text")
def test_serialize_round_trip_keeps_the_platforms_the_module_and_the_vjp():
    exp = _sin_or_cos()
    again = export.deserialize(exp.serialize(vjp_order=1))
    for field in ("platforms", "uses_global_constants", "in_avals", "out_avals",
                  "mlir_module_serialized"):
        assert getattr(again, field) == getattr(exp, field), field
    assert again.vjp().platforms == ("cpu", "cuda")
    np.testing.assert_array_equal(np.asarray(again.call(X)), np.asarray(exp.call(X)))
    grad = jxkernel.grad(lambda v: again.call(v).sum())(X)
    want = _branch_here()[1](X.astype(np.float64))
    assert_allclose_ulp(np.asarray(grad), want.astype(np.float32), ELEMENTWISE,
                        gpu="transcendental")


@pytest.mark.xla_only("XLA text")
def test_a_symbolic_export_for_several_platforms_calls_on_the_cpu():
    """Shape polymorphism and the platform index together: the module is refined to the
    call's shapes with the index passed through."""
    b, = export.symbolic_shape("b")
    f = lambda x: lax.platform_dependent(x, cpu=jnp.sin, cuda=jnp.cos) * x.shape[0]
    exp = export.export(jxkernel.jit(f), platforms=("cpu", "cuda"))(
        jxkernel.ShapeDtypeStruct((b,), np.float32))
    assert exp.uses_global_constants and "_platform_index" in exp.mlir_module()
    want = _branch_here()[0](X.astype(np.float64)) * 3
    assert_allclose_ulp(np.asarray(exp.call(X)), want.astype(np.float32), ELEMENTWISE,
                        scale=np.abs(want).max(), gpu="transcendental")


@pytest.mark.xla_only("XLA text")
def test_an_export_for_one_platform_has_no_index_argument():
    exp = export.export(jxkernel.jit(cases._sin_or_cos(jxkernel)))(X)
    assert exp.platforms == (export.default_export_platform(),)
    assert not exp.uses_global_constants
    assert "_platform_index" not in exp.mlir_module()
    assert cases.skeleton(exp.mlir_module())[0][0] == ["tensor<3xf32>"]


@pytest.mark.xla_only("XLA text")
def test_a_gpu_library_call_in_the_cuda_branch_leaves_the_cpu_call_working():
    """cholesky lowers to LAPACK on the CPU and to cuSOLVER on a GPU: the module holds both
    custom calls, and the call on the CPU passes its index as a constant, so XLA drops the
    branch whose cuSOLVER call the CPU does not have."""
    a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
    exp = export.export(jxkernel.jit(jnp.linalg.cholesky), platforms=("cpu", "cuda"))(a)
    text = exp.mlir_module()
    assert "@lapack_spotrf_ffi" in text and "@cusolver_potrf_ffi" in text
    want = np.linalg.cholesky(a.astype(np.float64)).astype(np.float32)
    assert_allclose_ulp(np.asarray(exp.call(a)), want, LAPACK, scale=np.abs(want).max())
