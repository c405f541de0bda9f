"""The NumPy backend's programs: a jaxpr kept, and run with `eval_jaxpr_numpy` on each call.

The compile pipeline (pipeline.py) hands a jaxpr for the NumPy device here instead of
lowering it: `compile_numpy` makes a `NumpyExecutable`, which jit caches per signature as it
caches XLA's executables (so its cache, the compile record and the recompilation notes work
alike), and eager dispatch per primitive and operand types. Its `call_buffers` evaluates the
jaxpr with each primitive's NumPy rule (`numpy_rules`, core/primitive.py) on the buffers'
ndarrays, and wraps the results as Arrays on the NumPy device.

    >>> from jxkernel.xla.pipeline import compile_jaxpr
    >>> closed = jax.make_jaxpr(lambda x: x * 2)(np.ones(3, np.float32))
    >>> exe, phases = compile_jaxpr(closed.jaxpr, jax.devices("numpy")[:1], name="f")
    >>> exe(np.ones(3, np.float32))
    [Array([2., 2., 2.], dtype=float32)]
"""
from __future__ import annotations

import copy
import re
import sys
import time

import numpy as np

from .memory_kinds import results_in_memory, typed_in
from ..core import dtypes, jaxpr_cost
from ..core.config import config
from ..core.dce import dce_jaxpr
from ..core.ir import ClosedJaxpr, Jaxpr, Literal
from ..core.mesh import asked_on, named_as_asked
from ..core.numpy_eval import done_writing, eval_jaxpr_numpy, user_impl, writing
from ..core.numpy_simplify import inline_calls, simplify_divisions
from ..core.physical import physical_aval, wrap_physical
from ..core.primitive import foreign_primitives, lowering_rules, numpy_rules
from . import numpy_sharded
from .array import Array, sharded_array
from .client import JaxRuntimeError
from .compiler import _BUILD_OPTION_NAMES, CompileError, Phases, _with_base
from .deleted import Gone, donated, mark
from .effect_tokens import Token, runtime_tokens
from .executable import Executable, _donated_indices, check_may_execute, float0_result
from .layout import default_layout
from .numpy_device import (LIVE_EXECUTABLES, NumpyBuffer, NumpyShardedBuffer, flush_subnormals,
                           unsupported)
from .xla_debug_options import DEBUG_OPTIONS


class _Computed:
    """The buffer of a NumPy program's runtime token (effect_tokens.Token): nothing to wait
    for, NumPy computed the program before its call returned."""
    __slots__ = ()

    def block_until_ready(self):
        return self


_TOKEN_BUFFER = _Computed()


class NumpyExecutable(Executable):
    """A jaxpr (constvars first, then invars: the order a lowered module takes its arguments)
    run with NumPy. Donated arguments are deleted after each call, as XLA's executables
    delete theirs (one rule for users on every backend). `aliased`: (donated input, result)
    pairs whose result is written into the input's ndarray where nothing else sees it, as
    XLA writes an aliased result into the donated buffer (a Ref keeps its address)."""

    def __init__(self, jaxpr, out_avals, device, name="", donated=(), *, in_avals=None,
                 arg_names=None, kept=None, aliased=(), tokens=(), out_kinds=None):
        devices = tuple(device) if isinstance(device, (list, tuple)) else (device,)
        if len(devices) > 1 and type(self) is NumpyExecutable:
            raise unsupported(f"{name or 'a program'} over {len(devices)} devices without a "
                              f"mesh", "lay its arguments out on a mesh (NamedSharding)")
        self.devices, self.device = devices, devices[0]
        self.jaxpr, self.name = jaxpr, name
        self.out_avals = list(out_avals)
        self.in_avals = list(in_avals) if in_avals is not None else None
        self.arg_names = list(arg_names) if arg_names is not None else None
        self.donated = _donated_indices(donated)
        self.aliased = tuple(aliased)
        self.kept = None if kept is None else tuple(kept)     # (Executable's: its inputs)
        # a library's ordered effects it has: each call gives this thread a new runtime token
        # for each, as an XLA program gives one back (effect_tokens.runtime_tokens)
        self.tokens = tuple(tokens)
        self._sharding = self.device.placement
        # per result the Placement in the memory jit's out_shardings name (None: _sharding's)
        self._placed_in = [None if k in (None, "device") else self.device.placement_in(k)
                           for k in out_kinds or [None] * len(self.out_avals)]
        self._simple = not self.donated
        self.plain = False                    # the compiled fast path runs XLA's only
        self._nconsts = len(jaxpr.constvars)
        # what runs: without the equations nothing reads and nothing needs for an effect (XLA's
        # compiler drops them even under keep_unused: a pure_callback no one reads is not
        # called), with its calls inlined and XLA's division rewrites made
        self._program = simplify_divisions(dce_jaxpr(inline_calls(jaxpr)))
        _check_numpy_rules(self._program, name)
        self._reads, self._flushed = _subnormal_plan(self._program)
        LIVE_EXECUTABLES.add(self)

    def with_committed(self, committed: bool) -> NumpyExecutable:
        """As Executable's: a twin whose results are placed with the other Placement."""
        if committed == self.committed:
            return self
        if self._twin is None:
            twin = self._twin = copy.copy(self)
            twin.committed, twin._twin = committed, None
            twin._sharding = self.device.placement if committed else self.device.uncommitted
        return self._twin

    def _run(self, bufs) -> list:
        """Run on NumpyBuffers (the kept arguments'); returns Arrays on the NumPy device."""
        values = []
        for i, b in enumerate(bufs):
            if type(b) is Gone:               # a deleted Array's stand-in: why it is gone
                raise self._deleted_error(i, b)
            if type(b) is not NumpyBuffer:
                raise TypeError(f"{self._arg_name(i)} of {self._what()} is a "
                                f"{type(b).__name__}, not a buffer of the numpy backend; "
                                f"move it there first (jax.device_put(x, "
                                f"jax.devices('numpy')[0]))")
            if b.value is None:
                raise self._deleted_error(i, b)
            values.append(b.value)
        n = self._nconsts
        token = writing(written_as_xla)
        try:
            outs = eval_jaxpr_numpy(self._program, values[:n], *values[n:],
                                    prepare=self._reader(bufs) if self._reads else None)
        finally:
            done_writing(token)
        for effect in self.tokens:
            runtime_tokens.set_token_result(effect, Token(_TOKEN_BUFFER, self.device))
        # the donated ndarrays a result is written into, where nothing else sees them
        into = _writable_donations(self.aliased, bufs, values, outs)
        if self.donated:
            for i in self.donated:
                bufs[i].delete()
        held = {id(_memory_of(v)) for v in values}
        finals = []
        for j, (out, aval, flush) in enumerate(zip(outs, self.out_avals, self._flushed)):
            made = out
            dtype = getattr(physical_aval(aval), "dtype", None)
            if dtype is not None and out.dtype != dtype:     # (a rule's NumPy promotion)
                out = out.astype(dtype)
            if type(out) is not np.ndarray or not out.flags.c_contiguous:
                out = np.ascontiguousarray(out)   # a broadcast view: laid out as XLA's are
            elif out is into.get(j):
                pass                              # its own donated buffer, as it came
            elif id(_memory_of(out)) in held:
                # an input, or a view of one (jit(jnp.asarray), a reshape): a buffer of its own,
                # as XLA writes each result (without donation) where no argument lives
                out = out.copy()
            if flush:
                out = flush_subnormals(out)       # as XLA's CPU arithmetic writes them (FTZ)
            finals.append((made, out))
        result = []
        # written after every result is made: one may be another's donated input (a swap)
        for j, ((made, out), aval, flush) in enumerate(zip(finals, self.out_avals,
                                                            self._flushed)):
            if j in into and out is not into[j]:
                out = _written(into[j], out)
            if out is not made:                   # (each device's block of a pmap's result)
                numpy_sharded.carry_noted(made, out, flush)
            if getattr(aval, "dtype", None) == dtypes.float0:     # zeros on the host, as XLA's
                result.append(float0_result(aval))
                continue
            logical, aval = aval, physical_aval(aval)      # (typed keys: their data ran)
            a = Array.__new__(Array)
            placed = self._placed_in[j] or self._sharding
            a._buf, a.aval, a._npy, a._sharding = (NumpyBuffer(out, aval, placed, flush),
                                                   aval, None, None)
            result.append(a if logical is aval else wrap_physical(logical, a))
        return result

    def call_arrays(self, arrays) -> list:
        """Run on Arrays already on the NumPy device."""
        if config.jax_no_execution:
            check_may_execute(self.name)
        if self.kept is not None:
            arrays = [arrays[i] for i in self.kept]
        if self.donated:
            _check_donated_once(arrays, self.donated)
            for i in self.donated:        # (its cached NumPy value would keep the ndarray seen)
                arrays[i]._npy = None
        outs = self._run([a._buf for a in arrays])
        self.ran = True
        for i in self.donated:          # deleted now: its error says where it went, as XLA's
            arrays[i]._npy = None       # (and no view of its data kept to read it by)
            mark(arrays[i], donated(self._what(), self._short_name(i)))
        return outs

    def _reader(self, bufs) -> tuple:
        """`eval_jaxpr_numpy`'s `prepare` for one call: where arithmetic reads a program input,
        the buffer's flushed value (made once per buffer); elsewhere a flush on the spot."""
        reads = self._reads

        def read(i, operands):
            for k, j in reads[i]:
                operands[k] = bufs[j].operand() if j is not None else flush_subnormals(operands[k])
            return operands
        return reads, read

    @property
    def loaded(self):
        raise unsupported("XLA's loaded executable", "its jaxpr is what runs (`.jaxpr`); "
                          "compile under JAX_PLATFORMS=cpu for XLA's")

    def _xla_only(what):
        def refuse(self, *args, **kwargs):
            raise unsupported(f"{what} of a compiled program", "compile under "
                              "JAX_PLATFORMS=cpu for XLA's; its jaxpr is what runs here")
        refuse.__name__ = what
        return refuse

    def layouts(self) -> tuple:
        """Row-major layouts, XLA's default on CPU (NumPy runs the program: no compiler
        chose)."""
        params = [physical_aval(v.aval) for v in (*self.jaxpr.constvars, *self.jaxpr.invars)]
        return ([default_layout(a) for a in params],
                [default_layout(physical_aval(a)) for a in self.out_avals])

    def cost_analysis(self) -> dict:
        """XLA's keys ('flops', 'bytes accessed', ...) estimated from the jaxpr that runs
        here, with an 'estimated from' entry saying so (core/jaxpr_cost.py)."""
        return jaxpr_cost.cost_analysis(self.jaxpr)

    memory_stats = _xla_only("memory_analysis")
    optimized_hlo = _xla_only("the optimized HLO (Compiled.as_text)")
    del _xla_only


class NumpyShardedExecutable(NumpyExecutable):
    """A program over a mesh of NumPy devices: its jaxpr run once on the arguments' global
    values (its partitioned host calls per device), each result laid out as asked or as XLA
    would choose (numpy_sharded.py says why). ShardedExecutable's twin: the same options."""

    def __init__(self, jaxpr, out_avals, devices, name="", donated=(), *, mesh, out_shardings,
                 user_shardings, arg_avals, out_meshes=None, arg_shardings=None, kept=None,
                 tokens=()):
        super().__init__(jaxpr, out_avals, devices, name, donated, kept=kept, tokens=tokens)
        self.mesh = mesh
        self._program = numpy_sharded.per_device_calls(self._program, mesh, arg_shardings)
        # a result that is an argument as it came (device_put's relayout): its sharding
        params = [*jaxpr.constvars, *jaxpr.invars]
        self._forwarded = [arg_shardings[params.index(v)]
                           if arg_shardings is not None and v in params else None
                           for v in jaxpr.outvars]
        self._forwarded_at = [params.index(v) if v in params else None for v in jaxpr.outvars]
        asked = [asked_on(mesh, s) for s in out_shardings]
        chosen = numpy_sharded.output_shardings(
            jaxpr, mesh, [physical_aval(a) for a in self.out_avals], user_shardings, arg_avals,
            asked, out_meshes, arg_shardings)
        self.out_shardings = results_in_memory(asked, [
            given or named_as_asked(s, c, len(a.shape), a.split)
            for given, s, c, a in zip(asked, out_shardings, chosen, self.out_avals)],
            self.out_avals)

    _ran = False        # (once run: key results' data named as JAX's C++ path names it)

    def with_committed(self, committed: bool) -> NumpyShardedExecutable:
        return self                         # results over a mesh are committed

    def _run(self, bufs) -> list:
        """Run on buffers over the mesh (or one device's); returns Arrays over the mesh."""
        whole = list(bufs)
        for i, b in enumerate(bufs):
            if type(b) is NumpyShardedBuffer:
                if b.value is None:
                    raise self._deleted_error(i, b)
                whole[i] = b.whole()
        outs = NumpyExecutable._run(self, whole)
        for i in self.donated:
            bufs[i].delete()
        result = []
        first, self._ran = not self._ran, True
        for out, sharding, source, at in zip(outs, self.out_shardings, self._forwarded,
                                             self._forwarded_at):
            if isinstance(out, np.ndarray):     # a float0 result: zeros on the host
                result.append(out)
                continue
            data = out._base if type(out) is not Array else out    # (typed keys: their data)
            if sharding.memory_kind and data is out:    # (typed as the memory it is in)
                data = out = Array(data._buf, typed_in(data.aval, sharding.memory_kind))
            if _same_summands(source, sharding, data.aval, at, bufs):
                # unreduced as it came, its blocks laid out alike (P(None, unreduced={'x'}) to
                # P(unreduced={'x'})): each device keeps its summand, as XLA's relayout does
                result.append(sharded_array(NumpyShardedBuffer(
                    data._buf.value, data.aval, bufs[at]._sharding,
                    [NumpyBuffer(b.value, b.aval, b._sharding) for b in bufs[at]._arrays]),
                    data.aval, sharding))
                continue
            buf = numpy_sharded.put(data._buf.value, data.aval, sharding, copy=False,
                                    source=source)
            if data is out:
                result.append(sharded_array(buf, data.aval, sharding))
                continue
            # typed keys' data named as XLA's ShardedExecutable names it (JAX's first run its
            # key dimensions too, a later one the keys' spec)
            named = numpy_sharded.key_data_sharding(sharding, data.aval, first)
            result.append(wrap_physical(out.aval, sharded_array(buf, data.aval, named)))
        return result


def _same_summands(source, sharding, aval, at, bufs) -> bool:
    """Whether a result forwarded from argument `at` (over a mesh, `source` its sharding) is
    unreduced over the same axes as it came and laid out alike as `sharding`."""
    return source is not None and at is not None and bool(sharding.spec.unreduced) and \
        type(bufs[at]) is NumpyShardedBuffer and bufs[at].value is not None and \
        set(source.spec.unreduced) == set(sharding.spec.unreduced) and \
        source.is_equivalent_to(sharding, len(aval.shape))


def compile_numpy(module, label: str, trace_s: float = 0.0, executable=Executable,
                  **options) -> tuple:
    """(NumpyExecutable, Phases) of a module `pipeline.lower` made for the NumPy devices
    (a NumpyShardedExecutable for xla/sharded.py's ShardedExecutable)."""
    make = NumpyExecutable
    if executable.__name__ == "ShardedExecutable":      # (sharded.py imports this module)
        make, options["arg_shardings"] = NumpyShardedExecutable, module.arg_shardings
    elif executable is not Executable:
        raise unsupported(f"{label} (a {executable.__name__})",
                          "this program needs XLA: JAX_PLATFORMS=cpu")
    # XLA's options tune nothing here, but a name or value XLA refuses is refused here too
    _check_compiler_options(_with_base(options.pop("compiler_options", None)))
    _check_has_arrays(module.jaxpr)
    start = time.perf_counter()
    if make is NumpyExecutable:
        options["aliased"] = module.aliased
    exe = make(module.jaxpr, module.out_avals, module.devices, label, module.donated,
               **options)
    return exe, Phases(trace_s, module.lower_s, time.perf_counter() - start, "compiled")


# XLA's CPU arithmetic reads subnormal floats as zero and writes zero for them (the CPU's DAZ
# and FTZ modes, which NumPy leaves off): log(1e-40) is -inf there, 1e-40 > 0 is False. Code
# that moves or masks bits passes them through, and so do tanh, expm1, atan, sin and tan
# (the C library's, as XLA's default code calls it), which return a tiny argument itself, and
# cbrt, which reads its argument's bits: abs(1e-40) is 1e-40; the total-order comparisons
# (eq_to, le_to, lt_to) compare bits, so 1e-45 is above 0.0 there.
# sort, top_k and a scatter without a computation move their operands' values (sort's rule
# compares them as XLA's comparator reads them, a subnormal as zero; top_k's by their bits).
# These primitives are that code. nextafter and bitcast_convert_type write bits: their
# results keep a subnormal whatever made their operands (nextafter(0.0, 1.0) is 1.4e-45).
_PASSES_SUBNORMALS = frozenset(
    "abs neg copy reshape broadcast_in_dim transpose squeeze rev slice "
    "dynamic_slice dynamic_update_slice concatenate pad gather select_n bitcast_convert_type "
    "reduce_precision tanh expm1 atan sin tan cbrt real imag complex conj eq_to le_to lt_to "
    "sort top_k approx_top_k nextafter tile stack unstack split device_put reshard "
    "sharding_constraint layout_constraint optimization_barrier pvary stop_gradient".split())
_MAKES_SUBNORMALS = frozenset(("nextafter", "bitcast_convert_type"))
# bfloat16 too: XLA's CPU computes it in float32 (widened by moving bits, the same exponent
# range), so its arithmetic reads and writes a bfloat16 subnormal as a float32 one
_SUBNORMAL_DTYPES = frozenset((*map(np.dtype, ("float32", "float64", "complex64", "complex128")),
                               *dtypes.BFLOAT16_DTYPES))


def _passes_subnormals(eqn) -> bool:
    """Whether `eqn` hands a subnormal operand on as it is: a primitive above, a conversion
    to its own dtype or a narrower float (XLA narrows by moving bits: 1e-40 is bfloat16's
    9.2e-41), or a call, scan, cond or while whose bodies have only such equations, or ones
    that read no float32/float64 (a loop's counter)."""
    name = eqn.primitive.name
    if name == "convert_element_type":
        new, old = np.dtype(eqn.params["new_dtype"]), eqn.invars[0].aval.dtype
        return new == old or (old in _SUBNORMAL_DTYPES and new.kind in "fV"
                              and new.itemsize < 4 and dtypes.is_float(new))
    if name in _PASSES_SUBNORMALS:
        return True
    if name == "scatter":               # (scatter_apply's computation reads them)
        return eqn.params.get("update_jaxpr") is None
    if name == "cond":
        return all(map(_body_passes, eqn.params["branches"]))
    if name == "while":
        return _body_passes(eqn.params["cond_jaxpr"]) and _body_passes(eqn.params["body_jaxpr"])
    body = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
    return isinstance(body, (Jaxpr, ClosedJaxpr)) and _body_passes(body)


def _body_passes(body) -> bool:
    body = body.jaxpr if isinstance(body, ClosedJaxpr) else body
    return all(_passes_subnormals(e) or not any(
        getattr(v.aval, "dtype", None) in _SUBNORMAL_DTYPES for v in e.invars)
        for e in body.eqns)


def _subnormal_literal(v) -> bool:
    """Whether the Literal `v` holds a subnormal float32/float64: XLA's constant keeps its bits
    (jnp.spacing's 1.4e-45 through copysign's abs and neg), as a program input does.

    >>> from jxkernel.core.ir import Literal
    >>> from jxkernel.core.avals import ShapedArray
    >>> _subnormal_literal(Literal(np.float32(1e-45), ShapedArray((), np.float32)))
    True
    """
    aval = getattr(v, "aval", None)
    if getattr(aval, "dtype", None) not in _SUBNORMAL_DTYPES:
        return False
    value = np.abs(np.asarray(v.val))
    return bool(np.any((value > 0) & (value < dtypes.finfo(value.dtype).tiny)))


def written_as_xla(eqn, outs):
    """The results of `eqn` as XLA's CPU writes them: arithmetic's subnormal float32/float64
    results flushed to zeros (FTZ), inside a program's scan, while and cond bodies as at its
    top; code that moves bits, and calls (their bodies' equations are flushed themselves),
    pass them on. (Without it, grad of random.gamma for alpha 1e-3 was inf where a sample is
    0.0: an intermediate 1e-40 divided; JAX's testGammaGrad.)

    >>> eqn = jax.make_jaxpr(lambda x, y: x * y)(1.0, 1.0).eqns[0]
    >>> written_as_xla(eqn, np.float32([1e-40, 2.0]))
    array([0., 2.], dtype=float32)
    """
    if not _flushes(eqn):
        return outs
    if eqn.primitive.multiple_results:
        return [flush_subnormals(np.asarray(o)) for o in outs]
    return flush_subnormals(np.asarray(outs))


_FLUSHES: dict = {}        # primitive -> whether its results are flushed (convert's: per eqn)


def _flushes(eqn) -> bool:
    prim = eqn.primitive
    if prim.name == "convert_element_type":
        return not (_passes_subnormals(eqn) or _widens_narrow_float(eqn))
    known = _FLUSHES.get(prim)
    if known is None:
        known = _FLUSHES[prim] = prim.name not in _PASSES_SUBNORMALS and prim.name != "scatter" \
            and not any(isinstance(v, (Jaxpr, ClosedJaxpr)) or (
                isinstance(v, (tuple, list)) and v and isinstance(v[0], (Jaxpr, ClosedJaxpr)))
                for v in eqn.params.values())
    return known


def _widens_narrow_float(eqn) -> bool:
    if eqn.primitive.name != "convert_element_type":
        return False
    old = getattr(eqn.invars[0].aval, "dtype", None)
    new = np.dtype(eqn.params["new_dtype"])
    if old in dtypes.BFLOAT16_DTYPES and new in _DOUBLE_DTYPES:
        return False      # (by float32, whose widening reads a subnormal as zero: 1e-39 is 0.0)
    # (ml_dtypes' floats have NumPy kind "V")
    return old is not None and old.kind in "fV" and old.itemsize < 4 and new in _SUBNORMAL_DTYPES


_DOUBLE_DTYPES = frozenset(map(np.dtype, ("float64", "complex128")))


def _memory_of(value):
    """The ndarray that owns the memory `value` views (itself where it owns its own)."""
    while isinstance(getattr(value, "base", None), np.ndarray):
        value = value.base
    return value


def _writable_donations(aliased, bufs, values, outs) -> dict:
    """{result: the donated input's ndarray it is written into} of the (input, result) pairs
    `aliased`, for each input whose ndarray owns its memory and is seen by nothing but this
    call: its buffer (and its flushed operand), the call's `values` and `outs` where it is one
    of them. A user's view of it (`np.asarray(x)`, its views), another Array re-wrapping it (a
    commit) or a program's constant hold one more reference, and such a result is a new
    ndarray, as before (XLA too writes a new buffer where a view holds the donated one)."""
    into = {}
    for i, j in aliased:
        buf = bufs[i]
        value = buf.value
        if value.base is not None or not value.flags.owndata or not value.flags.c_contiguous:
            continue
        # references: the buffer's, its operand's, the lists' and this frame's two (the name
        # and getrefcount's argument); any other is someone else's. Equality, not at most: a
        # count this does not explain leaves the ndarray alone
        known = 3 + (buf._operand is value) + sum(v is value for v in values) + \
            sum(o is value for o in outs)
        if sys.getrefcount(value) == known:
            into[j] = value
    return into


def _written(target: np.ndarray, out: np.ndarray) -> np.ndarray:
    """`out` copied into the donated ndarray `target` (read-only as Arrays' are, after), or
    `out` itself where `target` is laid out otherwise."""
    if out.shape != target.shape or out.dtype != target.dtype:
        return out
    target.flags.writeable = True
    np.copyto(target, out)
    target.flags.writeable = False
    return target


def _check_donated_once(arrays, donated) -> None:
    """XLA's runtime error where a donated Array is passed again later in the same call
    (`f(donate(a), a)`): its buffer would be gone before that argument is read."""
    for i in donated:
        for j in range(i + 1, len(arrays)):
            if arrays[j]._buf is arrays[i]._buf:
                raise RuntimeError(
                    f"INVALID_ARGUMENT: Attempt to use a buffer that was previously donated in "
                    f"the same call to Execute() (flattened argument {j}, replica 0, partition "
                    f"0, first use: {i}). Toy example for this bug: `f(donate(a), a)`.")


def _subnormal_plan(jaxpr) -> tuple:
    """({equation index: ((operand position, program input index or None), ...) it reads
    flushed}, whether each result is flushed): values from the program's inputs, and what
    bit-passing equations make of them, keep their subnormals until arithmetic reads them;
    results of arithmetic are flushed."""
    inputs = {v: j for j, v in enumerate([*jaxpr.constvars, *jaxpr.invars])}
    raw = set(inputs)
    reads = {}
    for i, eqn in enumerate(jaxpr.eqns):
        held = [k for k, v in enumerate(eqn.invars)
                if (v in raw if type(v) is not Literal else _subnormal_literal(v))]
        if _widens_narrow_float(eqn):
            # XLA widens 8- and 16-bit floats by moving bits: a subnormal it makes (float8_e8m0fnu's
            # 2**-127, a bfloat16 subnormal) is written as it is, whatever made the operand
            raw.update(eqn.outvars)
            continue
        if _passes_subnormals(eqn):         # (an int32 bitcast to float32 too)
            if held or eqn.primitive.name in _MAKES_SUBNORMALS:
                raw.update(eqn.outvars)
            continue
        floats = [k for k in held
                  if getattr(eqn.invars[k].aval, "dtype", None) in _SUBNORMAL_DTYPES]
        if floats:
            reads[i] = tuple((k, inputs.get(eqn.invars[k])) for k in floats)
    return reads, [type(v) is Literal or v not in raw for v in jaxpr.outvars]


def _check_compiler_options(options) -> None:
    """XLA's errors for `compiler_options` it refuses (xla/compiler.py raises them from XLA): a
    name that is none of its DebugOptions (xla_debug_options.py, recorded from jaxlib) nor
    build options, a value its field cannot take. The rules were measured on jaxlib 0.10.2:
    a bool takes True/False or 'True'/'False', an integer an int or a decimal string, an
    enum an int, a decimal string or a value's name (repeated: names joined by commas), a
    string field a str; XLA shows a value as C++ prints it.

        >>> _check_compiler_options({"xla_cpu_enable_fast_math": False})
    """
    for name, value in (options or {}).items():
        if name in _BUILD_OPTION_NAMES:      # fields of the build options, as jaxlib's setters
            # take them: the two efforts a float (an int or bool too), the two levels an int
            effort = name.endswith("_effort")
            if not isinstance(value, (int, float) if effort else int):
                raise TypeError(f"compiler_options[{name!r}] is {value!r}: XLA's build option "
                                f"{name} takes " +
                                ("a float (an effort between -1 and 1)" if effort else
                                 "an int (an effort level's value)"))
            continue
        if name not in DEBUG_OPTIONS:
            raise JaxRuntimeError(
                f"XLA could not compile the module: INVALID_ARGUMENT: No such compile option: "
                f"{name!r} (compiler_options={options!r}: pass names of XLA's DebugOptions, "
                f"such as 'xla_cpu_enable_fast_math')")
        if not isinstance(value, (str, bool, int, float)):
            raise TypeError(f"compiler_options[{name!r}] is a {type(value).__name__}: XLA takes "
                            f"a str, bool, int or float for {name}")
        kind, repeated, names = DEBUG_OPTIONS[name]
        bad = _refused_value(kind, repeated, names, value)
        if bad is not None:
            raise CompileError(f"XLA could not compile the module: INVALID_ARGUMENT: While "
                               f"setting option {name}, '{bad}' is not a valid {kind} value.")


_INT_RANGES = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1),
               "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def _refused_value(kind, repeated, names, value):
    """The text XLA shows of a value its field of `kind` refuses, or None where it takes it."""
    if type(value) is bool:
        text = "1" if value else "0"
    elif type(value) is float:
        text = f"{value:.6g}"
    else:
        text = str(value)
    if kind == "bool":
        return None if type(value) is bool or value in ("True", "False") else text
    if kind in ("string", "message"):
        return None if kind == "string" and type(value) is str else text
    if kind in ("float", "double"):
        try:
            ok = type(value) is not str or float(value.strip()) is not None
        except ValueError:
            ok = False
        return None if ok and type(value) is not bool else text
    decimal = lambda t: re.fullmatch(r"\s*[+-]?[0-9]+\s*", t) is not None
    if kind == "enum":
        if type(value) is int:
            return None
        if type(value) is not str:
            return text
        items = (value.split(",") if value else []) if repeated else [value]
        return next((t for t in items if not decimal(t) and t not in names), None)
    low, high = _INT_RANGES[kind]
    if type(value) is int or (type(value) is str and decimal(value)):
        return None if low <= int(value) <= high else text
    return text


def _check_numpy_rules(jaxpr: Jaxpr, name: str) -> None:
    """Refuse, when compiled, a program with a primitive NumPy cannot run, saying so: one
    with neither a NumPy rule nor, a user's, an impl (a user's primitive made with def_impl
    and mlir.register_lowering, as JAX's primitives guide makes it, runs its impl there:
    core/numpy_eval.py's `user_impl`)."""
    for eqn in jaxpr.eqns:
        prim = eqn.primitive
        if prim in foreign_primitives and prim not in numpy_rules and \
                prim not in lowering_rules:
            # XLA refuses it too: JAX's words first (test_unimplemented_interpreter_rules)
            raise NotImplementedError(
                f"MLIR translation rule for primitive {prim.name!r} not found (in "
                f"{name or 'a program'}), as XLA says it; on the 'numpy' backend (jaxprs run "
                f"with NumPy, without XLA) a user's primitive runs its def_impl where XLA runs "
                f"that rule: register one with mlir.register_lowering and give it a def_impl, "
                f"or run under JAX_PLATFORMS=cpu")
        if prim not in numpy_rules and user_impl(prim) is None:
            raise unsupported(
                f"the primitive {eqn.primitive.name!r} (in {name or 'a program'})",
                "its NumPy evaluation rule is missing: in a compiled program every primitive "
                "runs through one, or, a user's primitive with a lowering rule "
                "(mlir.register_lowering, which is XLA's), through its def_impl, or as the "
                "operations its rule emits where they are only elementwise ones of the hlo "
                "builders (hlo.AddOp, hlo.sine, ...) or none. Give it a def_impl, or run under "
                "JAX_PLATFORMS=cpu")


def _check_has_arrays(jaxpr) -> None:
    """The TypeError XLA's lowering gives for a value of a dtype it keeps no arrays of
    (float6, int1: core/dtypes.NO_ARRAY_DTYPES), in the program or the jaxprs it holds: the
    same program fails on either backend, as under JAX."""
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    values = [*jaxpr.invars, *jaxpr.constvars, *(v for e in jaxpr.eqns for v in e.outvars)]
    for v in values:
        dtype = getattr(v.aval, "dtype", None)
        if dtype in dtypes.NO_ARRAY_DTYPES:
            dtypes.check_has_arrays(dtype, "a value in a program")
    for eqn in jaxpr.eqns:
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                if isinstance(sub, (Jaxpr, ClosedJaxpr)):
                    _check_has_arrays(sub)
