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
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _parse_line, _replaced
from ..random_calls import TAKES_KEY

_UNEXPECTED = re.compile(r"^unexpected PRNG key type <class '(tuple|list|NoneType)'>$")
# the names a learner's key goes by, the first found preferred
_KEY_NAMES = ("key", "rng", "rng_key", "prng_key", "prng", "seed_key")


# other words for the same mistake: randint's shape taken for its key moves its bounds along
# (`randint((3,), 0, 10)`: maxval missing), and NumPy's parameters first read as key data
# (`bernoulli(0.5, (4,))`, `choice(jnp.arange(5), (2,))`), which the seed card took for seeds
_RANDINT_SHORT = "randint() missing 1 required positional argument: 'maxval'"
_KEY_DATA = "JAX encountered invalid PRNG key data"


# an initializer called with the shape alone (`jax.nn.initializers.normal()((2, 3))`, `zeros(
# (2,))`): Python's words for the shape missing, the shape having taken the key's place
_INIT_SHORT = re.compile(r"^(?:\w+\.<locals>\.init|zeros|ones)\(\) missing 1 required "
                         r"positional argument: 'shape'$")


def _init_call(e):
    """(the line's tree, the initializer's call given one argument) for _INIT_SHORT's words,
    or None."""
    if not (isinstance(e, TypeError) and _INIT_SHORT.match(str(e))):
        return None
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and len(c.args) == 1 and
             not c.keywords] if tree is not None else []
    return (tree, calls[0]) if len(calls) == 1 else None


def _is_missing_key(e) -> bool:
    if _init_call(e) is not None:
        return True
    if not isinstance(e, TypeError):
        return False
    where, _ = _user_lines(e)
    call = _random_call(_parse_line(where))
    if call is None:
        return False
    if _UNEXPECTED.match(str(e)):
        return True
    first = call.args[0]
    if str(e) == _RANDINT_SHORT:
        return call.func.attr == "randint" and isinstance(first, (ast.Tuple, ast.List))
    return str(e).startswith(_KEY_DATA) and _no_seed(first, _user_frame(e))


def _no_seed(node, frame) -> bool:
    """Whether `node`, given where a key goes, is no seed either: a float, a sequence or an
    array of several values (a seed is one integer)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, float)
    if isinstance(node, (ast.Tuple, ast.List)):
        return True
    value = _named_value(frame, node.id) if isinstance(node, ast.Name) and frame else None
    if isinstance(node, ast.Call):      # an array of several made there: jnp.arange(5)
        func = ast.unparse(node.func).rpartition(".")[2]
        return func in ("arange", "linspace", "ones", "zeros") or \
            func in ("array", "asarray") and bool(node.args) and \
            isinstance(node.args[0], (ast.List, ast.Tuple))
    shape = getattr(value, "shape", None)
    return isinstance(value, float) or bool(shape)


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
    if _init_call(exc) is not None:
        return _initializer_key_card(exc)
    tree = _parse_line(where)
    call, frame = _random_call(tree), _user_frame(exc)
    found = _UNEXPECTED.match(str(exc))
    given = found.group(1) if found else {ast.Tuple: "tuple", ast.List: "list"}.get(
        type(call.args[0]), "float" if isinstance(call.args[0], ast.Constant) else "array")
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
             ("a shape where the key goes (NumPy's draws take none)." if given in
              ("tuple", "list") else "a parameter where the key goes (NumPy's draws take "
              "none: their parameters come first)."))
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


def _initializer_key_card(exc) -> ErrorCard:
    """An initializer given the shape alone: the key first, the learner's (split) or one made
    from a seed, as a draw's."""
    tree, call = _init_call(exc)
    learners = _learners_key(_user_frame(exc))
    key = "sub" if learners else "jax.random.key(0)"
    split = f"{learners}, sub = jax.random.split({learners})    # a new key for each draw\n" \
        if learners else ""
    new = ast.Call(call.func, [ast.Name(key), *call.args], [])
    return ErrorCard(
        "key-missing", "An initializer was called without a key first",
        why=("jax.nn.initializers' functions are called as init(key, shape, dtype): the key "
             "first, as jax.random's draws take it (an initializer draws random numbers), "
             f"so {ast.unparse(call.args[0])} took the key's place and the shape was missing."),
        fix="Give the key first: init(key, shape), a new key split for each draw.",
        rewrite=f"{split}{_replaced(tree, call, new)}    # the key first, then the shape",
        docs="https://docs.jax.dev/en/latest/jax.nn.initializers.html")
