"""Run the cases of jnp_cases.py with jxkernel and compare with JAX's recorded results
(jnp_reference.json): dtype, weak type and shape exactly, values to a few ulps, errors by
type; in 64-bit mode, the types under jit. Used by test_numpy_ufuncs.py, test_numpy_creation.py, test_array_methods.py and
test_nn.py.
"""
import contextlib
import json
import os
import warnings

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.nn as nn
import jxkernel.numpy as jnp
import jxkernel.scipy.special as special
from jxkernel import lax

from jnp_cases import PRELUDE, all_cases, case_id

_HERE = os.path.dirname(os.path.abspath(__file__))
ENV = {"jnp": jnp, "nn": nn, "special": special, "lax": lax, "jax": jax, "A": jnp.asarray}
exec(PRELUDE, ENV)

# Relative tolerance by dtype: jaxlib is the same, so most results are bit-identical; where
# XLA fuses differently (an eager op-by-op chain vs one jitted computation) the last bits
# of transcendental functions may differ.
_RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 3e-6, "complex64": 3e-6,
         "float64": 1e-13, "complex128": 1e-13}


@contextlib.contextmanager
def x64_mode():
    """jax_enable_x64 on for the block (restored after)."""
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", old)


def load(*groups, every: int = 1, known=None):
    """[(case, reference)] of the given groups as pytest params with readable ids; every
    `every`-th case only, and cases in `known` ({id: reason}) marked as expected failures."""
    with open(os.path.join(_HERE, "jnp_reference.json")) as f:
        refs = {c["id"]: c for c in json.load(f)["cases"]}
    params = []
    cases = [c for c in all_cases() if c[0] in groups]
    for case in cases[::every]:
        cid = case_id(case)
        marks = [pytest.mark.xfail(reason=known[cid], strict=True)] if cid in (known or {}) \
            else []
        params.append(pytest.param(case, refs[cid], id=cid, marks=marks))
    return params


def run(case, mode: str):
    """The case's result with jxkernel: mode "eager", "jit" (array arguments traced), or
    "trace" (jax.eval_shape: the jit path's types without compiling)."""
    _, fn_text, args, kw = case
    fn = eval(fn_text, ENV)
    with np.errstate(all="ignore"):
        dyn = [eval(a, ENV) for a in args if isinstance(a, str)]
    static = {i: a for i, a in enumerate(args) if not isinstance(a, str)}

    def call(*dyn_args):
        it = iter(dyn_args)
        full = [static[i] if i in static else next(it) for i in range(len(args))]
        kwargs = {k: (eval(v, ENV) if k == "where" else v) for k, v in kw.items()}
        return fn(*full, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mode == "jit":
            return jax.jit(call)(*dyn)
        if mode == "trace":
            return jax.eval_shape(call, *dyn)
        return call(*dyn)


def check(case, ref, mode: str):
    """Run the case and assert it matches the reference (or raises the same error type)."""
    try:
        out = run(case, mode)
    except Exception as e:  # noqa: BLE001
        if "error" in ref:
            assert type(e).__name__ == ref["error"] or ref["error"] in [
                c.__name__ for c in type(e).__mro__], \
                f"expected {ref['error']} ({ref['msg']}), got {type(e).__name__}: {e}"
            return
        raise
    assert "error" not in ref, f"expected {ref['error']}: {ref['msg']}; got {out!r}"
    compare(out, ref)


def compare(out, ref, path="out"):
    if "seq" in ref:
        assert isinstance(out, (tuple, list)), f"{path}: expected a {ref['type']}, got {out!r}"
        assert len(out) == len(ref["seq"]), f"{path}: length {len(out)} != {len(ref['seq'])}"
        for i, (o, r) in enumerate(zip(out, ref["seq"])):
            compare(o, r, f"{path}[{i}]")
        return
    if "py" in ref:
        assert type(out).__name__ == ref["pytype"], f"{path}: {type(out)} != {ref['pytype']}"
        want = complex(*ref["py"]) if ref["pytype"] == "complex" else ref["py"]
        if isinstance(want, float):
            np.testing.assert_allclose(out, want, rtol=1e-6)
        else:
            assert out == want, f"{path}: {out!r} != {want!r}"
        return
    assert isinstance(out, (jax.Array, jax.ShapeDtypeStruct)), \
        f"{path}: expected an Array, got {type(out)}: {out!r}"
    got = (str(out.dtype), bool(out.weak_type), list(out.shape))
    want = (ref["dtype"], ref["weak"], ref["shape"])
    assert got == want, f"{path}: (dtype, weak_type, shape) {got} != JAX's {want}"
    if isinstance(out, jax.ShapeDtypeStruct):
        return
    value = np.asarray(out)
    if value.dtype.kind == "c":
        value = np.stack([value.real, value.imag], -1)
    elif value.dtype.name == "bfloat16":
        value = value.astype(np.float32)
    expected = np.array(ref["value"], dtype=value.dtype if value.size else None)
    if value.dtype.kind in "biu":
        np.testing.assert_array_equal(value, expected.reshape(value.shape), err_msg=path)
    else:
        rtol = _RTOL[ref["dtype"]]
        tiny = np.finfo(np.float32 if ref["dtype"] == "bfloat16" else value.dtype).tiny
        np.testing.assert_allclose(value, expected.reshape(value.shape), rtol=rtol,
                                   atol=tiny, equal_nan=True, err_msg=path)
