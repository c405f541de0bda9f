"""What differs in the static arguments: a new value (kind "static"), an argument static in
one jit and traced in the other ("traced"), one passed by position, then by keyword; each with
the fix its value's kind calls for (a bool, a dataclass, a function made anew, an object
compared by identity, ...).
"""
from __future__ import annotations

import dataclasses
import types

import numpy as np

from ...core.clipped_text import clipped
from ...core.source_info import is_jxkernel_file
from ...core.compile_record import named_callable, named_function, named_repr
from .change import _aval_text, _root
from .fixes import _FIXES, _fixed, _refixed

# a static on one side only, and how a change says it
_ABSENT = object()
_DEFAULT = "(not passed: its default)"


def _traced_changes(old, new, flipped):
    """An argument static in one signature and traced in the other."""
    def side(sig, name):
        value = dict(sig.statics).get(name, _ABSENT)
        if value is not _ABSENT:
            return f"static {value!r}"
        return ", ".join(_aval_text(a) for p, a in sig.named if _root(p) == name) or "absent"
    for name in sorted(flipped):
        change = _fixed(name, "traced", side(old, name), side(new, name))
        arrays = [a for sig in (old, new) for p, a in sig.named if _root(p) == name]
        if any(a.shape for a in arrays):      # an array (not hashable) cannot be static
            change = _refixed(change, _ARRAY_TRACED_FIX)
        elif change.old.startswith("static ") and not change.new.startswith("static ") and \
                change.new != "absent":
            # static, then traced: the new jit traced it (so it need not be static) and
            # compiles once for all its values: the one jit to keep (jit(power) pasted from
            # a static note's fix was told to go back to static_argnames; JAX 0.10.2 lowers
            # it once: recompile_cells_cases.py's static_n_then_the_fix_pasted_in_a_new_cell)
            change = _refixed(change, _NOW_TRACED_FIX)
        yield change


# the "traced" fix's words, with the jit the new call used, its argument traced
_NOW_TRACED_FIX = (_FIXES["traced"][0],
                   "{bind}jax.jit({fun})    # the one jit of {fun}: call it everywhere, no "
                   "other ({name} traced)")


def _static_changes(old_static, new_static, flipped):
    """The statics (name: value) of another value or passed on one side only, each with the
    fix its value's kind calls for."""
    for name in sorted(set(old_static) | set(new_static), key=str):
        if name in flipped:
            continue
        before, after = old_static.get(name, _ABSENT), new_static.get(name, _ABSENT)
        if before is _ABSENT or after is _ABSENT or not _same_static(before, after):
            change = _fixed(str(name), "static",
                            _DEFAULT if before is _ABSENT else _static_repr(before),
                            _DEFAULT if after is _ABSENT else _static_repr(after), name=name)
            if before is _ABSENT or after is _ABSENT:    # not "a new value": drop nothing
                passed = after if before is _ABSENT else before
                change = _refixed(change, _STATIC_DEFAULT_FIX, value=_static_repr(passed))
            elif _is_nan(before) and _is_nan(after):   # nan != nan: never the same key
                change = _refixed(change, _STATIC_NAN_FIX)
            elif _one_dtype(before, after):   # jnp.float32, then x.dtype: one dtype, two keys
                change = _refixed(change, _STATIC_DTYPE_FIX,
                                  dtype=np.dtype(_dtype_of(after)).name)
            elif _equal(before, after):                  # True and 1: equal, other types
                change = _refixed(change, _STATIC_TYPE_FIX, old_type=_type_text(before),
                                  new_type=_type_text(after), py=_py_type(before, after))
            elif (before is None) != (after is None):    # None or a value: traced, two too
                change = _refixed(change, _STATIC_NONE_FIX)
            elif _hashed_by_identity(after) and _function_like(after) and \
                    not _same_code(before, after):   # relu, then gelu: two functions
                change = _refixed(change, _STATIC_OTHER_FUNCTION_FIX)
            elif _hashed_by_identity(after) and _function_like(after):   # a lambda, a partial
                change = _refixed(change, _STATIC_FUNCTION_FIX,
                                  kind=type(after).__name__,
                                  func=getattr(getattr(after, "func", None), "__name__", "g"))
            elif _hashed_by_identity(after):
                names = _fields(after) or ["field"]
                tail = "," if len(names) == 1 else ""        # (self.k,): a tuple of one
                change = _refixed(change, _IDENTITY_FIX, kind=type(after).__name__,
                                  fields=", ".join(f"self.{k}" for k in names) + tail,
                                  other=", ".join(f"other.{k}" for k in names) + tail)
            elif isinstance(after, bool) and isinstance(before, bool):
                change = _refixed(change, _BOOL_STATIC_FIX)
            elif after is not _ABSENT and dataclasses.is_dataclass(after) and \
                    not isinstance(after, type):
                change = _refixed(change, _DATACLASS_STATIC_FIX, **_dataclass_fields(after))
            elif _pytree_fields(after) is not None:      # its own class, of number fields
                fields = _pytree_fields(after)
                change = _refixed(change, _OBJECT_STATIC_FIX, kind=type(after).__name__,
                                  leaves=", ".join(f"m.{k}" for k in fields) + ",",
                                  reuse=_OBJECT_REUSE[_self_equality(after)].format(
                                      kind=type(after).__name__))
            elif _one_int_two_ways(before, after):      # axis (0,), then 0: one value
                change = _refixed(change, _STATIC_ONE_INT_TWO_WAYS_FIX,
                                  int_form=_static_repr(before if type(before) is int else after))
            elif _int_tuple(before) and _int_tuple(after):      # a shape: not a mode
                change = _refixed(change, _STATIC_SHAPE_FIX)
            elif _numbers_held(after):      # Config(lr=0.1, steps=10): a pytree of numbers
                change = _refixed(change, _STATIC_NUMBERS_FIX, kind=type(after).__name__)
            elif after is not _ABSENT and not _traceable(after):
                change = _refixed(change, _STATIC_KEEP_FIX, kind=type(after).__name__)
            yield change


def _numbers_held(value) -> bool:
    """A tuple (a NamedTuple too) or a list of numbers, some not ints: a pytree whose leaves
    a trace takes (a tuple of ints alone reads as a shape: _int_tuple's)."""
    return isinstance(value, (tuple, list)) and bool(value) and \
        all(_traceable(v) for v in value)


def _type_text(value) -> str:
    """The type of a static value as the learner names it: np.bool for NumPy's (its
    __name__ is "bool", which read as Python's: "np.True_ (bool) now and was True (bool)").

    >>> _type_text(np.True_), _type_text(True)
    ('np.bool', 'bool')
    """
    kind = type(value)
    return f"np.{kind.__name__}" if kind.__module__ == "numpy" else kind.__name__


def _py_type(before, after) -> str:
    """The type to make both of two equal static values: the old one's, or where either is
    a NumPy scalar (np.int32(3) and 3), the Python type of its value (`int32(n)` is no name
    in a learner's cell; int(n) makes both one key)."""
    if isinstance(before, np.generic) or isinstance(after, np.generic):
        return type(np.asarray(before).item()).__name__
    return type(before).__name__


def _static_keyword_changes(old, new, flipped):
    """A static argument of the same value passed by position in one call and by keyword in
    the other: JAX keys its cache on how it came (f(x, 2) and f(x, n=2) trace twice)."""
    old_static, new_static = dict(old.statics), dict(new.statics)
    for name in sorted(set(old_static) & set(new_static), key=str):
        if name in flipped or not _same_static(old_static[name], new_static[name]):
            continue
        was, now = name in old.by_keyword, name in new.by_keyword
        if was != now:
            how = {True: "by keyword", False: "by position"}
            yield _refixed(_fixed(str(name), "structure", how[was], how[now], name=name),
                           _STATIC_KEYWORD_FIX)


def _int_tuple(value) -> bool:
    """A tuple of Python ints, (2, 3): most likely a shape, which a trace needs as Python
    values (jnp.zeros(shape), x.reshape(shape)); never a mode to pick with lax.switch."""
    return isinstance(value, tuple) and all(type(v) is int for v in value)


def _one_int_two_ways(before, after) -> bool:
    """Whether static values `before` and `after` are one int written as itself and as a
    tuple of it, (0,) and 0: what an axis or a shape argument reads as one value.

        >>> _one_int_two_ways((0,), 0), _one_int_two_ways(0, (1,)), _one_int_two_ways(0, 1)
        (True, False, False)
    """
    return any(type(a) is int and _int_tuple(b) and b == (a,) for a, b in ((before, after),
                                                                           (after, before)))


def _is_nan(value) -> bool:
    return isinstance(value, (float, np.floating)) and value != value


def _dtype_of(value):
    """`value` as a dtype where it names one (np.dtype('float32'), jnp.float32, np.float32,
    'float32'), else None: a static string such as 'sin' is no dtype."""
    if not isinstance(value, (np.dtype, type, str)):
        return None
    held = getattr(value, "dtype", None)       # jnp.float32's (np.float32's is a descriptor)
    if isinstance(held, np.dtype):
        return held
    try:
        return np.dtype(value)
    except (TypeError, ValueError):
        return None


def _one_dtype(before, after) -> bool:
    """Two static values of other types naming one dtype (jnp.float32 and x.dtype): two keys
    for jit (each its own hash), one dtype for the program."""
    a, b = _dtype_of(before), _dtype_of(after)
    return a is not None and a == b and type(before) is not type(after)


def _fields(value) -> list:
    """The attributes of an object of a user's class (its __dict__), or []."""
    found = getattr(value, "__dict__", None)
    return list(found) if isinstance(found, dict) else []


def _static_repr(value) -> str:
    """A static value as a change shows it: its repr, but for an object of a class keeping
    object's own repr (an address, which tells a learner nothing) its class and fields:
    Model(k=2); for a function object of such a class (jax.nn.relu, a custom_jvp) its class
    and name: <custom_jvp function relu>."""
    if named_callable(value) or named_function(value):
        return named_repr(value)
    if type(value).__repr__ is not object.__repr__ or not _fields(value):
        return repr(value)
    fields = _fields(value)
    inner = ", ".join(f"{k}={_short(getattr(value, k))}" for k in fields[:4])
    return f"{type(value).__name__}({inner}{', …' if len(fields) > 4 else ''})"


def _short(value, limit=30) -> str:
    return clipped(repr(value), limit)


def _pytree_fields(value):
    """The fields of an object of a user's class whose fields are all numbers and whose
    constructor takes them in order (Model(k) with self.k = k): it can be registered as a
    pytree and traced (register_pytree_node, its fields the leaves). None otherwise."""
    fields = _fields(value)
    if not fields or not all(_traceable(getattr(value, k)) for k in fields):
        return None
    try:
        import inspect
        params = list(inspect.signature(type(value)).parameters)
    except (TypeError, ValueError):
        return None
    return fields if params == fields else None


def _same_static(a, b) -> bool:
    """One static value for jit's key, as JAX's tree_util.Static compares them: equal and of
    the same type (True and 1, 2.0 and 2 are two keys)."""
    return type(a) is type(b) and _equal(a, b)


def _equal(a, b) -> bool:
    """`a == b` as a bool; False where it is no one bool (a NumPy scalar against a tuple
    compares elementwise: `np.float32(2) == ((1, 2),)` is an array) or where the user's
    `__eq__` raises: jit's cache compares only values of one type and equal hash, so the
    explainer meets comparisons the user's call never made (`1 == obj` asks `obj.__eq__`).

        >>> _equal(True, 1), _equal(np.float32(2), ((1, 2),))
        (True, False)
    """
    try:
        return bool(a == b)
    except Exception:       # noqa: BLE001 (any error of the user's __eq__ or __bool__)
        return False


def _self_equality(value):
    """What `value == value` says through its class's __eq__: True, False, or None where it
    raises (or gives no one bool).

        >>> _self_equality(2.0), _self_equality(float("nan"))
        (True, False)
    """
    try:
        return bool(value == value)
    except Exception:       # noqa: BLE001 (any error of the user's __eq__ or __bool__)
        return None


def _same_code(a, b) -> bool:
    """Whether two callables run the same code (a lambda or a partial made anew, each its own
    object), as against two functions (jax.nn.relu and jax.nn.gelu): their code objects,
    through partials and wrappers; equal where none is found (nothing told apart). A lambda
    written again (the same text in another cell, or twice in one line) is compiled into a
    code object of its own: the same text, over the same closed-over objects, is the same
    code too (`lambda v: v * 2` twice was "another function": nothing to fix).

        >>> _same_code(lambda v: v * 2, lambda v: v * 2), _same_code(abs, lambda v: v)
        (True, True)
        >>> _same_code(lambda v: v * 2, lambda v: v * 3)
        False
    """
    fa, fb = _unwrapped(a), _unwrapped(b)
    ca, cb = getattr(fa, "__code__", None), getattr(fb, "__code__", None)
    if ca is None or cb is None or ca is cb:
        return True
    return _code_text(ca) == _code_text(cb) and _closed_over(fa) == _closed_over(fb)


def _unwrapped(f):
    """The function under a partial of a wrapper of ...: a few layers at most."""
    for _ in range(8):
        inner = getattr(f, "func", None) or getattr(f, "__wrapped__", None)
        if inner is None or inner is f:
            break
        f = inner
    return f


def _code_text(code) -> tuple:
    """What a code object runs, without where it was written (its file and lines)."""
    consts = tuple(_code_text(c) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.co_code, code.co_names, code.co_varnames, code.co_freevars, consts


def _closed_over(f) -> tuple:
    """The ids of the objects `f` closes over (by identity: an array's == is no bool)."""
    cells = getattr(f, "__closure__", None) or ()
    try:
        return tuple(id(c.cell_contents) for c in cells)
    except ValueError:           # an empty cell (a name not bound yet): told apart
        return (object(),)


def _dataclass_fields(value) -> dict:
    """A frozen dataclass used as a static value: its number fields (which could be traced
    data fields of a registered pytree) and the others (meta fields)."""
    fields = [f.name for f in dataclasses.fields(value)]
    data = [n for n in fields if _traceable(getattr(value, n, None))]
    return dict(kind=type(value).__name__, data=data,
                meta=[n for n in fields if n not in data])


def _traceable(value) -> bool:
    """Whether a static value could be passed traced instead: a number or a NumPy value."""
    return isinstance(value, (bool, int, float, complex, np.number, np.bool_, np.ndarray))


def _function_like(value) -> bool:
    """Whether `value` is a function to the learner (a def, a lambda, a partial, a library's
    callable such as a custom_jvp function), not an object of a class of theirs that has a
    __call__ (`Net(depth)(x)` with self static: a Net, whose fields tell instances apart,
    no function "made anew"; its fix is __hash__ and __eq__ over them).

        >>> class Net:
        ...     def __call__(self, x):
        ...         return x
        >>> _function_like(lambda x: x), _function_like(Net())
        (True, False)
    """
    if not callable(value) or isinstance(value, (types.FunctionType, types.MethodType,
                                                 types.BuiltinFunctionType)):
        return callable(value)
    call = getattr(type(value), "__call__", None)
    call = getattr(call, "_fun", call)          # a __call__ jitted by its decorator
    code = getattr(call, "__code__", None)
    return code is None or is_jxkernel_file(code.co_filename)


def _hashed_by_identity(value) -> bool:
    """An object whose class keeps object's own __hash__ and __eq__: every instance is a new
    static value, however alike."""
    kind = type(value)
    return kind.__hash__ is object.__hash__ and kind.__eq__ is object.__eq__


# (no code: the old "jax.jit(f) with n traced" kept both compiles, a Python value traced is
# a weak scalar, another type than the array: JAX 0.10.2 traces it twice too
# (recompile_audit_reference.json's static_in_one_jit_array_in_another_unstatic), and twice
# for jnp.full(3, 2.0), weakly typed (measured); as an array with its dtype in every call,
# once (static_in_one_jit_array_in_another_fixed))
_ARRAY_TRACED_FIX = (
    "{name} was {old} and is {new} now: static in one jit, an array traced in the other. A "
    "static value and an array are two programs whatever the jits' options (traced, a "
    "Python value is a scalar or a tuple of scalars, another type than {new}), so two "
    "compiles are expected where the calls mean both. For one program, pass {name} as an "
    "array of one shape and dtype in every call, the dtype given where it is made "
    "(jnp.full(3, 2.0) without one is weakly typed, another type), to one jit without "
    "static_argnums for it (an array cannot be static: it is not hashable).",
    "")
_BOOL_STATIC_FIX = (
    "{name} is a static bool ({old} -> {new}): each of its two values compiles once, and "
    "later calls reuse that program, so at most two compiles. That is usually fine; for one "
    "program, pass it traced and choose with jnp.where or lax.cond instead of a Python if.",
    "out = jax.lax.cond({name}, branch_true, branch_false, x)    # {name} traced: one "
    "program")
_DATACLASS_STATIC_FIX = (
    "{name} is a static {kind} ({old} -> {new}): it is hashed by its fields, so an equal "
    "{kind} reuses the program, and each new value compiles once. To pass its numbers "
    "traced (one program for all their values), register {kind} as a pytree with them as "
    "data fields and drop {name} from static_argnums/static_argnames.",
    "jax.tree_util.register_dataclass({kind}, data_fields={data}, meta_fields={meta})\n"
    "{bind}jax.jit({fun})    # {name} traced: its data fields are arrays")
_STATIC_KEYWORD_FIX = (
    "{name} has the same value but came {old} in one call and {new} in the other: how a "
    "static argument is passed is part of the cache key. Pass it the same way every time.",
    # (at_the_calls writes it in the learner's call where both can be read: the plain code
    # is a pattern, and says so)
    "f(..., {name}={name})    # always by keyword (or always by position)")
# a NamedTuple config passed static: "A Config cannot be traced" said _STATIC_KEEP_FIX, but a
# tuple is a pytree (JAX 0.10.2 traces static_namedtuple_config_changed_fixed once)
_STATIC_NUMBERS_FIX = (
    "{name} is static ({old} -> {new}): each value compiles once, and later calls with a "
    "value seen before reuse its program. A {kind} of numbers is a pytree: passed traced "
    "(dropped from static_argnums/static_argnames), its numbers are leaves and one program "
    "serves all their values, where the function only computes with them (a number that "
    "sets a shape or a Python loop must stay static: pass that one as an argument of its "
    "own, static).",
    "{bind}jax.jit({fun})    # {name} traced: its numbers are leaves")
_STATIC_KEEP_FIX = (
    "{name} is static ({old} -> {new}): each value compiles once, and later calls with a "
    "value seen before reuse its program. A {kind} cannot be traced, so a compile per value "
    "is what to expect; for many values, map them to an integer and choose with "
    "lax.switch (the integer traced: one program).",
    "i = MODES.index({name})                      # an int, traced\n"
    "out = jax.lax.switch(i, [branch_0, branch_1], x)")
# a function passed static (apply(fn, x), fn in static_argnums): functions compare by
# identity, so a lambda or a partial made anew each call is a new key, however alike
_STATIC_FUNCTION_FIX = (
    "{name} is a function passed static, and a {kind} is compared by identity: a new one "
    "each call (a lambda or a partial made anew) is a new key and compiles anew, however "
    "alike. Make it once, outside the loop, and pass that same object (a partial can "
    "instead go traced, as jax.tree_util.Partial: its bound arrays are leaves, one program "
    "for all their values).",
    "{name} = ...    # made once, outside the loop\n"
    "for batch in batches:\n"
    "    out = f({name}, batch)    # the same object every call")
# two different functions passed static (an activation: relu, then gelu): each compiles once
# and is found again, as JAX 0.10.2 does (recompile_audit_reference.json)
_STATIC_OTHER_FUNCTION_FIX = (
    "{name} is a function passed static, and this call passes another function ({old} -> "
    "{new}): each function compiles once, and a later call with one seen before reuses its "
    "program. A compile per function is what to expect; nothing to fix unless the same "
    "function was meant.",
    "")
_IDENTITY_FIX = ("{name} is a {kind} object, and {kind} keeps object's own hash and ==, by "
                 "identity: every new instance is a new static value and compiles anew, however "
                 "alike. Reuse one instance, or give {kind} __hash__ and __eq__ over the fields "
                 "that matter (or register it as a pytree, its arrays traced).",
                 "def __hash__(self): return hash(({fields}))          # in class {kind}\n"
                 "def __eq__(self, other): return isinstance(other, {kind}) and "
                 "({fields}) == ({other})")
# a static left to its default in one call and passed in the other (JAX: the keywords' dict
# has one child more); a new value would be no cause: f(x) and f(x, n=2) for n=2 by default
_STATIC_DEFAULT_FIX = (
    "{name} was {old} and is {new} now: jit's key holds the arguments as they were passed, "
    "so leaving {name} to its default and passing it are two keys, each compiled, even for "
    "the default's own value. Pass {name} in every call, or in none.",
    "f(..., {name}={value})    # {name} passed in every call")
_STATIC_TYPE_FIX = (
    "{name} is {new} ({new_type}) now and was {old} ({old_type}): equal values, but jit's key "
    "tells a static value's type apart (True and 1, 2.0 and 2), so each compiles. Pass one "
    "type in every call.",
    "{name} = {py}({name})    # one type in every call")
# a static tuple of ints (a shape): it cannot be traced, and a switch over values is no help
# (static_axis_tuple_then_int: the plain fix's "drop it from static_argnums" made the axis
# traced, which JAX 0.10.2 refuses: "The axis argument must be known statically")
_STATIC_ONE_INT_TWO_WAYS_FIX = (
    "{name} is static ({old} -> {new}): one int written as itself and as a tuple of it, which "
    "an axis or a shape argument reads as one value, but jit's key holds them as two static "
    "values, each compiled. An axis or a shape must stay static (traced, it cannot set the "
    "result's shape). Write it one way in every call: {int_form}.",
    "")
_STATIC_SHAPE_FIX = (
    "{name} is static ({old} -> {new}): each value compiles once, and a later call with a "
    "value seen before reuses its program. A tuple of ints such as a shape must stay a "
    "Python value while tracing (a shape cannot be traced), so a program per value is "
    "expected. If many values come, make them few: pad the arrays to a few sizes, so "
    "that {name} takes a few values.",
    "")
# JAX 0.10.2 traces a static nan on every call (Static(val=nan) now and before); traced,
# once (static_nan_fixed)
_STATIC_NAN_FIX = (
    "{name} is nan in both calls, but nan != nan: jit's key compares static values with ==, "
    "so a static nan never finds its program and every call compiles anew. Pass {name} "
    "traced (a nan in an array is fine there), or mark \"no value\" with None.",
    "{bind}jax.jit({fun})    # {name} traced: not in static_argnums/static_argnames")
# a dtype given as a scalar type in one call (jnp.float32) and as a dtype object in another
# (x.dtype): jnp.dtype makes both np.dtype('float32'), one key (JAX 0.10.2 lowers once:
# static_dtype_scalar_type_then_dtype_fixed)
_STATIC_DTYPE_FIX = (
    "{name} names the same dtype ({dtype}) in both calls, but came as {old} in one and as "
    "{new} in the other: a scalar type (jnp.float32, np.float32), a dtype object (x.dtype) "
    "and a string are different static values to jit's key, so each compiles. Make it one "
    "kind before the call: jnp.dtype(...) turns each into a dtype object.",
    "{name} = jnp.dtype({name})    # one kind of dtype value in every call")
_STATIC_NONE_FIX = (
    "{name} was {old} and is {new} now: None and a value are two programs whether {name} is "
    "static or traced (None is an empty pytree, a number a leaf). For one program, pass a "
    "value that means what None did (jnp.inf for no limit, 0.0 for nothing to add) in every "
    "call, and make {name} traced.",
    "{bind}jax.jit({fun})    # {name} traced, not in static_argnums/static_argnames\n"
    "f(..., {name}=jnp.inf)    # a value meaning \"off\" where None was passed")
_OBJECT_STATIC_FIX = (
    "{name} is static ({old} -> {new}): {reuse} Its fields are numbers: register {kind} as a "
    "pytree and pass it traced (not static), and one program serves every value.",
    "jax.tree_util.register_pytree_node(\n"
    "    {kind}, lambda m: (({leaves}), None), lambda _, leaves: {kind}(*leaves))\n"
    "{bind}jax.jit({fun})    # {name} traced: its fields are the leaves")
# what a static {kind} of equal fields meets in jit's cache, which compares values of equal
# hash with == (an identical object is found first): by _self_equality (JAX 0.10.2 alike:
# api_file_gaps' static_argument_eq_false_or_raising; test_recompile_explainer)
_OBJECT_REUSE = {
    True: "a {kind} with equal fields reuses its program, a new value compiles anew.",
    False: "only this very {kind} object reuses its program: {kind}'s __eq__ calls a {kind} "
           "unequal even to itself, so an equal copy compiles anew.",
    None: "only this very {kind} object reuses its program: {kind}'s __eq__ raises, so a call "
          "with an equal copy raises a ValueError."}
