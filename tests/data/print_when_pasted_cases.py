"""A jitted function that prints when a traced condition holds (`if jnp.isnan(y): print(...)`),
its `if` at several indentations, and the bool-conversion card's print-when rewrite pasted in
place of the `if`'s lines (tests/views/test_print_when_card.py checks the card writes REWRITES'
line, at the `if`'s indentation, and that the pasted cell compiles and prints).

reference/make_print_when_pasted_reference.py runs each pasted cell under JAX 0.10.2: what
f(-1.0) and f(2.0) print, in tests/data/print_when_pasted_reference.json.

name -> (the cell, the line of its `if` (1-based), the card's rewrite).
"""

_COND = "jax.lax.cond(jnp.isnan(y), lambda: jax.debug.print('nan! {}', y), lambda: None)"
_SAYS = "    # prints when it holds, as the program runs: in place of the "

CASES = {
    "two_spaces": (
        "@jax.jit\n"
        "def f(x):\n"
        "  y = jnp.log(x)\n"
        "  if jnp.isnan(y):\n"
        "    print('nan!', y)\n"
        "  return y\n",
        4, "  " + _COND + _SAYS + "whole `if` (its 2 lines)"),
    "one_line_if": (
        "@jax.jit\n"
        "def f(x):\n"
        "    y = jnp.log(x)\n"
        "    if jnp.isnan(y): print('nan!', y)\n"
        "    return y\n",
        4, "    " + _COND + _SAYS + "`if` line"),
    "first_statement": (
        "@jax.jit\n"
        "def f(y):\n"
        "    if jnp.isnan(jnp.sqrt(y)):\n"
        "        print('nan!', y)\n"
        "    return y\n",
        3, "    " + _COND.replace("isnan(y)", "isnan(jnp.sqrt(y))") + _SAYS +
        "whole `if` (its 2 lines)"),
    "inside_a_loop_with_else": (
        "@jax.jit\n"
        "def f(x):\n"
        "    y = jnp.log(x)\n"
        "    for _ in range(1):\n"
        "        if jnp.isnan(y):\n"
        "            print('nan!', y)\n"
        "        else:\n"
        "            print('ok')\n"
        "    return y\n",
        5, "        jax.lax.cond(jnp.isnan(y), lambda: jax.debug.print('nan! {}', y), "
        "lambda: jax.debug.print('ok'))" + _SAYS + "whole `if` (its 4 lines)"),
    "tabs": (
        "@jax.jit\n"
        "def f(x):\n"
        "\ty = jnp.log(x)\n"
        "\tif jnp.isnan(y):\n"
        "\t\tprint('nan!', y)\n"
        "\treturn y\n",
        4, "\t" + _COND + _SAYS + "whole `if` (its 2 lines)"),
}

# an `if` at the left margin (a %%jit cell's body): compiled, not run
MARGIN = ("y = jnp.log(x)\n"
          "if jnp.isnan(y): print('nan!', y)\n"
          "y = y + 1\n", 2, _COND.replace("jax.lax.", "lax.") + _SAYS + "`if` line")


def pasted(cell, line, rewrite) -> str:
    """`cell` with `rewrite` in place of the `if` at `line` (all of its lines)."""
    import ast
    node = next(n for n in ast.walk(ast.parse(cell)) if isinstance(n, ast.If)
                and n.lineno == line)
    lines = cell.splitlines(keepends=True)
    lines[line - 1:node.end_lineno] = [text + "\n" for text in rewrite.splitlines()]
    return "".join(lines)
