"""The card for a jax.random function called without its key: `jax.random.normal((2, 3))` (the
shape first, as NumPy's `np.random.normal(size=...)` has no key), the key and the shape swapped
(`jax.random.uniform((3,), key)`), or None where the key goes. JAX's message names only the
type it got: "unexpected PRNG key type <class 'tuple'>". The rewrite puts a key first: the key
the call was given, else a new one split from the learner's key (a key drawn with again gives
the same numbers), else one made from a seed.

    jax.random.normal((2, 3))   ->  key, sub = jax.random.split(key)
                                    jax.random.normal(sub, (2, 3))
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .keys import _is_key_given, _is_key_value
from .reading import _user_frame, _user_lines
from .rewrites import _parse_line, _replaced
from ..random_calls import TAKES_KEY

_UNEXPECTED = re.compile(r"^unexpected PRNG key type <class '(tuple|list|NoneType)'>$")
# the names a learner's key goes by, the first found preferred
_KEY_NAMES = ("key", "rng", "rng_key", "prng_key", "prng", "seed_key")


def _is_missing_key(e) -> bool:
    if not (isinstance(e, TypeError) and _UNEXPECTED.match(str(e))):
        return False
    where, _ = _user_lines(e)
    return _random_call(_parse_line(where)) is not None


def _random_call(tree):
    """The line's call of a jax.random function taking a key (`jax.random.normal(...)`,
    `random.normal(...)`), given arguments by position; None without one."""
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr in TAKES_KEY and call.args and \
                ast.unparse(call.func.value).rpartition(".")[2] == "random":
            return call
    return None


def _learners_key(frame) -> str | None:
    """The name of a key in the learner's frame (a typed key or raw key data, one key):
    `key`, `rng` and the like first, else the first name holding one."""
    if frame is None:
        return None
    # inside a function a global key is not split there: `key, sub = split(key)` would make
    # key a local, read before it is bound (UnboundLocalError)
    names = frame.f_locals if frame.f_code.co_name != "<module>" else \
        {**frame.f_globals, **frame.f_locals}
    held = [n for n, v in names.items() if not n.startswith("_") and _is_key_value(v, one=True)]
    return next((n for n in _KEY_NAMES if n in held), held[0] if held else None)


def _missing_key_card(exc, where, called_from) -> ErrorCard:
    given = _UNEXPECTED.match(str(exc)).group(1)
    tree = _parse_line(where)
    call, frame = _random_call(tree), _user_frame(exc)
    name = f"{ast.unparse(call.func.value)}.{call.func.attr}"
    module = ast.unparse(call.func.value)
    first, args = call.args[0], list(call.args)
    at = next((i for i, a in enumerate(args[1:], 1) if _is_key_given(a, frame)), None)
    learners = _learners_key(frame)
    if at is not None:                          # the key given, not first: moved there
        args = [args[at]] + args[:at] + args[at + 1:]
        note, split = "the key first, then the shape", ""
    else:
        key = "sub" if learners else f"{module}.key(0)"
        args = [ast.Name(key)] + (args[1:] if given == "NoneType" else args)
        note = "drawn with the new key" if learners else \
            "a key from seed 0: make it once, split it for each draw"
        split = f"{learners}, sub = {module}.split({learners})    # a new key for each draw\n" \
            if learners else ""
    new = ast.Call(call.func, args, call.keywords)
    line = _replaced(tree, call, new)
    why = (f"jax.random's functions take a key first, then the shape: {name}(key, shape). "
           f"This call's first argument is ")
    if given != "NoneType":
        why += f"a {given}, {ast.unparse(first)}: " + \
            (f"the key, {ast.unparse(call.args[at])}, came after it." if at is not None else
             "a shape where the key goes (NumPy's draws take none).")
    elif isinstance(first, ast.Name):
        why += (f"{first.id}, which is None here: a key never given (a default of None, "
                f"{first.id}=None, left as it was at the call).")
    else:
        why += "None, which is no key."
    return ErrorCard(
        "key-missing", f"{name} was called without a key first",
        why=why,
        fix=("Give the key first (key = jax.random.key(seed), made once), and split it before "
             "each draw: key, sub = jax.random.split(key), then draw with sub."),
        rewrite=f"{split}{line}    # {note}",
        docs="https://docs.jax.dev/en/latest/random-numbers.html")
