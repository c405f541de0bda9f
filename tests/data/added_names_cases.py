"""Cases for JAX 0.10.2's public names jxkernel added at stop 68 (serialize_executable,
inspect_array_sharding, with_layout_constraint, jax.extend.core's tracing names): `run(jax)`
on one device, `run_mesh(jax)` on 8 CPU devices. reference/make_added_names_reference.py
records JAX's answers into added_names_reference.json; tests/jax_compat/test_added_names.py
runs the same with jxkernel and compares exactly (ints, bits, shapes, texts, error words)."""
import importlib

from public_names_cases import enc, message


def serialize_executable_cases(jax):
    """A compiled jit as bytes and back: same results, trees, argument info, errors."""
    jnp = jax.numpy
    se = importlib.import_module(jax.__name__ + ".experimental.serialize_executable")
    closed = jnp.asarray([1.0, 2.0, 4.0])        # closed over: a constant of the program

    def f(x, y=None):
        return {"a": x * 2 + closed, "b": (x + y["k"]).sum(), "c": (x.astype(jnp.int32), 7)}
    x, k = jnp.arange(3.0), jnp.full(3, 0.5)
    compiled = jax.jit(f).lower(x, y={"k": k}).compile()
    payload, in_tree, out_tree = se.serialize(compiled)
    loaded = se.deserialize_and_load(payload, in_tree, out_tree)
    donating = jax.jit(lambda a, n: a * n, donate_argnums=0).lower(jnp.ones(2), 3).compile()
    again = se.deserialize_and_load(*se.serialize(donating), backend="cpu")
    given = jnp.arange(2.0)
    twice = again(given, 3)
    return {
        "types": [type(payload).__name__, str(in_tree), str(out_tree),
                  isinstance(loaded, jax.stages.Compiled)],
        "same": [enc(loaded(x, y={"k": k})), enc(compiled(x, y={"k": k}))],
        "signature": [str(loaded.in_tree), str(loaded.out_tree), repr(loaded.args_info),
                      repr(loaded.input_shardings), repr(loaded.output_shardings),
                      sorted(loaded._executable._kept_var_idx)],
        "donated": [enc(twice), given.is_deleted(), repr(again.args_info)],
        "wrong_shape": message(lambda: loaded(jnp.arange(4.0), y={"k": jnp.ones(4)})),
        "wrong_tree": message(lambda: loaded(x)),
        "not_compiled": outcome_class(lambda: se.serialize(jax.jit(f))),
        "other_client": message(lambda: se.deserialize_and_load(
            payload, in_tree, out_tree, backend=None, execution_devices=[object()])),
    }


def outcome_class(fun):
    try:
        fun()
    except Exception as e:
        return type(e).__name__
    return "no error"


def run(jax) -> dict:
    return {"serialize_executable": serialize_executable_cases(jax)}


def run_mesh(jax) -> dict:
    return {}
