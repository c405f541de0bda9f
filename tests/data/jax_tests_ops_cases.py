"""JAX's private names that its newer-operation test files import (custom_partitioning's
sharding rules as MLIR attributes, cuDNN's version check), run the same way by real JAX 0.10.2
(reference/make_jax_tests_ops_reference.py writes jax_tests_ops_reference.json) and by
jxkernel (tests/jax_compat/test_jax_tests_ops.py)."""
import importlib


def _rules(jax) -> dict:
    """Rules for operations built with MLIR's bindings in a context holding StableHLO (registered
    through jax._src.lib's `hlo`) and Shardy: each attribute's text, or the error's."""
    ir = importlib.import_module(f"{jax.__name__}._src.lib.mlir").ir
    dialects = importlib.import_module(f"{jax.__name__}._src.lib.mlir.dialects")
    rules = importlib.import_module(f"{jax.__name__}._src.custom_partitioning_sharding_rule")
    out = {}
    with ir.Context() as ctx, ir.Location.unknown(ctx):
        dialects.sdy.register_dialect(ctx)
        dialects.hlo.register_dialect(ctx)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            def tensor(shape):
                return ir.Operation.create(
                    "stablehlo.custom_call", results=[ir.RankedTensorType.get(shape, ir.F32Type.get())],
                    attributes=dict(call_target_name=ir.StringAttr.get("case"))).result
            for name, text, kwargs, operands, results in (
                    ("matmul", "i j, j k -> i k", {"reduction_factors": ("j",)},
                     [(2, 4), (4, 8)], [(2, 8)]),
                    ("batched", "... i, ... i -> ... i", {}, [(3, 5, 7), (3, 5, 7)],
                     [(3, 5, 7)]),
                    ("compound", "(i j) k -> (i j) k", {"i": 2, "j": 3}, [(6, 4)], [(6, 4)]),
                    ("rank mismatch", "i j k, i j -> i j", {}, [(2, 3), (2, 3)], [(2, 3)])):
                try:
                    attribute = rules.sdy_sharding_rule_to_mlir(
                        rules.str_to_sdy_sharding_rule(text, **kwargs),
                        [tensor(s).type for s in operands], [tensor(s).type for s in results])
                    out[name] = str(attribute)
                except ValueError as e:
                    out[name] = f"ValueError: {e}"
    return out


def _all_gather_to(jax) -> dict:
    """lax.all_gather's `to` under vmap: the default's result, to='varying''s, and the error of
    an unknown value (up to its set of allowed values, whose order is the set's)."""
    xs = jax.numpy.arange(3.0)
    out = {}
    for to in ("varying", None):
        kwargs = {} if to is None else {"to": to}
        out[f"to={to}"] = jax.vmap(lambda x: jax.lax.all_gather(x, "i", **kwargs),
                                   axis_name="i")(xs).tolist()
    try:
        jax.vmap(lambda x: jax.lax.all_gather(x, "i", to="sideways"), axis_name="i")(xs)
    except ValueError as e:
        text = str(e)
        out["to=sideways"] = [text.split(": {")[0],
                              sorted(text.split(": {")[1].rstrip("}").replace("'", "").split(", "))]
    return out


def run(jax) -> dict:
    fused = importlib.import_module(f"{jax.__name__}._src.cudnn.fused_attention_stablehlo")
    try:
        cudnn = fused.check_cudnn_version()
    except RuntimeError as e:
        cudnn = f"RuntimeError: {e}"
    return {"sharding rules": _rules(jax), "cudnn on the CPU": cudnn,
            "all_gather to": _all_gather_to(jax)}
