"""Programs using Refs (jax.new_ref) whose make_jaxpr text and values real JAX 0.10.2 records
(reference/make_ref_jaxpr_reference.py writes ref_jaxprs.json) and jxkernel checks
(tests/api/test_ref_jaxprs.py). Each case builds fresh Refs: `cases(jax, jnp)[name]()` gives
(function, flat arguments, the Refs whose final values are recorded after one run)."""
import numpy as np


def cases(jax, jnp):
    """name -> builder() -> (fun, args, refs)."""
    lax, out = jax.lax, {}

    def case(fun):
        out[fun.__name__] = fun
        return fun

    def arange(*shape):
        return jnp.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))

    @case
    def arg_read_write():
        def f(x_ref, y):
            x_ref[...] = x_ref[...] + y
            return jnp.sin(y)
        r = jax.new_ref(arange(3))
        return f, (r, jnp.ones(3)), [r]

    @case
    def closed_over_iadd():
        c = jax.new_ref(jnp.ones(3))

        def g(y):
            c[...] += y
            return c[...] * 2
        return g, (arange(3),), [c]

    @case
    def made_inside():
        def h():
            r = jax.new_ref(0.)
            r[...] = 1.
            return r[...]
        return h, (), []

    @case
    def int_index_set():
        def f(r):
            r[1] = 5.
            return r[0]
        r = jax.new_ref(arange(3))
        return f, (r,), [r]

    @case
    def negative_index():
        def f(r):
            r[-1] = 2.
            return r[-1]
        r = jax.new_ref(arange(3))
        return f, (r,), [r]

    @case
    def slice_get():
        r = jax.new_ref(arange(4))
        return (lambda r: r[0:2]), (r,), [r]

    @case
    def slice_get_mid():
        r = jax.new_ref(arange(4))
        return (lambda r: r[1:3]), (r,), [r]

    @case
    def slice_get_all():
        r = jax.new_ref(arange(3))
        return (lambda r: r[:]), (r,), [r]

    @case
    def column_get():
        r = jax.new_ref(arange(2, 3))
        return (lambda r: r[:, 1]), (r,), [r]

    @case
    def rows_get():
        r = jax.new_ref(arange(2, 3))
        return (lambda r: r[1:]), (r,), [r]

    @case
    def ellipsis_int_get():
        r = jax.new_ref(arange(2, 3))
        return (lambda r: r[..., 0]), (r,), [r]

    @case
    def row_set():
        def f(r, v):
            r[1] = v
        r = jax.new_ref(arange(2, 3))
        return f, (r, jnp.ones(3)), [r]

    @case
    def slice_set():
        def f(r, v):
            r[1:3] = v
        r = jax.new_ref(arange(4))
        return f, (r, jnp.ones(2)), [r]

    @case
    def int_iadd():
        def f(r):
            r[2] += 1.
        r = jax.new_ref(arange(3))
        return f, (r,), [r]

    @case
    def strided_get():
        r = jax.new_ref(arange(4))
        return (lambda r: r[::2]), (r,), [r]

    @case
    def traced_index_get():
        r = jax.new_ref(arange(3))
        return (lambda r, i: r[i]), (r, 1), [r]

    @case
    def traced_index_set():
        def f(r, i):
            r[i] = 2.
        r = jax.new_ref(arange(3))
        return f, (r, 1), [r]

    @case
    def traced_and_static_index():
        def f(r, i):
            r[i, 1:] += 1.
            return r[1, i]
        r = jax.new_ref(arange(2, 3))
        return f, (r, 1), [r]

    @case
    def concrete_array_index():
        r = jax.new_ref(arange(3))
        return (lambda r: r[jnp.int32(2)]), (r,), [r]

    @case
    def addupdate_traced_index():
        def f(r, i, x):
            jax.ref.addupdate(r, i, x)
        r = jax.new_ref(arange(3))
        return f, (r, 2, jnp.float32(5.)), [r]

    @case
    def swap_used():
        r = jax.new_ref(arange(3))
        return (lambda r, v: jax.ref.swap(r, ..., v)), (r, jnp.ones(3)), [r]

    @case
    def swap_used_int():
        r = jax.new_ref(arange(3))
        return (lambda r: jax.ref.swap(r, 1, 7.)), (r,), [r]

    @case
    def functional_forms():
        def f(r, v):
            a = jax.ref.get(r, ...)
            jax.ref.set(r, ..., v)
            jax.ref.addupdate(r, ..., a)
            return jax.ref.get(r, 0)
        r = jax.new_ref(arange(3))
        return f, (r, jnp.ones(3)), [r]

    @case
    def addupdate_full():
        def f(r, v):
            jax.ref.addupdate(r, ..., v)
        r = jax.new_ref(arange(3))
        return f, (r, jnp.ones(3)), [r]

    @case
    def addupdate_index():
        def f(r):
            jax.ref.addupdate(r, 1, 10.)
        r = jax.new_ref(arange(3))
        return f, (r,), [r]

    @case
    def freeze_inside():
        def f(x):
            r = jax.new_ref(x)
            r[...] = r[...] * 2.
            return jax.freeze(r)
        return f, (arange(3),), []

    @case
    def freeze_arg():
        r = jax.new_ref(arange(3))
        return (lambda r: jax.freeze(r)), (r,), [r]

    @case
    def empty_ref_inside():
        def f(x):
            r = jax.empty_ref(jax.ShapeDtypeStruct((3,), jnp.float32))
            r[...] = x
            return r[...]
        return f, (arange(3),), []

    @case
    def new_ref_of_int_arg():
        def f(x):
            r = jax.new_ref(x)
            r[...] += 1
            return r[...]
        return f, (jnp.int32(4),), []

    @case
    def int_ref_scalar():
        def f(r):
            r[...] += 1
        r = jax.new_ref(0)
        return f, (r,), [r]

    @case
    def two_refs():
        def f(a, b):
            b[...] = a[...] * 2.
            a[...] = b[...] + 1.
        a, b = jax.new_ref(jnp.ones(2)), jax.new_ref(jnp.zeros(2))
        return f, (a, b), [a, b]

    @case
    def jit_closed():
        c = jax.new_ref(jnp.ones(3))

        def g(y):
            c[...] += y
            return c[...] * 2
        return jax.jit(g), (arange(3),), [c]

    @case
    def jit_arg():
        @jax.jit
        def k(r, y):
            r[...] = r[...] * y
            return y + 1.
        r = jax.new_ref(arange(3))
        return (lambda r, y: k(r, y)), (r, jnp.full(3, 2.)), [r]

    @case
    def fori_closed():
        c = jax.new_ref(0.)

        def f(n):
            def body(i, x):
                c[...] += x
                return x * 2.
            return lax.fori_loop(0, 3, body, n)
        return f, (1.,), [c]

    @case
    def while_closed():
        c = jax.new_ref(jnp.zeros(2))

        def f(x):
            def body(x):
                c[...] = c[...] + x
                return x + 1.
            return lax.while_loop(lambda x: x[0] < 3., body, x)
        return f, (jnp.zeros(2),), [c]

    @case
    def scan_closed():
        c = jax.new_ref(jnp.zeros(2))

        def f(xs):
            def body(carry, x):
                c[...] = c[...] + x
                return carry + 1., c[...]
            return lax.scan(body, 0., xs)
        return f, (arange(3, 2),), [c]

    @case
    def cond_closed():
        c = jax.new_ref(1.)

        def f(p, x):
            def t(x):
                c[...] = x
                return x + 1.
            return lax.cond(p, t, lambda x: x - 1., x)
        return f, (True, 2.), [c]

    @case
    def grad_reads_closed():
        c = jax.new_ref(2.)

        def f(x):
            return jax.grad(lambda x: x * c[...])(x)
        return f, (jnp.float32(3.),), [c]

    @case
    def grad_then_read():
        c = jax.new_ref(0.5)

        def f(x):
            return jax.grad(lambda x: x * x)(x) + c[...]
        return f, (jnp.float32(3.),), [c]

    @case
    def vmap_ref_arg():
        def f(r, x):
            def one(r, x):
                r[...] = r[...] + x
                return x * 2.
            return jax.vmap(one)(r, x)
        r = jax.new_ref(arange(2, 3))
        return f, (r, jnp.ones((2, 3))), [r]

    @case
    def vmap_closed_read():
        c = jax.new_ref(arange(3))

        def f(x):
            return jax.vmap(lambda x: x * c[...])(x)
        return f, (jnp.ones((2, 3)),), [c]
    return out
