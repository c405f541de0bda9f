"""Writes to a Ref inside a vmap that does not map it, run the same way by real JAX 0.10.2
(reference/make_ref_vmap_write_reference.py writes ref_vmap_write_reference.json) and by
jxkernel (tests/api/test_refs.py): JAX refuses any write to such a Ref, even of an unbatched
value (its tests/stateful_rng_test.py testVmapUnmapped: `rng.uniform()` of a stateful_rng
passed with in_axes=None); a Ref made inside the vmap takes mapped values. Each case: [error class, message] or ["ok", the result]."""
import importlib


def _outcome(fn) -> list:
    try:
        return ["ok", fn().tolist()]
    except Exception as e:     # the class and the message are what is compared
        return [type(e).__name__, str(e)]


def run(jax) -> dict:
    jnp = jax.numpy
    state = importlib.import_module(f"{jax.__name__}._src.state.primitives")
    xs = jnp.arange(3.)

    def vmapped(f, *args, **kwargs):
        return lambda: jax.vmap(f, **kwargs)(*args)

    def made_inside(x):
        q = jax.new_ref(0.)
        q[...] = 2.
        state.ref_addupdate(q, ..., 1.)
        return q[...] + x

    def squared_inside(x):          # a Ref made inside from the mapped value
        q = jax.new_ref(x)
        q[...] = q[...] * q[...]
        return q[...]

    def mapped_into_unmapped(x):     # one made inside from a constant, given a mapped value
        q = jax.new_ref(0.)
        q[...] = x
        return q[...]

    r = [jax.new_ref(0.) for _ in range(7)]
    mapped = jax.new_ref(jnp.zeros(3))
    return {
        "addupdate of a constant, Ref passed unmapped": _outcome(vmapped(
            lambda r, x: state.ref_addupdate(r, ..., 1.) or x, r[0], xs, in_axes=(None, 0))),
        "addupdate of a constant, Ref closed over": _outcome(vmapped(
            lambda x: state.ref_addupdate(r[1], ..., 1.) or x, xs)),
        "addupdate of the mapped value, Ref closed over": _outcome(vmapped(
            lambda x: state.ref_addupdate(r[2], ..., x) or x, xs)),
        "set of a constant, Ref closed over": _outcome(vmapped(
            lambda x: r[3].__setitem__(..., 2.) or x, xs)),
        "set of a constant in a jit, Ref closed over": _outcome(vmapped(
            jax.jit(lambda x: r[4].__setitem__(..., 2.) or x), xs)),
        "read, Ref passed unmapped": _outcome(vmapped(
            lambda r, x: x + r[...], r[5], xs, in_axes=(None, 0))),
        "Ref made inside": _outcome(vmapped(made_inside, xs)),
        "Ref made inside from the mapped value": _outcome(vmapped(squared_inside, xs)),
        "Ref made inside from the mapped value, in a jit": _outcome(
            lambda: jax.jit(jax.vmap(squared_inside))(xs)),
        "Ref made inside, set to the mapped value": _outcome(vmapped(mapped_into_unmapped,
                                                                     xs)),
        "set, Ref mapped": _outcome(lambda: (jax.vmap(lambda r, x: r.__setitem__(..., x))(
            mapped, xs), mapped[...])[1]),
    }
