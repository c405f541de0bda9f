"""jxkernel.experimental.topologies, as jax.experimental.topologies: the devices a program is
compiled for ahead of time, attached or described, and meshes over them.

    >>> topo = get_attached_topology()
    >>> make_mesh(topo, (len(topo.devices),), ("x",)).axis_names
    ('x',)
    >>> get_topology_desc(platform="cpu")
    Traceback (most recent call last):
      ...
    NotImplementedError: topology not implemented for cpu

A described topology (compile-only devices of a machine not attached) comes from a PJRT
plugin's topology factory, as in JAX; JAX 0.10.2 has none for CPUs or GPUs without one
registered, and jxkernel registers none, so only the attached topology is at hand.
"""
from __future__ import annotations

import importlib.util
from collections.abc import Sequence

from ... import devices as all_devices   # calling it starts the runtime, importing it does not
from ...core.mesh import Mesh
from .mesh_utils import create_device_mesh


class TopologyDescription:
    """The devices of a topology (`.devices`)."""

    def __init__(self, devices: list):
        self.devices: list = devices


def get_attached_topology(platform=None) -> TopologyDescription:
    """The devices of `platform` (default: the default backend's) that this process runs on."""
    return TopologyDescription(all_devices(backend=platform))


def get_topology_desc(topology_name: str = "", platform: str | None = None,
                      **kwargs) -> TopologyDescription:
    """Compile-only devices of the topology `topology_name` of `platform` (TPU when None).
    jxkernel has no topology factory for any platform: JAX's errors where it has none, which
    JAX's own tests read as "PJRT Topology not supported"."""
    if platform in ("tpu", None) and importlib.util.find_spec("libtpu") is None:
        raise RuntimeError("JAX TPU support not installed; cannot generate TPU topology. See "
                           "https://github.com/jax-ml/jax#installation")
    raise NotImplementedError(f"topology not implemented for {platform or 'tpu'}")


def make_mesh(topo: TopologyDescription, mesh_shape: Sequence[int], axis_names: tuple,
              *, contiguous_submeshes: bool = False) -> Mesh:
    """A Mesh of `topo`'s devices in the shape `mesh_shape`, named `axis_names`."""
    devices = create_device_mesh(mesh_shape, list(topo.devices),
                                 contiguous_submeshes=contiguous_submeshes)
    return Mesh(devices, axis_names)
