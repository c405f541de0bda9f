"""jax.experimental.hijax as JAX 0.10.2 runs it: HiPrimitives run their `to_lojax` eagerly,
stage as equations typed by their `abstract_eval` (mutable types with quasi-dynamic data,
`cur_qdd`), are lowered to their low equations when a jit compiles, and tracers of high types
forward methods, properties and operators to their type. JAX's answers are recorded in
tests/data/hijax_reference.json (reference/make_hijax_reference.py)."""
import sys

import pytest
from doc_examples import check_docstring_examples
from hijax_cases import run_cases   # tests/data, on pytest's pythonpath
import locations  # tests/support: the repository's folders

import jxkernel
from jxkernel._jax._src import hijax
from jxkernel._jax.experimental import cur_qdd
from jxkernel._jax.experimental import hijax as public

REFERENCE = locations.recorded("hijax_reference.json")

RESULTS = {}


def results():
    if not RESULTS:
        RESULTS.update(run_cases(jxkernel, hijax, cur_qdd, public))
    return RESULTS


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_as_jax(name):
    assert results().get(name) == REFERENCE[name]


def test_every_case_recorded():
    assert sorted(results()) == sorted(REFERENCE)


def test_box_state_follows_updates_inside_a_trace():
    # the quasi-dynamic data is what the box holds at each point of the traced program
    seen = []

    def f(x):
        b = hijax.Box(x)
        seen.append(cur_qdd(b).treedef)
        b.set([x, x])
        seen.append(cur_qdd(b).treedef)
        return b.get()[0]

    jxkernel.make_jaxpr(f)(1.0)
    assert [str(t) for t in seen] == ["PyTreeDef(*)", "PyTreeDef([*, *])"]


def test_mutable_high_value_cannot_leave_a_jit():
    with pytest.raises(NotImplementedError, match="mutable high value"):
        jxkernel.jit(lambda x: hijax.Box(x))(1.0)


def test_staged_high_equations_survive_dead_code_elimination():
    # box_set has no results: it must stay in the jaxpr (JAX keeps it for its effect)
    from jxkernel.core.dce import dce_jaxpr
    closed = jxkernel.make_jaxpr(lambda x: (hijax.Box(x), x)[1])(1.0)
    assert [str(e.primitive) for e in dce_jaxpr(closed.jaxpr).eqns] == ["new_box", "box_set"]


def test_a_box_tracer_is_no_boolean():
    with pytest.raises(TypeError, match="is not convertible to boolean"):
        jxkernel.make_jaxpr(lambda x: hijax.Box(x) and x)(1.0)


def test_box_made_and_used_inside_a_scan_body():
    # the body's high equations are lowered when it is traced: eagerly and under jit alike
    def body(c, x):
        b = hijax.Box(c)
        b.set(b.get() + x)
        return b.get(), b.get() * 2

    xs = jxkernel.numpy.arange(3.0)
    for run in (lambda: jxkernel.lax.scan(body, 0.0, xs),
                jxkernel.jit(lambda: jxkernel.lax.scan(body, 0.0, xs))):
        carry, ys = run()
        assert float(carry) == 3.0 and ys.tolist() == [0.0, 2.0, 6.0]


def test_a_box_captured_by_loops_once_sharding_types_are_in_use(monkeypatch):
    # once any mesh with typed shardings has been seen (a flag for the rest of the process),
    # every equation's types pass through the sharding rules; a loop's captured box is an
    # operand of type BoxTy, which carries no sharding (the recorded cases failed after any
    # test that had made a mesh)
    from jxkernel.core import avals
    monkeypatch.setattr(avals, "sharding_types_seen", True)
    box = hijax.Box(1.0)

    def body(c, x):
        box.set(box.get() + x)
        return c, None

    text = str(jxkernel.make_jaxpr(lambda xs: jxkernel.lax.scan(body, 0.0, xs))(
        jxkernel.numpy.arange(3.0)))
    assert "box_set" in text
    jxkernel.lax.scan(body, 0.0, jxkernel.numpy.arange(3.0))
    assert float(box.get()) == 4.0


def test_box_captured_by_a_scan_body_is_threaded_through_the_loop():
    # JAX threads a captured box's state through the loop (the recorded cases compare the
    # values); here: the box holds no tracer after the trace, and a second run reads the
    # state the first one left
    box = hijax.Box(1.0)

    def body(c, x):
        box.set(box.get() + x)
        return c, None

    jxkernel.lax.scan(body, 0.0, jxkernel.numpy.arange(3.0))
    assert float(box.get()) == 4.0
    jxkernel.lax.scan(body, 0.0, jxkernel.numpy.arange(3.0))
    assert float(box.get()) == 7.0


def test_box_captured_by_a_scan_body_inside_a_jit_is_threaded_through_both():
    # the scan threads it, and the jit around it captured it too: as JAX 0.10.2, the jit
    # threads it as well (JAX's answers, checked by hand: 4.0, then 7.0 on a second call)
    box = hijax.Box(1.0)

    def body(c, x):
        box.set(box.get() + x)
        return c, None

    f = jxkernel.jit(lambda xs: jxkernel.lax.scan(body, 0.0, xs))
    assert float(f(jxkernel.numpy.arange(3.0))[0]) == 0.0
    assert float(box.get()) == 4.0                  # exact: small integers in float32
    f(jxkernel.numpy.arange(3.0))
    assert float(box.get()) == 7.0


def test_jit_threads_a_box_it_closes_over():
    # as JAX's jit: the box's state goes in and what the program left comes back; a new shape
    # in the box is a new program (answers checked against JAX 0.10.2 by hand: 4, 3, 6, 6;
    # 6, [0, 2, 4]; 8, [2, 2, 2, 2])
    jnp = jxkernel.numpy
    box = hijax.Box(jnp.float32(1.0))

    @jxkernel.jit
    def add(x):
        box.set(box.get() + x)
        return x * 2

    assert (float(add(2.0)), float(box.get())) == (4.0, 3.0)
    assert (float(add(3.0)), float(box.get())) == (6.0, 6.0)
    held = hijax.Box(jnp.arange(3.0))

    @jxkernel.jit
    def scale(x):
        held.set(held.get() * x)
        return held.get().sum()

    assert float(scale(2.0)) == 6.0 and held.get().tolist() == [0.0, 2.0, 4.0]
    held.set(jnp.ones(4))
    assert float(scale(2.0)) == 8.0 and held.get().tolist() == [2.0] * 4


def _ran_the_bind(call) -> bool:
    """Whether `call()` bound the low program's jit equation (its eager impl ran)."""
    seen = []
    sys.setprofile(lambda frame, event, arg: seen.append(frame.f_code.co_name)
                   if event == "call" else None)
    try:
        call()
    finally:
        sys.setprofile(None)
    return "_jit_impl" in seen


def test_a_jit_closing_over_a_box_runs_its_last_program_again_with_the_new_value():
    # jit.high's fast path: the next call alike runs the low program's executable itself (no
    # jit equation bound), reading the box's value of the moment; a box set to another shape,
    # a config change, or NaN checks take the bind again. Values as JAX's
    # (hijax_cases' jit_captured_box_set_between_calls)
    from jxkernel.transforms.jit import high as jit_high
    jnp = jxkernel.numpy
    box, x = hijax.Box(jnp.ones(3)), jnp.arange(3.0)
    reads = jxkernel.jit(lambda x: x * 2 + box.get())
    assert reads(x).tolist() == [1.0, 3.0, 5.0] and jit_high._last_call[reads].exe is not None
    box.set(jnp.ones(3) * 10)              # (not jnp.full(3, 10.0): weakly typed, a new type)
    assert not _ran_the_bind(lambda: reads(x)) and reads(x).tolist() == [10.0, 12.0, 14.0]
    box.set(jnp.ones((2, 3)))                          # another shape: another program
    assert _ran_the_bind(lambda: reads(x)) and reads(x).tolist() == [[1.0, 3.0, 5.0]] * 2
    assert not _ran_the_bind(lambda: reads(x))
    with jxkernel.config.override("jax_debug_nans", True):    # checked: the bind's path
        assert _ran_the_bind(lambda: reads(x))
    box.set(2.5)                               # a Python float in the box: the bind puts it
    assert _ran_the_bind(lambda: reads(x)) and reads(x).tolist() == [2.5, 4.5, 6.5]


def test_a_box_closed_over_by_a_jit_inside_a_jit_is_threaded_through_both():
    # as JAX 0.10.2 (the recorded cases compare the values): the inner jit's equation takes
    # the box, the outer jit threads it; after, the box holds an Array (no tracer), and the
    # inner jit called alone (first staged, then at the top level) goes on from that state
    box = hijax.Box(1.0)

    @jxkernel.jit
    def inner(x):
        box.set(box.get() + x)
        return x

    outer = jxkernel.jit(lambda x: inner(x) + 1)
    assert float(outer(1.0)) == 2.0 and float(box.get()) == 2.0    # exact: small integers
    assert not isinstance(box.get(), jxkernel.core.Tracer)
    assert float(inner(3.0)) == 3.0 and float(box.get()) == 5.0
    assert float(outer(1.0)) == 2.0 and float(box.get()) == 6.0


def test_while_loop_threads_a_box_the_body_captured_inside_a_scan():
    # the two threadings nested: the scan carries the box's state and the loop inside again
    box = hijax.Box(1.0)

    def step(c, x):
        def body(i):
            box.set(box.get() * 2.0)
            return i + 1
        return c + jxkernel.lax.while_loop(lambda i: i < 2, body, 0), None

    total, _ = jxkernel.lax.scan(step, 0, None, length=3)
    assert int(total) == 6 and float(box.get()) == 64.0


def test_jit_writes_back_what_a_box_argument_holds():
    box = hijax.Box(1.0)

    def add_to(b, x):
        b.set(b.get() + x)
        return x * 2

    f = jxkernel.jit(add_to)
    assert float(f(box, 2.0)) == 4.0 and float(box.get()) == 3.0
    assert float(f(box, 2.0)) == 4.0 and float(box.get()) == 5.0   # the same program, cached

    def grow(b, x):                 # a new structure in the box: its type after the call
        b.set((b.get(), x))
        return x

    jxkernel.jit(grow)(box, 7.0)
    assert [float(v) for v in box.get()] == [5.0, 7.0]
    assert str(cur_qdd(box).treedef) == "PyTreeDef((*, *))"


def test_checked_jaxprs_with_high_equations():
    # jax_enable_checks type-checks every trace: a high equation is checked for its variables
    def f(x):
        b = hijax.Box(x)
        b.set(b.get() * 2)
        return b.get() + 1

    with jxkernel.config.override("jax_enable_checks", True):
        assert float(jxkernel.jit(f)(3.0)) == 7.0
        jxkernel.make_jaxpr(f)(1.0)


def test_a_type_built_from_typeofs_unsplit_sharding_is_unsplit():
    # Flax NNX keeps jax.typeof's types of its Variables' leaves and hands them back as the
    # low types of its hijax Variables: the sharding typeof shows (no axes, no mesh) must not
    # read as a type split over a mesh when a jit lowers the program
    x = jxkernel.numpy.ones((2, 3))
    shown = jxkernel.typeof(x).sharding
    assert repr(shown) == "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None, None))"
    built = jxkernel.core.ShapedArray((2, 3), x.dtype, sharding=shown)
    assert built.split is None and built == jxkernel.typeof(x)


def test_jit_high_examples_run_as_written():
    # the module docstring's example imports what it uses (it named jxkernel unimported)
    check_docstring_examples("jxkernel.transforms.jit.high")
