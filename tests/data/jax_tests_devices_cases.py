"""What JAX's device, runtime and interop test files (array_interoperability_test.py and the
others of conformance/jax_tests added with it) found, run the same way by real JAX
(reference/make_jax_tests_devices_reference.py writes jax_tests_devices_reference.json) and by
jxkernel (tests/jax_compat/test_jax_tests_devices.py): facts each as plain JSON values.
"""
import importlib

import numpy as np


def _error(thunk) -> dict:
    try:
        thunk()
    except Exception as e:      # noqa: BLE001 (the error is the fact)
        return {"type": type(e).__name__, "message": str(e)}
    return {"type": None}


def _private(jax, name: str):
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def _cache_calls(jax) -> dict:
    """`jax._src.util.cache`: calls remembered per arguments and per x64 mode, forgotten by
    clear_caches."""
    calls = []

    @_private(jax, "util").cache()
    def double(x):
        calls.append(x)
        return 2 * x

    double(3), double(3), double(x=3)
    with jax.enable_x64(True):
        double(3)
    jax.clear_caches()
    double(3)
    return {"result": double(4), "calls": calls}


class _ErroringJaxArray:
    """A duck-typed array whose __jax_array__ fails: *_like read its shape and dtype."""
    shape = (2, 3)
    dtype = np.dtype("float32")

    def __jax_array__(self):
        raise ValueError("jax array was called.")


class _Wrapper:
    """A value with only __jax_array__ (no shape, no dtype)."""
    def __init__(self, jnp, x):
        self.jnp, self.x = jnp, x

    def __jax_array__(self):
        return self.jnp.asarray(self.x)


def _described(x) -> dict:
    return {"shape": list(x.shape), "dtype": str(x.dtype), "weak_type": bool(x.weak_type),
            "value": np.asarray(x).tolist()}


def _duck_typed(jax) -> dict:
    jnp = jax.numpy
    a = np.arange(4.0, dtype=np.float32)
    w = lambda v: _Wrapper(jnp, v)      # noqa: E731
    return {
        **{f"{f.__name__}_erroring": _described(f(_ErroringJaxArray()))
           for f in (jnp.zeros_like, jnp.ones_like)},
        "empty_like_erroring": list(jnp.empty_like(_ErroringJaxArray()).shape),
        "full_like_erroring": _described(jnp.full_like(_ErroringJaxArray(), 2.0)),
        "full_like_wrapped": _described(jnp.full_like(w(a), w(np.float32(3.0)))),
        "full_like_wrapped_jit": _described(jax.jit(
            lambda x, v: jnp.full_like(w(x), w(v)))(a, np.float32(3.0))),
        "concatenate": _described(jnp.concatenate([w(a), w(a[:2])])),
        "concat": _described(jnp.concat([w(a), w(a)])),
        "iscomplexobj": [jnp.iscomplexobj(w(a + 1j)), jnp.iscomplexobj(w(a))],
    }


def defaults(jax) -> dict:
    """In a fresh process, no device count set: the option's default, and what
    xla_bridge_test.py asks of the device lists."""
    return {"jax_num_cpu_devices": jax.config.jax_num_cpu_devices,
            "local_devices_100": _error(lambda: jax.local_devices(100)),
            "unknown_backend": _error(lambda: jax.local_devices(backend="foo")),
            # backend names are JAX's, lower case: "CPU" is no backend's
            "upper_case_backend": _error(lambda: jax.devices("CPU")),
            "late_same_count": _error(lambda: jax.config.update(
                "jax_num_cpu_devices", jax.config.jax_num_cpu_devices))}


def run(jax) -> dict:
    jnp = jax.numpy
    dlpack = _private(jax, "dlpack")
    x = jnp.arange(5)
    return {
        "cuda_array_interface": {
            "hasattr": hasattr(x, "__cuda_array_interface__"),
            "error": _error(lambda: x.__cuda_array_interface__),
        },
        "dlpack_dtypes": sorted(str(d) for d in dlpack.SUPPORTED_DTYPES_SET),
        "dlpack_types": sorted(t.__name__ for t in dlpack.SUPPORTED_DTYPES),
        "util_cache": _cache_calls(jax),
        "duck_typed": _duck_typed(jax),
    }


def run_devices(jax) -> dict:
    """On 4 CPU devices (a 2x2 mesh): what `shard_alike` lays out, under jit and eagerly, and
    its error for leaves of two shapes."""
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    shard_alike = importlib.import_module(f"{jax.__name__}.experimental.shard_alike").shard_alike
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    s = jax.sharding.NamedSharding(mesh, P("x", "y"))
    x = jax.device_put(np.arange(16.0, dtype=np.float32).reshape(8, 2), s)

    def laid(out) -> dict:
        return {"spec": str(out.sharding.spec) if hasattr(out.sharding, "spec") else None,
                "equivalent": out.sharding.is_equivalent_to(s, out.ndim),
                "value": np.asarray(out).tolist()}

    def basic(v):
        _, z = shard_alike(v, v * v * 2)
        return z * 2

    def double(v):
        _, y = shard_alike(v, v * 2)
        return shard_alike(y @ y.T, jnp.arange(64.0).reshape(8, 8))

    arange = lambda v: shard_alike(v, jnp.arange(16.0).reshape(8, 2))[1]   # noqa: E731
    out1, out2 = jax.jit(double)(x)
    grad = jax.jit(jax.grad(lambda v: shard_alike(v, v * 3)[1].sum()))(x)
    return {
        "basic": laid(jax.jit(basic)(x)),
        "arange": laid(jax.jit(arange)(x)),
        "eager": laid(arange(x)),
        "double": [str(out1.sharding.spec), str(out2.sharding.spec)],
        "grad": np.asarray(grad).tolist(),       # (its layout is XLA's choice: not compared)
        "shapes_error": _error(lambda: jax.jit(lambda v: shard_alike(v, v @ v.T))(x)),
        "trees_error": _error(lambda: shard_alike((x,), [x]))["type"],
    }
