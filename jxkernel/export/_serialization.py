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
import re

import numpy as np

from ..api.error_check import _ErrorClass
from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.mesh import AbstractMesh, AxisType, NamedSharding, PartitionSpec
from ..core.symbolic import is_symbolic
from ..random import prng
from ..random.keys import KeyDType
from ..tree_util import _registry, flatten_one_level, tree_flatten, tree_unflatten
from ._effects import effect_from_json, effect_to_json
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
        "disabled_checks": [str(c) for c in exported.disabled_safety_checks],
        "calling_convention_version": exported.calling_convention_version,
        "uses_global_constants": exported.uses_global_constants,
        "kept": list(exported.module_kept_var_idx),
        "module": base64.b64encode(exported.mlir_module_serialized).decode("ascii"),
        "constraints": list(_constraints(exported.in_avals)),
        "in_shardings": [_sharding_to_json(s) for s in exported._in_named_shardings],
        "out_shardings": [_sharding_to_json(s) for s in exported._out_named_shardings],
        "vjp": _to_json(exported.vjp(), vjp_order - 1) if vjp_order > 0 else None,
        "ordered_effects": [effect_to_json(e) for e in exported.ordered_effects],
        "unordered_effects": [effect_to_json(e) for e in exported.unordered_effects],
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
        _has_named_shardings=True, _in_named_shardings=in_named,
        _out_named_shardings=out_named, nr_devices=record["nr_devices"],
        platforms=tuple(record["platforms"]),
        ordered_effects=tuple(map(effect_from_json, record.get("ordered_effects", []))),
        unordered_effects=tuple(map(effect_from_json, record.get("unordered_effects", []))),
        disabled_safety_checks=tuple(map(DisabledSafetyCheck, record.get("disabled_checks", []))),
        mlir_module_serialized=base64.b64decode(record["module"]),
        calling_convention_version=record["calling_convention_version"],
        module_kept_var_idx=tuple(record.get("kept", range(len(in_avals)))),  # (or all:
        # a blob written before jit dropped unused arguments)
        uses_global_constants=record.get("uses_global_constants"),     # (None: written before it)
        vjp=None if record["vjp"] is None else _fields(record["vjp"]))


def _aval_to_json(aval) -> list:
    # a symbolic dimension is stored as its text ("2*a + 1"), parsed again when loading
    shape = [d if isinstance(d, (int, np.integer)) else str(d) for d in aval.shape]
    return [shape, _dtype_name(aval.dtype), bool(aval.weak_type)]


def _dtype_name(dtype) -> str:
    """A dtype's name in the format: NumPy's, or a typed key's (`key<fry>`), as JAX's
    format stores the three key types of its own since its version 4."""
    if isinstance(dtype, KeyDType) and _key_dtype(dtype.name) == dtype:
        return dtype.name
    if isinstance(dtype, dtypes.ExtendedDType):
        raise ValueError(f"Cannot serialize an export with an argument or result of dtype "
                         f"{dtype}: only NumPy dtypes and the key types of the "
                         f"threefry2x32, rbg and unsafe_rbg implementations are written.")
    return np.dtype(dtype).name


def _key_dtype(name: str):
    """The key dtype `name` (`key<rbg>`) of a built-in implementation, else None."""
    return next((KeyDType(impl) for impl in map(prng.prngs.get, _BUILTIN_KEYS)
                 if f"key<{impl.tag}>" == name), None)


_BUILTIN_KEYS = ("threefry2x32", "rbg", "unsafe_rbg")


def _aval_from_json(record, scope) -> ShapedArray:
    shape, dtype, weak = record
    if any(isinstance(d, str) for d in shape):
        shape = [symbolic_shape(d, scope=scope)[0] if isinstance(d, str) else d for d in shape]
    return ShapedArray(tuple(shape), _DTYPES[dtype] if dtype in _DTYPES else _key_dtype(dtype),
                       weak)


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


# ------------------------------------------------------------------ disabled checks
class DisabledSafetyCheck:
    """A safety check an export skips, kept with the Exported (JAX's class).

    >>> DisabledSafetyCheck.platform(), DisabledSafetyCheck.custom_call("my_target")
    (platform, custom_call:my_target)
    """

    @classmethod
    def platform(cls) -> DisabledSafetyCheck:
        """Let the caller's platform differ from the exported ones (the first one's code runs)."""
        return DisabledSafetyCheck("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
        """Allow the custom call `target_name` (jxkernel checks no custom call targets)."""
        return DisabledSafetyCheck(f"custom_call:{target_name}")

    def is_custom_call(self) -> str | None:
        """The custom call target this allows, if it is a custom_call check."""
        m = re.match(r"custom_call:(.+)$", self._impl)
        return m.group(1) if m else None

    def __init__(self, _impl: str):
        self._impl = _impl          # (use the builders `platform` and `custom_call`)

    def __str__(self):
        return self._impl
    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, DisabledSafetyCheck) and self._impl == other._impl

    def __hash__(self) -> int:
        return hash(self._impl)


# ------------------------------------------------------------------ pytrees
_LEAF = "*"
# the custom nodes a blob may hold: type -> (name, serialize_auxdata), and name -> (type,
# deserialize_auxdata, from_children), as JAX's export registries
_SERIALIZERS: dict = {}
_DESERIALIZERS: dict = {}


def register_pytree_node_serialization(nodetype, *, serialized_name: str, serialize_auxdata,
                                       deserialize_auxdata, from_children=None):
    """Let `serialize` store pytree nodes of the registered type `nodetype` under the name
    `serialized_name` (its aux data as the bytes `serialize_auxdata` makes). Returns
    `nodetype`, so it decorates a class.

    >>> class Pair(tuple): pass
    >>> jax.tree_util.register_pytree_node(Pair, lambda p: (p, None), lambda _, c: Pair(c))
    >>> register_pytree_node_serialization(Pair, serialized_name="doc.Pair",
    ...     serialize_auxdata=lambda aux: b"", deserialize_auxdata=lambda b: None) is Pair
    True
    """
    if nodetype in _SERIALIZERS:
        raise ValueError(f"Duplicate serialization registration for type `{nodetype}`. "
                         f"Previous registration was with serialized_name "
                         f"`{_SERIALIZERS[nodetype][0]}`.")
    if serialized_name in _DESERIALIZERS:
        raise ValueError(f"Duplicate serialization registration for serialized_name "
                         f"`{serialized_name}`. Previous registration was for type "
                         f"`{_DESERIALIZERS[serialized_name][0]}`.")
    if from_children is None:
        if nodetype not in _registry:
            raise ValueError(f"If `from_children` is not present, you must call first"
                             f"`jax.tree_util.register_pytree_node` for `{nodetype}`")
        from_children = _registry[nodetype].from_iter
    _SERIALIZERS[nodetype] = (serialized_name, serialize_auxdata)
    _DESERIALIZERS[serialized_name] = (nodetype, deserialize_auxdata, from_children)
    return nodetype


def register_namedtuple_serialization(nodetype, *, serialized_name: str):
    """Let `serialize` store the namedtuple type `nodetype` under `serialized_name` (its
    field names go with it). Returns `nodetype`.

    >>> import collections
    >>> Point = register_namedtuple_serialization(collections.namedtuple("Point", "x y"),
    ...                                           serialized_name="doc.Point")
    """
    if not (issubclass(nodetype, tuple) and hasattr(nodetype, "_fields")):
        raise ValueError("Use `jax.export.register_pytree_node_serialization` for "
                         "types other than `collections.namedtuple`.")

    def from_children(fields, children):
        assert len(fields) == len(children)
        return nodetype(**dict(zip(fields, children)))
    return register_pytree_node_serialization(
        nodetype, serialized_name=serialized_name,
        serialize_auxdata=lambda _: json.dumps(nodetype._fields).encode("utf-8"),
        deserialize_auxdata=lambda data: json.loads(data.decode("utf-8")),
        from_children=from_children)


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
    if type(node) is dict:
        for k in node:
            if type(k) is not str:      # JAX's rule: its format keeps string keys only
                raise TypeError(f"Serialization is supported only for dictionaries with "
                                f"string keys. Found key {k!r} of type {type(k)}.")
        return ["dict", [[k, _node_to_json(v)] for k, v in node.items()]]
    if type(node) in _SERIALIZERS:
        return _custom_to_json(node)
    raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type "
                     f"`{type(node)}`. Use `export.register_pytree_node_serialization` or "
                     f"`export.register_namedtuple_serialization`.")


def _custom_to_json(node):
    """["custom", children, name, aux data as base64]: a node of a registered type."""
    name, serialize_auxdata = _SERIALIZERS[type(node)]
    children, aux = flatten_one_level(node)
    data = serialize_auxdata(aux)
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"The custom serialization function for `node_type` must return a "
                         f"`bytes` object. It returned a {type(data)}.")
    return ["custom", [_node_to_json(c) for c in children], name,
            base64.b64encode(bytes(data)).decode("ascii")]


def _tree_from_json(record):
    return tree_flatten(_node_from_json(record))[1]


def _node_from_json(record):
    if record == _LEAF:
        return 0
    if record is None:
        return None
    kind, children, *custom = record
    if kind == "custom":
        return _custom_from_json(children, *custom)
    if kind == "dict":
        return {k: _node_from_json(v) for k, v in children}
    return {"tuple": tuple, "list": list}[kind](map(_node_from_json, children))


def _custom_from_json(children, name, data):
    if name not in _DESERIALIZERS:
        raise ValueError(f"Cannot deserialize a PyTreeDef containing an unregistered type "
                         f"`{name}`. Use `export.register_pytree_node_serialization` or "
                         f"`export.register_namedtuple_serialization`.")
    _, deserialize_auxdata, from_children = _DESERIALIZERS[name]
    aux = deserialize_auxdata(base64.b64decode(data))
    return from_children(aux, [_node_from_json(c) for c in children])


# error_check.wrap_for_export's result (its code and its checks' messages), serialized as JAX's:
# its name, the (message, traceback text) pairs as JSON, so that an exported function's
# result tree serializes and comes back
register_pytree_node_serialization(
    _ErrorClass, serialized_name="jax._src.error_check._ErrorClass",
    serialize_auxdata=lambda pairs: json.dumps(pairs, ensure_ascii=False).encode("utf-8"),
    deserialize_auxdata=lambda data: json.loads(data.decode("utf-8")))
