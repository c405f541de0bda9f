"""How jxkernel's views show themselves: `repr` for the terminal and `print`, `_repr_html_`
for a saved or exported notebook (static HTML, no script), and `to_json` for the JSON MIME
bundle the JupyterLab extension draws. A view defines those three and its `MIME` type; the
bundle that IPython asks for is put together here, once.

    >>> class Hello(RichView):
    ...     MIME = "application/vnd.example+json"
    ...     def __repr__(self): return "hello"
    ...     def _repr_html_(self): return "<b>hello</b>"
    ...     def to_json(self): return {"version": 1}
    >>> sorted(Hello()._repr_mimebundle_())
    ['application/vnd.example+json', 'text/html', 'text/plain']
"""
from __future__ import annotations

import html


class RichView:
    MIME = ""

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {"text/plain": repr(self), "text/html": self._repr_html_(),
                self.MIME: self.to_json()}


def esc(x) -> str:
    """`x` as text safe inside HTML (names, reprs, messages and source are the user's)."""
    return html.escape(str(x), quote=True)
