"""Cards for static arguments: one jit cannot hash (a list or dict: its tuple or a traced
argument; an array: traced, or its Python value; an object without `__hash__`), and a string,
function or other Python value jit was asked to trace (static where the user jits)."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import re

from ...core.source_info import installed_package
from ...transforms.jit.args import python_value_of
from ..argument_uses import UNKNOWN, argument_expression, python_value, uses, with_argument
from .card import ErrorCard
from .objects import _fields
from .reading import _user_frame
from .static_fixes import _called_name, _jit_decorator, _lambda_static, _rebound
from .rewrites import _parse_line


# JAX's message (transforms/jit/args.py raises it so): the value's class and text; the
# argument, its function and jit's advice are the exception's attributes, as JAX's words name
# neither
_UNHASHABLE = re.compile(r"^Non-hashable static arguments are not supported\. An error occurred "
                         r"while trying to hash an object of type <class '([\w.]+)'>, (.*)\. "
                         r"The error was:\n", re.S)


def _is_unhashable(e) -> bool:
    return isinstance(e, ValueError) and hasattr(e, "static_argument") and \
        _UNHASHABLE.match(str(e)) is not None


def _unhashable_static_card(arg, function, type_name, value, what, fix, rewrite) -> ErrorCard:
    """The card of every unhashable static argument; `what` names the value in its why
    ("a list", "an array (jax.Array)", "this Config")."""
    return ErrorCard(
        "unhashable-static", "A static argument must be hashable",
        why=(f"{arg} is a static argument of {function}: its value is part of the compile "
             f"cache's key, so it must be hashable, and {what} is not."),
        fix=fix, rewrite=rewrite,
        origin={"argument": arg, "value_type": type_name, "value": value,
                "function": function},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.jit.html")


def _unhashable_card(exc, where, called_from) -> ErrorCard:
    type_name, value_text = _UNHASHABLE.match(str(exc)).groups()
    arg, function, advice = exc.static_argument, exc.function_name, exc.advice
    if any(m in advice for m in (_EQ_WITHOUT_HASH, _FIELD_UNHASHABLE, _FIELD_ARRAY,
                                 _DATACLASS_NOT_FROZEN)):    # an object: neither
        return _object_card(advice, type_name, arg, function, where, called_from)
    if hasattr(getattr(exc, "value", None), "shape"):        # an array (jit.args says which)
        return _array_static_card(exc, type_name, value_text, arg, function, where,
                                  called_from)
    hashable = _hashable_text(type_name, value_text)
    code = where["code"] if where else ""
    traced = _traced_call(code, function, arg)
    if type_name == "dict" and not traced and function.isidentifier():
        # (a dict's tuple of pairs, passed where the jit is called, fails at the function's
        # `d['a']`: traced is the line to paste, the tuple a comment beside dict(d))
        traced = _jit_again(where, function, exc)
    if traced and (hashable is None or type_name == "dict"):
        return _traced_static_card(type_name, value_text, arg, function, traced, hashable,
                                   where, called_from)
    if hashable and value_text in code:
        rewrite = code.replace(value_text, hashable, 1)
    elif hashable:
        rewrite = f"# pass {arg}={hashable} instead of {value_text}\n{code}".rstrip()
    else:     # (the jit the line calls, `power_jit = jax.jit(power, static_argnums=0)`)
        rewrite = f"{_jit_again(where, function, exc)}   # {arg} traced " \
                  f"instead: not in static_argnums/static_argnames"
    # only where the function computes with it: traced, a shape, a size or a loop count
    # fails (jnp.zeros(shape) with a traced shape is JAX's "Shapes must be 1D sequences of
    # concrete values"), and "holds numbers" was said of exactly those too
    rewrite += f"\n# or, if {function} only computes with {arg} (never as a shape, a size or " \
               f"a loop count),\n# make it traced: drop it from static_argnums/" \
               f"static_argnames and pass jnp.asarray(...)"
    return _unhashable_static_card(
        arg, function, type_name, value_text, f"a {type_name}",
        fix=(f"Pass a hashable value ({hashable or 'a tuple, a frozenset'}); or, if {function} "
             f"only computes with {arg} (a shape, a size or a loop count must stay static), "
             f"make {arg} traced."),
        rewrite=rewrite)


def _array_static_card(exc, type_name, value_text, arg, function, where,
                       called_from) -> ErrorCard:
    """An array made static. The fix follows how the function's source uses it
    (views/argument_uses): needed as a Python value (an `if`, a shape, a loop count), the
    call passes that value, hashable (`True`, `(2, 3)`, `flag.item()`; tracing it raises, as
    JAX); only computed with, it is traced; both (array methods too), its Python value made
    an array where the methods are called; the source not found, both fixes with their
    conditions. Each was run under JAX (tests/data/error_advice_cases.py)."""
    used = uses(exc.function, arg) if getattr(exc, "function", None) else UNKNOWN
    code = where["code"] if where else ""
    position = getattr(exc, "position", None)
    python = python_value(argument_expression(code, arg, position) or arg,
                          len(exc.value.shape), python_value_of)
    passed = with_argument(code, arg, position, python) or \
        f"{code}\n# with {arg} passed as {python}".strip()
    keyword = "static_argnames" if position is None else "static_argnums"
    traced = _traced_call(code, function, arg) or (
        _jit_again(where, function, exc) if function.isidentifier()
        else f"# where the jit is made: leave {arg} out of {keyword} (traced)")
    needs = ", ".join(used.python)
    if used.python and used.array:
        fix = (f"{function} needs {arg} as a Python value ({needs}) and calls its array "
               f"methods: pass its Python value, {python}, and write jnp.asarray({arg}) where "
               f"the methods are called.")
        rewrite = f"{passed}\n# and in {function}: jnp.asarray({arg}).<method>(...)"
    elif used.python:
        fix = (f"{function} needs {arg} as a Python value ({needs}; traced, it raises): pass "
               f"its Python value, hashable: {python}.")
        rewrite = passed
    elif used.only_computes:
        fix = (f"Pass {arg} traced: {function} only computes with it, and an array is a value "
               f"to trace (drop it from {keyword}).")
        rewrite = f"{traced}   # {arg} traced" if not traced.startswith("#") else traced
    else:
        fix = (f"If {function} needs {arg} as a Python value (an `if`, a shape, a loop count), "
               f"pass its Python value, {python}; if it only computes with it, pass it traced "
               f"(drop it from {keyword}).")
        rewrite = (f"{passed}   # a Python value\n# or, if {function} only computes with {arg}:"
                   f"\n{traced}")
    # an Array is the learner's jax.Array (the error's class, jaxlib._jax.ArrayImpl as JAX's,
    # is no name to look up: the card said "an array (jxkernel.xla.array.ArrayImpl)"); NumPy's
    # keeps its own
    shown = "jax.Array" if type_name.startswith(("jxkernel.", "jaxlib.")) else type_name
    return _unhashable_static_card(
        arg, function, shown, value_text, f"an array ({shown})",
        fix=fix, rewrite=rewrite)


def _traced_call(code, function, arg) -> str:
    """The user's line `jax.jit(f, static_argnums=1)(x, value)` with `arg` made traced (the
    static keyword dropped), or "" when the line makes no such jit or marks more static."""
    tree = _parse_line({"code": code}) if code else None
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and ast.unparse(call.func) in ("jax.jit", "jit") and \
                ([ast.unparse(a) for a in call.args] == [function] or function == "<lambda>"
                 and len(call.args) == 1 and isinstance(call.args[0], ast.Lambda)):
            static = [k for k in call.keywords if k.arg in ("static_argnums", "static_argnames")]
            if len(static) != 1 or isinstance(static[0].value, (ast.Tuple, ast.List)) and \
                    len(static[0].value.elts) != 1:
                return ""
            call.keywords.remove(static[0])
            return ast.unparse(tree)
    return ""


def _traced_static_card(type_name, value_text, arg, function, traced, hashable, where,
                        called_from) -> ErrorCard:
    """An array or a dict as a static argument, at a line that makes the jit: the same line
    with it traced (JAX traces an array, and a dict of numbers is a pytree of traced leaves),
    and, where its values must be Python numbers while tracing, a hashable form. A dict as a
    tuple of pairs is read back with dict(...) (JAX 0.10.2: `d['a']` of the tuple raises)."""
    if type_name == "dict":
        alternative = (f"# or, if {function} needs its values as Python numbers (a shape, a "
                       f"size), pass {hashable} and read it inside as dict({arg})")
    else:
        alternative = (f"# or, if {function} needs its values as Python numbers (a shape, a "
                       f"size), keep it static as tuple({arg}.tolist())")
    kind = "a dict is a pytree: each value traced" if type_name == "dict" else \
        "an array is a value to trace"
    return _unhashable_static_card(
        arg, function, type_name, value_text, f"a {type_name}",
        fix=(f"Pass {arg} traced (drop it from static_argnums/static_argnames): {kind}. Only "
             f"values needed as Python numbers while tracing must be static, and hashable."),
        rewrite=f"{traced}   # {arg} traced: {kind}\n{alternative}")


# transforms/jit/args.py's advice (the exception's `advice`) for an object of a user's class:
# a tuple of it or passing it traced (not a pytree) cannot work; its class or its field needs
# the change
_EQ_WITHOUT_HASH = "defines __eq__ but not __hash__"
_FIELD_UNHASHABLE = "which is not hashable: make it hashable where"
_FIELD_ARRAY = "holds an array, which is not hashable: an array is a value to trace"
_DATACLASS_NOT_FROZEN = "is a dataclass, not frozen"


def _object_card(text, type_name, arg, function, where, called_from) -> ErrorCard:
    """A static object whose class has __eq__ and no __hash__, or a dataclass holding a
    list: the card's fix is jit's advice (`text`, the exception's `advice`)."""
    kind = type_name.rsplit(".", 1)[-1]
    advice = text.strip()
    if _EQ_WITHOUT_HASH in text:
        fix = (f"Give {kind} a __hash__ over the fields its __eq__ compares, or make it a "
               f"frozen dataclass (@dataclasses.dataclass(frozen=True) has both).")
        rewrite = (f"# in class {kind}, beside its __eq__:\n"
                   f"def __hash__(self):\n    return hash(tuple(vars(self).values()))")
    elif _DATACLASS_NOT_FROZEN in text:
        fix = advice[0].upper() + advice[1:]
        rewrite = (f"@dataclasses.dataclass(frozen=True)    # == and hash by its fields\n"
                   f"class {kind}:")
    elif _FIELD_ARRAY in text:
        fix = advice[0].upper() + advice[1:]
        # the call with it traced, where the line makes the jit (registered alone, the static
        # object still had to hash: JAX raises again)
        traced = _traced_call(where["code"] if where else "", function, arg)
        rewrite = (re.search(r"jax\.tree_util\.register_dataclass\(.*\)", advice).group(0) +
                   f"    # once, after class {kind}\n" +
                   (f"{traced}   # {arg} traced" if traced else
                    f"# and {arg} traced: not in static_argnums/static_argnames"))
    else:
        fix = advice[0].upper() + advice[1:]
        rewrite = f"# {advice}"
    return _unhashable_static_card(
        arg, function, type_name, kind, f"this {kind}",
        fix=fix, rewrite=rewrite)


def _hashable_text(type_name, value_text) -> str | None:
    """The same value written hashably, for lists, sets and dicts written as literals."""
    try:
        value = ast.literal_eval(value_text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if type_name == "list":
        return repr(tuple(value))
    if type_name == "set":
        return f"frozenset({value_text})"
    if type_name == "dict":
        return repr(tuple(sorted(value.items(), key=repr)))
    return None


# ------------------------------------------------------------------ a string or function traced
_NOT_AN_ARRAY = re.compile(r"^Error interpreting argument to <function ([\w.<>]+) at "
                           r"0x[0-9a-f]+> as an abstract array\. The problematic value is of type "
                           r"<class '([\w.<>]+)'> and was passed to the function at path (.+?)\.$",
                           re.M)


def _is_not_an_array(e) -> bool:
    # (not where the jit is jxkernel's own, a jnp function's: jnp.sum("a") is no static to
    # mark, and JAX's message says what is wrong)
    return isinstance(e, TypeError) and hasattr(e, "value") and \
        _NOT_AN_ARRAY.search(str(e)) is not None and \
        not (getattr(getattr(e, "fun", None), "__module__", None) or "").startswith("jxkernel.")


def _not_an_array_card(exc, where, called_from) -> ErrorCard:
    """A string, a function or another Python object passed to a jitted function where jit
    traces it (JAX's TypeError, which names static_argnums). Static works for a hashable
    value passed as its own argument; the card writes it where the user's code jits the
    function, and says what to do for a value inside a container, which cannot be static."""
    qualified, type_path, path = _NOT_AN_ARRAY.search(str(exc)).groups()
    function = qualified.rsplit(".", 1)[-1]
    named = function if function.isidentifier() else "the function"    # (a lambda)
    kind = type_path.rsplit(".", 1)[-1]
    try:
        hash(exc.value)
        hashable = True
    except TypeError:
        hashable = False
    why = (f"jit traces every argument of {named} as an array (its shape and dtype stand "
           f"for every value), and {path} is a {kind}, which is no array.")
    # a @dataclass of numbers is data whether frozen (hashable by value: static would compile
    # once per value) or not (eq without frozen sets __hash__ to None): register it
    dataclass = dataclasses.is_dataclass(exc.value) and not isinstance(exc.value, type)
    fields = _fields(exc.value)[:2] if dataclass else None
    if not (fields and fields[0]):
        fields = _data_fields(exc.value) if hashable else None
    if fields is not None:
        data, meta = fields
        same = f" (and the same {', '.join(meta)})" if meta else ""
        fix = (f"A {kind} holding data ({', '.join(data)}) is a pytree to register: jit then "
               f"traces its fields as arrays, and a {kind} of other numbers{same} runs the "
               f"same program. " +
               (f"Marked static instead (a frozen dataclass can be), each {kind} of other "
                f"numbers would compile anew." if dataclass else
                f"Marked static instead, it is hashed by identity: each new {kind} would "
                f"compile anew."))
        rewrite = (f"jax.tree_util.register_dataclass({kind})" if dataclass and not meta else
                   f"jax.tree_util.register_dataclass({kind}, data_fields={data!r}, "
                   f"meta_fields={meta!r})") + f"    # once, after class {kind}"
        if where and where.get("code"):
            rewrite += "\n" + where["code"]
        return ErrorCard(
            "not-an-array", f"jit was given a {kind}, which it cannot trace", why=why, fix=fix,
            rewrite=rewrite,
            docs="https://docs.jax.dev/en/latest/_autosummary/"
                 "jax.tree_util.register_dataclass.html")
    if path.isidentifier() and hashable:
        fix = (f"Mark {path} static: its value is then part of the compile's key, so {named} "
               f"compiles once per value (a few settings, names or functions, not data).")
        rewrite = _static_call(where, function, path, exc)
    elif path.isidentifier():
        fix = (f"A static argument must be hashable and a {kind} is not: pass a hashable "
               f"version of it (a tuple for a list), marked static.")
        rewrite = f"# {path}: a tuple (hashable), then static_argnames=({path!r},)"
    elif _named_tuple_field(exc, where, path) and \
            "\n" not in _named_tuple_field(exc, where, path)[1]:
        # a library's NamedTuple of functions (Optax's optimizer passed to a jitted step):
        # the class is not the learner's to rewrite, and the whole tuple is hashable: static
        # (JAX 0.10.2 compiles the step once for every call given that optimizer:
        # library_notes_reference.json's optimizer_static)
        kind_of, library = _named_tuple_field(exc, where, path)
        root = path.split(".")[0]
        fix = (f"{path} is a field of {kind_of}, a NamedTuple of {library}'s: jit takes "
               f"every field of one as a leaf to trace, a {kind} included. Mark {root} "
               f"static, whole (a NamedTuple of functions is hashable): {named} then compiles "
               f"once per {root} object, reused by every call given that object.")
        rewrite = _static_call(where, function, root, exc)
    elif _named_tuple_field(exc, where, path):
        kind_of, rewrite = _named_tuple_field(exc, where, path)
        fix = (f"{path} is a field of {kind_of}, a NamedTuple: jit takes every field of one as "
               f"a leaf to trace, a {kind} included. Make the class a dataclass registered "
               f"with {path.split('.')[1]} as a meta field (static: part of the compile's key) "
               f"and the others as data fields (traced), as below; a {kind_of} made from it then "
               f"passes as it is.")
    else:
        outer = re.match(r"[A-Za-z_]\w*", path)
        container = outer.group(0) if outer else "the container"
        fix = (f"{path} is inside {container}: a dict or list cannot be static (it is not "
               f"hashable; a tuple of plain values can). Pass the {kind} as an argument of its "
               f"own, static, and leave the arrays traced.")
        f = function if function.isidentifier() else "f"
        rewrite = (f"# def {f}(..., {container}, setting): the {kind} as its own argument\n"
                   f"# jax.jit({f}, static_argnames=('setting',))")
    return ErrorCard(
        "not-an-array", f"jit was given a {kind}, which it cannot trace", why=why, fix=fix,
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/jit-compilation.html#marking-arguments-as-static")


def _named_tuple_field(exc, where, path) -> tuple | None:
    """(its class's name, the class rewritten) where `path` (JAX's "x.name") is a field of a
    NamedTuple passed as the jitted function's argument x at the user's line (custom_pytrees.md's
    `f(moc)`, moc a MyOtherContainer with a str `name`): the class as a dataclass registered
    with the fields that hold no number or array as meta fields, as the page's own
    MyDataclassContainer. None for anything else."""
    parts = path.split(".")
    tree, frame, fun = _parse_line(where), _user_frame(exc), getattr(exc, "fun", None)
    if len(parts) != 2 or tree is None or frame is None or fun is None:
        return None
    try:
        parameters = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        return None
    names = {**frame.f_globals, **frame.f_locals}
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and parts[0] in parameters):
            continue
        index = parameters.index(parts[0])
        given = call.args[index] if index < len(call.args) else None
        value = names.get(given.id) if isinstance(given, ast.Name) else None
        fields = getattr(type(value), "_fields", None)
        if not (isinstance(value, tuple) and fields and parts[1] in fields):
            continue
        kind = type(value).__name__
        library = _library_of(type(value))
        if library:     # optax's GradientTransformation: no class of the learner's to rewrite
            try:
                hash(value)
            except TypeError:
                return None
            return kind, library
        meta = [f for f in fields if not (isinstance(getattr(value, f), (int, float, complex))
                                          or hasattr(getattr(value, f), "dtype"))]
        data = [f for f in fields if f not in meta]
        bound = {id(v): k for k, v in names.items() if k.isidentifier()}
        typed = getattr(type(value), "__annotations__", {})

        def spelled(t):
            return bound.get(id(t)) or (t.__name__ if isinstance(t, type) and
                                        t.__module__ == "builtins" else "object")
        body = "\n".join(f"    {f}: {spelled(typed.get(f, object))}" for f in fields)
        return kind, (
            f"import dataclasses, functools\n"
            f"@functools.partial(jax.tree_util.register_dataclass,\n"
            f"                   data_fields={data!r}, meta_fields={meta!r})\n"
            f"@dataclasses.dataclass\n"
            f"class {kind}:    # in place of the NamedTuple: {', '.join(meta)} static\n{body}")
    return None


def _library_of(cls) -> str | None:
    """The installed package defining `cls` (optax's GradientTransformation: "optax"), or
    None for the learner's own class (or one whose file is not found)."""
    if cls.__module__ in ("__main__", "builtins"):      # a notebook's (its __main__ may be
        return None                                    # a runner's file, pytest's)
    try:
        return installed_package(inspect.getsourcefile(cls) or "")
    except (TypeError, OSError):
        return None


def _data_fields(value) -> tuple | None:
    """(data fields, meta fields) of an object of the user's own class that holds numbers or
    arrays and is hashed by identity (object's __hash__), as register_dataclass takes them;
    None for anything else (a function, a string, a class of its own hash: a setting that
    static suits). JAX 0.10.2 registers such a class as it is, no dataclass needed.

        >>> class Box:
        ...     def __init__(self, name, a):
        ...         self.name, self.a = name, a
        >>> _data_fields(Box("w", 1.0))
        (['a'], ['name'])
    """
    kind = type(value)
    if kind.__module__ == "builtins" or isinstance(value, type) or callable(value) or \
            kind.__hash__ is not object.__hash__ or not hasattr(value, "__dict__"):
        return None
    fields = vars(value)
    data = [k for k, v in fields.items()
            if (isinstance(v, (int, float, complex, list, tuple, dict)) and
                not isinstance(v, bool)) or hasattr(v, "dtype")]
    if not data or not all(k.isidentifier() for k in fields):
        return None
    return data, [k for k in fields if k not in data]


def _jit_again(where, function, exc) -> str:
    """`f = jax.jit(f)`, the jit made again without static arguments; of the function the
    jit wraps (`f.__wrapped__`) where the name the line calls is a jit object already (a
    `@partial(jax.jit, static_argnums=0)` above): jitting that again keeps its static
    argument, which the outer jit's tracer then fills (JAX 0.10.2: "unhashable type:
    'DynamicJaxprTracer'")."""
    called = _called_name(where, function)
    if _is_jit_object(exc, function):
        return f"{called} = jax.jit({function}.__wrapped__)"
    return f"{called} = jax.jit({function})"


def _is_jit_object(exc, name) -> bool:
    """Whether the global `name` of the user's frame is a jit object (a jitted function, which
    a new jit of would wrap whole, its static arguments kept)."""
    frame = _user_frame(exc)
    value = frame.f_globals.get(name) if frame is not None else None
    return value is not None and hasattr(value, "__wrapped__") and hasattr(value, "lower")


def _static_call(where, function, arg, exc) -> str:
    """`arg` static where the user's line jits `function`: a jitted lambda, `jax.jit(f)(..)`,
    a `@jax.jit` decorator above in the cell, a name bound to a jit object (rebuilt from
    its __wrapped__ function: jitting the jit object again would trace `arg` all the same)."""
    found = _lambda_static(where, arg) or _rebound(where, function, arg)
    if found:
        return found
    decorator, header = _jit_decorator(where, function)
    if decorator:
        return (f"from functools import partial\n@partial({decorator[1:]}, static_argnames="
                f"({arg!r},))   # in place of {decorator}\n{header}")
    called = _called_name(where, function)
    if _is_jit_object(exc, called):
        return f"{called} = jax.jit({called}.__wrapped__, static_argnames=({arg!r},))"
    if not (called.isidentifier() and function.isidentifier()):
        # (a lambda jitted where the line does not show it: `<lambda>` is no name to bind)
        return f"# where the function is jitted: jax.jit(..., static_argnames=({arg!r},))"
    return f"{called} = jax.jit({function}, static_argnames=({arg!r},))"
