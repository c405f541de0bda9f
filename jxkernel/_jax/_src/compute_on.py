"""jxkernel._src.compute_on, as jax._src.compute_on: `compute_on2`, a function run as one
operation on a named compute type (its call in the module marked `_xla_compute_type`, as JAX's:
lax/compute_on.py), and the `compute_on` block that names the compute type for what is traced
inside it. On a CPU the host is the device, so both compute what the function computes.

    >>> f = compute_on2(lambda x: x + 1.0, compute_type="device_host", out_memory_spaces=None)
    >>> jax.jit(f)(jnp.float32(1.0))
    Array(2., dtype=float32)
"""
import threading
from contextlib import contextmanager

from ...core.avals import get_aval
from ...core.staging import trace_to_jaxpr
from ...lax.compute_on import check_compute_type, compute_on_p  # noqa: F401
from ...tree_util import tree_flatten, tree_unflatten


class _ComputeType(threading.local):
    value = None


current_compute_type = _ComputeType()     # the innermost `compute_on` block's, per thread


@contextmanager
def extend_compute_type(c_type):
    """A block under compute type `c_type` (None: the enclosing one stays)."""
    if c_type is None:
        yield
        return
    previous, current_compute_type.value = current_compute_type.value, c_type
    try:
        yield c_type
    finally:
        current_compute_type.value = previous


@contextmanager
def compute_on(compute_type: str):
    """A block whose traced operations are meant for `compute_type` ("device_host", ...)."""
    check_compute_type(compute_type)
    with extend_compute_type(compute_type):
        yield


def compute_on2(f=None, *, compute_type, out_memory_spaces, compiler_options=None):
    """`f` run as one `compute_on` operation on `compute_type` (a decorator without `f`).
    `out_memory_spaces`: each result's memory space (a prefix of its results' tree), kept in
    the operation's params as JAX's; `compiler_options` go to XLA as its backend config."""
    if f is None:
        return lambda g: compute_on2(g, compute_type=compute_type,
                                     out_memory_spaces=out_memory_spaces,
                                     compiler_options=compiler_options)
    check_compute_type(compute_type)
    import json
    options = None if compiler_options is None else json.dumps(compiler_options)

    def wrapped(*args):
        flat, in_tree = tree_flatten(args)
        out_tree = []

        def flat_fun(*xs):
            out, = (f(*tree_unflatten(in_tree, xs)),)
            leaves, tree = tree_flatten(out)
            out_tree.append(tree)
            return leaves

        with extend_compute_type(compute_type):
            closed = trace_to_jaxpr(flat_fun, [get_aval(x) for x in flat])
        spaces = _broadcast_spaces(out_memory_spaces, out_tree[0])
        outs = compute_on_p.bind(*flat, jaxpr=closed, compute_type=compute_type,
                                 out_memory_spaces=spaces, compiler_options_json=options)
        return tree_unflatten(out_tree[0], outs)
    return wrapped


def _broadcast_spaces(spaces, out_tree) -> tuple:
    """One memory space per result: a single space (or None) for all, else a tree of them
    matching the results'."""
    leaves, tree = tree_flatten(spaces, is_leaf=lambda s: s is None)
    if len(leaves) == 1 and tree.num_leaves == 1:
        return (leaves[0],) * out_tree.num_leaves
    if tree != out_tree:
        raise ValueError(f"compute_on out_memory_spaces: its tree {tree} does not match the "
                         f"results' tree {out_tree}; give one space per result")
    return tuple(leaves)
