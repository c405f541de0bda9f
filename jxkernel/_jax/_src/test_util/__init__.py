"""jxkernel._src.test_util, as jax._src.test_util (`jtu` in JAX's own test files and in
libraries' tests): JaxTestCase and its checks, the sampled parameter products, the random
input generators, the dtype lists and tolerances, the device skips, the gradient checks and
`create_mesh`. jxkernel's own code, answering to the names and behaviour JAX's test files
rely on (the same sampled cases and the same seeded inputs as under JAX); what jxkernel has
no counterpart of (JAX's compile-cache counters, TPU/GPU queries beyond "not this device") is
left out.

    >>> [np.dtype(d).name for d in dtypes.all_unsigned]
    ['uint8', 'uint16', 'uint32']
    >>> with strict_promotion_if_dtypes_match([np.int32, np.float32]):
    ...     jnp.add(np.int32(1), np.float32(2)).dtype
    dtype('float32')
"""
import numpy as np

from .... import numpy as jnp
from ....api.config_states import numpy_dtype_promotion
from ....api.test_util import check_grads, check_jvp, check_vjp, rand_like  # noqa: F401
from ....numpy.util import promote_dtypes, promote_dtypes_inexact
from ....transforms.jit import jit
from ....tree_util import tree_flatten, tree_unflatten
from ....xla.client import is_optimized_build  # noqa: F401
from ....xla.compiler import _jaxlib_version
from .case import (TEST_NUM_THREADS, BufferDonationTestCase, JaxTestCase,  # noqa: F401
                   JaxTestLoader,
                   capture_stderr, capture_stdout, check_close, check_eq, check_raises,
                   check_raises_regexp, pytest_mark_if_available, thread_local_config_context,
                   thread_unsafe_test, thread_unsafe_test_class, with_config)
from .case import _assert_numpy_allclose, _check_dtypes_match  # noqa: F401
from .devices import (device_supports_buffer_donation, device_under_test,  # noqa: F401
                      is_cloud_tpu, is_cloud_tpu_at_least, is_cuda_compute_capability_at_least,
                      is_cuda_version_at_least,
                      is_device_cuda, is_device_rocm, is_device_tpu, is_device_tpu_at_least,
                      is_gil_disabled, is_sanitized, is_test_rbe, is_tsan,
                      request_cpu_devices, run_on_devices, runtime_environment,
                      skip_on_devices, skip_on_flag,
                      test_device_matches)
from .dtype_lists import (_dtype, default_gradient_tolerance, default_tolerance,  # noqa: F401
                          dtypes, join_tolerance, num_float_bits, supported_dtypes,
                          to_default_dtype, tolerance, with_jax_dtype_defaults)
from .events import (assert_num_jit_and_pmap_compilations,  # noqa: F401
                     count_aot_jit_cpp_cache_miss, count_device_put, count_internal_device_puts,
                     count_compilation_after_persistent_cache_miss,
                     count_jit_and_pmap_lowerings, count_jit_compilation_cache_miss,
                     count_jit_tracing_cache_miss, count_pjit_cpp_cache_miss,
                     count_primitive_compiles)
from .jaxpr_checks import (assert_dot_precision, assert_dot_preferred_element_type,  # noqa: F401
                           iter_eqns)
from .mesh import create_mesh, with_explicit_mesh, with_mesh, with_mesh_from_kwargs  # noqa: F401
from .rand import (NUMPY_SCALAR_SHAPE, PYTHON_SCALAR_SHAPE, ScalarShape,  # noqa: F401
                   _dims_of_shape, dtype_str, format_shape_dtype_string, is_valid_shape,
                   rand_bool, rand_default, rand_fullrange, rand_indices_unique_along_axis,
                   rand_int,
                   rand_nonzero, rand_not_small, rand_positive, rand_small, rand_small_positive,
                   rand_some_equal, rand_some_inf, rand_some_inf_and_nan, rand_some_nan,
                   rand_some_zero, rand_uniform, rand_unique_int)
from .sampling import (NUM_GENERATED_CASES, cases_from_gens, ignore_warning,  # noqa: F401
                       named_cases_from_sampler, numpy_version, parameterized_filterable,
                       parse_version, pytest_mark_if_available, sample_product,
                       sample_product_testcases,
                       sanitize_test_name)


def jaxlib_version() -> tuple:
    return parse_version(_jaxlib_version())


def strict_promotion_if_dtypes_match(dtypes):
    """Strict dtype promotion where all `dtypes` are one, standard otherwise (a block)."""
    if all(d == dtypes[0] for d in dtypes):
        return numpy_dtype_promotion("strict")
    return numpy_dtype_promotion("standard")


def promote_like_jnp(fun, inexact=False):
    """`fun` (a NumPy reference) called with its arguments promoted as jnp promotes them."""
    promote = promote_dtypes_inexact if inexact else promote_dtypes

    def wrapper(*args, **kw):
        leaves, tree = tree_flatten(args)
        return fun(*tree_unflatten(tree, promote(*leaves)), **kw)
    return wrapper


def _named(name, f):
    f._name = name
    return f


# the two ways tests parameterized over JIT_IMPLEMENTATION run a function: jitted, and as is
JIT_IMPLEMENTATION = (_named("jit", lambda f, *args, **kwargs: jit(f, *args, **kwargs)),
                      _named("noop", lambda f, *args, **kwargs: f))

