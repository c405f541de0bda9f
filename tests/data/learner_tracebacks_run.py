"""Run the learner programs of learner_tracebacks_cases.py with the library named on the
command line (`jax` or `jxkernel`): `python learner_tracebacks_run.py LIB script|ipython`.
It prints one JSON object: per program, the error's type and message's first line, the frames
its traceback shows ("<user>:function" for the program's own, "file.py:function" for a
library's), whether JAX's note that frames were removed is there and its cause's type (under
remove_frames, JAX's UnfilteredStackTrace says it so).

"script" runs each program as the code of a file of its own (learner.py) under the
JAX_TRACEBACK_FILTERING the caller set, reading the traceback the exception carries;
"ipython" runs it as a cell of IPython's InteractiveShell and reads the traceback IPython
prints (with the frames it hides left out)."""
import importlib
import io
import json
import os
import re
import sys
import traceback

from learner_tracebacks_cases import PROGRAMS

LIB, WHERE = sys.argv[1], sys.argv[2]
NOTE = "For simplicity, JAX has removed its internal frames"
PRELUDE = f"import {LIB} as jax, {LIB}.numpy as jnp, {LIB}.lax as lax\n"


def script_answer(name, source):
    code = compile(source, os.path.join(os.getcwd(), "learner.py"), "exec")
    space = dict(jax=importlib.import_module(LIB), jnp=importlib.import_module(LIB + ".numpy"),
                 lax=importlib.import_module(LIB + ".lax"))
    try:
        exec(code, space)
    except Exception as e:      # (the first entry is this function's frame, left out)
        frames = [(f.f_code.co_filename, f.f_code.co_name)
                  for f, _ in traceback.walk_tb(e.__traceback__.tb_next)]
        return {"type": type(e).__name__, "message": str(e).split("\n")[0],
                "note": any(NOTE in n for n in getattr(e, "__notes__", ())),
                "cause": _cause(e),
                "frames": [("<user>" if path == code.co_filename else os.path.basename(path))
                           + ":" + fun for path, fun in frames]}
    raise AssertionError(f"{name} raised nothing")


def _cause(e):
    """The type of `e`'s cause, by name (remove_frames' UnfilteredStackTrace: JAX's words that
    its frames were removed, in that mode), or None."""
    return None if e.__cause__ is None else type(e.__cause__).__name__


# IPython's plain frames: "Cell In[3], line 2, in predict(w, x)" and
# "File /path/to/file.py:94, in dot(a, b)"
CELL = re.compile(r"^Cell In\[\d+\], line \d+(?:, in ([\w<>.]+))?")
FILE = re.compile(r"^File (.+?):\d+, in ([\w<>.]+)")


def ipython_answers():
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance(colors="nocolor")
    shell.run_cell(PRELUDE)
    answers = {}
    for name, source in PROGRAMS.items():
        printed, sys.stdout = sys.stdout, io.StringIO()
        try:
            result = shell.run_cell(source)
            text = sys.stdout.getvalue()
        finally:
            sys.stdout = printed
        e = result.error_in_exec
        assert e is not None, (name, text)
        last = re.split(r"\nThe above exception was the direct cause|\nDuring handling", text)[-1]
        frames = []
        for line in last.splitlines():
            cell, file = CELL.match(line.strip()), FILE.match(line.strip())
            if cell:
                frames.append("<user>:" + (cell.group(1) or "<module>"))
            elif file:
                frames.append(os.path.basename(file.group(1)) + ":" + file.group(2))
        answers[name] = {"type": type(e).__name__, "message": str(e).split("\n")[0],
                         "note": NOTE in last, "cause": _cause(e), "frames": frames}
    return answers


if WHERE == "ipython":
    out = ipython_answers()
else:
    out = {name: script_answer(name, source) for name, source in PROGRAMS.items()}
print(json.dumps(out))
