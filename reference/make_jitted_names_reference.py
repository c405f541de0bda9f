"""Record which of JAX 0.10.2's public functions are jit objects (PjitFunction), with their
static arguments and inline flag (from `_jit_info`), and what `export`, `.lower` and
`.eval_shape` give for the sample in tests/data/jitted_names_cases.py. Writes
tests/data/jitted_names_reference.json. Run by hand, from the repository root:

    .venv-jax/bin/python reference/make_jitted_names_reference.py
"""
import importlib
import json
import os
import sys

import jax
import numpy as np
from jax import export

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from jitted_names_cases import MODULES, samples  # noqa: E402


def jitted_names(mod) -> dict:
    """{name: static arguments and inline} for each public PjitFunction of `mod`."""
    out = {}
    for name in sorted(n for n in dir(mod) if not n.startswith("_")):
        fn = getattr(mod, name)
        if type(fn).__name__ != "PjitFunction":
            continue
        info = fn._jit_info
        out[name] = {"static_argnames": list(info.static_argnames),
                     "static_argnums": list(info.static_argnums),
                     "inline": info.inline,
                     "fun_name": getattr(fn, "__name__", name)}
    return out


def sample(module, name, args, kwargs) -> dict:
    fn = getattr(importlib.import_module("jax." + module), name)
    exp = export.export(fn)(*args, **kwargs)
    text = fn.lower(*args, **kwargs).as_text()
    shape = fn.eval_shape(*args, **kwargs)
    result = np.asarray(fn(*args, **kwargs))
    return {"module": module, "name": name, "fun_name": exp.fun_name,
            "in_avals": [str(a) for a in exp.in_avals],
            "out_avals": [str(a) for a in exp.out_avals],
            "eval_shape": [list(shape.shape), str(shape.dtype)],
            "has_main": "func.func public @main" in text,
            "result": result.tolist(), "dtype": str(result.dtype)}


def public_names(mod) -> list:
    return sorted(n for n in dir(mod) if not n.startswith("_"))


ref = {"jax_version": jax.__version__,
       "modules": {m: jitted_names(importlib.import_module("jax." + m)) for m in MODULES},
       "public": {m: public_names(importlib.import_module("jax." + m)) for m in MODULES},
       "samples": [sample(*case) for case in samples()]}
with open(os.path.join(HERE, "jitted_names_reference.json"), "w") as f:
    json.dump(ref, f, indent=1, sort_keys=True)
    f.write("\n")
print("tests/data/jitted_names_reference.json written:",
      sum(map(len, ref["modules"].values())), "jitted names")
