"""The int-overflow card: a Python int past JAX's default integer, int32 (2**31 - 1 at most),
as NumPy's default int64 holds it: `jnp.array(2**40)`, `jnp.array([2**31, 5])`, `x * 2**33`
(JAX 0.10.2's words: "Python int ... too large to convert to int32"; "out of bounds for
int32"; under jit "An overflow was encountered while parsing an argument to a jitted
computation, whose argument path is y", y an operand's name inside JAX, not the learner's).

The rewrite turns on 64-bit types, then runs the line again (inside a function: before it is
traced, at the notebook's top); past int64 too, no integer of JAX's holds the number: a
pattern.

    jnp.array(2**40)  ->  jax.config.update("jax_enable_x64", True)
                          jnp.array(2**40)
"""
from __future__ import annotations

import re

from ...core.config import config
from .card import ErrorCard
from .rewrites import _pattern

_MESSAGES = (
    re.compile(r"^Python int (-?\d+) too large to convert to (u?int\d+)$"),
    re.compile(r"^Python integer (-?\d+) out of bounds for (u?int\d+)$"),
    re.compile(r"^An overflow was encountered while parsing an argument to a jitted "
               r"computation, whose argument path is .*\. Got <class 'int'> with value "
               r"(-?\d+)$"),
)
_X64 = 'jax.config.update("jax_enable_x64", True)'
_DOCS = ("https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
         "#double-64bit-precision")


def _overflow(e) -> tuple | None:
    """(the number, the integer type it did not fit) of an overflow's message, or None."""
    if not isinstance(e, OverflowError):
        return None
    for pattern in _MESSAGES:
        found = pattern.match(str(e))
        if found:
            dtype = found.group(2) if found.lastindex == 2 else \
                ("int64" if config.read("jax_enable_x64") else "int32")
            return int(found.group(1)), dtype
    return None


def _is_int_overflow(e) -> bool:
    return _overflow(e) is not None


def _written(n: int) -> str:
    """`n` as a learner reads it: a power of two as 2**k, else its digits."""
    k = abs(n).bit_length() - 1
    return (f"{'-' if n < 0 else ''}2**{k}" if k > 8 and abs(n) == 1 << k else str(n))


def _int_overflow_card(exc, where, called_from) -> ErrorCard:
    n, dtype = _overflow(exc)
    bits = int(re.sub(r"\D", "", dtype))
    top = f"2**{bits - 1} - 1" if not dtype.startswith("u") else f"2**{bits} - 1"
    said = _written(n)
    if bits < 64:
        code = (where or {}).get("code") or ""
        module = (where or {}).get("function") == "<module>"
        rewrite = (f"{_X64}    # 64-bit ints and floats from here on\n{code}" if module and code
                   else f"{_X64}    # at the notebook's top, before the function is traced")
        return ErrorCard(
            "int-overflow", f"{said} does not fit in {dtype}, JAX's default integer",
            why=(f"JAX makes a Python int an {dtype} (its default integer, as float32 is its "
                 f"default float; NumPy's is int64), whose largest value is {top}; {said} is "
                 f"past it."),
            fix=(f"Turn on 64-bit types before this runs: {_X64} (ints and floats both 64-bit "
                 f"from then on; at the notebook's top is surest). A magnitude alone fits a "
                 f"float: {said.replace('2**', '2.0**') if '**' in said else float(n)}."),
            rewrite=rewrite, docs=_DOCS)
    return ErrorCard(
        "int-overflow", f"{said} does not fit in {dtype}, JAX's widest integer",
        why=(f"No integer type of JAX's holds {said}: {dtype}'s largest value is {top}."),
        fix=("Keep it as a float (its magnitude, not every digit), or split it into parts that "
             "fit (as a key or a hash is split into 32-bit words)."),
        rewrite=_pattern(f"x = jnp.array(float({n}))    # its magnitude, as a float"),
        docs=_DOCS)
