"""Cases for jax._src.test_util (`jtu`), shared by reference/make_jax_test_util_reference.py
(real JAX 0.10.2) and tests/jax_compat/test_jax_test_util.py (jxkernel): the sampled
parameter products, the seeded random inputs and the tolerances JAX's own test files rely on.
`jtu` and `np` are passed in (the side's test_util and NumPy)."""

PRODUCTS = {
    "one_list": dict(kw=dict(n=[1, 2, 3])),
    "two_lists": dict(kw=dict(a=list(range(7)), b=list(range(5)))),
    "dicts_and_lists": dict(args=([dict(x=1, y=2), dict(x=3, y=4), dict(x=5, y=6)],),
                            kw=dict(z=["p", "q", "r", "s"], w=[True, False])),
    "big": dict(kw=dict(i=list(range(20)), j=list(range(30)), k=list(range(4)))),
}

GENERATORS = ["rand_default", "rand_nonzero", "rand_positive", "rand_small", "rand_not_small",
              "rand_small_positive", "rand_uniform", "rand_some_equal", "rand_some_inf",
              "rand_some_nan", "rand_some_inf_and_nan", "rand_some_zero", "rand_bool"]
DTYPES = ["float32", "float16", "int32", "uint8", "complex64", "bool"]
SHAPES = {"2x3": (2, 3), "5": (5,), "0d": ()}


def random_inputs(jtu, np):
    """{name: array} of each generator, dtype and shape, from RandomState(seed 7) each time."""
    out = {}
    for gen in GENERATORS:
        for dtype in DTYPES:
            for label, shape in SHAPES.items():
                rand = getattr(jtu, gen)(np.random.RandomState(7))
                out[f"{gen}/{dtype}/{label}"] = np.asarray(rand(shape, np.dtype(dtype)))
    rand = jtu.rand_int(np.random.RandomState(7), -5, 5)
    out["rand_int/int32/2x3"] = np.asarray(rand((2, 3), np.int32))
    out["rand_unique_int/int32/6"] = np.asarray(jtu.rand_unique_int(np.random.RandomState(7))(
        (6,), np.int32))
    out["rand_fullrange/float32/4"] = np.asarray(jtu.rand_fullrange(np.random.RandomState(7))(
        (4,), np.float32)).view(np.uint32)
    return out


def scalars(jtu, np):
    """Python and NumPy scalar shapes: the type and value each gives."""
    rand = jtu.rand_default(np.random.RandomState(3))
    py = rand(jtu.PYTHON_SCALAR_SHAPE, np.float32)
    npy = rand(jtu.NUMPY_SCALAR_SHAPE, np.int32)
    return {"python": [type(py).__name__, py], "numpy": [type(npy).__name__, int(npy)],
            "names": [jtu.format_shape_dtype_string(s, np.float32) for s in
                      ((2, 3), 4, jtu.NUMPY_SCALAR_SHAPE, jtu.PYTHON_SCALAR_SHAPE)]}


def tolerances(jtu, np):
    """The default and joined tolerances for the dtypes of DTYPES (and a test's own dict)."""
    out = {d: jtu.tolerance(np.dtype(d)) for d in DTYPES}
    out["float32_given"] = jtu.tolerance(np.float32, {np.float32: 3e-5})
    out["float16_number"] = jtu.tolerance(np.float16, 0.5)
    joined = jtu.join_tolerance({np.float32: 1e-3}, 1e-4)
    out["joined_float32"] = joined[np.dtype(np.float32)]
    out["joined_float16"] = joined[np.dtype(np.float16)]
    out["gradient_float32"] = jtu.default_gradient_tolerance[np.dtype(np.float32)]
    return out


def dtype_lists(jtu, np):
    names = ["floating", "all_floating", "integer", "all_integer", "unsigned", "all_unsigned",
             "complex", "boolean", "inexact", "all_inexact", "numeric", "all"]
    return {n: [np.dtype(d).name for d in getattr(jtu.dtypes, n)] for n in names}


PROMOTED = ["bool", "int4", "uint4", "int8", "uint8", "int16", "int32", "uint32", "int64",
            "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]


def private_dtypes(dtypes, np):
    """jax._src.dtypes' promotion helpers (JAX's tests call them to type NumPy's answers)."""
    out = {}
    for fn in ("to_inexact_dtype", "to_complex_dtype", "to_numeric_dtype", "to_floating_dtype"):
        out[fn] = {d: str(getattr(dtypes, fn)(d)) for d in PROMOTED
                   if not (fn == "to_floating_dtype" and d.startswith("complex128"))}
    out["default_types"] = {k: str(f()) for k, f in sorted(dtypes.default_types.items())}
    out["python_scalar_types_to_dtypes"] = {t.__name__: str(d) for t, d in
                                            dtypes.python_scalar_types_to_dtypes.items()}
    return out
