"""Backend for colocated_python.obj, as JAX's: the live instances of colocated classes, made
once per wrapper instance (uid) whichever method is called first, from any thread."""
from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Callable
from typing import Any


class _ConsumableRef:
    """Holds its object strongly until first called, then weakly: the first method caller
    takes the instance over (its only strong reference), so that the instance goes when the
    callers (the wrapper's methods) do. Pickled unconsumed, it holds the object again."""

    __slots__ = ("strong_ref", "weak_ref", "_mutex", "__weakref__")

    def __init__(self, obj: Any) -> None:
        self.strong_ref = obj
        self.weak_ref = None
        # reentrant: a MethodCallerAtBackend.__del__ run by garbage collection may call it
        # while this thread holds it already
        self._mutex = threading.RLock()

    def __call__(self, *args, **kwargs):
        with self._mutex:
            if self.strong_ref is not None:
                result, self.strong_ref = self.strong_ref, None
                if result is not None:      # (a reentrant call found it taken)
                    self.weak_ref = weakref.ref(result)
                return result
            return self.weak_ref() if self.weak_ref is not None else None

    def __reduce__(self):
        with self._mutex:
            if self.strong_ref is not None:
                return type(self), (self.strong_ref,)
            return type(self), (self.weak_ref() if self.weak_ref is not None else None,)


@dataclasses.dataclass(frozen=True, slots=True)
class _ObjectState:
    is_being_initialized: bool
    exc: Exception | None = None
    obj: Any = None


class _ObjectStore:
    """The objects by uid; one made once even when threads ask at the same time (the others
    wait for it, and see its constructor's exception if it raised). Entries stay, as JAX's."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._storage: dict[int, _ObjectState] = {}

    def get_or_create(self, uid: int, initializer: Callable[[], Any]) -> Any:
        with self._lock:
            if uid in self._storage:
                while self._storage[uid].is_being_initialized:
                    self._lock.wait()
                state = self._storage[uid]
                if state.exc is not None:
                    raise state.exc
                return state.obj
            self._storage[uid] = _ObjectState(is_being_initialized=True)
        try:
            obj = initializer()
        except Exception as exc:
            with self._lock:
                self._storage[uid] = _ObjectState(is_being_initialized=False, exc=exc)
                self._lock.notify_all()
            raise
        with self._lock:
            self._storage[uid] = _ObjectState(is_being_initialized=False, obj=obj)
            self._lock.notify_all()
            return obj


SINGLETON_OBJECT_STORE = _ObjectStore()
