"""Run one conformance program and capture what it prints and returns (NumPy only).

Shared by the reference recorder (under real JAX) and the harness (under jxkernel), so
both sides record a program the same way.

    >>> parse_header("# conformance: devices=4 ulps=64\\nimport jax")
    {'devices': 4, 'ulps': 64}
"""
import contextlib
import io
import os
import runpy
import sys
import traceback

import numpy as np

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected")
_INT_OPTIONS = ("devices",)


def program_names():
    """Every program's name (its file name without ``.py``), in order."""
    return sorted(name[:-3] for name in os.listdir(PROGRAMS)
                  if name.endswith(".py") and name[:2].isdigit())


def program_path(name):
    return os.path.join(PROGRAMS, name + ".py")


def parse_header(source):
    """The ``# conformance: key=value ...`` options on a program's first lines."""
    options = {}
    for line in source.splitlines()[:3]:
        if line.startswith("# conformance:"):
            for item in line.split(":", 1)[1].split():
                key, value = item.split("=")
                options[key] = int(value) if key in _INT_OPTIONS or value.isdigit() \
                    else float(value)
    return options


def read_options(name):
    with open(program_path(name)) as f:
        return parse_header(f.read())


def encode_array(value):
    """An array as JSON: dtype name, shape and values (bfloat16 and friends as float32)."""
    array = np.asarray(value)
    dtype = array.dtype.name
    if array.dtype.kind == "V" or dtype not in np.sctypeDict:   # ml_dtypes: bfloat16, ...
        array = array.astype(np.float32)
    if array.dtype.kind == "c":
        values = [[z.real, z.imag] for z in array.ravel().tolist()]
    else:
        values = array.ravel().tolist()
    return {"dtype": dtype, "shape": list(array.shape), "values": values}


def _results(namespace):
    results = namespace.get("RESULTS", {})
    return {key: encode_array(value) for key, value in results.items()}


def _wait_for_effects():
    """Printing callbacks (``jax.debug.print``) may still be in flight when a program ends."""
    jax = sys.modules.get("jax")
    barrier = getattr(jax, "effects_barrier", None)
    if barrier is not None:
        barrier()


def run_program(name):
    """``{"stdout": [lines], "results": {name: array}, "error": None or text}``."""
    out = io.StringIO()
    error, namespace = None, {}
    with contextlib.redirect_stdout(out):
        try:
            namespace = runpy.run_path(program_path(name), run_name="__main__")
            _wait_for_effects()
        except BaseException as e:   # noqa: BLE001 -- a program's failure is data here
            error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            error += "\n" + "".join(traceback.format_exception(e)[-3:])
    # messages that name a source line carry the checkout's path: keep only the file's name
    text = out.getvalue().replace(PROGRAMS + os.sep, "")
    record = {"stdout": text.splitlines(), "results": {}, "error": error}
    if error is None:
        try:
            record["results"] = _results(namespace)
        except Exception as e:   # noqa: BLE001
            record["error"] = f"RESULTS: {type(e).__name__}: {e}"
    return record
