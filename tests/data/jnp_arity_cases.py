"""Every public jax.numpy function called with one positional argument too few and one too
many, run alike by JAX 0.10.2 (reference/make_jnp_arity_reference.py, into
jnp_arity_reference.json) and by jxkernel (tests/numpy/test_jnp_arity.py).

`run(jax, plan=None)`: {"plan": name -> [too few, too many] (None where there is no such
call: nothing is required, or the function takes *args), "outcomes": name -> {"few"/"many":
[exception class, message], or ["ok", ""] where the call returned}}. Without a plan (JAX's
side) the counts come from each function's signature; the test replays the recorded plan, so
it never reads JAX's signatures. Every argument is one small float32 NumPy array: the calls
are wrong by count, and most fail when Python binds them.
"""
import inspect
import re

import numpy as np

# calls that would read or write files or print settings: not what is compared here
SKIPPED = {"load", "save", "savez", "fromfile", "fromfunction", "fromiter", "frompyfunc",
           "printoptions", "set_printoptions", "get_printoptions"}


def plan_of(jnp) -> dict:
    """name -> [too few, too many] positional counts, from each function's signature."""
    plan = {}
    for name in sorted(dir(jnp)):
        fun = getattr(jnp, name)
        if name.startswith("_") or name in SKIPPED or not callable(fun) or isinstance(fun, type):
            continue
        try:
            params = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):          # (no signature to read)
            continue
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        required = [p for p in positional if p.default is p.empty]
        star = any(p.kind is p.VAR_POSITIONAL for p in params)
        few = len(required) - 1 if required else None
        many = None if star else len(positional) + 1
        if few is not None or many is not None:
            plan[name] = [few, many]
    return plan


def text_of(e) -> list:
    """[class name, message], memory addresses written as 0x0."""
    return [type(e).__name__, re.sub(r"0x[0-9a-f]+", "0x0", str(e))]


def run(jax, plan=None) -> dict:
    jnp = jax.numpy
    plan = plan_of(jnp) if plan is None else plan
    arg, outcomes = np.ones((2, 2), np.float32), {}
    for name, counts in plan.items():
        for kind, n in zip(("few", "many"), counts):
            if n is None:
                continue
            try:
                getattr(jnp, name)(*[arg] * n)
                got = ["ok", ""]
            except Exception as e:          # (what each raises is what is compared)
                got = text_of(e)
            outcomes.setdefault(name, {})[kind] = got
    return {"plan": plan, "outcomes": outcomes}
