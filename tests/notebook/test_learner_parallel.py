"""A learner's trial of JAX's parallel tutorials (parallel.md, shard_map.md), checked against
JAX 0.10.2 for the same programs (tests/data/learner_parallel_cases.py, recorded by
reference/make_learner_parallel_reference.py): a collective outside shard_map or over an axis
the mesh has not, or arrays on another mesh than set_mesh's, raise JAX's error, the card's
advice is the rewrite recorded there, and that rewrite computes under jxkernel what it
computes under JAX. A recompile caused by
another split of the same shape is logged as that split, not as a weak type. One subprocess
of 8 CPU devices runs them all."""
import pytest
from fresh_process import run_against_reference, run_json

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]

_RUN = r"""
import json
import jxkernel as jax
import learner_parallel_cases as cases
from jxkernel import compile_log
from jxkernel.views.error_cards import card_for

out = {"facts": cases.run(jax)}
jnp, P = jax.numpy, jax.P
x = jax.device_put(jnp.arange(8.), P('i'))
programs = {
    "psum_outside": lambda: cases.psum_outside(jax, jnp),
    "pmean_outside": lambda: cases.pmean_outside(jax, jnp, x),
    "axis_index_outside": lambda: cases.axis_index_outside(jax, jnp),
    "psum_outside_other_axis": lambda: cases.psum_outside_other_axis(jax, jnp),
    "psum_other_axis": lambda: cases.psum_other_axis(jax, jnp, x, True),
    "two_meshes": lambda: cases.two_meshes(jax, jnp),
    "late_device_count": lambda: cases.late_device_count(jax),
}
cards = {}
for case, program in programs.items():
    try:
        program()
    except (NameError, ValueError, RuntimeError) as e:
        card = card_for(e)
        cards[case] = None if card is None else \
            {"kind": card.kind, "title": card.title, "rewrite": card.rewrite,
             "where": card.where["code"] if card.where else None, "why": card.why}
out["cards"] = cards

double = jax.jit(lambda v: v * 2)
double(jax.device_put(jnp.arange(32.).reshape(8, 4), P('i', 'j')))
start = compile_log.last_seq() + 1
double(jax.device_put(jnp.arange(32.).reshape(8, 4), P('j', 'i')))
out["split_reason"] = [e.reason for e in compile_log.events_since(start)]
out["split_fix"] = [c.fix for e in compile_log.events_since(start) for c in e.changes]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(_RUN, "learner_parallel_reference.json", devices=8)


def test_collectives_errors_and_the_fixes_advised_are_jaxs(runs):
    mine, jax = runs
    assert set(mine["facts"]) == set(jax) - {"late_device_count_fixed"}
    for case, fact in mine["facts"].items():
        assert fact == jax[case], case


def test_the_cards_advise_what_was_run_under_jax(runs):
    import learner_parallel_cases as cases
    mine, _ = runs
    assert set(mine["cards"]) == set(cases.REWRITES)
    for case, card in mine["cards"].items():
        kind = {"two_meshes": "mesh-mismatch",
                "late_device_count": "late-device-count"}.get(case, "unbound-axis")
        assert card is not None and card["kind"] == kind, case
        assert card["rewrite"] == cases.REWRITES[case], case
        assert card["where"] is not None, case
    # outside shard_map: said so; inside one, over 'k': the mesh's axes named, not
    # JAX's advice to call psum under shard_map (it is under one)
    assert mine["cards"]["psum_outside"]["title"] == "psum over axis 'i' outside shard_map"
    # outside, over an axis the mesh has not: renaming it would fail the same way
    assert mine["cards"]["psum_outside_other_axis"]["title"] == \
        "psum over axis 'X' outside shard_map"
    other = mine["cards"]["psum_other_axis"]
    assert other["title"] == "psum names axis 'k', which the mesh has not"
    assert "('i', 'j')" in other["why"]
    # the arrays on another mesh named, and both meshes' axes (JAX's message: their reprs)
    meshes = mine["cards"]["two_meshes"]
    assert meshes["title"] == "a, b on another mesh than jax.set_mesh's"
    assert "(axes 'i': 4, 'j': 2)" in meshes["why"] and "(axes 'd': 4)" in meshes["why"]


def test_a_recompile_for_another_split_says_the_split(runs):
    mine, _ = runs
    assert mine["split_reason"] == ["v: f32[8@i,4@j] -> f32[8@j,4@i]"]
    # the tutorials set the mesh by a call, jax.set_mesh(mesh): no `with` block to be inside
    (fix,) = mine["split_fix"]
    assert "under the mesh jax.set_mesh set, called or as a `with` block" in fix, fix


def test_the_late_device_count_card_says_what_runs_and_its_rewrite_counts_as_jaxs(runs):
    """The message is JAX's alone (it named JXKERNEL_CPU_DEVICES and said to restart); the
    card says the count that runs, and its rewrite, first in a fresh process, gives JAX's."""
    import learner_parallel_cases as cases
    mine, jax = runs
    assert "JXKERNEL" not in mine["facts"]["late_device_count"]["first_line"]
    assert "with 8 devices" in mine["cards"]["late_device_count"]["why"]
    code = cases.REWRITES["late_device_count"].replace("import jax", "import jxkernel as jax")
    assert run_json(code + cases.COUNT_AFTER, {"JXKERNEL_CPU_DEVICES": "", "XLA_FLAGS": ""}) \
        == jax["late_device_count_fixed"] == 16


_FIRST_CELL = r"""
import json, os, sys
import jxkernel as jax
from jxkernel.xla import client
from jxkernel.notebook.comm import Channel
hello = Channel(None).snapshot()      # the lab's comm, answered before the first cell runs
started = client.started_platforms()
if sys.argv[-1] == "config":
    jax.config.update('jax_num_cpu_devices', 8)     # parallel.md's first cell
else:
    os.environ["XLA_FLAGS"] = '--xla_force_host_platform_device_count=8'   # shard_map.md's
count = jax.device_count()
after = Channel(None).snapshot()
print(json.dumps({"hello": [hello[k] for k in ("backend", "device", "device_count", "backends")],
                  "started": started, "count": count,
                  "after": [after["device"], after["device_count"]]}))
"""


@pytest.mark.parametrize("how", ["config", "flags"])
def test_the_notebooks_status_starts_no_backend_before_the_first_cell(how):
    """The status bar's state, asked when the comm opens (before the first cell), tells the
    CPU that will start without starting it: the tutorials' first cell still sets the device
    count. Started there, it kept one device (XLA_FLAGS) or refused the update (RuntimeError),
    depending on which came first."""
    from fresh_process import run_python
    import json
    result = run_python(["-c", _FIRST_CELL, how], {"JXKERNEL_CPU_DEVICES": "", "XLA_FLAGS": ""})
    assert result.returncode == 0, result.stdout + result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    backend, device, count, backends = out["hello"]
    assert (backend, device, count) == ("cpu", "cpu:0", 1) and out["started"] == []
    # the menu lists the CPU's device as it will start, and the others as unavailable
    assert backends[0] == {"name": "cpu", "available": True, "devices": ["cpu:0"]}
    assert [(b["name"], b["available"]) for b in backends[1:]] == [("gpu", False), ("tpu", False)]
    assert out["count"] == 8 and out["after"] == ["cpu:0", 8]
