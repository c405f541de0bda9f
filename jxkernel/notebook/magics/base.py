"""What the magic classes share: the extension's per-shell state, and reading a call
`f(x, 3)` on a magic's line in the user's namespace (%jaxpr, %hlo, %jxtraced, %explain,
%timeit --phases), its lines named by the cell's line the magic stands on (`magic_line`).
"""
from __future__ import annotations

import ast
import sys

from IPython.core.error import UsageError
from IPython.core.magic import Magics

from ..display import cell_name
from ..program import CellError


class JxMagicsBase(Magics):
    """A topic's magics; `state` is the extension's per-shell state (notebook/state.py)."""

    def __init__(self, shell, state):
        super().__init__(shell)
        self.state = state

    def _call(self, expr):
        """(function, args, kwargs, filename, label) when `expr` is `f(...)`, else None."""
        try:
            tree = ast.parse(expr, mode="eval").body
        except SyntaxError as e:
            raise UsageError(f"not a Python expression: {e}") from None
        if not isinstance(tree, ast.Call) or \
                any(isinstance(a, ast.Starred) for a in tree.args) or \
                any(k.arg is None for k in tree.keywords):
            return None
        ns, count = self.shell.user_ns, self.state.prompt_number()
        # cached as its own source, on the cell's line the magic stands on: its lines read
        # In[n]:k, as the cell shows them (line 3 of the cell: In[n]:3, not In[n]:1)
        line = magic_line(count)
        ast.increment_lineno(tree, line - 1)
        filename = self.shell.compile.cache("\n" * (line - 1) + expr, count)

        def ev(node):
            return eval(compile(ast.Expression(node), filename, "eval"), ns)
        try:
            return (ev(tree.func), [ev(a) for a in tree.args],
                    {k.arg: ev(k.value) for k in tree.keywords}, filename, f"In[{count}]")
        except Exception as e:  # noqa: BLE001
            raise CellError.from_exception(e, label=f"In[{count}]", filename=filename) from None


def magic_line(count: int) -> int:
    """The line of cell In[`count`] that runs the line magic running now: IPython runs `%jaxpr
    f(x)` typed on line k of a cell as `get_ipython().run_line_magic(...)` on line k of the
    cell's code, the frame nearest the magic's of that cell's file; 1 where no such frame is
    (a magic run by `shell.run_line_magic` from outside a cell)."""
    frame = sys._getframe(1)
    while frame is not None:
        if cell_name(frame.f_code.co_filename) == f"In[{count}]":
            return frame.f_lineno
        frame = frame.f_back
    return 1
