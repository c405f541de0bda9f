"""jxkernel.random against numbers recorded from JAX 0.10.2.

reference/make_random_reference.py evaluated each expression with real JAX and stored the
bit pattern of the result (floats viewed as unsigned ints): keys, split/fold_in/bits, every
sampler across seeds, shapes and dtypes (f32, f16, bf16, complex; f64/int64/uint64 with
x64), eagerly, under jit and under vmap. Here the same text runs with jxkernel. Keys, bits,
integers, booleans and floats exact by construction compare bit for bit; a record with
"ulps" (its bound, chosen beside the case in the generator) holds floats that may differ per
CPU, compared in ulps (tests/support/numerics.py).

Each case's text is evaluated as a function of its keys, and the texts compiled together,
one program per CHUNK calls (compiled.jit_together; issue 45: one compile per sampler, shape
and dtype, ~0.2 s of CPU each, were 95 % of this file's time). A sampler called eagerly is
one jitted call, as JAX's, so under the common jit it traces to the same computation; the
text's own jit and vmap stay inside it. A text that cannot be traced (np.asarray of a key)
runs eagerly, as do EAGER_TEXTS.
"""
import functools

import ml_dtypes
import numpy as np
import pytest

import jxkernel
import jxkernel.random as r
from jxkernel import config, lax
from numerics import assert_allclose_ulp
import backend_tier  # tests/support
from compiled import jit_together  # tests/support
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("random_reference.json")

CASES = REFERENCE["cases"]
ALPHAS = np.array([0.01, 0.1, 0.5, 1.0, 1.5, 2.0, 3.5, 10.0], np.float32)   # as in the generator
COV = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]], np.float32)


# On the NumPy backend (`pytest --backend numpy`): cases measured at the result's scale, where
# XLA's LAPACK and dot round otherwise than NumPy's and a sum cancels. multivariate_normal's
# Cholesky factor differs by an ulp from jaxlib's LAPACK (3e-8) and the 3-term dot of normals
# with it by another (1.2e-7), then mean + that cancels to -0.0132 (64 ulps there, float64:
# 8 at -0.23); at max |value| (4.03, 2.68) that is 0.25 and 1 ulp, within the case's 4.
NUMPY_BACKEND_SCALED = {
    "r.multivariate_normal(k, np.array([1.0, -1.0, 0.5], np.float32), COV, (8,))|seed=1",
    "r.multivariate_normal(k, np.array([1.0, -1.0, 0.5]), COV.astype(np.float64), (8,))|seed=0|x64",
}


# Texts evaluated eagerly, as JAX's values were: under the common jit their float arguments
# are constants the compiler knows, where an eager call passes them to the sampler's jit as
# run-time arguments, and the value moves. truncated_normal(k, 3.0, 4.0): erf of the bounds
# comes out otherwise (jit(lambda k: r.truncated_normal(k, 3.0, 4.0, (8,))) gives 3.8465095
# where eager and JAX give 3.8466315), and erf_inv near 1 turns that into 256 ulps.
EAGER_TEXTS = {"r.truncated_normal(k, 3.0, 4.0, (8,))"}


def _uint_view(dtype: np.dtype) -> np.dtype:
    """The unsigned type a float's bits are stored as (a complex's: one part's)."""
    return np.dtype(f"u{dtype.itemsize // (2 if dtype.kind == 'c' else 1)}")


def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind in "fc" or dtype == ml_dtypes.bfloat16


def _bits(x: np.ndarray) -> list:
    if x.dtype == np.bool_:
        return x.astype(np.uint8).ravel().tolist()
    if _is_float(x.dtype):
        x = x.view(_uint_view(x.dtype))
    return [int(v) for v in x.ravel()]


def _recorded_floats(case, dtype: np.dtype) -> np.ndarray:
    return np.array(case["bits"], _uint_view(dtype)).view(dtype).reshape(case["shape"])


def _text(expr):
    """The case's text as a function of its keys (a raw key `k`, a typed key `kt`)."""
    def evaluate(k, kt):
        return eval(expr, {"r": r, "jax": jxkernel, "np": np, "bf16": ml_dtypes.bfloat16,
                           "k": k, "kt": kt, "ALPHAS": ALPHAS, "COV": COV})
    return evaluate


def _keys(case):
    return [r.PRNGKey(case["seed"]), r.key(case["seed"])]


def _evaluate(case):
    return np.asarray(_text(case["expr"])(*_keys(case)))


def _case_id(case):
    return f"{case['expr']}|seed={case['seed']}" + ("|x64" if case["x64"] else "")


# calls per program: a program is compiled when a test first needs it, so where xdist splits
# the file between two workers both compile only the chunk at the split twice (file alone,
# -n 2: 186 -> 21 compiles, 31.8 -> 21.9 and 26.5 s CPU; with 64 calls: 12 compiles, 39.7 s)
CHUNK = 16


@functools.cache
def _calls(x64: bool) -> tuple:
    """The jit_together calls of the cases with this x64 setting whose text traces, in chunks
    of CHUNK calls, and {case id: (chunk, call, index into its mapped value or None)}. A text
    recorded for several seeds is traced once, mapped over their keys (lax.map: a loop, the
    text unbatched), as eagerly it compiled once: traced once per seed, the program held 1.5
    times the code (gamma's loop three times)."""
    with config.override("jax_enable_x64", x64):
        texts = {}
        for case in CASES:
            if case["x64"] == x64 and case["expr"] not in EAGER_TEXTS:
                texts.setdefault(case["expr"], []).append(case)
        chunks, where = [], {}
        for expr, cases in texts.items():
            fun = _text(expr)
            try:
                jxkernel.eval_shape(fun, *_keys(cases[0]))
            except Exception:  # noqa: BLE001  (traced it fails, eagerly it runs: the test's own)
                continue
            if not chunks or len(chunks[-1]) >= CHUNK:
                chunks.append({})
            calls = chunks[-1]
            if len(cases) == 1 or "kt" in expr:          # typed keys: one call per seed
                for case in cases:
                    calls[_case_id(case)] = (fun, _keys(case))
                    where[_case_id(case)] = (len(chunks) - 1, _case_id(case), None)
                continue
            raw = np.stack([np.asarray(_keys(case)[0]) for case in cases])
            calls[expr] = (lambda ks, fun=fun: lax.map(lambda k: fun(k, None), ks), [raw])
            for i, case in enumerate(cases):
                where[_case_id(case)] = (len(chunks) - 1, expr, i)
        return chunks, where


@functools.cache
def _compiled_chunk(x64: bool, chunk: int) -> dict:
    """{call: value} of one chunk, computed under jit as one program; compiled when a test
    first needs it, so a worker that runs part of the file compiles only its chunks."""
    calls = _calls(x64)[0][chunk]
    with config.override("jax_enable_x64", x64):
        together = jit_together(jxkernel, calls, chunk=len(calls))
        return {key: np.asarray(together[key]) for key in calls}


def _compiled_together(x64: bool, case_id: str):
    """The case's value computed under jit with its chunk, or None (then eagerly)."""
    found = _calls(x64)[1].get(case_id)
    if found is None:
        return None
    chunk, key, index = found
    value = _compiled_chunk(x64, chunk)[key]
    return value if index is None else value[index]


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_matches_jax(case):
    out = _compiled_together(case["x64"], _case_id(case))
    if out is None:
        with config.override("jax_enable_x64", case["x64"]):
            out = _evaluate(case)
    assert str(out.dtype) == case["dtype"]
    assert list(out.shape) == case["shape"]
    if "ulps" in case:
        assert _is_float(out.dtype), "a bound is for floats only"
        want = _recorded_floats(case, out.dtype)
        scale = case.get("scale")
        if backend_tier.on_numpy_backend() and _case_id(case) in NUMPY_BACKEND_SCALED:
            scale = "max"
        if scale == "max":
            scale = np.abs(want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
                           ).max(initial=0)
        assert_allclose_ulp(out, want, case["ulps"], scale=scale, err_msg=_case_id(case))
        return
    got = _bits(out)
    if got != case["bits"]:
        want = np.array(case["bits"], dtype=object)
        bad = np.nonzero(np.array(got, dtype=object) != want)[0]
        pytest.fail(f"{len(bad)} of {len(got)} elements differ from JAX, first at flat "
                    f"index {bad[0]}: got bits {got[bad[0]]:#x}, JAX {case['bits'][bad[0]]:#x}"
                    f" (value {out.ravel()[bad[0]]!r})")
