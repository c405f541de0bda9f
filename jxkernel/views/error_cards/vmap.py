"""The card for vmap's inconsistent sizes: which argument has which size along which axis,
and the in_axes that map each along its own batch axis."""
from __future__ import annotations

import ast
import re
from collections import Counter

from .card import ErrorCard
from .reading import _public
from .rewrites import _parse_line


_VMAP_AXIS = re.compile(r"\* one axis had size (\d+): axis (-?\d+) of argument (.+?) of type "
                        r"(\w+)\[([\d,]*)\]")


def _is_vmap_sizes(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith("vmap got inconsistent sizes") \
        and _VMAP_AXIS.search(str(e)) is not None


def _vmap_card(exc, where, called_from) -> ErrorCard:
    mapped = [{"name": name, "axis": int(axis), "size": int(size),
               "type": f"{dtype}[{dims}]", "shape": [int(d) for d in dims.split(",") if d]}
              for size, axis, name, dtype, dims in _VMAP_AXIS.findall(str(exc))]
    sizes = Counter(m["size"] for m in mapped)
    size = max(sizes, key=lambda s: (sizes[s], -[m["size"] for m in mapped].index(s)))
    axes = [_axis_for(m, size) for m in mapped]
    advice = "; ".join(f"{m['name']}: " + (f"axis {a} has size {size}" if a is not None
                                            else f"None (not mapped: the same {m['name']} "
                                                 f"for every element)")
                       for m, a in zip(mapped, axes) if m["size"] != size)
    rewrite = _vmap_rewrite(where, mapped, axes) or \
        f"jax.vmap(f, in_axes=({', '.join(map(str, axes))}{',' if len(axes) == 1 else ''}))(...)"
    listing = ", ".join(f"{m['name']} {m['type']} axis {m['axis']} (size {m['size']})"
                        for m in mapped)
    return ErrorCard(
        "vmap-sizes", "vmap: the mapped axes have different sizes",
        why=(f"vmap maps every argument along its in_axes entry, one slice per element, so "
             f"those axes must have one size: {listing}."),
        fix=(f"Say per argument which axis to map, or None for an argument shared by every "
             f"element, with in_axes (to map over size {size}: {advice})."),
        rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin={"arguments": [{k: m[k] for k in ("name", "axis", "size", "type")}
                              for m in mapped]},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")


def _axis_for(mapped, size):
    if mapped["size"] == size:
        return mapped["axis"]
    return next((i for i, d in enumerate(mapped["shape"]) if d == size), None)


def _vmap_rewrite(where, mapped, axes) -> str | None:
    """The user's line with `in_axes` set, when it calls vmap(f)(a, b, ...) with plain
    arguments, one mapped leaf each."""
    tree = _parse_line(where)
    if tree is None or not all(m["name"].isidentifier() for m in mapped):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                ast.unparse(node.func.func).split(".")[-1] == "vmap":
            names = [ast.unparse(a) for a in node.args]
            if len(names) != len(mapped) or node.keywords:
                return None
            in_axes = ast.parse(repr(tuple(axes)), mode="eval").body
            node.func.keywords = [k for k in node.func.keywords if k.arg != "in_axes"] + \
                [ast.keyword("in_axes", in_axes)]
            node.func.args = node.func.args[:1]
            return ast.unparse(tree)
    return None
