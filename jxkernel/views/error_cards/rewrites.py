"""The user's code read back (a cell's or a file's line, parsed) and rewritten: a Python `if`
as jnp.where or lax.cond, `and`/`or` of arrays, a `for` loop over a traced range as
lax.fori_loop, Python's max/min and math's functions as jnp's."""
from __future__ import annotations

import ast
import linecache

from ..source_edits import parse_file
from .branch_types import _cond_of


def _pattern(code: str) -> str:
    """A template, written with names the learner's code may not have (`f`, `x`, `pred`,
    `operands`, a body of `...`), as comments under a line saying so: pasted, it runs
    nothing, where as code it raised NameError (or defined a function returning None). The
    card's fix says what to do in words.

        >>> print(_pattern("y = jnp.where(cond, a, b)"))
        # the pattern, with your own names in place of these:
        #   y = jnp.where(cond, a, b)
    """
    return "# the pattern, with your own names in place of these:\n" + "\n".join(
        f"#   {line}" if line.strip() else "#" for line in code.splitlines())


def _branch_rewrite(where, frame=None) -> str:
    """Code for a Python branch on a traced condition at `where`: the user's own `if`
    turned into jnp.where / lax.cond when it is simple enough, else a template. With the
    user's `frame`, lax.cond's branches are given one dtype (_cond_of)."""
    node = _node_at(where)
    if isinstance(node, ast.IfExp):
        test, a, b = _traced_test(node.test), ast.unparse(node.body), ast.unparse(node.orelse)
        where_ = f"jnp.where({test}, {a}, {b})"
        cond, said = _cond_of(test, a, b, frame)
        if cond is None:
            return where_
        cond = cond
        # the user's whole statement with the expression replaced: `return x if c else -x`
        # lost its `return` (a function then returning None), an assignment its target
        stmt = getattr(node, "_statement", None)
        if stmt is not None:
            whole, part = ast.unparse(stmt), ast.unparse(node)
            if part in whole:
                where_, cond = whole.replace(part, where_, 1), whole.replace(part, cond, 1)
        return f"{where_}\n{said}\n{cond}"
    if isinstance(node, ast.If):
        printed = _print_when(node)
        if printed is not None:
            return printed
        simple = _simple_if(node)
        test = _traced_test(node.test)
        if simple is not None:
            head, a, b = simple
            cond, said = _cond_of(test, a, b, frame)
            if cond is None:
                return f"{head}jnp.where({test}, {a}, {b})"
            return f"{head}jnp.where({test}, {a}, {b})\n{said}\n{head}{cond}"
        return _pattern(
            f"def true_branch(operands): ...     # the `if` body, returning its results\n"
            f"def false_branch(operands): ...    # the `else` body, same result types\n"
            f"result = lax.cond({test}, true_branch, false_branch, operands)")
    if isinstance(node, ast.BoolOp):        # `a and b` of traced booleans: elementwise
        return _logical_rewrite(node)
    if isinstance(node, ast.While):
        return _while_loop_rewrite(node, _traced_test(node.test), ", traced: {name} its state")
    return _pattern("y = jnp.where(cond, a, b)                   # elementwise, both computed\n"
                    "y = lax.cond(cond, true_fn, false_fn, *operands)   # one branch runs")


def _print_when(node) -> str | None:
    """An `if` on a traced condition whose branches only print(...) (a learner debugging:
    `if jnp.isnan(y): print("nan!", y)`), as lax.cond of jax.debug.print branches: it prints
    as the compiled program runs, when the condition holds (JAX 0.10.2 prints "nan! nan" for
    log(-1.0), nothing for log(2.0)); None for any other `if`.

        >>> _print_when(ast.parse('if y < 0:\\n    print("neg", y)').body[0]).split("    #")[0]
        "lax.cond(y < 0, lambda: jax.debug.print('neg {}', y), lambda: None)"
    """
    branches = [_debug_prints(node.body), _debug_prints(node.orelse) if node.orelse else "None"]
    if None in branches:
        return None
    # at the `if`'s own indentation, in place of all its lines: pasted unindented into a
    # function's body (or over the `if` line alone, its print left indented under nothing)
    # the cell did not parse
    lines = (node.end_lineno or node.lineno) - node.lineno + 1
    place = f"in place of the whole `if` (its {lines} lines)" if lines > 1 else \
        "in place of the `if` line"
    return (f"{getattr(node, '_indent', ' ' * node.col_offset)}lax.cond("
            f"{ast.unparse(node.test)}, lambda: {branches[0]}, lambda: {branches[1]})"
            f"    # prints when it holds, as the program runs: {place}")


def _debug_prints(body) -> str | None:
    """`body` (statements) made one expression of jax.debug.print calls, where each is a
    print(...) without keywords; None otherwise."""
    calls = []
    for stmt in body:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and
                isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "print" and
                not stmt.value.keywords):
            return None
        made = _format_of(stmt.value.args)
        if made is None:
            return None
        fmt, args = made
        calls.append(f"jax.debug.print({', '.join([repr(fmt), *args])})")
    if not calls:
        return None
    return calls[0] if len(calls) == 1 else f"({', '.join(calls)})"


def _format_of(args):
    """(format string, argument code) printing what print(*args) prints: a string literal as
    text, an f-string's parts as text and fields, any other argument a `{}` field; print's
    spaces between them. None for a starred argument or a field whose spec is computed."""
    parts, values = [], []
    for arg in args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            parts.append(_braces(arg.value))
        elif isinstance(arg, ast.JoinedStr):
            text = ""
            for piece in arg.values:
                if isinstance(piece, ast.Constant):
                    text += _braces(str(piece.value))
                    continue
                spec = piece.format_spec
                if spec is not None and not all(isinstance(v, ast.Constant)
                                                for v in spec.values):
                    return None
                conversion = "" if piece.conversion == -1 else "!" + chr(piece.conversion)
                colon = "" if spec is None else ":" + "".join(str(v.value) for v in spec.values)
                text += "{" + conversion + colon + "}"
                values.append(ast.unparse(piece.value))
            parts.append(text)
        elif isinstance(arg, ast.Starred):
            return None
        else:
            parts.append("{}")
            values.append(ast.unparse(arg))
    return " ".join(parts), values


def _braces(text: str) -> str:
    """Literal text for a format string: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def _traced_test(node) -> str:
    """A condition as jnp.where / lax.cond / while_loop can take it traced: `and`, `or` and
    `not` as jnp.logical_and / logical_or / logical_not (`jnp.where(x > 0 or y > 0, ...)`,
    pasted, raised the same TracerBoolConversionError: Python's `or` still asked its first
    operand for True or False).

        >>> _traced_test(ast.parse("x > 0 or not y > 0", mode="eval").body)
        'jnp.logical_or(x > 0, jnp.logical_not(y > 0))'
    """
    if isinstance(node, ast.BoolOp):
        name = "jnp.logical_and" if isinstance(node.op, ast.And) else "jnp.logical_or"
        *rest, text = [_traced_test(v) for v in node.values]
        for value in reversed(rest):
            text = f"{name}({value}, {text})"
        return text
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return f"jnp.logical_not({_traced_test(node.operand)})"
    return ast.unparse(node)


def _logical_rewrite(node) -> str:
    """`a and b` (or `or`) as jnp.logical_and / logical_or of the operands, in the user's
    statement: JAX's control-flow guide's fix, which jit traces."""
    word = "and" if isinstance(node.op, ast.And) else "or"
    name = f"jnp.logical_{word}"
    *rest, last = [ast.unparse(v) for v in node.values]
    text = last
    for value in reversed(rest):
        text = f"{name}({value}, {text})"
    stmt = getattr(node, "_statement", None)
    if stmt is not None and ast.unparse(node) in ast.unparse(stmt):
        text = ast.unparse(stmt).replace(ast.unparse(node), text, 1)
    return f"{text}    # elementwise, traced: Python's `{word}` needs one True or False"


def _while_loop_rewrite(loop, test, said) -> str:
    """A `while` loop as lax.while_loop of `test`, its body's one update the state (`said`,
    the comment's tail, may name it: "{name}"); else the pattern."""
    step = _one_update(loop.body)
    if step is not None and step[0] in {n.id for n in ast.walk(loop.test)
                                        if isinstance(n, ast.Name)}:
        name, value = step
        return (f"{name} = lax.while_loop(lambda {name}: {test}, lambda {name}: {value}, "
                f"{name})    # {_in_place_of(loop)}{said.format(name=name)}")
    return _pattern(
        f"def cond_fun(state): return {test}   # in terms of the loop state\n"
        f"def body_fun(state): ...              # the loop body, returning the new state\n"
        f"state = lax.while_loop(cond_fun, body_fun, state)")


def _in_place_of(loop) -> str:
    """What a loop's one-line rewrite replaces: the loop's header and body, not its first line
    alone (learner6's trial: pasted over `for i in range(n):`, the body `total += i` was left,
    indented under nothing, and the cell did not parse).

        >>> _in_place_of(ast.parse("while i < 3:\\n    i += 1").body[0])
        'in place of the whole loop (its 2 lines)'
    """
    lines = (loop.end_lineno or loop.lineno) - loop.lineno + 1
    return f"in place of the whole loop (its {lines} lines)"


def _one_update(body):
    """(name, its new value) when a loop's body is one update of one name (`i += 1`, `total
    = total + i`), else None: the state and step of a lax loop."""
    if len(body) != 1:
        return None
    stmt = body[0]
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        name = stmt.target.id
        return name, ast.unparse(ast.BinOp(ast.Name(name), stmt.op, stmt.value))
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, ast.unparse(stmt.value)
    return None


def _range_loop_rewrite(where) -> str:
    """`for i in range(n): total += i` with a traced n, as lax.fori_loop (its bounds may be
    traced), or "" when the line is no such loop."""
    tree = parse_file((where or {}).get("_path"))
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.For) and node.lineno == where["line"] and \
                isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call) and \
                ast.unparse(node.iter.func) == "range" and 1 <= len(node.iter.args) <= 2 \
                and not node.orelse:
            step = _one_update(node.body)
            if step is None:
                return ""
            name, value = step
            bounds = [ast.unparse(a) for a in node.iter.args]
            start, stop = (["0"] + bounds)[-2:]
            return (f"{name} = lax.fori_loop({start}, {stop}, lambda {node.target.id}, {name}: "
                    f"{value}, {name})    # {_in_place_of(node)}, traced: {name} its state")
    return ""


def _node_at(where):
    """The `if`/`while` statement or conditional expression at the user's line, else its
    `and`/`or`, or None."""
    if not where:
        return None
    tree = parse_file(where.get("_path"))
    if tree is None:
        return None
    found = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)) and node.lineno == where["line"]:
            if found is None or isinstance(node, ast.IfExp):   # the expression beats its line
                found = node
    if found is None:       # `return a and b`: no branch on the line, the `and` is the test
        found = next((n for n in ast.walk(tree) if isinstance(n, ast.BoolOp)
                      and n.lineno == where["line"]), None)
    if isinstance(found, ast.If):
        found._parent_body = _siblings(tree, found)
        text = linecache.getline(where.get("_path"), found.lineno)     # tabs kept as typed
        found._indent = text[:len(text) - len(text.lstrip())]
    if isinstance(found, (ast.IfExp, ast.BoolOp)):
        found._statement = _simple_statement_of(tree, found)
    return found


def _simple_statement_of(tree, node):
    """The innermost simple statement (a return, an assignment, an expression) holding
    `node`, or None (inside a compound statement's header)."""
    simple = (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
    best = None
    for stmt in ast.walk(tree):
        if isinstance(stmt, simple) and any(n is node for n in ast.walk(stmt)):
            if best is None or stmt.lineno >= best.lineno:
                best = stmt
    return best


def _parse_line(where):
    """The syntax tree of the user's line (`where["code"]`); None without one or when it does
    not parse on its own (a line of a longer statement)."""
    if not where:
        return None
    try:
        return ast.parse(where["code"])
    except SyntaxError:
        return None


def _bound_above(where, name, unpacked=False):
    """The last statement `name = <call>` of the user's cell (or file) above `where`'s line:
    what made the value the line uses (a pair grad or update returned, a jit); None where the
    cell has none (bound in another cell, or otherwise). `unpacked`: a statement unpacking
    the call into names, `name` among them (`(loss, grads), aux = ...`), counts too.

        >>> where = {"_path": None, "line": 3}
        >>> _bound_above(where, "g") is None
        True
    """
    found, tree = None, parse_file(where.get("_path")) if where and name else None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Assign) and node.lineno < where["line"] and \
                _binds(node.targets, name, unpacked) and isinstance(node.value, ast.Call) and \
                (found is None or node.lineno > found.lineno):
            found = node
    return found


def _binds(targets, name, unpacked) -> bool:
    """Whether an assignment's `targets` are `name` alone (or, `unpacked`, one tuple of
    names and tuples holding it)."""
    if [ast.unparse(t) for t in targets] == [name]:
        return True
    return unpacked and len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)) \
        and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(targets[0]))


def _called(node) -> str | None:
    """The last dotted name of the function `node` calls (`scan` for lax.scan, jax.lax.scan
    and scan alike); None when `node` is no call."""
    return ast.unparse(node.func).split(".")[-1] if isinstance(node, ast.Call) else None


def _first_call(tree, names, min_args=0):
    """The first call in `tree` (None: no line) to a function `names` holds, by its last
    name, with `min_args` positional arguments or more; None where there is none.

        >>> ast.unparse(_first_call(ast.parse("y = lax.scan(f, 0, xs)"), {"scan"}, 3))
        'lax.scan(f, 0, xs)'
    """
    return next((n for n in ast.walk(tree) if _called(n) in names and len(n.args) >= min_args),
                None) if tree is not None else None


def _whole_statement(where):
    """`where` with its code the whole statement its line is part of, where the line alone
    does not parse (`+ int(y))`, the second line of `return (x * 2`: the card rewrote the
    fragment, which pasted did not parse, or gave a template); `where` itself otherwise."""
    tree = parse_file(where.get("_path")) if where and _parse_line(where) is None else None
    simple = (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
    around = [s for s in ast.walk(tree) if isinstance(s, simple) and
              s.lineno <= where["line"] <= s.end_lineno] if tree is not None else []
    if not around:
        return where
    stmt = max(around, key=lambda s: s.lineno)
    lines = linecache.getlines(where["_path"])[stmt.lineno - 1:stmt.end_lineno]
    indent = len(lines[0]) - len(lines[0].lstrip())
    text = "".join(line[indent:] if not line[:indent].strip() else line.lstrip()
                   for line in lines).rstrip("\n")
    return {**where, "code": text} if _parse_line({"code": text}) is not None else where


def _siblings(tree, target) -> list:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and target in body:
                return body
    return []


def _simple_if(node):
    """(head, a, b) when the `if` picks between two values: both branches `return`, or
    both assign the same name; an `if` that returns followed by a `return` counts, and an
    `if` without `else` that updates one name (`n += 1`: n's new value, else n)."""
    body, orelse = node.body, node.orelse
    if not orelse and _one_update(body) is not None and \
            _one_update(body)[0] in {n.id for n in ast.walk(ast.parse(_one_update(body)[1]))
                                     if isinstance(n, ast.Name)} | \
            {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}:
        # `if v > 0: n += 1` (no else; n read, so bound before), or `if x > 1: x = 1.0` (x
        # read by the test): the new value where the test holds, else the name as it was
        # (its card wrote a template of two branch functions)
        name, value = _one_update(body)
        return f"{name} = ", value, name
    if not orelse:
        siblings = getattr(node, "_parent_body", [])
        after = siblings[siblings.index(node) + 1:] if node in siblings else []
        orelse = after[:1] if after and isinstance(after[0], ast.Return) else []
    if len(body) != 1 or len(orelse) != 1:
        return None
    a, b = body[0], orelse[0]
    if isinstance(a, ast.Return) and isinstance(b, ast.Return) and a.value and b.value:
        return "return ", ast.unparse(a.value), ast.unparse(b.value)
    if isinstance(a, ast.Assign) and isinstance(b, ast.Assign) and len(a.targets) == 1 \
            and len(b.targets) == 1 and ast.unparse(a.targets[0]) == ast.unparse(b.targets[0]):
        return f"{ast.unparse(a.targets[0])} = ", ast.unparse(a.value), ast.unparse(b.value)
    return None


def _int_written(node) -> bool:
    """Whether `node` is an int written out, a negative one too (no bool).

        >>> _int_written(ast.parse("-1", mode="eval").body)
        True
    """
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _operand(node) -> str:
    """`node`'s code, in parentheses unless it binds tighter than an index: ready for `[...]`
    or `.attr` after it.

        >>> _operand(ast.parse("a + b", mode="eval").body)
        '(a + b)'
    """
    text = ast.unparse(node)
    return text if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) \
        else f"({text})"


def _replaced(tree, old, new) -> str:
    """The code of `tree` with the node `old` replaced by `new` (a node, or an expression's
    source), as the user's line rewritten.

        >>> tree = ast.parse("y = f(x) + 1")
        >>> _replaced(tree, tree.body[0].value.left, "g(x)")
        'y = g(x) + 1'
    """
    if isinstance(new, str):
        new = ast.parse(new, mode="eval").body
    out = _Replace(old, new).visit(tree)
    try:
        return ast.unparse(out)
    finally:                    # the tree as it was: a card may rewrite the line twice
        _Replace(new, old).visit(out)


class _Replace(ast.NodeTransformer):
    """Puts `new` where `old` was in a tree."""

    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit(self, node):
        return self.new if node is self.old else super().visit(node)


def _listing(items) -> str:
    """Items in words, for a card's sentence: "0, 1 and 2" ("" for none).

    >>> _listing(range(3)), _listing(["x"])
    ('0, 1 and 2', 'x')
    """
    items = [str(i) for i in items]
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


# math's functions whose jnp function has another name (the others: the same name in jnp)
_MATH_NAMES = {"fabs": "abs", "pow": "power", "atan2": "arctan2", "asin": "arcsin",
               "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
               "atanh": "arctanh"}
_MATH_SAME = {"exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "sin", "cos",
              "tan", "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "hypot", "isnan",
              "isinf", "isfinite", "degrees", "radians", "copysign", "exp2"}


def _python_math_rewrite(where) -> str:
    """The user's line with Python's max/min and math's functions of arrays written as jnp's
    (traced, elementwise), or "" when it has none: `max(x, 0.0)` as jnp.maximum(x, 0.0),
    `max(v)` as jnp.max(v), `math.exp(x)` as jnp.exp(x).

        >>> _python_math_rewrite({"code": "return max(x, 0.0) + math.sqrt(y)"})
        'return jnp.maximum(x, 0.0) + jnp.sqrt(y)'
    """
    tree = _parse_line(where)
    changed = False
    for call in list(ast.walk(tree)) if tree is not None else ():
        if not isinstance(call, ast.Call) or call.keywords or \
                any(isinstance(a, ast.Starred) for a in call.args):
            continue
        func, args = call.func, call.args
        if isinstance(func, ast.Name) and func.id in ("max", "min") and args:
            new = f"jnp.{func.id}"                              # max(v): v's largest element
            if len(args) > 1:                                   # max(a, b, ...): elementwise
                new, args = f"jnp.{func.id}imum", _pairs(f"jnp.{func.id}imum", args)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == "math" and (func.attr in _MATH_SAME or func.attr in
                                             _MATH_NAMES) and \
                not (func.attr == "log" and len(args) > 1):     # math.log(x, base)
            new = f"jnp.{_MATH_NAMES.get(func.attr, func.attr)}"
        else:
            continue
        call.func, call.args, changed = ast.parse(new, mode="eval").body, args, True
    return ast.unparse(tree) if changed else ""


def _pairs(name, args) -> list:
    """max(a, b, c)'s arguments as jnp.maximum's two: [a, jnp.maximum(b, c)]."""
    while len(args) > 2:
        args = args[:-2] + [ast.Call(ast.parse(name, mode="eval").body, args[-2:], [])]
    return args
