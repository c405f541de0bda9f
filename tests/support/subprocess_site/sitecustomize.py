"""What every process the suite starts (kernels, Jupyter servers, JupyterHub, scripts) does
first: tests/conftest.py puts this folder first on PYTHONPATH (JupyterHub starts learners'
servers in an environment of its own, without it).

jsonschema (imported by jupyter_events in every Jupyter server and JupyterHub, and by nbformat
where plotly shows a figure in a kernel) loads rfc3987_syntax for its "iri" formats, which
builds a lark grammar: 1.7 s of each such process's start (1.1 s of CPU). No process of the
suite checks those formats (no schema they validate names them): without the module jsonschema
leaves the two formats unchecked, as it does where the package is not installed. The test
processes themselves do the same in tests/conftest.py. A test that puts its own sitecustomize
first on PYTHONPATH replaces this one (its processes then load the grammar).
"""
import importlib.machinery
import importlib.util
import os
import sys

sys.modules.setdefault("rfc3987_syntax", None)

# an interpreter's own sitecustomize, if it has one, still runs (this one hides it by name)
_here = os.path.dirname(os.path.abspath(__file__))
_rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["sitecustomize"] = _module
    _spec.loader.exec_module(_module)
