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

from collections.abc import Mapping

from ..core.avals import AbstractToken, ShapedArray, get_aval
from ..core.dtypes import is_extended as is_extended_dtype
from ..core.physical import physical_aval, physical_rules
from ..core.ir import param_printers
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, jvp_rules,
                             lowering_rules, transpose_rules)
from .loops import map as _map
from .shapes import broadcast, transpose
from ..xla import ffi as _xla_ffi
from ..xla import lapack as _xla_lapack
from ..xla.layout import Layout
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
    row-major; a `Layout`, JAX's major-to-minor order reversed; a token's, none), checked
    against its dimensions."""
    ndim = 0 if isinstance(aval, AbstractToken) else len(physical_aval(aval).shape)
    if layout is None:
        return _xla_ffi.row_major(ndim)
    if isinstance(layout, Layout):
        if layout.tiling is not None:
            raise ValueError("The FFI does not support layouts with tiling")
        return tuple(layout.major_to_minor[::-1])
    order = tuple(layout)
    if sorted(order) != list(range(ndim)):
        raise ValueError(f"layout {layout} is not a permutation of the {ndim} dimensions "
                         f"of {aval.str_short(True)}")
    return order


def build_ffi_lowering_function(call_target_name: str, *, operand_layouts=None,
                                result_layouts=None, backend_config=None, has_side_effect=False,
                                operand_output_aliases=None, api_version: int = 4,
                                extra_attributes=None):
    """A lowering rule `(ctx, *operands, **attributes) -> results` emitting the custom call
    of `call_target_name` (jxkernel's rules write StableHLO text: register it with
    jxkernel.interpreters.mlir.register_lowering). `extra_attributes`: more attributes of the
    call, {name: text} (`mlir.ir_attribute(...)`'s), as JAX's `mhlo.frontend_attributes`."""
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
            api_version=api_version, extra_attributes=extra_attributes)
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
    result_avals = _result_avals(results)
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
            if i >= len(args):
                raise ValueError(f"input_output_aliases contains the mapping '{i}:{o}' with "
                                 f"input index {i} outside the range [0, {len(args)}).")
            if o >= len(result_avals):
                raise ValueError(f"input_output_aliases contains the mapping '{i}:{o}' with "
                                 f"output index {o} outside the range [0, "
                                 f"{len(result_avals)}).")
            if (getattr(in_avals[i], "shape", ()), getattr(in_avals[i], "dtype", ())) != (
                    getattr(result_avals[o], "shape", ()), getattr(result_avals[o], "dtype", ())):
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
            attributes=_wrap_hashable(attributes))
        if multiple:
            return tuple(outs) if isinstance(result_shape_dtypes, tuple) else outs
        return outs[0]
    return call


def _tuple(layout):
    """A layout given major-to-minor (ffi_call's), as minor-to-major (the custom call's)."""
    return None if layout is None else tuple(layout)[::-1]


def _result_avals(results) -> tuple:
    """ffi_call's result types (JAX's `_result_avals`): a token as itself, else a
    ShapedArray of the result's shape and dtype, JAX's ValueError for one without them."""
    avals = []
    for i, r in enumerate(results):
        if isinstance(r, AbstractToken):
            avals.append(r)
        elif not hasattr(r, "shape") or not hasattr(r, "dtype"):
            raise ValueError("All elements of result_shape_dtypes must have 'shape' and 'dtype' "
                             f"attributes. Got {r} at position {i}.")
        else:
            avals.append(ShapedArray(tuple(r.shape), r.dtype if is_extended_dtype(r.dtype)
                                     else np.dtype(r.dtype)))
    return tuple(avals)


class FrozenDict(Mapping):
    """A dict attribute as a hashable param (JAX's jax._src.frozen_dict.FrozenDict: params
    are part of jit's keys; the jaxpr prints it so)."""
    def __init__(self, d):
        self._d = dict(d.items())

    def __repr__(self):
        return f"FrozenDict({self._d!r})"

    def __str__(self):
        return f"FrozenDict({self._d})"

    def __getitem__(self, key):
        return self._d[key]

    def __hash__(self):
        return hash(frozenset(self._d.items()))

    def __eq__(self, other):
        return isinstance(other, FrozenDict) and self._d == other._d

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


class HashableArray:
    """A NumPy attribute as a hashable param, by value (JAX's
    jax._src.hashable_array.HashableArray)."""
    __slots__ = ("val",)

    def __init__(self, val):
        self.val = np.array(val, copy=True)
        self.val.setflags(write=False)

    def __repr__(self):
        return f"HashableArray({self.val!r})"

    def __str__(self):
        return f"HashableArray({self.val})"

    def __hash__(self):
        return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

    def __eq__(self, other):
        return isinstance(other, HashableArray) and self.val.shape == other.val.shape and \
            self.val.dtype == other.val.dtype and np.array_equal(self.val, other.val)


def _wrap_hashable(attributes: dict) -> tuple:
    """The call's keyword attributes as params (JAX's `_wrap_kwargs_hashable`): an array as a
    HashableArray, a dict as a FrozenDict, else the value, which must hash."""
    out = []
    for k, v in sorted(attributes.items()):
        if isinstance(v, np.ndarray):
            out.append((k, HashableArray(v)))
        elif isinstance(v, dict):
            out.append((k, FrozenDict(v)))
        else:
            try:
                hash(v)
            except TypeError as e:
                raise TypeError(f"Non-hashable keyword argument to ffi_call {k}: {v}") from e
            out.append((k, v))
    return tuple(out)


def _unwrap_hashable(attributes) -> dict:
    return {k: v.val if isinstance(v, HashableArray) else
            v._d if isinstance(v, FrozenDict) else v for k, v in attributes}


def _ffi_lowering(ctx, *operands, target_name, has_side_effect, input_layouts, output_layouts,
                  input_output_aliases, custom_call_api_version, legacy_backend_config,
                  attributes, **_):
    if ctx.platform == "cpu":
        _xla_lapack.ensure_for_target(target_name)   # (its routines loaded: else a segfault)
    rule = build_ffi_lowering_function(
        target_name, operand_layouts=input_layouts, result_layouts=output_layouts,
        backend_config=legacy_backend_config, has_side_effect=has_side_effect,
        operand_output_aliases=dict(input_output_aliases), api_version=custom_call_api_version)
    return rule(ctx, *operands, **_unwrap_hashable(attributes))


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


def _ffi_physical(in_avals, out_avals, *args, result_avals, **params):
    """A call given typed keys (or giving them): the call of their data (JAX's lowering
    takes each operand's physical type, `core.physical_aval`)."""
    return ffi_call_p.bind(*args, result_avals=tuple(
        r if isinstance(r, AbstractToken) else physical_aval(r) for r in result_avals),
        **params)


abstract_eval_rules[ffi_call_p] = lambda *avals, result_avals, **params: list(result_avals)
physical_rules[ffi_call_p] = _ffi_physical
lowering_rules[ffi_call_p] = _ffi_lowering
jvp_rules[ffi_call_p] = _no_derivative
transpose_rules[ffi_call_p] = lambda ct, *args, **params: _no_derivative(**params)
axis_batching_rules[ffi_call_p] = _ffi_batching
param_printers[ffi_call_p] = lambda params: sorted(
    (k, v) for k, v in params.items() if k != "result_avals")
