"""The notebook's widgets (ipywidgets and anywidget): the jaxpr viewer, the recompilation log,
the backend selector, the traced-vs-static cell view, the StableHLO/HLO view and the stepper's
buttons, one module each; `_fallback.py` renders each without a widget front-end."""
