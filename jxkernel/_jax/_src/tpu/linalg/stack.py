"""jax._src.tpu.linalg.stack: `Stack`, a last-in-first-out stack of fixed capacity whose
elements are pytrees shaped like a prototype, usable as a loop carry (a pytree itself: its
size and its preallocated buffers are its leaves).

    >>> s = Stack.create(4, jnp.zeros((), jnp.int32)).push(jnp.int32(5))
    >>> x, s = s.pop()
    >>> int(x), bool(s.empty())
    (5, True)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..... import lax
from ..... import numpy as jnp
from .....tree_util import register_pytree_node, tree_flatten, tree_map, tree_unflatten


class Stack:
    """A stack of at most `capacity` elements shaped like `prototype` (a pytree of arrays)."""

    def __init__(self, size, data):
        self._size = size           # int32 scalar: how many elements are held
        self._data = data           # the prototype's pytree, each leaf with a leading capacity

    def __repr__(self):
        return f"Stack({self._size}, {self._data})"

    @staticmethod
    def create(capacity: int, prototype: Any) -> Stack:
        """An empty stack with room for `capacity` elements like `prototype`."""
        return Stack(jnp.array(0, np.int32), tree_map(
            lambda x: jnp.zeros((capacity, *np.shape(x)), jnp.result_type(x)), prototype))

    def empty(self) -> Any:
        """A bool scalar: whether the stack holds nothing."""
        return self._size == 0

    def push(self, elem: Any) -> Stack:
        """A stack with `elem` on top (past the capacity, the last slot is overwritten)."""
        return Stack(self._size + 1, tree_map(
            lambda buf, x: lax.dynamic_update_index_in_dim(buf, x, self._size, 0),
            self._data, elem))

    def pop(self) -> tuple[Any, Stack]:
        """(the top element, the stack without it)."""
        size = self._size - 1
        top = tree_map(lambda buf: lax.dynamic_index_in_dim(buf, size, 0, keepdims=False),
                       self._data)
        return top, Stack(size, self._data)

    def flatten(self):
        leaves, treedef = tree_flatten(self._data)
        return (self._size, *leaves), treedef

    @staticmethod
    def unflatten(treedef, leaves):
        return Stack(leaves[0], tree_unflatten(treedef, leaves[1:]))


register_pytree_node(Stack, Stack.flatten, Stack.unflatten)
