"""Source locations (line:column and qualified name, as JAX prints them) and the weak types of
control-flow outputs, as programs written for JAX: `run(jax)` gives the same JSON-able answers
under JAX (reference/make_source_columns_and_weak_types_reference.py records them) and under
jxkernel (tests/core/test_source_columns_and_weak_types.py compares).

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

    def loss(w, x):             # grad's backward equations take the lines they transpose
        y = jnp.tanh(x @ w)
        return jnp.mean(y ** 2)

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
        "grad": [_wheres(line) for line in str(jax.make_jaxpr(jax.grad(loss))(
            jnp.ones((3, 3)), jnp.ones((2, 3))).pretty_print(source_info=True)).splitlines()[1:-1]],
        # the notes' column, after the widest line that has one, and nested jaxprs' notes
        "layout": [_WHERE.sub("F", line) for line in jax.make_jaxpr(
            lambda x: jax.jit(loss)(x, x) + jnp.cos(x))(jnp.ones((2, 2))).pretty_print(
                source_info=True).splitlines()],
        "method": _wheres(jax.make_jaxpr(Model())(1.0).pretty_print(source_info=True)),
        "column_zero": _wheres(jax.make_jaxpr(column_zero)(1.0).pretty_print(source_info=True)),
        "escaped": escaped,
        "residuals": [_WHERE.sub(lambda m: " ".join(_wheres(m[0])), line) for line in
                      _printed(lambda: print_saved_residuals(f, x)).splitlines()],
    }


def _types(jax, tree):
    """(dtype, weak_type) of every leaf; Python scalars by their type's name."""
    return jax.tree.map(lambda a: [str(a.dtype), bool(a.weak_type)] if hasattr(a, "dtype")
                        else type(a).__name__, tree)


def weak_types(jax):
    jnp, lax = jax.numpy, jax.lax
    f32 = jnp.float32(2.0)
    shape_cases = {
        "scan_ys_of_weak_carry": lambda: lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(3)),
        "scan_ys_mixed": lambda: lax.scan(lambda c, x: (c + x, (c, c + x, c * 2)), 0.0,
                                          jnp.ones(2)),
        "scan_reverse": lambda: lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(3),
                                         reverse=True),
        "scan_const_ys": lambda: lax.scan(lambda c, x: (c, 1.0), 0.0, None, length=2),
        "while": lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0),
                                        (0, 1.0)),
        "fori": lambda: lax.fori_loop(0, 3, lambda i, c: (c[0] + i, c[1] * 2.0), (0, 1.0)),
        "fori_zero_trips": lambda: lax.fori_loop(0, 0, lambda i, c: c * 2.0, 1.0),
        "map": lambda: lax.map(lambda x: 1.0, jnp.arange(3)),
        "cond_weak_weak": lambda: lax.cond(True, lambda: 1.0, lambda: 2.0),
        "cond_weak_strong": lambda: lax.cond(True, lambda: 1.0, lambda: f32),
        "cond_strong_weak": lambda: lax.cond(True, lambda: f32, lambda: 1.0),
        "switch_weak_first": lambda: lax.switch(1, [lambda: 1.0, lambda: f32, lambda: 3.0]),
        "switch_strong_first": lambda: lax.switch(0, [lambda: f32, lambda: 1.0]),
        "vmap_switch": lambda: jax.vmap(lambda i: lax.switch(i, [lambda: 1.0, lambda: f32]))(
            jnp.arange(2)),
        "vmap_scan": lambda: jax.vmap(lambda x: lax.scan(lambda c, y: (c + y, c), 0.0, x))(
            jnp.ones((2, 3))),
    }
    weak_in = {  # functions of a weakly typed 1.0
        "jvp_cond": lambda x: jax.jvp(lambda x: lax.cond(True, lambda x: x * 2.0, lambda x: x, x),
                                      (x,), (x,)),
        "jvp_cond_strong_tangent": lambda x: jax.jvp(
            lambda x: lax.cond(True, lambda x: x * 2.0, lambda x: f32 * x, x), (x,), (f32,)),
        "jvp_scan": lambda x: jax.jvp(lambda x: lax.scan(lambda c, _: (c * 2.0, c), x, None,
                                                         length=2), (x,), (x,)),
        "jvp_while": lambda x: jax.jvp(lambda x: lax.while_loop(lambda c: c < 3,
                                                                lambda c: c * 2.0, x), (x,), (x,)),
        "jvp_jit": lambda x: jax.jvp(jax.jit(lambda y: y * 2.0), (x,), (x,)),
        "grad_scan": lambda x: jax.grad(lambda x: lax.scan(lambda c, _: (c * 2.0, c), x, None,
                                                           length=2)[1].sum())(x),
        "jacfwd_fori": lambda x: jax.jacfwd(lambda x: lax.fori_loop(0, 2, lambda i, c: c * x,
                                                                    1.0))(x),
    }
    out = {name: _types(jax, jax.eval_shape(fn)) for name, fn in shape_cases.items()}
    out.update({name: _types(jax, jax.eval_shape(fn, 1.0)) for name, fn in weak_in.items()})
    scan = lambda: lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(3))
    out["eager"] = _types(jax, [scan(), jax.jit(scan)(), lax.cond(True, lambda: 1.0, lambda: f32),
                                lax.switch(1, [lambda: 1.0, lambda: f32]),
                                lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0)])
    out["eager_values"] = [int(v) for v in scan()[1]]
    return out


PROGRAMS = [source_locations, weak_types]


def run(jax):
    return {p.__name__: p(jax) for p in PROGRAMS}
