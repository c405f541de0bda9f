"""Every widget also renders without a widget front-end: plain text and static HTML."""
from __future__ import annotations


class TextFallback:
    """Mixin for widgets: adds `text/plain` and `text/html` to the widget's mime bundle.

    A front-end with the widget manager shows the live widget; others (a terminal, a
    static notebook render, an exported HTML page) show the HTML or the text.
    """

    def text_repr(self) -> str:
        raise NotImplementedError

    def html_repr(self) -> str:
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
        data = dict(data, **{"text/plain": self.text_repr(), "text/html": self.html_repr()})
        return data, meta

    def __str__(self):
        return self.text_repr()
