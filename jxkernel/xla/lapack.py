"""LAPACK on CPU: jaxlib's typed-FFI kernels (potrf, getrf, geqrf, orgqr, trsm, syevd, gesdd,
...) as XLA custom calls. client.register_lapack_targets() registers them with XLA when the
CPU backend starts, as JAX 0.10.2 has them there (a `jax.ffi.ffi_call("lapack_sgetrf_ffi", ...)`
compiles in a fresh process); importing jxkernel costs nothing.

`ensure_registered()` also runs `_lapack.initialize()`, which loads the LAPACK routines from
SciPy's Cython bindings (0.2 s: not at backend start); without it a custom call segfaults
(JAX's ffi_call of a LAPACK target does, before any linear algebra ran). Every lowering that
emits one calls it first: our linear algebra's, and ffi_call's of a `lapack_` target.

    custom_call(ctx, "getrf", dtype, [x], [lu_aval, pivots_aval, info_aval], aliases={0: 0})

emits `lapack_sgetrf_ffi` (for float32) as JAX's `_linalg_ffi_lowering` does: operands and
results of the highest rank (the matrices) in column-major layout, the rest row-major.
"""
from __future__ import annotations

import threading

import numpy as np

from . import ffi
from .client import register_lapack_targets
from .lowering import no_rule_error

_lock = threading.Lock()
_initialized = False


def ensure_registered() -> None:
    """The targets registered and the LAPACK routines they call loaded (once per process)."""
    global _initialized
    register_lapack_targets()
    if _initialized:
        return
    with _lock:
        if not _initialized:
            from jaxlib import lapack
            lapack._lapack.initialize()
            _initialized = True


def ensure_for_target(target_name: str) -> None:
    """`ensure_registered()` where an FFI call names a LAPACK target (`lapack_sgetrf_ffi`)."""
    if target_name.startswith("lapack_"):
        ensure_registered()


_LETTERS = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
            np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


def prefix(dtype) -> str:
    """LAPACK's type letter: s, d, c, z for float32, float64, complex64, complex128. Another
    dtype traces (JAX's linear algebra takes any inexact one) and is refused here, as it is
    lowered, in JAX's words (its KeyError, then "Unsupported dtype float16.")."""
    try:
        return _LETTERS[np.dtype(dtype)]
    except KeyError as e:
        raise NotImplementedError(KeyError(np.dtype(dtype).type),
                                  f"Unsupported dtype {np.dtype(dtype).name}.") from e


def char(c: str) -> str:
    """A one-character LAPACK option ('L', 'N', 'V', ...) as the FFI attribute it expects."""
    return f"{ord(c)} : ui8"


def _order(ndim: int, matrix: bool) -> tuple:
    """Minor-to-major order: a batch of column-major matrices, or row-major."""
    return (ndim - 2, ndim - 1) + ffi.row_major(ndim - 2) if matrix else ffi.row_major(ndim)


def custom_call(ctx, routine: str, dtype, operands, result_avals, *, aliases=None,
                operand_avals=None, **config) -> list:
    """Emit LAPACK `routine` (e.g. "potrf") for `dtype` as a typed-FFI custom call.
    `aliases` maps an operand index to the result that overwrites it (LAPACK works in place);
    `config` holds the routine's attributes (`uplo=char("L")`)."""
    ensure_registered()
    if ctx.platform != "cpu":
        # a primitive JAX lowers on the CPU alone (hessenberg, schur): JAX's error elsewhere,
        # naming the primitive (the last part of the equation's name, `jvp()/schur`)
        raise no_rule_error((ctx.name or routine).rsplit("/", 1)[-1], ctx.platform)
    return ffi_call(ctx, f"lapack_{prefix(dtype)}{routine}_ffi", operands, result_avals,
                    aliases=aliases, operand_avals=operand_avals,
                    backend_config=ffi.dictionary(config))


def ffi_call(ctx, target: str, operands, result_avals, *, backend_config: str, aliases=None,
             operand_avals=None, column_major: bool = True, num_non_batch_dims: int = 2) -> list:
    """A typed-FFI (api_version 4) custom call to `target`: the operands and results of the
    highest rank (the matrices) column-major when `column_major`, all others row-major; the
    attributes are `backend_config`'s text (a dictionary). Shared by LAPACK and cuSOLVER.
    Its leading dimensions beyond the highest rank's last `num_non_batch_dims` are a batch
    that XLA may split across devices, as JAX marks them (batch_partitioning)."""
    operand_avals = ctx.avals_in if operand_avals is None else operand_avals
    nd = max(len(a.shape) for a in operand_avals)
    orders = lambda avals: [_order(len(a.shape), column_major and len(a.shape) == nd)
                            for a in avals]
    return ffi.custom_call(ctx, target, operands, result_avals, backend_config=backend_config,
                           operand_layouts=orders(operand_avals),
                           result_layouts=orders(result_avals), aliases=aliases,
                           extra_attributes=batch_partitioning(
                               operand_avals, result_avals, nd - num_non_batch_dims))


def _factor(index: int) -> str:
    """Shardy's name of factor `index` in a sharding rule: i ... z, then z_1, z_2, ..."""
    return chr(ord("i") + index) if index < 18 else f"z_{index - 17}"


def batch_partitioning(operand_avals, result_avals, num_batch_dims: int) -> dict:
    """The attributes that let the partitioner split a linear-algebra call along its batch
    (JAX's `_linalg_ffi_lowering`): `num_batch_dims` for XLA's batch-partitionable custom
    calls (client.register_lapack_targets) and Shardy's rule, in which the first
    `num_batch_dims` dimensions of every operand and result are the same factors and each
    other dimension a factor of its own; none for a shape with symbolic dimensions.

    >>> from types import SimpleNamespace as Aval
    >>> rule = batch_partitioning([Aval(shape=(8, 6, 6))], [Aval(shape=(8,))], 1)
    >>> rule["sdy.sharding_rule"]
    '#sdy.op_sharding_rule<([i, j, k])->([i]) {i=8, j=6, k=6}, custom>'
    """
    avals = (*operand_avals, *result_avals)
    if not all(isinstance(d, (int, np.integer)) for a in avals for d in a.shape):
        return {}
    sizes = []                       # per factor, its size; the batch's first

    def factors(shape) -> str:
        if len(shape) < num_batch_dims:
            return "[]"
        names = [_factor(i) for i in range(num_batch_dims)]
        for d in shape[num_batch_dims:]:
            names.append(_factor(len(sizes)))
            sizes.append(int(d))
        return "[" + ", ".join(names) + "]"

    batch = next(a.shape[:num_batch_dims] for a in avals if len(a.shape) >= num_batch_dims)
    sizes.extend(int(d) for d in batch)
    lhs = ", ".join(factors(a.shape) for a in operand_avals)
    rhs = ", ".join(factors(a.shape) for a in result_avals)
    table = ", ".join(f"{_factor(i)}={n}" for i, n in enumerate(sizes))
    return {"mhlo.frontend_attributes": f'{{num_batch_dims = "{num_batch_dims}"}}',
            "sdy.sharding_rule": f"#sdy.op_sharding_rule<({lhs})->({rhs}) {{{table}}}, custom>"}
