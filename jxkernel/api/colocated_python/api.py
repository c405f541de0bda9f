"""Colocated Python's top-level API, as JAX's `colocated_python.api`: the CPU devices
colocated with devices or a mesh, and the function and class wrappers."""
from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core.mesh import Mesh
from ...core.source_info import function_source_info
from ...xla import client as _client
from .func import make_callable
from .obj import fun_signature, wrap_class


def fun_sourceinfo(fun) -> str | None:
    """Where `fun` was defined, as JAX's api_util.fun_sourceinfo ("name at file:line")."""
    info = function_source_info(fun)
    return None if info is None else str(info)


def colocated_cpu_devices(devices_or_mesh):
    """The CPU devices colocated with the given devices (in their order), or a mesh of the
    same shape over them; a CPU device is its own.

        >>> colocated_cpu_devices(jxkernel.devices())
        [CpuDevice(id=0)]
    """
    if isinstance(devices_or_mesh, Mesh):
        return _colocated_cpu_mesh_cached(devices_or_mesh)
    if not isinstance(devices_or_mesh, tuple):
        devices_or_mesh = tuple(devices_or_mesh)
    try:
        return _colocated_cpu_devices_cached(devices_or_mesh)
    except (ValueError, AttributeError):
        return _colocated_cpu_devices_cached_fallback_to_cpu_backend(devices_or_mesh)


@functools.lru_cache(maxsize=1024)
def _colocated_cpu_devices_cached(devices: tuple) -> Sequence:
    """By jaxlib's colocation ids (a PjRt-IFRT backend's; CPU clients' devices have none, and
    the AttributeError sends the caller to the fallback, as in JAX)."""
    cpu_devices_by_colocation_id = collections.defaultdict(list)
    for device in devices[0].client._get_all_devices():
        if device.device_kind == "cpu":
            cpu_devices_by_colocation_id[device.colocation_id].append(device)
    if not cpu_devices_by_colocation_id:
        raise ValueError("No CPU devices found")
    colocated = []
    for device in devices:
        matches = cpu_devices_by_colocation_id[device.colocation_id]
        if not matches:
            raise ValueError(f"Device {device} has no colocated devices")
        elif len(matches) > 1:
            raise ValueError(f"Ambiguous colocated devices; device {device} has"
                             f" {len(matches)} colocated devices: f{matches}")
        colocated.append(matches[0])
    return colocated


@functools.lru_cache(maxsize=1024)
def _colocated_cpu_devices_cached_fallback_to_cpu_backend(devices: tuple) -> Sequence:
    """Each device's process's CPU devices, handed out in order."""
    if devices[0].device_kind == "cpu":
        cpu_backend_devices = [d for d in devices[0].client._get_all_devices()
                               if d.device_kind == "cpu"]
    else:       # an accelerator's CPU devices are the CPU backend's
        cpu_backend_devices = _client.devices("cpu")
    cpu_device_map = collections.defaultdict(list)
    for d in cpu_backend_devices:
        cpu_device_map[d.process_index].append(d)
    for process_index in cpu_device_map:
        cpu_device_map[process_index].reverse()     # (popped from the end)
    cpu_devices = []
    for d in devices:
        try:
            cpu_devices.append(cpu_device_map[d.process_index].pop())
        except IndexError:
            raise ValueError(
                f"Process {d.process_index} does not have enough local CPU devices") from None
    return cpu_devices


@functools.lru_cache(maxsize=1024)
def _colocated_cpu_mesh_cached(mesh: Mesh) -> Mesh:
    """A mesh like `mesh` (shape, names, axis types) over its colocated CPU devices."""
    flat_cpu_devices = colocated_cpu_devices(tuple(mesh.devices.flat))
    return Mesh(np.array(flat_cpu_devices).reshape(mesh.axis_sizes), mesh.axis_names,
                axis_types=mesh.axis_types)


def colocated_python(fun: Callable[..., Any]):
    """`fun` run on the host of its arguments' devices (this process, for jxkernel's), taking
    and returning jax.Arrays; `.specialize(in_specs=, out_specs_fn=, devices=)` gives what
    it cannot infer (see JAX's docs page notebooks/colocated-python)."""
    return make_callable(fun, fun_sourceinfo(fun), fun_signature(fun))


def colocated_python_class(cls: type) -> type:
    """A wrapper class of `cls`: its instances keep the constructor's arguments, and the real
    instance is made on the devices' host at the first method call, dropped with the wrapper."""
    return wrap_class(cls, fun_sourceinfo(cls))
