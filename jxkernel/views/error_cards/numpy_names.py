"""The card for NumPy 1.x's names that NumPy 2.0 removed, and jax.numpy with it, asked of
jax.numpy by code from an older tutorial: `jnp.in1d`, `jnp.product`, `jnp.NaN`, `jnp.trapz`,
`jnp.row_stack`. The rewrite is the line with NumPy 2's name (NumPy's migration guide), each
checked under JAX 0.10.2 (tests/data/learner_mistakes_cases.py NUMPY1_NAMES).

    jnp.in1d(a, b)  ->  jnp.isin(a, b)
    jnp.NINF        ->  -jnp.inf
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .rewrites import _first_call, _parse_line, _replaced
from .torch_habits import _NO_FUNCTION

# NumPy 1.x's name: NumPy 2's (numpy.org's "NumPy 2.0 migration guide")
RENAMED = {"in1d": "isin", "product": "prod", "alltrue": "all", "sometrue": "any",
           "cumproduct": "cumprod", "round_": "round", "NaN": "nan", "NAN": "nan",
           "Inf": "inf", "Infinity": "inf", "infty": "inf", "PINF": "inf", "NINF": "-inf",
           "trapz": "trapezoid", "row_stack": "vstack", "bool8": "bool_"}


def _is_numpy1_name(e) -> bool:
    found = isinstance(e, AttributeError) and _NO_FUNCTION.match(str(e))
    return bool(found) and found.group(1) in RENAMED


def _numpy1_card(exc, where, called_from) -> ErrorCard:
    old = _NO_FUNCTION.match(str(exc)).group(1)
    new = RENAMED[old]
    tree = _parse_line(where)
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == old),
                None) if tree is not None else None
    module = ast.unparse(node.value) if node is not None else "jnp"
    spelled = f"-{module}.{new[1:]}" if new.startswith("-") else f"{module}.{new}"
    rewrite = f"{_replaced(tree, node, spelled)}    # NumPy 2's name" if node is not None \
        else f"# {module}.{old} is {spelled} now"
    return ErrorCard(
        "numpy1-name", f"{module}.{old} is NumPy 1.x's: NumPy 2 and JAX write {spelled}",
        why=(f"NumPy 2.0 removed {old} (an alias, or a name of its own for what {spelled} "
             f"does), and jax.numpy follows NumPy 2's names; code from before 2024 still "
             f"uses it."),
        fix=f"Write {spelled} in its place.", rewrite=rewrite,
        docs="https://numpy.org/doc/stable/numpy_2_0_migration_guide.html")


# ------------------------------------------------------------------ clip's NumPy 1.x keywords
# jnp.clip's a_min=, a_max= and a= (NumPy before 2.1), which JAX 0.10.2 no longer takes
_CLIP_KEYWORD = re.compile(r"^_?clip\(\) got an unexpected keyword argument '(a_min|a_max|a)'$")
_CLIP_NAMES = {"a_min": "min", "a_max": "max"}


def _is_clip_keyword(e) -> bool:
    return isinstance(e, TypeError) and _CLIP_KEYWORD.match(str(e)) is not None


def _clip_keyword_card(exc, where, called_from) -> ErrorCard:
    old = _CLIP_KEYWORD.match(str(exc)).group(1)
    tree = _parse_line(where)
    call = _first_call(tree, {"clip"})
    rewrite = f"# {old}= is written {_CLIP_NAMES.get(old, 'as the first argument')} now"
    if call is not None:
        given = [k.value for k in call.keywords if k.arg == "a"]
        new = ast.Call(call.func, given + list(call.args),
                       [ast.keyword(_CLIP_NAMES.get(k.arg, k.arg), k.value)
                        for k in call.keywords if k.arg != "a"])
        rewrite = f"{_replaced(tree, call, new)}    # NumPy 2's keywords"
    return ErrorCard(
        "numpy1-name", f"{old}= is NumPy 1.x's: NumPy 2 and JAX write "
                       f"{_CLIP_NAMES.get(old, 'the array first')}",
        why=("jnp.clip follows NumPy 2.1's clip(arr, /, min=None, max=None): the bounds are "
             "min= and max= (a_min= and a_max= before), and the array goes first, by "
             "position (a= before)."),
        fix="Write min= and max= for a_min= and a_max=, and pass the array first.",
        rewrite=rewrite, docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.clip.html")
