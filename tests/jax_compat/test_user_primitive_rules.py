"""The rule tables of jxkernel.interpreters (jax.interpreters.*) for primitives defined outside
jxkernel, as libraries built on JAX (Equinox's filter primitives) fill them."""
import numpy as np
import pytest
import user_lowering_cases

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.extend.core import Primitive
from jxkernel.interpreters import ad, batching
import locations  # tests/support: the repository's folders


def _scaled_sum_primitive(name):
    """out = [sum(x) * scale]: one result per call, multiple_results as Equinox's."""
    p = Primitive(name)
    p.multiple_results = True
    p.def_impl(lambda x, *, scale: [jnp.sum(x) * scale])
    p.def_abstract_eval(lambda x, *, scale: [jxkernel.core.ShapedArray((), x.dtype)])
    return p


def test_axis_primitive_batchers_get_the_axis_size_and_name_even_when_nothing_is_batched():
    p = _scaled_sum_primitive("scaled_sum_axis_batched")
    seen = []

    def rule(axis_size, axis_name, trace_type, args, dims, *, scale):
        seen.append((axis_size, axis_name, trace_type, dims))
        (x,), (d,) = args, dims
        if d is None:          # unbatched: one result for every element of the axis
            return [jnp.broadcast_to(p.bind(x, scale=scale)[0], (axis_size,))], [0]
        return [jnp.sum(jnp.moveaxis(x, d, 0), axis=1) * scale], [0]

    batching.axis_primitive_batchers[p] = rule
    xs = jnp.arange(6.0).reshape(2, 3)
    out = jxkernel.vmap(lambda x: p.bind(x, scale=2.0)[0], axis_name="i")(xs)
    np.testing.assert_array_equal(out, [6.0, 24.0])
    out = jxkernel.vmap(lambda _: p.bind(xs[0], scale=1.0)[0], axis_size=4)(None)
    np.testing.assert_array_equal(out, [3.0] * 4)
    assert seen == [(2, "i", None, (0,)), (4, None, None, (None,))]


def test_fancy_primitive_batchers_get_axis_data():
    p = _scaled_sum_primitive("scaled_sum_fancy_batched")

    def rule(axis_data, args, dims, *, scale):
        (x,), (d,) = args, dims
        return [jnp.sum(jnp.moveaxis(x, d, 0), axis=1) * scale * axis_data.size], [0]

    batching.fancy_primitive_batchers[p] = rule
    assert p in batching.fancy_primitive_batchers
    out = jxkernel.vmap(lambda x: p.bind(x, scale=1.0)[0], in_axes=1)(jnp.ones((3, 2)))
    np.testing.assert_array_equal(out, [6.0, 6.0])
    del batching.fancy_primitive_batchers[p]
    assert p not in batching.fancy_primitive_batchers



def test_rules_written_for_jax_get_tuples():
    # JAX unzips its tracers into tuples; the primitives guide prints what its rules receive
    seen = {}
    p = Primitive("tuple_args_doc")
    p.def_impl(lambda x, y: x + y)
    p.def_abstract_eval(lambda x, y: x)

    def jvp(primals, tangents):
        seen["jvp"] = (type(primals), type(tangents))
        return p.bind(*primals), p.bind(*tangents)

    def batch(args, dims):
        seen["batch"] = (type(args), type(dims))
        return p.bind(*args), dims[0]

    ad.primitive_jvps[p] = jvp
    batching.primitive_batchers[p] = batch
    jxkernel.jvp(p.bind, (1.0, 2.0), (1.0, 1.0))
    jxkernel.vmap(p.bind)(np.ones(2), np.ones(2))
    assert seen == {"jvp": (tuple, tuple), "batch": (tuple, tuple)}


@pytest.mark.xla_only("XLA text")    # users' lowering rules: StableHLO, no NumPy rule
def test_lowering_rules_built_with_hlo_ops_as_the_primitives_guide_writes_them():
    import pytest
    from jxkernel._src.lib.mlir.dialects import hlo
    from jxkernel.interpreters import mlir

    p = Primitive("multiply_add_hlo")
    p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
    p.def_abstract_eval(lambda x, y, z: x)
    mlir.register_lowering(p, lambda ctx, x, y, z: [hlo.AddOp(hlo.MulOp(x, y), z).result],
                           platform="cpu")
    f = jxkernel.jit(lambda x, y: p.bind(x, x, y))
    assert float(f(2.0, 10.0)) == 14.0
    assert float(jxkernel.jit(lambda x, y: p.bind(x, x, y), static_argnums=1)(2.0, 10.0)) == 14.0
    assert "stablehlo.multiply" in f.lower(2.0, 10.0).as_text()

    q = Primitive("sine_plus_hlo")
    q.def_abstract_eval(lambda x: x)
    mlir.register_lowering(q, lambda ctx, x: [hlo.add(hlo.sine(x), x)])
    np.testing.assert_allclose(jxkernel.jit(q.bind)(np.float32([0.5, 1.0])),
                               np.sin([0.5, 1.0]) + [0.5, 1.0], rtol=1e-6)
    with pytest.raises(RuntimeError, match="inside a lowering rule"):
        hlo.AddOp(1, 2)
    r = Primitive("mixed_types_hlo")
    r.def_abstract_eval(lambda x, y: x)
    mlir.register_lowering(r, lambda ctx, x, y: [hlo.AddOp(x, y).result])
    with pytest.raises(TypeError, match="operands of one type"):
        jxkernel.jit(r.bind)(np.ones(2, np.float32), np.float32(1))


@pytest.mark.xla_only("XLA text")    # users' lowering rules: StableHLO, no NumPy rule
def test_rules_in_an_export_see_its_lowering_and_may_be_overridden():
    """What export_test asks of users' rules in jax.export: `_override_lowering_rules` built
    with jax._src's hlo builders (they had no context outside a registered rule), a custom
    call built with hlo.CustomCallOp refused unless its target's check is disabled, and
    `ctx.module_context.lowering_parameters` saying whether the lowering is an export's."""
    from jxkernel import export
    from jxkernel._src import config
    from jxkernel._src.interpreters import mlir as src_mlir
    from jxkernel._src.lib.mlir.dialects import hlo
    from jxkernel.interpreters import mlir

    f = jxkernel.jit(jnp.sin)
    sin_p = jxkernel.make_jaxpr(jnp.sin)(1.0).eqns[0].primitive
    as_cos = ((sin_p, lambda ctx, x, **_: [src_mlir.hlo.cosine(x)]),)
    text = export.export(f, _override_lowering_rules=as_cos)(1.0).mlir_module()
    assert "stablehlo.cosine" in text and "stablehlo.sine" not in text
    assert "stablehlo.sine" in export.export(f)(1.0).mlir_module()       # that export only
    lowered = f.trace(1.0).lower(_private_parameters=src_mlir.LoweringParameters(
        override_lowering_rules=as_cos))
    assert "stablehlo.cosine" in lowered.as_text()

    p = Primitive("calls_a_kernel_by_name")
    p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(p, lambda ctx, x: hlo.CustomCallOp([x.type], [x], "my_kernel")
                           .results)
    g = jxkernel.jit(lambda a: a + p.bind(a))
    with pytest.raises(ValueError, match="(?s)Cannot serialize code with custom calls whose "
                                         "targets .*my_kernel"):
        export.export(g)(np.ones(3, np.float32))
    allowed = export.export(g, disabled_checks=[export.DisabledSafetyCheck.custom_call(
        "my_kernel")])(np.ones(3, np.float32))
    assert "my_kernel" in allowed.mlir_module()

    seen = []
    q = Primitive("reads_its_lowering_parameters")
    q.def_abstract_eval(lambda x: x)

    def rule(ctx, x):
        params = ctx.module_context.lowering_parameters
        seen.append((params.for_export, params.hoist_constants_as_args,
                     params.export_ignore_forward_compatibility))
        return [hlo.add(x, x)]
    mlir.register_lowering(q, rule, cacheable=False)
    h = jxkernel.jit(q.bind)
    h.lower(1.0)
    export.export(h)(1.0)
    with config.export_ignore_forward_compatibility(True):
        export.export(h)(1.0)
    assert seen == [(False, False, False), (True, False, False), (True, False, True)]


@pytest.mark.xla_only("XLA text")    # users' lowering rules: StableHLO, no NumPy rule
def test_a_rule_for_some_platforms_lowers_its_inner_equations_for_its_platform_alone():
    """A rule registered per platform that lowers other primitives (`mlir.lower_fun`), each
    with a rule for its own platforms only (Pallas's way): in a module for several platforms
    the inner equations lower for the rule's platform alone, as in JAX (they were lowered for
    every platform, and refused where they have no rule)."""
    from jxkernel import export
    from jxkernel._src.lib.mlir.dialects import hlo
    from jxkernel.interpreters import mlir

    def times(n):
        def rule(ctx, x):
            out = x
            for _ in range(n - 1):
                out = hlo.add(out, x)
            return [out]
        return rule
    double, triple = Primitive("doubles_on_the_cpu"), Primitive("triples_on_gpus")
    outer = Primitive("doubles_or_triples")
    for p in (double, triple, outer):
        p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(double, times(2), "cpu")
    mlir.register_lowering(triple, times(3), "cuda")
    mlir.register_lowering(outer, mlir.lower_fun(double.bind, multiple_results=False), "cpu")
    mlir.register_lowering(outer, mlir.lower_fun(triple.bind, multiple_results=False), "cuda")
    exp = export.export(jxkernel.jit(outer.bind), platforms=["cpu", "cuda"])(np.float32(5))
    assert float(exp.call(np.float32(5))) == 10.0
    assert exp.mlir_module().count("stablehlo.case") == 2   # the rule's index, its lowering


@pytest.mark.xla_only("XLA text")    # users' lowering rules: StableHLO, no NumPy rule
def test_hlo_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel._src.lib.mlir.dialects.hlo")


@pytest.mark.xla_only("XLA text")    # users' lowering rules: StableHLO, no NumPy rule
def test_lowering_rules_emit_python_callbacks_as_jaxs():
    # Equinox's noinline lowers its primitive with mlir.emit_python_callback: operands in the
    # order it chooses (their avals given), NumPy in, results checked; (results, token, keepalive)
    import pytest
    from jxkernel.interpreters import mlir

    seen = []

    def host(n, x):
        seen.append((type(n), n.dtype, type(x)))
        return (x * n + 0.5, np.float64(n.item()))    # float64 is canonicalized to float32

    p = Primitive("host_scale_and_count")
    p.multiple_results = True
    p.def_abstract_eval(lambda x, n: [x, jxkernel.core.ShapedArray((), np.float32)])

    def rule(ctx, x, n):        # operands in the other order than the equation's inputs
        outs, token, keep = mlir.emit_python_callback(
            ctx, host, None, [n, x], ctx.avals_in[::-1], ctx.avals_out, has_side_effect=False)
        assert token is None
        ctx.module_context.add_keepalive(keep)
        return outs
    mlir.register_lowering(p, rule)
    y, m = jxkernel.jit(p.bind)(np.float32([1.0, 2.0]), np.int32(3))
    assert y.tolist() == [3.5, 6.5] and float(m) == 3.0 and m.dtype == np.float32
    assert seen == [(np.ndarray, np.dtype(np.int32), np.ndarray)]

    bad = Primitive("host_wrong_shape")
    bad.def_abstract_eval(lambda x: x)
    mlir.register_lowering(bad, lambda ctx, x: mlir.emit_python_callback(
        ctx, lambda x: (x[:1],), None, [x], ctx.avals_in, ctx.avals_out,
        has_side_effect=False)[0])
    with pytest.raises(Exception, match=r"Incorrect output shape for return value #0"):
        jxkernel.jit(bad.bind)(np.float32([1.0, 2.0])).block_until_ready()


# the cases register their lowerings for the CPU alone (as JAX's guide does)
@pytest.mark.cpu_only("CPU backend")
@pytest.mark.xla_only("XLA text")    # users' lowering rules: StableHLO, no NumPy rule
@pytest.mark.parametrize("program", [p.__name__ for p in user_lowering_cases.PROGRAMS])
def test_lowering_rules_are_called_as_jaxs_lowering_cache_calls_them(program):
    # JAX 0.10.2 lowers a cacheable rule into a function of its own, once per module and
    # (primitive, input types, parameters): an equal equation does not call it again, and its
    # operands are that function's arguments (the primitives guide prints them: cells 11-24)
    ours = getattr(user_lowering_cases, program)(jxkernel)
    assert ours == locations.recorded("user_lowering_reference.json")[program]
