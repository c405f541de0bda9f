"""Gaps JAX's own api_test.py and custom_api_test.py found, as cases run the same way with JAX
and with jxkernel (reference/make_api_tests_reference.py records JAX 0.10.2's answers in
tests/data/api_tests_reference.json; tests/jax_compat/test_api_tests.py compares).

`errors(jax)`: name -> a thunk that raises; recorded: [class name, message]. `values(jax)`:
name -> a thunk returning a pytree of arrays and Python numbers, recorded as nested lists.
`private(jax, jtu, config, eval_jaxpr_p)`: the same for the JAX-private names the test files
use (jax._src.test_util's counters, config's enums, eval_jaxpr_p)."""
import importlib

import numpy as np


def _custom_jvp(jax, rule, fun=lambda x: x ** 2):
    f = jax.custom_jvp(fun)
    f.__name__ = "f"
    f.defjvp(rule)
    return f


def _custom_vjp(jax, fwd, bwd, fun=lambda x: x):
    f = jax.custom_vjp(fun)
    f.defvjp(fwd, bwd)
    return f


def foo_jvp(primals, tangents):           # returns the tangent alone, not a pair
    return tangents[0]


def f_jvp(primals, tangents):             # primal output of another structure
    (x,), (t,) = primals, tangents
    return (x, x), (t, t)


def reshape_jvp(primals, tangents):       # a tangent of another shape
    return primals[0] ** 2, tangents[0].reshape((1,))


def f_fwd(x):
    return (x, x), None


def not_a_pair_fwd(x):
    return x


def bwd_one(_, g):
    return (g,)


def non_tuple_bwd(_, g):
    return 2.0 * g


def f(x, y, *, z=None):
    return x + y


def h(a, /, b, c, *args, **kwargs):
    return a


def errors(jax):
    jnp = jax.numpy
    scan_apply = lambda fn, x: jax.lax.scan(lambda c, _: (fn(c), None), x, None, length=1)[0]  # noqa: E731
    return {
        "custom_jvp_rule_not_a_pair": lambda: jax.jvp(_custom_jvp(jax, foo_jvp), (2.,), (1.,)),
        "custom_jvp_rule_primal_structure": lambda: jax.jvp(
            lambda x: scan_apply(_custom_jvp(jax, f_jvp, lambda x: x), x),
            (jnp.float32(1.),), (jnp.float32(1.),)),
        "custom_jvp_rule_tangent_shape": lambda: jax.jvp(
            _custom_jvp(jax, reshape_jvp), (jnp.float32(2.),), (jnp.float32(1.),)),
        "custom_jvp_unresolved_argument": lambda: _custom_jvp(jax, foo_jvp, f)(0.5),
        "custom_jvp_unresolved_keyword": lambda: _custom_jvp(jax, foo_jvp, f)(0.5, 0.1, z=1.0),
        "custom_vjp_fwd_not_a_pair": lambda: jax.grad(
            _custom_vjp(jax, not_a_pair_fwd, bwd_one))(jnp.float32(1.)),
        "custom_vjp_fwd_primal_structure": lambda: jax.grad(
            lambda x: scan_apply(_custom_vjp(jax, f_fwd, bwd_one), x))(jnp.float32(1.)),
        "custom_vjp_bwd_not_a_tuple": lambda: jax.grad(
            _custom_vjp(jax, lambda x: (x, None), non_tuple_bwd))(3.),
        "vmap_no_arguments": lambda: jax.vmap(lambda x: x)({}),
        "vmap_axis_size_mismatch": lambda: jax.vmap(lambda x: x, axis_size=2)(
            jnp.arange(8, dtype=jnp.int32)),
        "vmap_most_sizes_and_keyword": lambda: jax.vmap(lambda x1, x2, a3: x1 + x2 + a3)(
            jnp.ones(2), jnp.ones(2), a3=jnp.ones(1)),
        "vmap_size_of_an_unmapped_function": lambda: jax.vmap(
            lambda x1, x2, g: g(x1, x2), (0, 0, None))(jnp.ones(2), jnp.ones(3), jnp.add),
        "vmap_in_axes_not_a_prefix": lambda: jax.vmap(lambda x: x, in_axes=([0],))(jnp.ones(3)),
        "vmap_out_axes_none_named": lambda: jax.vmap(lambda x: x, out_axes=None,
                                                     axis_name="foo")(jnp.ones(2)),
        "jit_positional_only_static_argname": lambda: jax.jit(h, static_argnames=("a", "c")),
        "jit_varargs_donate_argname": lambda: jax.jit(h, donate_argnames=("args", "c")),
        "jacfwd_complex_input": lambda: jax.jacfwd(lambda x: x ** 2)(3. + 1j),
        "jacfwd_holomorphic_float_input": lambda: jax.jacfwd(jnp.sin, holomorphic=True)(1.),
        "jacrev_holomorphic_float_input": lambda: jax.jacrev(jnp.sin, holomorphic=True)(1.),
        "custom_vjp_bwd_shape": lambda: jax.grad(
            lambda x, y: _custom_vjp(jax, lambda x, y: (x, None),
                                     lambda _, g: (jnp.zeros(3), jnp.zeros(3)),
                                     lambda x, y: x)(x, y * y).sum(), 1)(jnp.ones(3), jnp.ones(4)),
    }


def _nondiff_by_name(jax):
    g = jax.custom_jvp(lambda scale, x: scale * x ** 2, nondiff_argnames=("scale",))
    g.defjvp(lambda scale, primals, tangents: (g(scale, *primals), 3.0 * scale * tangents[0]))
    h = jax.custom_vjp(lambda x, power: x ** power, nondiff_argnames=("power",))
    h.defvjp(lambda x, power: (x ** power, x), lambda power, x, ct: (10.0 * power * ct,))
    return [jax.jvp(lambda x: g(2.0, x), (1.0,), (1.0,)), jax.grad(h)(2.0, 3)]


def _vmap_closing_over_constant(jax):
    jnp, lax = jax.numpy, jax.lax
    y = jnp.arange(1., 4.)

    @jax.custom_jvp
    def f(x):
        return 3 * x * jnp.sum(y)
    f.defjvp(lambda primals, tangents: (f(primals[0]), 2 * tangents[0]))

    def foo(x):
        return lax.scan(lambda c, _: (f(c), None), x, None, length=1)[0]
    return [jax.grad(lambda x: jax.vmap(foo)(x).sum())(jnp.ones(3)),
            jax.grad(lambda x: jax.jit(jax.vmap(foo))(x).sum())(jnp.ones(3))]


def _impl_swapped_and_restored(jax):
    """api_test's RematTest counts a primitive's eager calls by wrapping its saved `impl` with
    def_impl, and restores it after: the saved impl must be the function, not a lookup."""
    lax, calls = jax.lax, []
    saved = lax.neg_p.impl
    lax.neg_p.def_impl(lambda x, **params: calls.append(1) or saved(x, **params))
    try:
        counted = lax.neg(np.float32(2.0))
    finally:
        lax.neg_p.def_impl(saved)
    return [counted, len(calls), lax.neg(np.float32(3.0)), len(calls)]


def _float0_values(jax):
    """Integer inputs' cotangents and jnp.zeros of float0: host arrays of float0, described
    as [type, dtype, shape] (their bytes are empty)."""
    jnp, lax = jax.numpy, jax.lax
    float0 = jax.dtypes.float0
    describe = lambda x: [type(x).__mro__[-2].__name__ if isinstance(x, np.ndarray) else  # noqa: E731
                          type(x).__name__, str(x.dtype), list(np.shape(x))]
    _, reshape_vjp = jax.vjp(lambda x: lax.reshape(x, (2, 2)), np.ones((4, 1), dtype=int))
    _, add_vjp = jax.vjp(lambda x, y: x + y, 2, 1)
    grads = jax.grad(lambda x: jnp.sum(x + 0.), allow_int=True)(np.ones((2, 4), dtype=int))
    return [describe(jnp.zeros((2, 3), float0)),
            describe(reshape_vjp(np.zeros((2, 2), float0))[0]),
            [describe(t) for t in jax.jit(add_vjp)(np.zeros((), float0))],
            describe(grads.reshape((4, 2))), describe(grads.transpose())]


def _build_compiler_options(jax):
    """The effort levels among jit's compiler_options (set on XLA's build options), and an
    unknown name's error: [class, whether it says "No such compile option"]."""
    f = lambda x: x * 2.0 + 1.0  # noqa: E731
    outs = [jax.jit(f, compiler_options={name: value})(np.float32(i)) for i, (name, value) in
            enumerate([("exec_time_optimization_effort", 0.0), ("optimization_level", 19),
                       ("memory_fitting_level", 9), ("memory_fitting_effort", 0.0)])]
    try:
        jax.jit(f, compiler_options={"exec_time_compilation_effort": 0.0})(np.float32(1))
    except Exception as e:        # noqa: BLE001 (XLA's runtime error, by its class name)
        return outs + [[type(e).__name__, "No such compile option" in str(e)]]
    return outs


def _dce_jaxpr(jax):
    pe = importlib.import_module(jax.__name__ + ".interpreters.partial_eval")
    jaxpr = jax.make_jaxpr(lambda x, y, z: (jax.numpy.sin(x), y * 2.0, x + z))(1.0, 2.0, 3.0).jaxpr
    out = []
    for used in ([True, False, False], [False, True, True], False):
        pruned, used_inputs = pe.dce_jaxpr(jaxpr, used, instantiate=[False, False, True])
        out.append([used_inputs, [e.primitive.name for e in pruned.eqns], len(pruned.outvars)])
    return out


def values(jax):
    return {"pe_dce_jaxpr": lambda: _dce_jaxpr(jax),
            "jit_argnums_past_varargs": lambda: [  # made (JAX checks them at each call)
                callable(jax.jit(h, static_argnums=(0, -999))),
                jax.jit(lambda a, *args: a, donate_argnums=(0, 999))(np.float32(1))],
            "jit_build_compiler_options": lambda: _build_compiler_options(jax),
            "float0_values": lambda: _float0_values(jax),
            "primitive_impl_swapped_and_restored": lambda: _impl_swapped_and_restored(jax),
            "custom_nondiff_argnames": lambda: _nondiff_by_name(jax),
            "custom_jvp_vmap_closing_over_constant": lambda: _vmap_closing_over_constant(jax)}


def _counted(jax, counter):
    f = jax.jit(lambda x: x * 3 + 1)
    x = jax.numpy.float32(2)
    f(x)                           # (compiled before counting: the second call hits the cache)
    with counter() as count:
        f(x)
        jax.jit(lambda x: x - 1)(x)
    return count()


def _explicit_x64(jax, config, mode):
    with config.explicit_x64_dtypes(mode):
        return str(jax.numpy.ones(2, dtype="float64").dtype)


def _eval_jaxpr(jax, eval_jaxpr_p):
    jnp = jax.numpy
    cube = lambda x: eval_jaxpr_p.bind(x, jaxpr=jax.make_jaxpr(lambda x: [x ** 3])(x))[0]  # noqa: E731
    x = jnp.float32(2.0)
    return [cube(x), jax.jvp(cube, (x,), (jnp.float32(1.),)), jax.grad(cube)(x),
            jax.vmap(cube)(jnp.arange(3.0)), jax.jit(cube)(x)]


def _plain_jaxpr_text(jax):
    closed = jax.make_jaxpr(lambda x: jax.numpy.sin(x) * 2.0)(np.float32(1.0))
    return [bool(jax.config._read("jax_pprint_use_color")), closed.pretty_print(use_color=False),
            closed.jaxpr.pretty_print(use_color=False)]


def _global_config(config):
    state = config.numpy_rank_promotion
    before = state.get_global()
    try:
        state.set_global("raise")
        during = state.get_global()
    finally:
        state.set_global(before)
    return [before, during, state.get_global()]


def private(jax, jtu, config, eval_jaxpr_p):
    return {
        "config_state_global": lambda: _global_config(config),
        "pprint_use_color": lambda: _plain_jaxpr_text(jax),
        "jtu_count_jit_and_pmap_lowerings": lambda: _counted(jax, jtu.count_jit_and_pmap_lowerings),
        "jtu_count_jit_tracing_cache_miss": lambda: _counted(jax, jtu.count_jit_tracing_cache_miss),
        "explicit_x64_modes": lambda: [int(m) for m in config.ExplicitX64Mode],
        "explicit_x64_error": lambda: _explicit_x64(jax, config, config.ExplicitX64Mode.ERROR),
        "explicit_x64_warn": lambda: _explicit_x64(jax, config, "warn"),
        "effort_levels": lambda: [m.value for m in config.EffortLevel],
        "eval_jaxpr_p": lambda: _eval_jaxpr(jax, eval_jaxpr_p),
    }


def record(thunk):
    """A case's answer: its value as nested lists, or [class name, message] of its error
    (JAX's note about its filtered traceback cut off)."""
    try:
        value = thunk()
    except Exception as e:        # noqa: BLE001 (recording whatever raises)
        return {"error": [type(e).__name__, str(e).split("\n--------------------")[0]]}
    return {"value": _plain(value)}


def _plain(x):
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (str, int)) and not isinstance(x, bool):
        return x
    return np.asarray(x).tolist()
