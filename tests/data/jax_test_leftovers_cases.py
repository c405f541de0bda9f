"""Small gaps found by JAX's own test files (conformance/README.md, "JAX's own tests"): each
function takes `jax` (JAX 0.10.2, or jxkernel installed as it) and returns what a test
compares, in JSON's types.

- `memory_space`: `ShapedArray(..., memory_space=jax.memory.Space.Host)` (core_test.py's
  `test_aval_str_short_mem_space`): its texts, equality, and what keeps it.
- `tracebacks`: `runtime_executable().traceback` of a program compiled with jaxlib's
  tracebacks on, after the same program was compiled with them off (traceback_test.py's
  `testTracebacks` after `testNoTracebacksIfDisabled`).
- `float0`: float0 values (an integer's tangent, holding nothing) into and out of jit and
  pmap, `jnp.array(..., dtype=float0)` and `device_put` (pmap_test.py's
  `test_float0_dtype_input`/`_output`): host zeros, never a device Array.
"""
import contextlib
import importlib
import pickle


def _private(jax, name):
    """JAX's private module `name` ("core") of `jax`, the library given: `jax._src.core`."""
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def memory_space(jax):
    core, jnp = _private(jax, "core"), jax.numpy
    Space = jax.memory.Space
    host = core.ShapedArray((8,), jnp.float32, memory_space=Space.Host)
    device = core.ShapedArray((8,), jnp.float32, memory_space=Space.Device)
    plain = core.ShapedArray((8,), jnp.float32)
    weak_host = core.ShapedArray((2, 3), jnp.int32, weak_type=True, memory_space=Space.Host)
    return {
        "str_short_short": [host.str_short(True), device.str_short(True)],
        "str_short_long": [host.str_short(), device.str_short()],
        "repr": [repr(host), repr(device), repr(weak_host)],
        "str": [str(host), str(weak_host)],
        "memory_space": [host.memory_space.name, plain.memory_space.name,
                         jax.typeof(jnp.ones(3)).memory_space.name],
        "equal": [host == device, device == plain, host == core.ShapedArray(
            (8,), jnp.float32, memory_space=Space.Host)],
        "hash_equal": [hash(device) == hash(plain),
                       hash(host) == hash(core.ShapedArray((8,), jnp.float32,
                                                          memory_space=Space.Host))],
        "kept_by": {
            "update_shape": host.update(shape=(2, 4)).memory_space.name,
            "update_dtype": host.update(dtype=jnp.int32).memory_space.name,
            "update_weak_type": host.update(weak_type=True).str_short(True),
            "update_memory_space": host.update(memory_space=Space.Device).str_short(True),
            "to_tangent_aval": core.ShapedArray((2,), jnp.int32, memory_space=Space.Host)
            .to_tangent_aval().str_short(True),
            "to_ct_aval": host.to_ct_aval().str_short(True),
            "strip_weak_type": weak_host.strip_weak_type().str_short(True),
            "pickle": pickle.loads(pickle.dumps(host)).str_short(True),
        },
    }


@contextlib.contextmanager
def _tracebacks(jax, on):
    _jax = _private(jax, "lib")._jax
    saved = _jax.tracebacks_enabled()
    _jax.set_tracebacks_enabled(on)
    try:
        yield
    finally:
        _jax.set_tracebacks_enabled(saved)


def _compile_here(jax):
    return jax.jit(lambda x: x * 3 + 1).lower(1).compile().runtime_executable()


def tracebacks(jax):
    with _tracebacks(jax, False):
        off = _compile_here(jax).traceback
    with _tracebacks(jax, True):
        on = _compile_here(jax).traceback
    return {"off": off is None, "on": on is not None,
            "on_names_the_compiling_function": on is not None and any(
                f.function_name == "_compile_here" for f in on.frames)}


def _host_zeros(jax, x):
    """What a float0 result is: [host NumPy data (no jax.Array), its dtype, its shape]."""
    import numpy as np
    return [isinstance(x, np.ndarray) and not isinstance(x, jax.Array), str(x.dtype),
            list(x.shape)]


def _error(fun):
    try:
        fun()
    except Exception as e:     # (the class and text JAX raises)
        return [type(e).__name__, str(e)]
    return None


def float0(jax):
    import numpy as np
    jnp, f0 = jax.numpy, jax.dtypes.float0
    zeros3 = np.zeros(3, f0)
    mixed = jax.jit(lambda x, y: (x, y * 2))(zeros3, 1.5)
    const = jax.jit(lambda x: (x * 2, jnp.array(b"", dtype=f0)))(1.0)
    int_grad = jax.grad(lambda i: (i * 2.0).sum(), allow_int=True)(np.arange(3))
    out = {
        "jit_identity": _host_zeros(jax, jax.jit(lambda x: x)(zeros3)),
        "jit_scalar": _host_zeros(jax, jax.jit(lambda x: x)(np.zeros((), f0))),
        "jit_mixed": [_host_zeros(jax, mixed[0]), float(mixed[1])],
        "jit_const_out": [float(const[0]), _host_zeros(jax, const[1])],
        "jit_of_int_grad": _host_zeros(jax, jax.jit(lambda g: g)(int_grad)),
        "pmap_in": _host_zeros(jax, jax.pmap(lambda x: x)(np.zeros((1,), f0))),
        "pmap_out": _host_zeros(jax, jax.pmap(lambda x: jnp.array(b"", dtype=f0))(
            np.ones(1))),
        "device_put": _host_zeros(jax, jax.device_put(zeros3)),
        "lowered_parameter_is_bools": "tensor<3xi1>" in jax.jit(lambda x: x).lower(
            zeros3).as_text(),
        "jnp_array_int": _error(lambda: jnp.array(0, dtype=f0)),
    }
    for name, obj in [("bytes", b""), ("list_of_bytes", [b"", b""]), ("float0", zeros3),
                      ("floats", np.zeros((2, 2))), ("array", jnp.zeros(2))]:
        out[f"jnp_array_{name}"] = _host_zeros(jax, jnp.array(obj, dtype=f0))
    out["jnp_asarray_float0"] = _host_zeros(jax, jnp.asarray(zeros3))
    compiled = jax.jit(lambda x, y: (x, y + 1)).lower(zeros3, 1.0).compile()
    aot = compiled(zeros3, 1.0)
    out["compiled_call"] = [_host_zeros(jax, aot[0]), float(aot[1])]
    return out


def run(jax):
    return {"memory_space": memory_space(jax), "tracebacks": tracebacks(jax),
            "float0": float0(jax)}
