"""Traces and tracers: every transformation is an interpreter over primitives.

There is one *current trace* per thread. `Primitive.bind` hands each operation
to it. A transformation (jvp, vmap, staging for jit) makes a new trace whose
`parent` is the trace that was current, wraps its inputs in tracers of the new
trace, and runs the user's function with the new trace current. Its
`process_primitive` unpacks its own tracers and binds the primitive again with
the parent current (a rule may bind several primitives). The root is the
`EvalTrace`, which runs primitives on real data.

A value that is not a tracer of the trace processing it is a constant there:
a plain array, or a tracer of an enclosing (ancestor) trace. A tracer of a
trace that has finished has *escaped* and raises UnexpectedTracerError.
"""
from __future__ import annotations

import collections
import itertools
import sys
import threading
import types

from . import errors
from .basearray import Array
from .errors import aval_text, jax_class_name, jax_type_text  # noqa: F401  (home: errors.py)
from .tracer_errors.escaped import escaped_tracer_error
from .avals import ShapedArray
from .source_info import is_jxkernel_file


# a property or method of a type's values declared on the type (jax.experimental.hijax's
# aval_property and aval_method): tracers of that type forward to it (Tracer.__getattr__)
aval_property = collections.namedtuple("aval_property", ["fget"])
aval_method = collections.namedtuple("aval_method", ["fun"])


class Trace:
    """One level of interpretation. Subclasses implement `process_primitive`."""
    _ids = itertools.count()

    # how long the name stack was when this trace began: the equations it records keep what
    # was pushed since (JAX's name stacks are relative to the jaxpr holding the equation)
    name_base = 0

    # on the outermost transformation: the NumPy arrays used under it, put on the device once
    # each, the id of either -> (array, Array) (numpy/util.host_array); dropped when it ends
    host_arrays: dict | None = None

    # whether this trace records a program run later (jit's, a loop body's), so Python code
    # under it runs once per trace, not per call: a print under grad or vmap inside a jit
    # (print_notes; JAX 0.10.2 prints such a GradTracer once for three calls)
    stages = False

    def __init__(self, parent: Trace | None):
        self.parent = parent
        self.level = 0 if parent is None else parent.level + 1
        # the transformation this one is nested in that began first (the root's child); held
        # by the nested ones only: the outermost naming itself would be a reference cycle,
        # which keeps a finished trace alive until a garbage collection
        # (core/tracer_errors/leaks.py)
        self._outer = None if parent is None or parent.parent is None else parent.outer
        self.alive = True
        self.id = next(Trace._ids)

    def process_primitive(self, prim, args, params):
        raise NotImplementedError

    def check_foreign_tracer(self, tracer: Tracer) -> None:
        """`tracer` is not ours: allow it only if its trace encloses this one and is alive."""
        owner = tracer._trace
        if owner.alive:
            t = self.parent
            while t is not None:
                if t is owner or t.shares_tag(owner):
                    return
                t = t.parent
        raise escaped_tracer_error(tracer)

    def shares_tag(self, other: Trace) -> bool:
        """Whether `other`'s tracers are this trace's own (JAX's traces of one tag); none but
        itself by default."""
        return False

    @property
    def outer(self) -> Trace:
        return self if self._outer is None else self._outer

    def finish(self) -> None:
        self.alive = False
        if self.host_arrays is not None:
            self.host_arrays = None

    def cur_qdd(self, x):
        """`x`'s quasi-dynamic data here (core/hijax.py): a value not of this trace is the
        parent's to answer; a trace that tracks none for its own tracers says so."""
        if isinstance(x, Tracer) and x._trace is self:
            raise NotImplementedError(f"jxkernel's {type(self).__name__} does not track the "
                                      f"quasi-dynamic data of mutable hijax types")
        with set_current_trace(self.parent):
            return self.parent.cur_qdd(x)

    @property
    def main(self):
        """What identifies this transformation, under JAX's old name (`trace.main`, JAX's
        `tag`): libraries tell their own tracers by `tracer._trace.main is main`. Here each
        transformation has its own trace, so it is the trace; the root trace has none."""
        return None if self.parent is None else self

    def __repr__(self):
        return f"{type(self).__name__}(level={self.level})"


class EvalTrace(Trace):
    """The root trace: primitives run on concrete values (through XLA, see xla/dispatch.py)."""

    def process_primitive(self, prim, args, params):
        return _eval_hook(prim, args, params)

    def cur_qdd(self, x):
        if isinstance(x, Tracer):
            raise escaped_tracer_error(x)
        return x.cur_qdd()


def _no_eval_hook(prim, args, params):
    raise RuntimeError("jxkernel.xla is not loaded, so primitives cannot run eagerly")


_eval_hook = _no_eval_hook


def install_eval_hook(fn) -> None:
    """The runtime (xla/dispatch.py) installs how EvalTrace runs a primitive, `fn(prim, args,
    params)`: its impl rule if it has one, else compiling the single primitive with XLA.
    It becomes EvalTrace's method itself, as a staticmethod (no frame of ours between
    `bind` and `fn`): eager dispatch is a hot path."""
    global _eval_hook
    _eval_hook = fn
    EvalTrace.process_primitive = staticmethod(fn)


class KeyReuseHooks:
    """Where jit, make_jaxpr and eager jit calls reach the key-reuse checker
    (random/key_reuse.py, which sets these when it loads) while `jax_debug_key_reuse` is on:
    the core and the transformations stay below `random`. `check_jaxpr(jaxpr)` raises
    KeyReuseError for a jaxpr that consumes a key twice; `jit_call(jaxpr, args, outs)` checks
    an eager jit call's key arguments and marks what it consumed."""
    check_jaxpr = staticmethod(lambda jaxpr: None)
    jit_call = staticmethod(lambda jaxpr, args, outs: None)


key_reuse = KeyReuseHooks()


class _Context(threading.local):
    trace: Trace = EvalTrace(None)
    # JAX's name stack: the transformations and scopes being traced under, outermost first
    # (name_stack.name_scope pushes; equations record it, name_stack.eqn_source_info)
    names: tuple = ()


_ctx = _Context()
eval_trace = _Context.trace


def current_trace() -> Trace:
    return _ctx.trace


class set_current_trace:
    """``with set_current_trace(t):`` makes `t` the trace that `bind` uses."""
    __slots__ = ("trace", "prev")

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self):
        self.prev = _ctx.trace
        _ctx.trace = self.trace
        return self.trace

    def __exit__(self, *exc):
        _ctx.trace = self.prev


class new_trace:
    """``with new_trace(Cls, *args) as t:`` creates a child of the current trace, makes it
    current, and marks it finished on exit (so its tracers cannot escape unnoticed)."""
    __slots__ = ("cls", "args", "trace", "prev")

    def __init__(self, cls, *args):
        self.cls, self.args = cls, args

    def __enter__(self):
        self.prev = _ctx.trace
        trace = self.trace = self.cls(self.prev, *self.args)
        depth = len(_ctx.names)
        if depth:
            trace.name_base = depth
        _ctx.trace = trace
        return trace

    def __exit__(self, *exc):
        _ctx.trace = self.prev
        self.trace.finish()


# The lines outside jxkernel that printed a tracer (print(x), f"{x}") while its trace ran:
# (file, line, the text shown, whether a program was being recorded: Trace.stages, the print
# runs at the trace alone then). A learner expects the value there; the notebook's note under
# the cell (notebook/notes/print_notes.py) reads them and clears them.
printed_tracers: collections.deque = collections.deque(maxlen=16)


# JAX's names of the traces a tracer's verbose print names (by the tracer's class first: grad's
# LinearizeTracer runs on jxkernel's JVPTrace)
_JAX_TRACE_NAMES = {"JaxprTrace": "DynamicJaxprTrace", "LinearizeTracer": "LinearizeTrace"}


class PrettyText:
    """A printed form as JAX's pretty printer's Doc gives it: `str(doc)`, `doc.format()`."""
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def format(self, width: int = 80, use_color: bool | None = None, **_) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"PrettyText({self.text!r})"


_NOT_CONVERTIBLE = {"__iter__": "is not iterable", "__len__": "has no length",
                    "__bool__": "is not convertible to boolean",
                    "__int__": "is not convertible to integer",
                    "__float__": "is not convertible to float",
                    "__complex__": "is not convertible to complex"}


def forward_to_high_type(fn, name: str | None = None):
    """Tracer's operator `name` (a dunder; by default `fn`'s: a decorator in Tracer's body):
    on a tracer of a high type, its type's `_op` (`__add__` -> `aval._add(tracer, other)`),
    as every JAX tracer; on array tracers, `fn`."""
    name = name or fn.__name__
    hook = "_" + name[2:-2]
    missing = _NOT_CONVERTIBLE.get(name)

    def op(self, *args, **kwargs):
        aval = self.aval
        if not getattr(aval, "is_high", False):
            return fn(self, *args, **kwargs)
        method = getattr(aval, hook, None)
        if method is None:
            if missing is not None:
                raise TypeError(f"Value of type {type(self)} {missing}.")
            return getattr(aval, hook)(self, *args)     # JAX's AttributeError
        return method(self, *args, **kwargs)
    op.__name__ = op.__qualname__ = name
    op.__wrapped__ = fn
    return op


class Tracer:
    """A value flowing through a trace; numpy/array_methods.py gives it Array's methods."""
    __slots__ = ("_trace", "_aval")
    __array_priority__ = 1000

    def __init__(self, trace, aval):
        """JAX's constructor contract, for a library's own Tracer subclass: its trace and type
        (jxkernel's tracers set their own fields, most computing `aval` from what they wrap).

        >>> import numpy as np
        >>> class Probe(Tracer):
        ...     pass
        >>> Probe(None, ShapedArray((2,), np.dtype("float32"))).shape
        (2,)
        """
        self._trace, self._aval = trace, aval

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    def to_concrete_value(self):
        """The concrete value behind this tracer, if the transformation has one (e.g. jvp)."""
        return None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    # in a shard_map body: how it relates to the manual axes (JAX's tracer.mat)
    mat = property(lambda self: self.aval.mat)

    @forward_to_high_type
    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def _concrete(self, error, conversion=None):
        """The value this tracer stands for while tracing (a known constant), for Python's
        conversions; without one, `error` (JAX's class for that conversion) is raised."""
        value = self.to_concrete_value()
        if value is None:
            self._refuse(error, conversion)
        return value

    def _refuse(self, error, conversion=None):
        raise error(self) if conversion is None else \
            error(self, errors.conversion_context(conversion))

    # As JAX 0.10.2's Tracer: bool(), int() and indexing use a value known while tracing (a
    # jvp's or grad's primal: `if x < 3` under grad works); float(), complex() and NumPy's
    # conversion never do, even then, so a value that would cut the derivative (grad of
    # `float(w) ** 2` is 0) is refused instead of silently becoming a constant.
    # Without a known value, the shape is checked first, as JAX's (core/errors.py's checks).
    @forward_to_high_type
    def __bool__(self):
        value = self.to_concrete_value()
        if value is None:
            errors.check_bool_conversion(self.aval)
        return bool(self._concrete(errors.TracerBoolConversionError))

    @forward_to_high_type
    def __int__(self):
        value = self.to_concrete_value()
        if value is None:
            errors.check_scalar_conversion(self.aval, traced=True)
        return int(self._concrete(errors.ConcretizationTypeError, "int"))

    @forward_to_high_type
    def __float__(self):
        errors.check_scalar_conversion(self.aval, traced=True)
        self._refuse(errors.ConcretizationTypeError, "float")

    @forward_to_high_type
    def __complex__(self):
        errors.check_scalar_conversion(self.aval, traced=True)
        self._refuse(errors.ConcretizationTypeError, "complex")

    @forward_to_high_type
    def __index__(self):
        value = self.to_concrete_value()
        if value is None:
            errors.check_integer_conversion(self.aval)
        return self._concrete(errors.TracerIntegerConversionError).__index__()

    def __array__(self, dtype=None, copy=None):
        # JAX's words alone (the notebook's card says to use jnp)
        raise errors.TracerArrayConversionError(self)

    def __getattr__(self, name):
        # Only reached when the class has no such attribute. A tracer of a high type (a
        # library's, core/hijax.py) forwards to its type, as JAX's tracers do: an
        # aval_method is a method of the tracer, an aval_property a property. Array tracers
        # keep their own attributes only.
        if name in _TRACER_SLOTS:
            raise AttributeError(name)
        aval = self.aval
        if name == "sharding" and not getattr(aval, "is_high", False):     # (JAX's words)
            raise AttributeError(f"The 'sharding' attribute is not available on traced array "
                                 f"with shape {aval_text(aval, weak=False)}. To query sharding "
                                 f"information on tracers, use `jax.typeof(x)`.")
        if not getattr(aval, "is_high", False):
            # JAX's words, for array tracers too ("DynamicJaxprTracer has no attribute foo"),
            # and JAX's class name where ours differs (a jit's tracer)
            raise AttributeError(f"{jax_class_name(type(self))} has no attribute {name}")
        try:
            attr = getattr(aval, name)
        except AttributeError as err:
            raise AttributeError(f"{jax_class_name(type(self))} has no attribute {name}") from err
        if type(attr) is aval_property:
            return attr.fget(self)
        if type(attr) is aval_method:
            return types.MethodType(attr.fun, self)
        return attr

    def __hash__(self):
        # JAX's words alone (a dict key, a set's element, hash()); the static-argument case
        # is jit's own error, which names the argument
        raise TypeError(f"unhashable type: '{jax_class_name(type(self))}'")

    def __repr__(self):
        text = self._short_repr()
        caller = sys._getframe(1)             # print(x), f"{x}": the line that printed it
        # (a library's tracer may have no trace: JAX's test subclasses pass None)
        if getattr(self._trace, "alive", False) and not is_jxkernel_file(caller.f_code.co_filename):
            printed_tracers.append((caller.f_code.co_filename, caller.f_lineno, text,
                                    _staged(self._trace)))
        return text

    def _short_repr(self) -> str:
        """How JAX prints a tracer (each transformation names its kind: `JitTracer(...)`)."""
        aval = self.aval            # None for a library's tracer built without one, as JAX's
        return f"{type(self).__name__}<{aval if aval is None else aval_text(aval)}>"

    def _pretty_print(self, verbose: bool = False) -> PrettyText:
        """JAX's private form: the short repr, or with `verbose` its type and trace
        (`Traced<float32[3]>with<DynamicJaxprTrace>`) and what it holds (a batched value
        and its axis, a primal and its tangent), as JAX's trace classes name them."""
        if not verbose:
            return PrettyText(self._short_repr())
        aval = self.aval
        trace = _JAX_TRACE_NAMES.get(type(self).__name__) or \
            _JAX_TRACE_NAMES.get(type(self._trace).__name__, type(self._trace).__name__)
        base = f"Traced<{aval if aval is None else aval_text(aval)}>with<{trace}>"
        items = [f"{name} = " + (str(value._pretty_print()) if isinstance(value, Tracer) else
                                 str(value) if isinstance(value, PrettyText) else repr(value))
                 for name, value in self._pp_contents()]
        if not items:
            return PrettyText(base)
        one_line = f"{base} with {' '.join(items)}"
        return PrettyText(one_line if len(one_line) <= 80 and "\n" not in one_line else
                          f"{base} with" + "".join(f"\n  {item}" for item in items))

    def _pp_contents(self) -> list:
        """(name, value) of what `_pretty_print(verbose=True)` lists, as JAX's tracer's slots."""
        names = {"BatchTracer": ("val", "batch_dim"), "JVPTracer": ("primal", "tangent"),
                 "LinearizeTracer": ("primal", "tangent")}.get(type(self).__name__, ())
        return [(name, getattr(self, name)) for name in names]

    def __reduce__(self):
        # JAX's error and words: pickling needs the value, which a traced array has not
        raise errors.ConcretizationTypeError(
            self, "The error occurred in the __reduce__ method, which may indicate an attempt "
                  "to serialize/pickle a traced value.\n")

    # copy.copy and copy.deepcopy of a traced array stage a copy, as JAX's (jnp.copy)
    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()


# the attributes tracers keep in slots: never forwarded (an unset one is an AttributeError)
_TRACER_SLOTS = frozenset({"_trace", "_aval", "_var", "const", "aval", "primal", "tangent",
                           "val", "batch_dim", "_value"})

Array.register(Tracer)     # a tracer stands for an array: isinstance(t, jax.Array)


def _staged(trace) -> bool:
    """Whether `trace` or one it is nested in records a program (Trace.stages)."""
    while trace is not None:
        if trace.stages:
            return True
        trace = trace.parent
    return False


def value_text(x) -> str:
    """A tracer's short repr, anything else's str: how JAX prints a tracer's contents."""
    return x._short_repr() if isinstance(x, Tracer) else str(x)


def concrete_or_error(force, val, context: str = ""):
    """`force(val)` (or `val` when `force` is None) for a value known now (a tracer's known
    constant: jvp's primal); a traced value without one raises ConcretizationTypeError saying
    `context` (what needed it), as JAX's core.concrete_or_error.

    >>> concrete_or_error(int, 3.0)
    3
    """
    if isinstance(val, Tracer):
        concrete = val.to_concrete_value()
        if concrete is None:
            raise errors.ConcretizationTypeError(val, f"{context}\n" if context else "")
        val = concrete
    return val if force is None else force(val)
