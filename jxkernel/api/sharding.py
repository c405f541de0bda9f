"""jxkernel.sharding, as jax.sharding: meshes of devices, and how arrays are split over them.

    >>> from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> jax.device_put(np.zeros((8, 2)), NamedSharding(mesh, P('x'))).sharding.shard_shape((8, 2))
    (2, 2)

Arrays split over a mesh, and jit with shardings, are in xla/sharded.py; the classes here are
plain values (core/mesh.py).
"""
import abc
import functools

from ..core import avals
from ..core.avals import ManualAxisType, get_aval  # noqa: F401
from ..core.mesh import (  # noqa: F401
    _EMPTY_MESH,
    AbstractDevice,
    AbstractMesh,
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    set_mesh,
    use_abstract_mesh,
)
from ..core.mesh import get_abstract_mesh  # noqa: F401  (jax.sharding names it; core holds it)
from ..core.mesh import get_mesh as _current_mesh
from ..core.mesh import resolve
from ..core.sharding_types import explicit_axes as explicit_of
from ..lax.sharding import (_with_axis_type, reshard, reshard_p,  # noqa: F401
                            run_auto_axes, with_sharding_constraint)
from ..tree_util import tree_leaves, tree_map
from ..xla.sharding import Sharding as _Shardings
from ..xla.sharding import SingleDeviceSharding  # noqa: F401
# eager operations under set_mesh (jax.set_mesh is this module's) run over its mesh there
# (xla/dispatch.py's sharded_apply, which that module sets as it loads)
from ..xla import layout as _layout
from ..xla import sharded  # noqa: F401


def get_mesh() -> Mesh:
    """The mesh set by set_mesh (the empty mesh, `Mesh()`, when none is set).

    >>> get_mesh()
    Mesh(axis_sizes=(), axis_names=())
    """
    return _current_mesh() or _EMPTY_MESH


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
        return run_auto_axes(f, args, kwargs, axes, out)
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


def _laid_out_on(tree, mesh):
    """Each typed array of `tree` laid out on `mesh` as its type says (trailing unsplit
    dimensions left out of the spec, as JAX reports it)."""

    def move(x):
        typed = getattr(get_aval(x), "split", None)
        if typed is None:
            return x
        parts = list(typed.spec.partitions)
        while parts and parts[-1] is None:
            parts.pop()
        return with_sharding_constraint(x, NamedSharding(mesh, PartitionSpec(*parts)),
                                        _asserts=False)
    return tree_map(move, tree)


def make_single_device_sharding(device, *, memory_kind=None) -> SingleDeviceSharding:
    """All of an array on `device` (JAX's spelling of `SingleDeviceSharding(device)`).

    >>> make_single_device_sharding(jax.devices()[0]).device_set == {jax.devices()[0]}
    True
    """
    return SingleDeviceSharding(device, memory_kind=memory_kind)


class Sharding(abc.ABC):
    """The abstract type of shardings: `isinstance(x.sharding, jax.sharding.Sharding)`."""


for _kind in _Shardings:
    Sharding.register(_kind)
_layout.sharding_types = Sharding          # a Format's sharding: a user's subclass too
