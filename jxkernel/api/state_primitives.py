"""The state primitives, as JAX 0.10.2 names them (jax/_src/state/primitives.py, core.py):
`get`, `swap`, `addupdate` and `freeze`, each with its rules here (`new_ref` and `empty_ref`,
which make Refs, are with the Ref in api/state.py).

jxkernel's Refs are Python boxes (api/state.py), so these primitives are not run by the
traces: binding one on a Ref box does the box's operation (`ref_read`, `ref_swap`, ...
below), which works under any trace (jit, scan, while and cond lift Refs, core/staging.py).
Only make_jaxpr's trace (ref_policy "record") writes equations for them: a Ref argument is a
`Ref{...}`-typed invar, a closed-over Ref a Ref-typed constvar whose const is the Ref itself,
a Ref made inside a `new_ref` equation, and each read or write of one a `get`, `swap` or
`addupdate` equation, printed as JAX prints them:

    >>> make_jaxpr(lambda r, y: r.__setitem__(1, y))(jax.new_ref(jnp.zeros(3)), jnp.float32(1))
    { lambda ; a:Ref{f32[3]} b:f32[]. let a[1] <- b in () }

So the jaxpr is a real program: eval_jaxpr binds each equation on the actual Ref boxes.

An index that api/state_indexer.py's `Indexer` keeps is a param of the equation, its
scalar arrays operands after the Ref (and the value): `a[1,:]`, `a[b]`. Any other index is
recorded as a read or write of the whole Ref plus ordinary indexing ops.
"""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..core import dtypes
from ..core.avals import get_aval
from ..core.interpreter_primitives import convert_element_type_p
from ..core.ir import (Literal, Var, control_flow_allowed_effects,
                      custom_derivatives_allowed_effects, eqn_printers, pp_binder,
                      remat_allowed_effects)
from ..core.name_stack import eqn_source_info
from ..core.primitive import (JaxprInputEffect, Primitive, abstract_eval_rules, dceable_effects,
                              effect_rules, side_effecting)
from ..core.staging import JaxprTracer, ref_get, ref_set
from ..core.trace import Tracer, current_trace, set_current_trace
from ..numpy.dslice import update_slices
from ..transforms.ad import DualTracer
from ..transforms.ad_util import Zero
from .state_indexer import Indexer, is_full, transforms_text


class RefPrimitive(Primitive):
    """A state primitive: `bind` does its operation on the Ref box it is given (module
    docstring), or records it where its Ref operand is make_jaxpr's Ref-typed tracer."""
    __slots__ = ("op",)

    def __init__(self, name, op, multiple_results=False):
        super().__init__(name, multiple_results)
        self.op = op

    def bind(self, *args, **params):
        args = [a.val if type(a) is Literal else a for a in args]
        return self.op(*args, **params)


def _is_box(ref) -> bool:
    """api/state.py's Ref, or jit's RefTracer (vmap's MappedRef, a view of one, has its own
    operations)."""
    return hasattr(ref, "_owner")


def _is_recorded_ref(ref) -> bool:
    """make_jaxpr's Ref-typed tracer (a JaxprTracer that is no box: not a RefTracer)."""
    return isinstance(ref, JaxprTracer) and not hasattr(ref, "_owner")


def own(value, given=None):
    """`value` as a Ref's own buffer: a copy where the caller may hold it too (`given`: what
    the caller passed, when `value` is made from it; None: `value` is the caller's). A jit
    call donates a Ref's buffer to update it in place (transforms/jit/refs.py), so as JAX's
    `new_ref`, whole reads and whole writes copy. Tracers pass through."""
    if isinstance(value, Tracer) or given is not None and value is not given:
        return value
    return value.copy()


def check_write(ref, value, operation: str = "a set/swap") -> None:
    """JAX's errors for a vmapped or differentiated value written into `ref` (Ref's own);
    `operation` as JAX's message names it ("a set/swap", "an addupdate")."""
    if _is_box(ref):
        ref._check_write(value, operation)


# ------------------------------------------------------------------ where a Ref is recorded
def recorder(ref):
    """make_jaxpr's trace that records `ref`'s reads and writes as equations, or None where
    its box, or a lifting trace (core/staging.py's ref_get), keeps its state."""
    if _is_recorded_ref(ref):                    # the Ref-typed tracer itself
        return ref._trace
    owner, trace = getattr(ref, "_owner", None), current_trace()
    while trace is not None:
        policy = getattr(trace, "ref_policy", None)
        if policy == "record" and (trace is not owner or id(ref) in trace.ref_vars):
            return trace
        if trace is owner or policy == "lift":
            return None
        trace = trace.parent
    return None


def _ref_atom(trace, ref) -> Var:
    """`ref`'s Ref-typed variable in `trace`: a constvar holding the Ref, on first use."""
    if _is_recorded_ref(ref):
        return ref._var
    entry = trace.ref_vars.get(id(ref))
    if entry is None:
        var = trace._constvar(ref, ref.aval)
        entry = trace.ref_vars[id(ref)] = (ref, JaxprTracer(trace, ref.aval, var))
    return entry[1]._var


def _pp_target(eqn, names, first_index) -> str:
    """`a[1,b]`: the Ref and its index, whose operands start at invars[first_index]."""
    operands = [str(a.val) if type(a) is Literal else names(a)    # (no dtype, as JAX)
                for a in eqn.invars[first_index:]]
    return f"{names(eqn.invars[0])}{eqn.params['indexer'].text(operands)}"


def record(trace, prim, atoms, params, out_avals) -> list:
    """Record `prim`'s equation in make_jaxpr's `trace`; its results' tracers."""
    return trace.add_eqn(atoms, prim, params, out_avals, eqn_source_info())


def recording_here():
    """make_jaxpr's trace, where it is the current trace: a Ref made there is recorded
    (api/state.py's new_ref and empty_ref)."""
    trace = current_trace()
    return trace if getattr(trace, "ref_policy", None) == "record" else None


def _at(trace, value):
    """`value` as a value of `trace`: an undifferentiated value of a differentiation inside
    make_jaxpr is its primal (the Ref is not differentiated, as in JAX)."""
    while isinstance(value, DualTracer) and value._trace is not trace and \
            type(value.tangent) is Zero:
        value = value.primal
    return value


def _implicit_cast(value, dtype):
    """JAX's `_maybe_implicit_cast` before a write: a weak float into a float Ref, and any
    integer into an integer Ref, is converted (an equation, for a traced value); any other
    value is left as it is, for check_written to refuse if its dtype differs."""
    aval = get_aval(value)
    floats = dtypes.issubdtype(aval.dtype, np.floating) and dtypes.issubdtype(dtype, np.floating)
    ints = dtypes.issubdtype(aval.dtype, np.integer) and dtypes.issubdtype(dtype, np.integer)
    if not ((aval.weak_type and floats) or ints):
        return value
    if isinstance(value, Tracer):
        # (lax.convert_element_type gives a value of the same dtype and weakness back as it is)
        if aval.weak_type or aval.dtype != dtype:
            return convert_element_type_p.bind(value, new_dtype=np.dtype(dtype),
                                               weak_type=False, sharding=None)
        return value
    return jnp.asarray(value, dtype)


def check_written(ref, kept, value, op: str) -> None:
    """JAX's ValueErrors for a value written (`op`: "swap" or "addupdate") into `ref` at the
    place `kept` (Indexer.of's pair; None for an index it does not keep, which is not
    checked here) whose shape or dtype is not that place's: JAX neither broadcasts (`r[...]
    = 0.0` into a Ref of shape (3,)) nor converts other than as `_implicit_cast` does."""
    aval = get_aval(value)
    if kept is not None and tuple(aval.shape) != kept[0].out_shape:
        raise ValueError(f"Invalid shape for `{op}`. Ref shape: {tuple(ref.shape)}. Expected "
                         f"shape: {kept[0].out_shape}. Value shape: {tuple(aval.shape)}. "
                         f"Transforms: {transforms_text(*kept)}. ")
    if aval.dtype != ref.dtype:                  # (a typed key's dtype is no NumPy dtype)
        said = "Value shape" if op == "addupdate" else "Value dtype"   # (JAX's words, as written)
        raise ValueError(f"Invalid dtype for `{op}`. Ref dtype: {ref.dtype}. "
                         f"{said}: {aval.dtype}. ")


# ------------------------------------------------------------------ get
def check_not_freed(ref, op: str) -> None:
    """JAX's error for reading or writing a Ref a jit freed (free_ref makes its type the
    freed one, printed `~float32[]`)."""
    if getattr(ref, "_freed", False):
        inner = repr(ref.aval)[len("Ref{"):-1]          # float32[3], as JAX prints it
        raise ValueError(f"`{op}` must be called on `Ref` types: ~{inner}.")


def ref_read(ref, idx=Ellipsis):
    """`ref[idx]`."""
    check_not_freed(ref, "get")
    if not _is_box(ref) and not _is_recorded_ref(ref):
        return ref[idx]
    trace = recorder(ref)
    if trace is None:
        value = ref_get(ref)
        return own(value) if is_full(idx) else value[idx]
    kept = Indexer.of(idx, ref.shape, trace)
    if kept is None:                          # not kept: the whole, then ordinary indexing
        return _get_recorded(trace, ref, *_whole(ref))[idx]
    return _get_recorded(trace, ref, *kept)


def _whole(ref):
    """(Indexer, operands) of `ref[...]`."""
    return Indexer((), ref.shape), []


def _get_recorded(trace, ref, indexer, operands):
    aval = _indexed(ref.aval.inner_aval, indexer)
    atoms = [_ref_atom(trace, ref), *map(trace.to_atom, operands)]
    return record(trace, get_p, atoms, {"indexer": indexer}, [aval])[0]


def _indexed(inner, indexer):
    """The type of `indexer`'s elements of a Ref holding `inner` (weakly typed as it is)."""
    return inner if indexer.full else inner.update(shape=indexer.out_shape)


class RefEffect(JaxprInputEffect):
    """A read, write or accumulation of a Ref, on the equation's input `input` (the Ref: 0),
    as JAX's `jax._src.state.types` effects; `jaxpr.effects` holds them.

        >>> str(ReadEffect(0)), WriteEffect(0) == WriteEffect(0), ReadEffect(0) == WriteEffect(0)
        ('Read<0>', True, False)
    """
    name: str = "Ref"

    def __eq__(self, other):
        return isinstance(other, type(self)) and self.input == other.input

    def __hash__(self):
        return hash((type(self), self.input))

    def __str__(self):
        return f"{self.name}<{self.input}>"


# a loop, a cond, a custom derivative's function and a checkpointed one may read and write Refs
for _allowed in (control_flow_allowed_effects, custom_derivatives_allowed_effects,
                 remat_allowed_effects):
    _allowed.add_type(RefEffect)


class ReadEffect(RefEffect):
    name = "Read"


class WriteEffect(RefEffect):
    name = "Write"


class AccumEffect(RefEffect):
    name = "Accum"


dceable_effects.add_type(ReadEffect)        # an unused read is dropped, as JAX's


def _get_bind(ref, *index, indexer):
    return ref_read(ref, indexer.as_index(index))


get_p = RefPrimitive("get", _get_bind)
abstract_eval_rules[get_p] = lambda ref, *index, indexer: _indexed(ref.inner_aval, indexer)


def _pp_get(eqn, names) -> str:
    # `c:f32[3] <- a[...]`
    return f"{pp_binder(eqn.outvars[0], names)} <- {_pp_target(eqn, names, 1)}"


eqn_printers[get_p] = _pp_get


# ------------------------------------------------------------------ swap (and set)
def ref_swap(ref, idx, value):
    """Write `value` at `ref[idx]`; what was there."""
    check_not_freed(ref, "swap")
    if not _is_box(ref) and not _is_recorded_ref(ref):
        old = ref[idx]
        ref[idx] = value
        return old
    trace = recorder(ref)
    if trace is None:
        value = _implicit_cast(value, ref.dtype)
        check_written(ref, Indexer.of(idx, ref.shape, current_trace()), value, "swap")
        old = ref_get(ref)
        _box_write(ref, old, idx, value)
        return old if is_full(idx) else old[idx]
    value = _at(trace, value)
    kept = Indexer.of(idx, ref.shape, trace)
    with set_current_trace(trace):
        value = _implicit_cast(value, ref.dtype)
        check_written(ref, kept, value, "swap")
        if kept is None:                      # not kept: read the whole, write it back
            whole = _get_recorded(trace, ref, *_whole(ref))
            old = whole[idx]
            new = whole.at[idx].set(value)
            _swap_recorded(trace, ref, *_whole(ref), new)
            return old
    return _swap_recorded(trace, ref, *kept, value)


def _swap_recorded(trace, ref, indexer, operands, value):
    aval = _indexed(ref.aval.inner_aval, indexer)
    atoms = [_ref_atom(trace, ref), trace.to_atom(value), *map(trace.to_atom, operands)]
    return record(trace, swap_p, atoms, {"indexer": indexer}, [aval])[0]


def _box_write(ref, old, idx, value) -> None:
    """Write `value` (of the place's type: check_written) at `idx` where the box or a lifting
    trace keeps the Ref."""
    given, value = value, jnp.asarray(value)
    written = update_slices(jnp.asarray(old), idx, value)   # ref[jax.ds(i, n)] = v
    if written is None and is_full(idx):
        written = own(value, given)
    elif written is None:
        written = jnp.asarray(old).at[idx].set(value)
    ref_set(ref, written)


def _swap_bind(ref, value, *index, indexer):
    check_write(ref, value)
    return ref_swap(ref, indexer.as_index(index), value)


swap_p = RefPrimitive("swap", _swap_bind)
abstract_eval_rules[swap_p] = lambda ref, value, *index, indexer: \
    _indexed(ref.inner_aval, indexer)
side_effecting.add(swap_p)
effect_rules[get_p] = lambda params: frozenset({ReadEffect(0)})
effect_rules[swap_p] = lambda params: frozenset({WriteEffect(0)})


def _pp_swap(eqn, names) -> str:
    value, target = eqn.invars[1], _pp_target(eqn, names, 2)
    if names.names.get(eqn.outvars[0]) == "_":       # its result unused: a set
        return f"{target} <- {names(value)}"
    return f"{pp_binder(eqn.outvars[0], names)}, {target} <- {target}, {names(value)}"


eqn_printers[swap_p] = _pp_swap


# ------------------------------------------------------------------ addupdate
def ref_addupdate(ref, idx, x) -> None:
    """`ref[idx] += x` as one operation (jax.ref.addupdate)."""
    if not _is_box(ref) and not _is_recorded_ref(ref):
        ref[idx] = ref[idx] + x
        return
    trace = recorder(ref)
    kept = Indexer.of(idx, ref.shape, trace or current_trace())
    if trace is None:
        x = _implicit_cast(x, ref.dtype)
        check_written(ref, kept, x, "addupdate")
    if trace is None or kept is None:
        ref_swap(ref, idx, ref_read(ref, idx) + x)
        return
    (indexer, operands), x = kept, _at(trace, x)
    with set_current_trace(trace):
        x = _implicit_cast(x, ref.dtype)
        check_written(ref, kept, x, "addupdate")
    atoms = [_ref_atom(trace, ref), trace.to_atom(x), *map(trace.to_atom, operands)]
    record(trace, addupdate_p, atoms, {"indexer": indexer}, [])


def _addupdate_bind(ref, x, *index, indexer):
    check_write(ref, x, "an addupdate")
    ref_addupdate(ref, indexer.as_index(index), x)
    return []


addupdate_p = RefPrimitive("addupdate", _addupdate_bind, multiple_results=True)
abstract_eval_rules[addupdate_p] = lambda ref, x, *index, indexer: []
side_effecting.add(addupdate_p)
effect_rules[addupdate_p] = lambda params: frozenset({AccumEffect(0)})


def _pp_addupdate(eqn, names) -> str:
    return f"{_pp_target(eqn, names, 2)} += {names(eqn.invars[1])}"


eqn_printers[addupdate_p] = _pp_addupdate


# ------------------------------------------------------------------ freeze
def freeze_ref(ref):
    """`jax.freeze(ref)`: its value (a `freeze` equation where make_jaxpr records it)."""
    if not _is_box(ref) and not _is_recorded_ref(ref):
        return ref[...]
    trace = recorder(ref)
    if trace is None:
        return own(ref_get(ref))
    return record(trace, freeze_p, [_ref_atom(trace, ref)], {}, [ref.aval.inner_aval])[0]


freeze_p = RefPrimitive("freeze", freeze_ref)
abstract_eval_rules[freeze_p] = lambda ref: ref.inner_aval
side_effecting.add(freeze_p)
