"""jxkernel.extend.core, jxkernel.experimental.io_callback, print_saved_residuals, shardings,
typed keys and ShapeDtypeStruct, against what JAX 0.10.2 gives for the same programs
(tests/data/extend_experimental_cases.py, recorded by
reference/make_extend_experimental_reference.py)."""
import functools

import extend_experimental_cases as cases
import numpy as np
import pytest
from numerics import assert_matches_recorded

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.extend import core
import backend_tier  # tests/support: which backend this run's programs run on
import locations  # tests/support: the repository's folders

# Floats come through tanh, exp, sin and sums (eager, jitted, differentiated): within the sum
# bound (REDUCTION), measured at each result's largest magnitude: assert_matches_recorded.


@functools.cache
def _reference() -> dict:
    return locations.jax_answers("extend_experimental_reference.json")


@functools.cache
def _ours() -> dict:
    import jxkernel.experimental  # noqa: F401  (as `import jax.experimental` would)
    return cases.run(jxkernel)


# On the NumPy backend a primitive with no lowering rule is refused in JAX's words up to
# "not found", then how it runs there instead (xla/numpy_backend.py, _check_numpy_rules)
NOT_FOUND = "MLIR translation rule for primitive 'multiply_add' not found"


def _answers_here(program: str, ours: dict) -> dict:
    """JAX's answers as this backend gives them: devices named as it names them
    (backend_tier.devices_named_here) and, on the NumPy backend, that refusal's text."""
    want = backend_tier.devices_named_here(_reference()[program])
    if backend_tier.on_numpy_backend() and program == "user_primitive":
        (cls, said), (want_cls, want_said) = ours["jit_no_lowering"], want["jit_no_lowering"]
        assert want_said.startswith(NOT_FOUND) and said.startswith(
            f"{NOT_FOUND} (in jit(<lambda>)), as XLA says it; on the 'numpy' backend"), said
        want = {**want, "jit_no_lowering": [want_cls, said]}
    return want


@pytest.mark.parametrize("program", [p.__name__ for p in cases.PROGRAMS])
def test_program_matches_jax(program):
    assert_matches_recorded(_ours()[program], _answers_here(program, _ours()[program]), program)


def test_user_primitive_with_every_rule_works_under_jit_grad_and_vmap():
    """JAX's "How primitives work" tutorial: multiply_add given each rule through
    jxkernel.interpreters, then jitted (lowered as a function of jnp operations),
    differentiated in both modes (its jvp binds it again; its transpose sees UndefinedPrimal)
    and vmapped."""
    from jxkernel.interpreters import ad, batching, mlir
    p = core.Primitive("multiply_add_test")
    prim = lambda x, y, z: p.bind(x, y, z)                         # noqa: E731
    p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
    p.def_abstract_eval(lambda x, y, z: jxkernel.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, mlir.lower_fun(lambda x, y, z: x * y + z, False), platform="cpu")

    def jvp(primals, tangents):
        (x, y, z), (xt, yt, zt) = primals, map(ad.instantiate_zeros, tangents)
        return prim(x, y, z), prim(xt, y, prim(x, yt, zt))

    def transpose(ct, x, y, z):        # y: the constant 3.0 below, a literal of the jaxpr
        if ad.is_undefined_primal(x):
            return prim(ct, y, jnp.zeros_like(y)), None, ct
        if ad.is_undefined_primal(y):
            return None, prim(x, ct, jnp.zeros_like(x)), ct
        return None, None, ct

    ad.primitive_jvps[p] = jvp
    ad.primitive_transposes[p] = transpose
    batching.primitive_batchers[p] = lambda args, dims: (prim(*args), dims[0])
    x = jnp.array([0.5, 2.0], jnp.float32)
    assert np.asarray(jxkernel.jit(prim)(x, x, 1.0)).tolist() == [1.25, 5.0]    # exact
    assert np.asarray(jxkernel.vmap(prim)(x, x, x)).tolist() == [0.75, 6.0]
    closed = jxkernel.make_jaxpr(lambda a: prim(a, 3.0, a))(x)     # the impl sees 3.0, not
    assert np.asarray(core.jaxpr_as_fun(closed)(x)[0]).tolist() == [2.0, 8.0]   # a Literal
    _, tangent = jxkernel.jvp(lambda a: prim(a, a, a), (x,), (jnp.ones(2),))
    assert np.asarray(tangent).tolist() == [2.0, 5.0]                        # 2a + 1
    grads = jxkernel.grad(lambda a, b: prim(a, b, b).sum(), argnums=(0, 1))(x, x)
    assert [np.asarray(g).tolist() for g in grads] == [[0.5, 2.0], [1.5, 3.0]]
    assert np.asarray(jxkernel.jit(jxkernel.grad(lambda a: prim(a, 3.0, a).sum()))(x)).tolist() \
        == [4.0, 4.0]
    # a lowering registered for CPU alone is not one for another platform (named as JAX's)
    with pytest.raises(NotImplementedError, match="not found for platform cuda"):
        from jxkernel.core.primitive import lowering_rules
        lowering_rules[p](type("Ctx", (), {"platform": "gpu"})(), x, x, x)
    # a user primitive of an existing name does not replace lax's in the registry
    from jxkernel.core.primitive import all_primitives
    assert core.Primitive("sin") is not core.primitives.sin_p
    assert all_primitives["sin"] is core.primitives.sin_p


def test_extend_core_helpers():
    closed = jxkernel.make_jaxpr(lambda x: jxkernel.lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.0)
    inner = list(core.subjaxprs(closed.jaxpr))
    assert [str(j.eqns[0].primitive) for j in inner] == ["cos", "sin"]
    assert all(isinstance(j, core.Jaxpr) for j in core.jaxprs_in_params(closed.eqns[-1].params))
    a = jxkernel.core.ShapedArray((3, 4), np.float32)
    assert str(core.mapped_aval(3, 0, a)) == "float32[4]"          # as JAX prints it
    assert core.unmapped_aval(5, 1, a).shape == (3, 5, 4)
    assert core.primal_dtype_to_tangent_dtype(np.int32) == jxkernel.dtypes.float0
    assert core.primal_dtype_to_tangent_dtype(np.float32) == np.float32
    assert core.valid_jaxtype(1.0) and core.valid_jaxtype(jnp.ones(2)) and not core.valid_jaxtype("a")
    assert core.concrete_or_error(int, 3, "ctx") == 3
    with pytest.raises(jxkernel.errors.ConcretizationTypeError, match="my context"):
        jxkernel.make_jaxpr(lambda x: core.concrete_or_error(int, x, "my context"))(1)
    v, w = core.Var(a), core.Var(a)
    eqn = core.new_jaxpr_eqn([v], [w], core.primitives.sin_p, {}, set())
    built = core.ClosedJaxpr(core.Jaxpr([], [v], [w], [eqn]), [])
    core.check_jaxpr(built.jaxpr)
    assert str(built) == "{ lambda ; a:f32[3,4]. let b:f32[3,4] = sin a in (b,) }"
    assert repr(v) == f"Var(id={id(v)}):float32[3,4]"
    assert core.jaxpr_as_fun(built)(jnp.zeros((3, 4)))[0].shape == (3, 4)
    with pytest.raises(NotImplementedError, match="does not track effects"):
        core.new_jaxpr_eqn([v], [w], core.primitives.sin_p, {}, {"io"})


def test_sharding_edges():
    x = jnp.arange(3.0)
    pinned = x.sharding.with_memory_kind("pinned_host")
    # (put there, as JAX 0.10.2 puts it: tests/sharding/test_memory_kinds.py)
    assert jxkernel.device_put(x, pinned).sharding.memory_kind == "pinned_host"
    with pytest.raises(ValueError, match="Received invalid value: cpu"):   # (JAX's words)
        jxkernel.device_put(x, "cpu")
    with pytest.raises(TypeError, match="must be a Device"):
        jxkernel.sharding.SingleDeviceSharding("cpu")


@pytest.mark.parametrize("module", ["jxkernel.extend", "jxkernel.extend.core",
                                    "jxkernel.extend.core.primitives", "jxkernel.experimental",
                                    "jxkernel.ad_checkpoint", "jxkernel.interpreters.ad",
                                    "jxkernel.interpreters.batching",
                                    "jxkernel.interpreters.mlir", "jxkernel._src.util"])
def test_docstring_examples(module):
    from doc_examples import check_docstring_examples
    check_docstring_examples(module, {"jxkernel": jxkernel,
                                      "device_put": jxkernel.device_put})
