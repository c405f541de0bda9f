"""The body-arguments card: a loop body or a branch written to take other arguments than lax
passes it (Python's own TypeError as lax calls it, `<lambda>() takes 1 positional argument
but 2 were given`), rewritten on the learner's line: a lambda's parameters as the loop passes
them, wherever the lambda is (on the call's line, on a line of its own bound to a name, in a
call written over several lines, given by keyword)."""
from __future__ import annotations

import ast
import linecache
import re

from ...transforms.api_util import positional_parameters
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _location, _user_frame, _user_lines
from .rewrites import _called, _parse_line, _replaced, _whole_statement
from .trees import is_tree_map

# Python's own TypeError of a call with the wrong arguments
_ARITY = re.compile(r"^(\S+)\(\) (?:takes \d+ positional arguments? but \d+ (?:was|were) given|"
                    r"missing \d+ required positional arguments?: .+)$")
# per lax function: its functions' (position, keyword) among the call's arguments, where its
# operands start (cond and switch: the branches take them all), how many arguments each
# function takes (None: as many as the operands), and how it calls them
_CALLS = {
    "fori_loop": (((2, "body_fun"),), None, 2,
                  "body_fun(i, val): the loop index, then the value carried"),
    "scan": (((0, "f"),), None, 2, "f(carry, x): the carry, then the slice of xs for this "
                                   "step, and it returns (new carry, y)"),
    "map": (((0, "f"),), None, 1, "f(x): one slice of xs"),
    "while_loop": (((0, "cond_fun"), (1, "body_fun")), None, 1,
                   "cond_fun(val) and body_fun(val): the one value carried (several values "
                   "travel as one tuple, unpacked inside)"),
    "cond": (((1, "true_fun"), (2, "false_fun")), 3, None,
             "true_fun(*operands) and false_fun(*operands): the operands given after the two "
             "branches"),
    "switch": (((1, "branches"),), 2, None,
               "each of branches with *operands: the operands given after the list of "
               "branches"),
}


def _functions(api, call) -> list:
    """The nodes of `call`'s functions (its arguments at their positions or keywords;
    switch's list of branches, each), in order."""
    keywords = {k.arg: k.value for k in call.keywords}
    out = []
    for position, keyword in _CALLS[api][0]:
        node = call.args[position] if position < len(call.args) else keywords.get(keyword)
        if isinstance(node, (ast.List, ast.Tuple)) and api == "switch":
            out.extend(node.elts)
        elif node is not None:
            out.append(node)
    return out


def arity_statement(e):
    """(the function's name in `e`'s message, the user's whole statement parsed or None, the
    user's frame) where `e` is Python's TypeError of a call with the wrong arguments; None
    otherwise."""
    found = isinstance(e, TypeError) and _ARITY.match(str(e))
    if not found:
        return None
    where, _ = _user_lines(e)
    return (found.group(1), _parse_line(_whole_statement(where)) if where else None,
            _user_frame(e))


def _body_call(e):
    """(lax function, its call node, the function named in `e`'s message, the syntax tree,
    the user's frame) of the user's statement where a lax loop or cond called one of its
    functions with arguments it does not take; None otherwise."""
    found = arity_statement(e)
    if not found:
        return None
    named, tree, frame = found
    for node in ast.walk(tree) if tree is not None else ():
        api = _called(node)
        if api in _CALLS and not is_tree_map(node) and any(_names(f, named, frame)
                                                           for f in _functions(api, node)):
            return api, node, named.rsplit(".", 1)[-1], tree, frame
    return None


def _names(node, name, frame) -> bool:
    """Whether `node`, a function among the call's arguments, is the one the message names
    (by its qualified name: `train.<locals>.<lambda>` for a lambda written inside train): a
    lambda, a function of that name, or a name bound in the user's frame to that lambda."""
    short = name.rsplit(".", 1)[-1]
    if isinstance(node, ast.Lambda):
        return short == "<lambda>"
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return False
    if ast.unparse(node).split(".")[-1] == short:
        return True
    value = _bound(frame, node)
    return short == "<lambda>" and getattr(value, "__qualname__", None) == name


def _bound(frame, node):
    """The value the user's frame binds to the name `node` (never called), or None."""
    if frame is None or not isinstance(node, ast.Name):
        return None
    return _named_value(frame, node.id)


def _is_body_arguments(e) -> bool:
    return _body_call(e) is not None


def _body_arguments_card(exc, where, called_from) -> ErrorCard:
    api, call, name, tree, frame = _body_call(exc)
    _, operands_at, wanted, how = _CALLS[api]
    if wanted is None:                       # cond, switch: the branches take the operands
        wanted = len(call.args) - operands_at
    rewrite = _rewrite(api, call, tree, _functions(api, call), wanted, frame) or \
        f"# lax.{api} calls {how}"
    fix = (f"Write {name} to take {wanted} argument{'s' if wanted != 1 else ''}, in that "
           f"order" + (": give the operands after the branches, or branches that take none "
                       "when there are none." if operands_at else "."))
    if rewrite.endswith(_UNPACKED):         # (the tuple's elements given as the operands)
        fix = ("Give the operand's elements as the operands, one per parameter of the "
               "branches: a tuple or list is one operand, passed as one argument (or write "
               "each branch to take the one tuple and unpack it).")
    return ErrorCard(
        "body-arguments", f"lax.{api} calls {name} with other arguments than it takes",
        why=f"lax.{api} calls {how}. {exc}.",
        fix=fix,
        rewrite=rewrite,
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.lax.{api}.html")


def _rewrite(api, call, tree, funs, wanted, frame) -> str | None:
    """The user's call with its lambdas taking what lax passes, or the line defining the
    lambda it names, or a named function's def line so; None where no rewrite is sure."""
    if api in ("fori_loop", "scan", "map"):
        return _loop_rewrite(api, tree, funs[0], wanted, frame) if funs else None
    if api == "while_loop" and funs and all(isinstance(f, ast.Lambda) for f in funs):
        return _while_rewrite(call, tree, funs)
    if api in ("cond", "switch"):
        return _branches_rewrite(api, call, tree, funs, wanted, frame)
    return None


def _loop_rewrite(api, tree, fun, wanted, frame) -> str | None:
    """fori_loop's index added in front of the body's parameters, scan's x after the carry,
    map's x: in the lambda on the line, in the lambda the named one is, or on a def line."""
    passes = f"lax.{api} passes"
    if isinstance(fun, ast.Lambda):
        params = _with_the_missing(api, fun, wanted)
        return params and f"{_replaced(tree, fun, _taking(fun, params))}    # {passes} " \
                          f"{', '.join(params)}"
    value = _bound(frame, fun)
    if getattr(value, "__name__", None) == "<lambda>":
        found = _lambda_source(value)
        params = found and _with_the_missing(api, found[1], wanted)
        if not params:
            return None
        line = _replaced(found[0], found[1], _taking(found[1], params))
        return (f"{line}    # where {ast.unparse(fun)} is made: {passes} "
                f"{', '.join(params)}")
    have = positional_parameters(value) if value is not None else None
    if have is None or len(have) != wanted - 1:
        return None
    new = _fresh("i" if api == "fori_loop" else "x", set(have))
    params = [new, *have] if api == "fori_loop" else [*have, new]
    return (f"def {ast.unparse(fun).split('.')[-1]}({', '.join(params)}):    # {passes} "
            f"{', '.join(params)}; the body as before")


def _with_the_missing(api, fun, wanted) -> list | None:
    """A loop lambda's parameters with the one it lacks added (fori_loop's index first, the
    x of scan and map last), or None where it lacks another number of them."""
    have = [a.arg for a in fun.args.args]
    if len(have) != wanted - 1 or fun.args.vararg:
        return None
    used = {n.id for n in ast.walk(fun.body) if isinstance(n, ast.Name)}
    new = _fresh("i" if api == "fori_loop" else "x", used | set(have))
    return [new, *have] if api == "fori_loop" else [*have, new]


def _taking(fun, params) -> ast.Lambda:
    return ast.Lambda(ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, []),
                      fun.body)


def _lambda_source(value):
    """(the syntax tree of the statement that made the lambda `value`, its Lambda node),
    read from its file (a notebook's cell too); None where the statement has not exactly one
    lambda of these parameters."""
    code = value.__code__
    where = _location(code.co_filename, code.co_firstlineno, "")
    tree = _parse_line(_whole_statement(where)) if linecache.getline(
        code.co_filename, code.co_firstlineno) else None
    names = list(code.co_varnames[:code.co_argcount])
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and
             [a.arg for a in n.args.args] == names] if tree is not None else []
    return (tree, found[0]) if len(found) == 1 else None


def _while_rewrite(call, tree, funs) -> str:
    """while_loop's lambdas as functions of the one value carried, unpacking it where a
    lambda took several."""
    defs, names = [], []
    init = call.args[2] if len(call.args) > 2 else next(
        (k.value for k in call.keywords if k.arg == "init_val"), None)
    for fun, kind in zip(funs, ("cond_fun", "body_fun")):
        have = [a.arg for a in fun.args.args]
        body = ast.unparse(fun.body)
        read = [a for a in have if a in {n.id for n in ast.walk(fun.body)
                                         if isinstance(n, ast.Name)}]
        if len(have) > 1 and len(read) == 1 and not (
                isinstance(init, ast.Tuple) and len(init.elts) == len(have)):
            # `lambda i, c: c * 2` over one value (1.0): unpacking it raised ("iteration over
            # a 0-d array"); the one parameter the body reads is the value
            have = read
        if len(have) <= 1:                 # (one that takes nothing ignores the value)
            defs.append(f"def {kind}({have[0] if have else '_'}):\n    return {body}")
        else:
            defs.append(f"def {kind}(state):\n    {', '.join(have)} = state\n    "
                        f"return {body}")
        names.append(kind)
    given = {k.arg for k in call.keywords}
    args = [ast.Name(n, ast.Load()) for n, k in zip(names, ("cond_fun", "body_fun"))
            if k not in given]
    keywords = [ast.keyword(k.arg, ast.Name(k.arg, ast.Load()))
                if k.arg in ("cond_fun", "body_fun") else k for k in call.keywords]
    loop = ast.Call(call.func, args + call.args[len(args):], keywords)
    return "\n".join(defs) + f"\n{_replaced(tree, call, loop)}    # one value: state"


def _branches_rewrite(api, call, tree, funs, wanted, frame) -> str | None:
    """cond's or switch's branches made to take the operands: a lambda taking none given one
    parameter per operand, `_` (it does not read them); lambdas of one same list of
    parameters, given no operands, given the values the user's frame binds to those names.
    None where neither fits."""
    lambdas = [f for f in funs if isinstance(f, ast.Lambda)]
    wrong = [f for f in lambdas if len(f.args.args) != wanted or f.args.vararg]
    if not wrong or len(lambdas) != len(funs):
        return None
    if wanted and all(not f.args.args and not f.args.vararg for f in wrong):
        unused = ["_"] if wanted == 1 else [f"_{k}" for k in range(wanted)]
        before = [f.args for f in wrong]
        for fun in wrong:                  # (each in place, put back: the line is the card's)
            fun.args = _taking(fun, unused).args
        try:
            return f"{ast.unparse(tree)}    # each branch takes the operands"
        finally:
            for fun, args in zip(wrong, before):
                fun.args = args
    params = {tuple(a.arg for a in f.args.args) for f in lambdas}
    unpacked = _operands_unpacked(api, call, tree, lambdas, params)
    if unpacked:
        return unpacked
    names = next(iter(params)) if len(params) == 1 and not wanted else ()
    local = frame.f_locals if frame is not None else {}
    if not names or any(n not in local for n in names):
        return None
    given = ast.Call(call.func, call.args + [ast.Name(n, ast.Load()) for n in names],
                     call.keywords)
    return f"{_replaced(tree, call, given)}    # the operands the branches take: " \
           f"{', '.join(names)}"


_UNPACKED = "# one operand per parameter of the branches"


def _operands_unpacked(api, call, tree, lambdas, params) -> str | None:
    """One tuple written as the operand (`(1.0, 2.0)`) of branches that each take as many
    parameters (`lambda x, y: ...`): its elements given as the operands, which cond and
    switch pass one per parameter (the tuple alone is one operand: Python's TypeError,
    "missing 1 required positional argument"); None otherwise."""
    at = _CALLS[api][1]
    operands = call.args[at:]
    if len(operands) != 1 or not isinstance(operands[0], (ast.Tuple, ast.List)) or \
            len(params) != 1 or any(f.args.vararg or f.args.defaults for f in lambdas):
        return None
    elements = operands[0].elts
    if len(next(iter(params))) != len(elements) or \
            any(isinstance(e, ast.Starred) for e in elements):
        return None
    given = ast.Call(call.func, call.args[:at] + list(elements), call.keywords)
    return f"{_replaced(tree, call, given)}    {_UNPACKED}"


def _fresh(name, taken) -> str:
    while name in taken:
        name += "_"
    return name
