"""Cards for differentiation: an integer given to grad."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .reading import _public
from .rewrites import _parse_line


def _is_int_grad_input(e) -> bool:
    text = str(e)
    return isinstance(e, TypeError) and " requires real- or complex-valued inputs" in text \
        and re.search(r"but got u?int\d+\.", text) is not None


def _int_grad_card(exc, where, called_from) -> ErrorCard:
    # JAX's own advice (vjp, allow_int=True) gives a float0 zero, not a slope: a learner who
    # wrote grad(f)(3) wanted the slope at 3.0
    return ErrorCard(
        "integer-grad-input", "grad was given an integer to differentiate by",
        why=("A derivative is taken with respect to float inputs; an int (a Python int such as "
             "3, or an int array) has none. allow_int=True only gives a zero of dtype float0, "
             "not a slope."),
        fix=("A number to differentiate by: pass it as a float (3.0, or "
             "jnp.asarray(x, jnp.float32)). An int that only counts or indexes (a leaf of "
             "params, say): pass it as another argument, which grad does not differentiate "
             "(argnums=0 by default)."),
        rewrite=_float_input_rewrite(where), where=_public(where),
        called_from=_public(called_from), docs=None)


def _float_input_rewrite(where) -> str:
    """The user's call with its int literal arguments written as floats (3 -> 3.0)."""
    tree = _parse_line(where)
    code = (where or {}).get("code") or ""
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Call):   # grad(f)(3)
            ints = [a for a in call.args if isinstance(a, ast.Constant)
                    and type(a.value) is int]
            if ints:
                line = code
                for arg in reversed(ints):           # right to left: offsets stay valid
                    start, end = arg.col_offset, arg.end_col_offset
                    line = line[:start] + f"{arg.value}.0" + line[end:]
                return f"{line}    # a float input: grad differentiates it"
    return ("x = jnp.asarray(x, jnp.float32)    # a float input: grad differentiates it\n"
            "# an int that counts or indexes: a second argument, left alone (argnums=0)\n"
            "grads = jax.grad(loss)(params, n)")
