"""jxkernel.extend.core, jxkernel.experimental.io_callback, print_saved_residuals, shardings,
typed keys and ShapeDtypeStruct, against what JAX 0.10.2 gives for the same programs
(tests/data/extend_experimental_cases.py, recorded by
reference/make_extend_experimental_reference.py)."""
import functools
import json
import os

import extend_experimental_cases as cases
import numpy as np
import pytest
from numerics import REDUCTION, assert_allclose_ulp

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.extend import core

DATA = os.path.join(os.path.dirname(__file__), "data", "extend_experimental_reference.json")
# Floats come through tanh, exp, sin and sums (eager, jitted, differentiated): within the sum
# bound, measured at each result's largest magnitude.
FLOAT_ULPS = REDUCTION


@functools.cache
def _reference() -> dict:
    with open(DATA) as f:
        return json.load(f)


@functools.cache
def _ours() -> dict:
    import jxkernel.experimental  # noqa: F401  (as `import jax.experimental` would)
    return cases.run(jxkernel)


def _compare(program: str):
    ours, theirs = _ours()[program], _reference()[program]
    assert sorted(ours) == sorted(theirs), program
    for name, want in theirs.items():
        got = ours[name]
        if name.endswith("_values"):
            want = np.asarray(want, np.float32)
            assert_allclose_ulp(np.asarray(got, np.float32), want, FLOAT_ULPS,
                                scale=np.abs(want).max(initial=0), err_msg=f"{program}.{name}")
        else:
            assert got == want, f"{program}.{name}:\n{got}\n!=\n{want}"


@pytest.mark.parametrize("program", [p.__name__ for p in cases.PROGRAMS])
def test_program_matches_jax(program):
    _compare(program)


def test_user_primitive_with_every_rule_works_under_jit_grad_and_vmap():
    """A Primitive given its rules through the rule tables the transformations read: the
    lowering comes from a Python function, as mlir.lower_fun gives it in JAX."""
    from jxkernel.core.primitive import batching_rules, jvp_rules, lowering_rules
    from jxkernel.lax._lowering import lower_fun
    p = core.Primitive("scaled_sin_test")
    impl = lambda x, *, scale: jnp.sin(x) * scale                 # noqa: E731
    p.def_impl(impl)
    p.def_abstract_eval(lambda x, *, scale: x)
    lowering_rules[p] = lower_fun(impl)
    jvp_rules[p] = lambda primals, tangents, *, scale: (
        p.bind(primals[0], scale=scale), jnp.cos(primals[0]) * scale * tangents[0])
    batching_rules[p] = lambda vals, dims, *, scale: (p.bind(vals[0], scale=scale), dims[0])
    f = lambda x: p.bind(x, scale=2.0)                              # noqa: E731
    x = jnp.array([0.5, 1.0], jnp.float32)
    want = np.sin(np.float32([0.5, 1.0])) * 2
    assert_allclose_ulp(jxkernel.jit(f)(x), want, 4)               # sin: elementwise bound
    assert_allclose_ulp(jxkernel.vmap(f)(x), want, 4)
    assert_allclose_ulp(jxkernel.grad(lambda v: f(v).sum())(x),
                        np.cos(np.float32([0.5, 1.0])) * 2, 4)
    # a user primitive of an existing name does not replace lax's in the registry
    assert core.primitives.sin_p.name == "sin" and core.Primitive("sin") is not core.primitives.sin_p
    from jxkernel.core.primitive import all_primitives
    assert all_primitives["sin"] is core.primitives.sin_p


def test_extend_core_helpers():
    closed = jxkernel.make_jaxpr(lambda x: jxkernel.lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.0)
    inner = list(core.subjaxprs(closed.jaxpr))
    assert [str(j.eqns[0].primitive) for j in inner] == ["cos", "sin"]
    assert all(isinstance(j, core.Jaxpr) for j in core.jaxprs_in_params(closed.eqns[-1].params))
    a = jxkernel.core.ShapedArray((3, 4), np.float32)
    assert str(core.mapped_aval(3, 0, a)) == "f32[4]"
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
    with pytest.raises(NotImplementedError, match="default memory only"):
        jxkernel.device_put(x, pinned)
    with pytest.raises(TypeError, match="SingleDeviceSharding"):
        jxkernel.device_put(x, "cpu")
    with pytest.raises(TypeError, match="must be a Device"):
        jxkernel.sharding.SingleDeviceSharding("cpu")


@pytest.mark.parametrize("module", ["jxkernel.extend", "jxkernel.extend.core",
                                    "jxkernel.extend.core.primitives", "jxkernel.experimental",
                                    "jxkernel.sharding", "jxkernel.xla.sharding",
                                    "jxkernel.ad_checkpoint"])
def test_docstring_examples(module):
    from doc_examples import check_docstring_examples
    check_docstring_examples(module, {"jxkernel": jxkernel,
                                      "device_put": jxkernel.device_put})
