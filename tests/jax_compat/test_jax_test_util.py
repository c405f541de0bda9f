"""jxkernel's jax._src.test_util (`jtu`, what JAX's own test files import) against JAX 0.10.2's
recorded answers (reference/make_jax_test_util_reference.py): the same sampled parameter
cases, the same seeded random inputs bit for bit, the same tolerances and dtype lists, so a
JAX test file collects and feeds the same cases under jxkernel as under JAX. Also the
harness's own pieces that need no mirror (conformance/jax_tests)."""
import functools
import json
import os

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import test_util
from conformance.jax_tests import report
from doc_examples import check_docstring_examples
from jxkernel._jax._src import dtypes as private_dtypes_module
from jxkernel._jax._src import test_util as jtu
from jxkernel._jax._src import util
from jxkernel._jax._src.lax import lax as lax_internal
from jxkernel.core import deprecations

from jax_test_util_cases import (PRODUCTS, dtype_lists, private_dtypes,  # tests/data
                                 random_inputs, scalars, tolerances)
import locations  # tests/support: the repository's folders

RECORD = locations.recorded("jax_test_util_reference.json")
ARRAYS = np.load(os.path.join(locations.DATA, "jax_test_util_reference.npz"))


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_sample_product_picks_jaxs_cases(name):
    product = PRODUCTS[name]
    got = jtu.sample_product_testcases(*product.get("args", ()), **product["kw"])
    assert got == RECORD["products"][name]


def test_random_inputs_are_jaxs_bit_for_bit():
    got = random_inputs(jtu, np)
    assert sorted(got) == sorted(ARRAYS.files)
    for key, value in got.items():
        want = ARRAYS[key]
        assert value.dtype == want.dtype and value.shape == want.shape, key
        # exact: the same RandomState draws in the same order (NaNs in the same places)
        np.testing.assert_array_equal(value, want, err_msg=key)


def test_scalar_shapes_and_names():
    got = json.loads(json.dumps(scalars(jtu, np)))
    assert got == RECORD["scalars"]


def test_tolerances_and_dtype_lists():
    assert json.loads(json.dumps(tolerances(jtu, np), default=float)) == RECORD["tolerances"]
    assert dtype_lists(jtu, np) == RECORD["dtype_lists"]


def test_private_dtype_helpers_are_jaxs():
    # JAX's table: int64 -> float64 whatever the x64 mode, int4 -> float32, bool -> int32
    want = RECORD["private_dtypes"]
    # JAX's table also maps its symbolic dimension class (shape polymorphism's `_DimExpr`),
    # which jxkernel keeps in jxkernel.export, not loaded with the dtypes
    del want["python_scalar_types_to_dtypes"]["_DimExpr"]
    assert private_dtypes(private_dtypes_module, np) == want


def test_private_helpers_jaxs_indexing_tests_call():
    # as JAX 0.10.2's testIndexingWeakTypes: a weak float32 stays weak through .at updates
    x = lax_internal._convert_element_type(jnp.arange(5), np.dtype(float), weak_type=True)
    assert x.dtype == np.float32 and private_dtypes_module.is_weakly_typed(x)
    assert private_dtypes_module.is_weakly_typed(x.at[0].set(1.0))
    assert private_dtypes_module.canonicalize_value(np.array([2, 0, 1])).dtype == np.int32
    assert util.subvals((None, 3, None), [(0, 0), (2, 0)]) == (0, 3, 0)


class _Case(jtu.JaxTestCase):
    def runTest(self):
        pass


def test_jax_test_case_runs_under_jaxs_test_configuration():
    case = _Case()
    case.setUp()
    try:
        # JAX's tests run with strict promotion and rank promotion raising
        with pytest.raises(Exception, match="promot"):
            jnp.add(np.int32(1), np.float32(2.0))
        with pytest.raises(ValueError, match="rank"):
            jnp.add(np.ones((2, 3), np.float32), np.ones((3,), np.float32))
        case.assertAllClose(np.float32(1.0), np.float32(1.0 + 1e-7))
        with pytest.raises(AssertionError):
            case.assertAllClose(np.float32(1.0), np.float32(1.001))
        with pytest.raises(AssertionError):          # dtypes differ
            case.assertAllClose(np.float32(1.0), np.int32(1))
        case._CompileAndCheck(jnp.sin, lambda: [np.ones(3, np.float32)])
        case._CheckAgainstNumpy(np.cos, jnp.cos, lambda: [np.ones(3, np.float32)])
    finally:
        case.doCleanups()
    assert jnp.add(np.int32(1), np.float32(2.0)).dtype == np.float32     # restored after


def test_assert_deprecation_warns_or_raises_asks_whether_it_is_accelerated():
    # JAX's: the deprecation's warning, or once accelerated the error it has become (a second
    # definition in JaxTestCase's body had replaced this with the warning alone)
    case, known = _Case(), "jax-array-positional-args"
    with case.assertDeprecationWarnsOrRaises(known, "no more"):
        deprecations.warn(known, "no more", stacklevel=1)
    with deprecations.accelerated(known), \
            case.assertDeprecationWarnsOrRaises(known, "no more", error_class=ValueError):
        deprecations.warn(known, "no more", stacklevel=1)

def test_report_cells_and_only_jxkernel_failures():
    assert report.cell({"passed": 3, "failed": 1, "error": 2, "skipped": 0,
                        "status": "timeout", "seconds": 60}) == "3 / 1 / 2 / 0 (timeout after 60 s)"
    jx = {"failures": {"a": "x", "b": "y"}}
    assert report.only_jxkernel(jx, {"failures": {"b": "y"}}) == ["a"]


def test_report_merges_other_checkouts_results_latest_run_first(tmp_path, monkeypatch):
    # files run in several clones (one per helper, or a later rerun) make one table
    import json
    from conformance.jax_tests import run
    monkeypatch.setattr(run, "RESULTS", str(tmp_path / "here"))
    run.save("jax", {"a.py": {"finished_at": "2026-11-27 16:00 UTC", "passed": 1}})
    other = tmp_path / "clone" / ".jaxtests" / "results"
    other.mkdir(parents=True)
    (other / "jax.json").write_text(json.dumps({
        "a.py": {"finished_at": "2026-11-27 15:00 UTC", "passed": 9},      # older: not taken
        "b.py": {"finished_at": "2026-11-27 17:00 UTC", "passed": 2}}))
    both = report.load_both([str(tmp_path / "clone")])
    assert {f: o["passed"] for f, o in both["jax"].items()} == {"a.py": 1, "b.py": 2}
    assert both["jxkernel"] == {}


def test_report_keeps_earlier_rows_of_files_not_run_since(tmp_path, monkeypatch, capsys):
    from conformance.jax_tests import run
    readme = tmp_path / "README.md"
    readme.write_text(f"x\n{report.START}\nRun 2026-11-26, jxkernel at `abc`.\n\n"
                      "| `tests/lax_numpy_operators_test.py` | 5 / 0 / 0 / 1 | 4 / 1 / 0 / 1 | 1 |\n"
                      f"{report.END}\n")
    monkeypatch.setattr(report, "README", str(readme))
    monkeypatch.setattr(run, "RESULTS", str(tmp_path / "results"))
    (tmp_path / "results").mkdir()
    fresh = {"passed": 7, "failed": 0, "error": 0, "skipped": 0, "status": "finished",
             "commit": "def", "cases": 10}
    report.write({"jax": {"polynomial_test.py": fresh}, "jxkernel": {"polynomial_test.py": fresh}})
    text = readme.read_text()
    assert "| `tests/lax_numpy_operators_test.py` | 5 / 0 / 0 / 1 | 4 / 1 / 0 / 1 | 1 |" in text
    assert "| `tests/polynomial_test.py` | 7 / 0 / 0 / 0 | 7 / 0 / 0 / 0 | 0 |" in text
    assert "| all | 12 / 0 / 0 / 1 | 11 / 1 / 0 / 1 | |" in text
    # the new run's stamp above the earlier one, which stays as it was written
    assert "jxkernel at `def`, JAX's files at" in text and \
        "The other rows are as the lines below say.\nRun 2026-11-26, jxkernel at `abc`.\n" in text, text
    report.write({"jax": {}, "jxkernel": {}})        # again, nothing run: the stamp as it was
    assert readme.read_text() == text


@pytest.mark.parametrize("module", [
    "jxkernel._jax._src.test_util", "jxkernel._jax._src.test_util.case",
    # (devices' example: device_under_test() is 'cpu' by name)
    pytest.param("jxkernel._jax._src.test_util.devices",
                 marks=pytest.mark.xla_only("CPU platform")),
    "jxkernel._jax._src.test_util.dtype_lists",
    "jxkernel._jax._src.test_util.mesh", "jxkernel._jax._src.test_util.rand",
    "jxkernel._jax._src.test_util.sampling", "jxkernel._jax._src.config",
    "jxkernel._jax._src.numpy.indexing", "jxkernel._jax._src.numpy.fft",
    "jxkernel._jax._src.numpy.util", "jxkernel._jax._src.util", "jxkernel._jax._src.dtypes",
    "jxkernel._jax._src.lax.lax", "conformance.jax_tests.files",
    "conformance.jax_tests.environment", "conformance.jax_tests.report"])
def test_docstring_examples(module):
    check_docstring_examples(module)


def test_check_jvp_and_check_vjp_take_jaxs_arguments():
    # JAX 0.10.2's jax.test_util.check_jvp(f, f_jvp, args) and check_vjp(f, f_vjp, args), as
    # JAX's own tests call them (lax_numpy_indexing_test.py's check_grads)
    x = (np.linspace(0.1, 1.0, 5, dtype=np.float32),)
    test_util.check_jvp(jnp.sin, functools.partial(jxkernel.jvp, jnp.sin), x)
    test_util.check_vjp(jnp.sin, functools.partial(jxkernel.vjp, jnp.sin), x)
    wrong_jvp = lambda primals, tangents: (jnp.sin(*primals), jnp.sin(*tangents))
    with pytest.raises(AssertionError, match="tangent"):
        test_util.check_jvp(jnp.sin, wrong_jvp, x)
    wrong_vjp = lambda *primals: (jnp.sin(*primals), lambda ct: (2 * ct,))
    with pytest.raises(AssertionError, match="cotangent projection"):
        test_util.check_vjp(jnp.sin, wrong_vjp, x)


def test_check_grads_takes_tolerances_by_dtype():
    # JAX's tests pass {dtype: tol} dicts (lax_autodiff_test.py); a float32 entry applies
    x = (np.linspace(0.1, 1.0, 4, dtype=np.float32),)
    test_util.check_grads(jnp.sin, x, 2, atol={np.float32: 1e-2}, rtol={np.float32: 1e-2})
    with pytest.raises(AssertionError):
        test_util.check_jvp(jnp.sin, lambda p, t: (jnp.sin(*p), 1.01 * jnp.cos(*p) * t[0]), x,
                            atol={np.float32: 1e-6}, rtol={np.float32: 1e-6})


def test_output_capture_closeness_and_flags_jaxs_tests_use():
    # custom_linear_solve_test.py captures jax.debug.print's output; custom_root_test.py
    # compares with check_close/check_eq; both skip slow tests by jax_skip_slow_tests
    with jtu.capture_stdout() as output:
        print("hello", flush=True)
        jxkernel.debug.print("x={x}", x=1)
        jxkernel.effects_barrier()
    assert output() == "hello\nx=1\n"
    jtu.check_eq({"a": np.float32(1)}, {"a": np.float32(1)})
    jtu.check_close(np.ones(4, np.float32), np.ones(4, np.float32) + 1e-7)
    with pytest.raises(AssertionError):
        jtu.check_close(np.ones(4, np.float32), np.full(4, 1.01, np.float32))

    class Slow(jtu.JaxTestCase):
        @jtu.skip_on_flag("jax_skip_slow_tests", True)
        def runTest(self):
            pass
    Slow().runTest()                  # JAX_SKIP_SLOW_TESTS unset: runs
    assert jxkernel.config._read("jax_enable_x64") is False


def test_central_difference_of_an_output_that_stays_infinite_is_zero():
    # JAX's lax_autodiff_test.py testReduceWindowGrad: a max over padding only is -inf on
    # both sides of the difference; JAX's check counts inf - inf as no change, not NaN
    f = lambda x: jnp.concatenate([x, jnp.full((1,), -jnp.inf, x.dtype)])
    test_util.check_jvp(f, functools.partial(jxkernel.jvp, f),
                        (np.linspace(0.1, 1.0, 3, dtype=np.float32),))


def test_report_writes_the_numpy_backends_table_below_the_first(tmp_path, monkeypatch):
    # the side jxkernel-numpy (jxkernel on its NumPy backend) gets its own table beside JAX's
    # CPU counts; the first table's rows stay as they were
    from conformance.jax_tests import run
    readme = tmp_path / "README.md"
    row = "| `tests/lax_numpy_operators_test.py` | 5 / 0 / 0 / 1 | 5 / 0 / 0 / 1 | 0 |"
    readme.write_text(f"x\n{report.START}\nRun 2026-11-26, jxkernel at `abc`.\n\n{row}\n"
                      f"{report.END}\nafter\n")
    monkeypatch.setattr(report, "README", str(readme))
    monkeypatch.setattr(run, "RESULTS", str(tmp_path / "results"))
    (tmp_path / "results").mkdir()
    numpy_run = {"passed": 4, "failed": 1, "error": 0, "skipped": 1, "status": "finished",
                 "commit": "def", "cases": 10,
                 "failures": {"lax_numpy_operators_test.py::T::t": "E  wrong\nline"}}
    for _ in range(2):               # again: the block is rewritten in place, not added twice
        report.write({"jax": {}, "jxkernel": {},
                      "jxkernel-numpy": {"lax_numpy_operators_test.py": numpy_run}})
    text = readme.read_text()
    assert text.count(report.NUMPY_START) == 1 and row in text
    assert text.index(report.END) < text.index(report.NUMPY_START) < text.index("after")
    assert "| `tests/lax_numpy_operators_test.py` | 5 / 0 / 0 / 1 | 4 / 1 / 0 / 1 | 1 |" in text
    assert "jxkernel at `def`" in text.split(report.NUMPY_START)[1]
    compare = (tmp_path / "results" / "compare.md").read_text()
    assert "NumPy backend only" in compare and "T::t`: line" in compare


def test_support_finder_gives_its_packages_no_search_path(tmp_path):
    # the test-support packages' submodules come from the finder only: on a search path,
    # pytest's assertion rewriter (first on sys.meta_path) claimed `test_harnesses.py` and
    # loaded it a second time under the `jax._src` name, with classes of its own
    import importlib.util
    import os
    plugin = importlib.util.spec_from_file_location(
        "jax_test_support_under_test",
        os.path.join(os.path.dirname(report.__file__), "plugin", "jax_test_support.py"))
    module = importlib.util.module_from_spec(plugin)
    plugin.loader.exec_module(module)
    package = tmp_path / "internal_test_util"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "test_harnesses.py").write_text("")
    finder = module.JaxTestSupportFinder(str(tmp_path))
    spec = finder.find_spec(f"{module.PACKAGE}.internal_test_util")
    assert spec.submodule_search_locations == []
    assert spec.origin == str(package / "__init__.py")
    inner = finder.find_spec(f"{module.PACKAGE}.internal_test_util.test_harnesses")
    assert inner.origin == str(package / "test_harnesses.py")
