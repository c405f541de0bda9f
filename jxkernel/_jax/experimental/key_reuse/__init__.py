"""jax.experimental.key_reuse: JAX's key-reuse checker, whose code is jxkernel/random/key_reuse.py.
As in JAX the module itself holds no names; `jax.experimental.key_reuse._core` holds them
(`check_key_reuse`, `function_type_signature`, `consume`, `assert_consumed`, ...). Turn it on
with `jax.config.update('jax_debug_key_reuse', True)` or ``with jax.debug_key_reuse(True):``.

    >>> with jax.debug_key_reuse(True):
    ...     key = jax.random.key(0)
    ...     val1 = jax.random.normal(key)
    ...     val2 = jax.random.normal(key)
    Traceback (most recent call last):
      ...
    jxkernel.errors.KeyReuseError: Previously-consumed key passed to jit-compiled function at index 0
    See https://docs.jax.dev/en/latest/errors.html#jax.errors.KeyReuseError
"""
