"""What your traced functions read from outside them when they were traced, to tell when a
value has changed since: the compiled program (or a loop body's kept trace) goes on using the
value it was traced with, as in JAX, where a jitted function reads its globals once, while
tracing.

    scale = 2.0
    f = jax.jit(lambda x: x * scale)
    f(1.0)                                  # traced: scale is 2.0 in f's program
    scale = 3.0
    stale_reads()       # [Stale(function='<lambda>', name='scale', then='2.0', now='3.0', ...)]

Only data is followed (numbers, strings, NumPy and jax arrays, tuples, lists and dicts of
them, 32 values at most; a list or dict written in place is a change too; a Ref, which the
program holds itself, by identity): a module,
a class or a function read from outside is code, not a value baked into the program. Fields
of objects count as values too ("self.w", "cfg.lr"): of a static argument hashed by identity,
of the object a jitted method is bound to, of an object the function names as a global
(views/static_attributes.py). The
helpers a function calls from its own module (or notebook) are read too, as the trace ran
them: `loss` calling `predict`, which reads `scale`, baked `scale` in. Each change is told
once.
"""
from __future__ import annotations

import dataclasses
import math
import types
import weakref
import zlib

import numpy as np

from ..core.basearray import Array
from ..core.clipped_text import clipped
from ..core.dtypes import is_inexact
from ..core.ir import ClosedJaxpr, Jaxpr, Literal, jaxprs_in_params
from ..core.source_info import user_source_info
from ..core.staging import is_ref
from ..core.trace import Tracer
from ..xla.array import HOST_READS
from .host_callbacks import run_at_each_call
from .static_attributes import attribute_value, global_loads, global_reads, static_reads

_SMALL = 100_000         # elements of a NumPy array followed to compare its values later
_COPIED = 1_000          # elements of an array kept as a copy; a larger NumPy array is kept as
                         # a checksum of its bytes (its copy cost as much memory again, per
                         # function: 32 arrays of 100,000 float32 kept 13 MB), a larger jax
                         # Array (immutable) by identity, its values never read
_LEAVES = 32             # the values of a tuple, list or dict followed (more: not followed)
# in_program's answer for a Python number or a NumPy array the program does not hold (no
# literal or constant of its value): its trace's Python read it, and what it computed from it
# (a value NumPy or Python made, a shape, a branch) stays, or nothing did (a print of it)
COMPUTED = "computed"
# in_program's answer for a Ref (jax.new_ref) the program closes over: it holds the Ref itself,
# reads and writes it at each call (JAX's jaxpr has it as a constant: array_refs' cell 2), so a
# Ref rebound after the trace leaves the program writing the old one
REF = "ref"


def reads_from_outside(fun) -> tuple:
    """The names of data `fun` reads from outside it: its closure variables, and the globals
    its code (a lambda or def inside it included) names that hold data (a number, an array, a
    container), not a module, a class or a function. A trace bakes their values in, so a
    function object kept (JAX's cache and jxkernel's) reuses the old values after they change.

        >>> k = 2.0
        >>> reads_from_outside(lambda x: x * k + np.pi)
        ('k',)
    """
    code = getattr(fun, "__code__", None)
    if code is None:
        return ()
    # (what a function handed to a host callback reads, it reads at each call: nothing baked)
    at_call = run_at_each_call(fun).names
    found = [name for name in code.co_freevars if name not in at_call]
    scope = getattr(fun, "__globals__", {})
    for name in global_loads(code):
        if name in scope and name not in found and name not in at_call and \
                _is_data(scope[name]):
            found.append(name)
    return tuple(found)


def helpers_of(fun, limit: int = 16) -> tuple:
    """The functions `fun` calls by name from its own module or notebook (their globals are
    its globals), and theirs, in the order met: what its trace ran besides its own code.
    Library functions (another module's globals) are not followed: what they read is no
    value of the user's.

        >>> def square(x): return x * x
        >>> helpers_of(lambda x: square(x) + 1)[0].__name__
        'square'
    """
    scope, seen, out, todo = getattr(fun, "__globals__", None), {id(fun)}, [], [fun]
    while todo and len(out) < limit:
        code, here = todo.pop(0), []
        cells = dict(zip(code.__code__.co_freevars, code.__closure__ or ()))
        at_call = run_at_each_call(code).names        # handed to a callback: run at each call
        for name in (*code.__code__.co_freevars, *global_loads(code.__code__)):
            if name in at_call:
                continue
            try:
                value = cells[name].cell_contents if name in cells else scope.get(name)
            except ValueError:           # an empty cell
                continue
            if isinstance(value, types.FunctionType) and value.__globals__ is scope \
                    and id(value) not in seen:
                seen.add(id(value))
                here.append(value)
        out += here
        todo += here
    return tuple(out[:limit])


def _is_data(value) -> bool:
    return not (isinstance(value, (type, types.ModuleType)) or callable(value))


@dataclasses.dataclass
class Stale:
    """A value `function` read from outside (`name`) that changed since it was traced."""
    function: str
    name: str
    then: str          # the value as traced, as text
    now: str           # its value now
    traced_at: object  # the trace's CompileEvent (inlined_into: a loop body's, traced inside)
    call_site: object  # the user's line whose call traced it (a SourceInfo), or None
    helper: str = ""   # the function `function` calls that read it ("": its own code)
    earlier: bool = False   # read by an earlier trace (a program still kept) than the latest
    in_program: bool = True  # False: an array whose values the program does not hold (read
                             # for a print or its shape alone), whose type changed since
    computed: bool = False   # a Python number or NumPy array the program does not hold itself
                             # (COMPUTED): read by the trace's Python (a print, a branch, NumPy)
    inner_jit: bool = False  # a jit traced inside another's trace (traced_at.inlined_into): its
                             # trace is reused by its own later calls and by other jits' traces
    held: str = ""           # a Ref the program holds (REF): what that old Ref holds now
    static: object = None    # a field ("self.w", "cfg.lr") of an object: a weak reference to
                             # it (views/static_attributes.py), whose `field` says how read
    field: str = ""          # "static": a static argument hashed by identity; "keyed": one
                             # hashed by its fields; "bound": the object the jitted callable
                             # is bound to; "global": an object the function names as a
                             # global (a config, a model)

    @property
    def ref(self) -> bool:
        """Whether the value read was a Ref the program holds itself."""
        return bool(self.held)

    def kept_said(self) -> str:
        """What the program keeps of it, as the note says it: its value as traced; for a
        number or NumPy array it does not hold (computed), what was computed from it; for an
        array whose values are in no program (in_program), its old type alone."""
        if self.ref:
            return (f"holds the old Ref itself: its calls read and write that Ref (which holds "
                    f"{self.held} now), not what {self.name} is now")
        if self.computed:
            return ("holds no such value, but was traced with it: what its Python computed "
                    "from it (a value, a shape, a branch taken on it) stays as then, and a "
                    "print of it ran then only")
        return f"keeps {self.then}" if self.in_program else \
            ("holds none of its values, but was traced with its old type (a shape or a branch "
             "taken from it stays as then)")

    def baked_said(self) -> str:
        """What a trace bakes into its program of what it reads, for the note's body."""
        if self.ref:
            return "a Ref it reads is held by its program itself, which reads and writes that " \
                "Ref at each call"
        if self.computed:
            return "what its Python computed from them (a value, a shape, a branch) is baked " \
                "into its program"
        return "their values are baked into its program" if self.in_program else \
            "what its Python took from them (a shape, a branch) is baked into its program"


@dataclasses.dataclass
class _Seen:
    text: str
    ident: int
    kept: object       # the value, or a copy of an array's, to compare (None: too big)
    told: bool = False
    traced_at: tuple = (None, None)   # (the trace's CompileEvent, the user's line), as _EVENTS
    # an array's values among the program's closed-over constants: True, False (read only by
    # the trace's Python: a print, a shape), COMPUTED (a number or NumPy array the program
    # holds no literal or constant of), None (not known: a loop body's)
    in_program: bool | str | None = None
    inner_jit: bool = False    # traced inside another's trace (Stale.inner_jit)
    field: str = ""            # a field of an object, read how (Stale.field)


# the user's function -> {(reader, name): [_Seen]}, the latest trace's last and before it an
# earlier trace's other values (its program is kept and keeps them: Common_Gotchas_in_JAX's
# impure_uses_globals, traced with g = 0.0 for a scalar, then g = 10.0 for an array, computes
# with 0.0 for scalars; JAX 0.10.2 prints "Second call: 5.0"), where reader is None
# for the function itself or a weak reference to a helper it calls (held weakly, keys and
# helpers: a function defined anew forgets the old one's reads, and a function dropped is let
# go with what it closed over, as JAX lets it go)
_READS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_EVENTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # fun -> (event, site)
_KEPT = 8           # the earlier traces' values kept per name (the oldest let go first)


def traced(fun, event, consts=None, host_reads=None, inner_jit=False, statics=(),
           bound=None, fields_only=False) -> None:
    """Note what `fun` (the user's function, unwrapped) and the helpers it calls read from
    outside as it was traced for `event`, at the user's line running now. `consts`: the
    traced program's closed-over constants, `host_reads`: the ids of the arrays whose values
    its Python read (None: not known), which tell whether an array read became part of the
    program or only served the trace's Python (in_program). `inner_jit`: `fun` is a jit's,
    traced inside another's trace (event.inlined_into), its trace reused after. `statics`:
    the jit's static (name, value, position) triples, whose fields it read are followed where
    the value is hashed by identity (views/static_attributes.py); `bound`, (parameter, object)
    of the object a jitted bound method or callable object runs on, whose fields it read;
    `fields_only`: those fields alone (a library's function: its own globals are not the
    user's)."""
    # what this reads of the arrays (a copy, a text) is no read of the trace's Python: a
    # body traced inside a jit's trace is told while that trace runs (HOST_READS is its)
    HOST_READS.append(set())
    try:
        _traced(fun, event, consts, host_reads, inner_jit, statics, bound, fields_only)
    finally:
        HOST_READS.pop()


def _traced(fun, event, consts, host_reads, inner_jit, statics=(), bound=None,
            fields_only=False) -> None:
    seen, values, at = {}, {}, (event, user_source_info())
    if getattr(fun, "__code__", None) is not None:
        readers = () if fields_only else (fun, *helpers_of(fun))
        reads = [(reader, name, "") for reader in readers
                 for name in reads_from_outside(reader)] + \
            static_reads(fun, statics, bound) + \
            [(reader, name, "global") for reader in readers for _, name in global_reads(reader)]
        for reader, name, field in reads:
            found, value = _current(reader, name)
            if found and _followed(value):
                try:
                    held = None if reader is fun else weakref.ref(reader) \
                        if isinstance(reader, types.FunctionType) else _ByIdentity(reader)
                except TypeError:            # (an object with __slots__ and no __weakref__)
                    continue
                kept = _kept(value)
                seen[held, name] = [_Seen(_text(value), id(value), kept, traced_at=at,
                                          in_program=in_program(value, kept, consts, host_reads),
                                          inner_jit=inner_jit, field=field)]
                values[held, name] = value
    try:
        before = _READS.get(fun) or {}
    except TypeError:                # not weakly referable: not followed
        return
    # an earlier trace's program is kept (JAX's cache too) with the value it read: kept
    # where this trace read another, each value once, until told. Compared by value, not by
    # text: two arrays of more than six elements are written alike ("an array float32[8]")
    for key, olds in before.items():
        now = seen.get(key)
        if now is None:
            continue
        earlier, said = [], set()
        for old in olds:
            same = old.text if _whole(old.text) else (old.text, old.ident)
            if old.told or same in said or not _changed(old, values[key]):
                continue
            said.add(same)
            earlier.append(old)
        seen[key] = earlier[-_KEPT:] + now
    try:
        if seen:
            _READS[fun], _EVENTS[fun] = seen, at
        else:
            _READS.pop(fun, None)
    except TypeError:                # not weakly referable: not followed
        pass


def forget() -> None:
    """Forget every read followed, told or not, as a new kernel starts without them (the
    test shell between tests: a global `k` one test's function read, rebound by the next)."""
    _READS.clear()
    _EVENTS.clear()


class _ByIdentity(weakref.ref):
    """A weak reference to an object whose fields are followed, hashed and compared as the
    object's identity: a weakref's own == and hash are its object's, and a static argument
    hashed by its fields may raise there, or change its hash when a field is set."""
    __slots__ = ("ident",)

    def __init__(self, obj):
        super().__init__(obj)
        self.ident = id(obj)

    def __hash__(self):
        return self.ident

    def __eq__(self, other):
        return isinstance(other, _ByIdentity) and self.ident == other.ident and \
            self() is other()


def stale_reads() -> list:
    """The values read from outside by traced functions (or the helpers they call) that have
    changed since their trace, each told once."""
    out = []
    for fun, seen in list(_READS.items()):
        for (held, name), traces in seen.items():
            reader = fun if held is None else held()
            if reader is None:           # a helper (or a static argument) since dropped
                continue
            # "self.w": a field of a static argument or a bound object (the reader); a global
            # object's ("cfg.lr") is its function's, looked up anew (cfg rebound is a change)
            static = "." in name and not isinstance(reader, types.FunctionType)
            found, now = _current(reader, name)
            for then in traces:
                if then.told or not found or not _changed(then, now):
                    continue
                if then.in_program is False and not _type_changed(then, now):
                    continue            # its values were never in the program: nothing kept
                then.told = True
                old = then.kept() if isinstance(then.kept, weakref.ref) else None
                held = _array_text(old) if then.in_program == REF and old is not None else ""
                now_text = _text(now)
                if then.in_program == REF and is_ref(now):
                    now_text = "another " + now_text[len("a "):]
                out.append((_variable(reader, name), Stale(
                    getattr(fun, "__name__", "function"), name, then.text, now_text,
                    *then.traced_at, helper="" if reader is fun or static else reader.__name__,
                    earlier=then is not traces[-1], in_program=then.in_program is not False,
                    computed=then.in_program == COMPUTED, inner_jit=then.inner_jit,
                    held=held, static=weakref.ref(reader) if static else None,
                    field=then.field)))
    # a loop body written inside a jitted function is traced on its own too: one variable is
    # told once, by the function the user calls
    outer = {var for var, s in out if not getattr(s.traced_at, "inlined_into", None)}
    return [s for var, s in out
            if var not in outer or not getattr(s.traced_at, "inlined_into", None)]


def _variable(reader, name):
    """What `name` is in `reader`: its closure cell, or its module's global of that name (a
    field "self.w": that object's)."""
    if "." in name and not isinstance(reader, types.FunctionType):
        return id(reader), name
    if "." in name:                  # a global object's field: that global's
        return id(reader.__globals__), name
    code = reader.__code__
    if name in code.co_freevars:
        return id((reader.__closure__ or ())[code.co_freevars.index(name)])
    return id(reader.__globals__), name


def _current(fun, name) -> tuple:
    """(found, value) of `name` as `fun` would read it now: a closure cell, else a global (a
    field "self.w": the static argument `fun`'s, views/static_attributes.py)."""
    if "." in name and isinstance(fun, types.FunctionType):    # a global object's field
        found, obj = _current(fun, name.split(".", 1)[0])
        return attribute_value(obj, name) if found else (False, None)
    if "." in name:
        return attribute_value(fun, name)
    code = fun.__code__
    if name in code.co_freevars:
        cell = (fun.__closure__ or ())[code.co_freevars.index(name)]
        try:
            return True, cell.cell_contents
        except ValueError:           # an empty cell
            return False, None
    scope = fun.__globals__
    return (name in scope), scope.get(name)


def _followed(value) -> bool:
    """Data whose value a trace bakes in and that can be compared cheaply: a number, a string,
    an array, or a tuple, list or dict of them (_LEAVES values at most)."""
    if _is_container(value):
        leaves = _leaves(value)
        return leaves is not None and all(_followed(v) for v in leaves)
    if isinstance(value, (bool, int, float, complex, str, np.generic)) or value is None:
        return True
    return _is_array(value)


def _is_container(value) -> bool:
    return type(value) in (tuple, list, dict)


def _leaves(value, out=None) -> list | None:
    """The values in a tuple, list or dict (theirs too), None past _LEAVES."""
    out = [] if out is None else out
    for v in (value.values() if isinstance(value, dict) else value):
        if _is_container(v):
            if _leaves(v, out) is None:
                return None
        else:
            out.append(v)
        if len(out) > _LEAVES:
            return None
    return out


def _structure(value):
    """A container's shape of nesting, keys and lengths, to compare (its leaves aside)."""
    if isinstance(value, dict):
        return dict, tuple((k, _structure(v)) for k, v in value.items())
    if _is_container(value):
        return type(value), tuple(_structure(v) for v in value)
    return None


@dataclasses.dataclass
class _Tree:
    """A container's structure and each of its values as _Seen, as traced (a list or dict
    written in place since compares unequal)."""
    structure: object
    leaves: list


def _is_array(value) -> bool:
    """An array of a NumPy dtype (not a key array or a library's extended dtype, as Flax's
    fp8_meta32, whose values NumPy cannot read)."""
    return isinstance(value, np.ndarray) or (
        isinstance(getattr(value, "dtype", None), np.dtype) and hasattr(value, "shape")
        and hasattr(value, "__array__") and not isinstance(value, type))


def _size(value) -> float:
    """How many numbers an array holds; infinitely many for a symbolic shape (an export's
    b*h is no number: asked for one, it raised InconclusiveDimensionOperation)."""
    if not all(isinstance(d, (int, np.integer)) for d in value.shape):
        return math.inf
    return int(np.prod(value.shape))


def _kept(value):
    if is_ref(value):                   # held by the program itself: compared by identity
        try:
            return weakref.ref(value)
        except TypeError:
            return None
    if _is_container(value):
        return _Tree(_structure(value), [_Seen(_text(v), id(v), _kept(v))
                                         for v in _leaves(value)])
    if not _is_array(value):
        return value
    if _size(value) > _COPIED and not isinstance(value, (np.ndarray, Tracer)):
        try:                            # a jax Array: immutable, the same object the same
            return weakref.ref(value)
        except TypeError:
            return None
    if _size(value) > _SMALL:
        return None
    if _size(value) > _COPIED:          # a NumPy array, written in place: a checksum
        return _Digest.of(value)
    try:
        # a copy: a NumPy array written in place must compare unequal to what was traced
        return np.array(value, copy=True)
    except Exception:               # noqa: BLE001  (a key array, a leaked tracer: by identity)
        return None


@dataclasses.dataclass(frozen=True)
class _Digest:
    """A large NumPy array's shape, dtype and a checksum of its bytes (CRC-32), to tell a write
    in place without keeping a copy."""
    shape: tuple
    dtype: np.dtype
    crc: int | None

    @classmethod
    def of(cls, value) -> _Digest:
        try:
            data = np.ascontiguousarray(value)
            crc = zlib.crc32(memoryview(data).cast("B")) if data.dtype != object else None
        except Exception:               # noqa: BLE001  (not readable as bytes: none)
            crc = None
        return cls(tuple(value.shape), np.dtype(value.dtype), crc)


def in_program(value, kept, consts, host_reads=None) -> bool | None:
    """Whether the array `value` (`kept`: what _kept keeps of it, None where too big to compare
    later) is in the traced program: among
    its closed-over constants `consts`, or its values read by the trace's Python
    (`host_reads`, ids: float(a), np.asarray(a) make a constant of them). A jax Array is
    closed over as itself (by identity); a NumPy array is converted, and NumPy's own
    operations on it at trace time (n * 2, n[0]) make constants of their own, so whether it
    is in the program is not known (None). None too for no array, or `consts` not known. A jax
    Array read only for its type (`print(jax.typeof(a))`, `a.shape`) is in no program: JAX's
    jaxpr holds none of it either (tests/data/stale_in_program_reference.json)."""
    program = getattr(host_reads, "program", None)
    program = program() if program is not None else None
    if is_ref(value) and not isinstance(value, Tracer):
        # the program holds the Ref itself, a constant of its trace as of JAX's jaxpr (jit's
        # `consts` leave Refs out: their values are each call's); not known: held too
        return REF if program is None or any(c is value for c in program.consts) else False
    if consts is None:
        return None
    if _is_container(value):            # the leaves': one held, the whole is kept
        found = {in_program(v, v, consts, host_reads) for v in _leaves(value)}
        return True if True in found else None if None in found or not found else \
            COMPUTED if COMPUTED in found else False
    if isinstance(value, (bool, int, float, complex, np.generic)):
        # a Python number is a literal of the program (or a constant): held where one has its
        # value (a print of it alone, or math on it in Python, leaves none)
        return None if program is None else True if _holds(program, value) else COMPUTED
    if isinstance(value, str) or value is None:     # in no program: its Python read it
        return None if program is None else COMPUTED
    if not _is_array(value):
        return None
    # an array's wrapper (Flax's nnx.Param): the array it hands jax, which the program holds
    held = value.__jax_array__() if hasattr(value, "__jax_array__") and \
        not isinstance(value, (np.ndarray, Tracer)) and type(value).__module__.split(".")[0] \
        != "jxkernel" else value
    if any(c is value or c is held for c in consts) or \
            (host_reads is not None and id(held) in host_reads):
        return True
    if isinstance(value, np.ndarray):   # converted: a constant of its values, or none
        return None if program is None or kept is None else \
            True if _holds(program, value) else COMPUTED
    if host_reads is None:
        return None
    return False


def _holds(closed, value) -> bool:
    """Whether the trace `closed` (its jaxprs within too) has a literal or constant equal to
    `value` (a number, or a NumPy array's copy), in the program's dtype."""
    todo, seen = [closed], set()
    while todo:
        jaxpr = todo.pop()
        if id(jaxpr) in seen:
            continue
        seen.add(id(jaxpr))
        if isinstance(jaxpr, ClosedJaxpr):
            if any(_equal(c, value) for c in jaxpr.consts):
                return True
            jaxpr = jaxpr.jaxpr
        if not isinstance(jaxpr, Jaxpr):
            continue
        for eqn in jaxpr.eqns:
            if any(type(a) is Literal and _equal(a.val, value) for a in eqn.invars):
                return True
            todo += [v for v in eqn.params.values() if isinstance(v, (Jaxpr, ClosedJaxpr))]
            todo += [v for t in eqn.params.values() if isinstance(t, tuple)
                     for v in t if isinstance(v, (Jaxpr, ClosedJaxpr))]
    return False


def _equal(held, value) -> bool:
    """Whether the program's `held` (a literal, a constant) is `value` in its dtype."""
    try:
        if not _is_array(held) and not isinstance(held, (bool, int, float, complex, np.generic)):
            return False
        held = np.asarray(held)
        if held.shape != np.shape(value):
            return False
        return bool(np.array_equal(held, np.asarray(value).astype(held.dtype)))
    except Exception:                   # noqa: BLE001  (a key, a value not NumPy's: not it)
        return False


def _type_changed(then: _Seen, now) -> bool:
    """Whether `now` differs from the array read then in its type (dtype or shape), which a
    trace's Python may have read (a shape, a branch on it) though its values were not kept."""
    if not _is_array(now):
        return True
    if not isinstance(then.kept, np.ndarray):   # too big to keep: its text is its type
        return _text(now) != then.text
    return tuple(now.shape) != then.kept.shape or np.dtype(now.dtype) != then.kept.dtype


def _changed(then: _Seen, now) -> bool:
    if isinstance(then.kept, weakref.ref):  # a Ref (its writes are no change) or a large jax
        return _another(then.kept(), now)   # Array: by identity, or values where alive
    if not _followed(now):
        return then.ident != id(now)
    if isinstance(then.kept, _Tree) or _is_container(now):
        if not isinstance(then.kept, _Tree) or _structure(now) != then.kept.structure:
            return True
        return any(_changed(old, new) for old, new in zip(then.kept.leaves, _leaves(now)))
    if _is_array(now):
        if then.ident == id(now) and isinstance(now, (Array, Tracer)):
            return False                # the same immutable array (a jax Array); a wrapper
            #                             written in place (Flax's nnx.Param) is compared
        if then.kept is None or not isinstance(then.kept, (np.ndarray, _Digest)):
            return then.ident != id(now)
        if _size(now) > _SMALL:
            return True
        try:
            other = np.asarray(now)
        except Exception:           # noqa: BLE001  (not readable as NumPy: by identity)
            return then.ident != id(now)
        if isinstance(then.kept, _Digest):
            return _Digest.of(other) != then.kept or then.kept.crc is None
        # (NaNs compared as equal only where the values differ: equal_nan is the slow one;
        # is_inexact, not NumPy's kind: bfloat16's is 'V')
        return other.shape != then.kept.shape or other.dtype != then.kept.dtype or not (
            np.array_equal(other, then.kept) or is_inexact(other.dtype)
            and np.array_equal(other, then.kept, equal_nan=True))
    if isinstance(then.kept, np.ndarray):
        return True
    try:
        return type(now) is not type(then.kept) or bool(now != then.kept)
    except Exception:               # noqa: BLE001  (a comparison that raises: a change)
        return True


def _another(old, now) -> bool:
    """Whether `now` is other than `old`, a Ref or a large jax Array (None: since let go): a
    Ref is another object; an Array, immutable, one of other values, read only where `old` is
    alive (a constant of the program: it keeps those values) and of `now`'s type."""
    if old is now:
        return False
    if old is None or is_ref(old) or is_ref(now) or not _is_array(now) or \
            isinstance(now, (np.ndarray, Tracer)) or _size(now) > _SMALL or \
            tuple(now.shape) != tuple(old.shape) or np.dtype(now.dtype) != np.dtype(old.dtype):
        return True
    try:
        a, b = np.asarray(old), np.asarray(now)
    except Exception:               # noqa: BLE001  (not readable as NumPy)
        return True
    return not (np.array_equal(a, b) or is_inexact(a.dtype) and
                np.array_equal(a, b, equal_nan=True))


def _whole(text: str) -> bool:
    """Whether `text` (_text's) writes its whole value, not its type alone or clipped."""
    return not (text.startswith("an array ") or text.endswith("..."))


def _text(value) -> str:
    if _is_container(value) and any(_is_array(v) for v in _leaves(value) or ()):
        # its arrays as the note writes one: [1.0, 1.0] (float32[2]), not Array(...)'s repr
        texts = (f"{k!r}: {_text(v)}" for k, v in value.items()) if isinstance(value, dict) \
            else map(_text, value)
        close = {dict: "{}", list: "[]", tuple: "()"}[type(value)]
        return clipped(close[0] + ", ".join(texts) + close[1], 90, "...")
    if isinstance(value, Tracer):   # (common_gotchas: `global g; g = x` in a jitted function)
        return f"{clipped(repr(value), 60, '...')} (a tracer leaked out of a trace)"
    if is_ref(value):               # its values are the program's to read and write: its type
        return f"a Ref of {np.dtype(value.dtype).name}[{','.join(map(str, value.shape))}]"
    if _is_array(value):
        return _array_text(value)
    return clipped(repr(value), 60, "...")


def _array_text(value) -> str:
    """An array (or a Ref's value) as the note writes one: its values where six or fewer."""
    shape = ",".join(map(str, value.shape))
    if _size(value) <= 6:
        try:
            return f"{np.asarray(value).tolist()!r} ({np.dtype(value.dtype).name}[{shape}])"
        except Exception:           # noqa: BLE001  (a key array, not readable as NumPy)
            pass
    return f"an array {np.dtype(value.dtype).name}[{shape}]"
