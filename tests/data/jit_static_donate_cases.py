"""jit's static_argnums/static_argnames with donate_argnums/donate_argnames, overlapping and
disjoint, by position and by keyword, run alike by real JAX
(reference/make_jit_static_donate_reference.py records them in jit_static_donate_reference.json)
and by jxkernel (tests/transforms/test_jit_static_donate.py): each call's result or error, and
pmap's refusal of a static argument it is asked to donate.

    run(jax)["varargs_overlap"]  ->  [2.0, 2.0, 2.0]
"""
import functools

import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of


def f(a, b, c=1.0, *, d=2.0):
    return a * b + c + d


def v(*args):
    return args[0] * args[1]


def vk(a, *args, **kw):
    return a * args[0] + sum(kw.values())


X = "array"          # an argument of jnp.ones(3), made afresh per call (it may be donated)


def _cases(jnp) -> list:
    """(name, function, jit options, args, kwargs)."""
    return [
        ("overlap", f, dict(static_argnums=0, donate_argnums=0), (1.0, X), {}),
        ("overlap2", f, dict(static_argnums=(0, 1), donate_argnums=(1,)), (1.0, 2.0), {}),
        ("disjoint", f, dict(static_argnums=0, donate_argnums=1), (1.0, X), {}),
        ("disjoint_kw", f, dict(static_argnums=0, donate_argnums=1), (1.0,), dict(b=X)),
        ("static_names_donate_nums", f, dict(static_argnames="c", donate_argnums=0), (X, X),
         dict(c=3.0)),
        ("static_nums_donate_names", f, dict(static_argnums=2, donate_argnames="a"), (X, X, 3.0),
         {}),
        ("static_nums_donate_names_kw", f, dict(static_argnums=2, donate_argnames="a"), (),
         dict(a=X, b=X, c=3.0)),
        ("static_nums_donate_names_overlap", f, dict(static_argnums=1, donate_argnames="b"),
         (X, 2.0), {}),
        ("static_names_donate_names_overlap", f, dict(static_argnames="c", donate_argnames="c"),
         (X, X), dict(c=3.0)),
        ("donate_kwonly", f, dict(donate_argnames="d"), (X, X), dict(d=X)),
        ("static_kwonly_donate_nums", f, dict(static_argnames="d", donate_argnums=0), (X, X),
         dict(d=3.0)),
        ("static_neg_donate", f, dict(static_argnums=-1, donate_argnums=0), (X, X, 3.0), {}),
        ("donate_neg", f, dict(static_argnums=2, donate_argnums=-2), (X, X, 3.0), {}),
        ("donate_oob", f, dict(static_argnums=0, donate_argnums=5), (1.0, X), {}),
        ("static_oob", f, dict(static_argnums=5, donate_argnums=0), (X, X), {}),
        ("both_names_nums", f, dict(static_argnums=0, static_argnames="c", donate_argnums=1,
                                    donate_argnames="b"), (1.0, X), dict(c=2.0)),
        ("static_by_kw", f, dict(static_argnums=1, donate_argnums=0), (X,), dict(b=2.0)),
        ("donate_by_kw", f, dict(static_argnums=1, donate_argnums=0), (), dict(a=X, b=2.0)),
        ("varargs", v, dict(static_argnums=1, donate_argnums=0), (X, 2.0), {}),
        ("varargs_overlap", v, dict(static_argnums=1, donate_argnums=1), (X, 2.0), {}),
        ("varargs_overlap_both", v, dict(static_argnums=1, donate_argnums=(0, 1)), (X, 2.0), {}),
        ("vk", vk, dict(static_argnums=1, donate_argnums=0, donate_argnames="z"), (X, 2.0),
         dict(z=X)),
        ("partial", functools.partial(f, d=1.0), dict(static_argnums=1, donate_argnums=0),
         (X, 2.0), {}),
        ("numpy_function", jnp.multiply, dict(static_argnums=1, donate_argnums=0), (X, 2.0), {}),
        ("numpy_function_overlap", jnp.multiply, dict(static_argnums=1, donate_argnums=1),
         (X, 2.0), {}),
    ]


def run(jax) -> dict:
    jnp = jax.numpy
    fresh = lambda a: jnp.ones(3) if a is X else a          # noqa: E731
    out = {}
    for name, fn, options, args, kwargs in _cases(jnp):
        def call():
            g = jax.jit(fn, **options)
            return g(*map(fresh, args), **{k: fresh(a) for k, a in kwargs.items()})
        out[name] = error_of(call, cut=TRACEBACK_NOTE) or np.asarray(call()).tolist()
    a = jnp.ones(3)
    jax.jit(v, static_argnums=1, donate_argnums=(0, 1))(a, 2.0)
    out["varargs_overlap_both/donated"] = a.is_deleted()
    out["pmap_overlap"] = error_of(lambda: jax.pmap(
        v, static_broadcasted_argnums=(2, 1), donate_argnums=(1, 3)), cut=TRACEBACK_NOTE)
    return out
