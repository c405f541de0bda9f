"""The cases of tests/data/jnp_reference.json: each is a function (an expression in terms of
`jnp`, `nn`, `special`, `lax`), argument expressions over the inputs of PRELUDE, and static
keyword arguments. reference/gen_jnp_reference.py evaluates them with JAX; test_numpy_ufuncs.py,
test_numpy_creation.py, test_array_methods.py and test_nn.py with jxkernel.

Plain data + NumPy only: importable by both sides.
"""
import itertools

import numpy as np

PRELUDE = """
import numpy as np, ml_dtypes
f32 = np.array([-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, 7.25], np.float32)
g32 = np.array([1.5, -2.0, 0.0, 3.0, -0.5, 2.0, -3.0, 0.25], np.float32)
unit = np.array([-0.9, -0.5, 0.0, 0.25, 0.5, 0.75, 0.99, 1.0], np.float32)
pos = np.array([0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 10.0, 100.0], np.float32)
spec = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e30, 3e38], np.float32)
f16 = f32.astype(np.float16)
bf16 = f32.astype(ml_dtypes.bfloat16)
i32 = np.array([-7, -3, -1, 0, 1, 2, 5, 9], np.int32)
j32 = np.array([2, -2, 3, 1, -4, 5, 2, 3], np.int32)
i8 = i32.astype(np.int8)
u8 = np.array([0, 1, 2, 3, 250, 7, 8, 255], np.uint8)
u32 = np.array([0, 1, 2, 3, 4000000000, 7, 8, 12], np.uint32)
b = np.array([True, False, True, True, False, False, True, False])
c64 = (f32 + 1j * g32).astype(np.complex64)
m23 = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
r3 = np.array([0.5, -1.0, 2.0], np.float32)
col2 = np.array([[1.0], [-2.0]], np.float32)
logits = np.array([[1.0, 2.0, 3.0, -1.0], [0.5, 0.5, -2.0, 4.0]], np.float32)
mask = np.array([[True, True, False, True], [False, True, True, True]])
labels = np.array([0, 2, 1, 3, 5], np.int32)
"""

UNARY_FLOAT = ["sin", "cos", "tan", "arctan", "sinh", "cosh", "tanh", "arcsinh", "exp", "exp2",
               "expm1", "deg2rad", "rad2deg", "degrees", "radians", "sinc", "cbrt", "reciprocal"]
UNARY_DOMAIN = ["arcsin", "arccos", "arctanh", "log", "log2", "log10", "log1p", "sqrt",
                "arccosh"]
UNARY_ANY = ["abs", "absolute", "fabs", "negative", "positive", "sign", "square", "floor",
             "ceil", "trunc", "rint", "round", "around", "isnan", "isinf", "isfinite",
             "isposinf", "isneginf", "signbit", "nan_to_num", "real", "imag", "conj",
             "conjugate", "angle", "invert", "bitwise_not", "logical_not", "spacing", "modf",
             "frexp", "bitwise_count", "iscomplex", "isreal"]
BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
          "mod", "fmod", "divmod", "power", "pow", "float_power", "arctan2", "hypot", "maximum",
          "minimum", "fmax", "fmin", "copysign", "nextafter", "heaviside", "logaddexp",
          "logaddexp2", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
          "right_shift", "logical_and", "logical_or", "logical_xor", "equal", "not_equal",
          "less", "less_equal", "greater", "greater_equal", "isclose", "gcd", "lcm", "ldexp"]
UNARY_ARGS = ["f32", "i32", "f16", "bf16", "u8", "b", "c64", "2.5", "3", "True",
              "jnp.asarray(1.5)", "spec"]
DOMAIN_ARGS = ["unit", "pos", "f16", "i32", "2", "jnp.asarray(0.5)", "c64", "spec"]
BINARY_ARGS = [("f32", "g32"), ("f32", "2.0"), ("3", "f32"), ("i32", "j32"), ("i32", "3"),
               ("i8", "2"), ("u8", "i8"), ("f16", "2.5"), ("bf16", "f16"), ("i32", "g32"),
               ("b", "b"), ("c64", "c64"), ("m23", "r3"), ("col2", "r3"), ("2", "3"),
               ("2.5", "jnp.asarray(2.0)"), ("u32", "i32"), ("i32", "True")]


def _rotating(fns, args, core: int, extra: int):
    """Each function with the first `core` args, plus `extra` of the others in rotation, so
    every (function, dtype) pairing class is covered without the full product."""
    rest = args[core:]
    for i, fn in enumerate(fns):
        picked = args[:core] + [rest[(i * extra + j) % len(rest)] for j in range(extra)]
        for a in picked:
            yield fn, a


def _jnp_cases():
    cases = []
    for fn, arg in _rotating(UNARY_FLOAT + UNARY_ANY, UNARY_ARGS, 2, 3):
        cases.append(("ufunc", f"jnp.{fn}", [arg], {}))
    for fn, arg in _rotating(UNARY_DOMAIN, DOMAIN_ARGS, 2, 3):
        cases.append(("ufunc", f"jnp.{fn}", [arg], {}))
    for fn, (x, y) in _rotating(BINARY, BINARY_ARGS, 2, 3):
        cases.append(("ufunc", f"jnp.{fn}", [x, y], {}))
    more = [
        ("jnp.round", ["f32"], {"decimals": 1}), ("jnp.round", ["m23"], {"decimals": -1}),
        ("jnp.round", ["f16"], {"decimals": 2}), ("jnp.round", ["i32"], {"decimals": 1}),
        ("jnp.round", ["c64"], {"decimals": 1}), ("jnp.angle", ["c64"], {"deg": True}),
        ("jnp.isclose", ["f32", "g32"], {"equal_nan": True}),
        ("jnp.isclose", ["spec", "spec"], {"equal_nan": True}),
        ("jnp.isclose", ["f32", "f32 + 1e-6"], {"rtol": 0.0, "atol": 1e-7}),
        ("jnp.allclose", ["f32", "f32"], {}), ("jnp.allclose", ["f32", "g32"], {}),
        ("jnp.array_equal", ["f32", "f32"], {}), ("jnp.array_equal", ["f32", "m23"], {}),
        ("jnp.array_equal", ["spec", "spec"], {"equal_nan": True}),
        ("jnp.array_equiv", ["r3", "m23"], {}), ("jnp.array_equiv", ["r3", "r3"], {}),
        ("jnp.nan_to_num", ["spec"], {"nan": 1.0, "posinf": 2.0, "neginf": -2.0}),
        ("jnp.nan_to_num", ["c64 * np.inf"], {}),
        ("jnp.where", ["b", "f32", "g32"], {}), ("jnp.where", ["f32 > 0", "f32", "0"], {}),
        ("jnp.where", ["i32", "1.5", "i32"], {}), ("jnp.where", ["True", "i8", "2"], {}),
        ("jnp.where", ["mask", "logits", "r3[:1]"], {}), ("jnp.where", ["b"], {}),
        ("jnp.clip", ["f32", "-1", "2"], {}), ("jnp.clip", ["i32"], {"max": 2.5}),
        ("jnp.clip", ["i32", "j32"], {}), ("jnp.clip", ["f16"], {"min": 0.0}),
        ("jnp.clip", ["u8", "3", "200"], {}), ("jnp.clip", ["c64", "0"], {}),
        ("jnp.power", ["i32", "-1"], {}), ("jnp.power", ["f32", "-2"], {}),
        ("jnp.power", ["pos", "0.5"], {}), ("jnp.power", ["2", "i32"], {}),
        ("jnp.power", ["i32", "np.int32(3)"], {}), ("jnp.power", ["f16", "i32"], {}),
        ("jnp.float_power", ["i32", "2"], {}), ("jnp.ldexp", ["f32", "3"], {}),
        ("jnp.ldexp", ["f16", "i8"], {}), ("jnp.left_shift", ["u8", "3"], {}),
        ("jnp.right_shift", ["u8", "2"], {}), ("jnp.right_shift", ["i8", "1"], {}),
        ("jnp.gcd", ["i8", "6"], {}), ("jnp.lcm", ["u8", "4"], {}),
        ("jnp.frexp", ["spec"], {}), ("jnp.frexp", ["f16"], {}), ("jnp.modf", ["spec"], {}),
        ("jnp.spacing", ["spec"], {}), ("jnp.signbit", ["spec"], {}),
        ("jnp.float32", ["2"], {}), ("jnp.int8", ["f32"], {}), ("jnp.bfloat16", ["1.5"], {}),
        ("jnp.bool_", ["i32"], {}), ("jnp.uint8", ["255"], {}), ("jnp.float16", ["70000.0"], {}),
        ("jnp.int_", ["3"], {}), ("jnp.float_", ["3"], {}), ("jnp.complex64", ["1j"], {}),
        ("jnp.i0", ["f32 * 3"], {}), ("jnp.i0", ["f16"], {}), ("jnp.i0", ["3"], {}),
        ("jnp.i0", ["c64"], {}),
    ]
    cases += [("ufunc",) + c for c in more]
    return cases


OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "==", "!=",
             "<", "<=", ">", ">="]
OPERATOR_ARGS = [("A(f32)", "A(g32)"), ("A(f32)", "2"), ("A(f32)", "2.5"), ("2", "A(f32)"),
                 ("A(i32)", "A(j32)"), ("A(i32)", "2"), ("A(i32)", "2.5"), ("A(u8)", "1"),
                 ("A(b)", "A(b)"), ("A(f16)", "A(bf16)"), ("A(i8)", "f32"),
                 ("A(m23)", "A(r3)")]


def _method_cases():
    cases = []
    for op, (x, y) in _rotating(OPERATORS, OPERATOR_ARGS, 2, 2):
        cases.append(("operator", f"lambda x, y: x {op} y", [x, y], {}))
    for op, x in itertools.product(["-", "+", "~", "abs"], ["A(f32)", "A(i32)", "A(b)",
                                                             "A(u8)"]):
        fn = f"lambda x: {op}(x)"
        cases.append(("operator", fn, [x], {}))
    cases += [("operator", f, a, {}) for f, a in [
        ("lambda x, y: divmod(x, y)", ["A(i32)", "A(j32)"]),
        ("lambda x, y: divmod(x, y)", ["A(f32)", "1.5"]),
        ("lambda x: round(x)", ["A(f32)[4]"]), ("lambda x: round(x, 1)", ["A(f32)"]),
        ("lambda x, y: x @ y", ["A(m23)", "A(r3)"]),
        ("lambda x, y: x @ y", ["A(r3)", "A(m23).T"]),
        ("lambda x: 1.0 - x", ["A(i32)"]), ("lambda x: 2 ** x", ["A(i32)"]),
        ("lambda x: x ** 0.5", ["A(pos)"]), ("lambda x: x ** 3", ["A(i8)"]),
        ("lambda x: 1 / x", ["A(f16)"]), ("lambda x: (x > 0) & (x < 3)", ["A(f32)"]),
        ("lambda x: x[1:3]", ["A(f32)"]),
    ]]
    methods = [
        ("x.sum()", "A(m23)"), ("x.sum(axis=0)", "A(m23)"),
        ("x.sum(axis=1, keepdims=True)", "A(m23)"),
        ("x.sum()", "A(i8)"), ("x.sum()", "A(b)"), ("x.mean()", "A(i32)"),
        ("x.mean(axis=-1)", "A(m23)"), ("x.max()", "A(f32)"), ("x.min(axis=0)", "A(m23)"),
        ("x.prod()", "A(j32)"), ("x.var()", "A(f32)"), ("x.std(ddof=1)", "A(f32)"),
        ("x.argmax()", "A(f32)"), ("x.argmin(axis=1)", "A(m23)"), ("x.all()", "A(b)"),
        ("x.any(axis=0)", "A(m23) > 0"), ("x.cumsum()", "A(i32)"), ("x.cumprod(axis=1)", "A(m23)"),
        ("x.ptp()", "A(f32)"), ("x.reshape(3, 2)", "A(m23)"), ("x.reshape((-1,))", "A(m23)"),
        ("x.reshape(2, -1, order='F')", "A(f32)"), ("x.ravel()", "A(m23)"),
        ("x.flatten()", "A(m23)"), ("x.transpose()", "A(m23)"), ("x.transpose(1, 0)", "A(m23)"),
        ("x.T", "A(m23)"), ("x.mT", "A(m23)"), ("x.swapaxes(0, 1)", "A(m23)"),
        ("x.squeeze()", "A(col2)"), ("x.astype(jnp.int8)", "A(f32)"),
        ("x.astype(bool)", "A(f32)"), ("x.astype(float)", "A(i32)"),
        ("x.astype('float16')", "A(f32)"), ("x.clip(-1, 1)", "A(f32)"),
        ("x.clip(max=1)", "A(i32)"), ("x.round(1)", "A(f32)"), ("x.round()", "A(f32)"),
        ("x.conj()", "A(c64)"), ("x.conjugate()", "A(f32)"), ("x.real", "A(c64)"),
        ("x.imag", "A(c64)"), ("x.imag", "A(f32)"), ("x.dot(x)", "A(f32)"),
        ("x.sort()", "A(f32)"), ("x.argsort()", "A(i32)"), ("x.take(np.array([0, 2]))", "A(f32)"),
        ("x.repeat(2)", "A(r3)"), ("x.nonzero()", "A(i32)"), ("x.diagonal()", "A(m23)"),
        ("x.trace()", "A(m23)"), ("x.searchsorted(0.7)", "A(pos)"),
        ("x.view(jnp.int32)", "A(f32)"), ("x.view(jnp.uint8)", "A(r3)"),
        ("x.view(jnp.float32)", "A(i32)"), ("x.copy()", "A(f32)"),
        ("x.at[0].set(9.0)", "A(f32)"), ("x.at[1:3].add(1)", "A(i32)"),
        ("x.at[0, 1].get()", "A(m23)"), ("x[0]", "A(m23)"), ("x[:, 1]", "A(m23)"),
        ("x[None, ..., ::2]", "A(m23)"), ("list(x)", "A(m23)"), ("x.item()", "A(r3)[1]"),
        ("x.tolist()", "A(m23)"), ("2.0 in x", "A(r3)"), ("x.size", "A(m23)"),
        ("x.ndim", "A(m23)"), ("x.shape", "A(m23)"), ("x.nbytes", "A(m23)"),
        ("x.itemsize", "A(f16)"), ("float(x)", "A(r3)[0]"), ("int(x)", "A(i32)[2]"),
        ("bool(x)", "A(b)[0]"), ("len(x)", "A(m23)"),
    ]
    cases += [("method", f"lambda x: {m}", [x], {}) for m, x in methods]
    return cases


def _creation_cases():
    exprs = [
        "jnp.array(1.0)", "jnp.array(1)", "jnp.array(True)", "jnp.array(1j)",
        "jnp.array([1.0, 2])", "jnp.array([1, 2])", "jnp.array([[1, 2], [3, 4.5]])",
        "jnp.array([np.float16(1), 2.0])", "jnp.array([1, True])", "jnp.array([])",
        "jnp.array((1, 2), dtype=jnp.int8)", "jnp.array([1.5, 2.5], dtype=int)",
        "jnp.array(f32, ndmin=3)", "jnp.array(2.0, ndmin=1)", "jnp.array(i32, dtype=jnp.float16)",
        "jnp.array([jnp.ones(2), jnp.zeros(2)])", "jnp.array([jnp.ones(2), [3, 4]])",
        "jnp.array([jnp.asarray(1.0), 2])", "jnp.array(jnp.asarray(1.0))",
        "jnp.array(np.float64(2.5))", "jnp.array(np.int64(3))", "jnp.array(u32)",
        "jnp.array(2**40)", "jnp.array([2**40])", "jnp.array(None)", "jnp.array([1, None])",
        "jnp.asarray(1.0)", "jnp.asarray(3)", "jnp.asarray([1, 2, 3])",
        "jnp.asarray(f32, dtype=jnp.bfloat16)", "jnp.asarray(jnp.asarray(2.0), dtype=float)",
        "jnp.asarray(np.arange(3.0))", "jnp.asarray(b)", "jnp.copy(f32)",
        "jnp.zeros(3)", "jnp.zeros((2, 3), int)", "jnp.zeros((), jnp.bfloat16)",
        "jnp.zeros([2, 0])", "jnp.ones(2, bool)", "jnp.ones((2, 2), 'float16')",
        "jnp.empty(3)", "jnp.empty((2,), jnp.int8)", "jnp.full((2,), 7)",
        "jnp.full((2, 2), 1.5, jnp.float16)", "jnp.full(3, True)", "jnp.full((2, 3), r3)",
        "jnp.full((2,), jnp.asarray(2.0))", "jnp.full((2,), 300, jnp.int8)",
        "jnp.zeros_like(f32)", "jnp.zeros_like(jnp.asarray(1.0))", "jnp.ones_like(i32)",
        "jnp.ones_like(m23, dtype=int)", "jnp.ones_like(r3, shape=(2, 2))",
        "jnp.full_like(f32, 2)", "jnp.full_like(jnp.asarray(1.0), 2)",
        "jnp.full_like(i32, 2.7)", "jnp.full_like(m23, r3)", "jnp.empty_like(b)",
        "jnp.full_like(3.0, 1)", "jnp.zeros(3, jnp.int64)",
        "jnp.arange(5)", "jnp.arange(5.0)", "jnp.arange(2, 5)", "jnp.arange(2, 5.0)",
        "jnp.arange(0, 1, 0.1)", "jnp.arange(5, 1, -1)",
        "jnp.arange(1, 2, 0.25, dtype=jnp.float16)",
        "jnp.arange(5, dtype=jnp.float16)", "jnp.arange(0.5, 3)", "jnp.arange(-3, 3, 2)",
        "jnp.arange(10, dtype=jnp.uint8)", "jnp.arange(jnp.asarray(4))", "jnp.arange(np.int8(4))",
        "jnp.arange(0)", "jnp.arange(3, 1)", "jnp.arange(1, 3, dtype=bool)", "jnp.arange(1j)",
        "jnp.linspace(0, 1, 5)", "jnp.linspace(0, 1, 5, endpoint=False)",
        "jnp.linspace(0, 1, 5, retstep=True)", "jnp.linspace(2, 10, 4, dtype=int)",
        "jnp.linspace(r3, 3 * r3, 3)", "jnp.linspace(r3, 3.0, 4, axis=1)",
        "jnp.linspace(0, 1, 1)", "jnp.linspace(0, 1, 0)", "jnp.linspace(-1.5, 7.25, 9)",
        "jnp.linspace(0, 1, 7, dtype=jnp.float16)",
        "jnp.linspace(1, 2, 3, retstep=True, endpoint=False)",
        "jnp.linspace(0, 1, -1)", "jnp.logspace(0, 2, 3)", "jnp.logspace(0, 3, 4, base=2.0)",
        "jnp.logspace(0, 1, 5, endpoint=False, dtype=jnp.float16)", "jnp.geomspace(1, 1000, 4)",
        "jnp.geomspace(-1, -16, 5)", "jnp.geomspace(r3 + 2, 10.0, 3, axis=-1)",
        "jnp.eye(3)", "jnp.eye(2, 3, 1)", "jnp.eye(3, k=-1, dtype=int)", "jnp.eye(2, dtype=bool)",
        "jnp.identity(2, int)", "jnp.identity(3)", "jnp.tri(3)", "jnp.tri(2, 4, 1, dtype=int)",
        "jnp.tri(3, k=-1, dtype=bool)", "jnp.meshgrid(r3, np.arange(2.0))",
        "jnp.meshgrid(r3, np.arange(2), indexing='ij')",
        "jnp.meshgrid(r3, np.arange(2), sparse=True)",
        "jnp.meshgrid(r3)", "jnp.meshgrid(r3, np.arange(2), np.arange(4), indexing='xy')",
        "jnp.astype(f32, jnp.int8)", "jnp.astype(c64, bool)", "jnp.astype(i32, None)",
        "jnp.zeros(2, 3)", "jnp.ones((2, 3.5))",
    ]
    return [("creation", f"lambda: {e}", [], {}) for e in exprs]


def _nn_cases():
    act = ["relu", "relu6", "sigmoid", "softplus", "soft_sign", "silu", "swish",
           "log_sigmoid", "elu", "leaky_relu", "celu", "selu", "hard_tanh", "hard_sigmoid",
           "hard_silu", "mish", "squareplus", "sparse_plus", "sparse_sigmoid", "identity"]
    cases = [("nn", f"nn.{a}", [x], {}) for a, x in
             _rotating(act, ["f32", "f16", "2.0", "spec", "bf16"], 1, 1)]
    cases += [("nn", f, a, k) for f, a, k in [
        ("nn.gelu", ["f32"], {}), ("nn.gelu", ["f32"], {"approximate": False}),
        ("nn.gelu", ["f16"], {}), ("nn.gelu", ["bf16"], {"approximate": False}),
        ("nn.gelu", ["1"], {}), ("nn.elu", ["f32"], {"alpha": 0.5}),
        ("nn.leaky_relu", ["f32"], {"negative_slope": 0.2}), ("nn.celu", ["f32"], {"alpha": 2.0}),
        ("nn.log1mexp", ["pos"], {}), ("nn.relu", ["i32"], {}), ("nn.glu", ["logits"], {}),
        ("nn.softmax", ["logits"], {}), ("nn.softmax", ["logits"], {"axis": 0}),
        ("nn.softmax", ["logits"], {"axis": None}), ("nn.softmax", ["f16"], {}),
        ("nn.softmax", ["logits", -1, "mask"], {}), ("nn.softmax", ["spec"], {}),
        ("nn.log_softmax", ["logits"], {}), ("nn.log_softmax", ["logits"], {"axis": 0}),
        ("nn.log_softmax", ["logits", -1, "mask"], {}), ("nn.log_softmax", ["i32"], {}),
        ("nn.logsumexp", ["logits"], {}), ("nn.logsumexp", ["logits"], {"axis": 1}),
        ("nn.one_hot", ["labels", 4], {}), ("nn.one_hot", ["labels", 3], {"dtype": "int32"}),
        ("nn.one_hot", ["labels", 4], {"axis": 0}), ("nn.one_hot", ["i8", 3], {}),
        ("nn.standardize", ["logits"], {}), ("nn.standardize", ["logits"], {"axis": 0}),
        ("nn.standardize", ["logits"], {"algorithm": "stable"}),
        ("nn.standardize", ["logits", -1, None, None, 1e-5, "mask"], {}),
    ]]
    cases += [("special", f, a, k) for f, a, k in [
        ("special.logsumexp", ["logits"], {}), ("special.logsumexp", ["logits"], {"axis": 1}),
        ("special.logsumexp", ["logits"], {"axis": 0, "keepdims": True}),
        ("special.logsumexp", ["logits"], {"axis": (0, 1)}),
        ("special.logsumexp", ["logits", 1, "logits * 0 + 2"], {}),
        ("special.logsumexp", ["logits", None, "np.array([1.0, -1.0, 2.0, -3.0], np.float32)"],
         {"return_sign": True}),
        ("special.logsumexp", ["logits", 1, "np.array([1.0, -1.0, 0.0, -3.0], np.float32)"], {}),
        ("special.logsumexp", ["logits"], {"axis": 1, "where": "mask"}),
        ("special.logsumexp", ["spec"], {}), ("special.logsumexp", ["i32"], {}),
        ("special.logsumexp", ["c64"], {}), ("special.logsumexp", ["f16"], {}),
        ("special.i0e", ["f32 * 3"], {}), ("special.i0", ["pos"], {}), ("special.i0e", ["i32"], {}),
    ]]
    for fn, x in _rotating(["erf", "erfc", "gammaln", "digamma", "expit", "entr", "ndtr"],
                           ["pos", "f32", "i32", "f16"], 2, 1):
        cases.append(("special", f"special.{fn}", [x], {}))
    for fn, x in itertools.product(["erfinv", "logit"], ["unit", "f16", "0.25"]):
        cases.append(("special", f"special.{fn}", [x], {}))
    for fn, (x, y) in _rotating(["xlogy", "xlog1py", "rel_entr", "kl_div"],
                                [("f32", "pos"), ("0.0", "0.0"), ("pos", "f32"), ("i32", "2")],
                                2, 1):
        cases.append(("special", f"special.{fn}", [x, y], {}))
    return cases


def all_cases():
    """[(group, fn expression, argument expressions, static kwargs)]."""
    return _jnp_cases() + _method_cases() + _creation_cases() + _nn_cases()


def case_id(case) -> str:
    group, fn, args, kw = case
    kws = "".join(f", {k}={v!r}" for k, v in kw.items())
    return f"{fn}({', '.join(map(str, args))}{kws})"


# Bounds for comparing a case's float results with the recorded ones, in ulps of the result's
# dtype (tests/support/numerics.py): the reference was recorded on another CPU, where XLA's vectorized
# transcendental functions and fused expressions may round differently. Keyed by case id or by
# function; a (ulps, scale) pair measures errors at `scale` (results near a zero of the function
# that come from cancellation). Cases not listed get DEFAULT_ULPS (= numerics.ELEMENTWISE): the
# worst of them seen against the AMD-recorded data on Intel AVX-512, AVX2 and SSE4.2 code
# generation is 2 ulps (nn.gelu, nn.mish, nn.standardize on SSE4.2; 1 on AVX-512 and AVX2).
# Integer and boolean results are always compared exactly.
DEFAULT_ULPS = 4
ULPS = {
    # lgamma(x) = log of a value near 1 for x near 1, 2 and -2.46: SSE4.2's code gives
    # 4.8e-7 at x = 2 (exactly 0 elsewhere), [4] ulps at the scale of 1 (64 unscaled at -2.5)
    "special.gammaln": (8, 1.0),
    # x log(x / y) - x + y under jit on SSE4.2: [4]
    "special.kl_div": 8,
    # logaddexp2(x, x) = x + log2(2): -1 + 1 cancels to JAX's -1.06e-8 (AVX-512) or 0 (AVX
    # without FMA); the terms are of size 1 [0.09 at that scale]
    "jnp.logaddexp2": (4, 1.0),
}


# On the NumPy backend (`pytest --backend numpy`), bounds of cases where XLA's own rewriting of
# the program moves its result and no NumPy rule can follow it, measured, keyed as ULPS.
# (none now: geomspace(1, 1000, 4)'s 7 ulps, XLA folding log10's constant factor into
# linspace's steps, is followed since 2026-11-29: core/numpy_simplify._scalars_first)
NUMPY_BACKEND_ULPS = {}


def ulps(case, numpy_backend=False):
    """(ulps, scale) for `case`: by its id, else by its function, else DEFAULT_ULPS (for a run
    on the NumPy backend NUMPY_BACKEND_ULPS first)."""
    table = {**ULPS, **NUMPY_BACKEND_ULPS} if numpy_backend else ULPS
    bound = table.get(case_id(case), table.get(case[1], DEFAULT_ULPS))
    return bound if isinstance(bound, tuple) else (bound, None)


def prepared(case, env: dict) -> tuple:
    """(call, dyn): the case's function, evaluated in `env` (JAX's names or jxkernel's), as a
    function of its traced (array) arguments, and those arguments; the others are static.
    A `where` keyword is an expression too."""
    _, fn_text, args, kw = case
    fn = eval(fn_text, env)
    with np.errstate(all="ignore"):
        dyn = [eval(a, env) for a in args if isinstance(a, str)]
    static = {i: a for i, a in enumerate(args) if not isinstance(a, str)}

    def call(*dyn_args):
        it = iter(dyn_args)
        full = [static[i] if i in static else next(it) for i in range(len(args))]
        kwargs = {k: (eval(v, env) if k == "where" else v) for k, v in kw.items()}
        return fn(*full, **kwargs)
    return call, dyn
