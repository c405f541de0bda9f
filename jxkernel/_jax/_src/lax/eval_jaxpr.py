"""jxkernel._src.lax.eval_jaxpr, as jax._src.lax.eval_jaxpr: `eval_jaxpr_p`, the primitive that
runs a closed jaxpr on its operands (jxkernel/lax/eval_jaxpr.py).

    >>> eval_jaxpr_p.multiple_results
    True
"""
from ....lax.eval_jaxpr import eval_jaxpr_p  # noqa: F401
