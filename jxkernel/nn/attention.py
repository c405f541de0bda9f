"""Scaled dot-product attention, as jax.nn.dot_product_attention's "xla" implementation (the
same einsums, masks, float32 softmax and grouped-query vmap), so results match JAX's.

Shape letters: B batch, T query length, S key/value length, N query heads, K key/value heads,
H head size, G = N // K query heads per key/value head.

    >>> q = k = v = jnp.ones((1, 4, 2, 8))        # B T N H
    >>> jax.nn.dot_product_attention(q, k, v, is_causal=True).shape
    (1, 4, 2, 8)
"""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..transforms.batching import vmap
from .functions import logsumexp, softmax

__all__ = ["dot_product_attention"]


def _large_negative(dtype):
    # the softmax runs in float32, so the fill value must stay finite there (also for float64)
    biggest = min(float(dtypes.finfo(dtype).max), float(dtypes.finfo(np.float32).max))
    return jnp.asarray(-0.7 * biggest, dtype=dtype)


def _causal_mask(T, S):
    return jnp.tril(jnp.ones((T, S), dtype=bool))[None, None, :, :]


def _window_mask(T, S, local_window_size):
    query_pos, key_pos = jnp.array(range(T)), jnp.array(range(S))
    left, right = local_window_size
    left_mask = query_pos[..., None] <= key_pos[..., None, :] + left
    right_mask = query_pos[..., None] >= key_pos[..., None, :] - right
    return jnp.logical_and(right_mask, left_mask)[None, None, :, :]


def _padding_mask_logits(T, S, q_seqlen, kv_seqlen):
    q_mask = kv_mask = True
    if q_seqlen is not None:
        q_mask = jnp.arange(0, T)[None, :, None] < q_seqlen[:, None, None]
    if kv_seqlen is not None:
        kv_mask = jnp.arange(0, S)[None, None, :] < kv_seqlen[:, None, None]
    return jnp.logical_and(q_mask, kv_mask)[:, None, :, :]


def _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size):
    if (mask is None and not is_causal and q_seqlen is None and kv_seqlen is None
            and local_window_size is None):
        return logits
    combined = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        combined = jnp.logical_and(combined, mask)
    T, S = logits.shape[2], logits.shape[3]
    if is_causal:
        combined = jnp.logical_and(combined, _causal_mask(T, S))
    if local_window_size is not None:
        combined = jnp.logical_and(combined, _window_mask(T, S, local_window_size))
    if q_seqlen is not None or kv_seqlen is not None:
        combined = jnp.logical_and(combined, _padding_mask_logits(T, S, q_seqlen, kv_seqlen))
    return jnp.where(combined, logits, _large_negative(logits.dtype))


def _attention_core(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                    local_window_size, return_residual):
    """One query group: query (B T N H) against key/value (B S N H)."""
    logits_dtype = jnp.promote_types(query.dtype, np.float32)
    logits = jnp.einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
    logits *= jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    padded = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size)
    padded = padded.astype(np.float32)
    probs = softmax(padded, axis=-1).astype(key.dtype)
    encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:
        q_mask = (jnp.arange(0, encoded.shape[1])[None, :] < q_seqlen[:, None])[:, :, None, None]
        encoded *= q_mask.astype(encoded.dtype)
    if return_residual:
        lse = jnp.transpose(logsumexp(padded, axis=-1).astype(key.dtype), (0, 2, 1))
        return encoded, lax.stop_gradient(lse)
    return encoded


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                   local_window_size, return_residual):
    B, T, N, H = query.shape
    _, S, K, _ = key.shape
    G = N // K
    query = jnp.reshape(query, (B, T, K, G, H))

    def grouped(t):               # a (B|1, N|1, T, S) bias or mask -> (B|1, K|1, G, T, S)
        if t is None:
            return t
        tB, tN, tT, tS = t.shape
        if tN == 1:
            return jnp.broadcast_to(t[:, :, None, :, :], (tB, tN, G, tT, tS))
        if tN != N:
            raise ValueError(f"dot_product_attention: a bias or mask must have 1 or N={N} heads "
                             f"(axis 1), got shape {t.shape}")
        return jnp.reshape(t, (tB, K, G, tT, tS))
    per_group = vmap(_attention_core,
                     in_axes=(3, None, None, 2, 2, None, None, None, None, None, None),
                     out_axes=3)
    out = per_group(query, key, value, grouped(bias), grouped(mask), is_causal, scale,
                    q_seqlen, kv_seqlen, local_window_size, return_residual)
    if return_residual:
        encoded, lse = out
        return jnp.reshape(encoded, (B, T, N, H)), jnp.reshape(lse, (B, T, N))
    return jnp.reshape(out, (B, T, N, H))


def _check(t, shape, dtype, name):
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    if any(want != -1 and got != want for got, want in zip(t.shape, shape)):
        shown = [("any" if d == -1 else d) for d in shape]
        raise ValueError(f"{name} shape should be {shown}: but got {t.shape}")


def _ensure_4d(t):
    t = jnp.asarray(t)
    return jnp.expand_dims(t, axis=tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual=False):
    """softmax(scale * Q K^T + bias, masked) V for each head, as jax.nn.dot_product_attention.

    query is (B, T, N, H) or (T, N, H); key and value (B, S, K, H) or (S, K, H) with N a
    multiple of K (grouped-query attention; K == 1 is multi-query). bias and mask (boolean,
    True = attend) broadcast to (B, N, T, S). scale defaults to 1/sqrt(H). is_causal,
    query_seq_lengths / key_value_seq_lengths (int32, shape (B,)) and local_window_size
    (int or (left, right)) add masks. return_residual=True also returns the logsumexp of the
    logits, shape (B, T, N). Only implementation=None or "xla" exists here.

    >>> q = jnp.ones((3, 2, 4)); jax.nn.dot_product_attention(q, q, q).shape
    (3, 2, 4)
    """
    output_shape = jnp.asarray(query).shape
    query, key, value = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = _ensure_4d(bias) if bias is not None else None
    mask = _ensure_4d(mask) if mask is not None else None
    if query_seq_lengths is not None:
        query_seq_lengths = jnp.asarray(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    elif local_window_size is not None:
        local_window_size = tuple(local_window_size)

    B, S, K, H = key.shape
    _check(value, [B, S, K, H], key.dtype, "value")
    _check(query, [B, -1, -1, H], key.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(query_seq_lengths, [B], np.dtype("int32"), "query_seq_lengths")
    _check(key_value_seq_lengths, [B], np.dtype("int32"), "key_value_seq_lengths")
    if query.shape[-2] % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, but "
                         f"got {query.shape[-2]} vs {K}")
    if implementation == "cudnn":
        raise NotImplementedError("dot_product_attention: jxkernel has no cuDNN implementation; "
                                  "use implementation=None or 'xla'")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale = (1.0 / np.sqrt(H)) if scale is None else scale
    out = _attention_xla(query, key, value, bias, mask, is_causal, scale, query_seq_lengths,
                         key_value_seq_lengths, local_window_size, return_residual)
    if return_residual:
        out, residual = out
        return jnp.reshape(out, output_shape), jnp.reshape(residual, output_shape[:-1])
    return jnp.reshape(out, output_shape)
