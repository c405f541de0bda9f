"""A Change made with its fix: each kind's plain fix (a sentence and its code), how a template
of this package's is filled in (`_fixed`, `_refixed`), and the fixes written for the jitted
function by name and by how its source uses a static argument (`for_function`). The fixes
for one cause (a static bool, a partial batch, ...) live beside the code that finds it.
"""
from __future__ import annotations

import ast
import contextlib
import dataclasses
import re
import threading

from .change import _JIT_OPTIONS, Change, _root


# on in this thread within `unfixed()`
_unfixed = threading.local()


@contextlib.contextmanager
def unfixed():
    """Within: _fixed and _refixed make their Changes without a fix (nearest.py ranks a
    function's earlier signatures by their changes' kinds, paths and values, and reads the
    fixes of the nearest alone, made again outside).

        >>> with unfixed():
        ...     _fixed("x", "shape", "f32[3]", "f32[4]").fix
        ''
    """
    before, _unfixed.on = getattr(_unfixed, "on", False), True
    try:
        yield
    finally:
        _unfixed.on = before


def _fixed(path, kind, old, new, name=None, dtype="float32") -> Change:
    """A Change with its kind's plain fix (_FIXES), the template filled in for `path`."""
    if getattr(_unfixed, "on", False):
        return Change(path, kind, str(old), str(new))
    name = name or path
    fix, snippet = _FIXES[kind]
    if kind == "config" and path in dict(_JIT_OPTIONS):
        fix, snippet = _OPTION_FIX
    elif kind == "config" and path != "jax_enable_x64":
        fix, snippet = _DEVICE_FIX
    fill = dict(path=path, name=name, root=_root(path), old=old, new=new, dtype=dtype,
                **_jitting())
    snippet = _assignable(path, snippet.format(**fill))
    return Change(path, kind, str(old), str(new), pattern_said(fix.format(**fill), snippet),
                  snippet)


def _refixed(change: Change, fix_and_snippet, **more) -> Change:
    """`change` with another fix (a template of _FIXES' kind)."""
    if getattr(_unfixed, "on", False):
        return change
    fix, snippet = fix_and_snippet
    fill = dict(path=change.path, name=change.path, root=_root(change.path), old=change.old,
                new=change.new, **_jitting())
    fill.update(more)
    if "dtype" in fill:             # "an int32 array" ("a int32" it read), "a float32 array"
        fill["a_dtype"] = f"a{'n' if str(fill['dtype']).startswith('int') else ''} " \
            f"{fill['dtype']}"
    snippet = snippet.format(**fill)
    return dataclasses.replace(change, fix=pattern_said(fix.format(**fill), snippet),
                               snippet=snippet)


# what marks a fix's code as a pattern, not code to paste as it is: a `...` to fill in, or a
# name the learner's program need not have (the loop's `batches`, a cond's branches)
_PLACEHOLDER = re.compile(r"\.\.\.|\b(batches|branch_true|branch_false|branch_0|branch_1|MODES|"
                          r"flatten, unflatten)\b")
# a template whose code is a pattern ends with these words, not its own: the note's first line
# gives the fix's last sentence as its fix in brief, leaving these out
# (notebook/notes/compile_notes' fix_in_brief), so said otherwise they became the brief
PATTERN_SAID = " The code below is a pattern, in names of yours to fill in."
# how a sentence that only adds to the fix before it begins (a shape fix whose dtype changed
# too: "... Its dtype changed too (float32 -> int32): cast it as well, ..."): said alone, as
# the note's fix in brief, it would tell a learner to do "as well" something not shown
ADDS_TO_THE_FIX = "Its dtype changed too"


def pattern_said(fix: str, snippet: str) -> str:
    """`fix` saying so where `snippet` is a pattern (`...`, `batches`: pasted as it is, it
    would not run, or run something else), unless it says so already.

        >>> pattern_said("Jit it once.", "f = jax.jit(lambda x, k: ...)")
        'Jit it once. The code below is a pattern, in names of yours to fill in.'
        >>> pattern_said("Cast it.", "x = jnp.asarray(x, jnp.float32)")
        'Cast it.'
    """
    if not _PLACEHOLDER.search(snippet) or "pattern" in fix:
        return fix
    return fix + PATTERN_SAID


_FIXES = {
    "shape": ("Every new shape compiles anew. Pad or bucket {path} to a few fixed sizes (a "
              "mask of the real rows, passed in and used where they are summed, keeps the "
              "padding out of the result).",
              "n = {path}.shape[0]\n"
              "size = 1 << (n - 1).bit_length()        # the next power of two\n"
              "{path} = jnp.pad({path}, [(0, size - n)] + [(0, 0)] * ({path}.ndim - 1))"),
    "dtype": ("{path} came as {new} (before: {old}). Cast it before the call so that every "
              "call has one dtype.",
              "{path} = jnp.asarray({path}, jnp.{dtype})"),
    "weak_type": ("A Python scalar is weakly typed and an array is not, so {path} flipping "
                  "between them compiles anew. Pass the same kind every time (weak types: "
                  "https://docs.jax.dev/en/latest/type_promotion.html#weak-types).",
                  "{path} = jnp.asarray({path}, jnp.{dtype})    # always a (strong) array"),
    # the last sentence is the note's fix in brief (notebook/notes/compile_notes.py): the common
    # case (a number that only sets values) goes last
    "static": ("Each new value of a static argument compiles anew. If {name} sets a shape "
               "(jnp.ones(n)) or a Python branch, a program per value is expected: keep its "
               "values few (sizes rounded up to a few buckets). If {name} only sets values, "
               "make it traced: drop it from static_argnums/static_argnames.",
               "{bind}jax.jit({fun})    # {name} traced: one program for all its values"),
    # (at_the_calls writes it at the earlier call where both calls can be read:
    # _ONE_JIT_CALLED; one jit called by position and by keyword traces twice too)
    "traced": ("{name} was {old} and is {new} now: a static argument is a Python value baked "
               "into the program, a traced one an abstract array, and two jits of a "
               "function, {name} static in one and not in the other, trace a program each. "
               "Jit it once, call that one everywhere, and pass {name} the same way in every "
               "call (by position and by keyword are two cache keys too).",
               "{bind}jax.jit({fun}, static_argnames=('{name}',))    # the one jit of {fun}: "
               "call it everywhere, no other"),
    "structure": ("The arguments' pytree structure changed ({path}: {old} -> {new}), and every "
                  "structure compiles anew. Keep the same keys and fields (zeros or a mask "
                  "instead of a missing entry or None).",
                  "{root} = {{**defaults, **{root}}}    # the same keys in every call"),
    # (for_function and at_the_calls write it in the learner's def and call where they can
    # be read: _CONSTANT_PASSED; the plain code is a pattern, and says so)
    "constant": ("{name} is closed over: its value when traced is baked into the program. This "
                 "compile picked up its new value, while cache hits keep the old one. Pass it "
                 "as an argument instead (the code below is a pattern: your function's body "
                 "in place of ...).",
                 "f = jax.jit(lambda x, {name}: ...)    # then call f(x, {name})"),
    "config": ("jax_enable_x64 changed ({old} -> {new}): every default dtype changes, so "
               "everything compiles anew. Set it once, at start-up.",
               'jax.config.update("jax_enable_x64", {new})    # first thing, before any jit'),
    # made once, a function that read the loop's variable (`lambda x: x * i`) would keep the
    # value of its one trace (JAX 0.10.2: learner5_lambda_made_once_reads_i answers 0 for
    # every i): what changes goes in as an argument (..._fixed: one lowering, every i's value)
    "fresh_jit": ("This is a new jit(...) of the same code in a new function object (a "
                  "lambda or nested def made anew): jit's cache is keyed on the function "
                  "object, so making it anew every time (say in a loop) compiles every "
                  "time. A value it reads from outside (a loop variable) is baked into the "
                  "program when it traces, so made once it would keep the first one. Make "
                  "the jitted function once and reuse it, with what changes between calls "
                  "passed as an argument.",
                  "f_jit = jax.jit(f)            # once, outside the loop\n"
                  "for batch in batches:\n"
                  "    out = f_jit(batch)        # what changes per call (a loop variable): "
                  "an argument too"),
}
_OPTION_FIX = ("{path} differs between two jits of this function ({old} -> {new}): each set "
               "of jit options compiles a program of its own (JAX traces once, and lowers and "
               "compiles twice). Jit the function once with the options you need, and call "
               "that one.",
               # the function by its own name (for_function's; a generic `g` was nowhere),
               # bound to the name the new call used (bound_where_called)
               "{bind}jax.jit({fun}, {path}={new})    # the one jit of {fun}: call it "
               "everywhere, no other")
_DEVICE_FIX = ("The {path} changed ({old} -> {new}): a compiled program runs on one device. "
               # (at_the_calls writes it in the calls' names where it can read them)
               "Keep the inputs on one device, or expect one compile per device." +
               PATTERN_SAID,
               "x = jax.device_put(x, jax.devices()[0])    # or %jxbackend cpu:0")


_FIELD = re.compile(r"^(?P<obj>.+)\.(?P<field>[A-Za-z_]\w*)$")
_ITEM = re.compile(r"^(?P<obj>.+)\[(?P<index>\d+)\]$")


def _assignable(path: str, snippet: str, holder=None) -> str:
    """`snippet` with its `p.y = ...` lines (a namedtuple's field cannot be assigned) as
    `p = p._replace(y=...)`; where the class holding the field is known to be a dataclass
    (`holder`: a frozen one refuses `p.y = ...`), `p = dataclasses.replace(p, y=...)`; where
    it is known to be a namedtuple, `_replace` with the line's own comment. A tuple's item
    (`holder` tuple: `t[0] = ...` raises TypeError) is a new tuple, `t = (...,) + t[1:]`.

        >>> _assignable("p.b", "p.b = 0.0    # zeros")
        'p = p._replace(b=0.0)    # dataclasses.replace(...) for a dataclass'
        >>> _assignable("t[1]", "t[1] = jnp.zeros(3)    # zeros", tuple)
        't = t[:1] + (jnp.zeros(3),) + t[2:]    # zeros'
    """
    item = _ITEM.match(path) if holder is tuple else None
    found = _FIELD.match(path)
    if found is None and item is None:
        return snippet
    dataclass = isinstance(holder, type) and dataclasses.is_dataclass(holder)
    named = isinstance(holder, type) and issubclass(holder, tuple) and \
        hasattr(holder, "_fields")
    lines = ["import dataclasses"] if dataclass and item is None else []
    for line in snippet.splitlines():
        if line.startswith(f"{path} = "):
            value, _, comment = line[len(path) + 3:].partition("    #")
            value, comment = value.strip(), f"    #{comment}" if comment else ""
            if item is not None:
                obj, i = item.group("obj"), int(item.group("index"))
                head = f"{obj}[:{i}] + " if i else ""
                line = f"{obj} = {head}({value},) + {obj}[{i + 1}:]{comment}"
            elif dataclass:
                line = f"{found.group('obj')} = dataclasses.replace({found.group('obj')}, " \
                    f"{found.group('field')}={value})"
            else:
                obj, field = found.group("obj"), found.group("field")
                line = f"{obj} = {obj}._replace({field}={value})" + (
                    comment if named else "    # dataclasses.replace(...) for a dataclass")
        lines.append(line)
    return "\n".join(lines)


# A fix's code jits the function as `{bind}jax.jit({fun}`: `f = jax.jit(f` where it is not
# known yet, `jax.jit(update` once for_function knows its name (a learner pastes it as it is)
_JIT_OF = "{bind}jax.jit({fun}"


def _jitting(fun: str = "") -> dict:
    """The fill of `{bind}` and `{fun}` in a fix's template, for the function named `fun`.

        >>> _JIT_OF.format(**_jitting()), _JIT_OF.format(**_jitting("update"))
        ('f = jax.jit(f', 'jax.jit(update')
    """
    return {"bind": "", "fun": fun} if fun else {"bind": "f = ", "fun": "f"}


# a static argument's fix where the function's source says how it is used (argument_uses)
_STATIC_STAYS = ("Each new value of a static argument compiles anew. {fun} needs {name} as "
                 "a Python value ({uses}), so it must stay static and a program per value is "
                 "expected. Keep its values few (sizes rounded up to a few buckets).",
                 "")
_STATIC_TRACED = ("Each new value of a static argument compiles anew, and {fun} only computes "
                  "with {name}. Make it traced: drop it from static_argnums/static_argnames.",
                  "{bind}jax.jit({fun})    # {name} traced: one program for all its values")
# ... where its values were of two kinds (2, then True or 2.0 or np.int32(2)): traced, those
# are two types still, a program each (JAX 0.10.2 traces jit(f)(x, 2) and (x, True) apart:
# bool[] and i32[] (weak)), so the traced jit is one program per kind, not for all values
_STATIC_TRACED_KINDS = (
    "Each new value of a static argument compiles anew, and {fun} only computes with {name}; "
    "but traced, {old} ({old_kind}) and {new} ({new_kind}) are two types still, a program "
    "each. Make it traced (drop it from static_argnums/static_argnames) and pass {name} as "
    "one kind in every call.",
    "{bind}jax.jit({fun})    # {name} traced: one program per kind of value ({old_kind}, "
    "{new_kind})")


def value_kind(text: str) -> str | None:
    """The kind of the Python value a static argument showed as `text` ("2", "True",
    "np.int32(2)"), whose type a traced argument keeps; None for any other value.

        >>> value_kind("True"), value_kind("2.0"), value_kind("np.int32(2)"), value_kind("'a'")
        ('bool', 'float', 'np.int32', None)
    """
    numpy = re.fullmatch(r"(np\.\w+)\(.*\)", text)
    if numpy:
        return numpy.group(1)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return type(value).__name__ if type(value) in (bool, int, float, complex) else None


# ... and where it passes the argument on to a call whose use of it is not read (Flax's
# key_concepts: `init_state(dim, nlayers)` returns `MLP(dim, nlayers, ...)`, whose layers'
# sizes and count they are: traced, JAX 0.10.2 raises TracerIntegerConversionError,
# library_notes_reference.json's static_sizes_made_traced): no code, both ways with their
# conditions
_STATIC_PASSED = ("Each new value of a static argument compiles anew. {fun} passes {name} on "
                  "to {uses}, whose use of it is not read here: where that is a shape, a "
                  "size, a loop count or a branch (a layer's width, a number of layers), a "
                  "program per value is expected (keep its values few). Keep {name} static "
                  "unless {uses} only computes with it (then drop it from "
                  "static_argnums/static_argnames).",
                  "")


def _as_decorator(snippet: str, name: str, def_line: str) -> str:
    """`snippet`'s lines jitting `name` (`jax.jit(name)`, `jax.jit(name, opts)`) as the
    decorator of its def, for a function the learner jitted with one: re-jitting the
    decorated name would jit the jitted function, its static arguments still static.

        >>> print(_as_decorator("jax.jit(power)    # n traced", "power", "def power(x, n):"))
        @jax.jit    # n traced
        def power(x, n):
        >>> print(_as_decorator("jax.jit(power, static_argnames=('n',))", "power",
        ...                     "def power(x, n):"))
        @functools.partial(jax.jit, static_argnames=('n',))
        def power(x, n):
    """
    head, out = f"jax.jit({name}", []
    for line in snippet.split("\n"):
        rest = line[len(head):] if line.startswith(head) else None
        if rest is None or rest[:1] not in (")", ","):
            out.append(line)
            continue
        depth, end = 1, None            # the `)` closing jax.jit(
        for i, ch in enumerate(rest):
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                end = i
                break
        if end is None:
            out.append(line)
            continue
        options, comment = rest[:end].lstrip(", "), rest[end + 1:]
        decorator = f"@functools.partial(jax.jit, {options})" if options else "@jax.jit"
        out += [decorator + comment, def_line]
    return "\n".join(out)


def for_function(changes, fun, uses_of, decorated_def=None, lambda_line=None) -> tuple:
    """`changes` with their fixes written for `fun`: its own name in the code (`jax.jit(update)`,
    not a generic `f`, which a learner would paste as it is), and a static argument's advice
    by how `fun`'s source uses it (`uses_of(fun, name)`: views/argument_uses.uses), where it
    can be read: traced where it only computes, kept static where it sets a shape or a
    Python branch. `decorated_def(fun)`: the def line of a function jitted by its
    decorator (argument_uses.jit_decorated_def), whose fixes show the decorator;
    `lambda_line(fun)`: a lambda's jit line as the learner wrote it, without its static
    options (argument_uses.jitted_lambda_line), which a lambda's fix writes for `f = jax.jit(f`.

        >>> def update(w, lr):
        ...     return w - lr * w
        >>> from jxkernel.views.argument_uses import uses
        >>> for_function([_fixed("lr", "static", 0.1, 0.05)], update, uses)[0].snippet
        'jax.jit(update)    # lr traced: one program for all its values'
    """
    name = getattr(fun, "__name__", "")
    if name == "<lambda>" and lambda_line is not None:
        line = lambda_line(fun)
        return _for_lambda([_static_kept(c, fun, uses_of, line) for c in changes], line)
    if not name.isidentifier():
        return tuple(changes)
    name = _reachable_name(fun, name)
    out = []
    for change in changes:
        if change.kind == "static" and _generic(change):
            used = uses_of(fun, change.path)     # (a function's or an object's: its own fix)
            if used.found:
                template = _STATIC_STAYS if used.python else \
                    _STATIC_TRACED if used.only_computes else _STATIC_PASSED
                kinds = value_kind(str(change.old)), value_kind(str(change.new))
                if template is _STATIC_TRACED and None not in kinds and kinds[0] != kinds[1]:
                    template = _STATIC_TRACED_KINDS
                change = _refixed(change, template, **_jitting(name),
                                  uses=", ".join(used.python or used.passed),
                                  old_kind=kinds[0], new_kind=kinds[1])
        generic = _JIT_OF.format(**_jitting())
        lines = change.snippet.split("\n")          # (a fix made before `fun` was known:
        if any(line.startswith(generic) for line in lines):     # its jit line, any line)
            named = _JIT_OF.format(**_jitting(name))
            # (its comment names the function too: "# the one jit of f" said `f` of power)
            change = dataclasses.replace(change, snippet="\n".join(
                named + line[len(generic):].replace("the one jit of f:",
                                                    f"the one jit of {name}:")
                if line.startswith(generic) else line for line in lines))
        if change.kind == "constant" and decorated_def is not None:
            change = _constant_passed(change, decorated_def(fun))
        def_line = decorated_def(fun) if decorated_def is not None and \
            f"jax.jit({name}" in change.snippet else None
        if def_line is not None:
            change = dataclasses.replace(change, snippet=_as_decorator(change.snippet, name,
                                                                       def_line))
        if decorated_def is not None and _CALL_OF_F.search(change.snippet) and \
                decorated_def(fun) is not None:
            # a decorated def is called by its own name: `scale(..., factor=factor)`, not a
            # generic `f(...)` (a function jitted as `f_jit = jax.jit(f)` keeps `f`: its
            # jitted name is not known here)
            change = dataclasses.replace(change, snippet=_CALL_OF_F.sub(
                lambda m: m.group(0).replace("f(", f"{name}("), change.snippet))
        out.append(change)
    return tuple(out)


def _static_kept(change, fun, uses_of, line) -> Change:
    """`change`, a jitted lambda's static argument, told to stay static where the lambda's
    source needs it as a Python value or passes it on unread (`lambda x, n: x[:n].sum()`,
    `lambda n: jnp.arange(n)`): its plain code, the lambda jitted with `n` traced, raises
    under JAX 0.10.2 (a slice's bounds, a shape: recompile_audit_reference.json's
    static_n_sliced_in_jit_traced). As it was where the lambda only computes with it (its
    jit line without the static option: _for_lambda) or cannot be read."""
    if change.kind != "static" or not _generic(change):
        return change
    used = uses_of(fun, change.path)
    if not used.found or used.only_computes:
        return change
    # (the lambda by the name its jit line binds, `f`; "the lambda" where none binds it)
    bound = line.split(" = ", 1)[0] if line else "The lambda"
    template = _STATIC_STAYS if used.python else _STATIC_PASSED
    return _refixed(change, template, **_jitting(bound),
                    uses=", ".join(used.python or used.passed))


def _reachable_name(fun, name: str) -> str:
    """The name the learner's code reaches `fun` (named `name`) by: a function of a class's
    body, a staticmethod's (`@staticmethod @jax.jit def apply`) or a method's, is `Model.apply`
    (a bare `apply(...)` or `jax.jit(apply)` is a NameError pasted); `Model.apply` is also
    what `m.apply` calls. Its own name where its class is not a global of its module (a class
    made in a function) or does not hold it under that name.

        >>> class Model:
        ...     @staticmethod
        ...     def apply(x):
        ...         return x
        >>> Model.apply.__globals__["Model"] = Model      # (as a module's class is)
        >>> _reachable_name(Model.apply, "apply")
        'Model.apply'
    """
    owner, _, own = getattr(fun, "__qualname__", "").rpartition(".")
    cls = getattr(fun, "__globals__", {}).get(owner) if owner.isidentifier() else None
    held = vars(cls).get(own) if isinstance(cls, type) and own == name else None
    held = getattr(held, "__func__", held)          # a staticmethod's or classmethod's
    if held is fun or getattr(held, "_fun", None) is fun or \
            getattr(held, "__wrapped__", None) is fun:        # (@jax.jit under it)
        return f"{owner}.{name}"
    return name


def _for_lambda(changes, line: str | None) -> tuple:
    """`changes` of a jitted lambda with their code's `f = jax.jit(f` as the learner's line
    (`step = jax.jit(lambda w, lr: w - lr * w`): the generic `f` is no name in their program.

        >>> c = _fixed("lr", "static", 0.1, 0.05)
        >>> _for_lambda([c], "step = jax.jit(lambda w, lr: w - lr * w")[0].snippet
        'step = jax.jit(lambda w, lr: w - lr * w)    # lr traced: one program for all its values'
    """
    generic = _JIT_OF.format(**_jitting())
    if line is None:
        return tuple(changes)
    name = line.split(" = ", 1)[0]
    return tuple(dataclasses.replace(c, snippet="\n".join(
        line + text[len(generic):].replace("the one jit of f:", f"the one jit of {name}:")
        if text.startswith(generic) else text for text in c.snippet.split("\n")))
        for c in changes)


# a closed-over value's fix in the learner's def (and, by at_the_calls, its call): the value
# a parameter, passed in each call, so that a cache hit reads the value it is called with
# (JAX 0.10.2: pasted_fixes_reference.json's closed_over_value_changes)
_CONSTANT_PASSED = (
    "{name} is closed over: its value when traced is baked into the program. This compile "
    "picked up its new value, while cache hits keep the old one. Pass it as an argument "
    "instead: a parameter of {fun}, and {name} in every call of it, as below (the def line "
    "in place of yours, under its decorator).",
    "{def_line}    # {name} passed in: its value at each call, not the one traced")


def constant_name(change) -> str | None:
    """The name of the closed-over value `change` is of ("w (closed over)": "w"), where it is
    a name the learner's code can pass; else None."""
    name = change.path.removesuffix(" (closed over)")
    return name if change.kind == "constant" and name != change.path and \
        name.isidentifier() else None


def _constant_passed(change, def_line) -> Change:
    """`change`, a closed-over value's, with its fix in the decorated def `def_line` given the
    value as a last parameter (`def f(x, w):`); as it was where that cannot be written (no
    def line, defaults, *args or keyword-only parameters: a call could not pass it last)."""
    name = constant_name(change)
    if name is None or def_line is None:
        return change
    try:
        node = ast.parse(def_line + "\n    pass").body[0]
    except SyntaxError:
        return change
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs or \
            name in [a.arg for a in args.args]:
        return change
    added = ", ".join([a.arg for a in args.args] + [name])
    return _refixed(change, _CONSTANT_PASSED, name=name, fun=node.name,
                    def_line=f"def {node.name}({added}):")


# a fix's generic call of the jitted function, at a line's start (`f(..., n=n)`) or in its
# comment (`# or always f(x=x)`); not `f = ...` nor `jnp.f(`
_CALL_OF_F = re.compile(r"(?m)(?:^|(?<=always ))f\(")


def _generic(change) -> bool:
    """Whether `change` has its kind's plain fix (not one written for its value's kind)."""
    plain = _fixed(change.path, change.kind, change.old, change.new)
    return (change.fix, change.snippet) == (plain.fix, plain.snippet)
