"""views/outside_values.py: what a traced function read from outside, and when it changed
since its trace (the note's claims are checked against JAX's recorded answers in
test_recompile_corpus.py); and the docstring examples of the explainer's comparison."""
import numpy as np

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.avals import ShapedArray
from jxkernel.views import outside_values
from jxkernel.views.outside_values import helpers_of, reads_from_outside, stale_reads

from doc_examples import check_docstring_examples      # tests/support
from note_words import here                            # tests/support
import locations                                     # tests/support
import stale_in_program_cases as stale_cases           # tests/data
import stale_more_cases as more_cases                 # tests/data

k_global = 2.0
w_global = np.ones(3, np.float32)
big_global = np.ones(8, np.float32)


def test_the_docstring_examples_run():
    check_docstring_examples("jxkernel.views.outside_values", skip_module_docstring=True)
    for module in ("change", "fixes", "config_changes", "compare"):   # those with examples
        check_docstring_examples(f"jxkernel.views.signature_changes.{module}",
                                 {"ShapedArray": ShapedArray})


def test_only_data_is_followed_not_modules_functions_or_classes():
    def f(x):
        return jnp.sin(x) * k_global + np.pi + len(w_global)
    assert reads_from_outside(f) == ("k_global", "w_global")


class _Layer:
    def __init__(self, k):
        self.k_global = k


def test_an_attribute_named_as_a_global_is_no_read_of_the_global():
    """`layer.k_global` and `x.w_global` read attributes, not the globals of those names
    (co_names holds both; the bytecode's global loads tell them apart): rebinding the global
    is no change of what the trace read. A jitted method reading `self.w` was told "predict
    read w ... w is [nan, nan] now" after a cell rebound a global w."""
    global k_global
    layer = _Layer(3.0)

    def f(x):
        return x * layer.k_global + np.sum(x.w_global)
    assert reads_from_outside(f) == ("layer",)        # (the closure variable alone)
    stale_reads()
    g = jxkernel.jit(lambda x: x * layer.k_global)
    g(1.0)
    k_global = 7.0
    try:
        assert [s for s in stale_reads() if s.name == "k_global"] == []
    finally:
        k_global = 2.0


def _predict(x):
    return x * k_global + _bias(x)


def _bias(x):
    return np.sum(w_global) if x is not None else _predict(0.0)


def test_helpers_from_the_same_module_are_followed_library_functions_are_not():
    """_predict calls _bias, which calls _predict back (followed once each) and NumPy's sum
    (another module's: not the user's helper); a def or lambda written inside is read as
    the function's own code."""
    assert helpers_of(lambda x: _predict(x) + jnp.sin(x)) == (_predict, _bias)
    assert reads_from_outside(_bias) == ("w_global",)

    def outer(x):
        return jxkernel.lax.fori_loop(0, 2, lambda i, c: c * k_global, x)
    assert reads_from_outside(outer) == ("k_global",)


def test_a_global_a_helper_read_is_told_with_the_helper():
    global k_global
    stale_reads()
    f = jxkernel.jit(lambda x: _predict(x) - 1)
    f(1.0)
    k_global = 7.0
    try:
        found = [s for s in stale_reads() if s.name == "k_global"]
    finally:
        k_global = 2.0
    assert [(s.function, s.helper, s.then, s.now) for s in found] == \
        [("<lambda>", "_predict", "2.0", "7.0")]


def test_a_value_set_back_to_what_was_traced_is_no_change():
    global k_global
    stale_reads()
    f = jxkernel.jit(lambda x: x * k_global)
    f(1.0)
    k_global = 2.0                         # a new float object, the same value
    assert [s for s in stale_reads() if s.name == "k_global"] == []
    k_global = 5.0
    (found,) = [s for s in stale_reads() if s.name == "k_global"]
    assert (found.then, found.now) == ("2.0", "5.0")
    k_global = 2.0


def test_an_array_written_in_place_is_a_change_and_a_large_one_is_kept_by_identity():
    stale_reads()
    f = jxkernel.jit(lambda x: x + w_global)
    f(1.0)
    w_global[0] = 5.0
    (found,) = [s for s in stale_reads() if s.name == "w_global"]
    assert found.then.startswith("[1.0, 1.0, 1.0]") and found.now.startswith("[5.0, 1.0, 1.0]")
    w_global[0] = 1.0
    assert outside_values._kept(np.zeros(outside_values._SMALL + 1)) is None


def test_two_traces_reading_two_arrays_written_alike_are_two_reads():
    """Arrays of more than six elements are written by their type alone ("an array
    float32[8]"): the earlier trace's program keeps its own array (its input shape still calls
    it) and is told beside the latest, where the same text had made them one read."""
    global big_global
    stale_reads()
    f = jxkernel.jit(lambda x: x + big_global)
    f(jnp.ones(8))                                   # traced with ones
    big_global = np.full(8, 2.0, np.float32)
    f(jnp.ones((2, 8)))                              # another shape: traced with twos
    big_global = np.full(8, 3.0, np.float32)
    try:
        found = [s for s in stale_reads() if s.name == "big_global"]
        assert sorted((s.earlier, s.then) for s in found) == \
            [(False, "an array float32[8]"), (True, "an array float32[8]")]
        # each program computes with the array it was traced with
        assert float(f(jnp.ones(8))[0]) == 2.0 and float(f(jnp.ones((2, 8)))[0, 0]) == 3.0
    finally:
        big_global = np.ones(8, np.float32)


def test_an_array_of_an_extended_dtype_is_not_followed():
    """A typed key (an extended dtype, as Flax's fp8_meta32 is) closed over is no data NumPy
    can read: not followed, and the trace goes on (Flax's Fp8Test found the explainer
    raising on one)."""
    key = jxkernel.random.key(0)
    assert not outside_values._followed(key)
    f = jxkernel.jit(lambda x: x + jxkernel.random.uniform(key, ()))
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("error")
        f(1.0)


def test_a_function_followed_is_let_go_when_dropped():
    """What was read is held weakly, the function and its helpers: a jitted function dropped
    is freed with what it closed over, as JAX lets it go (jax_compat's jit_reference_dropping
    found a key holding its own function)."""
    import gc
    import weakref

    def make():
        w = np.ones(3, np.float32)

        def step(x):
            return _predict(x) + w
        return step
    step = make()
    jxkernel.jit(step)(1.0)
    gone = weakref.ref(step)
    del step
    gc.collect()
    assert gone() is None


def test_a_tracer_leaked_into_a_global_is_told_as_a_tracer_not_an_array():
    """Common_Gotchas_in_JAX.md: impure_uses_globals read g = 10.0; then a jitted function
    sets `global g; g = x`, so g holds a leaked tracer (JAX 0.10.2 prints "Saved global:
    JitTracer(~float32[])", as jxkernel does). The note said "g is an array float32[] now"."""
    global k_global
    stale_reads()
    f = jxkernel.jit(lambda x: x + k_global)
    f(1.0)

    def keep(x):
        global k_global
        k_global = x
        return x
    jxkernel.jit(keep)(4.0)
    try:
        found = [s for s in stale_reads() if s.name == "k_global"]
    finally:
        k_global = 2.0
    assert [(s.then, s.now) for s in found] == \
        [("2.0", "JitTracer(~float32[]) (a tracer leaked out of a trace)")]


def test_an_array_read_only_by_the_traces_python_is_not_said_kept():
    """"keeps" is said of a jax Array that is a constant of the program (by identity) or whose
    values its Python read (float(a)); one read only for a print of its type (JAX's
    parallel.md add_arrays) is not told while its type is the same, one read for its shape is
    told as traced for its old type; a NumPy array (converted, NumPy's operations on it
    unseen) keeps the note as before. Each call's result and print, and each program's
    constants, as JAX 0.10.2's for the same programs (tests/data/stale_in_program_cases.py)."""
    from jxkernel.notebook.notes.compile_notes import stale_note
    jax = locations.jax_answers("stale_in_program_reference.json")
    stale_reads()
    assert stale_cases.run(jxkernel) == jax
    found = {s.name: s for s in stale_reads()}
    assert sorted(found) == ["lr", "n", "s", "w"]     # result: read by a print alone
    assert [found[n].in_program for n in ("lr", "n", "s", "w")] == [True, True, False, True]
    lines = {s.name: stale_note([s]).title for s in found.values()}
    assert lines["w"].endswith(here(", and its compiled program keeps [0.0, 1.0, 2.0] "
                                    "(float32[3])"))
    assert lines["lr"].endswith(here(", and its compiled program keeps 0.5 (float32[])"))
    assert lines["s"].endswith(here(", and its compiled program holds none of its values, but "
                                    "was traced with its old type (a shape or a branch taken "
                                    "from it stays as then)"))
    assert "what its Python took from them (a shape, a branch) is baked into its program" in \
        stale_note([found["s"]]).body
    assert [jax[name]["consts"] for name in stale_cases.PROGRAMS] == [0, 1, 1, 0, 0]


def test_an_array_read_for_its_type_under_a_mesh_is_not_said_kept(capsys):
    """parallel.md's add_arrays, jitted under a mesh (one device here: jit's sharded path,
    which records its trace's host reads too): `result` read only in a print of its type."""
    mesh = jxkernel.make_mesh((1,), ("X",), axis_types=(jxkernel.sharding.AxisType.Explicit,))
    stale_cases.use(jxkernel)
    stale_reads()
    with jxkernel.set_mesh(mesh):
        add_arrays = jxkernel.jit(stale_cases.printed)
        add_arrays(jxkernel.device_put(jnp.ones(4), jxkernel.sharding.PartitionSpec("X")))
    assert capsys.readouterr().out == "jax.typeof(result)=int32[4,8]\n"
    stale_cases.result = jnp.ones((4, 8), jnp.int32) * 3
    assert [s.name for s in stale_reads()] == []


def test_numbers_containers_bodies_and_inner_jits_are_told_as_jax_keeps_them():
    """tests/data/stale_more_cases.py, each result and print as JAX 0.10.2's: a Python number
    or NumPy array read only by a print is in no program (make_jaxpr: 0 constants; nothing
    printed after), so the note says the program holds no such value, not "keeps"; a tuple,
    list or dict of arrays (one written in place) is kept and told; a loop, branch or scan
    body's global is a constant of the function's program (1) and told as kept; an eager
    fori_loop's body trace is reused after the change (JAX's too: 5.0). A jit traced only
    inside another's (g in outer) reuses that trace on its own and in a new jit (2.0, 4.0,
    as JAX): told as its trace, kept and reused (it was not told)."""
    from jxkernel.notebook.notes.compile_notes import stale_note
    jax = locations.jax_answers("stale_more_reference.json")
    stale_reads()
    assert more_cases.run(jxkernel) == jax
    stale = stale_reads()
    found = {s.name: s for s in stale}
    assert sorted(found) == ["d", "k", "kb", "kk", "kp", "lst", "n", "t", "w", "x_ref"]
    said = {name: stale_note([s]).title.split(" now, and ")[1] for name, s in found.items()}
    for name in ("k", "n"):
        assert jax[f"{'scalar' if name == 'k' else 'numpy'}_printed"]["consts"] == 0
        assert said[name] == here("its compiled program holds no such value, but was traced "
                                  "with it: what its Python computed from it (a value, a shape, "
                                  "a branch taken on it) stays as then, and a print of it ran "
                                  "then only")
    assert said["d"] == here("its compiled program keeps {'w': [0.0, 1.0, 2.0] (float32[3])}")
    assert said["lst"] == here("its compiled program keeps [[1.0, 1.0, 1.0] (float32[3]), [0.0, "
                               "1.0, 2.0] (float32[3])]")
    assert said["t"].startswith(here("its compiled program keeps ([1.0, 1.0, 1.0] (float32[3]), "))
    assert said["w"] == here("its compiled program keeps [0.0, 1.0, 2.0] (float32[3])")
    assert said["kb"] == "lax.fori_loop's kept trace of it keeps 2.0"
    assert (jax["outer"]["after"], jax["inner_alone"], jax["new_outer"]) == (3.0, 2.0, 4.0)
    assert said["kk"] == ("its trace, in jit(outer)'s program and reused by its later calls and "
                          "by any jit calling it (for the same types), keeps 2.0")
    assert stale_note([found["kk"]]).body.endswith("  def inner(..., kk): ...    # then call "
                                                   "inner(..., kk)")
    assert [jax[name]["consts"] for name in ("loop_body", "branch_body", "scan_body")] == [1] * 3
    _ref_and_printing_bodies(jax, {(s.name, s.function): s for s in stale})


def _ref_and_printing_bodies(jax, found):
    """JAX's array_refs page, cell 2 (tests/data/stale_more_cases.py's ref): `x_ref[1] += 1.`
    jitted, called twice, then `x_ref = jax.new_ref(1.0)`: JAX 0.10.2's jaxpr has the old Ref
    itself as its one constant, and a later call writes it ([0, 3, 0]) and leaves the new one
    at 1.0; passing the Ref (the fix offered) writes the one passed. The note said the program
    "holds none of its values, but was traced with its old type". An eager fori_loop's body
    and a cond's branch that only print `kp` hold no constant of it (JAX: 0, and nothing
    printed after): told as held by none, as the jitted function's print (it said "keeps")."""
    from jxkernel.notebook.notes.compile_notes import stale_note
    ref = found["x_ref", "ref_add"]
    assert jax["ref"]["consts_are_the_ref"] == [True]
    assert (jax["ref"]["after_old"], jax["ref"]["after_new"], jax["ref"]["fix_new"]) == \
        ([0.0, 3.0, 0.0], 1.0, 2.0)
    note = stale_note([ref])
    assert note.title.startswith("⚠ ref_add read x_ref = a Ref of float32[3] when traced (at ")
    assert note.title.endswith(here(
        "; x_ref is another Ref of float32[] now, and its compiled program holds the old Ref "
        "itself: its calls read and write that Ref (which holds [0.0, 3.0, 0.0] (float32[3]) "
        "now), not what x_ref is now"))
    assert "a Ref it reads is held by its program itself" in note.body and \
        "To use the current Ref on every call, pass it as an argument:\n  def ref_add(..., " \
        "x_ref): ...    # then call ref_add(..., x_ref)" in note.body
    for function, api in (("printing_body", "lax.fori_loop"), ("printing_branch", "lax.cond")):
        assert jax["body_printed"][api[4:]]["consts"] == 0
        assert jax["body_printed"][api[4:]]["after_printed"] == ""
        said = stale_note([found["kp", function]]).title.split(" now, and ")[1]
        assert said == (f"{api}'s kept trace of it holds no such value, but was traced with it: "
                        "what its Python computed from it (a value, a shape, a branch taken on "
                        "it) stays as then, and a print of it ran then only")


def test_a_number_the_program_holds_is_said_kept_and_one_it_does_not_is_not():
    """A Python number multiplied in is a literal of the program ("keeps"); one taken only
    through Python math (`math.exp`) leaves no literal of its value: what was computed stays."""
    global k_global
    import math
    stale_reads()
    kept = [jxkernel.jit(lambda x: x * k_global), jxkernel.jit(lambda x: x + math.exp(k_global))]
    for f in kept:              # (kept: a function dropped is let go with its reads)
        f(1.0)
    k_global = 0.1
    try:
        found = [s for s in stale_reads() if s.name == "k_global"]
    finally:
        k_global = 2.0
    assert [(s.in_program and not s.computed, s.computed) for s in found] == \
        [(True, False), (False, True)]


w_typed = jnp.arange(3.0)


def _typed_body(i, c):
    print(jxkernel.typeof(w_typed))
    return c + 1


def test_a_body_reading_an_array_for_its_type_inside_a_jit_is_not_said_kept(capsys):
    """A fori_loop body inside a jitted function that reads a jax Array only for its type:
    neither program holds it (as the function's own read of it). The body's trace was told
    while the jit's trace ran, and its own copy of the array counted as a read of the
    array's values by the jit's Python, so the function's note said "keeps"."""
    global w_typed
    stale_reads()
    f = jxkernel.jit(lambda x: jxkernel.lax.fori_loop(0, 2, _typed_body, x))
    f(1.0)
    assert capsys.readouterr().out == "float32[3]\n"
    w_typed = jnp.arange(3.0) + 10
    try:
        assert [s.name for s in stale_reads() if s.name == "w_typed"] == []
    finally:
        w_typed = jnp.arange(3.0)


big_np = np.zeros(5000, np.float32)
big_jax = None               # (made by the test: a compile at import is refused)


def test_a_large_numpy_array_is_kept_as_a_checksum_and_a_large_jax_array_is_not_read():
    """What a trace keeps to tell a change later: a NumPy array of more than 1,000 elements,
    a checksum of its bytes (a copy kept as much memory again per function: a dict of 32
    arrays of 100,000 float32 kept 13 MB), still told when written in place; a jax Array,
    immutable, by identity, its values never read to the host for it (they were copied, and
    the array kept a host copy of its own); one rebound to equal values while the program
    holds the old one is no change."""
    global big_jax
    big_jax = jnp.zeros(5000) + 1
    stale_reads()
    f = jxkernel.jit(lambda x: x + big_np[:3] + big_jax[:3])
    f(1.0)
    assert isinstance(outside_values._kept(big_np), outside_values._Digest)
    fresh = jnp.zeros(5000) + 2
    assert outside_values._kept(fresh)() is fresh and fresh._npy_value is None
    big_np[3] = 1.0
    try:
        (found,) = [s for s in stale_reads() if s.name == "big_np"]
    finally:
        big_np[3] = 0.0
    assert (found.then, found.now) == ("an array float32[5000]", "an array float32[5000]")
    assert [s.name for s in stale_reads()] == []
    big_jax = jnp.zeros(5000) + 1       # another of equal values: the program's is alive
    assert [s.name for s in stale_reads()] == []
    big_jax = big_jax * 3
    assert [(s.name, s.now) for s in stale_reads()] == [("big_jax", "an array float32[5000]")]
    big_jax = None


def test_following_a_closed_over_ref_adds_no_equation_to_the_users_trace():
    """The explainer (installed: this module imports it) follows what a jit read from outside
    as it is traced inside another trace. Reading a closed-over Ref's value there bound `get`
    in the outer trace: make_jaxpr of a jit closing over a Ref gave get, get, get, jit, swap
    in any process that had imported the notebook layer (a fresh clone's tests/api run in a
    worker after a notebook test, stop 89). The user's jaxpr is JAX's get, jit, swap."""
    c = jxkernel.new_ref(jnp.ones(3))

    def g(y):
        c[...] += y
        return c[...] * 2
    closed = jxkernel.make_jaxpr(jxkernel.jit(g))(jnp.arange(3.0))
    assert [str(e.primitive) for e in closed.eqns] == ["get", "jit", "swap"]
    assert c[...].tolist() == [1.0, 1.0, 1.0]


bf16_global = np.array([1.0, np.nan], np.dtype(jnp.bfloat16))


def test_a_nan_of_bfloat16_kept_as_it_was_is_no_change():
    """NaNs compare equal for every float, not NumPy's kind "fc" alone: a bfloat16 global
    holding a NaN (kind 'V') was told changed at every look, though nothing wrote it."""
    stale_reads()
    f = jxkernel.jit(lambda x: x + bf16_global)
    f(1.0)
    assert [s for s in stale_reads() if s.name == "bf16_global"] == []
    bf16_global[0] = 5.0
    (found,) = [s for s in stale_reads() if s.name == "bf16_global"]
    assert found.then.startswith("[1.0, nan]") and found.now.startswith("[5.0, nan]")
    bf16_global[0] = 1.0
