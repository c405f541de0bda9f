"""The card for an option given by position where JAX takes it by keyword only, as NumPy's or
Python's own function of the same name takes it: `jax.jit(f, 1)` (static_argnums),
`jax.nn.one_hot(labels, 3, jnp.float32)` (dtype), `jnp.pad(x, 1, 'constant', 0)`
(constant_values), `jax.lax.map(f, xs, 2)` (batch_size), `jnp.argmax(x, 0, True)` (keepdims,
where NumPy's third is `out`). Python counts the arguments ("jit() takes from 0 to 1
positional arguments but 2 were given") and names no option. The rewrite names it:

    jax.jit(f, 1)                      ->  jax.jit(f, static_argnums=1)
    jax.nn.one_hot(labels, 3, jnp.int8)  ->  jax.nn.one_hot(labels, 3, dtype=jnp.int8)

`jax.lax.map(f, xs, ys)`, Python's map given two sequences, gets them as one tuple that f
unpacks: lax.map maps over one pytree."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .random_arguments import _is_dtype_text
from .reading import _user_lines
from .rewrites import _called, _int_written, _parse_line, _replaced

_COUNT = re.compile(r"^(\w+)\(\) takes (?:from \d+ to )?\d+ positional arguments? but \d+ were "
                    r"given$")
_OUT = re.compile(r"^The 'out' argument to jnp\.(argmax|argmin) is not supported\.$")


def _constant(node, kind) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is kind


def _ints(node) -> bool:
    """An int written out, or a tuple of them: jit's static_argnums."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    return bool(items) and all(_int_written(n) for n in items)


def _strings(node) -> bool:
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    return bool(items) and all(_constant(n, str) for n in items)


def _one_hot(extra) -> list | None:
    """one_hot(x, num_classes, *, dtype, axis): a dtype or an axis after the class count."""
    if len(extra) == 1:
        return ["dtype" if _is_dtype_text(extra[0]) else "axis" if _ints(extra[0]) else None]
    return None


# function (its last name) -> (the path its call ends with, its parameters by position, the
# keyword each further argument was meant for: a function of those arguments' nodes giving
# their names, None where no reading fits)
_OPTIONS = {
    "jit": ("jit", 1, lambda extra: ["static_argnums" if _ints(extra[0]) else
                                     "static_argnames" if _strings(extra[0]) else None]
            if len(extra) == 1 else None),
    "one_hot": ("nn.one_hot", 2, _one_hot),
    "pad": ("pad", 3, lambda extra: ["constant_values"] if len(extra) == 1 else None),
    "map": ("lax.map", 2, lambda extra: ["batch_size"] if len(extra) == 1 and
            _int_written(extra[0]) else None),
    "argmax": ("argmax", 2, lambda extra: ["keepdims"] if len(extra) == 1 and
               _constant(extra[0], bool) else None),
}
_OPTIONS["argmin"] = ("argmin",) + _OPTIONS["argmax"][1:]
_DOCS = {"jit": "jax.jit", "one_hot": "jax.nn.one_hot", "map": "jax.lax.map"}


def _is_keyword_option(e) -> bool:
    found = isinstance(e, (TypeError, NotImplementedError)) and (
        _COUNT.match(str(e)) or _OUT.match(str(e)))
    if not found or found.group(1) not in _OPTIONS:
        return False
    where, _ = _user_lines(e)
    return _option_call(where, found.group(1)) is not None


def _option_call(where, name):
    """(the line's tree, the call, the keywords its further arguments were meant for, or
    None for lax.map given several sequences), or None where the line has no such call."""
    tree = _parse_line(where)
    path, count, keywords = _OPTIONS[name]
    for call in ast.walk(tree) if tree is not None else ():
        if _called(call) != name or not ast.unparse(call.func).endswith(path) or \
                len(call.args) <= count or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        named = keywords(call.args[count:])
        if named is not None and None not in named and \
                not {k.arg for k in call.keywords} & set(named):
            return tree, call, named
        if name == "map" and all(not isinstance(a, ast.Constant) for a in call.args[1:]):
            return tree, call, None         # Python's map(f, xs, ys)
    return None


def _keyword_option_card(exc, where, called_from) -> ErrorCard:
    name = (_COUNT.match(str(exc)) or _OUT.match(str(exc))).group(1)
    tree, call, named = _option_call(where, name)
    func = ast.unparse(call.func)
    docs = (f"https://docs.jax.dev/en/latest/_autosummary/"
            f"{_DOCS.get(name, 'jax.numpy.' + name)}.html")
    if named is None:
        return _sequences_card(tree, call, func, docs)
    count = _OPTIONS[name][1]
    extra = call.args[count:]
    new = ast.Call(call.func, call.args[:count],
                   call.keywords + [ast.keyword(k, v) for k, v in zip(named, extra)])
    values = ", ".join(ast.unparse(v) for v in extra)
    if name in ("argmax", "argmin"):
        why = (f"{func}(a, axis, out) takes out third, as NumPy's does, which JAX does not "
               f"support, and keepdims by keyword only: {values} by position was taken as out.")
    else:
        why = (f"{func} takes {count} argument{'s' if count > 1 else ''} by position and "
               f"{', '.join(named)} by keyword only: {values} given by position was one "
               f"argument too many, and Python's message counts them, naming no option.")
    return ErrorCard(
        "keyword-option", f"{func} takes {', '.join(named)} by keyword only",
        why=why,
        fix=f"Name it: {ast.unparse(new)}.",
        rewrite=f"{_replaced(tree, call, new)}    # {', '.join(named)} by keyword",
        docs=docs)


def _sequences_card(tree, call, func, docs) -> ErrorCard:
    """lax.map(f, xs, ys): one tuple of the sequences, which the function unpacks."""
    f, seqs = call.args[0], call.args[1:]
    names = ", ".join(ast.unparse(s) for s in seqs)
    # (a lambda written on the line called in parentheses: `lambda args: (lambda p, q: ...)(
    # *args)`, where unparenthesized its body would be the call)
    callee = f"({ast.unparse(f)})" if isinstance(f, ast.Lambda) else ast.unparse(f)
    packed = ast.parse(f"lambda args: {callee}(*args)", mode="eval").body
    new = ast.Call(call.func, [packed, ast.Tuple(list(seqs), ast.Load())], call.keywords)
    return ErrorCard(
        "keyword-option", f"{func} maps over one pytree, not several sequences",
        why=(f"Python's map(f, {names}) takes a sequence per argument of f; {func}(f, xs) "
             f"takes one pytree and calls f with one slice of it per step (a tuple of "
             f"{names} gives f a tuple of their slices): Python's message counts the "
             f"arguments."),
        fix=(f"Give lax.map the sequences as one tuple and unpack it in the function: "
             f"{ast.unparse(new)}; or, when the steps need not run one by one, "
             f"jax.vmap({ast.unparse(f)})({names})."),
        rewrite=f"{_replaced(tree, call, new)}    # one tuple, unpacked for f",
        docs=docs)
