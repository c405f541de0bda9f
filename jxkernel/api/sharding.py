"""jxkernel.sharding, as jax.sharding: meshes of devices, and how arrays are split over them.

    >>> from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> jax.device_put(np.zeros((8, 2)), NamedSharding(mesh, P('x'))).sharding.shard_shape((8, 2))
    (2, 2)

Arrays split over a mesh, and jit with shardings, are in xla/sharded.py; the classes here are
plain values (core/mesh.py).
"""
import abc
import contextlib
import functools

from ..core import avals
from ..core.avals import get_aval
from ..core.mesh import (  # noqa: F401
    _EMPTY_MESH,
    AbstractMesh,
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    set_mesh,
    use_mesh,
)
from ..core.mesh import _mesh_state
from ..core.mesh import get_mesh as _current_mesh
from ..core.mesh import resolve
from ..core.sharding_types import explicit_axes as explicit_of
from ..lax.sharding import reshard_p, with_sharding_constraint
from ..tree_util import tree_leaves, tree_map
from ..xla.sharding import Sharding as _Shardings
from ..xla.sharding import SingleDeviceSharding  # noqa: F401


def get_mesh() -> Mesh:
    """The mesh set by set_mesh (the empty mesh, `Mesh()`, when none is set).

    >>> get_mesh()
    Mesh(axis_sizes=(), axis_names=())
    """
    return _current_mesh() or _EMPTY_MESH


def get_abstract_mesh() -> AbstractMesh:
    """The mesh use_abstract_mesh set, else the AbstractMesh of the mesh set by set_mesh (an
    empty one when none is set).

    >>> get_abstract_mesh()
    AbstractMesh((), axis_types=())
    """
    found = _mesh_state.abstract
    return found if found is not None else get_mesh().abstract_mesh


@contextlib.contextmanager
def use_abstract_mesh(mesh: AbstractMesh):
    """Within: get_abstract_mesh() is `mesh` (get_mesh() is unchanged).

    >>> with use_abstract_mesh(AbstractMesh((4, 2), ('x', 'y'))):
    ...     get_abstract_mesh().axis_names
    ('x', 'y')
    """
    if not isinstance(mesh, AbstractMesh):
        raise ValueError(f"Expected mesh of type `jax.sharding.AbstractMesh`. Got type: "
                         f"{type(mesh)}")
    previous, _mesh_state.abstract = _mesh_state.abstract, mesh
    try:
        yield
    finally:
        _mesh_state.abstract = previous


def reshard(xs, out_shardings):
    """Each array of `xs` laid out as `out_shardings` says (a sharding, or a matching pytree).

    >>> explicit = jax.make_mesh((4, 2), ('x', 'y'))              # Explicit axes
    >>> x = jax.device_put(np.zeros((8, 8)), NamedSharding(explicit, P('x')))
    >>> reshard(x, NamedSharding(explicit, P(None, 'x'))).sharding.spec
    P(None, 'x')
    """
    for s in tree_leaves(out_shardings, is_leaf=lambda s: isinstance(s, PartitionSpec)):
        _check_explicit(resolve(s, "reshard"))
    avals.sharding_types_seen = True        # the result's type carries its sharding
    return with_sharding_constraint(xs, out_shardings, reshard_p)


def _check_explicit(sharding) -> None:
    """reshard moves data between Explicit axes only (Auto ones are XLA's to choose)."""
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
    for axes in sharding.spec._axes(0):
        for a in axes:
            if types[a] is not AxisType.Explicit:
                raise ValueError(f"PartitionSpec passed to reshard cannot contain axis names "
                                 f"that are of type Auto or Manual. Got PartitionSpec: "
                                 f"{sharding.spec!r} with axis name: {a} of type: "
                                 f"{types[a]!s}.")


def _required(given, kwargs: dict, name: str):
    """`given` (from the decorator) or the call's keyword `name`, which it takes out of
    `kwargs`: auto_axes' out_sharding and explicit_axes' in_sharding, as JAX asks for them."""
    value = given if given is not None else kwargs.pop(name, None)
    if value is None:
        raise TypeError(f"Missing required keyword argument: '{name}'")
    return value


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """`f` run with mesh `axes` (all, by default) made Auto: inside, types do not carry them and
    XLA chooses how values are split over them (no out_sharding= needed for a matmul over a
    split axis); the result is resharded to `out_sharding` (given here or at the call).

    >>> explicit = jax.make_mesh((4, 2), ('x', 'y'))
    >>> a = jax.device_put(np.ones((8, 4)), NamedSharding(explicit, P('x', 'y')))
    >>> b = jax.device_put(np.ones((4, 2)), NamedSharding(explicit, P('y')))
    >>> with set_mesh(explicit):                 # a @ b alone: split contracting axes, an error
    ...     print(jax.typeof(auto_axes(lambda a, b: a @ b, out_sharding=P('x'))(a, b)))
    float32[8@x,2]
    """
    if f is None:
        return lambda g: auto_axes(g, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def run(*args, **kwargs):
        out = _required(out_sharding, kwargs, "out_sharding")
        outer = get_mesh()
        if not outer.axis_names or _all_of_type(outer, axes, AxisType.Auto):
            return f(*args, **kwargs)
        inner = _with_axis_type(outer, axes, AxisType.Auto)
        args = _retyped(args, inner)
        with set_mesh(inner):
            result = f(*args, **kwargs)
        return reshard(result, out)
    return run


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """`f` run with mesh `axes` (all, by default) made Explicit, its arguments resharded to
    `in_sharding` (given here or at the call); inside, types carry the sharding. The results
    keep their layout, typed as the outer mesh says.

    >>> auto = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)
    >>> with set_mesh(auto):
    ...     explicit_axes(lambda c: c * 2, in_sharding=P('x'))(np.ones((8, 4))).sharding.spec
    P('x',)
    """
    if f is None:
        return lambda g: explicit_axes(g, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def run(*args, **kwargs):
        given = _required(in_sharding, kwargs, "in_sharding")
        outer = get_mesh()
        if not outer.axis_names:
            raise ValueError("Context mesh cannot be empty. Please use `jax.set_mesh` API to "
                             "enter into a mesh context when using `explicit_axes` API.")
        inner = _with_axis_type(outer, axes, AxisType.Explicit)
        with set_mesh(inner):
            result = f(*reshard(args, given), **kwargs)
        return _laid_out_on(result, outer)
    return run


def _axes_named(mesh, axes) -> tuple:
    if axes is None:
        return mesh.axis_names
    names = (axes,) if isinstance(axes, str) else tuple(axes)
    for a in names:
        if a not in mesh.axis_names:
            raise ValueError(f"axes={axes!r}: {a!r} is not an axis of the mesh {mesh}")
    return names


def _all_of_type(mesh, axes, kind) -> bool:
    types = dict(zip(mesh.axis_names, mesh.axis_types))
    return all(types[a] is kind for a in _axes_named(mesh, axes))


def _with_axis_type(mesh, axes, kind) -> Mesh:
    """`mesh` (same devices and names) with `axes` of type `kind`."""
    names = _axes_named(mesh, axes)
    types = tuple(kind if n in names else t for n, t in zip(mesh.axis_names, mesh.axis_types))
    return Mesh(mesh.devices, mesh.axis_names, axis_types=types)


def _retyped(tree, mesh):
    """Each typed array of `tree` moved onto `mesh`, its spec keeping only axes still
    Explicit there (the others are XLA's to choose inside, as in JAX)."""
    kept = explicit_of(mesh)

    def move(x):
        typed = getattr(get_aval(x), "sharding", None)
        if typed is None:
            return x
        spec = PartitionSpec(*(tuple(a for a in axes if a in kept) or None
                               for axes in typed.spec._axes(len(typed.spec))))
        return with_sharding_constraint(x, NamedSharding(mesh, spec))
    return tree_map(move, tree)


def _laid_out_on(tree, mesh):
    """Each typed array of `tree` laid out on `mesh` as its type says (trailing unsplit
    dimensions left out of the spec, as JAX reports it)."""

    def move(x):
        typed = getattr(get_aval(x), "sharding", None)
        if typed is None:
            return x
        parts = list(typed.spec)
        while parts and parts[-1] is None:
            parts.pop()
        return with_sharding_constraint(x, NamedSharding(mesh, PartitionSpec(*parts)))
    return tree_map(move, tree)


class Sharding(abc.ABC):
    """The abstract type of shardings: `isinstance(x.sharding, jax.sharding.Sharding)`."""


for _kind in _Shardings:
    Sharding.register(_kind)
