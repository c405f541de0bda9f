"""Layouts given to device_put and jit as JAX 0.10.2 answers them on the CPU: the errors for
a layout that is not concrete or does not fit the value's rank, a Format without a layout,
and a device-local layout passed to jit without its Format.
Shared by reference/make_layout_reference.py (real JAX) and tests/xla/test_layout_put.py
(jxkernel).

`run(jax)` returns {case: [error type name, message] or what the call gave}.
"""
import importlib

import numpy as np


def _error(call):
    try:
        call()
    except Exception as e:          # the type's name and JAX's words are the facts recorded
        return [type(e).__name__, str(e)]
    return None


def run(jax) -> dict:
    layout = importlib.import_module(f"{jax.__name__}.experimental.layout")
    Format, Layout = layout.Format, layout.Layout
    one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    x = np.arange(16).reshape(8, 2)
    out = {
        "put/auto_with_sharding": _error(lambda: jax.device_put(x, Format(Layout.AUTO, one))),
        "put/auto_alone": _error(lambda: jax.device_put(x, Format(Layout.AUTO))),
        "put/rank_mismatch": _error(lambda: jax.device_put(
            np.arange(8), Format(Layout((0, 1, 2)), one))),
        "jit/auto_in_shardings": _error(lambda: jax.jit(
            lambda v: v.T, in_shardings=Layout.AUTO).lower(x)),
        "jit/layout_out_shardings": _error(lambda: jax.jit(
            lambda v: v.T, out_shardings=Layout((1, 0))).lower(x)),
    }
    put = jax.device_put(x, Format(None, one))
    out["put/no_layout"] = [bool(put._committed), repr(put.format.layout),
                            bool((np.asarray(put) == x).all())]
    plain = jax.device_put(x, Format())
    out["put/empty_format"] = [bool(plain._committed), bool((np.asarray(plain) == x).all())]
    # jit given the row-major layout (every array's on the CPU), and one of the wrong rank
    row = Format(Layout((0, 1)), one)
    out["jit/rank_mismatch_in"] = _error(lambda: jax.jit(
        lambda v: v * 2, in_shardings=Format(Layout((0, 1, 2)), one))(np.arange(8)))
    out["jit/rank_mismatch_out"] = _error(lambda: jax.jit(
        lambda v: v.sum(0), out_shardings=row)(x))
    for name, kw in (("in", {"in_shardings": row}), ("out", {"out_shardings": row}),
                     ("both", {"in_shardings": row, "out_shardings": row})):
        f = jax.jit(lambda v: v.T * 2, **kw)
        got = f(x)
        compiled = f.lower(x).compile()
        out[f"jit/row_major_{name}"] = [
            bool((np.asarray(got) == x.T * 2).all()), repr(got.format),
            repr(compiled.input_formats[0][0]), repr(compiled.output_formats)]
    # a ShapeDtypeStruct given a Format: its layout kept beside the sharding (`.format`),
    # in its repr, equality and update; Layout.AUTO refused; eval_shape of a jit whose
    # out_shardings is a Format gives it as the result's format
    sds = jax.ShapeDtypeStruct((8, 2), np.float32, sharding=row)
    plain = jax.ShapeDtypeStruct((8, 2), np.float32, sharding=one)
    out["sds/format"] = [repr(sds), repr(sds.format), repr(sds.sharding),
                         repr(plain.format), sds == plain, sds == jax.ShapeDtypeStruct(
                             (8, 2), np.float32, sharding=row), repr(sds.update(dtype=np.int32)),
                         repr(jax.ShapeDtypeStruct((3,), np.float32, weak_type=True,
                                                   sharding=one))]
    out["sds/auto"] = _error(lambda: jax.ShapeDtypeStruct((8, 2), np.float32,
                                                          sharding=Format(Layout.AUTO)))
    out["sds/update_sharding"] = [  # (the sharding's class named as the package calls it)
        text.replace(f"'{jax.__name__}.", "'jax.") for text in
        _error(lambda: sds.update(sharding=one))]
    f = jax.jit(lambda v: v * v, in_shardings=row, out_shardings=row)
    shape = jax.eval_shape(f, jax.device_put(x, row))
    out["sds/eval_shape"] = [repr(shape), shape.format == row, repr(
        jax.eval_shape(jax.jit(lambda v: (v, v.sum()), out_shardings=(row, one)), x))]
    return out
