"""The card for one random key used twice (KeyReuseError, with jax_debug_key_reuse): the key
split, and the learner's two draws from it, read back from the line raised for and the draw
before it, each given a key of its own as written (shape and arguments kept)."""
from __future__ import annotations

import ast
import linecache
import re

from ..source_edits import replaced
from .card import ErrorCard, _DOCS


# ------------------------------------------------------------------ one key used twice
def _key_reuse_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "key-reuse", "A random key was used twice",
        why=("The same key gives the same numbers every time it is used: two draws from one "
             "key are not independent (jax_debug_key_reuse found this one)."),
        fix=("Split the key, one new key per use: k1, k2 = jax.random.split(key); keep a key "
             "to split again later as the first of the split (key, sub = split(key))."),
        rewrite=_key_reuse_rewrite(where),
        docs=_DOCS + "KeyReuseError")


def _key_reuse_rewrite(where) -> str:
    """The split, then the learner's two draws from the key (the line raised for and the
    draw before it from the same name, read back in its file) each with a key of its own, as
    they were written: it was a template of two draws, `jax.random.normal(k1)`, which dropped
    the learner's shape and names. The template where the line draws from no named key."""
    second = _draw_from_key(where["code"]) if where else None
    if second is None:
        inside = _draws_in_the_called_function(where) if where else None
        if inside is not None:
            return inside
        return ("key, k1, k2 = jax.random.split(key, 3)    # one key per draw, and one to "
                "keep\na = jax.random.normal(k1)\nb = jax.random.normal(k2)")
    key, module, _ = second
    first = None
    path, line = where.get("_path"), where.get("line") or 0
    for number in range(line - 1, 0, -1) if path else ():
        text = linecache.getline(path, number)
        found = _draw_from_key(text.strip())
        if found is not None and found[0] == key:
            first = (number, text.strip(), found)
            break
        if re.match(r"\s*(?:async\s+)?def\s", text):        # the function's start
            break
    split = (f"{key}, k1, k2 = {module}.split({key}, 3)    # one key per draw, and one to keep")
    if first is None:
        return (f"{split}: before the first draw from {key}, which takes k1\n"
                f"{second[2]('k2')}    # in place of this line")
    return (f"{split}\n{first[2][2]('k1')}    # in place of line {first[0]}\n"
            f"{second[2]('k2')}    # in place of line {line}")


def _draw_from_key(code):
    """(the key's name, the random module's spelling, a function giving the line with
    another key in its place) for a line calling `<module>.random.<draw>(key, ...)` on a named
    key (split and fold_in are no draws), else None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and call.args and
                isinstance(call.args[0], ast.Name) and call.args[0].end_lineno == 1):
            continue
        module, _, name = ast.unparse(call.func).rpartition(".")
        if not module.endswith("random") or name in ("split", "fold_in", "key", "PRNGKey",
                                                     "key_data", "wrap_key_data"):
            continue
        return (call.args[0].id, module,
                lambda new, key=call.args[0]: replaced(code, [(key, new)]))
    return None


def _draws_in_the_called_function(where):
    """The split and the two draws of a function the line raised for calls (a jitted one:
    JAX 0.10.2 raises "In jit, argument 0 is already consumed" at its call, on the line
    that calls it), where that function is defined in the same file and draws twice from one
    named key: the rewrite of those two lines, as for two draws at top level; else None."""
    path, line = where.get("_path"), where.get("line") or 0
    try:
        called = {n.func.id if isinstance(n.func, ast.Name) else n.func.attr
                  for n in ast.walk(ast.parse(where["code"])) if isinstance(n, ast.Call)
                  and isinstance(n.func, (ast.Name, ast.Attribute))}
        tree = ast.parse("".join(linecache.getlines(path))) if path else None
    except SyntaxError:
        return None
    defs = [d for d in ast.walk(tree) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
            and d.name in called and d.lineno < line] if tree is not None else []
    for fun in defs[::-1]:                  # the last definition before the call
        seen = {}
        for number in range(fun.body[0].lineno, fun.end_lineno + 1):
            found = _draw_from_key(linecache.getline(path, number).strip())
            if found is None:
                continue
            if found[0] in seen:
                (first, draw), module = seen[found[0]], found[1]
                key = found[0]
                return (f"{key}, k1, k2 = {module}.split({key}, 3)    # one key per draw, and "
                        f"one to keep\n{draw[2]('k1')}    # in place of line {first}\n"
                        f"{found[2]('k2')}    # in place of line {number}")
            seen[found[0]] = (number, found)
    return None
