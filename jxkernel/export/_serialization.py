"""jxkernel's file format for an `Exported` (not JAX's flatbuffer: neither reads the other's).

A blob is MAGIC, then the SHA-256 of the payload, then the payload: UTF-8 JSON holding the
format version, the signature (pytrees, avals, platforms, the number of devices and each
input's and output's sharding over an abstract mesh...), the module as a StableHLO portable
artifact (base64), and the VJPs up to the order asked for, nested.

    >>> again = deserialize(exp.serialize())
    >>> again.in_avals == exp.in_avals and again.mlir_module() == exp.mlir_module()
    True
"""
from __future__ import annotations

import base64
import hashlib
import json

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.mesh import AbstractMesh, AxisType, NamedSharding, PartitionSpec
from ..core.symbolic import is_symbolic
from ..tree_util import tree_flatten, tree_unflatten
from ._sharded import typed_avals
from .shape_poly import SymbolicScope, symbolic_shape

MAGIC = b"JXKEXPORT\n"
FORMAT_VERSION = 1
_DIGEST = hashlib.sha256().digest_size
_DTYPES = {np.dtype(d).name: np.dtype(d) for d in (
    dtypes.bool_, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
    dtypes.uint16, dtypes.uint32, dtypes.uint64, *dtypes.BFLOAT16_DTYPES, dtypes.float16,
    dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)}


def serialize(exported, vjp_order: int = 0) -> bytearray:
    payload = json.dumps(_to_json(exported, vjp_order)).encode()
    return bytearray(MAGIC + hashlib.sha256(payload).digest() + payload)


def deserialize(blob) -> dict:
    """The fields of the Exported that `Exported.serialize()` wrote into `blob` (bytes or
    bytearray), its VJP's under "vjp"; `export.deserialize` makes the Exported of them."""
    blob = bytes(blob)
    head = len(MAGIC) + _DIGEST
    if not blob.startswith(MAGIC):
        raise ValueError(f"deserialize: not a jxkernel Exported (the blob starts with "
                         f"{blob[:len(MAGIC)]!r}, not {MAGIC!r}). Pass what "
                         f"Exported.serialize() returned; JAX's own format is not read.")
    payload = blob[head:]
    if hashlib.sha256(payload).digest() != blob[len(MAGIC):head]:
        raise ValueError(f"deserialize: the blob of {len(blob)} bytes is damaged (its checksum "
                         f"does not match): it was truncated or changed after serialize().")
    record = json.loads(payload)
    if record.get("format") != FORMAT_VERSION:
        raise ValueError(f"deserialize: the blob has format version {record.get('format')!r}; "
                         f"this jxkernel reads version {FORMAT_VERSION}. Export it again with "
                         f"this version.")
    return _fields(record)


# ------------------------------------------------------------------ records
def _to_json(exported, vjp_order: int) -> dict:
    return {
        "format": FORMAT_VERSION, "fun_name": exported.fun_name,
        "in_tree": _tree_to_json(exported.in_tree), "out_tree": _tree_to_json(exported.out_tree),
        "in_avals": [_aval_to_json(a) for a in exported.in_avals],
        "out_avals": [_aval_to_json(a) for a in exported.out_avals],
        "platforms": list(exported.platforms), "nr_devices": exported.nr_devices,
        "calling_convention_version": exported.calling_convention_version,
        "uses_global_constants": exported.uses_global_constants,
        "kept": list(exported.module_kept_var_idx),
        "module": base64.b64encode(exported.mlir_module_serialized).decode("ascii"),
        "constraints": list(_constraints(exported.in_avals)),
        "in_shardings": [_sharding_to_json(s) for s in exported._in_named_shardings],
        "out_shardings": [_sharding_to_json(s) for s in exported._out_named_shardings],
        "vjp": _to_json(exported.vjp(), vjp_order - 1) if vjp_order > 0 else None,
    }


def _fields(record: dict) -> dict:
    scope = _scope(record)
    in_avals = tuple(_aval_from_json(r, scope) for r in record["in_avals"])
    out_avals = tuple(_aval_from_json(r, scope) for r in record["out_avals"])
    # (a blob written before shardings were stored: one device, all unspecified)
    in_named = tuple(map(_sharding_from_json, record.get("in_shardings", [None] * len(in_avals))))
    out_named = tuple(map(_sharding_from_json,
                          record.get("out_shardings", [None] * len(out_avals))))
    return dict(
        fun_name=record["fun_name"], in_tree=_tree_from_json(record["in_tree"]),
        in_avals=typed_avals(in_avals, in_named), out_tree=_tree_from_json(record["out_tree"]),
        out_avals=typed_avals(out_avals, out_named),
        in_shardings_hlo=(None,) * len(in_avals), out_shardings_hlo=(None,) * len(out_avals),
        _in_named_shardings=in_named, _out_named_shardings=out_named,
        nr_devices=record["nr_devices"], platforms=tuple(record["platforms"]),
        ordered_effects=(), unordered_effects=(), disabled_safety_checks=(),
        mlir_module_serialized=base64.b64decode(record["module"]),
        calling_convention_version=record["calling_convention_version"],
        module_kept_var_idx=tuple(record.get("kept", range(len(in_avals)))),  # (or all:
        # a blob written before jit dropped unused arguments)
        uses_global_constants=record.get("uses_global_constants"),     # (None: written before it)
        vjp=None if record["vjp"] is None else _fields(record["vjp"]))


def _aval_to_json(aval) -> list:
    # a symbolic dimension is stored as its text ("2*a + 1"), parsed again when loading
    shape = [d if isinstance(d, (int, np.integer)) else str(d) for d in aval.shape]
    return [shape, np.dtype(aval.dtype).name, bool(aval.weak_type)]


def _aval_from_json(record, scope) -> ShapedArray:
    shape, dtype, weak = record
    if any(isinstance(d, str) for d in shape):
        shape = [symbolic_shape(d, scope=scope)[0] if isinstance(d, str) else d for d in shape]
    return ShapedArray(tuple(shape), _DTYPES[dtype], weak)


def _constraints(avals) -> tuple:
    """The constraints of the symbolic dimensions' scope (one per export)."""
    for aval in avals:
        for d in aval.shape:
            if is_symbolic(d):
                return d.scope.constraints_str
    return ()


def _scope(record):
    """A fresh scope for the symbolic dimensions of one loaded export (None: it has none)."""
    if not any(isinstance(d, str) for r in record["in_avals"] for d in r[0]):
        return None
    return SymbolicScope(tuple(record.get("constraints", ())))


# ------------------------------------------------------------------ shardings
def _sharding_to_json(sharding):
    """None, or a NamedSharding over an AbstractMesh: its mesh's axes, types and device kind,
    its spec (per dimension null, an axis, or a list of axes) and memory kind."""
    if sharding is None:
        return None
    # (no P.UNCONSTRAINED: jit refuses it in its shardings, as JAX's)
    mesh, spec = sharding.mesh, sharding.spec
    return {"axis_names": list(mesh.axis_names), "axis_sizes": list(mesh.axis_sizes),
            "axis_types": [t.name for t in mesh.axis_types],
            "device": None if mesh._device is None else list(mesh._device),
            "spec": [list(p) if isinstance(p, tuple) else p for p in spec],
            "unreduced": sorted(spec.unreduced), "reduced": sorted(spec.reduced),
            "memory_kind": sharding.memory_kind}


def _sharding_from_json(record):
    if record is None:
        return None
    device = record["device"] and tuple(record["device"])
    mesh = AbstractMesh(record["axis_sizes"], record["axis_names"],
                        tuple(AxisType[t] for t in record["axis_types"]), _device=device)
    spec = PartitionSpec(*(tuple(p) if isinstance(p, list) else p for p in record["spec"]),
                         unreduced=frozenset(record["unreduced"]),
                         reduced=frozenset(record["reduced"]))
    return NamedSharding(mesh, spec, memory_kind=record["memory_kind"])


# ------------------------------------------------------------------ pytrees
_LEAF = "*"


def _tree_to_json(treedef):
    """The structure as nested JSON: "*" a leaf, null None, [kind, children] a node."""
    return _node_to_json(tree_unflatten(treedef, [_Leaf()] * treedef.num_leaves))


class _Leaf:
    """A placeholder leaf (never a pytree node, unlike None)."""


def _node_to_json(node):
    if isinstance(node, _Leaf):
        return _LEAF
    if node is None:
        return None
    if type(node) in (tuple, list):
        return [type(node).__name__, [_node_to_json(c) for c in node]]
    if type(node) is dict and all(type(k) in (str, int) for k in node):
        return ["dict", [[k, _node_to_json(v)] for k, v in node.items()]]
    raise ValueError(f"Exported.serialize: cannot store a pytree node of type "
                     f"{type(node).__name__}; jxkernel's format holds tuples, lists, dicts with "
                     f"str or int keys, and None. Pass such containers to the exported function.")


def _tree_from_json(record):
    return tree_flatten(_node_from_json(record))[1]


def _node_from_json(record):
    if record == _LEAF:
        return 0
    if record is None:
        return None
    kind, children = record
    if kind == "dict":
        return {k: _node_from_json(v) for k, v in children}
    return {"tuple": tuple, "list": list}[kind](map(_node_from_json, children))
