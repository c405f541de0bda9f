"""The learner's code rewritten in place: the text of some of its syntax tree's nodes replaced,
the rest kept as typed (`ast.unparse` would write their `1.` as `1.0`, requote their strings
and drop their comments).

ast counts a node's columns in UTF-8 bytes, not characters: on a line holding `α` or `é`
before the node, slicing the str at those columns cuts in the wrong place (`α = jit(f)(x)`
came out `α = jf_jit(x)`), so the edits here slice the bytes.

    >>> code = "α = f(x, 1.)"
    >>> replaced(code, [(ast.parse(code).body[0].value.args[0], "y")])
    'α = f(y, 1.)'
"""
from __future__ import annotations

import ast
import linecache
import re

from ..core.source_info import positions

Span = tuple  # (lineno, col_offset, end_lineno, end_col_offset), as ast's, lines from 1


def parse_file(path: str | None):
    """The syntax tree of the file at `path` (a cell's too: linecache holds cells), its
    positions those of the text as linecache has it; a %%jit cell's magic lines are blanked,
    their numbers kept. None where it does not parse, or there is none."""
    lines = [("\n" if line.lstrip().startswith("%") else line)
             for line in (linecache.getlines(path) if path else [])]
    try:
        return ast.parse("".join(lines)) if lines else None
    except SyntaxError:
        return None


def own_nodes(function):
    r"""The nodes of `function`'s body (an ast def), not those of a def, lambda or class written
    inside it (their own nodes yielded, not what they hold): what its own code runs.

        >>> tree = ast.parse("def f(k):\n    g = lambda k: k\n    return k")
        >>> sorted({type(n).__name__ for n in own_nodes(tree.body[0])})[:3]
        ['Assign', 'Lambda', 'Load']
    """
    todo = list(function.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def call_at(code, lasti: int):
    """(the file's text, the ast.Call) of the call a frame of `code` was making at instruction
    `lasti` (its positions: core/source_info.positions), or None where the file does not
    parse or no one call sits there."""
    where = positions(code, lasti)
    tree = parse_file(code.co_filename) if None not in where else None
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and
             (c.lineno, c.end_lineno, c.col_offset, c.end_col_offset) == where
             ] if tree is not None else []
    return ("".join(linecache.getlines(code.co_filename)), calls[0]) if len(calls) == 1 else None


def callee_text(code, lasti: int, longest: int = 40) -> str | None:
    """The learner's text of the function called at `code`'s instruction `lasti`
    (`eqx.nn.Linear`), where it is one line of at most `longest` characters."""
    found = call_at(code, lasti) if code is not None and lasti is not None else None
    text = None if found is None else segment(found[0], found[1].func)
    return text if text and "\n" not in text and len(text) <= longest else None


def span(node: ast.AST) -> Span:
    """Where `node` is in the text it was parsed from."""
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def after(node: ast.AST) -> Span:
    """The empty span just after `node`: an edit there inserts.

        >>> code = "f(a)"
        >>> replaced(code, [(after(ast.parse(code).body[0].value.args[0]), ", b")])
        'f(a, b)'
    """
    return node.end_lineno, node.end_col_offset, node.end_lineno, node.end_col_offset


def segment(text: str, where) -> str:
    """The text at `where` (a node or a Span) of `text`."""
    data, (start, end) = text.encode(), _offsets(text, where)
    return data[start:end].decode()


def replaced(text: str, edits) -> str:
    """`text` with each edit's place, a node or a Span of `text`'s own syntax tree, holding
    the edit's new text instead. Edits must not overlap."""
    data = text.encode()
    for (start, end), new in sorted(((_offsets(text, where), new) for where, new in edits),
                                    key=lambda e: e[0], reverse=True):
        data = data[:start] + new.encode() + data[end:]
    return data.decode()


def _offsets(text: str, where) -> tuple[int, int]:
    """The byte offsets in `text` where `where` starts and ends."""
    line, col, end_line, end_col = span(where) if isinstance(where, ast.AST) else where
    starts = _line_starts(text)
    return starts[line - 1] + col, starts[end_line - 1] + end_col


def _line_starts(text: str) -> list:
    """The byte offset of each line's start, lines ended as Python's tokenizer ends them."""
    return [0] + [m.end() for m in re.finditer(rb"\r\n|\r|\n", text.encode())]
