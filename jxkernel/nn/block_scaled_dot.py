"""The primitives under jax.nn.scaled_matmul, as JAX 0.10.2 defines them (its
jax/_src/cudnn/scaled_matmul_stablehlo.py): `scaled_matmul_wrapper`, what a jit traces, and
`scaled_matmul`, what that lowers through.

Both take `a` (B, M, K), `b` (B, N, K) and their block scales (B, M, K_s), (B, N, K_s), and
give (B, M, N) in `preferred_element_type`:

    >>> a = jnp.ones((1, 4, 32), jnp.float8_e4m3fn)
    >>> s = jnp.ones((1, 4, 1), jnp.float8_e8m0fnu)
    >>> jax.eval_shape(scaled_matmul, a, a, s, s)
    ShapeDtypeStruct(shape=(1, 4, 4), dtype=float32)

- On a CUDA GPU `scaled_matmul` is the custom call `__op$block_scaled_dot`, which XLA's GPU
  compiler gives to cuDNN's block-scaled matmul where the GPU has one (Blackwell) and
  otherwise expands into dequantize-and-dot. For ROCm it is lax.scaled_dot (the composite
  `xla.scaled_dot`, which XLA's ROCm compiler matches); a module exported for 'rocm' is plain
  StableHLO, so the CPU can run it, and the tests do. On the CPU it has no lowering, as in
  JAX: "MLIR translation rule for primitive 'scaled_matmul' not found for platform cpu".
- `scaled_matmul_wrapper` lowers through `custom_partitioning`: on one device that is
  `scaled_matmul` itself; over a mesh XLA's partitioner asks `_partition` how to split it
  (batch as the operands, K sharded alike reduced by psum or psum_scatter, M and N kept
  unless they share an axis).
- vmap folds its axes into B.
"""
from __future__ import annotations

import json
import math

import numpy as np

from ..api.custom_partitioning import custom_partitioning
from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.mesh import NamedSharding, PartitionSpec as P
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                              numpy_rules)
from ..lax import _lowering as hl
from ..lax import parallel
from ..lax.scaled import scaled_dot
from ..lax.shapes import reshape
from ..transforms import batch_util as bu
from ..transforms.jit import jit
from ..xla import ffi
from ..xla import stablehlo as hlo
from ..xla.lowering import no_rule_error

scaled_matmul_p = Primitive("scaled_matmul", multiple_results=True)
scaled_matmul_wrapper_p = Primitive("scaled_matmul_wrapper", multiple_results=True)

BLOCK_SCALED_DOT = "__op$block_scaled_dot"      # the custom call XLA's GPU compiler rewrites


def _abstract_eval(a, b, a_scales, b_scales, *, preferred_element_type):
    batch, m, _ = a.shape
    return [ShapedArray((batch, m, b.shape[1]), preferred_element_type)]


# ------------------------------------------------------------------ scaled_matmul
# the backend config's name for the type the custom call dequantizes to
_DEQUANTIZE_TYPES = {"float32": "F32", "bfloat16": "BF16", "float16": "F16"}


def _as_scaled_dot(a, b, a_scales, b_scales, *, preferred_element_type):
    # (B, M, K) x (B, N, K): K contracted, B batched, giving (B, M, N)
    return scaled_dot(a, b, lhs_scale=a_scales, rhs_scale=b_scales,
                      dimension_numbers=(((2,), (2,)), ((0,), (0,))),
                      preferred_element_type=preferred_element_type)


_rocm_lowering = hl.lower_fun(_as_scaled_dot)


def _lowering(ctx, a, b, a_scales, b_scales, *, preferred_element_type):
    if ctx.platform == "rocm":
        return [_rocm_lowering(ctx, a, b, a_scales, b_scales,
                               preferred_element_type=preferred_element_type)]
    if ctx.platform != "gpu":
        raise no_rule_error("scaled_matmul", ctx.platform)
    dequantize = _DEQUANTIZE_TYPES.get(np.dtype(preferred_element_type).name)
    if dequantize is None:
        raise TypeError(f"scaled_matmul on a CUDA GPU computes in float32, bfloat16 or "
                        f"float16, not {np.dtype(preferred_element_type).name}: pass one of "
                        f"those as preferred_element_type")
    config = {"scaled_dot_backend_config": {"lhs_batch_dimensions": [0],
                                            "rhs_batch_dimensions": [0],
                                            "dequantize_type": dequantize}}
    return ffi.custom_call(ctx, BLOCK_SCALED_DOT, [a, b, a_scales, b_scales], ctx.avals_out,
                           backend_config=hlo.string_attr(json.dumps(config)),
                           operand_layouts=[ffi.row_major(3)] * 4,
                           result_layouts=[ffi.row_major(3)], api_version=2)


def _numpy_rule(*args, preferred_element_type):
    # the NumPy backend stands in for the CPU, where JAX has no kernel for it either
    raise no_rule_error("scaled_matmul", "numpy")


# ------------------------------------------------------------------ partitioning
def _impl(a, b, a_scales, b_scales, preferred_element_type):
    return scaled_matmul_p.bind(a, b, a_scales, b_scales,
                                preferred_element_type=preferred_element_type)


def _overlap(x, y) -> bool:
    """Whether two entries of a spec (an axis name, a tuple of them, or None) share an axis."""
    if x is None or y is None:
        return False
    as_set = lambda s: {s} if isinstance(s, str) else set(s)     # noqa: E731
    return bool(as_set(x) & as_set(y))


def _reduces_k(lhs, rhs) -> bool:
    """K is sharded alike on both operands and N not: each device's product is a partial
    sum over its share of K, all-reduced."""
    lhs_parts, rhs_parts = lhs.spec.partitions, rhs.spec.partitions
    return lhs_parts[2] is not None and lhs_parts[2] == rhs_parts[2] and rhs_parts[1] is None


def _scatters_k(lhs, rhs) -> bool:
    """K sharded alike, and M and N on one axis (the same): the partial sums are
    reduce-scattered over M instead."""
    _, m, k = lhs.spec
    _, n, rhs_k = rhs.spec
    return k is not None and k == rhs_k and m is not None and m == n


def _check_shardings(shardings) -> None:
    # (JAX's checks and words; its last two messages leave their braces unfilled)
    if len(shardings) != 4:
        raise TypeError(f"shardings should container 4 inputs, but got {len(shardings)}")
    lhs, rhs = shardings[:2]
    if len(lhs.spec) != 3 or len(rhs.spec) != 3:
        raise TypeError(f"shardings specs rank should be 3, but got lhs: {len(lhs.spec)} "
                        "and rhs: {len(rhs.spec)}")
    if lhs.spec.partitions[0] != rhs.spec.partitions[0]:
        raise TypeError("shardings spec for batch dim should be same, but got lhs: "
                        "{lhs.spec.partitions[0]} and rhs: {rhs.spec.partitions[0]}")


def output_sharding(lhs, rhs) -> list:
    """The result's sharding from the operands': (B, M, N) as theirs, N replicated where it
    shares an axis with M; with K reduce-scattered, the lhs's own spec."""
    if _scatters_k(lhs, rhs):
        return [NamedSharding(lhs.mesh, P(*lhs.spec.partitions))]
    batch, m, _ = lhs.spec
    n = rhs.spec.partitions[1]
    return [NamedSharding(lhs.mesh, P(batch, m, None if _overlap(m, n) else n))]


def scatter_dimension(lhs, rhs, out):
    """The result's dimension (1 for M, 2 for N) sharded on K's axis, which the partial
    sums are reduce-scattered along, or None."""
    k = lhs.spec.partitions[2]
    if k is None or k != rhs.spec.partitions[2]:
        return None
    _, m, n = out.spec
    return 1 if m == k else 2 if n == k else None


def operand_shardings(lhs, rhs, out, scatter_dim) -> tuple:
    """((lhs, rhs, lhs scales, rhs scales), [result]): the shardings each device computes
    its share with."""
    batch, m, k = lhs.spec
    n = rhs.spec.partitions[1]
    if scatter_dim == 1:
        specs = (batch, None, k), (batch, n, k), (batch, k, n)
    elif scatter_dim == 2:
        specs = (batch, m, k), (batch, None, k), (batch, m, k)
    else:
        if not _reduces_k(lhs, rhs):
            k = None
        if _overlap(m, n):      # keep the one the result kept
            m, n = (None, n) if n == out.spec.partitions[2] else (m, None)
        specs = (batch, m, k), (batch, n, k), (batch, m, n)
    lhs_s, rhs_s, out_s = (NamedSharding(lhs.mesh, P(*s)) for s in specs)
    return (lhs_s, rhs_s, lhs_s, rhs_s), [out_s]


def _infer_from_operands(preferred_element_type, mesh, shapes, output_shape):
    shardings = [s.sharding for s in shapes]
    _check_shardings(shardings)
    return output_sharding(*shardings[:2])


def _partition(preferred_element_type, mesh, shapes, output_shape):
    shardings = [s.sharding for s in shapes]
    _check_shardings(shardings)
    lhs, rhs = shardings[:2]
    dim = scatter_dimension(lhs, rhs, output_shape[0].sharding)
    reduce, k_axis = _reduces_k(lhs, rhs), lhs.spec.partitions[2]

    def per_device(a, b, a_scales, b_scales):
        out = _impl(a, b, a_scales, b_scales, preferred_element_type)
        if dim is not None:
            return parallel.psum_scatter(out, k_axis, scatter_dimension=dim, tiled=True)
        return parallel.psum(out, k_axis) if reduce else out

    arg_shardings, out_shardings = operand_shardings(lhs, rhs, output_shape[0].sharding, dim)
    return mesh, per_device, out_shardings, arg_shardings


_partitioned = custom_partitioning(_impl, static_argnums=(4,))
_partitioned.def_partition(infer_sharding_from_operands=_infer_from_operands,
                           partition=_partition,
                           sharding_rule="b m k, b n k, b m k, b n k -> b m n")


def _wrapper_fun(a, b, a_scales, b_scales, *, preferred_element_type):
    return _partitioned(a, b, a_scales, b_scales, preferred_element_type)


# ------------------------------------------------------------------ batching (both)
def _batching(vals, dims, *, preferred_element_type):
    """Every vmapped axis folded into B: (..., B, M, K) reshaped to (prod, M, K), and the
    product back to (..., B, M, N). (JAX requires every operand batched at the same axis;
    here an unbatched one is broadcast.)"""
    size = bu.axis_size_of(vals, dims)
    a, b, a_scales, b_scales = (bu.bdim_at_front(x, d, size) for x, d in zip(vals, dims))
    *batch, m, k = a.shape
    n, k_scales = b.shape[-2], a_scales.shape[-1]
    flat = math.prod(batch)
    # (JAX's order of the reshapes: lhs, its scales, rhs, its scales)
    a = reshape(a, (flat, m, k))
    a_scales = reshape(a_scales, (flat, m, k_scales))
    b = reshape(b, (flat, n, k))
    b_scales = reshape(b_scales, (flat, n, k_scales))
    (out,) = scaled_matmul_wrapper_p.bind(a, b, a_scales, b_scales,
                                          preferred_element_type=preferred_element_type)
    return [reshape(out, (*batch, m, n))], [0]


for _p in (scaled_matmul_p, scaled_matmul_wrapper_p):
    abstract_eval_rules[_p] = _abstract_eval
    batching_rules[_p] = _batching
lowering_rules[scaled_matmul_p] = _lowering
numpy_rules[scaled_matmul_p] = _numpy_rule
lowering_rules[scaled_matmul_wrapper_p] = hl.lower_fun(_wrapper_fun, multiple_results=True)
numpy_rules[scaled_matmul_wrapper_p] = hl.numpy_fun(_wrapper_fun, multiple_results=True)


def _scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    (out,) = scaled_matmul_wrapper_p.bind(lhs, rhs, lhs_scales, rhs_scales,
                                          preferred_element_type=preferred_element_type)
    return out


_scaled_matmul_jit = jit(_scaled_matmul, static_argnames=("preferred_element_type",))


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """The block-scaled product of (B, M, K) and (B, N, K) operands, under the jit JAX
    traces it in (`jit(_scaled_matmul)`); the arguments checked by jax.nn's function."""
    preferred = dtypes.canonicalize_user_dtype(preferred_element_type, "scaled_matmul_wrapper")
    return _scaled_matmul_jit(lhs, rhs, lhs_scales, rhs_scales,
                              preferred_element_type=np.dtype(preferred))
