"""jax.nn.scaled_matmul and scaled_dot_general as programs (jxkernel/nn/block_scaled_dot.py,
scaled.py) against JAX 0.10.2's recording (tests/data/scaled_matmul_cases.py, recorded by
reference/make_scaled_matmul_reference.py): the jaxprs they trace, the CUDA custom call they
lower to (lowered for 'cuda' here on the CPU), their shapes under eval_shape, vmap and grad,
their refusals on the CPU, the sharding specs of their partitioning rule, and the values of
the ROCm lowering (plain StableHLO) run on the CPU."""
import json

import ml_dtypes
import numpy as np
import pytest
from numerics import assert_matches_recorded
from scaled_matmul_cases import custom_calls, errors, partition_specs, programs, rocm_values

import jxkernel as jax
from jxkernel.export._custom_calls import STABLE_CUSTOM_CALL_TARGETS
from jxkernel.nn import block_scaled_dot as bsd
from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
import locations  # tests/support: the repository's folders

JAX = locations.jax_answers("scaled_matmul_reference.json")


@pytest.fixture(scope="module")
def ours():
    return programs(jax)


@pytest.mark.parametrize("case", sorted(k for k in JAX if k.split("/")[0] in
                                        ("jaxpr", "shape", "cuda", "ops")))
def test_program_matches_jax(ours, case):
    assert ours[case] == JAX[case]


# JAX's refusal to run scaled_matmul on the CPU names the platform ("... not found for
# platform cpu"); the NumPy backend refuses it as XLA's CPU does, naming its own
_NAMES_THE_PLATFORM = {"error/eager", "error/jit", "error/sdg_eager"}


@pytest.mark.parametrize("case", [
    pytest.param(k, marks=pytest.mark.xla_only("CPU platform")) if k in _NAMES_THE_PLATFORM
    else k for k in sorted(k for k in JAX if k.startswith("error/"))])
def test_refusals_match_jax(case):
    assert errors(jax)[case] == JAX[case]


@pytest.mark.xla_only("XLA text")      # an exported module's StableHLO, run by XLA
def test_rocm_lowering_computes_jaxs_values(xla_default_code, on_the_cpu):
    # JAX's values from its own ROCm module run on the CPU; the products contract 64 values
    # through float8/float4 and bfloat16 in float32: REDUCTION ulps at the largest magnitude.
    # (At XLA's default code: the suite's loop emitters round float32 to float4_e2m1fn
    # otherwise, a tenth of nvfp4's products a step off.) On the CPU in the GPU tier too: XLA's
    # GPU autotuner finds no kernel for the module's scaled-dot fusion there ("No candidates
    # could be compiled", H200, docs/gpu.md run 6)
    ours = rocm_values(jax)
    for name, want in JAX["rocm"].items():
        assert_matches_recorded({f"{i}_values": v for i, v in enumerate(ours[name])},
                                {f"{i}_values": v for i, v in enumerate(want)}, name)


def test_partitioning_rule_picks_jaxs_specs():
    mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1, 1, 1), ("b", "m", "k", "n"))
    got = partition_specs(lambda s: bsd.output_sharding(s[0], s[1]), bsd.operand_shardings,
                          mesh, P, NamedSharding, bsd.scatter_dimension)
    assert json.loads(json.dumps(got)) == JAX["partition/specs"]


def test_export_allows_the_custom_calls_jax_guarantees():
    assert sorted(STABLE_CUSTOM_CALL_TARGETS) == JAX["export/stable_targets"]
    # a target without that guarantee passes once the check is disabled for it, as in JAX
    a = [jax.numpy.ones(s, t) for s, t in (((1, 4, 32), jax.numpy.float8_e4m3fn),
                                           ((1, 8, 32), jax.numpy.float8_e4m3fn),
                                           ((1, 4, 1), jax.numpy.float8_e8m0fnu),
                                           ((1, 8, 1), jax.numpy.float8_e8m0fnu))]
    allow = jax.export.DisabledSafetyCheck.custom_call(bsd.BLOCK_SCALED_DOT)
    exp = jax.export.export(jax.jit(jax.nn.scaled_matmul), platforms=("cuda",),
                            disabled_checks=[allow])(*a)
    assert custom_calls(exp.mlir_module()) == JAX["cuda/scaled_matmul"]
    with pytest.raises(ValueError, match="no compatibility guarantees"):
        jax.export.export(jax.jit(jax.nn.scaled_matmul), platforms=("cuda",),
                          disabled_checks=[jax.export.DisabledSafetyCheck.custom_call("x")])(*a)


def test_vmap_broadcasts_an_unbatched_operand():
    # (JAX asserts every operand is batched alike; here the unbatched one is broadcast)
    a = jax.numpy.ones((3, 1, 4, 32), jax.numpy.float8_e4m3fn)
    b = jax.numpy.ones((1, 8, 32), jax.numpy.float8_e4m3fn)
    s = jax.numpy.ones((3, 1, 4, 1), jax.numpy.float8_e8m0fnu)
    t = jax.numpy.ones((1, 8, 1), jax.numpy.float8_e8m0fnu)
    out = jax.eval_shape(jax.vmap(jax.nn.scaled_matmul, in_axes=(0, None, 0, None)), a, b, s, t)
    assert (out.shape, out.dtype) == ((3, 1, 4, 8), np.float32)


def test_the_numpy_backend_refuses_it_as_the_cpu():
    from jxkernel.core.numpy_eval import eval_closed_jaxpr_numpy
    args = [np.ones(s, t) for s, t in (((1, 4, 32), ml_dtypes.float8_e4m3fn),
                                       ((1, 8, 32), ml_dtypes.float8_e4m3fn),
                                       ((1, 4, 1), ml_dtypes.float8_e8m0fnu),
                                       ((1, 8, 1), ml_dtypes.float8_e8m0fnu))]
    closed = jax.make_jaxpr(jax.nn.scaled_matmul)(*args)
    with pytest.raises(NotImplementedError, match="'scaled_matmul' not found for platform numpy"):
        eval_closed_jaxpr_numpy(closed, *args)


def test_a_type_cudnn_cannot_dequantize_to_is_refused_naming_it():
    a = [jax.numpy.ones(s, t) for s, t in (((1, 4, 32), jax.numpy.float8_e4m3fn),
                                           ((1, 8, 32), jax.numpy.float8_e4m3fn),
                                           ((1, 4, 1), jax.numpy.float8_e8m0fnu),
                                           ((1, 8, 1), jax.numpy.float8_e8m0fnu))]
    f = jax.jit(lambda *x: jax.nn.scaled_matmul(*x, preferred_element_type=np.int32))
    with pytest.raises(TypeError, match="float32, bfloat16 or float16, not int32"):
        f.trace(*a).lower(lowering_platforms=("cuda",))
