"""What shape code needs to know of jax.export's symbolic dimensions (their class, in
jxkernel/export/shape_poly.py, loads only with `import jxkernel.export`).

    >>> is_symbolic(3)
    False
"""
import operator

from .errors import InconclusiveDimensionOperation
from .trace import concrete_or_error


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
    # the other must be a dimension known now, as JAX's concrete_dim_or_error: a traced value
    # is its ConcretizationTypeError, a 1-element array the TypeError of operator.index
    d1, d2 = (d if is_symbolic(d) else
              concrete_or_error(operator.index, d, f"argument `{name}` of `core.{op}_dim`")
              for d, name in ((d1, "d1"), (d2, "d2")))
    return (d1 if is_symbolic(d1) else d2).extremum(op, d1, d2)


def definitely_equal(d1, d2) -> bool:
    """Whether two dimensions are equal for every value of their variables (False where
    that is not decidable, never an error).

    >>> definitely_equal(3, 3), definitely_equal(3, 4)
    (True, False)
    """
    try:
        return d1 is d2 or bool(d1 == d2)
    except InconclusiveDimensionOperation:  # an undecidable comparison says no
        return False


def decided(compare, must: str) -> bool:
    """`compare()`, a comparison of dimensions, where it is decidable; else JAX's
    InconclusiveDimensionOperation saying what `must` be resolved, with the reason.

    >>> decided(lambda: 3 > 0, "the step must be resolved statically")
    True
    """
    try:
        return bool(compare())
    except InconclusiveDimensionOperation as e:
        raise InconclusiveDimensionOperation(f"{must}.\nDetails: {e}") from None


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


def canonicalize_slice(s: slice, axis_size) -> tuple:
    """(start, step, size) of `x[s]` on an axis of `axis_size`, like `s.indices` but for
    symbolic sizes and bounds too (JAX's core.canonicalize_slice): the step's sign and each
    bound's sign must be decidable; bounds are clamped with min_dim/max_dim.

    >>> canonicalize_slice(slice(None, None, -2), 5), canonicalize_slice(slice(2, 9), 5)
    ((4, -2, 3), (2, 1, 3))
    """
    step = 1 if s.step is None else index_or_symbolic(s.step)
    if not is_symbolic(step) and step == 0:
        raise ValueError("slice step cannot be zero")
    forward = decided(lambda: step > 0, f"In slice with non-constant elements the step ({step}) "
                      f"must be resolved statically if it is > 0 or < 0")

    def clamp(i, which):
        i = index_or_symbolic(i)
        if decided(lambda: i >= 0, f"In slice with non-constant elements the {which} ({i}) "
                   f"must be resolved statically if it is >= 0"):
            return min_dim(axis_size if forward else axis_size - 1, i)
        return max_dim(0 if forward else -1, axis_size + i)

    start = (0 if forward else axis_size - 1) if s.start is None else clamp(s.start, "start")
    stop = (axis_size if forward else -1) if s.stop is None else clamp(s.stop, "stop")
    gap, distance = (step, stop - start) if forward else (-step, start - stop)
    return start, step, max_dim(0, distance + gap - 1) // gap
