"""Shardy's view of a sharding, as JAX 0.10.2's `SdyDim` and `SdyArray`
(jax._src.named_sharding), and what NamedSharding's `_to_sdy_sharding(num_dimensions)`
method returns (SingleDeviceSharding's and GSPMDSharding's are theirs, in sharding.py, which
loads this module). jxkernel lowers shardings as text (xla/sharding.py's `sdy_dims`); these objects
are what JAX's libraries and tests read.

    >>> from jxkernel.core.mesh import AbstractMesh, NamedSharding, PartitionSpec as P
    >>> NamedSharding(AbstractMesh((2, 2), ('x', 'y')), P('x', P.UNCONSTRAINED))._to_sdy_sharding(3)
    SdyArray([{'x'}, {?}, {}])
"""
from __future__ import annotations

import dataclasses

from ..core.mesh import AxisType, NamedSharding, PartitionSpec, jaxlib_forms


@dataclasses.dataclass(frozen=True, slots=True)
class SdyDim:
    """One dimension's sharding: the mesh axes splitting it (major first) and whether
    propagation may split it further (`is_open`)."""
    axes: tuple
    is_open: bool

    replace = dataclasses.replace

    def build(self):
        """jaxlib's `sdy.DimensionShardingAttr` (in the current MLIR context)."""
        from jaxlib.mlir.dialects import sdy    # (jaxlib's MLIR bindings: lowering needs none)
        return sdy.DimensionShardingAttr.get([sdy.AxisRefAttr.get(a) for a in self.axes],
                                             is_closed=not self.is_open)

    def __repr__(self):
        return f"SdyDim({self._custom_repr()})"

    def _custom_repr(self):
        axes = ", ".join(f"'{a}'" for a in self.axes)
        open_ = (", ?" if self.axes else "?") if self.is_open else ""
        return f"{{{axes}{open_}}}"


def _get_axes(axes, mesh_shape):
    # in the mesh's order, as JAX's (deterministic)
    return tuple(n for n, _ in mesh_shape if n in axes) if axes else ()


@dataclasses.dataclass(kw_only=True, frozen=True, slots=True)
class SdyArray:
    """An array's sharding as Shardy's `TensorShardingAttr` says it: the mesh (axis names and
    sizes, None for no mesh), each dimension's SdyDim, the logical device ids, and the axes it
    is replicated or unreduced over."""
    mesh_shape: tuple | None
    dim_shardings: tuple
    logical_device_ids: tuple | None = None
    replicated_axes: frozenset = frozenset()
    unreduced_axes: frozenset = frozenset()

    replace = dataclasses.replace

    def build(self, attr_cache: dict):
        """jaxlib's `sdy.TensorShardingAttr` (in the current MLIR context), kept in
        `attr_cache`."""
        attr = attr_cache.get(self)
        if attr is not None:
            return attr
        from jaxlib.mlir.dialects import sdy    # (jaxlib's MLIR bindings, as above)
        if self.mesh_shape is None:
            mesh_attr = sdy.MeshAttr.get([])
        else:
            mesh_attr = sdy.MeshAttr.get(
                [sdy.MeshAxisAttr.get(name, size) for name, size in self.mesh_shape],
                [] if self.logical_device_ids is None else list(self.logical_device_ids))
        attr = sdy.TensorShardingAttr.get(
            mesh_attr, [d.build() for d in self.dim_shardings],
            replicated_axes=[sdy.AxisRefAttr.get(a)
                             for a in _get_axes(self.replicated_axes, self.mesh_shape)],
            unreduced_axes=[sdy.AxisRefAttr.get(a)
                            for a in _get_axes(self.unreduced_axes, self.mesh_shape)])
        attr_cache[self] = attr
        return attr

    def __repr__(self):
        dims = ", ".join(d._custom_repr() for d in self.dim_shardings)
        ids = (f", device_ids={self.logical_device_ids}"
               if self.logical_device_ids is not None else "")
        rep = f", replicated_axes={self.replicated_axes}" if self.replicated_axes else ""
        return f"SdyArray([{dims}]{ids}{rep})"


def named_sharding_to_sdy_sharding(self: NamedSharding, num_dimensions: int,
                                   modify_wrt_axis_types: bool = False) -> SdyArray:
    """A NamedSharding as Shardy's: a dimension per spec entry (open for P.UNCONSTRAINED),
    closed and empty past the spec. `modify_wrt_axis_types` over a mesh with an Auto axis:
    every dimension open, the Explicit axes the spec leaves out replicated."""
    dims = [SdyDim(axes=(), is_open=False)] * num_dimensions
    for i, entry in enumerate(self.spec.partitions):
        if entry is PartitionSpec.UNCONSTRAINED:
            dims[i] = SdyDim(axes=(), is_open=True)
        elif entry is not None:
            dims[i] = SdyDim(axes=entry if isinstance(entry, tuple) else (entry,),
                             is_open=False)
    replicated = frozenset()
    mesh = self.mesh
    if modify_wrt_axis_types and AxisType.Auto in tuple(mesh.axis_types):
        dims = [d.replace(is_open=True) for d in dims]
        used = {a for axes in self.spec._axes(num_dimensions) for a in axes}
        used |= set(self.spec.unreduced) | set(getattr(self.spec, "reduced", ()))
        replicated = frozenset(a for a, t in zip(mesh.axis_names, mesh.axis_types)
                               if a not in used and t == AxisType.Explicit)
    return SdyArray(mesh_shape=mesh.shape_tuple, dim_shardings=tuple(dims),
                    logical_device_ids=getattr(self, "_logical_device_ids", None),
                    replicated_axes=replicated, unreduced_axes=self.spec.unreduced)


# what NamedSharding._to_sdy_sharding (core/mesh.py) calls: its class sits below xla/, which
# holds jaxlib (`build`); SingleDeviceSharding's and GSPMDSharding's are theirs (sharding.py)
jaxlib_forms["sdy"] = named_sharding_to_sdy_sharding
