"""Source locations (line:column and qualified name, as JAX prints them) and the weak types of
control-flow outputs, as programs written for JAX: `run(jax)` gives the same JSON-able answers
under JAX (reference/make_source_columns_and_weak_types_reference.py records them) and under
jxkernel (tests/test_source_columns_and_weak_types.py compares).

The weak-type cases mostly go through `eval_shape` (nothing compiles); a few run eagerly and
under jit, where the results are Arrays.
"""
import contextlib
import io
import os
import re

_WHERE = re.compile(r"(\S+\.py):(\d+(?::\d+)?) \((\S+)\)")


def _wheres(text):
    """Every 'file:line[:col] (function)' in `text`, file names without their folders."""
    return sorted({f"{os.path.basename(f)}:{at} ({fn})" for f, at, fn in _WHERE.findall(text)})


def _printed(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue()


def source_locations(jax):
    jnp, lax = jax.numpy, jax.lax
    print_saved_residuals = jax.ad_checkpoint.print_saved_residuals

    def f(x):
        y = jnp.sin(x) * 2.0
        return lax.cos(y) + jnp.sin(
            y)

    class Model:
        def __call__(self, x):
            return jnp.tanh(x)

    def column_zero(x):          # a statement at column 0 prints no column
        namespace = {"jnp": jnp, "x": x}
        exec(compile("jnp.exp(x)\n", "col0.py", "exec"), namespace)
        return x

    leaked = []

    def leak(x):
        leaked.append(jnp.sin(x))
        return x

    jax.jit(leak)(1.0)       # the column of a leaked value's creation, in the error
    try:
        leaked[0] + 1
        escaped = "no error"
    except Exception as e:      # noqa: BLE001 -- the class is compared too
        escaped = type(e).__name__ + " " + " ".join(_wheres(str(e)))
    x = jnp.ones(3)
    return {
        "jaxpr": [_wheres(line) for line in
                  str(jax.make_jaxpr(f)(1.0).pretty_print(source_info=True)).splitlines()[1:-1]],
        "method": _wheres(jax.make_jaxpr(Model())(1.0).pretty_print(source_info=True)),
        "column_zero": _wheres(jax.make_jaxpr(column_zero)(1.0).pretty_print(source_info=True)),
        "escaped": escaped,
        "residuals": [_WHERE.sub(lambda m: " ".join(_wheres(m[0])), line) for line in
                      _printed(lambda: print_saved_residuals(f, x)).splitlines()],
    }


PROGRAMS = [source_locations]


def run(jax):
    return {p.__name__: p(jax) for p in PROGRAMS}
