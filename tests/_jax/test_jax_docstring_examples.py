"""Every docstring example in jxkernel/_jax/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel._jax._src.config",
    "jxkernel._jax._src.cudnn.scaled_matmul_stablehlo",
    "jxkernel._jax._src.distributed",
    "jxkernel._jax._src.dtypes",
    "jxkernel._jax._src.earray",
    "jxkernel._jax._src.interpreters.pxla",
    "jxkernel._jax._src.lax.lax",
    "jxkernel._jax._src.literals",
    "jxkernel._jax._src.numpy.fft",
    "jxkernel._jax._src.numpy.indexing",
    "jxkernel._jax._src.numpy.util",
    # its set_mesh is core.mesh's (JAX's module name on it): 8 devices, tests/sharding/test_sharding's
    # subprocess runs it; in a worker the devices are what the process started with (one)
    "jxkernel._jax._src.sharding_impls",
    "jxkernel._jax._src.state.primitives",
    "jxkernel._jax._src.test_util",
    "jxkernel._jax._src.test_util.case",
    "jxkernel._jax._src.test_util.devices",
    "jxkernel._jax._src.test_util.dtype_lists",
    "jxkernel._jax._src.test_util.events",
    "jxkernel._jax._src.test_util.mesh",
    "jxkernel._jax._src.test_util.rand",
    "jxkernel._jax._src.test_util.sampling",
    "jxkernel._jax._src.util",
    "jxkernel._jax.api_util",
    "jxkernel._jax.dtypes",
    "jxkernel._jax.experimental.layout",
    "jxkernel._jax.experimental.pjit",
    "jxkernel._jax.experimental.sparse",
    "jxkernel._jax.extend.core",
    "jxkernel._jax.extend.ifrt_programs",
    "jxkernel._jax.interpreters.ad",
    "jxkernel._jax.interpreters.pxla",
    "jxkernel._jax.interpreters.xla",
})

# Modules whose examples show what only XLA gives (left out on the NumPy backend), and why.
XLA_ONLY = {
    "jxkernel._jax._src.lib.mlir.dialects.hlo": "XLA text",
    "jxkernel._jax._src.xla_bridge": "CPU platform",
    "jxkernel._jax.extend.backend": "CPU platform",
    "jxkernel._jax.interpreters.mlir": "XLA text",
}


def test_every_docstring_example_in_jax_runs():
    check_package_examples("jxkernel._jax", RUN_ELSEWHERE, {"jxkernel": jxkernel},
                           xla_only=XLA_ONLY)
