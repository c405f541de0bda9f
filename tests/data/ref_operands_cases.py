"""Refs passed as operands of `lax.cond`, `lax.switch`, `lax.scan`, `jax.checkpoint` and a
`custom_vjp` function (not closed over): the values they give and leave in the Refs, a Ref
scanned along its leading axis (the body handed its row, itself a Ref), JAX's errors for one
Ref passed twice or passed and closed over, a Ref of kind "no_grad_no_remat" taking a
differentiated value, `jax.vjp` at a Ref (its vjp function refusing it, as JAX's), an
`empty_ref` made in a jit freed twice, and the methods `ref.addupdate` and `ref.at`. Shared by
reference/make_ref_operands_reference.py (real JAX 0.10.2) and
tests/api/test_ref_operands.py (jxkernel).

`run(jax)` returns {case: value or (exception class name, message)}; messages name this file
as "CASES".
"""
import numpy as np


def _outcome(f):
    try:
        return ["ok", _plain(f())]
    except Exception as e:      # noqa: BLE001  (the error is the fact recorded)
        return [type(e).__name__, str(e).replace(__file__, "CASES")]


def _plain(x):
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    return None if x is None else np.asarray(x).tolist()


def run(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    out = {}

    def bump(r, v):
        r[...] += v
        return r[...] * 2

    def read(r, v):
        return r[...]

    r = jax.new_ref(jnp.arange(3.0))
    out["cond"] = _outcome(lambda: lax.cond(True, bump, read, r, 1.0))
    out["cond/ref_after"] = _plain(r[...])
    out["cond_false"] = _outcome(lambda: lax.cond(False, bump, read, r, 1.0))
    out["cond_jit"] = _outcome(lambda: jax.jit(
        lambda v: lax.cond(v > 0, bump, read, r, v))(2.0))
    out["cond_jit/ref_after"] = _plain(r[...])
    r2 = jax.new_ref(jnp.arange(3.0))
    out["cond_jit_ref_argument"] = _outcome(lambda: jax.jit(
        lambda rr, v: lax.cond(v > 0, bump, read, rr, v))(r2, 2.0))
    out["cond_jit_ref_argument/ref_after"] = _plain(r2[...])
    out["switch"] = _outcome(lambda: lax.switch(1, [read, bump], r2, 1.0))
    out["switch/ref_after"] = _plain(r2[...])
    r3 = jax.new_ref(jnp.ones(2))
    out["cond_pytree"] = _outcome(lambda: lax.cond(
        True, lambda d: bump(d["r"], d["v"]), lambda d: d["v"] + d["r"][...],
        {"r": r3, "v": 3.0}))
    out["cond_pytree/ref_after"] = _plain(r3[...])

    x_ref = jax.new_ref(0.0)
    out["cond_passed_twice"] = _outcome(lambda: lax.cond(
        True, lambda x1, x2: 1.0, lambda x1, x2: 2.0, x_ref, x_ref))
    out["cond_passed_and_closed_over"] = _outcome(lambda: lax.cond(
        True, lambda y_ref: x_ref[...] + y_ref[...], lambda y_ref: x_ref[...] + y_ref[...],
        x_ref))
    out["scan_passed_twice"] = _outcome(lambda: lax.scan(
        lambda c, _: (None, None), (x_ref, x_ref), None, length=1))
    out["scan_passed_and_closed_over"] = _outcome(lambda: lax.scan(
        lambda y_ref, _: (x_ref[...] + y_ref[...], None), x_ref, None, length=1))

    seen = {}

    def add_index(_, index_x):
        index, x = index_x
        seen["type"], seen["is_ref"] = str(jax.typeof(x)), isinstance(x, jax.Ref)
        x[...] += index
        return (), x[...]
    s = jax.new_ref(np.arange(5))
    out["scan_over_ref"] = _outcome(lambda: lax.scan(add_index, (), (np.arange(5), s)))
    out["scan_over_ref/ref_after"] = _plain(s[...])
    out["scan_over_ref/row_type"] = seen["type"]
    out["scan_over_ref/row_is_ref"] = seen["is_ref"]
    s = jax.new_ref(np.arange(5))
    out["scan_over_ref_jit"] = _outcome(jax.jit(
        lambda: lax.scan(add_index, (), (np.arange(5), s))))
    out["scan_over_ref_jit/ref_after"] = _plain(s[...])

    def write_row(c, x):
        x[1] = c
        return c + 1.0, x[0]
    m = jax.new_ref(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    out["scan_over_ref_reverse"] = _outcome(lambda: lax.scan(write_row, 10.0, m,
                                                             reverse=True))
    out["scan_over_ref_reverse/ref_after"] = _plain(m[...])

    def total(xs):
        xs_ref = jax.new_ref(xs)
        return lax.scan(lambda c, x_ref: (c + x_ref[...] ** 2, None), 0.0, xs_ref)[0]
    out["grad_scan_over_ref"] = _outcome(lambda: jax.grad(total)(jnp.arange(3.0)))

    def square_into(y, x_ref):
        out = y * y
        x_ref[...] += out
        return out
    for name, wrap in (("plain", lambda f: f), ("remat", jax.checkpoint),
                       ("jit_remat", lambda f: jax.jit(jax.checkpoint(f)))):
        # a new function each time: JAX's traces are cached by the function, not the kind
        g = wrap(lambda y, x_ref: square_into(y, x_ref))
        ref = jax.new_ref(1.0)
        out[f"{name}/value"] = _outcome(lambda: g(3.0, ref))
        out[f"{name}/ref_after"] = _plain(ref[...])
        g = wrap(lambda y, x_ref: square_into(y, x_ref))
        ref = jax.new_ref(1.0, kind="no_grad_no_remat")
        out[f"{name}/grad_no_grad_ref"] = _outcome(lambda: jax.grad(g)(2.0, ref))
        out[f"{name}/grad_no_grad_ref/ref_after"] = _plain(ref[...])
        g = wrap(lambda y, x_ref: square_into(y, x_ref))
        out[f"{name}/grad_plain_ref"] = _outcome(lambda: jax.grad(g)(2.0, jax.new_ref(1.0)))
    out.update(_custom_vjp_cases(jax))

    def freed_twice():
        ref = jax.empty_ref(jax.ShapeDtypeStruct((), "float32"))
        jax.free_ref(ref)
        jax.free_ref(ref)
    # (JAX's error is a KeyError of its own; that one is raised is the fact compared)
    out["jit_empty_ref_freed_twice_raises"] = _outcome(jax.jit(freed_twice))[0] != "ok"

    def filled():
        ref = jax.empty_ref(jax.ShapeDtypeStruct((2,), "float32"))
        ref[...] = jnp.ones(2)
        return ref[...] * 2
    out["jit_empty_ref_written"] = _outcome(jax.jit(filled))

    a = jax.new_ref(jnp.zeros(3))         # the Ref method addupdate(x, idx=())
    a.addupdate(jnp.ones(3))
    a.addupdate(2.0, 1)
    jax.jit(lambda r: r.addupdate(jnp.ones(3)))(a)
    out["addupdate_method"] = _plain(a[...])
    q = jax.new_ref(jnp.zeros(4))
    jax.vmap(lambda row: row.addupdate(1.0))(q)
    out["addupdate_method_vmapped"] = _plain(q[...])

    @jax.jit
    def at_slice(x):                      # ref.at[idx] in a jit, differentiated
        ref = jax.new_ref(jnp.ones(5))
        ref.at[1:4][...] += x
        return (ref[...] * ref[...]).sum()
    out["grad_at_slice"] = _outcome(lambda: jax.grad(at_slice)(jnp.array([1.0, 2.0, 3.0])))
    b = jax.new_ref(jnp.zeros(4))
    jax.jit(lambda r: r.at[1:3].set(jnp.ones(2)))(b)
    out["jit_at_set"] = _plain(b[...])
    m = jax.new_ref(jnp.arange(6.0).reshape(2, 3))

    def nested(r):
        row = r.at[1]
        row.at[0:2][...] = jnp.zeros(2)
        return row[2], row.shape
    out["jit_at_nested"] = _outcome(lambda: jax.jit(nested)(m)[0])
    out["jit_at_nested/ref_after"] = _plain(m[...])
    out["at_outside_a_trace"] = _outcome(lambda: b.at)[0]
    return out


def _custom_vjp_cases(jax) -> dict:
    """A custom_vjp taking Refs: its bwd writing one (the "grad stats" pattern, also with
    nondiff_argnums), and JAX's errors (compared from " got " or " returned": JAX names its
    function by an internal wrapper's repr)."""
    from functools import partial
    jnp, out = jax.numpy, {}

    @jax.custom_vjp
    def stash(grads_ref, x):
        return x

    def stash_bwd(grads_ref, g):
        grads_ref[...] = g
        return None, g
    stash.defvjp(lambda grads_ref, x: (x, grads_ref), stash_bwd)
    grads = jax.new_ref(jnp.float32(0.0))
    out["custom_vjp_stash"] = _outcome(lambda: jax.grad(
        lambda x: stash(grads, jnp.sin(x)) * 3.0)(jnp.float32(0.0)))
    out["custom_vjp_stash/ref_after"] = _plain(grads[...])

    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def scaled_stash(scale, grads_ref, x):
        return x * scale

    def scaled_stash_bwd(scale, grads_ref, g):
        grads_ref[...] = g
        return None, g * scale
    scaled_stash.defvjp(lambda scale, grads_ref, x: (x * scale, grads_ref), scaled_stash_bwd)
    grads = jax.new_ref(jnp.float32(0.0))
    out["custom_vjp_nondiff_stash"] = _outcome(lambda: jax.grad(
        lambda x: scaled_stash(2.0, grads, x) * 3.0)(jnp.float32(1.0)))
    out["custom_vjp_nondiff_stash/ref_after"] = _plain(grads[...])

    @jax.custom_vjp
    def two(x_ref, y_ref):
        return None
    two.defvjp(lambda x_ref, y_ref: (None, None), lambda _, g: (None, None))
    x_ref = jax.new_ref(0.0)
    kind, text = _outcome(lambda: two(x_ref, x_ref))
    out["custom_vjp_passed_twice"] = [kind, text.split(" got ")[-1]]

    @jax.custom_vjp
    def back(ref):
        return ref
    back.defvjp(lambda ref: (ref, None), lambda *_: (None,))
    kind, text = _outcome(lambda: back(jax.new_ref(0.0)))
    out["custom_vjp_returns_ref"] = [kind, text.split(" returned ")[-1]]

    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def back2(_, ref):
        return ref
    back2.defvjp(lambda _, ref: (ref, None), lambda *_: (None,))
    kind, text = _outcome(lambda: back2("hi", jax.new_ref(0.0)))
    out["custom_vjp_nondiff_returns_ref"] = [kind, text.split(" returned ")[-1]]

    kind, text = _outcome(lambda: jax.vjp(two, x_ref, x_ref))
    out["vjp_custom_vjp_passed_twice"] = [kind, text.split(" got ")[-1]]

    @jax.custom_vjp
    def keep(x, ref):
        return x

    def keep_fwd(x, _):
        return x, jax.new_ref(0)
    keep.defvjp(keep_fwd, lambda ref, g: (g, None))
    kind, text = _outcome(lambda: jax.vjp(keep, 3.0, jax.new_ref(0.0)))
    out["vjp_custom_vjp_fwd_returns_new_ref"] = [kind, text.split(" returned ")[-1]]

    def add_into(x, r):
        r[...] += x
        return x * r[...]
    r = jax.new_ref(2.0)
    primal, f_vjp = jax.vjp(add_into, 3.0, r)
    out["vjp_with_ref/primal"] = _plain(primal)
    out["vjp_with_ref/ref_after"] = _plain(r[...])
    out["vjp_with_ref/calling_raises"] = _outcome(lambda: f_vjp(1.0))[0]
    return out
