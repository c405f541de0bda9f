"""Record JAX's results for the cases of jnp_cases.py (run by hand, not by the suite):

    .venv-jax/bin/python reference/gen_jnp_reference.py

For each case: the eager result and the result under jax.jit (array arguments traced,
non-string arguments static), as dtype, weak type, shape and values, or the error type;
and the jit result with jax_enable_x64 on.

    .venv-jax/bin/python reference/gen_jnp_reference.py --only 'jnp.log(spec)' ...

records those cases again and keeps the rest of the file as it is: the GPU tier (docs/gpu.md)
compares jxkernel on a GPU with JAX on the same GPU this way.
"""
import json
import os
import sys
import warnings

import jax
import jax.numpy as jnp
import jax.nn as nn
import jax.scipy.special as special
import numpy as np
from jax import lax

from recording import DATA, record_cases  # puts tests/data on sys.path
from jnp_cases import PRELUDE, all_cases, case_id, prepared  # noqa: E402

warnings.simplefilter("ignore")


def encode(out):
    if isinstance(out, jax.Array):
        value = np.asarray(out)
        if value.dtype.kind == "c":
            value = np.stack([value.real, value.imag], -1)
        elif value.dtype.kind == "V" or value.dtype.name == "bfloat16":
            value = value.astype(np.float32)
        return {"dtype": str(out.dtype), "weak": bool(out.weak_type), "shape": list(out.shape),
                "value": value.tolist()}
    if isinstance(out, (tuple, list)):
        return {"seq": [encode(o) for o in out], "type": type(out).__name__}
    if isinstance(out, complex):
        return {"py": [out.real, out.imag], "pytype": "complex"}
    if isinstance(out, (bool, int, float)) or out is None:
        return {"py": out, "pytype": type(out).__name__}
    raise TypeError(f"cannot encode {type(out)}")


def run(case, env, jit):
    call, dyn = prepared(case, env)
    try:
        return encode(jax.jit(call)(*dyn) if jit else call(*dyn))
    except Exception as e:  # noqa: BLE001 - the error type is part of the reference
        return {"error": type(e).__name__, "msg": str(e).splitlines()[0][:300] if str(e) else ""}


def main(only=()):
    env = {"jnp": jnp, "nn": nn, "special": special, "lax": lax, "jax": jax,
           "A": jnp.asarray}
    exec(PRELUDE, env)
    cases = [case for case in all_cases() if not only or case_id(case) in only]
    out = []
    for case in cases:
        out.append({"id": case_id(case), "group": case[0],
                    "eager": run(case, env, False), "jit": run(case, env, True)})
    jax.config.update("jax_enable_x64", True)        # the same cases' types in 64-bit mode
    for entry, case in zip(out, cases):
        entry["x64"] = run(case, env, True)
    jax.config.update("jax_enable_x64", False)
    if only:          # the other cases as recorded before
        with open(os.path.join(DATA, "jnp_reference.json")) as f:
            again = {entry["id"]: entry for entry in out}
            out = [again.get(entry["id"], entry) for entry in json.load(f)["cases"]]
    record_cases(jax, out, "jnp_reference.json")


if __name__ == "__main__":
    main(set(sys.argv[2:]) if sys.argv[1:2] == ["--only"] else ())
