"""jxkernel._src.interpreters.partial_eval, as jax._src.interpreters.partial_eval: JAX's private
path to the names of jax.interpreters.partial_eval (jxkernel/_jax/interpreters/partial_eval.py),
jit's tracer class `DynamicJaxprTracer` among them, which JAX's messages name by this path.

    >>> DynamicJaxprTracer.__name__
    'JaxprTracer'
"""
from ...interpreters.partial_eval import (DynamicJaxprTracer, JaxprTracer,  # noqa: F401
                                          PartialVal, dce_jaxpr, trace_to_jaxpr_nounits)
from ....core.ir import ClosedJaxpr, Jaxpr


def close_jaxpr(jaxpr: Jaxpr) -> ClosedJaxpr:
    """`jaxpr` (without constvars) as a ClosedJaxpr of no consts, as JAX's pe.close_jaxpr.

        >>> close_jaxpr(make_jaxpr(jnp.sin)(1.0).jaxpr).consts
        []
    """
    return ClosedJaxpr(jaxpr, ())
