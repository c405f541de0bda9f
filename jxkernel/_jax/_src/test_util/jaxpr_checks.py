"""Checks of what a function's jaxpr holds, as JAX's test files make them through `jtu`: the
precision and preferred element type of every dot_general it traces to (nested jaxprs too).

    >>> assert_dot_precision(lax.Precision.HIGHEST,
    ...                      lambda a: jnp.dot(a, a, precision="highest"), np.eye(2))
"""
import functools

from ....core.ir import ClosedJaxpr, jaxpr_params
from ....lax.dot import dot_general_p
from ....transforms.make_jaxpr import make_jaxpr


def iter_eqns(jaxpr):
    """Every equation of `jaxpr` and of the jaxprs its equations hold, depth first."""
    for eqn in jaxpr.eqns:
        yield eqn
        for inner in jaxpr_params(eqn.params):
            yield from iter_eqns(inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner)


def _dot_params(name, fun, *args, **kwargs):
    jaxpr = make_jaxpr(functools.partial(fun, **kwargs))(*args)
    return [eqn.params[name] for eqn in iter_eqns(jaxpr.jaxpr) if eqn.primitive is dot_general_p]


def assert_dot_precision(expected_precision, fun, *args):
    """Each dot_general `fun(*args)` traces to has `expected_precision` (for both operands,
    where it holds a pair)."""
    for precision in _dot_params("precision", fun, *args):
        msg = f"Unexpected precision: {expected_precision} != {precision}"
        pair = precision if isinstance(precision, tuple) else (precision, precision)
        assert pair[0] == expected_precision and pair[1] == expected_precision, msg


def assert_dot_preferred_element_type(expected, fun, *args, **kwargs):
    """Each dot_general `fun(*args, **kwargs)` traces to has preferred_element_type
    `expected`."""
    for found in _dot_params("preferred_element_type", fun, *args, **kwargs):
        assert expected == found, f"Unexpected preferred_element_type: {expected} != {found}"
