"""What JAX's device, runtime and interop test files (array_interoperability_test.py and the
others of conformance/jax_tests added with it) found, run the same way by real JAX
(reference/make_jax_tests_devices_reference.py writes jax_tests_devices_reference.json) and by
jxkernel (tests/jax_compat/test_jax_tests_devices.py): facts each as plain JSON values.
"""
import importlib


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
    }
