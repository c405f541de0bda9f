"""Programs that pass a traced value where a jnp function needs a concrete one (an axis, a
length, a slice's bound): JAX's ConcretizationTypeError says where it arose on its second
line, in each function's own words ("axis argument of jnp.insert().", "It arose in the
jnp.arange argument 'stop'"). Recorded by reference/make_concretization_context_reference.py
into tests/data/concretization_context_reference.json and compared by
tests/numpy/test_concretization_context.py.

Each case is `f(jnp, n)`, jitted and called with n = 3 (traced): `run(jax)` answers
{case: "ErrorType: message"} or {case: "ok"}."""
import pickle

import numpy as np

X = np.arange(6.0, dtype=np.float32)
I = np.array([0, 1, 1, 3], np.int32)

CASES = {
    "hanning M": lambda jnp, n: jnp.hanning(n),
    "bartlett M": lambda jnp, n: jnp.bartlett(n),
    "blackman M": lambda jnp, n: jnp.blackman(n),
    "hamming M": lambda jnp, n: jnp.hamming(n),
    "kaiser M": lambda jnp, n: jnp.kaiser(n, 2.0),
    "mgrid stop": lambda jnp, n: jnp.mgrid[0:n],
    "mgrid start": lambda jnp, n: jnp.mgrid[n:5],
    "mgrid step": lambda jnp, n: jnp.mgrid[0:5:n],
    "ogrid stop": lambda jnp, n: jnp.ogrid[0:n],
    "bincount minlength": lambda jnp, n: jnp.bincount(I, minlength=n),
    "bincount length": lambda jnp, n: jnp.bincount(I, length=n),
    "bincount x": lambda jnp, n: jnp.bincount(I + n),
    "digitize right": lambda jnp, n: jnp.digitize(X, X, right=n > 0),
    "histogram_bin_edges bins": lambda jnp, n: jnp.histogram_bin_edges(X, bins=n),
    "vander N": lambda jnp, n: jnp.vander(X, N=n),
    "polyder m": lambda jnp, n: jnp.polyder(X, m=n),
    "polyint m": lambda jnp, n: jnp.polyint(X, m=n),
    "polyfit deg": lambda jnp, n: jnp.polyfit(X, X, deg=n),
    "polyfit rcond": lambda jnp, n: jnp.polyfit(X, X, 1, rcond=n * 1.0),
    "diff n": lambda jnp, n: jnp.diff(X, n=n),
    "diff axis": lambda jnp, n: jnp.diff(X, axis=n - 3),
    "arange start": lambda jnp, n: jnp.arange(n, 5),
    "arange stop": lambda jnp, n: jnp.arange(n),
    "arange step": lambda jnp, n: jnp.arange(0, 5, n),
    "eye k": lambda jnp, n: jnp.eye(4, k=n),
    "tri k": lambda jnp, n: jnp.tri(4, k=n),
    "insert axis": lambda jnp, n: jnp.insert(X, 1, 0.0, axis=n - 3),
    # not jnp's: pickling a traced value (its __reduce__ needs the value)
    "pickle.dumps obj": lambda jnp, n: pickle.dumps(n),
}


def run(jax) -> dict:
    """{case: "ErrorType: message" (JAX's whole text), or "ok"} under `jax`."""
    out = {}
    for name, case in CASES.items():
        try:
            jax.block_until_ready(jax.jit(lambda n, case=case: case(jax.numpy, n))(3))
        except Exception as e:  # noqa: BLE001  (what each raises is what is recorded)
            out[name] = f"{type(e).__name__}: {e}"
        else:
            out[name] = "ok"
    return out
