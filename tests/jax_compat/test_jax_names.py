"""Names and texts user code reads, as JAX 0.10.2 has them (issue 17): the concrete array
class's name, the `float32[2,3]` form of an aval next to jaxprs' short `f32[2,3]`, the line
jax_debug_nans prints before rerunning op by op, and `Lowered.in_info`/`out_info`."""
import doctest

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import xla
from jax_edges_cases import (cond_forwarding, custom_vjp_cases, mistakes, trace_counts,
                             tracer_prints)
import locations  # tests/support: the repository's folders


# ================================================================== ArrayImpl
def test_concrete_arrays_are_named_arrayimpl_and_print_as_array():
    x = jnp.arange(3)
    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("i",))        # an Array over a mesh
    on_devices = jax.device_put(np.float32(2), jax.sharding.NamedSharding(
        mesh, jax.sharding.PartitionSpec()))
    for a in (x, x.at[0].set(5), jax.jit(lambda v: v * 2)(x), on_devices,
              jax.lax.fori_loop(0, 0, lambda i, c: c + 1, 4)):
        assert type(a).__name__ == "ArrayImpl"
        assert isinstance(a, jax.Array) and isinstance(a, jnp.ndarray)
        assert repr(a).startswith("Array(")
        assert type(a) is type(x)             # one class for every layout, as JAX's ArrayImpl
    assert type(on_devices.sharding).__name__ == "NamedSharding"
    assert type(x).__module__ == "jxkernel.xla.array"
    assert xla.array.Array is xla.array.ArrayImpl        # the name jxkernel's modules import
    assert type(x) is not jax.Array and not isinstance(1.0, jax.Array)


# ================================================================== jax_debug_nans
_RERUN = ("Invalid nan value encountered in the output of a jax.jit function. "
          "Calling the de-optimized version.")


def test_debug_nans_prints_jaxs_line_for_each_compiled_computation_that_made_a_nan(capsys):
    inner = jax.jit(lambda y: jnp.sqrt(y))
    outer = jax.jit(lambda x: inner(x) * 2)
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in sqrt"):
            jnp.sqrt(-1.0)
        assert capsys.readouterr().out.splitlines() == [_RERUN]
        # outer's output, then inner's (the rerun runs jits inside compiled), then sqrt's
        with pytest.raises(FloatingPointError, match=r"encountered in sqrt"):
            outer(-1.0)
        assert capsys.readouterr().out.splitlines() == [_RERUN] * 3
        assert float(outer(4.0)) == 4.0 and capsys.readouterr().out == ""
    with jax.debug_infs(True):                     # JAX says "nan" for an inf too
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in log"):
            jnp.log(0.0)
        assert capsys.readouterr().out.splitlines() == [_RERUN]


# ================================================================== aval texts
def test_avals_print_long_as_jax_and_jaxprs_keep_the_short_form():
    x = jnp.ones((2, 3))
    aval = jax.typeof(x)
    assert (str(aval), f"{aval}", aval.str_short(), aval.str_short(short_dtypes=True),
            repr(aval)) == ("float32[2,3]", "float32[2,3]", "float32[2,3]", "f32[2,3]",
                            "ShapedArray(float32[2,3])")
    assert [str(jax.typeof(v)) for v in (1.0, jnp.int8(3), jnp.zeros(2, bool))] == \
        ["~float32[]", "int8[]", "bool[2]"]
    b16 = jax.typeof(jnp.ones(2, jnp.bfloat16))         # a void-kind dtype that is not float0
    assert (str(b16), str(b16.update(dtype=jax.dtypes.float0))) == ("bfloat16[2]", "float0[2]")
    text = str(jax.make_jaxpr(lambda v: (v * 2).sum())(x))
    assert "a:f32[2,3]" in text and "float32[" not in text
    with pytest.raises(TypeError, match=r"compiled with float32\[2,3\] and called with float32\[3\]"):
        jax.jit(lambda v: v).lower(x).compile()(jnp.ones(3))


def test_docstring_examples_of_aval_str_and_lowered_out_info():
    from jxkernel.core import avals
    from jxkernel.transforms.jit import function, stages   # (jit's module: its names as globals)
    for obj, module in ((avals.ShapedArray.__str__, avals), (stages.Lowered.out_info, function)):
        tests = doctest.DocTestFinder().find(obj.fget if isinstance(obj, property) else obj,
                                             globs={**vars(module), "np": np, "jax": jax})
        runner = doctest.DocTestRunner()
        for t in tests:
            runner.run(t)
        assert runner.summarize(verbose=False) == (0, 1)


# ================================================================== Traced/Lowered/Compiled
def test_out_info_of_traced_lowered_and_compiled_as_jax():
    def f(x, y, n=1):
        return {"a": jnp.tanh(x) * y * n, "b": (x, 2)}
    traced = jax.jit(f, static_argnums=2).trace(jnp.ones((2, 3)), 1.0, 2)
    lowered = traced.lower()
    sds = jax.ShapeDtypeStruct
    assert traced.out_info == {"a": sds((2, 3), np.float32),
                               "b": (sds((2, 3), np.float32), sds((), np.int32, weak_type=True))}
    assert lowered.out_info == {"a": sds((2, 3), np.float32),     # lowering drops weak types
                                "b": (sds((2, 3), np.float32), sds((), np.int32))}
    on_cpu = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    assert lowered.compile().out_info == jax.tree.map(lambda s: s.update(sharding=on_cpu),
                                                      lowered.out_info)
    assert jax.jit(lambda x: None).lower(1.0).out_info is None
    assert not hasattr(lowered, "in_info")                         # nor has JAX 0.10.2's


# ---------------------------------------------------------------- exceptions and tracer reprs
# (the programs of tests/data/jax_edges_cases.py against tests/data/jax_edges_reference.json)
# Where jxkernel's message (first line) still differs from JAX 0.10.2's; the class is the same.
MESSAGE_DIFFERS = {
    "vjp_pullback_splatted": "ours says it on one line, with the fix",
}


def _reference():
    return locations.recorded("jax_edges_reference.json")


def _raised(thunk):
    with pytest.raises(Exception) as info:
        thunk()
    return [type(info.value).__name__, str(info.value).strip().splitlines()[0]]


def test_common_mistakes_raise_jaxs_exception_classes_and_messages():
    expected = _reference()["mistakes"]
    got = {name: _raised(thunk) for name, thunk in mistakes(jax).items()}
    assert sorted(got) == sorted(expected)
    assert {n: g[0] for n, g in got.items()} == {n: e[0] for n, e in expected.items()}
    assert {n: g[1] for n, g in got.items() if n not in MESSAGE_DIFFERS} == \
        {n: e[1] for n, e in expected.items() if n not in MESSAGE_DIFFERS}


def test_tracers_print_as_in_jax():
    assert tracer_prints(jax) == _reference()["tracer_prints"]


def test_control_flow_bodies_are_traced_as_often_as_in_jax():
    # a body traced once per input types, across calls and retraces of an enclosing jit
    assert trace_counts(jax) == _reference()["trace_counts"]


def test_cond_hands_back_an_input_every_branch_returns_as_jax():
    # pruned from the equation (so unbatched under vmap when the input is), an Array
    assert cond_forwarding(jax) == _reference()["cond_forwarding"]


def test_custom_vjp_takes_prefix_cotangents_and_runs_fwd_where_jax_does():
    assert custom_vjp_cases(jax) == _reference()["custom_vjp"]
