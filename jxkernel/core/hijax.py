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
- Before compiling, a jaxpr with high equations or types is lowered (`lower_jaxpr`): it is
  run again on a new trace, each high equation by its `to_lojax` over the high values (Python
  objects holding tracers), high inputs rebuilt from their low values and mutable ones read
  back out as extra outputs (`lo_ty_qdd`, `new_from_loval`, `read_loval`).
- Tracers forward attributes to their type (core/trace.py `Tracer.__getattr__`): an
  `aval_method` of the type is a method of its tracers, an `aval_property` a property.

JAX's `Box` (a mutable box of a pytree, `new_box`, `box_get`, `box_set`) is here as JAX has it
in jax._src.hijax; its tests are tests/jax_compat/test_hijax.py.

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

from .avals import AbstractValue, typeof_rules
from .primitive import Primitive, impl_rules, jvp_rules, side_effecting, staging_rules, \
    transpose_rules

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
    from .trace import _ctx
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


# the Python classes registered as high values: staging takes them as constants by their type
hi_value_types: set = set()


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
        types, mutable ones with their current quasi-dynamic data."""
        from .ir import Var
        from .source_info import eqn_source_info
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
    from .ir import ClosedJaxpr, Jaxpr
    return isinstance(x, (Jaxpr, ClosedJaxpr))


def jaxpr_is_high(jaxpr) -> bool:
    """Whether a (Closed)Jaxpr has high types or equations (JAX's `Jaxpr.is_high`)."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    return any(is_high_aval(v.aval) for v in (*jaxpr.constvars, *jaxpr.invars)) or \
        any(is_high_aval(getattr(v, "aval", None)) for v in jaxpr.outvars) or \
        any(eqn_is_high(e) for e in jaxpr.eqns)


# ------------------------------------------------------------------ lowering
def lower_jaxpr(closed, in_qdds=None, final_qdds=None):
    """The low ClosedJaxpr of a high one, as JAX's `pe.lower_jaxpr`: each high input becomes
    its low values (`lo_ty`, or `lo_ty_qdd` of its initial quasi-dynamic data `in_qdds[i]`),
    each high equation runs its `to_lojax`, and each mutable input's final low values
    (`read_loval` of `final_qdds[i]`) follow the outputs.

    `closed` without high types or equations is returned as it is.
    """
    from .interpret import read_atom
    from .ir import ClosedJaxpr, Jaxpr
    from .source_info import replay, replaying
    from .staging import trace_to_jaxpr
    from .trace import _ctx
    jaxpr = closed.jaxpr
    if not jaxpr_is_high(closed):
        return closed
    in_qdds = list(in_qdds) if in_qdds is not None else [None] * len(jaxpr.invars)
    final_qdds = list(final_qdds) if final_qdds is not None else [None] * len(jaxpr.invars)
    in_types = [AvalQDD(v.aval, q) if q is not None else v.aval
                for v, q in zip(jaxpr.invars, in_qdds)]
    lo_avals = [t for aval in in_types for t in _lo_types(aval)]
    for c in closed.consts:
        if is_high_aval(typeof_rules.get(type(c), lambda _: None)(c)):
            raise NotImplementedError(
                "jxkernel cannot lower a jaxpr closing over a high value (a hijax value "
                "captured from outside the traced function); pass it as an argument")

    def run(*lo_args):
        it = iter(lo_args)
        args = []
        for aval in in_types:
            n = len(_lo_types(aval))
            lo = list(itertools.islice(it, n))
            if isinstance(aval, AvalQDD):
                args.append(aval.new_from_loval(*lo))
            elif is_high_aval(aval):
                args.append(aval.raise_val(*lo))
            else:
                args.append(lo[0])
        env = dict(zip(jaxpr.constvars, closed.consts))
        env.update(zip(jaxpr.invars, args))
        outer, names = replaying.source_info, _ctx.names
        try:
            for eqn in jaxpr.eqns:
                replay(eqn.source_info, outer, names)
                invals = [read_atom(env, a) for a in eqn.invars]
                if isinstance(eqn.primitive, HiPrimitive):
                    outs = eqn.primitive.to_lojax(*invals, **eqn.params)
                elif eqn_is_high(eqn):
                    outs = _lower_call(eqn, invals)
                else:
                    outs = eqn.primitive.bind(*invals, **eqn.params)
                env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
        finally:
            replay(None, outer, names)
        lo_outs = []
        for v in jaxpr.outvars:
            val = read_atom(env, v)
            aval = v.aval
            if isinstance(aval, AbstractValue) and getattr(aval, "has_qdd", False):
                raise NotImplementedError("a mutable high value cannot be an output of a "
                                          "compiled program (JAX's lowering refuses it too)")
            lo_outs.extend(aval.lower_val(val) if is_high_aval(aval) else [val])
        for aval, final, x in zip(in_types, final_qdds, args):
            if isinstance(aval, AvalQDD):
                lo_outs.extend(aval.aval.read_loval(final, x))
        return lo_outs

    lowered = trace_to_jaxpr(run, lo_avals)
    return ClosedJaxpr(Jaxpr(lowered.jaxpr.constvars, lowered.jaxpr.invars,
                             lowered.jaxpr.outvars, lowered.jaxpr.eqns), lowered.consts,
                       lowered.ref_writes)


def _lo_types(aval) -> list:
    return list(aval.lo_ty()) if is_high_aval(aval) or isinstance(aval, AvalQDD) else [aval]


def _lower_call(eqn, invals):
    """A call equation whose inner jaxpr is high (a jit inside a jit): inlined, its high
    equations lowered as the outer ones are (JAX lowers jit's jaxpr through jit_p.to_lojax)."""
    from .interpret import eval_jaxpr
    from .ir import ClosedJaxpr
    inner = eqn.params.get("jaxpr")
    if eqn.primitive.name not in ("jit", "pjit", "closed_call", "core_call") or inner is None:
        raise NotImplementedError(
            f"jxkernel does not lower high types through '{eqn.primitive}' (hijax values "
            f"inside {eqn.primitive}'s body)")
    if isinstance(inner, ClosedJaxpr):
        return eval_jaxpr_high(inner.jaxpr, inner.consts, invals)
    return eval_jaxpr_high(inner, [], invals)


def eval_jaxpr_high(jaxpr, consts, args) -> list:
    """Run `jaxpr` on the current trace, each high equation by its `to_lojax`."""
    from .interpret import read_atom
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        invals = [read_atom(env, a) for a in eqn.invars]
        if isinstance(eqn.primitive, HiPrimitive):
            outs = eqn.primitive.to_lojax(*invals, **eqn.params)
        elif eqn_is_high(eqn):
            outs = _lower_call(eqn, invals)
        else:
            outs = eqn.primitive.bind(*invals, **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read_atom(env, v) for v in jaxpr.outvars]


# ------------------------------------------------------------------ Box (jax._src.hijax's)
def _tree():
    from .. import tree_util
    return tree_util


def new_box():
    (), treedef = _tree().tree_flatten(None)
    return new_box_p.bind(treedef=treedef)


def box_get(box):
    tys = cur_qdd(box)
    leaf_vals = box_get_p.bind(box, avals=tuple(tys.leaf_avals))
    return _tree().tree_unflatten(tys.treedef, leaf_vals)


def box_set(box, val):
    leaves, treedef = _tree().tree_flatten(val)
    box_set_p.bind(box, *leaves, treedef=treedef)


@dataclass(frozen=True, slots=True)
class BoxTypeState(QuasiDynamicData):
    leaf_avals: tuple
    treedef: object

    def to_tangent_qdd(self):
        return BoxTypeState(tuple(a.to_tangent_aval() for a in self.leaf_avals), self.treedef)

    def normalize(self):
        return BoxTypeState(tuple(a.normalize() for a in self.leaf_avals), self.treedef)


class BoxTy(MutableHiType):
    __slots__ = ()
    has_qdd = True

    get = aval_method(box_get)
    set = aval_method(box_set)

    def __hash__(self):
        return hash(BoxTy)

    def __eq__(self, other):
        return isinstance(other, BoxTy)

    def __repr__(self):
        return "BoxTy()"

    def str_short(self, short_dtypes=False, **_) -> str:
        return "BoxTy"

    def lo_ty_qdd(self, box_state):
        return [lo for t in box_state.leaf_avals for lo in t.lo_ty()]

    def new_from_loval(self, box_state, *lo_vals):
        lo_vals_ = iter(lo_vals)
        hi_vals = [hi_ty.raise_val(*itertools.islice(lo_vals_, len(hi_ty.lo_ty())))
                   for hi_ty in box_state.leaf_avals]
        assert next(lo_vals_, None) is None
        return Box._new(_tree().tree_unflatten(box_state.treedef, hi_vals))

    def read_loval(self, box_state, box) -> list:
        leaf_vals, treedef = _tree().tree_flatten(box_get(box))
        assert treedef == box_state.treedef
        return [lo for hi_ty, hi_val in zip(box_state.leaf_avals, leaf_vals)
                for lo in hi_ty.lower_val(hi_val)]

    def update_from_loval(self, box_state, box, *lo_vals) -> None:
        lo_vals_ = iter(lo_vals)
        hi_vals = [hi_ty.raise_val(*itertools.islice(lo_vals_, len(hi_ty.lo_ty())))
                   for hi_ty in box_state.leaf_avals]
        assert next(lo_vals_, None) is None
        box_set(box, _tree().tree_unflatten(box_state.treedef, hi_vals))

    def to_tangent_aval(self):
        return BoxTy()


class _BoxMeta(type):
    # a traced Box is a tracer of type BoxTy: isinstance answers for it too, as in JAX
    def __instancecheck__(cls, instance):
        from .trace import Tracer
        return super().__instancecheck__(instance) or \
            isinstance(instance, Tracer) and isinstance(instance.aval, BoxTy)


class Box(metaclass=_BoxMeta):
    """A mutable box holding a pytree; `Box(x)` binds `new_box` and `box_set`."""

    def __new__(cls, init_val=None):
        box = new_box()
        box.set(init_val)
        return box

    @classmethod
    def _new(cls, init_val):
        new = super().__new__(cls)
        new._val = init_val
        return new

    def get(self):
        return box_get(self)

    def set(self, val):
        box_set(self, val)

    def cur_qdd(self):
        return self.type_state()

    @property
    def ty(self):
        return BoxTy()

    def type_state(self):
        from .avals import get_aval
        leaves, treedef = _tree().tree_flatten(self._val)
        return BoxTypeState(tuple(_typeof(x, get_aval) for x in leaves), treedef)


def _typeof(x, get_aval):
    rule = typeof_rules.get(type(x))
    return rule(x) if rule is not None else get_aval(x)


register_hitype(Box, lambda b: b.ty)


class NewBox(HiPrimitive):
    def is_high(self, *, treedef) -> bool:
        return True

    def abstract_eval(self, *, treedef):
        leaves, treedef = _tree().tree_flatten(None)
        return AvalQDD(BoxTy(), BoxTypeState(tuple(leaves), treedef)), set()

    def to_lojax(self, *, treedef):
        return Box._new(None)


new_box_p = NewBox("new_box")


class BoxSet(HiPrimitive):
    multiple_results = True

    def abstract_eval(self, box_ty, *leaf_avals, treedef):
        box_ty.mutable_qdd.update(BoxTypeState(tuple(leaf_avals), treedef))
        return [], set()

    def to_lojax(self, box, *leaves, treedef):
        box._val = _tree().tree_unflatten(treedef, leaves)
        return []

    def jvp(self, primals, tangents, *, treedef):
        box, *vals = primals
        box_dot, *val_dots = tangents
        from ..transforms.ad_util import Zero
        if type(box_dot) is Zero:
            raise Exception("can't differentiate Box.set operation, "
                            "did you forget jax.lax.stop_gradient?")
        box_set_p.bind(box, *vals, treedef=treedef)
        box_set_p.bind(box_dot, *val_dots, treedef=treedef)
        return [], []


box_set_p = BoxSet("box_set")


class BoxGet(HiPrimitive):
    multiple_results = True

    def abstract_eval(self, box_ty, *, avals):
        return list(avals), set()

    def to_lojax(self, box, *, avals):
        return _tree().tree_leaves(box._val)

    def jvp(self, primals, tangents, *, avals):
        (box,), (box_dot,) = primals, tangents
        return (box_get_p.bind(box, avals=avals),
                box_get_p.bind(box_dot, avals=tuple(a.to_tangent_aval() for a in avals)))


box_get_p = BoxGet("box_get")
