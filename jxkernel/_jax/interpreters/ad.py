"""jxkernel.interpreters.ad, as jax.interpreters.ad: differentiation rules of primitives.

    >>> from jxkernel.extend.core import Primitive
    >>> cube_p = Primitive("cube_ad_doc")
    >>> _ = cube_p.def_impl(lambda x: x * x * x)
    >>> primitive_jvps[cube_p] = lambda primals, tangents: (
    ...     cube_p.bind(primals[0]), 3 * primals[0] ** 2 * tangents[0])
    >>> jax.jvp(cube_p.bind, (2.0,), (1.0,))
    (8.0, 12.0)

A jvp rule is `rule(primals, tangents, **params) -> (primal_out, tangent_out)`; a tangent
may be a symbolic `Zero`. A transpose rule is `rule(cotangent, *args, **params)` giving one
cotangent per argument (None for the non-linear ones, which are values; the linear ones are
`UndefinedPrimal`s).
"""
from ...core.primitive import jvp_rules, transpose_rules
from ...transforms.ad_util import (UndefinedPrimal, Zero, add_tangents, defbilinear,  # noqa: F401
                                  deflinear, deflinear2)
from ...transforms.ad_util import add_any_p as add_jaxvals_p  # noqa: F401
from ...transforms.ad_util import zeros as zeros_like_aval  # noqa: F401
from ...transforms.ad_util import defjvp as defjvp2  # noqa: F401
from ...transforms.ad_util import instantiate as instantiate_zeros  # noqa: F401
from ...transforms.ad_util import is_undefined as is_undefined_primal  # noqa: F401
from ...transforms.ad import JVPTrace, JVPTracer, jvp, linearize  # noqa: F401
from ._user_rules import UserRules, plain_values

primitive_jvps = UserRules(jvp_rules, lambda rule: lambda primals, tangents, **params: rule(
    plain_values(primals), tuple(tangents), **params))
def _jvp_of_linearization(rule):
    """A linearization rule as JAX's `primitive_linearizations` hold them -- `rule(is_vjp,
    nonzeros, *primals, **params)` gives (primal out, its tangents' nonzeros, residuals,
    `linear(residuals, *nonzero tangents)`) -- as the jvp rule jxkernel runs: the primal
    out, and `linear` applied to the tangents that are not symbolic zeros."""
    def jvp(primals, tangents, **params):
        nonzeros = [type(t) is not Zero for t in tangents]
        out, _, residuals, linear = rule(False, nonzeros, *plain_values(primals), **params)
        return out, linear(residuals, *[t for t, nz in zip(tangents, nonzeros) if nz])
    return jvp


# JAX's table of linearization rules (a primitive's jvp split into the primal computation
# and a linear function of the tangents): each is stored as its jvp rule
primitive_linearizations = UserRules(jvp_rules, _jvp_of_linearization)
primitive_transposes = UserRules(transpose_rules, lambda rule: lambda ct, *args, **params: rule(
    ct, *plain_values(args), **params))


def defjvp(primitive, *jvp_rules):
    """The jvp of `primitive` from one rule per input, `rule(tangent, *primals, **params)`
    giving that input's contribution to the output tangent (None: not differentiable in
    that input). `defjvp2`'s rules also receive the primal output after the tangent."""
    defjvp2(primitive, *[None if rule is None else _ignoring_answer(rule) for rule in jvp_rules])


def _ignoring_answer(rule):
    return lambda tangent, answer, *primals, **params: rule(tangent, *primals, **params)


def get_primitive_transpose(p):
    """The transpose rule of primitive `p` (JAX's error if it has none).

    >>> get_primitive_transpose(jax.lax.neg_p) is not None
    True
    """
    try:
        return primitive_transposes[p]
    except KeyError as err:
        raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                  f"'{p}' not implemented") from err


def add_jaxvals(x, y):
    """x + y as differentiation adds tangents and cotangents (`add_any`).

    >>> add_jaxvals(1.0, 2.0)
    Array(3., dtype=float32, weak_type=True)
    """
    return add_jaxvals_p.bind(x, y)
