"""The card for vmap's in_axes given a dict for a dict argument with other keys than the
argument has: `jax.vmap(f, in_axes=({'w': None}, 0))(params, x)` where params also holds 'b'.
A dict in in_axes stands for the argument's structure (a tree prefix of it), so it needs every
key; JAX's message walks the two trees ("different numbers of pytree children at key path
vmap in_axes[0] ... the symmetric difference on key sets is b"). Where every entry of the dict
is the same (None: the parameters passed whole to every call), that one entry stands for the
whole dict:

    jax.vmap(f, in_axes=({'w': None}, 0))(params, x)
        ->  jax.vmap(f, in_axes=(None, 0))(params, x)
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .rewrites import _parse_line, _pattern, _replaced

_PREFIX = "vmap in_axes specification must be a tree prefix of the corresponding value"
# one mismatch of JAX's message: the key path under in_axes, the dict's keys, the argument's
_KEYS = re.compile(r"different numbers of pytree children at key path\n    vmap in_axes(\S*)\n"
                   r"At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
                   r"    <class 'dict'>\nwith \d+ child keys\n    (.*)\nbut at the same key path "
                   r"the full pytree has a subtree of the same type but with \d+ child keys\n"
                   r"    (.*)\n")


def _is_in_axes_keys(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith(_PREFIX) and \
        _KEYS.search(str(e)) is not None


def _in_axes_dict(where, path):
    """(the line's tree, the dict written in the vmap call's in_axes at JAX's key path
    `[0]['layer']`), or (tree, None) where the line does not show it."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if not (isinstance(call, ast.Call) and ast.unparse(call.func).endswith("vmap")):
            continue
        node = next((k.value for k in call.keywords if k.arg == "in_axes"), None)
        for step in re.findall(r"\[([^\]]+)\]", path):
            step = ast.literal_eval(step)
            if isinstance(node, (ast.Tuple, ast.List)) and isinstance(step, int) and \
                    step < len(node.elts):
                node = node.elts[step]
            elif isinstance(node, ast.Dict) and any(
                    isinstance(k, ast.Constant) and k.value == step for k in node.keys):
                node = next(v for k, v in zip(node.keys, node.values)
                            if isinstance(k, ast.Constant) and k.value == step)
            else:
                node = None
        if isinstance(node, ast.Dict):
            return tree, node
    return tree, None


def _in_axes_keys_card(exc, where, called_from) -> ErrorCard:
    path, given, held = _KEYS.search(str(exc)).groups()
    given, held = given.split(), held.split()
    missing = [k for k in held if k not in given]
    extra = [k for k in given if k not in held]
    tree, node = _in_axes_dict(where, path)
    entries = {ast.unparse(v) for v in node.values} if node is not None else set()
    said = ", ".join(f"{k!r}" for k in missing) + " missing" if missing else ""
    said += ("; " if said else "") + ", ".join(f"{k!r}" for k in extra) + \
        " not in the argument" if extra else ""
    if node is not None and len(entries) == 1:
        (entry,) = entries
        rewrite = f"{_replaced(tree, node, entry)}    # {entry} for the whole dict"
        fix = (f"Give the argument one entry, {entry}, for all of its keys at once (a single "
               f"entry stands for everything under it); or list every key.")
    else:
        keys = ", ".join(f"{k!r}: ..." for k in held)
        rewrite = _pattern(f"in_axes=({{{keys}}}, ...)    # every key of the argument")
        fix = "List every key of the argument in the dict, each with its axis or None."
    return ErrorCard(
        "vmap-in-axes", f"vmap: in_axes's dict has other keys than the argument ({said})",
        why=(f"A dict in in_axes stands for the structure of the argument it matches (a tree "
             f"prefix of it), so it has to have the argument's keys, {', '.join(held)}; it has "
             f"{', '.join(given)}."),
        fix=fix, rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")
