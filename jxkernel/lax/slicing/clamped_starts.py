"""Which start a dynamic slice or update uses for the start it was given (lax.dynamic_slice,
dynamic_update_slice and their _in_dim forms), on the host: JAX counts a negative start from
the end once (start + the axis's size), then XLA clamps it into [0, size - window] so that the
whole window fits. Neither raises: a start out of range silently reads, or writes, elsewhere.

    >>> used_start(8, 10, 4), used_start(-1, 10, 4), used_start(-20, 10, 4)
    (6, 6, 0)
"""
from __future__ import annotations


def counted_from_the_end(start: int, dim: int, allow_negative: bool = True) -> int:
    """The start JAX hands XLA for `start` on an axis of `dim` elements: a negative one plus
    `dim`, once (where negative starts are allowed: `allow_negative_indices`).

    >>> counted_from_the_end(-1, 10), counted_from_the_end(-20, 10), counted_from_the_end(3, 10)
    (9, -10, 3)
    """
    return start + dim if start < 0 and allow_negative else start


def clamped_start(start: int, dim: int, size: int) -> int:
    """The start XLA uses for `start` on an axis of `dim` elements, for a window of `size`:
    clamped into [0, dim - size].

    >>> clamped_start(8, 10, 4), clamped_start(-10, 10, 4), clamped_start(5, 10, 4)
    (6, 0, 5)
    """
    return min(max(start, 0), dim - size)


def used_start(start: int, dim: int, size: int, allow_negative: bool = True) -> int:
    """The start a dynamic slice of `size` on an axis of `dim` elements uses for `start`.

    >>> used_start(100, 10, 4), used_start(-4, 10, 4), used_start(-1, 10, 1)
    (6, 6, 9)
    """
    return clamped_start(counted_from_the_end(start, dim, allow_negative), dim, size)
