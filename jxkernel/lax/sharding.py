"""with_sharding_constraint: tell XLA's partitioner how a value inside jit is to be split.

    >>> import jxkernel as jax, numpy as np
    >>> from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> from jxkernel import lax
    >>> @jax.jit
    ... def f(x):
    ...     return lax.with_sharding_constraint(x * 2, NamedSharding(mesh, P('y')))
    >>> f(np.arange(8.0)).sharding.spec
    P('y',)

The value is unchanged; the constraint becomes `sdy.sharding_constraint` in the module, and
XLA moves data between devices where the neighbouring shardings differ. Outside jit it lays
the array out as asked (a device_put). Its derivative is constrained the same way.
"""
from __future__ import annotations

import functools
import itertools

from ..core import avals as _avals
from ..core import sharding_types
# declared in core so that transforms/ can bind it; its rules are here
from ..core.device_assignment import (check_device_assignment, context_devices, device_count,
                                      placement)
from ..core.interpreter_primitives import reshard as _bind_reshard, reshard_p, sharding_constraint_p
from ..core.interpreter_primitives import sharding_constraint as _bind_constraint
from ..core.ir import param_printers
from ..core.mesh import (AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec, abstracted,
                         _mesh_state, get_mesh, bare_spec_error, check_type_divides,
                         recording_mesh, resolve, set_mesh)
from ..core.primitive import (
    Primitive,
    abstract_eval_rules,
    axis_batching_rules,
    batching_rules,
    impl_rules,
    jvp_rules,
    lowering_rules,
    numpy_rules,
    sharding_typing_rules,
    transpose_rules,
)
from ..core.avals import ShapedArray
from ..core.source_info import user_source_info
from ..core.trace import Tracer
from ..transforms.api_util import flatten_axes, flatten_axis_resources
from ..transforms.jit.args import check_sharding_leaf, device_mismatch
from ..tree_util import (broadcast_prefix, tree_flatten, tree_leaves, tree_map, tree_structure,
                         tree_unflatten)
from ..xla import stablehlo as hlo
from ..xla.lowering import NeedsMesh, results_left_unconstrained
from ..xla.put import device_put
from ..transforms.ad_util import Zero
from ..transforms.batch_util import ndim, not_mapped, sharding_for_vmap

# xla/sharding.py and xla/sharded.py (jaxlib's HLO shardings, sharded Arrays) load with the
# first mesh or sharded Array: `import jxkernel` needs neither, so their imports are deferred.


def _is_sharding(s) -> bool:
    return isinstance(s, (NamedSharding, PartitionSpec)) or type(s).__name__ == "Format"


def _without_layout(s, shape):
    """A Format's sharding (JAX's _split_layout_and_sharding). Its layout (the order of the
    dimensions in memory) changes no value, and jxkernel keeps every array row-major: only
    JAX's check that it names each dimension applies (Flax passes Format(Layout((1, 0)), s))."""
    if type(s).__name__ != "Format":
        return s
    if hasattr(s.layout, "check_compatible_aval"):        # (None and Layout.AUTO have none)
        s.layout.check_compatible_aval(shape)
    return s.sharding


def constrained_as_converted(x, sharding):
    """`x`, a conversion's result given `sharding=`, constrained to it where it is a
    NamedSharding over a Mesh of devices with no Explicit axis (JAX 0.10.2's
    convert_element_type binds with_sharding_constraint after itself for a concrete sharding:
    `jnp.array(x, device=s)`, `lax._convert_element_type(..., sharding=s)`, eagerly or under
    a trace); else `x`."""
    return with_sharding_constraint(x, sharding) if constrains_conversion(sharding) else x


def constrains_conversion(sharding) -> bool:
    """Whether a conversion given `sharding=` is constrained to it (constrained_as_converted)."""
    return isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, Mesh) and \
        AxisType.Explicit not in sharding.mesh.axis_types


def with_sharding_constraint(x, shardings, _prim=None, _asserts=True):
    """Each array of `x` (a pytree) constrained to its sharding (one, or a matching pytree).

    >>> import jxkernel as jax, numpy as np
    >>> from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> from jxkernel import lax
    >>> s = NamedSharding(mesh, P('y'))
    >>> jax.jit(lambda v: lax.with_sharding_constraint(v + 1, s))(np.arange(8.0)).sharding == s
    True
    """
    leaves, tree = tree_flatten(x)
    given = tree_leaves(shardings, is_leaf=lambda s: s is None or _is_sharding(s))
    for s in given:         # JAX's first check, before the tree's (a Format: its sharding's)
        if not _is_sharding(s):
            check_sharding_leaf(s, "shardings")
    if _prim is None:
        # JAX's order: a tree that is no prefix of x's (flatten_axes' words), then a None
        flat = flatten_axes("with_sharding_constraint shardings", tree, shardings)
        if any(s is None for s in flat):
            # under a mesh JAX reads None as P() over it; with none, None is its error
            if get_mesh() is None and _mesh_state.abstract is None:
                raise ValueError("One of with_sharding_constraint arguments got sharding None "
                                 "which is not allowed. Please only pass "
                                 "`jax.sharding.Sharding` instances.")
            flat = [PartitionSpec() if s is None else s for s in flat]
    elif _is_sharding(shardings):
        flat = [shardings] * len(leaves)
    else:
        flat = broadcast_prefix(shardings, x, is_leaf=_is_sharding)
    outs = []
    context = _context_mesh() if _prim is None else None
    for leaf, given in zip(leaves, flat):
        s = _without_layout(given, _avals.get_aval(leaf).shape)
        if _prim is None and context is None and _one_device(s):
            # a SingleDeviceSharding outside a mesh: traced, where it is already; eagerly,
            # put (committed) there, as JAX's constraint run eagerly
            if not isinstance(leaf, Tracer):
                leaf = device_put(leaf, s)
            else:
                _refuse_spmd_batching(leaf, s)
            outs.append(leaf)
            continue
        spec_only = isinstance(s, PartitionSpec)
        s = resolve(s, "with_sharding_constraint")
        if not isinstance(s, NamedSharding):
            raise TypeError(f"with_sharding_constraint expects NamedShardings or PartitionSpecs "
                            f"(under set_mesh); got {s!r} of type {type(s).__name__}")
        if _prim is None:
            try:
                s.check_compatible_aval(_avals.get_aval(leaf).shape)
            except ValueError as e:
                raise ValueError(f"One of with_sharding_constraint arguments is incompatible "
                                 f"with its sharding annotation {s!r}: {e}") from None
        if _asserts and _prim is None and context is not None and \
                context.are_all_axes_explicit and type(given).__name__ != "Format":
            # a value's type says its layout there: the constraint only checks it (JAX's)
            _assert_typed_as(_avals.get_aval(leaf), s)
            outs.append(leaf)
            continue
        if _prim is reshard_p:
            s = _unsplit_beyond_rank(s, len(_avals.get_aval(leaf).shape))
            check_type_divides(_avals.get_aval(leaf).shape, s)
            # JAX's params: the type (its spec one entry per dimension; over the mesh the spec
            # resolved to: jxkernel's types keep a device Mesh where JAX's name its
            # AbstractMesh) and the device Mesh a NamedSharding named (None for a bare spec)
            named = given.mesh if isinstance(given, NamedSharding) and \
                isinstance(given.mesh, Mesh) else None
            n = len(_avals.get_aval(leaf).shape)
            s = NamedSharding(s.mesh, s.spec.update(partitions=tuple(s.spec.partitions) +
                                                    (None,) * (n - len(s.spec))))
            outs.append(reshard_p.bind(leaf, dst_sharding=s, concrete_mesh=named))
            continue
        if _asserts and _prim is None:
            _check_auto_only(s)
        if spec_only:
            # JAX's constraint to a bare spec names set_mesh's AbstractMesh (its jaxpr says
            # so); the devices are the context mesh's where it is placed or compiled
            s = abstracted(s)
        outs.append(_bind_constraint(leaf, s, context))
    return tree_unflatten(tree, outs)


def _refuse_spmd_batching(x, sharding) -> None:
    """JAX's ValueError for a constraint to a sharding of no mesh (a SingleDeviceSharding) of a
    value vmap batches with spmd_axis_name: its batching rule splits the batch over those mesh
    axes, and there is no mesh (jxkernel binds no constraint there, so says it here)."""
    axis_data = getattr(getattr(x, "_trace", None), "axis_data", None)
    if getattr(axis_data, "spmd_name", None) is None or \
            getattr(x, "batch_dim", not_mapped) is not_mapped:
        return
    raise ValueError("If you are using spmd_axis_name parameter of jax.vmap, please make sure to "
                     "run your jitted function inside the mesh context manager. Only "
                     "`jax.lax.with_sharding_constraint` with `jax.sharding.NamedSharding` as an "
                     "input can be transformed with spmd_axis_name batching rules outside of an "
                     f"explicit mesh context manager scope {sharding!r}")


def _one_device(s) -> bool:
    """A sharding of one device that is no NamedSharding (a SingleDeviceSharding)."""
    return not isinstance(s, (NamedSharding, PartitionSpec)) and \
        len(getattr(s, "device_set", ())) == 1


def _unsplit_beyond_rank(sharding, rank):
    """`sharding` without the None entries its spec has past a value's last dimension: JAX's
    reshard lays a bias out by the spec of its model's matrices (`reshard(model, P(None,
    None))` in Flax's optimization cookbook), reporting `P(None,)` for it.

    >>> import jxkernel as jax, numpy as np
    >>> from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> _unsplit_beyond_rank(NamedSharding(mesh, P(None, None)), 1).spec
    P(None,)
    """
    spec = sharding.spec
    if len(spec) <= rank or any(p is not None for p in spec.partitions[rank:]):
        return sharding     # (a split dimension the value lacks: the rank check says so)
    return NamedSharding(sharding.mesh, spec.update(partitions=spec.partitions[:rank]),
                         memory_kind=sharding.memory_kind)


def _check_auto_only(sharding) -> None:
    """JAX's check_shardings_are_auto: outside a mesh of Explicit axes only, a constraint
    names Auto axes only (an Explicit one is the value's type: reshard's to change)."""
    mesh = sharding.mesh.abstract_mesh
    kinds = dict(zip(mesh.axis_names, mesh.axis_types))
    if any(kinds[a] is not AxisType.Auto for axes in sharding.spec._axes(0) for a in axes):
        raise ValueError(f"The spec of NamedSharding passed to with_sharding_constraint can "
                         f"only refer to Auto axes of the mesh. Got spec={sharding.spec} and "
                         f"mesh={mesh}. You probably meant to use `reshard` API?")


def _assert_typed_as(aval, sharding) -> None:
    """JAX's check of with_sharding_constraint under a mesh of Explicit axes only."""
    ndim = len(aval.shape)
    have = aval.split.spec if aval.split is not None else PartitionSpec(*[None] * ndim)
    want = sharding.spec.partitions + (None,) * (ndim - len(sharding.spec))
    if _avals._config.config.jax_remove_size_one_mesh_axis_from_type:
        # (as the type, the constraint less its mesh's axes of size 1: JAX's)
        sizes = sharding.mesh.shape
        want = [p if p is PartitionSpec.UNCONSTRAINED else
                tuple(a for a in _axes_of(p) if sizes[a] != 1) or None for p in want]
    want = PartitionSpec(*[p[0] if isinstance(p, tuple) and len(p) == 1 else p for p in want])
    for x, s in zip(have.partitions + (None,) * (ndim - len(have)), want):
        if s is not PartitionSpec.UNCONSTRAINED and _axes_of(x) != _axes_of(s):
            raise AssertionError(
                f"`with_sharding_constraint` acts as an assert when all axes of mesh are of "
                f"type `Explicit`. The array sharding: {have} did not match the sharding "
                f"provided: {want}. Please use `jax.sharding.reshard` to shard your input to "
                f"the sharding you want.")


def _axes_of(entry) -> tuple:
    return () if entry is None else entry if isinstance(entry, tuple) else (entry,)


def _context_mesh():
    """The AbstractMesh of the mesh set_mesh set (None: none), which JAX's
    sharding_constraint keeps as its `context_mesh` param and prints."""
    mesh = get_mesh()
    return None if mesh is None or mesh.empty else mesh.abstract_mesh


class _Shown:
    """A param's text as JAX prints it (its printer writes `frozenset({})`, `Mesh()`)."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


def _constraint_params(params):
    """JAX's sharding_constraint params, in its order: the context mesh, layout (jxkernel
    keeps every array row-major: None), sharding and the UNCONSTRAINED dimensions."""
    sharding = params["sharding"]
    context = params.get("context_mesh")
    free = [i for i, p in enumerate(sharding.spec.partitions) if p is PartitionSpec.UNCONSTRAINED]
    return [("context_mesh", context if context is not None else _Shown("Mesh()")),
            ("layout", None), ("sharding", sharding),
            ("unconstrained_dims", _Shown(f"frozenset({set(free) or '{}'})"))]


def check_out_sharding_type(sharding, api_name: str) -> None:
    """JAX's TypeError for an `out_sharding=` neither a NamedSharding nor a PartitionSpec (a
    device's SingleDeviceSharding), naming the function `api_name` as JAX's does."""
    if not isinstance(sharding, (NamedSharding, PartitionSpec)):
        raise TypeError(f"`out_sharding` argument of {api_name} only supports instances of "
                        f"`NamedSharding` or `PartitionSpec`. Got {sharding} of type: "
                        f"{type(sharding)}")


def resolved(out_sharding):
    """A NamedSharding from an out_sharding= (a PartitionSpec takes set_mesh's mesh). One over
    an AbstractMesh naming a memory kind would type a value in that memory: JAX's ValueError
    (its core.get_sharding; one over a device Mesh is made abstract without it, as JAX's)."""
    _avals.sharding_types_seen = True
    if type(out_sharding) is NamedSharding and type(out_sharding.mesh) is AbstractMesh and \
            out_sharding.memory_kind is not None:
        raise ValueError("sharding with memory_kind is not allowed. Please use "
                         "`jax.device_put` to transfer to different memory spaces. Got "
                         f"sharding={out_sharding!r}")
    return resolve(out_sharding, "out_sharding")


def canonicalize_sharding(sharding, api_name: str):
    """An `out_sharding=` of a lax function as its primitive's `sharding` param, as JAX's
    canonicalize_sharding: None (none asked, or a mesh of no axes), else a NamedSharding over
    the AbstractMesh (the type names no devices), naming Explicit axes only.

    >>> import jxkernel as jax
    >>> from jxkernel.sharding import PartitionSpec as P
    >>> explicit = jax.make_mesh((4, 2), ('x', 'y'))          # 8 devices, Explicit axes
    >>> with jax.set_mesh(explicit):
    ...     s = canonicalize_sharding(P('x'), "reshape")
    >>> type(s.mesh).__name__, s.spec
    ('AbstractMesh', P('x',))
    """
    if sharding is None or isinstance(sharding, NamedSharding) and sharding.mesh.empty:
        return None
    check_out_sharding_type(sharding, api_name)
    if isinstance(sharding, PartitionSpec) and _context_mesh() is None:
        raise bare_spec_error(sharding, "out_sharding")
    if isinstance(sharding, NamedSharding):
        _check_sharding_mesh(sharding, api_name)
    sharding = resolved(sharding)
    sharding = abstracted(sharding)
    check_explicit_only(sharding, api_name)
    return sharding


def _check_sharding_mesh(sharding, api_name: str) -> None:
    """JAX's check of a NamedSharding out_sharding= against the abstract mesh in context
    (use_abstract_mesh's, else set_mesh's; a `with mesh:` block's is none): the same mesh,
    axis types too, unless both have Auto axes alone. Not in a shard_map body (a context of
    Manual axes), whose values jxkernel types over the mesh outside it, where JAX's name the
    body's: its own functions' out_sharding= there (a histogram's) would be refused."""
    current = recording_mesh()
    if current is None:
        return
    current = current if isinstance(current, AbstractMesh) else current.abstract_mesh
    if AxisType.Manual in current.axis_types:
        return
    mesh = sharding.mesh if isinstance(sharding.mesh, AbstractMesh) else \
        sharding.mesh.abstract_mesh
    if current.empty or mesh == current or mesh.are_all_axes_auto and current.are_all_axes_auto:
        return
    raise ValueError(f"Context mesh {current} should match the mesh of sharding {mesh} passed "
                     f"to {api_name}. This error occurs at source:  "
                     f"{sharding_types._source_summary()}")


def laid_out(x, out_sharding):
    """`x` typed and laid out as `out_sharding` (a NamedSharding, or a PartitionSpec under
    set_mesh): what the `out_sharding=` of jnp.zeros and the like does."""
    if out_sharding is None:
        return x
    sharding = resolved(out_sharding)
    ndim = len(_avals.get_aval(x).shape)
    typed = sharding_types.typed_sharding(sharding, ndim)
    if typed is None and isinstance(sharding, NamedSharding) and \
            isinstance(sharding.mesh, AbstractMesh) and not any(sharding.spec._axes(0)):
        # jax.typeof(v).sharding of an untyped value (P(None, ...) over no mesh or an Auto
        # one), which libraries pass on as out_sharding=: it asks for no layout
        return x
    if typed is not None:
        check_type_divides(_avals.get_aval(x).shape, typed)     # (JAX's type check first)
        _check_devices_for(x, typed)
    # the array then reports its type's spec, one entry per dimension, as JAX's does
    # (its constraint lays the value out: JAX's out_sharding= binds the sharding, it asserts
    # nothing as the public constraint does under Explicit axes)
    return with_sharding_constraint(x, typed or sharding, _asserts=False)


def _check_devices_for(x, typed) -> None:
    """JAX's device-assignment check (core/device_assignment.py) of an eager operation giving
    `x` the type `typed`: it runs on x's mesh, else set_mesh's, else on one device, which
    cannot make a value typed over a mesh of several Explicit axes."""
    if isinstance(x, Tracer):
        return
    own = placement(x)
    check_device_assignment([_avals.get_aval(x).update(sharding=typed)],
                            lambda: device_count(own) if own is not None else context_devices())


_EMPTY = AbstractMesh((), ())


def _abstract_eval(aval, *, sharding, **_):
    # the rank only: a dimension the sharding does not divide is XLA's to pad in a program
    # (JAX traces and compiles it; an eager constraint's device_put raises IndivisibleError)
    if len(sharding.spec) > len(aval.shape):
        sharding.check_shape(aval.shape)
    # an unsplit result names the constraint's mesh (a sharding of no mesh: the empty one),
    # as JAX's _sharding_constraint_abstract_eval
    return aval.over_mesh(sharding.mesh if type(sharding) is NamedSharding else _EMPTY) \
        if type(aval) is ShapedArray else aval


def _impl(x, *, sharding, **_):
    # the sharded-array modules load with the first mesh: `import jxkernel` needs none
    from ..xla.sharded import device_put
    target, own = _concrete(x, sharding), getattr(x, "_sharding", None)
    if isinstance(own, NamedSharding) and isinstance(target, NamedSharding) and \
            not isinstance(target.mesh, AbstractMesh) and own.mesh._ids != target.mesh._ids:
        # JAX's eager constraint is a jit of the identity whose out_shardings are these: an
        # array over other devices (or the same in another order) is its ValueError
        device_mismatch("_identity_fn", ["x"], [x],
                        [(x._sharding._device_assignment, "ARG_SHARDING"),
                         (target._device_assignment, "explicit output sharding")])
    return device_put(x, target)


def _concrete(x, sharding):
    """A sharding over an AbstractMesh placed on devices, as JAX's eager constraint does:
    on the mesh set by set_mesh for a value not yet on devices, else on the value's own mesh
    (which must be a NamedSharding's of the same shape)."""
    if not (isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, AbstractMesh)):
        return sharding
    current = get_mesh()
    own = getattr(x, "sharding", None)
    if not isinstance(own, NamedSharding) and current is not None and not current.empty:
        # (JAX's arrays made under set_mesh already carry the mesh's NamedSharding; jxkernel's
        # carry a single device's, so the mesh set is taken for them too)
        return NamedSharding(current, sharding.spec, memory_kind=sharding.memory_kind)
    what = _avals.get_aval(x).str_short(True)
    if own is None:
        raise ValueError(f"Target sharding contains a `jax.sharding.AbstractMesh` which requires "
                         f"the input passed should be a `jax.Array`. Got {type(x)} with shape "
                         f"{what}")
    if not isinstance(own, NamedSharding):
        raise TypeError(f"The sharding on the input must be a `NamedSharding` since the target "
                        f"sharding has an `AbstractMesh` in it. Got sharding type {type(own)} "
                        f"for shape {what}")
    if own.mesh.shape_tuple != sharding.mesh.shape_tuple:
        raise ValueError(f"Mesh shape of the input {own.mesh.shape_tuple} does not match the "
                         f"mesh shape of the target sharding {sharding.mesh.shape_tuple} for "
                         f"shape {what}")
    mesh = own.mesh
    if mesh.axis_types != sharding.mesh.axis_types:
        # (auto_axes' result, on its mesh made Auto, going back to the Explicit one)
        mesh = Mesh(mesh.devices, mesh.axis_names, axis_types=sharding.mesh.axis_types)
    return NamedSharding(mesh, sharding.spec, memory_kind=sharding.memory_kind)


def _reshard_impl(x, *, dst_sharding, concrete_mesh=None):
    """As _impl, the array reporting one spec entry per dimension (as JAX's reshard does).
    A value on one device cannot take a type over an AbstractMesh of Explicit axes outside
    set_mesh: no devices are named (JAX's device-assignment error; grad's seed of a split
    value's loss meets it there)."""
    sharding = _reshard_target(dst_sharding, concrete_mesh)
    typed = sharding_types.typed_sharding(sharding, ndim(x))
    if typed is not None and isinstance(sharding.mesh, AbstractMesh):
        _check_devices_for(x, typed)        # (a Mesh's own devices are where it goes)
    parts = list(sharding.spec.partitions) + [None] * (ndim(x) - len(sharding.spec))
    spec = _keeping_auto_axes(x, sharding, sharding.spec.update(partitions=parts))
    return _impl(x, sharding=NamedSharding(sharding.mesh, spec,
                                           memory_kind=sharding.memory_kind))


def _keeping_auto_axes(x, sharding, spec):
    """`spec`, on a mesh of Explicit and Auto axes, with the Auto axes `x` is laid out over
    kept where `spec` leaves their dimension unsplit or splits it by a prefix of x's axes
    there: XLA's choice for reshard's open dimensions (JAX's typed lowering). Reported as XLA
    names it: the type's spec where nothing is kept, else without trailing Nones."""
    own, mesh, n = getattr(x, "sharding", None), sharding.mesh, ndim(x)
    if not mesh.auto_axes or not isinstance(own, NamedSharding) or \
            (own.mesh.axis_names, own.mesh.axis_sizes) != (mesh.axis_names, mesh.axis_sizes):
        return spec                     # (x's mesh: the same axes, of any types: auto_axes')
    auto = set(mesh.auto_axes)
    kept = [w + tuple(itertools.takewhile(auto.__contains__, h[len(w):])) if h[:len(w)] == w
            else w for h, w in zip(own.spec._axes(n), spec._axes(n))]
    if kept == list(spec._axes(n)):
        return spec
    entries = list(_avals.make(mesh, kept).spec)
    while entries[-1] is None:          # (something was kept: not all are None)
        entries.pop()
    return spec.update(partitions=entries)


def _lowering(ctx, x, *, sharding, _typed=False, **_):
    mesh = ctx.module_ctx.mesh
    if mesh is None:                # jit catches this and partitions the program over the mesh
        raise NeedsMesh(
            f"with_sharding_constraint({sharding!r}) inside a program compiled for one device "
            f"(a jit under another transformation, or an executable built directly): jit it "
            f"at the top level, or give the jit in_shardings over the same mesh",
            sharding.mesh)
    if not isinstance(sharding.mesh, AbstractMesh) and sharding.mesh._ids != mesh._ids:
        raise ValueError(f"with_sharding_constraint's sharding {sharding!r} is over another mesh "
                         f"than the jitted computation's {mesh}; use one mesh")
    manual = ctx.module_ctx.manual
    if manual is not None and isinstance(getattr(sharding, "spec", None), PartitionSpec):
        # in a shard_map body its manual axes are each device's own: JAX's error where the
        # constraint names one
        axes = tuple(a for a in manual[0].axis_names if a in manual[1])
        if any(a in manual[1] for entry in sharding.spec._axes(len(ctx.avals_out[0].shape))
               for a in entry):
            raise ValueError(
                f"pspec {sharding.spec} contains a manual axes {axes} of mesh which is not "
                f"allowed. If you are using a with_sharding_constraint under a shard_map, only "
                f"use the mesh axis in PartitionSpec which are not manual.")
    if not _typed:
        sharding = _with_type_axes(sharding, ctx.avals_out[0])
    return constrained(ctx, x, sharding, ctx.avals_out[0], typed=_typed)


def constrained(ctx, x, sharding, aval, typed: bool = True):
    """`x` (of type `aval`) laid out as `sharding` over the module's mesh: an
    sdy.sharding_constraint, as reshard and a typed device_put lower."""
    from ..xla.sharding import sdy_sharding    # (loaded with the first mesh, as above)
    text = sdy_sharding(ctx.module_ctx.module, ctx.module_ctx.mesh, sharding, aval.ndim,
                        typed=typed)
    return ctx.op1("sdy.sharding_constraint", [x], {"sharding": text},
                   result_type=hlo.aval_type(aval))


def _with_type_axes(sharding, aval):
    """JAX's constraint lowering: per dimension the mesh axes the result's type splits it
    over, then those the constraint names (on a mesh with Auto axes, f32[8@x,2] constrained
    to P(None, 'y') is laid out P('x', 'y')). A type that splits no dimension leaves the
    constraint as given, its P.UNCONSTRAINED dimensions open (`{?}`), as JAX's: closed, they
    made XLA replicate an argument split over an Auto axis and miscompute a scatter."""
    if aval.split is None or not sharding.mesh.auto_axes or \
            not any(_avals.parts_of(aval)):
        return sharding
    given = sharding.spec._axes(len(aval.shape))
    return _avals.make(sharding.mesh, [t + tuple(a for a in g if a not in t)
                                       for t, g in zip(_avals.parts_of(aval), given)])


def _jvp(prim, primals, tangents, **params):
    (x,), (t,) = primals, tangents
    out = prim.bind(x, **params)
    return out, t if type(t) is Zero else prim.bind(t, **params)


def _transpose(prim, ct, x, **params):
    if type(ct) is Zero:
        return [ct]
    out = prim.bind(ct, **params)
    # a constraint out of a typed operand's type (into a mesh's Auto axes) gives the
    # cotangent back typed as the operand's cotangent, unreduced where it is reduced, as
    # JAX's reshard into the Auto mesh transposes (auto_axes' own is such a reshard)
    ct_aval = x.aval.sets_swapped() if type(x.aval) is ShapedArray else None
    if ct_aval is not None and ct_aval.split is not None:
        back = sharding_types.abstract_sharding(ct_aval)
        if sharding_types.abstract_sharding(_avals.get_aval(out)) != back:
            out = _bind_reshard(out, back)
    return [out]


def _reshard_target(dst_sharding, concrete_mesh):
    """Where an eager reshard puts its result: `dst_sharding` over the device Mesh its params
    name, else over set_mesh's where that is its AbstractMesh's, else as it is. (Only the
    impl: a type must not depend on the mesh in context, which eval_jaxpr may change.)"""
    current = get_mesh()
    if concrete_mesh is None and current is not None and not current.empty and \
            current.abstract_mesh == dst_sharding.mesh:
        concrete_mesh = current
    if concrete_mesh is None:
        return dst_sharding
    return NamedSharding(concrete_mesh, dst_sharding.spec)


def _reshard_transpose(ct, x, *, dst_sharding, concrete_mesh=None):
    """JAX's: the cotangent resharded back to the operand's type (an untyped operand's:
    unsplit), so a gradient through reshard is typed as its primal."""
    if type(ct) is Zero:
        return [Zero(x.aval)]
    # (as the operand's cotangent: unreduced where the operand is reduced)
    back = sharding_types.abstract_sharding(x.aval.sets_swapped())
    if back is None:
        # an untyped operand: unsplit over the mesh its type names where that has the target's
        # axes (auto_axes' result, over its Auto mesh: backward_pass's), else the target's
        mesh = abstracted(dst_sharding).mesh
        own = x.aval._mesh if type(x.aval) is ShapedArray else None
        if own is not None and own.shape_tuple == mesh.shape_tuple:
            mesh = own
        back = _avals.make(mesh, [()] * len(x.aval.shape))
    return [_bind_reshard(ct, back, concrete_mesh)]


def _batching(prim, vals, dims, *, sharding, **params):
    """The batch axis is left as the operand's type has it (unsplit if untyped): a constraint
    changes no type under vmap (JAX's leaves that axis unconstrained), so vmap of
    jnp.einsum(..., out_sharding=P('y')) over x stays split over x."""
    (x,), (d,) = vals, dims
    if d is not_mapped:
        return prim.bind(x, sharding=sharding, **params), d
    return _bind_constraint(x, _batched(x, d, sharding), params.get("context_mesh")), d


def _batched(x, d, sharding):
    """_batching's sharding of the batched value."""
    parts = list(sharding.spec.partitions) + [None] * (ndim(x) - 1 - len(sharding.spec))
    typed = _avals.get_aval(x).split
    axes = _avals.parts_of(_avals.get_aval(x))[d] if typed is not None else ()
    # an untyped batch axis is left to XLA's propagation (P.UNCONSTRAINED, `{?}`), as JAX's
    # (a mesh without Auto axes has no open dimension: unsplit there)
    free = PartitionSpec.UNCONSTRAINED if sharding.mesh.auto_axes else None
    parts.insert(d, free if not axes else axes[0] if len(axes) == 1 else tuple(axes))
    return NamedSharding(sharding.mesh, sharding.spec.update(partitions=parts),
                         memory_kind=sharding.memory_kind)


def _reshard_unnamed_batching(vals, dims, dst_sharding, concrete_mesh):
    """_batching's, rebinding reshard with JAX's params."""
    (x,), (d,) = vals, dims
    if d is not_mapped:
        return _bind_reshard(x, dst_sharding, concrete_mesh), d
    return _bind_reshard(x, _batched(x, d, dst_sharding), concrete_mesh), d


def _constraint_batching(axis_data, vals, dims, *, sharding, **params):
    """Under vmap(spmd_axis_name=...), the batch axis split over those mesh axes (JAX's
    _sharding_constraint_batcher), which the constraint's own spec must not name; without
    one, _batching's."""
    spmd, (d,) = axis_data.spmd_name, dims
    if spmd is None or d is not_mapped:
        return _batching(sharding_constraint_p, vals, dims, sharding=sharding, **params)
    used = {a for entry in sharding.spec.partitions for a in _axes_of(entry)}
    if set(spmd) & used:
        raise ValueError(f"vmap spmd_axis_name {spmd} cannot appear in with_sharding_constraint "
                         f"spec, but got spec {sharding.spec}")
    (x,) = vals
    parts = list(sharding.spec.partitions) + [None] * (ndim(x) - 1 - len(sharding.spec))
    parts.insert(d, spmd[0] if len(spmd) == 1 else spmd)
    batched = NamedSharding(sharding.mesh, PartitionSpec(*parts),
                            memory_kind=sharding.memory_kind)
    return _bind_constraint(x, batched, params.get("context_mesh")), d


def _reshard_batching(axis_data, vals, dims, *, dst_sharding, concrete_mesh=None):
    """JAX's _reshard_batcher: the batch axis split over vmap's explicit mesh axes, so
    vmap(lambda r: reshard(r, P('y'))) of f32[8@x,2] is f32[8@x,2@y]."""
    (x,), (d,) = vals, dims
    if d is not_mapped:
        return _bind_reshard(x, dst_sharding, concrete_mesh), d
    return _bind_reshard(x, sharding_for_vmap(axis_data, dst_sharding, d, ndim(x)),
                         concrete_mesh), d


for _prim in (sharding_constraint_p, reshard_p):
    # the NumPy backend computes global values: the layout is the program's results'
    # (xla/numpy_sharded.py reads the constraint from the jaxpr)
    numpy_rules[_prim] = lambda x, **_: x
    jvp_rules[_prim] = functools.partial(_jvp, _prim)
abstract_eval_rules[sharding_constraint_p] = _abstract_eval
impl_rules[sharding_constraint_p] = _impl
lowering_rules[sharding_constraint_p] = _lowering
transpose_rules[sharding_constraint_p] = functools.partial(_transpose, sharding_constraint_p)
batching_rules[sharding_constraint_p] = functools.partial(_batching, sharding_constraint_p)
sharding_typing_rules[sharding_constraint_p] = sharding_types.constrained_typing
# reshard's params are JAX's, `dst_sharding` (the constraint's `sharding`) and `concrete_mesh`
abstract_eval_rules[reshard_p] = \
    lambda aval, *, dst_sharding, concrete_mesh=None: \
    _abstract_eval(aval, sharding=dst_sharding)
# (reshard's result is its type: laid out as JAX's lower_with_sharding_in_types)
def _reshard_lowering(ctx, x, *, dst_sharding, concrete_mesh=None):
    """JAX's lower_with_sharding_in_types: a type over a mesh of Auto axes alone (auto_axes'
    reshard into it) says nothing of the layout, so no constraint: XLA's to choose."""
    if dst_sharding.mesh.are_all_axes_auto:
        return x
    return _lowering(ctx, x, sharding=dst_sharding, _typed=True)


lowering_rules[reshard_p] = _reshard_lowering
# (both rules lay their result out themselves: JAX's give it no second constraint of its type)
results_left_unconstrained.update((sharding_constraint_p, reshard_p))
batching_rules[reshard_p] = lambda vals, dims, *, dst_sharding, concrete_mesh=None: \
    _reshard_unnamed_batching(vals, dims, dst_sharding, concrete_mesh)
sharding_typing_rules[reshard_p] = lambda in_avals, params, out_avals: \
    sharding_types.constrained_typing(
        in_avals, {"sharding": params["dst_sharding"], "retypes": True}, out_avals)
impl_rules[reshard_p] = _reshard_impl
transpose_rules[reshard_p] = _reshard_transpose
axis_batching_rules[reshard_p] = _reshard_batching
axis_batching_rules[sharding_constraint_p] = _constraint_batching
param_printers[reshard_p] = lambda params: []       # JAX prints `reshard x`: the type says
param_printers[sharding_constraint_p] = _constraint_params


# ------------------------------------------------------------------ reshard, auto_axes
def reshard(xs, out_shardings):
    """Each array of `xs` laid out as `out_shardings` says (a sharding, or a matching pytree).

    >>> import jxkernel as jax, numpy as np
    >>> from jxkernel.sharding import NamedSharding, PartitionSpec as P
    >>> explicit = jax.make_mesh((4, 2), ('x', 'y'))          # 8 devices, Explicit axes
    >>> x = jax.device_put(np.zeros((8, 8)), NamedSharding(explicit, P('x')))
    >>> reshard(x, NamedSharding(explicit, P(None, 'x'))).sharding.spec
    P(None, 'x')
    """
    # JAX's order: a tree that is no prefix of the arguments tuple's (its words for it), then
    # each sharding's type
    tree = tree_structure(xs)
    flat = flatten_axis_resources("reshard out_shardings", tree, out_shardings, True)
    for s in flat:
        if s is None:
            raise ValueError("Reshard should only be used with out_shardings which are non-None "
                             "and have a non-empty mesh. Got sharding None.")
        check_out_sharding_type(s, "reshard")
        check_explicit_only(resolve(s, "reshard"), "reshard")
    _avals.sharding_types_seen = True       # the result's type carries its sharding
    return with_sharding_constraint(xs, tree_unflatten(tree, flat), reshard_p)


def check_explicit_only(sharding, api_name: str) -> None:
    """JAX's refusal of Auto and Manual axes in a spec that types a value (reshard's,
    out_sharding='s): those are XLA's, or shard_map's, to lay out."""
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
    for axes in sharding.spec._axes(0):
        for a in axes:
            if types[a] is not AxisType.Explicit:
                raise ValueError(f"PartitionSpec passed to {api_name} cannot contain axis names "
                                 f"that are of type Auto or Manual. Got PartitionSpec: "
                                 f"{sharding.spec!r} with axis name: {a} of type: "
                                 f"{types[a]!s}. This error occurs at source:  "
                                 f"{_calling_line()}")


def _calling_line() -> str:
    """The learner's line that called, as JAX's source_info_util.summarize writes the current
    one, eagerly too ("file:line:column (function)"), or '' where no frame is the learner's."""
    info = user_source_info()
    return "" if info is None else str(info)


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
    Explicit there (the others are XLA's to choose inside, as in JAX); an Array keeps its
    whole layout (JAX's mesh_cast moves no data)."""
    kept = sharding_types.explicit_axes(mesh)

    def move(x):
        typed = getattr(_avals.get_aval(x), "split", None)
        if typed is None:
            return x
        own = getattr(x, "sharding", None) if not isinstance(x, Tracer) else None
        if isinstance(own, NamedSharding) and \
                (own.mesh.axis_names, own.mesh.axis_sizes) == (mesh.axis_names, mesh.axis_sizes):
            return with_sharding_constraint(x, NamedSharding(mesh, own.spec), _asserts=False)
        spec = PartitionSpec(*(tuple(a for a in axes if a in kept) or None
                               for axes in typed.spec._axes(len(typed.spec))))
        if isinstance(x, Tracer):
            # a reshard into the mesh's Auto axes, as JAX's auto_axes stages it (its type's
            # AbstractMesh, naming no device Mesh: the transpose reshards back into the
            # operand's type, over the operand's devices)
            return with_sharding_constraint(x, NamedSharding(mesh.abstract_mesh, spec),
                                            reshard_p, _asserts=False)
        return with_sharding_constraint(x, NamedSharding(mesh, spec), _asserts=False)
    return tree_map(move, tree)


def run_auto_axes(f, args, kwargs, axes, out):
    """`f(*args, **kwargs)` with mesh `axes` (all, if None) of the mesh set made Auto, its
    result resharded to `out`: jax.sharding.auto_axes' call (api/sharding.py), which
    `x.at[idx].get(out_sharding=)` uses too (numpy/indexing.py)."""
    outer = get_mesh()
    if outer is None or not outer.axis_names:
        # outside set_mesh, `out`'s mesh (JAX's _get_new_mesh), on the devices of an
        # argument over it; with none, f runs where its arguments are, then the reshard
        # (JAX's device-assignment error for a value on one device)
        mesh = getattr(out, "mesh", None)
        outer = mesh if isinstance(mesh, Mesh) or mesh is None else next(
            (s.mesh for s in map(placement, tree_leaves(args))
             if s is not None and s.mesh.abstract_mesh == mesh), None)
        if outer is None:
            return f(*args, **kwargs) if mesh is None else _laid_out(f(*args, **kwargs), out)
    if _all_of_type(outer, axes, AxisType.Auto):
        return f(*args, **kwargs)
    inner = _with_axis_type(outer, axes, AxisType.Auto)
    args = _retyped(args, inner)
    with set_mesh(inner):
        result = f(*args, **kwargs)
    return _laid_out(result, out)


def _laid_out(whole, out):
    """`whole`, a value computed whole (the same on every device), resharded to `out`. To
    an `out` unreduced over some axes it is typed replicated first, so that the reshard
    leaves one copy of it and zeros as the other summands: relabelled as it is, each
    device's copy would count once (`jnp.bincount(..., out_sharding=P(unreduced={'x'}))`
    summed to twice the counts on two devices). JAX computes each device's own summand
    there; the sum, what the type promises, is the same."""
    spec = getattr(out, "spec", out)
    if isinstance(spec, PartitionSpec) and spec.unreduced:
        parts = PartitionSpec(*spec.partitions)
        whole = reshard(whole, NamedSharding(out.mesh, parts) if out is not spec else parts)
    return reshard(whole, out)
