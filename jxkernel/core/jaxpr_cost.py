"""Cost estimates of a jaxpr: flops, transcendentals and bytes accessed, per equation.

Where no XLA runs (the NumPy backend), the jaxpr is the program, so its cost is counted on it,
with the conventions of XLA's HloCostAnalysis (what `Compiled.cost_analysis()` reports there):

    >>> import jxkernel, jxkernel.numpy as jnp
    >>> a = jnp.ones((128, 128))
    >>> cost = jaxpr_cost(jxkernel.make_jaxpr(lambda a, b: a @ b)(a, a).jaxpr)
    >>> cost.flops == 2 * 128 ** 3, cost.bytes == 3 * 128 * 128 * 4
    (True, True)

- `dot_general`: 2·(output elements)·(contracted size), a multiply and an add per term, as
  XLA counts a dot (equal to XLA's on every backend).
- `conv_general_dilated`: 2 per multiply-add that touches the input, padding and dilation
  left out, as XLA's GetConvolutionFlops counts them (equal to XLA's).
- elementwise (the default): 1 flop per output element; the transcendental ones (TRANSCENDENTAL:
  exp, log, sin, tanh, sqrt, pow, ..., and the special functions) count as `transcendentals`
  instead; `integer_pow` as the multiplies it takes.
- reductions: (input − output elements), (n−1) per output; windowed ones (window size − 1) per
  output; scatter-add and its kin one per update element; moving data (MOVES: broadcast,
  reshape, slice, gather, scatter, ...) costs no flops.
- bytes accessed: each equation's operands plus its results (and a reduction's initial value),
  as XLA counts an instruction the program runs on its own.
- equations holding jaxprs: their bodies, summed (a scan's body times its length; `cond`, as
  XLA, the most any branch takes, count by count; `while`, as XLA, one iteration: its trip
  count is not known).
- NOT_ESTIMATED (sort, FFT, linalg decompositions, PRNG bits, callbacks) count 0 and are listed.

Equal to XLA's compiled program's counts (jaxlib 0.10.2, CPU): the flops of dot_general
(matmul, matvec, batched) and conv_general_dilated (padded, strided, dilated, grouped), flops
and transcendentals of elementwise chains, softmax, gelu, reductions, pooling and scatter-add,
and the bytes of a program of one dot or one reduction. Elsewhere they are estimates, and
differ where XLA counts another program than the jaxpr (`tests/core/test_jaxpr_cost.py`
holds both lists):
- bytes: XLA fuses elementwise chains, whose intermediates never reach memory (sin, mul, exp,
  add on f32[10,20]: 1,600 bytes there, 7,204 here);
- loops: XLA counts a loop's body once, a scan's too; here a scan's body counts `length`
  times, as the NumPy backend runs it (10 steps of add and sin on f32[20]: 22 flops and 20
  transcendentals there, 200 and 200 here);
- expansions: XLA's CPU compiler rewrites logistic as exp, add and divide (3 flops and 1
  transcendental per element there, 1 transcendental here), erf_inv as a polynomial, argmax's
  reducer as 9 instructions, cumsum as a windowed reduction (about n²/2 per row there, n here).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .ir import ClosedJaxpr, Jaxpr, JaxprEqn, jaxpr_params

METHOD = ("the jaxpr, by jxkernel (no XLA compiles here), with XLA's HloCostAnalysis "
          "conventions: dot 2·M·N·K, 1 flop per element, transcendentals apart, bytes: each "
          "equation's operands + results, unfused")

TRANSCENDENTAL = frozenset({
    "exp", "exp2", "expm1", "log", "log1p", "logistic", "sin", "cos", "tan", "tanh", "sqrt",
    "rsqrt", "cbrt", "pow", "atan2", "erf",              # XLA's transcendental opcodes
    # special functions: XLA lowers each to several instructions; one transcendental here
    "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfc", "erf_inv",
    "lgamma", "digamma", "igamma", "igammac", "igamma_grad_a", "random_gamma", "polygamma",
    "zeta", "bessel_i0e", "bessel_i1e", "regularized_incomplete_beta"})
MOVES = frozenset({
    "broadcast_in_dim", "reshape", "squeeze", "transpose", "rev", "slice", "dynamic_slice",
    "dynamic_update_slice", "concatenate", "pad", "gather", "scatter", "iota", "copy", "split",
    "stop_gradient", "sharding_constraint", "reshard", "optimization_barrier", "tile", "stack",
    "unstack", "pvary", "empty"})
REDUCTIONS = frozenset({"reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and",
                        "reduce_or", "reduce_xor", "argmax", "argmin", "reduce"})
WINDOWED = frozenset({"reduce_window_sum", "reduce_window_max", "reduce_window_min",
                      "reduce_window"})
SCATTERS = frozenset({"scatter-add", "scatter-sub", "scatter-mul", "scatter-min",
                      "scatter-max"})
NOT_ESTIMATED = frozenset({
    "sort", "top_k", "approx_top_k", "fft", "cholesky", "eig", "eigh", "lu", "qr", "svd",
    "schur", "hessenberg", "geqrf", "geqp3", "householder_product", "ormqr",
    "triangular_solve", "lu_pivots_to_permutation", "threefry2x32", "rng_bit_generator",
    "rng_uniform", "pure_callback", "io_callback", "debug_callback", "debug_print",
    "ffi_call", "call_exported"})


@dataclasses.dataclass(frozen=True)
class Cost:
    """Counts of one equation or program; `not_estimated`: primitives counted as 0."""
    flops: int = 0
    transcendentals: int = 0
    bytes: int = 0
    not_estimated: tuple = ()

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.flops + other.flops, self.transcendentals + other.transcendentals,
                    self.bytes + other.bytes, _union(self.not_estimated, other.not_estimated))

    def times(self, n: int) -> Cost:
        return Cost(self.flops * n, self.transcendentals * n, self.bytes * n,
                    self.not_estimated)


def _union(a: tuple, b: tuple) -> tuple:
    return a + tuple(x for x in b if x not in a)


def _elements(aval) -> int:
    return math.prod(getattr(aval, "shape", ()))


def _nbytes(aval) -> int:
    """Bytes of an array's aval; 0 for a token or an extended dtype (a key's)."""
    try:
        return _elements(aval) * np.dtype(aval.dtype).itemsize
    except (TypeError, AttributeError):
        return 0


# ------------------------------------------------------------------ the special rules
def _dot_flops(eqn) -> int:
    (lhs_contract, _), _ = eqn.params["dimension_numbers"]
    shape = eqn.invars[0].aval.shape
    return 2 * _elements(eqn.outvars[0].aval) * math.prod(shape[d] for d in lhs_contract)


def _valid_taps(n_in, n_out, n_kernel, stride, pad_lo, lhs_dilation, rhs_dilation) -> int:
    """(output, kernel) pairs of one spatial dimension that read an input element (not
    padding, not a hole of the dilated input): XLA's count of a convolution's work."""
    count = 0
    for k in range(n_kernel):
        for o in range(n_out):
            i = o * stride - pad_lo + k * rhs_dilation
            if i % lhs_dilation == 0 and 0 <= i // lhs_dilation < n_in:
                count += 1
    return count


def _conv_flops(eqn) -> int:
    p = eqn.params
    lhs, rhs, out = (v.aval.shape for v in (*eqn.invars[:2], eqn.outvars[0]))
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    taps = math.prod(
        _valid_taps(lhs[ls], out[os_], rhs[rs], stride, lo, ld, rd)
        for ls, rs, os_, stride, (lo, _), ld, rd in zip(
            lhs_spec[2:], rhs_spec[2:], out_spec[2:], p["window_strides"], p["padding"],
            p["lhs_dilation"], p["rhs_dilation"]))
    fmas = (lhs[lhs_spec[1]] // p["feature_group_count"]) * rhs[rhs_spec[0]] * \
        (lhs[lhs_spec[0]] // p["batch_group_count"]) * taps
    return 2 * fmas


def _integer_pow_flops(eqn) -> int:
    """x**y by squaring: (bits − 1) squarings and (ones − 1) products, one more for y < 0."""
    y = abs(eqn.params["y"])
    muls = max(y.bit_length() - 1 + bin(y).count("1") - 1, 0) + (eqn.params["y"] < 0)
    return muls * _elements(eqn.outvars[0].aval)


def _convert_flops(eqn) -> int:
    """One per element, as XLA's convert; none where only the weak type changes (the
    lowering emits nothing then)."""
    same = eqn.invars[0].aval.dtype == eqn.params["new_dtype"]
    return 0 if same else _elements(eqn.outvars[0].aval)


def _reduced(eqn) -> int:
    return _elements(eqn.invars[0].aval) - _elements(eqn.outvars[0].aval)


def _windowed(eqn) -> int:
    return (math.prod(eqn.params["window_dimensions"]) - 1) * _elements(eqn.outvars[0].aval)


def _scattered(eqn) -> int:
    """One combination per update element, as XLA counts a scatter's."""
    return _elements(eqn.invars[2].aval)


FLOPS = {"dot_general": _dot_flops, "conv_general_dilated": _conv_flops,
         "integer_pow": _integer_pow_flops, "convert_element_type": _convert_flops,
         **dict.fromkeys(SCATTERS, _scattered)}
# Primitives counted by their own rule: the jaxpr one may hold (a reducer's, a scatter's
# combiner) is the work the rule counts already.
_OWN_RULE = NOT_ESTIMATED | REDUCTIONS | WINDOWED | MOVES | frozenset(FLOPS)


# ------------------------------------------------------------------ equations and programs
def _inner(jaxpr) -> Jaxpr:
    return jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr


def _holder_cost(eqn) -> Cost:
    """An equation holding jaxprs costs what its bodies run."""
    name, params = eqn.primitive.name, eqn.params
    if name == "scan":
        return jaxpr_cost(_inner(params["jaxpr"])).times(body_runs(eqn))
    if name == "cond":      # as XLA: each count the most any branch takes (which runs is not known)
        costs = [jaxpr_cost(_inner(b)) for b in params["branches"]]
        return Cost(max(c.flops for c in costs), max(c.transcendentals for c in costs),
                    max(c.bytes for c in costs),
                    tuple(dict.fromkeys(n for c in costs for n in c.not_estimated)))
    return sum((jaxpr_cost(_inner(j)) for j in jaxpr_params(params)), Cost())


def body_runs(eqn: JaxprEqn) -> int:
    """How often the jaxprs an equation holds count per run of it: a scan's body `length`
    times, a reducer's or a scatter's combiner never (their primitive's rule counts that
    work), any other once."""
    name = eqn.primitive.name
    if name in _OWN_RULE:
        return 0
    return eqn.params["length"] if name == "scan" else 1


def eqn_cost(eqn: JaxprEqn) -> Cost:
    """The cost of one equation (nested jaxprs included)."""
    name = eqn.primitive.name
    if jaxpr_params(eqn.params) and body_runs(eqn):
        return _holder_cost(eqn)
    moved = sum(_nbytes(v.aval) for v in (*eqn.invars, *eqn.outvars))
    out = sum(_elements(v.aval) for v in eqn.outvars)
    if name in NOT_ESTIMATED:
        return Cost(0, 0, moved, (name,))
    if name in REDUCTIONS:    # XLA's reduce also reads its initial value
        init = sum(np.dtype(v.aval.dtype).itemsize for v in eqn.outvars)
        return Cost(_reduced(eqn), 0, moved + init)
    if name in WINDOWED:
        return Cost(_windowed(eqn), 0, moved)
    if name in TRANSCENDENTAL:
        return Cost(0, out, moved)
    if name in MOVES:
        return Cost(0, 0, moved)
    return Cost(FLOPS[name](eqn) if name in FLOPS else out, 0, moved)


def jaxpr_cost(jaxpr: Jaxpr | ClosedJaxpr) -> Cost:
    """The summed cost of a jaxpr's equations (see the module docstring for the rules)."""
    return sum((eqn_cost(e) for e in _inner(jaxpr).eqns), Cost())


def cost_analysis(jaxpr: Jaxpr | ClosedJaxpr) -> dict:
    """`Compiled.cost_analysis()`'s dict, estimated from the jaxpr: XLA's keys ('flops',
    'transcendentals', 'bytes accessed', floats as XLA gives them) and 'estimated from',
    saying how.

    >>> import jxkernel
    >>> cost_analysis(jxkernel.make_jaxpr(lambda x: x * 2.0)(1.0))['flops']
    1.0
    """
    cost = jaxpr_cost(jaxpr)
    # A JAX user reads this dict by key (['flops']) and prints it; the numbers keep XLA's
    # keys and float type, so code written against XLA's dict reads them alike, and one more
    # key, shown whenever the dict is printed, says they are jxkernel's estimate from the
    # jaxpr and not XLA's analysis of a compiled program (there is none on this backend).
    found = {"flops": float(cost.flops), "transcendentals": float(cost.transcendentals),
             "bytes accessed": float(cost.bytes), "estimated from": METHOD}
    if cost.not_estimated:
        found["not estimated (counted 0)"] = ", ".join(cost.not_estimated)
    return found
