"""When a user's lowering rule (jax.interpreters.mlir.register_lowering) is called and what
it gets, as JAX's primitives guide (docs/jax-primitives.md) shows it. Shared by
reference/make_user_lowering_reference.py (run with real JAX) and
tests/jax_compat/test_user_primitive_rules.py (run with jxkernel).

`run(jax)` returns {program: [one record per rule call, ...]}: each call's input and output
types (`repr` of ctx.avals_in / ctx.avals_out), and how many distinct operands it got (JAX
lowers a cacheable rule into a function of its own per module and (primitive, input types,
parameters): `p.bind(x, x, y)` reaches it as three arguments, and an equal equation does not
call it again).
"""
import importlib

import numpy as np


def _primitive(jax, name, calls, cacheable=True):
    """multiply_add with a rule built from hlo ops that records each call."""
    core = importlib.import_module(f"{jax.__name__}.extend.core")
    mlir = importlib.import_module(f"{jax.__name__}.interpreters.mlir")
    # `from jax._src.lib.mlir.dialects import hlo`, as the guide imports it
    hlo = __import__(f"{jax.__name__}._src.lib.mlir.dialects", fromlist=["hlo"]).hlo
    p = core.Primitive(name)
    p.def_impl(lambda x, y, z, **_: np.add(np.multiply(x, y), z))
    p.def_abstract_eval(lambda x, y, z, **_: jax.core.ShapedArray(x.shape, x.dtype))

    def rule(ctx, x, y, z, **params):
        calls.append({"avals_in": repr(tuple(ctx.avals_in)),
                      "avals_out": repr(list(ctx.avals_out)),
                      "distinct_operands": len({id(v) for v in (x, y, z)}),
                      "params": sorted(params)})
        return [hlo.AddOp(hlo.MulOp(x, y), z).result]
    mlir.register_lowering(p, rule, platform="cpu", cacheable=cacheable)
    return p


def same_types_twice(jax):
    """Two equal equations and one of other types in one jit: two calls."""
    calls = []
    p = _primitive(jax, "multiply_add_cached", calls)
    f = jax.jit(lambda x, y: p.bind(p.bind(x, x, y), x, y) + p.bind(x, x, 1.0))
    value = float(f(np.float32(2.0), np.float32(10.0)))
    return calls + [{"value": value}]


def params_in_the_key(jax):
    """The same types with other parameters: a call each."""
    calls = []
    p = _primitive(jax, "multiply_add_params", calls)
    f = jax.jit(lambda x: p.bind(x, x, x, k=1) + p.bind(x, x, x, k=2) + p.bind(x, x, x, k=1))
    f(np.ones(3, np.float32))
    return calls


def each_module_again(jax):
    """A new jit is a new module: the rule is called again."""
    calls = []
    p = _primitive(jax, "multiply_add_modules", calls)
    jax.jit(lambda x: p.bind(x, x, x))(np.float32(1.0))
    jax.jit(lambda x: p.bind(x, x, x) * 2)(np.float32(1.0))
    return calls


def uncacheable(jax):
    """cacheable=False: called at every equation, with the equation's own operands."""
    calls = []
    p = _primitive(jax, "multiply_add_uncached", calls, cacheable=False)
    jax.jit(lambda x, y: p.bind(p.bind(x, x, y), x, y))(np.float32(2.0), np.float32(1.0))
    return calls


def grad_under_jit(jax):
    """The guide's jit(grad(...)) with a JVP and a transpose rule: the equations of the
    transposed program lowered, one call per distinct input types."""
    calls = []
    p = _primitive(jax, "multiply_add_grad", calls)
    ad = importlib.import_module(f"{jax.__name__}.interpreters.ad")

    def jvp(primals, tangents):
        (x, y, z), (xt, yt, zt) = primals, map(ad.instantiate_zeros, tangents)
        return p.bind(x, y, z), p.bind(xt, y, p.bind(x, yt, zt))

    def transpose(ct, x, y, z):
        if not ad.is_undefined_primal(x):
            return None, p.bind(x, ct, jax.numpy.zeros_like(x)), ct
        return p.bind(ct, y, jax.numpy.zeros_like(y)), None, ct
    ad.primitive_jvps[p] = jvp
    ad.primitive_transposes[p] = transpose
    f = jax.jit(jax.grad(lambda x, y: p.bind(x, x, y)))
    value = float(f(2.0, 10.0))
    return calls + [{"value": value}]


def inlined_text(jax):
    """The lowered module: the rule's lowering (here a `lower_fun` with a reduction's region
    and a cond) emitted inline at each equation, its values named in the caller's function."""
    core = importlib.import_module(f"{jax.__name__}.extend.core")
    mlir = importlib.import_module(f"{jax.__name__}.interpreters.mlir")
    jnp, lax = jax.numpy, jax.lax
    p = core.Primitive("sum_and_cond_inlined")
    p.multiple_results = True
    p.def_abstract_eval(lambda x: [jax.core.ShapedArray((), x.dtype), x])
    mlir.register_lowering(p, mlir.lower_fun(
        lambda x: [jnp.sum(x), lax.cond(x[0] > 0, jnp.sin, jnp.cos, x)], True))

    def f(x):
        (a, b), (c, d) = p.bind(x), p.bind(x * 2)
        return a + c, p.bind(b)[1] + d
    return jax.jit(f).lower(np.ones(3, np.float32)).as_text().splitlines()


PROGRAMS = [same_types_twice, params_in_the_key, each_module_again, uncacheable,
            grad_under_jit, inlined_text]


def run(jax) -> dict:
    return {program.__name__: program(jax) for program in PROGRAMS}
