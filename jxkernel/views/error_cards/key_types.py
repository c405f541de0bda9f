"""Cards for a PRNG key of another kind where lax.cond/switch compares its branches' outputs
or a loop its carry: a typed key (`jax.random.key`, dtype key<fry>) against raw key data
(`jax.random.PRNGKey` or `jax.random.key_data`, uint32 numbers), or keys of two
implementations (key<fry>, key<rbg>). The dtype cards (control_flow.py) cast with
jnp.asarray(..., dtype), which no key dtype is: they raised while drawing (`key<fry>` is no
dtype) and the card went missing. Their kinds are those cards' (branch-types, loop-carry):
the same mistake, of a key, drawn the same way (what each branch or the carry was)."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .carries import _in_learners_terms, _loop_body_name
from .control_flow import (_BRANCH_NAMES, _BRANCH_TYPES, _CARRY_TYPES, _is_branch_types,
                           _is_carry_error)
from .returns import _branch_back, _carry_back, _lambda_branches_wrapped, _lambda_carry_back

_KEY = re.compile(r"key<(\w+)>\[([\d,]*)\]$")
_RAW = re.compile(r"uint32\[([\d,]*)\]$")
# a raw key's data per implementation: threefry's is two uint32 numbers (`jax.random.PRNGKey`)
_RAW_WORDS = {"fry": 2}
_WRAP, _UNWRAP = "jax.random.wrap_key_data", "jax.random.key_data"


def _types(text) -> list:
    """The pairs of types JAX's message compares (one per leaf off, a bullet each where
    several are) of a branch or carry mismatch."""
    found = [(m.group(3), m.group(5)) for m in _BRANCH_TYPES.finditer(text)]
    return found or [(m.group(5), m.group(6)) for m in _CARRY_TYPES.finditer(text)]


def _is_key_types(e) -> bool:
    if not (_is_branch_types(e) or _is_carry_error(e)):
        return False
    return any(_KEY.match(t) for pair in _types(str(e)) for t in pair)


def _several(text) -> str | None:
    """Where JAX names several leaves off (a bullet each): them all, in words, for a card
    whose code fixes one leaf only (the key's): None where one is."""
    pairs = _types(text)
    if len(pairs) < 2:
        return None
    paths = re.findall(r"at path (\S+) has type", text)
    return "; ".join(f"{p}: {a} and {b}" for p, (a, b) in zip(paths, pairs))


def _dims(text) -> tuple:
    return tuple(int(d) for d in text.split(",") if d)


def _joins(typed, other) -> str | None:
    """How `other` becomes a key of `typed`'s type: _WRAP where it is that implementation's
    raw data of the same batch shape (uint32[2] for key<fry>[]), None where no call does
    (keys of two implementations, a key against a number)."""
    key, raw = _KEY.match(typed), _RAW.match(other)
    if key is None or raw is None or key.group(1) not in _RAW_WORDS:
        return None
    return _WRAP if _dims(raw.group(1)) == _dims(key.group(2)) + (_RAW_WORDS[key.group(1)],) \
        else None


def _noun(type_text) -> str:
    return "typed key" if _KEY.match(type_text) else "raw key data" if _RAW.match(type_text) \
        else "value"


def _kind(type_text) -> str:
    if _KEY.match(type_text):
        return f"a typed key ({type_text})"
    if _RAW.match(type_text):
        return f"raw key data ({type_text}, uint32 numbers)"
    return type_text


_WHY = ("jax.random.key(seed) makes a typed key, of dtype key<fry> (key<rbg> with "
        "impl='rbg'); jax.random.PRNGKey(seed) and jax.random.key_data(key) give raw key data, "
        "uint32 numbers (two per threefry key): to JAX, two types. ")


def _key_types_card(exc, where, called_from) -> ErrorCard:
    text = str(exc)
    if _is_branch_types(exc):
        return _branch_keys_card(exc, text, where)
    return _carry_keys_card(exc, text, where)


def _branch_keys_card(exc, text, where) -> ErrorCard:
    api = text.split()[0]
    first, path, type0, other, type1, _ = _BRANCH_TYPES.search(text).groups()
    funs = dict(_BRANCH_NAMES.findall(text.split("\n\n")[1]))
    at = f" at path {path}" if path else ""
    # the typed key is the one kept (the kind jax.random recommends): the raw data wrapped
    wrap = _joins(type0, type1) and other or _joins(type1, type0) and first
    if wrap:
        fix = (f"Return a typed key from every branch: {_WRAP}(...) around what {wrap} "
               f"returns{at} makes its raw data a key<fry> key.")
        rewrite = None if path else (
            _lambda_branches_wrapped(where, {wrap: f"{_WRAP}(result)"}) or
            f"# in {wrap} ({funs.get(wrap, wrap)}), return a typed key:\n" + _branch_back(
                exc, funs.get(wrap, wrap), lambda v: f"{_WRAP}({v})",
                f"return {_WRAP}(raw_key)"))
        rewrite = rewrite or (f"# in {wrap}, return {_WRAP}(...) of the raw key it returns"
                              f"{at}")
    else:
        fix, rewrite = _unjoined(f"{first} returns", type0, f"{other} returns", type1, at)
    several = _several(text)
    if several:
        fix = (f"Every leaf JAX names must match, not the key's alone ({several}): "
               f"{_WRAP}(...) makes raw key data a key<fry> key, .astype or jnp.asarray(..., "
               f"dtype) casts a number.")
        rewrite = (f"# in each branch, return every leaf with one type: {several}")
    keys = all(_KEY.match(t) or _RAW.match(t) for t in (type0, type1))
    return ErrorCard(
        "branch-types", f"{api}: the branches return keys of different types" if keys else
        f"{api}: one branch returns a key, another {_kind(type1 if _KEY.match(type0) else type0)}",
        why=(_WHY + f"{api} traces every branch into one program, so each must return the "
             f"same types: {first} returns {_kind(type0)}{at}, {other} {_kind(type1)}."),
        fix=fix, rewrite=rewrite,
        origin={"api": api, "branches": [[first, funs.get(first, first), type0],
                                         [other, funs.get(other, other), type1]],
                "path": path},
        docs="https://docs.jax.dev/en/latest/jax.random.html")


def _carry_keys_card(exc, text, where) -> ErrorCard:
    first_word = text.split()[0]
    leaves = []                     # (the leaf's path, its type in, out): JAX's bullets
    for found in _CARRY_TYPES.finditer(text):
        _, sub_path, path, _, came, went, mismatch = found.groups()
        loop, path, came, went = _in_learners_terms(
            where, first_word if first_word in ("scan", "while_loop", "fori_loop") else "loop",
            sub_path or path or None, came, went, mismatch)
        leaves.append((path, came, went))
    path, came, went = leaves[0]
    body = _loop_body_name(where) or "body"
    leaf = f"carry{path or ''}"
    if len(leaves) > 1:
        # a key's cast alone would raise again at the next leaf (an int made float, say)
        listed = "; ".join(f"carry{p or ''}: {c} and {w}" for p, c, w in leaves)
        return ErrorCard(
            "loop-carry", f"{loop}: the carry changes type in the loop, a key's too",
            why=(_WHY + f"{loop} compiles {body} once for every iteration, so the carry must "
                 f"leave it with the type it came in with; {len(leaves)} leaves do not: "
                 f"{listed}."),
            fix=(f"Give every leaf JAX names back as it came in, not the key's alone "
                 f"({listed}): {_WRAP}(...) makes raw key data a key<fry> key, "
                 f"{_UNWRAP}(...) takes a key's raw data, .astype casts a number."),
            rewrite=f"# in {body}, return every leaf of the carry as it came in: {listed}",
            origin={"loop": loop, "body": body, "path": path, "input_type": came,
                    "output_type": went},
            docs="https://docs.jax.dev/en/latest/jax.random.html")
    # the carry goes back as it came in: raw data wrapped into the key it came in as, a
    # typed key's data taken where it came in raw
    call = _joins(came, went) or (_UNWRAP if _joins(went, came) else None)
    if call:
        def make(node):
            return f"{call}({ast.unparse(node)})"
        back = _carry_back(exc, body, loop, path, make) or \
            _lambda_carry_back(where, loop, path, make)
        fix = (f"Give {leaf} back as it came in, {_kind(came)}: {call}(...) around the "
               f"{_noun(went)} {body} returns there.")
        rewrite = (f"# in {body}, give {leaf} back as {_kind(came)}:\n{back}" if back and
                   back.startswith("return ") else back) or \
            f"# in {body}, return {call}(...) of what it returns as {leaf}"
    else:
        fix, rewrite = _unjoined(f"{leaf} came in as", came, f"{body} returns", went, "")
    return ErrorCard(
        "loop-carry", f"{loop}: the carry's key changes type in the loop",
        why=(_WHY + f"{loop} compiles {body} once for every iteration, so the carry must "
             f"leave it with the type it came in with: {leaf} came in as {_kind(came)} and "
             f"left as {_kind(went)}."),
        fix=fix, rewrite=rewrite,
        origin={"loop": loop, "body": body, "path": path, "input_type": came,
                "output_type": went},
        docs="https://docs.jax.dev/en/latest/jax.random.html")


def _unjoined(first, type0, other, type1, at) -> tuple:
    """(the fix, the rewrite: words alone) where no call joins the two types: keys of one
    implementation in two shapes (one key, a batch), keys of two implementations, a key and
    a number. What was meant (which key of a batch, which impl) is the learner's to say."""
    key0, key1 = _KEY.match(type0), _KEY.match(type1)
    if key0 and key1 and key0.group(1) == key1.group(1):
        fix = (f"Give the keys one shape{at}: {first} {type0}, {other} {type1}, the same "
               f"kind of key in two shapes (one key has shape (), a batch from "
               f"jax.random.split has its count first: keys[0] is one of them).")
        return fix, f"# one shape for the keys{at}: {type0} and {type1}"
    if key0 and key1:
        fix = (f"Make the keys{at} with one implementation: {first} {type0}, {other} "
               f"{type1}; the impl= of jax.random.key decides which, and no call turns one "
               f"into the other.")
        return fix, (f"# one impl= for every jax.random.key that makes them{at}: {type0} and "
                     f"{type1} do not convert into each other")
    fix = (f"Give both the same kind of value{at}: {first} {_kind(type0)}, {other} "
           f"{_kind(type1)}, and no cast turns one into the other.")
    return fix, f"# one kind of value{at}: {_kind(type0)} and {_kind(type1)}"
