"""Colocated Python functions, as JAX's `colocated_python.func`: a callable that runs a
Python function on the host of its arguments' devices, specialized per input specs (cached),
its output specs found by a first synchronous call unless `out_specs_fn` gives them.

jxkernel has no IFRT colocated Python programs: the host of its devices is this process, so
`_compile_to_executable` makes what JAX makes where its backend has none (its CPU backend's
"PjRtCompiler requires an HloProgram" path): the function with its specialization pickled and
unpickled (`serialization._serialize`), called here, typed PRNG keys crossing as key data.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import random
import threading
import uuid
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ...core.avals import ShapeDtypeStruct
from ...core.basearray import Array
from ...core.traceback_util import api_boundary
from ...tree_util import PyTreeDef, tree_flatten, tree_leaves, tree_map, tree_unflatten
from ...xla.client import DeviceList
from . import func_backend
from .prng import (_convert_inp_type_to_physical, _get_prng_key_info,  # noqa: F401 (JAX's names)
                   _make_prng_wrapped_fun, _prng_key_type_to_physical_spec, _unwrap_prng_keys,
                   _wrap_prng_keys, is_prng_key_dtype)
from .serialization import (_deserialize, _deserialize_specs, _make_specs_for_serialized_specs,
                            _serialize, _serialize_specs)

ShapeDtypeStructTree = Any  # PyTree[ShapeDtypeStruct]


@dataclasses.dataclass(frozen=True, slots=True)
class FunctionInfo:
    """User function wrapped by colocated_python."""
    fun: Callable[..., Any]
    fun_sourceinfo: str | None
    fun_signature: inspect.Signature | None


@dataclasses.dataclass(frozen=True, slots=True)
class Specialization:
    """Specialization for a colocated_python function; each part given at most once."""
    in_specs_treedef: PyTreeDef | None = None
    in_specs_leaves: tuple | None = None
    out_specs_fn: Callable[..., ShapeDtypeStructTree] | None = None
    out_specs_treedef: PyTreeDef | None = None
    out_specs_leaves: tuple | None = None
    devices: Any = None       # a DeviceList

    def update(self, *, in_specs_treedef=None, in_specs_leaves=None, out_specs_fn=None,
               out_specs_treedef=None, out_specs_leaves=None, devices=None):
        """Creates a new specialization with overrides (JAX's errors when one is given twice)."""
        if in_specs_treedef is None:
            in_specs_treedef = self.in_specs_treedef
        elif self.in_specs_treedef is not None:
            raise ValueError("in_specs already specified")
        if in_specs_leaves is None:
            in_specs_leaves = self.in_specs_leaves
        elif self.in_specs_leaves is not None:
            raise ValueError("in_specs already specified")
        if out_specs_fn is None:
            out_specs_fn = self.out_specs_fn
        elif self.out_specs_fn is not None:
            raise ValueError("out_specs_fn already specified")
        if out_specs_treedef is None:
            out_specs_treedef = self.out_specs_treedef
        elif self.out_specs_treedef is not None:
            raise ValueError("out_specs already specified")
        if out_specs_leaves is None:
            out_specs_leaves = self.out_specs_leaves
        elif self.out_specs_leaves is not None:
            raise ValueError("out_specs already specified")
        if devices is None:
            devices = self.devices
        elif self.devices is not None:
            raise ValueError("devices already specified")
        elif not isinstance(devices, DeviceList):
            devices = DeviceList(tuple(devices))
        return Specialization(in_specs_treedef, in_specs_leaves, out_specs_fn,
                              out_specs_treedef, out_specs_leaves, devices)


def _get_spec(x: Any) -> ShapeDtypeStruct:
    """Extracts a spec for a value, which must be a jax.Array."""
    if not isinstance(x, Array):
        raise ValueError("colocated_python only supports jax.Array as input and output, but got"
                         f" {type(x)}.")
    return ShapeDtypeStruct(shape=x.shape, dtype=x.dtype, sharding=x.sharding)


def _device_list(sharding):
    """A sharding's devices as a DeviceList, in its order (JAX's `_internal_device_list`)."""
    found = getattr(sharding, "_internal_device_list", None)
    return found if found is not None else DeviceList(tuple(sharding._device_assignment))


def _infer_devices_from_args(args: Sequence[Any]):
    """Returns a representative device list from function call arguments."""
    device_list_set = set()
    for x in args:
        sharding = getattr(x, "sharding", None)
        if sharding is not None:
            device_list_set.add(_device_list(sharding))
    if not device_list_set:
        return None
    if len(device_list_set) != 1:
        raise ValueError("All arguments must use the same device list, but got"
                         f" multiple device lists: {device_list_set}.")
    return device_list_set.pop()


def _compile_to_executable(name: str, fun: Callable[..., Any], in_specs_treedef,
                           in_specs_leaves: tuple, out_specs_treedef, out_specs_leaves: tuple,
                           devices) -> Callable[..., Any]:
    """The function as the colocated host runs it, callable here (see the module's
    docstring): pickled with its specialization as JAX ships it, and unpickled."""
    prng_in_info = _get_prng_key_info(in_specs_leaves)
    prng_out_info = _get_prng_key_info(out_specs_leaves)
    in_specs_leaves = _convert_inp_type_to_physical(in_specs_leaves, prng_in_info)
    out_specs_leaves = _convert_inp_type_to_physical(out_specs_leaves, prng_out_info)
    if prng_in_info or prng_out_info:
        fun = _make_prng_wrapped_fun(fun, prng_in_info, prng_out_info)

    pickled_function = _serialize((fun, in_specs_treedef, in_specs_leaves, out_specs_treedef,
                                   out_specs_leaves, devices))
    deserialized_fun = _deserialize(pickled_function)[0]

    @functools.wraps(deserialized_fun)
    def call(*args, __deserialized_fun=deserialized_fun, **kwargs):
        args_leaves, in_treedef = tree_flatten((args, kwargs))
        args_leaves = _unwrap_prng_keys(args_leaves, prng_in_info)
        args, kwargs = tree_unflatten(in_treedef, args_leaves)
        results = __deserialized_fun(*args, **kwargs)
        results_leaves, out_treedef = tree_flatten(results)
        results_leaves = _wrap_prng_keys(results_leaves, prng_out_info)
        return tree_unflatten(out_treedef, results_leaves)

    return call


def _make_output_specs_and_push_result_fun(info: FunctionInfo, specialization: Specialization,
                                           uid: int) -> Callable[..., Any]:
    """A function that runs the user's, keeps its results and returns their specs."""
    assert specialization.in_specs_treedef is not None
    assert specialization.in_specs_leaves is not None
    assert specialization.out_specs_treedef is None
    assert specialization.out_specs_leaves is None
    assert specialization.devices is not None
    devices = specialization.devices

    def lowered_fun(*args, **kwargs):
        result = info.fun(*args, **kwargs)
        result_leaves, out_treedef = tree_flatten(result)
        out_spec_leaves = tuple(_get_spec(x) for x in result_leaves)
        func_backend.SINGLETON_RESULT_STORE.push(uid, result_leaves)
        return _serialize_specs(out_treedef, out_spec_leaves, devices)

    out_specs_leaves, out_specs_treedef = tree_flatten(_make_specs_for_serialized_specs(devices))
    name = f"{getattr(info.fun, '__name__', 'unknown')}_output_specs_and_push_result"
    return _compile_to_executable(
        name=name, fun=lowered_fun, in_specs_treedef=specialization.in_specs_treedef,
        in_specs_leaves=specialization.in_specs_leaves, out_specs_treedef=out_specs_treedef,
        out_specs_leaves=tuple(out_specs_leaves), devices=devices)


def _make_pop_result_fun(info: FunctionInfo, specialization: Specialization,
                         uid: int) -> Callable[..., Any]:
    """A function that hands over the results the first call kept."""
    assert specialization.out_specs_treedef is not None
    assert specialization.out_specs_leaves is not None
    assert specialization.devices is not None
    out_specs_treedef = specialization.out_specs_treedef

    def lowered_fun():
        result_leaves = func_backend.SINGLETON_RESULT_STORE.pop(uid)
        return tree_unflatten(out_specs_treedef, result_leaves)

    in_specs_leaves, in_specs_treedef = tree_flatten(((), {}))
    name = f"{getattr(info.fun, '__name__', 'unknown')}_pop_result"
    return _compile_to_executable(
        name=name, fun=lowered_fun, in_specs_treedef=in_specs_treedef,
        in_specs_leaves=tuple(in_specs_leaves), out_specs_treedef=out_specs_treedef,
        out_specs_leaves=specialization.out_specs_leaves, devices=specialization.devices)


def _make_async_execution_fun(info: FunctionInfo, specialization: Specialization):
    """The function for calls whose output specs are known."""
    assert specialization.in_specs_treedef is not None
    assert specialization.in_specs_leaves is not None
    assert specialization.out_specs_treedef is not None
    assert specialization.out_specs_leaves is not None
    assert specialization.devices is not None
    return _compile_to_executable(
        name=getattr(info.fun, "__name__", "unknown"), fun=info.fun,
        in_specs_treedef=specialization.in_specs_treedef,
        in_specs_leaves=specialization.in_specs_leaves,
        out_specs_treedef=specialization.out_specs_treedef,
        out_specs_leaves=specialization.out_specs_leaves, devices=specialization.devices)


def _uncached_get_specialized_func(info: FunctionInfo,
                                   specialization: Specialization) -> Callable[..., Any]:
    """Returns a specialized function for the given specialization."""
    assert specialization.in_specs_treedef is not None
    assert specialization.in_specs_leaves is not None
    assert specialization.devices is not None
    uid = random.getrandbits(63)
    mutex = threading.Lock()
    async_execution_func = None     # once the output specs are known

    def specialized_func(*args, **kwargs):
        nonlocal specialization, async_execution_func
        with mutex:
            if async_execution_func is None:
                if specialization.out_specs_treedef is None:
                    if specialization.out_specs_fn is None:
                        output_specs_and_push_result_fun = _make_output_specs_and_push_result_fun(
                            info, specialization, uid)
                        serialized_out_specs = output_specs_and_push_result_fun(*args, **kwargs)
                        out_specs_treedef, out_specs_leaves = _deserialize_specs(
                            serialized_out_specs)
                        # later calls run with the output specs found
                        specialization = specialization.update(
                            out_specs_treedef=out_specs_treedef,
                            out_specs_leaves=out_specs_leaves)
                        async_execution_func = _make_async_execution_fun(info, specialization)
                        # (JAX holds the first executable until the second runs, for its
                        # backend's object references)
                        async_execution_func.output_specs_and_push_result_fun = (
                            output_specs_and_push_result_fun)
                        return _make_pop_result_fun(info, specialization, uid)()
                    args_specs, kwargs_specs = tree_map(_get_spec, (args, kwargs))
                    out_specs = specialization.out_specs_fn(*args_specs, **kwargs_specs)
                    out_specs_leaves, out_specs_treedef = tree_flatten(out_specs)
                    specialization = specialization.update(
                        out_specs_treedef=out_specs_treedef,
                        out_specs_leaves=tuple(out_specs_leaves))
                    async_execution_func = _make_async_execution_fun(info, specialization)
                else:
                    async_execution_func = _make_async_execution_fun(info, specialization)
        # outside the mutex: calls from other threads run at the same time
        result = async_execution_func(*args, **kwargs)
        with mutex:
            async_execution_func.output_specs_and_push_result_fun = None
        return result

    return specialized_func


class _SpecializedCollection:
    """The specialized functions of one unspecialized function, by input specs: looked up by
    the ids of the arguments' shardings first (`WeakSpec`, fast; the last seen per
    specialization), then by the specs themselves (`StrongSpec`, whose shardings keep those
    ids valid), as JAX's."""

    @dataclasses.dataclass(slots=True, unsafe_hash=True)
    class WeakSpec:
        dtypes: tuple
        shapes: tuple
        sharding_ids: tuple
        treedef: PyTreeDef

        def __init__(self, args_leaves: Sequence[Any], treedef: PyTreeDef):
            self.dtypes = tuple(x.dtype for x in args_leaves)
            self.shapes = tuple(x.shape for x in args_leaves)
            self.sharding_ids = tuple(id(x.sharding) for x in args_leaves)
            self.treedef = treedef

    @dataclasses.dataclass(slots=True, unsafe_hash=True)
    class StrongSpec:
        in_specs_treedef: PyTreeDef | None = None
        in_specs_leaves: tuple | None = None

        def __init__(self, args_leaves: Sequence[Any], pytreedef: PyTreeDef):
            self.in_specs_leaves = tuple(_get_spec(x) for x in args_leaves)
            self.in_specs_treedef = pytreedef

    def __init__(self):
        self._weak_to_id: dict = {}
        self._id_to_weak: dict = {}
        self._strong_to_id: dict = {}
        self._id_to_compiled: dict = {}
        self._counter = 0
        self._mu = threading.Lock()

    def get(self, args_leaves, pytreedef, func_info: FunctionInfo,
            specialization: Specialization) -> Callable[..., Any]:
        weak_spec = _SpecializedCollection.WeakSpec(args_leaves, pytreedef)
        compiled_id = self._weak_to_id.get(weak_spec)
        if compiled_id is not None:
            return self._id_to_compiled[compiled_id]
        with self._mu:
            strong_spec = _SpecializedCollection.StrongSpec(args_leaves, pytreedef)
            compiled_id = self._strong_to_id.pop(strong_spec, None)
            if compiled_id is not None:
                old_weak = self._id_to_weak.pop(compiled_id)
                del self._weak_to_id[old_weak]
                self._strong_to_id[strong_spec] = compiled_id
                self._weak_to_id[weak_spec] = compiled_id
                self._id_to_weak[compiled_id] = weak_spec
                return self._id_to_compiled[compiled_id]
            if specialization.devices is None:
                result = _uncached_get_specialized_func(func_info, specialization.update(
                    in_specs_treedef=strong_spec.in_specs_treedef,
                    in_specs_leaves=strong_spec.in_specs_leaves,
                    devices=_infer_devices_from_args(args_leaves)))
            else:
                result = _uncached_get_specialized_func(func_info, specialization.update(
                    in_specs_treedef=strong_spec.in_specs_treedef,
                    in_specs_leaves=strong_spec.in_specs_leaves))
            compiled_id = self._counter
            self._counter += 1
            self._weak_to_id[weak_spec] = compiled_id
            self._strong_to_id[strong_spec] = compiled_id
            self._id_to_weak[compiled_id] = weak_spec
            self._id_to_compiled[compiled_id] = result
            return result


class _JaxSecondLevelCaches:
    """The specialized-function caches of every function maker, cleared together
    (`cache_clear`). JAX registers it with its backend caches; jxkernel's clear_caches does
    not reach it (its backends are never cleared)."""

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self._callbacks: dict[int, Callable[..., Any]] = {}

    def cache_clear(self):
        for callback in list(self._callbacks.values()):
            callback()
        self._callbacks.clear()

    def register_second_level(self, uid: int, cache_clear_callback: Callable[..., Any]):
        self._callbacks[uid] = cache_clear_callback

    def remove_second_level(self, uid: int):
        self._callbacks.pop(uid, None)


class _CachedColocatedFunctionMaker:
    """Makes colocated Python callables; what they specialize is kept until it is dropped
    (the maker goes, or `JAX_CACHE.cache_clear()`). A colocated class's instance has its own."""

    JAX_CACHE = _JaxSecondLevelCaches("colocated_python_specialized_func_cache")

    def __init__(self, held_by: int | None):
        self.held_by = held_by if held_by is not None else uuid.uuid4().int
        specialized_collections: list = []
        specialized_functions: list = []

        def clear_caches():
            specialized_collections.clear()
            specialized_functions.clear()

        _CachedColocatedFunctionMaker.JAX_CACHE.register_second_level(self.held_by, clear_caches)
        self.specialized_collections = specialized_collections
        self.specialized_functions = specialized_functions

    def __del__(self):
        self.specialized_collections.clear()
        self.specialized_functions.clear()
        try:
            _CachedColocatedFunctionMaker.JAX_CACHE.remove_second_level(self.held_by)
        except AttributeError:        # (at interpreter shutdown)
            pass

    def _make_callable(self, info: FunctionInfo, specialization: Specialization):
        """Internal implementation of make_callable."""

        def specialize(in_specs: ShapeDtypeStructTree | None = None,
                       out_specs_fn: Callable[..., ShapeDtypeStructTree] | None = None,
                       devices=None):
            """Returns a colocated Python callable with extra specialization.

            Args:
              in_specs: the expected input specs, a pytree of ShapeDtypeStruct for
                `(args, kwargs)` of a call.
              out_specs_fn: a function from the input specs to the output specs; without
                it, the first call runs synchronously to find them.
              devices: the devices to run on; needed where the input has no leaves.
            """
            if in_specs is None:
                in_specs_leaves, in_specs_treedef = None, None
            else:
                in_specs_leaves_list, in_specs_treedef = tree_flatten(in_specs)
                in_specs_leaves = tuple(in_specs_leaves_list)
            return self._make_callable(info, specialization.update(
                in_specs_treedef=in_specs_treedef, in_specs_leaves=in_specs_leaves,
                out_specs_fn=out_specs_fn, devices=devices))

        # the callable's specializations, held weakly (the maker holds them), so that no cycle
        # keeps the maker alive
        specialized_collections_wref: Callable[..., Any] = lambda: None
        specialized_functions_wref: Callable[..., Any] = lambda: None
        wref_mu = threading.Lock()

        @api_boundary
        def __call__(*args, **kwargs):
            """Runs the function on the arguments' devices (or those specialized); a call
            without output specs specialized runs synchronously to find them."""
            nonlocal specialized_collections_wref, specialized_functions_wref
            args_leaves, in_specs_treedef = tree_flatten((args, kwargs))
            no_input = len(args_leaves) == 0
            if no_input and specialization.devices is None:
                raise ValueError("No devices found. colocated_python function without input"
                                 " arguments must be first specialized with devices.")
            fully_specified_in_spec = (specialization.in_specs_treedef is not None
                                       and specialization.in_specs_leaves is not None)
            if not fully_specified_in_spec and not no_input:
                # input polymorphism: one specialization per input specs
                with wref_mu:
                    collection = specialized_collections_wref()
                    if collection is None:
                        collection = _SpecializedCollection()
                        self.specialized_collections.append(collection)
                        specialized_collections_wref = weakref.ref(collection)
                result = collection.get(args_leaves, in_specs_treedef, info,
                                        specialization)(*args, **kwargs)
                del collection
                return result
            # no input polymorphism: exactly one specialized function
            with wref_mu:
                func = specialized_functions_wref()
                if func is None:
                    if fully_specified_in_spec and specialization.devices is not None:
                        func = _uncached_get_specialized_func(info, specialization)
                    elif fully_specified_in_spec:
                        func = _uncached_get_specialized_func(info, specialization.update(
                            devices=_infer_devices_from_args(args_leaves)))
                    elif no_input:
                        func = _uncached_get_specialized_func(info, specialization.update(
                            in_specs_leaves=tuple(), in_specs_treedef=in_specs_treedef))
                    self.specialized_functions.append(func)
                    specialized_functions_wref = weakref.ref(func)
            result = func(*args, **kwargs)
            del func
            return result

        __call__ = functools.wraps(info.fun)(__call__)
        __call__.specialize = specialize
        return __call__

    def make_callable(self, fun: Callable[..., Any], fun_sourceinfo: str | None,
                      fun_signature: inspect.Signature | None):
        """Makes a colocated Python callable."""
        return self._make_callable(FunctionInfo(fun, fun_sourceinfo, fun_signature),
                                   Specialization())


_DEFAULT_FUNCTION_MAKER = _CachedColocatedFunctionMaker(None)


def make_callable(fun: Callable[..., Any], fun_sourceinfo: str | None,
                  fun_signature: inspect.Signature | None):
    return _DEFAULT_FUNCTION_MAKER.make_callable(fun, fun_sourceinfo, fun_signature)
