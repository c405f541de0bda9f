"""One-operation programs, one per elementwise primitive, shared by
reference/make_primitive_tables_reference.py (run with real JAX: XLA's cost analysis of each,
compiled) and tests/core/test_primitive_tables.py (jxkernel's jaxpr cost of the same program,
traced, never compiled; jxkernel's reading of XLA's recorded HLO text).

`one_op(lax, prims)` gives {primitive name: (function, operands)} for the package's `lax` and
`extend.core.primitives` (JAX's or jxkernel's; the primitives with no lax function are bound
directly); each function's jaxpr is that one primitive's equation.
"""
import numpy as np

ELEMENTS = 8


def one_op(lax, prims):
    f = np.linspace(0.1, 0.9, ELEMENTS, dtype=np.float32)
    i = np.arange(1, ELEMENTS + 1, dtype=np.int32)
    c = (f + 1j * f).astype(np.complex64)
    b = f > 0.5
    return {
        "neg": (lax.neg, [f]), "floor": (lax.floor, [f]), "ceil": (lax.ceil, [f]),
        "is_finite": (lax.is_finite, [f]), "exp": (lax.exp, [f]), "exp2": (lax.exp2, [f]),
        "log": (lax.log, [f]), "log1p": (lax.log1p, [f]), "expm1": (lax.expm1, [f]),
        "tanh": (lax.tanh, [f]), "logistic": (lax.logistic, [f]), "sin": (lax.sin, [f]),
        "cos": (lax.cos, [f]), "tan": (lax.tan, [f]), "asin": (lax.asin, [f]),
        "acos": (lax.acos, [f]), "atan": (lax.atan, [f]), "sinh": (lax.sinh, [f]),
        "cosh": (lax.cosh, [f]), "asinh": (lax.asinh, [f]), "acosh": (lax.acosh, [f + 1]),
        "atanh": (lax.atanh, [f]), "sqrt": (lax.sqrt, [f]), "rsqrt": (lax.rsqrt, [f]),
        "cbrt": (lax.cbrt, [f]), "erf": (lax.erf, [f]), "erfc": (lax.erfc, [f]),
        "erf_inv": (lax.erf_inv, [f]), "lgamma": (lax.lgamma, [f]),
        "digamma": (lax.digamma, [f]), "abs": (lax.abs, [f]), "sign": (lax.sign, [f]),
        "round": (lax.round, [f]), "integer_pow": (lambda x: lax.integer_pow(x, 3), [f]),
        "square": (lax.square, [f]),
        "reduce_precision": (lambda x: lax.reduce_precision(x, 5, 10), [f]),
        "bessel_i0e": (lax.bessel_i0e, [f]), "bessel_i1e": (lax.bessel_i1e, [f]),
        "not": (lax.bitwise_not, [i]), "population_count": (lax.population_count, [i]),
        "clz": (lax.clz, [i]), "real": (lax.real, [c]), "imag": (lax.imag, [c]),
        "conj": (lax.conj, [c]),
        "add": (lax.add, [f, f]), "sub": (lax.sub, [f, f]), "mul": (lax.mul, [f, f]),
        "div": (lax.div, [f, f]), "rem": (lax.rem, [f, f]), "pow": (lax.pow, [f, f]),
        "atan2": (lax.atan2, [f, f]), "max": (lax.max, [f, f]), "min": (lax.min, [f, f]),
        "nextafter": (lax.nextafter, [f, f]), "igamma": (lax.igamma, [f, f]),
        "igammac": (lax.igammac, [f, f]), "igamma_grad_a": (lax.igamma_grad_a, [f, f]),
        "polygamma": (lax.polygamma, [f + 1, f]), "zeta": (lax.zeta, [f + 2, f]),
        "eq": (lax.eq, [f, f]), "ne": (lax.ne, [f, f]), "lt": (lax.lt, [f, f]),
        "le": (lax.le, [f, f]), "gt": (lax.gt, [f, f]), "ge": (lax.ge, [f, f]),
        "complex": (lax.complex, [f, f]), "and": (lax.bitwise_and, [i, i]),
        "or": (lax.bitwise_or, [i, i]), "xor": (lax.bitwise_xor, [i, i]),
        "shift_left": (lax.shift_left, [i, i]),
        "shift_right_logical": (lax.shift_right_logical, [i, i]),
        "shift_right_arithmetic": (lax.shift_right_arithmetic, [i, i]),
        "select_n": (lax.select_n, [b, f, f]), "clamp": (lax.clamp, [f, f, f]),
        "regularized_incomplete_beta": (lax.betainc, [f + 1, f + 1, f]),
        "mulhi": (lax.mulhi, [i, i]), "copy": (lambda x: prims.copy_p.bind(x), [f]),
        # (looked up when called: a missing primitive fails its own case alone)
        "eq_to": (lambda x, y: prims.eq_to_p.bind(x, y), [i, i]),
        "le_to": (lambda x, y: prims.le_to_p.bind(x, y), [i, i]),
        "lt_to": (lambda x, y: prims.lt_to_p.bind(x, y), [i, i]),
        "convert_element_type": (lambda x: lax.convert_element_type(x, np.int32), [f]),
        "bitcast_convert_type": (lambda x: lax.bitcast_convert_type(x, np.int32), [f]),
    }
