"""Cards for jax.random: a seed passed where a key goes, one key used twice
(jax_debug_key_reuse), and NumPy's arguments given to jax.random's functions (size=, low=,
loc=, randint(0, 10) without a shape)."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard, _DOCS
from .reading import _user_lines
from .rewrites import _parse_line, _replaced


# ------------------------------------------------------------------ one key used twice
def _key_reuse_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "key-reuse", "A random key was used twice",
        why=("The same key gives the same numbers every time it is used: two draws from one "
             "key are not independent (jax_debug_key_reuse found this one)."),
        fix=("Split the key, one new key per use: k1, k2 = jax.random.split(key); keep a key "
             "to split again later as the first of the split (key, sub = split(key))."),
        rewrite=("key, k1, k2 = jax.random.split(key, 3)    # one key per draw, and one to "
                 "keep\na = jax.random.normal(k1)\nb = jax.random.normal(k2)"),
        docs=_DOCS + "KeyReuseError")


# ------------------------------------------------------------------ a seed where a key goes
def _is_seed_as_key(e) -> bool:
    return isinstance(e, TypeError) and str(e).startswith(
        "JAX encountered invalid PRNG key data")


def _seed_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "seed-as-key", "A random function was given a seed, not a key",
        why=("jax.random's functions take a key, made once from a seed (jax.random.key(0)); "
             "a plain number or a 0-d array is not one."),
        fix=("Make a key from the seed, then split it for each new use (the same key gives "
             "the same numbers)."),
        rewrite=_key_rewrite(where),
        docs="https://docs.jax.dev/en/latest/random-numbers.html")


def _key_rewrite(where) -> str:
    """The user's call of jax.random.<fn>(seed, ...) with the seed made a key, through the
    same module name (`random.normal(0)` after `from jax import random`: random.key)."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        func = ast.unparse(call.func) if isinstance(call, ast.Call) else ""
        if func.rpartition(".")[0].endswith("random") and call.args:
            seed = ast.unparse(call.args[0])
            module = func.rpartition(".")[0]
            segment = ast.get_source_segment(where["code"], call.args[0])
            if segment:
                line = where["code"].replace(segment, f"{module}.key({seed})", 1)
                return f"{line}    # a key from the seed; split it for the next draw"
    return ("key = jax.random.key(0)              # once, from a seed\n"
            "key, sub = jax.random.split(key)     # a new key for each use\n"
            "x = jax.random.normal(sub, (3,))")


# ------------------------------------------------------------------ NumPy's random arguments
# Python's words for a jax.random call written as NumPy's: a keyword NumPy's functions take,
# or randint missing its shape or upper bound
_NUMPY_KEYWORD = re.compile(r"^(\w+)\(\) got an unexpected keyword argument "
                            r"'(size|low|high|loc|scale)'$")
_RANDINT_MISSING = re.compile(r"^randint\(\) missing 1 required positional argument: "
                              r"'(maxval|shape)'$")
_RENAMED = {"size": "shape", "low": "minval", "high": "maxval"}


def _is_numpy_random(e) -> bool:
    """The words of a NumPy-style call, and the user's line calls jax.random's function (not
    a function of the user's named `normal`)."""
    if not isinstance(e, TypeError):
        return False
    found = _NUMPY_KEYWORD.match(str(e)) or _RANDINT_MISSING.match(str(e))
    name = "randint" if found is not None and found.re is _RANDINT_MISSING else \
        found and found.group(1)
    where, _ = _user_lines(e) if found is not None else (None, None)
    return bool(where) and re.search(rf"\brandom\.{name}\(", where["code"]) is not None


def _numpy_random_card(exc, where, called_from) -> ErrorCard:
    found = _NUMPY_KEYWORD.match(str(exc))
    name = found.group(1) if found else "randint"
    rewrite = _numpy_random_rewrite(where, name)
    return ErrorCard(
        "random-arguments", f"jax.random.{name} was called with NumPy's arguments",
        why=("jax.random's functions take a key first, then the shape (NumPy's size=), then "
             "their parameters by JAX's names: minval/maxval for NumPy's low/high, and no "
             "loc/scale (normal is standard: scale and shift its result). randint needs both "
             "bounds after the shape: randint(key, shape, minval, maxval)."),
        fix=("Pass shape= (a tuple: (3,), or () for one number) where NumPy took size=, "
             "minval=/maxval= for low=/high=, and write normal's loc + scale * normal(key, "
             "shape)."),
        rewrite=(f"{rewrite}    # JAX's arguments" if rewrite else
                 "x = jax.random.randint(key, (3,), 0, 10)    # key, shape, minval, maxval\n"
                 "y = 1.0 + 2.0 * jax.random.normal(key, (3,))    # loc + scale * normal"),
        docs="https://docs.jax.dev/en/latest/jax.random.html")


def _numpy_random_rewrite(where, name) -> str:
    """The user's jax.random.<name>(...) call with JAX's arguments for NumPy's, or ""."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        func = ast.unparse(call.func) if isinstance(call, ast.Call) else ""
        if not (func.rpartition(".")[2] == name and func.rpartition(".")[0].endswith("random")
                and call.args and not any(isinstance(a, ast.Starred) for a in call.args)):
            continue
        if any(k.arg is None for k in call.keywords):       # **kwargs: not read here
            return ""
        # JAX's names for NumPy's, in the user's order; loc and scale out of the call
        keywords = {_RENAMED.get(k.arg, k.arg): k.value for k in call.keywords
                    if k.arg not in ("loc", "scale")}
        shift = {k.arg: k.value for k in call.keywords if k.arg in ("loc", "scale")}
        if isinstance(keywords.get("shape"), ast.Constant) and \
                type(keywords["shape"].value) is int:       # size=3: the shape (3,)
            keywords["shape"] = ast.Tuple([keywords["shape"]], ast.Load())
        args = list(call.args)
        if name == "randint" and "shape" not in keywords:
            args = _randint_arguments(args, keywords)
            if args is None:
                return ""
        new = ast.Call(call.func, args, [ast.keyword(k, v) for k, v in keywords.items()])
        if shift:           # normal's loc + scale * normal(key, shape)
            if "scale" in shift:
                new = ast.BinOp(shift["scale"], ast.Mult(), new)
            if "loc" in shift:
                new = ast.BinOp(shift["loc"], ast.Add(), new)
        return _replaced(tree, call, new)
    return ""


def _randint_arguments(args, keywords):
    """randint's positional arguments with the shape NumPy's randint has not (`randint(key,
    0, 10)`: shape ()) or the lower bound it takes as 0 (`randint(key, (3,), 10)`); None where
    neither reading fits."""
    shape_given = len(args) > 1 and isinstance(args[1], (ast.Tuple, ast.List))
    bounds = args[2:] if shape_given else args[1:]
    bounds += [keywords[k] for k in ("minval", "maxval") if k in keywords]
    if shape_given and len(bounds) == 1 and "maxval" not in keywords:
        return args[:2] + [ast.Constant(0)] + args[2:]      # NumPy's randint(high): from 0
    if not shape_given and len(bounds) == 2:
        if len(args) == 1:                                  # all by keyword: shape= first
            moved = dict(keywords)
            keywords.clear()
            keywords.update(shape=ast.Tuple([], ast.Load()), **moved)
            return args
        return args[:1] + [ast.Tuple([], ast.Load())] + args[1:]
    return None
