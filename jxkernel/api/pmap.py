"""pmap: run one program on several devices at once, one slice of the mapped axis each.

    >>> pmap(lambda x: x / lax.psum(x, 'i'), axis_name='i')(jnp.arange(4.0))

The function is traced once with per-device shapes into an `xla_pmap` equation
and compiled as a replicated XLA program (one replica per device); collectives
over `axis_name` lower to StableHLO all_reduce / all_gather / replica_id.
Results are Arrays whose leading axis is the device axis, one shard per device.
Under grad/jvp/vmap the equation is transformed like a jit equation, with its
inputs and outputs mapped along axis 0.
"""
from __future__ import annotations

import dataclasses
import weakref

import numpy as np

from ..transforms import stages as _stages
from ..core.avals import ShapedArray, get_aval
from ..core.ir import param_printers
from ..core.lru import LRU, PROGRAMS, SIGNATURES, TRACES, WeakLRU
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules, partial_eval_rules,
                              transpose_rules)
from ..core.axis_env import bound_axis
from ..core.config import config
from ..core.trace import EvalTrace, Tracer, current_trace, set_current_trace
from ..lax.reductions import reduce_sum
from ..lax.shapes import broadcast_in_dim, expand_dims, squeeze
from ..lax.slicing import index_in_dim
from ..transforms import batch_util as bu
from ..transforms.ad_util import Zero, instantiate, is_undefined
from ..tree_util import broadcast_prefix, tree_flatten, tree_unflatten
from ..xla import client as _client
from ..xla.array import Array
from ..xla.multi_device import MultiDeviceArray, device_put_replicated
from ..xla.transfers import device_put
from ..xla.compiler import Phases
from ..xla.executable import Executable
from ..xla.pipeline import compile as compile_module, lower
from ..core import compile_record
from ..transforms.ad import jvp_jaxpr, transpose_jaxpr
from ..transforms.api_util import flatten_fun, merge_static, wraps
from ..transforms.batching import AxisData, batch_jaxpr
from ..core.numpy_eval import eval_closed_jaxpr_numpy
from ..core.partial_eval import partial_eval_jaxpr
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr

xla_pmap_p = Primitive("xla_pmap", multiple_results=True)


def _mapped_aval(aval, size):
    return ShapedArray((size,) + tuple(aval.shape), aval.dtype, aval.weak_type)


def _pmap_abstract_eval(*avals, jaxpr, axis_name, axis_size, mapped_invars, devices, name):
    return [_mapped_aval(a, axis_size) for a in jaxpr.out_avals]


def _pmap_impl(*args, jaxpr, axis_name, axis_size, mapped_invars, devices, name):
    devices, replicas, spans = _pmap_devices(axis_size, devices)
    key = (jaxpr, (axis_name, axis_size, mapped_invars, devices))
    if devices[0].platform == "numpy":     # one device: the body batched over the axis, as vmap
        body = _executables.get(key)
        if body is None:      # NumPy's program: the batched jaxpr, logged as XLA's compile is
            body = _executables[key] = _batched_body(jaxpr, axis_name, axis_size, mapped_invars)
            _log_compile(name, args, Phases(), "numpy")
        outs = eval_closed_jaxpr_numpy(body, *[np.asarray(x) for x in args])
        return [device_put(np.asarray(o, a.dtype), devices[0])
                for o, a in zip(outs, jaxpr.out_avals)]
    args, mapped_invars, jaxpr = _consts_as_inputs(args, mapped_invars, jaxpr)
    exe = _executables.get(key)
    if exe is None:
        module = _lower_pmap(jaxpr, axis_name, replicas, devices, name)
        exe = _executables[key] = _compile_pmap(module, jaxpr, spans, name, args)
    return _run_pmap(exe, args, mapped_invars, axis_size, devices)


def _pmap_devices(axis_size, devices) -> tuple:
    """(devices, replicas, whether they span processes) of a pmap over `axis_size`."""
    devices = devices or tuple(_client.devices()[:axis_size])
    if len(devices) < axis_size:
        # JAX's error (as on a one-device CPU), with what to do on this backend
        numpy = bool(devices) and devices[0].platform == "numpy"
        fix = (f"The 'numpy' backend has one device: use vmap, or XLA's CPU backend "
               f"(JAX_PLATFORMS=cpu) with JXKERNEL_CPU_DEVICES={axis_size}." if numpy else
               f"Set JXKERNEL_CPU_DEVICES={axis_size} (before the first use of jxkernel) to "
               f"simulate more CPU devices.")
        raise ValueError(f"compiling computation that requires {axis_size} logical devices, but "
                         f"only {len(devices)} XLA devices are available (num_replicas="
                         f"{axis_size}). {fix}")
    # devices of several processes (jxkernel.distributed): each process feeds its own slices
    spans = len(devices) > axis_size and _client.process_count() > 1
    return devices, len(devices) if spans else axis_size, spans


def _consts_as_inputs(args, mapped_invars, jaxpr) -> tuple:
    """The consts of a transformed jaxpr as unmapped leading operands."""
    if not jaxpr.consts:
        return args, mapped_invars, jaxpr
    return (list(jaxpr.consts) + list(args), (False,) * len(jaxpr.consts) + tuple(mapped_invars),
            _hoisted(jaxpr))


def _lower_pmap(jaxpr, axis_name, replicas, devices, name):
    """The pmap body as a replicated StableHLO program (a pipeline.Module)."""
    return lower(jaxpr.jaxpr, devices, name=f"pmap_{name}", num_replicas=replicas,
                 axis_env=((axis_name, replicas),))


def _compile_pmap(module, jaxpr, spans, name, args, compiler_options=None):
    exe, phases = compile_module(module, f"pmap({name})", executable=_executable_class(spans),
                                 compiler_options=compiler_options, in_avals=jaxpr.in_avals)
    _log_compile(name, args, phases, _client.platform_of(module.devices[0]))
    return exe


def _log_compile(name, args, phases, platform) -> None:
    """The notebook's count, recompilation notes, Compilations panel and %jxcompiles list
    every program a pmap makes: compiled by XLA, or batched for NumPy (a new shape is a new
    program there too)."""
    compile_record.record_compiled(
        f"pmap({name})", tuple((f"args[{i}]", get_aval(x).str_short())
                               for i, x in enumerate(args)), phases, platform)


def _run_pmap(exe, args, mapped_invars, axis_size, devices) -> list:
    if len(devices) == 1:     # one device runs the body as is: no device axis to split
        outs = exe(*[squeeze(x, (0,)) if mapped else x for x, mapped in zip(args, mapped_invars)])
        return [expand_dims(o, (0,)) for o in outs]
    arguments = []
    for x, mapped in zip(args, mapped_invars):
        if not mapped:          # the same value on every device: a stack of copies
            x = _copies_on(x, axis_size, devices)
        arguments.append(x)
    return exe(*arguments)


# An unmapped operand (an in_axes=None argument, a closed-over Array: the consts of a kept
# trace) goes to every device. The same Array object comes back call after call, so its copies
# are kept while it lives (weakly: its death drops them), as JAX keeps a pmap's constants on
# its devices; a closure over an Array cost each call an eager broadcast, a host read of the
# stack and a put per device (issue 38: 680 us a call against JAX's 290 us, 8 devices).
_copies: dict = {}          # (id(x), devices) -> (weakref to x, its stack of copies)
_MAX_COPIES = 64


def _copies_on(x, axis_size, devices):
    """`x` stacked `axis_size` times, one copy per device of `devices` (one per replica)."""
    if not isinstance(x, Array) or len(devices) != axis_size or x.is_deleted():
        aval = get_aval(x)      # NumPy data may change between calls; several processes
        return broadcast_in_dim(x, (axis_size,) + aval.shape,
                                tuple(range(1, len(aval.shape) + 1)))
    key = (id(x), devices)
    kept = _copies.get(key)
    if kept is not None and kept[0]() is x and not kept[1].is_deleted():   # (donated: anew)
        return kept[1]
    copies = device_put_replicated(x, devices)
    if len(_copies) >= _MAX_COPIES:
        _copies.pop(next(iter(_copies)))            # the oldest
    _copies[key] = (weakref.ref(x, lambda _, key=key: _copies.pop(key, None)), copies)
    return copies


def _trace_key(tree, avals, mapped, size, devices, statics, leaves):
    """What a pmapped function's trace depends on, or None where it must trace anew: under
    another transformation (its tracers may be closed over), or with unhashable static
    arguments."""
    if not isinstance(current_trace(), EvalTrace) or any(isinstance(x, Tracer) for x in leaves):
        return None
    key = (tree, tuple(avals), tuple(mapped), size, devices, tuple(statics),
           config._trace_state)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _executable_class(spans_processes: bool):
    if not spans_processes:
        return Executable
    # the multi-process runtime loads only when jax.distributed is used
    from ..xla.distributed import ProcessSpanningExecutable
    return ProcessSpanningExecutable


_executables = WeakLRU(PROGRAMS)     # (jaxpr, (axis, size, mapped, devices)) -> Executable
_hoisted_jaxprs = WeakLRU(TRACES)    # (closed, None) -> it with its consts as inputs


def _hoisted(closed):
    """`closed` taking its consts as leading inputs (made once per jaxpr)."""
    found = _hoisted_jaxprs.get((closed, None))
    if found is None:
        found = _hoisted_jaxprs[closed, None] = convert_constvars_to_invars(closed)[0]
    return found


def _pmap_lowering(ctx, *args, **params):
    raise NotImplementedError("pmap inside jit is not supported: call the pmapped function "
                              "outside jit (pmap compiles its body itself).")


def _pmap_batching(axis_data, vals, dims, *, jaxpr, axis_name, axis_size, mapped_invars,
                   devices, name):
    # the device axis is axis 0 of mapped inputs; per device, the batch dim sits one lower
    inner_dims, new_vals = [], []
    for v, d, m in zip(vals, dims, mapped_invars):
        if d is bu.not_mapped:
            inner_dims.append(None)
        elif m:
            v = bu.moveaxis(v, d, 1)
            inner_dims.append(0)
        else:
            v = bu.moveaxis(v, d, 0)
            inner_dims.append(0)
        new_vals.append(v)
    batched, out_dims = batch_jaxpr(jaxpr, axis_data, inner_dims)
    outs = xla_pmap_p.bind(*new_vals, jaxpr=batched, axis_name=axis_name, axis_size=axis_size,
                           mapped_invars=mapped_invars, devices=devices, name=name)
    return outs, [bu.not_mapped if d is bu.not_mapped else 1 for d in out_dims]


def _pmap_jvp(primals, tangents, *, jaxpr, axis_name, axis_size, mapped_invars, devices, name):
    nonzeros = [type(t) is not Zero for t in tangents]
    new_jaxpr, out_nz = jvp_jaxpr(jaxpr, nonzeros)
    nz_t = [t for t in tangents if type(t) is not Zero]
    mapped = tuple(mapped_invars) + tuple(m for m, nz in zip(mapped_invars, nonzeros) if nz)
    outs = xla_pmap_p.bind(*primals, *nz_t, jaxpr=new_jaxpr, axis_name=axis_name,
                           axis_size=axis_size, mapped_invars=mapped, devices=devices, name=name)
    n = len(jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(_mapped_aval(a, axis_size))
                      for nz, a in zip(out_nz, jaxpr.out_avals)]


def _pmap_partial_eval(trace, args, params):
    """Known part: one pmap returning known outputs and per-device residuals; unknown part:
    a staged pmap consuming them (residuals mapped along the device axis)."""
    unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_uk, n_res = partial_eval_jaxpr(params["jaxpr"], unknowns)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    known_mapped = tuple(m for m, u in zip(params["mapped_invars"], unknowns) if not u)
    with set_current_trace(trace.parent):
        known_outs = xla_pmap_p.bind(*known_args, **dict(params, jaxpr=known,
                                                         mapped_invars=known_mapped))
    n_known = len(known_outs) - n_res
    residuals = known_outs[n_known:]
    uk_args = list(residuals) + [x for x, u in zip(args, unknowns) if u]
    uk_mapped = (True,) * n_res + tuple(m for m, u in zip(params["mapped_invars"], unknowns) if u)
    new_params = dict(params, jaxpr=unknown, mapped_invars=uk_mapped)
    out_avals = _pmap_abstract_eval(**new_params)
    unknown_outs = iter(trace.add_eqn([trace.to_atom(x) for x in uk_args], xla_pmap_p,
                                      new_params, out_avals))
    known_iter = iter(known_outs[:n_known])
    return [next(unknown_outs) if u else next(known_iter) for u in out_uk]


def _pmap_transpose(cts, *args, jaxpr, axis_name, axis_size, mapped_invars, devices, name):
    linear = [is_undefined(a) for a in args]
    nonlinear = [a for a in args if not is_undefined(a)]
    cts = [instantiate(c) for c in cts]
    transposed = transpose_jaxpr(jaxpr, linear)
    mapped = tuple(m for m, lin in zip(mapped_invars, linear) if not lin) + (True,) * len(cts)
    outs = iter(xla_pmap_p.bind(*nonlinear, *cts, jaxpr=transposed, axis_name=axis_name,
                                axis_size=axis_size, mapped_invars=mapped, devices=devices,
                                name=name))
    result = []
    for lin, m, a in zip(linear, mapped_invars, args):
        if not lin:
            result.append(None)
            continue
        ct = next(outs)
        if not m:             # an input broadcast to every device: sum its cotangents
            ct = reduce_sum(ct, (0,))
        result.append(ct)
    return result


def _pmap_numpy(*args, jaxpr, axis_name, axis_size, mapped_invars, devices, name):
    """With NumPy (one device) the mapped axis is vmap's: the body batched over it, its
    collectives becoming reductions and gathers along the batch axis (their batching
    rules), then evaluated whole."""
    return eval_closed_jaxpr_numpy(
        _batched_body(jaxpr, axis_name, axis_size, mapped_invars), *args)


def _batched_body(jaxpr, axis_name, axis_size, mapped_invars):
    in_dims = [0 if m else bu.not_mapped for m in mapped_invars]
    batched, _ = batch_jaxpr(jaxpr, AxisData(axis_name, axis_size), in_dims,
                             force_out_batched=[True] * len(jaxpr.out_avals))
    return batched


abstract_eval_rules[xla_pmap_p] = _pmap_abstract_eval
impl_rules[xla_pmap_p] = _pmap_impl
numpy_rules[xla_pmap_p] = _pmap_numpy
lowering_rules[xla_pmap_p] = _pmap_lowering
axis_batching_rules[xla_pmap_p] = _pmap_batching
jvp_rules[xla_pmap_p] = _pmap_jvp
partial_eval_rules[xla_pmap_p] = _pmap_partial_eval
transpose_rules[xla_pmap_p] = _pmap_transpose
param_printers[xla_pmap_p] = lambda p: [("axis_name", p["axis_name"]), ("axis_size", p["axis_size"]),
                                        ("name", p["name"]), ("jaxpr", p["jaxpr"])]


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Map `fun` over axis `in_axes` of its arguments, one slice per device, in parallel."""
    static = (static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int) \
        else tuple(static_broadcasted_argnums)

    traces = LRU(SIGNATURES)   # signature -> (jaxpr, consts, out_tree), top-level calls only
    # The last eager call whose arguments are all positional and mapped over axis 0, as
    # (treedef, leaf avals, trace state, its _Prepared with the consts as args): a call with the
    # same structure and types reuses its trace without prepare's work (flattening the axes,
    # an aval per leaf, the trace key), as jit's last hit does (issue 38).
    last = []

    def prepare(args, kwargs) -> _Prepared:
        """The call's inputs moved to the device axis, and its trace."""
        dyn = [a for i, a in enumerate(args) if i not in static]
        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(dyn)
        # keyword arguments are mapped over their leading axis, as in JAX
        flat_axes = broadcast_prefix((tuple(axes), {k: 0 for k in kwargs}), (tuple(dyn), kwargs),
                                     is_leaf=lambda x: x is None)
        leaves, tree = tree_flatten((tuple(dyn), kwargs))
        moved, avals, mapped = [], [], []
        sizes = set()
        for x, ax in zip(leaves, flat_axes):
            aval = get_aval(x)
            if ax is None:
                moved.append(x)
                avals.append(aval)
                mapped.append(False)
                continue
            if not -len(aval.shape) <= ax < len(aval.shape):
                raise ValueError(f"pmap was requested to map its argument along axis {ax}, "
                                 f"which implies that its rank should be at least {ax + 1}, "
                                 f"but is only {len(aval.shape)} (its shape is {aval.shape})")
            ax %= len(aval.shape)
            sizes.add(aval.shape[ax])
            if ax:
                x = bu.moveaxis(x, ax, 0)
            moved.append(x)
            avals.append(ShapedArray(aval.shape[:ax] + aval.shape[ax + 1:], aval.dtype,
                                     aval.weak_type))
            mapped.append(True)
        if len(sizes) > 1:
            raise ValueError(f"pmap got inconsistent sizes for array axes to be mapped: "
                             f"{sorted(sizes)}")
        size = sizes.pop() if sizes else axis_size
        if size is None:
            raise ValueError("pmap requires at least one mapped input, or axis_size")
        flat, out_tree = flatten_fun(
            lambda dyn, kw: fun(*merge_static({i: args[i] for i in static}, dyn, len(args)), **kw),
            tree)
        dev = tuple(devices) if devices is not None else None
        global_size = size          # what psum(1, axis_name) sees: all processes' devices
        if dev is None and _client.process_count(backend) > 1:
            # the multi-process runtime loads only when jax.distributed is used
            from ..xla.distributed import pmap_devices
            dev = pmap_devices(size, backend)
            global_size = len(dev)
        # traced once per signature, as JAX's pmap: a new jaxpr each call would miss the
        # executable cache, and lower and compile again
        key = _trace_key(tree, avals, mapped, size, dev, [args[i] for i in static], leaves)
        found = traces.get(key) if key is not None else None
        if found is None:
            with bound_axis(axis_name, global_size):
                closed = trace_to_jaxpr(flat, avals)
            jaxpr, consts = convert_constvars_to_invars(closed)
            found = (jaxpr, consts, out_tree())
            if key is not None and not any(isinstance(c, Tracer) for c in consts):
                traces[key] = found
        jaxpr, consts, out_tree = found
        prepared = _Prepared([*consts, *moved], jaxpr, out_tree, size, dev,
                             (False,) * len(consts) + tuple(mapped))
        if key is not None and not static and not kwargs and found is traces.get(key) and \
                all(ax == 0 for ax in flat_axes) and \
                all(type(x) in _SHORTCUT_TYPES for x in leaves):
            kept = _Prepared(list(consts), jaxpr, out_tree, size, dev, prepared.mapped)
            last[:] = [(tree, [get_aval(x) for x in leaves], config._trace_state, kept)]
            # (its args are the consts alone: this call's arguments are not kept alive)
        return prepared

    def prepare_again(args):
        """The last call's _Prepared with these arguments, if they match it; else None."""
        tree, avals, state, prepared = last[0]
        leaves, treedef = tree_flatten((args, {}))
        if treedef != tree or state is not config._trace_state or \
                not isinstance(current_trace(), EvalTrace):
            return None
        for x, aval in zip(leaves, avals):
            if type(x) not in _SHORTCUT_TYPES or get_aval(x) != aval:
                return None
        return _Prepared([*prepared.args, *leaves], prepared.jaxpr,
                         prepared.out_tree, prepared.size, prepared.devices, prepared.mapped)

    def finish(outs, out_tree):
        """The per-device results with their device axis where out_axes puts it."""
        if type(out_axes) is int and out_axes == 0:      # where they are (the default)
            return tree_unflatten(out_tree, outs)
        flat_out_axes = broadcast_prefix(out_axes, tree_unflatten(out_tree, outs),
                                         is_leaf=lambda x: x is None)
        results = []
        for o, ax in zip(outs, flat_out_axes):
            if ax is None:
                o = index_in_dim(o, 0, 0, keepdims=False)
            elif ax % len(get_aval(o).shape):
                o = bu.moveaxis(o, 0, ax)
            results.append(o)
        return tree_unflatten(out_tree, results)

    name = getattr(fun, "__name__", "fun")

    @wraps(fun)
    def pmapped(*args, **kwargs):
        p = prepare_again(args) if last and not kwargs else None
        if p is None:
            p = prepare(args, kwargs)
        outs = xla_pmap_p.bind(*p.args, jaxpr=p.jaxpr, axis_name=axis_name, axis_size=p.size,
                               mapped_invars=p.mapped, devices=p.devices, name=name)
        return finish(outs, p.out_tree)

    def lower(*args, **kwargs) -> PmapLowered:
        """Ahead of time, as JAX's `pmap(f).lower(*args)`: the replicated program for these
        argument types; `.as_text()` its StableHLO, `.compile()` it."""
        return PmapLowered(prepare(args, kwargs), axis_name, name, prepare, finish)
    pmapped.lower = lower
    return pmapped


# argument types a pmap's last-call shortcut takes: fixed values (no tracers, no lists)
_SHORTCUT_TYPES = frozenset({Array, MultiDeviceArray, np.ndarray})


@dataclasses.dataclass(frozen=True)
class _Prepared:
    args: list              # the pmap's operands: its consts, then inputs with the device axis first
    jaxpr: object           # the body (consts as its leading inputs)
    out_tree: object
    size: int               # the mapped axis's size
    devices: tuple | None
    mapped: tuple           # per operand: mapped over the device axis or broadcast


class _PmapStage:
    """What a pmap's stages tell of themselves (a jit's tell more: its signature's pytrees)."""

    @property
    def fun_name(self) -> str:
        return self._lowered._name

    def _jit_only(self, what):
        raise NotImplementedError(f"pmap({self.fun_name}): {what} of pmap's ahead-of-time "
                                  f"stages is not supported by jxkernel (a jit's stages have it)")

    in_tree = property(lambda self: self._jit_only("in_tree"))
    in_avals = property(lambda self: self._jit_only("in_avals"))
    args_info = property(lambda self: self._jit_only("args_info"))
    out_info = property(lambda self: self._jit_only("out_info"))
    donate_argnums = property(lambda self: self._jit_only("donate_argnums"))


class PmapLowered(_PmapStage, _stages.Lowered):
    """A pmapped function lowered for one signature: a jax.stages.Lowered, as JAX's."""

    def __init__(self, prepared, axis_name, name, prepare, finish):
        self._prepared, self._name, self._prepare, self._finish = prepared, name, prepare, finish
        self._lowered = self
        p = prepared
        self._devices, replicas, self._spans = _pmap_devices(p.size, p.devices)
        self.device = self._devices[0]
        self._args, self._mapped, self._jaxpr = _consts_as_inputs(p.args, p.mapped, p.jaxpr)
        self._module = _lower_pmap(self._jaxpr, axis_name, replicas, self._devices, name)
        self._text = self._module.text

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The program's StableHLO text (the only dialect jxkernel writes)."""
        if dialect not in (None, "stablehlo"):
            raise ValueError(f"pmap(...).lower(...).as_text(dialect={dialect!r}): jxkernel "
                             f"writes StableHLO only; pass dialect='stablehlo' or None")
        return _stages.portable().printed_text(self._module.text, debug_info)

    def compile(self, compiler_options: dict | None = None) -> PmapCompiled:
        """The program compiled by XLA (`compiler_options`: XLA's options by name)."""
        exe = _compile_pmap(self._module, self._jaxpr, self._spans, self._name, self._args,
                            compiler_options)
        return PmapCompiled(exe, self)


class PmapCompiled(_PmapStage, _stages.Compiled):
    """A pmapped function compiled ahead of time (a jax.stages.Compiled); called with the
    arguments it was lowered for (arrays of the same types)."""

    def __init__(self, exe, lowered):
        self._exe, self._lowered, self.lowered = exe, lowered, lowered

    def as_text(self) -> str:
        """The optimized HLO XLA compiled."""
        return self._exe.optimized_hlo()

    def cost_analysis(self) -> dict:
        return self._exe.cost_analysis()

    def memory_analysis(self):
        return self._exe.memory_stats()

    def __call__(self, *args, **kwargs):
        low = self._lowered
        p = low._prepare(args, kwargs)
        if (p.jaxpr.in_avals, p.out_tree, p.size) != (low._prepared.jaxpr.in_avals,
                                                      low._prepared.out_tree, low._prepared.size):
            want = ", ".join(a.str_short() for a in low._prepared.jaxpr.in_avals)
            got = ", ".join(a.str_short() for a in p.jaxpr.in_avals)
            raise TypeError(f"a compiled pmap({low._name}) was called with arguments of other "
                            f"types than it was lowered for: per device ({got}), lowered for "
                            f"({want}). Lower and compile it again for these arguments, or "
                            f"call the pmapped function itself.")
        args, mapped, _ = _consts_as_inputs(p.args, p.mapped, p.jaxpr)
        return low._finish(_run_pmap(self._exe, args, mapped, p.size, low._devices), p.out_tree)
