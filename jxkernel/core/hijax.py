"""Types of one's own ("high" types, lowered to arrays) and the primitives acting on them, as
libraries declare them (Flax NNX's hijax Variables); public as jax.experimental.hijax, with the
vocabulary of rules that jxkernel/_jax/_src/hijax.py adds.

What runs here: the types and their registration (`register_hitype` makes `jax.typeof` give a
value's type), the method and property markers, the effect registry, and `HiPrimitive`s bound
on concrete values (their `impl`). jxkernel does not stage high types into jaxprs (JAX lowers
them to arrays through `to_lojax`); binding a HiPrimitive inside jit, grad or vmap raises a
NotImplementedError that names it.

    >>> class Doubled(HiPrimitive):
    ...     def impl(self, x):
    ...         return 2 * x
    >>> Doubled("doubled").bind(3)
    6
"""
from __future__ import annotations

from collections import namedtuple

from .avals import AbstractValue, typeof_rules
from .primitive import Primitive, abstract_eval_rules, impl_rules

# a method or property of a high type's values, declared on the type (its aval)
aval_property = namedtuple("aval_property", ["fget"])
aval_method = namedtuple("aval_method", ["fun"])


class AvalQDD:
    """A mutable type with its "quasi-dynamic data" (what may change as the value is updated)."""
    __slots__ = ("aval", "qdd")

    def __init__(self, aval, qdd):
        self.aval, self.qdd = aval, qdd

    def __repr__(self):
        return f"AvalQDD({self.aval!r}, {self.qdd!r})"


class AvalMutableQDD:
    """A mutable type whose quasi-dynamic data a traced update changes in place."""
    __slots__ = ("aval", "mutable_qdd")

    def __init__(self, aval, mutable_qdd):
        self.aval, self.mutable_qdd = aval, mutable_qdd

    def __repr__(self):
        return f"AvalMutableQDD({self.aval!r}, {self.mutable_qdd!r})"


class HiType(AbstractValue):
    """An immutable high type: subclasses say how it lowers to arrays (`lo_ty`,
    `lower_val`, `raise_val`)."""
    __slots__ = ()
    has_qdd = False
    mutable = False

    def lo_ty(self) -> list:
        raise NotImplementedError(f"{type(self).__name__} must define lo_ty")

    def lower_val(self, hi_val) -> list:
        raise NotImplementedError(f"{type(self).__name__} must define lower_val")

    def raise_val(self, *lo_vals):
        raise NotImplementedError(f"{type(self).__name__} must define raise_val")


class MutableHiType(AbstractValue):
    """A mutable high type (a box updated in place): subclasses say how it lowers."""
    __slots__ = ()
    has_qdd = True
    mutable = True

    def lo_ty_qdd(self, state) -> list:
        raise NotImplementedError(f"{type(self).__name__} must define lo_ty_qdd")


def register_hitype(val_cls, typeof_fn) -> None:
    """Values of `val_cls` have the type `typeof_fn(value)` (what `jax.typeof` answers)."""
    typeof_rules[val_cls] = typeof_fn


class HiPrimitive(Primitive):
    """A primitive over high types. Subclasses define `impl` (run on concrete values), and for
    JAX also `abstract_eval`, `to_lojax`, `jvp`, `transpose`; jxkernel runs `impl` eagerly."""
    __slots__ = ()

    def __init__(self, name: str):
        super().__init__(name)
        impl_rules[self] = lambda *args, **params: self.impl(*args, **params)
        abstract_eval_rules[self] = self._not_staged

    def is_high(self, *avals, **params) -> bool:
        return True

    def impl(self, *args, **params):
        raise NotImplementedError(f"the HiPrimitive '{self.name}' defines no impl")

    def _not_staged(self, *avals, **params):
        raise NotImplementedError(
            f"jxkernel does not stage hijax primitives into jaxprs: '{self.name}' was bound "
            f"inside a transformation (jit, grad, vmap, scan...) on types "
            f"{[type(a).__name__ for a in avals]}. It runs on concrete values only; in Flax, "
            f"leave flax_hijax_variable off (the default).")
