"""What shape code needs to know of jax.export's symbolic dimensions (their class, in
jxkernel/export/shape_poly.py, loads only with `import jxkernel.export`).

    >>> is_symbolic(3)
    False
"""
import operator


def is_symbolic(d) -> bool:
    """Whether the dimension `d` is symbolic (a jax.export dimension expression)."""
    return getattr(d, "_symbolic_dimension", False)


def index_or_symbolic(d):
    """`operator.index(d)`, or `d` itself when it is symbolic."""
    return d if is_symbolic(d) else operator.index(d)


def max_dim(d1, d2):
    """max(d1, d2) of two dimensions: an int for two ints; with a symbolic one, the larger
    where that is decidable, else the expression `max(d1, d2)` (in that order, as JAX's).

    >>> max_dim(3, 5), max_dim(5, 0)
    (5, 5)
    """
    return _extremum("max", d1, d2)


def min_dim(d1, d2):
    """min(d1, d2) of two dimensions, as `max_dim`.

    >>> min_dim(3, 5)
    3
    """
    return _extremum("min", d1, d2)


def _extremum(op, d1, d2):
    if not (is_symbolic(d1) or is_symbolic(d2)):
        return (max if op == "max" else min)(d1, d2)
    return (d1 if is_symbolic(d1) else d2).extremum(op, d1, d2)
