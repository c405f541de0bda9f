"""Eager execution: run one primitive by compiling it alone (cached) with XLA.

This is the hook `EvalTrace` calls (installed at import). There is a single
execution path: an eager `sin` is a one-equation jaxpr, lowered, compiled once
per (primitive, params, input types, device) and run.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

from ..core.avals import ShapeDtypeStruct, Token, get_aval
from ..core.config import config
from ..core.dtypes import float0, is_complex, is_inexact, is_numeric_kind
from ..core.errors import not_a_jax_value, shapes_only_error
from ..core import compile_record, watches
from ..core import trace as _trace
from ..core.device_assignment import check_device_assignment
from ..core.ir import (ClosedJaxpr, Eqn, Jaxpr, Literal, Var, jaxprs_in_params,
                       none_hidden_params)
from ..core.lru import LRU, PROGRAMS, Bounded
from ..core.mesh import on_context_mesh
from ..core.physical import physical_rules
from ..core.primitive import compiled_impl, impl_rules, lowering_rules, rule
from ..core.sharding_types import abstract_eval
from ..core.source_info import PACKAGE_DIR
from ..core.trace import Tracer
from ..core.traceback_util import filter_raised, register_boundary
from ..core.tracer_errors.escaped import escaped_tracer_error
from . import client as _client
from .array import ARRAY_TYPES, Array, host_to_device
from .placement import all_placed, call_placement, placement_of
from .transfers import put_on_device
from . import fastpath
from .executable import Executable, check_may_execute
from .lowering import NeedsMesh
from .pipeline import compile_jaxpr

# Eager programs, one per primitive, params and operand types: bounded (core/lru.PROGRAMS),
# as JAX's `xla_primitive_callable`, since a loop over shapes makes new ones without end.
_fast = Bounded(PROGRAMS)     # the hot path's key (see run_compiled) -> _LastRun (a dict's get)
_last_run: dict = {}         # prim -> its last _LastRun on the hot path (apply_primitive)


def _forget(_, exe) -> None:
    """An executable the LRU dropped leaves the hot paths too, so that it is freed (else the
    fast dict would keep up to as many more)."""
    for table in (_fast, _last_run):
        for key, run in list(table.items()):
            if run.exe is exe or run.exe is exe._twin:      # (its uncommitted results' twin)
                table.pop(key, None)


_executables = LRU(PROGRAMS, on_evict=_forget)  # (prim, avals, params, device) -> Executable
# Set by xla/sharded.py (on its import): operations on arrays split over a mesh run there.
sharded_apply = None
# xla/sharded.py's run_jaxpr, set when it loads: a primitive whose program needs a mesh (a
# pmap or shard_map inside an eager loop's body) runs over it, as jit runs such a program
sharded_run_jaxpr = None


class _LastRun:
    """A run of a primitive on the hot path: its params, the operands' types and first
    placement, the config it last ran under (config._generation), and its executable. Made
    once per `_fast` entry, so that making it a primitive's last run allocates nothing."""
    __slots__ = ("params", "avals", "where", "generation", "exe", "native")

    def __init__(self, params, avals, where, exe, single):
        self.params, self.avals, self.where, self.exe = params, avals, where, exe
        self.generation = config._generation
        # the same check and call compiled (xla/fastpath.py), or None: the Python path
        self.native = fastpath.eager_hit(avals, where, self.generation, exe, params, single)


def apply_primitive(prim, args, params):
    """Run `prim` eagerly: its impl rule if it has one, else compiled alone with XLA. This is
    JAX's eager operation, a jit of the one primitive: an api boundary, whose error (a shape
    rule's, jax_debug_nans') leaves without the frames of jxkernel below it."""
    try:
        impl = impl_rules.get(prim)
        if impl is not None:
            return impl(*args, **params)
        # The hot paths (written out here rather than calling run_compiled: calls cost), for
        # operands that are all single-device Arrays, no chosen device, no NaN checks. First the
        # primitive's last run, if these operands and params match it (compared, not hashed);
        # then the _fast dict, whose key uses the first buffer's sharding object (one per
        # device) in place of the device.
        exe = None
        last = _last_run.get(prim)        # (a compiled bind has tried its Hit in C)
        if last is not None:
            try:
                if len(args) == 1:                     # unary: no comprehensions (each a frame)
                    bufs, avals = [args[0]._buf], [args[0].aval]
                else:
                    bufs, avals = [a._buf for a in args], [a.aval for a in args]
                if avals == last.avals and all_placed(bufs, last.where) and \
                        last.generation is config._generation and params == last.params:
                    exe = last.exe
            except (AttributeError, IndexError, TypeError, ValueError):  # (a param's odd __eq__)
                pass
        if exe is None and config._eager_fast:
            try:
                bufs = [a._buf for a in args]
                run = _fast.get((prim, tuple(params.items()), _where(bufs),
                                 config._trace_state, *[a.aval for a in args]))
            except (AttributeError, TypeError):
                run = None
            if run is not None and all_placed(bufs, run.where):
                exe = run.exe
                if bufs:
                    run.generation = config._generation   # (this path's conditions hold now)
                    if run.native is not None:
                        run.native.generation = run.generation
                    _last_run[prim] = run
        if exe is None:
            return _run_compiled(prim, args, params)
        try:
            outs = exe.call_buffers(bufs)
        except ValueError:
            if sharded_apply is None or not _any_sharded(args):
                raise
            return sharded_apply(prim, args, params)  # a later operand is split over a mesh
        return outs if prim.multiple_results else outs[0]
    except Exception as e:
        filter_raised(e)
        raise


register_boundary(apply_primitive.__code__)   # (nested in it, a boundary filters nothing)


def _where(bufs):
    """The fast dict's placement part of a key: the first operand's sharding object, or with no
    operands (iota, create_token) the default device, which a config change (jax_platforms,
    `%jxbackend`) moves: a key without it ran the old backend's program there."""
    return bufs[0]._sharding if bufs else _client.default_device()


def clear_primitive_cache() -> None:
    """Forget every eager operation's executable (JAX's xla_primitive_callable.cache_clear):
    each compiles again on its next call."""
    for cache in (_executables, _fast, _last_run, _eager_watches):
        cache.clear()


def run_compiled(prim, args, params):
    """Compile `prim` alone (cached per primitive, params, input types, device) and run it."""
    if config._eager_fast:
        try:
            bufs = [a._buf for a in args]
            run = _fast.get((prim, tuple(params.items()), _where(bufs),
                             config._trace_state, *[a.aval for a in args]))
        except (AttributeError, TypeError):
            run = None
        if run is not None and all_placed(bufs, run.where):
            outs = run.exe.call_buffers(bufs)
            return outs if prim.multiple_results else outs[0]
    return _run_compiled(prim, args, params)


# `prim.impl` of a primitive without an impl rule (core/primitive.py's CompiledImpl)
compiled_impl[0] = run_compiled


def _run_compiled(prim, args, params):
    # over a mesh: an operand's, or set_mesh's (jax.set_mesh loads xla/sharded.py, which sets
    # sharded_apply; set_mesh clears config._eager_fast: without it one attribute read decides)
    if sharded_apply is not None and (_any_sharded(args) or
                                      not config._eager_fast and on_context_mesh()):
        return sharded_apply(prim, args, params)
    chosen = config.jax_default_device is not None
    # JAX's rule: committed Arrays decide, uncommitted ones move to them
    device, committed = call_placement(args, lambda: (prim.name, _operand_names(len(args))))
    # an Exported's call commits its results, as JAX's (their memory kinds count among the
    # program's shardings: pxla's jaxpr_transfer_mem_kinds; transforms/jit/pinned.py for jit)
    committed = committed or prim.name == "call_exported"
    bufs, avals = [], []
    for i, a in enumerate(args):
        if type(a) not in ARRAY_TYPES or a._buf._sharding._devices[0] != device:
            a = _operand_on(prim, i, a, args, params, device)
        # (a Token: its buffer, an Array of the token's own, typed a token, as jit takes it)
        bufs.append(a._buf._buf if type(a) is Token else a._buf)
        avals.append(a.aval)
    try:
        # (the config that traces: jax_allow_f16_reductions decides what abstract eval allows)
        key = (prim, tuple(avals), tuple(params.items()), device, config._trace_state)
        exe = _executables.get(key)
    except TypeError:
        raise TypeError(f"Parameters of '{prim}' must be hashable; got {params}") from None
    if key in _over_mesh:
        return _run_over_mesh(prim, args, avals, params, _over_mesh[key])
    if exe is None:
        try:
            exe = _executables[key] = compile_primitive(prim, avals, params, device)
        except NeedsMesh as e:      # a shard_map or pmap inside (an eager loop's body)
            _over_mesh[key] = e.mesh
            return _run_over_mesh(prim, args, avals, params, e.mesh)
    exe = exe.with_committed(committed)
    # a loop or branch of the learner's that the notebook watches: its calls stay here
    eager = _watched(key, prim, avals, params) if watches.makers else None
    # the fast paths take calls whose operands all have the sharding object these have (one
    # per device and kind: where the call runs, and what its results are, follow from it)
    where = placement_of(device, committed)
    if eager is None and not chosen and \
            all(type(a) in ARRAY_TYPES and a._buf._sharding is where for a in args):
        where = where if bufs else device
        _fast[(prim, tuple(params.items()), where, config._trace_state, *avals)] = _LastRun(
            dict(params), avals, where, exe, not prim.multiple_results)
    if config._debug_values:
        check_may_execute(prim.name)
    outs = exe.call_buffers(bufs)
    if config._debug_values:
        check_values(prim.name, outs, args)
    if eager is not None:
        eager.called(list(args), outs, time.perf_counter())
    return outs if prim.multiple_results else outs[0]


# (prim, avals, params, device, trace state) -> the watches.Eager of a primitive holding
# jaxprs (a loop's body, a branch) that a maker of the notebook watches, or None
_eager_watches = LRU(PROGRAMS)


def _watched(key, prim, avals, params):
    """The watches.Eager of an eager primitive's program (a `lax.fori_loop` outside jit), or
    None: none holds a jaxpr, or nothing watches it."""
    def program():
        if next(jaxprs_in_params(params), None) is None:
            return None                 # (no body: nothing of the learner's inside)
        return ClosedJaxpr(primitive_jaxpr(prim, avals, params), [])
    return watches.eager(_eager_watches, key, program)


_over_mesh = LRU(PROGRAMS)     # (prim, avals, params, device) -> the mesh its program needs


def _run_over_mesh(prim, args, avals, params, mesh):
    """`prim` compiled over `mesh`, partitioned as jit partitions a program with a shard_map
    inside (JAX's eager loop with a pmap in its body runs it so)."""
    outs = sharded_run_jaxpr(ClosedJaxpr(primitive_jaxpr(prim, avals, params)), prim.name,
                             args, mesh)
    return outs if prim.multiple_results else outs[0]


def _operand_names(n) -> list:
    """Operands as JAX's error for two committed devices names them: x and y, the names of
    jnp's binary functions (JAX's `x + y` is jnp.add's jitted call), else args[i]."""
    return ["x", "y"] if n == 2 else [f"args[{i}]" for i in range(n)]


def _any_sharded(args) -> bool:
    for a in args:
        if type(a) is not Array:
            a = getattr(a, "_base", None)      # a KeyArray: its key data's placement
        if type(a) is Array and a._sharding is not None:
            return True
    return False


def _operand_on(prim, i, a, args, params, device) -> Array:
    """Operand `i` of an eager `prim` put on `device`, or JAX's error for one no array holds:
    its rule's for a float0, its words for NumPy data of no JAX type (strings, objects)."""
    if type(a) is Token:          # its buffer is what the program takes (as jit passes it)
        return a
    if getattr(a, "dtype", None) == float0:
        abstract_eval(prim, [get_aval(x) for x in args], params)
    if isinstance(a, (str, bytes)) or isinstance(a, (np.ndarray, np.generic)) and \
            not is_numeric_kind(a.dtype) or not _jax_value(a):
        raise not_a_jax_value(prim.name, i, a)
    if isinstance(a, ShapeDtypeStruct):   # a type, no data: JAX's jit of the primitive says
        raise shapes_only_error(f"args[{i}]", a)
    return to_device(a, device)


def _jax_value(a) -> bool:
    """Whether a primitive may take `a` as an operand: a value of a JAX type, as JAX's bind
    checks (lax.neg([1.0]), lax.neg(None), lax.neg(object()) are refused in its words)."""
    if isinstance(a, (np.ndarray, np.generic, Tracer, Literal, int, float, complex)) or \
            hasattr(a, "aval") or hasattr(a, "__jax_array__"):
        return True
    try:
        get_aval(a)
    except TypeError:
        return False
    return True


def to_device(x, device) -> Array:
    """A non-Array operand (NumPy data, a Python scalar, a weak literal) as an Array."""
    if isinstance(x, Tracer):
        raise escaped_tracer_error(x)
    if type(x) is Literal:           # a weak-typed literal re-bound by eval_jaxpr
        return host_to_device(np.asarray(x.val, x.aval.dtype), x.aval, device)
    return put_on_device(x, device)


def primitive_jaxpr(prim, avals, params) -> Jaxpr:
    """A one-equation jaxpr applying `prim` to inputs of `avals`."""
    invars = [Var(a) for a in avals]
    outvars = [Var(a) for a in abstract_eval(prim, avals, params)]
    return Jaxpr([], invars, outvars, [Eqn(invars, outvars, prim, params)])


# jnp's elementwise functions that JAX 0.10.2 runs as a jit named after themselves (a
# jnp.ufunc's call, or a jitted function): run eagerly, each compiles a program of that name
# ("jit_multiply" for `x * y`), where jxkernel's apply their primitive (mul) themselves.
# Recorded from JAX (reference/make_eager_program_names_reference.py's "jitted") and checked
# against jxkernel's numpy/ufuncs.py by tests/views/test_eager_program_names.py. Not `power`
# (JAX applies integer_pow itself) nor `divide` (it calls true_divide).
JAX_JITTED_UFUNCS = frozenset("""
    abs absolute acos acosh add allclose angle arccos arccosh arcsin arcsinh arctan arctan2
    arctanh around asin asinh atan atan2 atanh bitwise_and bitwise_count bitwise_invert
    bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor cbrt ceil clip
    conjugate copysign cos cosh deg2rad divmod equal exp exp2 expm1 fabs float_power floor
    floor_divide fmax fmin fmod frexp gcd greater greater_equal heaviside hypot i0 imag invert
    isclose iscomplex isfinite isinf isnan isreal lcm ldexp left_shift less less_equal log
    log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor
    maximum minimum modf multiply nan_to_num negative nextafter not_equal positive rad2deg
    real reciprocal remainder right_shift rint round sign signbit sin sinc sinh spacing sqrt
    square subtract tan tanh true_divide trunc""".split())
_UFUNCS_FILE = os.path.join(PACKAGE_DIR, "numpy", "ufuncs.py")
# the bind's own frames, and lax's (a lax function binding its primitive: jnp.square's
# integer_pow): skipped to reach the function that applied the primitive
_BINDING = tuple(PACKAGE_DIR + d + os.sep for d in ("core", "xla", "lax"))


def program_name(prim) -> str:
    """The name of an eager program of `prim`, as JAX names it: the jnp function that applied
    it where JAX runs that function as a jit of its own name (`x * y`: "multiply"), else the
    primitive's ("mul", as JAX names `lax.mul`'s). Asked only when it compiles (a frame walk
    off the cache-hit path)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_BINDING):
        frame = frame.f_back
    if frame is not None and frame.f_code.co_filename == _UFUNCS_FILE and \
            frame.f_code.co_name in JAX_JITTED_UFUNCS:
        return frame.f_code.co_name
    return prim.name


def compile_primitive(prim, avals, params, device) -> Executable:
    # a user's Primitive with neither def_impl nor lowering (typed keys' primitives are
    # lowered through their physical rules: core/physical.py)
    if prim not in lowering_rules and prim not in physical_rules:
        rule("impl", prim)
    start = time.perf_counter()
    name = program_name(prim)
    jaxpr = primitive_jaxpr(prim, avals, params)
    # a result typed over a mesh of several devices cannot come from one (JAX's error)
    check_device_assignment(jaxpr.out_avals, 1)
    # (making its one-equation jaxpr is its trace: JAX logs "Finished tracing sin for jit")
    exe, phases = compile_jaxpr(jaxpr, [device], name=name,
                                trace_s=time.perf_counter() - start)
    # logged as jit's compiles are: `jnp.sin(x)` outside jit compiles `sin` for its operands'
    # types and params (a slice's bounds), once per process
    compile_record.record_compiled(f"{name} (eager)", tuple(
        (f"args[{i}]", a.str_short(True)) for i, a in enumerate(avals)), phases,
        _client.platform_of(device), origin=compile_record.EAGER, statics=tuple(
            (k, v) for k, v in params.items()     # (a None default hidden as the jaxpr hides it)
            if v is not None or k not in none_hidden_params.get(prim, ())),
        # a program holding others (a scan's body, a cond's branches), for the key note:
        # a loop body drawing with a key it closes over, run outside jit
        jaxpr=ClosedJaxpr(jaxpr, []) if next(jaxprs_in_params(params), None) else None)
    return exe


def invalid_value(arrays) -> str | None:
    """The kind of invalid value ("nan" or "inf") the arrays hold, of those being checked for
    (jax_debug_nans, jax_debug_infs), or None."""
    for a in arrays:
        if is_inexact(a.dtype):        # (ml_dtypes' floats: NumPy kind 'V' but e5m2's)
            values = np.asarray(a, dtype=np.complex128 if is_complex(a.dtype)
                                else np.float64)
            if config.jax_debug_nans and np.isnan(values).any():
                return "nan"
            if config.jax_debug_infs and np.isinf(values).any():
                return "inf"
    return None


# JAX prints this to stdout (saying "nan" for an inf too) whenever a jit makes an invalid
# value: the learner's, and each of jnp's, jax.nn's, jax.scipy's and jax.random's functions,
# which JAX writes as jits. A bare primitive (a lax function, lax.scan/cond/while_loop, an
# operation of grad's backward pass) raises without it (tests/data/first_nan_reference.json).
DEOPTIMIZED_RERUN_LINE = ("Invalid nan value encountered in the output of a jax.jit function. "
                          "Calling the de-optimized version.")
_JITTED_IN_JAX = ("jxkernel.numpy.", "jxkernel.nn.", "jxkernel.scipy.", "jxkernel.random.")


def _bound_by_a_jitted_api() -> bool:
    """Whether the operation being checked was bound by one of the functions JAX writes as
    jits (jnp.log, x + y's jnp.add, jax.nn.relu) and jxkernel runs without one, as opposed to
    a bare primitive: the frames from here up to the caller's own code (the first outside
    jxkernel), looked at only once a NaN was found. One of those functions that is a jit here
    too (jnp.sum) said the line already, in its `rerun_deoptimized`."""
    frame, seen = sys._getframe(2), False
    while frame is not None:
        if frame.f_code is rerun_deoptimized.__code__:
            return False
        module = frame.f_globals.get("__name__", "")
        if module != "jxkernel" and not module.startswith("jxkernel."):
            return seen
        seen = seen or module.startswith(_JITTED_IN_JAX)
        frame = frame.f_back
    return seen


def check_values(name, arrays, operands=()):
    """Raise JAX's FloatingPointError when `name`'s results hold a NaN/inf being checked for.
    The error carries `invalid_operation` (the primitive, the kind, its operands and results
    as NumPy arrays, None for one that is none), which the debug-nans error card reads: the
    values that made the NaN, which JAX's message does not say."""
    kind = invalid_value(arrays)
    if kind is not None:
        if _bound_by_a_jitted_api():
            print(DEOPTIMIZED_RERUN_LINE)
        error = FloatingPointError(f"invalid value ({kind}) encountered in {name}")
        error.invalid_operation = {"primitive": name, "kind": kind,
                                   "operands": [_on_host(a) for a in operands],
                                   "results": [_on_host(a) for a in arrays]}
        raise error


def _on_host(a):
    """`a`'s values as a NumPy array (an Array's, a buffer's, a number's); None for what has
    none (a key, a token)."""
    try:
        values = np.asarray(a)
    except Exception:  # noqa: BLE001  (what np.asarray refuses has no values to show)
        return None
    return values if values.dtype.kind in "biufc" else None


def check_jitted_values(name, fun, outs, args, kwargs, jaxpr=None, arrays=None) -> None:
    """jax_debug_nans / jax_debug_infs after `jit(fun)` (named `name`) returned `outs`: on a
    NaN/inf, rerun `fun` op by op (this jit off), so that the operation that made it raises,
    as JAX does; if none does, JAX's FloatingPointError for the jit. jax_debug_key_reuse:
    the call's key arguments (`arrays`, the jitted `jaxpr`'s inputs) checked and marked
    (random/key_reuse.py; the call itself changed no mark, so checking after it is as
    checking before)."""
    if config.jax_debug_key_reuse and jaxpr is not None:
        _trace.key_reuse.jit_call(jaxpr, arrays, outs)
    if not config._debug_values:
        return
    kind = invalid_value(outs)
    if kind is None:
        return
    rerun_deoptimized(kind, name, lambda: fun(*args, **kwargs))


class InvalidJitOutput(FloatingPointError):
    """A jit equation run eagerly (bound by grad's backward pass, or by a jitted function
    called under vmap or jvp) made a NaN/inf being checked for: what bound it reruns it op by
    op (`rerun_deoptimized`), as JAX's InternalFloatingPointError is caught by its jit call
    and its jit transpose. Uncaught, it is the FloatingPointError it says."""

    def __init__(self, kind: str, name: str):
        super().__init__(f"invalid value ({kind}) encountered in jit({name})")
        self.kind, self.name = kind, name


def rerun_deoptimized(kind: str, name: str, rerun, line: str = DEOPTIMIZED_RERUN_LINE):
    """After jit `name` made a NaN/inf (`kind`): print `line` and `rerun()` its work op by op
    (as JAX: jits inside still run compiled, and check), so that the operation that made it
    raises; if none does, JAX's FloatingPointError for the jit."""
    print(line)
    try:
        rerun()
    except (FloatingPointError, ZeroDivisionError) as e:
        # as JAX's: the operation's error, without the source trace a transformation chained
        # to it (JaxStackTraceBeforeTransformation: a NaN of grad's backward pass inside the
        # jit names the line calling grad, not the forward line again)
        raise e from None
    # JAX's words, its opening the repr of its internal error's (name, kind) pair; without
    # its last line, which asks for a bug report at JAX's own repository
    raise FloatingPointError(
        f"('jit({name})', '{kind}'). Because jax_config.debug_nans.value and/or "
        f"config.jax_debug_infs is set, the de-optimized function (i.e., the function as if "
        f"the `jit` decorator were removed) was called in an attempt to get a more precise "
        f"error message. However, the de-optimized function did not produce invalid values "
        f"during its execution. This behavior can result from `jit` optimizations causing "
        f"the invalid value to be produced. It may also arise from having nan/inf literals "
        f"as inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. \n\n"
        f"It may be possible to avoid the invalid value by removing the `jit` decorator, at "
        f"the cost of losing optimizations.")


_trace.install_eval_hook(apply_primitive)
fastpath.connect(_last_run)        # the compiled Primitive.bind tries these last runs in C
