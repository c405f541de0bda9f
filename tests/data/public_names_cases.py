"""Cases for the names of JAX's public API that jxkernel added (tests/test_public_names.py lists
them): `run(jax)` answers each with JAX (reference/make_public_names_reference.py records it in
public_names_reference.json) and with jxkernel (the tests compare, exactly: every case is
integers, bits, dtypes, shapes or text, or floats exact by construction).

Arrays are written as {"dtype", "shape", "bits"}: their bytes in hex, so float8 and int4 values
compare bit for bit."""
import numpy as np


def enc(x):
    """An array (or a pytree of them) as JSON: dtype, shape and its bytes in hex."""
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    if isinstance(x, dict):
        return {k: enc(v) for k, v in x.items()}
    if isinstance(x, (str, bool, int, float)) or x is None:
        return x
    a = np.asarray(x)
    if a.dtype.itemsize == 0 or a.dtype.kind == "V":     # extended dtypes have no bytes
        return {"dtype": str(x.dtype), "shape": list(a.shape)}
    return {"dtype": str(a.dtype), "shape": list(a.shape), "bits": a.tobytes().hex(),
            "weak": bool(getattr(x, "weak_type", False))}


def outcome(fun):
    """What `fun()` returns, encoded, or the class of what it raises."""
    try:
        return enc(fun())
    except Exception as e:   # the class is the contract; the wording is checked apart
        return f"raises {type(e).__name__}"


def warned(fun):
    """fun()'s value, encoded, and the categories of the warnings it gave."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fun()
    return [enc(value), [w.category.__name__ for w in caught]]


def api_cases(jax):
    """The root's small utilities."""
    jnp, ArrayLike, DTypeLike = jax.numpy, jax.typing.ArrayLike, jax.typing.DTypeLike
    x = {"a": jnp.arange(3.0), "b": (1, "s")}
    return {
        "typing_arraylike": [isinstance(v, ArrayLike) for v in (
            jnp.ones(2), np.ones(2), 1.5, 2, True, 1j, np.int8(3), np.float32(1), [1, 2],
            (1,), "a", None)],
        "typing_dtypelike_args": sorted(getattr(a, "__name__", str(a)) for a in DTypeLike.__args__),
        "process_indices": jax.process_indices(),
        "host_id_count_ids": warned(lambda: [jax.host_id(), jax.host_count(), jax.host_ids()]),
        "copy_to_host_async": [jax.copy_to_host_async(x) is x, enc(np.asarray(x["a"]))],
    }


def run(jax) -> dict:
    return {"api": api_cases(jax)}
