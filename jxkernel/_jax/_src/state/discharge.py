"""jxkernel._src.state.discharge, as jax._src.state.discharge: `run_state`, a function on
Refs run as a function on values.

    >>> from jxkernel._src.state import primitives
    >>> def double(r): primitives.ref_set(r, (), r[...] * 2)
    >>> run_state(double)(jnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
"""
from ....tree_util import tree_map
from .primitives import new_ref, ref_get


def run_state(f):
    """`f` (taking a pytree of Refs and returning None) as a function of the Refs' initial
    values returning their final values; the caller's arrays are not changed."""
    def run(args):
        refs = tree_map(new_ref, args)
        f(refs)
        return tree_map(lambda r: ref_get(r, ()), refs)
    return run
