"""Arrays of NumPy 2's StringDType on CPU devices (xla/string_arrays.py;
tests/xla/test_string_arrays.py compares): `run(jax)` gives, per case, what a program answers
(its repr, dtype, values) or the exception's class name and message. The reference
(string_arrays_reference.json) is real JAX 0.10.2's, written by
reference/make_string_arrays_reference.py; `run_two_devices` needs two CPU devices."""
import numpy as np


def _said(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        return {"error": type(e).__name__, "message": str(e)}


def _strings(*shape):
    words = ["abcd", "efgh", "ijkl", "mnop", "", "\u00e9t\u00e9 long enough to be out of line"]
    return np.array(words[:int(np.prod(shape))], dtype=np.dtypes.StringDType()).reshape(shape)


def _read(x):
    back = np.asarray(x)
    return {"repr": repr(x), "str": str(x), "dtype": str(back.dtype), "values": back.tolist(),
            "shape": list(x.shape), "committed": x.committed}


def _cpus(jax):
    """XLA's CPU devices; jxkernel's NumPy backend (JupyterLite's, no "cpu" by name) keeps
    these arrays on its own devices, so the same programs run there on those (JAX has none)."""
    return jax.devices() if jax.default_backend() == "numpy" else jax.devices("cpu")


def run(jax):
    jnp = jax.numpy
    cpu = _cpus(jax)[0]
    a = _strings(2)
    x = jax.device_put(a, cpu)
    out = {
        "device_put": _said(lambda: _read(x)),
        "device_put/2d": _said(lambda: _read(jax.device_put(_strings(2, 3), cpu))),
        "device_get": _said(lambda: (lambda b: [str(b.dtype), b.tolist()])(jax.device_get(x))),
        "asarray/device": _said(lambda: _read(jnp.asarray(a, device=cpu))),
        "asarray/dtype": _said(lambda: _read(jnp.asarray(
            a, device=cpu, dtype=np.dtypes.StringDType()))),
        "asarray/to_bfloat16": _said(lambda: jnp.asarray(a, device=cpu, dtype=jnp.bfloat16)),
        "asarray/from_int32": _said(lambda: jnp.asarray(np.arange(2, dtype=np.int32),
                                                        device=cpu,
                                                        dtype=np.dtypes.StringDType())),
        "array/list": _said(lambda: jnp.array(["ab"], device=cpu,
                                              dtype=np.dtypes.StringDType())),
        "device_put/no_device": _said(lambda: jax.device_put(a)),
        "jit": _said(lambda: jax.jit(lambda t: t)(x)),
        "grad": _said(lambda: jax.grad(lambda t: t)(x)),
        "vmap/identity": _said(lambda: _read(jax.vmap(lambda t: t)(x))),
        "vmap/add": _said(lambda: jax.vmap(lambda t: t + jnp.arange(2))(x)),
        "add": _said(lambda: x + x),
    }
    return out


def run_two_devices(jax):
    """Split over two CPU devices (the process needs them)."""
    jnp = jax.numpy
    mesh = jax.sharding.Mesh(np.array(_cpus(jax)[:2]).reshape((2, 1)), ("x", "y"))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x", "y"))
    a = _strings(2, 2)

    def split(x):
        return {**_read(x), "shards": [np.asarray(s.data).tolist() for s in
                                        x.addressable_shards]}
    return {"two_devices/device_put": _said(lambda: split(jax.device_put(a, sharding))),
            "two_devices/asarray": _said(lambda: split(jnp.asarray(a, device=sharding)))}
