"""What jxkernel/xla relies on jaxlib for, one fact per test (docs/jaxlib.md has the prose).

When a jaxlib upgrade breaks one of these, the test's name says which fact changed, and the
section of docs/jaxlib.md named in the comment above it says which code in jxkernel/xla
depends on it. Three files: this one (§1 arrays, §2 execution, §5 donation, §6 introspection,
§8 pytrees, §9 plugins, and the helpers the other two import), test_jaxlib_stablehlo.py (§3
the text XLA accepts, §7 host callbacks) and test_jaxlib_multidevice.py (§4, in a process
with four CPU devices).

The tests reach jaxlib only through the handle jxkernel uses (`jxkernel.xla.client.xc`, and
`compiler._parse_ir` for MLIR objects): the jaxlib import statement stays inside jxkernel/xla.
Left out on purpose, because they kill the process (docs/jaxlib.md §10): a LAPACK custom call
before `_lapack.initialize()`, a host-callback custom call compiled without its callbacks
(both segfault), and many unblocked collective launches (a deadlock, then an abort).
No timings either: those belong in benchmarks/.
"""
import functools
import os
import pickle
import re
import threading

import numpy as np
import pytest

from jxkernel.core import dtypes
from jxkernel.core.avals import ShapedArray
from jxkernel.xla import client, compiler, gpu_solver
from jxkernel.xla import executable as xla_executable
from jxkernel.xla import pytree as jxpytree
from jxkernel.xla.client import JaxRuntimeError, get_backend, xc
import backend_tier  # tests/support
import locations  # tests/support: the repository's folders

# jaxlib's own facts, asked of XLA's CPU client: on the NumPy backend (no XLA backend there) the
# module still imports, and every test skips (test_jaxlib_stablehlo.py, which imports these, too)
pytestmark = pytest.mark.xla_only("XLA compiler")
ROOT = locations.ROOT
if backend_tier.on_numpy_backend():
    CLIENT = DEVICE = DEVICES = SHARDING = None
else:
    CLIENT = get_backend("cpu").client
    DEVICE = CLIENT.local_devices()[0]
    DEVICES = xc.DeviceList((DEVICE,))
    SHARDING = xc.GSPMDSharding(DEVICES, xc.HloSharding.replicate())   # as array.sharding_for
COPY = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL


def put(value, aval=None, *, x64=True, semantics=COPY):
    """batched_device_put exactly as array.host_to_device calls it."""
    value = np.asarray(value)
    aval = aval if aval is not None else ShapedArray(value.shape, value.dtype)
    return xc.batched_device_put(aval, SHARDING, [value], [DEVICE], True, False, semantics, x64)


@pytest.fixture(autouse=True)
def _no_real_jax():
    """These are facts of jaxlib without JAX: some of its calls import a real JAX installed
    beside us (the [ecosystem] extra brings one), and that import changes jaxlib's state."""
    with client.real_jax_unimportable():
        yield


def host(buf) -> np.ndarray:
    """A buffer's data with its real dtype (the buffer protocol refuses bfloat16)."""
    with client.real_jax_unimportable():     # also for module-scoped fixtures' calls
        return buf._single_device_array_to_np_array_did_copy()[0]


def handler(shape, dtype):
    return xla_executable._result_handler(ShapedArray(shape, dtype), SHARDING)


@functools.cache
def executable(text):
    """Each program is compiled once per test run (a compile costs 50-100 ms here)."""
    return CLIENT.compile_and_load(text, DEVICES, compiler._compile_options([DEVICE]))


def run(text, args, out_types):
    """Compile (once), run on host values, return NumPy results."""
    outs = executable(text).execute_sharded([put(a) for a in args]).consume_with_handlers(
        [handler(s, d) for s, d in out_types])
    return [host(o) for o in outs]


def compile_error(text) -> str:
    with pytest.raises(JaxRuntimeError) as info:
        CLIENT.compile_and_load(text, DEVICES, xc.CompileOptions())
    return str(info.value)


def main(signature, body):
    """A module `t` whose entry function `main` has `signature` and `body`."""
    return f"module @t {{\n  func.func public @main{signature} {{\n{body}\n  }}\n}}\n"


ADD_ONE = main("(%x: tensor<f32>) -> tensor<f32>", """\
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %0 = stablehlo.add %x, %c : tensor<f32>
    return %0 : tensor<f32>""")


def test_jaxlib_is_the_version_these_facts_were_verified_on():
    """docs/jaxlib.md is about jaxlib 0.10.2, the version pyproject.toml pins."""
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        pin = re.search(r'"jaxlib==([^";]+)', f.read()).group(1)   # (its marker after ;)
    assert compiler._jaxlib_version == pin == "0.10.2"


# ------------------------------------------------------------ §1 arrays and transfer
@pytest.mark.parametrize("dtype", [
    dtypes.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, dtypes.bfloat16, np.float16, np.float32, np.float64, np.complex64,
    np.complex128], ids=lambda d: np.dtype(d).name)
def test_put_with_x64_keeps_every_dtype_and_value(dtype):
    value = (np.arange(6).reshape(2, 3) - 2).astype(dtype)
    back = host(put(value))
    assert back.dtype == value.dtype and back.shape == (2, 3)
    assert np.array_equal(back.astype(np.complex128), value.astype(np.complex128))


def test_put_without_x64_narrows_64_bit_data_to_32_bits():
    narrowed = {np.dtype(d).name: host(put(np.ones(2, d), x64=False)).dtype.name
                for d in (np.float64, np.int64, np.uint64, np.complex128)}
    assert narrowed == {"float64": "float32", "int64": "int32", "uint64": "uint32",
                        "complex128": "complex64"}


def test_put_takes_the_dtype_from_the_data_and_keeps_the_aval_object():
    """So host_to_device must convert the data to the aval's dtype itself."""
    aval = ShapedArray((3,), np.float32)
    buf = put(np.ones(3, np.int32), aval)
    assert host(buf).dtype == np.int32
    assert buf.aval is aval


def test_put_needs_enable_x64_given_explicitly():
    with pytest.raises(RuntimeError, match="enable_x64_state is not set"):
        xc.batched_device_put(ShapedArray((2,), np.float32), SHARDING,
                              [np.ones(2, np.float32)], [DEVICE])


def test_avals_need_shape_dtype_and_weak_type():
    class NoWeakType:
        shape, dtype = (3,), np.dtype(np.float32)
    with pytest.raises(AttributeError, match="weak_type"):
        put(np.ones(3, np.float32), NoWeakType())


def test_single_device_sharding_needs_a_python_hook_but_gspmd_sharding_does_not():
    with pytest.raises(AttributeError, match="_to_xla_hlo_sharding"):
        xc.batched_device_put(ShapedArray((2,), np.float32), xc.SingleDeviceSharding(DEVICE),
                              [np.ones(2, np.float32)], [DEVICE], True, False, COPY, True)
    assert host(put(np.ones(2, np.float32))).tolist() == [1.0, 1.0]      # GSPMDSharding


def test_array_impl_needs_skip_checks_and_then_rewraps_a_buffer_with_a_new_aval():
    buf = put(np.arange(3, dtype=np.float32))
    weak = ShapedArray((3,), np.float32, True)
    with pytest.raises(AttributeError, match="_check_and_rearrange"):
        xc.ArrayImpl(weak, SHARDING, [buf], committed=True)
    again = xc.ArrayImpl(weak, SHARDING, [buf], committed=True, _skip_checks=True)
    assert again.aval is weak and again._committed
    assert again.unsafe_buffer_pointer() == buf.unsafe_buffer_pointer()    # no copy


def test_result_handler_without_skip_checks_fails_when_used():
    """xla_executable._result_handler passes _skip_checks (and drops it for jaxlib >= 0.11)."""
    bare = xc.array_result_handler(ShapedArray((), np.float32), SHARDING, True)
    results = executable(ADD_ONE).execute_sharded([put(np.float32(1))])
    with pytest.raises(AttributeError, match="_check_and_rearrange"):
        results.consume_with_handlers([bare])


def test_array_impl_cannot_be_subclassed_and_has_no_numpy_attributes():
    """Why jxkernel's Array wraps a buffer instead of being one."""
    with pytest.raises(TypeError, match="not an acceptable base type"):
        type("Sub", (xc.ArrayImpl,), {})
    buf = put(np.ones(2, np.float32))
    assert not any(hasattr(buf, name) for name in ("shape", "dtype", "__array__"))


def test_array_impl_attributes_jxkernel_reads():
    buf = put(np.arange(4, dtype=np.int32))
    devices = buf._sharding._devices
    assert isinstance(devices, xc.DeviceList) and devices[0] == DEVICE
    assert tuple(devices) == (DEVICE,) and buf._sharding == SHARDING     # a dispatch key
    assert buf._committed is True
    assert [host(b).tolist() for b in buf._arrays] == [[0, 1, 2, 3]]
    buf.block_until_ready()
    assert buf.is_ready() and isinstance(buf.unsafe_buffer_pointer(), int)
    assert not buf.is_deleted()
    buf.delete()
    assert buf.is_deleted()


def test_buffer_protocol_is_a_read_only_zero_copy_view():
    buf = put(np.arange(3, dtype=np.float32))
    view = np.asarray(memoryview(buf))
    assert view.tolist() == [0.0, 1.0, 2.0] and not view.flags.writeable
    assert view.ctypes.data == buf.unsafe_buffer_pointer()
    assert buf._single_device_array_to_np_array_did_copy()[1] is False


def test_buffer_protocol_refuses_bfloat16_where_np_asarray_gives_objects():
    buf = put(np.ones(2, dtypes.bfloat16))
    with pytest.raises(BufferError, match="BF16"):
        memoryview(buf)
    assert np.asarray(buf).dtype == object                  # silently wrong
    assert host(buf).dtype == dtypes.bfloat16


def test_a_deleted_buffer_reads_as_an_object_array_with_np_asarray():
    buf = put(np.ones(2, np.float32))
    buf.delete()
    assert np.asarray(buf).dtype == object                  # no error: Array checks first
    with pytest.raises(BufferError):
        memoryview(buf)
    with pytest.raises(JaxRuntimeError, match="deleted or donated"):
        host(buf)


def _at_offset(offset, n=16):
    """A float32 NumPy array whose data starts `offset` bytes after a 64-byte boundary."""
    raw = np.empty(n * 4 + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    return raw[start:start + n * 4].view(np.float32)


@pytest.mark.parametrize("offset, semantics, aliased", [
    (0, "ZERO_COPY", True), (4, "ZERO_COPY", False),
    (0, "IMMUTABLE_ONLY_DURING_CALL", False), (0, "IMMUTABLE_UNTIL_TRANSFER_COMPLETES", False)])
def test_zero_copy_put_aliases_64_byte_aligned_host_memory(offset, semantics, aliased):
    """Why host_to_device copies (IMMUTABLE_ONLY_DURING_CALL): arrays must stay immutable."""
    data = _at_offset(offset)
    data[:] = 0
    buf = put(data, semantics=getattr(xc.HostBufferSemantics, semantics))
    buf.block_until_ready()
    data[0] = 42
    assert bool(host(buf)[0] == 42) is aliased


def test_copy_to_devices_makes_a_new_buffer():
    """array._copy_buffer (Array.copy; device to device: the four-device tests below)."""
    buf = put(np.arange(3, dtype=np.float32))
    (copy,) = xc.batched_copy_array_to_devices_with_sharding(
        [buf], [SHARDING._devices], [SHARDING], [xc.ArrayCopySemantics.ALWAYS_COPY])
    assert isinstance(copy, xc.ArrayImpl) and copy.aval is buf.aval
    assert copy.unsafe_buffer_pointer() != buf.unsafe_buffer_pointer()
    assert host(copy).tolist() == [0.0, 1.0, 2.0]


# ------------------------------------------------------------ §2 execution
def test_execute_with_result_handlers_gives_buffers_carrying_our_avals():
    aval = ShapedArray((), np.float32, True)
    out, = executable(ADD_ONE).execute_sharded([put(np.float32(1))]).consume_with_handlers(
        [xla_executable._result_handler(aval, SHARDING)])
    assert type(out) is xc.ArrayImpl and out.aval is aval and host(out) == 2.0


def test_results_feed_the_next_execution_directly():
    exe = executable(ADD_ONE)
    hd = handler((), np.float32)
    x = put(np.float32(0))
    for _ in range(3):
        x, = exe.execute_sharded([x]).consume_with_handlers([hd])
    assert host(x) == 3.0


def test_arguments_are_checked_by_byte_size_only():
    """Why Executable._check_type compares types in Python."""
    hd = handler((), np.float32)
    exe = executable(ADD_ONE)
    as_int, = exe.execute_sharded([put(np.int32(0x3F800000))]).consume_with_handlers([hd])
    assert host(as_int) == 2.0                               # the bits of 1.0f, plus one
    one_element, = exe.execute_sharded([put(np.ones(1, np.float32))]).consume_with_handlers([hd])
    assert host(one_element) == 2.0                          # f32[1] taken for f32[]


def test_wrong_byte_size_is_a_runtime_program_input_mismatch():
    with pytest.raises(JaxRuntimeError, match=r"(?s)INVALID_ARGUMENT: E0102: "
                                              r"RuntimeProgramInputMismatch.*f32\[4\]"):
        executable(ADD_ONE).execute_sharded([put(np.ones(4, np.float32))])


def test_wrong_argument_count_is_invalid_argument():
    with pytest.raises(JaxRuntimeError, match="Execution supplied 0 arguments but compiled "
                                              "program expected 1"):
        executable(ADD_ONE).execute_sharded([])


def test_a_deleted_argument_has_zero_shards():
    buf = put(np.float32(1))
    buf.delete()
    with pytest.raises(JaxRuntimeError, match=r"to have 1 shards, got: \[0\]"):
        executable(ADD_ONE).execute_sharded([buf])


def test_host_data_is_not_an_argument():
    with pytest.raises(TypeError, match="execute_sharded\\(\\): incompatible function arguments"):
        executable(ADD_ONE).execute_sharded([np.float32(1)])


def test_jax_runtime_error_is_a_runtime_error():
    assert JaxRuntimeError is xc._xla.JaxRuntimeError and issubclass(JaxRuntimeError, RuntimeError)


def test_a_token_can_be_awaited_before_the_results_are_taken():
    """The order _WithHostCallbacks.execute_sharded uses."""
    results = executable(ADD_ONE).execute_sharded([put(np.float32(1))], with_tokens=True)
    token = results.consume_token()
    assert type(token).__name__ == "ShardedToken"
    token.block_until_ready()
    assert host(results.consume_with_handlers([handler((), np.float32)])[0]) == 2.0


# ------------------------------------------------------------ §5 donation
DONATING = main("(%x: tensor<1024xf32> {jax.buffer_donor = true}, %y: tensor<1024xf32>) "
                "-> tensor<1024xf32>", """\
    %0 = stablehlo.add %x, %y : tensor<1024xf32>
    return %0 : tensor<1024xf32>""")


def donate(x, y):
    return executable(DONATING).execute_sharded([x, y]).consume_with_handlers(
        [handler((1024,), np.float32)])[0]


def test_a_buffer_donor_is_aliased_to_an_output_and_deleted():
    x, y = put(np.ones(1024, np.float32)), put(np.ones(1024, np.float32))
    pointer = x.unsafe_buffer_pointer()
    out = donate(x, y)
    assert x.is_deleted() and not y.is_deleted()
    assert out.unsafe_buffer_pointer() == pointer
    assert host(out)[0] == 2.0
    assert "input_output_alias={ {}: (0, {}, may-alias) }" in executable(DONATING).get_hlo_text()
    assert executable(DONATING).get_compiled_memory_stats().alias_size_in_bytes == 4096


def test_a_donated_buffer_cannot_be_passed_again():
    x, y = put(np.ones(1024, np.float32)), put(np.ones(1024, np.float32))
    donate(x, y)
    with pytest.raises(JaxRuntimeError, match="Buffer has been deleted or donated"):
        donate(x, y)


def test_a_buffer_both_donated_and_read_in_one_call_is_refused():
    """Executable._execution_error explains this case in its own words."""
    x = put(np.ones(1024, np.float32))
    with pytest.raises(JaxRuntimeError, match="previously donated in the same call"):
        donate(x, x)
    assert not x.is_deleted()


def test_a_live_numpy_view_silently_prevents_the_donation():
    """Why Executable._finish deletes donated buffers XLA left alive."""
    x, y = put(np.ones(1024, np.float32)), put(np.ones(1024, np.float32))
    view = np.asarray(memoryview(x))
    donate(x, y).block_until_ready()
    assert not x.is_deleted() and view[0] == 1.0


def test_a_buffer_donor_without_a_matching_output_is_not_donated():
    text = main("(%x: tensor<8xf32> {jax.buffer_donor = true}) -> tensor<4xf32>", """\
    %0 = "stablehlo.slice"(%x) {start_indices = array<i64: 0>, limit_indices = array<i64: 4>, strides = array<i64: 1>} : (tensor<8xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>""")
    x = put(np.ones(8, np.float32))
    executable(text).execute_sharded([x]).consume_with_handlers(
        [handler((4,), np.float32)])[0].block_until_ready()
    assert not x.is_deleted() and "input_output_alias" not in executable(text).get_hlo_text()


# ------------------------------------------------------------ §6 introspection, the disk cache
LOCATED = main("(%x: tensor<3xf32>) -> tensor<3xf32>", """\
    %0 = stablehlo.sine %x : tensor<3xf32> loc("model.py":12:0)
    %1 = stablehlo.cosine %0 : tensor<3xf32> loc("jit(f)/cos"("model.py":13:2))
    return %1 : tensor<3xf32>""")


def test_locations_become_metadata_in_the_optimized_hlo():
    """What LoweringRuleContext.loc would print (stablehlo.Module(locations=True))."""
    hlo = executable(LOCATED).get_hlo_text()
    assert hlo.startswith("HloModule t") and "ENTRY" in hlo and "fusion" in hlo
    sine = next(line for line in hlo.splitlines() if " sine(" in line)
    assert 'source_file="model.py" source_line=12' in sine
    cosine = next(line for line in hlo.splitlines() if " cosine(" in line)
    assert 'op_name="jit(f)/cos"' in cosine


def test_cost_analysis_is_a_dict_of_xla_counts():
    costs = executable(ADD_ONE).cost_analysis()
    assert isinstance(costs, dict) and costs["flops"] == 1.0
    assert {"bytes accessed", "bytes accessed0{}", "bytes accessedout{}"} <= set(costs)
    assert "transcendentals" not in costs                                   # absent when zero
    assert executable(LOCATED).cost_analysis()["transcendentals"] == 6.0    # sine, cosine


def test_compiled_memory_stats():
    stats = executable(LOCATED).get_compiled_memory_stats()
    assert stats.argument_size_in_bytes == 12 and stats.output_size_in_bytes == 12
    assert stats.alias_size_in_bytes == 0
    assert stats.temp_size_in_bytes >= 0 and stats.peak_memory_in_bytes >= 24


def test_a_serialized_executable_loads_back_and_runs():
    """disk_cache._disk_store / _disk_load."""
    blob = executable(ADD_ONE).serialize()
    assert isinstance(blob, bytes) and len(blob) > 1000
    loaded = CLIENT.deserialize_executable(blob, DEVICES, compiler._compile_options([DEVICE]))
    out, = loaded.execute_sharded([put(np.float32(41))]).consume_with_handlers(
        [handler((), np.float32)])
    assert host(out) == 42.0


def test_client_and_device_identity_for_cache_keys_and_device_checks():
    assert isinstance(DEVICE, xc.Device) and DEVICE.platform == "cpu" and DEVICE.id == 0
    assert isinstance(DEVICE.device_kind, str) and isinstance(CLIENT.platform_version, str)


# ------------------------------------------------------------ §8 threads, pytrees
def test_one_executable_runs_from_several_threads():
    exe, hd, errors = executable(ADD_ONE), handler((), np.float32), []

    def work(k):
        try:
            for _ in range(25):
                out, = exe.execute_sharded([put(np.float32(k))]).consume_with_handlers([hd])
                assert host(out) == k + 1
        except Exception as e:       # noqa: BLE001 (collected and reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_cpp_pytrees_flatten_and_unflatten_with_own_registries():
    pytree = xc._xla.pytree
    registry = pytree.PyTreeRegistry()
    leaves, treedef = registry.flatten({"b": [3, None], "a": (1, 2)})
    assert leaves == [1, 2, 3] and str(treedef) == "PyTreeDef({'a': (*, *), 'b': [*, None]})"
    assert treedef.unflatten([10, 20, 30]) == {"a": (10, 20), "b": [30, None]}
    assert treedef.num_leaves == 3
    paths = [path for path, _ in registry.flatten_with_path({"a": (1, 2)})[0]]
    assert paths == [(pytree.DictKey("a"), pytree.SequenceKey(0)),
                     (pytree.DictKey("a"), pytree.SequenceKey(1))]
    assert pytree.PyTreeRegistry(enable_none=False).flatten([None, 1])[0] == [None, 1]


def test_a_node_registered_in_one_registry_is_a_leaf_in_the_others():
    """Why jxkernel/xla/pytree.py never touches the default registry jax shares."""
    class Point:
        def __init__(self, x, y):
            self.x, self.y = x, y
    pytree = xc._xla.pytree
    registry = pytree.PyTreeRegistry()
    registry.register_node(Point, lambda p: ((p.x, p.y), None), lambda _, xy: Point(*xy))
    leaves, treedef = registry.flatten([Point(1, 2), 3])
    assert leaves == [1, 2, 3] and treedef.unflatten([4, 5, 6])[0].y == 5
    assert len(pytree.default_registry().flatten([Point(1, 2)])[0]) == 1


def test_treedef_operations_tree_util_builds_on():
    registry = jxpytree.default_registry
    _, treedef = registry.flatten({"a": (1, 2), "b": [3]})
    assert treedef.num_nodes == 6 and [str(c) for c in treedef.children()] == \
        ["PyTreeDef((*, *))", "PyTreeDef([*])"]
    assert treedef.flatten_up_to({"a": ([1], 2), "b": [3]}) == [[1], 2, 3]
    pair = registry.flatten((0, 0))[1]
    assert str(pair.compose(registry.flatten([0])[1])) == "PyTreeDef(([*], [*]))"
    assert str(jxpytree.treedef_tuple(registry, [pair, pair])) == "PyTreeDef(((*, *), (*, *)))"
    assert jxpytree.all_leaves(registry, [1, 2]) and not jxpytree.all_leaves(registry, [1, (2,)])
    assert registry.flatten_one_level({"a": 1, "b": 2}) == ((1, 2), ("a", "b"))
    assert [str(k) for k in (jxpytree.SequenceKey(0), jxpytree.DictKey("a"),
                             jxpytree.GetAttrKey("x"))] == ["[0]", "['a']", ".x"]


def test_a_treedef_pickles_its_registry_by_module_and_name():
    """Why jxkernel/xla/pytree.py names its registries."""
    treedef = jxpytree.default_registry.flatten({"a": (1, 2)})[1]
    blob = pickle.dumps(treedef)
    assert b"jxkernel.xla.pytree" in blob and b"default_registry" in blob
    assert pickle.loads(blob) == treedef


# ------------------------------------------------------------ §9 GPU and TPU plugins
def test_plugin_entry_points_exist_and_report_no_cuda_here():
    for name in ("load_pjrt_plugin_dynamically", "pjrt_plugin_loaded", "pjrt_plugin_initialized",
                 "initialize_pjrt_plugin", "make_c_api_client", "register_custom_call_handler",
                 "register_custom_call_target", "generate_pjrt_gpu_plugin_options"):
        assert callable(getattr(xc, name)), name
    options = xc.generate_pjrt_gpu_plugin_options()
    assert options["platform_name"] == "cuda" and "allocator" in options
    if client._cuda_plugin_library() is not None:
        pytest.skip("a CUDA plugin is installed here")
    assert xc.pjrt_plugin_loaded("cuda") is False
    assert gpu_solver.cusolver_version() is None           # jaxlib.plugin_support found none
    assert gpu_solver.ensure_registered() is False
