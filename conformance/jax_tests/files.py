"""Which of JAX's test files the harness runs, where it reads them, and why the others are not
run. The files' code is read from the mirror at run time and never committed.

    >>> source_path("lax_numpy_operators_test.py")
    'tests/lax_numpy_operators_test.py'
"""
import os
import subprocess

TAG = "jax-v0.10.2"

# run, in this order: files whose imports jxkernel answers
FILES = [
    "lax_numpy_operators_test.py",
    "lax_numpy_reducers_test.py",
    "lax_numpy_setops_test.py",
    "lax_numpy_einsum_test.py",
    "lax_numpy_vectorize_test.py",
    "lax_numpy_ufuncs_test.py",
    "polynomial_test.py",
    "lax_numpy_indexing_test.py",
    "lax_scipy_special_functions_test.py",
    "lax_autodiff_test.py",
    "fft_test.py",
    "scipy_fft_test.py",
    "scipy_stats_test.py",
    "scipy_signal_test.py",
    "scipy_ndimage_test.py",
    "scipy_optimize_test.py",
    "scipy_interpolate_test.py",
    "scipy_spatial_test.py",
    "image_test.py",
    "ode_test.py",
    "custom_root_test.py",
    "custom_linear_solve_test.py",
    "stax_test.py",
    "optimizers_test.py",
    "x64_context_test.py",
    "lax_test.py",
    "lax_vmap_test.py",
    "lax_vmap_op_test.py",
    "lax_control_flow_test.py",
    "batching_test.py",
    "dtypes_test.py",
    "tree_util_test.py",
    "nn_test.py",
    "checkify_test.py",
    "api_test.py",
    "custom_api_test.py",
    "linalg_test.py",
    "lax_scipy_test.py",
    "lax_scipy_sparse_test.py",
    "random_test.py",
    "random_lax_test.py",
    "lax_numpy_test.py",
    "aot_test.py",
    "key_reuse_test.py",
    "python_callback_test.py",
    "export_test.py",
    "debugging_primitives_test.py",
    "debug_nans_test.py",
    "errors_test.py",
    "multi_device_test.py",
    "pmap_test.py",
    "shard_map_test.py",
    "array_test.py",
    "pjit_test.py",
    "core_test.py",
    "jaxpr_util_test.py",
    "name_stack_test.py",
    "source_info_test.py",
    "jaxpr_effects_test.py",
    "jax_jit_test.py",
    "api_util_test.py",
    "pickle_test.py",
    "transfer_guard_test.py",
    "eigh_test.py",
    "svd_test.py",
    "qdwh_test.py",
    "lobpcg_test.py",
    "cholesky_update_test.py",
    "ann_test.py",
    "stack_test.py",
    "jet_test.py",
    "array_api_test.py",
    "random_impl_test.py",
    "mutable_array_test.py",
    "memories_test.py",
    "layout_test.py",
    "array_interoperability_test.py",
    "device_test.py",
    "xla_bridge_test.py",
    "multibackend_test.py",
    "shard_alike_test.py",
    "clear_backends_test.py",
    "garbage_collection_guard_test.py",
    "array_extensibility_test.py",
    "custom_partitioning_test.py",

    "traceback_test.py",
    "debugger_test.py",
    "logging_test.py",
    "error_check_test.py",
    "stateful_rng_test.py",
    "generated_fun_test.py",
    "blocked_sampler_test.py",
    "warnings_util_test.py",
    "deprecation_test.py",
    "typing_test.py",
    "extend_test.py",
    "ffi_test.py",

    "string_array_test.py",
    "linalg_sharding_test.py",
    "experimental_rnn_test.py",
    "metadata_test.py",
    "monitoring_test.py",
    "package_structure_test.py",
    "documentation_coverage_test.py",
    "jax_to_ir_test.py",
    "lazy_loader_test.py",
    "heap_profiler_test.py",
    "profiler_session_test.py",

    "ragged_collective_test.py",
    "scaled_dot_test.py",
    "scaled_matmul_stablehlo_test.py",
    "custom_partitioning_sharding_rule_test.py",
    "async_collectives_test.py",

    "sparse_test.py",
    "sparse_bcoo_bcsr_test.py",
    "sparsify_test.py",

    "shape_poly_test.py",
    "export_harnesses_multi_platform_test.py",
    "export_serialization_back_compat_test.py",
    "export_back_compat_test.py",
]

# not run: each imports internals of JAX that jxkernel has no counterpart of (the first import
# that fails under the alias is named)
SKIPPED = {
    # every test of it is skipped by JAX 0.10.2 itself (its one class is `@unittest.skip("WIP")`)
    "debug_info_test.py": "jax.experimental.pallas (Pallas, a kernel language jxkernel has not)",
    # JAX's private document algebra (pp.text, pp.brk, pp.group, its source maps and HTML
    # output), no jaxpr in it; jxkernel prints jaxprs as JAX does without one (core/ir.py), and
    # the printed text is what core_test, name_stack_test and jxkernel's recorded jaxprs compare
    "pretty_printer_test.py": "jax._src.pretty_printer (JAX's private document algebra)",
    # JAX's private helpers: its weakref LRU caches (multi_weakref_lru_cache's keys and
    # threads), linear_util's transformation protocol and safe_map/safe_zip's messages
    "util_test.py": "jax._src.util.weakref_lru_cache (JAX's private caches; jxkernel's are "
                    "core/lru.py)",
    # defining new options at run time (config.bool_state/enum_state: JAX's private way to
    # add a flag, which jxkernel's fixed option table has not) and Cloud TPU's start-up
    "config_test.py": "jax._src.cloud_tpu_init (Cloud TPU's start-up; then config.bool_state)",
    # property tests: hypothesis, which neither side's venv has (JAX's side fails to collect
    # it too); its next JAX-private import is jax._src.hypothesis_test_util
    "state_test.py": "hypothesis (in neither venv; then jax._src.hypothesis_test_util)",
    # JAX's persistent cache from inside: each test swaps an in-memory CacheInterface in as
    # compilation_cache._cache and calls JAX's key and entry functions (get_cache_key with
    # compile options, put_executable_and_time, compress_executable, VerificationCache) and
    # counts its monitoring events; jxkernel's persistent cache (the same options:
    # jax_compilation_cache_dir, the min entry size and compile time) is xla/disk_cache.py's
    # folder of digest-checked files, with no cache object to swap in
    "compilation_cache_test.py": "jax._src.monitoring (then jax._src.path, test_warning_util "
                                 "and compilation_cache_interface: JAX's cache object, which "
                                 "its tests replace; jxkernel's is xla/disk_cache.py)",
    # JAX's file-backed LRU of that cache (its atime files, filelock); JAX's own side skips
    # all 9 tests (no filelock in its venv); jxkernel's folder is bounded by disk_cache.py
    "lru_cache_test.py": "jax._src.path (then jax._src.lru_cache, the file LRU of JAX's "
                         "persistent cache; JAX's side skips all 9 tests without filelock)",
    # JAX's TPU torus layouts (_get_physical_tpu_mesh, _create_device_mesh_for_nd_torus, the
    # transpose tricks) on mock TPU devices; jxkernel's create_device_mesh keeps the devices'
    # order, modelling no torus (jxkernel/_jax/experimental/mesh_utils.py)
    "mesh_utils_test.py": "jax._src.mesh_utils (JAX's TPU torus layouts, tested on mock TPU "
                          "devices; then sharding_impls.local_to_global_shape)",

    # jnp's error-checking modes (jnp_error.error_checking_behavior(nan=, divide=, oob=): jnp's
    # operations setting error_check's state on a NaN made, a division by zero, an index out
    # of bounds), which jxkernel has not; jax._src.error_check itself is answered
    # (error_check_test.py runs)
    "jax_numpy_error_test.py": "jax._src.numpy.error (jnp's error-checking modes: NaN, "
                               "division by zero and out-of-bounds checks in jnp's operations)",
    # calling Python on a program's device buffers in place (jaxlib's buffer-callback custom
    # call, its GPU and CPU buffer views), which jxkernel has not
    "buffer_callback_test.py": "jax.experimental.buffer_callback (Python called on a "
                               "program's device buffers)",
    # JAX's TPU eigensolver (spectral divide and conquer: the matrix split by qdwh's polar
    # projector, down to `termination_size`), called directly as lax_eigh.eigh; jxkernel's
    # eigh is LAPACK's syevd on the CPU and cuSOLVER's on GPUs (lax/linalg/symmetric_eigen.py),
    # and jxkernel/_jax/_src/tpu/linalg has qdwh, svd and stack only
    "lax_scipy_spectral_dac_test.py": "jax._src.tpu.linalg.eigh (JAX's TPU spectral "
                                      "divide-and-conquer eigensolver)",
    # HLO and jaxpr dumps mapped line by line back to Python source through JAX's source-map
    # encoder (jax._src.sourcemap, below); jxkernel's lowered text carries each operation's
    # source location as JAX's (metadata_test.py runs and passes)
    "source_mapper_test.py": "jax.experimental.source_mapper (compiler dumps mapped back to "
                             "Python source; then jax._src.sourcemap)",
    # JAX's private encoder of Source Map v3 files (base64 VLQ segments, the JSON form), used
    # by source_mapper only
    "sourcemap_test.py": "jax._src.sourcemap (JAX's private Source Map v3 encoder: VLQ "
                         "segments and JSON, for source_mapper)",
    # the persistent compilation cache's key from inside (hashes of the module, the serialized
    # compile options, the devices, the custom hook), as compilation_cache_test.py; jxkernel's
    # persistent cache keys its files by its own digest (xla/disk_cache.py)
    "cache_key_test.py": "jax._src.cache_key (JAX's persistent cache's key: module, compile "
                         "options, devices; jxkernel's is xla/disk_cache.py's digest)",
    # XLA control dependencies between operations (`control_dep`, `schedule`: custom calls
    # that order collectives and matmuls for the scheduler), which jxkernel has not
    "control_deps_test.py": "jax.experimental.control_deps (control_dep/schedule: XLA "
                            "control dependencies ordering operations)",
    # set_xla_metadata: XLA frontend attributes on every operation traced inside a block
    # (mhlo.frontend_attributes in the lowered text); jxkernel's jax._src.xla_metadata refuses
    # it (its lowering attaches none); then scheduling_groups.xla_metadata_call
    "xla_metadata_test.py": "jax.experimental.xla_metadata (frontend attributes on traced "
                            "operations, which jxkernel's lowering does not attach)",
    # XLA scheduling groups (`scheduling_group`, `xla_metadata_call`: functions lowered as
    # calls marked for XLA's latency-hiding scheduler), which jxkernel has not
    "scheduling_groups_test.py": "jax.experimental.scheduling_groups (calls marked for XLA's "
                                 "scheduler, xla_metadata_call)",
    # JAX's packaging: the version string built from git and JAX_RELEASE/JAXLIB_RELEASE at
    # build time (jax.version._get_version_for_build) and the jax/jaxlib compatibility check;
    # jxkernel's `jax.version` is a fixed 0.10.2 (as_jax.py)
    "version_test.py": "jax._src.lib.check_jaxlib_version (JAX's build-time version strings "
                       "and jax/jaxlib check; jxkernel's jax.version is fixed)",
    # JAX's roofline estimates (roofline(f, mesh, in_specs, out_specs) run over the jaxpr: per
    # primitive FLOPs, unfused HBM bytes, ICI bytes and latency of each collective inside
    # shard_map, roofline_and_grad, register_roofline rules for some 75 primitives), which
    # jxkernel has not: a gap, not an internal; what jxkernel has instead is XLA's own
    # estimate of a compiled program, `jit(f).lower(...).compile().cost_analysis()`
    "roofline_test.py": "jax.experimental.roofline (per-primitive FLOP, HBM and ICI "
                        "estimates over a jaxpr; jxkernel has XLA's cost_analysis only)",
    # hijax beyond what jxkernel/core/hijax.py answers (HiType, HiPrimitive, Box, QDD): the
    # file's first missing import is jax._src.state.indexing, then run_state, and of
    # jax._src.hijax the new-style VJPHiPrimitive, custom_vjp3, MappingSpec/HiPspec (high
    # types through shard_map), box_effect, Ty and Log, which its classes subclass
    "hijax_test.py": "jax._src.state.indexing (then state.discharge.run_state and hijax's "
                     "VJPHiPrimitive, custom_vjp3, MappingSpec, HiPspec, box_effect, Ty, Log)",
    # jnp.searchsorted (with batch_dims and dimension) and jnp.nonzero written as JAX's
    # VJPHiPrimitive subclasses, called as jax._src.numpy.hijax.searchsorted/nonzero;
    # jxkernel has no VJPHiPrimitive, and its jnp.searchsorted and jnp.nonzero are
    # lax_numpy_test.py's (they pass there)
    "lax_numpy_hijax_test.py": "jax._src.numpy.hijax (searchsorted, nonzero as JAX's "
                               "VJPHiPrimitives, which jxkernel has not)",
}


# JAX's test-support code (test code, not library code) that the files import as `jax._src.X`
# (and `jax.experimental.sparse.test_util`, the sparse files' test case and random layouts):
# read from the mirror like the files, into SUPPORT_FOLDER beside them, where jxkernel's side
# imports it under JAX's names (plugin/jax_test_support.py); JAX's side has its own
SUPPORT = ("jax/_src/lax_reference.py", "jax/_src/internal_test_util",
           "jax/_src/test_warning_util.py", "jax/experimental/sparse/test_util.py")
SUPPORT_FOLDER = "_jax_test_support"     # never `jax/`: that would shadow JAX on JAX's side


def source_path(file: str) -> str:
    return f"tests/{file}"


def extract(file: str, where: str, mirror: str) -> str:
    """Write JAX's `tests/<file>` at TAG from the git mirror `mirror` into `where`; its path."""
    text = subprocess.run(["git", "--git-dir", mirror, "show", f"{TAG}:{source_path(file)}"],
                          check=True, capture_output=True).stdout
    path = os.path.join(where, file)
    with open(path, "wb") as f:
        f.write(text)
    return path


def extract_support(where: str, mirror: str) -> str:
    """Write SUPPORT at TAG from the mirror into `where`/SUPPORT_FOLDER, each path relative to
    `jax/_src/` (`lax_reference.py`, `internal_test_util/...`), or to `jax/` outside it
    (`experimental/sparse/test_util.py`); that folder."""
    folder = os.path.join(where, SUPPORT_FOLDER)
    listing = subprocess.run(["git", "--git-dir", mirror, "ls-tree", "-r", "--name-only", TAG,
                              "--", *SUPPORT], check=True, capture_output=True, text=True).stdout
    for name in listing.split():
        text = subprocess.run(["git", "--git-dir", mirror, "show", f"{TAG}:{name}"],
                              check=True, capture_output=True).stdout
        path = os.path.join(folder, support_path(name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text)
    return folder


def support_path(name: str) -> str:
    """Where SUPPORT's file `name` goes in SUPPORT_FOLDER: its path below `jax/_src/`, or
    below `jax/` for one outside it.

    >>> support_path("jax/_src/internal_test_util/test_harnesses.py")
    'internal_test_util/test_harnesses.py'
    >>> support_path("jax/experimental/sparse/test_util.py")
    'experimental/sparse/test_util.py'
    """
    return name.removeprefix("jax/").removeprefix("_src/")
