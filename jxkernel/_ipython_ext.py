"""`%load_ext jxkernel`: IPython's entry points, importing the notebook layer only when called
(so `import jxkernel` stays free of IPython, ipywidgets and plotly). The notebook layer sits
above the root (it shows what the root's entry points make), so the root names it by string,
as its lazy names do, and never imports it."""
import importlib


def load_ipython_extension(shell) -> None:
    importlib.import_module("jxkernel.notebook").load_ipython_extension(shell)


def unload_ipython_extension(shell) -> None:
    importlib.import_module("jxkernel.notebook").unload_ipython_extension(shell)
