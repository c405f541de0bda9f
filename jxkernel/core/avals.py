"""Abstract values: what tracing knows about an array (shape, dtype, weak type).

    >>> ShapedArray((3, 4), np.float32).str_short(True)
    'f32[3,4]'
"""
from __future__ import annotations

import enum
import functools
import math
import weakref

import numpy as np

from . import config as _config, dtypes
from .errors import aval_text, jax_type_text, masked_array_error
from .mesh import AbstractMesh, AxisType, NamedSharding, PartitionSpec, _mesh_state, get_mesh
from .mesh import check_type_divides

NO_AXES = frozenset()
NO_UR = (NO_AXES, NO_AXES)      # a value unreduced and reduced over no manual axes
_KEEP = object()


def make_ur(unreduced=NO_AXES, reduced=NO_AXES) -> tuple:
    """(unreduced, reduced) as a ShapedArray's `ur` keeps them: NO_UR itself for none."""
    return (frozenset(unreduced), frozenset(reduced)) if unreduced or reduced else NO_UR
# Set once an aval carries a sharding (an Explicit mesh): until then primitives skip the
# sharding rules (core/sharding_types.py) altogether
sharding_types_seen = False
# set once a type names a mesh of axes without splitting over it (an Array laid out over a
# mesh of Auto axes, a constraint to one): from then on operations' results name their
# operands' mesh (sharding_types.abstract_eval), as JAX's rules give them
meshes_seen = False
# set once an aval names a memory space other than Device (an Array in host memory, a
# device_put to one): from then on operations type their results' memory spaces
# (sharding_types.memory_space_types), which until then are all Device
memory_spaces_seen = False
# Mesh axis names in the order of the mesh a shard_map body was last traced over, so types
# print their axes as JAX does ({V:(x,y)}, mesh order)
axis_order: dict = {}


def vma_text(vma, unreduced=(), reduced=()) -> str:
    """'{V:x}' or '{V:(x,y)}': the varying manual axes as JAX prints them after a type, then
    the axes it is unreduced ('U:y') and reduced ('R:z') over, in one pair of braces; '' for
    none."""
    def group(prefix, axes):
        names = sorted(axes, key=lambda a: (axis_order.get(a, len(axis_order)), str(a)))
        text = ",".join(map(str, names))
        return f"{prefix}:" + (text if len(names) == 1 else f"({text})")
    marks = [group(k, axes) for k, axes in (("V", vma), ("U", unreduced), ("R", reduced)) if axes]
    return "{" + ", ".join(marks) + "}" if marks else ""


class MemorySpace(enum.Enum):
    """Where a value lives (JAX's `jax.memory.Space`, its values): an aval's `memory_space`
    (an Array in a device's 'pinned_host' memory is typed Host: `f32<host>[4]`), a
    compute_on block's `out_memory_spaces`, empty2's `memory_space`.

        >>> MemorySpace.Device, MemorySpace.Host.value
        (MemorySpace.Device, 2)
    """
    Device = 1
    Host = 2
    Any = 3

    def __repr__(self):             # JAX's, as a tuple of them prints (compute_on's params)
        return f"MemorySpace.{self.name}"


def mem_kind_to_space(kind: str | None) -> MemorySpace:
    """The aval memory space of a memory kind, as JAX's: only 'pinned_host' is Host
    ('unpinned_host' arrays are typed as device ones).

        >>> mem_kind_to_space("pinned_host"), mem_kind_to_space("unpinned_host")
        (MemorySpace.Host, MemorySpace.Device)
    """
    return MemorySpace.Host if kind == "pinned_host" else MemorySpace.Device


def mem_space_to_kind(space: MemorySpace) -> str:
    """The memory kind a memory space names (JAX's core.mem_space_to_kind).

        >>> mem_space_to_kind(MemorySpace.Host)
        'pinned_host'
    """
    if space is MemorySpace.Any:
        raise ValueError("MemorySpace.Any names no memory kind: place the value in "
                         "MemorySpace.Device or MemorySpace.Host")
    return "pinned_host" if space is MemorySpace.Host else "device"


_interned_mats: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class ManualAxisType:
    """How a value inside a shard_map body relates to the manual mesh axes: those it varies
    over, those it is unreduced over (each device holds a summand) and those it is reduced
    over (the same on each device, its cotangent unreduced there).

    >>> ShapedArray((2,), np.float32, vma=frozenset({'x'})).mat.varying
    frozenset({'x'})
    """
    __slots__ = ("varying", "unreduced", "reduced", "__weakref__")

    def __new__(cls, varying=NO_AXES, unreduced=NO_AXES, reduced=NO_AXES):
        # interned, as JAX's: one object per (varying, unreduced, reduced), so a pickled or
        # copied one is the same object
        key = (frozenset(varying), frozenset(unreduced), frozenset(reduced))
        found = _interned_mats.get(key)
        if found is None:
            if key[0] & key[1]:
                raise ValueError("varying and unreduced cannot have common mesh axes. Got"
                                 f" varying={varying} and unreduced={unreduced}")
            if key[0] & key[2]:
                raise ValueError("varying and reduced cannot have common mesh axes. Got"
                                 f" varying={varying} and reduced={reduced}")
            found = object.__new__(cls)
            for name, value in zip(cls.__slots__, key):
                object.__setattr__(found, name, value)
            _interned_mats[key] = found
        return found

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")     # (JAX's words)

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    def __reduce__(self):
        return ManualAxisType, (self.varying, self.unreduced, self.reduced)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __eq__(self, other):
        return type(other) is ManualAxisType and self.varying == other.varying and \
            self.unreduced == other.unreduced and self.reduced == other.reduced

    def __hash__(self):
        return hash((self.varying, self.unreduced, self.reduced))

    def __repr__(self):
        return (f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, "
                f"reduced={self.reduced})")

    def update(self, **changes) -> ManualAxisType:
        """A copy with some of varying, unreduced, reduced replaced (JAX's)."""
        return ManualAxisType(changes.get("varying", self.varying),
                              changes.get("unreduced", self.unreduced),
                              changes.get("reduced", self.reduced))

    def invarying(self, mesh) -> frozenset:
        """The manual axes of `mesh` (a body's `get_abstract_mesh()`) the value is the same
        along: none of varying, unreduced or reduced there."""
        return frozenset(mesh.manual_axes) - self.vur

    empty = property(lambda self: not (self.varying or self.unreduced or self.reduced))

    def __bool__(self):
        return not self.empty

    @property
    def vur(self) -> frozenset:
        """The axes the value is varying, unreduced or reduced over."""
        return self.varying | self.unreduced | self.reduced


class AbstractValue:
    """The base class of every type a traced value can have (JAX's core.AbstractValue):
    `ShapedArray`, and the types libraries define (`jax.experimental.hijax`'s, refs')."""
    __slots__ = ()
    is_high = False            # a high type lowers to other types (core/hijax.py)
    has_qdd = False            # a mutable one carries quasi-dynamic data

    def lo_ty(self) -> list:
        """The low types this type lowers to: itself, for a low type (as JAX's)."""
        return [self]

    def lo_ty_qdd(self, qdd):
        raise NotImplementedError("avals with qdd must override")

    def normalize(self):
        strip = getattr(self, "strip_weak_type", None)
        return strip() if strip is not None else self


# type(x) -> the function giving x's type, for values that are not arrays: the types libraries
# register (`hijax.register_hitype`), read by `jax.typeof`
typeof_rules: dict = {}
# the classes of high values (hijax.register_hitype): their type is their rule's, never read
# from an `aval` attribute (Flax's HijaxVariable answers every attribute with a primitive)
hi_value_types: set = set()
# type(x) -> the function giving x's type, for an array class of a library's own (JAX's
# core.pytype_aval_mappings: an array of its extended dtype, lax_test's FooArray); read by
# get_aval after every type it knows, so the usual values pay nothing for it
pytype_aval_mappings: dict = {}


class ShapedArray(AbstractValue):
    """An array's type. jaxlib reads `shape`, `dtype` and `weak_type` from it directly."""
    __slots__ = ("shape", "dtype", "weak_type", "vma", "split", "_mesh", "ur", "memory_space",
                 "_hash")

    def __init__(self, shape, dtype, weak_type=False, vma=NO_AXES, sharding=None, ur=NO_UR,
                 *, manual_axis_type=None, memory_space=MemorySpace.Device):
        if manual_axis_type is not None:     # JAX's keyword: a ManualAxisType's sets
            vma, ur = manual_axis_type.varying, make_ur(manual_axis_type.unreduced,
                                                        manual_axis_type.reduced)
        self.shape = tuple(shape)
        # a typed key's dtype (an extended dtype) is kept as it is: NumPy has no such dtype
        self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
        self.weak_type = bool(weak_type)
        # inside a shard_map body (check_vma=True): the manual mesh axes the value varies over
        self.vma = vma
        # on a mesh with Explicit axes: the NamedSharding the type says, which the typing
        # rules act on (sharding_types.py); None where no axis is Explicit (`sharding` then
        # names the mesh with no axis in the spec, as JAX's). One over a mesh of no axes
        # (jax.typeof's of an unsplit value outside any mesh, which libraries hand back: Flax
        # NNX keeps its Variables' leaf types) splits nothing and could never be laid out over
        # a mesh: it is none
        self.split = None if sharding is not None and type(sharding.mesh) is AbstractMesh \
            and not sharding.mesh.axis_names else sharding
        if sharding is not None and type(sharding.mesh) is AbstractMesh and \
                any(sharding.spec.partitions):
            # JAX's core._check_divisibility, of a type made over an AbstractMesh (the typing
            # rules' own, over the device Mesh, raise their own errors first)
            check_type_divides(self.shape, sharding)
        # for an unsplit type: the AbstractMesh its `sharding` names (the mesh of the Array or
        # constraint it came from); None: the mesh in context when `sharding` is read
        self._mesh = None
        # inside a shard_map body (check_vma=True): (unreduced, reduced), the manual axes the
        # value is unreduced and reduced over (JAX's mat.unreduced, mat.reduced)
        self.ur = ur = ur if ur is NO_UR or ur[0] or ur[1] else NO_UR
        # where the value lives (JAX's aval.memory_space): Device, unless a program or user
        # names another (`ShapedArray(..., memory_space=jax.memory.Space.Host)` prints
        # 'f32<host>[8]'); an Array in 'pinned_host' memory is typed Host (xla/memory_kinds.py)
        self.memory_space = memory_space
        self._hash = hash((self.shape, self.dtype, self.weak_type, vma) if vma else
                          (self.shape, self.dtype, self.weak_type)) \
            if _splitting(sharding) is None and ur is NO_UR else \
            hash((self.shape, self.dtype, self.weak_type, vma, sharding, ur))
        if memory_space is not MemorySpace.Device:
            self._hash = hash((self._hash, memory_space.value))
            global memory_spaces_seen
            memory_spaces_seen = True

    @property
    def sharding(self):
        """JAX's `aval.sharding`: the typed split (`split`) where an axis is Explicit, over its
        mesh's AbstractMesh (jxkernel's types may hold the device Mesh: jit's caches and
        placement read it), else a NamedSharding over the type's AbstractMesh (the one it came
        from, else the mesh in context) naming no axis (JAX's Auto axes are no part of a type).

        >>> ShapedArray((2,), np.float32).sharding
        NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))
        """
        split = self.split
        if split is not None:
            spec = split.spec
            if len(spec.partitions) < len(self.shape):      # a partition per axis, as JAX's
                spec = PartitionSpec(*spec.partitions, *[None] * (len(self.shape) -
                                                                  len(spec.partitions)),
                                     unreduced=spec.unreduced, reduced=spec.reduced)
            elif type(split.mesh) is AbstractMesh:
                return split
            return NamedSharding(getattr(split.mesh, "abstract_mesh", split.mesh), spec)
        return NamedSharding(self._mesh if self._mesh is not None else context_abstract_mesh(),
                             PartitionSpec(*[None] * len(self.shape)))

    def over_mesh(self, mesh) -> ShapedArray:
        """This unsplit type naming `mesh` (made abstract) in its `sharding`; a split one as
        it is. Equality and hashing do not see it."""
        if self.split is not None or mesh is None:
            return self
        mesh = mesh if type(mesh) is AbstractMesh else mesh.abstract_mesh
        if self._mesh is mesh:
            return self
        if mesh.axis_names:
            global meshes_seen
            meshes_seen = True
        out = ShapedArray(self.shape, self.dtype, self.weak_type, self.vma, None, self.ur,
                          memory_space=self.memory_space)
        out._mesh = mesh
        return out

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    mat = property(lambda self: ManualAxisType(self.vma, *self.ur))  # JAX: typeof(x).mat
    manual_axis_type = mat                                        # (and its long name)

    def update(self, shape=None, dtype=None, weak_type=None, vma=None,
               sharding=_KEEP, ur=None, memory_space=None) -> ShapedArray:
        """A copy with some fields replaced; a new rank drops the sharding unless given."""
        if sharding is _KEEP:
            sharding = self.split if shape is None or len(shape) == len(self.shape) else None
        elif type(sharding) is NamedSharding and _names_untyped_axes(sharding):
            # a spec naming Auto or Manual axes of a mesh with Explicit ones: the type keeps
            # the Explicit ones only (JAX's modify_spec_for_auto_manual)
            sharding = typed_sharding(sharding, len(self.shape if shape is None else shape))
        out = ShapedArray(self.shape if shape is None else shape,
                          self.dtype if dtype is None else dtype,
                          self.weak_type if weak_type is None else weak_type,
                          self.vma if vma is None else frozenset(vma), sharding,
                          self.ur if ur is None else make_ur(*ur),
                          memory_space=self.memory_space if memory_space is None
                          else memory_space)
        if self._mesh is not None and out.split is None:     # (the mesh its sharding names)
            out._mesh = self._mesh
        return out

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def to_tangent_aval(self) -> ShapedArray:
        """The type of this type's tangents: the same, with float0 for ints and bools.

        >>> ShapedArray((2,), np.int32).to_tangent_aval().dtype == dtypes.float0
        True
        """
        # (an extended dtype's rules say: float0 for keys, Flax's fp8_meta32 itself)
        dtype = dtypes.primal_dtype_to_tangent_dtype(self.dtype)
        return self if dtype is self.dtype or dtype == self.dtype else self.update(dtype=dtype)

    def to_ct_aval(self) -> ShapedArray:
        """The type of this type's cotangents: the tangent's, with the unreduced and reduced
        axes swapped (JAX's to_ct_spec: the cotangent of a value reduced over an axis is the
        sum of each device's part along it, unreduced; and the other way round)."""
        return self.to_tangent_aval().sets_swapped()

    def sets_swapped(self) -> ShapedArray:
        """This type with its sharding's unreduced and reduced axes swapped (the dtype kept):
        the type a cotangent of this type's values has, but for the dtype."""
        spec = self.split.spec if self.split is not None else None
        if spec is None or not (spec.unreduced or spec.reduced):
            return self if self.ur is NO_UR else self.update(ur=self.ur[::-1])
        return self.update(sharding=NamedSharding(
            self.split.mesh, spec.update(unreduced=spec.reduced, reduced=spec.unreduced),
            memory_kind=self.split.memory_kind))

    # a value of a low type lowers to itself (what a high type made of arrays calls on them)
    def lower_val(self, val) -> list:
        return [val]

    def raise_val(self, val):
        return val
    at_least_vspace = to_tangent_aval       # JAX's older name

    def str_short(self, short_dtypes=False, mesh_axis_types=False) -> str:
        """JAX's short text of a type: no weak-type mark; `short_dtypes` gives the compact
        dtype names ('f32[2]', as jaxprs and jxkernel's views print it); `mesh_axis_types`
        appends the mesh's axes by type.

        >>> a = ShapedArray((2,), np.dtype("float32"))
        >>> a.str_short(), a.str_short(short_dtypes=True), a.str_short(mesh_axis_types=True)
        ('float32[2]', 'f32[2]', 'float32[2]({})')
        """
        if short_dtypes:
            # (str(dtype) only where the table has none: NumPy builds it in Python each time,
            # a tenth of printing a jaxpr)
            name = "float0" if self.dtype == dtypes.float0 else \
                dtypes.SHORT_NAMES.get(self.dtype) or str(self.dtype)
            head = f"{name}{self._space()}[{self._dims()}]"
        else:
            head = aval_text(self, weak=False)
        text = head + self._marks()
        if mesh_axis_types:
            mesh = self.split.mesh if self.split is not None else None
            kinds: dict = {}
            for name, kind in zip(getattr(mesh, "axis_names", ()), getattr(mesh, "axis_types", ())):
                kinds.setdefault(kind, []).append(name)
            text += f"({ {k: tuple(v) for k, v in kinds.items()} })"
        return text

    def _dims(self) -> str:
        """'8,4', or with a sharding in the type '8@x,4'."""
        if self.split is None:
            return ','.join(map(str, self.shape))
        return shape_text(self)

    def __eq__(self, other):
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self.vma == other.vma and self.ur == other.ur
                and _splitting(self.split) == _splitting(other.split)
                and self.memory_space is other.memory_space)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""      # JAX spells the dtype out here
        return f"ShapedArray({self.dtype.name}{self._space()}[{self._dims()}]{self._marks()}" \
            f"{weak})"

    def _space(self) -> str:
        """'<host>' after the dtype for a value outside Device memory, as JAX prints it."""
        space = self.memory_space
        return "" if space is MemorySpace.Device else f"<{space.name.lower()}>"

    def __str__(self):
        """JAX's text for an aval: long dtype names, `~` marking a weak type. Jaxprs, logs
        and views print the compact `str_short(True)` ('f32[2,3]') instead.

        >>> str(ShapedArray((2, 3), np.dtype("float32"), True)), str(ShapedArray((), np.bool_))
        ('~float32[2,3]', 'bool[]')
        """
        return aval_text(self) + self._marks()

    def _marks(self) -> str:
        """'{V:x, U:y}': the varying manual axes, and those the type's sharding says the
        value is unreduced or reduced over (JAX prints them together)."""
        spec = self.split.spec if self.split is not None else None
        if not self.vma and self.ur is NO_UR and \
                (spec is None or not (spec.unreduced or spec.reduced)):
            return ""
        unreduced, reduced = self.ur
        return vma_text(self.vma, unreduced | (spec.unreduced if spec is not None else NO_AXES),
                        reduced | (spec.reduced if spec is not None else NO_AXES))


class AbstractToken(AbstractValue):
    """The type of an XLA token (lax.create_token, lax.after_all): no data, only an order
    among side effects. Printed 'Tok', as JAX's core.AbstractToken; `abstract_token` is its
    one instance."""
    __slots__ = ()
    weak_type, vma, sharding, split = False, NO_AXES, None, None
    # what carries it in and out of a compiled program: an empty bool array (JAX's
    # get_token_aval), so the runtime's buffers, aliasing and layouts treat it as one
    shape, ndim, size, dtype = (0,), 1, 0, np.dtype(np.bool_)

    def str_short(self, short_dtypes=False, mesh_axis_types=False) -> str:
        return "Tok"

    def to_tangent_aval(self):
        return self

    to_ct_aval = to_tangent_aval

    def strip_weak_type(self):
        return self

    def __repr__(self):
        return "AbstractToken()"


abstract_token = AbstractToken()


class AbstractFuture(AbstractValue):
    """The type of a started asynchronous collective (JAX's core.AbstractFuture): what its
    `*_done` equation gives, `inner_aval`, once the work staged in between has run. Printed
    `AbstractFuture{f32[4]}`; lowered to `!stablehlo.future<...>` (lax/parallel/futures.py)."""
    __slots__ = ("inner_aval",)
    weak_type, sharding, split = False, None, None

    def __init__(self, inner_aval):
        self.inner_aval = inner_aval

    @property
    def vma(self):
        return self.inner_aval.vma

    def __eq__(self, other):
        return isinstance(other, AbstractFuture) and self.inner_aval == other.inner_aval

    def __hash__(self):
        return hash(self.inner_aval)

    def str_short(self, short_dtypes=False, mesh_axis_types=False) -> str:
        return f"AbstractFuture{{{self.inner_aval.str_short(True)}}}"

    def strip_weak_type(self):
        return self

    def __repr__(self):
        return f"AbstractFuture({self.inner_aval!r})"


class Token:
    """A token value (JAX's core.Token): `_buf`, the empty bool array that carries it in and
    out of compiled programs, where it is a `!stablehlo.token`."""
    __slots__ = ("_buf",)
    aval = abstract_token

    def __init__(self, buf):
        self._buf = buf

    def block_until_ready(self):
        """Wait for the effects ordered before it (None, as JAX's)."""
        self._buf.block_until_ready()


# where JAX keeps it (jax._src.core.Token), which jxkernel._src.core re-exports: the name its
# repr gives, "<jxkernel._src.core.Token object at 0x...>"
Token.__module__ = "jxkernel._src.core"


def get_aval(x) -> ShapedArray:
    """The aval of any array-like value: a tracer, an Array, NumPy data or a Python scalar."""
    if type(x) in hi_value_types:
        return typeof_rules[type(x)](x)
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    if dtypes.is_python_scalar(x):
        return ShapedArray((), dtypes.python_scalar_dtype(x), type(x) is not bool)
    if isinstance(x, (np.ndarray, np.generic)):
        if isinstance(x, np.ma.MaskedArray):        # its mask would be dropped silently
            raise masked_array_error()
        if not dtypes.is_numeric_kind(x.dtype):     # strings, objects: JAX's dtypes.dtype's words
            raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.")
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))   # (float0 stays)
    if getattr(aval, "is_high", False) or aval is abstract_token:  # (core/hijax.py), tokens
        return aval
    rule = pytype_aval_mappings.get(type(x))
    if rule is not None:
        return rule(x)
    base = next((t for t in type(x).__mro__[1:] if t in (bool, int, float, complex)), None)
    if base is not None:          # an IntEnum member: its base type's, as JAX's typeof finds
        return get_aval(base(x))  # it along the MRO
    # JAX's words: its typeof quotes the type, its rule for a str does not
    kind = type(x) if isinstance(x, str) else f"'{jax_type_text(x)}'"
    raise TypeError(f"Argument '{x}' of type {kind} is not a valid JAX type")


def valid_jaxtype(x) -> bool:
    """Whether `x` has an aval (`get_aval`): an array or a scalar a transformed function can
    take or give, as JAX's core.valid_jaxtype.

    >>> valid_jaxtype(1.0), valid_jaxtype("a")
    (True, False)
    """
    try:
        get_aval(x)
    except TypeError:
        return False
    return True


# jax.experimental.layout's Format (xla/layout.py puts it here as it loads: core imports no
# xla), which a ShapeDtypeStruct takes in place of a sharding
FORMAT_TYPES: tuple = ()


def is_sharding(x) -> bool:
    """A jax.sharding.Sharding: a NamedSharding (over a Mesh or an AbstractMesh, which has
    no devices) or anything that tells its device set."""
    return isinstance(x, NamedSharding) or (x is not None and hasattr(x, "device_set"))


def shaped_abstractify(x) -> ShapedArray:
    """The aval of `x` for tracing without data (eval_shape, jit's trace and lower): what
    get_aval takes, ShapeDtypeStructs and avals themselves, and, as JAX, any object with
    `shape` and `dtype` attributes (a duck-typed array; `weak_type` read if it has one).

    >>> shaped_abstractify(ShapedArray((2,), np.float64)).str_short(True)
    'f32[2]'
    """
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray) and not isinstance(x, ShapedArray) or \
            aval is abstract_token:      # (a token's carrier: no shape of its own to read)
        return aval
    if dtypes.is_python_scalar(x) or isinstance(x, (np.ndarray, np.generic)) or \
            type(x) in pytype_aval_mappings:
        return get_aval(x)
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        dtype = x.dtype if dtypes.extended_scalar_type(x.dtype) else \
            dtypes.canonicalize_dtype(x.dtype)
        if isinstance(x, ShapedArray):
            if x.split is not None:        # jax.typeof's (over an AbstractMesh, maybe Auto)
                typed = typed_sharding(x.split, len(x.shape))
                x = x if typed == x.split else x.update(sharding=typed)
            return x if x.dtype == dtype else x.update(dtype=dtype)
        sharding = getattr(x, "sharding", None)
        if is_sharding(sharding):
            return ShapeDtypeStruct(np.shape(x), dtype, getattr(x, "weak_type", False),
                                    sharding).aval
        return ShapedArray(np.shape(x), dtype, getattr(x, "weak_type", False))
    raise TypeError(f"Cannot interpret value of type {type(x)} as an abstract array; it "
                    f"does not have a dtype attribute")


class ShapeDtypeStruct:
    """A shape and dtype with no data: what eval_shape returns and AOT lowering accepts.

    >>> ShapeDtypeStruct((2, 3), np.float32)
    ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    """
    __slots__ = ("shape", "dtype", "weak_type", "_sharding", "manual_axis_type", "_dll")

    def __init__(self, shape, dtype, weak_type=False, sharding=None, *,
                 manual_axis_type=None):
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        self._dll = None                  # a Format's layout (JAX's device-local layout)
        if isinstance(sharding, FORMAT_TYPES):
            if FORMAT_TYPES[0].is_auto(sharding.layout):          # (JAX's words)
                raise TypeError(f"`Layout.AUTO` cannot be used in place of a device-local "
                                f"layout in a `ShapeDtypeStruct`. Got {sharding}")
            self._dll, sharding = sharding.layout, sharding.sharding
        if sharding is not None and not is_sharding(sharding) and \
                not isinstance(sharding, PartitionSpec):
            raise ValueError(f"sharding should be an instance of `jax.sharding.Sharding`, "
                             f"`jax.sharding.PartitionSpec` or `jax.experimental.layout.Format`."
                             f" Got {sharding} of type {type(sharding)}.")
        self.shape = tuple(shape)
        spec = sharding if isinstance(sharding, PartitionSpec) else \
            getattr(sharding, "spec", None)
        if spec is not None and len(spec) > len(self.shape):    # (JAX's check and words)
            raise ValueError(f"{'PartitionSpec' if spec is sharding else 'Sharding'} "
                             f"{sharding!r} is only valid for values of rank at least "
                             f"{len(spec)}, but was applied to a value of rank {len(self.shape)}."
                             + (" For scalars the PartitionSpec should be P()"
                                if not self.shape else ""))
        # extended dtypes (typed keys: key<fry>) are kept as they are; NumPy has no such dtype
        self.dtype = dtype if dtypes.extended_scalar_type(dtype) else np.dtype(dtype)
        self.weak_type = weak_type
        self._sharding = sharding
        if manual_axis_type is not None and not isinstance(manual_axis_type, ManualAxisType):
            raise TypeError(f"`manual_axis_type` argument passed to ShapeDtypeStruct should be "
                            f"of type `jax.sharding.ManualAxisType`. Got type "
                            f"{type(manual_axis_type)}")
        # inside a shard_map body: how the value relates to the manual axes (eval_shape's)
        self.manual_axis_type = manual_axis_type

    @property
    def sharding(self):
        """The sharding given; a bare PartitionSpec given is read over set_mesh's mesh each
        time it is asked (JAX's TypeError where none is set)."""
        if not isinstance(self._sharding, PartitionSpec):
            return self._sharding
        mesh = _config.config._context_mesh
        if mesh is None or mesh.empty:
            raise TypeError("When specifying PartitionSpec to `ShapeDtypeStruct`, the context "
                            "mesh cannot be empty. Please use `jax.set_mesh` to set the mesh "
                            "context.")
        return NamedSharding(mesh, self._sharding)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    @property
    def format(self):
        """JAX's Format of the layout and sharding given (each None where none was)."""
        return FORMAT_TYPES[0](self._dll, self.sharding)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    @classmethod
    def like(cls, x) -> ShapeDtypeStruct:
        """The shape, dtype, weak type and sharding of `x` (an array, NumPy data, a scalar,
        an aval or anything with `shape` and `dtype`); the sharding only where `x` is
        committed to it, as JAX's.

        >>> ShapeDtypeStruct.like(1.0)
        ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)
        """
        aval = shaped_abstractify(x)
        sharding = x.split if isinstance(x, ShapedArray) else \
            getattr(x, "sharding", None) if getattr(x, "committed", True) else None
        if not is_sharding(sharding):
            sharding = aval.split           # a sharding in the type (Explicit mesh axes)
        return cls(aval.shape, aval.dtype, aval.weak_type, sharding)

    def update(self, **changes) -> ShapeDtypeStruct:
        """A copy with some of shape, dtype, weak_type, sharding replaced."""
        # (the sharding as read now: a bare P's over set_mesh's mesh, as JAX's update)
        if self._dll is not None and is_sharding(changes.get("sharding")):    # (JAX's words)
            raise ValueError(f"You are updating ShapeDtypeStruct with a "
                             f"{type(changes['sharding'])} when the original ShapeDtypeStruct "
                             f"had a concrete layout {self.format}. This might lead to bugs. If "
                             f"you want to do this, create a new ShapeDtypeStruct via the "
                             f"constructor.")
        fields = {"shape": self.shape, "dtype": self.dtype, "weak_type": self.weak_type,
                  "sharding": changes["sharding"] if "sharding" in changes else
                  self.sharding if self._dll is None else self.format,
                  "manual_axis_type": self.manual_axis_type}
        return ShapeDtypeStruct(**{**fields, **changes})

    @property
    def aval(self) -> ShapedArray:
        # its dtype canonicalized, as JAX's (a ShapeDtypeStruct is no Array): int64 traces as
        # int32 without x64, even under jax_explicit_x64_dtypes ALLOW
        dtype = self.dtype if dtypes.extended_scalar_type(self.dtype) else \
            dtypes.canonicalize_dtype(self.dtype)
        mat = self.manual_axis_type
        vma, ur = (NO_AXES, NO_UR) if mat is None else \
            (mat.varying, make_ur(mat.unreduced, mat.reduced))
        if self.sharding is None:
            return ShapedArray(self.shape, dtype, self.weak_type, vma, ur=ur)
        return ShapedArray(self.shape, dtype, self.weak_type, vma,
                           sharding=typed_sharding(self.sharding, len(self.shape)), ur=ur)

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self.sharding == other.sharding and self._dll == other._dll
                and self.manual_axis_type == other.manual_axis_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type, self.sharding, self._dll,
                     self.manual_axis_type))

    def __repr__(self):      # (JAX's order: the sharding, the format, then the weak type)
        weak = ", weak_type=True" if self.weak_type else ""
        sharding = f", sharding={self.sharding!r}" if self.sharding is not None else ""
        layout = f", format={self._dll!r}" if self._dll is not None else ""
        mat = f", manual_axis_type={self.manual_axis_type}" if self.manual_axis_type else ""
        return (f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}"
                f"{layout}{weak}{mat})")


# where the public name is (jax.ShapeDtypeStruct, JAX's __module__ "jax"): the class as JAX's
# messages print it, "<class 'jxkernel.ShapeDtypeStruct'>", not this module's path
ShapeDtypeStruct.__module__ = "jxkernel"


# ------------------------------------------------------------------ sharding in the type
# On a mesh with Explicit axes an aval's type says how it is split (core/sharding_types.py
# holds the rules that type each primitive's results).
def explicit_axes(mesh) -> frozenset:
    return frozenset(n for n, t in zip(mesh.axis_names, mesh.axis_types)
                     if t is AxisType.Explicit)


def replicated_on(mesh, ndim: int) -> NamedSharding:
    """A value's sharding when replicated over set_mesh's `mesh` as JAX's eager results
    are: P() over Auto axes, one None per dimension over Explicit ones."""
    return NamedSharding(mesh, PartitionSpec(*[None] * ndim) if explicit_axes(mesh) else
                         PartitionSpec())


def _names_untyped_axes(sharding) -> bool:
    """Whether `sharding`'s spec names an axis that is not Explicit on a mesh that has
    Explicit axes (a type over it names the Explicit ones only)."""
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
    if AxisType.Explicit not in types.values():
        return False
    spec = sharding.spec
    named = [a for axes in spec._axes(0) for a in axes] + [*spec.unreduced, *spec.reduced]
    return any(types.get(a) is not AxisType.Explicit for a in named)


def typed_sharding(sharding, ndim: int):
    """The sharding an array laid out as `sharding` has in its type: its Explicit axes only
    (less those of size 1 under jax.remove_size_one_mesh_axis_from_type); None when the mesh
    has no Explicit axis (or the sharding is not a NamedSharding)."""
    return _typed_sharding(sharding, ndim, _config.config.jax_remove_size_one_mesh_axis_from_type)


@functools.lru_cache(maxsize=1024)      # every Array over a mesh made asks: keep it cheap
def _typed_sharding(sharding, ndim: int, drop_size_one: bool):
    if type(sharding) is not NamedSharding:
        return None
    explicit = explicit_axes(sharding.mesh)
    if not explicit:
        return None
    if drop_size_one:       # (a mesh of Explicit axes of size 1 alone still types: unsplit)
        explicit = frozenset(a for a in explicit if sharding.mesh.shape[a] != 1)
    global sharding_types_seen
    sharding_types_seen = True
    parts = [tuple(a for a in axes if a in explicit) for axes in sharding.spec._axes(ndim)]
    return make(sharding.mesh, parts, sharding.spec.unreduced & explicit,
                sharding.spec.reduced & explicit)


def _splitting(sharding):
    """The sharding a type's equality and hash see: jax.typeof's sharding of an untyped value
    (over an AbstractMesh, naming no axis) is none, so that type equals the plain one."""
    if sharding is None or type(sharding.mesh) is not AbstractMesh or \
            any(sharding.spec._axes(0)) or sharding.spec.unreduced:
        return sharding
    return None


def public_type(aval, value=None):
    """`aval` as `jax.typeof` shows it: as in JAX, its sharding always a NamedSharding over an
    AbstractMesh, naming only Explicit axes (one entry per dimension): the typed sharding's
    mesh made abstract, else P(None, ...) over the mesh of the array `value` (its concrete
    sharding's; none for a concrete value on no mesh, even under set_mesh) or, for a tracer
    or no value, the mesh in context (use_abstract_mesh's, set_mesh's).

    >>> public_type(ShapedArray((3,), np.float32)).sharding
    NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))
    """
    if type(aval) is not ShapedArray:
        return aval
    typed = aval.split
    if typed is not None:
        mesh = typed.mesh if isinstance(typed.mesh, AbstractMesh) else typed.mesh.abstract_mesh
        parts = parts_of(aval)
        if _config.config.jax_remove_size_one_mesh_axis_from_type:    # (as JAX's, read now)
            parts = [tuple(a for a in p if mesh.shape[a] != 1) for p in parts]
        return aval.update(sharding=make(mesh, parts, typed.spec.unreduced, typed.spec.reduced))
    if aval._mesh is not None:      # (the mesh of the Array or constraint it came from)
        return aval
    own = getattr(value, "sharding", None) if getattr(value, "_trace", None) is None else None
    if isinstance(own, NamedSharding):
        mesh = own.mesh if isinstance(own.mesh, AbstractMesh) else own.mesh.abstract_mesh
    elif value is None or getattr(value, "_trace", None) is not None:
        mesh = context_abstract_mesh()
        if value is not None and explicit_axes(mesh):
            # an untyped tracer where the types name Explicit axes: its type came from a
            # value on no mesh (jit's NumPy or scalar argument, and the unary operations
            # on it keep that), which JAX types over the empty mesh
            mesh = AbstractMesh((), ())
    else:       # a value on no mesh (NumPy's, a Python scalar, one device's): none, as JAX's
        mesh = AbstractMesh((), ())
    # (a mesh of no axes too, which the constructor drops from a given sharding: jax.typeof
    # still shows it, as JAX's; type equality and hashing ignore it)
    return aval.over_mesh(mesh)


def typeof(x):
    """The abstract value (shape, dtype, weak type) of an array, tracer or Python scalar.

    >>> typeof(1.0)
    ShapedArray(float32[], weak_type=True)
    """
    rule = typeof_rules.get(type(x))        # a type a library registered (hijax, refs)
    return rule(x) if rule is not None else public_type(get_aval(x), x)


def context_abstract_mesh() -> AbstractMesh:
    """The AbstractMesh in context: use_abstract_mesh's, else that of the mesh set_mesh set
    (an empty one when none is)."""
    state = _mesh_state
    if state.abstract is not None:
        return state.abstract
    return state.mesh.abstract_mesh if state.mesh is not None else AbstractMesh((), ())


def make(mesh, parts, unreduced=frozenset(), reduced=frozenset()):
    """A NamedSharding over `mesh` from per-dimension axis tuples (() for unsplit), and the
    mesh axes the value is unreduced (each device holds a summand) and reduced over."""
    entries = [None if not p else p[0] if len(p) == 1 else tuple(p) for p in parts]
    return NamedSharding(mesh, PartitionSpec(*entries, unreduced=unreduced, reduced=reduced))


def dim_removed(aval, axis: int):
    """`aval` without dimension `axis`, its type's sharding too (JAX's mapped_aval): what
    vmap's function sees of a value mapped along `axis`.

    >>> dim_removed(ShapedArray((8, 2), np.float32), 0).shape
    (2,)
    """
    shape = aval.shape[:axis] + aval.shape[axis + 1:]
    if aval.split is None:
        return aval.update(shape=shape)
    parts = parts_of(aval)
    del parts[axis]
    return aval.update(shape=shape, sharding=make(aval.split.mesh, parts,
                                                  *summed_axes(aval)))


def dim_inserted(aval, axis: int, size: int, mesh_axis=None):
    """`aval` with a new dimension of `size` at `axis` (JAX's unmapped_aval): the type vmap
    gives a value batched along `axis`, split over `mesh_axis` (vmap's explicit mesh axes)
    where `aval` is typed over a mesh (an untyped one: over set_mesh's)."""
    shape = aval.shape[:axis] + (size,) + aval.shape[axis:]
    mesh = type_mesh(aval) if mesh_axis is not None else None
    if aval.split is None and mesh is None:
        return aval.update(shape=shape)
    parts = parts_of(aval) if aval.split is not None else [()] * len(aval.shape)
    parts.insert(axis, tuple(mesh_axis) if mesh is not None else ())
    return aval.update(shape=shape, sharding=make(mesh or aval.split.mesh, parts,
                                                  *summed_axes(aval)))


def type_mesh(aval):
    """The mesh `aval`'s type is over: its sharding's, else set_mesh's (JAX types every
    value over the context mesh), else None."""
    if getattr(aval, "split", None) is not None:
        return aval.split.mesh if aval.split.mesh.axis_names else None
    mesh = get_mesh()
    return mesh if mesh is not None and mesh.axis_names else None


def summed_axes(aval) -> tuple:
    """(unreduced, reduced): the mesh axes `aval`'s type says it is unreduced over (each
    device holds a summand) and reduced over (JAX's getu, getr); empty for an untyped one."""
    ur = getattr(aval, "ur", NO_UR)
    if ur is not NO_UR:         # (in a shard_map body: the manual axes, JAX's mat's)
        return ur
    sharding = getattr(aval, "split", None)
    if sharding is None:
        return NO_UR
    return sharding.spec.unreduced, sharding.spec.reduced


def parts_of(aval) -> list:
    """Per dimension of `aval`, the tuple of mesh axes splitting it."""
    return list(aval.split.spec._axes(len(aval.shape)))


def dim_text(size, axes) -> str:
    """'8@x' or '8@(x,y)' for a split dimension, '8' for an unsplit one."""
    if not axes:
        return str(size)
    return f"{size}@{axes[0]}" if len(axes) == 1 else f"{size}@({','.join(axes)})"


def shape_text(aval) -> str:
    """'8@x,4' for a typed aval."""
    return ",".join(map(dim_text, aval.shape, parts_of(aval)))


@functools.lru_cache(maxsize=64)
def python_scalar_aval(scalar_type, dtype) -> ShapedArray:
    """The type a Python scalar of `scalar_type` has at `dtype` (its canonical one): weakly
    typed unless bool. One object per type, so that cache keys holding it compare by identity.

    >>> python_scalar_aval(float, np.dtype("float32"))
    ShapedArray(float32[], weak_type=True)
    """
    return ShapedArray((), dtype, scalar_type is not bool)

