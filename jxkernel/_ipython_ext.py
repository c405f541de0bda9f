"""`%load_ext jxkernel`: IPython's entry points, importing the notebook layer only when called
(so `import jxkernel` stays free of IPython, ipywidgets and plotly)."""


def load_ipython_extension(shell) -> None:
    from .notebook import load_ipython_extension as load
    load(shell)


def unload_ipython_extension(shell) -> None:
    from .notebook import unload_ipython_extension as unload
    unload(shell)
