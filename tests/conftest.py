"""Session setup for the whole suite; pytest loads this before any test module.

The persistent compilation cache goes to a fresh temporary folder for each run,
shared by its xdist workers (they compile many of the same small programs;
entries are written atomically, so sharing is safe). The suite never writes to
the user's cache folder and never reads stale entries from an earlier run. It
has to be set before jxkernel is imported: config reads the environment once.

XLA compiles with its backend optimizations mostly off (JAX's
jax_disable_most_optimizations): the suite compiles ~14,000 small programs and
runs each once, and XLA's LLVM optimization was a third of each compile. Code
made this way differs from the default's in the last bits (no a*b+c contracted
to an FMA, as on CPUs without FMA), which the ulp bounds allow for (they
hold for AVX-only CPUs too: scripts/test_other_cpus.sh). The environment variable
reaches the kernels, servers and scripts the suite starts; set
JAX_DISABLE_MOST_OPTIMIZATIONS=0 to run the whole suite at the default.

The test processes write none of their compiles to that folder: a test file's programs are
mostly its own (stop 94 logged the whole suite's: 11.7 % of the workers' compile time was a
program compiled before in the run: at most ~70 s of CPU to spare, ~25 s to write and load
them all; docs/log/time_budget.md, stop 94), and writing them cost 2.5-4 % of a test
file's CPU time (serializing ~1-2 ms per 15-70 ms compile); even compiles of a second or
more, JAX's default minimum (ours is 0), cost 2 % of test_transforms_numpy_arrays.py's CPU to
store (29.7 -> 29.1 s). The kernels, servers and
scripts they start write few: the folder is one the user set, where JAX's minimum of 1 s holds
(disk_cache.min_compile_time; measured at stop 97: test_workshop.py's 18 notebooks wrote none,
and given 0 their kernels' CPU moved less than the machine's noise). The tests of the cache
itself set 0 where they need entries written.

Tracebacks are not filtered (JAX_TRACEBACK_FILTERING=off), as JAX's JaxTestCase has them: a
filtered error carries JAX's note ("For simplicity, JAX has removed its internal frames...")
after its message, which `pytest.raises(match="...$")` reads too. The tests of filtering set
their mode themselves (tests/core/test_traceback_filtering.py, in fresh processes).

The in-memory cache keeps 2,048 executables by module text in the suite (a notebook's bound is
512, xla/memory.py): one worker runs thousands of programs, and at 512 a program evicted by
later tests' programs was compiled again when an eager operation or shape came back: 197 of
2,577 compiles (7.6 %) of three test files run in one process were such repeats, 5 at 2,048 and
0 at 8,192. 2,048 tiny executables hold 6,088 memory mappings and 370 MiB (measured). The tests of the
bound set their own.

The test processes compile with XLA CPU's loop emitters instead of its fusion emitters
(compiled.LOOP_EMITTERS, through xla/compiler.set_base_compiler_options): a third less CPU per
compile, and the whole suite took 763 s of CPU instead of 1,000-1,200 (measured on 2 cores).
The loop emitters' code differs from the default's in the last bits of some functions (held by
the ulp bounds, and on an AVX-only CPU too) and in a few discrete results: subnormals flushed
inside frexp and cbrt, which of two tied maxima a pooling's tangent follows, XLA's cost model
of a scatter (docs/log/time_budget.md, stop 54, has the measurements). A test whose subject is
XLA's default code (what JAX gives, bit for bit or discretely) takes the `xla_default_code`
fixture. The kernels, servers and
scripts the suite starts compile as a user's do, but for the conformance programs' workers, which
test_conformance.py hands the same options (compiled.suite_compiler_options: ~1,200 compiles,
half their CPU), and the fresh processes that run a case list of several devices against JAX's
records (fresh_process.as_the_suite_compiles: the sharding files' fixtures, test_distributed's
workers; a third less CPU where they compile much).
JXKERNEL_TEST_XLA_DEFAULT_CODE=1 runs the whole
suite at XLA's default code; the GPU tier always does (the GPU compiler has no such options).

The CPU device count is left alone: tests see the single-device default.
Multi-device tests run in a subprocess with JXKERNEL_CPU_DEVICES set (see
tests/xla/test_runtime_subprocess.py), because the count is fixed at first use.
"""
import gc
import os
import shutil
import sys
import tempfile

import pytest

# jsonschema (test_labextension_protocol; `import nbformat` imports it, at collection) loads
# rfc3987_syntax for its "iri" formats, which builds a lark grammar: ~119,000 objects in each
# worker (of 604,000 once it has collected the suite), visited by every later full garbage
# collection and heap walk, and ~1 s of CPU. No test process checks a format (no
# FormatChecker): without the module, jsonschema leaves those two formats unchecked.
sys.modules.setdefault("rfc3987_syntax", None)
# The processes the suite starts (kernels, Jupyter servers, JupyterHub, scripts) do the same via
# tests/support/subprocess_site/sitecustomize.py, first on their PYTHONPATH: 1.7 s of each Jupyter
# server's and plotly-showing kernel's start (test_workshop 59 -> 52 s of CPU, kernels included)
_SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "support", "subprocess_site")
if _SITE not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (_SITE, os.environ.get("PYTHONPATH")) if p)

# IPython's tracebacks in the test processes colour their frames with one pygments lexer class,
# not a new one (whose ~2,500 regular expressions pygments compiles) for each frame: the same
# text and colours (tests/support/stack_data_lexer.py)
import stack_data_lexer  # noqa: E402  (tests/support)
stack_data_lexer.install()

_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID")
_CACHE_DIR = os.path.join(tempfile.gettempdir(), f"jxkernel-test-cache-{_RUN}") if _RUN \
    else tempfile.mkdtemp(prefix="jxkernel-test-cache-")
os.makedirs(_CACHE_DIR, exist_ok=True)
# each process marks itself as a user of the folder; the last one to finish removes it
_MARK = os.path.join(_CACHE_DIR, f"in-use-{os.getpid()}")
open(_MARK, "w").close()
os.environ["JXKERNEL_COMPILATION_CACHE_DIR"] = _CACHE_DIR
os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")
os.environ.setdefault("JXKERNEL_MEMORY_CACHE_SIZE", "2048")            # (see above)
os.environ.setdefault("JAX_TRACEBACK_FILTERING", "off")            # (see above)
if "jxkernel.config" in sys.modules:          # imported early (e.g. by a plugin): update it too
    _config = sys.modules["jxkernel.config"]
    _config.config.update("jax_compilation_cache_dir", _CACHE_DIR)
    _config.config.update("jax_disable_most_optimizations",
                          _config._parse_bool(os.environ["JAX_DISABLE_MOST_OPTIMIZATIONS"]))
    _config.config.update("jax_traceback_filtering", os.environ["JAX_TRACEBACK_FILTERING"])
if "jxkernel.xla.memory" in sys.modules:
    sys.modules["jxkernel.xla.memory"].set_memory_cache_size(
        int(os.environ["JXKERNEL_MEMORY_CACHE_SIZE"]))
if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:    # (see above)
    from jxkernel.config import config as _jx_config
    _jx_config.update("jax_persistent_cache_min_compile_time_secs", float("inf"))


def pytest_addoption(parser):
    import compile_count          # tests/support: `pytest --count-compiles` (issue 45)
    compile_count.add_options(parser)
    parser.addoption("--backend", choices=("xla", "numpy"), default=None,
                     help="run the tests on this backend: numpy is the NumPy backend (as "
                          "JAX_PLATFORMS=numpy); xla (the default) XLA's, as jaxlib gives it")


def pytest_configure(config):
    import compile_count
    compile_count.configure(config)
    import config_leaks         # a test leaving jxkernel's config changed fails, named
    config.pluginmanager.register(config_leaks, "config_leaks")
    import bugs_met             # a test during which jxkernel told a bug of its own fails
    config.pluginmanager.register(bugs_met, "bugs_met")
    config.addinivalue_line(
        "markers", "cpu_only(reason): the test's expectation holds on the CPU only; the GPU tier "
                   "(scripts/test_gpu.sh) skips it. The reason is one of tests/support/"
                   "gpu_tier.py's REASONS.")
    config.addinivalue_line(
        "markers", "xla_only(reason): the test's expectation holds on XLA only (its text, "
                   "several devices, its compiler); `--backend numpy` skips it. The reason is "
                   "one of tests/support/backend_tier.py's REASONS.")
    config.addinivalue_line(
        "markers", "after(*names): the test goes on from the state the named tests above it "
                   "left on a shared page; run without them, it has them run first "
                   "(tests/support/page_story.py).")
    if config.getoption("backend") == "numpy":      # before any test runs a program
        os.environ["JAX_PLATFORMS"] = "numpy"       # (and the processes tests start)
        from jxkernel.config import config as jx_config
        jx_config.update("jax_platforms", "numpy")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """No garbage is collected while pytest collects: a process collecting the whole suite
    keeps ~570,000 objects to the end, and CPython's automatic full collections walked them
    again and again (30 of them, 5.6 of 16 s of CPU per process, stop 89's measure). One
    collection at the end; tests run with the collector as usual. (Freezing that heap as well,
    `gc.freeze`, saved more, but hides it from `gc.get_referrers`, which checking_leaks and
    the live-array tests read: not done.)"""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()
        gc.collect()


def pytest_sessionfinish(session, exitstatus):
    try:
        os.remove(_MARK)
        if not any(name.startswith("in-use-") for name in os.listdir(_CACHE_DIR)):
            shutil.rmtree(_CACHE_DIR, ignore_errors=True)
    except OSError:
        pass


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """An xdist worker leaves at once: its results went to the controller with
    `workerfinished` (in pytest_sessionfinish), and what remains is one more full garbage
    collection and finalizing a heap of thousands of executables. That took 8 to 11 s at the
    end of each whole-suite run, while the controller waited for the worker to exit."""
    if hasattr(config, "workerinput"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist worksteal, cutting between test files (tests/support/module_steal.py)."""
    import xdist
    # it reuses worksteal's internals as of xdist 3.8 (node2pending, send_steal, MIN_PENDING):
    # another version schedules with its own worksteal rather than risk a broken run
    if config.getvalue("dist") != "worksteal" or not xdist.__version__.startswith("3.8."):
        return None
    import module_steal
    return module_steal.ModuleStealScheduling(config, log)


# Test files whose checks walk the whole Python heap go first of all: gc.collect() before
# counting what was freed, gc.get_referrers() under jax.checking_leaks and in the tracer errors,
# gc.get_objects() in live_arrays. A walk costs in proportion to what the process holds: an
# xdist worker starts with the whole suite collected (604,000 objects, a full collection 0.3 s
# of CPU) and every test file adds its caches (+400,000 after five large files: 1-2 s). One
# process that collected the whole suite ran these 8 files in 27 s of CPU first, in 92 s after
# five large files (whose own CPU grew 1.8x with the machine's load: 51 s at the same speed).
# Worksteal's first split gives the head of the list to one worker, which runs them first.
_HEAP_WALKERS_FIRST = (
    "test_tracer_origin.py", "test_runtime_state.py", "test_numpy_memory_stats.py",
    "test_jax_tests_gaps.py", "test_runtime_cache.py", "test_memory.py",
    "test_runtime_execute.py", "test_api_file_gaps.py",
)
# Single tests of other files that collect garbage whole (two or three gc.collect() each), with
# them: stop 79's clone ran test_dispatch's six reference-cycle tests in 1.1-1.2 s each
_HEAP_WALKING_TESTS = (
    "test_dispatch.py::test_running_leaves_no_reference_cycles",
    "test_dispatch.py::test_an_entry_the_jit_cache_drops_is_freed_by_reference_counting",
    "test_jit.py::test_a_function_keeps_a_bounded_amount_of_constants_on_device",
    "test_closed_over_constants.py::test_the_array_is_not_kept_once_the_trace_is_done",
    "test_outside_values.py::test_a_function_followed_is_let_go_when_dropped",
    "test_lru.py::test_weak_lru_entries_go_with_their_first_key_element",
    "test_refs.py::test_a_jit_with_ref_arguments_leaks_no_tracer",
)

# The longest tests (pytest prints the 20 slowest at the end of each run) go first. xdist's
# worksteal hands each worker a run of the list and lets an idle worker take half of another's
# pending tests; a test already running cannot be taken, so a 40-second test near the end
# leaves the other worker idle for up to 40 seconds. First, they overlap the many short ones.
_LONGEST_FIRST = (
    "test_conformance.py::test_every_program_does_what_known_failures_says",
    "test_scipy_stats.py::test_values_dtypes_and_weak_types_match_jax",
    # whole files, together: worksteal's first split gives them to one worker, where they
    # share one JupyterLab server and one Chromium (tests/labextension/conftest.py). Split,
    # they pass too (a test runs the earlier ones it goes on from: page_story), at the cost
    # of a second server and Chromium and of those tests run again
    "test_labextension_views_browser.py::",
    "test_labextension_browser.py::",
    "test_labextension_sharding_browser.py::",
    "test_labextension_error_card_browser.py::",
    "test_labextension_notes_browser.py::",
    "test_hub.py::",                 # a JupyterHub, two learners' servers, a hub restart
    "test_release.py::",             # builds the wheel, then a fresh venv runs the tour from it
    "test_scipy_linalg.py::",
    "test_scipy_special.py::test_values_and_derivatives_match_jax",
    "test_layers.py::test_every_module_imports_first",
    "test_scipy_stats.py::test_against_scipy",
    # the whole file: its other tests (vmap and jit, finite differences, random gamma's
    # gradient) compile igamma's programs the two cases compile; with the cases alone first,
    # the other worker compiled 70 of them again (stop 94's compile log). tests/lax, -n 2:
    # the file 314 -> 244 compiles, 8.5 -> 5.8 s of CPU
    "test_lax_special.py::",
    # the whole file (hyp2f1: ~10-15 s in each of test_every_case_matches_jax's two cases): its
    # owens_t and sph_harm_y tests read the float64 cases' values, computed once per process;
    # with the two cases alone first, another worker ran the rest and computed them again
    # (the fresh clone of stop 93: 24 s and 27 s, ~4 s of CPU each alone)
    "test_scipy_special_functions.py::",
)


@pytest.fixture(autouse=True, scope="session")
def _xla_loop_emitters():
    """The test processes' compiles use XLA CPU's loop emitters (see the module docstring)."""
    import compiled
    from jxkernel.xla import compiler
    previous = compiler.set_base_compiler_options(compiled.suite_compiler_options())
    yield
    compiler.set_base_compiler_options(previous)


@pytest.fixture
def xla_default_code():
    """XLA's default code for this test's compiles: its subject is what XLA (so JAX) gives at
    the default, which the suite's loop emitters change (see the module docstring)."""
    import compiled
    with compiled.xla_default_code():
        yield


def _cpu_only(items):
    """Check every cpu_only marker's reason, and gpu_tier.CPU_ONLY_CASES' (each in a test file
    there is; tests/architecture checks each names a collected test); in the GPU tier, skip
    those tests with it."""
    import gpu_tier
    for nodeid, reason in gpu_tier.CPU_ONLY_CASES.items():
        gpu_tier.check_reason(reason, nodeid)
        path = os.path.join(os.path.dirname(__file__), os.pardir, nodeid.split("::")[0])
        if not os.path.exists(path):
            raise ValueError(f"gpu_tier.CPU_ONLY_CASES names {nodeid!r}: no such test file")
    for item in items:
        marker = item.get_closest_marker("cpu_only")
        reason = gpu_tier.CPU_ONLY_CASES.get(item.nodeid)
        if marker is None and reason is None:
            continue
        if reason is None:
            reason = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
        gpu_tier.check_reason(reason, item.nodeid)
        if gpu_tier.ON_GPU and reason not in gpu_tier.RUN_ANYWAY:
            item.add_marker(pytest.mark.skip(reason=f"CPU only: {reason}"))


@pytest.fixture
def on_the_cpu(request):
    """XLA's CPU as the default device in the GPU tier (gpu_tier.on_the_cpu), for a module
    whose subject is XLA's CPU: `pytestmark = pytest.mark.usefixtures("on_the_cpu")`. A test
    that asks for the NumPy backend (the `numpy_backend` fixture) keeps it."""
    import gpu_tier
    import jxkernel
    if "numpy_backend" in request.fixturenames:
        yield
        return
    with gpu_tier.on_the_cpu(jxkernel):
        yield


def _xla_only(items):
    """Check every xla_only marker's reason; on the NumPy backend, skip those tests with it."""
    import backend_tier
    numpy_backend = backend_tier.on_numpy_backend()
    for item in items:
        for marker in item.iter_markers("xla_only"):
            reason = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
            backend_tier.check_reason(reason, item.nodeid)
            if numpy_backend:
                item.add_marker(pytest.mark.skip(reason=f"XLA only: {reason}"))


def pytest_collection_modifyitems(items):
    _cpu_only(items)
    _xla_only(items)

    def rank(item):
        # the file's name and the test's (a parameter's id may hold a "/")
        path, _, test = item.nodeid.partition("::")
        file = path.rsplit("/", 1)[-1]
        name = f"{file}::{test}"
        if file in _HEAP_WALKERS_FIRST or name.startswith(_HEAP_WALKING_TESTS):
            return -1
        return next((i for i, prefix in enumerate(_LONGEST_FIRST) if name.startswith(prefix)),
                    len(_LONGEST_FIRST))
    items.sort(key=rank)       # stable: the rest keep pytest's order


_REAL_JAX_SEEN = []
_ALIAS_SEEN = []


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    """The suite never imports the real JAX (the [ecosystem] extra installs one beside us, and
    some jaxlib calls import it when they can: jxkernel.xla.client.real_jax_unimportable), nor
    makes `import jax` reach jxkernel in a test process: install_as_jax cannot be undone, and
    every later test of that worker ran under the alias, whose messages name `jax._src...`
    classes (tests/api/test_refs.py failed by test order after jxkernel/as_jax.py's docstring
    example installed it). The first test after which either holds fails, naming it."""
    alias = sys.modules.get("jxkernel.as_jax")     # (a test may have taken jxkernel out)
    if not _ALIAS_SEEN and alias is not None and alias.installed():
        _ALIAS_SEEN.append(item.nodeid)
        raise AssertionError(f"{item.nodeid} left jxkernel's `import jax` alias installed in "
                             f"the test process (install_as_jax): run code under it in a fresh "
                             f"interpreter (tests/jax_compat/test_as_jax.py's run)")
    if _REAL_JAX_SEEN or "jax" not in sys.modules:
        return
    from jxkernel import as_jax
    real = as_jax._real_jax_modules()
    if real:
        _REAL_JAX_SEEN.append(item.nodeid)
        raise AssertionError(f"the real JAX was imported during {item.nodeid} ({real[:3]}, "
                             f"from {getattr(sys.modules.get(real[0]), '__file__', '?')})")
