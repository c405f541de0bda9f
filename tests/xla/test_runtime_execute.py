"""Compiling hand-written StableHLO and running it: results, caches, donation, async, errors."""
import time

import numpy as np
import pytest

from jxkernel.core.avals import ShapedArray
from jxkernel.xla import (Array, CompileError, Executable, compile_module,
                          default_device, device_put)
from jxkernel.xla import client
from jxkernel.xla.compiler import ExecutionError
from numerics import ELEMENTWISE, assert_allclose_ulp
import gpu_tier

# hand-written StableHLO through XLA's compiler (compile_module): nothing the NumPy backend runs
pytestmark = pytest.mark.xla_only("XLA compiler")


def f32(*shape):
    return ShapedArray(shape, np.float32)


def executable(text, out_avals, **kw) -> Executable:
    loaded, _ = compile_module(text, [default_device()])
    return Executable(loaded, out_avals, default_device(), **kw)


def module(signature, body):
    return f"module @test {{\n  func.func public @main{signature} {{\n{body}\n  }}\n}}\n"


# ------------------------------------------------------------------ programs
def test_elementwise():
    text = module("(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32>", """
    %0 = stablehlo.sine %x : tensor<3xf32>
    %1 = stablehlo.multiply %0, %y : tensor<3xf32>
    return %1 : tensor<3xf32>""")
    x, y = np.array([0.0, 1.0, 2.0], np.float32), np.array([1.0, 2.0, 3.0], np.float32)
    (out,) = executable(text, [f32(3)])(x, y)
    assert type(out) is Array and out.shape == (3,) and out.dtype == np.float32
    want = (np.sin(x.astype(np.float64)) * y).astype(np.float32)   # rounded once; worst seen 1
    assert_allclose_ulp(np.asarray(out), want, ELEMENTWISE)


def test_dot_general():
    text = module("(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32>", """
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>""")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    (out,) = executable(text, [f32(2, 4)])(a, b)
    np.testing.assert_array_equal(np.asarray(out), a @ b)


def test_reduce_with_a_region():
    text = module("(%x: tensor<2x3xf32>) -> tensor<3xf32>", """
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce"(%x, %ninf) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>""")
    x = np.array([[1, 5, -3], [4, 2, -1]], np.float32)
    (out,) = executable(text, [f32(3)])(x)
    assert out.tolist() == [4.0, 5.0, -1.0]


WHILE_SUM = module("(%n: tensor<i32>) -> tensor<i32>", """
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %acc = %c0) : tensor<i32>, tensor<i32>
    cond {
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %i2 = stablehlo.add %i, %c1 : tensor<i32>
      %a2 = stablehlo.add %acc, %i2 : tensor<i32>
      stablehlo.return %i2, %a2 : tensor<i32>, tensor<i32>
    }
    return %r#1 : tensor<i32>""")


def test_while_loop():
    exe = executable(WHILE_SUM, [ShapedArray((), np.int32)])
    assert [int(exe(np.int32(n))[0]) for n in (0, 1, 10)] == [0, 1, 55]


def test_multiple_results_of_several_dtypes():
    text = module("(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xi32>)", """
    %0 = stablehlo.negate %x : tensor<4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<4xf32>
    %1 = stablehlo.compare GT, %x, %z, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %2 = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi32>
    return %0, %1, %2 : tensor<4xf32>, tensor<4xi1>, tensor<4xi32>""")
    outs = executable(text, [f32(4), ShapedArray((4,), bool), ShapedArray((4,), np.int32)])(
        np.array([-1.5, 0, 2.5, 3], np.float32))
    assert [o.dtype for o in outs] == [np.float32, np.bool_, np.int32]
    assert outs[0].tolist() == [1.5, 0, -2.5, -3]
    assert outs[1].tolist() == [False, False, True, True]
    assert outs[2].tolist() == [-1, 0, 2, 3]


def test_bfloat16_program():
    import ml_dtypes
    text = module("(%x: tensor<2xbf16>) -> tensor<2xbf16>", """
    %0 = stablehlo.add %x, %x : tensor<2xbf16>
    return %0 : tensor<2xbf16>""")
    (out,) = executable(text, [ShapedArray((2,), ml_dtypes.bfloat16)])(
        np.array([1.5, -3], ml_dtypes.bfloat16))
    assert out.dtype == ml_dtypes.bfloat16 and out.tolist() == [3.0, -6.0]


def test_results_feed_the_next_call_without_host_round_trips():
    exe = executable(module("(%x: tensor<3xf32>) -> tensor<3xf32>", """
    %0 = stablehlo.add %x, %x : tensor<3xf32>
    return %0 : tensor<3xf32>"""), [f32(3)])
    x = exe(np.ones(3, np.float32))[0]
    for _ in range(5):
        x = exe.call_buffers([x._buf])[0]
    assert x.tolist() == [64.0] * 3


# ------------------------------------------------------------------ caches
def test_executable_cache_hits_on_the_same_module():
    text = module("(%x: tensor<5xf32>) -> tensor<5xf32>", """
    %0 = stablehlo.cosine %x : tensor<5xf32>
    return %0 : tensor<5xf32>""")
    first, phases1 = compile_module(text, [default_device()])
    second, phases2 = compile_module(text, [default_device()])
    assert phases1.cache in ("compiled", "disk") and phases2.cache == "memory"
    assert second is first
    _, phases3 = compile_module(text.replace("cosine", "sine"), [default_device()])
    assert phases3.cache != "memory"


# ------------------------------------------------------------------ async dispatch
MATMUL_LOOP = module("(%x: tensor<512x512xf32>, %n: tensor<i32>) -> tensor<512x512xf32>", """
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %a = %x) : tensor<i32>, tensor<512x512xf32>
    cond {
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %d = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
      %t = stablehlo.tanh %d : tensor<512x512xf32>
      %i2 = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %i2, %t : tensor<i32>, tensor<512x512xf32>
    }
    return %r#1 : tensor<512x512xf32>""")


# XLA's GPU runs a while loop from the host (it reads the condition back each trip), so the
# call would return only at its end: on a GPU the same work is written out without a loop,
# 8 multiplies of 4096 x 4096 (1.1 TFLOP: milliseconds on an H200, a launch microseconds)
MATMUL_CHAIN = module("(%x: tensor<4096x4096xf32>, %n: tensor<i32>) -> tensor<4096x4096xf32>",
                      "\n".join(f"""    %d{i} = stablehlo.dot_general %a{i}, %x, contracting_dims = [1] x [0] : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
    %a{i + 1} = stablehlo.tanh %d{i} : tensor<4096x4096xf32>""" for i in range(8)).replace(
                          "%a0", "%x") + "\n    return %a8 : tensor<4096x4096xf32>")


def test_calls_return_before_the_computation_is_done():
    size = 4096 if gpu_tier.ON_GPU else 512
    exe = executable(MATMUL_CHAIN if gpu_tier.ON_GPU else MATMUL_LOOP, [f32(size, size)])
    x = device_put(np.full((size, size), 1e-3, np.float32))
    steps = device_put(np.int32(60))          # ~16 GFLOP: a fraction of a second on 2 cores
    exe.call_buffers([x._buf, device_put(np.int32(1))._buf])[0].block_until_ready()  # warm up
    start = time.perf_counter()
    (out,) = exe.call_buffers([x._buf, steps._buf])
    launched = time.perf_counter() - start
    assert not out.is_ready()             # the call came back while XLA still computes
    assert out.block_until_ready() is out
    finished = time.perf_counter() - start
    assert out.is_ready() and finished > 5 * launched
    assert np.isfinite(np.asarray(out)).all()


def test_reading_a_value_waits_for_it():
    exe = executable(MATMUL_LOOP, [f32(512, 512)])
    x = device_put(np.full((512, 512), 1e-3, np.float32))
    (out,) = exe(x, np.int32(30))
    value = np.asarray(out)                # blocks until computed, then reads
    assert out.is_ready() and value.shape == (512, 512) and np.isfinite(value).all()


# ------------------------------------------------------------------ donation
DONATE = module("(%x: tensor<1024xf32> {jax.buffer_donor = true}, %y: tensor<1024xf32>) "
                "-> tensor<1024xf32>", """
    %0 = stablehlo.add %x, %y : tensor<1024xf32>
    return %0 : tensor<1024xf32>""")


def donating_executable():
    return executable(DONATE, [f32(1024)], donated=[True, False], arg_names=["x", "y"],
                      name="jit(f)")


def test_donation_invalidates_the_input_and_reuses_its_buffer():
    exe = donating_executable()
    x, y = device_put(np.ones(1024, np.float32)), device_put(np.ones(1024, np.float32))
    pointer = x.unsafe_buffer_pointer()
    (out,) = exe(x, y)
    assert x.is_deleted() and not y.is_deleted()
    assert out.unsafe_buffer_pointer() == pointer          # XLA wrote into x's memory
    assert out.tolist() == [2.0] * 1024
    # JAX's RuntimeError (no jit made this executable: no cached-call ValueError), and why
    why = (r"Array has been deleted with shape=float32\[1024\]\. It was donated to jit\(f\) as "
           r"its argument 'x'")
    with pytest.raises(RuntimeError, match=why):
        exe(x, y)
    with pytest.raises(RuntimeError, match=why):
        exe.call_buffers([x._buf, y._buf])
    with pytest.raises(RuntimeError, match=why):
        np.asarray(x)


def test_donation_happens_although_we_cached_a_numpy_view():
    exe = donating_executable()
    x, y = device_put(np.ones(1024, np.float32)), device_put(np.ones(1024, np.float32))
    assert float(np.asarray(x)[0]) == 1.0                  # caches a zero-copy view in x
    pointer = x.unsafe_buffer_pointer()
    (out,) = exe(x, y)
    assert x.is_deleted() and out.unsafe_buffer_pointer() == pointer


def test_a_users_numpy_view_survives_the_donation_of_its_array():
    exe = donating_executable()
    x, y = device_put(np.arange(1024, dtype=np.float32)), device_put(np.ones(1024, np.float32))
    view = np.asarray(x)                   # alive: XLA skips the donation silently ...
    (out,) = exe(x, y)
    assert x.is_deleted()                  # ... yet x is invalid after the call, as promised
    assert out.tolist()[:3] == [1.0, 2.0, 3.0]
    assert view[:3].tolist() == [0.0, 1.0, 2.0] and view[-1] == 1023


def test_donated_array_passed_twice_is_explained():
    exe = donating_executable()
    x = device_put(np.ones(1024, np.float32))
    # XLA's error, as JAX raises it (a RuntimeError), with what to do after it
    with pytest.raises(RuntimeError, match="arguments 0 and 1, and one of them is donated"):
        exe(x, x)


def test_donation_by_indices():
    exe = executable(DONATE, [f32(1024)], donated=(0,))
    x = device_put(np.ones(1024, np.float32))
    exe(x, np.ones(1024, np.float32))
    assert x.is_deleted()


# ------------------------------------------------------------------ errors
def test_compile_error_shows_the_offending_line():
    text = module("(%x: tensor<3xf32>) -> tensor<3xf32>", """
    %0 = stablehlo.sine %x : tensor<3xf32>
    %1 = stablehlo.frobnicate %0 : tensor<3xf32>
    return %1 : tensor<3xf32>""")
    with pytest.raises(CompileError) as info:
        compile_module(text, [default_device()])
    message = str(info.value)
    assert "frobnicate" in message and "at line 5, column" in message
    assert "    %1 = stablehlo.frobnicate %0 : tensor<3xf32>" in message
    assert "^" in message.splitlines()[-1]


def test_type_error_in_module_is_located():
    text = module("(%x: tensor<3xf32>) -> tensor<3xf32>", """
    %0 = stablehlo.add %x, %x : tensor<4xf32>
    return %0 : tensor<3xf32>""")
    with pytest.raises(CompileError, match=r"at line \d+, column \d+ of the module"):
        compile_module(text, [default_device()])


def test_compile_error_without_a_location():
    text = module("(%x: tensor<3xf32>) -> tensor<3xf32>", "    return %x : tensor<3xf32>")
    with pytest.raises(CompileError, match="main"):
        compile_module(text.replace("@main", "@entry"), [default_device()])


def test_argument_types_are_checked_when_known():
    exe = executable(module("(%x: tensor<3xf32>) -> tensor<3xf32>",
                            "    return %x : tensor<3xf32>"), [f32(3)],
                     in_avals=[f32(3)], arg_names=["x"], name="jit(g)")
    with pytest.raises(TypeError, match=r"Argument 'x' \(argument 0\) of jit\(g\) must be "
                                        r"f32\[3\]; got i32\[3\]"):
        exe(np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match=r"must be f32\[3\]; got f32\[1,3\]"):
        exe(np.zeros((1, 3), np.float32))
    with pytest.raises(TypeError, match="takes 1 arguments; got 2"):
        exe(1.0, 2.0)
    assert exe(np.ones(3, np.float32))[0].tolist() == [1.0] * 3


def test_runtime_argument_errors_are_explained():
    exe = executable(module("(%x: tensor<3xf32>) -> tensor<3xf32>",
                            "    return %x : tensor<3xf32>"), [f32(3)])
    with pytest.raises(ExecutionError, match="incompatible size"):
        exe(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="not a device buffer"):
        exe.call_buffers([np.zeros(3, np.float32)])


@pytest.mark.parametrize("platform, package", [("gpu", "jax-cuda1[23]-plugin"), ("tpu", "libtpu")])
def test_missing_backend_names_the_package(platform, package):
    if client._available(platform):
        pytest.skip(f"a {platform} plugin is installed here")
    with pytest.raises(RuntimeError, match=f"pip install .*{package}"):
        client.devices(platform)


def test_unknown_backend_is_named():
    # JAX 0.10.2's RuntimeError, with the backends there are (tests/jax_compat/
    # test_jax_tests_devices.py compares its words with JAX's recorded ones)
    with pytest.raises(RuntimeError, match=r"Unknown backend metal\. Available backends are \["):
        client.get_backend("metal")


def test_collecting_garbage_with_jaxlib_out_of_reach_raises_nothing(monkeypatch):
    """The collection callback holds jaxlib's function from when it was registered: a test
    that sets `client.xc` to None (a machine without jaxlib), or an interpreter shutting
    down (module globals already None), made each collection meanwhile report "Exception
    ignored in _collect_jaxlib_garbage" (seen in a fresh clone's test_notebook_widgets)."""
    import gc
    import sys
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    monkeypatch.setattr(client, "xc", None)
    gc.collect()
    assert reported == []


def test_repeated_calls_keep_no_memory():
    """jaxlib queues an object per execution until asked to collect it (JAX asks at every
    garbage collection); without asking, each call of a compiled program kept one block for
    good. Counted in Python's allocated blocks (exactly one per call when leaking), not
    timed: a leak, not a speed target."""
    import gc
    import sys
    import jxkernel
    f = jxkernel.jit(lambda v: v + 1)
    x = jxkernel.numpy.ones(3)
    for _ in range(500):
        f(x)
    gc.collect()
    before = sys.getallocatedblocks()
    calls = 5000
    for _ in range(calls):
        f(x)
    gc.collect()
    assert sys.getallocatedblocks() - before < calls // 10
