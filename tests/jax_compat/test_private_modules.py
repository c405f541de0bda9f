"""jxkernel's modules under JAX's private names that JAX's own test files import
(jax._src.literals, ...), against JAX 0.10.2's recorded answers
(reference/make_private_modules_reference.py on tests/data/private_modules_cases.py)."""
import functools

import numpy as np
import pytest

import jxkernel
from jxkernel._jax._src import config, core, dtypes, earray, literals as literals_module
from jxkernel._jax._src import test_util as jtu, tree_util
from jxkernel._jax._src import checkify as checkify_private
from jxkernel._jax._src.interpreters import pxla
from jxkernel._jax.experimental import checkify
from jxkernel.core.dtypes import MISSING_NARROW_NAMES

import private_modules_cases as cases  # tests/data
import locations  # tests/support: the repository's folders
from doc_examples import check_docstring_examples

# JAX 0.10.2 answered with int1 and uint1, which ml_dtypes has from 0.6 on (0.5 is inside
# pyproject's range: jxkernel then leaves them out)
NEEDS_INT1 = pytest.mark.skipif(bool(MISSING_NARROW_NAMES),
                                reason="ml_dtypes before 0.6 has no int1, uint1")

RECORD = locations.recorded("private_modules_reference.json")



@functools.cache
def _literals() -> dict:
    """The literals case run once, on first use (never while pytest collects)."""
    return cases.literals(jxkernel, literals_module, dtypes, core, np)


@pytest.mark.parametrize("key", sorted(RECORD["literals"]))
def test_literals_are_jaxs(key):
    # typed scalars keep their dtype without x64 (dtype, canonicalize_value, jit and
    # device_put of an int64 TypedInt stay int64) and are weakly typed; TypedNdArrays are
    # weak only where their aval says, and their views keep it
    assert _literals()[key] == RECORD["literals"][key]


@NEEDS_INT1
def test_dtypes_private_names_are_jaxs():
    # the lattice's nodes in JAX's order, promote_types taking Python's types as weak (int8
    # and int: int8, not int64), itemsize_bits' widths (int4: 4), dtype() under each
    # jax_explicit_x64_dtypes mode with JAX's warning and ValueError
    got = cases.dtypes_private(jxkernel, dtypes, config, np)
    want = RECORD["dtypes_private"]
    assert sorted(got) == sorted(want)
    for key in want:
        assert got[key] == want[key], key


def test_primal_tangent_dtype_differentiates_as_its_tangent_dtype():
    # vjp gives the int8-held input a bfloat16 cotangent (it gave float0), through jit,
    # custom_gradient and a cond's residuals (empty2 of the extended dtype)
    assert cases.primal_tangent(jxkernel, dtypes, np) == RECORD["primal_tangent"]


def test_result_handler_wrap():
    got = cases.result_handler_wrap(jxkernel, dtypes, core, pxla, earray, np)
    assert got == RECORD["result_handler_wrap"]


def test_tree_util_private_names():
    assert cases.tree_util_private(tree_util, jxkernel) == RECORD["tree_util_private"]


def test_count_jit_and_pmap_lowerings():
    assert cases.compile_counts(jxkernel, jtu) == RECORD["compile_counts"]


def test_checkify_index_checks():
    # a static out-of-bounds int index is taken by a dynamic_slice (it was clamped into a
    # static slice, unchecked); gather/scatter bounds need no rank promotion
    got = cases.checkify_index_checks(jxkernel, checkify, checkify_private)
    want = RECORD["checkify_index_checks"]
    for key in want:
        assert got[key] == want[key], key


def test_nn_edges():
    # jnp.max's Python initial converted on the host: no -inf computed under debug_infs
    assert cases.nn_edges(jxkernel, core, np) == RECORD["nn_edges"]


def test_custom_derivative_classes_and_checkify_helpers_live_where_jaxs_do():
    # custom_jvp/custom_vjp answer at JAX's jax._src.custom_derivatives (they said the package
    # module they moved to at stop 69); checkify's _reduce_any_error is reachable again
    assert cases.module_homes(jxkernel, checkify, checkify_private) == RECORD["module_homes"]


def test_error_classes_say_they_live_where_jaxs_do():
    # a traceback names `jax.errors.ConcretizationTypeError` and
    # `jax._src.checkify.JaxRuntimeError` in JAX; jxkernel's said jxkernel.core.errors and
    # jxkernel.api.checkify, CustomVJPPrimal its package's vjp_rules, custom_gradient and
    # closure_convert jxkernel.transforms.custom_gradient; ErrorCategory printed as `type`
    got = cases.error_homes(jxkernel, checkify, checkify_private)
    want = RECORD["error_homes"]
    assert sorted(got) == sorted(want)
    for key in want:
        assert got[key] == want[key], key


def test_weak_typed_ndarray_pickles_with_its_aval():
    # (JAX 0.10.2's own __reduce__ breaks here; jxkernel's keeps the aval)
    import pickle
    aval = core.ShapedArray((1,), np.int64, weak_type=True)
    back = pickle.loads(pickle.dumps(literals_module.TypedNdArray(np.array([6]), aval)))
    assert back.aval == aval and repr(back) == "TypedNdArray([6], dtype=int64, weak_type=True)"


def test_docstring_examples():
    check_docstring_examples("jxkernel._jax._src.literals", {"np": np})
    check_docstring_examples("jxkernel._jax._src.dtypes", {"np": np})
    check_docstring_examples("jxkernel._jax._src.test_util.events", {"jax": jxkernel})
    check_docstring_examples("jxkernel._jax._src.cudnn.scaled_matmul_stablehlo",
                             {"jax": jxkernel})
    check_docstring_examples("jxkernel._jax._src.interpreters.pxla", {"np": np})
    check_docstring_examples("jxkernel._jax.dtypes", {"np": np, "dtypes": jxkernel.dtypes})


def test_api_util_resolve_kwargs_and_flatten_axis_resources_are_jaxs():
    from jxkernel._jax import api_util
    got = cases.api_util_private(jxkernel, api_util)
    want = RECORD["api_util_private"]
    assert got["resolve"] == want["resolve"]
    for i, (ours, theirs) in enumerate(zip(got["flatten_axis_resources"],
                                           want["flatten_axis_resources"])):
        assert ours == theirs, i
    assert len(got["flatten_axis_resources"]) == len(want["flatten_axis_resources"])


def test_closed_call_p_calls_its_function_under_transformations():
    # JAX's core_test binds core.closed_call_p (as core.call_p) with a WrappedFun under jit,
    # jvp and linearize; it computes what calling the function computes
    from jxkernel._jax._src import linear_util as lu
    x = jxkernel.numpy.arange(3.0)

    def called(x):
        fun = lu.wrap_init(lambda x: [jxkernel.numpy.sin(x) * x], debug_info=None)
        return core.closed_call_p.bind(x, subfuns=(fun,))[0]
    want = jxkernel.numpy.sin(x) * x
    np.testing.assert_array_equal(called(x), want)
    np.testing.assert_array_equal(jxkernel.jit(called)(x), want)
    _, tangent = jxkernel.jvp(called, (x,), (jxkernel.numpy.ones(3),))
    # the same operations as differentiating the function itself: the same float32 bits
    _, direct = jxkernel.jvp(lambda x: jxkernel.numpy.sin(x) * x, (x,),
                             (jxkernel.numpy.ones(3),))
    np.testing.assert_array_equal(tangent, direct)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_, np.complex64, object,
                                   [("i", "i4"), ("f", "f4")]])
def test_valid_jaxtype(dtype):
    # JAX's core_test: an array of any of JAX's dtypes is a valid JAX type, one of objects or
    # of a structured dtype is not
    assert core.valid_jaxtype(np.zeros(10, dtype)) == (dtype not in (object, [("i", "i4"),
                                                                             ("f", "f4")]))


def test_jaxpr_util_counts_are_jaxs():
    # jaxpr_util's histograms over each program's equations, nested jaxprs' included
    from jxkernel._jax._src import jaxpr_util
    got = cases.jaxpr_util_counts(jxkernel, jaxpr_util)
    want = RECORD["jaxpr_util_counts"]
    for name in want:
        assert got[name] == want[name], name


def test_batched_device_put_canonicalizes_as_enable_x64_says():
    # JAX's jax_jit_test (its _cpp_device_put): with enable_x64=None the dtype is
    # canonicalized as jax_enable_x64 is now, with True it is kept ("no canonicalization")
    from jxkernel._jax._src.sharding_impls import make_single_device_sharding
    device = jxkernel.devices()[0]
    sharding = make_single_device_sharding(device)
    for value in (np.zeros((3, 4), np.float64), np.int64(7), 1.0):
        aval = core.shaped_abstractify(value)
        kept = pxla.batched_device_put(aval, sharding, [value], [device], enable_x64=True)
        now = pxla.batched_device_put(aval, sharding, [value], [device], enable_x64=None)
        assert kept.dtype == np.asarray(value).dtype
        assert now.dtype == jxkernel.numpy.asarray(value).dtype
        assert np.array_equal(np.asarray(kept), np.asarray(value))


def test_eval_jaxpr_gives_a_literal_output_as_its_value():
    # jax._src.core's eval_jaxpr and jaxpr_as_fun, as jax.core's: TypedFloat(1.0,
    # dtype=float32) for `lambda x: 1.0`'s output, where they gave the jaxpr's Literal
    from jxkernel._jax.extend import core as extend_core
    got = cases.eval_jaxpr_literals(jxkernel, core, extend_core)
    assert got == RECORD["eval_jaxpr_literals"]
