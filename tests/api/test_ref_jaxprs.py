"""make_jaxpr of programs using Refs, against JAX 0.10.2 (tests/data/ref_jaxprs.json, made by
reference/make_ref_jaxpr_reference.py from the cases in tests/data/ref_jaxpr_cases.py).

The printed jaxprs are compared exactly where jxkernel claims JAX's text (MATCHING); the
others are the known differences docs/jax_internals.md lists (jit, loops and cond thread a
Ref's value instead of taking the Ref; a strided slice). Every case's jaxpr is
also run, by eval_jaxpr, jaxpr_as_fun (eagerly and under jit) and an interpreter binding each
equation as JAX's "Writing custom interpreters" does, on the Refs themselves: its outputs and
the Refs' final values must be JAX's for one run of the function."""

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.extend.core import Literal, jaxpr_as_fun
from ref_jaxpr_cases import cases
import locations

RECORDED = locations.jax_answers("ref_jaxprs.json")["cases"]
CASES = cases(jax, jnp)

MATCHING = [
    "arg_read_write", "closed_over_iadd", "made_inside", "int_index_set", "negative_index",
    "slice_get", "slice_get_mid", "slice_get_all", "column_get", "rows_get",
    "ellipsis_int_get", "row_set", "slice_set", "int_iadd", "traced_index_get",
    "traced_index_set", "traced_and_static_index", "concrete_array_index",
    "addupdate_traced_index", "swap_used", "swap_used_int",
    "functional_forms", "addupdate_full", "addupdate_index", "freeze_inside", "freeze_arg",
    "empty_ref_inside", "new_ref_of_int_arg", "int_ref_scalar", "two_refs",
    "grad_reads_closed", "grad_then_read", "vmap_ref_arg", "vmap_closed_read",
]
DIFFERING = sorted(set(CASES) - set(MATCHING))

# Only add, mul, sub and sin run (elementwise, on small integers but sin): sin's float32
# result may differ by its last bit between XLA's and JAX's runs
ULPS = 1


def test_every_recorded_case_is_checked():
    assert sorted(CASES) == sorted(RECORDED) and len(MATCHING) == 34


@pytest.mark.parametrize("name", MATCHING)
def test_printed_jaxpr_is_jaxs(name):
    fun, args, _ = CASES[name]()
    assert str(jax.make_jaxpr(fun)(*args)) == RECORDED[name]["jaxpr"]


@pytest.mark.parametrize("name", DIFFERING)
def test_known_differences_still_differ(name):
    """Moves a case to MATCHING (and out of docs/jax_internals.md's list) once it matches."""
    fun, args, _ = CASES[name]()
    assert str(jax.make_jaxpr(fun)(*args)) != RECORDED[name]["jaxpr"]


def check_as_jax_ran(name, outs, refs):
    recorded = RECORDED[name]
    outs = jax.tree_util.tree_leaves(outs)
    assert len(outs) == len(recorded["outs"])
    for got, want in zip([*outs, *[r[...] for r in refs]], recorded["outs"] + recorded["refs"]):
        want_array = np.asarray(want["value"], want["dtype"])
        got = np.asarray(got)
        assert got.dtype == want_array.dtype and got.shape == want_array.shape
        if got.dtype.kind == "f":
            np.testing.assert_array_max_ulp(got, want_array, maxulp=ULPS)
        else:
            np.testing.assert_array_equal(got, want_array)


@pytest.mark.parametrize("name", sorted(CASES))
def test_running_the_function_is_jaxs(name):
    fun, args, refs = CASES[name]()
    check_as_jax_ran(name, fun(*args), refs)


def traced(name):
    """(the ClosedJaxpr, the arguments, the Refs), tracing having left the Refs as they were."""
    fun, args, refs = CASES[name]()
    before = [np.asarray(r[...]) for r in refs]
    closed = jax.make_jaxpr(fun)(*args)
    for r, b in zip(refs, before):
        np.testing.assert_array_equal(np.asarray(r[...]), b)
    return closed, args, refs


@pytest.mark.parametrize("name", sorted(CASES))
def test_eval_jaxpr_runs_it_on_the_refs(name):
    closed, args, refs = traced(name)
    check_as_jax_ran(name, jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *args), refs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jaxpr_as_fun_under_jit(name):
    closed, args, refs = traced(name)
    check_as_jax_ran(name, jax.jit(jaxpr_as_fun(closed))(*args), refs)


def interpret(jaxpr, consts, *args):
    """The interpreter of JAX's "Writing custom interpreters": bind each equation."""
    env = {}

    def read(v):
        return v.val if isinstance(v, Literal) else env[v]

    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in jaxpr.outvars]


@pytest.mark.parametrize("under_jit", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_custom_interpreter_runs_it(name, under_jit):
    closed, args, refs = traced(name)
    run = lambda *a: interpret(closed.jaxpr, closed.consts, *a)   # noqa: E731
    check_as_jax_ran(name, (jax.jit(run) if under_jit else run)(*args), refs)


def test_a_ref_argument_is_a_ref_typed_input():
    fun, args, _ = CASES["arg_read_write"]()
    closed = jax.make_jaxpr(fun)(*args)
    assert closed.in_avals[0] == jax.typeof(args[0]) and closed.consts == []
    closed = jax.make_jaxpr(CASES["closed_over_iadd"]()[0])(jnp.ones(3))
    assert type(closed.consts[0]) is jax.ref.Ref      # a Ref-typed constvar holds the Ref


def test_the_state_primitives_are_jaxs_names():
    closed = jax.make_jaxpr(CASES["functional_forms"]()[0])(*CASES["functional_forms"]()[1])
    assert [str(e.primitive) for e in closed.eqns] == ["get", "swap", "addupdate", "get"]
    made = jax.make_jaxpr(CASES["freeze_inside"]()[0])(jnp.ones(3))
    assert [str(e.primitive) for e in made.eqns][::4] == ["new_ref", "freeze"]
    assert made.eqns[0].params == {"kind": None, "memory_space": None}


def test_nested_jit_reads_before_and_writes_after():
    """jit threads a closed-over Ref's value: the outer jaxpr reads it into the jit and writes
    the jit's extra result back (JAX passes the Ref itself)."""
    closed, _, _ = traced("jit_closed")
    assert [str(e.primitive) for e in closed.eqns] == ["get", "jit", "swap"]
    assert closed.eqns[1].outvars[1] is closed.eqns[2].invars[1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_jaxpr_type_checks(name):
    """jax.enable_checks: each equation's recorded types are its primitive's rule's."""
    fun, args, _ = CASES[name]()
    with jax.enable_checks(True):
        jax.make_jaxpr(fun)(*args)


def test_the_primitives_are_at_jaxs_private_path():
    from jxkernel._jax._src.state import primitives
    from jxkernel.api.state_primitives import Indexer
    r = jax.new_ref(jnp.arange(3.0))
    assert primitives.get_p.bind(r, indexer=Indexer((1,), (3,))) == 1.0   # binding: r[1]
    assert str(primitives.swap_p) == "swap" and str(primitives.addupdate_p) == "addupdate"


def test_transformations_of_the_evaluated_jaxpr():
    """vmap maps a Ref argument of the jaxpr's function; grad refuses a differentiated value
    written into a Ref it does not differentiate, with JAX's error, as the function would."""
    fun, args, _ = CASES["arg_read_write"]()
    closed = jax.make_jaxpr(fun)(*args)
    r = jax.new_ref(jnp.zeros((2, 3)))
    outs = jax.vmap(jaxpr_as_fun(closed))(r, jnp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    np.testing.assert_array_equal(r[...], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_max_ulp(outs[0], np.sin(np.float32([[1, 2, 3], [4, 5, 6]])), 1)
    closed_over = jax.new_ref(jnp.zeros(3))
    with pytest.raises(Exception, match="differentiated value on a non-differentiated"):
        jax.grad(lambda y: jaxpr_as_fun(closed)(closed_over, y)[0].sum())(jnp.ones(3))


def test_a_returned_ref_is_jaxs_error():
    r = jax.new_ref(jnp.ones(2))
    # JAX 0.10.2 names the argument by the function's parameter: "argument r."
    with pytest.raises(ValueError, match="mutable array references cannot be returned.*\n\n"
                       "The returned mutable array was passed in as the argument r\\.$"):
        jax.make_jaxpr(lambda r: r)(r)


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.api.state_primitives", {"make_jaxpr": jax.make_jaxpr})
    check_docstring_examples("jxkernel._jax._src.state.primitives")


def test_a_ref_jaxpr_after_explicit_sharding_was_used(monkeypatch):
    # once a sharding type was seen in the process, every rule's sharding is checked: a Ref's
    # type answers `.sharding` (its array's), as JAX's AbstractRef
    from jxkernel.core import avals
    monkeypatch.setattr(avals, "sharding_types_seen", True)
    fun, args, _ = CASES["arg_read_write"]()
    with jax.enable_checks(True):
        assert "<-" in str(jax.make_jaxpr(fun)(*args))
