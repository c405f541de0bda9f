"""`jit` over a mesh: the call path of a jitted function given shardings (in_shardings=,
out_shardings=) or called with arrays split over a mesh. It matches the given shardings to
the arguments' and results' pytrees (JAX's prefix rules and errors), lowers and compiles once
per signature through xla/sharded.py, and puts the executable in jit's fast path.

    >>> f = jax.jit(lambda x: x * 2, out_shardings=NamedSharding(mesh, P('x')))
    >>> f(np.arange(8.0)).sharding.spec                       # mesh: 4 x 2 devices
    P('x',)
"""
from __future__ import annotations

from ...core.avals import ShapeDtypeStruct, typed_sharding
from ...core.config import config
from ...core.dce import dce_jaxpr
from ...core.device_assignment import (check_device_assignment, deciding_sharding,
                                       located_inside, placement, program_devices, used_inputs)
from ...core import compile_record as _record, trace as _trace
from ...core.interpreter_primitives import sharding_constraint
from ...core.mesh import (AbstractMesh, AbstractMeshOnlyError, NamedSharding, PartitionSpec,
                          concrete_mesh, get_mesh, legacy_mesh, mesh_of_devices,
                          on_context_mesh, placed_on, resolve, set_mesh)
from ...core.staging import DebugInfo, convert_constvars_to_invars, trace_to_jaxpr
from ...core.watches import NEVER
from ...tree_util import (default_registry as _registry, keystr, tree_flatten,
                          tree_flatten_with_path, tree_unflatten)
from ...xla.array import Array
from ...xla.placement import placed_data
from ...xla import client as _client, relayout
from ...xla.relayout import arg_layouts
from ...xla.sharded import (_held, _mesh_of, _own_sharding, _SpmdEntry, chosen_inputs,
                            compile_lowered, gspmd_sharding, lower_partitioned, to_argument,
                            typed_outputs)
from ...xla.sharding import GSPMDSharding, SingleDeviceSharding, as_mesh_sharding
from ..api_util import PytreeLeaf
from . import refs as jit_refs
from .args import (check_arg_layouts, device_mismatch, layout_modes, prefix_flat, result_paths,
                   static_key)
from .cache import ON_ONE_DEVICE, stage_key
from .pinned import refuse_mesh


def _is_sharding(s) -> bool:
    return s is None or isinstance(s, (NamedSharding, PartitionSpec, SingleDeviceSharding,
                                       GSPMDSharding))


def _flat_shardings(given, tree, what) -> list:
    """One sharding (or None) per leaf of `tree`, from jit's in/out_shardings (a prefix)."""
    if _is_sharding(given):
        return [as_mesh_sharding(resolve(given, f"jit's {what}"))] * len(tree_flatten(tree)[0])
    flat = prefix_flat(given, tree, what, _is_sharding)
    return [as_mesh_sharding(resolve(s, f"jit's {what}")) for s in flat]


def _donated_originals(entry, leaves, placed) -> None:
    """Delete each donated Array the call moved to its input layout first (the copy was
    donated): JAX's jit deletes the array passed, wherever it lay (pmap's: not)."""
    c = len(entry.const_bufs)
    for i in entry.exe.donated:
        leaf = leaves[i - c] if i >= c else None
        if type(leaf) is Array and placed[i] is not leaf and not leaf.is_deleted():
            leaf.delete()


def _check_committed(leaves, own, given) -> None:
    """JAX's error for an Array committed to a mesh layout other than jit's in_shardings say
    for it (an uncommitted one moves; host data is placed as they say), and its
    NotImplementedError for an uncommitted one over several devices that they leave open."""
    for leaf, o, s in zip(leaves, own, given):
        if s is None and isinstance(o, NamedSharding) and o.num_devices > 1 and type(leaf) is \
                Array and not leaf._committed:
            raise NotImplementedError("Having uncommitted Array sharded on multiple devices is "
                                      "not supported.")
        if isinstance(o, NamedSharding) and isinstance(s, NamedSharding) and \
                type(leaf) is Array and s.memory_kind is not None and \
                s.memory_kind != (o.memory_kind or "device"):     # (JAX checks this first)
            raise ValueError(f"Memory kinds passed to jax.jit does not match memory kind on "
                             f"the respective arg. Got jit memory kind: {s.memory_kind}, arg "
                             f"memory kind: {o.memory_kind} for arg type: "
                             f"{leaf.aval.str_short()}")
        if isinstance(o, NamedSharding) and isinstance(s, NamedSharding) and \
                type(leaf) is Array and leaf._committed and \
                not o.is_equivalent_to(s, len(leaf.shape)):
            raise ValueError(f"Sharding passed to jit does not match the sharding on the "
                             f"respective arg. Got jit sharding: {s!r},\narg sharding: {o!r} "
                             f"for arg type: {leaf.dtype.name}[{','.join(map(str, leaf.shape))}]")


def _check_fit(what, names, avals, shardings) -> None:
    """JAX's error for a sharding that cannot split its value (naming the value)."""
    for name, aval, s in zip(names, avals, shardings):
        if not isinstance(s, NamedSharding):
            continue
        try:
            s.check_shape(aval.shape)
        except ValueError as e:
            if type(e) is not ValueError:            # IndivisibleError: as it is, as in JAX
                raise
            raise ValueError(f"One of pjit {what} with pytree key path {name} is incompatible "
                             f"with its sharding annotation {s!r}: {e}") from None


def _committed_device(x):
    """The device of an Array (or typed keys' data) committed to one device, else None."""
    data = placed_data(x)
    return data._buf._sharding._devices[0] if data is not None and data._buf._committed \
        else None


def _check_devices(jitted, closed, flat_in, flat_out, leaves, names, own) -> None:
    """JAX's error for shardings over other devices than each other, or over the same ones in
    another order (JAX's device assignment is ordered: a mesh of the devices reordered is
    another program's; device_put moves an array between them). A pjit called in a `with
    mesh:` block runs on that mesh's devices: its committed arguments must lie there."""
    def concrete(s):
        return isinstance(s, NamedSharding) and not isinstance(s.mesh, AbstractMesh)
    mesh = legacy_mesh() if jitted._pjit else None
    if mesh is not None:
        flat_in = [o if o is not None and getattr(x, "committed", False) else s
                   for o, s, x in zip(own, flat_in, leaves)]
    # a used argument committed to one device (none given for it) places the program there,
    # as JAX's finalize_arg_sharding keeps its SingleDeviceSharding: elsewhere, JAX's error;
    # the shardings inside are those of the equations left after dead-code elimination
    used = used_inputs(closed.jaxpr)[len(closed.jaxpr.invars) - len(leaves):] \
        if not jitted._keep_unused else [True] * len(leaves)
    found = [(mesh._flat_devices, "jit's context mesh")] if mesh is not None else []
    for s, x, u in zip(flat_in, leaves, used):     # (JAX's jit drops the unused first)
        if concrete(s) and u:
            found.append((s._device_assignment, "ARG_SHARDING"))
        elif s is None and u and _committed_device(x) is not None:
            found.append(((_committed_device(x),), "ARG_SHARDING"))
    found += [(s._device_assignment, "explicit output sharding") for s in flat_out
              if concrete(s)] + located_inside(dce_jaxpr(closed.jaxpr))
    if found:
        name = getattr(jitted._fun, "__qualname__", None) or jitted._name
        device_mismatch(name, names, leaves, found)


def _single_devices(jitted, mesh, flat_in, flat_out, leaves, names) -> tuple:
    """(flat_in, flat_out) with each SingleDeviceSharding as a NamedSharding over `mesh`,
    where `mesh` is that one device; else JAX's ValueError naming the devices that differ
    (a jit on one device only: transforms/args.pinned_device)."""
    if not any(isinstance(s, SingleDeviceSharding) for s in flat_in + flat_out):
        return flat_in, flat_out
    found = [(mesh._flat_devices, "jit's context mesh")] if mesh is not None and not any(
        isinstance(s, NamedSharding) for s in flat_in + flat_out) else []
    found += [(s._device_assignment, "ARG_SHARDING") for s in flat_in if s is not None]
    found += [(s._device_assignment, "explicit output sharding") for s in flat_out
              if s is not None]
    name = getattr(jitted._fun, "__qualname__", None) or jitted._name
    device_mismatch(name, names(), leaves, found)
    one = NamedSharding(mesh, PartitionSpec())

    def named(shardings):
        return [one if isinstance(s, SingleDeviceSharding) else s for s in shardings]
    return named(flat_in), named(flat_out)


def _output_names(out_struct) -> list:
    return ["result" + keystr(path) for path, _ in tree_flatten_with_path(out_struct)[0]]


def _hashable(shardings):
    leaves, tree = tree_flatten(shardings, is_leaf=_is_sharding)
    return tree, tuple(leaves)


def call_jitted(jitted, args, leaves, treedef, statics, avals, dyn_args, dyn_kwargs,
                context=False, bind_jit=None):
    """Run a `jit` with shardings (or with sharded arguments): compile once per signature.
    `context`: called only for the mesh set_mesh set. `bind_jit(args, jaxpr, name,
    keep_unused)`: a jit equation's bind (primitive.py's, which loads this module), for a jit
    reading or writing Refs (_with_refs)."""
    key = call_key(jitted, treedef, avals, statics, leaves)
    entry = jitted._cache.get(key)
    if entry is ON_ONE_DEVICE:               # its split arguments unused: see _on_one_device
        return entry
    if entry is None:
        with_refs = jitted._with_refs
        if with_refs and key in with_refs:         # (traced once: see _with_refs)
            return _with_refs(jitted, key, leaves, bind_jit)
        closed, out_tree, trace_s, new = _shared_trace(jitted, treedef, statics, avals,
                                                       dyn_args, dyn_kwargs)
        refuse_mesh(jitted, closed, leaves, dyn_args, dyn_kwargs,    # (a pinned jit inside)
                    get_mesh() if on_context_mesh() else None)
        if not context and _on_one_device(jitted, closed, leaves):
            jitted._cache[key] = ON_ONE_DEVICE
            return ON_ONE_DEVICE
        if jit_refs.uses_refs(closed):
            if jitted._in_shardings is not None or jitted._out_shardings is not None:
                raise NotImplementedError(
                    f"{jitted._name} reads or writes a Ref, and is a jit with shardings: "
                    f"jxkernel threads Refs through a jit without them only so far. Pass the "
                    f"Ref's value in and return the new one, then write the Ref outside.")
            jaxpr, consts = convert_constvars_to_invars(closed)
            if jitted._with_refs is None:
                jitted._with_refs = {}
            jitted._with_refs[key] = (closed, out_tree, jaxpr, consts)
            return _with_refs(jitted, key, leaves, bind_jit)
        plan = Partitioning(jitted, closed, out_tree, leaves, dyn_args, dyn_kwargs)
        entry, phases = plan.compile(trace_s, jitted._compiler_options)
        jitted._cache[key] = entry
        jitted._record(treedef, statics, avals, dyn_args, dyn_kwargs, phases,
                       plan.mesh.devices.flat[0], closed, new,
                       host_reads=jit_refs.host_reads(closed))
        _remember_fast(jitted, args, statics, dyn_args, dyn_kwargs, leaves, avals, entry)
    else:
        entry.hits += 1
    placed = entry.arguments(leaves)
    outs = entry.exe.call_buffers(placed)
    if entry.exe.donated and not jitted._keeps_moved_donors:
        _donated_originals(entry, leaves, placed)
    if config.jax_debug_key_reuse:     # the key arguments checked and marked, as on one device
        _trace.key_reuse.jit_call(entry.jaxpr, leaves, outs)
    return tree_unflatten(entry.out_tree, outs)


def call_key(jitted, treedef, avals, statics, leaves) -> tuple:
    """The key of a call's program in the jit's cache (`.lower()` of the same finds it)."""
    given = jitted._sharding_key
    if given is None:                      # the jit's own shardings, made hashable once
        given = jitted._sharding_key = (_hashable(jitted._in_shardings),
                                        _hashable(jitted._out_shardings))
    # (the trace state holds set_mesh's mesh: a jit run over it compiles again for another;
    # Arrays laid out otherwise than row-major, for their layouts: relayout.arg_layouts)
    return ("sharded", treedef, avals, statics, given, config._trace_state,
            tuple([_placement(_own_sharding(x), x) for x in leaves])) + \
        (relayout.layouts_key(leaves) if relayout.watching else ())


def _placement(sharding, leaf):
    """A leaf's NamedSharding as its program sees it: the spec padded with None to the leaf's
    rank (a matrix put with P('x') and one put with P('x', None) are one layout, one program,
    as JAX compiles them: a fix that puts an array as before finds the earlier program)."""
    if sharding is None:
        return None
    spec = sharding.spec
    missing = len(getattr(leaf, "shape", ())) - len(spec)
    return (sharding.mesh, (*spec.partitions, *[None] * missing), spec.unreduced, spec.reduced,
            sharding.memory_kind)


def _shared_trace(jitted, treedef, statics, avals, dyn_args, dyn_kwargs) -> tuple:
    """(ClosedJaxpr, out_tree, trace seconds, whether new): traced once per types for calls and
    stages alike (JAX's tracing cache: a call and `.lower()` trace once; cache.stage_key)."""
    key = stage_key(jitted, (treedef, avals, statics, config._trace_state))
    found = jitted._traces.get(key)
    if found is not None:
        return found[3], found[2], 0.0, False
    closed, out_tree, trace_s = _record.traced_held(jitted, treedef, statics, avals, dyn_args,
                                                    dyn_kwargs)    # (misses in JAX's order)
    jaxpr, consts = convert_constvars_to_invars(closed)
    if not jit_refs.uses_refs(closed) and not any(isinstance(c, _trace.Tracer) for c in consts):
        jitted._traces[key] = (jaxpr, consts, out_tree, closed)
    return closed, out_tree, trace_s, True


def compiled_before(traced):
    """The program a call (or an earlier `.compile()`) compiled for the signature `traced`
    was traced at, or None."""
    treedef, avals, statics, _ = traced._signature
    entry = traced.jitted._cache.get(call_key(traced.jitted, treedef, avals, statics,
                                              traced._leaves))
    return entry if isinstance(entry, _SpmdEntry) else None


def share_compiled(traced, entry) -> None:
    """A `.compile()`'s program as the calls' at its signature (JAX's call after
    `.lower(x).compile()` compiles nothing), unless those calls run on one device."""
    jitted, leaves = traced.jitted, traced._leaves
    try:
        if _on_one_device(jitted, traced.jaxpr, leaves):
            return
    except Exception:           # (the call says why, in its own words)
        return
    treedef, avals, statics, _ = traced._signature
    jitted._cache.setdefault(call_key(jitted, treedef, avals, statics, leaves), entry)


def _on_one_device(jitted, closed, leaves) -> bool:
    """Whether JAX runs this jit, called with split arguments, on the default device: no
    shardings given, none inside, no set_mesh, and every split argument unused (JAX's jit
    drops those before it assigns devices, unless keep_unused=True):
    `jit(lambda x, y: y * 2)(x_split, y)` gives a SingleDeviceSharding result. A result typed
    over a mesh of Explicit axes then raises JAX's device-assignment error here."""
    if jitted._in_shardings is not None or jitted._out_shardings is not None or \
            jitted._constraint_mesh is not None or get_mesh() is not None:
        return False
    # a Ref passed or closed over is always used (JAX keeps it): its value's mesh decides
    refs = [jit_refs.the_ref(c, leaves) for c in closed.consts if jit_refs.is_ref(c)]
    if any(placement(_held(r)) is not None for r in refs):
        return False
    if deciding_sharding(closed, [placement(x) for x in leaves if not jit_refs.is_ref(x)], (),
                         jitted._keep_unused) is not None:
        return False
    check_device_assignment(closed.out_avals, 1)
    return True


def _with_refs(jitted, key, leaves, bind_jit):
    """A jit reading or writing Refs, run over the mesh (the arguments', or set_mesh's) as a
    jit equation is eagerly (primitive.py's impl: xla/sharded.run_jaxpr, which caches its
    program by the jaxpr, kept here per signature): each Ref's value passed in, the final
    values of those it writes written back, as jit.py's `_bind` does."""
    closed, out_tree, jaxpr, consts = jitted._with_refs[key]
    refs = jit_refs.ref_positions(leaves)
    args = [*jit_refs.values_for(consts, leaves), *jit_refs.without_refs(leaves, refs)]
    outs = bind_jit(args, jaxpr, jitted._name, jitted._keep_unused)
    return tree_unflatten(out_tree, jit_refs.write_back(closed, outs, leaves))


class _Checked:
    """The executable as jit's fast path calls it (with the arguments' buffers): it runs only
    if every buffer is laid out as compiled for, else a ValueError sends the call back to the
    general path (the fast path's key looks at the first argument's layout only)."""
    __slots__ = ("exe", "layouts", "const_bufs")

    def __init__(self, exe, layouts, const_bufs):
        self.exe, self.layouts, self.const_bufs = exe, layouts, const_bufs

    def call_buffers(self, bufs) -> list:
        for b, layout in zip(bufs, self.layouts):
            if b._sharding is not layout and b._sharding != layout:
                raise ValueError("an argument is laid out otherwise than compiled for")
        return self.exe.call_buffers(self.const_bufs + bufs if self.const_bufs else bufs)


class _FastEntry:
    """What jit's fast path reads: the checked executable; hits count on the cached entry."""
    __slots__ = ("exe", "out_tree", "entry", "last_hit")
    const_bufs = []                           # (the checked executable passes its own)
    look_at = NEVER                           # (no watch looks at a sharded program's calls)

    def __init__(self, exe, entry):
        self.exe, self.out_tree, self.entry = exe, entry.out_tree, entry
        self.last_hit = None                  # as cache.Entry.last_hit

    hits = property(lambda self: self.entry.hits,
                    lambda self, n: setattr(self.entry, "hits", n))


def _remember_fast(jitted, args, statics, dyn_args, dyn_kwargs, leaves, avals,
                   entry) -> None:
    """Put `entry` in jit's fast path (Jitted.__call__), under the key it builds there, when
    every argument is an Array given positionally, laid out as compiled for (else each call
    moves it: the general path), and nothing is donated."""
    if dyn_kwargs or not leaves or entry.exe.donated or config.jax_default_device is not None \
            or not all(isinstance(x, Array) for x in leaves):
        return
    if entry.exe.devices[0].platform == "numpy":    # its buffers over a mesh share one
        return                                      # placement, whatever their layout

    layouts = [gspmd_sharding(s, len(a.shape)) for s, a in zip(entry.in_shardings, avals)]
    if not all(x._buf._sharding is s or x._buf._sharding == s for x, s in zip(leaves, layouts)):
        return
    # (keyword arguments here are all static, given back in their call's order by split)
    kwargs = {name: value for name, value, pos in statics if pos is None}
    key = (_registry.flatten(dyn_args)[1], avals, leaves[0]._buf._sharding,
           config._trace_state, static_key(args, kwargs, jitted._static_at)) + (
        relayout.layouts_key(leaves) if relayout.watching else ())
    jitted._fast[key] = _FastEntry(_Checked(entry.exe, layouts, list(entry.const_bufs)), entry)


class Partitioning:
    """A sharded jit lowered for one signature: its mesh, each input's and output's sharding
    and the lowered `module`; `compile()` gives what `jit` caches (kept as `entry`). Also what
    `.lower()` of a sharded jit holds (jit.py's Lowered)."""
    entry = None                  # its program, once compiled
    _layouts = None               # jit's Formats' layouts (args.layout_modes), or None

    @staticmethod
    def again(traced, locations) -> Partitioning:
        """`traced` partitioned again, its ops located (Lowered.as_text(debug_info=True))."""
        return stage_partitioning(traced, locations)

    abstract = None     # lowered over this AbstractMesh alone, for no devices (stage_abstract)

    def __init__(self, jitted, closed, out_tree, leaves, dyn_args, dyn_kwargs, locations=False,
                 lower=True, platforms=None):
        given_in = jitted._in_shardings
        given_out = jitted._out_shardings
        if given_in is not None and dyn_kwargs:
            raise ValueError("pjit does not support kwargs when in_shardings is specified.")
        jaxpr = closed.jaxpr
        flat_in = [None] * len(leaves) if given_in is None else \
            _flat_shardings(given_in, dyn_args, "in_shardings")
        own = [_own_sharding(x) for x in leaves]
        given = flat_in
        # (an argument sharded by its own sharding carries its mesh in its type, as in JAX)
        self.carrying = [getattr(s, "mesh", None) for s in own]
        flat_in = [s if s is not None else o for s, o in zip(flat_in, own)]
        leaf_names = jitted._leaf_names(dyn_args, dyn_kwargs)
        _check_fit("arguments", leaf_names, jaxpr.in_avals, flat_in)
        _check_committed(leaves, own, given)       # (after the fit: JAX's order of errors)
        in_tree = tree_flatten((dyn_args, dyn_kwargs))[1]      # (as the trace's)
        check_arg_layouts(jitted, closed, in_tree, out_tree, leaves)
        out_struct = tree_unflatten(out_tree, [PytreeLeaf()] * len(jaxpr.outvars))
        flat_out = [None] * len(jaxpr.outvars) if given_out is None else \
            _flat_shardings(given_out, out_struct, "out_shardings")
        _check_fit("outputs", _output_names(out_struct), jaxpr.out_avals, flat_out)
        self.given_out_shardings = flat_out      # (jax.export records these, not the typed)
        # JAX's devices for the program (its used inputs', the given outputs', those inside,
        # set_mesh's, else one) must fit a result typed over a mesh of Explicit axes
        check_device_assignment(jaxpr.out_avals, lambda: program_devices(
            jaxpr, flat_in, flat_out, jitted._keep_unused))
        flat_out = typed_outputs(jaxpr.out_avals, flat_out)
        # else the mesh set by set_mesh, as JAX's device assignment (pxla's
        # _get_and_check_device_assignment)
        self.mesh = mesh = _mesh_of(flat_in + flat_out) or jitted._constraint_mesh or \
            get_mesh()
        if isinstance(mesh, AbstractMesh):
            # the first sharding over an AbstractMesh (or a constraint's inside): JAX runs the
            # program on the devices of a later one over a device Mesh, else of the mesh set
            # by set_mesh (its device assignment, which the AbstractMesh must fit)
            devices = next((s.mesh for s in flat_in + flat_out if isinstance(s, NamedSharding)
                            and not isinstance(s.mesh, AbstractMesh)), None) or get_mesh()
            self.mesh = mesh = concrete_mesh(mesh, devices)
        flat_in, flat_out = _single_devices(jitted, mesh, flat_in, flat_out, leaves,
                                            lambda: leaf_names)
        _check_devices(jitted, closed, flat_in, flat_out, leaves, leaf_names, own)
        self.replicated = replicated = NamedSharding(mesh, PartitionSpec())
        self.user_shardings = flat_in
        # (one given over an AbstractMesh: the arguments are laid out on the program's devices)
        self.in_shardings = [placed_on(mesh, s) if s is not None else replicated
                             for s in flat_in]
        # an argument with no sharding of its own nor given (host data, an uncommitted Array)
        # is left to XLA's propagation, as JAX leaves it (no sdy.sharding on the parameter):
        # a constraint on it lays it out; compile() reads XLA's choice back. A scalar has one
        # layout (JAX writes it replicated); the NumPy backend's programs take every input as
        # given: replicated there
        numpy = mesh._flat_devices[0].platform == "numpy"
        self.open_in = [s is None and bool(a.shape) and not numpy
                        for s, a in zip(flat_in, jaxpr.in_avals)]
        self._xla_open = [s is None and bool(a.shape) for s, a in zip(flat_in, jaxpr.in_avals)]
        # (an untyped result is laid out as XLA's propagation chooses and its choice types it,
        # as JAX's _concretize_abstract_out_shardings; under set_mesh over Explicit axes the
        # results JAX types over the context's mesh are typed here too: sharding_types'
        # _on_context_mesh)
        self.out_shardings = flat_out = typed_outputs(jaxpr.out_avals, flat_out)
        n_consts = len(jaxpr.constvars)
        donated = jitted._donated_leaves(dyn_args, dyn_kwargs) or (False,) * len(leaves)
        self.donated = (False,) * n_consts + tuple(donated)
        self.closed, self.out_tree, self.name = closed, out_tree, jitted._name
        self._lowering = (
            closed, self.name, mesh, [replicated] * n_consts + [
                None if o else s for o, s in zip(self.open_in, self.in_shardings)], flat_out,
            self.donated, locations, result_paths(out_tree), leaf_names, jitted._keep_unused)
        # (jit's Formats' layouts, and committed Arrays' other than row-major; or None)
        self._layouts = layout_modes(jitted, closed, in_tree, out_tree, arg_layouts(leaves))
        self.module = lower_partitioned(*self._lowering, layouts=self._layouts,
                                        platforms=platforms) if lower else None

    def over_devices(self, traced, devices) -> Partitioning:
        """`traced` (lowered over this AbstractMesh alone) partitioned over `devices`."""
        return stage_abstract(traced, devices=devices, abstract=self.abstract)

    def cpu_text(self) -> str:
        """The StableHLO text XLA's CPU would run for this partitioning (the NumPy backend's
        module holds the jaxpr, unlowered: Lowered.as_text lowers it when first asked)."""
        closed, name, mesh, _, *rest = self._lowering
        n_consts = len(closed.jaxpr.constvars)
        args = [self.replicated] * n_consts + [
            None if o else s for o, s in zip(self._xla_open, self.in_shardings)]
        return lower_partitioned(closed, name, mesh, args, *rest, platforms=("cpu",),
                                 layouts=self._layouts).text

    def typed_in_avals(self) -> list:
        """The inputs' types, each typed by its sharding over Explicit axes (`float32[8@x,2]`),
        as JAX's Lowered.in_avals (update_aval_with_sharding)."""
        avals = self.closed.in_avals
        typed = [None if s is None else typed_sharding(s, len(a.shape))
                 for a, s in zip(avals, self.user_shardings)]
        return [a if t is None else a.update(sharding=NamedSharding(  # (over the AbstractMesh)
            getattr(t.mesh, "abstract_mesh", t.mesh), t.spec)) for a, t in zip(avals, typed)]

    def out_structs(self) -> list:
        """JAX's Lowered.out_info: a ShapeDtypeStruct per output, with its given sharding or
        the one its type says (over this mesh's devices), else none."""
        given = typed_outputs(self.closed.out_avals, self.given_out_shardings)
        return [ShapeDtypeStruct(a.shape, a.dtype, sharding=s if s is None or not isinstance(
                    s.mesh, AbstractMesh) else s.update(mesh=concrete_mesh(s.mesh, self.mesh)))
                for a, s in zip(self.closed.out_avals, given)]

    def compile(self, trace_s=0.0, compiler_options=None, keep=True) -> tuple:
        """(_SpmdEntry, Phases); `trace_s`: what tracing took, for the record. `keep`: the
        program calls run from now on (not one compiled with a `.compile()`'s own options)."""
        # (a result named by an argument's sharding over an AbstractMesh: over the devices)
        users = [placed_on(self.mesh, s) if isinstance(s, NamedSharding) else s
                 for s in self.user_shardings]
        exe, phases = compile_lowered(self.module, self.closed, self.name, self.mesh,
                                      self.out_shardings, users, trace_s,
                                      self.carrying, compiler_options)
        if any(self.open_in):            # the layouts XLA chose for them: where calls put them
            self.in_shardings = chosen_inputs(exe, self.mesh, self.in_shardings, self.open_in,
                                              self.closed.in_avals, len(self.closed.consts))
        const_bufs = tuple(to_argument(c, self.replicated) for c in self.closed.consts)
        entry = _SpmdEntry(exe, self.in_shardings, const_bufs, self.out_tree, self.closed,
                           self.module.text, self)
        if keep:
            self.entry = entry
        return entry, phases

    def compiled(self, lowered, compiler_options=None) -> tuple:
        return _compiled(self, lowered, compiler_options)


def _compiled(plan, lowered, compiler_options=None) -> tuple:
    """(entry, Phases or None) of `Lowered.compile()` of a jit over a mesh: the program its
    calls (or an earlier `.compile()`) compiled from this lowering (None: no compile), else
    compiled now, and theirs from now on (JAX's lowering keeps its executable). XLA options
    beyond the jit's own (`compiler_options`, the jit's and the `.compile()`'s merged): a
    program of that `.compile()` alone, as a single device's."""
    own = lowered.traced.jitted._compiler_options or None
    if compiler_options and compiler_options != own:
        return plan.compile(lowered.traced.trace_s, compiler_options, keep=False)
    if plan.entry is not None:
        return plan.entry, None
    entry, phases = plan.compile(lowered.traced.trace_s, own)
    if lowered.traced._signature is not None:
        share_compiled(lowered.traced, entry)
    return entry, phases


def stage_partitioning(traced, locations=False, lower=True) -> Partitioning:
    """The Partitioning of a traced sharded jit (`jit(f, in_shardings=...).trace(x)`), as a
    call at its signature lowered it (JAX's lowering cache); `lower` False: no module."""
    found = None if locations or getattr(traced, "_signature", None) is None else \
        compiled_before(traced)
    if found is not None and found.lowered is not None and found.jaxpr is traced.jaxpr:
        return found.lowered
    dyn_args, dyn_kwargs = tree_unflatten(traced._in_tree, traced._leaves)
    return Partitioning(traced.jitted, traced.jaxpr, traced.out_tree, traced._leaves, dyn_args,
                        dyn_kwargs, locations, lower)


def stage_abstract(traced, platforms=None, devices=None, abstract=None) -> Partitioning:
    """The Partitioning of a traced jit whose only mesh is an AbstractMesh (no set_mesh): JAX
    lowers it for `lowering_platforms` with no devices, and compiles it for the devices given
    to `.compile(device_assignment=)`. jxkernel lowers it over a stand-in of this process's
    first devices (its module names mesh positions only), `abstract` set to that mesh; and,
    given `devices`, over them (their count checked against `abstract`, the mesh it was
    lowered over, as JAX's maybe_concretize_mesh does)."""
    dyn_args, dyn_kwargs = tree_unflatten(traced._in_tree, traced._leaves)
    stage = lambda: Partitioning(traced.jitted, traced.jaxpr, traced.out_tree, traced._leaves,
                                 dyn_args, dyn_kwargs, platforms=platforms)
    if devices is None:
        try:
            return stage()
        except AbstractMeshOnlyError as e:
            abstract, devices = e.abstract, _client.devices()
            if len(devices) < abstract.size:
                raise NotImplementedError(
                    f"lower(lowering_platforms=...) over {abstract}: jxkernel lowers over this "
                    f"process's devices, and it has {len(devices)}, fewer than the mesh's "
                    f"{abstract.size}") from None
            devices = devices[:abstract.size]
    else:
        if abstract.size != len(devices):
            named = next((s for s in _given_shardings(traced) if type(s.mesh) is AbstractMesh),
                         abstract)
            raise ValueError(f"The size of abstract mesh {abstract.size} in {named} must "
                             f"match the length of device assignment: {len(devices)}")
    with set_mesh(mesh_of_devices(abstract, devices)):
        out = stage()
    out.abstract = abstract
    return out


def _given_shardings(traced) -> list:
    """The NamedShardings a traced jit's arguments and in/out_shardings name, in JAX's order
    (its in_shardings, then its out_shardings)."""
    dyn_args, _ = tree_unflatten(traced._in_tree, traced._leaves)
    jitted = traced.jitted
    given_in = [] if jitted._in_shardings is None else \
        _flat_shardings(jitted._in_shardings, dyn_args, "in_shardings")
    own = [s if s is not None else _own_sharding(x) for s, x in
           zip(given_in or [None] * len(traced._leaves), traced._leaves)]
    out_struct = tree_unflatten(traced.out_tree, [PytreeLeaf()] * len(traced.jaxpr.outvars))
    given_out = [] if jitted._out_shardings is None else \
        _flat_shardings(jitted._out_shardings, out_struct, "out_shardings")
    return [s for s in own + given_out if isinstance(s, NamedSharding)]


def constrained_trace(jitted, treedef, statics, avals, dyn_args, dyn_kwargs) -> tuple:
    """(ClosedJaxpr, out_tree) of a jit with shardings traced under another transformation:
    its in/out_shardings become sharding constraints on its inputs and outputs, so that
    grad(jit(f, in_shardings=...)) and the like keep them (a jit equation has no shardings)."""
    flat_in = [None] * len(avals) if jitted._in_shardings is None else \
        _flat_shardings(jitted._in_shardings, dyn_args, "in_shardings")
    out_trees: list = []
    inner = jitted._flat_fun(treedef, statics, out_trees)

    def constrain(values, shardings):
        return [x if s is None else sharding_constraint(x, s)
                for x, s in zip(values, shardings)]

    def constrained(*leaves):
        outs = inner(*constrain(leaves, flat_in))
        if jitted._out_shardings is None:
            return outs
        struct = tree_unflatten(out_trees[-1], [0] * len(outs))
        return constrain(outs, _flat_shardings(jitted._out_shardings, struct, "out_shardings"))
    info = DebugInfo(jitted._name, jitted._source, "jit", jitted._leaf_names(dyn_args, dyn_kwargs))
    return trace_to_jaxpr(constrained, list(avals), info), out_trees[0]
