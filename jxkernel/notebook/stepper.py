"""The jaxpr stepper in the notebook: `step(f, *args, **kwargs)` names cell lines as the
other views do ('In[3]:2'), so `break_on(line="In[3]:2")` and the first NaN's line read
like the prompt. The stepper itself is `jxkernel.stepper` (no IPython there, for scripts);
its module docstring describes the API and the `application/vnd.jxkernel.stepper+json`
bundle.

    >>> s = step(f, x)                 # in a cell: shows the jaxpr, ▶ at the first equation
    >>> s.break_on(line=2).run()       # stops before the first equation of the cell's line 2
    >>> s.first_nan()                  # first NaN: equation 1 (log) made c (1 NaN) at In[3]:2: ...
    >>> controls(s)                    # Next / Run / First NaN / Restart buttons above the view
"""
from __future__ import annotations

from ..views.stepper import Stepper, make_stepper
from .display import source_label, source_line


def step(f, *args, **kwargs) -> Stepper:
    """`jxkernel.stepper.step`, with cell lines labelled 'In[3]:2'."""
    return make_stepper(f, args, kwargs, label=source_label, line_text=source_line)


def controls(stepper: Stepper):
    """Buttons (Next, Run, First NaN, Restart) above the stepper's view: an ipywidgets VBox."""
    from .widgets.stepper_controls import StepperControls  # ipywidgets only when asked
    return StepperControls(stepper)


__all__ = ["step", "controls", "Stepper"]
