"""Small differences from JAX 0.10.2 found at stop 66, against its recorded answers on 8
simulated CPU devices (tests/data/misc_gaps_cases.py, recorded by reference/
make_misc_gaps_reference.py).

A subprocess (JXKERNEL_CPU_DEVICES=8) runs the cases; each test below names one difference.
"""
import numpy as np
import pytest
from fresh_process import cases_code, run_against_reference
from numerics import ELEMENTWISE, assert_allclose_ulp

pytestmark = pytest.mark.cpu_only("simulated CPU devices")


@pytest.fixture(scope="module")
def runs():
    mine, ref = run_against_reference(cases_code("misc_gaps_cases"), "misc_gaps_reference.json")
    return mine, ref["run"]


def _check(runs, name, *keys, skip=()):
    # every value here is exact on both sides (small integers, types, PRNG bits, texts)
    mine, ref = runs[0][name], runs[1][name]
    keys = keys or sorted(set(ref) - set(skip))
    wrong = {k: (mine.get(k), ref[k]) for k in keys if mine.get(k) != ref[k]}
    assert not wrong, wrong


def test_every_case_ran_on_both_sides(runs):
    mine, ref = runs
    assert mine["device_count"] == ref["device_count"] == 8
    assert set(mine) == set(ref)
    for name in ref:
        if isinstance(ref[name], dict):
            assert set(mine[name]) == set(ref[name]), name


def test_a_user_context_value_is_per_thread(runs):
    # `with ctx(5):` in one thread: another thread's jit sees 0 and traces again (it reused
    # the first thread's trace, 6.0, when the values were process-wide); set_global is seen
    # by every thread
    _check(runs, "user_context_threads")


@pytest.mark.xla_only("CPU platform")          # (its shardings name CpuDevice)
def test_set_meshs_mesh_is_per_thread(runs):
    # a jit called in another thread runs on one device, and one made under set_mesh in a
    # thread of its own (set_mesh as a setter) runs over the mesh there only
    _check(runs, "set_mesh_threads")


def test_psum_of_a_constant_is_the_constant_times_the_axis_size(runs):
    # a Python int stays an int (3), a float a float, a NumPy value NumPy's; a bool sums as
    # int32; nothing is staged into the jaxpr
    _check(runs, "psum_constants")


def test_tokens_as_jaxs(runs):
    # a Token eagerly and from jit, block_until_ready gives None, make_jaxpr takes a token
    # argument (it read the carrier's shape, bool[0]), jnp.asarray's error is JAX's
    _check(runs, "tokens")


def test_key_primitives_under_vmap_over_keys_split_on_an_explicit_mesh(runs):
    # fold_in raised "inconsistent axis specs" where its messages were held (in_axes None, a
    # closure: they were broadcast unsplit beside the split keys); results are typed split
    # as the keys (random_bits, split, fold_in, bitcast_convert_type had no sharding rule);
    # the bits are the same as JAX's
    _check(runs, "keys_on_explicit_mesh", skip=("normal",))
    mine, ref = (r["keys_on_explicit_mesh"]["normal"] for r in runs)
    assert mine["type"] == ref["type"]

    def floats(v):
        return np.array(v["value"], np.uint32).view(np.float32)
    # erf_inv's last bits: 2 ulps apart at the suite's XLA level, equal at the default
    assert_allclose_ulp(floats(mine), floats(ref), ELEMENTWISE)


def test_custom_calls_of_unbatched_inputs_under_a_named_vmap(runs):
    # JAX batches every custom call under a vmap (its BatchTrace sees it whether or not an
    # input is batched): a psum in the body sums over the axis (`mul 3.0 d`, JAX's operand
    # order), and an unbatched output stays so (out_axes=None takes it)
    _check(runs, "custom_calls_under_named_vmap")


def test_a_librarys_extended_dtype_and_array_class(runs):
    # lax_test.py's CustomElementTypesTest (21 tests, all failed: JAX's runtime-type plumbing
    # was missing): its FooArray is typed by core.pytype_aval_mappings, passed to programs by
    # pxla.shard_arg_handlers, closed over through mlir._constant_handlers, made again by its
    # dtype's result handler; its primitives' mlir.lower_fun rules run on the logical types
    # (core/physical.py), and == compares the data (eq/ne of extended dtypes)
    _check(runs, "foreign_arrays")


def test_array_value_is_an_attribute_as_jaxs(runs):
    """`x._value` is the read-only NumPy value, not a method; a token's buffer raises JAX's
    RuntimeError (api_test.py test_print_token_buffer_error)."""
    ours, jax = runs
    assert ours["array_value"] == jax["array_value"]
    assert jax["array_value"]["token_buffer"] is not None


def test_scan_returns_the_bodys_pair_type_as_jaxs(runs):
    """A body returning a list gives a list (eagerly and in jit; a tuple under disable_jit),
    and a triple is refused naming each output's type."""
    _check(runs, "scan_outputs")
    assert runs[1]["scan_outputs"]["list"] == "list"


def test_all_gather_checks_its_axis_as_jaxs(runs):
    """A tiled all_gather of a scalar, or an axis past the gathered rank, raises JAX's
    ValueError (it divided by zero, or wrapped the axis around)."""
    _check(runs, "all_gather_axes")
    assert runs[1]["all_gather_axes"]["{'tiled': True} vmap"][0] == "ValueError"
