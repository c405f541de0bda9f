"""Backend for colocated_python.func, as JAX's: results of a first (synchronous) call kept
between the call that found the output specs and the one that hands the results over."""
from __future__ import annotations

import threading
from collections.abc import Sequence


class _ResultStore:
    """Temporarily stores results from synchronous execution of functions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._storage: dict[int, Sequence] = {}

    def push(self, uid: int, out: Sequence) -> None:
        with self._lock:
            if uid in self._storage:
                raise ValueError(f"uid {uid} already exists")
            self._storage[uid] = out

    def pop(self, uid: int) -> Sequence:
        with self._lock:
            if uid not in self._storage:
                raise ValueError(f"uid {uid} does not exist")
            return self._storage.pop(uid)


SINGLETON_RESULT_STORE = _ResultStore()
