"""A Ref that a custom_vjp's fwd returns as a residual and its bwd writes (JAX's "stats
plumbing": a statistic of the cotangents, such as an amax history, written during the backward
pass), under `jit`, in a `scan` body (with and without `remat`), through `jax.vjp` with
has_aux, and one jitted function differentiated with two Refs in turn (each call's bwd writes
its own); `linearize` of a while loop whose body calls a custom_vjp; and a custom_vjp given a
Ref made from a differentiated value. Shared by reference/make_ref_residual_reference.py (real JAX 0.10.2) and
tests/transforms/test_custom_vjp_ref_residuals.py (jxkernel).

`run(jax)` returns {case: ["ok", floats] or [exception class name, message]}.
"""
import numpy as np


def _outcome(f):
    try:
        return ["ok", _plain(f())]
    except Exception as e:      # noqa: BLE001  (the error is the fact recorded)
        return [type(e).__name__, str(e).splitlines()[0]]


def _plain(x):
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    return np.asarray(x, np.float64).tolist()


def run(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax

    @jax.custom_vjp
    def stash(ref, x):
        return x

    def stash_fwd(ref, x):
        return x, ref

    def stash_bwd(ref, g):
        ref[...] = g
        return None, g * 2.0
    stash.defvjp(stash_fwd, stash_bwd)

    def straight(ref, x):
        x = jnp.sin(x)
        x = stash(ref, x)
        x = jnp.sin(x)
        return stash(ref, x)          # written first by the backward pass, then overwritten

    def scanned(remat):
        def body(x, _):
            x = stash(ref_of["r"], jnp.sin(x))
            return jnp.sin(x), ()
        body = jax.remat(body) if remat else body

        def f(ref, x):
            ref_of["r"] = ref
            return lax.scan(body, x, None, length=2)[0]
        return f
    ref_of = {}

    def grad_case(f, jit):
        def go():
            ref = jax.new_ref(jnp.float32(0.0))
            g = jax.grad(jax.jit(f) if jit else f, 1)(ref, jnp.float32(0.5))
            return [ref[...], g]
        return go

    out = {}
    for jit in (False, True):
        out[f"straight_jit={jit}"] = _outcome(grad_case(straight, jit))
        for remat in (False, True):
            out[f"scan_jit={jit}_remat={remat}"] = _outcome(grad_case(scanned(remat), jit))

    def vjp_has_aux():
        ref = jax.new_ref(jnp.float32(0.0))
        f = jax.jit(lambda ref, x: (straight(ref, x), x * 3.0))
        y, f_vjp, aux = jax.vjp(lambda x: f(ref, x), jnp.float32(0.5), has_aux=True)
        g, = f_vjp(jnp.float32(1.5))
        return [ref[...], y, g, aux]
    out["vjp_has_aux_jit"] = _outcome(vjp_has_aux)

    def two_refs():         # one jitted function, its one trace, two Refs in turn
        f = jax.jit(straight)
        a, b = jax.new_ref(jnp.float32(0.0)), jax.new_ref(jnp.float32(0.0))
        ga = jax.grad(f, 1)(a, jnp.float32(0.5))
        after_a = b[...]
        gb = jax.grad(f, 1)(b, jnp.float32(1.0))
        return [a[...], after_a, b[...], ga, gb]
    out["one_jit_two_refs"] = _outcome(two_refs)

    def nested(outside):    # a jit inside a jit (its stand-in stands for the outer one's), and
        inner = jax.jit(straight)          # grad itself jitted
        outer = jax.jit(lambda ref, x: inner(ref, x) * 2.0)
        ref = jax.new_ref(jnp.float32(0.0))
        grad = jax.grad(outer, 1)
        g = (jax.jit(grad) if outside else grad)(ref, jnp.float32(0.5))
        return [ref[...], g]
    out["nested_jit"] = _outcome(lambda: nested(False))
    out["jit_of_grad_of_nested_jit"] = _outcome(lambda: nested(True))

    def amax_history():     # JAX's test_custom_vjp_grad_stats_plumbing, smaller
        @jax.custom_vjp
        def scaled(x, ref):
            return x

        def scaled_fwd(x, ref):
            return x, ref

        def scaled_bwd(history, g):
            shifted = jnp.roll(history[...], 1).at[0].set(jnp.max(jnp.abs(g)))
            history[...] = shifted
            return g / jnp.max(history[...]), None
        scaled.defvjp(scaled_fwd, scaled_bwd)
        history = jax.new_ref(jnp.zeros(4))
        loss = jax.jit(lambda x, y: scaled(jnp.dot(x, y), history).sum())
        seen = []
        for i in range(3):
            gx, gy = jax.grad(loss, (0, 1))(jnp.arange(3.0) + i, jnp.ones(3))
            seen.append([history[...], gx, gy])
        return seen
    out["amax_history_jit"] = _outcome(amax_history)

    # linearize of a while loop whose body calls a custom_vjp (JAX's
    # test_remat_while_loop_residuals): the known loop leaves the custom_lin out
    @jax.custom_vjp
    def ra2a(x):
        return jax.freeze(jax.new_ref(x))
    ra2a.defvjp(lambda x: (ra2a(x), ()), lambda res, g: (ra2a(g),))

    def looped(x):
        return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, ra2a(c[1])), (0, x))[1]
    for name, f in [("plain", looped), ("jit_remat", jax.jit(jax.remat(looped)))]:
        out[f"linearize_while_{name}"] = _outcome(lambda: jax.linearize(f, 5.0)[0])
        out[f"linearize_while_{name}_jvp"] = _outcome(lambda: jax.linearize(f, 5.0)[1](1.0))

    # a custom_vjp given a Ref made from a differentiated value (JAX's
    # test_custom_vjp_differentiated_ref): the cotangent bwd returns for the Ref is that
    # value's, not the derivative of the function's own body (3)
    @jax.custom_vjp
    def tripled(x_ref):
        return x_ref[...] * 3.0
    tripled.defvjp(lambda x_ref: (tripled(x_ref), None), lambda _, g: (g * 100.0,))
    for name, f in [("plain", tripled), ("jit", jax.jit(tripled))]:
        out[f"differentiated_ref_{name}_vjp"] = _outcome(
            lambda: (lambda y, f_vjp: [y, f_vjp(1.0)[0]])(
                *jax.vjp(lambda x: f(jax.new_ref(x)), 3.0)))
        out[f"differentiated_ref_{name}_grad"] = _outcome(
            lambda: jax.grad(lambda x: f(jax.new_ref(x * 2.0)) + x)(3.0))
    return out
