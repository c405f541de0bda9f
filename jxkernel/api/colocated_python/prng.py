"""Typed PRNG keys across a colocated call, as JAX's `colocated_python.func` handles them:
IFRT's colocated programs take no key types, so keys cross as their uint32 data, unwrapped on
one side and wrapped again on the other around the user's function."""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core import dtypes
from ...core.avals import ShapeDtypeStruct
from ...core.mesh import NamedSharding, PartitionSpec
from ...core.physical import physical_value
from ...tree_util import tree_flatten, tree_unflatten


def is_prng_key_dtype(dtype) -> bool:
    """Returns True if the dtype is a PRNG key dtype (e.g. key<threefry2x32>)."""
    kind = dtypes.extended_scalar_type(dtype)      # (NumPy's issubdtype refuses key dtypes)
    return kind is not None and issubclass(kind, dtypes.prng_key)


def _prng_key_type_to_physical_spec(key_type: ShapeDtypeStruct) -> ShapeDtypeStruct:
    """A key spec's data spec (`key<fry>[3]` -> `uint32[3,2]`), its sharding extended over the
    key data's axes unsplit, as JAX's `physical_sharding`."""
    key_shape = key_type.dtype.key_shape
    sharding = key_type.sharding
    if sharding is not None and hasattr(sharding, "spec"):
        spec = sharding.spec.partitions + (None,) * (len(key_type.shape) - len(sharding.spec))
        sharding = NamedSharding(sharding.mesh, PartitionSpec(*spec, *(None,) * len(key_shape)),
                                 memory_kind=sharding.memory_kind)
    return ShapeDtypeStruct(shape=(*key_type.shape, *key_shape), dtype=np.dtype(np.uint32),
                            sharding=sharding)


def _get_prng_key_info(specs: Sequence[ShapeDtypeStruct]) -> dict:
    """Index in `specs` -> the key dtype, for the specs of typed keys. (JAX keeps the impl's
    name and rewraps with `wrap_key_data(impl=name)`; the key dtype wraps the same keys.)"""
    return {i: spec.dtype for i, spec in enumerate(specs) if is_prng_key_dtype(spec.dtype)}


def _convert_inp_type_to_physical(inp_type, prng_info: dict) -> tuple:
    """Converts PRNG key types to physical types, leaving others unchanged."""
    if not prng_info:
        return tuple(inp_type)
    inp_type = list(inp_type)
    for i in prng_info:
        inp_type[i] = _prng_key_type_to_physical_spec(inp_type[i])
    return tuple(inp_type)


def _unwrap_prng_keys(args_leaves: Sequence[Any], prng_info: dict) -> list:
    """Key arrays as their data (`jax.random.key_data` of concrete keys)."""
    result = list(args_leaves)
    for i in prng_info:
        if is_prng_key_dtype(result[i].dtype):
            result[i] = physical_value(result[i])
    return result


def _wrap_prng_keys(results: Sequence[Any], prng_info: dict) -> list:
    """Key data wrapped back into key arrays (`jax.random.wrap_key_data`)."""
    result = list(results)
    for i, key_dtype in prng_info.items():
        if not is_prng_key_dtype(result[i].dtype):
            result[i] = key_dtype.wrap(result[i])
    return result


def _make_prng_wrapped_fun(fun: Callable[..., Any], prng_in_info: dict, prng_out_info: dict):
    """`fun` as the colocated host runs it: its key inputs arrive as key data (wrapped back
    into keys before `fun` sees them) and its key outputs leave as key data."""

    @functools.wraps(fun)
    def wrapped_fun(*args, **kwargs):
        args_leaves, treedef = tree_flatten((args, kwargs))
        args_leaves = _wrap_prng_keys(args_leaves, prng_in_info)
        args, kwargs = tree_unflatten(treedef, args_leaves)
        result = fun(*args, **kwargs)
        result_leaves, out_treedef = tree_flatten(result)
        result_leaves = _unwrap_prng_keys(result_leaves, prng_out_info)
        return tree_unflatten(out_treedef, result_leaves)

    return wrapped_fun
