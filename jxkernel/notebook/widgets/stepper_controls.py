"""Buttons for the jaxpr stepper: Next, Run, First NaN and Restart above its view
(`jxkernel.notebook.stepper` names this module: `controls(s)`; the stepper itself is
jxkernel/views/stepper.py, `jxkernel.notebook.step`).

    >>> from jxkernel.notebook import step
    >>> c = controls(step(lambda x: jnp.sin(x) * 2.0, 1.0))   # in a cell: buttons, stepper
    >>> c.next_button.click()             # what a click does: s.next(), then redraw

The view is the stepper's own static HTML, redrawn after each click; a click that cannot
go on (all equations have run) says so in the message line instead of raising. Without
a widget front-end the stepper's text and HTML show, and the bundle keeps its JSON.
"""
from __future__ import annotations

import ipywidgets as w

from ...views.stepper import Stepper
from ..protocol import mime_type
from ...views.rich_view import esc
from ._fallback import TextFallback

_RED = "var(--jp-error-color1, #b00020)"


def _nan_message(found) -> str:
    if found is None:
        return "no NaN: the program ran to its end"
    return f"<span style='color:{_RED};white-space:pre-wrap'>{esc(found)}</span>"


class StepperControls(TextFallback, w.VBox):
    """A Stepper with buttons; `stepper` is the object the buttons move."""

    def __init__(self, stepper: Stepper):
        if not isinstance(stepper, Stepper):
            raise TypeError(f"StepperControls: stepper={stepper!r} ({type(stepper).__name__}) "
                            "must be a Stepper, as jxkernel.notebook.step(f, x) returns")
        self.stepper = stepper
        self.next_button = self._button("Next", "step-forward", stepper.next)
        self.run_button = self._button("Run", "play", stepper.run)
        self.nan_button = self._button("First NaN", "search", stepper.first_nan, _nan_message)
        self.restart_button = self._button("Restart", "undo", stepper.restart)
        self.message = w.HTML()
        self.view = w.HTML(stepper.html())
        buttons = [self.next_button, self.run_button, self.nan_button, self.restart_button]
        super().__init__([w.HBox(buttons + [self.message]), self.view])

    def _button(self, label, icon, action, message=lambda result: "") -> w.Button:
        button = w.Button(description=label, icon=icon, layout=w.Layout(width="auto"))
        button.on_click(lambda _: self._press(action, message))
        return button

    def _press(self, action, message) -> None:
        try:
            self.message.value = message(action())
        except IndexError as e:        # past the end: said where the user looks, not raised
            self.message.value = f"<span style='color:{_RED}'>{esc(e)}</span>"
        self.view.value = self.stepper.html()

    def _repr_mimebundle_(self, **kwargs):
        data, meta = super()._repr_mimebundle_(**kwargs)
        data[mime_type("StepperBundle")] = self.stepper.to_json()
        return data, meta

    def text_repr(self) -> str:
        return self.stepper.text()

    def html_repr(self) -> str:
        return self.stepper.html()


def controls(stepper: Stepper) -> StepperControls:
    """Buttons (Next, Run, First NaN, Restart) above the stepper's view: an ipywidgets VBox."""
    return StepperControls(stepper)
