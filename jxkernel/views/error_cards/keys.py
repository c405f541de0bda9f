"""Cards for random keys: a seed passed where a key goes, and one key used twice
(jax_debug_key_reuse)."""
from __future__ import annotations

import ast

from .card import ErrorCard, _DOCS
from .rewrites import _parse_line


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
