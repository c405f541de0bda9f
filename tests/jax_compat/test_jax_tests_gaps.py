"""Small gaps JAX 0.10.2's own test files showed, against JAX's recorded answers
(tests/data/jax_tests_gaps_cases.py, recorded by reference/make_jax_tests_gaps_reference.py)."""

import pytest
from jax_tests_gaps_cases import (check_effects, checkify_custom_rules, checkify_shard_map,
                                  colored_jaxprs, composite_array_consts, cond_closure_released, custom_vjp_cotangent_dtype, implementation_switches, key_issubdtype,
                                  pmap_in_eager_loop, searchsorted_index_dtype,
                                  unique_indices_generator, vjp_residuals)

import jxkernel as jax
import locations  # tests/support: the repository's folders

REF = locations.jax_answers("jax_tests_gaps_reference.json")


def test_vjp_pullback_keeps_forwarded_primals_apart_from_computed_residuals():
    assert vjp_residuals(jax) == REF["vjp_residuals"]


def test_implementation_switches_read_jaxs_defaults():
    assert implementation_switches(jax) == REF["implementation_switches"]


@pytest.mark.parametrize("name, other", [("jax_use_simplified_jaxpr_constants", True),
                                         ("jax_mutable_array_checks", False)])
def test_an_implementation_jxkernel_has_not_is_refused_by_name(name, other):
    """Kept difference (conformance/README.md): JAX has both implementations, jxkernel the
    default one, and the other changes what a jaxpr prints; it raises rather than being kept
    and changing nothing."""
    before = getattr(jax.config, name)
    with pytest.raises(ValueError, match=f"{name}={other} is not supported by jxkernel"):
        jax.config.update(name, other)
    with pytest.raises(ValueError, match=name):
        with jax.config.override(name, other):
            pass
    assert getattr(jax.config, name) == before
    # as a decorator (JAX's api_test.py decorates a test method in its class body): refused
    # when the function runs, not when the module defining it is imported
    state = getattr(jax._src.config, name.removeprefix("jax_"))

    @state(other)
    def decorated():
        return 1
    with pytest.raises(ValueError, match=name):
        decorated()
    assert getattr(jax.config, name) == before


def test_issubdtype_of_a_key_dtype_holds_itself_only():
    assert key_issubdtype(jax) == REF["key_issubdtype"]


def test_a_cond_closing_over_an_array_lets_it_go_with_its_function():
    assert cond_closure_released(jax) == REF["cond_closure_released"]


def test_a_pmap_in_an_eager_loop_body_runs_and_too_many_entries_raise_jaxs_error():
    got, want = pmap_in_eager_loop(jax), REF["pmap_in_eager_loop"]
    assert got == want        # (small ints in float32: exact)


def test_checkify_checks_a_custom_functions_body_and_not_its_rules():
    assert checkify_custom_rules(jax) == REF["checkify_custom_rules"]


def test_checkify_of_a_shard_map_reports_each_devices_error_by_its_index():
    assert checkify_shard_map(jax) == REF["checkify_shard_map"]


def test_a_jaxpr_names_its_checks_error_effects():
    assert check_effects(jax) == REF["check_effects"]


def test_test_utils_unique_indices_take_an_axis_from_the_end():
    assert unique_indices_generator(jax) == REF["unique_indices_generator"]


def test_a_custom_vjps_cotangent_keeps_the_dtype_its_bwd_gave():
    assert custom_vjp_cotangent_dtype(jax) == REF["custom_vjp_cotangent_dtype"]


def test_searchsorted_asks_for_int64_indices_past_int32s_range():
    assert searchsorted_index_dtype(jax) == REF["searchsorted_index_dtype"]


def test_jaxprs_print_jaxs_colors_where_asked():
    assert colored_jaxprs(jax) == REF["colored_jaxprs"]


def test_a_composites_array_constants_are_its_first_operands():
    assert composite_array_consts(jax) == REF["composite_array_consts"]


@pytest.mark.parametrize("name, other", [("jax_use_direct_linearize", False),
                                         ("jax_remat3", True)])
def test_switches_jaxs_tests_hold_results_invariant_to_are_accepted(name, other):
    """JAX checks that answers do not depend on these (api_test's test_use_direct_linearize,
    Remat3Test): jxkernel's one implementation gives the same answer under either value."""
    f = jax.grad(lambda x: jax.numpy.sin(jax.checkpoint(jax.numpy.sin)(x)))
    before = f(1.0)
    with jax.config.override(name, other):
        assert getattr(jax.config, name) == other
        assert f(1.0) == before
