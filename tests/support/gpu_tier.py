"""The GPU test tier (`sh scripts/test_gpu.sh`, docs/gpu.md): the suite on an NVIDIA GPU, with
expectations that hold there. It never runs in CI (CI has no GPU); on the CPU nothing here
changes a test.

Two things differ on a GPU, and each has one home here:

- **Floats.** `TOLERANCES` is the one table of where a GPU's floats differ from the CPU's and
  what a test allows then. A test that compares floats where the GPU differs names the entry:
  `assert_allclose_ulp(got, want, REDUCTION, gpu="tf32")` (tests/support/numerics.py) keeps its
  ulp bound on the CPU and, in the GPU tier, compares within the entry's bound instead.
- **Tests whose expectation is the CPU's.** `@pytest.mark.cpu_only("recorded CPU values")`
  (or `pytestmark = pytest.mark.cpu_only(...)` for a whole file) skips a test in the GPU tier,
  saying why; the reason must be one of `REASONS` (tests/conftest.py checks it at collection),
  so the tier's report counts the skips by kind.

    >>> TOLERANCES["tf32"].rtol
    0.001953125
"""
from __future__ import annotations

import contextlib
import dataclasses
import os

# scripts/test_gpu.sh sets it; nothing else should
ON_GPU = os.environ.get("JXKERNEL_TEST_TIER") == "gpu"
# reasons whose tests the tier runs anyway, comma-separated: to learn which of them hold on a
# GPU after all and narrow their markers (JXKERNEL_GPU_TIER_RUN="recorded CPU values")
RUN_ANYWAY = frozenset(r for r in os.environ.get("JXKERNEL_GPU_TIER_RUN", "").split(",") if r)


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """What a test compares with in the GPU tier instead of its CPU ulp bound: |got - want| <=
    rtol * max(|want|, scale) (scale: the case's largest |want|, as results of a contraction are
    only as exact as their inputs' magnitude), after flushing float32/float16 subnormals of
    both sides to zero when `flush_subnormals`."""
    rtol: float
    flush_subnormals: bool
    why: str


TOLERANCES = {
    # TF32: on Ampere and later, XLA's GPU backend runs float32 matmuls and convolutions at
    # JAX's default precision on tensor cores with inputs rounded to 10 explicit mantissa bits
    # (relative error 2**-11 per input); products summed in float32. 2**-9 of the result's
    # scale leaves a factor of 2 for the two rounded inputs and 2 for the accumulation.
    "tf32": Tolerance(2.0 ** -9, True,
                      "float32 dot_general/conv at default precision run in TF32 on the GPU"),
    # XLA's CPU flushes float32 subnormals to zero (FTZ/DAZ) where its GPU keeps them
    # (measured on an H200, under JAX too: log(1e-40) is -92.1 there, 1e-40 * 2 is 2e-40):
    # a subnormal on either side compares as zero; past that, as the CPU's within 2**-20
    "subnormal": Tolerance(2.0 ** -20, True,
                           "XLA's CPU flushes float32 subnormals to zero, its GPU keeps them"),
    # CUDA's libdevice and XLA's GPU approximations of exp, log, tanh, erf... are other
    # polynomials than XLA's CPU ones: a few ulps more than the CPU's 4
    "transcendental": Tolerance(2.0 ** -19, True,
                                "exp/log/trig/erf are libdevice's on the GPU, not XLA CPU's"),
    # a float scatter-add on the GPU adds colliding updates with atomics, in whatever order the
    # threads come (so do JAX's): a few roundings of the result's scale apart, where the CPU's
    # loop adds them in index order (measured on an H200: 4 ulps at most)
    "scatter": Tolerance(2.0 ** -20, False,
                         "scatter-add adds colliding updates in the GPU threads' order (atomics)"),
    # a float sum's order follows the program XLA's GPU compiler made of it (its fusion and
    # tiling): the same sum eagerly and inside a bigger jit a rounding or two apart
    "sum order": Tolerance(2.0 ** -21, False,
                           "a GPU sum adds in the order of the program it was fused into"),
}

# Why a test holds on the CPU only: each kind, with what a GPU does instead.
REASONS = {
    "recorded CPU values": "compares floats JAX recorded on a CPU (tests/data), or a bound "
                           "measured there: the GPU's kernels round differently",
    "simulated CPU devices": "needs several CPU devices (JXKERNEL_CPU_DEVICES or "
                             "--xla_force_host_platform_device_count) as the default backend; "
                             "on a GPU machine the default backend is the GPU's",
    "CPU text": "expects the CPU's own text (CpuDevice, TFRT_CPU, 'cpu:0' as the default "
                "device, the CPU's HLO or custom calls)",
    "CPU backend": "tests what only the CPU backend does (its LAPACK custom calls, its compile "
                   "options, host memory, no allocator statistics)",
    "XLA GPU answer": "XLA's GPU backend answers otherwise, and JAX on the same GPU gives the "
                      "same answer as jxkernel (scripts/gpu_parity.py, docs/gpu.md)",
}

# Single tests or parametrized cases that hold on the CPU only, by node id (a whole test or
# file is marked with cpu_only where it is defined): each with its reason, from the GPU runs
# of docs/gpu.md. tests/conftest.py skips them in the tier and checks every entry names a
# test that exists.
CPU_ONLY_CASES = {
    # JAX's values recorded on a CPU: the GPU keeps float32 subnormals the CPU flushes
    # (log(1e-40) is -92.1 there, as under JAX), and its libdevice rounds gelu, digamma, sinh
    # otherwise. Against JAX's values recorded on the same GPU (reference/gen_jnp_reference.py
    # --only ...) every one of them passes: 2,463 passed in those two files on an H200.
    **{f"tests/numpy/test_numpy_ufuncs.py::test_matches_jax_eager[jnp.{case}]":
       "recorded CPU values" for case in (
           "cbrt(spec)", "ceil(spec)", "cosh(i32)", "degrees(spec)", "frexp(spec)", "log(spec)",
           "log10(spec)", "modf(spec)", "sign(spec)", "sinh(i32)", "sqrt(spec)")},
    **{f"tests/nn/test_nn.py::test_matches_jax_{mode}[{case}]": "recorded CPU values"
       for mode, case in (("eager", "nn.celu(spec)"), ("eager", "nn.gelu(f32)"),
                          ("eager", "nn.hard_silu(spec)"), ("eager", "nn.log1mexp(pos)"),
                          ("eager", "nn.swish(spec)"), ("eager", "special.digamma(pos)"),
                          ("jit_values", "nn.gelu(f32)"), ("jit_values", "nn.log1mexp(pos)"))},
    "tests/api/test_debug_breakpoint.py::test_breakpoint_shows_runtime_values_and_frames":
        "recorded CPU values",       # sin(2) printed as the CPU rounds it
    "tests/jax_compat/test_public_names.py::test_added_names_answer_as_jax[lax_more]":
        "recorded CPU values",       # a composite's bits
    # text naming the CPU
    "tests/_jax/extend/test_extend_experimental.py::test_program_matches_jax[shape_dtype_structs]":
        "CPU text",
    "tests/_jax/extend/test_extend_experimental.py::test_program_matches_jax[shardings]":
        "CPU text",
    "tests/export/test_export.py::test_program_matches_jax[export_errors]": "CPU text",
    "tests/export/test_export.py::test_program_matches_jax[export_signature]": "CPU text",
    # an export for several platforms called where the tests run: JAX's cpu branch, and its
    # error for a call "used on ('cpu',)"; the module jit lowers for the CPU alone
    "tests/export/test_export_platforms.py::test_program_matches_jax[platforms_call]":
        "recorded CPU values",
    "tests/export/test_export_platforms.py::test_program_matches_jax[platforms_errors]":
        "CPU text",
    "tests/export/test_export_platforms.py::test_program_matches_jax[platforms_modules]":
        "CPU text",
    "tests/jax_compat/test_backend_internals.py::test_a_replaced_backend_compile_sees_every_compile":
        "CPU text",
    "tests/jax_compat/test_backend_internals.py::test_docstring_examples[jxkernel._src.xla_bridge]":
        "CPU text",
    "tests/numpy/test_array_api.py::test_matches_jax[namespace]": "CPU text",   # devices()
    "tests/transforms/test_stages.py::test_program_matches_jax[stages_compiled]": "CPU text",
    "tests/xla/test_profiler.py::test_trace_writes_tensorboard_and_perfetto_files_holding_our_annotations":
        "CPU text",
    "tests/xla/test_profiler.py::test_device_memory_profile_is_gzipped_pprof_naming_allocations":
        "CPU text",
    # what only the CPU backend runs: a lowering registered for the CPU alone (as JAX's docs
    # register theirs), LAPACK's FFI targets, a dot algorithm only XLA's CPU takes, a
    # platform_dependent with a cpu branch only, a raw jaxlib array read as NumPy (host memory)
    "tests/_jax/extend/test_extend_experimental.py::test_program_matches_jax[user_primitive]":
        "CPU backend",
    "tests/_jax/extend/test_extend_experimental.py::test_user_primitive_with_every_rule_works_under_jit_grad_and_vmap":
        "CPU backend",
    "tests/jax_compat/test_user_primitive_rules.py::test_lowering_rules_built_with_hlo_ops_as_the_primitives_guide_writes_them":
        "CPU backend",
    "tests/jax_compat/test_public_names.py::test_added_names_answer_as_jax[dot]": "CPU backend",
    "tests/jax_compat/test_public_names.py::test_added_names_answer_as_jax[ffi]": "CPU backend",
    "tests/jax_compat/test_public_names.py::test_added_names_answer_as_jax[lax]": "CPU backend",
    "tests/jax_compat/test_backend_internals.py::test_mlir_bindings_build_a_program_the_client_runs":
        "CPU backend",
    # Lowered.cost_analysis() is None on a GPU, as JAX's there: the program reads its keys
    "tests/transforms/test_stages.py::test_program_matches_jax[stages_lowered]": "CPU backend",
    # starting the GPU backend reads the CUDA plugin's version (importlib.metadata), as JAX does
    "tests/api/test_api_modules.py::test_import_and_a_first_op_leave_the_rarely_used_modules_unloaded":
        "CPU backend",
    # XLA's GPU answer, the same under JAX on that GPU (scripts/gpu_parity.py): an int8 dot
    # into int32 comes back doubled (XLA's bug), float8 round trips inside one program are
    # dropped (XLA's excess precision), two debug.prints of one program run in either order
    "tests/lax/test_lax_dot.py::test_int8_accumulates_in_preferred_type": "XLA GPU answer",
    "tests/numpy/test_numpy_products.py::test_dtypes_and_preferred_element_type": "XLA GPU answer",
    "tests/numpy/test_float8_dtypes.py::test_conversions_round_as_ml_dtypes": "XLA GPU answer",
    "tests/numpy/test_float8_dtypes.py::test_narrow_dtypes_convert_and_add_as_ml_dtypes":
        "XLA GPU answer",
    "tests/api/test_debug_callbacks.py::test_print_eager_and_jit": "XLA GPU answer",
    # found by the H200 run of 2026-11-28 (docs/gpu.md, run 4)
    # libdevice's sin, sqrt, float64 sin: a last bit off JAX's CPU values
    **{case: "recorded CPU values" for case in (
        "tests/export/test_export.py::test_program_matches_jax[export_jnp_directly]",
        "tests/jax_compat/test_missing_names.py::test_matches_jax[ad]",
        "tests/jax_compat/test_jax_names.py::test_custom_vjp_takes_prefix_cotangents_and_runs_fwd_where_jax_does",
        *(f"tests/lax/test_lax_x64_dtypes.py::test_case_matches_jax[{c}]" for c in (
            "allow/x64_sin_float64", "error/x64_sin_float64", "warn/x64_sin_float64",
            "warn/std", "warn/nanstd")),
        # cuSOLVER's factors of rank-deficient batches: other signs and null spaces than
        # LAPACK's (both valid), so their jvps differ
        "tests/jax_compat/test_jax_tests_linalg.py::test_every_case_matches_jax[x32]",
        "tests/jax_compat/test_jax_tests_linalg.py::test_every_case_matches_jax[x64]")},
    # text naming the CPU device: the default device, a jaxpr's device_put, colocated
    # Python's CPU devices beside the GPU, a recompile scenario whose default device was the
    # CPU's already (on a GPU it also moves the data: one more change, as JAX would see)
    **{case: "CPU text" for case in (
        "tests/jax_compat/test_jax_test_util.py::test_docstring_examples[jxkernel._jax._src.test_util.devices]",
        "tests/jax_compat/test_added_names.py::test_docstring_examples[jxkernel.lax.inspect_sharding]",
        "tests/jax_compat/test_missing_names.py::test_matches_jax[device_put]",
        "tests/views/test_recompile_corpus.py::test_scenario_like_jax[default_device_cpu]",
        "tests/views/test_recompile_corpus.py::test_the_fix_shown_applies[default_device_cpu]",
        "tests/api/test_colocated_python.py::test_an_unknown_device_id_is_refused",
        "tests/api/test_colocated_python.py::test_case_as_jax[add_one_single_device]",
        "tests/api/test_colocated_python.py::test_case_as_jax[np_int]",
        "tests/api/test_colocated_python.py::test_case_as_jax[pytree_kwargs]",
        "tests/api/test_colocated_python.py::test_docstring_examples[jxkernel.api.colocated_python.serialization]",
        "tests/api/test_colocated_python.py::test_mesh_and_shardings_round_trip",
        "tests/api/test_colocated_python.py::test_specs_round_trip")},
    # what the CPU backend alone does: an XLA CPU compile option as the base options, a
    # module's Lowered.cost_analysis() (None on a GPU, as JAX's), LAPACK's float16 refusal
    **{case: "CPU backend" for case in (
        "tests/xla/test_runtime_cache.py::test_base_compiler_options_start_every_compile_and_are_part_of_the_key",
        "tests/transforms/test_lowered_text.py::test_a_module_for_two_platforms_has_a_cost_but_does_not_compile_under_jit",
        "tests/lax/test_lax_linalg.py::test_cholesky_errors[x3-NotImplementedError-Unsupported dtype float16]",
        "tests/lax/test_linalg_extras.py::test_half_precision_has_no_lapack_routine")},
    # jaxlib's perturbed tridiagonal kernel on the GPU (the same custom call JAX emits there):
    # another perturbation of a singular system's pivots than the CPU kernel's
    "tests/lax/test_linalg_extras.py::test_every_case_matches_jax[x32]": "recorded CPU values",
    "tests/lax/test_linalg_extras.py::test_every_case_matches_jax[x64]": "recorded CPU values",
    # a function exported for 'cuda' called where JAX recorded it, on the CPU
    "tests/jax_compat/test_public_names.py::test_added_names_answer_as_jax[documented_modules]":
        "CPU backend",
    # a mesh of 8 devices, made while the cases' module loads
    "tests/jax_compat/test_library_tutorials.py::test_a_0d_array_refuses_iteration_at_iter":
        "simulated CPU devices",
    "tests/jax_compat/test_library_tutorials.py::test_a_class_parameter_prints_as_str_shows_it":
        "simulated CPU devices",
    # the parity script's known XLA GPU answer (the int8 dot above); and, the same under JAX
    # 0.11.2 on the H200 (.gpu probes of 2026-11-28, docs/gpu.md): 0 / 0 of bools is nan there
    # (XLA's CPU rewrites the division of a converted bool into a select: 0), and mxfp8's
    # block of zeros quantizes to 0 there (nan on the CPU)
    "tests/support/test_gpu_tier.py::test_the_parity_script_gives_the_cpus_answers":
        "XLA GPU answer",
    "tests/numpy/test_numpy_ufuncs.py::test_divide_of_bools_under_vmap_is_one_program_as_in_jax":
        "XLA GPU answer",
    "tests/nn/test_scaled_dot.py::test_quantization_matches_jax[x32]": "XLA GPU answer",
    "tests/nn/test_scaled_dot.py::test_quantization_matches_jax[x64]": "XLA GPU answer",
    # found by the H200 run of 2026-11-28 (docs/gpu.md, run 6): text naming the CPU device or
    # platform (an array's sharding, "not found for platform cpu")
    **{f"tests/jax_compat/test_added_names.py::test_matches_jax[{group}]": "CPU text"
       for group in ("extend_core", "inspect_sharding", "serialize_executable")},
    # JAX refuses scaled_matmul where it has no lowering, the CPU; on CUDA it has one
    **{f"tests/nn/test_scaled_matmul.py::test_refusals_match_jax[error/{case}]": "CPU backend"
       for case in ("eager", "jit", "sdg_eager")},
    # what held on the CPU alone among the tests once marked `recorded CPU values` file by
    # file (run 6 ran them anyway: 1,451 passed, 47 failed; the failing tests that are whole
    # functions carry their marker where they are defined)
    **{case: "recorded CPU values" for case in (
        # TF32 (float32 dots): lobpcg's iterations, attention, a complex covariance,
        # gaussian_kde's covariance (up to 1e4 ulps); a float32 cov's finite differences,
        # whose step (1e-4) TF32's 10 bits cannot hold
        "tests/api/test_sparse.py::test_sparse_matches_jax[lobpcg]",
        *(f"tests/nn/test_nn_attention.py::test_matches_jax[{expr}]" for expr in (
            "jax.grad(lambda q, kk, v: (nn.dot_product_attention(q, kk, v, "
            "key_value_seq_lengths=kvs) * w).sum(), argnums=(0, 1, 2))(q, kg, vg)",
            "nn.dot_product_attention(q, k1, v1, mask=maskh)",
            "nn.dot_product_attention(q, kg, vg)",
            "nn.dot_product_attention(q, kg, vg, bias, is_causal=True)")),
        "tests/numpy/test_numpy_composites.py::test_values_dtypes_weak_types_match_jax[statistics]",
        "tests/numpy/test_numpy_composites.py::test_grads_numerically[cov]",
        "tests/scipy/test_gaussian_kde.py::test_every_case_matches_jax[x32]",
        # libdevice's and XLA GPU's own roundings: igammac, gamma, beta.logcdf, log (gumbel),
        # erfinv (truncated_normal), dirichlet's gradient (5 to 512 ulps); a max pool's
        # gradient, exact on the CPU, 8 ulps off where windows overlap (atomic adds)
        "tests/lax/test_lax_special.py::test_values_and_derivatives_match_jax[float32]",
        "tests/scipy/test_scipy_special.py::test_values_and_derivatives_match_jax[float32]",
        "tests/scipy/test_scipy_stats.py::test_values_dtypes_and_weak_types_match_jax[f32-float32]",
        "tests/lax/test_lax_windowed.py::test_values_and_derivatives_equal_jax[max]",
        *(f"tests/random/test_random_reference.py::test_matches_jax[{expr}]" for expr in (
            "jax.grad(lambda a: (r.dirichlet(k, a) * np.arange(8)).sum())(ALPHAS)|seed=0",
            "r.gumbel(k, (8,), mode='high')|seed=0",
            "r.truncated_normal(k, 3.0, 4.0, (8,))|seed=0",
            # cuSOLVER's factors, from here on: the covariance's (6 and 8 ulps)
            "r.multivariate_normal(k, np.array([1.0, -1.0, 0.5]), COV.astype(np.float64), "
            "(8,))|seed=0|x64",
            "r.multivariate_normal(k, np.array([1.0, -1.0, 0.5], np.float32), COV, "
            "(8,))|seed=1")),
        # polyfit's least squares (5 and 6 ulps), complex64 factorizations (4e3 ulps); a
        # singular covariance's svd with other signs, its eigh with an eigenvalue below zero
        # (nan under the square root); Rotation.mean's eigenvector with the other sign
        *(f"tests/numpy/test_numpy_composites.py::test_values_dtypes_weak_types_match_jax[{g}]"
          for g in ("polynomial", "x64")),
        "tests/numpy/test_numpy_linalg.py::test_factorizations[complex64]",
        *("tests/random/test_random_internals.py::test_a_singular_covariance_draws_on_its_"
          f"range_as_jax[{m} singular multivariate_normal]" for m in ("eigh", "svd")),
        *(f"tests/scipy/test_scipy_spatial.py::test_every_case_matches_jax[{mode}]"
          for mode in ("x32", "x64")))},
    # integer convolutions, which XLA's GPU compiler refuses ("Can't lower one or more integer
    # convolutions to idioms supported by CuDNN"); LAPACK's refusals of float16 and of
    # another eig implementation
    **{case: "CPU backend" for case in (
        "tests/lax/test_lax_convolution.py::test_value_and_vjp_match_jax[int32]",
        "tests/lax/test_lax_convolution.py::test_value_and_vjp_match_jax[int8_to_int32]",
        "tests/lax/test_linalg_eig.py::test_errors[<lambda>-NotImplementedError-LAPACK has no "
        "geev for float16]",
        "tests/lax/test_linalg_eig.py::test_errors[<lambda>-ValueError-Only the lapack "
        "implementation is supported on CPU.]")},
}


def check_reason(reason: str, where: str) -> None:
    """A cpu_only marker's reason must be one of REASONS (the tier counts skips by kind)."""
    if reason not in REASONS:
        raise ValueError(f"{where}: cpu_only({reason!r}): the reason must be one of "
                         f"{sorted(REASONS)} (tests/support/gpu_tier.py)")


def on_the_cpu(jax):
    """In the GPU tier, `jax.default_device(<the CPU>)`; elsewhere nothing. For tests whose
    subject is XLA's CPU itself, which hold on any machine that has one: the NumPy backend
    follows XLA's CPU bit for bit, jaxpr costs follow XLA CPU's cost model, and DLPack with
    NumPy shares host memory; and for a module JAX lowered for another platform whose values
    it computed on a CPU (tests/conftest.py's `on_the_cpu` fixture)."""
    if not ON_GPU:
        return contextlib.nullcontext()
    return jax.default_device(jax.devices("cpu")[0])
