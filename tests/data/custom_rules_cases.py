"""What JAX 0.10.2's own tests/custom_api_test.py found jxkernel doing differently with
custom_jvp / custom_vjp rules (symbolic zeros and closures under vmap, collectives in custom
rules, error words), run the same way with JAX and with jxkernel
(reference/make_custom_rules_reference.py records JAX's answers in
tests/data/custom_rules_reference.json; tests/transforms/test_custom_rules_reference.py
compares).

`errors(jax)`: name -> a thunk that raises; recorded: the exception's class name and the
first two lines of its message. `values(jax)`: name -> a thunk returning a pytree of arrays;
recorded: each leaf's dtype, shape and values (exact: every float here is computed exactly).
`seen(jax)`: name -> a thunk returning what a custom rule saw (JSON: type names, shapes)."""
import functools
import importlib

import numpy as np



def _kind(jax, x) -> str:
    """What a rule got, as a name both sides agree on (jxkernel's SymbolicZero is its Zero)."""
    if type(x) is jax.custom_derivatives.SymbolicZero:
        return "SymbolicZero"
    return "Tracer" if isinstance(x, jax.core.Tracer) else type(x).__name__


def _symbolic_zero_jvp_under_vmap(jax):
    """(the types and shapes of the tangents the rule saw, the jvp's outputs)."""
    jnp, seen = jax.numpy, []

    @jax.custom_jvp
    def f(static_scalar, static_array, dyn_scalar, dyn_array):
        return static_scalar + dyn_scalar, static_array + dyn_array

    @functools.partial(f.defjvp, symbolic_zeros=True)
    def f_jvp(primals, tangents):
        seen.append([[_kind(jax, t), list(t.shape)] for t in tangents[:2]])
        return f(*primals), (primals[0] + 90, tangents[3] + 91)

    def g(dyn_scalar, dyn_array):
        args = [jax.lax.broadcast(x, (1,)) for x in (1., jnp.array([2., 3.]), dyn_scalar,
                                                     dyn_array)]
        return jax.tree.map(lambda x: x[0], jax.vmap(f)(*args))
    out = jax.jvp(g, (4., jnp.array([5., 6.])), (7., jnp.array([8., 9.])))
    return seen, out


def _symbolic_zero_jvp_not_instantiated(jax):
    seen = []

    @jax.custom_jvp
    def f(x, y):
        return y

    def f_jvp(primals, tangents):
        seen.append(_kind(jax, tangents[1]))
        return primals[1], tangents[1]
    f.defjvp(f_jvp, symbolic_zeros=True)
    out = jax.jvp(jax.vmap(lambda x: f(x, f(x, 1.))), (jax.numpy.ones(3),),
                  (jax.numpy.ones(3),))
    return seen, out


def _symbolic_zero_vjp_output_under_vmap(jax):
    seen = []

    @jax.custom_vjp
    def f(x, y):
        return x, y

    def fwd(x, y):
        seen.append([x.perturbed, y.perturbed])
        return f(x.value, y.value), None

    def bwd(_, g):
        seen.append([_kind(jax, c) for c in g])
        return g
    f.defvjp(fwd, bwd, symbolic_zeros=True)
    grads = jax.grad(lambda x, y: jax.vmap(f)(x, y)[0].sum())(jax.numpy.ones(3),
                                                              jax.numpy.ones(3))
    return seen, grads


def _jvp_rule_closing_over_vmap_tracer(jax):
    jnp = jax.numpy

    def h(z):
        def f(x):
            @jax.custom_jvp
            def g(y):
                return x * y

            @g.defjvp
            def g_jvp(primals, tangents):
                return x * primals[0], x * tangents[0]
            return g(z)
        return jax.vmap(f)(jnp.arange(3., dtype="float32"))
    return jax.jvp(h, (jnp.float32(1.),), (jnp.float32(2.),))


def _nondiff_arg_vmap_tracer(jax):
    jnp = jax.numpy

    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def f(x, y):
        return x * y

    def f_jvp(x, primals, tangents):
        return f(x, primals[0]), 5 * tangents[0]
    f.defjvp(f_jvp)
    return jax.jvp(lambda y: jax.vmap(f)(jnp.array([2.]), y), (jnp.array([3.]),),
                   (jnp.array([1.]),))


def _vjp_fwd_closing_over_vmap_tracer(jax):
    jnp = jax.numpy

    def h(z):
        def f(x):
            @jax.custom_vjp
            def g(y):
                return x * y

            def g_fwd(y):
                return x * y, (x, x * y, y)

            def g_rev(res, w_bar):
                return (res[0] * w_bar,)
            g.defvjp(g_fwd, g_rev)
            return g(z)
        return jax.vmap(f)(jnp.arange(3., dtype="float32")).sum()
    return jax.value_and_grad(h)(jnp.float32(3.))


def _collective_in_custom_jvp(jax):
    lax = jax.lax

    @jax.custom_jvp
    def f(x):
        return lax.psum(x, "foo")

    @f.defjvp
    def f_jvp(xs, ts):
        return lax.psum(xs[0], "foo"), ts[0]

    def g(x):
        jaxpr = jax.make_jaxpr(f)(x)
        return jax.core.eval_jaxpr(jaxpr.jaxpr, [], x)[0]
    # (as an array: JAX's psum of an unbatched Python scalar gives a Python float back)
    return jax.numpy.asarray(jax.vmap(lambda _, x: g(x), axis_name="foo", in_axes=(0, None),
                                      out_axes=None)(jax.numpy.arange(4.), 2.))


def _collective_in_custom_vjp(jax):
    lax = jax.lax

    @jax.custom_vjp
    def f(x):
        return lax.psum(x, "foo")
    f.defvjp(lambda x: (lax.psum(x, "foo"), None), lambda res, dx: dx)

    def g(x):
        jaxpr = jax.make_jaxpr(f)(x)
        return jax.core.eval_jaxpr(jaxpr.jaxpr, [], x)[0]
    # (as an array: JAX's psum of an unbatched Python scalar gives a Python float back)
    return jax.numpy.asarray(jax.vmap(lambda _, x: g(x), axis_name="foo", in_axes=(0, None),
                                      out_axes=None)(jax.numpy.arange(4.), 2.))


def _nondiff_tracer(jax):
    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def f(x, y):
        return x * y
    f.defvjp(lambda x, y: (f(x, y), jax.numpy.cos(y)), lambda x, cos_y, g: (cos_y * g,))
    return jax.jit(lambda x, y: f(x, y))(2, 3.)


class _Times:
    """`x * y` as a callable whose repr is the same on every run (JAX's message shows it)."""
    __name__ = __qualname__ = "times"

    def __init__(self, x):
        self.x = x

    def __call__(self, y):
        return self.x * y

    def __repr__(self):
        return "<function times>"


def _closes_over_vmap_tracer(jax):
    def outer(x):
        f = jax.custom_vjp(_Times(x))
        f.defvjp(lambda y: (f(y), jax.numpy.cos(y)), lambda cos_y, g: (cos_y * g,))
        return f
    return jax.vmap(lambda x: outer(x)(3.))(jax.numpy.arange(3.))


def _with_custom_vjp3(jax, case):
    """`case` run with JAX's custom_vjp3 rewrite switched on (its own error words)."""
    def run():
        jax.config.update("jax_custom_vjp3", True)
        try:
            return case(jax)
        finally:
            jax.config.update("jax_custom_vjp3", False)
    return run


def _custom_vmap_sin(jax):
    @jax.custom_batching.custom_vmap
    def f(x):
        return jax.numpy.sin(x)

    @f.def_vmap
    def rule(axis_size, in_batched, xs):
        return jax.numpy.cos(xs), in_batched[0]
    return f


def _custom_vmap_jvp_extra_batched_tangents(jax):
    f = _custom_vmap_sin(jax)
    txs = 2. + jax.numpy.arange(3.)
    return jax.vmap(lambda x, tx: jax.jvp(f, [x], [tx]), in_axes=(None, 0),
                    out_axes=(None, 0))(jax.numpy.array(0., txs.dtype), txs)


def _described(jax, tree):
    """Each leaf as [dtype, shape, values], a float0 leaf's values None (JSON has no bytes)."""
    def leaf(x):
        x = np.asarray(x)
        if x.dtype == jax.dtypes.float0:
            return ["float0", list(x.shape), None]
        return [x.dtype.name, list(x.shape), x.tolist()]
    return [leaf(x) for x in jax.tree_util.tree_leaves(tree)]


def _float0_tangent_through_scan(jax):
    """A custom_jvp rule's float0 tangent (of an integer) carried by a scan."""
    @jax.custom_jvp
    def f(x, y):
        return x, y

    def f_jvp(primals, _):
        return primals, (2., jax.custom_derivatives.zero_from_primal(primals[1]))
    f.defjvp(f_jvp)

    def foo(x, y):
        return jax.lax.scan(lambda c, _: (f(*c), None), (x, y), None, length=1)[0]
    return _described(jax, jax.jvp(foo, (2., 3), (np.ones(()), np.zeros((), jax.dtypes.float0))))


def _float0_cotangent_through_scan(jax):
    @jax.custom_vjp
    def f(x):
        return x
    f.defvjp(lambda x: (x, (2., x)),
             lambda *_: ((2., jax.numpy.zeros(shape=(), dtype=jax.dtypes.float0)),))

    def foo(x, y):
        return jax.lax.scan(lambda c, _: (f(c), None), (x, y), None, length=1)[0][0]
    return _described(jax, jax.grad(foo, allow_int=True, argnums=(0, 1))(2., 3))


def _jacrev_with_integer_inputs(jax):
    @jax.custom_vjp
    def f(x, y, z):
        return x, x
    f.defvjp(lambda x, y, z: ((x.value, x.value), None), lambda _, g: (g[0], g[0], g[1]),
             symbolic_zeros=True)
    i = np.array(7, np.int32)
    return _described(jax, jax.jacrev(jax.jit(f), argnums=(0, 1, 2), allow_int=True)(4., i, i))


def _scan_apply(jax, f, x):
    return jax.lax.scan(lambda x, _: (f(x), None), x, None, length=1)[0]


def _jvp_rule_primal_of_other_type(jax):
    @jax.custom_jvp
    def f(x):
        return x

    @f.defjvp
    def f_jvp2(primals, tangents):
        return jax.numpy.zeros((3, *primals[0].shape), primals[0].dtype), tangents[0]
    return jax.jvp(lambda x: _scan_apply(jax, f, x), (jax.numpy.float32(1.),),
                   (jax.numpy.float32(1.),))


def _fwd_rule_primal_of_other_type(jax):
    @jax.custom_vjp
    def f(x):
        return x

    def f_fwd2(x):
        return jax.numpy.zeros((3, *x.shape), x.dtype), None
    f.defvjp(f_fwd2, lambda _, y_bar: (y_bar,))
    return jax.grad(lambda x: _scan_apply(jax, f, x))(jax.numpy.float32(1.))


def _bwd_symbolic_zero_of_other_type(jax):
    @jax.custom_vjp
    def f(x, y, z):
        return x, y, z

    def bwd(_, gs):
        x_bar, y_bar, z_bar = gs
        return y_bar, x_bar, z_bar  # swapped!
    f.defvjp(lambda x, y, z: (f(x.value, y.value, z.value), None), bwd, symbolic_zeros=True)
    ones = jax.numpy.ones
    return jax.grad(lambda x, y, z: f(x, y, z)[2].sum())(ones(1), ones(2), ones(3))


def _module(jax, name):
    """JAX's module `name` (jax._src.custom_derivatives, ...), or jxkernel's of that name."""
    if jax.__name__ == "jax":
        return importlib.import_module(name)
    return importlib.import_module("jxkernel._jax." + name.removeprefix("jax.")
                                   .removeprefix("_src."))


def _maybe_perturbed_in_scan(jax):
    maybe_perturbed, seen = _module(jax, "jax._src.custom_derivatives")._maybe_perturbed, []

    def f(x):
        def g(y, _):
            seen.append([maybe_perturbed(y), maybe_perturbed(y * x)])
            return y, None
        g(1, None)
        return jax.lax.scan(g, 1, xs=None, length=1)[0]
    jax.jvp(f, (1.0,), (1.0,))
    return seen


def _closure_convert_int_under_jit(jax):
    found = []

    @jax.jit
    def f(y):
        x, w = jax.numpy.array(1), y * 2.
        found.append(len(jax.closure_convert(lambda: x)[1]))
        found.append(len(jax.closure_convert(lambda: w)[1]))
        return y
    f(1.)
    return found


def _custom_jvp_under_compile_time_eval(jax):
    @jax.custom_jvp
    def f(x):
        assert x == 0.  # concrete!
        return x + 1.
    f.defjvp(lambda primals, tangents: (f(*primals), tangents[0]))

    @jax.jit
    def g():
        with jax.ensure_compile_time_eval():
            return f(0.)
    return g()


def _custom_lin_text(jax):
    @jax.custom_vjp
    def f(x):
        return x + 1

    def f_fwd(x):
        return f(x), ()

    def f_bwd(_, g):
        return g
    f.defvjp(f_fwd, f_bwd)
    x = jax.numpy.array([4.2], dtype=jax.numpy.float32)
    jaxpr = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(x)
    jaxpr, _ = _module(jax, "jax._src.interpreters.partial_eval").dce_jaxpr(jaxpr.jaxpr,
                                                                            [False, True])
    return jaxpr.pretty_print(use_color=False)


class _NoNones(list):
    """A pytree type whose unflatten refuses None children."""


def _bwd_cotangent_refusing_none(jax):
    def unflatten(_, children):
        assert children[0] is not None
        return _NoNones(children)
    try:
        jax.tree_util.register_pytree_node(_NoNones, lambda x: (x, None), unflatten)
    except ValueError:
        pass             # (registered by an earlier run of the case)

    @jax.custom_vjp
    def f(x):
        return x[0]
    f.defvjp(lambda x: (x[0], None), lambda _, g: (_NoNones([g]),))
    return jax.grad(f)(_NoNones([1.]))


def _grad_through_named_vmap_of_unbatched_custom_vjp(jax):
    """A custom_vjp call nothing batches, under a named vmap (so batched: a collective could
    name the axis), differentiated: its unbatched residual and cotangent stay unbatched."""
    jnp = jax.numpy

    @jax.custom_vjp
    def f(x):
        return x * x * jnp.ones(2)
    f.defvjp(lambda x: (f(x), x), lambda x, g: (x * g.sum() * 10.,))
    return jax.grad(lambda x: jax.vmap(lambda _: f(x), axis_name="i", out_axes=None)(
        jnp.arange(3.)).sum())(2.)


def errors(jax):
    return {
        "jvp_rule_primal_of_other_type": lambda: _jvp_rule_primal_of_other_type(jax),
        "fwd_rule_primal_of_other_type": lambda: _fwd_rule_primal_of_other_type(jax),
        "custom_vjp3_fwd_rule_primal_of_other_type":
            _with_custom_vjp3(jax, _fwd_rule_primal_of_other_type),
        "bwd_symbolic_zero_of_other_type": lambda: _bwd_symbolic_zero_of_other_type(jax),
        "custom_vjp_nondiff_tracer": lambda: _nondiff_tracer(jax),
        "custom_vjp3_nondiff_tracer": _with_custom_vjp3(jax, _nondiff_tracer),
        "custom_vjp3_closes_over_vmap_tracer": _with_custom_vjp3(jax, _closes_over_vmap_tracer),
    }


def values(jax):
    return {
        "jvp_rule_closing_over_vmap_tracer": lambda: _jvp_rule_closing_over_vmap_tracer(jax),
        "nondiff_arg_vmap_tracer": lambda: _nondiff_arg_vmap_tracer(jax),
        "vjp_fwd_closing_over_vmap_tracer": lambda: _vjp_fwd_closing_over_vmap_tracer(jax),
        "collective_in_custom_jvp": lambda: _collective_in_custom_jvp(jax),
        "collective_in_custom_vjp": lambda: _collective_in_custom_vjp(jax),
        "custom_vmap_jvp_extra_batched_tangents":
            lambda: _custom_vmap_jvp_extra_batched_tangents(jax),
        "custom_vmap_jacfwd": lambda: jax.jacfwd(_custom_vmap_sin(jax))(jax.numpy.zeros(3)),
        "custom_jvp_under_compile_time_eval": lambda: _custom_jvp_under_compile_time_eval(jax),
        "bwd_cotangent_refusing_none": lambda: _bwd_cotangent_refusing_none(jax),
        "grad_through_named_vmap_of_unbatched_custom_vjp":
            lambda: _grad_through_named_vmap_of_unbatched_custom_vjp(jax),
        "map_batch_size_0": lambda: jax.lax.map(lambda x: x * x, jax.numpy.arange(16),
                                                batch_size=0),
        "symbolic_zero_jvp_under_vmap": lambda: _symbolic_zero_jvp_under_vmap(jax)[1],
        "symbolic_zero_jvp_not_instantiated": lambda: _symbolic_zero_jvp_not_instantiated(jax)[1],
        "symbolic_zero_vjp_output_under_vmap":
            lambda: _symbolic_zero_vjp_output_under_vmap(jax)[1],
    }


def seen(jax):
    return {
        "maybe_perturbed_in_scan": lambda: _maybe_perturbed_in_scan(jax),
        "closure_convert_int_under_jit": lambda: _closure_convert_int_under_jit(jax),
        "custom_lin_text": lambda: _custom_lin_text(jax),
        "float0_tangent_through_scan": lambda: _float0_tangent_through_scan(jax),
        "float0_cotangent_through_scan": lambda: _float0_cotangent_through_scan(jax),
        "jacrev_with_integer_inputs": lambda: _jacrev_with_integer_inputs(jax),
        "vmap_of_float0_output": lambda: _described(jax, jax.vmap(
            lambda x: (x, np.zeros((2,), jax.dtypes.float0)))(jax.numpy.arange(3.))),
        "symbolic_zero_jvp_under_vmap": lambda: _symbolic_zero_jvp_under_vmap(jax)[0],
        "symbolic_zero_jvp_not_instantiated": lambda: _symbolic_zero_jvp_not_instantiated(jax)[0],
        "symbolic_zero_vjp_output_under_vmap":
            lambda: _symbolic_zero_vjp_output_under_vmap(jax)[0],
    }
