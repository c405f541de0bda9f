"""A shard_map run eagerly, device by device. As in JAX 0.10.2, a shard_map called outside
any transformation runs its body eagerly: each value in the body is one block per device (a
ShardMapTracer), each primitive runs at once on every device's blocks (a small shard_map of
that one primitive), and `print(x)` in the body shows each device's block. Inside jit (or
grad, vmap, ...) the body is traced instead (call.py).
"""
from __future__ import annotations

import contextlib

import numpy as np

from ...core import vma
from ...core.avals import NO_UR, get_aval
from ...core.axis_env import bound_axis
from ...core.interpret import eval_jaxpr
from ...core.lru import LRU, PROGRAMS
from ...core.primitive import abstract_eval_rules
from ...core.mesh import NamedSharding, _mesh_state
from ...core.staging import _closed_over_explicit, trace_to_jaxpr
from ...core.trace import EvalTrace, Trace, Tracer, current_trace, new_trace, set_current_trace
from ...lax.shapes import expand_dims, squeeze
from ...transforms.api_util import flatten_fun
from ...tree_util import tree_unflatten
from ...core.config import config
from ...xla.array import Array
from ...xla.dispatch import invalid_value
from ...xla.put import device_put
from .checks import _check_out_ranks, _flat_out_specs
from .primitive import P, _axes_bound, _bodies, _local_aval, _manual_abstract


def _runs_eagerly(mesh, manual) -> bool:
    """Called outside any transformation and any body, manual over the whole mesh."""
    return type(current_trace()) is EvalTrace and not _bodies and \
        manual == frozenset(mesh.axis_names)


def _every(mesh) -> P:
    """A leading dimension split over every mesh axis: one row per device, in mesh order."""
    return P(tuple(mesh.axis_names))


def _add_singleton(x):
    return expand_dims(x, (0,))


def _rem_singleton(x):
    return squeeze(x, (0,))


_eager_maps = LRU(PROGRAMS)  # what each eager step runs, so its trace and program are reused


def _staged_map(key, make):
    """The shard_map `make()` builds (traced and compiled once per `key`)."""
    found = _eager_maps.get(key)
    if found is None:
        found = _eager_maps[key] = make()
    return found


class _outside_the_body:
    """While an eager body runs, its steps run as programs of their own: not typed by the
    body's check_vma (JAX runs them with the body's types erased too)."""

    def __enter__(self):
        self.saved = vma.checked[:]
        vma.checked.clear()
        self.abstract, _mesh_state.abstract = _mesh_state.abstract, _outer_abstract[-1] \
            if _outer_abstract else _mesh_state.abstract

    def __exit__(self, *exc):
        vma.checked[:] = self.saved
        _mesh_state.abstract = self.abstract


# get_abstract_mesh() outside each eager body being run (innermost last): its steps run there
_outer_abstract: list = []


@contextlib.contextmanager
def _manual_context(mesh, manual):
    """While an eager body runs, get_abstract_mesh() is the mesh with its manual axes typed
    Manual, as in a traced body (and as JAX's eager body sees it)."""
    _outer_abstract.append(_mesh_state.abstract)
    _mesh_state.abstract = _manual_abstract(mesh, manual)
    try:
        yield
    finally:
        _mesh_state.abstract = _outer_abstract.pop()


def _stacked(x, spec, mesh, staged):
    """`x` (split as `spec`) as one row per device: each device's block, stacked."""
    return _staged_map(("stack", spec, mesh), lambda: staged(
        _add_singleton, mesh, spec, _every(mesh)))(x)


def _unstacked(val, aval, spec, mesh, check_vma, staged):
    """The per-device blocks `val` put together as `spec` says: JAX's way, one row per
    coordinate of the axes the blocks vary over, then a shard_map of `_rem_singleton` from
    there to `spec` (so an out_spec leaving out one of those axes raises its error, naming
    `_rem_singleton`, as JAX's does)."""
    if check_vma and (spec.unreduced or spec.reduced or aval.ur is not NO_UR):
        return _summed_blocks(val, aval, spec, mesh, staged)
    varying = [a for a in mesh.axis_names if a in aval.vma] if check_vma else \
        list(mesh.axis_names)
    src = P(tuple(varying)) if varying else P()
    rows = _staged_map(("rows", src, mesh), lambda: staged(lambda b: b, mesh, _every(mesh),
                                                              src))(val)
    out = _staged_map(("match", src, spec, mesh, check_vma), lambda: staged(
        _rem_singleton, mesh, src, spec, check_vma))(rows)
    # JAX's eager result carries `spec` as written (P(None,) stays itself, where the compiled
    # step's sharding reads P(); under jit both read P())
    sharding = getattr(out, "sharding", None)
    if isinstance(sharding, NamedSharding) and sharding.spec != spec:
        out = device_put(out, NamedSharding(mesh, spec))
    return out


def _summed_blocks(val, aval, spec, mesh, staged):
    """The per-device blocks `val` of a value unreduced or reduced over some axes (`aval`'s),
    or to be made unreduced over an out_spec's (JAX's vary_unreduced_cast, with its errors),
    put together as `spec` says: each device's block is its summand, or its copy."""
    unreduced, _ = aval.ur
    extra = spec.unreduced - unreduced
    if extra:
        with vma.checking(mesh.axis_names, mesh.axis_names):
            aval = abstract_eval_rules[vma.vary_unreduced_cast_p](
                aval, axes=vma.in_mesh_order(extra))
    for kind, have, want in zip(("unreduced", "reduced"), aval.ur, (spec.unreduced,
                                                                    spec.reduced)):
        if have != want:
            raise ValueError(f"out_specs passed to shard_map should be equal to the {kind} "
                             f"present on the out_aval. Got out_specs={spec} and "
                             f"out_aval={aval.str_short(True)}")
    out = _staged_map(("sets", spec, mesh), lambda: staged(
        _rem_singleton, mesh, _every(mesh), spec))(val)
    sharding = getattr(out, "sharding", None)      # (spec as written, as _unstacked's)
    if isinstance(sharding, NamedSharding) and sharding.spec != spec:
        out = device_put(out, NamedSharding(mesh, spec))
    return out


class ShardMapTracer(Tracer):
    """A value of a shard_map body run eagerly: `val` holds every device's block, stacked
    (one row per device, in mesh order); its type is one block's, varying over the axes the
    blocks may differ along.

        On cpu:0 at mesh coordinates (i,) = (0,):          (what print shows)
        [0. 1. 2.]
    """
    __slots__ = ("val", "_aval")

    def __init__(self, trace, val, aval):
        self._trace, self.val, self._aval = trace, val, aval

    aval = property(lambda self: self._aval)

    def to_concrete_value(self):
        # the same on every device: Python may read it (the first device's block)
        return None if self._aval.vma else np.asarray(self.val)[0]

    def __str__(self):
        mesh = self._trace.mesh
        names = f"({', '.join(map(str, mesh.axis_names))},)"
        blocks = np.asarray(self.val)
        return "\n".join(f"On {device} at mesh coordinates {names} = {idx}:\n{block}\n"
                         for (idx, device), block in zip(np.ndenumerate(mesh.devices), blocks))

    __repr__ = __str__

    def _short_repr(self):
        return f"ShardMapTracer({self._aval.str_short(True)})"


class ShardMapTrace(Trace):
    """The trace of a body run eagerly: each primitive runs at once on every device's
    blocks, as a shard_map of that one primitive made by `staged`."""

    # (jax.new_ref and jax.empty_ref read it: a Ref is a program's, not a value's)
    no_refs = "Eager shard_map cannot return a `jax.Ref`. Please wrap your shard_map in `jax.jit`."
    # (jax.device_put calls it on the devices it is given)
    refuse_device_put = staticmethod(lambda devices: refuse_device_put(devices))

    def __init__(self, parent, mesh, check_vma, staged):
        super().__init__(parent)
        self.mesh, self.check_vma, self.staged = mesh, check_vma, staged

    def unpack(self, x):
        """(stacked blocks or a constant, one block's type, whether stacked)."""
        if type(x) is ShardMapTracer and x._trace is self:
            return x.val, x._aval, True
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return x, get_aval(x), False

    def process_primitive(self, prim, args, params):
        _refuse_eagerly(prim, params)
        vals, avals, stacked = zip(*map(self.unpack, args)) if args else ((), (), ())
        for aval, st in zip(avals, stacked):
            if not st:          # a value closed over: JAX's refusal of one on Explicit axes
                _closed_over_explicit(aval)
        step, out_avals = _eager_step(prim, params, tuple(avals), tuple(stacked), self.mesh,
                                      self.check_vma, self.staged)
        with set_current_trace(self.parent), _outside_the_body():
            outs = step(*vals)
        if config._debug_values:
            _check_sharded(outs)
        outs = [ShardMapTracer(self, o, a) for o, a in zip(outs, out_avals)]
        return outs if prim.multiple_results else outs[0]

    def describe_self(self):
        return f"shard_map (run eagerly over {self.mesh})"


def _refuse_eagerly(prim, params) -> None:
    """JAX's errors for what an eager body cannot do: place a value on a device of its own
    (each device runs the body on its block), or make a Ref (a program's, not a value)."""
    if prim.name == "device_put":
        refuse_device_put(params.get("devices", ()))
    elif prim.name in ("new_ref", "empty_ref"):
        raise ValueError(ShardMapTrace.no_refs)


def refuse_device_put(devices) -> None:
    """JAX's error for a device (or sharding) named to device_put in a body run eagerly (each
    device runs it on its own block; under jit such a device_put is ignored)."""
    for device in devices:
        if device is not None:
            raise ValueError(f"device_put with explicit device not allowed within "
                             f"shard_map-decorated functions, but got device {device}")


def _check_sharded(outs) -> None:
    """jax_debug_nans/infs: a step that made a NaN/inf raises JAX's FloatingPointError for an
    eager shard_map (a de-optimized pmap's too), naming no operation: each step is one."""
    kind = invalid_value([o for o in outs if isinstance(o, Array)])
    if kind is not None:
        raise FloatingPointError(f"Invalid value ({kind}) encountered in sharded computation.")


def _eager_step(prim, params, avals, stacked, mesh, check_vma, staged):
    """(a function of the stacked blocks and constants giving the results' stacked blocks,
    the results' types): `prim` traced on one block's types, run on every device."""
    try:
        key = (prim, tuple(params.items()), avals, stacked, mesh, check_vma)
        hash(key)
    except TypeError:
        key = None
    found = _eager_maps.get(key) if key is not None else None
    if found is not None:
        return found
    manual = frozenset(mesh.axis_names)

    def one(*xs):
        out = prim.bind(*xs, **params)
        return list(out) if prim.multiple_results else [out]
    with _axes_bound(mesh, manual, check_vma):
        closed = trace_to_jaxpr(one, list(avals))

    def step(*blocks):
        xs = [_rem_singleton(b) if s else b for b, s in zip(blocks, stacked)]
        return [_add_singleton(o) for o in eval_jaxpr(closed.jaxpr, closed.consts, *xs)]
    every = _every(mesh)
    run = staged(step, mesh, tuple(every if s else P() for s in stacked), every)
    found = (run, closed.out_avals)
    if key is not None:
        _eager_maps[key] = found
    return found


def _run_eagerly(staged, f, flat_args, in_tree, static, dyn, dyn_specs, avals, out_specs, mesh,
                 check_vma):
    """`f` run eagerly over the blocks of its dynamic arguments `dyn` (split as `dyn_specs`);
    `staged(f, mesh, in_specs, out_specs, check_vma)` is the traced shard_map each step runs
    (call.py's: it is passed in since that module calls this one)."""
    manual = frozenset(mesh.axis_names)
    blocks = [_stacked(x, s, mesh, staged) for x, s in zip(dyn, dyn_specs)]
    local = [_local_aval(a, s, mesh, check_vma) for a, s in zip(avals, dyn_specs)]
    flat, out_tree = flatten_fun(f, in_tree)
    bound = [bound_axis(a, n) for a, n in zip(mesh.axis_names, mesh.axis_sizes)]
    if check_vma:
        bound.append(vma.checking(manual, mesh.axis_names))
    with contextlib.ExitStack() as stack:
        for b in bound:
            stack.enter_context(b)
        trace = stack.enter_context(new_trace(ShardMapTrace, mesh, check_vma, staged))
        stack.enter_context(_manual_context(mesh, manual))
        it = iter([ShardMapTracer(trace, b, a) for b, a in zip(blocks, local)])
        leaves = flat(*[x if s else next(it) for x, s in zip(flat_args, static)])
        outs = [trace.unpack(x) for x in leaves]
    out_struct = tree_unflatten(out_tree(), [0] * len(outs))
    specs = _flat_out_specs(out_specs, out_struct)
    _check_out_ranks(f, out_specs, out_struct, specs, [a for _, a, _ in outs])
    results = [_unstacked(v if st else _stacked(v, P(), mesh, staged), a, s, mesh, check_vma,
                          staged) for (v, a, st), s in zip(outs, specs)]
    return tree_unflatten(out_tree(), results)
