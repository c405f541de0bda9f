"""An Array's buffer protocol (`memoryview(x)`, PEP 3118) on a CPU device, each case JAX's
array_test.py `test_buffer_protocol*` touches and a few beside them
(tests/xla/test_buffer_protocol.py compares): `run(jax)` gives, per case, what the view says
(its format, item size, shape, strides, read-only flag, whether its bytes are NumPy's and its
`obj` the Array) or the exception's class name and message. The reference
(buffer_protocol_reference.json) is real JAX 0.10.2's, written by
reference/make_buffer_protocol_reference.py. The cases over two devices are recorded apart
(`run_two_devices`), where the process has two CPU devices."""
import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128", "bfloat16",
          "float8_e4m3fn", "float8_e5m2", "int4", "uint4"]
SHAPES = [(), (10,), (2, 3)]


def _said(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        return {"error": type(e).__name__, "message": str(e)}


def _view(x, host):
    m = memoryview(x)
    return {"format": m.format, "itemsize": m.itemsize, "ndim": m.ndim,
            "shape": list(m.shape), "strides": list(m.strides), "readonly": m.readonly,
            "nbytes": m.nbytes, "bytes_as_numpy": m.tobytes() == host.tobytes(),
            "obj_is_array": m.obj is x}


def _host(dtype, shape):
    n = int(np.prod(shape))
    if dtype == "bool":
        return (np.arange(n) % 2 == 0).reshape(shape)
    return (np.arange(n) % 7 - (0 if dtype.startswith(("uint", "bool")) else 3)).astype(
        dtype).reshape(shape)


def run(jax):
    jnp = jax.numpy
    out = {}
    for dtype in DTYPES:
        dt = jnp.dtype(dtype)
        for shape in SHAPES:
            host = _host(dtype, shape).astype(dt)
            x = jax.device_put(host)
            out[f"view/{dtype}/{'x'.join(map(str, shape)) or 'scalar'}"] = _said(
                lambda: _view(x, host))
        # NumPy asks the buffer protocol first and, refused, reads __array__
        out[f"np.asarray/{dtype}"] = _said(
            lambda: str(np.asarray(jax.device_put(_host(dtype, (3,)).astype(dt))).dtype))

    def deleted_first():
        x = jnp.arange(3.0)
        x.delete()
        return _view(x, np.arange(3.0, dtype=np.float32))

    def view_then_delete():
        host = np.arange(12.0, dtype=np.float32).reshape(3, 4)
        x = jax.device_put(host)
        m = memoryview(x)
        x.delete()
        return {"bytes_as_numpy": m.tobytes() == host.tobytes(), "deleted": x.is_deleted()}

    def view_then_donate():
        add_one = jax.jit(lambda a: a + 1, donate_argnums=(0,))
        host = np.arange(6.0, dtype=np.float32)
        x = jax.device_put(host)
        m = memoryview(x)
        y = add_one(x)
        return {"result": np.asarray(y).tolist(), "view_bytes_as_numpy":
                m.tobytes() == host.tobytes()}

    def write():
        m = memoryview(jnp.arange(3))
        m[0] = 5

    def released():
        x = jnp.arange(3)
        with memoryview(x) as m:
            b = m.tobytes()
        return {"bytes": b == np.asarray(x).tobytes(), "released_repr": "released" in repr(m)}

    def one_device_mesh():
        mesh = jax.make_mesh((1,), ("x",))
        x = jax.device_put(np.arange(4.0, dtype=np.float32),
                           jax.NamedSharding(mesh, jax.P("x")))
        return _view(x, np.arange(4.0, dtype=np.float32))

    out["deleted_first"] = _said(deleted_first)
    out["view_then_delete"] = _said(view_then_delete)
    out["view_then_donate"] = _said(view_then_donate)
    out["write"] = _said(write)
    out["released"] = _said(released)
    out["bytes"] = _said(lambda: bytes(jnp.arange(3, dtype="int32")) ==
                         np.arange(3, dtype=np.int32).tobytes())
    out["one_device_mesh"] = _said(one_device_mesh)
    return out


def run_two_devices(jax):
    """Over two CPU devices (the process needs them)."""
    mesh = jax.make_mesh((2,), ("x",))
    host = np.arange(4.0, dtype=np.float32)
    out = {}
    for name, spec in (("split", jax.P("x")), ("replicated", jax.P())):
        x = jax.device_put(host, jax.NamedSharding(mesh, spec))
        out[f"two_devices/{name}"] = _said(lambda: _view(x, host))
        out[f"two_devices/{name}/np.asarray"] = _said(lambda: np.asarray(x).tolist())
    return out
