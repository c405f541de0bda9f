"""Generate promotion_table.json from real JAX (run by hand, not by the test suite):

    .venv-jax/bin/python reference/gen_promotion_table.py

Records jnp.result_type (with its weak-type flag) and jnp.promote_types over all pairs of
dtypes, Python scalar types and weakly typed arrays, in both x64 modes.
"""
import itertools
import json
import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import dtypes as jax_dtypes

warnings.simplefilter("ignore")
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "bfloat16", "float16", "float32", "float64", "complex64", "complex128"]
PY = {"py:int": int, "py:float": float, "py:complex": complex, "py:True": True, "py:2": 2,
      "py:2.5": 2.5}
WEAK = {"weak:int": lambda: jnp.asarray(1), "weak:float": lambda: jnp.asarray(1.0),
        "weak:complex": lambda: jnp.asarray(1j)}


def value(name):
    if name in PY:
        return PY[name]
    if name in WEAK:
        return WEAK[name]()
    return jnp.dtype(name)


def table():
    names = DTYPES + list(PY) + list(WEAK)
    rt, pt = [], []
    for a, b in itertools.product(names, repeat=2):
        d, w = jax_dtypes.result_type(value(a), value(b), return_weak_type_flag=True)
        assert d == jnp.result_type(value(a), value(b))
        rt.append([a, b, str(d), bool(w)])
    for a in names:
        d, w = jax_dtypes.result_type(value(a), return_weak_type_flag=True)
        rt.append([a, None, str(d), bool(w)])
    for a, b in itertools.product(DTYPES + ["py:int", "py:float", "py:complex"], repeat=2):
        pt.append([a, b, str(jnp.promote_types(value(a), value(b)))])
    return {"result_type": rt, "promote_types": pt}


out = {}
for mode in ("x32", "x64"):
    jax.config.update("jax_enable_x64", mode == "x64")
    out[mode] = table()
path = os.path.join(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"), "promotion_table.json")
with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, **out}, f, separators=(",", ":"))
print("wrote", path)
