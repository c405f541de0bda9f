"""Meshes and the shardings named over them, as plain values: `Mesh` (devices in an n-d grid
with named axes), `AbstractMesh`, `AxisType`, `PartitionSpec` (`P`), `NamedSharding` (an array
split over a mesh) and the mesh `set_mesh` sets. Nothing here touches jaxlib (devices are just
objects held in a grid): the conversions to XLA's HloSharding and the Shardy text are in
xla/sharding.py, arrays split over a mesh in xla/sharded.py.

    >>> P('x', None), AbstractMesh((4, 2), ('x', 'y'))
    (P('x', None), AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto)))
    >>> import jxkernel as jax
    >>> NamedSharding(Mesh(np.array(jax.devices()[:1]), ('x',)), P('x')).shard_shape((4,))
    (4,)
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import functools
import math
import threading
import warnings
import weakref

import numpy as np

from . import config as _config
from .lru import cleared_with_caches


class IndivisibleError(ValueError):
    """An array dimension does not divide evenly among the devices a sharding splits it over."""


def check_tiles_divide(sharding, shape, tiles) -> None:
    """JAX's IndivisibleError where `tiles` (the pieces each dimension of `shape` is split
    into by `sharding`) does not divide a dimension (NamedSharding's and GSPMDSharding's)."""
    for dim, (size, tile) in enumerate(zip(shape, tiles)):
        if size % tile:
            raise IndivisibleError(
                f"Sharding {sharding!r} implies that array axis {dim} is partitioned {tile} "
                f"times, but the dimension size is {size} (full shape: {tuple(shape)}, "
                f"per-dimension tiling factors: {list(tiles)} should evenly divide the shape)")


class AbstractMeshOnlyError(ValueError):
    """JAX's error for a program whose only mesh is an AbstractMesh (`abstract`), lowered with
    no devices to run on (no mesh set by set_mesh); jax.export lowers it over a stand-in."""

    def __init__(self, message: str, abstract):
        super().__init__(message)
        self.abstract = abstract


# a learner's traceback names it as JAX's does ("ValueError: Passing lowering_platforms ...");
# jxkernel's own code catches it by its class
AbstractMeshOnlyError.__name__ = AbstractMeshOnlyError.__qualname__ = "ValueError"
AbstractMeshOnlyError.__module__ = "builtins"


class DuplicateSpecError(Exception):
    """A PartitionSpec names one mesh axis for two dimensions."""


class AxisType(enum.Enum):
    """How a mesh axis is sharded: by XLA's propagation (Auto), by the types (Explicit), or by
    hand inside shard_map (Manual). jxkernel lets XLA propagate Explicit axes as Auto ones."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


def _canonical_part(p):
    """An entry as JAX's PartitionSpec keeps it: a list as a tuple, a tuple of one name as
    that name, an empty tuple as None (P(('i',)) is P('i',), and equal to it)."""
    if isinstance(p, list):
        p = tuple(p)
    if isinstance(p, tuple) and len(p) <= 1:
        return p[0] if p else None
    return p


class UnconstrainedSingleton:
    """`P.UNCONSTRAINED`: a dimension a sharding constraint leaves to XLA's propagation."""
    def __repr__(self):
        return "UNCONSTRAINED"

    def __reduce__(self):
        return (_get_default_unconstrained, ())


UNCONSTRAINED = UnconstrainedSingleton()


def _get_default_unconstrained():
    """The one UNCONSTRAINED, which a pickle of it names (as JAX's)."""
    return UNCONSTRAINED


class _Interned:
    """A value made once per set of arguments (`__new__` keeps it), as JAX's PartitionSpec and
    Mesh are: a pickle or copy makes it again through `__new__` with `__getnewargs_ex__`'s
    arguments, so it is the interned object; no state travels besides them."""
    __slots__ = ()

    def __getstate__(self):
        return None

    def __setstate__(self, state):
        pass

    def __deepcopy__(self, memo):
        return self


class PartitionSpec(_Interned):
    """Per array dimension, the mesh axis (or tuple of axes, or None) it is split over, or
    `P.UNCONSTRAINED` (left to XLA; in an array's type, None).

    >>> P('x', None), P(('x', 'y'),), P('x', P.UNCONSTRAINED).index(P.UNCONSTRAINED)
    (P('x', None), P(('x', 'y'),), 1)
    """
    # interned, as JAX's P: a spec made twice is the same object (so it is immutable)
    __slots__ = ("_parts", "unreduced", "reduced", "__weakref__")
    UNCONSTRAINED = UNCONSTRAINED

    def __new__(cls, *parts, unreduced=frozenset(), reduced=frozenset()):
        parts = tuple(map(_canonical_part, parts))
        for p in parts:
            nested = next((a for a in p if isinstance(a, tuple)), None) \
                if isinstance(p, tuple) else None
            if nested is not None:
                raise ValueError(f"A tuple inside PartitionSpec cannot contain a nested tuple. "
                                 f"Got partition: {p} and the nested tuple: {nested}")
            if not (p is None or p is UNCONSTRAINED or isinstance(p, str) or
                    isinstance(p, tuple) and all(isinstance(a, str) for a in p)):
                raise TypeError(f"PartitionSpec entries must be None, a mesh axis name (str) or "
                                f"a tuple of names; got {p!r} of type {type(p).__name__}")
        for name, given in (("unreduced", unreduced), ("reduced", reduced)):
            if not isinstance(given, (set, frozenset)):
                raise TypeError(f"{name} argument of PartitionSpec should of type `frozenset` or "
                                f"`set`. Got type {given}")
        unreduced, reduced = frozenset(unreduced), frozenset(reduced)
        if unreduced or reduced:
            _check_summed_axes(parts, unreduced, reduced)
        key = (parts, unreduced, reduced)
        found = _interned_specs.get(key)
        if found is None:
            found = object.__new__(PartitionSpec)
            for field, value in zip(("_parts", "unreduced", "reduced"), key):
                object.__setattr__(found, field, value)
            _interned_specs[key] = found
        return found

    def __init_subclass__(cls, *args, **kwargs):
        # (JAX's words: a subclass would break the interning)
        raise TypeError("Subclassing `jax.P` is prohibited.")

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    # a pickle or copy makes the spec again through __new__ (so it is the interned one)
    def __getnewargs_ex__(self):
        return self._parts, {"unreduced": self.unreduced, "reduced": self.reduced}

    @property
    def partitions(self) -> tuple:
        """The per-dimension entries, without the unreduced and reduced sets."""
        return self._parts

    def __len__(self):
        return len(self._parts)

    def __getitem__(self, i):
        if self.unreduced or self.reduced:
            # (as JAX: an entry read alone would drop the sets)
            raise ValueError("Using pspec[...] is dangerous when PartitionSpec has non-empty "
                             "unreduced/reduced set. Please use spec.partitions[...]")
        return self._parts[i]

    def __iter__(self):
        if self.unreduced or self.reduced:
            raise ValueError("Using *pspec is dangerous when PartitionSpec has non-empty "
                             "unreduced/reduced set. Please use *spec.partitions")
        return iter(self._parts)

    def index(self, value):
        return self._parts.index(_canonical_part(value))

    def count(self, value):
        return self._parts.count(_canonical_part(value))

    def update(self, partitions=None, unreduced=None, reduced=None) -> PartitionSpec:
        """This spec with the given fields replaced."""
        return PartitionSpec(*(self._parts if partitions is None else partitions),
                             unreduced=self.unreduced if unreduced is None else unreduced,
                             reduced=self.reduced if reduced is None else reduced)

    def __add__(self, other):
        """The dimensions of both, and both's unreduced and reduced axes (a tuple adds
        dimensions only)."""
        if isinstance(other, PartitionSpec):
            return PartitionSpec(*self._parts, *other._parts,
                                 unreduced=self.unreduced | other.unreduced,
                                 reduced=self.reduced | other.reduced)
        if isinstance(other, tuple):
            self._check_no_sets(other, "__add__")
            return PartitionSpec(*self._parts, *other)
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, tuple):
            self._check_no_sets(other, "__radd__")
            return PartitionSpec(*other, *self._parts)
        return NotImplemented

    def _check_no_sets(self, other, method) -> None:
        """JAX's refusal to add a tuple (which has no sets to merge) to a spec with some."""
        for name in ("unreduced", "reduced"):
            if getattr(self, name):
                raise TypeError(f"other {other} cannot be of instance `tuple` when self {self} "
                                f"has {name} in `{method}` of PartitionSpec.")

    def __eq__(self, other):
        return isinstance(other, PartitionSpec) and self._parts == other._parts and \
            self.unreduced == other.unreduced and self.reduced == other.reduced

    def __hash__(self):
        return hash((PartitionSpec, self._parts, self.unreduced, self.reduced))

    def __repr__(self):
        # as JAX's: P('x', None, unreduced={'y'}), the sets printed as Python sets
        text = repr(self._parts)[1:-1]
        extra = [f"{name}={set(axes)!r}" for name, axes in (("unreduced", self.unreduced),
                                                              ("reduced", self.reduced)) if axes]
        if not extra:
            return f"P({text})"
        text = "" if not text else f"{text} " if text.endswith(",") else f"{text}, "
        return f"P({text}{', '.join(extra)})"

    def _axes(self, ndim: int) -> tuple:
        """Per dimension, the tuple of mesh axes splitting it (padded with () to `ndim`)."""
        axes = tuple(() if p is None or p is UNCONSTRAINED else (p,) if isinstance(p, str) else p
                     for p in self._parts)
        return axes + ((),) * (ndim - len(axes))


P = PartitionSpec
_interned_specs: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _check_summed_axes(parts, unreduced, reduced) -> None:
    """JAX's checks of a PartitionSpec's unreduced and reduced sets: mesh axis names, apart
    from each other and from the axes that split its dimensions."""
    for name, axes in (("unreduced", unreduced), ("reduced", reduced)):
        if None in axes:
            raise ValueError(f"{name} cannot contain None. All elements in {name} should refer "
                             f"to the mesh axes.")
    if unreduced & reduced:
        raise ValueError(f"`unreduced` and `reduced` argument to PartitionSpec cannot overlap. "
                         f"Got unreduced: {unreduced} and reduced: {reduced}")
    for entry in parts:
        for axis in entry if isinstance(entry, tuple) else (entry,):
            for name, axes in (("unreduced", unreduced), ("reduced", reduced)):
                if axis in axes:
                    raise ValueError(f"partitions cannot overlap with {name} axes passed to "
                                     f"PartitionSpec. Got partitions: {tuple(parts)} and "
                                     f"{name} axes: {axes}")

# The names and modules JAX's classes have (jax.P, jax._src.mesh.Mesh, ...), with jxkernel for
# jax: what reprs of the classes, `__module__`/`__qualname__` and pickles show. jxkernel._src
# aliases `mesh` and `partition_spec` to this module, so pickles naming them load here.
PartitionSpec.__module__, PartitionSpec.__name__, PartitionSpec.__qualname__ = "jxkernel", "P", "P"
UnconstrainedSingleton.__module__ = _get_default_unconstrained.__module__ = \
    "jxkernel._src.partition_spec"


def checked_axis_types(axis_types, names: tuple, default: AxisType, what: str = "Mesh") -> tuple:
    """One AxisType per axis of `names` (`default` for each where none is given; one AxisType
    alone is one axis's), or JAX's error for `what` (the class given them)."""
    if axis_types is None:
        return (default,) * len(names)
    types = (axis_types,) if isinstance(axis_types, (AxisType, str)) else tuple(axis_types)
    if not all(isinstance(t, AxisType) for t in types):
        raise TypeError(f"axis_types passed to {what} must be of type `jax.sharding.AxisType`. "
                        f"Got {types} of type {tuple(type(t) for t in types)}")
    if len(types) != len(names):
        raise ValueError(f"Number of axis names should match the number of axis_types. Got "
                         f"axis_names={names} and axis_types={types}")
    return types


def _axes_text(names, sizes, types) -> str:
    """`'x': 4, 'y': 2, axis_types=(Auto, Auto)`: how JAX prints a mesh's axes."""
    return ", ".join(f"'{n}': {s}" for n, s in zip(names, sizes)) + f", axis_types={types!r}"


class _AxisTypeQueries:
    """Which of a mesh's axes are of which type (JAX's mesh properties, read by libraries to
    decide how to shard: Flax asks whether every axis is Explicit)."""
    __slots__ = ()

    def _all_of(self, kind) -> bool:
        return bool(self.axis_types) and all(t == kind for t in self.axis_types)

    def _named(self, kind) -> tuple:
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t == kind)

    are_all_axes_explicit = property(lambda self: self._all_of(AxisType.Explicit))
    are_all_axes_auto = property(lambda self: self._all_of(AxisType.Auto))
    are_all_axes_manual = property(lambda self: self._all_of(AxisType.Manual))
    explicit_axes = property(lambda self: self._named(AxisType.Explicit))
    auto_axes = property(lambda self: self._named(AxisType.Auto))
    manual_axes = property(lambda self: self._named(AxisType.Manual))
    # {axis name: its AxisType} (JAX's private mesh._name_to_type, read by its tests' helpers)
    _name_to_type = property(lambda self: dict(zip(self.axis_names, self.axis_types)))


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractDevice:
    """What a mesh's devices are, without the devices: an AbstractMesh's kind of device.

    >>> AbstractDevice(device_kind="cpu", num_cores=None, platform="cpu")
    AbstractDevice(device_kind=cpu, num_cores=None, platform=cpu)
    """
    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self):
        return (f"AbstractDevice(device_kind={self.device_kind}, num_cores={self.num_cores}, "
                f"platform={self.platform})")


class AbstractMesh(_AxisTypeQueries):
    """A mesh's axis names, sizes and types, without devices.

    >>> AbstractMesh((4, 2), ('x', 'y'))
    AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
    >>> import jxkernel as jax
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> mesh.abstract_mesh                       # a device mesh's also tells its devices' kind
    AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto), device_kind=cpu, num_cores=None, platform=cpu)
    """
    __slots__ = ("axis_sizes", "axis_names", "axis_types", "_device")

    def __init__(self, axis_sizes, axis_names, axis_types=None, *, abstract_device=None,
                 _device=None):
        self.axis_sizes, self.axis_names = tuple(axis_sizes), tuple(axis_names)
        if abstract_device is not None:     # JAX's spelling of the kind of device
            if not isinstance(abstract_device, AbstractDevice):
                raise TypeError(f"AbstractMesh's abstract_device must be an AbstractDevice "
                                f"(a mesh's `.abstract_mesh.abstract_device`); got "
                                f"{abstract_device!r} of type {type(abstract_device).__name__}")
            _device = (abstract_device.device_kind, abstract_device.num_cores,
                       abstract_device.platform)
        self._device = _device        # (device_kind, num_cores, platform) of a device mesh
        if len(self.axis_sizes) != len(self.axis_names):
            raise ValueError(f"AbstractMesh got {len(self.axis_sizes)} axis sizes "
                             f"{self.axis_sizes} but {len(self.axis_names)} axis names "
                             f"{self.axis_names}; give one size per name")
        self.axis_types = checked_axis_types(axis_types, self.axis_names, AxisType.Auto,
                                             "AbstractMesh")

    shape = property(lambda self: collections.OrderedDict(zip(self.axis_names, self.axis_sizes)))
    shape_tuple = property(lambda self: tuple(zip(self.axis_names, self.axis_sizes)))
    size = property(lambda self: math.prod(self.axis_sizes) if self.axis_names else 0)
    empty = property(lambda self: not self.axis_names)
    # itself, as JAX's: code asks any mesh for its abstract mesh
    abstract_mesh = property(lambda self: self)

    def update(self, axis_sizes=None, axis_names=None, axis_types=None, *,
               abstract_device=None) -> AbstractMesh:
        """This mesh with the given fields replaced (its kind of device kept unless given).

        >>> AbstractMesh((2, 4), ('x', 'y')).update(axis_sizes=(4, 2), axis_names=('a', 'b'))
        AbstractMesh('a': 4, 'b': 2, axis_types=(Auto, Auto))
        """
        return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                            self.axis_names if axis_names is None else axis_names,
                            self.axis_types if axis_types is None else axis_types,
                            abstract_device=abstract_device,
                            _device=self._device if abstract_device is None else None)

    def update_axis_types(self, name_to_type: dict) -> AbstractMesh:
        """This mesh with the axes `name_to_type` names of those types (other names: as
        JAX, ignored).

        >>> AbstractMesh((2, 4), ('x', 'y')).update_axis_types({'x': AxisType.Explicit})
        AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Auto))
        """
        return self.update(axis_types=tuple(name_to_type.get(n, t) for n, t in
                                            zip(self.axis_names, self.axis_types)))

    @property
    def abstract_device(self) -> AbstractDevice | None:
        """The kind of device of the mesh this one abstracts (None when made from sizes alone).

        >>> AbstractMesh((2,), ('x',)).abstract_device is None
        True
        """
        return None if self._device is None else AbstractDevice(*self._device)

    def _key(self) -> tuple:
        return self.axis_sizes, self.axis_names, self.axis_types, self._device

    def __eq__(self, other):
        return type(other) is AbstractMesh and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        if self.empty:
            return "AbstractMesh((), axis_types=())"
        device = "" if self._device is None else \
            ", device_kind={}, num_cores={}, platform={}".format(*self._device)
        return (f"AbstractMesh({_axes_text(self.axis_names, self.axis_sizes, self.axis_types)}"
                f"{device})")


def _device_ids(grid: np.ndarray) -> tuple:
    """The ids of a mesh's devices, in grid order; a grid of other objects than devices (a
    test's stand-ins: plain ints) keys the mesh by those objects, as JAX's Mesh accepts them."""
    return tuple(getattr(d, "id", d) for d in grid.flat)


class Mesh(_AxisTypeQueries, _Interned):
    """Devices laid out in an n-d grid whose axes have names (what shardings split over).

    >>> import jxkernel as jax
    >>> Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))          # 8 devices
    Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Auto, Auto))
    """
    # interned, as JAX's Mesh: one made twice over the same devices, names and types is the
    # same object (as_from_context's copies are made apart, outside the interning)
    __slots__ = ("devices", "axis_names", "axis_types", "_ids", "_platform", "_previous",
                 "_hash", "from_context", "__weakref__")

    def __new__(cls, devices, axis_names, axis_types=None):
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if not names and (devices is None or isinstance(devices, np.ndarray) and
                          devices.shape == () and devices.item() is None):
            key = None      # the empty mesh (no mesh set; JAX's: a 0-d grid holding None)
        else:
            if any(n is None for n in names):
                raise ValueError(f"Mesh axis names cannot be None. Got: {names}")
            grid = np.array(devices, dtype=object) if not isinstance(devices, np.ndarray) \
                else devices
            if grid.ndim != len(names):
                raise ValueError(f"Mesh requires the ndim of its first argument (`devices`) to "
                                 f"equal the length of its second argument (`axis_names`), but "
                                 f"got devices.ndim == {grid.ndim} and len(axis_names) == "
                                 f"{len(names)}.")
            if len(set(names)) != len(names):
                raise ValueError(f"Mesh axis names must be unique; got {names}")
            types = checked_axis_types(axis_types, names, AxisType.Auto)
            ids = _device_ids(grid)
            platform = getattr(grid.flat[0], "platform", None) if grid.size else None
            key = (ids, platform, tuple(grid.shape), names, types)
        found = _interned_meshes.get(key)
        if found is None:
            found = object.__new__(Mesh)
            found._fill(None if key is None else grid, names,
                        None if key is None else types)
            _interned_meshes[key] = found
        return found

    def _fill(self, grid, names, types) -> None:
        """Set a new mesh's fields (`grid` None: the empty mesh)."""
        # taken from set_mesh's context rather than given (shard_map's equation then shows
        # the abstract mesh, as JAX's does)
        self.from_context = False
        self._previous = []
        if grid is None:
            self.devices, self.axis_names, self.axis_types = None, (), ()
            self._ids, self._platform, self._hash = (), None, hash(())
            return
        if grid.flags.writeable:      # (JAX's too: a shared mesh's grid cannot change)
            grid = grid.copy()
            grid.flags.writeable = False
        self.devices, self.axis_names, self.axis_types = grid, names, types
        self._ids = _device_ids(grid)
        # ids are per platform: the NumPy backend's devices 0..n-1 and XLA's CPU devices
        # 0..n-1 make meshes alike but for it (caches keyed by meshes must tell them apart)
        self._platform = getattr(grid.flat[0], "platform", None) if grid.size else None
        # hashed once: meshes key every sharded call's cache lookup
        self._hash = hash((self._ids, self._platform, self.axis_sizes, self.axis_names,
                           self.axis_types))

    # a pickle or copy makes the mesh again through __new__ (so it is the interned one)
    def __getnewargs_ex__(self):
        return (self.devices, self.axis_names, self.axis_types), {}

    shape = property(lambda self: collections.OrderedDict(zip(self.axis_names,
                                                              self.axis_sizes)))
    axis_sizes = property(lambda self: () if self.devices is None else tuple(self.devices.shape))
    shape_tuple = property(lambda self: tuple(zip(self.axis_names, self.axis_sizes)))
    size = property(lambda self: 0 if self.devices is None else self.devices.size)
    empty = property(lambda self: self.devices is None)
    device_ids = property(lambda self: np.array(self._ids).reshape(self.devices.shape))
    local_devices = property(lambda self: list(self.devices.flat))
    _flat_devices = property(lambda self: tuple(self.devices.flat))
    _flat_devices_tuple = _flat_devices      # (JAX's name, which its tests read)

    def update(self, devices=None, axis_names=None, axis_types=None) -> Mesh:
        """This mesh with the given fields replaced, as JAX's Mesh.update.

        >>> import jxkernel as jax
        >>> Mesh(np.array(jax.devices()[:2]), ('x',)).update(axis_names=('y',)).axis_names
        ('y',)
        """
        return Mesh(self.devices if devices is None else devices,
                    self.axis_names if axis_names is None else axis_names,
                    self.axis_types if axis_types is None else axis_types)

    def as_from_context(self) -> Mesh:
        """This mesh (equal to it) marked as taken from the context (set_mesh)."""
        found = _context_copies.get(self)
        if found is None or found._ids != self._ids:
            found = object.__new__(Mesh)
            found._fill(self.devices, self.axis_names, self.axis_types)
            found.from_context = True
            _context_copies[self] = found
        return found

    @property
    def abstract_mesh(self) -> AbstractMesh:
        if self.empty:
            return AbstractMesh((), ())
        first = self.devices.flat[0]
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types,
                            _device=(first.device_kind, getattr(first, "num_cores", None),
                                     first.platform))

    def __eq__(self, other):
        return type(other) is Mesh and (self._ids, self._platform, self.axis_sizes,
                                         self.axis_names, self.axis_types) == \
            (other._ids, other._platform, other.axis_sizes, other.axis_names, other.axis_types)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        if self.empty:
            return "Mesh(axis_sizes=(), axis_names=())"
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
                f"axis_types={self.axis_types!r})")

    def __str__(self):
        if self.empty:
            return "Mesh()"
        return f"Mesh({_axes_text(self.axis_names, self.axis_sizes, self.axis_types)})"

    def __enter__(self):
        # JAX 0.10.2's words and category (jax/_src/mesh.py), pointing at the `with` line:
        # code that turns warnings into errors (Flax's tests) fails here as it does under JAX
        warnings.warn("`with mesh:` context manager has been deprecated. Please use `with"
                      " jax.set_mesh(mesh):` instead.", category=DeprecationWarning,
                      stacklevel=2)
        self._previous.append((_mesh_state.mesh, _mesh_state.legacy))
        _mesh_state.mesh = _mesh_state.legacy = self
        _config.config._set_local("_legacy_mesh", self)    # (a new config generation)
        return self

    def __exit__(self, *exc):
        _mesh_state.mesh, _mesh_state.legacy = self._previous.pop()
        _config.config._set_local("_legacy_mesh", _mesh_state.legacy)
        return False

    def __call__(self, func):
        """`@mesh` on a function: each call runs in `with mesh:` (JAX's Mesh is a
        contextlib.ContextDecorator)."""
        @functools.wraps(func)
        def in_mesh(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return in_mesh


_context_copies: dict = {}
_interned_meshes: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
# (where JAX's are, jax._src.mesh: see PartitionSpec's names above)
AxisType.__module__ = AbstractMesh.__module__ = Mesh.__module__ = "jxkernel._src.mesh"

_EMPTY_MESH = Mesh(None, ())
empty_concrete_mesh = _EMPTY_MESH      # JAX's name for it (jax._src.mesh): set_mesh of it sets none
empty_abstract_mesh = AbstractMesh((), ())    # and its abstract one (get_abstract_mesh there)


class _MeshState(threading.local):
    mesh = None        # the mesh bare PartitionSpecs refer to (set_mesh, `with mesh:`)
    abstract = None    # the AbstractMesh `use_abstract_mesh` sets (jxkernel.sharding)
    legacy = None      # the mesh of the innermost `with mesh:` block (pjit's resource mesh)
    # the device Mesh of the innermost shard_map body being traced (`abstract` is its
    # AbstractMesh, manual axes Manual): a bare PartitionSpec there names its devices
    body_mesh = None


_mesh_state = _MeshState()


class ResourceEnv(collections.namedtuple("ResourceEnv", ["physical_mesh"])):
    """JAX's `jax._src.mesh.ResourceEnv`: the mesh of the innermost `with mesh:` block (the
    empty mesh outside any)."""
    __slots__ = ()

    @property
    def shape(self):
        return self.physical_mesh.shape

    def __repr__(self):
        return "ResourceEnv(mesh=Mesh(" + ", ".join(
            f"'{k}': {v}" for k, v in self.physical_mesh.shape.items()) + "))"


EMPTY_ENV = ResourceEnv(_EMPTY_MESH)


class _ThreadResources:
    """JAX's `jax._src.mesh.thread_resources`: `.env` is this thread's ResourceEnv, read
    from the `with mesh:` block jxkernel tracks (`legacy_mesh()`)."""
    __slots__ = ()

    @property
    def env(self):
        legacy = _mesh_state.legacy
        return EMPTY_ENV if legacy is None else ResourceEnv(legacy)


thread_resources = _ThreadResources()


def legacy_mesh():
    """The mesh of the `with mesh:` block the code runs in (not set_mesh's), else None."""
    return _mesh_state.legacy


def get_mesh():
    """The mesh set by `set_mesh` or `with mesh:` (None when there is none; the public
    `jax.sharding.get_mesh` says `Mesh()` then, as JAX's)."""
    return _mesh_state.mesh


def get_abstract_mesh() -> AbstractMesh:
    """The mesh use_abstract_mesh set, else the AbstractMesh of the mesh set by set_mesh (an
    empty one when none is set).

    >>> get_abstract_mesh()
    AbstractMesh((), axis_types=())
    """
    found = _mesh_state.abstract
    return found if found is not None else (get_mesh() or _EMPTY_MESH).abstract_mesh


def eager_mesh():
    """The mesh eager results under set_mesh are placed over: set_mesh's, named as
    use_abstract_mesh's mesh where one of another naming is in effect (JAX's: the abstract
    mesh over the context's devices). None when no mesh is set.

    >>> import jxkernel as jax
    >>> with set_mesh(Mesh(np.array(jax.devices()[:2]), ('x',))):
    ...     with use_abstract_mesh(AbstractMesh((2,), ('y',))):
    ...         eager_mesh().axis_names
    ('y',)
    """
    mesh, abstract = _mesh_state.mesh, _mesh_state.abstract
    if mesh is None or abstract is None or abstract.empty or mesh.size != abstract.size or \
            (mesh.axis_sizes, mesh.axis_names, mesh.axis_types) == abstract._key()[:3]:
        return mesh
    return concrete_mesh(abstract, mesh)


def on_context_mesh() -> bool:
    """Whether this thread runs under set_mesh (a mesh with axes): JAX's jit then runs over
    its devices, every result placed on it."""
    if _config.config._context_mesh is None:      # (no set_mesh in this thread: one lookup)
        return False
    mesh = _mesh_state.mesh
    return mesh is not None and not mesh.empty


class set_mesh:
    """Make `mesh` the one bare PartitionSpecs refer to; `with set_mesh(mesh):` limits it.
    A class, as JAX's: the mesh is set when it is made, and put back on leaving a `with`.

    >>> import jxkernel as jax
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> with set_mesh(mesh):
    ...     jax.jit(lambda v: v * 2, in_shardings=P('x'))(np.arange(8.0)).sharding.spec
    P('x',)
    """
    __slots__ = ("_previous", "_previous_context")

    def __init__(self, mesh):
        if mesh is not None and not isinstance(mesh, Mesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
        if mesh is not None and AxisType.Manual in mesh.axis_types:
            raise ValueError(f"mesh {mesh} contains manual axes which is not allowed when using "
                             f"`jax.set_mesh`. Please use `jax.shard_map` to enter into `Manual` "
                             f"mode instead.")
        self._previous, _mesh_state.mesh = _mesh_state.mesh, mesh
        # (the context mesh before: a `with mesh:` block's mesh is none, though it is the
        # mesh in effect, so leaving a set_mesh inside one leaves no context mesh)
        self._previous_context = _config.config._context_mesh
        _note_context_mesh(mesh)

    def __enter__(self):
        return None                                   # as JAX's

    def __exit__(self, *exc):
        _mesh_state.mesh = self._previous
        _note_context_mesh(self._previous_context)
        return False


@contextlib.contextmanager
def use_abstract_mesh(mesh: AbstractMesh):
    """Within: get_abstract_mesh() is `mesh` (get_mesh() is unchanged).

    >>> import jxkernel as jax
    >>> with use_abstract_mesh(AbstractMesh((4, 2), ('x', 'y'))):
    ...     jax.sharding.get_abstract_mesh().axis_names
    ('x', 'y')
    """
    if not isinstance(mesh, AbstractMesh):
        raise ValueError(f"Expected mesh of type `jax.sharding.AbstractMesh`. Got type: "
                         f"{type(mesh)}")
    # JAX's check against the abstract mesh in effect: use_abstract_mesh's, else set_mesh's
    # (not a `with mesh:` block's, which JAX does not make the abstract mesh); a mesh of
    # another size would type values over devices the program does not have
    prev = _mesh_state.abstract
    if prev is None and _mesh_state.mesh is not None and _mesh_state.mesh is not _mesh_state.legacy:
        prev = _mesh_state.mesh.abstract_mesh
    if prev is not None and not prev.empty and not mesh.empty and prev.size != mesh.size:
        raise ValueError(f"use_abstract_mesh cannot change the size of the mesh. Got new mesh:"
                         f" {mesh} with size={mesh.size} and prev mesh: {prev} with "
                         f"size={prev.size}")
    with _abstract_mesh_set(mesh):
        yield


def recording_mesh():
    """The mesh in context as an equation is recorded (JAX's `JaxprEqnContext
    .cur_abstract_mesh`): use_abstract_mesh's AbstractMesh, else set_mesh's Mesh (kept as it
    is: its AbstractMesh is made only if the equation is run elsewhere), else None."""
    state = _mesh_state
    found = state.abstract
    if found is None:
        found = state.mesh
        if found is state.legacy:          # a `with mesh:` block is no abstract mesh (JAX)
            return None
    return found


def run_under_recorded_mesh(mesh):
    """A context in which an equation recorded under `mesh` (recording_mesh()) runs again, as
    JAX's eval_jaxpr enters `eqn.ctx.manager`; None where the abstract mesh in effect serves
    (the same; or `mesh` of Auto axes alone, under no mesh or one of Auto axes alone, which
    no typing rule tells apart)."""
    state = _mesh_state
    if mesh is state.abstract or (mesh is state.mesh and state.abstract is None):
        return None
    current = state.abstract if state.abstract is not None else state.mesh
    if mesh.are_all_axes_auto and (current is None or current.are_all_axes_auto):
        return None          # (asked of the meshes as they are: no AbstractMesh made)
    abstract = mesh if isinstance(mesh, AbstractMesh) else mesh.abstract_mesh
    if abstract == get_abstract_mesh():
        return None
    return _abstract_mesh_set(abstract)


@contextlib.contextmanager
def _abstract_mesh_set(mesh: AbstractMesh):
    """use_abstract_mesh's effect, without its check of the size (JAX's
    `abstract_mesh_context_manager.swap_local`, which an equation's context uses)."""
    previous, _mesh_state.abstract = _mesh_state.abstract, mesh
    # jit's cache keys hold it, as JAX's trace context: set_mesh's own abstract mesh is
    # already there (its mesh), so it is left out
    context = _mesh_state.mesh
    keyed = None if context is not None and context is not _mesh_state.legacy and \
        mesh == context.abstract_mesh else mesh
    previous_keyed = _config.config._abstract_mesh
    _config.config._set_local("_abstract_mesh", keyed)
    try:
        yield
    finally:
        _mesh_state.abstract = previous
        _config.config._set_local("_abstract_mesh", previous_keyed)


def _note_context_mesh(mesh) -> None:
    """set_mesh's mesh joins this thread's jit cache keys (config._trace_state): a jit runs
    over it."""
    if _config.config._context_mesh is not mesh:
        _config.config._set_local("_context_mesh", mesh)


class _MeshContextState:
    """JAX's config states of the mesh context (`config.device_context`: the Mesh set_mesh
    sets; `config.abstract_mesh_context_manager`: the AbstractMesh in effect): `.value`, and
    `.set_local(v)`, which JAX's tests call to undo a `jax.set_mesh(mesh)` made without
    `with` (an empty mesh or None: none)."""
    __slots__ = ("_abstract",)

    def __init__(self, abstract: bool):
        self._abstract = abstract

    @property
    def value(self):
        return get_abstract_mesh() if self._abstract else get_mesh()

    def set_local(self, value) -> None:
        value = None if value is None or value.empty else value
        if self._abstract:
            _mesh_state.abstract = value
        else:
            _mesh_state.mesh = value
            _note_context_mesh(value)


device_context = _MeshContextState(abstract=False)
abstract_mesh_context_manager = _MeshContextState(abstract=True)


# where JAX keeps it (jax._src.sharding_impls.set_mesh), which jxkernel._src.sharding_impls
# re-exports: the name its repr and pickles give
set_mesh.__module__ = "jxkernel._src.sharding_impls"


# How a NamedSharding becomes jaxlib's objects, for JAX's private methods of that name below:
# "hlo", (sharding, ndim) -> XLA's HloSharding (xla/sharding.py's `hlo_sharding`), and "sdy",
# (sharding, ndim, modify_wrt_axis_types) -> Shardy's SdyArray (xla/sdy_array.py). Each module
# enters its own as it loads: they sit in xla/, above core, which holds jaxlib (as
# xla/dispatch.py fills primitive.compiled_impl)
jaxlib_forms: dict = {}


class NamedSharding:
    """An array split over a mesh: `spec` names, per dimension, the mesh axes splitting it.

    >>> import jxkernel as jax
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> s = NamedSharding(mesh, P('x'))
    >>> s.shard_shape((8, 4)), s.num_devices, s.is_fully_replicated
    ((2, 4), 8, False)
    """
    __slots__ = ("mesh", "spec", "_memory_kind", "_tilings", "_hash")

    def __init__(self, mesh, spec, *, memory_kind: str | None = None):
        # (None for either is JAX's binding's TypeError, whose words lead)
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError(f"{_INCOMPATIBLE if mesh is None else ''}NamedSharding's mesh must "
                            f"be a Mesh or an AbstractMesh; got {mesh!r} of type "
                            f"{type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"{_INCOMPATIBLE if spec is None else ''}NamedSharding's spec must "
                            f"be a PartitionSpec (P(...)); got {spec!r} of type "
                            f"{type(spec).__name__}")
        # over an AbstractMesh (axes without devices: a sharding in a type, as JAX's) there
        # is no device to ask for its memories: a kind is one of JAX's list
        if isinstance(mesh, AbstractMesh) or mesh.empty:
            if memory_kind is not None and memory_kind not in _ABSTRACT_MEMORY_KINDS:
                raise ValueError(f"Got invalid memory kind: {memory_kind}. Valid memory kinds "
                                 f"are: {', '.join(_ABSTRACT_MEMORY_KINDS)}")
            self._memory_kind = memory_kind
        else:
            self._memory_kind = checked_memory_kind(mesh.devices.flat[0], memory_kind)
        _check_spec(spec, mesh)
        self.mesh, self.spec = mesh, spec
        self._tilings = {}
        self._hash = hash((mesh, spec, self._memory_kind))

    def _devices(self, what: str) -> tuple:
        """The mesh's devices, in mesh order; an AbstractMesh has none (JAX's error)."""
        if isinstance(self.mesh, AbstractMesh):
            raise ValueError(f"{what} is not implemented for `jax.sharding.AbstractMesh`.")
        return self.mesh._flat_devices

    memory_kind = property(lambda self: self._memory_kind)
    device_set = property(lambda self: set(self._devices("device_set")))
    _device_assignment = property(lambda self: self._devices("_device_assignment"))

    @property
    def _addressable_device_assignment(self) -> tuple:
        """The devices of _device_assignment this process holds, in mesh order (JAX's: the
        whole assignment when fully addressable). Orbax reads and JAX's tensorstore restore walk
        it to load only this process's shards."""
        return tuple(local_devices(self._devices("_addressable_device_assignment")))
    num_devices = property(lambda self: self.mesh.size)

    @property
    def addressable_devices(self) -> set:
        """The mesh's devices this process holds (all of them unless jxkernel.distributed
        spans several processes)."""
        return set(local_devices(self._devices("addressable_devices")))

    is_fully_addressable = property(
        lambda self: len(local_devices(self._devices("is_fully_addressable"))) == self.mesh.size)
    has_addressable_devices = property(lambda self: bool(self.addressable_devices))

    @property
    def is_fully_replicated(self) -> bool:
        sizes = self.mesh.shape
        # (a device's summand along an unreduced axis is not the value: not replicated)
        return all(sizes[a] == 1 for axes in self.spec._axes(0) + (tuple(self.spec.unreduced),)
                   for a in axes)

    def _tiles(self, ndim: int) -> tuple:
        """How many pieces each of `ndim` dimensions is split into."""
        sizes = self.mesh.shape
        return tuple(math.prod(sizes[a] for a in axes) for axes in self.spec._axes(ndim))

    def check_compatible_aval(self, aval_shape: tuple) -> None:
        """JAX's ValueError when this sharding's spec has more entries than `aval_shape` has
        dimensions (a scalar's spec should be P()).

        >>> import jxkernel as jax
        >>> s = NamedSharding(Mesh(np.array(jax.devices()[:1]), ('x',)), P('x'))
        >>> s.check_compatible_aval((4,))
        """
        if len(self.spec) > len(aval_shape):
            scalar = " For scalars the PartitionSpec should be P()" if not aval_shape else ""
            raise ValueError(f"Sharding {self!r} is only valid for values of rank at least "
                             f"{len(self.spec)}, but was applied to a value of rank "
                             f"{len(aval_shape)}.{scalar}")

    def check_shape(self, shape: tuple) -> None:
        """Raise JAX's errors when this sharding cannot split an array of `shape`."""
        self.check_compatible_aval(shape)
        check_tiles_divide(self, shape, self._tiles(len(shape)))

    def shard_shape(self, global_shape) -> tuple:
        self.check_shape(tuple(global_shape))
        return tuple(s // t for s, t in zip(global_shape, self._tiles(len(global_shape))))

    def _placements(self, ndim: int) -> list:
        """Per device (mesh order): (its block index per dimension, its replica id)."""
        sizes, axes = self.mesh.shape, self.spec._axes(ndim)
        used = {a for dim_axes in axes for a in dim_axes}
        unused = [a for a in self.mesh.axis_names if a not in used]
        out = []
        for coords in np.ndindex(*self.mesh.axis_sizes):
            at = dict(zip(self.mesh.axis_names, coords))
            blocks = tuple(_mixed_radix([at[a] for a in dim_axes], [sizes[a] for a in dim_axes])
                           for dim_axes in axes)
            out.append((blocks, _mixed_radix([at[a] for a in unused], [sizes[a] for a in unused])))
        return out

    def devices_indices_map(self, global_shape) -> dict:
        """Each device's index (a tuple of slices) into an array of `global_shape` (kept:
        common_devices_indices_map)."""
        return common_devices_indices_map(self, tuple(global_shape))

    def _devices_indices_map(self, shape: tuple) -> dict:
        shard = self.shard_shape(shape)
        tiles = self._tiles(len(shape))
        return {device: tuple(slice(None) if t == 1 else slice(b * s, (b + 1) * s)
                              for b, s, t in zip(blocks, shard, tiles))
                for device, (blocks, _) in zip(self._devices("devices_indices_map"),
                                               self._placements(len(shape)))}

    def addressable_devices_indices_map(self, global_shape) -> dict:
        """devices_indices_map for this process's devices only."""
        mine = self.addressable_devices
        return {d: i for d, i in self.devices_indices_map(global_shape).items() if d in mine}

    def replica_ids(self, ndim: int) -> tuple:
        """Per device (mesh order), which copy of its block it holds (0 for the first)."""
        return tuple(r for _, r in self._placements(ndim))

    def _tiling(self, ndim: int) -> tuple | None:
        """`tiling` of an `ndim`-d array laid out as this sharding says (kept per ndim)."""
        if ndim not in self._tilings:
            self._tilings[ndim] = tiling(self.mesh, self.spec._axes(ndim))
        return self._tilings[ndim]

    def is_equivalent_to(self, other, ndim: int) -> bool:
        """Same devices holding the same blocks (specs may differ, e.g. P('x') and P('x', None))."""
        if isinstance(other, NamedSharding):
            # (two AbstractMeshes: no devices to compare, as JAX's check_devices=False)
            return getattr(self.mesh, "_ids", None) == getattr(other.mesh, "_ids", None) and \
                self._memory_kind == other._memory_kind and \
                self._tiling(ndim) == other._tiling(ndim)
        if hasattr(other, "_hlo_sharding"):     # a GSPMDSharding (xla/sharding.py) compares
            return other.is_equivalent_to(self, ndim)
        # a SingleDeviceSharding (xla/sharding.py): equivalent when on this mesh's one device
        return self.mesh.size == 1 and getattr(other, "_device", None) == self.mesh.devices.flat[0]

    def with_memory_kind(self, kind: str) -> NamedSharding:
        return NamedSharding(self.mesh, self.spec, memory_kind=kind)

    def update(self, **kwargs) -> NamedSharding:
        return NamedSharding(kwargs.get("mesh", self.mesh), kwargs.get("spec", self.spec),
                             memory_kind=kwargs.get("memory_kind", self._memory_kind))

    def __eq__(self, other):
        if self is other:
            return True
        return type(other) is NamedSharding and self.mesh == other.mesh and \
            self.spec == other.spec and self._memory_kind == other._memory_kind

    def __hash__(self):
        return self._hash

    def __repr__(self):
        kind = "" if self._memory_kind is None else f", memory_kind={self._memory_kind}"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}{kind})"

    def _to_xla_hlo_sharding(self, num_dimensions: int):
        """This sharding as XLA's HloSharding of a `num_dimensions`-d array, as JAX's method:
        its devices by mesh position (a GSPMDSharding takes it with the mesh's devices).
        xla/sharding.py's `hlo_sharding` makes it (jaxlib_forms above)."""
        return jaxlib_forms["hlo"](self, num_dimensions)

    def _to_sdy_sharding(self, num_dimensions: int, modify_wrt_axis_types: bool = False):
        """This sharding as Shardy's SdyArray, as JAX's method: a dimension per spec entry
        (open for P.UNCONSTRAINED), closed and empty past the spec. xla/sdy_array.py's
        `named_sharding_to_sdy_sharding` makes it (jaxlib_forms above)."""
        return jaxlib_forms["sdy"](self, num_dimensions, modify_wrt_axis_types)


@functools.lru_cache(maxsize=4096)
def common_devices_indices_map(sharding, global_shape: tuple) -> dict:
    """`sharding.devices_indices_map(global_shape)`, kept per (sharding, shape) as JAX keeps
    it (`cache_info()` says how often it was asked; jax.clear_caches() empties it). The
    dict is shared: read it, never change it.

        >>> import jxkernel as jax
        >>> s = NamedSharding(Mesh(np.array(jax.devices()[:1]), ('x',)), P('x'))
        >>> s.devices_indices_map((4,)) is common_devices_indices_map(s, (4,))
        True
    """
    return sharding._devices_indices_map(tuple(global_shape))


cleared_with_caches(collections.namedtuple("_Clear", "clear")(
    common_devices_indices_map.cache_clear))


class UnspecifiedValue:
    """The type of UNSPECIFIED, jit's "no sharding given" for an argument or a result (as
    None is), which JAX's own code passes in in_shardings and out_shardings."""
    __slots__ = ()

    def __repr__(self):
        return "UnspecifiedValue"

    def __reduce__(self):
        return "UNSPECIFIED"


UNSPECIFIED = UnspecifiedValue()


def resolve(sharding, what: str = "device_put"):
    """A NamedSharding from a NamedSharding, or a bare PartitionSpec under set_mesh."""
    if isinstance(sharding, PartitionSpec):
        mesh = get_mesh()
        if what.startswith("jit's ") and mesh is not None and mesh is _mesh_state.legacy:
            # JAX's jit reads set_mesh's mesh only; a `with mesh:` block's is pjit's
            mesh = _config.config._context_mesh
            mesh = None if mesh is None or mesh.empty else mesh
        abstract = _mesh_state.abstract
        if abstract is not None and (mesh is None or abstract._key()[:3] != (
                mesh.axis_sizes, mesh.axis_names, mesh.axis_types)):
            # with no set_mesh, a shard_map body's bare spec names the body's mesh, as JAX
            # resolves it over the body's AbstractMesh
            mesh = on_devices_of(abstract, mesh if mesh is not None else
                                 _mesh_state.body_mesh, what)
        if mesh is None:
            raise bare_spec_error(sharding, what)
        return NamedSharding(mesh, sharding)
    return sharding


def bare_spec_error(spec: PartitionSpec, what: str) -> Exception:
    """JAX 0.10.2's error for a bare PartitionSpec where no mesh is set (or, given to
    make_array_from_callback or make_array_from_single_device_arrays, at all), by the
    function (`what`) it was given to: each says it in its own words, class and all.

    >>> bare_spec_error(P('x'), "device_put")
    ValueError('Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put')
    """
    if what == "device_put":
        return ValueError("Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed "
                          "to device_put")
    if what.startswith(("jit's ", "pjit's ")) or what == "with_sharding_constraint":
        api, argument = what.split("'s ") if "'s " in what else (what, "shardings")
        return RuntimeError(f"{api} requires a non-empty mesh in context if you are passing "
                            f"`PartitionSpec`s to {argument}. You can define a context mesh via "
                            f"`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to "
                            f"{argument} and then the mesh context manager is not required.")
    if what == "make_array_from_callback":
        return TypeError(f"sharding should be an instance of `jax.sharding`. Got {spec!r} of "
                         f"type {type(spec)}")
    if what == "make_array_from_single_device_arrays":     # (JAX reads it as a Sharding)
        return AttributeError(f"'{type(spec).__name__}' object has no attribute "
                              f"'addressable_devices'")
    # reshard, an out_sharding= (lax/sharding.py's canonicalize_sharding says it too)
    return ValueError(f"Using PartitionSpec when you are not under a mesh context is not "
                      f"allowed. Please pass a NamedSharding instance or enter into a mesh "
                      f"context via `jax.set_mesh`. Got {spec!r}")


def check_type_divides(shape, sharding) -> None:
    """JAX's error when the sharding a reshard, an out_sharding= or device_put gives a value's
    type (its Explicit axes, one entry per dimension, over the abstract mesh) does not divide
    a dimension: the type's check (core._check_divisibility) comes before any placement's
    (whose IndivisibleError then speaks of Auto axes only, or of jit's in_shardings)."""
    mesh = sharding.mesh
    kinds = dict(zip(mesh.axis_names, mesh.axis_types))
    parts = [tuple(a for a in axes if kinds[a] is AxisType.Explicit)
             for axes in sharding.spec._axes(len(shape))]
    for dim, (axes, n) in enumerate(zip(parts, shape)):
        size = math.prod(mesh.shape[a] for a in axes)
        if axes and n % size:
            spec = PartitionSpec(*[None if not p else p[0] if len(p) == 1 else p for p in parts])
            abstract = NamedSharding(getattr(mesh, "abstract_mesh", mesh), spec)
            raise ValueError(f"Sharding spec {axes} implies that array axis {dim} is "
                             f"partitioned {size} times, but does not evenly divide the "
                             f"dimension size {n}. Got shape: {tuple(shape)} and sharding "
                             f"{abstract!r}")


def on_devices_of(abstract: AbstractMesh, mesh: Mesh | None, what: str) -> Mesh:
    """The mesh `abstract` (use_abstract_mesh's) names over the devices of `mesh` (set_mesh's),
    in their order: as in JAX, an abstract mesh inside jit reshapes the devices it runs on.

    >>> import jxkernel as jax
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> on_devices_of(AbstractMesh((8,), ('a',)), mesh, "reshard").axis_sizes
    (8,)
    """
    if mesh is None or mesh.size != abstract.size:
        raise ValueError(f"{what}: the abstract mesh {abstract} set by use_abstract_mesh has "
                         f"{abstract.size} devices but the mesh set by jax.set_mesh is {mesh}; "
                         f"set a mesh of as many devices with jax.set_mesh first")
    return Mesh(mesh.devices.reshape(abstract.axis_sizes), abstract.axis_names,
                abstract.axis_types)


def placed_on(mesh: Mesh, sharding):
    """`sharding` over `mesh`'s devices where it names an AbstractMesh, as a result's type does
    (a constraint to a bare spec under set_mesh, an out_sharding=): how the executable over
    `mesh` places that result. Other shardings (and None) as they are."""
    if sharding is None or not isinstance(sharding.mesh, AbstractMesh):
        return sharding
    return NamedSharding(concrete_mesh(sharding.mesh, mesh), sharding.spec,
                         memory_kind=sharding.memory_kind)


def abstracted(sharding):
    """`sharding` over its mesh's AbstractMesh, as JAX's types and jaxprs name it (placed_on
    the other way); one already over an AbstractMesh, as it is."""
    if isinstance(sharding.mesh, AbstractMesh):
        return sharding
    return NamedSharding(sharding.mesh.abstract_mesh, sharding.spec)


def asked_on(mesh: Mesh, sharding):
    """The sharding a result over `mesh` was asked to have (placed_on), or None where it
    leaves a dimension open (P.UNCONSTRAINED: a typed result over a mesh with Auto axes), so
    the executable reads back the layout XLA chose."""
    if sharding is not None and any(p is UNCONSTRAINED for p in sharding.spec.partitions):
        return None
    return placed_on(mesh, sharding)


def named_as_asked(asked, chosen: NamedSharding, ndim: int, typed=None) -> NamedSharding:
    """The sharding XLA `chosen` for a result: where the one `asked` left dimensions open
    (asked_on gave None), as JAX's pxla names it: the result's type (`typed`, its split; None:
    unsplit), one spec entry per dimension (P('x', None), not P('x',)), where XLA laid it out
    as typed, else XLA's layout as it reads (_gspmd_to_named_sharding: P('x',))."""
    if asked is None or not any(p is UNCONSTRAINED for p in asked.spec.partitions):
        return chosen
    parts = chosen.spec.partitions + (None,) * (ndim - len(chosen.spec))
    if typed is not None and getattr(typed, "spec", None) is not None:
        typed_parts = typed.spec.partitions + (None,) * (ndim - len(typed.spec))
    else:
        typed_parts = (None,) * ndim
    if tuple(map(_axes_of, parts)) != tuple(map(_axes_of, typed_parts)):
        return chosen
    return NamedSharding(chosen.mesh, PartitionSpec(*parts), memory_kind=chosen.memory_kind)


def _axes_of(entry) -> tuple:
    return () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)


def concrete_mesh(abstract: AbstractMesh, mesh: Mesh | None) -> Mesh:
    """`abstract` over the devices of `mesh` (set_mesh's, or the one a program is partitioned
    over), in their order: `mesh` itself where it has `abstract`'s axes. JAX's device
    assignment of a jit whose shardings are all over an AbstractMesh (pxla's
    _get_and_check_device_assignment, then _abstract_to_concrete_mesh), with its errors.

    >>> import jxkernel as jax
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> concrete_mesh(mesh.abstract_mesh, mesh) is mesh
    True
    """
    if mesh is None or mesh.empty:
        raise AbstractMeshOnlyError(f"Passing lowering_platforms via jax.export or "
                         f"jit(f).trace(*args).lower(lowering_platforms=...) is required when "
                         f"only AbstractMesh exists in a jitted computation. Got context mesh: "
                         f"{_EMPTY_MESH}", abstract)      # (JAX's: set_mesh's, none here)
    if mesh.size != abstract.size:
        raise ValueError(f"AbstractMesh size: {abstract.size} does not match the device "
                         f"assignment size: {mesh.size}")
    if (mesh.axis_sizes, mesh.axis_names, mesh.axis_types) == abstract._key()[:3]:
        return mesh
    return Mesh(mesh.devices.reshape(abstract.axis_sizes), abstract.axis_names,
                abstract.axis_types)


def mesh_of_devices(abstract: AbstractMesh, devices) -> Mesh:
    """`abstract`'s axes laid over `devices` in their order (JAX's pxla
    _abstract_to_concrete_mesh: a program lowered over an AbstractMesh, compiled for
    `.compile(device_assignment=devices)`).

    >>> import jxkernel as jax
    >>> mesh_of_devices(AbstractMesh((2, 2), ('x', 'y')), jax.devices()[:4]).axis_sizes
    (2, 2)
    """
    return Mesh(np.array(list(devices), dtype=object).reshape(abstract.axis_sizes),
                abstract.axis_names, abstract.axis_types)


def _mixed_radix(digits, bases) -> int:
    """The position of `digits` (most significant first) counted in `bases`."""
    value = 0
    for d, b in zip(digits, bases):
        value = value * b + d
    return value


def check_unique_axes(spec: PartitionSpec, what: str) -> None:
    """JAX's DuplicateSpecError where `spec` splits two dimensions over one mesh axis
    (`what`: the argument it was given as, "in_shardings", or "NamedSharding spec")."""
    counts = collections.Counter(a for axes in spec._axes(0) for a in axes)
    twice = sorted(f"`{a}`" for a, n in counts.items() if n > 1)
    if twice:
        raise DuplicateSpecError(f"A single {what} specification can map every mesh axis to at "
                                 f"most one positional dimension, but {spec!r} has duplicate "
                                 f"entries for {', '.join(twice)}")


def _check_spec(spec: PartitionSpec, mesh: Mesh) -> None:
    """JAX's checks of a NamedSharding's spec against its mesh, in JAX's order: an axis split
    over twice, an axis the mesh lacks, P.UNCONSTRAINED with no Auto axis, then the unreduced
    and reduced sets (mesh axes, and Explicit ones)."""
    check_unique_axes(spec, "NamedSharding spec")
    for axes in spec._axes(0):
        for a in axes:
            if a not in mesh.axis_names:
                raise ValueError(f"Resource axis: {a} of {spec!r} is not found in mesh: "
                                 f"{mesh.axis_names}.")
    if UNCONSTRAINED in spec._parts and AxisType.Auto not in mesh.axis_types:
        # an Explicit axis is part of the value's type, so nothing may be left open
        raise ValueError(f"{spec!r} cannot contain `P.UNCONSTRAINED` when no mesh axis_types "
                         f"are `Auto`. Got mesh axis_types: {mesh.axis_types}")
    types = dict(zip(mesh.axis_names, mesh.axis_types))
    for word, axes in (("Unreduced", spec.unreduced), ("Reduced", spec.reduced)):
        for a in axes:
            if a not in types:
                raise ValueError(f"{word} axes {a} is not found in mesh.axis_names="
                                 f"{mesh.axis_names}. Got pspec={spec!r}")
            if types[a] != AxisType.Explicit:
                # (a summand per device is a fact of the value's type: Explicit axes only)
                raise ValueError(f"{word} axes can only refer to mesh axes that is of type "
                                 f"`Explicit`. Got {word.lower()} axes: {axes} and mesh: {mesh}")


_INCOMPATIBLE = "__init__(): incompatible function arguments. "

# the memory kinds a NamedSharding over an AbstractMesh (no device to ask) may name: JAX's list
_ABSTRACT_MEMORY_KINDS = ("device", "pinned_host", "unpinned_host")


def tiling(mesh: Mesh, axes: tuple) -> tuple | None:
    """How an array whose dimensions are split over `axes` (per dimension) lies on `mesh`, as
    XLA's tiled HloSharding says it: (tile count per dimension, then the replica count when
    blocks are repeated; mesh positions in tile order; whether the last count is replicas).
    None when every device holds all of it.

    >>> import jxkernel as jax
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> tiling(mesh, (('y',), ()))
    ((2, 1, 4), (0, 2, 4, 6, 1, 3, 5, 7), True)
    """
    sizes = mesh.shape
    used = [a for dim_axes in axes for a in dim_axes]
    unused = [a for a in mesh.axis_names if a not in used]
    tiles = [math.prod(sizes[a] for a in dim_axes) for dim_axes in axes]
    if math.prod(tiles) == 1:
        return None
    order = [mesh.axis_names.index(a) for a in used + unused]
    positions = np.arange(mesh.size).reshape(mesh.axis_sizes).transpose(order).reshape(-1)
    replicas = math.prod(sizes[a] for a in unused)
    return tuple(tiles) + ((replicas,) if replicas > 1 else ()), tuple(positions.tolist()), \
        replicas > 1


def checked_memory_kind(device, kind: str | None) -> str:
    """`kind` if `device` can address a memory of that kind (None: its default memory's).
    An object standing for a device, with no memories to ask (JAX's tests draw shardings
    over such: `platform` and `id` only), keeps `kind` as given, as JAX's NamedSharding."""
    if not hasattr(device, "addressable_memories"):
        return kind
    kinds = [m.kind for m in device.addressable_memories()]
    if kind is None:
        return device.default_memory().kind
    if kind not in kinds:
        raise ValueError(f"Could not find memory addressable by device {device.platform}. Device "
                         f"{device.platform} can address the following memory kinds: "
                         f"{', '.join(kinds)}. Got memory kind: {kind}")
    return kind


def local_devices(devices) -> list:
    """The devices of `devices` (in order) that belong to this process."""
    return [d for d in devices if d.process_index == d.client.process_index()]
