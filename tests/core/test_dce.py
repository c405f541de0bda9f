"""Dead-code elimination (core/dce.py) as jit applies it: what JAX 0.10.2 does for the same
programs (run by hand: the same custom_call counts, calls and prints)."""
import numpy as np
import pytest
from doc_examples import check_docstring_examples

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.core.dce import dce_jaxpr
from jxkernel.experimental import io_callback
from jxkernel.sharding import NamedSharding, PartitionSpec

F32 = jax.ShapeDtypeStruct((), jnp.float32)


def _effects_and_dead_code(calls):
    def record(kind):
        def callback(x):
            calls.append((kind, float(x)))
            return np.float32(x)
        return callback

    def f(x):
        io_callback(record("io"), F32, x)           # results unused: runs all the same
        jax.pure_callback(record("pure"), F32, x)   # results unused: dropped
        jax.debug.print("seen {}", x)               # no results: an effect
        jnp.sin(x)                                  # dead
        return x * 2
    return f


def test_jit_drops_dead_equations_and_keeps_effects(capfd):
    calls = []
    f = _effects_and_dead_code(calls)
    assert float(jax.jit(f)(1.0)) == 2.0
    assert calls == [("io", 1.0)] and "seen 1.0" in capfd.readouterr().out
    text = jax.jit(f).lower(1.0).as_text()
    assert text.count("custom_call") == 2 and "sine" not in text     # JAX 0.10.2: the same


def test_keep_unused_keeps_the_dead_equations():
    calls = []
    f = _effects_and_dead_code(calls)
    text = jax.jit(f, keep_unused=True).lower(1.0).as_text()
    assert text.count("custom_call") == 3 and "stablehlo.sine" in text  # JAX 0.10.2: the same
    assert float(jax.jit(f, keep_unused=True)(1.0)) == 2.0
    assert calls == [("io", 1.0)]        # XLA drops a pure callback nothing reads


def test_an_effect_inside_a_dead_nested_jit_keeps_it():
    calls = []

    def g(x):
        jax.jit(lambda y: io_callback(lambda v: calls.append(float(v)) or np.float32(v), F32,
                                      y))(x)
        return x
    assert float(jax.jit(g)(3.0)) == 3.0 and calls == [3.0]


def test_dce_jaxpr_keeps_inputs_and_returns_the_same_jaxpr_when_nothing_is_dead():
    jaxpr = jax.make_jaxpr(lambda x, y: (jnp.cos(x), jnp.sin(y))[0])(1.0, 2.0).jaxpr
    pruned = dce_jaxpr(jaxpr)
    assert [e.primitive.name for e in pruned.eqns] == ["cos"]
    assert pruned.invars == jaxpr.invars and pruned.outvars == jaxpr.outvars
    assert dce_jaxpr(pruned) is pruned


def test_the_docstring_example_is_true():
    check_docstring_examples("jxkernel.core.dce", {"make_jaxpr": jax.make_jaxpr, "grad": jax.grad})


@pytest.mark.xla_only("sharded arrays")
def test_a_jit_over_a_mesh_drops_them_too():
    mesh = jax.make_mesh((1,), ("x",))
    sharding = NamedSharding(mesh, PartitionSpec("x"))

    def f(x):
        jnp.sin(x)                                  # dead
        return x * 2
    assert "sine" not in jax.jit(f, in_shardings=sharding).lower(jnp.ones(4)).as_text()
    kept = jax.jit(f, in_shardings=sharding, keep_unused=True).lower(jnp.ones(4)).as_text()
    assert "stablehlo.sine" in kept


def _no_results_primitive():
    # a library's primitive without results, effects or lowering (shard_map_test's
    # test_check_rep_false_doesnt_hit_rep_rules)
    from jxkernel._jax._src import core
    prim = core.Primitive("noresults")
    prim.multiple_results = True
    prim.def_impl(lambda: [])
    prim.def_abstract_eval(lambda: [])
    return prim


def test_a_library_primitive_without_results_or_effects_is_dead_code():
    # JAX 0.10.2 (run 2026-11-30): make_jaxpr keeps the equation, jit drops it (nothing to
    # lower), and so does an eager or jitted shard_map body; jxkernel's own primitives
    # without results (debug_print) stay, as test_jit_drops_dead_equations_and_keeps_effects
    prim = _no_results_primitive()

    def f(x):
        prim.bind()
        return x * 2
    assert str(jax.make_jaxpr(f)(1.0)) == \
        "{ lambda ; a:f32[]. let noresults ; b:f32[] = mul a 2.0:f32[] in (b,) }"
    assert float(jax.jit(f)(1.0)) == 2.0
    assert "noresults" not in jax.jit(f).lower(1.0).as_text()

    def body():
        prim.bind()
    mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Auto,),
                         devices=jax.devices()[:1])
    g = jax.shard_map(body, mesh=mesh, in_specs=(), out_specs=None, check_vma=False)
    assert g() is None and jax.jit(g)() is None
