"""What the magic classes share: the extension's per-shell state, and reading a call
`f(x, 3)` on a magic's line in the user's namespace (%jaxpr, %hlo, %jxtraced, %explain,
%timeit --phases).
"""
from __future__ import annotations

import ast

from IPython.core.error import UsageError
from IPython.core.magic import Magics

from ...xla import client
from ..program import CellError


def device_name(device) -> str:
    """'cpu:1': how the selector, %jxbackend and jax_default_device spell a device."""
    return f"{client.platform_of(device)}:{device.id}"


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
        filename = self.shell.compile.cache(expr, count)     # so its lines read In[n]

        def ev(node):
            return eval(compile(ast.Expression(node), filename, "eval"), ns)
        try:
            return (ev(tree.func), [ev(a) for a in tree.args],
                    {k.arg: ev(k.value) for k in tree.keywords}, filename, f"In[{count}]")
        except Exception as e:  # noqa: BLE001
            raise CellError.from_exception(e, label=f"In[{count}]", filename=filename) from None
