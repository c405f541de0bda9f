"""The card for scan's inputs of two lengths: xs whose leaves have different leading sizes
(most often a value the same at every step, such as a weight matrix, put in xs beside the
per-step data), or a `length=` that disagrees with xs. scan (lax.py's, and lax.map's) attaches
each xs leaf's key path and leading size to its ValueError, which the card lists. Also the
card for xs with no leading axis at all: a number where a sequence of steps goes, most often
the number of steps (`lax.scan(f, init, 10)`), and for no xs and no length at all
(`lax.scan(f, init)`): nothing says how many steps to run."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame
from .returns import _learners_def
from .rewrites import (_called, _first_call, _operand, _parse_line, _pattern, _replaced,
                       _whole_statement)

_SIZES = "scan got values with different leading axis sizes: "
_LENGTH = re.compile(r"^scan got `length` argument of (\d+) which disagrees with leading axis "
                     r"sizes \[([\d, ]+)\]\.$")
_XS_POSITION = {"scan": 2, "map": 1}    # where xs goes in lax.scan(f, init, xs) / map(f, xs)


# jxkernel/lax/scan.py's words (JAX's for a number; its own for a 0-d array, where JAX's
# IndexError says only "tuple index out of range")
_NO_AXIS = ("scan got value with no leading axis to scan over: ",
            "scan got an array of shape () in xs, with no leading axis to scan over: ")


# JAX's words (lax.scan's and lax.map's) for xs None, or a tree holding no arrays, with no length
_NO_XS = "scan got no values to scan over and `length` not provided."
# the count the rewrite gives length= where the line says none: a number, said to be the
# learner's to set, so that the line pasted runs (a name such as `n` would be a NameError)
_STEPS = 10


def _is_scan_lengths(e) -> bool:
    if isinstance(e, (ValueError, IndexError)) and str(e).startswith(_NO_AXIS):
        return True
    if isinstance(e, ValueError) and str(e) == _NO_XS:
        return True
    return isinstance(e, ValueError) and hasattr(e, "xs_lengths") and \
        (str(e).startswith(_SIZES) or _LENGTH.match(str(e)) is not None)


def _scan_lengths_card(exc, where, called_from) -> ErrorCard:
    if str(exc).startswith(_NO_AXIS):
        return _no_axis_card(exc, where)
    if str(exc) == _NO_XS:
        return _no_xs_card(exc, where)
    leaves = exc.xs_lengths
    tree = _parse_line(where)
    call = _scan_call(tree) if tree is not None else None
    # each leaf by the name the line gives xs (`data['y']`, not scan's `xs['y']`)
    xs = _xs_node(call) if call is not None else None
    name = xs.id if isinstance(xs, ast.Name) else "xs"
    listing = ", ".join(f"{name}{path} has {size}" for path, size, _ in leaves)
    # the table vmap-sizes draws: each leaf, the axis scan steps along, its length, its type
    origin = {"arguments": [{"name": f"{name}{path}", "axis": 0, "size": size, "type": type_}
                            for path, size, type_ in leaves]}
    docs = "https://docs.jax.dev/en/latest/_autosummary/jax.lax.scan.html"
    given = _LENGTH.match(str(exc))
    if given is not None:
        length = int(given.group(1))
        rewrite = _without_length(tree, call)
        return ErrorCard(
            "scan-lengths", f"scan was told length={length}, but xs has "
                            f"{leaves[0][1]} steps",
            why=(f"scan runs one step per slice of xs along its leading axis, so the number of "
                 f"steps is the length of xs ({listing}); length= may only say the same."),
            fix=("Leave length out when you give xs (scan reads it from xs), or give xs of "
                 f"{length} steps. length= alone is for a scan with xs=None."),
            rewrite=(f"{rewrite}    # the length of xs" if rewrite else
                     _pattern("carry, ys = lax.scan(f, init, xs)    # no length=: xs says it")),
            origin=origin, docs=docs)
    shortest = min(size for _, size, _ in leaves)
    # in xs's order, each once: JAX's message lists the leaves' sizes in that order ("6, 3")
    sizes = list(dict.fromkeys(size for _, size, _ in leaves))
    rewrite = _trimmed(tree, call, len(leaves), shortest)
    return ErrorCard(
        "scan-lengths", f"scan's xs have different lengths "
                        f"({', '.join(map(str, sizes[:-1]))} and {sizes[-1]})",
        why=(f"scan takes one slice of every leaf of xs per step, along the leading axis, so "
             f"all of them must have the same length: {listing}."),
        fix=("If one of them is the same at every step (a weight matrix, a constant), do not "
             "put it in xs: use it inside the body (the body may read names from outside) or "
             "pass it along in the carry. If each is a sequence of steps, give them one "
             "length."),
        rewrite=(f"{rewrite}    # every leaf cut to {shortest} steps" if rewrite else
                 _pattern("carry, ys = lax.scan(lambda c, x: step(c, x, W), init, xs)    "
                          "# W: the same every step, read in the body")),
        origin=origin, docs=docs)


def _no_axis_card(exc, where) -> ErrorCard:
    """xs a number: scan runs one step per entry along xs's first axis, and a number has none.
    An int written in the line (a literal or a name) is read as the number of steps, the
    learner's likely meaning: `jnp.arange(n)` gives n steps whose x is the step's index, which
    works whether the body reads x or not (`xs=None, length=n` would give it x=None)."""
    tree = _parse_line(where)
    call = _scan_call(tree) if tree is not None else None
    xs = _xs_node(call) if call is not None else None
    given = str(exc).split(": ", 1)[1].rstrip(".")
    steps = _int_literal(xs) if xs is not None else None
    is_int = steps is not None or (isinstance(xs, ast.Name) and given.isdigit())
    docs = "https://docs.jax.dev/en/latest/_autosummary/jax.lax.scan.html"
    numbers = _listed_numbers(xs, _user_frame(exc)) if xs is not None else None
    if numbers is not None:
        # a Python list of numbers: a pytree of that many leaves, each with no axis; the
        # learner meant one array of as many steps
        what = "map's" if _called(call) == "map" else "scan's"
        src = ast.unparse(xs)
        return ErrorCard(
            "scan-lengths", f"{what} xs is a Python list of {numbers} numbers, not an array "
                            f"of {numbers} steps",
            why=(f"{what[:-2]} walks the leading axis of each leaf of xs, and a Python list is a "
                 f"pytree whose entries are its leaves: {numbers} numbers, none with an axis "
                 f"to step through."),
            fix=f"Make it one array: jnp.asarray({src}) has {numbers} steps.",
            rewrite=(f"{_replaced(tree, xs, f'jnp.asarray({src})')}    # one array: "
                     f"{numbers} steps"),
            docs=docs)
    if is_int:
        count = steps if steps is not None else int(given)
        src = ast.unparse(xs)
        rewrite = (f"{_replaced(tree, xs, f'jnp.arange({src})')}    # {count} steps, "
                   f"x = 0, 1, ..., {count - 1}")
    else:
        rewrite = _pattern("carry, ys = lax.scan(f, init, xs)    # xs: one row per step, "
                           "e.g. jnp.arange(n) for n steps")
    return ErrorCard(
        "scan-lengths", f"scan's xs is {given}, a number with no steps to walk",
        why=("scan runs one step per slice of xs along its leading axis, giving the body that "
             f"slice as x; {given} has no axis, so there is nothing to step through."),
        fix=("Give xs one entry per step: jnp.arange(n) runs n steps with x = 0, ..., n-1. If "
             "the body takes no per-step value, xs=None with length=n runs n steps with "
             "x = None. A value the same at every step goes in the body or the carry, not in "
             "xs."),
        rewrite=rewrite, docs=docs)


def _no_xs_card(exc, where) -> ErrorCard:
    """Neither xs nor length (`lax.scan(body, 0)`, or xs=None): scan counts its steps by xs's
    leading axis, so it has no count. The line with `length=` added where the body reads no
    x (each step's x is then None, and JAX 0.10.2 runs it); where it reads x, or the body
    cannot be read, xs is what it lacks, and the card says so in words."""
    tree = _parse_line(_whole_statement(where))
    call = _scan_call(tree) if tree is not None else None
    docs = "https://docs.jax.dev/en/latest/_autosummary/jax.lax.scan.html"
    if call is not None and _called(call) == "map":
        return ErrorCard(
            "scan-lengths", "lax.map got no xs: there is nothing to map over",
            why=("lax.map(f, xs) calls f once per slice of xs along its leading axis (as a "
                 "scan); xs here is None, or holds no arrays, so there are no calls to make."),
            fix=("Give xs with one entry per call of f (jnp.arange(n) gives n calls, with x = "
                 "0, ..., n-1). For n steps that take no per-step value, lax.scan with "
                 "length=n runs them."),
            rewrite=_pattern("ys = lax.map(f, xs)    # xs: one entry per call, e.g. "
                             "jnp.arange(n)"),
            docs=docs)
    xs = _xs_node(call) if call is not None else None
    no_xs = xs is None or isinstance(xs, ast.Constant) and xs.value is None
    reads = _body_reads_x(exc, call.args[0]) if call is not None and call.args else None
    rewrite = _with_length(tree, call) if no_xs and reads is False else None
    if rewrite is not None:
        rewrite += (f"    # {_STEPS} steps, x = None in each: your own count in place of "
                    f"{_STEPS}")
    elif reads:
        rewrite = _pattern(f"carry, ys = lax.scan(f, init, xs)    # xs: one entry per step, "
                           f"e.g. jnp.arange({_STEPS})")
    else:
        rewrite = _pattern(f"carry, ys = lax.scan(f, init, length={_STEPS})    # a body that "
                           f"reads no x\ncarry, ys = lax.scan(f, init, xs)    # xs: one entry "
                           f"per step, e.g. jnp.arange({_STEPS})")
    fix = ("Your body reads its x, so it needs xs, one entry per step: jnp.arange(N) runs N "
           "steps with x = 0, ..., N-1 (length=N alone would give it x = None)." if reads else
           "Pass length=N to run N steps whose x is None (a body that reads no x), or xs with "
           "one entry per step: jnp.arange(N) runs N steps with x = 0, ..., N-1.")
    return ErrorCard(
        "scan-lengths", "scan got neither xs nor length: nothing says how many steps to run",
        why=("scan runs its body once per slice of xs along the leading axis, so the length "
             "of xs is the number of steps; here xs is None (or holds no arrays) and length= "
             "is not given, so there is no count."),
        fix=fix, rewrite=rewrite, docs=docs)


def _body_reads_x(exc, fun) -> bool | None:
    """Whether a scan body (a lambda on the line, or a def the learner's names hold) reads
    its second parameter, x; None where its source is not there to read."""
    if isinstance(fun, ast.Name):
        fun = _learners_def(exc, fun.id)
    if not isinstance(fun, (ast.Lambda, ast.FunctionDef)):
        return None
    params = fun.args.args
    if len(params) != 2 or fun.args.vararg:
        return None
    x = params[1].arg
    body = [fun.body] if isinstance(fun, ast.Lambda) else fun.body
    return any(isinstance(n, ast.Name) and n.id == x for part in body for n in ast.walk(part))


def _with_length(tree, call) -> str | None:
    """The learner's line with `length=_STEPS` in its scan call (in place of a positional
    length of None)."""
    if call is None or _called(call) != "scan":
        return None
    args = list(call.args)
    keywords = [k for k in call.keywords if k.arg != "length"]
    if len(args) > 3:
        args[3] = ast.Constant(_STEPS)
    else:
        keywords.append(ast.keyword("length", ast.Constant(_STEPS)))
    return _replaced(tree, call, ast.Call(call.func, args, keywords))


def _int_literal(node):
    """The int a literal node holds (`10`), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _listed_numbers(xs, frame) -> int | None:
    """How many numbers xs holds where it is a Python list or tuple of them, written on the
    line or named (read in the user's frame); else None."""
    value = xs
    if isinstance(xs, ast.Name) and frame is not None:
        value = _named_value(frame, xs.id)
        ok = isinstance(value, (list, tuple)) and value and all(
            type(v) in (int, float) for v in value)
        return len(value) if ok else None
    if isinstance(xs, (ast.List, ast.Tuple)) and xs.elts and all(
            _int_literal(e) is not None or isinstance(e, ast.Constant) and
            type(e.value) is float or isinstance(e, ast.UnaryOp) and
            isinstance(e.operand, ast.Constant) for e in xs.elts):
        return len(xs.elts)
    return None


def _scan_call(tree):
    return _first_call(tree, _XS_POSITION)


def _xs_node(call):
    position = _XS_POSITION[_called(call)]
    keyword = next((k.value for k in call.keywords if k.arg == "xs"), None)
    return keyword or (call.args[position] if len(call.args) > position else None)


def _trimmed(tree, call, n_leaves, length) -> str | None:
    """The user's line with each entry of its xs tuple cut to `length` steps, where xs is
    written out as a tuple or list of one leaf per entry, else each leaf of its xs cut by
    jax.tree.map; None where the line has no xs."""
    xs = _xs_node(call) if call is not None else None
    if xs is None:
        return None
    if not isinstance(xs, (ast.Tuple, ast.List)) or len(xs.elts) != n_leaves or \
            any(isinstance(e, (ast.Tuple, ast.List, ast.Dict, ast.Starred)) for e in xs.elts):
        # a name or a nested tree (`data`, a dict of arrays): each leaf cut by tree.map (it
        # gave `lax.scan(lambda c, x: step(c, x, W), init, xs)` as code, a NameError pasted)
        cut = ast.parse(f"jax.tree.map(lambda a: a[:{length}], _xs)", mode="eval").body
        cut.args[1] = xs
        return _replaced(tree, xs, cut)
    cut = type(xs)([ast.parse(f"{_operand(e)}[:{length}]", mode="eval").body
                    for e in xs.elts], ast.Load())
    return _replaced(tree, xs, cut)


def _without_length(tree, call) -> str | None:
    """The user's line with scan's `length` argument dropped (a keyword, or scan's fourth
    positional argument); None where the line has no such call."""
    if call is None or _called(call) != "scan":
        return None
    kept = ast.Call(call.func, call.args[:3],
                    [k for k in call.keywords if k.arg != "length"])
    return _replaced(tree, call, kept)
