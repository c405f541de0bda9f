"""The fields of objects a jitted function reads while traced, to tell when one changes after
the trace. First, a static argument whose class keeps object's own hash and == (by identity):
jit's key is the object, not its fields, so the same object with a field set anew finds its
program, and the calls go on with the value traced. JAX's gotchas page names this ("marking
self as static"); nothing in JAX says so when it happens.

    class Model:
        def __init__(self, w): self.w = w
        @partial(jax.jit, static_argnums=0)
        def predict(self, x): return x @ self.w
    m.predict(x); m.w = new_w; m.predict(x)      # the old w, silently

The same holds for an object the jitted callable is bound to, whatever its hash: jit's key
is the function, so `jax.jit(m.predict)` or `jax.jit(m)` (its __call__) read `self.w` once,
at the trace (`bound_to`); and for an object the function names as a global, a config
(`cfg.lr`, a class's `Config.lr`) or a model (`model.w`): `global_reads`. And a static
argument hashed by its fields, set in place: jit's key changes with it (`static_reads`).

views/outside_values.py follows these reads beside its globals (a reader that is the object,
a name "self.w").
"""
from __future__ import annotations

import dis
import functools
import inspect
import types

from .signature_changes.statics import _hashed_by_identity

_ABSENT = object()
_DEPTH = 2          # methods followed from the function: self.forward() calling self.layer()


def bound_to(jitted_fun) -> tuple | None:
    """(the function it runs, its first parameter's name, the object) for a jitted bound
    method (`m.predict`) or callable object (`m`, its class's __call__), else None.

        >>> class Model:
        ...     def predict(self, x): return x
        >>> m = Model()
        >>> bound_to(m.predict)[1:] == ("self", m)
        True
    """
    if isinstance(jitted_fun, types.MethodType):
        fun, obj = jitted_fun.__func__, jitted_fun.__self__
    elif not isinstance(jitted_fun, (types.FunctionType, types.BuiltinFunctionType, type)) and \
            isinstance(getattr(type(jitted_fun), "__call__", None), types.FunctionType):
        fun, obj = type(jitted_fun).__call__, jitted_fun
    else:
        return None
    code = getattr(fun, "__code__", None)
    if code is None or not code.co_varnames or isinstance(obj, (type, types.ModuleType)):
        return None
    return fun, code.co_varnames[0], obj


def static_reads(fun, statics, bound=None) -> list:
    """(object, "param.attr", how) for each data attribute `fun` reads of a static argument
    (`statics`: jit's (name, value, position) triples), read as `param.attr` in its code (a
    lambda or def inside it too), or in a method of the object's class it calls as
    `param.method(...)`; an attribute the code sets itself is left out (its own doing). How:
    "static" for an object hashed by identity; "keyed" for one hashed by its own __hash__ (its
    fields): set in place, the object jit keeps as its program's key changes with it, so the
    old program answers for the new value and for any equal object after (JAX 0.10.2's too:
    tests/data/stale_static_cases.py's hashed_by_fields); "bound" for `bound`, (parameter,
    object) of the object the jitted callable is bound to (bound_to), whatever its hash.

        >>> class Model: w = 2.0
        >>> m = Model()
        >>> static_reads(lambda self, x: x * self.w, (("self", m, 0),))[0][1:]
        ('self.w', 'static')
    """
    code = getattr(fun, "__code__", None)
    if code is None:
        return []
    objects = [(param, obj, "static" if _hashed_by_identity(obj) else "keyed")
               for param, obj, *_ in statics
               if not isinstance(obj, (type, types.ModuleType, tuple, str, bytes, int, float,
                                       complex)) and not callable(obj)
               and type(obj).__hash__ is not None] + \
        ([(*bound, "bound")] if bound is not None else [])
    return [(obj, f"{param}.{attr}", how) for param, obj, how in objects
            for attr in _data_read(code, param, obj, _DEPTH)]


def attribute_value(obj, name: str) -> tuple:
    """(found, value) of the data attribute "param.attr" `name` of `obj` now, without running
    a property or any other descriptor (None for one: not data)."""
    value = inspect.getattr_static(obj, name.split(".", 1)[1], _ABSENT)
    if value is _ABSENT:
        return False, None
    return (True, value) if _is_data(value) else (False, None)


def global_reads(fun) -> list:
    """(object, "name.attr") for each data attribute `fun`'s code (a lambda or def inside it
    too) reads of an object it names as a global: an instance or a class of its own module's
    (a notebook's: `cfg.lr`, `Config.lr`, `model.w`), a SimpleNamespace or an argparse
    Namespace. Not a module's (`jnp.pi`), a function's or an array's attributes.

        >>> from types import SimpleNamespace
        >>> cfg = SimpleNamespace(lr=0.1)
        >>> f = eval("lambda w: w - cfg.lr", {"cfg": cfg})
        >>> global_reads(f) == [(cfg, "cfg.lr")]
        True
    """
    code, scope = getattr(fun, "__code__", None), getattr(fun, "__globals__", None)
    if code is None or scope is None:
        return []
    out = []
    for name in global_loads(code):
        obj = scope.get(name, _ABSENT)
        if _namespace_like(obj, scope):
            depth = 0 if isinstance(obj, type) else _DEPTH   # (a class's functions: unbound)
            out += [(obj, f"{name}.{attr}")
                    for attr in _data_read(code, name, obj, depth, _GLOBAL_LOADS)]
    return out


_GLOBAL_LOADS = ("LOAD_GLOBAL", "LOAD_NAME")
_LOCAL_LOADS = ("LOAD_FAST", "LOAD_DEREF")
_NAMESPACES = ("types.SimpleNamespace", "argparse.Namespace")


@functools.lru_cache(maxsize=4096)
def global_loads(code) -> tuple:
    """The global names `code` and the code written inside it (a lambda, a def, a
    comprehension) load, in order, each once: read from its bytecode, since `co_names` holds
    its attribute names too (`self.w` reads no global `w`).

        >>> global_loads((lambda x: x.w + k).__code__)
        ('k',)
    """
    names = [ins.argval for ins in dis.get_instructions(code) if ins.opname in _GLOBAL_LOADS]
    for inner in code.co_consts:
        if isinstance(inner, types.CodeType):
            names += global_loads(inner)
    return tuple(dict.fromkeys(names))


def _namespace_like(obj, scope) -> bool:
    """An object whose fields are data a function reads: an instance or a class of the
    module `scope` is (the notebook's own), or a namespace of Python's."""
    kind = obj if isinstance(obj, type) else type(obj)
    if obj is _ABSENT or isinstance(obj, (types.ModuleType, types.FunctionType)) or \
            hasattr(obj, "shape") or (callable(obj) and not isinstance(obj, type)):
        return False
    return kind.__module__ == scope.get("__name__") or \
        f"{kind.__module__}.{kind.__qualname__}" in _NAMESPACES


def _data_read(code, param, obj, depth, loads=_LOCAL_LOADS) -> list:
    """The data attributes of `obj` that `code` (and the methods of it that it calls, `depth`
    deep) reads through the parameter, closure variable or global `param` (`loads`: the
    instructions that load it), in order, each once."""
    reads, sets = _attribute_uses(code, param, loads)
    out = []
    for attr in reads:
        if attr in sets or attr in out:
            continue
        value = inspect.getattr_static(obj, attr, _ABSENT)
        if value is _ABSENT:
            continue
        if isinstance(value, types.FunctionType) and depth > 0 and value.__code__.co_varnames:
            # a method: what it reads of its own self (its first parameter)
            out += [a for a in _data_read(value.__code__, value.__code__.co_varnames[0], obj,
                                          depth - 1) if a not in out]   # (its self: local)
        elif _is_data(value):
            out.append(attr)
    return out


def _attribute_uses(code, param, loads=_LOCAL_LOADS) -> tuple:
    """(attributes read, attributes set) through `param` (loaded by `loads`' instructions) in
    `code` and the code objects written inside it that close over it (a lambda given to
    jax.grad), or, for a global, any."""
    reads, sets = [], set()
    instructions = list(dis.get_instructions(code))
    for load, use in zip(instructions, instructions[1:]):
        # LOAD_FAST, LOAD_DEREF; 3.12's LOAD_FAST_CHECK, 3.13's LOAD_FAST_LOAD_FAST (a pair:
        # `x @ self.w` loads x, then self)
        if not load.opname.startswith(loads):
            continue
        names = load.argval if isinstance(load.argval, tuple) else (load.argval,)
        if names[-1] != param:
            continue
        if use.opname in ("LOAD_ATTR", "LOAD_METHOD"):
            reads.append(use.argval)
        elif use.opname == "STORE_ATTR":
            sets.add(use.argval)
    for inner in code.co_consts:
        if isinstance(inner, types.CodeType) and (param in inner.co_freevars or
                                                  loads is _GLOBAL_LOADS):
            more, more_sets = _attribute_uses(inner, param, loads)
            reads += more
            sets |= more_sets
    return reads, sets


def _is_data(value) -> bool:
    """A value, not code: an array-like (Flax's nnx.Param too, though callable), or no
    function, class, module or descriptor (a property runs code)."""
    if hasattr(value, "shape") and hasattr(value, "__array__") and not isinstance(value, type):
        return True
    return not (isinstance(value, (type, types.ModuleType)) or callable(value) or
                hasattr(type(value), "__get__"))
