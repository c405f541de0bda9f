"""What JAX's aot_test.py, key_reuse_test.py and python_callback_test.py found (conformance/
jax_tests), against JAX 0.10.2's answers (tests/data/jax_tests_aot_reference.json, recorded by
reference/make_jax_tests_aot_reference.py): a failing host callback logs JAX's ERROR line with
its traceback, io_callback has JAX's IO effects and they refuse vmap of cond, vmap of a while
loop with a batched predicate and grad of a checkpoint as JAX does; as_text("hlo",
debug_info=True) puts metadata on each op; jax.export writes the calling convention version
`jax_export_calling_convention_version` asks for; on 2 devices, a host callback in a jit
partitioned over a mesh runs once, on one device (JAX's maximal shardings), and a shard_map
over one device's mesh is lowered in place, with no manual computation. The key-reuse table is tested in
tests/random/test_key_reuse.py, topologies by its docstring examples."""
import json

import pytest
from fresh_process import run_json

import jxkernel
from jxkernel._jax._src import dispatch

from jax_tests_aot_cases import run       # tests/data, on pytest's pythonpath
import backend_tier  # tests/support: which backend this run's programs run on
import locations  # tests/support: the repository's folders


JAX = locations.recorded("jax_tests_aot_reference.json")

_ON_DEVICES = r"""
import json
import jxkernel as jax
import jax_tests_aot_cases
print(json.dumps(jax_tests_aot_cases.run_devices(jax)))
"""


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("case", sorted(JAX["logs"]))
def test_a_failing_callback_logs_jaxs_error_line(ours, case):
    assert ours["logs"][case] == JAX["logs"][case]


def test_io_callback_effects(ours):
    assert ours["effects"] == JAX["effects"]


@pytest.mark.parametrize("case", sorted(JAX["errors"]))
def test_what_io_effects_refuse(ours, case):
    if case == "grad of checkpoint":       # JAX's message ends in its effects' object reprs
        want_type, want = JAX["errors"][case]
        assert ours["errors"][case][0] == want_type
        assert ours["errors"][case][1].split(": [")[0] == want.split(": [")[0]
        assert ours["errors"][case][1].endswith(": [IO]")
    else:
        assert ours["errors"][case] == JAX["errors"][case]


def test_hlo_text_and_its_debug_info(ours):
    assert ours["hlo"] == JAX["hlo"]


def test_runtime_tokens_stay_empty():
    # JAX's tests clear dispatch.runtime_tokens after each test; no jxkernel call leaves one
    jxkernel.jit(lambda x: jxkernel.debug.print("{}", x, ordered=True))(1.)
    assert dispatch.runtime_tokens.current_tokens == {}
    dispatch.runtime_tokens.block_until_ready()
    assert dispatch.runtime_tokens.output_runtime_tokens == {}


def test_parameterized_filterable_names_cases_as_jax():
    # JAX 0.10.2's ids in its own run of aot_test.py (.jaxtests/results/jax/aot_test.jsonl):
    # test_with_constants_enable_x64_compile_False_exec_False_lower_False_use_np_False
    from absl.testing import parameterized
    from jxkernel._jax._src.test_util import parameterized_filterable

    class Case(parameterized.TestCase):
        @parameterized_filterable(kwargs=[dict(use_np=u, lower=True) for u in (False, True)])
        def test_f(self, *, use_np, lower):
            pass

        @parameterized_filterable(kwargs=[dict(x=1), dict(x=2)], one_containing="x_2")
        def test_g(self, *, x):
            pass
    names = sorted(n for n in dir(Case) if n.startswith("test_"))
    assert names == ["test_f_lower_True_use_np_False", "test_f_lower_True_use_np_True", "test_g"]


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("XLA text")
def test_host_callbacks_over_a_mesh_as_jax():
    mine = run_json(_ON_DEVICES, {"JXKERNEL_CPU_DEVICES": "2"}, timeout=300)
    assert mine == JAX["devices"]


@pytest.mark.xla_only("XLA text")     # jax.export's StableHLO: refused on the NumPy backend
def test_export_calling_convention_version_option(ours):
    # JAX's export_test runs every test under the newest version JAX supports, set by name
    assert ours["export calling convention"] == JAX["export calling convention"]


def test_gspmd_sharding_where_jaxs_tests_import_it():
    # export_test.py: `from jax._src.sharding_impls import GSPMDSharding`
    from jxkernel._jax._src.sharding_impls import GSPMDSharding
    from jxkernel.xla.sharding import GSPMDSharding as ours, replicated_hlo
    assert GSPMDSharding is ours
    gs = GSPMDSharding(jxkernel.devices(), replicated_hlo())
    assert gs.device_set == set(jxkernel.devices()) and gs.is_fully_replicated


def test_closed_over_arrays_are_written_into_the_module_as_jaxs(ours):
    # no const_args in the Lowered or the Compiled, the executable takes the arguments alone,
    # and a Compiled's first call is its one slow call (count_aot_jit_cpp_cache_miss). The
    # NumPy backend writes no module: there a closed-over array is a const_arg of both (the
    # executable still takes the arguments alone), the rest as JAX's
    want = JAX["constants"]
    if backend_tier.on_numpy_backend():
        closed_over = {"array": 1, "numpy float64, an unused argument": 1, "none": 0}
        want = {name: {**case, "lowered const_args": closed_over[name],
                       "compiled const_args": closed_over[name]} for name, case in want.items()}
    assert ours["constants"] == want
