"""The call-arity card: a function given to grad (value_and_grad, jacfwd, jacrev, hessian),
jit or vmap, then called with other arguments than it takes. JAX 0.10.2 says Python's own
words, as the transformed function calls it: `loss() missing 2 required positional arguments:
'x' and 'y'` for `jax.grad(loss)(params)`, `loss1() takes 1 positional argument but 3 were
given` for `jax.grad(loss1)(params, x, y)`. A learner reads grad as keeping the data for
itself; it passes every argument on, and differentiates with respect to the first.

The rewrite passes the missing arguments where the learner's namespace binds each of their
names; gives a function of one parameter a parameter per extra argument (its def line, or the
lambda written on the call's line); groups the extra arguments into the tuple a function
unpacks (`xb, yb = batch`); else the card says what to do in words."""
from __future__ import annotations

import ast
import inspect
import textwrap

from ...transforms.api_util import positional_parameters
from ..source import is_user_file
from .body_arguments import arity_statement
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame
from .rewrites import _parse_line, _replaced, _whole_statement

_DIFFERENTIATE = ("grad", "value_and_grad", "jacfwd", "jacrev", "jacobian", "hessian")
_TRANSFORMS = (*_DIFFERENTIATE, "jit", "vmap")
_DOCS = {"jit": "https://docs.jax.dev/en/latest/_autosummary/jax.jit.html",
         "vmap": "https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html"}
_GRAD_DOCS = "https://docs.jax.dev/en/latest/_autosummary/jax.grad.html"


def _transform(node) -> str | None:
    """The transformation `node` calls (`grad` for `jax.grad(f, argnums=1)`), or None."""
    if not isinstance(node, ast.Call):
        return None
    name = ast.unparse(node.func).split(".")[-1]
    return name if name in _TRANSFORMS and (node.args or node.keywords) else None


def _resolved(node, frame):
    """The value the user's `frame` binds to `node`, a name or a dotted name (never calling
    anything); None otherwise."""
    if isinstance(node, ast.Name):
        return _named_value(frame, node.id)
    if isinstance(node, ast.Attribute):
        base = _resolved(node.value, frame)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _innermost(node, frame):
    """(the transformations around the callee `node`, outermost first; the function they
    wrap; its syntax node where written on the line): `jax.jit(jax.grad(loss))` gives
    (['jit', 'grad'], loss, Name loss); a name bound to a transformed function is followed
    through `__wrapped__`, its transformations unknown (empty)."""
    names = []
    while _transform(node):
        names.append(_transform(node))
        node = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg in ("fun", "f")), None)
    if isinstance(node, ast.Lambda):
        return names, None, node
    value = _resolved(node, frame)
    while callable(getattr(value, "__wrapped__", None)):
        value = value.__wrapped__
    return names, value, node


def _arity_call(e):
    """(the call node, its transformations, the function, its node, the syntax tree, the
    frame) where the user's line calls a transformed function with arguments that the
    function it wraps does not take; None otherwise."""
    found = arity_statement(e)
    if not found:
        return None
    named, tree, frame = found
    short = named.rsplit(".", 1)[-1]
    for call in ast.walk(tree) if tree is not None and frame is not None else ():
        if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred)
                                                 for a in call.args):
            continue
        transforms, fun, node = _innermost(call.func, frame)
        # no transformation on the line: a name of the learner's bound to one (`f =
        # jax.jit(loss)`, a function under @jax.jit), never a library's own decorated function
        if not transforms and not (isinstance(call.func, ast.Name) and
                                   is_user_file(getattr(getattr(fun, "__code__", None),
                                                        "co_filename", ""))):
            continue
        named = "<lambda>" if isinstance(node, ast.Lambda) else getattr(fun, "__name__", None)
        if named == short and (transforms or _resolved(call.func, frame) is not fun):
            return call, transforms, fun, node, tree, frame
    return None


def _is_call_arity(e) -> bool:
    return _arity_call(e) is not None


def _parameters(fun, node) -> list | None:
    if isinstance(node, ast.Lambda):
        return None if node.args.vararg else [a.arg for a in node.args.args]
    return positional_parameters(fun)


def _argnums(transforms, call) -> object:
    """The literal argnums of the differentiating transformation on the call's line (0 where
    not written; None where not a literal)."""
    node = call.func
    while _transform(node) and _transform(node) not in _DIFFERENTIATE:
        node = node.args[0] if node.args else None
    if not _transform(node):
        return 0
    given = [k.value for k in node.keywords if k.arg == "argnums"] + node.args[1:2]
    try:
        return ast.literal_eval(given[0]) if given else 0
    except (ValueError, TypeError, SyntaxError):
        return None


def _what_it_does(transforms, callee, name, params, argnums) -> str:
    """What the transformed function does with the arguments it is given, in a sentence."""
    first = transforms[0] if transforms else None
    if set(transforms) & set(_DIFFERENTIATE):
        numbers = argnums if isinstance(argnums, tuple) else (argnums,)
        names = [params[n] for n in numbers if isinstance(n, int) and -len(params) <= n <
                 len(params)]
        wrt = (f"{' and '.join(names)} (argnums={argnums!r})" if names and argnums != 0
               else f"the first, {names[0]} (argnums=0)" if names else "argnums")
        return (f"{callee} calls {name} with every argument it is given, in order, and "
                f"differentiates with respect to {wrt}; it keeps none of them for itself, "
                f"the others pass on to {name} as they are.")
    if first == "jit":
        return f"{callee} calls {name} with every argument it is given, traced."
    if first == "vmap":
        return (f"{callee} calls {name} with one slice of every argument it is given (in_axes "
                f"says which axis each is mapped along).")
    if callee == name:          # a decorated function: its own name calls it
        return f"{callee} calls the {name} it wraps with every argument it is given."
    return f"{callee} calls {name} with every argument it is given."


def _missing(call, params, frame, tree) -> tuple:
    """(the parameters the call leaves out, the line with every parameter passed or None).
    Passed after the call's arguments where the frame binds each name; where the call gave
    parameters' own names at other places (`grad(loss, argnums=1)(x, y)` of loss(params, x,
    y): argnums read as choosing what to pass), every parameter by its name, in order."""
    keywords = {k.arg for k in call.keywords}
    names = [a.id if isinstance(a, ast.Name) else None for a in call.args]
    shifted = any(n in params and params.index(n) != i for i, n in enumerate(names))
    if shifted:
        order = [p for p in params if p not in keywords]
        left = [p for p in order if p not in names]
        fits = set(names) <= set(order)
    else:
        order = call.args + [p for p in params[len(call.args):] if p not in keywords]
        left = [p for p in params[len(call.args):] if p not in keywords]
        fits = True
    if not left or not fits or _axes_listed(call) or \
            any(_named_value(frame, p) is None for p in left):
        return left, None
    passed = ast.Call(call.func, [ast.Name(p, ast.Load()) if isinstance(p, str) else p
                                  for p in order], call.keywords)
    return left, _replaced(tree, call, passed)


def _axes_listed(call) -> bool:
    """Whether the call is vmap's with in_axes written as one entry per argument: passing
    more arguments needs more entries, which the card leaves to the learner (mapped or
    passed whole)."""
    vmap = call.func if _transform(call.func) == "vmap" else None
    given = [k.value for k in vmap.keywords if k.arg == "in_axes"] + vmap.args[1:2] \
        if vmap is not None else []
    return any(isinstance(g, (ast.Tuple, ast.List)) for g in given)


def _with_entries(call, n, callee) -> str:
    """`callee` (the vmap call's text) with `n` entries of 0 added to its listed in_axes."""
    if not _axes_listed(call):
        return callee
    vmap = call.func
    keywords = [ast.keyword(k.arg, ast.Tuple(k.value.elts + [ast.Constant(0)] * n, ast.Load()))
                if k.arg == "in_axes" else k for k in vmap.keywords]
    args = vmap.args[:1] + [ast.Tuple(a.elts + [ast.Constant(0)] * n, ast.Load())
                            for a in vmap.args[1:2]] + vmap.args[2:]
    return ast.unparse(ast.Call(vmap.func, args, keywords))


def _one_parameter_more(call, fun, node, tree, params) -> str | None:
    """A function of one parameter given one per extra argument, named as the call's names
    (plain names, none of them its parameter already): the lambda written on the line, or
    the def line of a function written in the learner's code; None otherwise."""
    extra = call.args[len(params):]
    names = [a.id for a in extra if isinstance(a, ast.Name)]
    if len(params) != 1 or len(names) != len(extra) or len(set(names)) != len(names) or \
            params[0] in names:
        return None
    if isinstance(node, ast.Lambda):
        before = node.args.args
        node.args.args = before + [ast.arg(n) for n in names]
        try:
            return f"{ast.unparse(tree)}    # the lambda takes every argument passed"
        finally:
            node.args.args = before
    found = _def_source(fun)
    if found is None:
        return None
    source, text = found
    header = source.body[0]
    line = header.lineno - 1          # (the def's own line, after its decorators)
    first = text.splitlines()[line]
    if header.body[0].lineno == header.lineno or not first.rstrip().endswith(":"):
        return None                  # (a header over several lines, or a body on its line)
    header.args.args = header.args.args + [ast.arg(n) for n in names]
    header.body, header.decorator_list = [ast.Expr(ast.Constant(...))], []
    lines = text.splitlines()
    lines[line] = ast.unparse(header).splitlines()[0] + "    # a parameter per argument"
    return "\n".join(lines + [ast.unparse(tree)])


def _def_source(fun):
    """(the syntax tree of `fun`'s def, its source text dedented), read from the learner's
    cell or file; None for a function of a library, a lambda, or one whose source is not at
    hand."""
    try:
        code = fun.__code__
        if code.co_name == "<lambda>" or "site-packages" in code.co_filename:
            return None
        text = textwrap.dedent(inspect.getsource(fun))
        tree = ast.parse(text)
    except (AttributeError, OSError, TypeError, SyntaxError):
        return None
    return (tree, text) if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None


def _grouped(call, fun, tree, params) -> str | None:
    """The extra arguments grouped into the tuple that `fun`'s last parameter is unpacked
    into (`xb, yb = batch` in its body), where their count is that tuple's; None otherwise."""
    found = _def_source(fun)
    source = found[0] if found else None
    last, extra = params[-1] if params else None, len(call.args) - len(params) + 1
    for node in ast.walk(source) if source is not None else ():
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and \
                node.value.id == last and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Tuple) and len(node.targets[0].elts) == extra:
            rest = call.args[len(params) - 1:]
            passed = ast.Call(call.func, call.args[:len(params) - 1] +
                              [ast.Tuple(rest, ast.Load())], call.keywords)
            return (f"{_replaced(tree, call, passed)}    # {last}: one tuple, as "
                    f"{ast.unparse(node.targets[0])} = {last} unpacks it")
    return None


def _plural(n, word) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _call_arity_card(exc, where, called_from) -> ErrorCard:
    call, transforms, fun, node, tree, frame = _arity_call(exc)
    name = "the lambda" if isinstance(node, ast.Lambda) else fun.__name__
    params = _parameters(fun, node) or []
    callee = written = ast.unparse(call.func)
    if len(callee) > 40:            # a lambda written in it: the transformation's name
        callee = f"{ast.unparse(call.func.func)}(…)" if transforms else name
    differentiates = bool(set(transforms) & set(_DIFFERENTIATE))
    does = _what_it_does(transforms, callee, name, params, _argnums(transforms, call))
    takes = f"{name} takes {_plural(len(params), 'argument')} ({', '.join(params)})"
    docs = _DOCS.get(transforms[0], _GRAD_DOCS) if transforms else None
    if "missing" in str(exc):
        left, rewrite = _missing(call, params, frame, tree)
        said = " and ".join(left)
        title = f"{callee} called without {said}: {takes}"
        fix = (f"Pass every argument {name} takes, in its order: {', '.join(params)}"
               + ("; argnums only says which of them are differentiated." if differentiates
                  else ".")
               + ("" if rewrite else f" Where nothing here is named {said}, pass your own "
                  f"values."))
        if _axes_listed(call):
            fix += (" in_axes needs an entry for each too: 0 maps it along its first axis, "
                    "None passes it whole to every call.")
        rewrite = f"{rewrite}    # every argument {name} takes" if rewrite else \
            f"# {_with_entries(call, len(left), written)}({', '.join(params)})    # with your " \
            f"own values, in this order"
        return ErrorCard("call-arity", title, why=f"{does} Here it was given "
                         f"{_plural(len(call.args), 'argument')}; {takes}.", fix=fix,
                         rewrite=rewrite, docs=docs)
    given = len(call.args)
    title = f"{callee} given {_plural(given, 'argument')}: {takes}"
    rewrite = _one_parameter_more(call, fun, node, tree, params)
    grouped = None if rewrite or not params else _grouped(call, fun, tree, params)
    fix = (f"Give {name} a parameter for each argument passed, in order"
           + (" (the data after what is differentiated)" if differentiates else "")
           + f", or pass only what {name} takes.")
    if grouped:
        rewrite, fix = grouped, (f"Pass the arguments past {', '.join(params[:-1])} as one "
                                 f"tuple, {params[-1]}, as {name} unpacks it.")
    if rewrite is None:
        rewrite = f"# {written}({', '.join(params)})    # one argument per parameter"
    return ErrorCard("call-arity", title, why=f"{does} Here it was given {given}; {takes}.",
                     fix=fix, rewrite=rewrite, docs=docs)


def in_axes_for_missing(exc, where, entries) -> tuple | None:
    """(the parameters a vmap call leaves out, the line passing them or None) where in_axes
    has `entries` entries, one per parameter of the function vmap maps, and the call passes
    fewer arguments: the in_axes are right, the call is short. None otherwise (in_axes of
    other entries than the function's parameters).

    `jax.vmap(loss, in_axes=(None, 0, 0))(params, x)` of loss(params, x, y): y left out,
    where the in_axes card dropped in_axes' last entry, a line loss refused next."""
    tree = _parse_line(_whole_statement(where)) if where else None
    frame = _user_frame(exc)
    for call in ast.walk(tree) if tree is not None and frame is not None else ():
        if isinstance(call, ast.Call) and _transform(call.func) == "vmap" and \
                not any(isinstance(a, ast.Starred) for a in call.args):
            _, fun, node = _innermost(call.func, frame)
            params = _parameters(fun, node) or []
            if len(params) != entries or len(call.args) >= entries:
                return None
            given = {k.arg for k in call.keywords}      # (passed by keyword: not missing)
            left = [p for p in params[len(call.args):] if p not in given]
            if not left:
                return None
            if any(_named_value(frame, p) is None for p in left):
                return left, None
            passed = ast.Call(call.func, call.args + [ast.Name(p, ast.Load()) for p in left],
                              call.keywords)
            return left, _replaced(tree, call, passed)
    return None
