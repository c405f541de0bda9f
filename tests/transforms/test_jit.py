"""jit: results equal eager, the cache and its explained misses, static and donated
arguments, AOT lowering, nesting, and the errors JAX gives while tracing."""
import functools
import re
import warnings

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import compile_log, lax
from numerics import ELEMENTWISE, assert_allclose_ulp


def arr(x, dtype=np.float32):
    return jax.device_put(np.asarray(x, dtype))


def test_jit_equals_eager_with_pytrees():
    def f(params, x, scale=1.0):
        h = lax.tanh(lax.add(lax.mul(params["w"], x), params["b"]))
        return {"out": lax.mul(h, scale), "aux": (x, [h])}
    params = {"w": arr([1.0, 2.0, 3.0]), "b": arr(0.5)}
    x = arr([0.1, 0.2, 0.3])
    eager = f(params, x, scale=2.0)
    jitted = jax.jit(f)(params, x, scale=2.0)
    assert jax.tree_util.tree_structure(eager) == jax.tree_util.tree_structure(jitted)
    for a, b in zip(jax.tree_util.tree_leaves(eager), jax.tree_util.tree_leaves(jitted)):
        # (jit fuses tanh(w x + b) * scale, eager rounds op by op) [worst seen 0]
        assert_allclose_ulp(np.asarray(b), np.asarray(a), ELEMENTWISE)


def test_cache_hits_and_explained_misses():
    events = []
    unsubscribe = jax.subscribe_compile_events(events.append)
    try:
        @jax.jit
        def scaled(x, y):
            return lax.mul(x, y)
        scaled(arr([1, 2, 3]), 2.0)
        scaled(arr([4, 5, 6]), 3.0)                      # same types: a hit
        scaled(arr([1, 2, 3, 4]), 2.0)                   # new shape
        scaled(arr([1, 2, 3], np.int32), 2)              # new dtype
        scaled(arr([1, 2, 3]), arr(2.0))                 # weak -> strong
    finally:
        unsubscribe()
    mine = [e for e in events if e.function == "scaled"]
    assert [e.reason for e in mine] == [
        "first call", "x: f32[3] -> f32[4]", "x: f32[3] -> i32[3]; y: f32[] -> i32[]",
        "y: weak_type True -> False"]
    assert scaled._cache_size() == 4
    assert mine[0].signature == (("x", "f32[3]"), ("y", "f32[] (weak)"))
    lowers = jax.default_backend() != "numpy"        # the NumPy backend runs the jaxpr as is
    assert all(e.compile_s >= 0 and e.trace_s > 0 and (e.lower_s > 0) == lowers for e in mine)
    assert mine[-1] in jax.compile_events("scaled")


def test_static_arguments_by_position_and_name():
    calls = []

    @functools.partial(jax.jit, static_argnames="n")
    def power(x, n):
        calls.append(n)
        return lax.integer_pow(x, n)
    np.testing.assert_allclose(np.asarray(power(arr([2.0]), n=3)), [8.0])
    np.testing.assert_allclose(np.asarray(power(arr([2.0]), 3)), [8.0])   # by position: retraced,
    np.testing.assert_allclose(np.asarray(power(arr([2.0]), n=2)), [4.0])  # as JAX does
    np.testing.assert_allclose(np.asarray(power(x=arr([2.0]), n=2)), [4.0])
    assert calls == [3, 3, 2, 2]
    reasons = [e.reason for e in jax.compile_events("power")]
    assert reasons[-2] == "static n: 3 -> 2"
    assert reasons[-1].startswith("new pytree structure")


def test_unhashable_static_argument_error():
    f = jax.jit(lambda x, shape: x, static_argnums=1)
    with pytest.raises(ValueError, match=r"Non-hashable static arguments are not supported.*list"):
        f(arr(1.0), [1, 2])


def test_an_unhashable_static_argument_gets_the_advice_for_its_kind():
    # an array is a value to trace (a "tuple instead of a list" does not apply), and the
    # advice, applied, runs; a list's hashable twin is its tuple
    # (the error's `advice`, which the notebook's card shows: the message is JAX's alone)
    scaled = jax.jit(lambda x, n: x * n.sum(), static_argnums=1)
    with pytest.raises(ValueError) as e:
        scaled(arr([1.0, 1.0]), np.array([1, 2]))
    assert e.value.advice.startswith("An array is a value to trace: take 'n' out of "
                                     "static_argnums and pass it as an argument")
    assert (e.value.static_argument, e.value.function_name) == ("n", "<lambda>")
    assert e.value.advice not in str(e.value) and "'n'" not in str(e.value)
    fixed = jax.jit(lambda x, n: x * n.sum())
    assert np.asarray(fixed(arr([1.0, 1.0]), np.array([1, 2]))).tolist() == [3.0, 3.0]
    with pytest.raises(ValueError) as e:
        jax.jit(lambda x, n: x, static_argnames="n")(arr(1.0), n=jax.numpy.ones(2))
    assert "take 'n' out of static_argnames" in e.value.advice
    with pytest.raises(ValueError) as e:
        jax.jit(lambda x, shape: x, static_argnums=1)(arr(1.0), [1, 2])
    assert e.value.advice.startswith("Use a hashable value (tuple(shape))")


def test_non_array_argument_is_jaxs_type_error():
    # JAX 0.10.2's text (pjit._infer_params), the function as str() shows it, the argument by
    # its path; make_jaxpr says the same (JAX traces it as a jit)
    def g(x, s):
        return x
    jax_text = (f"Error interpreting argument to {g} as an abstract array. The problematic value "
                f"is of type <class 'str'> and was passed to the function at path s.\nThis "
                f"typically means that a jit-wrapped function was called with a non-array "
                f"argument, and this argument was not marked as static using the static_argnums "
                f"or static_argnames parameters of jax.jit.")
    for call in (lambda: jax.jit(g)(arr(1.0), "hello"), lambda: jax.jit(g)(arr(1.0), s="hello"),
                 lambda: jax.make_jaxpr(g)(arr(1.0), "hello"),
                 lambda: jax.jit(g).trace(arr(1.0), "hello")):
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == jax_text
    with pytest.raises(TypeError, match=r"at path d\['a'\]\.\n"):
        jax.jit(lambda d: d["a"])({"a": "hi"})


def test_python_if_on_tracer_names_argument_and_suggests_fix():
    @jax.jit
    def relu_if(x, threshold):
        if lax.gt(x, threshold):          # Python control flow on a traced value
            return x
        return lax.neg(x)
    with pytest.raises(jax.TracerBoolConversionError) as info:
        relu_if(arr(1.0), 0.5)
    message = str(info.value)
    assert "Attempted boolean conversion of traced array with shape bool[]" in message
    assert "relu_if" in message and "for jit" in message
    assert "depends on the values of the arguments x and threshold" in message
    # JAX's words alone: no advice (the notebook's card gives it, from the provenance: x came
    # as an array (0-d), which no static argument can take)
    assert "static_argnums" not in message and "lax.cond" not in message
    assert info.value.provenance["input_kind"] == "array"
    with pytest.raises(jax.TracerBoolConversionError) as info:
        relu_if(1.0, 0.5)                 # both Python scalars: the card offers static
    assert "static_argnums" not in str(info.value)
    assert info.value.provenance["input_kind"] == "python"
    # the traceback points at the user's line
    tb_lines = [frame.lineno for frame in info.traceback if frame.name == "relu_if"]
    assert tb_lines, "the user's function is in the traceback"


def test_int_and_index_on_tracer():
    with pytest.raises(jax.ConcretizationTypeError, match="int"):
        jax.jit(lambda x: int(x))(arr(1.0))
    with pytest.raises(jax.TracerIntegerConversionError):
        jax.jit(lambda x: [0, 1, 2][x])(arr(1, np.int32))
    with pytest.raises(jax.TracerArrayConversionError):
        jax.jit(lambda x: np.asarray(x))(arr(1.0))


def test_leaked_tracer_is_reported():
    saved = []

    @jax.jit
    def leak(x):
        saved.append(lax.sin(x))
        return x
    leak(arr(1.0))
    with pytest.raises(jax.UnexpectedTracerError, match="to escape the scope of the "):
        lax.cos(saved[0])
    with pytest.raises(jax.UnexpectedTracerError):
        jax.jit(lambda y: lax.add(y, saved[0]))(arr(1.0))


def test_nested_jit_and_closures():
    outer_const = arr([1.0, 2.0])
    inner = jax.jit(lambda a: lax.mul(a, outer_const))

    @jax.jit
    def outer(x):
        return lax.add(inner(x), inner(lax.sin(x)))
    x = arr([0.5, 0.25])
    x64 = np.asarray(x, np.float64)        # float64, rounded once [worst seen 1]
    expected = (x64 * [1, 2] + np.sin(x64) * [1, 2]).astype(np.float32)
    assert_allclose_ulp(np.asarray(outer(x)), expected, ELEMENTWISE)
    text = str(jax.make_jaxpr(outer)(x))
    assert text.count("jit[") == 3 and "name=outer" in text and "name=<lambda>" in text


def test_inline_jit_is_inlined():
    inner = jax.jit(lambda a: lax.sin(a), inline=True)
    text = str(jax.make_jaxpr(lambda x: inner(x))(1.0))
    assert "jit[" not in text and "sin" in text


def test_lower_compile_trace():
    f = jax.jit(lambda x, y: lax.add(lax.mul(x, y), 1.0))
    traced = f.trace(arr([1.0, 2.0]), 3.0)
    assert str(traced.jaxpr).startswith("{ lambda ; a:f32[2] b:f32[]. let")
    lowered = f.lower(arr([1.0, 2.0]), 3.0)
    text = lowered.as_text()
    assert text.startswith("module @jit__lambda ") and "func.func public @main" in text
    assert "stablehlo.multiply" in text
    compiled = lowered.compile()
    np.testing.assert_allclose(np.asarray(compiled(arr([1.0, 2.0]), 3.0)), [4.0, 7.0])
    with pytest.raises(TypeError, match="Argument 'x' compiled with float32.2. and called with"):
        compiled(arr([1.0, 2.0, 3.0]), 3.0)
    assert f.eval_shape(arr([1.0, 2.0]), 3.0) == jax.ShapeDtypeStruct((2,), np.float32)


def test_a_stage_and_a_call_inside_another_trace_trace_once():
    # JAX 0.10.2 runs each body once here (its tracing cache holds what .lower traced, at
    # any level); Flax's nnx.tabulate lowers each module's method, then calls it, inside its
    # parent's trace, and counts on it
    runs = []

    @jax.jit
    def inner(x):
        runs.append(1)
        return x * 2

    @jax.jit
    def outer(x):
        inner.lower(x)
        inner.trace(x)
        return inner(x) + inner.eval_shape(x).shape[0]

    np.testing.assert_array_equal(np.asarray(outer(arr([1.0, 2.0]))), [4.0, 6.0])
    assert len(runs) == 1
    outer(arr([1.0, 2.0, 3.0]))                          # new types: once more
    assert len(runs) == 2


@pytest.mark.xla_only("XLA text")
def test_compiled_text_and_cost_are_xlas():
    compiled = jax.jit(lambda x, y: lax.add(lax.mul(x, y), 1.0)).lower(arr([1.0, 2.0]), 3.0).compile()
    assert "HloModule" in compiled.as_text()
    assert compiled.cost_analysis()["flops"] > 0


def test_donation_invalidates_the_input():
    f = jax.jit(lambda x: lax.add(x, 1.0), donate_argnums=0)
    x = arr(np.arange(1024.0))
    y = f(x)
    np.testing.assert_allclose(np.asarray(y), np.arange(1024.0) + 1)
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)
    assert "tf.aliasing_output = 0 : i32" in f.lower(arr(np.arange(1024.0))).as_text()


@pytest.mark.xla_only("XLA compiler")
def test_donation_uses_a_buffer_only_where_a_result_can_take_it():
    # JAX 0.10.2 on CPU (_set_up_aliases): alias a result of the same type, else give the
    # buffer to XLA for a result of as many elements; otherwise warn, and keep the input
    unusable = "Some donated buffers were not usable: float32[4].\nSee an explanation at " \
        "https://docs.jax.dev/en/latest/faq.html#buffer-donation."

    def call(f, *args):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f(*args)
        return [a.is_deleted() for a in args], [str(w.message) for w in caught]
    ones = lambda n=4: arr(np.ones(n))      # noqa: E731
    assert call(jax.jit(lambda x: lax.reduce_sum(x, (0,)), donate_argnums=0), ones()) == \
        ([False], [unusable])
    assert call(jax.jit(lambda x: lax.convert_element_type(x, np.int32), donate_argnums=0),
                ones()) == ([True], [])
    assert call(jax.jit(lambda x, y: lax.add(x, y), donate_argnums=(0, 1)), ones(), ones()) == \
        ([True, False], [unusable])
    assert call(jax.jit(lambda x, y: lax.mul(y, 2.0), donate_argnums=0), ones(), ones()) == \
        ([False, False], [])                 # an unused argument is not donated
    text = jax.jit(lambda x: lax.convert_element_type(x, np.int32), donate_argnums=0).lower(
        ones()).as_text()
    assert "jax.buffer_donor = true" in text


@pytest.mark.xla_only("XLA compiler")
def test_compiler_options_of_a_jit_apply_to_each_compile():
    # JAX's jit(compiler_options=...): XLA's options by name; its own cache, merged under
    # Lowered.compile's options; an unknown name is JaxRuntimeError (JAX 0.10.2's message)
    fun = lambda x: lax.mul(x, 2.0)       # noqa: E731
    f = jax.jit(fun, compiler_options={"xla_cpu_enable_fast_math": False})
    np.testing.assert_array_equal(np.asarray(f(arr([1.0, 2.0]))), [2.0, 4.0])
    assert f._cache is not jax.jit(fun)._cache
    compiled = f.lower(arr([1.0, 2.0])).compile({"xla_cpu_enable_fast_math": True})
    np.testing.assert_array_equal(np.asarray(compiled(arr([3.0, 4.0]))), [6.0, 8.0])
    with pytest.raises(jax.errors.JaxRuntimeError, match="No such compile option: 'xla_bogus'"):
        jax.jit(fun, compiler_options={"xla_bogus": 1})(arr(1.0))


def test_shardings_that_are_all_none_are_unspecified():
    # JAX reads None as "unspecified", also for each leaf (flax.nnx.jit passes a None per
    # argument): a plain jit, no mesh needed
    f = jax.jit(lambda x, y: ({"a": lax.add(x["q"], y)}, y), in_shardings=({"q": None}, None),
                out_shardings=({"a": None}, None))
    out, y = f({"q": arr([1.0, 2.0])}, arr(1.0))
    np.testing.assert_array_equal(np.asarray(out["a"]), [2.0, 3.0])
    assert float(y) == 1.0
    g = jax.jit(lambda x: lax.neg(x), in_shardings=[None], out_shardings=None)
    assert float(g(arr(2.0))) == -2.0


def test_python_scalars_are_weak_and_outputs_keep_structure():
    f = jax.jit(lambda x: (x, {"twice": lax.mul(x, 2)}))
    a, d = f(3)
    assert a.dtype == np.int32 and a.weak_type
    assert int(d["twice"]) == 6


@pytest.mark.xla_only("XLA compiler")
def test_python_scalar_arguments_hit_without_a_transfer_and_keep_their_values(monkeypatch):
    # f(x, 2.0) runs on the fast path with the scalar's buffer kept (xla/array.py
    # scalar_buffers): every value, sign of zero, type and NaN must still reach the program
    from jxkernel.xla import array as xla_array, scalars
    # the kept buffers are per process: an earlier test's 4.0 would be found, not put (the GPU
    # tier's one worker of many ran such a test first)
    monkeypatch.setattr(scalars, "_scalar_buffers", {})
    f = jax.jit(lambda x, a: (lax.div(x, a), a))
    x = arr([1.0, 2.0])
    assert np.asarray(f(x, 2.0)[0]).tolist() == [0.5, 1.0]       # the compile
    f(x, 2.0)                                                     # the fast path's first hit
    puts = []                                           # every transfer of host data
    real_put = xla_array.xc.batched_device_put
    monkeypatch.setattr(xla_array.xc, "batched_device_put",
                        lambda *a: puts.append(a) or real_put(*a))
    for _ in range(3):
        assert np.asarray(f(x, 2.0)[0]).tolist() == [0.5, 1.0]
    assert puts == [] and f._cache_size() == 1                    # kept, not put again
    assert np.asarray(f(x, 4.0)[0]).tolist() == [0.25, 0.5]       # a new value: put once
    assert np.asarray(f(x, 4.0)[0]).tolist() == [0.25, 0.5] and len(puts) == 1
    assert np.asarray(f(x, 0.0)[0]).tolist() == [np.inf, np.inf]
    assert np.asarray(f(x, -0.0)[0]).tolist() == [-np.inf, -np.inf]   # 0.0 == -0.0 in Python
    assert np.isnan(np.asarray(f(x, float("nan"))[0])).all()
    assert np.isnan(np.asarray(f(x, float("nan"))[0])).all()
    ints = jax.jit(lambda a: a)
    for value, dtype, weak in [(1, np.int32, True), (True, np.bool_, False), (1.0, np.float32,
                                                                               True)] * 2:
        out = ints(value)                                # 1 == True == 1.0: each its own type
        assert (out.dtype, out.weak_type, out.item()) == (dtype, weak, value)
    assert ints._cache_size() == 3
    with pytest.raises(OverflowError, match="whose argument path is a"):     # (JAX's words)
        ints(2 ** 40)                                    # the same error on the fast path
    assert ints(7).item() == 7
    with jax.config.override("jax_enable_x64", True):
        assert ints(1.0).dtype == np.float64 and ints(1.0).dtype == np.float64
    assert xla_array._scalar_buffers
    jax.clear_caches()                                   # the kept scalars go with the rest
    assert not xla_array._scalar_buffers


def test_python_scalar_arguments_still_meet_the_transfer_guard():
    f = jax.jit(lambda x, a: lax.mul(x, a))
    x = arr([1.0])
    f(x, 3.0), f(x, 3.0)                                  # compiled, and the scalar kept
    with jax.transfer_guard("disallow"):
        with pytest.raises(RuntimeError, match="host-to-device"):
            f(x, 3.0)
    assert np.asarray(f(x, 3.0)).tolist() == [3.0]


def _jitted_identity_seeing_types():
    """(a jitted identity that notes the type of each x its Python body runs on, the notes)"""
    seen = []

    @jax.jit
    def f(x):
        seen.append(type(x).__name__)
        return x
    return f, seen


def test_disable_jit_runs_python():
    f, seen = _jitted_identity_seeing_types()
    with jax.config.override("jax_disable_jit", True):
        f(arr(1.0))
    assert seen == ["ArrayImpl"]


def test_disable_jit_runs_python_after_the_function_has_compiled():
    f, seen = _jitted_identity_seeing_types()
    x = arr(1.0)
    f(x), f(x), f(x)                          # compiled, then hits (the last one the last hit)
    with jax.config.override("jax_disable_jit", True):
        f(x)
    assert seen == ["DynamicJaxprTracer", "ArrayImpl"]


def test_the_last_hit_serves_only_the_same_argument_types_and_structure():
    traced = []

    @jax.jit
    def f(x):
        traced.append(jax.tree_util.tree_structure(x))
        return jax.tree_util.tree_map(lambda v: lax.mul(v, v), x)
    a = arr([1.0, 2.0])
    for _ in range(3):                        # a compile, a hit by key, a hit by the last hit
        assert np.asarray(f(a)).tolist() == [1.0, 4.0]
    assert f.cache_hits() == 2
    nested = f((a,))                          # the same leaf, inside a tuple: its own entry
    assert isinstance(nested, tuple) and np.asarray(nested[0]).tolist() == [1.0, 4.0]
    assert f(arr([1, 2], np.int32)).dtype == np.int32
    assert f(jax.device_put(2.0)).weak_type and not f(arr(2.0)).weak_type
    assert np.asarray(f(a)).tolist() == [1.0, 4.0] and len(traced) == 5
    f(a)                                      # the last hit again
    with jax.config.override("jax_enable_x64", True):
        f(a)                                  # a changed config is a new signature
    assert len(traced) == 6
    f.clear_cache()
    f(a), f(a)
    assert len(traced) == 7


def test_log_compiles_logs_at_warning(caplog):
    # through logging, as JAX's "Compiling ..." lines (Python's last resort prints them on
    # stderr where nothing is configured); an eager reduction is named for the jit JAX runs
    # it under (jnp.sum's `_reduce_sum`, as JAX 0.10.2 logs "Compiling jit(_reduce_sum)")
    with jax.config.override("jax_log_compiles", True), caplog.at_level("WARNING"):
        jax.jit(lambda x: lax.cos(x))(arr([1.0, 2.0, 3.0, 4.0, 5.0]))
        jnp.sum(arr([1.0, 2.0, 3.0, 4.0, 6.0]))
    mine = [r for r in caplog.records if r.name == "jxkernel.compile_log"]
    assert {r.levelname for r in mine} == {"WARNING"}
    text = "\n".join(r.getMessage() for r in mine)
    # JAX's lines (dispatch.log_elapsed_time, pxla's "Compiling"), the reason added
    assert re.search(r"Finished tracing <lambda> for jit in \d+\.\d{9} sec", text), text
    assert re.search(r"Compiling jit\(<lambda>\) with global shapes and types \(x: f32\[5\]\) "
                     r"because first call", text), text
    assert re.search(r"Finished XLA compilation of jit\(<lambda>\) in \d+\.\d{9} sec", text)
    assert re.search(r"Compiling jit\(_reduce_sum\) with global shapes and types \(a: f32\[5\]",
                     text) \
        and "inner" not in text, text


def test_compile_phases_logged_at_debug_without_log_compiles(caplog):
    # JAX logs its tracing/lowering/compiling lines at DEBUG when jax_log_compiles is off
    # (JAX's api_test test_jit_compilation_time_logging)
    with caplog.at_level("DEBUG", logger="jxkernel.compile_log"):
        jax.jit(lambda x: lax.sin(x) * 3.0)(arr([1.0, 2.0, 7.0]))
    mine = [r for r in caplog.records if r.name == "jxkernel.compile_log"]
    assert {r.levelname for r in mine} == {"DEBUG"}
    text = "\n".join(r.getMessage() for r in mine)
    for words in ("Finished tracing", "Compiling jit(", "Finished jaxpr to MLIR module conversion",
                  "Finished XLA compilation"):
        assert words in text, (words, text)


def test_methods_and_partial():
    class Model:
        scale = 3.0

        @functools.partial(jax.jit, static_argnums=0)
        def apply(self, x):
            return lax.mul(x, self.scale)

        def __hash__(self):
            return 0

        def __eq__(self, other):
            return isinstance(other, Model)
    np.testing.assert_allclose(np.asarray(Model().apply(arr([1.0]))), [3.0])


def test_kwargs_are_dynamic():
    f = jax.jit(lambda x, *, y: lax.sub(x, y))
    np.testing.assert_allclose(np.asarray(f(arr(5.0), y=arr(2.0))), 3.0)


def test_jitted_function_repr_is_jaxs():
    # JAX's C++ PjitFunction's words; Chex's is_traceable looks for "PjitFunction"
    def square(x):
        return x * x
    assert repr(jax.jit(square)) == f"<PjitFunction of {square!r}>"


def test_jitted_function_signature_is_the_functions():
    import inspect

    def foo(x, y=2):
        return x
    assert str(inspect.signature(jax.jit(foo), follow_wrapped=False)) == "(x, y=2)"


def test_jitted_function_type_is_named_as_jaxs():
    # JAX's jit returns a jaxlib PjitFunction; Chex's is_traceable reads str(type(f))
    assert "PjitFunction" in str(type(jax.jit(abs)))


def test_float0_outputs_are_made_outside_the_computation():
    # Equinox's scan tests: a vjp under jit returns float0 cotangents for integer inputs. A
    # compiled computation has no float0 values, so, as in JAX, they are zeros made outside it.
    @jax.jit
    def cotangents(i, x):
        out, pullback = jax.vjp(lambda i, x: x * 2.0 + i, i, x)
        return pullback(jax.numpy.ones_like(out))

    ct_i, ct_x = cotangents(3, np.float32(1.0))
    assert ct_i.dtype == jax.dtypes.float0 and ct_i.shape == () and isinstance(ct_i, np.ndarray)
    assert float(ct_x) == 2.0
    # under another transformation too: the inner jit's float0 output is a constant there
    g = jax.grad(lambda x: cotangents(3, x)[1])(np.float32(1.0))
    assert float(g) == 0.0


# ---------------------------------------------------------------- the cache is keyed on the function
def _traced_and_compiled(fun):
    """(how often fun's Python ran, how many compile events name it)."""
    return fun.calls, sum(1 for e in compile_log.compile_events() if e.function == fun.__name__)


def test_jit_made_anew_each_call_hits_the_cache_of_its_function():
    def scaled_by_three_plus_31(x, n=1):
        scaled_by_three_plus_31.calls += 1
        return x * 3 * n + 31
    scaled_by_three_plus_31.calls = 0
    x = jnp.arange(3.0)

    def helper(x):                    # a jit written inside a helper, called in a loop
        return jax.jit(scaled_by_three_plus_31)(x)
    outs = [helper(x) for _ in range(20)]
    assert _traced_and_compiled(scaled_by_three_plus_31) == (1, 1)
    np.testing.assert_array_equal(np.asarray(outs[-1]), [31, 34, 37])
    # static arguments are part of the key; other jit options make a cache of their own
    static = [jax.jit(scaled_by_three_plus_31, static_argnums=1)(x, n) for n in (2, 2, 2, 3)]
    assert _traced_and_compiled(scaled_by_three_plus_31) == (3, 3)
    np.testing.assert_array_equal(np.asarray(static[-1]), [31, 40, 49])
    # under grad, the trace made by the top-level call is found again, as in JAX
    g = [jax.grad(lambda v: jax.jit(scaled_by_three_plus_31)(v).sum())(x) for _ in range(3)]
    assert scaled_by_three_plus_31.calls == 3
    jax.grad(lambda v: jax.jit(scaled_by_three_plus_31)(v).sum())(1.0)     # a new signature
    jax.grad(lambda v: jax.jit(scaled_by_three_plus_31)(v).sum())(2.0)
    assert scaled_by_three_plus_31.calls == 4
    jax.jit(scaled_by_three_plus_31)(2.0)      # and a top-level call finds grad's trace
    assert scaled_by_three_plus_31.calls == 4
    np.testing.assert_array_equal(np.asarray(g[-1]), [3, 3, 3])
    # a function made anew (a lambda in a loop) is a new key, as in JAX
    for _ in range(2):
        jax.jit(lambda v: v + 31.5)(x)
    fresh = [e for e in compile_log.compile_events() if e.function == "<lambda>"][-2:]
    assert [c.kind for c in fresh[-1].changes] == ["fresh_jit"]


def test_a_function_keeps_a_bounded_amount_of_constants_on_device(monkeypatch):
    """Each compiled signature has its own device copy of a closed-over NumPy constant: past
    jit_cache.CONSTANTS bytes the least recently used signatures go, from the fast path too,
    and their copies are freed (issue 45). An evicted signature compiles again when called."""
    import gc
    from jxkernel.transforms.jit import cache as jit_cache
    monkeypatch.setattr(jit_cache, "CONSTANTS", 20 << 20)          # two 8 MiB copies
    table = np.arange(2 << 20, dtype=np.float32)                   # 8 MiB, 2M elements
    f = jax.jit(lambda x: x.sum() + jnp.asarray(table)[3])
    for n in range(1, 6):
        assert float(f(jnp.ones(n))) == n + 3.0
    gc.collect()
    assert f._cache_size() == 2 and len(f._fast) == 2
    assert sum(1 for a in jax.live_arrays() if a.size == table.size) == 2
    assert float(f(jnp.ones(1))) == 4.0                            # dropped: compiled anew


# JAX 0.10.2's make_jaxpr and eval_shape are a jit's trace: their errors are jit's, word for word
# (each text below printed by JAX for the same program)
def test_make_jaxpr_and_eval_shape_errors_are_jits():
    def branch(x):
        return x if x > 0 else -x
    for trace in (lambda: jax.make_jaxpr(branch)(1.0), lambda: jax.eval_shape(branch, 1.0)):
        with pytest.raises(jax.errors.TracerBoolConversionError) as info:
            trace()
        assert str(info.value).splitlines()[1].startswith(
            "The error occurred while tracing the function branch at ")
        assert str(info.value).splitlines()[1].endswith(      # not "for make_jaxpr"
            " for jit. This concrete value was not available in Python because it depends on "
            "the value of the argument x.")

    def text(x):
        return "a"
    for call in (lambda: jax.jit(text)(1.0), lambda: jax.make_jaxpr(text)(1.0),
                 lambda: jax.eval_shape(text, 1.0)):
        with pytest.raises(TypeError, match=r"^function text at .*test_jit\.py:\d+ traced for jit "
                                            r"returned a value of type <class 'str'>, which is "
                                            r"not a valid JAX type$"):
            call()
    with pytest.raises(ValueError, match=r"^Jitted function has static_argnums=\(3,\), but only "
                                         r"accepts 1 positional arguments\.$"):
        jax.make_jaxpr(lambda x: x, static_argnums=3)(1.0)      # (it traced x as a constant)
    with pytest.raises(ValueError) as info:
        jax.make_jaxpr(lambda x, n: x, static_argnums=1)(1.0, [1])
    assert str(info.value) == ("Non-hashable static arguments are not supported. An error "
                               "occurred while trying to hash an object of type <class 'list'>, "
                               "[1]. The error was:\nTypeError: unhashable type: 'list'\n")
    with pytest.raises(TypeError, match=r"^the first argument must be callable$"):
        jax.make_jaxpr(3)


def test_eval_shape_checks_key_reuse_as_jit_does():
    def twice(k):
        return jax.random.normal(k) + jax.random.normal(k)
    with jax.debug_key_reuse(True):
        with pytest.raises(jax.errors.KeyReuseError, match="In jit, argument 0 is already consumed"):
            jax.eval_shape(twice, jax.random.key(0))


def test_a_nested_jit_returning_a_closed_over_float64_array_gives_its_canonical_dtype():
    # JAX's generated_fun_test: a jit inside a jit returns a NumPy float64 array it closed
    # over; with x64 off the result is float32 on the device too (its buffer was float64
    # under a float32 type, and the next jit taking it failed in XLA)
    d = np.random.RandomState(0).randn(2, 2)
    out = jax.jit(lambda x: jax.jit(lambda: d)())(1.0)
    assert out.dtype == np.float32 and np.asarray(out).dtype == np.float32
    assert bool(jnp.allclose(out, d)) and bool(jax.jit(jnp.allclose)(out, d))


def test_the_state_other_modules_keep_on_a_jit_is_declared_when_it_is_made():
    # (set_jit_shardings declares it, None or False; sharded.py, pjit and pmap fill it later)
    f = jax.jit(abs)
    kept = ("_none_trees", "_sharding_key", "_constraint_mesh", "_with_refs", "_pjit",
            "_keeps_moved_donors")
    assert {name: vars(f).get(name, "missing") for name in kept} == dict(
        _none_trees=None, _sharding_key=None, _constraint_mesh=None, _with_refs=None,
        _pjit=False, _keeps_moved_donors=False)
    assert type(f).__dict__["_looked_up"] is None      # (a class default: copies leave it out)
    f(1.0)
    assert "_looked_up" in vars(f) and "_looked_up" not in f.__getstate__()


@pytest.mark.xla_only("CPU platform")
def test_device_and_backend_on_jit_warn_as_jax_does():
    """JAX 0.10.2 warns that jit's device= and backend= are deprecated (its words, run by
    hand), at the line that made the jit (a decorator's too), and not for a plain jit."""
    words = ('backend and device argument on jit is deprecated. You can use '
             '`jax.device_put(..., jax.local_devices(backend="cpu")[0])` on the inputs to the '
             'jitted function to get the same behavior.')
    for made in (lambda: jax.jit(jnp.sin, device=jax.devices("cpu")[0]),
                 lambda: jax.jit(backend="cpu")(jnp.sin)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            made()
        assert [(w.category, str(w.message), w.filename) for w in caught] == \
            [(DeprecationWarning, words, __file__)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jax.jit(jnp.sin)
