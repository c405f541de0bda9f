"""Running compiled programs: `Executable` calls a loaded executable on Arrays (or host
values, moved to its devices first), wraps the buffers it returns as Arrays, deletes donated
arguments, and keeps the host from queueing more runs than the devices can take.

    >>> from jxkernel.xla.compiler import compile_module
    >>> lowered = jax.jit(jnp.sin).lower(np.ones(3, np.float32))
    >>> loaded, phases = compile_module(lowered.as_text(), jax.devices()[:1])
    >>> exe = Executable(loaded, [jax.core.ShapedArray((3,), np.float32)], jax.devices()[0])
    >>> exe(np.zeros(3, np.float32))
    [Array([0., 0., 0.], dtype=float32)]

A program over several devices is one XLA partitions over a mesh (sharded.py's
`ShardedExecutable`, a subclass), called on buffers already laid out as it expects.
"""
from __future__ import annotations

import collections
import copy
import operator
import weakref

import numpy as np

from ..core.avals import ShapedArray
from ..core.config import config
from ..core.dtypes import float0
from ..core.physical import is_extended, physical_aval, wrap_physical
from . import client as _client
from . import effect_tokens as _tokens
from . import relayout as _relayout
from .array import Array, host_to_device
from .buffer import sharding_for, uncommitted_sharding_for
from .client import xc
from .compiler import CallbackError, ExecutionError
from .deleted import DELETED, Gone, aval_of, deleted_error, donated, mark, reused_error
from .host_values import _host_value
from .layout import executable_layouts
from .memory import is_out_of_memory, out_of_memory
from .transfers import put_on_device

_TOKEN_AVAL = ShapedArray((0,), np.dtype(bool))     # a runtime token's buffer (effect_tokens)
_new_array = Array.__new__


def _wrap(buf, aval) -> Array:
    """A result buffer of type `aval` as an Array (its handler already ran): the plain case
    of `Executable._out_wrap`."""
    a = _new_array(Array)
    a._buf, a.aval, a._npy, a._sharding = buf, aval, None, None
    return a


class Executable:
    """A compiled program, callable on Arrays; result handlers are built once.

    `device` is one device, or the sequence of a partitioned program's devices (for
    sharded.py's subclass, which wraps the results its own way).

    `donated`: per argument a bool (as `lower_module(donated=...)` takes), or the
    indices of the donated arguments. A donated argument is deleted by every call,
    also where XLA could not reuse its memory (no result of its type, or a NumPy
    view of it alive): one rule for users, as JAX's documentation states it.

    `kept`: None, or the indices of the arguments the program takes (jit drops those its
    function never reads, as JAX's: pipeline.lower). It is called with all of them and drops
    the others first (`call_buffers`, `call_arrays`), as JAX's ExecuteReplicated; `donated`,
    `in_avals` and `arg_names` are the kept arguments'.
    """

    # (class defaults too: for subclasses with an __init__ of their own, always committed)
    committed, _twin = True, None
    # how _run wraps each result buffer: __init__ picks _wrap_logical for extended or float0
    # results; subclasses with an __init__ of their own wrap theirs as Arrays (this default)
    _out_wrap = staticmethod(_wrap)
    # `user_jit`: the program of a user's jit (set by jit), whose calls after the first give a
    # donated Array JAX's ValueError; `ran`: a call went through (xla/deleted.py)
    user_jit = ran = False
    _whys = None           # donation_whys's reasons, one per donated argument
    _parameter_layouts = None       # (parameter_layouts's, read once)
    kept = None            # the arguments it takes (None: all)

    def __init__(self, loaded, out_avals, device, name="", donated=(), *, in_avals=None,
                 arg_names=None, committed=True, kept=None, tokens=(), out_kinds=None):
        self.devices = tuple(device) if isinstance(device, (list, tuple)) else (device,)
        self.device = self.devices[0]
        self.loaded, self.name = loaded, name
        self.out_avals = list(out_avals)
        self.in_avals = list(in_avals) if in_avals is not None else None
        self.arg_names = list(arg_names) if arg_names is not None else None
        self.donated = _donated_indices(donated)
        n = len(self.devices)
        # whether results are committed to the device (`with_committed`): results of a call
        # on uncommitted arguments are not, as JAX's (xla/placement.call_placement)
        self.committed = committed or n > 1
        self._twin = None
        self._sharding = sharding_for(self.devices) if self.committed else \
            uncommitted_sharding_for(self.devices)
        # typed keys' results come back as their uint32 data (core/physical.py), wrapped
        # as keys again (`_wrap_logical`); such programs stay off the compiled fast path
        physical = [result_aval(a) for a in self.out_avals]
        keyed = physical != self.out_avals
        # `out_kinds`: per result the memory kind jit's out_shardings name (None: 'device'),
        # which the module places it in: its buffer's sharding says so (xla/memory_kinds.py)
        self.out_kinds = out_kinds
        self.handlers = [_result_handler(a, self._sharding if k in (None, "device") else
                                         xc.GSPMDSharding(xc.DeviceList(self.devices),
                                                          xc.HloSharding.replicate(),
                                                          memory_kind=k), self.committed)
                         for a, k in zip(physical, out_kinds or [None] * len(physical))]
        # the ordered effects of a library's it takes and returns tokens for, first
        # (effect_tokens.runtime_tokens passes them between programs): off the fast paths
        self.tokens = tuple(tokens)
        if self.tokens:
            self.handlers = [_result_handler(_TOKEN_AVAL, self._sharding, True)] * \
                len(self.tokens) + self.handlers
        self._wrap = self._out_wrap = _wrap_logical if keyed else _wrap
        # Only the single-device, non-donating path skips the extra work in _finish.
        self._simple = n == 1 and not self.donated and not self.tokens
        self._execute = loaded.execute_sharded         # bound once: it is on every call
        # plain: _execute + handlers + Array wrapping is the whole call (the compiled fast
        # path, xla/fastpath.py, runs only such executables)
        self.plain = self._simple and type(self) is Executable and not keyed
        # one that donates some of its arguments, which the compiled fast path runs too,
        # deleting and marking them in C (with `donation_whys`) after
        self.plain_donating = n == 1 and bool(self.donated) and type(self) is Executable and \
            not keyed and not self.tokens
        if self.plain:
            # The hot path of jit and eager dispatch: a closure over what it reads, in place
            # of the method (subclasses change handlers and wrapping, so they keep it).
            self._run = self.call_buffers = _simple_call(self._execute, self.handlers,
                                                         self.out_avals, weakref.ref(self))
        self._take(kept)

    def _take(self, kept) -> None:
        """Take the `kept` arguments alone (None: all): `call_buffers` drops the others first."""
        self.kept = None if kept is None else tuple(kept)
        if kept is not None and self.plain:       # (the closure, then the kept ones' run)
            self.call_buffers = _kept_call(self._run, self.kept)

    def with_committed(self, committed: bool) -> Executable:
        """This program with results committed or not: itself, or a twin sharing the compiled
        program (made once; one-device programs of this class only, the others' results
        always committed)."""
        if committed == self.committed or type(self) is not Executable or \
                len(self.devices) > 1:
            return self
        if self._twin is None:                  # (the twin refers to nothing of this one)
            twin = copy.copy(self)
            twin.__init__(self.loaded, self.out_avals, self.devices, self.name, self.donated,
                          in_avals=self.in_avals, arg_names=self.arg_names,
                          committed=committed, kept=self.kept, tokens=self.tokens,
                          out_kinds=self.out_kinds)
            self._twin = twin
        return self._twin

    def call_buffers(self, bufs) -> list:
        """Run on jaxlib buffers, one per argument; returns Arrays (asynchronously: they may
        not be ready).

        The fast path. A donating call should go through `call_arrays`, which also drops
        the donated Arrays' cached NumPy views (they would block the donation)."""
        return self._run(bufs if self.kept is None else [bufs[i] for i in self.kept])

    def _run(self, bufs) -> list:
        """`call_buffers` on the buffers of the kept arguments alone."""
        if not self._simple and _in_flight:
            _release_finished()         # before launching, so their memory can be reused
        if self.tokens:
            return self._run_with_tokens(bufs)
        if _relayout.watching:      # (buffers of other layouts exist: each put as it takes it)
            bufs = _relayout.relayed(bufs, self.parameter_layouts())
        try:
            outs = self._execute(bufs).consume_with_handlers(self.handlers)
        except CallbackError:
            raise
        except Exception as e:
            raise self._execution_error(e, bufs) from None
        if self._simple:
            return list(map(self._out_wrap, outs, self.out_avals))
        return self._finish(bufs, outs)

    def _run_with_tokens(self, bufs) -> list:
        """`_run` of a program taking tokens: this thread's last ones for its effects first;
        those it gives back are the next program's."""
        n, tokens = len(self.tokens), _tokens.runtime_tokens
        given = [tokens.get_token_input(e, self.device) for e in self.tokens]
        if _relayout.watching:
            bufs = _relayout.relayed(bufs, (self.parameter_layouts() or [None] * n)[n:])
        try:
            outs = self._execute(given + list(bufs)).consume_with_handlers(self.handlers)
        except CallbackError:
            raise
        except Exception as e:
            raise self._execution_error(e, bufs) from None
        for effect, token in zip(self.tokens, outs[:n]):
            tokens.set_token_result(effect, _tokens.Token(token, self.device))
        return self._finish(bufs, outs[n:])

    def call_arrays(self, arrays) -> list:
        """Run on Arrays already on this executable's device(s), one per argument (those it
        does not take may be anything: they are dropped first)."""
        if config.jax_no_execution:       # (jit's fast path is off then: config._debug_values)
            check_may_execute(self.name)
        if self.kept is not None:       # (the others: not moved to its device, nor read)
            arrays = [arrays[i] for i in self.kept]
        for i in self.donated:
            arrays[i]._npy = None       # our cached zero-copy view would block the donation
        outs = self._run([a._buf for a in arrays])
        self.ran = True
        for i in self.donated:          # deleted now: its error says where it went
            mark(arrays[i], donated(self._what(), self._short_name(i)))
        return outs

    def donation_whys(self) -> tuple:
        """Why each donated argument is gone, the reason call_arrays marks it with (the compiled
        fast path, core/_fastpath.c, marks what a hit donates with these, and sets `ran`).

            >>> from jxkernel.xla.pipeline import compile_jaxpr
            >>> closed = jax.make_jaxpr(lambda x: x + 1)(np.ones(3, np.float32))
            >>> exe, _ = compile_jaxpr(closed.jaxpr, jax.devices()[:1], name="jit(f)",
            ...                        donated=(True,))
            >>> exe.donation_whys()          # (a jit names the argument: 'x')
            ("It was donated to jit(f) as its argument 0: use that call's result in its place, or do not donate it.",)
        """
        if self._whys is None:             # (each argument's reason, written once)
            self._whys = tuple(donated(self._what(), self._short_name(i)) for i in self.donated)
        return self._whys

    def __call__(self, *args) -> list:
        """Run on any arguments (Arrays, NumPy data, Python scalars), moving them as needed."""
        if self.in_avals is not None and len(args) != len(self.in_avals):
            raise TypeError(f"{self._what()} takes {len(self.in_avals)} arguments; got "
                            f"{len(args)}")
        return self.call_arrays([self._to_argument(i, x) for i, x in enumerate(args)])

    def _finish(self, bufs, outs) -> list:
        for i in self.donated:
            if not bufs[i].is_deleted():
                # A NumPy view held by the user made XLA skip the donation silently. Delete
                # anyway, so a donated argument is invalid after every call, not just some;
                # the view stays valid (it holds its own reference to the memory).
                bufs[i].delete()
        if len(self.devices) > 1 and outs:
            _throttle(outs[0])
        return [self._wrap(b, a) for b, a in zip(outs, self.out_avals)]

    # ------------------------------------------------------------ arguments
    def _to_argument(self, i, x) -> Array:
        """Argument `i` as an Array on this executable's device(s), checked against in_avals."""
        if isinstance(x, Array) and x.is_deleted():
            raise self._deleted_error(i, x._buf)
        expected = self.in_avals[i] if self.in_avals is not None else None
        if isinstance(x, Array):
            if expected is not None:
                self._check_type(i, x.aval, expected)
            return x if type(x) is Array and x._sharding is None and x.device == self.device else \
                put_on_device(x, self.device)
        value, aval = _host_value(x)
        if expected is not None:
            self._check_type(i, aval, expected)
            value = value.astype(expected.dtype, copy=False)
            aval = aval.update(dtype=expected.dtype)
        return host_to_device(value, aval, self.device)

    def _check_type(self, i, aval, expected) -> None:
        """Types must match: XLA checks only byte sizes, and would reinterpret the bytes.
        A weakly typed value (a Python scalar) takes the expected dtype, as in jit."""
        if aval.shape != expected.shape or (aval.dtype != expected.dtype and not aval.weak_type):
            raise TypeError(f"{self._arg_name(i)} of {self._what()} must be "
                            f"{expected.strip_weak_type().str_short(True)}; got "
                            f"{aval.strip_weak_type().str_short(True)}")

    def _arg_name(self, i) -> str:
        if self.arg_names is not None and i < len(self.arg_names):
            return f"Argument '{self.arg_names[i]}' (argument {i})"
        return f"Argument {i}"

    def _short_name(self, i) -> str:
        return f"argument '{self.arg_names[i]}'" if self.arg_names is not None and \
            i < len(self.arg_names) else f"argument {i}"

    def _what(self) -> str:
        return self.name or "the computation"

    # ------------------------------------------------------------ errors
    def _raise_deleted(self, i, buf):
        raise self._deleted_error(i, buf)

    def _deleted_error(self, i, buf) -> Exception:
        """JAX's errors (xla/deleted.py): a user's jit that already ran, given a donated Array,
        raises ValueError naming the argument's place among the program's arguments (its
        closed-over constants come first here, not in JAX's); anything else RuntimeError."""
        if self.user_jit and self.ran and not (type(buf) is Gone and buf.why == DELETED):
            consts = sum(n.startswith("<closed-over constant") for n in self.arg_names or ())
            return reused_error(i - consts, buf)
        return deleted_error(aval_of(buf), buf)

    def _execution_error(self, error, bufs) -> Exception:
        for i, b in enumerate(bufs):
            if type(b) is Gone or isinstance(b, xc.ArrayImpl) and b.is_deleted():
                return self._deleted_error(i, b)
        for i, b in enumerate(bufs):
            if not isinstance(b, xc.ArrayImpl):
                return TypeError(f"{self._arg_name(i)} of {self._what()} is a "
                                 f"{type(b).__name__}, not a device buffer; call the "
                                 f"Executable itself (exe(*args)) to pass host values")
        seen: dict = {}
        for i, b in enumerate(bufs):
            j = seen.setdefault(id(b), i)
            if j != i and (i in self.donated or j in self.donated):   # XLA's error, as JAX's
                return _client.JaxRuntimeError(
                    f"{error}\nThe same Array is passed to {self._what()} as arguments {j} and "
                    f"{i}, and one of them is donated: a donated buffer cannot also be read. "
                    f"Pass a copy (x.copy()) as one of them, or do not donate it.")
        n = len(self.devices)
        for i, b in enumerate(bufs):
            shards = len(b._sharding._devices)
            if shards != n:
                fix = ("gather it first with device_put(x, device)" if shards > 1 else
                       "lay it out over them first with device_put(x, sharding)")
                return ValueError(
                    f"{self._arg_name(i)} of {self._what()} lives on {shards} device(s), but "
                    f"this program runs on {n}: {fix}.")
        if is_out_of_memory(error):
            return out_of_memory(f"run {self._what()}", error, released=False)
        return ExecutionError(f"XLA failed to run {self._what()}: {error}")

    # ------------------------------------------------------------ introspection
    def cost_analysis(self) -> dict | None:
        """XLA's estimate for the compiled program (a PJRT plugin's through the C API's
        PJRT_Executable_GetCostAnalysis); None where the backend answers UNIMPLEMENTED, as
        JAX's Compiled.cost_analysis."""
        try:
            return dict(self.loaded.cost_analysis())
        except _client.JaxRuntimeError as e:
            if str(e).startswith("UNIMPLEMENTED"):
                return None
            raise

    def optimized_hlo(self) -> str:
        return self.loaded.get_hlo_text()

    def layouts(self) -> tuple:
        """(its parameters', its results') `Layout`s as XLA compiled them: the parameters
        those it takes (`kept`), constants first."""
        return (executable_layouts(self.loaded.get_parameter_layouts()),
                executable_layouts(self.loaded.get_output_layouts()))

    def memory_stats(self):
        return self.loaded.get_compiled_memory_stats()

    def parameter_layouts(self) -> list | None:
        """jaxlib's layouts of its parameters (read once), which relayout.relayed puts each
        run's buffers in once buffers of other layouts than row-major exist."""
        if self._parameter_layouts is None:
            self._parameter_layouts = _relayout.parameter_layouts(self.loaded)
        return self._parameter_layouts


# Programs over several devices launched back to back without waiting deadlock XLA:CPU's
# collectives at ~60 in flight, and the process aborts 40 s later (docs/jaxlib.md §4, seen
# with the replicated programs jxkernel once ran; partitioned programs run their collectives
# on the same runtime, so they keep the limit). Such a launch waits for the oldest one beyond
# _MAX_IN_FLIGHT, across executables.
_MAX_IN_FLIGHT = 8
_in_flight: collections.deque = collections.deque()


def _throttle(result) -> None:
    _in_flight.append(result)
    while len(_in_flight) > _MAX_IN_FLIGHT:
        try:
            oldest = _in_flight.popleft()
        except IndexError:                # another thread took it
            break
        if not oldest.is_deleted():
            oldest.block_until_ready()


def _release_finished() -> None:
    """Forget launches that are done: held here, their results' device memory could not be
    reused, which cost a blocking loop of an 8-device psum about 30 % per call."""
    try:
        while _in_flight and (_in_flight[0].is_deleted() or _in_flight[0].is_ready()):
            _in_flight.popleft()
    except IndexError:                    # another thread took it
        pass


def _donated_indices(donated) -> tuple:
    donated = list(donated)
    if all(type(d) is bool for d in donated):
        return tuple(i for i, d in enumerate(donated) if d)
    return tuple(sorted(int(i) for i in donated))



def _result_handler(aval, sharding, committed=True):
    try:
        return xc.array_result_handler(aval, sharding, committed, _skip_checks=True)
    except TypeError:               # jaxlib >= 0.11 dropped _skip_checks (it never checks)
        return xc.array_result_handler(aval, sharding, committed)


def check_may_execute(name) -> None:
    """JAX's RuntimeError if jax_no_execution is set."""
    if config.jax_no_execution:
        raise RuntimeError(f"JAX tried to execute function {name}, but the no_execution config "
                           "option is set")


def _simple_call(execute, handlers, out_avals, executable_ref):
    """`Executable.call_buffers` of a single-device, non-donating program, with everything
    it reads bound in a closure (no attribute lookups, no branches on the hot path). The
    executable is held weakly, for its error messages: a strong reference would be a cycle."""
    if len(out_avals) == 1:             # most programs: no map over the results
        out_aval, = out_avals

        def call_buffers(bufs) -> list:
            if _relayout.watching:      # (as Executable._run)
                bufs = _relayout.relayed(bufs, executable_ref().parameter_layouts())
            try:
                out, = execute(bufs).consume_with_handlers(handlers)
            except CallbackError:
                raise
            except Exception as e:
                raise executable_ref()._execution_error(e, bufs) from None
            array = _new_array(Array)          # _wrap, written out: one call fewer
            array._buf, array.aval, array._npy, array._sharding = out, out_aval, None, None
            return [array]
        return call_buffers

    def call_buffers(bufs) -> list:
        if _relayout.watching:
            bufs = _relayout.relayed(bufs, executable_ref().parameter_layouts())
        try:
            outs = execute(bufs).consume_with_handlers(handlers)
        except CallbackError:
            raise
        except Exception as e:
            raise executable_ref()._execution_error(e, bufs) from None
        return list(map(_wrap, outs, out_avals))
    return call_buffers


def _kept_call(run, kept):
    """`call_buffers` of a plain program that takes the `kept` arguments alone: each call's
    others dropped, then `run` (the program's closure)."""
    if len(kept) == 1:
        i, = kept
        return lambda bufs: run([bufs[i]])
    pick = operator.itemgetter(*kept) if kept else lambda bufs: ()
    return lambda bufs: run(list(pick(bufs)))


def _wrap_logical(buf, aval):
    """A result of `aval`'s type: of an extended dtype, what its rules make over the data (typed
    keys: a KeyArray, random/keys.py; else an EArray, core/physical.py); of float0, its zeros
    on the host; or an Array."""
    if is_extended(aval):
        return wrap_physical(aval, _wrap(buf, physical_aval(aval)))
    if aval.dtype == float0:
        return float0_result(aval)
    return _wrap(buf, aval)


def result_aval(aval):
    """The type of the buffer a program gives for a result of type `aval`: an extended type's
    data (physical_aval), false bools for float0 (as JAX lowers it)."""
    if getattr(aval, "dtype", None) == float0:
        return aval.update(dtype=np.dtype(np.bool_))
    return physical_aval(aval)


def float0_result(aval) -> np.ndarray:
    """A float0 result (an integer's tangent, holding nothing): zeros on the host, as JAX's
    result handler makes them (a program's result is false bools), not an Array."""
    return np.zeros(aval.shape, float0)

