"""jax._src.hijax's names (public as jax.experimental.hijax): jxkernel's high types and
HiPrimitive (jxkernel/core/hijax.py), with the vocabulary of rules JAX keeps beside them, and
JAX's `Box`: a mutable box holding a pytree, a MutableHiType whose quasi-dynamic data is the
types and tree structure of what it holds (its tests: tests/jax_compat/test_hijax.py).

    >>> def f(x):
    ...     b = Box(x)
    ...     b.set(b.get() * 2)
    ...     return b.get() + 1
    >>> jxkernel.jit(f)(3.0)
    Array(7., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from ...core.avals import AbstractValue, ShapedArray, get_aval, typeof_rules  # noqa: F401
from ...core.hijax import (AvalMutableQDD, AvalQDD, HiPrimitive, HiType,  # noqa: F401
                           MutableHiType, QuasiDynamicData, aval_method, aval_property,
                           cur_qdd, hijax_method, register_hitype)
from ... import tree_util
from ...core.trace import Tracer
from ...transforms.ad_util import Zero  # noqa: F401
from ...transforms.ad_util import instantiate as instantiate_zeros  # noqa: F401
from ...transforms.ad_util import is_undefined as is_undefined_primal  # noqa: F401
from ..extend.core import control_flow_allowed_effects  # noqa: F401

QDD = QuasiDynamicData


# ------------------------------------------------------------------ Box (jax._src.hijax's)
def new_box():
    (), treedef = tree_util.tree_flatten(None)
    return new_box_p.bind(treedef=treedef)


def box_get(box):
    tys = cur_qdd(box)
    leaf_vals = box_get_p.bind(box, avals=tuple(tys.leaf_avals))
    return tree_util.tree_unflatten(tys.treedef, leaf_vals)


def box_set(box, val):
    leaves, treedef = tree_util.tree_flatten(val)
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
        return Box._new(tree_util.tree_unflatten(box_state.treedef, hi_vals))

    def read_loval(self, box_state, box) -> list:
        leaf_vals, treedef = tree_util.tree_flatten(box_get(box))
        assert treedef == box_state.treedef
        return [lo for hi_ty, hi_val in zip(box_state.leaf_avals, leaf_vals)
                for lo in hi_ty.lower_val(hi_val)]

    def update_from_loval(self, box_state, box, *lo_vals) -> None:
        lo_vals_ = iter(lo_vals)
        hi_vals = [hi_ty.raise_val(*itertools.islice(lo_vals_, len(hi_ty.lo_ty())))
                   for hi_ty in box_state.leaf_avals]
        assert next(lo_vals_, None) is None
        box_set(box, tree_util.tree_unflatten(box_state.treedef, hi_vals))

    def to_tangent_aval(self):
        return BoxTy()


class _BoxMeta(type):
    # a traced Box is a tracer of type BoxTy: isinstance answers for it too, as in JAX
    def __instancecheck__(cls, instance):
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
        leaves, treedef = tree_util.tree_flatten(self._val)
        return BoxTypeState(tuple(_typeof(x) for x in leaves), treedef)


def _typeof(x):
    rule = typeof_rules.get(type(x))
    return rule(x) if rule is not None else get_aval(x)


register_hitype(Box, lambda b: b.ty)


class NewBox(HiPrimitive):
    def is_high(self, *, treedef) -> bool:
        return True

    def abstract_eval(self, *, treedef):
        leaves, treedef = tree_util.tree_flatten(None)
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
        box._val = tree_util.tree_unflatten(treedef, leaves)
        return []

    def jvp(self, primals, tangents, *, treedef):
        box, *vals = primals
        box_dot, *val_dots = tangents
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
        return tree_util.tree_leaves(box._val)

    def jvp(self, primals, tangents, *, avals):
        (box,), (box_dot,) = primals, tangents
        return (box_get_p.bind(box, avals=avals),
                box_get_p.bind(box_dot, avals=tuple(a.to_tangent_aval() for a in avals)))


box_get_p = BoxGet("box_get")
