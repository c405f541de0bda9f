"""How many times jit traces the user's function (what a learner sees as a `print` in it
printing) on the paths a learner meets, run alike by JAX 0.10.2
(reference/make_jit_trace_count_reference.py, into jit_trace_count_reference.json) and by
jxkernel (tests/transforms/test_jit_trace_counts.py). Each case: (its results, the count).
A jit closing over a hijax Box is counted in hijax_cases.py's `jit_trace_counts`.
"""


def run(jax) -> dict:
    jnp = jax.numpy
    out = {}

    def counted(name, make, calls):
        traces = []

        def fun(f):
            def traced(*args, **kwargs):
                traces.append(1)
                return f(*args, **kwargs)
            return traced
        results = calls(make(fun))
        out[name] = repr((jax.tree_util.tree_map(lambda x: jnp.asarray(x).tolist(), results),
                          len(traces)))

    counted("plain", lambda c: jax.jit(c(lambda x: x * 2)),
            lambda f: [f(1.0), f(2.0), f(jnp.ones(3)), f(jnp.ones(3))])
    counted("static_argnums", lambda c: jax.jit(c(lambda x, k: x * k), static_argnums=1),
            lambda f: [f(1.0, 2), f(2.0, 2), f(2.0, 3)])
    counted("keyword_args", lambda c: jax.jit(c(lambda x, y=1.0: x * y)),
            lambda f: [f(1.0, y=2.0), f(2.0, y=3.0), f(1.0)])

    def nested(c):
        inner = jax.jit(c(lambda x: x + 1))
        return inner, jax.jit(lambda x: inner(x) * 2)
    counted("jit_inside_jit", nested, lambda fs: [fs[1](1.0), fs[1](2.0), fs[0](1.0)])
    counted("jit_of_grad", lambda c: jax.jit(jax.grad(c(lambda x: x * x))),
            lambda f: [f(1.0), f(2.0)])
    counted("grad_of_jit", lambda c: jax.jit(c(lambda x: x * x)),
            lambda f: [jax.grad(f)(1.0), jax.grad(f)(2.0), f(3.0)])
    counted("vmap_of_jit", lambda c: jax.jit(c(lambda x: x * 2)),
            lambda f: [jax.vmap(f)(jnp.ones(3)), jax.vmap(f)(jnp.ones(3)), f(jnp.ones(3))])

    def closes_over_ref(c):
        ref = jax.new_ref(jnp.zeros(()))

        def add(x):
            ref[...] += x
            return x
        return ref, jax.jit(c(add))
    counted("ref_closed_over", closes_over_ref, lambda rf: [rf[1](1.0), rf[1](2.0), rf[0][...]])

    def takes_ref(c):
        def add(r, x):
            r[...] += x
        return jax.new_ref(jnp.zeros(())), jax.jit(c(add))
    counted("ref_argument", takes_ref, lambda rf: [rf[1](rf[0], 1.0), rf[1](rf[0], 2.0),
                                                   rf[0][...]])

    def under_mesh(f):
        with jax.set_mesh(jax.make_mesh((1,), ("x",))):
            seen = [f(jnp.ones(4)), f(jnp.ones(4))]
        return seen + [f(jnp.ones(4))]
    counted("set_mesh", lambda c: jax.jit(c(lambda x: x * 2)), under_mesh)
    _make_jaxpr_and_eval_shape(jax, counted)
    return out


def _make_jaxpr_and_eval_shape(jax, counted):
    """make_jaxpr and eval_shape called again with arguments of the same types: JAX's are a
    jit's trace, cached by the function (each result: the first output's shape)."""
    jnp = jax.numpy
    x = jnp.ones(3)
    struct = jax.ShapeDtypeStruct((3,), jnp.float32)

    def jaxpr_shapes(f, *calls):
        return [f(*args).out_avals[0].shape for args in calls]

    def shapes(*outs):
        return [o.shape for o in outs]
    counted("make_jaxpr_twice", lambda c: jax.make_jaxpr(c(lambda v: v * 2)),
            lambda f: jaxpr_shapes(f, (x,), (x,), (jnp.ones(2),)))
    counted("make_jaxpr_scalar_twice", lambda c: jax.make_jaxpr(c(lambda v: v * 2)),
            lambda f: jaxpr_shapes(f, (1.0,), (2.0,)))
    counted("make_jaxpr_made_twice", lambda c: c(lambda v: v * 2),
            lambda g: jaxpr_shapes(lambda v: jax.make_jaxpr(g)(v), (x,), (x,)))
    counted("make_jaxpr_static_argnums",
            lambda c: jax.make_jaxpr(c(lambda v, n: v * n), static_argnums=1),
            lambda f: jaxpr_shapes(f, (x, 2), (x, 2), (x, 3)))
    counted("make_jaxpr_return_shape",
            lambda c: jax.make_jaxpr(c(lambda v: v * 2), return_shape=True),
            lambda f: [f(x)[1].shape, f(x)[1].shape])
    counted("make_jaxpr_of_grad", lambda c: jax.make_jaxpr(jax.grad(c(lambda v: (v * v).sum()))),
            lambda f: jaxpr_shapes(f, (x,), (x,)))
    counted("make_jaxpr_of_vmap", lambda c: jax.make_jaxpr(jax.vmap(c(lambda v: v * 2))),
            lambda f: jaxpr_shapes(f, (x,), (x,)))
    counted("make_jaxpr_of_jit", lambda c: jax.make_jaxpr(jax.jit(c(lambda v: v * 2))),
            lambda f: jaxpr_shapes(f, (x,), (x,)))
    counted("jit_then_make_jaxpr", lambda c: jax.jit(c(lambda v: v * 2)),
            lambda g: [g(x).shape] + jaxpr_shapes(jax.make_jaxpr(g), (x,)))
    counted("make_jaxpr_then_jit", lambda c: c(lambda v: v * 2),
            lambda g: jaxpr_shapes(jax.make_jaxpr(g), (x,)) + [jax.jit(g)(x).shape])
    counted("jit_then_make_jaxpr_of_function", lambda c: c(lambda v: v * 2),
            lambda g: [jax.jit(g)(x).shape] + jaxpr_shapes(jax.make_jaxpr(g), (x,)))
    counted("make_jaxpr_then_jit_static",
            lambda c: c(lambda v, n: v * n),
            lambda g: jaxpr_shapes(jax.make_jaxpr(g, static_argnums=1), (x, 2)) +
            [jax.jit(g, static_argnums=1)(x, 2).shape, jax.jit(g, static_argnums=1)(x, 3).shape])
    counted("make_jaxpr_then_lower", lambda c: c(lambda v: v * 2),
            lambda g: jaxpr_shapes(jax.make_jaxpr(g), (x,)) +
            [jax.jit(g).lower(x).out_info.shape])
    counted("make_jaxpr_then_jit_other_shape", lambda c: c(lambda v: v * 2),
            lambda g: jaxpr_shapes(jax.make_jaxpr(g), (x,)) + [jax.jit(g)(jnp.ones(2)).shape])
    counted("eval_shape_twice", lambda c: c(lambda v: v * 2),
            lambda g: shapes(jax.eval_shape(g, x), jax.eval_shape(g, x)))
    counted("eval_shape_structs", lambda c: c(lambda v: v * 2),
            lambda g: shapes(jax.eval_shape(g, struct), jax.eval_shape(g, struct)))
    counted("eval_shape_keywords", lambda c: c(lambda v, w=1.0: v * w),
            lambda g: shapes(jax.eval_shape(g, x, w=2.0), jax.eval_shape(g, x, w=3.0)))
    counted("eval_shape_of_grad", lambda c: jax.grad(c(lambda v: (v * v).sum())),
            lambda g: shapes(jax.eval_shape(g, x), jax.eval_shape(g, x)))
    counted("eval_shape_of_jit", lambda c: jax.jit(c(lambda v: v * 2)),
            lambda g: shapes(jax.eval_shape(g, x), jax.eval_shape(g, x), g(x)))
    counted("jit_eval_shape_method", lambda c: jax.jit(c(lambda v: v * 2)),
            lambda g: shapes(g.eval_shape(x), g.eval_shape(x)))
    counted("eval_shape_then_jit", lambda c: c(lambda v: v * 2),
            lambda g: shapes(jax.eval_shape(g, x), jax.jit(g)(x)))
