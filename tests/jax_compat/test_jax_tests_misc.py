"""What JAX's smaller runtime and tooling test files (monitoring_test.py, lazy_loader_test.py
and the others added with them, conformance/jax_tests) found: `jax._src.monitoring` is
jxkernel's monitoring module, whose listener getters hand out copies, and
`jax._src.lazy_loader.attach` loads a package's submodules on first access; LAPACK's calls
carry JAX's batch-partitioning attributes (tests/data/jax_tests_misc_reference.json, recorded
by reference/make_jax_tests_misc_reference.py from tests/data/jax_tests_misc_cases.py)."""
import json
import sys
import types

import pytest

import jxkernel
import locations
from fresh_process import run_json  # tests/support: the repository's folders
from jax_tests_misc_cases import LINALG, jax_to_ir, linalg_partitioning, lstm  # tests/data
import numpy as np

from jxkernel._jax._src import lazy_loader
from jxkernel._jax._src import monitoring as src_monitoring
from jxkernel.core import monitoring
from jxkernel.core.dtypes import MISSING_NARROW_NAMES

# JAX 0.10.2 answered with int1 and uint1, which ml_dtypes has from 0.6 on (0.5 is inside
# pyproject's range: jxkernel then leaves them out)
NEEDS_INT1 = pytest.mark.skipif(bool(MISSING_NARROW_NAMES),
                                reason="ml_dtypes before 0.6 has no int1, uint1")


def test_private_monitoring_is_the_public_one():
    # JAX's monitoring_test registers through jax.monitoring and reads jax._src.monitoring
    assert src_monitoring is monitoring


@pytest.mark.parametrize("register, get, unregister", [
    (monitoring.register_event_listener, monitoring.get_event_listeners,
     monitoring.unregister_event_listener),
    (monitoring.register_event_duration_secs_listener, monitoring.get_event_duration_listeners,
     monitoring.unregister_event_duration_listener)])
def test_listener_getters_hand_out_copies(register, get, unregister):
    def callback(*args, **kwargs):
        return None
    before = get()
    before.append(callback)                  # a copy: the registry does not change
    assert callback not in get()
    register(callback)
    assert callback in get()
    unregister(callback)
    assert callback not in get()
    with pytest.raises(AssertionError):      # JAX's error for a listener never registered
        unregister(callback)


def test_attach_loads_a_submodule_on_first_access(tmp_path, monkeypatch):
    package = tmp_path / "jxk_lazy_pkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from jxkernel._jax._src import lazy_loader\n"
        "__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, ['sub'])\n")
    (package / "sub.py").write_text("def answer():\n    return 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import jxk_lazy_pkg
    try:
        assert jxk_lazy_pkg.__all__ == ["sub"] and dir(jxk_lazy_pkg) == ["sub"]
        assert "jxk_lazy_pkg.sub" not in sys.modules
        assert jxk_lazy_pkg.sub.answer() == 42
        assert isinstance(sys.modules["jxk_lazy_pkg.sub"], types.ModuleType)
        with pytest.raises(AttributeError, match="no attribute 'other'"):
            jxk_lazy_pkg.other
    finally:
        for name in ("jxk_lazy_pkg", "jxk_lazy_pkg.sub"):
            sys.modules.pop(name, None)


def test_attach_doctest_names():
    get, names, all_ = lazy_loader.attach("jxkernel.numpy", ["fft"])
    assert all_ == ["fft"] and names() == ["fft"] and get("fft").__name__ == "jxkernel.numpy.fft"


JAX = locations.jax_answers("jax_tests_misc_reference.json")


@pytest.fixture(scope="module")
def partitioning():
    return linalg_partitioning(jxkernel)


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("case", [name for name, _, _ in LINALG])
def test_lapack_calls_mark_their_batch_as_jax(partitioning, case):
    # linalg_sharding_test.py: a batch sharded across devices stays so through eigh, lu, ...
    # (no all-gather): XLA and Shardy split a call along the dimensions it says are a batch
    assert partitioning[case] == JAX["linalg_partitioning"][case]


def test_runtime_environment_is_pytest_outside_bazel(monkeypatch):
    # documentation_coverage_test.py's setUp asks it (Bazel has no docs/*.rst to read)
    from jxkernel._jax._src import test_util as jtu
    assert jtu.runtime_environment() == "pytest"
    monkeypatch.setattr(sys, "executable", "/x/bazel-out/k8-opt/bin/python3")
    assert jtu.runtime_environment() == "bazel"
    monkeypatch.setattr(sys, "executable", None)
    assert jtu.runtime_environment() is None


@NEEDS_INT1
@pytest.mark.xla_only("XLA text")
def test_jax_to_ir_as_jax():
    # jax_to_ir_test.py: XLA's shape strings, the HLO's parameters in the order given and the
    # constants folded, JAX's errors for a bad shape and for an argument given twice
    assert json.loads(json.dumps(jax_to_ir(jxkernel))) == JAX["jax_to_ir"]


def test_lstm_as_jax():
    # experimental_rnn_test.py: cuDNN's packed layout and the reference LSTM (lstm_ref)
    ours, jax = lstm(jxkernel), JAX["lstm"]
    assert ours["count"] == jax["count"] and ours["shapes"] == jax["shapes"]
    # the weights are jax.random.uniform's: the same bits
    assert ours["weights"] == jax["weights"] and ours["swapped"] == jax["swapped"]
    for name in ("y", "h_n", "c_n"):
        # float32 matrix products, sigmoid and tanh over 4 steps: within 64 ulp of JAX's
        np.testing.assert_allclose(ours[name], jax[name], rtol=64 * 2.0 ** -23, atol=1e-6)


_SHARDED_EIGH = r"""
import json
import numpy as np
import jxkernel as jax
from jxkernel.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2,), ("x",))
x = jax.device_put(np.eye(6, dtype=np.float32) * np.arange(1, 9, dtype=np.float32)[:, None, None],
                   NamedSharding(mesh, P("x")))
compiled = jax.jit(jax.lax.linalg.eigh).lower(x).compile()
v, w = compiled(x)
print(json.dumps({"all_gather": "all-gather" in compiled.as_text(),
                  "batch": [a.sharding.spec[0] for a in (v, w)],
                  "w": np.asarray(w)[:, 0].tolist()}))
"""


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("sharded arrays")
def test_sharded_batch_stays_sharded_through_lapack():
    # linalg_sharding_test.py: each device runs LAPACK on its half of the batch, no all-gather
    got = run_json(_SHARDED_EIGH, {"JXKERNEL_CPU_DEVICES": "2"}, timeout=300)
    # (JAX's results print their specs as P('x', None, None) and P('x', None): the same layout)
    assert got == {"all_gather": False, "batch": ["x", "x"],
                   "w": [float(i) for i in range(1, 9)]}
