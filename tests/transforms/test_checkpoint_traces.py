"""jax.checkpoint traces its function once per argument types and keeps the trace, as JAX's
(a weakref_lru_cache on the function): eager calls are traced too, another checkpoint(f,
policy=...) wrapper of the same function reuses the trace, and a global the function reads
that changed since is not seen (JAX's gradient-checkpointing guide shows this: its
save_any_names_but_these cell saves nothing named, the trace being the one from before
`predict` gained checkpoint_name). Facts recorded with JAX 0.10.2."""
import numpy as np

import jxkernel as jax
import jxkernel.numpy as jnp

calls = []


def _helper(x):
    calls.append("traced")
    return jnp.sin(x)


def _f(x):
    return _helper(x) * 2


def test_a_checkpointed_function_is_traced_once_per_types():
    global _helper
    f = jax.checkpoint(_f)
    first = f(1.0)
    original = _helper

    def _helper(x):        # noqa: F811 -- the global `_f` reads, changed after the trace
        return jnp.cos(jnp.sin(x))
    try:
        again = jax.checkpoint(_f, policy=jax.checkpoint_policies.everything_saveable)(1.0)
        # JAX 0.10.2: 1.6829419 (2 sin 1) both times, and the same gradient 2 cos 1
        np.testing.assert_allclose([first, again], [2 * np.sin(1.0)] * 2, rtol=1e-6)
        np.testing.assert_allclose(jax.grad(f)(1.0), 2 * np.cos(1.0), rtol=1e-6)
        assert calls == ["traced"]
        f(np.float32(2.0))                  # another type: traced anew, with the new global
        assert calls == ["traced"]
        np.testing.assert_allclose(f(np.float32(2.0)), 2 * np.cos(np.sin(2.0)), rtol=1e-6)
    finally:
        _helper = original
