"""Cases on JAX's private modules that JAX's own test files import (jax._src.literals, ...),
run by reference/make_private_modules_reference.py with JAX 0.10.2 and by
tests/jax_compat/test_private_modules.py with jxkernel. Each case takes the side's modules and
returns JSON: reprs, dtype names, avals as text."""
import pickle


def _answer(f):
    """f() or the class and words of what it raised."""
    try:
        return f()
    except Exception as e:          # noqa: BLE001 (the raised class is the answer)
        return f"{type(e).__name__}: {e}"


def literals(jax, literals, dtypes, core, np):
    """Typed scalars and TypedNdArray: dtypes kept uncanonicalized (x64 off), weak avals,
    reprs, pickling, and what canonicalize_value makes of host values."""
    i64, f32 = np.dtype(np.int64), np.dtype(np.float32)
    scalars = {"int64": literals.TypedInt(6, i64), "int32": literals.TypedInt(-2, np.dtype(np.int32)),
               "float64": literals.TypedFloat(1.5, np.dtype(np.float64)),
               "float32": literals.TypedFloat(2, f32),
               "complex128": literals.TypedComplex(1 + 2j, np.dtype(np.complex128)),
               "complex64": literals.TypedComplex(3, np.dtype(np.complex64))}
    weak = literals.TypedNdArray(np.array([6, 7], i64), core.ShapedArray((2,), i64, weak_type=True))
    arrays = {"int64": literals.TypedNdArray(np.array([6], i64)), "weak": weak,
              "empty": literals.TypedNdArray(np.zeros((0, 2))),
              "slice_of_weak": weak[1:], "wide": literals.TypedNdArray(np.arange(40.0))}
    out = {"scalar_" + k: {"repr": repr(v), "str": str(v), "dtype": str(dtypes.dtype(v)),
                           "typeof": str(jax.typeof(v)), "weak": dtypes.is_weakly_typed(v),
                           "pickled": repr(pickle.loads(pickle.dumps(v))),
                           "canonical": repr(dtypes.canonicalize_value(v)),
                           "is_int": isinstance(v, int), "plus_one": repr(v + 1)}
           for k, v in scalars.items()}
    out.update({"array_" + k: {"repr": repr(v), "dtype": str(dtypes.dtype(v)),
                               "typeof": str(jax.typeof(v)), "weak": dtypes.is_weakly_typed(v),
                               "canonical": repr(dtypes.canonicalize_value(v)),
                               "plus_one_type": type(v + 1).__name__}
                for k, v in arrays.items()})
    hosts = {"int": 6, "float": 2.5, "complex": 1j, "bool": True, "np_int64": np.int64(3),
             "np_array": np.arange(3), "float0": np.zeros((2,), dtypes.float0),
             "str": "a", "list": [1]}
    out["canonicalize_value"] = {k: _answer(lambda v=v: type(dtypes.canonicalize_value(v)).__name__
                                            + " " + repr(dtypes.canonicalize_value(v)))
                                 for k, v in hosts.items()}
    jnp = jax.numpy
    t = scalars["int64"]
    out["in_jax"] = {"jit_identity": repr(jax.jit(lambda x: x)(t)),
                     "jit_identity_array": repr(jax.jit(lambda x: x)(arrays["int64"])),
                     "add_one": repr(jnp.add(t, 1)),
                     "float_jaxpr": str(jax.make_jaxpr(lambda x: x + scalars["float64"])(1.0)),
                     "device_put": repr(jax.device_put(t))}
    return out
