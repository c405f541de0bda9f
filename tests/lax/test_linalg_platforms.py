"""lax.linalg exported for 'tpu', for 'rocm' and for ("cpu", "cuda", "tpu", "rocm") at once, on
the CPU, against JAX 0.10.2 (tests/data/linalg_platforms_cases.py, recorded by
reference/make_linalg_platforms_reference.py): each module's custom calls as written (target,
attributes, operand and result types), in order (JAX puts a rule's default lowering, XLA's own
kernels for the TPU, after the platforms' own rules), its XLA linear-algebra ops and control
flow, or JAX's error. And what only jxkernel can show here: the default lowerings that are
plain StableHLO, run on the CPU, give the CPU's values. Three primitives JAX lowers apart for
'gpu' (CUDA's and ROCm's alike: irfft2, select_and_gather_add, a complex128 scatter-add) are
recorded too."""
import functools

import linalg_platforms_cases as cases
import locations
import numpy as np
import pytest
from lowered import run_text
from numerics import LAPACK, assert_allclose_ulp

import jxkernel
from jxkernel.lax import linalg
from jxkernel.xla.lowering import lower_module

# Where jxkernel is known to differ, and how: only the op counts ("ops": JAX's cond and while
# loops in its QDWH and its Givens rotations, jxkernel's selects and fewer loops for the same
# steps), or the CUDA kernels JAX has for cholesky_update and symmetric_product and jxkernel
# does not emit (it lowers both with lax operations everywhere, so the multi-platform export
# JAX refuses, for those kernels' lack of a compatibility guarantee, succeeds here).
OPS_DIFFER = ("svd@tpu", "svd@cpu,cuda,tpu,rocm", "cholesky_update@tpu",
              "cholesky_update@rocm")
NO_CUDA_KERNEL = ("cholesky_update@cpu,cuda,tpu,rocm", "symmetric_product@cpu,cuda,tpu,rocm")
# JAX's rules registered for "gpu" are CUDA's and ROCm's apart: a module for both keeps a branch
# for each, the same ops twice; jxkernel's one branch serves the platforms whose lowerings
# print alike (the same ops, once)
MERGED_BRANCHES = ("irfft2@cpu,cuda,tpu,rocm", "scatter_add_c128@cpu,cuda,tpu,rocm",
                   "select_and_gather_add@cpu,cuda,tpu,rocm")


@functools.cache
def _theirs() -> dict:
    return locations.jax_answers("linalg_platforms_reference.json")


@functools.cache
def _mine() -> dict:
    return cases.run(jxkernel)


@pytest.mark.xla_only("XLA text")
def test_the_same_cases():
    assert sorted(_mine()) == sorted(_theirs())


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("case", sorted(k for k in _theirs()
                                        if k not in OPS_DIFFER + NO_CUDA_KERNEL + MERGED_BRANCHES))
def test_lowered_as_jax_lowers_it(case):
    assert _mine()[case] == _theirs()[case], case


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("case", OPS_DIFFER)
def test_the_same_custom_calls_other_control_flow(case):
    mine, theirs = _mine()[case], _theirs()[case]
    assert mine["custom_calls"] == theirs["custom_calls"]
    assert {op: n for op, n in mine["ops"].items() if op not in ("stablehlo.while", "stablehlo.case")} == \
        {op: n for op, n in theirs["ops"].items() if op not in ("stablehlo.while", "stablehlo.case")}
    assert mine["ops"] != theirs["ops"]      # (listed: remove it here once they agree)


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("case", MERGED_BRANCHES)
def test_one_branch_for_cuda_and_rocm_listed(case):
    mine, theirs = _mine()[case], _theirs()[case]
    assert mine["custom_calls"] == theirs["custom_calls"]
    assert sorted(mine["ops"]) == sorted(theirs["ops"])
    assert mine["ops"] != theirs["ops"]
    # JAX's has the GPU branch's ops once more: as many as the module for ROCm alone has
    rocm = _theirs()[case.split("@")[0] + "@rocm"]["ops"]
    for op, n in theirs["ops"].items():
        assert n - mine["ops"][op] == rocm.get(op, 0), op


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("case", NO_CUDA_KERNEL)
def test_no_cuda_kernel_listed(case):
    assert _theirs()[case]["error"][0] == "ValueError"
    assert "error" not in _mine()[case]


def _run_for(platform, f, *args):
    closed = jxkernel.make_jaxpr(f)(*args)
    text = lower_module(closed.jaxpr, name="f", platform=platform)[0]
    return run_text(text, closed.out_avals, (*closed.consts, *args))


@pytest.mark.xla_only("XLA compiler")
def test_ormqr_default_lowering_runs_as_lapacks():
    """ormqr's TPU lowering (JAX's default: the reflectors applied one by one in a loop) run on
    the CPU against LAPACK's ormqr/unmqr, each side, transposed or not, real and complex,
    batched: within LAPACK's ulps of the largest entry."""
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(2, 5, 3)) + 1j * rng.normal(size=(2, 5, 3))).astype(np.complex64)
    a_out, taus = [np.asarray(x) for x in linalg.geqrf(a)]
    for dtype in (np.float32, np.complex64):
        args = (a_out.real.astype(dtype), taus.real.astype(dtype)) if dtype == np.float32 \
            else (a_out, taus)
        for left, c_shape in ((True, (2, 5, 4)), (False, (2, 4, 5))):
            c = rng.normal(size=c_shape).astype(dtype)
            for transpose in (False, True):
                f = lambda a, t, c: linalg.ormqr(a, t, c, left=left, transpose=transpose)  # noqa: E731,B023
                [want] = _run_for("cpu", f, *args, c)
                [got] = _run_for("tpu", f, *args, c)
                assert_allclose_ulp(got, want, LAPACK, scale=np.abs(want).max(),
                                    err_msg=f"{dtype.__name__} left={left} T={transpose}")


@pytest.mark.xla_only("XLA compiler")
def test_lu_pivots_to_permutation_and_tridiagonal_solve_defaults_run():
    """Two more default lowerings a TPU takes, run here: the permutation loop (exact) and the
    Thomas algorithm (against LAPACK's gtsv on the CPU, within LAPACK's ulps)."""
    pivots = np.array([[2, 2, 3], [0, 3, 2]], np.int32)
    f = lambda p: linalg.lu_pivots_to_permutation(p, 4)  # noqa: E731
    np.testing.assert_array_equal(_run_for("tpu", f, pivots)[0], _run_for("cpu", f, pivots)[0])
    rng = np.random.default_rng(1)
    dl, du = (rng.normal(size=4).astype(np.float32) for _ in range(2))
    dl[0] = du[-1] = 0
    d = (4 + rng.random(4)).astype(np.float32)
    b = rng.normal(size=(4, 2)).astype(np.float32)
    [got] = _run_for("tpu", linalg.tridiagonal_solve, dl, d, du, b)
    [want] = _run_for("cpu", linalg.tridiagonal_solve, dl, d, du, b)
    assert_allclose_ulp(got, want, LAPACK, scale=np.abs(want).max())
