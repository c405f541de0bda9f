"""Types of one's own ("high" types, lowered to arrays) and the primitives acting on them, as
libraries declare them (Flax NNX's hijax Variables); public as jax.experimental.hijax, with the
vocabulary of rules that jxkernel/_jax/_src/hijax.py adds.

What runs here, as in JAX 0.10.2 (jax/_src/hijax.py and the hijax parts of jax/_src/core.py):

- Registration: `register_hitype` makes `jax.typeof` give a value's high type.
- Eagerly a `HiPrimitive` runs its `to_lojax` on the concrete values (JAX's eval trace
  "requires low": it never calls a HiPrimitive's `impl`).
- Staged (jit, make_jaxpr, eval_shape: core/staging.py's JaxprTrace) it is one equation typed
  by its `abstract_eval`, which returns (out types, effects). A mutable high type (`has_qdd`)
  carries "quasi-dynamic data" (QDD: what a box currently holds, say) that changes as the
  program runs: each staged value of such a type has a `MutableQuasiDynamicData`, an
  `abstract_eval` sees it as an `AvalMutableQDD` and updates it, and returns `AvalQDD` for a
  new one. `cur_qdd(x)` reads it (Flax's `jax.experimental.cur_qdd`).
- Before compiling, a jaxpr with high equations or types is lowered (core/hijax_lower.py): it is
  run again on a new trace, each high equation by its `to_lojax` over the high values (Python
  objects holding tracers), high inputs rebuilt from their low values and mutable ones read
  back out as extra outputs (`lo_ty_qdd`, `new_from_loval`, `read_loval`).
- Tracers forward attributes to their type (core/trace.py `Tracer.__getattr__`): an
  `aval_method` of the type is a method of its tracers, an `aval_property` a property.

JAX's `Box` (a mutable box of a pytree, `new_box`, `box_get`, `box_set`) is in
jxkernel/_jax/_src/hijax.py, as JAX has it in jax._src.hijax (it needs pytrees, above core);
the tests are tests/jax_compat/test_hijax.py.

    >>> class Doubled(HiPrimitive):
    ...     def abstract_eval(self, x):
    ...         return x, set()
    ...     def to_lojax(self, x):
    ...         return 2 * x
    >>> Doubled("doubled").bind(3)
    6
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from .avals import AbstractValue, hi_value_types, typeof_rules  # noqa: F401 (staging's)
from .ir import ClosedJaxpr, Jaxpr, Var
from .name_stack import eqn_source_info
from .primitive import Primitive, impl_rules, jvp_rules, side_effecting, staging_rules, \
    transpose_rules
from .trace import _ctx

# a method or property of a high type's values, declared on the type (its aval)
from .trace import aval_method, aval_property  # noqa: E402,F401


# ------------------------------------------------------------------ quasi-dynamic data
class QuasiDynamicData:
    """The base class of a mutable type's quasi-dynamic data (JAX's)."""


class MutableQuasiDynamicData:
    """A staged value's current quasi-dynamic data, which the equations staged on it update."""
    __slots__ = ("init_val", "cur_val")

    def __init__(self, val):
        self.init_val = val
        self.cur_val = val

    def update(self, val) -> None:
        self.cur_val = val

    def __repr__(self):
        return f"MutableQuasiDynamicData(init_val={self.init_val}, cur_val={self.cur_val})"


@dataclass(frozen=True, slots=True)
class AvalQDD:
    """A mutable type with its quasi-dynamic data at one point of a program."""
    aval: AbstractValue
    qdd: object
    is_high = True
    has_qdd = True

    def lo_ty(self):
        return self.aval.lo_ty_qdd(self.qdd)

    def read_loval(self, val):
        return self.aval.read_loval(self.qdd, val)

    def read_loval_in(self, val):
        return self.aval.read_loval_in(self.qdd, val)

    def read_loval_out(self, val):
        return self.aval.read_loval_out(self.qdd, val)

    def new_from_loval(self, *lovals):
        return self.aval.new_from_loval(self.qdd, *lovals)

    def to_tangent_aval(self):
        return AvalQDD(self.aval.to_tangent_aval(), self.qdd and self.qdd.to_tangent_qdd())


@dataclass(frozen=True, slots=True)
class AvalMutableQDD:
    """A mutable type as an `abstract_eval` sees its operand: `mutable_qdd.update(...)`
    changes what the value holds from that equation on."""
    aval: AbstractValue
    mutable_qdd: MutableQuasiDynamicData


def cur_qdd(x):
    """`x`'s quasi-dynamic data where the current trace runs (JAX's `core.cur_qdd`, public as
    `jax.experimental.cur_qdd`): a staged value's current one, a concrete value's
    `x.cur_qdd()`."""
    return _ctx.trace.cur_qdd(x)


# ------------------------------------------------------------------ types
class HiType(AbstractValue):
    """An immutable high type: subclasses say how it lowers to arrays (`lo_ty`,
    `lower_val`, `raise_val`)."""
    __slots__ = ()
    is_high = True
    has_qdd = False

    def lo_ty(self) -> list:
        raise AssertionError("must override")

    def lower_val(self, hi_val) -> list:
        raise AssertionError("must override")

    def raise_val(self, *lo_vals):
        raise AssertionError("must override")

    def to_tangent_aval(self):
        raise AssertionError("must override")

    def to_ct_aval(self):
        return self.to_tangent_aval()


class MutableHiType(AbstractValue):
    """A mutable high type (a box updated in place): subclasses say how it lowers, given
    its quasi-dynamic data (`lo_ty_qdd`, `new_from_loval`, `read_loval`, `update_from_loval`)."""
    __slots__ = ()
    is_high = True
    has_qdd = True
    is_writer = False
    type_state = aval_method(cur_qdd)

    def lo_ty_qdd(self, state) -> list:
        raise AssertionError("must override")

    def lo_ty(self):
        raise AssertionError("mutable hitypes should use lo_ty_qdd instead")

    def new_from_loval(self, state, *vals):
        raise AssertionError("must override")

    def read_loval(self, state, val) -> list:
        raise AssertionError("must override")

    def read_loval_in(self, state, val) -> list:
        return self.read_loval(state, val)

    def read_loval_out(self, state, val) -> list:
        return self.read_loval(state, val)

    def update_from_loval(self, state, val, *lo_vals) -> None:
        raise AssertionError("must override")

    def to_tangent_aval(self):
        raise AssertionError("must override")

    def to_ct_aval(self):
        return self.to_tangent_aval()




def register_hitype(val_cls, typeof_fn) -> None:
    """Values of `val_cls` have the type `typeof_fn(value)` (what `jax.typeof` answers)."""
    typeof_rules[val_cls] = typeof_fn
    hi_value_types.add(val_cls)


def hijax_method(f):
    return aval_method(f)


def is_high_aval(aval) -> bool:
    return getattr(aval, "is_high", False)


# ------------------------------------------------------------------ primitives
class HiPrimitive(Primitive):
    """A primitive over high types. Subclasses define `abstract_eval` (returning the output
    type(s) and a set of effects), `to_lojax` (the primitive in terms of low values: what
    runs eagerly, and what lowering puts in a compiled program), and for autodiff `jvp` and
    `transpose`."""
    __slots__ = ()

    def __init__(self, name: str):
        # a subclass says `multiple_results = True` in its body (Primitive's slot otherwise)
        multiple = getattr(type(self), "multiple_results", False)
        super().__init__(name, multiple if isinstance(multiple, bool) else False)
        impl_rules[self] = self._run_low
        staging_rules[self] = self._stage
        jvp_rules[self] = lambda primals, tangents, **params: \
            self.jvp(list(primals), list(tangents), **params)
        transpose_rules[self] = self.transpose
        side_effecting.add(self)      # (its effects are the library's: kept, as JAX keeps them)

    def is_high(self, *avals, **params) -> bool:
        return True

    def is_effectful(self, params) -> bool:
        return False

    def abstract_eval(self, *arg_avals, **params):
        raise AssertionError("must override")

    def to_lojax(self, *args, **params):
        raise AssertionError(f"must override for {self}")

    def jvp(self, primals, tangents, **params):
        raise AssertionError("must override")

    def transpose(self, *args, **params):
        raise AssertionError("must override")

    def _run_low(self, *args, **params):
        return self.to_lojax(*args, **params)

    def _stage(self, trace, args, params):
        """One equation on `trace` (a JaxprTrace), typed by `abstract_eval` over the operands'
        types, mutable ones with their current quasi-dynamic data. A trace lowering a jaxpr
        (core/hijax_lower.py) takes the primitive's low equations instead, as JAX's."""
        if trace.requires_low:
            return self.to_lojax(*args, **params)
        atoms = [trace.to_atom(x) for x in args]
        in_avals = [trace.aval_mutable_qdd(a) for a in atoms]
        out, _effects = self.abstract_eval(*in_avals, **params)
        if isinstance(out, (tuple, list)) != bool(self.multiple_results):
            raise ValueError(f"{self}.abstract_eval() method should return a tuple or a list "
                             f"iff {self}.multiple_results.")
        outs = list(out) if self.multiple_results else [out]
        outvars, qdds = [], []
        for aval in outs:
            if isinstance(aval, AvalQDD):
                outvars.append(Var(aval.aval))
                qdds.append(aval.qdd)
            else:
                outvars.append(Var(aval))
                qdds.append(None)
        for var, qdd in zip(outvars, qdds):
            if qdd is not None:
                trace.qdds[var] = MutableQuasiDynamicData(qdd)
        trace.add_staged_eqn(atoms, outvars, self, params, eqn_source_info(3))
        tracers = [trace.tracer_type(trace, v.aval, v) for v in outvars]
        return tracers if self.multiple_results else tracers[0]


def eqn_is_high(eqn) -> bool:
    """Whether `eqn` is a high equation (or holds a high jaxpr), which lowering rewrites."""
    if isinstance(eqn.primitive, HiPrimitive):
        return True
    return any(is_high_aval(v.aval) for v in (*eqn.invars, *eqn.outvars)) or \
        any(jaxpr_is_high(p) for p in eqn.params.values() if _is_jaxpr(p))


def _is_jaxpr(x) -> bool:
    return isinstance(x, (Jaxpr, ClosedJaxpr))


def jaxpr_is_high(jaxpr) -> bool:
    """Whether a (Closed)Jaxpr has high types or equations (JAX's `Jaxpr.is_high`)."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    return any(is_high_aval(v.aval) for v in (*jaxpr.constvars, *jaxpr.invars)) or \
        any(is_high_aval(getattr(v, "aval", None)) for v in jaxpr.outvars) or \
        any(eqn_is_high(e) for e in jaxpr.eqns)
