"""Colocated Python classes, as JAX's `colocated_python.obj`: a wrapper class whose methods
are colocated Python functions of one instance, made on the devices' host (here, this
process) at the first method call and dropped when the wrapper is."""
from __future__ import annotations

import functools
import inspect
import random
import threading
from collections.abc import Callable
from typing import Any

from ...core.traceback_util import api_boundary
from ...tree_util import tree_leaves
from . import func, obj_backend


def fun_signature(fun) -> inspect.Signature | None:
    """`inspect.signature(fun)`, or None where it has none, as JAX's api_util.fun_signature."""
    try:
        return inspect.signature(fun)
    except (ValueError, TypeError):
        return None


class _InstanceRegistry:
    """The devices each wrapper instance (by uid) has been used with."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._storage: dict[int, set] = {}

    def new_instance(self) -> int:
        """Returns a new unique identifier for an instance on the controller."""
        uid = random.getrandbits(63)
        with self._lock:
            assert uid not in self._storage
            self._storage[uid] = set()
        return uid

    def update_devices(self, uid: int, device_set: set) -> None:
        with self._lock:
            self._storage[uid] |= device_set

    def pop_instance(self, uid: int) -> set:
        with self._lock:
            return self._storage.pop(uid)

    def cache_clear(self):
        with self._lock:
            self._storage = {}


SINGLETON_INSTANCE_REGISTRY = _InstanceRegistry()


@functools.lru_cache(maxsize=4096)
def _update_instance_devices(uid: int, shardings: tuple) -> None:
    """`update_devices` of the shardings' devices, once per (uid, shardings)."""
    device_set = set()
    for sharding in shardings:
        device_set |= sharding.device_set
    SINGLETON_INSTANCE_REGISTRY.update_devices(uid, device_set)


def _make_method(cls: type, cls_sourceinfo: str | None, uid: int, init_args: tuple,
                 init_kwargs: dict, method_name: str, original_method: Callable[..., Any],
                 func_maker: func._CachedColocatedFunctionMaker):

    class MethodCallerAtBackend:
        """The method as the devices' host calls it: on the instance of `uid`, made by the
        first caller (the object store makes it once for all methods)."""

        def __init__(self):
            self._lock = threading.Lock()

        def __reduce__(self):
            return type(self), ()

        def _first_call(self):
            def initializer():
                return obj_backend._ConsumableRef(cls(*init_args, **init_kwargs))

            retrieved = obj_backend.SINGLETON_OBJECT_STORE.get_or_create(uid, initializer)
            self.obj = retrieved()

        def __call__(self, *args, **kwargs):
            with self._lock:
                if not hasattr(self, "obj"):
                    self._first_call()
            return getattr(self.obj, method_name)(*args, **kwargs)

        def __del__(self):
            if not hasattr(self, "obj"):
                # nobody took the instance over: take it now, so that it goes
                obj_backend.SINGLETON_OBJECT_STORE.get_or_create(
                    uid, lambda: obj_backend._ConsumableRef(None))()

    callable = func_maker.make_callable(MethodCallerAtBackend(), cls_sourceinfo,
                                        fun_signature(original_method))

    def make_method_wrapper(callable):
        @api_boundary
        def method_wrapper(*args, **kwargs):
            # the devices the instance lives on: the arguments', else the results'
            args_leaves = tree_leaves((args, kwargs))
            args_shardings_leaves = tuple(func._get_spec(x).sharding for x in args_leaves)
            if args_shardings_leaves:
                _update_instance_devices(uid, args_shardings_leaves)
            result = callable(*args, **kwargs)
            if not args_shardings_leaves:
                result_shardings_leaves = tuple(func._get_spec(x).sharding
                                                for x in tree_leaves(result))
                _update_instance_devices(uid, result_shardings_leaves)
            return result

        def specialize(*args, **kwargs):
            return make_method_wrapper(callable.specialize(*args, **kwargs))

        method_wrapper = functools.wraps(original_method)(method_wrapper)
        method_wrapper.specialize = specialize
        return method_wrapper

    return make_method_wrapper(callable)


def wrap_class(cls: type, cls_sourceinfo: str | None) -> type:
    class WrappedClass:

        @functools.wraps(cls.__init__)
        def __init__(self, *init_args, **init_kwargs) -> None:
            uid = self._colocated_python_uid = SINGLETON_INSTANCE_REGISTRY.new_instance()
            self.func_maker = func._CachedColocatedFunctionMaker(uid)
            for attr_name in dir(cls):
                original_member = getattr(cls, attr_name)
                if not inspect.isfunction(original_member):
                    continue
                # the wrapper's own: lazy creation and deletion with the wrapper; it is not
                # serializable even where the class is
                if attr_name in ("__init__", "__del__", "__reduce__", "__reduce_ex__"):
                    continue
                method = _make_method(cls, cls_sourceinfo, uid, init_args, init_kwargs,
                                      attr_name, original_member, self.func_maker)
                setattr(self, attr_name, method)

    WrappedClass.__name__ = cls.__name__
    WrappedClass.__doc__ = cls.__doc__
    return WrappedClass
