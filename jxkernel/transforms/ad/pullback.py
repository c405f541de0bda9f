"""The pullback `vjp` returns, `VJP`: a pytree of its residuals, callable on a cotangent, and
`jax.ad`'s classes saying where `VJP.with_refs` sends each primal's cotangent (GradValue,
DontWant and DidntWant, GradRef) and what it keeps of an input (NotNeeded).

    >>> y, f_vjp = jax.vjp(jnp.sin, 1.0)
    >>> f_vjp
    VJP(fun=sin, residuals=1)
"""
from __future__ import annotations

import dataclasses

from ...core.staging import is_ref
from ...tree_util import (Partial, register_dataclass, register_pytree_node, tree_flatten,
                         tree_unflatten)


class VJP:
    """The pullback `vjp` returns: `f_vjp(cotangent)`. A pytree whose leaves are the residuals
    (and whose structure holds the linear program), so it passes through `jit` as an argument.

    >>> y, f_vjp = jax.vjp(lambda x: x * x, 3.0)
    >>> jax.jit(lambda f, ct: f(ct))(f_vjp, 1.0)
    (Array(6., dtype=float32, weak_type=True),)
    """
    # args_res: the inputs that are residuals, per argument (NotNeeded() where none is): as
    # JAX's, settable (`f_vjp.args_res = [None, None]` frees them while the VJP waits; they
    # are set back before it is called); `_slots` says where each goes among the residuals
    __slots__ = ("_pullback", "residuals", "_name", "args_res", "_slots",
                 "__weakref__")   # (jit holds it weakly)

    def __init__(self, pullback, residuals, name, args_res=(), slots=()):
        self._pullback, self.residuals, self._name = pullback, residuals, name
        self.args_res, self._slots = list(args_res), slots

    @property
    def jaxpr(self):
        """The linear program the pullback transposes (tangents in, out), its constants the
        residuals, as JAX's `VJP.jaxpr`: what a remat policy saved shows as what it reads."""
        return self._pullback.jaxpr

    @property
    def opaque_residuals(self) -> list:
        """The residuals that are not inputs (JAX's name): what the VJP itself keeps."""
        taken = {j for j, _ in self._slots}
        return [r for j, r in enumerate(self.residuals) if j not in taken]

    def _all_residuals(self) -> list:
        full = list(self.residuals)
        # the inputs as JAX reads them back: the leaves of args_res, NotNeeded() as a leaf
        inputs = tree_flatten(self.args_res, is_leaf=lambda x: isinstance(x, NotNeeded))[0]
        for j, i in self._slots:
            if i >= len(inputs) or isinstance(inputs[i], NotNeeded):
                raise ValueError(f"The VJP's args_res is {self.args_res!r}: set each argument "
                                 f"back to its primal input before calling the VJP function.")
            full[j] = inputs[i]
        return full

    def __call__(self, ct, *extra):
        if extra:
            raise TypeError(
                f"The function returned by `jax.vjp` applied to {self._name} was called with "
                f"{len(extra) + 1} arguments, but functions returned by `jax.vjp` must be called "
                f"with a single argument corresponding to the single value returned by the "
                f"function being differentiated (even if that returned value is a tuple or other "
                f"container): call f_vjp((ct1, ct2)), not f_vjp(ct1, ct2).")
        return self._pullback(self._all_residuals(), ct)

    def _call_wanting(self, ct, dont_want):
        """self(ct), the cotangents flagged in `dont_want` (per primal leaf) not computed."""
        return self._pullback(self._all_residuals(), ct, dont_want)

    def with_refs(self, *maybe_ct_refs):
        """The pullback, taking per primal where its cotangent goes: `GradValue()` (returned,
        the default), `DontWant()` (not wanted: `DidntWant()` comes back) or a Ref (the
        cotangent added into it: `GradRef()` comes back), as JAX's `jax.ad` classes say.

        >>> _, f_vjp = jax.vjp(lambda x, y: x * y, 2.0, 3.0)
        >>> f_vjp.with_refs(jax.ad.GradValue(), jax.ad.DontWant())(1.0)
        (Array(3., dtype=float32, weak_type=True), DidntWant())
        """
        return Partial(_pullback_into, self, maybe_ct_refs)

    def __repr__(self):
        return f"VJP(fun={self._name}, residuals={len(self.residuals)})"


# ------------------------------------------------------------------ jax.ad
# Where a primal's cotangent goes in `VJP.with_refs` (JAX's classes of jax/_src/api.py): as a
# value (GradValue), nowhere (DontWant, answered by DidntWant) or into a Ref (GradRef back).
@dataclasses.dataclass(frozen=True, slots=True)
class GradValue:
    pass


@dataclasses.dataclass(frozen=True, slots=True)
class DontWant:
    pass


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class GradRef:
    pass


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class DidntWant:
    pass


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class NotNeeded:
    """An argument of which the VJP keeps nothing (`f_vjp.args_res`), as JAX's api.NotNeeded."""


def _pullback_into(vjp_fn, maybe_ct_refs, ct):
    """vjp_fn(ct), each primal's cotangent sent where `maybe_ct_refs` says (VJP.with_refs)."""
    if not maybe_ct_refs:
        return vjp_fn(ct)
    wanted, wanted_tree = tree_flatten(maybe_ct_refs)
    dont_want = [isinstance(w, DontWant) for w in wanted]
    cts, in_tree = tree_flatten(vjp_fn._call_wanting(ct, dont_want) if any(dont_want)
                                else vjp_fn(ct))
    if wanted_tree != in_tree:
        raise Exception(f"vjp with_refs: expected a tree of the primals' structure {in_tree}, "
                        f"got {wanted_tree}")
    out = []
    for ct_leaf, want in zip(cts, wanted):
        if is_ref(want):
            want[...] = want[...] + ct_leaf        # accumulated, as JAX's RefAccum
            out.append(GradRef())
        else:
            out.append(DidntWant() if isinstance(want, DontWant) else ct_leaf)
    return tree_unflatten(in_tree, out)


register_pytree_node(VJP,
                     lambda v: ((v.residuals, v.args_res), (v._pullback, v._name, v._slots)),
                     lambda meta, kids: VJP(meta[0], list(kids[0]), meta[1], kids[1], meta[2]))
