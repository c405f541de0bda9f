"""The custom call targets an export may use: those whose compatibility JAX 0.10.2 guarantees
(its `_CUSTOM_CALL_TARGETS_GUARANTEED_STABLE`: LAPACK's and cuSOLVER's kernels, the sharding
markers, ...), and the others only where a `DisabledSafetyCheck.custom_call(target)` allows
them, as JAX refuses them: a kernel a later jaxlib may drop or change would leave the exported
artifact unrunnable.

    >>> check_custom_calls('stablehlo.custom_call @lapack_spotrf_ffi(%0)', ())
"""
from __future__ import annotations

import re

_LAPACK = ("potrf", "geqrf", "orgqr", "syevd", "geev", "gesdd", "getrf", "sytrd", "gehrd",
           "gees", "trsm", "gtsv")
_LAPACK_COMPLEX = {"orgqr": "ungqr", "syevd": "heevd", "sytrd": "hetrd"}
STABLE_CUSTOM_CALL_TARGETS = frozenset({
    *(f"lapack_{t}{_LAPACK_COMPLEX.get(r, r) if t in 'cz' else r}_ffi"
      for r in _LAPACK for t in "sdcz"),
    "cu_lu_pivots_to_permutation", "cusolver_getrf_ffi", "hip_lu_pivots_to_permutation",
    "hipsolver_getrf_ffi", "cusolver_geqrf_ffi", "cusolver_orgqr_ffi", "hipsolver_geqrf_ffi",
    "hipsolver_orgqr_ffi", "cusolver_potrf_ffi", "hipsolver_potrf_ffi", "cusolver_syevd_ffi",
    "hipsolver_syevd_ffi", "cusolver_gesvd_ffi", "cusolver_gesvdj_ffi", "hipsolver_gesvd_ffi",
    "hipsolver_gesvdj_ffi", "hipsolver_gesdd_ffi", "cusolver_sytrd_ffi", "hipsolver_sytrd_ffi",
    "cusparse_gtsv2_ffi",
    "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "annotate_device_placement",
    "cu_threefry2x32_ffi", "hip_threefry2x32_ffi", "Eigh", "Qr",
    "ProductOfElementaryHouseholderReflectors", "LuDecomposition", "ApproxTopK",
    "stablehlo.dynamic_approx_top_k", "tf.call_tf_function", "tpu_custom_call",
    "AllocateBuffer", "mosaic_gpu_v2", "stablehlo.dynamic_reduce_window",
    "stablehlo.dynamic_rng_bit_generator", "stablehlo.dynamic_top_k", "shape_assertion"})
_CUSTOM_CALL = re.compile(r'stablehlo\.custom_call @([\w$.]+)\(|call_target_name = "([^"]+)"')


def check_custom_calls(text: str, disabled_checks) -> None:
    """JAX's refusal of a module calling custom call targets without a compatibility
    guarantee (a kernel that a later jaxlib may drop or change), unless each is allowed by
    a DisabledSafetyCheck.custom_call (or all, by its target "ALL")."""
    allowed = set(STABLE_CUSTOM_CALL_TARGETS)
    allowed.update(t for t in (c.is_custom_call() for c in disabled_checks) if t is not None)
    if "ALL" in allowed:
        return
    refused = [line.strip() for line in text.splitlines()
               if any(target not in allowed for match in _CUSTOM_CALL.finditer(line)
                      for target in match.groups() if target)]
    if refused:
        raise ValueError(
            "Cannot serialize code with custom calls whose targets have no compatibility "
            "guarantees. See https://docs.jax.dev/en/latest/export/export.html"
            "#compatibility-guarantees-for-custom-calls. Examples are:\n"
            + "\n".join(refused) + ".\n")
