"""custom_vjp's fwd and bwd as its primitive calls them: over flat lists of leaves, each
checking what the user's rule returns (JAX's TypeErrors and ValueErrors, in its words), and
`CustomVJPPrimal`, what fwd gets for each primal leaf with `symbolic_zeros=True`.
"""
from __future__ import annotations

import dataclasses

from ...core import dtypes
from ...core.avals import get_aval, vma_text
from ...core.config import config
from ...tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_map,
                          tree_structure, tree_unflatten)
from ..ad_util import Zero
from .call_rules import _literal_as_array, _type_text, _types_differ, _types_tree
from .function import _merge


@dataclasses.dataclass
class CustomVJPPrimal:
    """What a custom_vjp's fwd gets for each primal leaf when `symbolic_zeros=True`: the
    value, and whether it is perturbed (has a nonzero tangent).

    >>> f = jax.custom_vjp(lambda x, y: x * y)
    >>> f.defvjp(lambda x, y: (print(x.perturbed, y.perturbed) or x.value * y.value,
    ...                        (x.value, y.value)),
    ...          lambda res, g: (res[1] * g, res[0] * g), symbolic_zeros=True)
    >>> float(jax.grad(f)(2.0, 3.0))
    True False
    3.0
    """
    value: object
    perturbed: bool


# (its __module__ says JAX's home, jax._src.custom_derivatives: doctest, which looks for a
# class's examples by that name, finds them here through __test__)
__test__ = {"CustomVJPPrimal": CustomVJPPrimal}


class _FlatVJPRule:
    """fwd and bwd over flat lists; bwd checks the cotangents it gets back."""
    out_avals = None        # the function's output types, where it was traced (for messages)

    def __init__(self, custom, nondiff, in_tree, out_tree, n_args, name, in_avals):
        self.custom, self.nondiff, self.in_tree, self.out_tree = custom, nondiff, in_tree, out_tree
        self.n_args, self.name, self.in_avals = n_args, name, in_avals
        self.res_tree = None
        # the user's fwd's name, as JAX prints it (`fwd=<lambda>` for a lambda)
        self.__name__ = getattr(custom.fwd, "__name__", f"{name}_fwd")
        self.bwd = _FlatBwd(self)

    def __call__(self, primals, perturbed=None):
        """fwd on the flat `primals`; with symbolic_zeros each leaf reaches fwd as a
        CustomVJPPrimal, `perturbed` saying whether its tangent is nonzero (default: all)."""
        c = self.custom
        primals = [_literal_as_array(p) for p in primals]
        if c.symbolic_zeros:
            flags = [True] * len(primals) if perturbed is None else perturbed
            primals = [CustomVJPPrimal(p, bool(f)) for p, f in zip(primals, flags)]
        args = _merge(self.nondiff, tree_unflatten(self.in_tree, primals), c.nondiff_argnums,
                      self.n_args)
        out = c.fwd(*args)
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            error = TypeError(f"Custom VJP fwd rule {self.__name__} for function {self.name} "
                              f"must produce a pair (list or tuple of length two) where the "
                              f"first element represents the primal output (equal to those of "
                              f"the custom_vjp-decorated function {self.name}) and the second "
                              f"element represents residuals (i.e. values stored from the "
                              f"forward pass for use on the backward pass), but instead of a "
                              f"pair the fwd rule {self.__name__} produced {out}.")
            # for its card (views/error_cards/custom_rules.py): how many it gave, None for one
            error.custom_vjp_fwd = c
            error.fwd_returned = len(out) if isinstance(out, (tuple, list)) else None
            raise error
        out_leaves, out_tree = tree_flatten(out[0])
        if self.out_tree is None:        # called directly: the function was not traced
            self.out_tree = out_tree
        elif out_tree != self.out_tree:
            raise TypeError(
                f"Custom VJP fwd rule {self.__name__} for function {self.name} must produce a "
                f"pair (list or tuple of length two) where the first element represents the "
                f"primal output (equal to the output of the custom_vjp-decorated function "
                f"{self.name}) and the second element represents residuals (i.e. values stored "
                f"from the forward pass for use on the backward pass), but instead the fwd "
                f"rule output's first element had container/pytree structure:\n"
                f"    {_types_tree(out_tree, out_leaves)}\nwhile the custom_vjp-decorated "
                f"function {self.name} had output container/pytree structure:\n"
                f"    {_types_tree(self.out_tree, self.out_avals)}.")
        if _types_differ(out_leaves, self.out_avals):
            raise _fwd_type_error(self, out_tree, out_leaves)
        res_leaves, self.res_tree = tree_flatten(out[1])
        return out_leaves, res_leaves


def _fwd_type_error(rule, out_tree, out_leaves) -> TypeError:
    """JAX's TypeError where fwd's primal outputs differ in shape or dtype from the function's
    (in its custom_vjp3 rewrite's words under jax_custom_vjp3: the first that differs)."""
    if config.jax_custom_vjp3:
        paths = [keystr(p) for p, _ in tree_flatten_with_path(
            tree_unflatten(out_tree, [0] * out_tree.num_leaves))[0]]
        path, x, a = next((p, x, a) for p, x, a in zip(paths, out_leaves, rule.out_avals)
                          if get_aval(x).shape != a.shape or get_aval(x).dtype != a.dtype)
        return TypeError(f"at {path}, got fwd output type {_type_text(get_aval(x))} which "
                         f"doesn't match primal output type {_type_text(a)}")
    return TypeError(
        f"Custom VJP fwd rule {rule.__name__} for function {rule.name} must produce a pair "
        f"(list or tuple of length two) where the first element represents the primal output "
        f"(equal to the output of the custom_vjp-decorated function {rule.name}) and the "
        f"second element represents residuals (i.e. values stored from the forward pass for "
        f"use on the backward pass), but instead the fwd rule output's first element had "
        f"shapes/dtypes of:\n    {_types_tree(out_tree, out_leaves)}\nwhile the "
        f"custom_vjp-decorated function {rule.name} had output shapes/dtypes of:\n"
        f"    {_types_tree(rule.out_tree, rule.out_avals)}")


class _FlatBwd:
    def __init__(self, rule: _FlatVJPRule):
        self.rule = rule
        self.__name__ = getattr(rule.custom.bwd, "__name__", f"{rule.name}_bwd")

    def __call__(self, residuals, cotangents):
        r, c = self.rule, self.rule.custom
        res = tree_unflatten(r.res_tree, residuals)
        cts = tree_unflatten(r.out_tree, cotangents)
        out = c.bwd(*r.nondiff, res, cts) if c.nondiff_argnums else c.bwd(res, cts)
        n_dyn = r.n_args - len(c.nondiff_argnums)
        if not isinstance(out, (tuple, list)) or len(out) != n_dyn:
            raise _bwd_structure_error(out, r.in_tree, c)
        leaves = []
        for i, (ct, primal_tree) in enumerate(zip(out, r.in_tree.children())):
            avals = _avals_of(primal_tree, r, i)
            if ct is None:
                leaves.extend(Zero(a) for a in avals)
                continue
            # JAX's rule: the cotangent's structure is a prefix of the argument's, a leaf
            # (or None) standing for a whole subtree (Flax's State of arrays for its Params)
            dummy = tree_unflatten(primal_tree, [object()] * primal_tree.num_leaves)
            try:
                flat = _prefix_leaves(ct, dummy)
            except ValueError:
                raise _bwd_structure_error(out, r.in_tree, c) from None
            # an integer or boolean input has no cotangent: whatever bwd gives for it (int
            # zeros, float0, anything) is dropped unchecked, as JAX drops it
            leaves.extend(Zero(a) if x is None or not dtypes.has_tangent(a.dtype) else x
                          for x, a in zip(flat, avals))
        paths = [keystr(p) for p, _ in tree_flatten_with_path(
            tree_unflatten(r.in_tree, [0] * r.in_tree.num_leaves))[0]]
        for ct, aval, path in zip(leaves, r.in_avals, paths):
            if type(ct) is Zero and not _same_type(ct.aval, aval):
                raise ValueError(
                    f"Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does "
                    f"not match the corresponding input tangent shape/dtype: at output{path} "
                    f"the SymbolicZero had shape/dtype {_type_text(ct.aval)} while the "
                    f"corresponding input had shape/dtype {_type_text(aval)}. Consider just "
                    f"returning a None here instead of a SymbolicZero object.")
            if type(ct) is Zero or config.jax_disable_bwd_checks:
                continue
            # (in a shard_map body: the manual axes it varies over too, as JAX's typecompat)
            mismatches = [what for what, differ in (
                ("the shapes do not match", get_aval(ct).shape != aval.shape),
                ("the manual axis types do not match",
                 getattr(get_aval(ct), "vma", frozenset()) != getattr(aval, "vma", frozenset())))
                if differ]
            if mismatches:
                raise ValueError(f"Custom VJP bwd rule must produce an output with the same "
                                 f"type as the args tuple of the primal function, but at "
                                 f"output{path} the bwd rule produced an output of type "
                                 f"{_vma_type_text(get_aval(ct))} corresponding to an input of "
                                 f"type {_vma_type_text(aval)}, so {', and '.join(mismatches)}")
        return leaves


def _vma_type_text(aval) -> str:
    """`float32[1]`, with the manual axes it varies over in a shard_map body (`{V:i}`)."""
    return _type_text(aval) + vma_text(getattr(aval, "vma", frozenset()))


def _bwd_structure_error(out, in_tree, custom) -> TypeError:
    """JAX's words for a bwd output of another structure than the primal's arguments (a bare
    value, a tuple of another length, an argument's cotangent of another structure): the
    whole output's structure, whichever part differs. It carries the custom_vjp function and
    what bwd returned, for the notebook's card (views/error_cards/custom_rules.py)."""
    error = TypeError(f"Custom VJP bwd rule must produce an output with the same container "
                     f"(pytree) structure as the args tuple of the primal function, and in "
                     f"particular must produce a tuple of length equal to the number of "
                     f"arguments to the primal function, but got bwd output structure "
                     f"{tree_structure(out)} for primal input structure {in_tree}.")
    error.custom_vjp, error.bwd_output, error.primal_in_tree = custom, out, in_tree
    return error


def _prefix_leaves(prefix, full) -> list:
    """The leaves of `prefix` (None a leaf), each repeated once per leaf of the subtree of `full`
    it covers, as JAX's _flatten_bwd finds them: the trees it maps over are rebuilt from the
    cotangents themselves, so a pytree type whose unflatten refuses None works."""
    out = []

    def add(x, sub):
        out.extend([x] * tree_structure(sub).num_leaves)
        return x
    tree_map(add, prefix, full, is_leaf=lambda x: x is None)
    return out


def _same_type(a, b) -> bool:
    """Whether two values' tangents have one type, weak types aside (JAX's typecompat)."""
    a, b = a.to_tangent_aval(), b.to_tangent_aval()
    return a.shape == b.shape and a.dtype == b.dtype


def _avals_of(subtree, rule, index):
    start = sum(t.num_leaves for t in rule.in_tree.children()[:index])
    return rule.in_avals[start:start + subtree.num_leaves]
