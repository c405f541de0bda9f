"""jax.custom_derivatives: custom differentiation rules and the symbolic zeros they may see.

    >>> @custom_jvp
    ... def f(x):
    ...     return x ** 2
    >>> _ = f.defjvp(lambda primals, tangents: (f(primals[0]), 3.0 * tangents[0]))
    >>> float(jax.grad(f)(1.0))
    3.0
"""
import numpy as np

from ..core import dtypes as _dtypes
from ..core.avals import get_aval
from ..transforms.ad_util import Zero as SymbolicZero
from ..transforms.ad_util import float0, zeros
from ..transforms.custom_derivatives import (CustomVJPPrimal, custom_jvp, custom_jvp_call_p,
                                            custom_vjp, custom_vjp_call_p, linear_call)
from ..transforms.custom_gradient import closure_convert, custom_gradient
from ..transforms.custom_gradient import maybe_perturbed as _maybe_perturbed
# (optimize_remat_of_custom_vjp_fwd: JAX keeps it in jax._src.custom_derivatives, this module)
from ..transforms.custom_vjp_remat import (optimize_remat_of_custom_vjp_fwd,  # noqa: F401
                                           remat_opt_p)
from ..tree_util import tree_map

__all__ = ["CustomVJPPrimal", "SymbolicZero", "closure_convert", "custom_gradient", "custom_jvp",
           "custom_jvp_call_p", "custom_vjp", "custom_vjp_call_p", "custom_vjp_primal_tree_values",
           "linear_call", "remat_opt_p", "zero_from_primal"]


def custom_vjp_primal_tree_values(tree):
    """The primal values of a symbolic_zeros forward rule's arguments: each CustomVJPPrimal
    leaf replaced by its `value`.

    >>> custom_vjp_primal_tree_values({"x": CustomVJPPrimal(2.0, False)})
    {'x': 2.0}
    """
    def value(leaf):
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value
    return tree_map(value, tree)


def zero_from_primal(val, symbolic_zeros: bool = False):
    """The zero tangent of each leaf of `val`: a SymbolicZero, or zeros (float0 for integer
    and boolean leaves), as custom rules with symbolic_zeros=True produce them.

    >>> zero_from_primal(1.0)
    Array(0., dtype=float32)
    """
    def zero(x):
        aval = get_aval(x).strip_weak_type()
        # (not NumPy's kind: int4's is 'V', and a typed key's dtype has none)
        if _dtypes.primal_dtype_to_tangent_dtype(aval.dtype) == float0:
            aval = aval.update(dtype=float0)
            if not symbolic_zeros:
                return np.zeros(aval.shape, float0)
        return SymbolicZero(aval) if symbolic_zeros else zeros(aval)
    return tree_map(zero, val)
