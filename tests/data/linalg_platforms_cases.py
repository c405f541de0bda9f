"""Linear algebra exported for 'tpu', for 'rocm' and for several platforms at once, on the CPU
(`jax.export.export(jit(f), platforms=...)`: no TPU or ROCm GPU needed). Shared by
reference/make_linalg_platforms_reference.py (run with real JAX 0.10.2) and
tests/lax/test_linalg_platforms.py (run with jxkernel).

`run(jax)` returns {"<program>@<platforms>": record}: the custom calls of the exported module in
its order, each as written (target, attributes, operand and result types; its SSA names and
location left out), how many times each op that does linear algebra in XLA itself
(`stablehlo.cholesky`, `stablehlo.triangular_solve`), each loop or platform choice
(`stablehlo.while`, `stablehlo.case`), and each op that tells JAX's GPU lowerings of three
other primitives apart (`stablehlo.fft`, `bitcast_convert`, `complex`) appears, or the error where the export fails (up to the op it quotes, if any).
"""
import importlib
import re

import numpy as np
from recorded_errors import error_of

PLATFORMS = (("tpu",), ("rocm",), ("cpu", "cuda", "tpu", "rocm"))

# an op's results and its location: `%0:2 = ` and ` loc(#loc5)`
_RESULTS = re.compile(r"^(%[\w#:]+(, %[\w#:]+)* = )")
_LOC = re.compile(r" loc\((?:[^()]|\([^()]*\))*\)$")
_VALUE = re.compile(r"%[\w#]+")
_COUNTED = ("stablehlo.cholesky", "stablehlo.triangular_solve", "stablehlo.while",
            "stablehlo.case", "stablehlo.fft", "stablehlo.bitcast_convert", "stablehlo.complex")

F32, C64 = np.float32, np.complex64


def _programs(jax):
    linalg = jax.lax.linalg
    private = importlib.import_module(f"{jax.__name__}._src.lax.linalg")   # geqrf, geqp3
    Eigh = linalg.EighImplementation
    Svd = linalg.SvdAlgorithm
    return {
        "cholesky": (linalg.cholesky, [((3, 3), F32)]),
        "cholesky_c64_batch": (linalg.cholesky, [((2, 3, 3), C64)]),
        "lu": (linalg.lu, [((3, 3), F32)]),
        "lu_wide_batch": (linalg.lu, [((2, 2, 4), C64)]),
        "lu_pivots_to_permutation": (lambda p: linalg.lu_pivots_to_permutation(p, 4),
                                     [((3,), np.int32)]),
        "qr": (linalg.qr, [((3, 2), F32)]),
        "qr_thin_c64": (lambda a: linalg.qr(a, full_matrices=False), [((2, 3), C64)]),
        "geqrf": (private.geqrf, [((2, 4, 3), F32)]),
        "householder_product": (linalg.householder_product, [((4, 3), F32), ((2,), F32)]),
        "ormqr": (lambda a, t, c: linalg.ormqr(a, t, c, left=True, transpose=True),
                  [((4, 3), F32), ((3,), F32), ((4, 2), F32)]),
        "geqp3": (private.geqp3, [((3, 3), F32), ((3,), np.int32)]),
        "triangular_solve": (lambda a, b: linalg.triangular_solve(a, b, left_side=True,
                                                                   lower=True),
                             [((3, 3), F32), ((3, 2), F32)]),
        "tridiagonal_solve": (linalg.tridiagonal_solve,
                              [((4,), F32), ((4,), F32), ((4,), F32), ((4, 1), F32)]),
        "tridiagonal": (linalg.tridiagonal, [((3, 3), F32)]),
        "eigh": (linalg.eigh, [((3, 3), F32)]),
        "eigh_jacobi": (lambda a: linalg.eigh(a, implementation=Eigh.JACOBI),
                        [((3, 3), F32)]),
        "eig": (lambda a: linalg.eig(a, compute_left_eigenvectors=False), [((3, 3), F32)]),
        "svd": (linalg.svd, [((3, 2), F32)]),
        "svd_divide_and_conquer": (lambda a: linalg.svd(a, algorithm=Svd.DIVIDE_AND_CONQUER),
                                   [((3, 2), F32)]),
        "schur": (linalg.schur, [((3, 3), F32)]),
        "hessenberg": (linalg.hessenberg, [((3, 3), F32)]),
        "symmetric_product": (linalg.symmetric_product, [((3, 2), F32), ((3, 3), F32)]),
        "cholesky_update": (linalg.cholesky_update, [((3, 3), F32), ((3,), F32)]),
        # and the other primitives JAX lowers apart on 'gpu', CUDA and ROCm alike
        "irfft2": (jax.numpy.fft.irfft2, [((3, 4), C64)]),
        "select_and_gather_add": (lambda x: jax.jvp(lambda y: jax.lax.reduce_window(
            y, -np.inf, jax.lax.max, (2,), (1,), "VALID"), (x,), (x,)), [((5,), F32)]),
        "scatter_add_c128": (lambda x, u: x.at[np.array([0, 2])].add(u),
                             [((4,), np.complex128), ((2,), np.complex128)]),
    }


def _custom_call(line: str) -> str:
    """The op as written, its SSA names numbered in order of appearance (`%0`, `%1`, ...)."""
    line = _LOC.sub("", _RESULTS.sub("", line.strip()))
    names: dict = {}
    return _VALUE.sub(lambda m: names.setdefault(m.group(0), f"%{len(names)}"), line)


def record(text: str) -> dict:
    lines = [line.strip() for line in text.splitlines()]
    calls = [_custom_call(line) for line in lines if "stablehlo.custom_call" in line]
    counts = {op: sum(1 for line in lines if re.search(rf"(^|= ){re.escape(op)}\b", line)
                      or f'"{op}"' in line)
              for op in _COUNTED}
    return {"custom_calls": calls, "ops": {op: n for op, n in counts.items() if n}}


def run(jax) -> dict:
    export = importlib.import_module(f"{jax.__name__}.export")
    jax.config.update("jax_enable_x64", True)         # (scatter_add_c128's complex128)
    try:
        return _run(jax, export)
    finally:
        jax.config.update("jax_enable_x64", False)


def _run(jax, export) -> dict:
    out = {}
    for name, (f, specs) in _programs(jax).items():
        args = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in specs]
        for platforms in PLATFORMS:
            found = {}

            def go():
                exp = export.export(jax.jit(f), platforms=platforms)(*args)
                found.update(record(exp.mlir_module()))
            error = error_of(go, cut=" Examples are:")    # (then an op, as each prints it)
            out[f"{name}@{','.join(platforms)}"] = {"error": error} if error else found
    return out
