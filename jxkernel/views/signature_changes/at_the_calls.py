"""Fixes written at the learner's call: a weak type or a dtype that changed between two calls
is fixed in the call that passed the odd one (`f(jnp.asarray(1.0, jnp.float32))    # line 5`),
read back from that line (the Signature's `site`). A cast of the parameter, the plain fix,
names no variable at `f(1.0)`; in the function, the type is traced already.

at_the_calls tries the rules of _RULES (the module's last lines: each a name, why it is
there, whether it applies to a change, and its fix) in their order, the first that applies
rewriting the change; the functions between are the rules' fixes and what they read.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import keyword
import linecache
import os
import re
import typing

import numpy as np

from ...core import dtypes as core_dtypes
from ..source import cell_name
from ..source_edits import parse_file, replaced, segment
from .change import _root
from .fixes import PATTERN_SAID, _fixed, _refixed, constant_name
from .input_types import _dtype_name, _shape_of
from .structure import EMPTY_LITERALS


def at_the_calls(changes, jitted, before, now) -> tuple:
    """`changes` with their fixes written at the learner's calls (the Signatures `before` and
    `now`: each `site`, the line that called): each change is rewritten by the first rule of
    _RULES (at the module's end: the one place to read them, in order) that applies, or kept
    as it is; then the codes that give one call several names are joined (_named_once,
    _one_call_given_all), so that pasted in order they make one call.

    The first rule, for one: a weak type flipped at a scalar argument is fixed at the call
    that passed the Python number, that call's line with the number given as an array of the
    other call's dtype, `f(jnp.asarray(1.0, jnp.float32))`. A cast of the parameter (`x =
    jnp.asarray(x, ...)`) changes nothing where the learner wrote `f(1.0)` (it names no
    variable of theirs; in the function, the type is traced already), and `jnp.asarray(1.0)`
    stays weak (JAX 0.10.2: weak_type_calls_reference.json); a line that cannot be read keeps
    the plain fix."""
    out = []
    for c in changes:
        rule = next((r for r in _RULES if r.applies(c)), None)
        out.append(c if rule is None else rule.fix(c, jitted, before, now))
    return _one_call_given_all(_named_once(out), (before, now))


# The comment markers of the codes written at a call, which the joining below reads back:
# _NAMED, a code's first line naming the call's argument (`d = {...}    # line 3's argument,
# named`, _named_at_the_call's); _GIVEN, its call line given that name (`f(d)    # line 3,
# given it`); _GIVEN_LINE, a call line of either writer with its line number (that one, or
# _stacked_at_the_call's `f(jnp.stack(...), b)    # line 5`). Comment lines ("# stack ... so
# too") may follow the call line.
_NAMED = re.compile(r"^.* = .*    # .*'s argument, named$")
_GIVEN = re.compile(r"^.*    # .*, given it$")
_GIVEN_LINE = re.compile(r"^(.*)    # line (\d+)((?:, given it)?)$")


def _one_call_given_all(changes, sigs) -> tuple:
    """`changes` whose codes each give one line's call a name of their own (`loss(self, x1)`
    for self.w, `loss(m, x)` for x: two arguments of the call, each named and padded), the
    last of them giving it all the names, the others none: pasted in order, the line ran
    once per code, each time with one argument named and the other as it was (JAX 0.10.2
    lowers class_method_jitted_self_field_shape_fixed, the call given both, once). So too
    two lists stacked in the call (`f(jnp.stack(...), b_list)` and `f(a_list,
    jnp.stack(...))`: pasted in order, the second call line undid the first's stacking,
    two_list_arguments_at_two_calls). As they are where the line cannot be read or the
    arguments overlap."""
    found = [(i, k, m) for i, c in enumerate(changes)
             for k, line in enumerate(c.snippet.split("\n"))
             for m in [_GIVEN_LINE.match(line)] if m]
    numbers = {m.group(2) for _, _, m in found}
    if len(found) < 2 or len({i for i, _, _ in found}) != len(found) or len(numbers) != 1 or \
            len({m.group(1) for _, _, m in found}) < 2:
        return tuple(changes)
    site = next((sig.site for sig in sigs if getattr(sig, "site", None) is not None and
                 str(sig.site.line) in numbers), None)
    body = None if site is None else linecache.getline(site.file, site.line).strip()
    spans = []
    for _, _, m in found:
        new = m.group(1)
        if body is None or new == body:
            return tuple(changes)
        start = len(os.path.commonprefix([body, new]))
        tail = len(os.path.commonprefix([body[start:][::-1], new[start:][::-1]]))
        spans.append((start, len(body) - tail, new[start:len(new) - tail]))
    spans.sort()
    if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
        return tuple(changes)
    given = body
    for start, end, text in reversed(spans):
        given = given[:start] + text + given[end:]
    out = list(changes)
    for n, (i, k, m) in enumerate(found):
        lines = out[i].snippet.split("\n")
        if n == len(found) - 1:
            lines[k] = f"{given}    # line {m.group(2)}{m.group(3)}"
        else:
            del lines[k]
        out[i] = dataclasses.replace(out[i], snippet="\n".join(lines))
    return _masks_named(out, [i for i, _, _ in found])


# a code's mask of the real rows (structure._LENGTH_FIX's, _stacked_at_the_call's)
_MASK = re.compile(r"(?m)^mask = ")


def _masks_named(changes, joined) -> tuple:
    """`changes` with the codes at the indices `joined` (made one call's by _named_once or
    _one_call_given_all) each giving its mask a name of its own, its list's (`mask_a` for
    a_list passed as a, `mask_b`): each wrote `mask = ...`, and pasted in order the last
    overwrote the others, every list's mask then the last list's rows (wrong where the lists
    differ in length: two_list_arguments_grow_unevenly_pasted_before, whose values JAX 0.10.2
    computes otherwise than the learner's; _fixed, each its own, JAX's)."""
    masked = [i for i in joined if _MASK.search(changes[i].snippet)]
    if len(masked) < 2:
        return tuple(changes)
    words = {i: re.findall(r"\w+", re.sub(r"\[\d+\]$", "", changes[i].path)) for i in masked}
    names = {i: w[-1] if w else str(k) for k, (i, w) in enumerate(words.items())}
    if len(set(names.values())) < len(names):       # (d['a'] and e['a']: each its path)
        names = {i: "_".join(w) or str(k) for k, (i, w) in enumerate(words.items())}
    out = list(changes)
    for i in masked:
        out[i] = dataclasses.replace(out[i], snippet=_MASK.sub(f"mask_{names[i]} = ",
                                                               out[i].snippet))
    return tuple(out)


def _named_once(changes) -> tuple:
    """`changes` whose codes name one argument of one call (a tuple literal's betas[0] and
    betas[1], each `betas = (0.9, 0.999)    # line 2's argument, named` ... `f(betas)    #
    line 2, given it`): named in the first code, called in the last, each code between them
    its own lines alone. Pasted in order as they were, the second naming made betas the
    literal again, undoing the first code's cast (JAX 0.10.2 lowered the two codes so pasted
    three times; once tuple_of_python_floats_then_float32_scalars_fixed, pasted as now).
    The call's line may be followed by comment lines (`# stack the ['a'] of line 3's ... so
    too`, each entry's own): they stay (a dict literal's two lists each stacked, the second
    code naming the literal again undid the first's: dict_literal_two_lists_at_two_calls,
    JAX 0.10.2 lowers its codes pasted so twice, _pasted_before)."""
    lines = [c.snippet.split("\n") for c in changes]
    groups: dict = {}
    given = {}                  # each code's call line: its last line but comments
    for i, code in enumerate(lines):
        given[i] = max((k for k, line in enumerate(code) if not line.startswith("#")),
                       default=0)
        if given[i] >= 2 and _NAMED.match(code[0]) and _GIVEN.match(code[given[i]]):
            groups.setdefault((code[0], code[given[i]]), []).append(i)
    for group in groups.values():
        for k, i in enumerate(group if len(group) > 1 else ()):
            code = lines[i]
            if k < len(group) - 1:
                code = code[:given[i]] + code[given[i] + 1:]
            lines[i] = code[1:] if k > 0 else code
    out = tuple(c if "\n".join(code) == c.snippet else
                dataclasses.replace(c, snippet="\n".join(code))
                for c, code in zip(changes, lines))
    for group in groups.values():       # (each list's mask its own: _masks_named)
        out = _masks_named(out, group if len(group) > 1 else [])
    return out


def _narrower_float(old: str, new: str) -> bool:
    """Whether types `old` and `new` ("bf16[3]", "f32[3]") are floats, `old` of less
    precision: a cast of `new` to it would round."""
    if not all(re.match(r"(bf|f)\d+\[", t) for t in (old, new)):
        return False
    narrow, wide = (core_dtypes.bfloat16 if _dtype_name(t) == "bfloat16" else
                    np.dtype(_dtype_name(t)) for t in (old, new))
    return core_dtypes.finfo(narrow).nmant < core_dtypes.finfo(wide).nmant


def _fed_back(site, jitted, path) -> bool:
    """Whether the call at `site` passes `path` a variable its own statement assigns from
    the call's result (`w, m = f(w, m, g)`): a state the function gave back."""
    found = _argument_at(site, jitted, path)
    if found is None:
        return False
    try:
        statement = ast.parse(linecache.getline(site.file, site.line).strip()).body[0]
    except (SyntaxError, IndexError):
        return False
    targets = [n.id for t in getattr(statement, "targets", ()) for n in ast.walk(t)
               if isinstance(n, ast.Name)]
    return found[1] in targets


def _cast_at_both_calls(change, jitted, before, now, dtype):
    """`change`, a dtype cast to one that neither call passed (int16 for int8, then uint8
    pixels: each holds values the other cannot), written at both calls, each line given its
    argument cast; where the two calls cannot both be read (one line holds both, a line not
    in linecache), the plain fix, said to be a pattern (it names the parameter)."""
    sites = getattr(before, "site", None), getattr(now, "site", None)
    found = [_argument_at(site, jitted, change.path) for site in sites]
    if None in found or sites[0].line == sites[1].line and sites[0].file == sites[1].file:
        return dataclasses.replace(change, fix=change.fix + PATTERN_SAID)
    where = [_line_of(site, sites[1]) for site in sites]
    code = "\n".join(f"{rewritten(f'jnp.asarray({arg}, jnp.{dtype})')}    # {at}"
                     for (_, arg, _, rewritten), at in zip(found, where))
    lines = f"lines {found[0][2]} and {found[1][2]}" if sites[0].file == sites[1].file else \
        " and ".join(where)
    return _refixed(change, _DTYPE_AT_BOTH_CALLS_FIX, dtype=dtype, code=code, lines=lines)


def _python_number(dtype: str) -> str:
    """The Python type whose numbers are weakly typed as `dtype` (a name: "int32").

        >>> _python_number("bfloat16")
        'float'
    """
    return "bool" if dtype == "bool" else "int" if dtype.startswith(("int", "uint")) else \
        "complex" if dtype.startswith("complex") else "float"


# an array made from a Python number at the call, `jnp.array(1.0)`: weak as the number is
_ARRAY_OF = re.compile(r"^((?:jnp|jax\.numpy)\.(?:asarray|array))\(([^,()]+)\)$")


def _weak_value(arg: str, dtype: str, number: bool = False) -> tuple:
    """(what the call passed, in words; the code giving it as a strong `dtype` array) for
    the argument text `arg`: a Python number (written out, or a name the call gave one:
    `number`), or an array made from one without a dtype (`jnp.array(1.0)`, weak too), which
    takes the dtype in its own call.

        >>> _weak_value("0.1", "float32")
        ('the Python number 0.1', 'jnp.asarray(0.1, jnp.float32)')
        >>> _weak_value("jnp.array(1.0)", "float32")[1]
        'jnp.array(1.0, jnp.float32)'
        >>> _weak_value("w", "float32")[0]
        'w, an array made from a Python number without a dtype (weakly typed as the number is),'
    """
    made = _ARRAY_OF.match(arg)
    if made is None and not number and not _number_written(arg):   # (a name, given an array)
        return (f"{arg}, an array made from a Python number without a dtype (weakly typed as "
                "the number is),", f"jnp.asarray({arg}, jnp.{dtype})")
    if made is None:
        return f"the Python number {arg}", f"jnp.asarray({arg}, jnp.{dtype})"
    return (f"{arg}, an array made from a Python number without a dtype (weakly typed as the "
            "number is),", f"{made.group(1)}({made.group(2)}, jnp.{dtype})")


def _number_written(text: str) -> bool:
    """Whether `text` is a number written out (`0.1`, `-2`, `True`), not a name.

        >>> _number_written("-0.5"), _number_written("w")
        (True, False)
    """
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return isinstance(value, (bool, int, float, complex))


# the plain dtype fix's code, `x = jnp.asarray(x, jnp.float32)`: the cast at_the_calls moves
_PLAIN_CAST = re.compile(r"^(.+) = jnp\.asarray\((.+), jnp\.(\w+)\)$")


def _argument_at(site, jitted, path):
    """(the call's text, the argument's text, its line number, a function giving the line
    with the argument replaced by its argument) for the argument `path` (a parameter's name)
    of `jitted` in the call at `site`, the learner's line; None where the call or the
    argument cannot be told (a line not in linecache, two calls there, *args)."""
    if site is None:
        return None
    try:
        params = inspect.signature(jitted._fun).parameters
    except (TypeError, ValueError, AttributeError):
        return None
    # *xs or **kw: no one argument of the call (`f(a, b)` for `def f(*xs)`: xs is not `a`)
    if path not in params or params[path].kind in (inspect.Parameter.VAR_POSITIONAL,
                                                   inspect.Parameter.VAR_KEYWORD):
        return None
    index = list(params).index(path)
    call = _call_at(site, jitted)
    if call is None:
        return None
    if list(params)[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        index -= 1              # obj.step(x): self is not among the call's arguments
    arg = next((k.value for k in call.keywords if k.arg == path), None)
    if arg is None and params[path].kind != inspect.Parameter.KEYWORD_ONLY and \
            not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]) \
            and len(call.args) > index:
        arg = call.args[index]
    if arg is None or arg.lineno != arg.end_lineno:
        return None
    body = linecache.getline(site.file, site.line).strip()
    return (ast.get_source_segment(body, call), segment(body, arg), site.line,
            lambda new: replaced(body, [(arg, new)]))


# calls whose array is longer than the one they are given: an argument made so at the call
# may be a history appended to (input_types._GROWN_STEP_FIX's)
_GROWING_CALLS = {"concatenate", "append", "stack", "hstack", "vstack", "column_stack", "pad"}


def made_anew_at_the_call(jitted, now):
    """A function of a parameter's name: whether the call at `now`'s site makes that argument
    in the call, anew at each call (a slice, `x[:n]`, or a call that grows no array,
    `jnp.arange(n)`), where one a step longer each time is the learner's n, not an array
    appended to: told to pad it (input_types.grown_step_by_step), not to write each step's
    value at its index (a pattern that is no fix of `f(x[:n])`).

        >>> import jxkernel as jax, jxkernel.numpy as jnp
        >>> import types, linecache
        >>> linecache.cache["<anew>"] = (0, None, ["f(x[:n], h)\\n"], "<anew>")
        >>> f = jax.jit(lambda a, b: a.sum() + b.sum())
        >>> now = types.SimpleNamespace(site=types.SimpleNamespace(file="<anew>", line=1,
        ...                                                        column=0))
        >>> anew = made_anew_at_the_call(f, now)
        >>> anew("a"), anew("b")
        (True, False)
    """
    def anew(path) -> bool:
        found = _argument_at(getattr(now, "site", None), jitted, path)
        try:
            node = None if found is None else ast.parse(found[1], mode="eval").body
        except SyntaxError:
            node = None
        if isinstance(node, ast.Subscript):
            return isinstance(node.slice, ast.Slice) or isinstance(node.slice, ast.Tuple) and \
                any(isinstance(e, ast.Slice) for e in node.slice.elts)
        return isinstance(node, ast.Call) and \
            ast.unparse(node.func).rpartition(".")[2] not in _GROWING_CALLS
    return anew


def _unpacked_at(site, jitted, path) -> str | None:
    """The entry of the dict the call at `site` unpacks (`loss(w, **batch)`) that gives the
    parameter `path`: "batch['x']"; None where the call passes it otherwise, or unpacks no
    one dict by a name."""
    try:
        params = inspect.signature(jitted._fun).parameters
    except (TypeError, ValueError, AttributeError):
        return None
    call = _call_at(site, jitted)
    if call is None or path not in params or \
            params[path].kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                      inspect.Parameter.KEYWORD_ONLY):
        return None
    unpacked = [k.value for k in call.keywords if k.arg is None]
    given = any(k.arg == path for k in call.keywords) or \
        any(isinstance(a, ast.Starred) for a in call.args) or \
        len(call.args) > list(params).index(path) - (list(params)[0] in ("self", "cls") and
                                                     isinstance(call.func, ast.Attribute))
    if given or len(unpacked) != 1 or not isinstance(unpacked[0], ast.Name):
        return None
    return f"{unpacked[0].id}[{path!r}]"


def calls_it_by_name(site, jitted) -> bool:
    """Whether the call at `site` calls `jitted` by its own name (`g(x)` for a g that nnx.jit
    jitted, whose signature is the learner's): its arguments are the jit's parameters, which
    a library's own wrapper (Equinox's `fun_wrapped(dynamic, static)`) does not take."""
    call = _call_at(site, jitted)
    return call is not None and \
        ast.unparse(call.func).rpartition(".")[2] == getattr(jitted, "_name", None)


def _call_at(site, jitted):
    """The call of `jitted` (an ast.Call of the stripped line) at `site`, the learner's line;
    None where it cannot be told (a line not in linecache, two calls there)."""
    text = linecache.getline(site.file, site.line)
    indent = len(text) - len(text.lstrip())
    try:
        tree = ast.parse(text.strip())
    except SyntaxError:          # a line of a statement written over several
        return None
    column = site.column
    name = getattr(jitted, "_name", None)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        n.col_offset + indent == column if column is not None
        else ast.unparse(n.func).split(".")[-1] == name)]
    if column is not None and len(calls) > 1:
        # f(x).tolist(): the one calling the function by its name; jax.grad(f)(1.0): the
        # outermost call
        named = [n for n in calls if ast.unparse(n.func).split(".")[-1] == name]
        calls = named if len(named) == 1 else [max(calls, key=lambda n: n.end_col_offset)]
    return calls[0] if len(calls) == 1 else None


def _in_the_callers_names(change, jitted, now, before=None):
    """A fix written before the call in the parameter's name (`n = x.shape[0]` ... for x),
    in the caller's: the variable it passed (`total(v)`: v), or, an expression passed
    (`total(jnp.ones(n))`), that expression named first and the call given the name
    (pasted before the call, the parameter's name was nowhere). As it was where the call
    cannot be read or passes the parameter's own name. A padding fix for a call other than
    the earlier one (`before`'s) says to pad that call's argument too (_pad_the_other_call)."""
    site = getattr(now, "site", None)
    where = None
    if _for_the_earlier_call(change) and _another_call(before, now, jitted):
        # a state made with the array's shape "from the start" (input_types._GROWN_FIX), None
        # made zeros (structure._NONE_ARGUMENT_FIX): at the earlier call, which passed the
        # scalar or the None. Before the later call the argument is the array already, and
        # the earlier call still compiles a program of its own (JAX 0.10.2: two lowerings for
        # scalar_then_array_at_two_calls_pasted_at_the_later_call)
        site = before.site
        where = _line_of(site, now.site)
    # a leaf or node of an argument (`p['b']`) is written in the name of the argument the call
    # passes (`params['b']`): in the parameter's, pasted before the call, it names nothing
    root = dataclasses.replace(change, path=_root(change.path))
    found = None if not _calls_it_by_name(site, jitted) else \
        _argument_at(site, jitted, root.path)
    if found is None:
        # given by `**batch`: the entry of that dict (in the parameter's name, pasted before
        # `loss(w, **batch)`, the code named nothing: batch_unpacked_as_keywords_last_short)
        entry = _calls_it_by_name(site, jitted) and _unpacked_at(site, jitted, root.path)
        return dataclasses.replace(change, snippet=_renamed(change.snippet, root.path,
                                                            entry)) if entry else change
    named = _pad_the_other_call(_named_at_the_call(root, found, where), jitted, before, now,
                                change.path[len(root.path):])
    return dataclasses.replace(named, path=change.path)


def _for_the_earlier_call(change) -> bool:
    """Whether `change`'s code turns what the earlier call passed into what the later one
    did: a scalar made the array's shape (input_types._GROWN_FIX), None made zeros, of an
    array or a container's arrays (structure._NONE_ARGUMENT_FIX, _NONE_HOLDS_ARRAYS_FIX, None
    first). Not another kind of node (None, then `()`: structure._CONTAINER_FIX), whose code
    makes the later call's the earlier kind again."""
    return (change.kind == "shape" and change.fix.startswith(f"{change.path} was a scalar (")) \
        or (change.kind == "dtype" and _entry_cast(change) == _dtype_name(change.new)) \
        or (change.kind == "dtype" and _python_number_cast(change) is not None and
            _python_number(_dtype_name(change.new)) == _python_number_cast(change)) \
        or (change.kind == "weak_type" and change.old.endswith(" (weak)")) \
        or (change.kind == "structure" and change.old == "None" and
            change.fix.startswith(f"{change.path} was None and is {change.new} now: None is "
                                  "an empty pytree and "))


def _python_number_cast(change) -> str | None:
    """The Python type input_types._PY_SCALAR_FIX's code makes `change`'s number
    (`s = float(s)    # always a Python float`: "float"), or None: 1, then 1.0 is cast at the
    earlier call (at the later one, already a float, the int call still compiled its own:
    JAX 0.10.2 lowers python_int_then_python_float_pasted twice)."""
    found = re.search(r"    # always a Python (\w+)$", change.snippet)
    return None if found is None else found.group(1)


def _entry_cast(change) -> str | None:
    """The dtype the plain dtype fix of `change` casts its leaf to (`jnp.asarray(batch['y'],
    jnp.float32)`: "float32"), also once written on a new tuple or object (compare's
    _held_by_a_class); None where its code casts nothing."""
    cast = re.search(rf"jnp\.asarray\({re.escape(change.path)}, jnp\.(\w+)\)", change.snippet)
    return None if cast is None else cast.group(1)


# structure._KEY_FIX's code: the argument given the keys some call lacks, before each call
_DEFAULTS_MERGED = re.compile(r"(?m)^([A-Za-z_]\w*) = \{\*\*defaults, \*\*\1\}")


def _keys_in_the_callers_names(change, jitted, before, now):
    """`change`, a dict argument's keys fix (`p = {**defaults, **p}` before each call), in
    the name the calls pass it by (`params`, for `def loss(p)` called `loss(params)`): in the
    parameter's, pasted before the call, it named nothing (NameError). As it was where a call
    cannot be read or passes no name, or the two calls pass two names."""
    param = _DEFAULTS_MERGED.search(change.snippet).group(1)
    names = set()
    for sig in (before, now):
        site = getattr(sig, "site", None)
        found = None if not _calls_it_by_name(site, jitted) else \
            _argument_at(site, jitted, param)
        arg = None if found is None else found[1]
        if arg is None or not arg.isidentifier() or keyword.iskeyword(arg):
            return change
        names.add(arg)
    if len(names) != 1 or names == {param}:
        return change
    return dataclasses.replace(change, snippet=_renamed(change.snippet, param, names.pop()))


def _another_call(before, now, jitted) -> bool:
    """Whether `before`'s call (a Signature's site) is another line than `now`'s, and one
    that calls `jitted` by name: a fix for it is written there."""
    sites = getattr(before, "site", None), getattr(now, "site", None)
    return None not in sites and \
        (sites[0].file, sites[0].line, sites[0].column) != \
        (sites[1].file, sites[1].line, sites[1].column) and _calls_it_by_name(sites[0], jitted)


def _line_of(site, here) -> str:
    """How a fix written at `here` names `site`'s line: "line 6", or "In[2]:6" in another cell
    or file ("line 6" alone reads as this cell's)."""
    if site.file == here.file:
        return f"line {site.line}"
    return f"{cell_name(site.file) or os.path.basename(site.file)}:{site.line}"


def _pad_the_other_call(change, jitted, before, now, entry=""):
    """`change`'s padding code, for the call at `now`'s site, with a last line naming the
    earlier call (`before`'s, another call of the function: `f(jnp.ones(3))` on the line
    above) whose argument (its `entry`, "['w']", where the padded array is one) needs the same
    padding: padded at one call only, the other's length still compiles a program of its own
    (two compiles, as before the fix)."""
    sites = getattr(before, "site", None), getattr(now, "site", None)
    # a structure's code set "before each" call (structure._KEY_FIX, _EMPTY_KEYS_FIX,
    # _EMPTY_ITEMS_FIX): pasted under the note, at the later call alone, the earlier call's
    # structure still compiles a program of its own
    before_each = change.kind == "structure" and ": before each" in change.snippet
    # a list in an argument stacked (p['layers'] of `f({'layers': [w, w]}, x)`): the other
    # call's list, unstacked, is a structure of its own (JAX 0.10.2: two lowerings for
    # layers_list_in_dict_grows_stacked_at_the_later_call)
    stacked = change.kind == "structure" and _STACKED.search(change.snippet) is not None
    if not (before_each or stacked or change.kind == "shape" and "jnp.pad(" in change.snippet) \
            or \
            None in sites or \
            (sites[0].file, sites[0].line, sites[0].column) == \
            (sites[1].file, sites[1].line, sites[1].column) or \
            not _calls_it_by_name(sites[0], jitted):
        return change
    found = _argument_at(sites[0], jitted, change.path)
    if found is None or (not before_each and _padded_already(change)):
        return change
    arg = found[1]
    if stacked:         # (the list, "['layers']" of the item's "['layers'][1]")
        entry = re.sub(r"\[\d+\]$", "", entry)
        return dataclasses.replace(change, snippet=(
            f"{change.snippet}\n# stack the {entry} of {_line_of(sites[0], sites[1])}'s "
            f"{arg} so too: a list of another length is a program of its own"))
    # a call in another cell (or file) is named by it, "In[2]:6" ("line 6" alone reads as
    # this cell's; never the kernel's file name of the cell)
    where = _line_of(sites[0], sites[1])
    if before_each:     # the node the code sets ("['dense']" of params['dense']), not a leaf
        target = next(line for line in change.snippet.splitlines() if ": before each" in line)
        target = target.partition(" = ")[0]
        entry = target[len(re.match(r"\w*", target).group(0)):]
        return dataclasses.replace(change, snippet=(
            f"{change.snippet}\n# the same before {where}'s call, for its {arg}{entry}: set at "
            "one call alone, the other's structure is a program of its own"))
    return dataclasses.replace(change, snippet=(
        f"{change.snippet}\n# pad {where}'s {arg}{entry} so too: an unpadded length is a "
        "program of its own"))


def _padded_already(change) -> bool:
    """Whether the earlier call's length (`change.old`'s first dimension) is the one
    `change`'s padding code pads it to: a full batch of the 32 rows a partial one is padded
    to, a length of 4 with buckets of 4, 8, ... (that call's program is the padded one's:
    "pad it so too" would claim a program of its own it has not)."""
    dims = re.match(r"\w+\[(\d+)", change.old)
    if dims is None:
        return False
    length = int(dims.group(1))
    rows = re.search(r"\(0, (\d+) - \w+\)", change.snippet)
    bucket = re.search(r"max\((\d+), 1 << \(\w+ - 1\)\.bit_length\(\)\)", change.snippet)
    if rows is not None:
        return int(rows.group(1)) == length
    return bucket is not None and max(int(bucket.group(1)),
                                      1 << (length - 1).bit_length()) == length


def _named_at_the_call(change, found, where=None):
    """`change`'s code in the names of the call `found` (_argument_at's) passes; `where`: how
    its comments name the call's line ("line 6", the default, or "In[2]:6")."""
    _, arg, line, rewritten = found
    if arg == change.path:          # the call passes the parameter's name: the code as it is,
        # said to go before the earlier call where it belongs there (_in_the_callers_names):
        # pasted at the later call, which the note is shown under, it would change nothing
        return change if where is None else \
            dataclasses.replace(change, snippet=f"# before {where}'s call\n{change.snippet}")
    where = where or f"line {line}"
    # the names the code sets (n, size, mask): one the learner's line reads already (a loop's
    # `n` in `total(jnp.ones(n))`) would be overwritten, so it is named after the argument
    # (`n_x`)
    assigned = set(re.findall(r"(?m)^(\w+) = ", change.snippet)) - {change.path}
    for name in sorted(assigned):
        if re.search(rf"\b{name}\b", rewritten(arg)):
            change = dataclasses.replace(change, snippet=_renamed(
                change.snippet, name, f"{name}_{change.path}"))
    # (a name: `None`, `True` are words of Python's, whose line `None = ...` cannot run)
    if arg.isidentifier() and not keyword.iskeyword(arg):
        return dataclasses.replace(change, snippet=_renamed(change.snippet, change.path, arg))
    # the argument named as the parameter, but where the learner's line uses that name
    # already (`x = f(jnp.ones(3)); x = f(x); x = f(jnp.ones(4))`): there the line's earlier
    # calls rebind it before the call reads it, which then gets their result, not the padded
    # argument; so another name (`x_arg`)
    name = change.path
    while name.isidentifier() and re.search(rf"(?<![.\w]){re.escape(name)}\b", rewritten(arg)):
        name += "_arg"
    snippet = change.snippet if name == change.path else \
        _renamed(change.snippet, change.path, name)
    return dataclasses.replace(change, snippet=(
        f"{name} = {arg}    # {where}'s argument, named\n{snippet}\n"
        f"{rewritten(name)}    # {where}, given it"))


def _calls_it_by_name(site, jitted) -> bool:
    """Whether the call of `jitted` read at `site` names it (`total(...)`, `obj.step(...)`):
    not a line another call stands for (IPython's `get_ipython().run_line_magic(...)` of a
    %timeit line), whose arguments are not the function's."""
    call = None if site is None else _call_at(site, jitted)
    if call is None:
        return False
    func = call.func
    # jax.jit(body)(x), a jit made and called on one line (in a function called from cells):
    # its arguments are the function's too
    made_here = isinstance(func, ast.Call) and ast.unparse(func.func) in ("jax.jit", "jit") \
        and func.args and isinstance(func.args[0], ast.Name) and \
        func.args[0].id == getattr(jitted, "_name", None)
    return isinstance(func, ast.Name) or made_here or (
        isinstance(func, ast.Attribute) and func.attr == getattr(jitted, "_name", None))


def _passed_at_the_call(change, jitted, now):
    """A closed-over value's fix (its def given the value as a parameter) with the call at
    `now`'s line passing it last (`y = f(jnp.ones(4), w)    # line 8`); its def line alone
    where the call cannot be read or has keywords or *args."""
    site = getattr(now, "site", None)
    call = None if not _calls_it_by_name(site, jitted) else _call_at(site, jitted)
    if call is None or call.keywords or any(isinstance(a, ast.Starred) for a in call.args) \
            or call.lineno != call.end_lineno:
        return change
    name = constant_name(change)
    body = linecache.getline(site.file, site.line).strip()
    # just before the call's closing parenthesis
    end = (call.end_lineno, call.end_col_offset - 1, call.end_lineno, call.end_col_offset)
    if segment(body, end) != ")":
        return change
    passed = replaced(body, [(end, (", " if call.args else "") + name + ")")])
    return dataclasses.replace(change, snippet=f"{change.snippet}\n{passed}    # line "
                               f"{site.line}: and {name} so in every call")


def _plain_traced(change) -> str:
    """The plain `traced` fix's words for `change` (not an array's: it stays traced)."""
    return _fixed(change.path, "traced", change.old, change.new).fix


# an argument static in one jit of a function and traced in another: the earlier call
# rewritten to call the jit the new call used, the argument passed as that call passes it
# (JAX 0.10.2: one jit called `b(x, 2)` and `b(x, n=2)` traces twice too: by position and
# by keyword are two cache keys; pasted_fixes_reference.json's traced_in_one_jit)
_ONE_JIT_CALLED = (
    "{name} was {old} and is {new} now: two jits of {fun}, {name} static in one and traced "
    "in the other (a static argument is a Python value baked into the program, a traced one "
    "an abstract array), and each traces a program of its own. Call one jit of {fun} "
    "everywhere, {name} passed the same way in every call (by position and by keyword are "
    "two cache keys too): {jit}, as at {line}, in place of {old_line}'s call, as "
    "below; the other jit is then not needed.",
    "{code}    # {old_line}: {jit}, the one jit of {fun}")


def _one_jit_at_the_old_call(change, jitted, before, now):
    """`change`, an argument static in one jit and traced in the other, fixed at the earlier
    call (`before`'s site): called by the name the new call used, the argument passed as
    the new call passes it (`y = b(x, n=2)    # line 6: ...`). As it was where either call
    cannot be read, is not by a plain name, or both name one jit."""
    sites = getattr(before, "site", None), getattr(now, "site", None)
    if None in sites or (sites[0].file, sites[0].line) == (sites[1].file, sites[1].line):
        return change
    old, new = (_call_at(site, jitted) for site in sites)
    if old is None or new is None or not isinstance(old.func, ast.Name) or \
            not isinstance(new.func, ast.Name) or old.func.id == new.func.id or \
            old.lineno != old.end_lineno or not _bound_above(new.func.id, sites[0]):
        return change
    params = _parameters(jitted)
    if params is None:
        return change
    name = change.path
    if name not in params or any(isinstance(a, ast.Starred) for a in old.args + new.args) \
            or any(k.arg is None for k in old.keywords + new.keywords):
        return change
    by_keyword = any(k.arg == name for k in new.keywords)
    if not by_keyword and len(new.args) <= params.index(name):
        return change
    code = _passed_as(sites[0], old, new.func.id, name, params.index(name), by_keyword)
    if code is None:
        return change
    return _refixed(change, _ONE_JIT_CALLED, fun=getattr(jitted, "_name", "f"),
                    jit=new.func.id, line=_line_of(sites[1], sites[1]),
                    old_line=_line_of(sites[0], sites[1]), code=code)


def _bound_above(name, site) -> bool:
    """Whether the file of `site` (a cell, say) binds `name` at its top level above `site`'s
    line: a call there rewritten to call `name` then runs where the file is run again from
    its top (`h = jax.jit(f, ...)` made in a later cell than the call: rewritten, the earlier
    cell raised NameError when the notebook was run again from the start)."""
    tree = parse_file(site.file)
    return tree is not None and any(
        node.lineno < site.line and name in _names_bound(node) for node in tree.body)


def _names_bound(statement) -> set:
    """The names a top-level `statement` binds: its assignments' targets, a def's or class's
    name, an import's names."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).partition(".")[0] for a in statement.names}
    targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t)
            if isinstance(n, ast.Name)}


def _passed_as(site, call, callee, name, index, by_keyword):
    """The line at `site` with its `call` calling `callee` and the argument `name` (the
    `index`th parameter) passed by keyword (`by_keyword`) or by position; None where it
    cannot be moved so (other arguments after it by position, or it is by keyword before
    others are given by position) or the call spans lines. By keyword, `name` and `index`
    may be lists: the arguments moved, the last positional ones."""
    if call.lineno != call.end_lineno:
        return None
    body = linecache.getline(site.file, site.line).strip()
    args = [ast.get_source_segment(body, a) for a in call.args]
    keywords = [(k.arg, ast.get_source_segment(body, k.value)) for k in call.keywords]
    passed = dict(keywords)
    if by_keyword and isinstance(name, list):
        moved = sorted(zip(index, name))            # (in the parameters' order)
        if [i for i, _ in moved] != list(range(len(args) - len(moved), len(args))) or \
                any(n in passed for _, n in moved):
            return None
        keywords += [(n, args[i]) for i, n in moved]
        args = args[:len(args) - len(moved)]
    elif by_keyword and name not in passed:
        if len(args) != index + 1:
            return None
        keywords.append((name, args.pop()))
    elif not by_keyword and name in passed:
        if len(args) != index:
            return None
        args.append(passed[name])
        keywords = [(k, v) for k, v in keywords if k != name]
    text = f"{callee}(" + ", ".join(args + [f"{k}={v}" for k, v in keywords]) + ")"
    return replaced(body, [(call, text)])


# a static argument passed by position in one call and by keyword in another: the call that
# passes it by position given it by keyword (JAX 0.10.2: pasted_fixes_reference.json's
# static_by_position_then_keyword traces once)
_KEYWORD_AT_THE_CALL = (
    "{name} has the same value but came {old} in one call and {new} in the other: how a "
    "static argument is passed is part of the cache key. Pass it the same way every time: "
    "by keyword, as at {line}, in {at}'s call too, as below.",
    "{code}    # {at}: {name} by keyword, as at {line}")


# a traced argument so (structure._KEYWORD_FIX's plain code was `f(x)`, x the function's
# first parameter, whatever moved: JAX 0.10.2 traces pasted_fixes_reference.json's
# argument_by_position_then_keyword once)
_ARGUMENT_BY_KEYWORD_AT_THE_CALL = (
    "{path} came by position in one call and by keyword in the other: which arguments are "
    "keywords is part of the cache key. Pass {it} the same way every time: by keyword, as at "
    "{line}, in {at}'s call too, as below.",
    "{code}    # {at}: {path} by keyword, as at {line}")


def _by_keyword_at_the_call(change, jitted, before, now, template=_KEYWORD_AT_THE_CALL):
    """`change`, a static passed by position in one call and by keyword in the other, fixed
    at the call passing it by position (`y = power(x, n=2)    # line 6: ...`). As it was
    where the calls cannot be read or do not call the function by one plain name."""
    positional, keyword = (before, now) if change.old == "by position" else (now, before)
    sites = getattr(positional, "site", None), getattr(keyword, "site", None)
    if None in sites or (sites[0].file, sites[0].line) == (sites[1].file, sites[1].line):
        return change           # (calls on one line: the plain pattern)
    calls = [_call_at(site, jitted) for site in sites]
    if None in calls or not all(isinstance(c.func, ast.Name) for c in calls) or \
            calls[0].func.id != calls[1].func.id:
        return change
    params = _parameters(jitted)
    if params is None:
        return change
    # (several moved: "scale, x", each given by keyword; the pattern was `f(..., scale,
    # x=scale, x)`, no Python)
    names = change.path.split(", ")
    if not set(names) <= set(params) or \
            any(isinstance(a, ast.Starred) for a in calls[0].args) or \
            any(k.arg is None for k in calls[0].keywords):
        return change
    code = _passed_as(sites[0], calls[0], calls[0].func.id, names,
                      [params.index(n) for n in names], True)
    if code is None:
        return change
    here = now.site
    return _refixed(change, template, line=_line_of(sites[1], here),
                    at=_line_of(sites[0], here), code=code,
                    it="them" if len(names) > 1 else "it")


# an argument left out to its default (a Python number) in one call and passed a number in
# another: the call leaving it out given its default (JAX 0.10.2 traces
# pasted_fixes_reference.json's default_left_out_then_passed, so written, once)
_DEFAULT_AT_THE_CALL = (
    "{path} was {old} and is {new} now: an argument left out (to its default) and one passed "
    "are two different argument structures, each compiled. Pass {path} in every call ({how}, "
    "as {line} passes it): its default, {default}, in {at}'s call, as below.",
    "{code}    # {at}: {path} passed, its default, as {line} passes one")
_PY_KIND = {bool: "bool", int: "i", float: "f"}


def _default_at_the_call(change, jitted, before, now):
    """`change`, an argument left out in one call and passed a Python number in the other,
    fixed at the call leaving it out: given its default by keyword (`y = scale(v,
    factor=2.0)    # line 5: ...`). As it was where the calls cannot be read, the default is
    no number of the passed one's kind, or the passed one is no Python number."""
    left, passed_sig, passed = (before, now, change.new) if change.old == "absent" else \
        (now, before, change.old)
    if passed in EMPTY_LITERALS:
        return _empty_at_the_call(change, jitted, left, passed_sig, EMPTY_LITERALS[passed],
                                  now)
    sites = getattr(left, "site", None), getattr(passed_sig, "site", None)
    if None in sites or not passed.endswith(" (weak)") or _shape_of(passed) != ():
        return change
    try:
        param = inspect.signature(jitted._fun).parameters.get(change.path)
    except (TypeError, ValueError, AttributeError):
        return change
    kind = _PY_KIND.get(type(getattr(param, "default", None)))
    if param is None or kind is None or not passed.startswith(kind):
        return change
    default = repr(param.default)
    # given as the other call gives it: by keyword, or in its place (JAX 0.10.2 keys
    # `s(x, 2.0)` and `s(x, factor=2.0)` apart: default_left_out_then_passed_in_a_later_cell
    # _fixed, by keyword where the later call passed 3.0 by position, compiled twice)
    names = passed_sig.arg_names
    if change.path in names and getattr(jitted, "_static_argnums", None):
        return change       # (a static argument shifts the positions)
    code = _call_given(sites[0], jitted, change.path, keyword=default, positional=(
        names.index(change.path), default) if change.path in names else None)
    if code is None:
        return change
    how = "in its place" if change.path in names else "by keyword"
    return _refixed(change, _DEFAULT_AT_THE_CALL, default=default, how=how,
                    at=_line_of(sites[0], now.site), line=_line_of(sites[1], now.site),
                    code=code)


def _call_given(site, jitted, name, keyword=None, positional=None):
    """The line at `site` with its call of `jitted` given `name` as one more argument:
    `name=keyword`, or `positional` as the next positional one; None where the call spans
    lines, unpacks (*a, **k), passes `name` already, or has not as many positional arguments
    as `positional`'s place (`positional`: (place, text))."""
    call = _call_at(site, jitted)
    if call is None or call.lineno != call.end_lineno or \
            any(isinstance(a, ast.Starred) for a in call.args) or \
            any(k.arg in (None, name) for k in call.keywords):
        return None
    body = linecache.getline(site.file, site.line).strip()
    args = [ast.get_source_segment(body, a) for a in call.args]
    keywords = [f"{k.arg}={ast.get_source_segment(body, k.value)}" for k in call.keywords]
    if positional is not None:
        place, text = positional
        if place != len(args):
            return None
        args.append(text)
    else:
        keywords.append(f"{name}={keyword}")
    return replaced(body, [(call, ast.get_source_segment(body, call.func) + "(" +
                            ", ".join(args + keywords) + ")")])


# an empty value (None, (), [], {}) passed in one call and left out in the other
# (structure._leafless_argument): passed at the call leaving it out as the other call passes
# it, by keyword or in its place. Given its default instead, it would still differ where the
# default is another value, and JAX 0.10.2 keys `f(x, mask=None)` and `f(x)` apart even where
# the default is None (recompile_audit_reference.json's none_by_keyword_then_left_out)
_EMPTY_AT_THE_CALL = (
    "{path} was {old} and is {new} now: an argument left out (to its default) and one passed "
    "are two different argument structures, each compiled, even where the default is the "
    "value passed. Pass {path} in every call, as {line} does: {value} in {at}'s "
    "call, as below.",
    "{code}    # {at}: {path} passed, as {line} passes it")


def _empty_at_the_call(change, jitted, left, passed_sig, value, now):
    """`change` (_default_at_the_call's) where the argument passed is an empty value: written
    at the call `left` leaving it out, given `value` as `passed_sig`'s call gives it (`now`:
    the call the note is under, whose cell the lines are named from). As it was
    where the calls cannot be read, or a static argument shifts the positions."""
    sites = getattr(left, "site", None), getattr(passed_sig, "site", None)
    if None in sites or getattr(jitted, "_static_argnums", None):
        return change
    names = passed_sig.arg_names
    code = _call_given(sites[0], jitted, change.path, keyword=value, positional=(
        names.index(change.path), value) if change.path in names else None)  # (in its place)
    if code is None:
        return change
    return _refixed(change, _EMPTY_AT_THE_CALL, value=value, at=_line_of(sites[0], now.site),
                    line=_line_of(sites[1], now.site), code=code)


# the inputs of a call on another device than the earlier call's: every call's inputs put on
# one device before it, in the caller's names. Committed there, the earlier call's too: an
# array put on cpu:0 is committed, the earlier call's uncommitted one is not, and JAX 0.10.2
# compiles each of those anew (pasted_fixes_reference.json's device_changed: v alone put back
# compiled twice; both calls' inputs put, once)
_ON_ONE_DEVICE = (
    "The {path} changed ({old} -> {new}): a compiled program runs on one device, and each "
    "device compiles one of its own (an array put on a device with jax.device_put is "
    "committed to it, and a committed array and one left on the default device compile "
    "apart too). Keep the inputs on one device: put {names} on {old} before each call, as "
    "below (each line before the line it names).",
    "{code}")


# an argument committed to the device in one call and not in the other: every call's
# arguments committed there (JAX 0.10.2: one program; compile_level_reference.json's
# committed_named_calls_pasted)
_COMMITTED_AT_THE_CALLS = (
    "{path} was {old} and is {new} now: an array put on a device with jax.device_put (or "
    "computed from one) is committed to it, one jax made on the default device is not, and "
    "JAX compiles a program for each (its log's \"Compiling jit(...)\" line maps a committed "
    "argument to its SingleDeviceSharding, an uncommitted one to UnspecifiedValue): the same "
    "trace, compiled again. Give every call's arguments the same placement: put {names} on "
    "{device} before each call, as below (each line before the line it names).",
    "{code}")


def _on_one_device(change, jitted, before, now, template=None, index=None, **more):
    """`change`, the device of a call's inputs changed (or an input committed to it in one
    call only: `template`, on the device `index`), fixed before both calls in their
    arguments' names (`x = jax.device_put(x, jax.devices()[0])    # before line 5`, then
    v's before line 7): the plain fix named an `x` the learner's call need not pass. As it
    was where a call cannot be read or passes anything but plain names."""
    lines, names = [], []
    index = int(change.old.rpartition(":")[2]) if index is None else index
    for sig in (before, now):
        site = getattr(sig, "site", None)
        call = None if not _calls_it_by_name(site, jitted) else _call_at(site, jitted)
        if call is None or not call.args or call.keywords or \
                not all(isinstance(a, ast.Name) for a in call.args):
            return change
        for n in dict.fromkeys(a.id for a in call.args):
            lines.append(f"{n} = jax.device_put({n}, jax.devices()[{index}])    # before "
                         f"{_line_of(site, now.site)}")
            names.append(n)
    return _refixed(change, template or _ON_ONE_DEVICE, names=", ".join(dict.fromkeys(names)),
                    code="\n".join(dict.fromkeys(lines)), **more)     # (one line: once)


def bound_where_called(changes, jitted, now) -> tuple:
    """`changes` whose code jits the function without a name to call it by (`jax.jit(scale)`,
    for_function's, of a function jitted by name), bound to the name the learner calls it
    by at `now`'s call (`scale_jit = jax.jit(scale)`): pasted over their
    `scale_jit = jax.jit(scale, static_argnums=1)`, the bare expression left scale_jit
    undefined. A call that cannot be read (or not by a plain name) leaves them as they are.
    """
    site = getattr(now, "site", None)
    call = None if site is None else _call_at(site, jitted)
    if call is None or not isinstance(call.func, ast.Name):
        return tuple(changes)
    bind = call.func.id + " = "
    return tuple(dataclasses.replace(c, snippet="\n".join(
        bind + line if line.startswith("jax.jit(") else line
        for line in c.snippet.split("\n"))) for c in changes)


# a list's length fix (structure._LENGTH_FIX), of an argument or of an entry in one
# (`p['layers']`): its rows' zeros
_STACKED = re.compile(r"^(\w+(?:\[[^\]\n]+\])*) = "
                      r"jnp\.stack\(list\(\1\) \+ \[(jnp\.zeros\(.*\))\] \* \(MAX - n\)\)$", re.M)


def _entry_by_its_name(change, jitted, now):
    """`change`'s code with its list (`p['layers']` of the item `p['layers'][2]`) in the name
    the call's dict literal gives that entry (`{'layers': layers}`, `dict(layers=layers)`:
    `layers`); as it is where the call passes no such literal."""
    listed = re.sub(r"\[\d+\]$", "", change.path)
    key = re.fullmatch(r"\w+\[('[^'\\]*'|\"[^\"\\]*\")\]", listed)
    found = _argument_at(getattr(now, "site", None), jitted, _root(change.path))
    if key is None or found is None:
        return change
    try:
        arg = ast.parse(found[1], mode="eval").body
    except SyntaxError:
        return change
    key = ast.literal_eval(key.group(1))
    if isinstance(arg, ast.Dict):
        values = [v for k, v in zip(arg.keys, arg.values)
                  if isinstance(k, ast.Constant) and k.value == key]
    elif isinstance(arg, ast.Call) and ast.unparse(arg.func) == "dict" and not arg.args:
        values = [k.value for k in arg.keywords if k.arg == key]
    else:
        return change
    if len(values) != 1 or not isinstance(values[0], ast.Name):
        return change
    return dataclasses.replace(change, snippet=change.snippet.replace(listed, values[0].id))


def _stacked_at_the_call(change, jitted, now, before=None):
    """`change`, a list argument's length fix, written in the call that passed the list
    (`total(jnp.stack(list(xs) + [...] * (MAX - len(xs))))    # line 7`): the plain fix's
    `xs = jnp.stack(...)` before the call made the learner's list an array, and a loop
    appending to it (`xs.append(...)`) failed at its next pass. A call that cannot be read
    keeps the plain fix. The earlier call on another line (`before`'s) is named in a last
    line: stacked at one call only, the other's list still compiles a program of its own
    (JAX 0.10.2: two lowerings for list_length_at_two_calls_stacked_at_the_later_call)."""
    param = re.sub(r"\[\d+\]$", "", change.path)
    found = _argument_at(getattr(now, "site", None), jitted, param)
    if found is None:
        return change
    call, arg, line, rewritten = found
    zeros = _STACKED.search(change.snippet).group(2)
    stacked = f"jnp.stack(list({arg}) + [{zeros}] * (MAX - len({arg})))"
    other = _argument_at(before.site, jitted, param) \
        if _another_call(before, now, jitted) else None
    also = "" if other is None else \
        f"\n# stack {_line_of(before.site, now.site)}'s {other[1]} so too: a list of " \
        "another length is a program of its own"
    return dataclasses.replace(
        change,
        fix=change.fix + f" Stacked in the call at line {line} ({call}), {arg} stays a list "
        "(appending to it goes on working).",
        snippet="MAX = 8                              # the most items a call has\n"
                f"mask = jnp.arange(MAX) < len({arg})    # which rows are real: pass it too\n"
                f"{rewritten(stacked)}    # line {line}" + also)


# the weak side a Python number at a call the learner wrote: an array of the other call's dtype
# there (JAX 0.10.2 traces weak_type_calls_reference.json's pasted programs once)
_WEAK_NOW_FIX = (
    "{path} was a strong {dtype} array in an earlier call and is weakly typed now: "
    "{what} in {call} ({line}). Two types, a trace each. A cast of {path} "
    "inside {fun} changes nothing (the type is the argument's), and jnp.asarray({arg}) "
    "alone stays weak (weak types: "
    "https://docs.jax.dev/en/latest/type_promotion.html#weak-types). Give that call "
    "{a_dtype} array: {cast} in place of {arg}, as below.",
    "{code}    # {line}")
_WEAK_BEFORE_FIX = (
    "{path} was weakly typed in an earlier call, {what} in {call} ("
    "{line}), and is a strong {dtype} array now: two types, a trace each. A cast of {path} "
    "inside {fun} changes nothing (the type is the argument's), and jnp.asarray({arg}) "
    "alone stays weak (weak types: "
    "https://docs.jax.dev/en/latest/type_promotion.html#weak-types). Give that call "
    "{a_dtype} array: {cast} in place of {arg}, as below.",
    "{code}    # {line}")
# (int8 then uint8: neither holds the other's values, uint8's 200 cast to int8 is -56; both
# cast to int16 at their calls, JAX 0.10.2 compiles once: int8_then_uint8_at_two_calls_fixed)
_DTYPE_AT_BOTH_CALLS_FIX = (
    "{path} came as {new} (before: {old}), and every dtype compiles anew. Neither dtype holds "
    "all of the other's values, so cast it to {dtype}, which holds both, at both calls "
    "({lines}): a cast of {path} inside the function changes nothing (the type is the "
    "argument's).",
    "{code}")
_DTYPE_AT_CALL_FIX = (
    "{path} came as {new} (before: {old}): {arg} in {call} ({line}) is not {dtype}, "
    "and every dtype compiles anew. A cast of {path} inside {fun} changes nothing (the "
    "type is the argument's). Cast it at that call so that every call has one dtype: "
    "{cast} in place of {arg}, as below.",
    "{code}    # {line}")


# (bfloat16, then float32 data: float32 holds every bfloat16 value, so the earlier call is cast
# up; bfloat16 would round the float32 call's values, said where it is the reading left)
_DTYPE_WIDENED_AT_CALL_FIX = (
    "{path} came as {new} (before: {old}): {arg} in {call} ({line}) is not {dtype}, "
    "and every dtype compiles anew. A cast of {path} inside {fun} changes nothing (the "
    "type is the argument's). {dtype} holds every {old_dtype} value exactly, while a cast "
    "to {old_dtype} would round the {dtype} call's values (cast that call to {old_dtype} "
    "instead only where {old_dtype} is meant, as in mixed precision). Cast it at that call "
    "so that every call has one dtype: {cast} in place of {arg}, as below.",
    "{code}    # {line}")
# (a bfloat16 state that the function returns as float32, `m = 0.9 * m + 0.1 * g` with g
# float32: cast back at the call, as the learner made it; JAX 0.10.2 compiles it once,
# optimizer_state_dtype_promotes_fixed)
_DTYPE_FED_BACK_FIX = (
    "{path} came as {new} (before: {old}): {arg} in {call} ({line}) is what {fun} "
    "gave back for it, promoted to {new_dtype} (a {old_dtype} value computed with a "
    "{new_dtype} one is {new_dtype}), and every dtype compiles anew. The cast below rounds "
    "its values to {old_dtype}, the dtype it started as (to keep {new_dtype}, start it as "
    "{new_dtype} instead). Cast it back at that call so that every call has one dtype: "
    "{cast} in place of {arg}, as below.",
    "{code}    # {line}")


def _renamed(code: str, old: str, new: str) -> str:
    """`code` with the variable `old` called `new`: not inside a string (a mesh axis named
    like the parameter, `PartitionSpec(reduced={'x'})`) nor as an attribute (`obj.x`).

    >>> _renamed("x = jax.device_put(x, P(reduced={'x'}))  # x's split", "x", "b")
    "b = jax.device_put(b, P(reduced={'x'}))  # b's split"
    """
    strings = r"'(?:[^'\\\n]|\\.)*'" + "|" + r'"(?:[^"\\\n]|\\.)*"'
    pattern = rf"({strings})|(?<![.\w]){re.escape(old)}\b"
    return re.sub(pattern, lambda m: m.group(1) if m.group(1) is not None else new, code)


def _parameters(jitted) -> list | None:
    """The jitted function's parameter names, or None where its signature cannot be read."""
    try:
        return list(inspect.signature(jitted._fun).parameters)
    except (TypeError, ValueError, AttributeError):
        return None


# at_the_calls' rules (last in the module: the table names the functions above)
class _Rule(typing.NamedTuple):
    """A rule of at_the_calls: its `name`, `why` it is there (one line), whether it
    `applies` to a change (`applies(change)`), and its `fix(change, jitted, before, now)`,
    the change with its fix written at the calls (or as it was, where they cannot be read)."""
    name: str
    why: str
    applies: typing.Callable
    fix: typing.Callable


def _weak_scalar_flipped(c) -> bool:
    return c.kind == "weak_type" and c.new.endswith(" (weak)") != c.old.endswith(" (weak)") \
        and _shape_of(c.new) == () and c.path == _root(c.path)


def _weak_scalar_at_the_call(c, jitted, before, now):
    """The weak side's call given the number as an array of the other call's dtype."""
    weak_now = c.new.endswith(" (weak)")
    sig, dtype = (now, _dtype_name(c.old)) if weak_now else (before, _dtype_name(c.new))
    return _written_at(c, jitted, sig, _WEAK_NOW_FIX if weak_now else _WEAK_BEFORE_FIX, dtype,
                       now=now)


def _list_item_path(c) -> str:
    """The list an item's path is in ("xs" of "xs[2]"), the path itself if it is none."""
    return re.sub(r"\[\d+\]$", "", c.path)


def _by_keyword_then_position(c) -> bool:
    return c.kind == "structure" and {c.old, c.new} == {"by keyword", "by position"} and \
        c.fix.startswith((f"{c.path} has the same value but came ",
                          "The same argument came by position in one call"))


def _committed_on_one_device(c, jitted, before, now):
    device = c.new if c.new != "uncommitted" else c.old
    return _on_one_device(c, jitted, before, now, _COMMITTED_AT_THE_CALLS,
                          int(device.rpartition(":")[2]), device=device.rpartition(" ")[2])


def _entry(c) -> bool:
    """Whether `c` is of an entry of an argument the call names (`batch['y']`, `t[0]`)."""
    return c.path != _root(c.path) and _root(c.path).isidentifier()


def _own_cast(c):
    """The plain dtype fix's cast of the parameter itself (`x = jnp.asarray(x, jnp.int16)`,
    _PLAIN_CAST's match), or None."""
    cast = _PLAIN_CAST.match(c.snippet) if c.kind == "dtype" else None
    return cast if cast is not None and cast.group(1) == cast.group(2) == c.path else None


def _cast_at_one_call(c, jitted, before, now):
    """The cast at the call whose dtype is not the one cast to: the new call's (int32 data
    after float32), or the earlier one's (float32 after int32). The earlier call's lower
    precision cast up (bfloat16, then float32) is lossless, unless the new value is what the
    function gave back for its bfloat16 state (`w, m = f(w, m, g)`), which is cast back,
    rounded. The other call's Python number (weak): a strong array here is a type of its own
    too (True cast to an int32 array, then 2: JAX 0.10.2 traces twice), so the number here is
    made a Python number of that kind (bool_then_int_fixed)."""
    dtype = _own_cast(c).group(3)
    sig = before if _dtype_name(c.new) == dtype else now
    template = _DTYPE_AT_CALL_FIX
    if sig is before and _narrower_float(c.old, c.new):
        template = _DTYPE_WIDENED_AT_CALL_FIX
        if _fed_back(getattr(now, "site", None), jitted, c.path):
            sig, dtype, template = now, _dtype_name(c.old), _DTYPE_FED_BACK_FIX
    as_number = (c.new if sig is before else c.old).endswith(" (weak)")
    return _written_at(c, jitted, sig, template, dtype, as_number, now=now)


def _written_at(c, jitted, sig, template, dtype, as_number=False, *, now):
    """`c` with `template` (a fix at one call) written at the call of `sig` (its `site`): the
    argument there given as `dtype` (an array of it; a Python number of its kind where
    `as_number`), its line named from `now`'s cell (the note's); as it was where that call
    cannot be read."""
    found = _argument_at(getattr(sig, "site", None), jitted, c.path)
    if found is None:
        return c
    call, arg, line, rewritten = found
    what, cast = _weak_value(arg, dtype, c.path in sig.numbers)
    if c.kind == "dtype" and as_number:
        cast = f"{_python_number(dtype)}({arg})"
    line = _line_of(sig.site, now.site) if getattr(now, "site", None) else f"line {line}"
    return _refixed(c, template, fun=getattr(jitted, "_name", "f"), call=call, arg=arg,
                    line=line, dtype=dtype, what=what, cast=cast, code=rewritten(cast),
                    old_dtype=_dtype_name(c.old), new_dtype=_dtype_name(c.new))


# a Python number written in the earlier call (`f(4.)`, `f(24)`), an array in the later one
# (Common Gotchas' jit(impure_print_side_effect)(jnp.array([5.])), control-flow's
# jax_check_positive_even(x)): two calls, not a state started as 0.0 and fed back. The grown
# state's code made the earlier call's number an array (`x = jnp.broadcast_to(...)`): its result
# changed (True, then [True True True]), and where a third call passes a number again (the
# Gotchas' 5.) JAX 0.10.2 compiles twice all the same (tutorial_notes4_reference.json)
_NUMBER_THEN_ARRAY_FIX = (
    "{path} was a scalar ({old}: the number {number} written in the call at {line}) and is an "
    "array now ({new}): a number and an array are two shapes, each compiled, as in JAX, and "
    "making the number an array would change what that call computes. Nothing to fix where "
    "both calls are meant: a compile for each is expected.",
    "")


def _number_written_then_array(c, jitted, before, now):
    """`c` told without code where the earlier call (`before`'s site) passed a number
    written in the call (`f(4.)`, `f(-1)`) and the later call is not given what it returned:
    that call is no state to make an array from the start. Otherwise the next rule's fix, the
    grown state's code in the caller's names (which this rule's test implies applies)."""
    site, here = getattr(before, "site", None), getattr(now, "site", None)
    found = None if site is None or here is None or not _calls_it_by_name(site, jitted) \
        else _argument_at(site, jitted, c.path)
    if found is None:
        return _callers_names(c, jitted, before, now)
    try:
        number = ast.literal_eval(found[1])
    except (ValueError, SyntaxError):
        return _callers_names(c, jitted, before, now)
    if isinstance(number, bool) or not isinstance(number, (int, float, complex)):
        return _callers_names(c, jitted, before, now)
    # `v = momentum(0.0, g)`, then `momentum(v, g)`: the later call is given what the earlier
    # returned, a state started as a number (the grown state's fix stays)
    later = _argument_at(here, jitted, c.path)
    if later is None or later[1] in _assigned_by(site):
        return _callers_names(c, jitted, before, now)
    return _refixed(c, _NUMBER_THEN_ARRAY_FIX, number=found[1], line=_line_of(site, here))


def _assigned_by(site) -> set:
    """The names the statement at `site` (a one-line assignment of a call) binds: {"v"} for
    `v = momentum(0.0, g)`, {"w", "state"} for `w, state = step(...)`; empty otherwise."""
    try:
        tree = ast.parse(linecache.getline(site.file, site.line).strip())
    except SyntaxError:
        return set()
    return {n.id for statement in tree.body if isinstance(statement, (ast.Assign, ast.AnnAssign))
            for target in getattr(statement, "targets", [getattr(statement, "target", None)])
            for n in ast.walk(target) if isinstance(n, ast.Name)}


def _callers_names(c, jitted, before, now):
    return _in_the_callers_names(c, jitted, now, before)


# in the order they are tried: a change gets the first that applies
_RULES = (
    _Rule("weak scalar at the call",
          "a cast of the parameter names nothing at `f(1.0)`: the call gets the array",
          _weak_scalar_flipped, _weak_scalar_at_the_call),
    _Rule("list stacked in the call",
          "`xs = jnp.stack(...)` before the call broke the loop appending to xs",
          lambda c: c.kind == "structure" and _STACKED.search(c.snippet) is not None and
          _list_item_path(c).isidentifier(),
          lambda c, jitted, before, now: _stacked_at_the_call(c, jitted, now, before)),
    _Rule("grown list in a dict the call makes",
          "the pattern in the list's own name, which the loop appends to (not p['layers'])",
          lambda c: c.kind == "structure" and
          c.snippet.startswith("# n_steps: how many steps") and _entry(c),
          lambda c, jitted, before, now: _entry_by_its_name(c, jitted, now)),
    _Rule("list inside an argument stacked",
          "`f({'layers': [w, w]}, x)`: its literal named first; `p` is no name of the program",
          lambda c: c.kind == "structure" and _STACKED.search(c.snippet) is not None and
          _root(c.path).isidentifier(),
          _callers_names),
    _Rule("by keyword, then by position",
          "two cache keys: the one call written as the other",
          _by_keyword_then_position,
          lambda c, jitted, before, now: _by_keyword_at_the_call(
              c, jitted, before, now, _KEYWORD_AT_THE_CALL if c.fix.startswith(c.path)
              else _ARGUMENT_BY_KEYWORD_AT_THE_CALL)),
    _Rule("argument left out, then passed",
          "the call that left it out given its default",
          lambda c: c.kind == "structure" and "absent" in (c.old, c.new) and c.fix.startswith(
              f"{c.path} was {c.old} and is {c.new} now: an argument left out"),
          _default_at_the_call),
    _Rule("input on another device",
          "each call's arguments put on one device, in the calls' names",
          lambda c: c.kind == "config" and c.fix.startswith(f"The {c.path} changed (") and
          re.fullmatch(r"\w+:\d+", c.old) is not None,
          _on_one_device),
    _Rule("committed in one call only",
          "each call's arguments put on the device before it (one compile, as in JAX)",
          lambda c: c.kind == "committed" and c.fix.startswith(f"{c.path} was {c.old} and is "),
          _committed_on_one_device),
    _Rule("static in one jit, traced in another",
          "the earlier call calls the one jit, passing it as the other does",
          lambda c: c.kind == "traced" and c.fix == _plain_traced(c),
          _one_jit_at_the_old_call),
    _Rule("closed-over value passed in",
          "the def given it as a parameter: the call passes it too",
          lambda c: c.kind == "constant" and bool(constant_name(c)) and
          c.snippet.startswith("def "),
          lambda c, jitted, before, now: _passed_at_the_call(c, jitted, now)),
    _Rule("a number written in the earlier call, then an array",
          "`f(4.)`, then `f(jnp.array([5.]))`: two calls, not a state grown (no code to paste)",
          lambda c: c.kind == "shape" and c.path.isidentifier() and
          c.fix.startswith(f"{c.path} was a scalar (") and c.snippet.endswith("# from the start"),
          _number_written_then_array),
    _Rule("padding or structure code in the caller's names",
          "the parameter's name pasted at `f(jnp.ones(4))` named nothing there",
          lambda c: c.kind in ("shape", "structure") and _root(c.path).isidentifier() and
          re.search(rf"(?m)^({re.escape(c.path)}|{re.escape(_root(c.path))}) = ",
                    c.snippet) is not None,       # (p.b's as `p = p._replace(b=...)`)
          _callers_names),
    _Rule("keys merged in the caller's names",
          "`params = {**defaults, **params}` in the names each call passes",
          lambda c: c.kind == "structure" and _DEFAULTS_MERGED.search(c.snippet) is not None,
          _keys_in_the_callers_names),
    _Rule("Python number of another kind in the caller's names",
          "`c = float(c)` pasted at `shift(x, 1)` named nothing (a literal was passed)",
          lambda c: c.kind == "dtype" and c.path.isidentifier() and re.match(
              rf"{c.path} = (float|int|bool|complex)\({c.path}\)    # always a Python ",
              c.snippet) is not None,
          _callers_names),
    _Rule("an entry's Python number of another kind in the caller's names",
          "`t = (float(t[0]),) + t[1:]`: at `f((1, 2))`, `t` named nothing",
          lambda c: c.kind == "dtype" and _entry(c) and _python_number_cast(c) is not None,
          _callers_names),
    _Rule("a static's one type in the caller's names",
          "`mode = Mode(mode)`: at `f(x, 1)` the parameter's name named nothing",
          lambda c: c.kind == "static" and c.path.isidentifier() and re.fullmatch(
              rf"{c.path} = [\w.]+\({c.path}\)    # one type in every call",
              c.snippet) is not None,
          _callers_names),
    _Rule("an entry's cast in the caller's names",
          "at the call whose dtype is not the one cast to (pasted at the later: 2 lowerings)",
          lambda c: c.kind == "dtype" and _entry(c) and
          _entry_cast(c) in (_dtype_name(c.old), _dtype_name(c.new)),
          _callers_names),
    _Rule("an entry's weak number in the caller's names",
          "hp['lr'] 0.1, then a schedule's float32: cast where the weak call passed it",
          lambda c: c.kind == "weak_type" and _entry(c) and _entry_cast(c) is not None,
          _callers_names),
    _Rule("a dtype neither call had, at both calls",
          "int16 for int8 and uint8: each call's argument cast before it",
          lambda c: _own_cast(c) is not None and
          _own_cast(c).group(3) not in (_dtype_name(c.old), _dtype_name(c.new)),
          lambda c, jitted, before, now: _cast_at_both_calls(c, jitted, before, now,
                                                             _own_cast(c).group(3))),
    _Rule("a cast at the call of the other dtype",
          "the parameter's cast is in the function's names: the call's argument is cast",
          lambda c: _own_cast(c) is not None,
          _cast_at_one_call),
)
