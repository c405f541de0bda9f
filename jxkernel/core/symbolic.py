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
