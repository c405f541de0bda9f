"""jax.nn.scaled_matmul and scaled_dot_general as programs: what JAX 0.10.2 traces, the custom
call it lowers them to for CUDA (cuDNN's block-scaled dot, `__op$block_scaled_dot`), the
shapes they give, their refusals on the CPU, and the shardings its partitioning rule picks.
Shared by reference/make_scaled_matmul_reference.py (real JAX) and
tests/nn/test_scaled_matmul.py (jxkernel).

Nothing here runs a product: JAX computes these only on a GPU. What a CPU can check is
recorded: jaxpr text, the CUDA module's custom calls (each with its attributes, locations
left out), shapes and dtypes, errors, and sharding specs.

`run(jax)` returns {case: JSON value}.
"""
import importlib
import re

import numpy as np
from recorded_errors import error_of

_LOC = re.compile(r" loc\((?:[^()]|\([^()]*\))*\)")


def _args(jnp, mode="mxfp8", b=1, m=4, n=8, k=32, batch=()):
    """Quantized operands and scales of `mode`'s types, (B, M, K) and (B, N, K)."""
    data, scale, block = ((jnp.float8_e4m3fn, jnp.float8_e8m0fnu, 32) if mode == "mxfp8"
                          else (jnp.float4_e2m1fn, jnp.float8_e4m3fn, 16))
    shapes = [(b, m, k), (b, n, k), (b, m, k // block), (b, n, k // block)]
    return [jnp.ones(batch + s, t) for s, t in zip(shapes, (data, data, scale, scale))]


def custom_calls(text: str) -> list:
    """The module's custom calls, each as its text from the callee on, locations left out."""
    return [_LOC.sub("", line.split("stablehlo.custom_call ", 1)[1]).strip()
            for line in text.splitlines() if "stablehlo.custom_call " in line]


def ops(text: str) -> list:
    """Each op's name in the module's order (`stablehlo.dot_general`, ...), for counting."""
    return re.findall(r"= (?:\"?)(stablehlo\.\w+|call)\b", text)


def _cuda_text(jax, f, *args):
    return jax.jit(f).trace(*args).lower(lowering_platforms=("cuda",)).as_text()


def _shape(x) -> list:
    return [list(x.shape), str(x.dtype)]


def programs(jax):
    jnp, nn = jax.numpy, jax.nn
    cfg = nn.get_scaled_dot_general_config
    out = {}
    mx, nv = _args(jnp), _args(jnp, "nvfp4")
    out["jaxpr/scaled_matmul"] = str(jax.make_jaxpr(nn.scaled_matmul)(*mx))
    stacked = _args(jnp, batch=(2,))
    out["jaxpr/vmap_scaled_matmul"] = str(jax.make_jaxpr(jax.vmap(nn.scaled_matmul))(*stacked))
    out["shape/vmap_scaled_matmul"] = _shape(jax.eval_shape(jax.vmap(nn.scaled_matmul),
                                                            *stacked))
    bf16 = lambda *a: nn.scaled_matmul(*a, preferred_element_type=jnp.bfloat16)  # noqa: E731
    out["shape/scaled_matmul"] = _shape(jax.eval_shape(nn.scaled_matmul, *mx))
    out["shape/scaled_matmul_bf16"] = _shape(jax.eval_shape(bf16, *mx))
    out["cuda/scaled_matmul"] = custom_calls(_cuda_text(jax, nn.scaled_matmul, *mx))
    out["cuda/scaled_matmul_bf16"] = custom_calls(_cuda_text(jax, bf16, *mx))
    out["cuda/scaled_matmul_nvfp4"] = custom_calls(_cuda_text(jax, nn.scaled_matmul, *nv))
    out["cuda/vmap_scaled_matmul"] = custom_calls(_cuda_text(jax, jax.vmap(nn.scaled_matmul),
                                                             *stacked))
    # scaled_dot_general: operands of any layout, quantized inside; with and without batch
    x, y = jnp.ones((32, 64)), jnp.ones((64, 32))
    xb, yb = jnp.ones((2, 32, 64)), jnp.ones((2, 32, 64))
    plain = (((1,), (0,)), ((), ()))
    batched = (((2,), (2,)), ((0,), (0,)))
    for mode in ("mxfp8", "nvfp4"):
        configs = [cfg(mode)] * 3
        for name, a, b, dims, pref in (("plain", x, y, plain, jnp.float32),
                                       ("batched", xb, yb, batched, jnp.float32),
                                       ("bf16", x, y, plain, jnp.bfloat16)):
            def f(a, b, dims=dims, pref=pref):
                return nn.scaled_dot_general(a, b, dims, preferred_element_type=pref,
                                             configs=configs)
            key = f"{mode}/{name}"
            out[f"shape/sdg/{key}"] = _shape(jax.eval_shape(f, a, b))
            out[f"jaxpr/sdg/{key}"] = str(jax.make_jaxpr(f)(a, b))
            out[f"cuda/sdg/{key}"] = custom_calls(_cuda_text(jax, f, a, b))

            def loss(a, b, f=f):
                return f(a, b).astype(jnp.float32).sum()
            grad = jax.grad(loss, argnums=(0, 1))
            out[f"shape/sdg_grad/{key}"] = [_shape(g) for g in jax.eval_shape(grad, a, b)]
            text = _cuda_text(jax, grad, a, b)
            out[f"cuda/sdg_grad/{key}"] = custom_calls(text)
            out[f"ops/sdg_grad/{key}"] = ops(text).count("stablehlo.dot_general")
    return out


def errors(jax):
    jnp, nn = jax.numpy, jax.nn
    mx = _args(jnp)
    export = importlib.import_module(f"{jax.__name__}.export")
    return {
        "error/eager": error_of(lambda: nn.scaled_matmul(*mx)),
        "error/jit": error_of(lambda: jax.jit(nn.scaled_matmul)(*mx)),
        "error/export_cpu_cuda": error_of(
            lambda: export.export(jax.jit(nn.scaled_matmul), platforms=("cpu", "cuda"))(*mx)),
        "error/export_cuda": error_of(
            lambda: export.export(jax.jit(nn.scaled_matmul), platforms=("cuda",))(*mx),
            cut=" Examples are:"),
        "error/sdg_eager": error_of(lambda: nn.scaled_dot_general(
            jnp.ones((32, 64)), jnp.ones((64, 32)), (((1,), (0,)), ((), ())),
            configs=[nn.get_scaled_dot_general_config("mxfp8")] * 3)),
    }


def rocm_values(jax) -> dict:
    """scaled_dot_general and its gradient exported for ROCm (plain StableHLO: the composite
    xla.scaled_dot) and called on this CPU, the platform check disabled (the module's code
    runs as it is): the quantization, the product and the gradient's rules, computed."""
    nn = jax.nn
    export = importlib.import_module(f"{jax.__name__}.export")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    y = rng.standard_normal((64, 32)).astype(np.float32)
    out = {}
    for mode in ("mxfp8", "nvfp4"):
        configs = [nn.get_scaled_dot_general_config(mode)] * 3

        def f(a, b, configs=configs):
            return nn.scaled_dot_general(a, b, (((1,), (0,)), ((), ())), configs=configs)
        grad = jax.grad(lambda a, b, f=f: f(a, b).sum(), argnums=(0, 1))
        for name, fun in (("product", f), ("grad", grad)):
            exp = export.export(jax.jit(fun), platforms=("rocm",),
                                disabled_checks=[export.DisabledSafetyCheck.platform()])(x, y)
            leaves = jax.tree_util.tree_leaves(exp.call(x, y))
            out[f"{mode}/{name}_values"] = [np.asarray(v, np.float64).ravel().tolist()
                                            for v in leaves]
    return out


# The operands' specs (lhs (B, M, K), rhs (B, N, K)) the partitioning rule is asked about
SPECS = [
    (("b", None, None), ("b", None, None)),
    (("b", "m", None), ("b", "n", None)),
    ((None, "m", "k"), (None, None, "k")),        # K sharded alike, N not: all-reduce
    ((None, "m", "k"), (None, "m", "k")),         # M == N sharded as K: reduce-scatter
    ((None, "m", None), (None, "m", None)),       # M and N on one axis: N replicated
    ((None, ("m", "k"), None), (None, "k", None)),  # overlapping tuples
    (("b", "m", "k"), ("b", "n", "k")),
]


def partition_specs(infer, supported, mesh, P, NamedSharding, scatter_dim) -> list:
    """Per SPECS pair: the output spec `infer` gives, the scatter dimension, and the
    (lhs, rhs, out) specs `supported` asks for with that output."""
    out = []
    for lhs, rhs in SPECS:
        shardings = [NamedSharding(mesh, P(*s)) for s in (lhs, rhs, lhs, rhs)]
        (result,) = infer(shardings)
        dim = scatter_dim(shardings[0], shardings[1], result)
        args, (chosen,) = supported(shardings[0], shardings[1], result, dim)
        out.append([list(result.spec), dim, [list(args[0].spec), list(args[1].spec),
                                             list(chosen.spec)]])
    return out


def _partitioning(jax):
    """JAX's rule functions themselves (private: its _src.cudnn.scaled_matmul_stablehlo),
    over a one-device mesh with axes b, m, k, n (the specs, not the sizes, matter)."""
    sm = importlib.import_module(f"{jax.__name__}._src.cudnn.scaled_matmul_stablehlo")
    sharding = jax.sharding
    Mesh, NamedSharding, P = sharding.Mesh, sharding.NamedSharding, sharding.PartitionSpec
    mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1, 1, 1), ("b", "m", "k", "n"))
    return {"partition/specs": partition_specs(
        sm._get_output_sharding, sm._supported_in_out_sharding, mesh, P, NamedSharding,
        sm._get_reduce_scatter_dim)}


def run(jax) -> dict:
    export = importlib.import_module(f"{jax.__name__}._src.export._export")
    return {**programs(jax), **errors(jax), **_partitioning(jax), "rocm": rocm_values(jax),
            "export/stable_targets": sorted(export._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE)}
