"""Loops and conds whose body writes a Ref made outside, run the same way by real JAX 0.10.2
(reference/make_ref_loop_traces_reference.py writes ref_loop_traces_reference.json) and by
jxkernel (tests/api/test_refs.py): the values and the Ref's final value, and how many times
the user's body ran (JAX traces a body once: a print in it prints once). Each case:
[error class, message] or ["ok", the result, the Ref's value, the number of traces]."""
import json


def run(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    xs = jnp.arange(4.)

    def case(make):
        traces = [0]
        ref = jax.new_ref(jnp.zeros(()))

        def seen():
            traces[0] += 1
        try:
            out = make(ref, seen)
            out = jax.tree_util.tree_map(lambda a: jnp.asarray(a).tolist(), out)
            return ["ok", json.loads(json.dumps(out)), ref[...].tolist(), traces[0]]
        except Exception as e:     # the class and the message are what is compared
            return [type(e).__name__, str(e)]

    def scan_writes(ref, seen):
        def body(c, x):
            seen()
            ref[...] += x
            return c + ref[...], c
        return lax.scan(body, 0., xs)

    def scan_twice(ref, seen):
        def body(c, x):
            seen()
            ref[...] += x
            return c, None
        lax.scan(body, 0., xs)
        return lax.scan(body, 0., xs)[0]

    def scan_nested_jit(ref, seen):
        @jax.jit
        def bump(x):
            ref[...] += x
        def body(c, x):
            seen()
            bump(x)
            return c + ref[...], None
        return lax.scan(body, 0., xs)[0]

    def scan_in_jit(ref, seen):
        def body(c, x):
            seen()
            ref[...] = ref[...] * 2. + x
            return c, ref[...]
        return jax.jit(lambda xs: lax.scan(body, 1., xs))(xs)

    def while_writes(ref, seen):
        def cond(c):
            return c < 3
        def body(c):
            seen()
            ref[...] += 2.
            return c + 1
        return lax.while_loop(cond, body, 0)

    def fori_writes(ref, seen):
        def body(i, c):
            seen()
            ref[...] += i
            return c * 2
        return lax.fori_loop(0, 5, body, 1.)

    def cond_writes(ref, seen):
        def yes(x):
            seen()
            ref[...] = x
            return x + 1
        def no(x):
            seen()
            ref[...] += 10.
            return x - 1
        return [lax.cond(p, yes, no, 5.) for p in (True, False)]

    def switch_writes(ref, seen):
        def branch(k):
            def f(x):
                seen()
                ref[...] += k
                return x * k
            return f
        return lax.switch(1, [branch(1.), branch(2.), branch(3.)], 4.)

    def grad_of_scan(ref, seen):
        def loss(w):
            def body(c, x):
                seen()
                ref[...] += 1.
                return c * w + x, None
            return lax.scan(body, 1., xs)[0]
        return jax.grad(loss)(0.5)

    return {name: case(make) for name, make in [
        ("scan writes", scan_writes), ("scan twice", scan_twice),
        ("scan calling a jit that writes", scan_nested_jit), ("scan in a jit", scan_in_jit),
        ("while writes", while_writes), ("fori_loop writes", fori_writes),
        ("cond writes", cond_writes), ("switch writes", switch_writes),
        ("grad of a scan that writes", grad_of_scan)]}
