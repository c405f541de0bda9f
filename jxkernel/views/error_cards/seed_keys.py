"""The card for a seed where a key goes: jax.random's functions take a key made from a seed
(`jax.random.normal(0)`: JAX's "invalid PRNG key data ... ndim=0"), the seed made a key in
the learner's line; the same words for a typed key given to wrap_key_data (the key used as it
is), and for vmap over one raw key (`jax.random.PRNGKey(0)`, whose two uint32 words vmap maps
one by one as keys: split it into a key per element). A batch of keys for one, a key
unpacked, NumPy's random arguments: keys.py."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _named_value
from .keys import _key_word_given
from .reading import _user_frame
from .rewrites import _called, _parse_line, _pattern, _replaced


# ------------------------------------------------------------------ a seed where a key goes
def _seed_card(exc, where, called_from) -> ErrorCard:
    wrapped = _wrapped_key(exc, where)
    if wrapped is not None:       # wrap_key_data of a typed key: the same words, no seed
        return _key_wrapped_card(wrapped, where)
    mapped = _vmapped_raw_key(exc, where)
    if mapped is not None:        # vmap over one raw key: its two uint32 words, as "keys"
        return _vmapped_key_card(*mapped)
    why, fix = "", ""
    given = _key_word_given(exc)
    if given is not None:       # a uint32 number: maybe a raw key's word unpacked elsewhere
        why = (f" {given[0]} is a uint32 number, as a raw key's words are: if it came from "
               "unpacking one (k1, k2 = jax.random.PRNGKey(seed)), it is no seed either "
               "(PRNGKey(seed)'s first word is 0 for every seed below 2**32), and a key made "
               "of it would draw the same numbers whatever the seed.")
        fix = (" If it came from unpacking a raw key, split that key instead where it was "
               "unpacked: k1, k2 = jax.random.split(key).")
    return ErrorCard(
        "seed-as-key", "A random function was given a seed, not a key",
        why=("jax.random's functions take a key, made once from a seed (jax.random.key(0)); "
             "a plain number or a 0-d array is not one." + why),
        fix=("Make a key from the seed, then split it for each new use (the same key gives "
             "the same numbers)." + fix),
        rewrite=_key_rewrite(where),
        docs="https://docs.jax.dev/en/latest/random-numbers.html")


def _key_rewrite(where) -> str:
    """The user's call of jax.random.<fn>(seed, ...) with the seed made a key, through the
    same module name (`random.normal(0)` after `from jax import random`: random.key)."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        # (a random module's function by its dotted name: `jax.vmap(lambda k:
        # jax.random.normal(k))(xs)`, whose callee's text ends in `random.normal` too, is not)
        module = ast.unparse(call.func.value) if isinstance(call, ast.Call) and \
            isinstance(call.func, ast.Attribute) else ""
        if re.fullmatch(r"[\w.]*random", module) and call.args:
            seed = ast.unparse(call.args[0])
            # in its place in the line (a text replace took the seed's name where it came
            # first: `lambda k: ...normal(k)` rewrote the lambda's parameter)
            line = _replaced(tree, call.args[0], f"{module}.key({seed})")
            return f"{line}    # a key from the seed; split it for the next draw"
    # a library's function given the seed as its key= (Equinox's layers: eqx.nn.Linear(3, 2,
    # key=0)): the key made there (the template below, pasted, made a key and drew numbers
    # the learner never asked for)
    for call in ast.walk(tree) if tree is not None else ():
        given = [k.value for k in call.keywords if k.arg == "key"] \
            if isinstance(call, ast.Call) else []
        if given and (isinstance(given[0], ast.Name) or isinstance(given[0], ast.Constant)
                      and type(given[0].value) is int):
            line = _replaced(tree, given[0], f"jax.random.key({ast.unparse(given[0])})")
            return f"{line}    # a key from the seed; split it for the next use"
    return _pattern("key = jax.random.key(0)              # once, from a seed\n"
                    "key, sub = jax.random.split(key)     # a new key for each use\n"
                    "x = jax.random.normal(sub, (3,))")


def _wrapped_key(exc, where):
    """The `jax.random.wrap_key_data(k)` call of the user's line when `k` is a typed key
    already (JAX's words are the seed's: "invalid PRNG key data ... ndim=0"), else None."""
    frame, tree = _user_frame(exc), _parse_line(where)
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    for call in ast.walk(tree) if tree is not None else ():
        if _called(call) == "wrap_key_data" and call.args:
            arg = call.args[0]
            try:           # a name, or a key made on the line (jax.random.key(0): no draw)
                value = names[arg.id] if isinstance(arg, ast.Name) else \
                    eval(compile(ast.Expression(arg), "<key>", "eval"), dict(names)) \
                    if _makes_key(arg) else None
            except Exception:  # noqa: BLE001  (a name not bound: no card of this kind)
                value = None
            if str(getattr(value, "dtype", "")).startswith("key<"):
                return call
    return None


def _vmapped_raw_key(exc, where):
    """(the line's tree, the vmapped call, the argument, its name) where the line vmaps a
    function over a raw key (`jax.random.PRNGKey(0)`: uint32 data of shape (2,)), so that the
    function got its two words one by one, as "keys"; else None."""
    frame, tree = _user_frame(exc), _parse_line(where)
    if frame is None or tree is None:
        return None
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Call) and
                _called(call.func) == "vmap"):
            continue
        for arg in call.args:
            value = _named_value(frame, arg.id) if isinstance(arg, ast.Name) else None
            if str(getattr(value, "dtype", "")) == "uint32" and \
                    tuple(getattr(value, "shape", ())) == (2,):
                return tree, call, arg, arg.id
    return None


def _vmapped_key_card(tree, call, arg, name) -> ErrorCard:
    split = f"jax.random.split({name}, 4)"
    return ErrorCard(
        "seed-as-key", f"vmap mapped over the two words of one raw key, {name}",
        why=(f"{name} is one key in the raw form jax.random.PRNGKey makes: uint32 data of shape "
             f"(2,). vmap maps over its first axis, so the function got its two uint32 words "
             f"one by one, and a single word is no key (JAX's 'invalid PRNG key data')."),
        fix=(f"For a key per element, split it into as many keys as the batch has elements, "
             f"and map over those: {split} (4 of them here; yours to choose)."),
        rewrite=f"{_replaced(tree, arg, split)}    # a key per element",
        docs="https://docs.jax.dev/en/latest/random-numbers.html")


def _makes_key(node) -> bool:
    """`jax.random.key(0)` or `random.key(seed)`: a call the card may evaluate again."""
    return isinstance(node, ast.Call) and \
        ast.unparse(node.func).rpartition(".")[2] == "key" and \
        ast.unparse(node.func).rpartition(".")[0].endswith("random")


def _key_wrapped_card(call, where) -> ErrorCard:
    given = ast.unparse(call.args[0])
    segment = ast.get_source_segment(where["code"], call)
    rewrite = (where["code"].replace(segment, given, 1) + "    # a key already: used as it is"
               if segment else f"{given}    # a key already: used as it is")
    return ErrorCard(
        "key-wrapped", "wrap_key_data was given a key, not its data",
        why=(f"{given} is a typed key already (dtype key<fry>). wrap_key_data makes a key from "
             f"raw key data, a uint32 array of shape (2,) such as jax.random.key_data(key) "
             f"gives."),
        fix=(f"Use {given} as it is where a key goes; jax.random.key_data({given}) is its "
             f"uint32 data, and wrap_key_data of that data gives the key back."),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/jep/9263-typed-keys.html")
