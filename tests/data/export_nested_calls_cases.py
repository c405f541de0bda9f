"""The cases that reference/make_export_nested_calls_reference.py runs on JAX 0.10.2 and
tests/export/test_export_nested_calls.py on jxkernel: a shape-polymorphic export called from
a function exported over symbolic shapes (its dimension variables solved in the caller's
dimensions, its checks decided when the caller is exported), then the caller called with
concrete arguments. `run(jax)` takes the `jax` module (real or jxkernel) and returns JSON
data: per case, the outer export's error or its result shape, `uses_global_constants`, and
the call's error or values."""
import numpy as np

from recorded_errors import error_record   # tests/data: what a case raised, as recorded

# (inner spec, outer spec, argument shape, argument dtype): JAX's export_test
# test_poly_shape_checks_nested's table, and calls of an inner export twice and with kwargs
CASES = {
    "static_outer": ("3,4,5*a", "3,4,12", (3, 4, 10), "float32"),
    "same_scope_names": ("3,a,a", "3,a,a", (3, 4, 4), "float32"),
    "square_from_one": ("3,a,a", "3,c,c", (3, 4, 4), "float32"),
    "sum_of_vars": ("3,a,a+b", "3,c,d", (3, 4, 9), "float32"),
    "multiple_of_multiple": ("3,4,5*a", "3,4,25*c", (3, 4, 50), "float32"),
    "offset_vars": ("3,a,a+8", "3,c+2,c+10", (3, 4, 12), "float32"),
    "rank_mismatch": ("3,a,a+b", "c,d", (3, 4), "float32"),
    "dtype_mismatch": ("3,a,a+b", "3,c,d", (3, 4, 9), "int32"),
    "remainder": ("3,4,5*a", "3,4,c", (3, 4, 10), "float32"),
    "below_one": ("3,a,a+b", "3,c,c", (3, 4, 4), "float32"),
    "constant_mismatch": ("3,a,a+b", "c,4,12", (3, 4, 12), "float32"),
    "remainder_at_call": ("3,4,5*a", "3,4,25*c", (3, 4, 12), "float32"),
    "below_one_at_call": ("3,a,b", "3,c+4,12", (3, 4, 12), "float32"),
    "inconsistent_at_call": ("3,a,a", "3,a,a", (3, 4, 12), "float32"),
}


def _nested(jax, inner_spec, outer_spec, arg_shape, dtype) -> dict:
    export, jnp = jax.export, jax.numpy

    def inner(x):
        return jnp.reshape(x, (-1, x.shape[1]))

    inner_exp = export.export(jax.jit(inner))(
        jax.ShapeDtypeStruct(export.symbolic_shape(inner_spec), np.float32))

    def outer(x):
        return inner_exp.call(x) + inner(x)

    arg = np.arange(np.prod(arg_shape), dtype=dtype).reshape(arg_shape)
    found = {}

    def do_export():
        found["exp"] = export.export(jax.jit(outer))(
            jax.ShapeDtypeStruct(export.symbolic_shape(outer_spec), arg.dtype))
    out = {"export": error_record(do_export)}
    if "exp" not in found:
        return out
    exp = found["exp"]
    out["out_shape"] = str(exp.out_avals[0].shape)
    out["uses_global_constants"] = bool(exp.uses_global_constants)
    out["call"] = error_record(lambda: found.setdefault("res", exp.call(arg)))
    if "res" in found:
        out["values"] = np.asarray(found["res"]).tolist()
    return out


def _twice_and_kwargs(jax, cut: bool) -> dict:
    """An inner export taking a kwarg, called twice in one outer export: on the argument and
    on it doubled (a = 2*c), or with its first row `cut` (a = c - 1: not known >= 1)."""
    export, jnp = jax.export, jax.numpy

    def inner(x, *, y):
        return jnp.concatenate([x, y], axis=0) * 2.

    a = jax.ShapeDtypeStruct(export.symbolic_shape("a, 2"), np.float32)
    inner_exp = export.export(jax.jit(inner))(a, y=a)

    def outer(x):
        z = x[1:] if cut else jnp.concatenate([x, x])
        return inner_exp.call(x, y=x).sum() + inner_exp.call(z, y=z).sum()

    found = {}

    def do_export():
        found["exp"] = export.export(jax.jit(outer))(
            jax.ShapeDtypeStruct(export.symbolic_shape("c, 2"), np.float32))
    out = {"export": error_record(do_export)}
    if "exp" in found:
        x = np.arange(8, dtype=np.float32).reshape((4, 2))
        out["values"] = float(found["exp"].call(x))
    return out


def run(jax) -> dict:
    out = {name: _nested(jax, *case) for name, case in CASES.items()}
    out["twice_and_kwargs"] = _twice_and_kwargs(jax, cut=False)
    out["twice_not_known_positive"] = _twice_and_kwargs(jax, cut=True)
    return out
