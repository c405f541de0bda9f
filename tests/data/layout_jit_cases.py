"""Layouts a jit is given in Formats (Layout.AUTO, a concrete Layout) as JAX 0.10.2 answers
them on the CPU, on one device and over a 2x2 mesh: `main`'s signature as `.lower()` prints it
(`mhlo.layout_mode`, donation's `tf.aliasing_output` or `jax.buffer_donor`), the formats XLA
compiled for (`Compiled.input_formats`, `output_formats`), donation's ValueErrors for
Layout.AUTO on one side only, the calls of programs laid out so, `.lower()` of a committed
Array laid out otherwise, and a `Compiled` called with Arrays of other layouts than its
parameters' (JAX's "Computation was compiled for input layouts that disagree ...").
Shared by reference/make_layout_jit_reference.py (real JAX, 4 CPU devices) and
tests/xla/test_layout_jit.py (jxkernel, in a child process with 4 devices).

`run(jax)` returns {case: what it gave, or [error type name, message]}.
"""
import importlib

import numpy as np
from recorded_errors import error_of         # tests/data: [class name, message] of a raise


def _main(lowered) -> str:
    """`main`'s signature line, as `.lower().as_text()` prints it."""
    return next(line.strip() for line in lowered.as_text().splitlines()
                if "func.func public @main" in line)


def _formats(compiled) -> list:
    return [repr(compiled.input_formats), repr(compiled.output_formats)]


def _call(f, *args) -> list:
    """What a call gives: its value (as a list) and its result's format, or the error."""
    try:
        out = f(*args)
    except Exception as e:
        return [type(e).__name__, str(e).split("\n")[0]]
    return [np.asarray(out).tolist(), repr(out.format)]


def run(jax) -> dict:
    layout = importlib.import_module(f"{jax.__name__}.experimental.layout")
    Format, Layout = layout.Format, layout.Layout
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    x = np.arange(16, dtype=np.float32).reshape(8, 2)
    auto = Format(Layout.AUTO)
    out = {}

    # one device: Layout.AUTO for the arguments and results
    f = jax.jit(lambda v: v.T, in_shardings=auto, out_shardings=auto)
    out["one/auto_T/main"] = _main(f.lower(x))
    compiled = f.lower(x).compile()
    out["one/auto_T/formats"] = _formats(compiled)
    out["one/auto_T/call"] = _call(compiled, x)
    g = jax.jit(lambda v: v * 2, in_shardings=auto, out_shardings=auto)
    out["one/auto_x2/formats"] = _formats(g.lower(x).compile())
    out["one/auto_x2/call"] = _call(g, x)
    # a concrete layout (column-major), and the row-major one (no attribute: the default)
    column = Format(Layout((1, 0)), one)
    h = jax.jit(lambda v: v + 1, in_shardings=column)
    out["one/column_in/main"] = _main(h.lower(x))
    out["one/column_in/formats"] = _formats(h.lower(x).compile())
    out["one/column_in/call_numpy"] = _call(h, x)
    out["one/column_in/call_array"] = _call(h, jax.numpy.asarray(x))
    # a committed Array laid out otherwise than jit's layout for it: JAX's ValueError
    committed = jax.device_put(x, one)
    out["one/column_in/committed_row"] = error_of(lambda: jax.jit(
        lambda v: v + 1, in_shardings=column)(committed))
    out["one/auto_in/committed_row"] = error_of(lambda: f(committed))
    out["one/column_in/committed_column"] = _call(h, jax.device_put(x, column))
    out["one/column_out/main"] = _main(jax.jit(lambda v: v + 1, out_shardings=column).lower(x))
    out["one/row_in/main"] = _main(jax.jit(lambda v: v + 1, in_shardings=Format(
        Layout((0, 1)), one)).lower(x))
    out["one/put_column"] = _call(lambda v: jax.device_put(v, column), x)
    # an Array laid out so, given to programs compiled without layouts: a jit, an eager
    # operation, another Array's (each reads it as the values it holds)
    laid = jax.device_put(x, column)
    out["one/put_column/jit"] = _call(jax.jit(lambda v: v * 3 + 1), laid)
    out["one/put_column/eager"] = _call(lambda v: jax.numpy.abs(v) * 2 + v, laid)
    out["one/put_column/mixed"] = _call(lambda v: v - jax.numpy.asarray(x) * 2, laid)
    out["one/put_column/same"] = jax.device_put(laid, column) is laid
    # `.lower()` given a committed Array laid out otherwise: its layout is the parameter's
    # (JAX's lower resolves it as its call does); Layout.AUTO or another layout given for a
    # row-major one: JAX's ValueError as it lowers; a Compiled given Arrays of another layout
    # than its parameters': JAX's ValueError (uncommitted and host values are laid out so)
    lowered = jax.jit(lambda v: v * 3 + 1).lower(laid)
    compiled = lowered.compile()
    out["one/lower_column_arg/main"] = _main(lowered)
    out["one/lower_column_arg/formats"] = _formats(compiled)
    out["one/lower_column_arg/calls"] = [
        _call(compiled, laid), _call(compiled, committed), _call(compiled, x),
        _call(compiled, jax.numpy.asarray(x))]
    out["one/lower_auto/committed_row"] = error_of(lambda: f.lower(committed))
    out["one/lower_column/committed_row"] = error_of(lambda: h.lower(committed))
    row = jax.jit(lambda a, b: a + b).lower(x, x).compile()
    out["one/compiled_row/column_args"] = [_call(row, laid, laid), _call(row, laid, x),
                                           _call(row, x, committed)]
    out["one/compiled_row/column_args/text"] = error_of(lambda: row(laid, laid))
    out["one/compiled_column/row_arg"] = [_call(h.lower(x).compile(), committed),
                                          _call(h.lower(x).compile(), laid)]
    # donation with Layout.AUTO on one side only: JAX's ValueErrors
    for name, kw in (("auto_in", {"in_shardings": auto}), ("auto_out", {"out_shardings": auto})):
        d = jax.jit(lambda v: v * 2, donate_argnums=0, **kw)
        out[f"one/donate_{name}"] = error_of(lambda: d(jax.numpy.arange(8.0)))
    d = jax.jit(lambda v: v * 2, donate_argnums=0, in_shardings=auto, out_shardings=auto)
    out["one/donate_auto_both/main"] = _main(d.lower(jax.numpy.arange(8.0)))

    if len(jax.devices()) < 4:
        return out
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    s = NamedSharding(mesh, P("x", "y"))
    y = np.arange(32, dtype=np.float32).reshape(4, 4, 2)
    sds = jax.ShapeDtypeStruct(y.shape, y.dtype, sharding=s)
    m = jax.jit(lambda v: v.T, in_shardings=auto, out_shardings=auto)
    out["mesh/auto_T/main"] = _main(m.lower(sds))
    compiled = m.lower(sds).compile()
    out["mesh/auto_T/formats"] = _formats(compiled)
    out["mesh/auto_T/call"] = _call(compiled, jax.device_put(y, s))
    # a partitioned program's donation: an alias where every result's sharding is given
    z = jax.device_put(np.arange(256, dtype=np.int32).reshape(16, 16), s)
    for name, kw in (("given", {"out_shardings": s}),
                     ("given_format", {"out_shardings": Format(z.format.layout, s)}),
                     ("none", {})):
        out[f"mesh/donate_{name}/main"] = _main(jax.jit(lambda v: v * 2, donate_argnums=0,
                                                        **kw).lower(z))
    # a jit given no layout called with a committed Array laid out column-major: JAX's jit
    # compiles for its layout (a miss of its C++ cache: jtu.count_pjit_cpp_cache_miss)
    tu = importlib.import_module("jax._src.test_util" if jax.__name__ == "jax" else
                                 f"{jax.__name__}._jax._src.test_util")
    w = np.arange(64, dtype=np.float32).reshape(8, 8)
    for name, where in (("one", one), ("mesh", s)):
        row, col = jax.device_put(w, where), jax.device_put(w, Format(Layout((1, 0)), where))
        k = jax.jit(lambda v: v @ v.T + v)
        with tu.count_pjit_cpp_cache_miss() as count:
            first, second, third = k(row), k(col), k(col)
        out[f"{name}/column_arg/misses"] = [count(), _call(lambda v: v, first),
                                            _call(lambda v: v, second), _call(lambda v: v, third)]
    # `.lower()` over the mesh given an Array laid out column-major, and AOT calls
    mrow, mcol = jax.device_put(w, s), jax.device_put(w, Format(Layout((1, 0)), s))
    compiled = jax.jit(lambda v: v @ v.T + v).lower(mcol).compile()
    out["mesh/lower_column_arg/formats"] = _formats(compiled)
    out["mesh/lower_column_arg/calls"] = [_call(compiled, mcol), _call(compiled, mrow),
                                          _call(compiled, w)]
    out["mesh/compiled_row/column_arg"] = _call(jax.jit(lambda v: v @ v.T + v).lower(
        mrow).compile(), mcol)
    out["mesh/put_column"] = _call(lambda v: jax.device_put(v, Format(Layout((1, 0)), s)),
                                   np.arange(64, dtype=np.float32).reshape(8, 8))
    return out
