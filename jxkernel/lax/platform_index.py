"""platform_index: the index of the platform a program is lowered for, among a tuple of
platform-name tuples (None: the default branch). It lowers to a constant of the module, so XLA
never sees a choice: `lax.platform_dependent` (cond.py) binds it and hands it to a cond, whose
lowering keeps only the branches of the module's platforms (`kept_branches`).

    >>> platform_index_p.bind(platforms=(("cpu",), None))      # on a CPU
    Array(0, dtype=int32)
"""
from __future__ import annotations

import numpy as np

from ..core.avals import ShapedArray
from ..core.primitive import (Primitive, abstract_eval_rules, jvp_rules, lowering_rules,
                              numpy_rules)
from ..transforms.ad_util import Zero
from ..xla import client as _client
from ..xla.lowering import index_case

platform_index_p = Primitive("platform_index")
_GPU_NAMES = ("cuda", "rocm", "gpu")


def _branch_index(platform: str, platforms) -> int | None:
    """The branch for a lowering `platform` ("gpu" for CUDA and ROCm): the one naming it,
    else the default (None), else None."""
    found = None
    for i, names in enumerate(platforms):
        if names is None:
            found = i if found is None else found
        elif platform in names or platform == "gpu" and any(n in _GPU_NAMES for n in names):
            return i
    return found


def _platform_index_lowering(ctx, *, platforms):
    # reads ctx.platform: in a module for several platforms, one lowering per platform
    found = _branch_index(ctx.platform, platforms)
    if found is None:
        raise _no_branch_error(ctx.module_ctx.platforms, platforms)
    return ctx.constant(np.int32(found))


def _no_branch_error(lowering_platforms, platforms) -> NotImplementedError:
    """JAX's words, naming by JAX's names the module's platforms that have no branch."""
    missing = [_client.JAX_NAMES.get(p, p) for p in lowering_platforms
               if _branch_index(p, platforms) is None]
    where = f"platform {missing[0]}" if len(lowering_platforms) == 1 else f"platforms {missing}"
    return NotImplementedError(f"MLIR translation rule for primitive "
                               f"'platform_index(platforms={platforms})' not found for {where}")


def kept_branches(ctx, index, branches, branches_platforms) -> tuple:
    """A platform_dependent cond keeps, as JAX's, only the branches of the platforms its module
    is lowered for (one, in a module for one platform), with the index mapped into them by a
    case. (platform_index's lowering has refused a platform without a branch already.)"""
    kept: dict = {}           # branch -> its place among the kept ones
    for platform in ctx.module_ctx.platforms:
        kept.setdefault(_branch_index(platform, branches_platforms), len(kept))
    index = index_case(ctx.block, index, [kept.get(i, 0) for i in range(len(branches))],
                       ctx.loc)
    return index, [branches[i] for i in kept]


abstract_eval_rules[platform_index_p] = lambda *, platforms: ShapedArray((), np.int32)
lowering_rules[platform_index_p] = _platform_index_lowering


def _platform_index_numpy(*, platforms):
    """The branch naming "numpy", else the one naming "cpu", else the default. The NumPy
    backend runs on the host's CPU and computes what XLA's CPU does (its subnormal flushing,
    its formulas): a program JAX would run with its `cpu` branch gets that branch here too."""
    for wanted in ("numpy", "cpu"):
        for i, names in enumerate(platforms):
            if names is not None and wanted in names:
                return np.int32(i)
    default = [i for i, names in enumerate(platforms) if names is None]
    if not default:
        # (JAX's words first, as on XLA's platforms: code that catches them matches here too)
        raise NotImplementedError(
            f"MLIR translation rule for primitive 'platform_index(platforms={platforms})' not "
            f"found for platform numpy: lax.platform_dependent has no branch for it (nor for "
            f"'cpu', which the NumPy backend also takes); give one, or default=")
    return np.int32(default[0])


numpy_rules[platform_index_p] = _platform_index_numpy
jvp_rules[platform_index_p] = lambda primals, tangents, *, platforms: (
    platform_index_p.bind(platforms=platforms), Zero(ShapedArray((), np.int32)))
