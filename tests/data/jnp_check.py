"""Run the cases of jnp_cases.py with jxkernel and compare with JAX's recorded results
(jnp_reference.json): dtype, weak type and shape exactly, integers and booleans exactly, floats
within the case's bound in ulps (`jnp_cases.ulps`: the reference was recorded on another CPU),
errors by type; in 64-bit mode, the types under jit. Used by test_numpy_ufuncs.py,
test_numpy_creation.py, test_array_methods.py and test_nn.py.
"""
import json
import os
import warnings

import ml_dtypes
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.nn as nn
import jxkernel.numpy as jnp
import jxkernel.scipy.special as special
from jxkernel import lax

from backend_tier import on_numpy_backend
from compiled import xla_default_code
from jnp_cases import PRELUDE, all_cases, case_id, prepared, ulps
from numerics import assert_allclose_ulp

_HERE = os.path.dirname(os.path.abspath(__file__))
ENV = {"jnp": jnp, "nn": nn, "special": special, "lax": lax, "jax": jax, "A": jnp.asarray}
exec(PRELUDE, ENV)

def x64_mode():
    """jax_enable_x64 on for the block (restored after)."""
    return jax.config.override("jax_enable_x64", True)


def load(*groups, every: int = 1, known=None, xla_only=None):
    """[(case, reference)] of the given groups as pytest params with readable ids; every
    `every`-th case only, cases in `known` ({id: reason}) marked as expected failures and
    those in `xla_only` ({id: backend_tier reason}) as XLA's only."""
    with open(os.path.join(_HERE, "jnp_reference.json")) as f:
        refs = {c["id"]: c for c in json.load(f)["cases"]}
    params = []
    cases = [c for c in all_cases() if c[0] in groups]
    for case in cases[::every]:
        cid = case_id(case)
        marks = [pytest.mark.xfail(reason=known[cid], strict=True)] if cid in (known or {}) \
            else []
        if cid in (xla_only or {}):
            marks.append(pytest.mark.xla_only(xla_only[cid]))
        params.append(pytest.param(case, refs[cid], id=cid, marks=marks))
    return params


def matches_jax_tests(*groups, every: int, known_jit=None, known_eager=None,
                      xla_only=None, default_code=()) -> tuple:
    """The four tests of a module against JAX's record of the cases of `groups`: eager
    results; every case traced under jit (dtypes, weak types, shapes, errors; no compile);
    jit(f)(x) of every `every`-th case (compiled together, one program per 64 cases:
    _jit_together); and the types under jit with jax_enable_x64. `known_jit` and
    `known_eager` ({id: reason}) mark where jxkernel knowingly differs, under jit or eagerly;
    `xla_only` ({id: backend_tier reason}) where the value is one only XLA gives;
    `default_code` (ids) where the eager value is that of XLA's default code (compiled.
    xla_default_code).

        test_matches_jax_eager, test_matches_jax_jit_types, test_matches_jax_jit_values, \
            test_matches_jax_x64_types = matches_jax_tests("ufunc", every=5)
    """
    jit_values = load(*groups, every=every, known=known_jit, xla_only=xla_only)

    @pytest.mark.parametrize("case,ref", load(*groups, known=known_eager, xla_only=xla_only))
    def test_matches_jax_eager(case, ref):
        if case_id(case) in default_code:
            with xla_default_code():
                check(case, ref["eager"], "eager")
        else:
            check(case, ref["eager"], "eager")

    @pytest.mark.parametrize("case,ref", load(*groups, known=known_jit))
    def test_matches_jax_jit_types(case, ref):
        check(case, ref["jit"], "trace")

    @pytest.mark.parametrize("case,ref", jit_values)
    def test_matches_jax_jit_values(case, ref):
        check(case, ref["jit"], "jit", together=jit_values)

    @pytest.mark.parametrize("case,ref", load(*groups, known=known_jit))
    def test_matches_jax_x64_types(case, ref):
        with x64_mode():
            check(case, ref["x64"], "trace")

    return (test_matches_jax_eager, test_matches_jax_jit_types, test_matches_jax_jit_values,
            test_matches_jax_x64_types)


def _prepare(case):
    """(call, dyn): the case's function of its traced (array) arguments, and those arguments."""
    return prepared(case, ENV)


def run(case, mode: str):
    """The case's result with jxkernel: mode "eager", "jit" (array arguments traced), or
    "trace" (jax.eval_shape: the jit path's types without compiling)."""
    call, dyn = _prepare(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mode == "jit":
            return jax.jit(call)(*dyn)
        if mode == "trace":
            return jax.eval_shape(call, *dyn)
        return call(*dyn)


# ------------------------------------------------------------ jit cases, compiled together
# Each jit case alone is one XLA compile (~35 ms of fixed cost each, issue 45). A test's jit
# cases run instead as one jitted program per chunk of cases: each case's function is traced
# on its own arguments, as jax.jit(call) traces it, and its outputs are outputs of the common
# program (the cases share no values, so XLA compiles each one's operations as it would alone).
# A case whose tracing raises, or that returns anything but traced arrays, is left out of the
# program and runs alone as before (its error is then checked as before); a chunk whose
# program fails to compile or run runs case by case.
_CHUNK = 64
_TOGETHER: dict = {}


def _is_traceable_argument(leaf) -> bool:
    return isinstance(leaf, (np.ndarray, np.generic, jax.Array, bool, int, float, complex))


def _jit_together(cases) -> dict:
    """{case_id: output} of the cases that ran in a common jitted program."""
    prepared = []
    for case in cases:
        try:
            call, dyn = _prepare(case)
        except Exception:  # noqa: BLE001  (it raises again, alone, and is checked there)
            continue
        if all(_is_traceable_argument(leaf) for leaf in jax.tree_util.tree_leaves(dyn)):
            prepared.append((case_id(case), call, dyn))
    results = {}
    for start in range(0, len(prepared), _CHUNK):
        chunk = prepared[start:start + _CHUNK]

        def program(all_dyn, chunk=chunk):
            outs = {}
            for (cid, call, _), dyn in zip(chunk, all_dyn):
                try:
                    out = call(*dyn)
                except Exception:  # noqa: BLE001  (runs alone)
                    continue
                leaves = jax.tree_util.tree_leaves(out)
                if leaves and all(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
                    outs[cid] = out
            return outs
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                outs = jax.jit(program)([dyn for _, _, dyn in chunk])
                jax.block_until_ready(outs)
        except Exception:  # noqa: BLE001  (the chunk runs case by case)
            continue
        results.update(outs)
    return results


def check(case, ref, mode: str, together=None):
    """Run the case and assert it matches the reference (or raises the same error type).
    With mode "jit", `together` (the test's list of params from `load`) runs the cases' jit
    programs as one (see _jit_together); a case not in it runs alone."""
    if mode == "jit" and together is not None:
        key = tuple(case_id(p.values[0]) for p in together)
        if key not in _TOGETHER:
            _TOGETHER[key] = _jit_together([p.values[0] for p in together])
        done = _TOGETHER[key]
        if case_id(case) in done:
            assert "error" not in ref, \
                f"expected {ref['error']}: {ref['msg']}; got {done[case_id(case)]!r}"
            compare(done[case_id(case)], ref, *ulps(case, on_numpy_backend()))
            return
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
    compare(out, ref, *ulps(case, on_numpy_backend()))


def recorded(ref) -> np.ndarray:
    """The recorded array in its own dtype (JSON holds complex values as [real, imag] pairs and
    bfloat16 as float32; both convert exactly)."""
    dtype = np.dtype(ml_dtypes.bfloat16 if ref["dtype"] == "bfloat16" else ref["dtype"])
    if dtype.kind == "c":
        pairs = np.array(ref["value"], dtype=np.float64).reshape(ref["shape"] + [2])
        return (pairs[..., 0] + 1j * pairs[..., 1]).astype(dtype)
    stored = np.float32 if dtype.name == "bfloat16" else dtype
    return np.array(ref["value"], dtype=stored).reshape(ref["shape"]).astype(dtype)


def compare(out, ref, bound, scale=None, path="out"):
    if "seq" in ref:
        assert isinstance(out, (tuple, list)), f"{path}: expected a {ref['type']}, got {out!r}"
        assert len(out) == len(ref["seq"]), f"{path}: length {len(out)} != {len(ref['seq'])}"
        for i, (o, r) in enumerate(zip(out, ref["seq"])):
            compare(o, r, bound, scale, f"{path}[{i}]")
        return
    if "py" in ref:
        # Python scalars come from copies (item, tolist, float(), len, ...): exact
        assert type(out).__name__ == ref["pytype"], f"{path}: {type(out)} != {ref['pytype']}"
        want = complex(*ref["py"]) if ref["pytype"] == "complex" else ref["py"]
        assert out == want, f"{path}: {out!r} != {want!r}"
        return
    assert isinstance(out, (jax.Array, jax.ShapeDtypeStruct)), \
        f"{path}: expected an Array, got {type(out)}: {out!r}"
    got = (str(out.dtype), bool(out.weak_type), list(out.shape))
    want = (ref["dtype"], ref["weak"], ref["shape"])
    assert got == want, f"{path}: (dtype, weak_type, shape) {got} != JAX's {want}"
    if isinstance(out, jax.ShapeDtypeStruct):
        return
    assert_allclose_ulp(np.asarray(out), recorded(ref), bound, scale=scale, err_msg=path)
