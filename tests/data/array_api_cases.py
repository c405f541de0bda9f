"""Array API standard cases, run by reference/make_array_api_reference.py with JAX and by
tests/numpy/test_array_api.py with jxkernel: the namespace and its info, isdtype, the dtypes of
cumulative_sum/cumulative_prod, permute_dims, and DLPack with NumPy.

`cases(jax, jnp)` returns {name: JSON-able outcome}; an exception is recorded as
{"raises": class name, "message": its first line}. Every outcome is exact (ints, bools,
dtypes, shapes, whether memory is shared), so the test compares with ==.
"""
import numpy as np

DTYPES = ("bool", "int8", "int16", "int32", "uint8", "uint32", "float16", "bfloat16",
          "float32", "complex64")
KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("bool", "real floating"), "float32", np.int8)


def _outcome(fn):
    try:
        return fn()
    except Exception as err:  # the class and wording are part of what is compared
        return {"raises": type(err).__name__, "message": str(err).splitlines()[0]}


def _numpy_refusal(fn):
    """fn's outcome where NumPy's from_dlpack refuses the data: NumPy names its refusal
    RuntimeError before 2.5 and BufferError since (what a fresh venv gets), so BufferError
    is written by its older name, the one JAX's recording (NumPy 2.4) has; the message and
    any other class are compared as they are.

        >>> _numpy_refusal(lambda: np.from_dlpack([1]))["raises"]
        'AttributeError'
    """
    out = _outcome(fn)
    if isinstance(out, dict) and out.get("raises") == "BufferError":
        out["raises"] = "RuntimeError"
    return out


def numpy_side() -> str:
    """Which NumPy a case keyed by it ran under: "numpy<2.5" or "numpy>=2.5" (2.5 needs Python
    3.12; NumPy 2.5 takes DLPack's bfloat16 where 2.4 refused it)."""
    return "numpy>=2.5" if np.lib.NumpyVersion(np.__version__) >= "2.5.0" else "numpy<2.5"


def _aligned(values, dtype):
    """A NumPy copy of `values` whose data starts on a 64-byte boundary (jaxlib then shares
    it instead of copying)."""
    values = np.asarray(values, dtype)
    raw = np.empty(values.nbytes + 64, np.uint8)
    start = -raw.ctypes.data % 64
    out = raw[start:start + values.nbytes].view(dtype).reshape(values.shape)
    out[...] = values
    return out


def _info(jnp):
    info = jnp.__array_namespace_info__()
    return {"capabilities": info.capabilities(), "default_device": repr(info.default_device()),
            "devices": [repr(d) for d in info.devices()],
            "default_dtypes": {k: str(v) for k, v in info.default_dtypes().items()},
            "dtypes": sorted(info.dtypes()),
            "dtypes_by_kind": {str(k): sorted(info.dtypes(kind=k)) for k in KINDS[:8]}}


def namespace_cases(jax, jnp):
    x = jnp.arange(3.0)
    seen = []

    def traced(t):
        seen.append(t.__array_namespace__() is jnp)
        return t

    jax.jit(traced)(x)
    out = {"version": jnp.__array_api_version__,
           "namespace_is_jnp": x.__array_namespace__() is jnp,
           "namespace_of_version": x.__array_namespace__(api_version="2024.12") is jnp,
           "namespace_traced_is_jnp": seen,
           "namespace_bad_version": _outcome(lambda: x.__array_namespace__(api_version="2023.12")),
           "info_x32": _info(jnp),
           "info_bad_kind": _outcome(lambda: jnp.__array_namespace_info__().dtypes(kind="x"))}
    jax.config.update("jax_enable_x64", True)
    try:
        out["info_x64"] = _info(jnp)
    finally:
        jax.config.update("jax_enable_x64", False)
    return out


def isdtype_cases(jnp):
    table = {f"{d}/{k}": _outcome(lambda d=d, k=k: jnp.isdtype(np.dtype(jnp.dtype(d)), k))
             for d in DTYPES for k in KINDS}
    table["keywords"] = jnp.isdtype(dtype=jnp.int8, kind="integral")
    table["bad_name"] = _outcome(lambda: jnp.isdtype(jnp.int8, "integer"))
    table["bad_kind"] = _outcome(lambda: jnp.isdtype(jnp.int8, 3))
    return table


def cumulative_cases(jnp):
    out = {}
    for d in ("bool", "int8", "uint8", "int16", "uint16", "float16"):
        x = jnp.ones(3, d)
        out[f"sum/{d}"] = str(jnp.cumulative_sum(x).dtype)
        out[f"prod/{d}"] = str(jnp.cumulative_prod(x).dtype)
    x = jnp.array([[1, 2, 3], [4, 5, 6]], "int8")
    out["prod_initial"] = jnp.cumulative_prod(x, axis=1, include_initial=True).tolist()
    out["prod_initial_dtype"] = str(jnp.cumulative_prod(x, axis=1, include_initial=True).dtype)
    out["prod_dtype_arg"] = str(jnp.cumulative_prod(x, axis=0, dtype="int32").dtype)
    return out


def permute_dims_cases(jnp):
    x = jnp.zeros((2, 3, 4))
    return {"positive": list(jnp.permute_dims(x, (2, 0, 1)).shape),
            "negative": _outcome(lambda: jnp.permute_dims(x, (-1, 0, 1)).shape),
            "not_a_permutation": _outcome(lambda: jnp.permute_dims(x, (0, 0, 1)).shape),
            "transpose_negative": list(jnp.transpose(x, (-1, 0, 1)).shape)}


def _values(a):
    """JSON-able values (complex ones as [real parts, imaginary parts])."""
    a = np.asarray(a)
    return [a.real.tolist(), a.imag.tolist()] if a.dtype.kind == "c" else a.tolist()


def _export(jnp, x):
    """What NumPy sees of a jnp array through DLPack."""
    y = np.from_dlpack(x)
    return {"values": _values(y), "dtype": str(y.dtype), "shape": list(y.shape),
            "writeable": bool(y.flags.writeable),
            "shared": y.ctypes.data == x.unsafe_buffer_pointer()}


def _import(jnp, a, **kwargs):
    """What jnp makes of NumPy data through DLPack."""
    y = jnp.from_dlpack(a, **kwargs)
    return {"values": _values(y), "dtype": str(y.dtype), "shape": list(y.shape),
            "weak_type": bool(y.weak_type), "committed": bool(y.committed),
            "shared": a.ctypes.data == y.unsafe_buffer_pointer()}


def dlpack_cases(jax, jnp):
    out = {}
    for d in ("float32", "int8", "uint32", "bool", "complex64"):
        out[f"export/{d}"] = _export(jnp, jnp.array([[1, 0, 2], [3, 4, 0]], d))
    out["export/scalar"] = _export(jnp, jnp.float32(2.5))
    out["export/empty"] = _export(jnp, jnp.zeros((0, 3)))
    # NumPy takes bfloat16 through DLPack since 2.5 (before, it refused): a key per side, each
    # recorded from JAX 0.10.2 under that NumPy (reference/make_array_api_reference.py)
    out[f"export/bfloat16 ({numpy_side()})"] = _numpy_refusal(
        lambda: _export(jnp, jnp.ones(2, jnp.bfloat16)))
    for d in ("float32", "int16", "uint8", "bool", "float64", "int64", "uint64", "complex128"):
        out[f"import/{d}"] = _import(jnp, _aligned([[1, 0, 2], [3, 4, 0]], d))
    unaligned = np.arange(40, dtype=np.float32)[1:5]
    out["import/unaligned"] = _import(jnp, unaligned)
    out["import/unaligned_no_copy"] = _outcome(lambda: _import(jnp, unaligned, copy=False))
    out["import/copy"] = _import(jnp, _aligned([1.5, 2.5], "float32"), copy=True)
    out["import/scalar"] = _import(jnp, _aligned(7, "int32"))
    out["import/strided"] = _outcome(lambda: _import(jnp, np.arange(10.0, dtype="f4")[::2]))
    out["import/list"] = _outcome(lambda: jnp.from_dlpack([1, 2]))
    x = jnp.arange(4.0)
    out["roundtrip_shared"] = jnp.from_dlpack(x).unsafe_buffer_pointer() == \
        x.unsafe_buffer_pointer()
    out["device"] = [int(v) for v in x.__dlpack_device__()]
    out["old_version"] = _outcome(lambda: x.__dlpack__(max_version=(0, 1)))
    out["bad_device"] = _outcome(lambda: x.__dlpack__(dl_device=(5, 0)))
    out["copy_capsule_shared"] = np.from_dlpack(
        _Capsule(x.__dlpack__(copy=True))).ctypes.data == x.unsafe_buffer_pointer()
    out["traced"] = _outcome(lambda: jax.jit(lambda t: t.__dlpack__())(x))["raises"]
    return out


class _Capsule:
    """A capsule dressed as a DLPack producer (what np.from_dlpack takes)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def cases(jax, jnp):
    return {"namespace": namespace_cases(jax, jnp), "isdtype": isdtype_cases(jnp),
            "cumulative": cumulative_cases(jnp), "permute_dims": permute_dims_cases(jnp),
            "dlpack": dlpack_cases(jax, jnp)}
