"""Cases for the JAX-private names JAX 0.10.2's numerical-algorithm test files import
(jax._src.tpu.linalg's svd, qdwh and Stack, jax._src.lib.version, jet's fact,
test_util's build checks, sparse.linalg's debugging LOBPCG, sparse.bcoo's products) and
the gaps their runs found (clamp's JVP): `run(jax)` answers with shapes, texts, bits and float values.
reference/make_tpu_linalg_reference.py records JAX's answers into tpu_linalg_reference.json;
tests/_jax/test_tpu_linalg.py runs the same with jxkernel and compares (floats within a
stated bound, the rest exactly)."""
import importlib

import numpy as np

A = np.array([[4., 1., -2.], [2., 0., 3.], [-1., 5., 1.], [0., 2., 2.], [3., -3., 1.]],
             np.float32)


def _module(jax, name):
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def _error(fun):
    try:
        fun()
    except Exception as e:            # the error's type and first line are the facts
        return [type(e).__name__, str(e).splitlines()[0]]
    return None


def svd_cases(jax):
    svd = _module(jax, "tpu.linalg.svd").svd
    jnp = jax.numpy
    out = {}
    for name, a in (("tall", A), ("wide", A.T), ("complex", (A + 1j * A[::-1]).astype(np.complex64))):
        for full in (True, False):
            u, s, vh = svd(a, full_matrices=full)
            k = min(a.shape)
            out[f"{name} full={full}"] = {
                "shapes": [list(u.shape), list(s.shape), list(vh.shape)],
                "s": np.asarray(s, np.float64).tolist(),
                "reconstruction": float(np.abs((np.asarray(u)[:, :k] * np.asarray(s))
                                               @ np.asarray(vh)[:k] - a).max()),
                "dtypes": [str(u.dtype), str(s.dtype), str(vh.dtype)]}
    out["values only"] = np.asarray(svd(A, False, compute_uv=False), np.float64).tolist()
    nan = svd(jnp.full((3, 3), np.inf, np.float32), full_matrices=True)
    out["non-finite gives NaN"] = [bool(jnp.all(jnp.isnan(r))) for r in nan]
    out["errors"] = {
        "size": _error(lambda: svd(A, False, subset_by_index=(0, 1, 2))),
        "empty": _error(lambda: svd(A, False, subset_by_index=(2, 2))),
        "negative": _error(lambda: svd(A, False, subset_by_index=(-1, 2))),
        "too big": _error(lambda: svd(A, False, subset_by_index=(0, 4))),
        "full": _error(lambda: svd(A, True, subset_by_index=(0, 2))),
        "traced": _error(lambda: jax.jit(lambda f: svd(A, f))(True))}
    return out


def stack_cases(jax):
    Stack = _module(jax, "tpu.linalg.stack").Stack
    jnp = jax.numpy
    stack = Stack.create(3, {"a": jnp.zeros((), jnp.int32), "b": jnp.zeros(2, jnp.float32)})
    seen = [bool(stack.empty())]
    stack = stack.push({"a": jnp.int32(1), "b": jnp.ones(2)}).push(
        {"a": jnp.int32(2), "b": jnp.full(2, 5.)})
    top, stack = jax.jit(lambda s: s.pop())(stack)
    seen += [int(top["a"]), np.asarray(top["b"]).tolist(), bool(stack.empty())]
    top, stack = stack.pop()
    seen += [int(top["a"]), bool(stack.empty())]
    return {"sequence": seen, "leaves": len(jax.tree_util.tree_leaves(stack))}


def misc_cases(jax):
    lib = _module(jax, "lib")
    jtu = _module(jax, "test_util")
    jet = importlib.import_module(f"{jax.__name__}.experimental.jet")
    return {"version": [type(lib.version).__name__, list(lib.version[:2])],
            "fact": [np.asarray(jet.fact(k), np.float32).view(np.uint32).item()
                     for k in (1, 2., 3., 4.)],
            "build checks": [jtu.is_tsan(), jtu.is_sanitized(), jtu.is_gil_disabled(),
                             jtu.is_test_rbe()]}


def lobpcg_cases(jax):
    """sparse.linalg's private LOBPCG entry with debug=True (a scan of m steps and its
    diagnostics), and sparse.bcoo's bcoo_dot_general (JAX's one BCOO module)."""
    linalg = importlib.import_module(f"{jax.__name__}.experimental.sparse.linalg")
    bcoo = importlib.import_module(f"{jax.__name__}.experimental.sparse.bcoo")
    n, k, m = 30, 2, 8
    A = np.diag(np.arange(1., n + 1)).astype(np.float32)
    X = np.random.RandomState(0).standard_normal((n, k)).astype(np.float32)
    theta, U, i, info = linalg._lobpcg_standard_matrix(A, X, m, tol=0, debug=True)
    plain = linalg._lobpcg_standard_callable(lambda x: A @ x, X, m, None)
    sp = bcoo.BCOO.fromdense(np.eye(3, dtype=np.float32) * 2)
    product = bcoo.bcoo_dot_general(sp, np.ones((3, 2), np.float32),
                                    dimension_numbers=(([1], [0]), ([], [])))
    return {"debug": {"theta": np.asarray(theta, np.float64).tolist(), "U": list(U.shape),
                      "iterations": int(i),
                      "info": {key: [list(np.shape(v)), str(np.asarray(v).dtype)]
                               for key, v in info.items()},
                      "X zeros": np.asarray(info["X zeros"]).tolist(),
                      "basis rank": np.asarray(info["basis rank"]).tolist()},
            "plain results": len(plain),
            "bcoo_dot_general": np.asarray(product).tolist()}


def clamp_jvp_cases(jax):
    """lax.clamp's tangent from each argument where lo < x < hi, x < lo < hi, lo < hi < x
    and lo > hi (the answer is hi there; jet_test's test_clamp draws such points)."""
    lo = np.float32([0., 2., 0., 1.])
    x = np.float32([1., 1., 3., 0.5])
    hi = np.float32([2., 3., 2., -1.])
    grads = jax.jacfwd(lambda a, b, c: jax.lax.clamp(a, b, c), argnums=(0, 1, 2))(lo, x, hi)
    return {"value": np.asarray(jax.lax.clamp(lo, x, hi)).tolist(),
            "diagonals": [np.diag(np.asarray(g)).tolist() for g in grads]}


def jet_logistic_cases(jax):
    """jet's logistic rule called by JAX's private name, as jet_test.py's expit tests do."""
    jet = importlib.import_module(f"{jax.__name__}.experimental.jet")
    x = np.linspace(-2, 2, 4, dtype=np.float32)
    terms = [np.cos(np.arange(4, dtype=np.float32) + k) for k in range(3)]
    y, out = jet._logistic_taylor((x,), (terms,))
    return [np.asarray(v, np.float64).tolist() for v in (y, *out)]


def run(jax):
    return {"jet_logistic": jet_logistic_cases(jax), "clamp_jvp": clamp_jvp_cases(jax), "svd": svd_cases(jax), "stack": stack_cases(jax), "misc": misc_cases(jax),
            "lobpcg": lobpcg_cases(jax)}
