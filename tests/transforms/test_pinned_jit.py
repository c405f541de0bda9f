"""A jit pinned to one device (`device=`, or SingleDeviceShardings as in_shardings/
out_shardings) against JAX 0.10.2's recorded answers on 8 simulated CPU devices
(tests/data/pinned_cases.py, recorded by reference/make_pinned_reference.py).

One subprocess (JXKERNEL_CPU_DEVICES=8) runs the cases: the lowered text (JAX declares
`sdy.mesh @empty_mesh` and gives pinned and committed arguments `sdy.sharding` over it);
where the pinned jit runs under grad, vjp, jvp, linearize, vmap and an enclosing jit, and
JAX's "Received incompatible devices" errors for a committed argument or an outer jit on
another device; `exp.call`'s results committed, as JAX's; and a jit equation run eagerly by
grad or vmap placed by its committed arguments, else on the default device, uncommitted; the
jaxprs of transformations of a pinned jit and the module of a jit calling one, as text.
"""

import numpy as np
import pytest
from fresh_process import cases_code, run_json

import locations  # tests/support: the repository's folders

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("XLA text")]   # (jax.export: refused there)


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers("pinned_reference.json")["run"]
    return run_json(cases_code("pinned_cases"), {"JXKERNEL_CPU_DEVICES": "8"}, timeout=600), ref


def _same(mine: dict, ref: dict) -> None:
    """Errors and shardings exact; values (float32 sines of small numbers) within 4 ulp."""
    assert ("error" in mine) == ("error" in ref), (mine, ref)
    if "error" in ref:
        assert mine["error"] == ref["error"]
        return
    assert [leaf[:2] for leaf in mine["leaves"]] == [leaf[:2] for leaf in ref["leaves"]]
    for got, want in zip(mine["leaves"], ref["leaves"]):
        want = np.asarray(want[2], np.float32)
        np.testing.assert_array_max_ulp(np.asarray(got[2], np.float32), want, maxulp=4)


def test_every_case_ran_on_both_sides(runs):
    mine, ref = runs
    assert {k: sorted(v) for k, v in mine.items()} == {k: sorted(v) for k, v in ref.items()}


@pytest.mark.parametrize("name", ["in3", "in3_tuple", "out3", "in0", "in_out3_committed",
                                  "device3", "device3_scalar", "plain", "plain_committed3",
                                  "plain_committed0", "pytree_donated", "dict_in"])
def test_lowered_text_is_jaxs(runs, name):
    """Byte for byte: @empty_mesh declared (with JAX's stablehlo.mesh attribute) where an
    argument is committed or a SingleDeviceSharding is given, each such argument and result
    its sdy.sharding; none for a plain jit of uncommitted arguments."""
    mine, ref = runs
    assert mine["texts"][name] == ref["texts"][name]


def test_the_spelled_out_text_of_a_pinned_argument():
    import jxkernel as jax
    text = locations.jax_answers("pinned_reference.json")["run"]["texts"]["in3_tuple"]
    assert "  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}\n" in text
    assert ("%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}, "
            "%arg1: tensor<4xf32>)") in text
    x = jax.numpy.arange(4.0)
    mine = jax.jit(lambda a, b: a * 2 + b, in_shardings=(
        jax.sharding.SingleDeviceSharding(jax.devices()[0]), None)).lower(x, x).as_text()
    assert mine == text


@pytest.mark.parametrize("kind", ["in3", "out3", "dev3"])
@pytest.mark.parametrize("how", [
    "direct", "grad", "vjp", "jvp", "linearize", "vmap", "outer jit", "outer jit grad",
    "outer jit committed2", "direct committed2", "grad committed2", "vmap committed2",
    "outer jit pinned2", "outer jit device2", "outer jit lowered"])
def test_a_pinned_jit_runs_where_jax_runs_it(runs, kind, how):
    """On device 3, committed, under every transformation and inside another jit; JAX's
    ValueError (naming the inner call's line) where an argument or the outer jit is on
    device 2."""
    mine, ref = runs
    _same(mine["calls"][f"{kind} {how}"], ref["calls"][f"{kind} {how}"])


@pytest.mark.parametrize("how", ["numpy", "jnp", "committed3", "in jit", "in jit committed3",
                                 "grad", "pinned numpy", "pinned committed2"])
def test_an_exported_calls_results_are_committed_as_jaxs(runs, how):
    mine, ref = runs
    _same(mine["exported"][how], ref["exported"][how])


@pytest.mark.parametrize("how", ["grad uncommitted", "grad committed3 second",
                                 "grad committed3 first", "grad both args committed3 first",
                                 "vmap committed3 second", "vmap uncommitted"])
def test_an_eager_jit_equation_runs_where_its_committed_arguments_are(runs, how):
    """The committed argument's device, committed; with none, the default device,
    uncommitted (a residual that is an input is that input, as JAX forwards it)."""
    mine, ref = runs
    _same(mine["eager"][how], ref["eager"][how])


@pytest.mark.parametrize("kind", ["in3", "out3", "dev3"])
@pytest.mark.parametrize("what", ["grad jaxpr", "jvp jaxpr", "vmap jaxpr",
                                  "two operands grad jaxpr", "outer text",
                                  "outer two operands text"])
def test_jaxprs_and_modules_around_a_pinned_jit_are_jaxs(runs, kind, what):
    """Text for text: each equation grad, jvp and vmap make of a pinned jit prints the
    in_shardings/out_shardings JAX derives for it (residuals unspecified; a residual that
    is an input forwarded, not returned), and a jit calling one constrains its function's
    operands and results over @empty_mesh."""
    mine, ref = runs
    assert mine["inner"][f"{kind} {what}"] == ref["inner"][f"{kind} {what}"]


@pytest.mark.parametrize("how", [
    "committed5", "committed5 keep_unused", "committed5, committed2 keep_unused",
    "committed5, used committed2", "committed5, committed2", "committed5 lowered",
    "committed5 twice", *[f"{mesh} {case}" for mesh in ("mesh0", "mesh4", "mesh_all")
                          for case in ("split", "split, used committed5", "split, used committed0",
                                       "replicated", "split alone", "grad")]])
def test_unused_arguments_do_not_place_a_jit(runs, how):
    """JAX drops the arguments a jit never reads before it places the program (unless
    keep_unused): the used ones decide, else the default device, uncommitted; an unused
    argument split over a mesh starting at device 4 does not move it there."""
    mine, ref = runs
    _same(mine["unused"][how], ref["unused"][how])


@pytest.mark.parametrize("kind", ["in3", "out3", "dev3"])
@pytest.mark.parametrize("how", ["direct split", "direct replicated", "outer jit split",
                                 "grad split", "vmap replicated", "set_mesh direct",
                                 "set_mesh outer"])
def test_a_pinned_jit_and_meshes_are_jaxs(runs, kind, how):
    """An argument split over a mesh: JAX's "Sharding passed to jit does not match" for a
    given SingleDeviceSharding (a replicated one, and any under device=, moves to the
    device); a jit over split arguments or under set_mesh calling a pinned jit: JAX's
    incompatible devices (set_mesh with device=: JAX's own ValueError)."""
    mine, ref = runs
    _same(mine["meshes"][f"{kind} {how}"], ref["meshes"][f"{kind} {how}"])


@pytest.mark.parametrize("name", ["device3", "in3", "out3"])
def test_an_exported_pinned_jit_records_jaxs_shardings(runs, name):
    """Its given (or, for device=, every) input and output: a sharding over the empty
    AbstractMesh, as JAX records them; none in HLO form; one device."""
    mine, ref = runs
    assert mine["exported"][f"{name} shardings"] == ref["exported"][f"{name} shardings"]
