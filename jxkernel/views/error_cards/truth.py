"""The card for an array of many booleans where Python needs one True or False: `if x > 0:`
of a vector, `a and b` of arrays, Python's max(v, 0.0) of a vector, `assert x > 0` of a vector
(jnp.all of its test, in checkify.check where traced) (NumPy's ValueError, which JAX raises as
NumPy does, traced or not). And two lines of the bool-conversion card (a traced
value's True or False under jit): an `assert` on it, as checkify's check, `bool(...)` of it
kept traced, and a comprehension filtering a traced vector on its values."""
from __future__ import annotations

import ast
import linecache

from ...core.trace import Tracer
from .card import ErrorCard
from .checks import _checked_rewrite
from .conversions import _traced_calls
from .reading import _learners_frames, _location, _user_frame
from ..source_edits import parse_file
from .rewrites import (_branch_rewrite, _logical_rewrite, _node_at, _parse_line, _pattern,
                       _python_math_rewrite, _simple_if, _traced_test, _while_loop_rewrite)

_AMBIGUOUS = "The truth value of an array with more than one element is ambiguous"


def _is_truth_value(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith(_AMBIGUOUS)


def _truth_value_card(exc, where, called_from) -> ErrorCard:
    node = _node_at(where)
    asserted = _vector_assert_card(exc, where) if node is None else None
    if asserted is not None:
        return asserted
    builtin = _python_math_rewrite(where) if node is None else ""
    if builtin:
        why = ("Python's max() and min() pick with a comparison (a > b), which must give one "
               "True or False; of arrays with several elements it gives one per element.")
        rewrite = f"{builtin}    # elementwise: one result per element"
    else:
        why = ("Python's if, while, and, or and not need one True or False, and this array "
               "holds one per element: which one decides is ambiguous.")
        rewrite = _per_element(node)
        if isinstance(node, ast.While) and _traced_names(node.test, exc):
            # (jnp.all of a traced test is one traced bool: Python's while still asks it for
            # True or False, TracerBoolConversionError under JAX 0.10.2 too)
            rewrite = _traced_while(node)
    none = _none_test(node, where)
    if none:
        why += _NONE_WHY
        rewrite = f"{none}\n# or, for its values element by element:\n{rewrite}"
    return ErrorCard(
        "truth-value", "An array of booleans where Python needs one",
        why=why,
        fix=("A choice per element: jnp.where(cond, a, b) (jnp.maximum / jnp.minimum for "
             "max and min, jnp.logical_and / logical_or for and and or). One answer for the "
             "whole array: jnp.all(cond) (every element) or jnp.any(cond) (at least one)."),
        rewrite=rewrite, docs=None)


def _traced_while(loop) -> str:
    """A `while` over a traced array's test, as lax.while_loop of jnp.all of the test."""
    return _while_loop_rewrite(loop, f"jnp.all({_traced_test(loop.test)})",
                               ": every element (jnp.any: at least one)")


def _traced_names(test, exc) -> list:
    """The names in `test` that hold traced values in the user's frame (under jit, grad or
    vmap), in order."""
    frame = _user_frame(exc)
    names = {**frame.f_globals, **frame.f_locals} if frame is not None else {}
    return [n.id for n in ast.walk(test) if isinstance(n, ast.Name) and
            isinstance(names.get(n.id), Tracer)]


def _vector_assert_card(exc, where) -> ErrorCard | None:
    """`assert x > 0` of a vector x: one bool per element where assert needs one. The card
    gave jnp.where(cond, a, b) "per element", no fix of an assert. Every element checked:
    jnp.all of the test; where x is traced (jit), a traced bool is no Python True or False
    either (JAX 0.10.2: TracerBoolConversionError for `assert jnp.all(x > 0)`), and
    checkify.check takes one bool ("check takes a scalar pred" for `x > 0`): checkify.check
    of jnp.all, the call checkified (JAX 0.10.2, pasted: the values for a positive x, "x must
    be positive (`check` failed)" raised for [-1, 0, 1]). None where the line is no assert."""
    tree = _parse_line(where)
    stmt = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    if not isinstance(stmt, ast.Assert):
        return None
    test = ast.get_source_segment(where["code"], stmt.test) or ast.unparse(stmt.test)
    traced = _traced_names(stmt.test, exc)
    why = (f"assert needs one True or False, and {test} holds one per element: which one "
           f"decides is ambiguous.")
    if traced:
        why += (f" jnp.all({test}) is one bool, but {traced[0]} is traced (its values are not "
                f"known while tracing), so assert cannot read it either.")
        fix = (f"Check every element inside the program: checkify.check(jnp.all({test}), "
               f"message) (from jax.experimental import checkify; check takes one bool, not "
               f"one per element), and call the jitted function through checkify.checkify: "
               f"err.throw() raises the message where a check failed (jnp.any: at least one "
               f"element).")
        rewrite = _assert_rewrite(where, exc, every=True)
    else:
        fix = (f"jnp.all({test}): every element holds (jnp.any: at least one); assert reads "
               f"that one bool.")
        rewrite = (f"{where['code'].replace(test, f'jnp.all({test})', 1)}    # every element "
                   f"(jnp.any: at least one)")
    return ErrorCard("truth-value", "An assert on an array of booleans", why=why, fix=fix,
                     rewrite=rewrite,
                     docs="https://docs.jax.dev/en/latest/debugging/checkify_guide.html"
                     if traced else None)


def _per_element(node) -> str:
    """The user's `if`, conditional expression or `and`/`or` made elementwise, with the whole-
    array alternative; a template where the line is none of these."""
    one = "# or, one answer for the whole array: jnp.all({}) (every element) or jnp.any({})"
    if isinstance(node, ast.BoolOp):
        return _logical_rewrite(node)
    if isinstance(node, ast.IfExp):
        test = ast.unparse(node.test)
        new = f"jnp.where({test}, {ast.unparse(node.body)}, {ast.unparse(node.orelse)})"
        stmt = getattr(node, "_statement", None)
        whole = ast.unparse(stmt) if stmt is not None else ""
        line = whole.replace(ast.unparse(node), new, 1) if ast.unparse(node) in whole else new
        return f"{line}    # per element\n{one.format(test, test)}"
    if isinstance(node, (ast.If, ast.While)):
        test = ast.unparse(node.test)
        simple = _simple_if(node) if isinstance(node, ast.If) else None
        if simple is not None:
            head, a, b = simple
            return f"{head}jnp.where({test}, {a}, {b})    # per element\n{one.format(test, test)}"
        keyword = "if" if isinstance(node, ast.If) else "while"
        return f"{keyword} jnp.all({test}):    # every element (jnp.any: at least one)"
    return _pattern("y = jnp.where(cond, a, b)    # per element\n"
                    "# or, one answer for the whole array: jnp.all(cond) or jnp.any(cond)")


_NONE_WHY = (" Its default is None: if the test asks whether it was given, that is `is not "
             "None`, which Python answers while tracing.")


def _none_test(node, where) -> str:
    """`if bias:` (`if not bias:`, `... if bias else ...`) of a parameter whose default is
    None, as `bias is not None` (`is None`): the learner asks whether it was passed, which
    Python answers while tracing, and not its value's truth (the card's jnp.where(bias, ...)
    kept x where a weight was 0: `if weights: x = x * weights` of [1, 0, 2] gave [1, 1, 2],
    JAX's run of the `is not None` test [1, 0, 2]); "" for any other test."""
    test = getattr(node, "test", None) if isinstance(node, (ast.If, ast.IfExp)) else None
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    name = test.operand if negated else test
    if not isinstance(name, ast.Name) or not _defaults_to_none(where, node, name.id):
        return ""
    compared = f"{name.id} is None" if negated else f"{name.id} is not None"
    # (a given 0 or empty value now counts as given: plain Python's truth test took it for
    # not given, `if not scale: scale = 1.0` of scale=0.0 scaled by 1.0; with `is None`, 0.0)
    said = (f"    # whether {name.id} was given (its default is None): known while tracing; "
            f"a {name.id} given as 0 now counts as given")
    if isinstance(node, ast.IfExp):
        stmt = getattr(node, "_statement", None)
        whole, part = (ast.unparse(stmt), ast.unparse(node)) if stmt is not None else ("", "")
        if part not in whole:
            return ""
        new = ast.IfExp(ast.parse(compared, mode="eval").body, node.body, node.orelse)
        return whole.replace(part, ast.unparse(new), 1) + said
    text = linecache.getline(where.get("_path") or "", node.lineno)
    keyword = text.split()[0] if text.split() else ""
    if keyword not in ("if", "elif") or node.body[0].lineno == node.lineno or \
            node.test.lineno != node.lineno or node.test.end_lineno != node.lineno:
        return ""
    return f"{keyword} {compared}:{said}"


def _defaults_to_none(where, node, name) -> bool:
    """Whether `name` is a parameter, defaulting to None, of the function around `node`."""
    tree = parse_file((where or {}).get("_path"))
    around = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef,
                                                          ast.AsyncFunctionDef))
              and f.lineno < node.lineno <= f.end_lineno] if tree is not None else []
    if not around:
        return False
    args = max(around, key=lambda f: f.lineno).args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + \
        list(zip(args.kwonlyargs, args.kw_defaults))
    return any(a.arg == name and isinstance(d, ast.Constant) and d.value is None
               for a, d in pairs)


def _assert_rewrite(where, exc, every=False) -> str:
    """`assert x > 0, "x must be positive"` in a jitted function (a learner checking an
    input) as `checkify.check(x > 0, "x must be positive")`, and the call of the jitted
    function through checkify.checkify, its error thrown: a check under jit that is not
    checkified raises (JAX 0.10.2: "Cannot abstractly evaluate a checkify.check which was
    not functionalized"). checkify.checkify(f) of the jitted f keeps the learner's @jax.jit
    (JAX 0.10.2, pasted: 2.0 for f(4.0), "x must be positive (`check` failed)" raised for
    f(-1.0)). `every`: the test holds one bool per element, checked as jnp.all of it (JAX
    0.10.2: check takes a scalar pred). "" where the line is no assert."""
    tree = _parse_line(where)
    stmt = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    if not isinstance(stmt, ast.Assert):
        return ""
    frame = _user_frame(exc)
    # (one True or False: a vector's test raised NumPy's ValueError first, the truth-value card)
    pred = ast.get_source_segment(where["code"], stmt.test) or ast.unparse(stmt.test)
    pred = f"jnp.all({pred})" if every else pred
    said = stmt.msg
    if isinstance(said, ast.Constant) and isinstance(said.value, str) and \
            "{" not in said.value and "}" not in said.value:
        message = ast.get_source_segment(where["code"], said) or repr(said.value)
    else:       # (check's message is a format string: its braces doubled)
        text = said.value if isinstance(said, ast.Constant) and isinstance(said.value, str) \
            else f"assert {ast.unparse(stmt.test)} failed"
        message = repr(text.replace("{", "{{").replace("}", "}}"))
    names = frame.f_globals if frame is not None else {}
    imported = getattr(names.get("checkify"), "__name__", "").endswith("checkify")
    head = "" if imported else "from jax.experimental import checkify    # once, at the top\n"
    check = f"{head}checkify.check({pred}, {message})    # in place of the assert"
    # the learner's line that calls the jitted function: the nearest one out that has a call
    # of a jit (the outermost may be a `main()` calling it)
    call, line = None, None
    for outer, number in reversed(_learners_frames(exc)[:-1]):
        line = _location(outer.f_code.co_filename, number, outer.f_code.co_name)
        call = _checked_rewrite(line, outer)
        if call is not None:
            break
    function = (where or {}).get("function", "")
    function = function if function.isidentifier() else "f"
    if call is None:
        return (f"{check}\n# and where {function} is called, through checkify.checkify:\n" +
                _pattern(f"err, out = checkify.checkify({function})(x)\n"
                         f"err.throw()    # raises here if the check failed"))
    return (f"{check}\n# and the call, in place of {line['code']} (a check under jit raises "
            f"unless checkified):\n{call}")


# a name's use that asks Python for True or False
_ASKS_PYTHON = (ast.If, ast.While, ast.IfExp, ast.Assert)


def _bool_call_rewrite(where, exc) -> str:
    """`flag = bool(x > 0)` of a traced x kept traced: `flag = x > 0`, a bool array (and
    `bool(x)`, x.astype(bool)), which x * flag and jnp.where(flag, ...) take (JAX 0.10.2,
    pasted: the values meant). Where the function asks flag for True or False later (`if
    flag:`), the rewrite alone raises there: the card says so and rewrites that branch too
    where it can. "" where the line has no bool() of a traced value."""
    frame = _user_frame(exc)
    casts = _traced_calls(where, "bool", frame)
    if not casts:
        return ""
    code, tree = where["code"], _parse_line(where)
    stmt = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    whole_value = getattr(stmt, "value", None)
    whole_value = ast.get_source_segment(code, whole_value) if whole_value is not None else ""
    for whole, value, simple in casts:
        compared = isinstance(ast.parse(value, mode="eval").body, ast.Compare)
        new = value if compared else \
            f"{value if simple else f'({value})'}.astype(bool)"
        code = code.replace(whole, new if simple or whole == whole_value else f"({new})", 1)
    said = " and ".join(whole for whole, _, _ in casts)
    line = f"{code}    # instead of {said}: traced, a bool array"
    target = stmt.targets[0].id if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], ast.Name) else None
    asked = _asked_later(where, target) if target else None
    if asked is None:
        return line + (f" ({target} * y, jnp.where({target}, a, b) take it)" if target else "")
    later = {**where, "line": asked.lineno,
             "code": linecache.getline(where["_path"], asked.lineno).strip()}
    branch = _branch_rewrite(later, frame)
    said = (f"# not the whole fix: line {asked.lineno}, `{later['code']}`, asks {target} for\n"
            f"# True or False in Python, which a traced array cannot give: it raises there")
    if branch.startswith("# the pattern") or not isinstance(asked, (ast.If, ast.IfExp)):
        return f"{line}\n{said};\n# branch there with jnp.where(...) or lax.cond(...)"
    return f"{line}\n{said};\n# in place of that `if` and its branches, traced:\n{branch}"


def _asked_later(where, name):
    """The first `if`/`while`/`assert` (or `a if c else b`) after the line, in its function,
    whose test reads `name`, or whose test is `name`'s own truth (`not name`, `name and
    y`); None where `name` is only used as a value."""
    tree = parse_file(where.get("_path"))
    around = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              and f.lineno < where["line"] <= f.end_lineno] if tree is not None else []
    if not around:
        return None
    function = max(around, key=lambda f: f.lineno)
    later = [n for n in ast.walk(function) if isinstance(n, _ASKS_PYTHON + (ast.BoolOp,))
             and n.lineno > where["line"]
             and any(isinstance(r, ast.Name) and r.id == name for r in
                     ast.walk(n.test if not isinstance(n, ast.BoolOp) else n))]
    return min(later, key=lambda n: (n.lineno, n.col_offset)) if later else None


# what a comprehension's element and test may be made of to be computed on the whole array
# at once, elementwise, with the same values: arithmetic and comparisons of names and numbers
_ELEMENTWISE = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name, ast.Constant, ast.operator,
                ast.unaryop, ast.cmpop, ast.Load, ast.BoolOp, ast.boolop)


def _filtered_rewrite(where, exc) -> tuple:
    """(rewrite, whether it keeps the value) for a comprehension on the line filtering a
    traced vector's elements on their values (`[v for v in xs if v > 0]`: each `v > 0`
    asks a traced element for True or False). Summed or counted (`sum(...)`, `len(...)`), the
    same value traced: `jnp.where(xs > 0, xs, 0).sum()`, `(xs > 0).sum()` (JAX 0.10.2,
    pasted: 4.0 and 2 for [1, -2, 3], as Python's filter gives); any other use keeps a list
    whose length depends on the values, which no traced shape can: words, and the shape-kept
    forms as comments. ("", False) where the line has no such comprehension."""
    tree, found = _parse_line(where), None
    # the names where the line runs (before Python 3.12 a comprehension is a frame of its
    # own, `<listcomp>`, holding its element alone: the function's frame out of it)
    frames = [f for f, _ in reversed(_learners_frames(exc))]
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
            loop = node.generators[0]
            source = loop.iter.id if isinstance(loop.iter, ast.Name) else None
            names = next(({**f.f_globals, **f.f_locals} for f in frames
                          if source in f.f_locals), {})
            held = names.get(source)
            if loop.ifs and isinstance(loop.target, ast.Name) and \
                    isinstance(held, Tracer) and len(getattr(held.aval, "shape", ())) == 1:
                found = node
                break
    if found is None:
        return "", False
    loop = found.generators[0]
    element, array = loop.target.id, loop.iter.id
    test = ast.unparse(_renamed(ast.BoolOp(ast.And(), loop.ifs) if len(loop.ifs) > 1
                                else loop.ifs[0], element, array))
    value = ast.unparse(_renamed(found.elt, element, array))
    outer = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and
                  isinstance(n.func, ast.Name) and n.func.id in ("sum", "len") and
                  n.args == [found] and not n.keywords), None)
    # other names read must be one number each (an array would broadcast otherwise)
    plain = all(isinstance(n, _ELEMENTWISE) for part in [found.elt, *loop.ifs]
                for n in ast.walk(part)) and not any(
        len(getattr(names.get(n.id), "shape", ())) > 0
        for part in [found.elt, *loop.ifs] for n in ast.walk(part)
        if isinstance(n, ast.Name) and n.id != element)
    code = where["code"]
    if outer is not None and plain:
        new = f"({test}).sum()" if outer.func.id == "len" else \
            f"jnp.where({test}, {value}, 0).sum()"
        said = "how many pass, counted" if outer.func.id == "len" else \
            "0 where an element fails: the same sum"
        whole = ast.get_source_segment(code, outer)
        if whole and code.count(whole) == 1:
            return f"{code.replace(whole, new, 1)}    # the whole of {array} at once, {said}", True
    kept = f"jnp.where({test}, {value}, 0)" if plain else "jnp.where(mask, ..., 0)"
    return (f"# no traced line keeps this list: how many of {array}'s elements pass depends "
            f"on their values,\n# and under jit every shape is fixed before any value exists. "
            f"At {array}'s shape instead:\n#   mask = {test if plain else '...'}    # then "
            f"{array}.sum(where=mask), {array}.mean(where=mask)\n#   {kept}    # 0 where one "
            f"fails\n# or filter outside jit, on a concrete array: {array}[mask]"), False


def _renamed(node, old, new):
    """`node` (an expression) with the name `old` read as `new`."""
    node = ast.parse(ast.unparse(node), mode="eval").body          # (a copy)
    for name in ast.walk(node):
        if isinstance(name, ast.Name) and name.id == old:
            name.id = new
    return node
