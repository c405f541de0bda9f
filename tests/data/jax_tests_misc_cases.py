"""What JAX's smaller runtime and tooling test files (linalg_sharding_test.py and the others of
conformance/jax_tests added with it) found, run the same way by real JAX
(reference/make_jax_tests_misc_reference.py writes jax_tests_misc_reference.json) and by
jxkernel (tests/jax_compat/test_jax_tests_misc.py): facts each as plain JSON values.
"""
import re

import numpy as np

# batch-partitioning attributes of linear algebra's LAPACK calls: (name, function, shapes)
LINALG = [
    ("eigh", lambda lax: lax.linalg.eigh, [(8, 6, 6)]),
    ("eigh_unbatched", lambda lax: lax.linalg.eigh, [(6, 6)]),
    ("eigh_two_batch_dims", lambda lax: lax.linalg.eigh, [(2, 3, 6, 6)]),
    ("lu", lambda lax: lax.linalg.lu, [(8, 10, 6)]),
    ("qr", lambda lax: lax.linalg.qr, [(2, 3, 6, 5)]),
    ("triangular_solve", lambda lax: lax.linalg.triangular_solve, [(8, 6, 6), (8, 4, 6)]),
    ("tridiagonal_solve", lambda lax: lax.linalg.tridiagonal_solve,
     [(8, 6), (8, 6), (8, 6), (8, 6, 4)]),
    ("svd", lambda lax: lax.linalg.svd, [(4, 10, 6)]),
]

_ATTRIBUTE = re.compile(r'@(\w+)\(.*?(mhlo\.frontend_attributes = \{[^}]*\}).*?'
                        r'(sdy\.sharding_rule = #sdy\.op_sharding_rule<.*?custom>)')


def linalg_partitioning(jax) -> dict:
    """Per case, each LAPACK call of its lowered text: target, num_batch_dims and Shardy rule."""
    found = {}
    for name, fun, shapes in LINALG:
        args = [np.ones(s, np.float32) for s in shapes]
        text = jax.jit(fun(jax.lax)).lower(*args).as_text()
        found[name] = [list(m.groups()) for line in text.splitlines()
                       if "lapack_" in line and (m := _ATTRIBUTE.search(line))]
    return found


def _error(thunk) -> dict:
    try:
        thunk()
    except Exception as e:      # noqa: BLE001 (the error is the fact)
        return {"type": type(e).__name__, "message": str(e)}
    return {"type": None}


def jax_to_ir(jax) -> dict:
    """jax.tools.jax_to_ir: parsed shapes, the bad shape's error, and the HLO of a function with
    constants folded and parameters in the order given."""
    import importlib
    tool = importlib.import_module("jax.tools.jax_to_ir" if jax.__name__ == "jax"
                                   else "jxkernel._jax.tools.jax_to_ir")   # jax.tools aliased
    parsed = {s: [list(tool.parse_shape_str(s).shape), str(np.dtype(tool.parse_shape_str(s).dtype))]
              for s in ("f32[]", "f32[1,2,3]", "pred[1]", "s4[ 2, 3 ]", "u1[1]", "bf16[4]",
                        "c128[1]")}
    _, text = tool.jax_to_hlo(lambda a, b, x, y: a / b * x + y,
                              [("y", tool.parse_shape_str("f32[128]")),
                               ("x", tool.parse_shape_str("f32[128]"))],
                              constants={"a": 123456, "b": 4})
    lines = [line.split("=", 1)[1].strip() for line in text.splitlines()
             if "parameter(" in line or "constant(" in line]
    return {"parsed": parsed, "lines": sorted(lines),
            "bad": _error(lambda: tool.parse_shape_str("foo[]")),
            "overlap": _error(lambda: tool.jax_to_hlo(lambda x: x, [("x", tool.parse_shape_str("f32[]"))],
                                                      constants={"x": 1}))}


def lstm(jax) -> dict:
    """jax.experimental.rnn: the parameter count, the initial weights, the unpacked blocks'
    shapes, the gate swap and the reference LSTM's outputs (a 2-layer bidirectional LSTM over
    sequences of lengths 0, 3 and 4)."""
    import importlib
    rnn = importlib.import_module("jax.experimental.rnn" if jax.__name__ == "jax"
                                  else "jxkernel._jax.experimental.rnn")
    jnp = jax.numpy
    sizes = (3, 2, 2, True)            # input_size, hidden_size, num_layers, bidirectional
    weights = rnn.init_lstm_weight(jax.random.PRNGKey(4), *sizes)
    unpacked = rnn.unpack_lstm_weights(weights, *sizes)
    x = jax.random.normal(jax.random.PRNGKey(5), (3, 4, 3), jnp.float32)
    h0, c0 = jax.random.normal(jax.random.PRNGKey(6), (2, 4, 3, 2), jnp.float32)
    seq_lengths = jnp.array([0, 3, 4], jnp.int32)
    y, h_n, c_n = rnn.lstm_ref(x, h0, c0, *unpacked, seq_lengths, *sizes[:3], 0.0, sizes[3])
    swapped = rnn.swap_lstm_gates(weights, *sizes)
    return {"count": rnn.get_num_params_in_lstm(*sizes),
            "weights": np.asarray(weights).tolist(),
            "shapes": [{str(k): list(v.shape) for k, v in d.items()} for d in unpacked],
            "swapped": np.asarray(swapped).tolist(),
            "y": np.asarray(y).tolist(), "h_n": np.asarray(h_n).tolist(),
            "c_n": np.asarray(c_n).tolist()}


def run(jax) -> dict:
    return {"linalg_partitioning": linalg_partitioning(jax), "jax_to_ir": jax_to_ir(jax),
            "lstm": lstm(jax)}
