"""Mutable array references (jxkernel.ref and jxkernel._src.state.types give their names, as
jax.ref and jax._src.state.types): a `Ref` holds an array that `ref[...] = x` replaces and
`ref[...]` reads, and `AbstractRef`, its type (what `jax.typeof` gives for one).

A Ref is a Python box holding its array. Eagerly, and inside the traced function that made
it, reads and writes use the box. A Ref made outside a jit, a scan, a while loop or a cond and
used inside is kept by that trace (core/staging.py: its value is an input of the program, each
call's, and what was written an output written back after it), as JAX threads Refs through
jaxprs as effects; jit takes Refs as arguments the same way (transforms/jit/refs.py). vmap
maps a Ref argument along an axis (the function sees it without that axis;
transforms/batching.py's MappedRef), and writing a vmapped value into a Ref it does not map
raises JAX's error.

    >>> r = new_ref(jnp.zeros(3))
    >>> r[1] = 5.0
    >>> r[...]
    Array([0., 5., 0.], dtype=float32)
    >>> jax.typeof(r)
    Ref{float32[3]}

Inside a jit (a trace that keeps Ref state, "lift"), a Ref argument and a Ref made there are
`RefTracer`s, as JAX's jit traces them as tracers of Ref type (its DynamicJaxprTracer, printed
`JitTracer(Ref{float32[3]})`); one closed over stays the Ref itself.
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..lax._cf_refs import ref_classes
from .. import numpy as jnp
from ..numpy.util import REF_AVALS
from ..core.avals import AbstractValue, ShapedArray, get_aval, typeof_rules
from ..core.errors import aval_text
from ..core.source_info import traced_call_site
from ..core.staging import JaxprTrace, JaxprTracer, making_refs
from ..core.primitive import abstract_eval_rules, side_effecting
from ..core.trace import Tracer, current_trace
from ..transforms.ad import DualTracer
from ..transforms.ad_util import Zero
from .state_primitives import (RefPrimitive, check_write, freeze_ref, own, record,
                               recording_here, ref_addupdate, ref_read, ref_swap)


class AbstractRef(AbstractValue):
    """The type of a Ref to arrays of type `inner_aval`."""
    __slots__ = ("inner_aval", "memory_space")
    weak_type = False               # (the Ref's own type; its array's is inner_aval's)

    def __init__(self, inner_aval, memory_space=None):
        self.inner_aval, self.memory_space = inner_aval, memory_space

    shape = property(lambda self: self.inner_aval.shape)
    sharding = property(lambda self: self.inner_aval.sharding)    # (as JAX's AbstractRef)
    split = property(lambda self: self.inner_aval.split)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)
    size = property(lambda self: self.inner_aval.size)

    def __repr__(self):
        # as JAX's: Ref{float32[3]} (its weak type not shown)
        return f"Ref{{{aval_text(self.inner_aval, weak=False)}}}"

    def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
        return f"Ref{{{self.inner_aval.str_short(short_dtypes, mesh_axis_types)}}}"

    def strip_weak_type(self) -> AbstractRef:
        """(core/check.py compares types so)"""
        return AbstractRef(self.inner_aval.strip_weak_type(), self.memory_space)

    def __eq__(self, other):
        return type(other) is AbstractRef and (self.inner_aval, self.memory_space) == \
            (other.inner_aval, other.memory_space)

    def __hash__(self):
        return hash((AbstractRef, self.inner_aval, self.memory_space))


class _RefType(type):
    """Ref's metaclass: a Ref-typed tracer of a jit is a Ref too (`isinstance(t, jax.Ref)`),
    as JAX's Ref class answers for its tracers."""

    def __instancecheck__(cls, x):
        return type.__instancecheck__(cls, x) or cls is Ref and type(x) in (RefTracer, RowRef)


class Ref(metaclass=_RefType):
    """A mutable reference to an array (`jax.new_ref(x)` makes one)."""
    __slots__ = ("_value", "_owner", "_argument", "_kind", "__weakref__")
    is_array_ref = True             # (vmap maps a Ref argument: transforms/batching.py)

    def __init__(self, value, owner=None):
        # `_owner`: the trace current when it was made, inside which its box holds it
        # (core/staging.py);
        # `_argument`: for jit's stand-in for a Ref argument, that argument's leaf index;
        # `_kind`: new_ref's `kind` ("no_grad_no_remat": differentiated values may be written,
        # their primal kept, as JAX's)
        self._value, self._owner, self._argument, self._kind = value, owner, None, None

    @classmethod
    def stand_in(cls, ref, argument: int):
        """What jit traces in place of its Ref argument `argument`, `ref`
        (transforms/jit/refs.py): in jit's trace a RefTracer, as JAX's jit traces a Ref
        argument as a tracer (elsewhere a Ref), holding `ref`'s value (vmap's MappedRef:
        its view's)."""
        value = ref._value if _is_box(ref) else ref[...]
        trace = current_trace()
        stand_in = RefTracer(trace, value) if _makes_tracers(trace) else Ref(value)
        stand_in._argument, stand_in._kind = argument, getattr(ref, "_kind", None)
        return stand_in

    aval = property(lambda self: AbstractRef(get_aval(self._value)))
    shape = property(lambda self: get_aval(self._value).shape)
    dtype = property(lambda self: get_aval(self._value).dtype)
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: get_aval(self._value).size)
    # the sharding of the array it holds, as JAX's (a Ref keeps its array's placement)
    sharding = property(lambda self: self._value.sharding)

    def __getitem__(self, idx):
        return ref_read(self, idx)

    def __setitem__(self, idx, value):
        self._check_write(value)
        ref_swap(self, idx, self._written(value))

    def _check_write(self, value, operation: str = "a set/swap") -> None:
        if isinstance(value, Tracer) and getattr(value._trace, "axis_data", None) is not None \
                and not self._made_under(value._trace) or self._written_under_vmap():
            # a vmapped value (a BatchTracer) into a Ref vmap does not map (one made inside
            # that vmap holds its batched values, as JAX's batches it), or any write to
            # one inside a vmap it was not made in (once per element, to one array: JAX
            # 0.10.2 refuses it even for an unbatched value, `rng.uniform()` of a
            # stateful_rng passed with in_axes=None): JAX's error
            raise Exception(f"performing {operation} operation with vmapped value on an "
                            f"unbatched array reference of type "
                            f"Ref{{{self.aval.inner_aval.strip_weak_type()}}}. "
                            f"Move the array reference to be an argument to the vmapped "
                            f"function?")
        if isinstance(value, DualTracer) and type(value.tangent) is not Zero and \
                not self._made_under(value._trace) and self._kind != "no_grad_no_remat":
            raise Exception(f"performing a set/swap operation with a differentiated value on a "
                            f"non-differentiated array reference of type "
                            f"Ref{{{self.aval.inner_aval.strip_weak_type()}}}. Move the array "
                            f"reference to be an argument of the differentiated function?")

    def _written(self, value):
        """What a write of `value` stores: a Ref of kind "no_grad_no_remat" keeps a
        differentiated value's primal (its tangent dropped), as JAX's."""
        while self._kind == "no_grad_no_remat" and isinstance(value, DualTracer) and \
                not self._made_under(value._trace):
            value = value.primal
        return value

    def _written_under_vmap(self) -> bool:
        """Whether a write now runs inside a vmap this Ref was not made in (one that maps it
        writes through its MappedRef, from outside that vmap: transforms/batching.py). A jit's
        stand-in for a Ref argument is not asked: its writes go to what the caller passed."""
        if self._argument is not None:
            return False
        trace = current_trace()
        while trace is not None and trace is not self._owner:
            if getattr(trace, "axis_data", None) is not None:
                return True
            trace = trace.parent
        return False

    def _made_under(self, trace) -> bool:
        """Whether this Ref was made while `trace` ran (inside the function it transforms)."""
        owner = self._owner
        while owner is not None and owner is not trace:
            owner = owner.parent
        return owner is trace

    def get(self):
        return ref_read(self, Ellipsis)

    def addupdate(self, x, idx=()):
        """`self[idx] += x` as one operation (jax.ref.addupdate, as JAX's Ref method)."""
        addupdate(self, idx, x)

    @property
    def at(self):
        """`ref.at[idx]`: the part of the Ref at `idx`, read and written through it (in a
        traced function: JAX 0.10.2's Ref outside one has none)."""
        if type(self) is Ref:
            raise NotImplementedError(
                "ref.at is available on a Ref inside a traced function (jax.jit, a scan "
                "body), as in JAX 0.10.2, whose Ref outside one raises NotImplementedError "
                "here too; index the Ref itself instead: ref[idx], ref[idx] = x.")
        return _At(self)

    def unsafe_buffer_pointer(self) -> int:
        """The address of the device buffer holding the Ref's array (as an Array's)."""
        return self._value.unsafe_buffer_pointer()

    def set(self, value):
        self[...] = value

    # No __jax_array__, as JAX's Ref has none: jnp.sin(ref) is a TypeError, ref[...] the value
    def __array__(self, dtype=None, copy=None):
        import numpy as np    # NumPy's, not jnp: cheap, and loaded already
        return np.asarray(ref_read(self, Ellipsis), dtype)

    def __len__(self):
        return len(self._value)

    def __repr__(self):
        # as JAX's: its array's repr with "Array" for "Ref" -- Ref([0., 0.], dtype=float32)
        text = repr(self._value)
        return "Ref" + text[len("Array"):] if text.startswith("Array(") else f"Ref({text})"


typeof_rules[Ref] = lambda ref: ref.aval


def _is_box(ref) -> bool:
    return type(ref) is Ref or type(ref) is RefTracer


def _makes_tracers(trace) -> bool:
    """Whether a Ref made, or passed, where `trace` runs is a RefTracer: in jit's trace and the
    bodies of loops and conds (JaxprTraces keeping Ref state, "lift")."""
    return type(trace) is JaxprTrace and trace.ref_policy == "lift"


class RefTracer(JaxprTracer):
    """A Ref as a jit's trace sees one passed to it or made in it: a tracer of Ref type, as
    JAX's jit traces them (a DynamicJaxprTracer whose aval is an AbstractRef: printed
    `JitTracer(Ref{float32[]})`, no array to do math on), holding its state as a Ref's box
    does (`_value`, `_owner`, `_argument`: Ref's), with Ref's reads and writes."""
    __slots__ = ("_value", "_owner", "_argument", "_kind", "_created", "_freed", "__weakref__")
    _jax_class_name = "DynamicJaxprTracer"
    # its class as JAX's messages name it (core/trace.py's jax_type_text): jit's tracer
    # class, at the JAX path where jxkernel's answers (jxkernel/_jax/_src/interpreters/)
    _jax_class_path = "jxkernel._src.interpreters.partial_eval.DynamicJaxprTracer"
    is_array_ref = True

    def __init__(self, trace, value, owner=None):
        self._trace, self._var, self.const = trace, None, None
        self._value, self._owner, self._argument, self._kind = value, owner, None, None
        self._created = None        # where new_ref made it in the traced function (or None)
        self._freed = False         # free_ref was called on it (in a jit)

    stand_in = Ref.stand_in
    _aval = aval = property(lambda self: AbstractRef(get_aval(self._value)))
    shape, dtype, ndim, size = Ref.shape, Ref.dtype, Ref.ndim, Ref.size
    __getitem__, __setitem__, _check_write = Ref.__getitem__, Ref.__setitem__, Ref._check_write
    _made_under, _written_under_vmap, _written = Ref._made_under, Ref._written_under_vmap, \
        Ref._written
    get, set, addupdate, at = Ref.get, Ref.set, Ref.addupdate, Ref.at
    unsafe_buffer_pointer, __array__, __len__ = Ref.unsafe_buffer_pointer, Ref.__array__, \
        Ref.__len__

    def _short_repr(self):
        return f"JitTracer({self.aval!r})"

    def __hash__(self):             # (a Ref is hashable by identity, as JAX's tracers of Refs)
        return id(self)

    def __eq__(self, other):
        return self is other


typeof_rules[RefTracer] = lambda ref: ref.aval


class RowRef:
    """Row `index` of a Ref, itself a Ref: what `lax.scan` over a Ref hands its body each
    step, as JAX scans a Ref along its leading axis (the body's reads and writes go to that
    row of the Ref).

    >>> r = new_ref(jnp.zeros((3, 2)))
    >>> row = RowRef(r, 1); row[...] = jnp.full(2, 5.0); r[1]
    Array([5., 5.], dtype=float32)
    """
    __slots__ = ("_ref", "_index")
    is_array_ref = True

    def __init__(self, ref, index):
        self._ref, self._index = ref, index

    aval = property(lambda self: AbstractRef(self._ref.aval.inner_aval.update(
        shape=tuple(self._ref.shape[1:]))))
    shape = property(lambda self: tuple(self._ref.shape[1:]))
    dtype = property(lambda self: self._ref.dtype)
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))

    def _at(self, idx) -> tuple:
        return (self._index, *(idx if type(idx) is tuple else (idx,)))

    def __getitem__(self, idx):
        return self._ref[self._at(idx)]

    def __setitem__(self, idx, value):
        self._ref[self._at(idx)] = value

    def get(self):
        return self[...]

    def set(self, value):
        self[...] = value

    def addupdate(self, x, idx=()):
        self._ref.addupdate(x, self._at(idx))

    at = Ref.at

    def __repr__(self):
        return f"RowRef({self.aval!r})"


typeof_rules[RowRef] = lambda ref: ref.aval


class _At:
    """`ref.at`, indexed: `ref.at[idx]` is a TransformedRef."""
    __slots__ = ("_ref",)

    def __init__(self, ref):
        self._ref = ref

    def __getitem__(self, idx):
        return TransformedRef(self._ref, idx)


class TransformedRef:
    """`ref.at[idx]`: the part of `ref` at `idx`, whose reads and writes go to that part of
    the Ref (JAX's TransformedRef: not itself a Ref, so no jit argument).

    >>> r = new_ref(jnp.zeros(4)); jax.jit(lambda r: r.at[1:3].set(jnp.ones(2)))(r); r[...]
    Array([0., 1., 1., 0.], dtype=float32)
    """
    __slots__ = ("ref", "_idx")

    def __init__(self, ref, idx):
        self.ref, self._idx = ref, idx

    @property
    def shape(self) -> tuple:
        # (a traced integer index stands for any one position)
        idx = self._idx if type(self._idx) is tuple else (self._idx,)
        static = tuple(0 if isinstance(i, Tracer) else i for i in idx)
        return np.empty(self.ref.shape, bool)[static].shape

    dtype = property(lambda self: self.ref.dtype)
    ndim = property(lambda self: len(self.shape))
    at = Ref.at

    def __getitem__(self, idx):
        part = self.ref[self._idx]
        return part if idx is Ellipsis or idx == () else part[idx]

    def __setitem__(self, idx, value):
        if not (idx is Ellipsis or idx == ()):
            value = self.ref[self._idx].at[idx].set(value)
        self.ref[self._idx] = value

    def get(self):
        return self[...]

    def set(self, value):
        self[...] = value

    def addupdate(self, x, idx=()):
        self[idx] = self[idx] + x

    def __repr__(self):
        return f"TransformedRef(ref={self.ref!r}, index={self._idx!r})"
ref_classes.update(box=Ref, row=RowRef)     # (what cond and scan hand a passed Ref's user)
REF_AVALS.add(AbstractRef)


# ------------------------------------------------------------------ the primitives making Refs
# (JAX's `new_ref` and `empty_ref`; the others are in api/state_primitives.py): binding one
# makes a Ref, recorded as an equation where make_jaxpr's trace is the current trace
def new_ref(init_val, *, memory_space=None, kind=None) -> Ref:
    """A new Ref holding `init_val` (an array, converted as jnp.asarray would)."""
    trace = current_trace()
    if getattr(trace, "no_refs", None):      # (an eager shard_map body's: JAX's error)
        raise ValueError(trace.no_refs)
    value = own(jnp.asarray(init_val), init_val)
    ref = RefTracer(trace, value, trace) if _makes_tracers(trace) else Ref(value, trace)
    ref._kind = kind
    if isinstance(ref, RefTracer):      # for JAX's error if a jit returns it ("" if no user
        ref._created = traced_call_site(2)  # line in the traced function made it)
    if recording_here() is not None:
        out, = record(trace, new_ref_p, [trace.to_atom(ref._value)],
                      {"kind": kind, "memory_space": memory_space}, [ref.aval])
        trace.ref_vars[id(ref)] = (ref, out)
    return ref


new_ref_p = RefPrimitive("new_ref", lambda x, *, kind, memory_space: new_ref(
    x, memory_space=memory_space, kind=kind))
abstract_eval_rules[new_ref_p] = lambda x, *, kind, memory_space: AbstractRef(x)
side_effecting.add(new_ref_p)


def empty_ref(ty, memory_space=None) -> Ref:
    """A new Ref of type `ty` (anything with .shape and .dtype) whose contents are
    unspecified until written (`jax.empty_ref`; here zeros, as lax.empty gives on CPU).

    >>> r = empty_ref(jax.ShapeDtypeStruct((2,), jnp.int32)); r[...] = jnp.full(2, 7); freeze(r)
    Array([7, 7], dtype=int32)
    """
    aval = getattr(ty, "aval", ty)
    if not hasattr(aval, "shape") or not hasattr(aval, "dtype"):
        raise TypeError(f"empty_ref: ty must have a shape and a dtype (a ShapeDtypeStruct, "
                        f"jax.typeof(x), an array), got {ty!r}")
    trace = recording_here()
    if trace is None:
        # in a jit, a RefTracer as new_ref's (free_ref marks it freed: a second free raises)
        trace, value = current_trace(), lax.empty(aval.shape, aval.dtype)
        if not _makes_tracers(trace):
            return Ref(value, trace)
        ref = RefTracer(trace, value, trace)
        ref._created = traced_call_site(2)
        return ref
    ref = Ref(np.zeros(aval.shape, aval.dtype), trace)     # (for its type; never read)
    ty = ShapedArray(tuple(aval.shape), np.dtype(aval.dtype))
    out, = record(trace, empty_ref_p, [], {"memory_space": memory_space, "ty": ty},
                  [ref.aval])
    trace.ref_vars[id(ref)] = (ref, out)
    return ref


empty_ref_p = RefPrimitive("empty_ref", lambda *, ty, memory_space: empty_ref(ty, memory_space))
abstract_eval_rules[empty_ref_p] = lambda *, ty, memory_space: AbstractRef(ty)
side_effecting.add(empty_ref_p)


def freeze(ref: Ref):
    """The Ref's final value, as an Array (`jax.freeze`; the Ref should not be used after)."""
    if not isinstance(ref, Ref):
        raise TypeError(f"freeze takes a Ref (jax.new_ref(x) makes one), got {type(ref).__name__}")
    return freeze_ref(ref)


def free_ref(ref: Ref) -> tuple:
    """Invalidate `ref` (`jax.free_ref`): returns (); Python frees its box with the last use."""
    if not isinstance(ref, Ref):
        raise TypeError(f"free_ref takes a Ref, got {type(ref).__name__}")
    if isinstance(ref, RefTracer):      # in a jit: its type is the freed one from here on
        if ref._freed:                  # (JAX's fails with a KeyError of its own)
            raise ValueError(f"free_ref: this Ref of type {ref.aval} was freed already")
        ref._freed = True
    return ()


# jax.ref's functional forms of ref[idx], ref[idx] = x, swapping and adding in place
# (each one equation where make_jaxpr records it: api/state_primitives.py)
def get(ref: Ref, idx=()):
    """`ref[idx]`."""
    return ref[idx]


def set(ref: Ref, idx, value) -> None:  # noqa: A001  (JAX's name)
    """`ref[idx] = value`."""
    ref[idx] = value


def swap(ref: Ref, idx, value):
    """Write `value` at `idx` and return what was there."""
    check_write(ref, value)
    return ref_swap(ref, idx, value)


def addupdate(ref: Ref, idx, x) -> None:
    """`ref[idx] += x`."""
    check_write(ref, x, "an addupdate")
    ref_addupdate(ref, idx, x)


making_refs["new_ref"] = new_ref      # (what custom_vjp hands its rules: core/staging.py)
