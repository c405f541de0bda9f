"""Every docstring example in jxkernel/scipy/ runs and shows what it gives."""
import pytest

import jxkernel

from doc_examples import check_package_examples      # tests/support
from numerics import ELEMENTWISE, UlpOutputChecker    # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.scipy._expint",
    "jxkernel.scipy._gamma",
    "jxkernel.scipy._hypergeometric",
    "jxkernel.scipy._legendre",
    "jxkernel.scipy._normal",
    "jxkernel.scipy._trig_integrals",
    "jxkernel.scipy.cluster.vq",
    "jxkernel.scipy.fft",
    "jxkernel.scipy.integrate",
    "jxkernel.scipy.interpolate",
    "jxkernel.scipy.linalg",
    "jxkernel.scipy.ndimage",
    "jxkernel.scipy.optimize._line_search",
    "jxkernel.scipy.optimize._minimize",
    "jxkernel.scipy.signal",
    "jxkernel.scipy.sparse.linalg",
    "jxkernel.scipy.spatial.transform",
    "jxkernel.scipy.special",
    "jxkernel.scipy.stats.kde",
})


# Examples whose float32 value is exp() of a sum of gammaln terms (the pmfs and pdfs, pascal's
# binomial coefficients) or betainc's series (beta.cdf): each term is within a few ulps of its
# own magnitude, and exp turns the sum's absolute error into the result's relative error, so
# the printed value moves with the CPU. JAX 0.10.2 prints the docstrings' values on an FMA CPU
# (AVX2 and up) and those of WITHOUT_FMA with `--xla_cpu_max_isa=AVX` (or SSE4_2), as
# jxkernel does: up to 16 ulps apart (beta.cdf, at 0.5). Bound: twice that.
LOOSER = dict.fromkeys([
    "jxkernel.scipy._matrices",
    "jxkernel.scipy.stats.beta",
    "jxkernel.scipy.stats.betabinom",
    "jxkernel.scipy.stats.binom",
    "jxkernel.scipy.stats.dirichlet",
    "jxkernel.scipy.stats.multinomial",
], 32)

# module: (the docstring's text, what a CPU without FMA prints), recorded on this machine with
# XLA_FLAGS=--xla_cpu_max_isa=AVX (jxkernel and JAX 0.10.2 alike; stop 88)
WITHOUT_FMA = {
    "jxkernel.scipy._matrices": (
        "Array([[0.9999995, 0.       , 0.       ],\n       [0.9999995, 0.9999995, 0.       ],\n"
        "       [0.9999995, 2.0000005, 0.9999995]], dtype=float32)",
        "Array([[0.9999995, 0.       , 0.       ],\n       [0.9999995, 0.9999995, 0.       ],\n"
        "       [0.9999995, 1.999999 , 0.9999995]], dtype=float32)"),
    "jxkernel.scipy.stats.beta": ("Array(0.49999958, dtype=float32, weak_type=True)",
                                  "Array(0.50000006, dtype=float32, weak_type=True)"),
    "jxkernel.scipy.stats.betabinom": ("Array(0.33333302, dtype=float32, weak_type=True)",
                                       "Array(0.33333316, dtype=float32, weak_type=True)"),
    "jxkernel.scipy.stats.binom": ("Array(0.5000001, dtype=float32, weak_type=True)",
                                   "Array(0.49999976, dtype=float32, weak_type=True)"),
    "jxkernel.scipy.stats.dirichlet": ("Array(0.99999905, dtype=float32)",
                                       "Array(0.9999995, dtype=float32)"),
    "jxkernel.scipy.stats.multinomial": ("Array(0.5000001, dtype=float32)",
                                         "Array(0.49999976, dtype=float32)"),
}


def test_every_docstring_example_in_scipy_runs():
    check_package_examples("jxkernel.scipy", RUN_ELSEWHERE, {"jxkernel": jxkernel}, ulps=LOOSER)


@pytest.mark.parametrize("module", sorted(WITHOUT_FMA))
def test_a_cpu_without_fma_is_within_the_bound(module):
    """What a CPU without FMA prints passes under the module's bound, and not under the usual
    ELEMENTWISE one (so each looser bound is needed)."""
    want, got = WITHOUT_FMA[module]
    assert UlpOutputChecker(LOOSER[module]).check_output(want + "\n", got + "\n", 0)
    assert not UlpOutputChecker(ELEMENTWISE).check_output(want + "\n", got + "\n", 0)
