"""The jit objects of functions JAX jits but jxkernel keeps plain for eager speed.

In JAX `jnp.sin`, `jnp.dot`, `nn.sigmoid` or `lax.dynamic_index_in_dim` are jit objects, so
`export.export(jnp.dot)`, `jnp.sin.lower(x)` and `jnp.sort.eval_shape(x)` work. Here they
stay plain functions (no jit dispatch per eager call) and carry that jit as `as_jit`, with
its `lower`, `trace` and `eval_shape`, set where each is defined:

    >>> @jax_jitted(static_argnames=("axis",))
    ... def total(a, axis=None):
    ...     return jnp.sum(a, axis)
    >>> total(jnp.ones((2, 3)), axis=0)              # the plain function, called
    Array([2., 2., 2.], dtype=float32)
    >>> total.eval_shape(jnp.ones((2, 3)), axis=0)   # through its jit, as JAX's
    ShapeDtypeStruct(shape=(3,), dtype=float32)

Functions JAX leaves plain (`jnp.sum`, `nn.relu`) go without; tests/numpy/test_jitted_names.py
holds JAX's list. Here, not in numpy/, so that lax's functions can take it too.
"""
from __future__ import annotations

import functools
import types

from .jit import jit


class NamesakeJit:
    """The jit JAX's namesake of `fun` is, made on first use: some 240 functions carry one,
    and making them all at `import jxkernel` cost it milliseconds for what few programs use.
    Reads as the jit it stands for (`.lower`, `.__name__`, `._static_argnames`, a call)."""
    # (not the jit's own attribute names, which __getattr__ hands on: `_static_argnames`)
    __slots__ = ("_made_of", "_made")

    def __init__(self, fun, static_argnames, inline, jitted=None):
        self._made_of, self._made = (fun, static_argnames, inline), jitted

    @property
    def jitted(self):
        if self._made is None:
            fun, static_argnames, inline = self._made_of
            self._made = jit(fun, static_argnames=static_argnames, inline=inline)
        return self._made

    def __call__(self, *args, **kwargs):
        return self.jitted(*args, **kwargs)

    def lower(self, *args, **kwargs):
        return self.jitted.lower(*args, **kwargs)

    def trace(self, *args, **kwargs):
        return self.jitted.trace(*args, **kwargs)

    def eval_shape(self, *args, **kwargs):
        return self.jitted.eval_shape(*args, **kwargs)

    def __getattr__(self, name):          # the rest of the jit's attributes
        return getattr(self.jitted, name)


def jax_jitted(fun=None, *, static_argnames=None, inline=None):
    """Give `fun` the jit JAX's namesake is (`as_jit`, `lower`, `trace`, `eval_shape`), with
    JAX's static arguments and inline flag, and return `fun` itself, unchanged on the call
    path. A jnp_jit function (numpy/util.py) lends its own jit when given no arguments."""
    if fun is None:
        return functools.partial(jax_jitted, static_argnames=static_argnames, inline=inline)
    jitted = getattr(fun, "jitted", None)      # jnp_jit's, when no arguments override it
    if static_argnames is not None or inline is not None:
        jitted = None
    namesake = NamesakeJit(fun, static_argnames or (), bool(inline), jitted)
    fun.as_jit = namesake    # (api_util.NAMESAKE_ATTRS: never copied onto wrappers of fun)
    fun.lower, fun.trace, fun.eval_shape = namesake.lower, namesake.trace, namesake.eval_shape
    return fun


def jax_alias(fun, name: str, *, static_argnames=(), inline=False):
    """`fun` under another of JAX's names for it, which JAX makes a jit object of its own
    (`jnp.abs` beside `jnp.absolute`, `jnp.acos` beside `jnp.arccos`): a copy of `fun`'s code
    named `name` (so as fast eagerly), with a jit of its own, so that `export(jnp.abs)` names
    `abs` as JAX's does.

        >>> def total(a):
        ...     return jnp.sum(a)
        >>> plus = jax_alias(total, "plus")
        >>> plus.__code__ is total.__code__, plus.as_jit.__name__
        (True, 'plus')
    """
    copy = types.FunctionType(fun.__code__, fun.__globals__, name, fun.__defaults__,
                              fun.__closure__)
    copy.__kwdefaults__, copy.__doc__ = fun.__kwdefaults__, f"Alias of `{fun.__name__}`."
    copy.__qualname__, copy.__module__ = name, fun.__module__
    if hasattr(fun, "__wrapped__"):            # a jnp_jit wrapper: jit reads this signature
        copy.__wrapped__ = fun.__wrapped__
    return jax_jitted(copy, static_argnames=static_argnames, inline=inline)
