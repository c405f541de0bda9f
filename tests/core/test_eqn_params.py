"""Each equation's params as JAX 0.10.2's: what `eqn.params` holds (notebook 10 has learners
print it; interpreters read `eqn.params[...]` and re-bind with `**eqn.params`) and the printed
jaxpr, for a battery of lax and jnp calls and transformations (tests/data/eqn_params_cases.py;
JAX's recorded by reference/make_eqn_params_reference.py in tests/data/eqn_params_reference.json).

Per program, the differences (the (primitive, param) pairs whose key or value repr differs, or
"equations" when the equation lists differ) must be exactly KNOWN's once KNOWN_PARAMS' are set
apart (those, over all programs, exactly KNOWN_PARAMS), and its text must equal JAX's unless
listed in KNOWN_TEXT: the test fails when a listed difference goes away (take it off the list)
as when a new one appears."""
import functools

import numpy as np
import pytest

import jxkernel as jax
from jxkernel import lax
from eqn_params_cases import run
import locations  # tests/support: the repository's folders

# (primitive, param) -> why jxkernel's equations still differ from JAX 0.10.2's there, in every
# program (test_known_param_differences_are_exactly_these checks each still differs somewhere)
KNOWN_PARAMS: dict = {
    **{("custom_jvp_call", k): "JAX's holds linear_util thunks (jvp_jaxpr_fun); jxkernel's "
       "the user's rule (jvp) and the function's name" for k in ("jvp", "jvp_jaxpr_fun", "name")},
    **{("custom_vjp_call", k): "JAX's holds linear_util thunks (fwd_jaxpr_thunk, out_trees, a "
       "wrapped bwd); jxkernel's the user's rules (fwd, bwd) and the function's name"
       for k in ("bwd", "fwd", "fwd_jaxpr_thunk", "name", "out_trees")},
    ("random_seed", "impl"): "PRNGImpl's repr shows jxkernel's seed function jitted "
    "(`<PjitFunction of <function _seed_impl>>`; JAX's is the plain `threefry_seed`)",
    ("random_wrap", "impl"): "as random_seed's",
    ("remat2", "jaxpr"): "JAX's remat2 holds an open Jaxpr, jxkernel's a ClosedJaxpr",
}

_TOLERANCE = ("a Tolerance's repr names its class's module, jxkernel.lax._rules where JAX's "
              "is jax._src.lax.lax (deliberate: it is jxkernel's class)")
_STAGED = "jxkernel's implementation stages other equations than JAX's"
# program -> (its other differences: (primitive, param), or ("equations", None) when the
# equation lists differ; why)
KNOWN: dict = {
    "lax.sin_accuracy": ({("sin", "accuracy")}, _TOLERANCE),
    "grad_sin_accuracy": ({("sin", "accuracy")}, _TOLERANCE),
    "lax.tanh_accuracy_full": ({("tanh", "accuracy")}, _TOLERANCE),
    "jnp.frexp": ({("equations", None)}, _STAGED + " (where JAX broadcasts, a jit)"),
    "jnp.ldexp": ({("equations", None)}, _STAGED + " (as jnp.frexp)"),
    "jnp.searchsorted": ({("equations", None)}, _STAGED + " (its scan's body)"),
    "lax.random_gamma_grad": ({("equations", None)}, _STAGED + " (broadcasts ordered otherwise)"),
    "grad_pad_concat": ({("jit", k) for k in ("donated_invars", "in_shardings", "in_layouts",
                                              "out_shardings", "out_layouts")},
                        "linearize's jit of _pad: JAX's keeps a zero residual (one more "
                        "operand), jxkernel's prunes it"),
    "vmap_gather_same_index": ({("equations", None)},
                               _STAGED + " (a NumPy index's bounds folded at trace time)"),
}
# program -> why its printed jaxpr differs (its params agree, or the difference is above)
KNOWN_TEXT: dict = {
    **{name: why for name, (_, why) in KNOWN.items()},
    "linearize_scan": "linearize of a scan: jxkernel's tangent scan orders its residuals "
    "otherwise and keeps a forwarded output",
}


def _differences(ref: dict, got: dict, known_params: set | None = None) -> set:
    """The (primitive, param) pairs that differ, less KNOWN_PARAMS' (gathered in
    `known_params`)."""
    if "error" in ref or "error" in got:
        return {("error", got.get("error"))}
    if [p for p, _ in ref["eqns"]] != [p for p, _ in got["eqns"]]:
        return {("equations", None)}
    found = {(p, k) for (p, rp), (_, gp) in zip(ref["eqns"], got["eqns"])
             for k in set(rp) | set(gp) if rp.get(k) != gp.get(k)}
    if known_params is not None:
        known_params |= found & set(KNOWN_PARAMS)
    return found - set(KNOWN_PARAMS)


@functools.cache
def _reference():
    return locations.jax_answers("eqn_params_reference.json")


@functools.cache
def _got():
    return run(jax)


def test_every_program_was_recorded():
    assert sorted(_got()) == sorted(_reference())
    assert set(KNOWN) | set(KNOWN_TEXT) <= set(_reference())


def test_known_param_differences_are_exactly_these():
    found = set()
    for name in _reference():
        _differences(_reference()[name], _got()[name], found)
    assert found == set(KNOWN_PARAMS)


@pytest.mark.parametrize("name", sorted(_reference()))
def test_params_are_jaxs(name):
    expected = KNOWN.get(name, (set(),))[0]
    assert _differences(_reference()[name], _got()[name]) == expected


@pytest.mark.parametrize("name", sorted(_reference()))
def test_text_is_jaxs(name):
    ref, got = _reference()[name], _got()[name]
    if name in KNOWN_TEXT:
        assert got["text"] != ref["text"], f"{name} now prints as JAX's: off KNOWN_TEXT"
    else:
        assert got["text"] == ref["text"]


# ------------------------------------------------------------------ the fixes, one by one
def test_accuracy_and_out_dtype_are_always_params_and_printed_only_when_given():
    x = np.float32([0.5, 1.5])
    closed = jax.make_jaxpr(lambda a: jax.numpy.sin(a) * lax.exp(a))(x)
    assert [e.params for e in closed.eqns] == [{"accuracy": None}, {"accuracy": None},
                                               {"out_dtype": None}]
    assert "sin a" in str(closed) and "accuracy" not in str(closed)
    eqn = closed.eqns[0]
    # an interpreter re-binding with **eqn.params, under every transformation
    rebound = lambda a: eqn.primitive.bind(a, **eqn.params) * closed.eqns[2].primitive.bind(
        a, a, **closed.eqns[2].params)
    again = jax.make_jaxpr(jax.vmap(jax.grad(lambda a: rebound(a).sum())))(x[None])
    assert "accuracy" not in str(again) and "out_dtype" not in str(again)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(rebound)))(x),
                               np.cos(x) * x * x + np.sin(x) * 2 * x, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(rebound)(x), np.sin(x) * x * x, rtol=1e-6)


def test_an_address_in_a_param_is_masked_as_jax_masks_it():
    text = str(jax.make_jaxpr(lambda a: lax.sin(a, accuracy=lax.Tolerance(atol=1e-3)))(1.0))
    assert "Tolerance object at 0xXXXXXXXXXXXX>" in text
    assert repr(lax.AccuracyMode.HIGHEST) == "<AccuracyMode.HIGHEST: 1>"


def test_scan_has_jaxs_params_and_still_differentiates():
    def f(x):
        return lax.scan(lambda c, a: (jax.numpy.sin(c * a), c), 1.0, x)[0]
    x = np.float32([0.5, 1.5, 2.0])
    for closed in (jax.make_jaxpr(f)(x), jax.make_jaxpr(jax.grad(f))(x),
                   jax.make_jaxpr(jax.vmap(f))(np.stack([x, x]))):
        for e in closed.eqns:
            if e.primitive.name == "scan":
                assert sorted(e.params) == ["jaxpr", "length", "num_carry", "num_consts",
                                            "reverse", "unroll"]
    np.testing.assert_allclose(jax.jit(jax.grad(f))(x), jax.grad(f)(x), rtol=1e-6)


def test_the_notebook_view_leaves_out_the_none_defaults_as_the_text():
    from jxkernel.views.jaxpr_json import jaxpr_to_json
    x = np.float32([0.5, 1.5])
    closed = jax.make_jaxpr(lambda a: (jax.numpy.sin(a) * a, lax.mul(a, a, out_dtype=np.float32),
                                       lax.exp(a, accuracy=lax.AccuracyMode.HIGHEST)))(x)
    assert [(e["primitive"], e["params"]) for e in jaxpr_to_json(closed)["eqns"]] == [
        ("sin", {}), ("mul", {}), ("mul", {"out_dtype": "<class 'numpy.float32'>"}),
        ("exp", {"accuracy": "AccuracyMode.HIGHEST"})]
