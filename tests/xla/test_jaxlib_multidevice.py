"""Several CPU devices (docs/jaxlib.md §4): the device count, device assignment, replicated
programs with collectives, multi-device buffers, copies between devices.

The CPU device count is fixed when the backend starts, so everything runs in one subprocess
with JXKERNEL_CPU_DEVICES=4 (test_runtime_subprocess.run_code). It prints one JSON object;
each test checks one entry of it. It never launches collective programs without waiting for
them: that deadlocks XLA:CPU and aborts the process (§4). See test_jaxlib_contract.py for the
rules these files follow.
"""
import json

import pytest

from fresh_process import run_code

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),     # the GPU tier skips this file (docs/gpu.md)
              pytest.mark.xla_only("several devices")]             # its process has four of XLA's CPU devices

FOUR_DEVICES = r'''
import json
import numpy as np
from jxkernel.core.avals import ShapedArray
from jxkernel.xla.client import JaxRuntimeError, get_backend, real_jax_unimportable, xc
# jaxlib's facts without JAX: some of its calls import a real JAX installed beside us
_no_real_jax = real_jax_unimportable()      # kept: the block lasts while it lives
_no_real_jax.__enter__()
client = get_backend("cpu").client
devs = client.local_devices()
COPY = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
facts = {}

def record(name):
    # One fact: what the function returns, or the exception it raised.
    def run(f):
        try:
            facts[name] = f()
        except Exception as e:
            facts[name] = f"raised {type(e).__name__}: {e}"
    return run

def error(f):
    try:
        f()
    except JaxRuntimeError as e:
        return str(e)
    return "no error"

def sharding(ds):
    return xc.GSPMDSharding(xc.DeviceList(tuple(ds)), xc.HloSharding.replicate())

def put(value, d):
    value = np.asarray(value)
    return xc.batched_device_put(ShapedArray(value.shape, value.dtype), sharding([d]), [value],
                                 [d], True, False, COPY, True)

def handler(shape, dtype, ds):
    return xc.array_result_handler(ShapedArray(shape, dtype), sharding(ds), True, _skip_checks=True)

def host(b):
    return b._single_device_array_to_np_array_did_copy()[0].tolist()

record("devices")(lambda: [d.id for d in devs])

DOUBLE = """module @double {
  func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %x, %x : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}"""

@record("unassigned")
def _():
    plain = client.compile_and_load(DOUBLE, xc.DeviceList((devs[1],)), xc.CompileOptions())
    return error(lambda: plain.execute_sharded([put(np.float32([1, 2]), devs[1])]))

@record("assigned")
def _():
    options = xc.CompileOptions()
    options.device_assignment = xc.DeviceAssignment.create(np.array([[1]], np.int32))
    assigned = client.compile_and_load(DOUBLE, xc.DeviceList((devs[1],)), options)
    out, = assigned.execute_sharded([put(np.float32([1, 2]), devs[1])]).consume_with_handlers(
        [handler((2,), np.float32, [devs[1]])])
    return [host(out), out._sharding._devices[0].id]

GROUP = "dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"
REPLICATED = """module @collectives attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<ui32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) {
    %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = GROUP} : (tensor<4xf32>) -> tensor<4xf32>
    %r = "stablehlo.reshape"(%x) : (tensor<4xf32>) -> tensor<1x4xf32>
    %1 = "stablehlo.all_gather"(%r) {all_gather_dim = 0 : i64, replica_groups = GROUP} : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %2 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %3 = "stablehlo.replica_id"() : () -> tensor<ui32>
    %4 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %5 = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = GROUP} : (tensor<4xf32>) -> tensor<4xf32>
    %6 = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = GROUP} : (tensor<4xf32>) -> tensor<1xf32>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<ui32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>
  }
}""".replace("GROUP", GROUP)
values = [np.arange(4, dtype=np.float32) + 4 * i for i in range(4)]   # device i: 4i .. 4i+3
aval = ShapedArray((4,), np.float32)
shards = [put(v, d) for v, d in zip(values, devs)]                    # as sharded.put
replicated = {}

@record("collectives")
def _():
    options = xc.CompileOptions()                             # as compiler._compile_options
    options.num_replicas, options.num_partitions = len(devs), 1
    options.device_assignment = xc.DeviceAssignment.create(
        np.array([[d.id] for d in devs], np.int32))
    replicated["exe"] = exe = client.compile_and_load(REPLICATED, xc.DeviceList(tuple(devs)),
                                                      options)
    arg = xc.ArrayImpl(aval, sharding(devs), shards, committed=True, _skip_checks=True)
    types = [((4,), np.float32), ((4, 4), np.float32), ((4,), np.float32), ((), np.uint32),
             ((4,), np.float32), ((4,), np.float32), ((1,), np.float32)]
    outs = exe.execute_sharded([arg]).consume_with_handlers(
        [handler(s, t, devs) for s, t in types])
    outs[0].block_until_ready()               # one launch in flight at a time (module doc)
    replicated["outs"] = outs
    return [[host(b) for b in o._arrays] for o in outs]

record("result_shards")(lambda: [[type(b._sharding).__name__, b._sharding._device.id, str(b.aval)]
                                 for b in replicated["outs"][0]._arrays])
record("one_shard_argument")(lambda: error(lambda: replicated["exe"].execute_sharded([shards[0]])))

@record("replicated_put")
def _():
    both = xc.batched_device_put(aval, sharding(devs), values, devs, True, False, COPY, True)
    return [host(b) for b in both._arrays]

@record("copied")
def _():
    copy, = xc.batched_copy_array_to_devices_with_sharding(
        [shards[0]], [xc.DeviceList((devs[2],))], [sharding([devs[2]])],
        [xc.ArrayCopySemantics.ALWAYS_COPY])
    return [copy._sharding._devices[0].id, host(copy)]

print(json.dumps(facts))
'''


@pytest.fixture(scope="module")
def four_devices():
    result = run_code(FOUR_DEVICES, {"JXKERNEL_CPU_DEVICES": "4", "TF_CPP_MIN_LOG_LEVEL": "0"})
    facts = json.loads(result.stdout.strip().splitlines()[-1])
    facts["stderr"] = result.stderr
    return facts


def test_the_cpu_client_makes_as_many_devices_as_asked(four_devices):
    assert four_devices["devices"] == [0, 1, 2, 3]


def test_client_start_logs_to_stderr_unless_tf_cpp_min_log_level_is_set(four_devices):
    """Why client.py sets TF_CPP_MIN_LOG_LEVEL=1 before importing jaxlib (the quiet default
    is checked by test_runtime_subprocess.py::test_start_up_is_quiet)."""
    assert "pjrt_client.cc" in four_devices["stderr"] and "device count" in four_devices["stderr"]


def test_without_a_device_assignment_a_program_runs_on_device_0(four_devices):
    """Why compiler._compile_options always names the devices."""
    assert "is on device cpu:1, but replica is assigned to device cpu:0" in \
        four_devices["unassigned"]
    assert four_devices["assigned"] == [[2.0, 4.0], 1]


def test_replicated_collectives_combine_the_devices_values(four_devices):
    total, gathered, permuted, replica, pair_max, swapped, scattered = \
        four_devices["collectives"]
    rows = [[4.0 * i + j for j in range(4)] for i in range(4)]         # device i's input
    assert total == [[24.0, 28.0, 32.0, 36.0]] * 4                     # psum
    assert gathered == [rows] * 4
    assert permuted == [rows[3], rows[0], rows[1], rows[2]]            # i receives from i-1
    assert replica == [0, 1, 2, 3]
    assert pair_max == [rows[1], rows[1], rows[3], rows[3]]            # groups [[0,1],[2,3]]
    assert swapped == [[rows[i][j] for i in range(4)] for j in range(4)]   # all_to_all
    assert scattered == [[24.0], [28.0], [32.0], [36.0]]               # reduce_scatter


def test_replicated_results_hold_one_buffer_per_device_in_order(four_devices):
    """The shards are jaxlib's own, with a SingleDeviceSharding (`_device`, no `_devices`)
    and no aval: why array._rewrap_buffer wraps one before it is used as an Array."""
    assert four_devices["result_shards"] == [["SingleDeviceSharding", i, "None"]
                                             for i in range(4)]


def test_a_one_device_argument_to_a_replicated_program_is_refused(four_devices):
    assert "to have 4 shards, got: [1]" in four_devices["one_shard_argument"]


def test_a_replicated_put_of_different_values_copies_the_first_everywhere(four_devices):
    """Why sharded.put puts each shard on its own device."""
    assert four_devices["replicated_put"] == [[0.0, 1.0, 2.0, 3.0]] * 4


def test_copies_move_between_devices(four_devices):
    assert four_devices["copied"] == [2, [0.0, 1.0, 2.0, 3.0]]
