"""Every docstring example in jxkernel/numpy/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.numpy.array_api",
    "jxkernel.numpy.array_methods",
    "jxkernel.numpy.calculus",
    "jxkernel.numpy.creation",
    "jxkernel.numpy.dslice",
    "jxkernel.numpy.dtypes",
    "jxkernel.numpy.editing",
    "jxkernel.numpy.fft",
    "jxkernel.numpy.functional",
    "jxkernel.numpy.index_tricks",
    "jxkernel.numpy.indexing",
    "jxkernel.numpy.manipulation",
    "jxkernel.numpy.pad",
    "jxkernel.numpy.polynomial",
    "jxkernel.numpy.products",
    "jxkernel.numpy.ranges",
    "jxkernel.numpy.reductions",
    "jxkernel.numpy.scalar_types",
    "jxkernel.numpy.setops",
    "jxkernel.numpy.sorting",
    "jxkernel.numpy.statistics",
    "jxkernel.numpy.ufunc_api",
    "jxkernel.numpy.ufuncs",
    "jxkernel.numpy.util",
    "jxkernel.numpy.windows",
})


def test_every_docstring_example_in_numpy_runs():
    check_package_examples("jxkernel.numpy", RUN_ELSEWHERE, {"jxkernel": jxkernel})
