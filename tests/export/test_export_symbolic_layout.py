"""jax.export, with symbolic shapes, of programs partitioned over a mesh whose body reads a
symbolic dimension as a value (`b * b.shape[0]`), against JAX 0.10.2's answers on 2
simulated CPU devices (tests/data/export_symbolic_layout_cases.py, recorded by
reference/make_export_symbolic_layout_reference.py): over a mesh of Explicit and one of Auto
axes, jits given in/out_shardings, a sharding constraint inside, a reshard under set_mesh,
shard_map bodies. Each
export's avals, shardings and nr_devices, its calls on inputs of two sizes (values exact:
small integers in float32) and JAX's refusals (an indivisible `b` split over 2, a
constraint naming an Explicit axis, shard_map's in_specs over Explicit axes, reshard to an
Auto axis)."""
import pytest
from fresh_process import cases_code, run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]

# jxkernel's refusal, kept: a shard_map body that needs a symbolic size (the block's `b1`,
# or a scalar broadcast to the block's shape) is refused at export, where JAX exports a
# module its own call then cannot refine ("Error refining shapes")
_SHARD_MAP = ("auto shard_map 2*b1,_", "auto shard_map outside 2*b1,_")
# calls whose output sharding the export left to XLA: their results report XLA's layout
# named alone (P('x',)), as JAX's (jxkernel's said P('x', None), the argument's)
_RESULT_SPEC = ("in_only 2*b1,_", "split argument 2*b1,_")
# JAX exports a jit whose result reshard types over Explicit axes (recording that sharding,
# as jxkernel now does) but its own call of the module fails ("Error refining shapes");
# jxkernel's call computes the values the function gives (6 * x for x of 6 rows)
_RESHARD = "explicit reshard 2*b1,_ call"


@pytest.fixture(scope="module")
def runs():
    mine, ref = run_against_reference(cases_code("export_symbolic_layout_cases"),
                                      "export_symbolic_layout_reference.json", devices=2)
    return mine, ref["run"]


def _left_out(key: str) -> bool:
    return key.startswith(_SHARD_MAP + (_RESHARD,))


def test_recorded_on_two_devices(runs):
    mine, ref = runs
    assert mine["device_count"] == ref["device_count"] == 2


@pytest.mark.parametrize("axes", ["explicit", "auto"])
def test_exports_and_calls_match_jax(runs, axes):
    mine, ref = runs
    keys = sorted(k for k in ref if k.startswith(axes + " ") and not _left_out(k))
    assert len(keys) > 10
    assert {k: mine.get(k) for k in keys} == {k: ref[k] for k in keys}


def test_a_jit_given_shardings_reads_its_symbolic_dimension(runs):
    # the bug: the layout was found by lowering the module without its symbolic dimensions
    # ('NoneType' object has no attribute 'dim')
    mine, ref = runs
    for axes in ("explicit", "auto"):
        key = f"{axes} given 2*b1,_"
        assert mine[f"{key} export"]["nr_devices"] == 2
        assert mine[f"{key} call 6"] == ref[f"{key} call 6"]
        assert mine[f"{key} call 6"][0][1] == [18.0, 24.0, 30.0]     # 6 * [3, 4, 5]


def test_calls_whose_output_xla_lays_out_report_its_layout_as_jax(runs):
    mine, ref = runs
    for axes in ("explicit", "auto"):
        for name in _RESULT_SPEC:
            for n in (4, 6):
                key = f"{axes} {name} call {n}"
                assert mine[key] == ref[key]
                assert mine[key][1] == "P('x',)"


def test_a_result_typed_over_explicit_axes_records_its_sharding(runs):
    # (jxkernel recorded None for an output given no sharding whose type is split: an
    # export's out_shardings are given or typed, as JAX's)
    mine, ref = runs
    for key in ("explicit reshard 2*b1,_ export", "explicit constraint before b,_ export"):
        assert mine[key] == ref[key]
        assert ref[key]["out_shardings"] != [None]


def test_a_resharded_export_runs_where_jax_cannot_refine_it(runs):
    mine, ref = runs
    for n in (4, 6):
        assert ref[f"{_RESHARD} {n}"] == ["ValueError", "Error refining shapes. Define "
                                          "JAX_DUMP_IR_TO to dump the module."]
        values, spec = mine[f"{_RESHARD} {n}"]
        assert spec == "P('x', None)"
        assert values == [[n * (3 * i + j) for j in range(3)] for i in range(n)]


def test_a_shard_map_body_that_needs_a_symbolic_size_is_refused_at_export(runs):
    mine, ref = runs
    for name in _SHARD_MAP:
        assert mine[f"{name} export"][0] == "NotImplementedError"
        assert "needs the value of the symbolic dimension 'b1'" in mine[f"{name} export"][1]
        assert isinstance(ref[f"{name} export"], dict)          # JAX exports it...
        assert ref[f"{name} call 4"] == ["ValueError", "Error refining shapes. Define "
                                         "JAX_DUMP_IR_TO to dump the module."]  # ...unusable
