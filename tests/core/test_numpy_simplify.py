"""core/numpy_simplify.py: the NumPy backend makes XLA's division rewrites, so its numbers are
XLA's bit for bit where each rewrite rounds differently from the division it replaces."""
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core.ir import ClosedJaxpr
from jxkernel.core.numpy_eval import eval_closed_jaxpr_numpy
from jxkernel.core.numpy_simplify import inline_calls, simplify_divisions
from doc_examples import check_docstring_examples
from numerics import assert_allclose_ulp, xla_fuses_multiply_adds

# the rewrites land on XLA CPU's bits: in the GPU tier they are compared with XLA's CPU still
pytestmark = pytest.mark.usefixtures("on_the_cpu")

RNG = np.random.default_rng(7)
A = RNG.uniform(0.1, 5, 500).astype(np.float32)
B = RNG.uniform(-5, 5, 500).astype(np.float32)
REWRITES = {       # XLA's optimized HLO computes the right-hand side (measured)
    "div_exp": lambda a, b: a / lax.exp(b),                  # a * exp(-b)
    "div_sqrt": lambda a, b: a / lax.sqrt(jnp.abs(b)),        # a * rsqrt(|b|)
    "div_rsqrt": lambda a, b: a / lax.rsqrt(jnp.abs(b)),      # a * sqrt(|b|)
    "div_pow": lambda a, b: a / lax.pow(jnp.abs(b), a),       # a * pow(|b|, -a)
    "div_of_div": lambda a, b: a / (b / (a + 1)),             # (a * (a + 1)) / b
    "div_div": lambda a, b: (a / b) / (b + 1),                # a / (b * (b + 1))
    "in_a_loop": lambda a, b: lax.fori_loop(0, 3, lambda i, v: v / lax.exp(b), a),
    "scalars_by_a_constant": lambda a, b: jnp.stack([a[i] / 1.7 for i in range(40)]),
    # S * (W * K), S a scalar, K a constant: W * (S * K) (mgrid's and geomspace's steps;
    # a long linspace's sums XLA fuses into FMAs besides, which no rule here follows)
    "scalar_by_product": lambda a, b: b[0] * (a * (1 / 7)),
    # a jitted call inlined first, as XLA's compiler does: (A / B) / C across it
    "across_a_call": lambda a, b: jax.jit(lambda a, b: a / b)(a, b) / (b + 1),
}


# where a NumPy rule is not XLA's bit for bit (rsqrt up to 2 ulps, pow 1), the rewrite's
# result is compared within 8 (float64 exp is XLA's own formula since 2026-11-29: exact)
INEXACT = {"div_sqrt", "div_pow"}
# float32 exp lands on XLA's bits where XLA's code fuses its multiply-adds: a CPU with FMA and
# no --xla_cpu_max_isa below AVX2 (the restricted-ISA run, scripts/test_other_cpus.sh, moved
# div_exp and in_a_loop there); elsewhere they get the 8-ulp bound
if not xla_fuses_multiply_adds():
    INEXACT |= {"float32/div_exp", "float32/in_a_loop"}


@pytest.mark.parametrize("name", sorted(REWRITES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_rewrites_land_on_xlas_bits(name, dtype):
    f = REWRITES[name]
    with jax.enable_x64(dtype == np.float64):
        a, b = A.astype(dtype), B.astype(dtype)
        closed = jax.make_jaxpr(f)(a, b)
        want = np.asarray(jax.jit(f)(a, b))
        rewritten = ClosedJaxpr(simplify_divisions(inline_calls(closed.jaxpr)), closed.consts)
        got, = eval_closed_jaxpr_numpy(rewritten, a, b)
        plain, = eval_closed_jaxpr_numpy(closed, a, b)
    inexact = name in INEXACT or f"{np.dtype(dtype).name}/{name}" in INEXACT
    assert_allclose_ulp(got, want, 8 if inexact else 0)
    if not inexact:                       # the division itself rounds otherwise: a real check
        assert (plain != want).any()


def test_a_division_of_constants_is_folded():
    # XLA folds it (an exact division), so no reciprocal: lecun_normal's sqrt(1 / n) / 0.8796
    closed = jax.make_jaxpr(lambda a: a * (lax.sqrt(np.float32(1 / 3)) / np.float32(0.87962566)))(A)
    assert "mul" not in [e.primitive.name for e in simplify_divisions(closed.jaxpr).eqns[:-1]]


def test_other_divisions_are_kept():
    closed = jax.make_jaxpr(lambda a, b: (a / b, a / (b + 1), 1.5 / b))(A, B)
    assert [e.primitive.name for e in simplify_divisions(closed.jaxpr).eqns] == \
        [e.primitive.name for e in closed.jaxpr.eqns]


def test_other_products_are_kept():
    # (measured: XLA keeps d * (x * e) of scalars d, e, and c * (x * d) of a constant c)
    d = np.float32(6.3)
    closed = jax.make_jaxpr(lambda a, d, e: (d * (a * e), np.float32(0.5) * (a * d),
                                             d * (a * a)))(A, d, d)
    assert [e.primitive.name for e in simplify_divisions(closed.jaxpr).eqns] == \
        [e.primitive.name for e in closed.jaxpr.eqns]


def test_docstring_examples():
    check_docstring_examples("jxkernel.core.numpy_simplify")
