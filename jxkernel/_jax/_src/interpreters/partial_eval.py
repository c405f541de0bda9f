"""jxkernel._src.interpreters.partial_eval, as jax._src.interpreters.partial_eval: JAX's private
path to the names of jax.interpreters.partial_eval (jxkernel/_jax/interpreters/partial_eval.py),
jit's tracer class `DynamicJaxprTracer` among them, which JAX's messages name by this path.

    >>> DynamicJaxprTracer.__name__
    'DynamicJaxprTracer'
"""
import weakref

from ....core.ir import ClosedJaxpr
from ....transforms.make_jaxpr import make_jaxpr  # noqa: F401  (the example's)
from ...interpreters.partial_eval import (DynamicJaxprTracer, JaxprTracer,  # noqa: F401
                                          PartialVal, dce_jaxpr, trace_to_jaxpr_nounits)


class _CloseJaxpr:
    """JAX's pe.close_jaxpr: a jaxpr without constants as a ClosedJaxpr, the same one for as
    long as one is alive. Held weakly (by id of a jaxpr the ClosedJaxpr itself keeps alive):
    nothing of a dropped jaxpr stays in it (JAX's test_pe_close_jaxpr_cache_leak).

        >>> jaxpr = make_jaxpr(lambda x: x)(1.0).jaxpr
        >>> close_jaxpr(jaxpr) is close_jaxpr(jaxpr)
        True
    """

    def __init__(self):
        self._closed = weakref.WeakValueDictionary()       # id(jaxpr) -> its ClosedJaxpr

    def __call__(self, jaxpr):
        found = self._closed.get(id(jaxpr))
        if found is None or found.jaxpr is not jaxpr:
            found = self._closed[id(jaxpr)] = ClosedJaxpr(jaxpr, ())
        return found

    def cache_keys(self) -> list:
        return [closed.jaxpr for closed in list(self._closed.values())]

    def cache_clear(self) -> None:
        self._closed.clear()


close_jaxpr = _CloseJaxpr()


from ....api.remat_saved import partial_eval_jaxpr_custom  # noqa: E402,F401
