"""A jit equation's params as JAX 0.10.2's: the same keys (jaxpr, in_shardings, out_shardings,
in_layouts, out_layouts, donated_invars, ctx_mesh, name, keep_unused, inline,
compiler_options_kvs) and values, kept per operand and per result through every rule that
rewrites the equation (grad, vmap, jvp, linearize, transposition, checkpoint, DCE), and the
printed jaxpr, for the programs of tests/data/jit_eqn_params_cases.py (JAX's recorded by
reference/make_jit_eqn_params_reference.py in tests/data/jit_eqn_params_reference.json).

KNOWN and KNOWN_TEXT: the differences left, per program; the test fails when one goes away as
when a new one appears."""
import functools

import numpy as np
import pytest

import jxkernel as jax
from jit_eqn_params_cases import run
from test_eqn_params import _differences
import backend_tier  # tests/support: devices named as this run's backend names them
import locations  # tests/support: the repository's folders

_STAGED_CONSTRAINT = ("a jit given NamedShardings, inside another trace, is staged with its "
                      "shardings as sharding_constraint equations in its body, where JAX's jit "
                      "equation holds them as in_shardings/out_shardings")
# program -> (its param differences, why)
KNOWN: dict = {
    "named_in_shardings": ({("equations", None)}, _STAGED_CONSTRAINT),
}
_CHECKIFY = ("jxkernel's checkify folds the error's initial values (JAX's keeps `or False` "
             "and select_n of constants) and threads no error through a jit without checks")
_OPEN = "JAX's shard_map holds an open Jaxpr, jxkernel's a ClosedJaxpr"
KNOWN.update({
    "checkify": ({("equations", None)}, _CHECKIFY),
    "pmap": ({("shard_map", "jaxpr")}, _OPEN),
    "shard_map_body": ({("shard_map", "jaxpr")}, _OPEN),
})
_REMAT_NAMES = ("JAX's remat2 holds an open Jaxpr, jxkernel's a ClosedJaxpr "
                "(test_eqn_params.KNOWN_PARAMS), and so names the jit's variables inside "
                "otherwise")
# program -> why its printed jaxpr differs
KNOWN_TEXT: dict = {
    "named_in_shardings": _STAGED_CONSTRAINT,
    "checkify": _CHECKIFY,
    "checkpoint": _REMAT_NAMES,
    "checkpoint_inside": _REMAT_NAMES,
}


@functools.cache
def _reference():
    return locations.jax_answers("jit_eqn_params_reference.json")


@functools.cache
def _got():
    return run(jax)


def test_every_program_was_recorded():
    assert sorted(_got()) == sorted(_reference())
    assert set(KNOWN) | set(KNOWN_TEXT) <= set(_reference())


@pytest.mark.parametrize("name", sorted(_reference()))
def test_params_and_text_are_jaxs(name):
    # (the shardings' devices named as this run's backend names them)
    ref, got = backend_tier.devices_named_here(_reference()[name]), _got()[name]
    expected = KNOWN.get(name, (set(),))[0]
    if "error" in ref:                  # (compiler_options on a nested jit: JAX's error)
        assert got == ref
        return
    assert _differences(ref, got) == expected
    assert got.get("ctx_meshes") == ref.get("ctx_meshes")
    if name in KNOWN_TEXT:
        assert got.get("text") != ref.get("text")
    else:
        assert got.get("text") == ref.get("text")


def _jit_eqns(jaxpr):
    from jxkernel.core.ir import jaxpr_params
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "jit":
            yield eqn
        for sub in jaxpr_params(eqn.params):
            yield from _jit_eqns(getattr(sub, "jaxpr", sub))


def _check_in_step(jaxpr) -> int:
    """Every jit equation's per-operand and per-result params as long as its operands and
    results; the number of jit equations."""
    n = 0
    for eqn in _jit_eqns(jaxpr):
        p = eqn.params
        assert list(p) == ["jaxpr", "in_shardings", "out_shardings", "in_layouts", "out_layouts",
                           "donated_invars", "ctx_mesh", "name", "keep_unused", "inline",
                           "compiler_options_kvs"]                  # (JAX's order)
        for key in ("in_shardings", "in_layouts", "donated_invars"):
            assert len(p[key]) == len(eqn.invars), (key, eqn)
        for key in ("out_shardings", "out_layouts"):
            assert len(p[key]) == len(eqn.outvars), (key, eqn)
        n += 1
    return n


def test_dce_and_pruning_keep_the_per_operand_params_in_step():
    from jxkernel.core.dce import dce_jaxpr, dce_jaxpr_outputs
    x = np.float32([0.5, 1.5, 2.5])
    inner = jax.jit(lambda a, b, c: (jax.numpy.sin(a) * b, a + 1), donate_argnums=(1,))
    closed = jax.make_jaxpr(lambda a: inner(a, a, a)[0])(x)
    pruned, _ = dce_jaxpr_outputs(closed.jaxpr, [True])
    eqn, = _jit_eqns(dce_jaxpr(pruned, prune_calls=True))
    assert len(eqn.invars) == 2 and len(eqn.outvars) == 1        # c, and a + 1, dropped
    assert eqn.params["donated_invars"] == (False, True)
    assert _check_in_step(dce_jaxpr(pruned, prune_calls=True)) == 1


def test_rewritten_equations_keep_their_params_in_step_and_run():
    from jxkernel.sharding import SingleDeviceSharding
    from jit_eqn_params_cases import cases, under
    for name, (f, args, mesh) in cases(jax).items():
        if name != "compiler_options":
            with under(jax, mesh):
                assert _check_in_step(jax.make_jaxpr(f)(*args).jaxpr), name
    # a pinned jit's placements, through grad and vmap, still run it on its device
    d = jax.devices()[-1]
    pinned = jax.jit(lambda a: jax.numpy.sin(a) * 2, in_shardings=SingleDeviceSharding(d))
    x = np.float32([0.5, 1.5, 2.5])
    g = jax.grad(lambda a: pinned(a).sum())(x)
    assert g.devices() == {d}
    np.testing.assert_allclose(g, 2 * np.cos(x), rtol=1e-6)
    assert jax.vmap(pinned)(np.stack([x, x])).devices() == {d}


def test_the_notebook_view_hides_the_defaults_the_text_hides():
    from jxkernel.sharding import SingleDeviceSharding
    from jxkernel.views.jaxpr_json import jaxpr_to_json
    x = np.float32([0.5, 1.5])
    pinned = jax.jit(lambda a: a * 2, in_shardings=SingleDeviceSharding(jax.devices()[0]))
    closed = jax.make_jaxpr(lambda a: (jax.jit(lambda b: b + 1)(a), pinned(a)))(x)
    shown = [sorted(e["params"]) for e in jaxpr_to_json(closed)["eqns"]]
    assert shown == [["donated_invars", "inline", "jaxpr", "keep_unused", "name"],
                     ["donated_invars", "in_shardings", "inline", "jaxpr", "keep_unused",
                      "name"]]
