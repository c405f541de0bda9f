"""The card for a compiled function called with its static argument again: `lower(7, 8)` of
`jax.jit(f, static_argnums=0)` fixed x=7 in the program, which takes y alone, and JAX's
message says only that a tuple of 1 was seen where one of 2 was given."""
from __future__ import annotations

import ast

from .card import ErrorCard

_DOCS = "https://docs.jax.dev/en/latest/aot.html#tracing-with-static-arguments"


def _is_static_given_again(e) -> bool:
    # stages.Compiled.__call__ attaches what was compiled; the static ones given again: as many
    # positional arguments as the function takes, statics included
    call = getattr(e, "compiled_call", None)
    return isinstance(e, TypeError) and call is not None and bool(call["static"]) and \
        str(e).startswith("Function compiled with input pytree does not match") and \
        call["given"] == _dynamic_count(e) + len(call["static"])


def _dynamic_count(e) -> int:
    """How many positional arguments the compiled program takes (its args tuple's length)."""
    found = str(e).partition("seen tuple of length ")[2].split(" ", 1)[0]
    return int(found) if found.isdigit() else -1


def _static_again_card(exc, where, called_from) -> ErrorCard:
    call = exc.compiled_call
    name = call["function"]
    static = ", ".join(f"{arg}={value!r}" for arg, value, _ in call["static"])
    positions = {position for _, _, position in call["static"]}
    return ErrorCard(
        "static-given-again", f"The compiled {name} takes its non-static arguments only",
        why=(f"Lowering fixed {static} in the program it compiled (static arguments become "
             f"constants), so the compiled function takes the {_dynamic_count(exc)} other "
             f"argument{'s' * (_dynamic_count(exc) != 1)} alone; this call gave "
             f"{call['given']}."),
        fix=(f"Call it without the static argument. For another value of it, lower and "
             f"compile again (or call jax.jit({name}, ...) itself, which compiles once per "
             f"static value)."),
        rewrite=_without_static(where, positions, call["given"]),
        docs=_DOCS)


def _without_static(where, positions: set, given: int) -> str:
    """The user's line with the static positional arguments taken out of its last call of
    `given` positional arguments, or a comment where no such call is found."""
    code = (where or {}).get("code") or ""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        tree = None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and
             len(node.args) == given and not node.keywords] if tree is not None else []
    if not calls:
        return "# call the compiled function with the non-static arguments only"
    call = max(calls, key=lambda node: node.col_offset + len(ast.unparse(node.func)))
    call.args = [a for i, a in enumerate(call.args) if i not in positions]
    return ast.unparse(tree)
