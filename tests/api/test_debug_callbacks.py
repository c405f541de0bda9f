"""Host callbacks: jax.debug.print, jax.debug.callback and jax.pure_callback, eagerly and
under jit, vmap, grad, scan, cond and while. Expected texts (printed lines, jaxprs) were
produced by JAX 0.10.2 running the same code."""
import logging
import os

import numpy as np
import pytest
from numerics import ELEMENTWISE, assert_allclose_ulp

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.experimental import io_callback
from jxkernel.xla import compiler
from jxkernel.xla.compiler import CallbackError


def sds(x):
    return jax.ShapeDtypeStruct(x.shape, x.dtype)


def lines(capsys):
    return capsys.readouterr().out.splitlines()


# ------------------------------------------------------------------ debug.print
def f_print(x):
    jax.debug.print("x = {x}", x=x)
    jax.debug.print("pos {} {}", x, 2.0)
    return x * 2


def test_print_eager_and_jit(capsys):
    x = jnp.arange(3.0)
    f_print(x)
    assert lines(capsys) == ["x = [0. 1. 2.]", "pos [0. 1. 2.] 2.0"]
    f = jax.jit(f_print)
    np.testing.assert_array_equal(f(x), [0.0, 2.0, 4.0])
    print("after")            # the program ran (and printed) during the call
    np.testing.assert_array_equal(f(x + 1), [2.0, 4.0, 6.0])  # a cache hit calls back too
    assert f.cache_hits() == 1
    assert lines(capsys) == ["x = [0. 1. 2.]", "pos [0. 1. 2.] 2.0", "after",
                             "x = [1. 2. 3.]", "pos [1. 2. 3.] 2.0"]


def test_print_formats_as_jax(capsys):
    jax.debug.print("no placeholders")
    jax.debug.print("{x:.3f} {y!r} {z}", x=jnp.float32(1.5), y=jnp.arange(2),
                    z={"a": jnp.ones(2), "b": "static"})
    jax.debug.print("{0} {0}", 7)
    jax.jit(lambda x: jax.debug.print("{x:.3f}", x=x))(1.5)
    jax.debug.print("{} {}", jnp.int32(3), jnp.bool_(True))
    jax.debug.print("{}", jnp.arange(2000.0))
    jax.jit(lambda x: jax.debug.print("jit {} {}", x, "str"))(jnp.bfloat16(1.5))
    jax.jit(lambda x: jax.debug.print("hello"))(1.0)                # no operands
    assert lines(capsys) == [
        "no placeholders",
        "1.500 Array([0, 1], dtype=int32) {'a': Array([1., 1.], dtype=float32), 'b': 'static'}",
        "7 7", "1.500", "3 True",
        "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]",
        "jit 1.5 str", "hello"]


def test_print_checks_its_format_when_traced():
    with pytest.raises(ValueError, match=r"Unused positional arguments to `jax.debug.print`: \[1\]"):
        jax.debug.print("{x}", 1, x=2)
    with pytest.raises(ValueError, match="f-string"):
        jax.debug.print("{x}", x=1, y=2)
    with pytest.raises(KeyError):
        jax.debug.print("{y}", x=2)


def test_print_under_vmap_grad_jvp(capsys):
    xs = jnp.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(jax.vmap(f_print)(xs), xs * 2)
    assert lines(capsys) == ["x = [0. 1. 2.]", "x = [3. 4. 5.]",       # one call per element
                             "pos [0. 1. 2.] 2.0", "pos [3. 4. 5.] 2.0"]
    g = jax.grad(lambda x: (f_print(x) ** 2).sum())(jnp.arange(3.0))
    np.testing.assert_array_equal(g, np.float32([0.0, 8.0, 16.0]))      # 8 x: exact
    assert lines(capsys) == ["x = [0. 1. 2.]", "pos [0. 1. 2.] 2.0"]   # primal values, once
    jax.jit(jax.grad(lambda x: jax.jit(f_print)(x).sum()))(jnp.ones(2))
    assert lines(capsys) == ["x = [1. 1.]", "pos [1. 1.] 2.0"]
    _, t = jax.jvp(f_print, (jnp.ones(2),), (jnp.full(2, 5.0),))
    np.testing.assert_array_equal(t, [10.0, 10.0])
    assert lines(capsys) == ["x = [1. 1.]", "pos [1. 1.] 2.0"]


def test_print_in_control_flow(capsys):
    def body(c, x):
        jax.debug.print("c={c} x={x}", c=c, x=x)
        return c + x, c
    carry, _ = jax.jit(lambda xs: lax.scan(body, 0.0, xs))(jnp.arange(3.0))
    assert float(carry) == 3.0
    assert lines(capsys) == ["c=0.0 x=0.0", "c=0.0 x=1.0", "c=1.0 x=2.0"]

    branch = jax.jit(lambda p, x: lax.cond(p, lambda x: jax.debug.print("true {}", x),
                                            lambda x: jax.debug.print("false {}", x), x))
    branch(True, 1.0)
    branch(False, 2.0)
    assert lines(capsys) == ["true 1.0", "false 2.0"]

    jax.jit(lambda n: lax.while_loop(lambda c: c < n,
                                     lambda c: (jax.debug.print("i={}", c), c + 1)[1], 0))(3)
    assert lines(capsys) == ["i=0", "i=1", "i=2"]


def test_print_to_logging(caplog):
    import logging
    with caplog.at_level(logging.INFO, logger="jax._src.debugging"):   # JAX's name
        jax.jit(lambda x: jax.debug.log("logged {}", x))(jnp.int32(4))
    assert [r.getMessage() for r in caplog.records] == ["logged 4"]


# ------------------------------------------------------------------ debug.callback
def test_callback_gets_arrays_and_static_leaves():
    seen = []

    def cb(*args, **kwargs):
        seen.append((args, kwargs))

    jax.debug.callback(cb, 1, jnp.ones(2), "s", k=2.0)
    jax.jit(lambda x: jax.debug.callback(cb, 1, x, "s", k=2.0))(jnp.ones(2))
    jax.debug.callback(ordered=True)(cb, jnp.arange(2))              # the two-call form
    for args, kwargs in seen[:2]:
        assert isinstance(args[1], jax.Array) and args[2] == "s"
        np.testing.assert_array_equal(args[1], [1.0, 1.0])
        assert int(args[0]) == 1 and float(kwargs["k"]) == 2.0
    # as JAX: a Python scalar stays weakly typed eagerly; compiled values are not weak
    assert seen[0][0][0].weak_type and not seen[1][0][0].weak_type
    np.testing.assert_array_equal(seen[2][0][0], [0, 1])


def test_callback_may_compute_with_jxkernel(capsys):
    jax.jit(lambda x: jax.debug.callback(lambda v: print("sum", jnp.sum(v * 2)), x))(jnp.ones(3))
    assert lines(capsys) == ["sum 6.0"]


def test_error_in_callback_surfaces_and_process_goes_on():
    def boom(x):
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):                    # eagerly: as raised
        jax.debug.callback(boom, jnp.ones(2))
    f = jax.jit(lambda x: jax.debug.callback(boom, x))
    with pytest.raises(CallbackError, match="raised ValueError: boom") as info:
        f(jnp.ones(2))
    assert isinstance(info.value.__cause__, ValueError)
    g = jax.jit(lambda x: jax.pure_callback(boom, sds(x), x) + 1)
    with pytest.raises(CallbackError, match="boom"):
        g(jnp.ones(2))
    with pytest.raises(CallbackError, match="boom"):                 # again, on a cache hit
        g(jnp.ones(2))
    np.testing.assert_array_equal(jax.jit(lambda x: x + 1)(jnp.ones(2)), [2.0, 2.0])


@pytest.mark.parametrize("platform", [pytest.param("cpu", marks=pytest.mark.xla_only(
    "CPU platform")), "numpy"])
def test_a_debug_print_that_fails_in_a_program_is_a_callback_error_on_each_backend(platform):
    """jax.debug.print('{:.2f}', v) of a vector (NumPy's TypeError: no format spec for an
    array): eagerly the TypeError itself, inside a jitted program XLA's host call's
    CallbackError (a JaxRuntimeError: what `except` of JAX's class catches), its cause the
    TypeError. The NumPy backend (JupyterLite) raised the bare TypeError there."""
    x = jax.device_put(jnp.ones(2), jax.devices(platform)[0])
    with pytest.raises(TypeError, match="unsupported format string"):
        jax.debug.print("v = {:.2f}", x)
    f = jax.jit(lambda v: jax.debug.print("v = {:.2f}", v))
    with pytest.raises(CallbackError, match="raised TypeError: unsupported format string") \
            as info:
        f(x)
        jax.effects_barrier()
    assert isinstance(info.value.__cause__, TypeError)


# ------------------------------------------------------------------ pure_callback
def test_pure_callback_eager_and_jit():
    x = jnp.arange(3.0)
    for fn in (lambda x: jax.pure_callback(np.sin, sds(x), x),
               jax.jit(lambda x: jax.pure_callback(np.sin, sds(x), x))):
        out = fn(x)
        assert isinstance(out, jax.Array) and out.dtype == np.float32
        # NumPy's float32 sin, vectorized per CPU (worst seen 1)
        assert_allclose_ulp(out, np.sin(np.arange(3.0)).astype(np.float32), ELEMENTWISE)
    tree = jax.jit(lambda a: jax.pure_callback(
        lambda d: {"s": d["x"] + 1, "t": (d["x"] * 2,)}, {"s": sds(a), "t": (sds(a),)},
        {"x": a}))(jnp.ones(2))
    np.testing.assert_array_equal(tree["s"], [2.0, 2.0])
    np.testing.assert_array_equal(tree["t"][0], [2.0, 2.0])
    scalar = jax.jit(lambda a: jax.pure_callback(lambda a: float(a.sum()),
                                                 jax.ShapeDtypeStruct((), jnp.float32), a))
    assert float(scalar(jnp.ones(3))) == 3.0
    ints = jnp.arange(6).reshape(2, 3)
    t = jax.jit(lambda a: jax.pure_callback(lambda a: np.asarray(a).T,
                                            jax.ShapeDtypeStruct((3, 2), a.dtype), a))(ints)
    np.testing.assert_array_equal(t, np.arange(6).reshape(2, 3).T)
    b = jax.jit(lambda a: jax.pure_callback(lambda a: ~np.asarray(a), sds(a), a))(
        jnp.array([True, False]))
    np.testing.assert_array_equal(b, [False, True])


@pytest.mark.parametrize("method, shapes", [
    ("sequential", [((3,), (3,)), ((3,), (3,))]),
    ("sequential_unrolled", [((3,), (3,)), ((3,), (3,))]),
    ("expand_dims", [((2, 3), (1, 3))]),
    ("broadcast_all", [((2, 3), (2, 3))])])
def test_pure_callback_vmap_methods(method, shapes):
    seen = []

    def add(a, b):
        seen.append((a.shape, b.shape))
        return np.asarray(a) + np.asarray(b)

    def f(x, y):
        out = jax.ShapeDtypeStruct(jnp.broadcast_shapes(x.shape, y.shape), x.dtype)
        return jax.pure_callback(add, out, x, y, vmap_method=method)

    xs, y = jnp.arange(6.0).reshape(2, 3), jnp.ones(3)
    np.testing.assert_array_equal(jax.jit(jax.vmap(f, in_axes=(0, None)))(xs, y), xs + 1)
    assert seen == shapes


def test_pure_callback_vmap_needs_a_method():
    f = lambda x: jax.pure_callback(np.sin, sds(x), x)
    with pytest.raises(NotImplementedError, match="Got vmap_method=None"):
        jax.vmap(f)(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="vmap_method must be on of the allowed methods"):
        jax.pure_callback(np.sin, sds(jnp.ones(2)), jnp.ones(2), vmap_method="foo")


def test_pure_callback_is_not_differentiable_but_custom_jvp_is():
    x = jnp.arange(3.0)
    f = lambda x: jax.pure_callback(np.sin, sds(x), x)
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP. Please use "
                                         "`jax.custom_jvp`"):
        jax.grad(lambda x: f(x).sum())(x)
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        jax.jvp(f, (x,), (x,))

    @jax.custom_jvp
    def s(x):
        return jax.pure_callback(np.sin, sds(x), x)
    s.defjvp(lambda p, t: (s(p[0]), jnp.cos(p[0]) * t[0]))
    assert_allclose_ulp(jax.jit(jax.grad(lambda x: s(x).sum()))(x),
                        np.cos(np.arange(3.0)).astype(np.float32), ELEMENTWISE)


@pytest.mark.parametrize("jit", [False, True])
def test_pure_callback_result_checks(jit):
    x = jnp.arange(3.0)
    cases = [(lambda x: np.zeros(4, np.float32),
              r"returned float32\[4\] for result 0, but result_shape_dtypes declares float32\[3\]"),
             (lambda x: np.zeros(3, np.int32), r"returned int32\[3\]"),
             (lambda x: (x, x), r"returned 2 value\(s\), but result_shape_dtypes declares 1"),
             (lambda x: 1.0, r"returned float32\[\] for result 0")]
    for bad, message in cases:
        g = lambda x, bad=bad: jax.pure_callback(bad, sds(x), x)
        with pytest.raises(CallbackError, match=message):
            (jax.jit(g) if jit else g)(x)
    # float64 becomes float32 without x64, as JAX canonicalizes it
    out = (jax.jit if jit else (lambda f: f))(
        lambda x: jax.pure_callback(lambda x: np.ones(3, np.float64), sds(x), x))(x)
    assert out.dtype == np.float32 and out.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="cannot specify 64-bit types"):
        jax.pure_callback(lambda x: x, jax.ShapeDtypeStruct((3,), np.float64), x)


# ------------------------------------------------------------------ jaxprs (JAX's text)
_PRINTOPTS = str(tuple(np.get_printoptions().items()))


def test_jaxprs_print_as_jax():
    text = str(jax.make_jaxpr(lambda x: (jax.debug.print("{}", x), x * 2)[1])(jnp.ones(2)))
    assert text == f"""{{ lambda ; a:f32[2]. let
    debug_print[
      fmt={{}}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {{}}))
      logging_record=None
      np_printoptions={_PRINTOPTS}
      ordered=False
      partitioned=False
      static_args=()
    ] a
    b:f32[2] = mul a 2.0:f32[]
  in (b,) }}"""
    text = str(jax.make_jaxpr(lambda x: jax.debug.callback(print, x, ordered=True))(jnp.ones(2)))
    assert text == """{ lambda ; a:f32[2]. let
    debug_callback[
      callback=<function debug_callback.<locals>._debug_callback.<locals>._flat_callback at 0xXXXXXXXXXXXX>
      effect=OrderedDebug
      partitioned=False
    ] a
  in () }"""
    f = lambda x, y: jax.pure_callback(np.add, sds(x), x, y, vmap_method="expand_dims")
    text = str(jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.ones((2, 3)), jnp.ones(3)))
    assert text == """{ lambda ; a:f32[2,3] b:f32[3]. let
    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    d:f32[2,3] = pure_callback[
      callback=_FlatCallback(callback_func=<ufunc 'add'>, in_tree=PyTreeDef(((*, *), {})))
      result_avals=(ShapedArray(float32[2,3]),)
      sharding=None
      vmap_method=expand_dims
    ] a c
  in (d,) }"""


# ------------------------------------------------------------------ compiling
def test_lowering_keeps_the_side_effect_and_refuses_other_backends():
    from jxkernel.transforms.make_jaxpr import make_jaxpr
    from jxkernel.xla.lowering import lower_module
    closed = make_jaxpr(lambda x: jax.debug.print("{}", x))(jnp.ones(2))
    text, ctx = lower_module(closed.jaxpr, name="f", platform="cpu")
    assert "xla_ffi_python_cpu_callback" in text and "has_side_effect = true" in text
    assert len(ctx.host_callbacks) == 1
    with pytest.raises(NotImplementedError, match="the CPU and CUDA GPUs.*'tpu' backend"):
        lower_module(closed.jaxpr, name="f", platform="tpu")
    # compiling such a module without its callbacks would crash XLA: refused
    with pytest.raises(ValueError, match="host_callbacks"):
        compiler.compile_module(text, jax.devices()[:1])


def test_on_a_cuda_gpu_callbacks_call_the_plugins_handler():
    # as JAX's emit_python_callback for 'cuda': the same custom call with the CUDA plugin's
    # target (its handler copies operands to the host and results back); checked here as
    # text, on a machine without a GPU (JAX itself refuses to lower it without one)
    from jxkernel.transforms.make_jaxpr import make_jaxpr
    from jxkernel.xla.lowering import lower_module

    def f(x):
        jax.debug.print("{}", x)
        return jax.pure_callback(np.sin, sds(x), x)
    closed = make_jaxpr(f)(jnp.ones(2))
    cpu, cpu_ctx = lower_module(closed.jaxpr, name="f", platform="cpu")
    gpu, gpu_ctx = lower_module(closed.jaxpr, name="f", platform="gpu")
    calls = [ln for ln in gpu.splitlines() if "custom_call" in ln]
    assert len(calls) == 2 and all('call_target_name = "xla_ffi_python_gpu_callback"' in c
                                   for c in calls)
    assert [("has_side_effect = true" in c, "index = " in c) for c in calls] == \
        [(True, True), (False, True)]
    assert gpu.replace("xla_ffi_python_gpu_callback", "xla_ffi_python_cpu_callback") == cpu
    assert len(gpu_ctx.host_callbacks) == len(cpu_ctx.host_callbacks) == 2
    with pytest.raises(ValueError, match="host_callbacks"):
        compiler.compile_module(gpu, jax.devices()[:1])


@pytest.mark.xla_only("XLA compiler")      # XLA's compilation cache on disk
def test_callback_programs_stay_out_of_the_disk_cache(tmp_path, capsys):
    # a folder of its own: xdist workers share the suite's cache folder; every compile is
    # written there (the suite's conftest writes only slow ones)
    with jax.config.override("jax_compilation_cache_dir", str(tmp_path)), \
            jax.config.override("jax_persistent_cache_min_compile_time_secs", 0.0):
        assert compiler.cache_dir() == str(tmp_path)
        tag = float(np.random.default_rng().integers(1 << 20))  # a module no one compiled yet
        jax.jit(lambda x: jax.debug.print("{}", x + tag))(jnp.ones(1))
        assert not [n for n in os.listdir(tmp_path) if n.endswith(".xla")]
        jax.jit(lambda x: x + tag)(jnp.ones(1))              # while a plain program is stored
        assert len([n for n in os.listdir(tmp_path) if n.endswith(".xla")]) == 1
    assert lines(capsys) == [str(np.array([1 + tag], np.float32))]


def test_an_eager_pure_callback_failure_is_a_jax_runtime_error():
    # as JAX's (which runs the primitive through XLA); debug.callback's stays as raised
    def boom(x):
        raise ValueError("boom")

    with pytest.raises(jax.errors.JaxRuntimeError, match="raised ValueError: boom") as info:
        jax.pure_callback(boom, sds(jnp.ones(2)), jnp.ones(2))
    assert isinstance(info.value.__cause__, ValueError)


@pytest.mark.parametrize("kind, logger, message", [
    ("pure_callback", "jax._src.callback", "jax.pure_callback failed"),
    ("io_callback", "jax._src.callback", "jax.io_callback failed"),
    ("debug_callback", "jax._src.debugging", "jax.debug.callback failed")])
def test_a_failing_callback_is_logged_on_jaxs_logger(kind, logger, message):
    """JAX 0.10.2 logs a host callback's exception on its module's logger, which libraries
    filter by name (Equinox's filter_jit drops "jax.pure_callback failed" from
    "jax._src.callback", its error_if raising through a pure_callback)."""
    from logged import logged_messages

    def boom(x):
        raise ValueError("no")
    calls = {"pure_callback": lambda x: jax.pure_callback(boom, x, x),
             "io_callback": lambda x: io_callback(boom, x, x),
             "debug_callback": lambda x: (jax.debug.callback(boom, x), x)[1]}
    with logged_messages(logger, level=logging.ERROR) as messages:
        with pytest.raises(Exception):
            jax.block_until_ready(jax.jit(calls[kind])(jnp.float32(1.0)))
            jax.effects_barrier()
    assert messages == [message]


def _two_ordered_callbacks(seen):
    """JAX 0.10.2's debugger_test.py test_can_use_multiple_breakpoints, with callbacks: the
    first call's value is computed before the second's."""
    def f(x):
        y = x + 1.
        jax.debug.callback(lambda v: seen.append(("f", float(v))), y, ordered=True)
        return y

    @jax.jit
    def g(x):
        y = f(x) * 2.
        jax.debug.callback(lambda v: seen.append(("g", float(v))), y, ordered=True)
        return jnp.exp(y)
    return g


def test_ordered_debug_callbacks_run_in_program_order():
    seen = []
    _two_ordered_callbacks(seen)(jnp.float32(2.))
    jax.effects_barrier()
    assert seen == [("f", 3.0), ("g", 6.0)]


@pytest.mark.xla_only("XLA text")
def test_ordered_debug_callbacks_are_threaded_by_a_token():
    # XLA's CPU runtime may run two unrelated side-effecting calls in either order; the effect
    # token orders them, as JAX's lowering of ordered effects does
    text = _two_ordered_callbacks([]).lower(jnp.float32(2.)).as_text()
    calls = [line for line in text.splitlines() if "xla_ffi_python_cpu_callback" in line]
    assert len(calls) == 2 and all("!stablehlo.token" in line for line in calls)


@pytest.mark.xla_only("sharded arrays")
@pytest.mark.parametrize("ordered", [False, True])
def test_io_callback_placed_on_one_device_inside_a_partitioned_jit(ordered):
    # io_callback's sharding= is where the callback runs (a SingleDeviceSharding), no typed
    # out_sharding: its typing rule once read it as one (AttributeError: 'unreduced');
    # JAX 0.10.2's python_callback_test test_can_use_io_callback_in_pjit
    devices = jax.devices()
    mesh = jax.sharding.Mesh(np.array(devices), ("dev",))
    seen = []
    where = jax.sharding.SingleDeviceSharding(devices[-1])

    def f(x):
        io_callback(lambda v: seen.append(int(v.sum())), None, x, ordered=ordered, sharding=where)
        io_callback(lambda v: seen.append(int(v.sum())), None, x + 1, ordered=ordered,
                    sharding=where)
        return x

    f = jax.jit(f, in_shardings=jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("dev")),
                out_shardings=jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec()))
    x = np.arange(len(devices))
    f(jnp.asarray(x))
    f(jnp.asarray(x + 5))
    jax.effects_barrier()
    want = [int(x.sum()), int((x + 1).sum()), int((x + 5).sum()), int((x + 6).sum())]
    assert (seen if ordered else sorted(seen)) == (want if ordered else sorted(want))
