"""jxkernel.ffi, as jax.ffi: call compiled code registered with XLA (a "foreign function")
inside a program, as a StableHLO custom call of the typed FFI.

    >>> lu, pivots, info = ffi_call("lapack_sgetrf_ffi", (
    ...     jax.ShapeDtypeStruct((2, 2), jnp.float32), jax.ShapeDtypeStruct((2,), jnp.int32),
    ...     jax.ShapeDtypeStruct((), jnp.int32)), input_layouts=[(1, 0)],
    ...     output_layouts=[(1, 0), (0,), ()])(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> pivots
    Array([2, 2], dtype=int32)

`ffi_call(target, result types)` gives a function of the operands (keyword arguments: the
handler's attributes); `register_ffi_target` registers a handler (a PyCapsule, which
`pycapsule` makes from a ctypes function); `ffi_lowering` gives a lowering rule for a
primitive of one's own. As in JAX, an FFI call has no derivative (jvp and transpose raise)
and batches as its `vmap_method` says ("sequential", "expand_dims", "broadcast_all").
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..core.avals import ShapedArray, get_aval
from ..core.ir import param_printers
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, jvp_rules,
                             lowering_rules, transpose_rules)
from .loops import map as _map
from .shapes import broadcast, transpose
from ..xla import ffi as _xla_ffi
from ..xla import lapack as _xla_lapack
from ..xla.ffi import (include_dir, register_ffi_target,  # noqa: F401
                      register_ffi_target_as_batch_partitionable, register_ffi_type,
                      register_ffi_type_id)

__all__ = ["build_ffi_lowering_function", "ffi_call", "ffi_lowering", "include_dir",
           "pycapsule", "register_ffi_target", "register_ffi_target_as_batch_partitionable",
           "register_ffi_type", "register_ffi_type_id"]


def pycapsule(funcptr):
    """A PyCapsule holding the ctypes function pointer `funcptr` (what register_ffi_target
    takes)."""
    destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
    builder = ctypes.pythonapi.PyCapsule_New
    builder.restype = ctypes.py_object
    builder.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
    return builder(funcptr, None, destructor(0))


# ------------------------------------------------------------------ lowering
def _order(aval, layout) -> tuple:
    """An operand's or result's layout, minor-to-major as the custom call takes it (None:
    row-major), checked against its dimensions."""
    order = _xla_ffi.row_major(aval.ndim) if layout is None else tuple(layout)
    if sorted(order) != list(range(aval.ndim)):
        raise ValueError(f"layout {layout} is not a permutation of the {aval.ndim} dimensions "
                         f"of {aval.str_short(True)}")
    return order


def build_ffi_lowering_function(call_target_name: str, *, operand_layouts=None,
                                result_layouts=None, backend_config=None, has_side_effect=False,
                                operand_output_aliases=None, api_version: int = 4):
    """A lowering rule `(ctx, *operands, **attributes) -> results` emitting the custom call
    of `call_target_name` (jxkernel's rules write StableHLO text: register it with
    jxkernel.interpreters.mlir.register_lowering)."""
    def rule(ctx, *operands, **attributes):
        if api_version >= 4:
            if backend_config is not None and not isinstance(backend_config, dict):
                raise ValueError("When api_version > 4, backend_config must be a dictionary.")
            config_attr = _xla_ffi.dictionary({
                **(backend_config or {}),
                **{k: _xla_ffi.attribute(v) for k, v in attributes.items()}})
        else:
            if attributes:
                raise ValueError("The use of ffi_call attributes requires a custom call API "
                                 f"version of at least 4; got api_version={api_version}.")
            config_attr = '"' + (backend_config or "") + '"'
        ins = operand_layouts or [None] * len(ctx.avals_in)
        outs = result_layouts or [None] * len(ctx.avals_out)
        return _xla_ffi.custom_call(
            ctx, call_target_name, operands, ctx.avals_out, backend_config=config_attr,
            operand_layouts=list(map(_order, ctx.avals_in, ins)),
            result_layouts=list(map(_order, ctx.avals_out, outs)),
            aliases=operand_output_aliases, has_side_effect=bool(has_side_effect),
            api_version=api_version)
    return rule


ffi_lowering = build_ffi_lowering_function


# ------------------------------------------------------------------ ffi_call
ffi_call_p = Primitive("ffi_call", multiple_results=True)
_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None)


def ffi_call(target_name: str, result_shape_dtypes, *, has_side_effect: bool = False,
             vmap_method=None, input_layouts=None, output_layouts=None,
             input_output_aliases=None, custom_call_api_version: int = 4,
             legacy_backend_config=None):
    """A function calling the FFI target `target_name` on its positional operands (its
    keyword arguments are the handler's attributes), with results of `result_shape_dtypes`
    (one ShapeDtypeStruct, or a sequence of them)."""
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {list(_VMAP_METHODS)}, "
                         f"but got: {vmap_method}")
    multiple = isinstance(result_shape_dtypes, (list, tuple))
    results = list(result_shape_dtypes) if multiple else [result_shape_dtypes]
    result_avals = tuple(ShapedArray(tuple(r.shape), np.dtype(r.dtype)) for r in results)
    out_layouts = output_layouts if multiple else (output_layouts,)
    if custom_call_api_version >= 4 and legacy_backend_config is not None:
        raise ValueError("The use of the legacy_backend_config parameter requires "
                         f"custom_call_api_version < 4; got {custom_call_api_version}.")

    def call(*args, **attributes):
        in_avals = [get_aval(x) for x in args]
        if input_layouts is not None and len(input_layouts) != len(in_avals):
            raise ValueError(f"The number of input arguments ({len(in_avals)}) must equal the "
                             f"number of input layouts ({len(input_layouts)}).")
        if out_layouts is not None and out_layouts != (None,) and \
                len(out_layouts) != len(result_avals):
            raise ValueError(f"The number of outputs ({len(result_avals)}) must equal the "
                             f"number of output layouts ({len(out_layouts)}).")
        aliases = tuple(sorted((int(i), int(o)) for i, o in (input_output_aliases or {}).items()))
        for i, o in aliases:
            if i >= len(args) or o >= len(result_avals):
                raise ValueError(f"input_output_aliases contains the mapping '{i}:{o}' with an "
                                 "index out of range")
            if (in_avals[i].shape, in_avals[i].dtype) != (result_avals[o].shape,
                                                         result_avals[o].dtype):
                raise ValueError(f"input_output_aliases contains the mapping '{i}:{o}' "
                                 f"referring to an input with abstract value {in_avals[i]} and "
                                 f"an output with a different abstract value {result_avals[o]}.")
        outs = ffi_call_p.bind(
            *args, result_avals=result_avals, vmap_method=vmap_method, target_name=target_name,
            has_side_effect=has_side_effect,
            input_layouts=None if input_layouts is None else tuple(map(_tuple, input_layouts)),
            output_layouts=None if out_layouts is None else tuple(map(_tuple, out_layouts)),
            input_output_aliases=aliases, custom_call_api_version=custom_call_api_version,
            legacy_backend_config=legacy_backend_config,
            attributes=tuple(sorted((k, _hashable(v)) for k, v in attributes.items())))
        if multiple:
            return tuple(outs) if isinstance(result_shape_dtypes, tuple) else outs
        return outs[0]
    return call


def _tuple(layout):
    """A layout given major-to-minor (ffi_call's), as minor-to-major (the custom call's)."""
    return None if layout is None else tuple(layout)[::-1]


class _Frozen(np.ndarray):
    """A NumPy attribute, hashable by value (params are part of jit's keys)."""
    def __hash__(self):
        return hash((self.dtype.str, self.shape, self.tobytes()))

    def __eq__(self, other):
        return isinstance(other, np.ndarray) and self.dtype == other.dtype and \
            self.shape == other.shape and self.tobytes() == other.tobytes()


def _hashable(value):
    return np.array(value).view(_Frozen) if isinstance(value, np.ndarray) else value


def _ffi_lowering(ctx, *operands, target_name, has_side_effect, input_layouts, output_layouts,
                  input_output_aliases, custom_call_api_version, legacy_backend_config,
                  attributes, **_):
    if ctx.platform == "cpu":
        _xla_lapack.ensure_for_target(target_name)   # (its routines loaded: else a segfault)
    rule = build_ffi_lowering_function(
        target_name, operand_layouts=input_layouts, result_layouts=output_layouts,
        backend_config=legacy_backend_config, has_side_effect=has_side_effect,
        operand_output_aliases=dict(input_output_aliases), api_version=custom_call_api_version)
    return rule(ctx, *operands, **{k: np.asarray(v) if isinstance(v, np.ndarray) else v
                                   for k, v in attributes})


def _no_derivative(*args, target_name, **_):
    raise ValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can use "
                     "`jax.custom_jvp` or `jax.custom_jvp` to add support.")


def _ffi_batching(axis_data, args, dims, *, vmap_method, result_avals, **params):
    size = axis_data.size
    moved = [a if d is None else transpose(a, (d, *(i for i in range(get_aval(a).ndim)
                                                       if i != d)))
             for a, d in zip(args, dims)]
    batched = tuple(ShapedArray((size, *r.shape), r.dtype) for r in result_avals)

    def with_batch(layouts):         # the batch dimension is the major one (minor-to-major)
        return None if layouts is None else tuple(
            None if l is None else (*(i + 1 for i in l), 0) for l in layouts)
    if vmap_method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        n = size if vmap_method == "broadcast_all" else 1
        operands = [broadcast(a, (n,)) if d is None else a for a, d in zip(moved, dims)] \
            if vmap_method != "legacy_vectorized" else moved
        layouts = params["input_layouts"]
        params = dict(params, output_layouts=with_batch(params["output_layouts"]),
                      input_layouts=with_batch(layouts) if vmap_method != "legacy_vectorized"
                      else None if layouts is None else tuple(
                          l if d is None else with_batch((l,))[0]
                          for l, d in zip(layouts, dims)))
        outs = ffi_call_p.bind(*operands, vmap_method=vmap_method, result_avals=batched,
                               **params)
        return outs, [0] * len(outs)
    if vmap_method in ("sequential", "sequential_unrolled"):
        which = [d is not None for d in dims]

        def one(xs):
            it = iter(xs)
            return ffi_call_p.bind(*[next(it) if b else a for a, b in zip(moved, which)],
                                   vmap_method=vmap_method, result_avals=result_avals, **params)
        outs = _map(one, [a for a, b in zip(moved, which) if b])
        return list(outs), [0] * len(outs)
    raise NotImplementedError(
        f"vmap is only supported for the ffi_call primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        f"'legacy_vectorized'. Got vmap_method={vmap_method!r}.")


abstract_eval_rules[ffi_call_p] = lambda *avals, result_avals, **params: list(result_avals)
lowering_rules[ffi_call_p] = _ffi_lowering
jvp_rules[ffi_call_p] = _no_derivative
transpose_rules[ffi_call_p] = lambda ct, *args, **params: _no_derivative(**params)
axis_batching_rules[ffi_call_p] = _ffi_batching
param_printers[ffi_call_p] = lambda params: sorted(
    (k, v) for k, v in params.items() if k != "result_avals")
