r"""jax.experimental.jet: Taylor-mode automatic differentiation.

`jet(fun, primals, series)` pushes a truncated Taylor polynomial through `fun` in one pass:
given x and the derivatives (h_1, ..., h_K) of some path h at x, it returns f(x) and the
first K derivatives of f(h(.)) there, by propagating the polynomial's coefficients through each
primitive (Faa di Bruno's formula, one recurrence per primitive), not by nesting jvps.

    >>> f0, (f1, f2) = jet(jnp.sin, (0.5,), ((1.0, 0.0),))
    >>> print(f0, f1, f2)
    0.47942555 0.87758255 -0.47942567

It is an interpreter like jvp (transforms/ad/forward.py): `JetTrace` carries each value's primal
and its K coefficients, and each primitive's rule in `jet_rules` (a table of core/primitive.py's
RULE_TABLES; the rules are all here, as JAX keeps them in jet.py) maps them forward. Inside the
rules the coefficients are the plain Taylor ones (the k-th divided by k!); `jet` scales them in
and out (`factorial_scaled`). A primitive without a rule raises KeyError naming it, as JAX's jet
does (`cond`, `while`, `scan`, `tan`, ... have none in JAX 0.10.2 either). Custom jvp and vjp
rules are ignored: the function itself is expanded, as JAX does.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core.avals import get_aval
from ..core.interpret import eval_jaxpr
from ..core.lru import TRACES, WeakLRU
from ..core.primitive import jet_rules
from ..core.staging import trace_to_jaxpr
from ..core.trace import EvalTrace, Trace, Tracer, new_trace, set_current_trace, value_text
from ..transforms.ad import PrimalTracer
from ..transforms.ad_util import add_any_p, stop_gradient_p
from ..transforms.api_util import flatten_fun
from ..transforms.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from ..transforms.jit import jit
from ..transforms.jit.pinned import pin_of
from ..transforms.jit.primitive import _rebound, jit_p
from ..tree_util import tree_flatten, tree_structure, tree_unflatten, treedef_is_leaf

__all__ = ["fact", "jet", "jet_rules", "zero_series"]


class _ZeroSeries:
    """A value's coefficients when they are all zero (it does not depend on the inputs)."""

    def __repr__(self):
        return "zero_series"


zero_series = _ZeroSeries()


class JetTracer(PrimalTracer):
    """A primal and its Taylor coefficients (a list of `order` arrays of its type)."""
    __slots__ = ("primal", "terms")

    def __init__(self, trace, primal, terms):
        self._trace, self.primal, self.terms = trace, primal, terms

    def _short_repr(self):
        return f"JetTracer(primal={value_text(self.primal)})"


class JetTrace(Trace):
    def __init__(self, parent, order: int):
        super().__init__(parent)
        self.order = order

    def unpack(self, x):
        if type(x) is JetTracer and x._trace is self:
            return x.primal, x.terms
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return x, zero_series

    def process_primitive(self, prim, args, params):
        primals, series = zip(*map(self.unpack, args)) if args else ((), ())
        with set_current_trace(self.parent):
            if all(s is zero_series for s in series):
                return prim.bind(*primals, **params)
            # a rule sees every input's coefficients, zeros made real (as JAX's jet does)
            series = [[jnp.zeros(np.shape(x), dtype=jnp.result_type(x))] * self.order
                      if s is zero_series else s for x, s in zip(primals, series)]
            try:
                rule = jet_rules[prim]
            except KeyError:
                raise KeyError(prim) from None      # JAX's error: the table's KeyError
            if type(self.parent) is EvalTrace and rule not in _EAGER_RULES:
                primal_out, terms_out = _compiled_rule(prim, rule, params, primals, series)
            else:
                primal_out, terms_out = rule(list(primals), series, **params)
        if prim.multiple_results:
            return [self.wrap(p, t) for p, t in zip(primal_out, terms_out)]
        return self.wrap(primal_out, terms_out)

    def wrap(self, primal, terms):
        return primal if terms is zero_series else JetTracer(self, primal, list(terms))

    def describe_self(self):
        return "jet"


# Eagerly, a rule runs as one compiled program per primitive, its types and params: what JAX
# does for jnp's functions, each a jit (inline only when staged), whose jit rule below compiles
# the jet of its body. The coefficients then round as JAX's do (its docstring's sin example
# differs in the last bit when each operation of the rule runs alone). (prim, params, avals,
# order) -> the jitted rule; a primitive whose params cannot be a key runs its rule eagerly.
_compiled_rules: dict = {}
# rules run as they are: those that only bind their primitive (nothing to compile), jit's
# (it binds one jit itself) and the custom-derivative calls' (their params hold jaxprs and
# functions, which a key would keep alive; their bodies' rules compile one by one)
_EAGER_RULES: set = set()


def _compiled_rule(prim, rule, params, primals, series):
    try:
        key = (prim, tuple(sorted(params.items())), tuple(get_aval(x) for x in primals),
               len(series[0]))
        jitted = _compiled_rules.get(key)
    except TypeError:                   # an unhashable param
        return rule(list(primals), series, **params)
    if jitted is None:
        if len(_compiled_rules) > 4096:  # (a bound, as the other caches of programs)
            _compiled_rules.clear()
        jitted = _compiled_rules[key] = jit(lambda ps, ss: rule(ps, ss, **params))
    return jitted(list(primals), series)


def jet_flat(fun, primals, series, order: int):
    """(primal outputs, coefficient lists) of flat `fun` at `primals` with the plain Taylor
    coefficients `series` (one list of `order` per input); outputs that do not depend on the
    inputs get zeros."""
    with new_trace(JetTrace, order) as trace:
        outs = fun(*[JetTracer(trace, p, list(s)) for p, s in zip(primals, series)])
        pairs = [trace.unpack(o) for o in outs]
    return ([p for p, _ in pairs],
            [[jnp.zeros_like(p)] * order if s is zero_series else s for p, s in pairs])


def fact(n):
    """n!, as JAX's jet computes it (exp of lgamma: the scaled coefficients then match JAX's
    to the bit, though exp(lgamma(3.)) is not exactly 2 in float32); public as JAX's
    `jax.experimental.jet.fact`, which its tests use to scale Taylor terms.

    >>> round(float(fact(4)), 3)
    24.0
    """
    return lax.exp(lax.lgamma(n + 1.))


def jet(fun, primals, series, factorial_scaled=True, **_):
    r"""Taylor-mode higher-order automatic differentiation.

    `primals`: the point, one array (or scalar) per positional argument of `fun`. `series`:
    for each argument, its K higher-order terms (all the same K). With `factorial_scaled`
    (the default) the k-th term is the k-th derivative along the path; with False it is the
    plain Taylor coefficient (the k-th derivative over k!), for input and output alike.
    Returns `(fun(*primals), series_out)`, `series_out` of `fun`'s output structure, each
    leaf a list of K terms.
    """
    try:
        order, = set(map(len, series))
    except ValueError:
        raise ValueError("jet terms have inconsistent lengths for different arguments") from None
    for i, (x, terms) in enumerate(zip(primals, series)):
        if not treedef_is_leaf(tree_structure(x)):
            raise ValueError(f"primal value at position {i} is not an array")
        for j, t in enumerate(terms):
            if not treedef_is_leaf(tree_structure(t)):
                raise ValueError(f"term {j} for argument {i} is not an array")
    out_tree = []

    def flat_fun(*args):
        leaves, tree = tree_flatten(fun(*args))
        out_tree.append(tree)
        return leaves

    if factorial_scaled:
        series = [[term / fact(k + 1) for k, term in enumerate(terms)] for terms in series]
    out_primals, out_terms = jet_flat(flat_fun, list(primals), series, order)
    if factorial_scaled:
        out_terms = [[term * fact(k + 1) for k, term in enumerate(terms)]
                     for terms in out_terms]
    return tree_unflatten(out_tree[0], out_primals), tree_unflatten(out_tree[0], out_terms)


jet2 = functools.partial(jet, factorial_scaled=False)


# ------------------------------------------------------------------ the rules
# Each rule: (primals, series, **params) -> (primal out, its coefficients), where series holds
# one list of `order` plain Taylor coefficients per operand (zeros included); a rule of a
# multiple-results primitive returns a list of primals and a list of coefficient lists. With
# u the input's coefficients (u[0] its value) and v the output's, most rules below are the
# recurrence of the primitive's differential equation: for v = f(u) with f' = c,
# k v[k] = sum_{j=1..k} j c[k-j] u[j].

def _derivative_series(c, u, v, k):
    """v[k] from v' = c u' (the coefficients c of f'(u) known to order k-1)."""
    return sum(j * c[k - j] * u[j] for j in range(1, k + 1)) / k


def _solved_series(v0, c, u):
    """(v0, v's coefficients) for v' = c u', order by order; `c` None: c is v itself (exp).

    >>> _solved_series(1.0, None, [0.0, 1.0, 0.0, 0.0])       # exp(t) = 1 + t + t^2/2 + t^3/6
    (1.0, [1.0, 0.5, 0.16666666666666666])
    """
    v = [v0] + [None] * (len(u) - 1)
    c = v if c is None else c
    for k in range(1, len(v)):
        v[k] = _derivative_series(c, u, v, k)
    return v[0], v[1:]


def _no_derivative(prim):
    """Piecewise-constant primitives (comparisons, rounding, bitwise): zero coefficients."""
    def rule(primals, series, **params):
        return prim.bind(*primals, **params), zero_series
    jet_rules[prim] = rule
    _EAGER_RULES.add(rule)


def _linear(prim):
    """Linear primitives: each coefficient goes through the primitive itself."""
    def rule(primals, series, **params):
        out = prim.bind(*primals, **params)
        terms = [prim.bind(*ts, **params) for ts in zip(*series)]
        if prim.multiple_results:           # per order a list of results -> per result
            terms = [list(per_out) for per_out in zip(*terms)]
        return out, terms
    jet_rules[prim] = rule


def _composite(prim, fun):
    """A primitive expanded as the composition `fun` of primitives with rules."""
    jet_rules[prim] = lambda primals, series, **params: jet2(fun, primals, series)


for _p in (lax.le_p, lax.lt_p, lax.gt_p, lax.ge_p, lax.eq_p, lax.ne_p, lax.not_p, lax.and_p,
           lax.or_p, lax.xor_p, lax.floor_p, lax.ceil_p, lax.round_p, lax.sign_p, stop_gradient_p,
           lax.is_finite_p, lax.shift_left_p, lax.shift_right_arithmetic_p,
           lax.shift_right_logical_p, lax.bitcast_convert_type_p):
    _no_derivative(_p)

# (JAX's list also has device_put and reshard, which are not primitives in jxkernel:
# jxkernel's device_put and reshard place values without binding one inside a trace)
for _p in (lax.neg_p, lax.real_p, lax.complex_p, lax.conj_p, lax.imag_p, lax.add_p, add_any_p,
           lax.sub_p, lax.convert_element_type_p, lax.broadcast_in_dim_p, lax.concatenate_p,
           lax.split_p, lax.stack_p, lax.unstack_p, lax.pad_p, lax.reshape_p, lax.squeeze_p,
           lax.rev_p, lax.transpose_p, lax.slice_p, lax.reduce_sum_p, lax.reduce_window_sum_p,
           lax.fft_p, lax.copy_p, lax.cumsum_p):
    _linear(_p)


def _dynamic_slice_rule(primals, series, **params):
    operand, *starts = primals
    return (lax.dynamic_slice_p.bind(operand, *starts, **params),
            [lax.dynamic_slice_p.bind(ts[0], *starts, **params) for ts in zip(*series)])


jet_rules[lax.dynamic_slice_p] = _dynamic_slice_rule


def _dynamic_update_slice_rule(primals, series, **params):
    operand, update, *starts = primals
    return (lax.dynamic_update_slice_p.bind(operand, update, *starts, **params),
            [lax.dynamic_update_slice_p.bind(ts[0], ts[1], *starts, **params)
             for ts in zip(*series)])


jet_rules[lax.dynamic_update_slice_p] = _dynamic_update_slice_rule


def _cumulative(combine):
    """cumprod, cummax, cummin: through the parallel prefix scan of `combine` (whatever the
    backend: reduce_window has no rule to expand)."""
    def rule(primals, series, *, axis, reverse):
        return jet2(functools.partial(lax.associative_scan, combine, axis=axis, reverse=reverse),
                    primals, series)
    return rule


jet_rules[lax.cumprod_p] = _cumulative(lax.mul)
jet_rules[lax.cummax_p] = _cumulative(lax.max)
jet_rules[lax.cummin_p] = _cumulative(lax.min)


def _from_derivative(prim, derivative):
    """f by the series of its derivative f' (itself expanded by jet)."""
    def rule(primals, series):
        x, = primals
        u = [x] + series[0]
        c0, cs = jet2(derivative, primals, series)
        return _solved_series(prim.bind(x), [c0] + cs, u)
    jet_rules[prim] = rule


_from_derivative(lax.erf_p, lambda x: lax.mul(lax.full_like(x, 2. / np.sqrt(np.pi)),
                                              lax.exp(lax.neg(lax.square(x)))))

_composite(lax.expm1_p, lambda x: lax.exp(x) - 1)
_composite(lax.log1p_p, lambda x: lax.log(1 + x))
_composite(lax.sqrt_p, lambda x: x ** 0.5)
_composite(lax.square_p, lambda x: x * x)
_composite(lax.rsqrt_p, lambda x: x ** -0.5)
_composite(lax.asinh_p, lambda x: lax.log(x + lax.sqrt(lax.square(x) + 1)))
_composite(lax.acosh_p, lambda x: lax.log(x + lax.sqrt(lax.square(x) - 1)))
_composite(lax.atanh_p, lambda x: 0.5 * lax.log(lax.div(1 + x, 1 - x)))
_composite(lax.erfc_p, lambda x: 1 - lax.erf(x))
_composite(lax.rem_p, lambda x, y: x - y * lax.floor(x / y))
_composite(lax.clamp_p, lambda lo, x, hi: lax.min(lax.max(lo, x), hi))


def _erf_inv_rule(primals, series):
    """v = erfinv(u): v' = c u' with c = sqrt(pi)/2 exp(v^2), a series of v itself, so c and v
    are built together, one order at a time."""
    x, = primals
    terms = series[0]
    u = [x] + terms
    v = [lax.erf_inv(x)] + [None] * len(terms)
    scale = np.sqrt(np.pi) / 2.
    square = [lax.square(v[0])] + [None] * (len(terms) - 1)
    expo = [lax.exp(square[0])] + [None] * (len(terms) - 1)
    c = [lax.mul(scale, expo[0])] + [None] * (len(terms) - 1)
    for k in range(1, len(terms)):
        v[k] = _derivative_series(c, u, v, k)
        square[k] = sum(v[k - j] * v[j] for j in range(k + 1))
        expo[k] = sum(j * expo[k - j] * square[j] for j in range(1, k + 1)) / k
        c[k] = scale * expo[k]
    k = len(terms)                      # the last order needs c only to k-1
    v[k] = _derivative_series(c, u, v, k)
    return v[0], v[1:]


jet_rules[lax.erf_inv_p] = _erf_inv_rule


def _exp_rule(primals, series, **_):
    """v = exp(u): v' = v u'."""
    x, = primals
    return _solved_series(lax.exp(x), None, [x] + series[0])


jet_rules[lax.exp_p] = _exp_rule


def _pow_rule(primals, series):
    """x ** y = exp(y log x): exp's recurrence on the series of y log x."""
    base, exponent = primals
    w0, ws = jet2(lambda x, y: lax.mul(y, lax.log(x)), primals, series)
    return _solved_series(base ** exponent, None, [w0] + ws)


jet_rules[lax.pow_p] = _pow_rule


def _power_by_squaring(x, n):
    if n < 0:
        return _power_by_squaring(1 / x, -n)
    if n == 0:
        return 1
    if n % 2 == 0:
        return _power_by_squaring(x * x, n / 2)
    return x * _power_by_squaring(x * x, (n - 1) / 2)


def _integer_pow_rule(primals, series, *, y):
    if y == 0:
        return jet2(jnp.ones_like, primals, series)
    return jet2(lambda x: _power_by_squaring(x, y), primals, series)


jet_rules[lax.integer_pow_p] = _integer_pow_rule


def _logistic_taylor(primals, series, **_):
    """v = logistic(u): v' = e u' with e = v (1 - v), whose series follows v's. JAX's private
    name: its jet_test.py calls it directly, as `_logistic_taylor((x,), ([u1, u2, ...],))`."""
    x, = primals
    u = [x] + series[0]
    v = [lax.logistic(x)] + [None] * len(series[0])
    e = [v[0] * (1 - v[0])] + [None] * len(series[0])
    for k in range(1, len(v)):
        v[k] = _derivative_series(e, u, v, k)
        e[k] = (1 - v[0]) * v[k] - sum(v[j] * v[k - j] for j in range(1, k + 1))
    return v[0], v[1:]


jet_rules[lax.logistic_p] = _logistic_taylor


def _tanh_rule(primals, series, **_):
    """tanh(u) = 2 logistic(2u) - 1."""
    x, = primals
    out, terms = _logistic_taylor([2 * x], [[2 * t for t in series[0]]])
    return 2 * out - 1, [2 * t for t in terms]


jet_rules[lax.tanh_p] = _tanh_rule


def _log_rule(primals, series, **_):
    """v = log(u): u v' = u', solved for each order."""
    x, = primals
    u = [x] + series[0]
    v = [lax.log(x)] + [None] * len(series[0])
    for k in range(1, len(v)):
        conv = sum(j * v[j] * u[k - j] for j in range(1, k))
        v[k] = (u[k] - conv / k) / u[0]
    return v[0], v[1:]


jet_rules[lax.log_p] = _log_rule


def _atan2_rule(primals, series):
    """atan2(x, y) by arctan's derivative 1/(1 + t^2) along t = x / y."""
    out = lax.atan2(*primals)
    t0, ts = jet2(lax.div, primals, series)
    one = lax.full_like(t0, 1)
    c0, cs = jet2(lambda t: lax.div(one, 1 + lax.square(t)), (t0,), (ts,))
    return _solved_series(out, [c0] + cs, [t0] + ts)


jet_rules[lax.atan2_p] = _atan2_rule


def _div_rule(primals, series):
    """v = x / y: v y = x, solved for each order."""
    x, y = primals
    u, w = [x] + series[0], [y] + series[1]
    v = [None] * len(u)
    for k in range(len(v)):
        conv = sum(v[j] * w[k - j] for j in range(k))
        v[k] = (u[k] - conv) / w[0]
    return v[0], v[1:]


jet_rules[lax.div_p] = _div_rule


def _sine_pair(sign, fs, which):
    """sin and cos (sign -1), sinh and cosh (sign +1): each the other's derivative, so their
    series are built together; `which` picks the one the primitive computes."""
    f, g = fs

    def rule(primals, series, **_):
        x, = primals
        u = [x] + series[0]
        s = [f(x)] + [None] * len(series[0])
        c = [g(x)] + [None] * len(series[0])
        for k in range(1, len(s)):
            s[k] = sum(j * u[j] * c[k - j] for j in range(1, k + 1)) / k
            c[k] = sum(j * u[j] * s[k - j] for j in range(1, k + 1)) / k * sign
        out = (s, c)[which]
        return out[0], out[1:]
    return rule


jet_rules[lax.sin_p] = _sine_pair(-1, (lax.sin, lax.cos), 0)
jet_rules[lax.cos_p] = _sine_pair(-1, (lax.sin, lax.cos), 1)
jet_rules[lax.sinh_p] = _sine_pair(1, (lax.sinh, lax.cosh), 0)
jet_rules[lax.cosh_p] = _sine_pair(1, (lax.sinh, lax.cosh), 1)


def _bilinear(prim):
    """Products: the Cauchy product of the two series, through the primitive itself."""
    def rule(primals, series, **params):
        u, w = [primals[0]] + series[0], [primals[1]] + series[1]
        v = [sum(prim.bind(u[j], w[k - j], **params) for j in range(k + 1))
             for k in range(len(u))]
        return v[0], v[1:]
    jet_rules[prim] = rule


for _p in (lax.dot_general_p, lax.mul_p, lax.conv_general_dilated_p):
    _bilinear(_p)


def _gather_rule(primals, series, **params):
    operand, indices = primals
    return (lax.gather_p.bind(operand, indices, **params),
            [lax.gather_p.bind(t, indices, **params) for t in series[0]])


jet_rules[lax.gather_p] = _gather_rule


def _reduce_chooser(prim):
    """reduce_max, reduce_min: each coefficient averaged over the elements that tie for the
    chosen value (as their jvp)."""
    def rule(primals, series, **params):
        operand, = primals
        terms = series[0]
        out = prim.bind(operand, **params)
        axes = params["axes"]
        kept = [1 if i in axes else d for i, d in enumerate(operand.shape)]
        where = lax.convert_element_type(lax.eq(operand, lax.reshape(out, kept)),
                                         terms[0].dtype)
        counts = lax.reduce_sum(where, axes)
        return out, [lax.div(lax.reduce_sum(lax.mul(t, where), axes), counts) for t in terms]
    jet_rules[prim] = rule


_reduce_chooser(lax.reduce_max_p)
_reduce_chooser(lax.reduce_min_p)


def _abs_rule(primals, series, **params):
    x, = primals
    out = lax.abs_p.bind(x, **params)
    signs = lax.select(lax.lt(x, lax.full_like(x, 0, shape=())), lax.full_like(x, -1),
                       lax.full_like(x, 1.0))
    return out, [signs * t for t in series[0]]


jet_rules[lax.abs_p] = _abs_rule


def _select_n_rule(primals, series, **params):
    which, *cases = primals
    # the predicate's own coefficients (zeros) are left out
    return (lax.select_n(which, *cases),
            [lax.select_n(which, *ts[1:]) for ts in zip(*series)])


jet_rules[lax.select_n_p] = _select_n_rule


def _max_rule(primals, series):
    """max: the larger operand's coefficients, their mean where the operands tie."""
    x, y = jnp.broadcast_arrays(*primals)
    greater, equal = x > y, x == y

    def choose(a, b):
        return lax.select(equal, (a + b) / 2, lax.select(greater, a, b))
    return (lax.select(greater, x, y),
            [choose(*jnp.broadcast_arrays(*ts)) for ts in zip(*series)])


jet_rules[lax.max_p] = _max_rule


def _min_rule(primals, series):
    """min: as max (JAX's rule does not broadcast its operands here: nor does this one)."""
    x, y = primals
    less, equal = x < y, x == y

    def choose(a, b):
        return lax.select(equal, (a + b) / 2, lax.select(less, a, b))
    return lax.select(less, x, y), [choose(*ts) for ts in zip(*series)]


jet_rules[lax.min_p] = _min_rule


def _scatter_add_rule(primals, series, **params):
    operand, indices, updates = primals
    bind = functools.partial(lax.scatter_add_p.bind, **params)
    return (bind(operand, indices, updates),
            [bind(t_operand, indices, t_updates) for t_operand, _, t_updates in zip(*series)])


jet_rules[lax.scatter_add_p] = _scatter_add_rule


# a jit equation's jet: one jit equation over the jet of its jaxpr, (jaxpr, (order, avals)) ->
# that jaxpr, kept while the jaxpr lives (JAX's _jet_jaxpr cache)
_jet_jaxprs = WeakLRU(TRACES)


def _jet_jaxpr(closed, order, avals):
    found = _jet_jaxprs.get((closed, (order, avals)))
    if found is not None:
        return found
    n = len(closed.in_avals)

    def fun(*args):
        primals, flat = args[:n], args[n:]
        series = [list(flat[i * order:(i + 1) * order]) for i in range(n)]
        outs, terms = jet_flat(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                               primals, series, order)
        return list(outs) + [t for ts in terms for t in ts]

    found = trace_to_jaxpr(fun, list(avals))
    if not any(isinstance(c, Tracer) for c in closed.consts):
        _jet_jaxprs[closed, (order, avals)] = found
    return found


def _jit_rule(primals, series, *, jaxpr, donated_invars, **params):
    order = len(series[0])
    flat = [t for ts in series for t in ts]
    avals = tuple(get_aval(x) for x in [*primals, *flat])
    pinned = pin_of(params)
    outs = _rebound(params, _jet_jaxpr(jaxpr, order, avals), [*primals, *flat],
                    tuple(donated_invars) + (False,) * len(flat),
                    pinned and pinned.series(order))
    n = len(jaxpr.out_avals)
    return outs[:n], [list(outs[n + i * order:n + (i + 1) * order]) for i in range(n)]


jet_rules[jit_p] = _jit_rule
_EAGER_RULES.add(_jit_rule)


def _expand_call(primals, series, *, call_jaxpr, **_):
    """custom_jvp / custom_vjp calls: their custom rules ignored, the function expanded (JAX's
    JetTrace.process_custom_jvp_call and process_custom_vjp_call call `fun` itself)."""
    return jet2(lambda *xs: eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *xs),
                primals, series)


jet_rules[custom_jvp_call_p] = _expand_call
jet_rules[custom_vjp_call_p] = _expand_call
_EAGER_RULES.add(_expand_call)
