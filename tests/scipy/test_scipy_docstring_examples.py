"""Every docstring example in jxkernel/scipy/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

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


def test_every_docstring_example_in_scipy_runs():
    check_package_examples("jxkernel.scipy", RUN_ELSEWHERE, {"jxkernel": jxkernel})
