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


def symbolic_as_value(x):
    """`x`, or a symbolic dimension's value as an integer scalar (what a jit returns for a
    dimension it returns, as JAX's).

    >>> symbolic_as_value(3)
    3
    """
    return x.__jax_array__() if is_symbolic(x) else x


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


def definitely_equal(d1, d2) -> bool:
    """Whether two dimensions are equal for every value of their variables (False where
    that is not decidable, never an error).

    >>> definitely_equal(3, 3), definitely_equal(3, 4)
    (True, False)
    """
    try:
        return d1 is d2 or bool(d1 == d2)
    except Exception as e:                 # an undecidable comparison says no
        if type(e).__name__ == "InconclusiveDimensionOperation":
            return False
        raise


def stride_dim(d, window_size, window_stride):
    """How many windows of `window_size` a dimension `d` holds at `window_stride`:
    max(0, (d - window_size) // window_stride + 1), for window_size, window_stride >= 1.

    >>> stride_dim(10, 3, 2), stride_dim(2, 3, 1)
    (4, 0)
    """
    return max_dim((d - window_size) // window_stride + 1, 0)


def dilate_dim(d, dilation):
    """The size of a dimension `d` dilated by `dilation` >= 1: max(0, 1 + dilation * (d - 1)).

    >>> dilate_dim(3, 2), dilate_dim(0, 3)
    (5, 0)
    """
    if definitely_equal(dilation, 1):
        return d
    return max_dim(1 + dilation * (d - 1), 0)
