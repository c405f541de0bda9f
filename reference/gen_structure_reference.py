"""Record JAX's jaxprs and values for the cases of structure_cases.py (run by hand, not by
the suite):

    .venv-jax/bin/python reference/gen_structure_reference.py

Jaxprs are printed by make_jaxpr, with JAX's `np.int64(3)` params written `3` (ours are
Python ints). Values are eager results: dtype, weak type, shape and values, or the error.
"""
import json
import os
import re
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"))
from structure_cases import JAXPRS, REFERENCE, VALUES, namespace  # noqa: E402


def encode(out):
    if isinstance(out, (tuple, list)):
        return {"seq": [encode(o) for o in out]}
    value = np.asarray(out)
    if value.dtype.kind == "c":
        value = np.stack([value.real, value.imag], -1)
    return {"dtype": str(out.dtype), "weak": bool(getattr(out, "weak_type", False)),
            "shape": list(np.shape(out)), "value": value.tolist()}


def main():
    ns = namespace(jax, jnp, lax)
    ref = {"jax_version": jax.__version__, "jaxprs": {}, "values": {}}
    for name, (fun, args) in JAXPRS.items():
        text = str(jax.make_jaxpr(eval(fun, ns))(*eval(args, ns)))
        ref["jaxprs"][name] = re.sub(r"np\.int64\((-?\d+)\)", r"\1", text)
    for name, (fun, args) in VALUES.items():
        try:
            ref["values"][name] = encode(eval(fun, ns)(*eval(args, ns)))
        except Exception as e:  # noqa: BLE001
            ref["values"][name] = {"error": type(e).__name__, "message": str(e)}
    with open(REFERENCE, "w") as f:
        json.dump(ref, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
