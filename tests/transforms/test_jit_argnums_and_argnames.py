"""jit's static_argnums/static_argnames (and donate_*): one given alone is completed from the
function's signature, both given are taken as they are, as JAX's infer_argnums_and_argnames
does (Flax's lifted jit passes both, for a wrapper whose reported signature is the user's)."""
import functools

import jxkernel as jax
import jxkernel.numpy as jnp


def test_names_alone_also_mark_positions():
    f = jax.jit(lambda a, b: a * 2 if b == "double" else a, static_argnames="b")
    assert float(f(1.0, "double")) == 2.0 and float(f(1.0, b="double")) == 2.0


def test_both_given_are_taken_as_given():
    def user(scope, a, b):        # the signature the wrapper reports (functools.wraps)
        raise AssertionError("not called")

    seen = []

    @functools.partial(jax.jit, static_argnums=(0,), static_argnames=["b"])
    @functools.wraps(user)
    def wrapper(tag, groups, a, **kwargs):
        seen.append((tag, kwargs["b"]))
        return a + groups["x"]

    out = wrapper("t", {"x": jnp.ones(())}, jnp.float32(1.0), b="hi")
    assert float(out) == 2.0 and seen == [("t", "hi")]
