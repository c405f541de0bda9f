"""What touching a deleted Array raises, each way a learner can (tests/xla/test_deleted_arrays.py
compares): `run(jax)` gives, per case, the exception's class name and its message (None where it
works). Each case is run once on an Array given to `.delete()` and once on an Array donated to
a jit that ran. The reference (deleted_arrays_reference.json) is real JAX 0.10.2's, written by
reference/make_deleted_arrays_reference.py; jxkernel's message is JAX's plus one sentence of why."""
import numpy as np


def _said(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        return {"error": type(e).__name__, "message": str(e)}
    return None


def run(jax):
    jnp = jax.numpy

    def gone(how):
        x = jnp.arange(3.0)
        if how == "delete":
            x.delete()
        else:
            jax.jit(lambda a: a * 2, donate_argnums=0)(x)
        return x

    def hit(how, args_before, args):
        """A jit called once, then with the deleted Array: JAX's compiled fast path."""
        g = jax.jit(lambda a, b: a + b)
        g(*args_before)
        return g(*args)

    def donated_twice():
        f = jax.jit(lambda a: a * 2, donate_argnums=0)
        x = jnp.arange(3.0)
        f(x)
        return f(x)

    def donated_to_a_hot_static_jit():
        """A donating jit with a static argument, hot (its compiled path), given again an
        Array it took."""
        f = jax.jit(lambda a, n: a * n, static_argnums=1, donate_argnums=0)
        x = jnp.arange(3.0)
        y = f(x, 2.0)
        f(f(y, 2.0), 2.0)
        return f(y, 2.0)

    def donated_by_keyword_beside_a_static():
        """The same with the donated Array and a static passed by keyword (the Array is the
        program's argument 1: the positional one comes first)."""
        f = jax.jit(lambda b, a, *, n: a * n + b, static_argnames="n", donate_argnames="a")
        b, x = jnp.ones(3), jnp.arange(3.0)
        y = f(b, a=x, n=2.0)
        f(b, n=2.0, a=f(b, a=y, n=2.0))
        return f(b, a=y, n=2.0)

    out = {}
    for how in ("delete", "donate"):
        ways = {
            "eager_add": lambda: gone(how) + 1,
            "eager_sin": lambda: jnp.sin(gone(how)),
            "index": lambda: gone(how)[0],
            "jit_first_call": lambda: jax.jit(lambda a: a + 1)(gone(how)),
            "jit_hit": lambda: hit(how, (jnp.ones(3), jnp.ones(3)), (jnp.ones(3), gone(how))),
            "repr": lambda: repr(gone(how)),
            "str": lambda: str(gone(how)),
            "format": lambda: f"{gone(how)}",
            "np_asarray": lambda: np.asarray(gone(how)),
            "jnp_asarray": lambda: jnp.asarray(gone(how)),
            "block_until_ready": lambda: gone(how).block_until_ready(),
            "device_get": lambda: jax.device_get(gone(how)),
            "device_put": lambda: jax.device_put(gone(how)),
            "jnp_copy": lambda: jnp.copy(gone(how)),
            "copy_method": lambda: gone(how).copy(),
            "tolist": lambda: gone(how).tolist(),
            "sum_method": lambda: gone(how).sum(),
            "grad": lambda: jax.grad(lambda a: a.sum())(gone(how)),
            "is_deleted": lambda: None if gone(how).is_deleted() else "not deleted",
            "make_jaxpr": lambda: str(jax.make_jaxpr(lambda a: a + 1)(gone(how))),
            "on_device_size_in_bytes": lambda: gone(how).on_device_size_in_bytes(),
            "unsafe_buffer_pointer": lambda: gone(how).unsafe_buffer_pointer(),
        }
        for name, fn in ways.items():
            out[f"{how}/{name}"] = _said(fn)
    # (only donated: JAX 0.10.2's is_ready after .delete() crashes the process, a segmentation
    # fault; tests/xla/test_deleted_arrays.py checks ours raises there as here, in a child)
    out["donate/is_ready"] = _said(lambda: gone("donate").is_ready())
    out["donate/same_jit_again"] = _said(donated_twice)
    out["donate/hot_static_jit_again"] = _said(donated_to_a_hot_static_jit)
    out["donate/by_keyword_beside_a_static_again"] = _said(donated_by_keyword_beside_a_static)
    return out
