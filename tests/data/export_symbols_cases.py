"""The symbols (function names) of lowered modules that call exported functions and nested
jits, as `Lowered.as_text()` prints them: JAX's `call_exported_<fun>`, MLIR's renaming of a
clash (`g`, `h`, `g_0`, `h_1`: one counter per module) and its quoting (`@"<lambda>"`).
Shared by reference/make_export_symbols_reference.py (real JAX 0.10.2) and
tests/export/test_export_symbols.py (jxkernel).

`run(jax)` returns {program: [symbol, ...]}: each `func.func` and `call` symbol in text order.
"""
import importlib
import re

import numpy as np

_SYMBOLS = re.compile(r'func\.func (?:public|private) @("(?:[^"\\]|\\.)*"|[\w.$]+)'
                      r'|call @("(?:[^"\\]|\\.)*"|[\w.$]+)')


def symbols(text: str) -> list:
    return [a or b for a, b in _SYMBOLS.findall(text)]


def programs(jax) -> dict:
    """{name: (function to jit, argument)}."""
    jnp = jax.numpy
    export = importlib.import_module(f"{jax.__name__}.export")
    x = np.arange(4.0, dtype=np.float32)

    def named(v):
        return jnp.sin(v) * 2

    @jax.jit
    def inner(v):
        return v + 1

    def nested(v):
        return inner(v) * 3

    @jax.jit
    def main(v):
        return v - 1

    def scaled(k):
        def f(v):
            return jax.jit(lambda z: z * k)(v) + 1
        return f

    def jitted_twice(k):
        @jax.jit
        def g(v):
            return v * k

        @jax.jit
        def h(v):
            return v + k
        return g, h

    def weird(v):
        return v * 7
    weird.__name__ = 'a-b"c d'

    exp_named = export.export(jax.jit(named))(x)
    exp_lambda = export.export(jax.jit(lambda v: jnp.cos(v)))(x)
    exp_nested = export.export(jax.jit(nested))(x)
    exp_main = export.export(jax.jit(main))(x)
    exp_2, exp_3 = (export.export(jax.jit(scaled(k)))(x) for k in (2.0, 3.0))
    g1, h1 = jitted_twice(2.0)
    g2, h2 = jitted_twice(3.0)
    return {
        "call_named": (lambda v: exp_named.call(v), x),
        "call_lambda": (lambda v: exp_lambda.call(v), x),
        "call_nested_jit": (lambda v: exp_nested.call(v), x),
        "call_twice": (lambda v: exp_nested.call(exp_nested.call(v)), x),
        "caller_jit_after": (lambda v: inner(exp_nested.call(v)), x),
        "caller_jit_before": (lambda v: exp_nested.call(inner(v)), x),
        "exported_main_jit": (lambda v: main(exp_main.call(v)), x),
        "two_exports_one_name": (lambda v: jax.jit(lambda y: y - 1)(exp_3.call(exp_2.call(v))), x),
        "jits_of_two_names": (lambda v: h2(g2(h1(g1(v)))), x),
        "jit_named_main": (lambda v: main(v), x),
        "jit_quoted_name": (lambda v: jax.jit(weird)(v), x),
    }, {"exported_nested": exp_nested, "exported_main": exp_main, "exported_lambda_jit": exp_2}


def run(jax) -> dict:
    callers, exported = programs(jax)
    out = {name: symbols(jax.jit(f).lower(x).as_text()) for name, (f, x) in callers.items()}
    out.update({name: symbols(e.mlir_module()) for name, e in exported.items()})
    return out
