"""What the libraries' own tutorials (python -m conformance.docs --library, the table in
conformance/docs/LIBRARIES.md) found jxkernel answering differently from JAX, against JAX's
recorded answers (tests/data/library_tutorial_cases.py, library_tutorial_reference.json), in a
fresh process that asks for 8 CPU devices the way Flax's sharding guide does."""
import pytest
from fresh_process import run_json
import locations  # tests/support: the repository's folders

_RUN = """
import json
import jxkernel as jax
import library_tutorial_cases
print(json.dumps(library_tutorial_cases.run(jax)))
"""


@pytest.fixture(scope="module")
def runs():
    return run_json(_RUN), locations.jax_answers("library_tutorial_reference.json")


@pytest.mark.cpu_only("simulated CPU devices")
def test_backends_are_initialized_before_and_after_the_first_computation(runs):
    # flax_gspmd asks before setting jax_num_cpu_devices (only possible before the CPU starts)
    mine, ref = runs
    keys = ("backends_before", "device_count", "backends_after")
    assert [mine[k] for k in keys] == [ref[k] for k in keys] == [False, 8, True]


@pytest.mark.cpu_only("simulated CPU devices")
def test_reshard_drops_unsplit_entries_past_a_values_rank(runs):
    # optimization_cookbook: reshard(model, P(None, None)) over 2-d kernels and 1-d biases
    mine, ref = runs
    assert mine["reshard"] == ref["reshard"]
    assert mine["reshard"]["tree_none_none"][0] == ["P(None,)", "float32[8]"]


@pytest.mark.cpu_only("simulated CPU devices")
def test_make_mesh_takes_one_axis_name_as_a_string(runs):
    # key_concepts: jax.make_mesh((jax.device_count(),), 'model'); two names in one string
    # are one name, refused by Mesh in JAX's words
    mine, ref = runs
    assert mine["make_mesh"] == ref["make_mesh"]
    assert mine["make_mesh"]["one_name"] == [["model"], [8]]


def test_a_class_parameter_prints_as_str_shows_it(runs):
    # Flax's hijax guide: get_variable[... var_type=<class 'flax.nnx.variablelib.Variable'>]
    mine, ref = runs
    assert mine["class_param"] == ref["class_param"]
    assert "var_type=<class 'library_tutorial_cases.Box'>" in mine["class_param"]


def test_a_0d_array_refuses_iteration_at_iter(runs):
    # optax's ogda example: matplotlib's scatter of a 0-d coordinate (np.iterable is False)
    mine, ref = runs
    assert mine["iterable"] == ref["iterable"]
    assert mine["iterable"]["array_0d"] is False and mine["iterable"]["tracer_0d"] is False


@pytest.mark.cpu_only("CPU text")
def test_ordered_prints_inside_conds_keep_program_order(runs):
    # optax's lbfgs example: the zoom linesearch's verbose diagnostics, ordered prints in conds
    mine, ref = runs
    assert mine["ordered_prints"] == ref["ordered_prints"]
    assert mine["ordered_prints"][:7] == ["a 5.0", "b 5.0", "unordered", "c 5.0", "d 5.0", "e",
                                          "f"]
    # and around loops (the token carried) and an inner jit (inlined)
    assert mine["ordered_prints"][-8:] == ["before 1.0", "in 0", "in 1", "after", "scan 3.0",
                                           "scan 4.0", "inner", "last"]
