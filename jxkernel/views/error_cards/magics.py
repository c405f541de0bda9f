"""A line magic as the learner typed it: IPython runs `%timeit f(x)` as
`get_ipython().run_line_magic('timeit', 'f(x)')`, which a card showed as the user's line, and
whose one plain call a static fix rebound (`get_ipython = jax.jit(...)`); the Python code a
magic's line runs, for a fix written into it."""
from __future__ import annotations

import ast
import re


_LINE_MAGIC = re.compile(r"get_ipython\(\)\.run_line_magic\((['\"])(\w+)\1, ((['\"]).*\4)\)")


def as_typed(code: str) -> str:
    """A cell's line as the user typed it: IPython runs `%timeit f(x)` as
    `get_ipython().run_line_magic('timeit', 'f(x)')`, which the card showed as the user's line.

        >>> as_typed("t = get_ipython().run_line_magic('timeit', '-o f(x)')")
        't = %timeit -o f(x)'
    """
    found = _LINE_MAGIC.search(code)
    if found is None:
        return code
    try:
        line = ast.literal_eval(found.group(3))
    except (ValueError, SyntaxError):
        return code
    return code[:found.start()] + f"%{found.group(2)} {line}".rstrip() + code[found.end():]


def _magic_code(line) -> tuple:
    """(`%magic` and its options, the Python code it runs) of a line magic as typed, or
    ("", line): the code is the longest tail that parses.

        >>> _magic_code("%timeit -n 1 -r 1 jax.jit(f)(1.0)")
        ('%timeit -n 1 -r 1 ', 'jax.jit(f)(1.0)')
    """
    found = re.match(r"\s*(?:\w+\s*=\s*)?%\w+\s+", line)
    if found is None:
        return "", line
    rest = line[found.end():]
    for start in [0] + [m.end() for m in re.finditer(r"\s+", rest)]:
        try:
            ast.parse(rest[start:])
        except SyntaxError:
            continue
        return line[:found.end() + start], rest[start:]
    return line, ""
