"""The notes and cards a learner sees running the libraries' first tutorials (Flax NNX's
key_concepts, Optax's getting_started) in a real kernel with `import jax` answered by jxkernel
(JXKERNEL_AS_JAX=1), where a fix they offered could not work (docs/seeing_inside.md, "JAX's
tutorials, cell by cell"): the cells (tests/data/library_notes_cases.py) and each fix pasted,
held to what JAX 0.10.2 with Flax 0.12.7 and Optax 0.2.8 printed, raised and compiled for the
same (library_notes_reference.json, reference/make_library_notes_reference.py); and, in the
Flax kernel after the tutorial's cells, a learner's nnx.jit training steps (stop 119: a new
optimizer, train/eval modes, a NaN gradient, a step under jax.jit). One kernel per library."""
import importlib.util
import re
import struct

import pytest

# looked up, not imported: Flax imports `jax`, which in this process is the real one
if importlib.util.find_spec("flax") is None or importlib.util.find_spec("optax") is None:
    pytest.skip("needs flax and optax (the kernel imports them)", allow_module_level=True)

import locations                        # tests/support
from library_notes_cases import EQUINOX, FLAX, OPTAX, SETUP   # tests/data
from real_kernel import kernel_cell, running_alias_kernel
from note_words import here  # noqa: E402  (tests/support)
from backend_tier import on_numpy_backend  # noqa: E402  (tests/support)

JAX = locations.recorded("library_notes_reference.json")


def _cells(*pages) -> dict:
    """Each case's {"error": (class, first line) or None, "notes": the ⚙ notes' text,
    "card": the error card's JSON or None, "stdout"}, of each (setup, cases) of `pages` run
    in order in one new kernel."""
    out = {}
    with running_alias_kernel(locations.ROOT) as client:
        for setup, cases in pages:
            ran = kernel_cell(client, setup)
            assert ran.error is None, ran
            out.update(_ran(client, cases))
    return out


def _ran(client, cases) -> dict:
    """Each case of `cases` run in `client`'s kernel, in order (see _cells)."""
    out = {}
    for name, code in cases.items():
        ran = kernel_cell(client, code, timeout=300)
        out[name] = {
            "error": ran.error_line,
            "notes": ran.compile_notes,
            "card_or_notes": "\n".join(ran.notes + [d.get("text/plain", "")
                                                    for d in ran.card_outputs]),
            "card": ran.card,
            "stdout": ran.stdout}
    return out


# a training step's printed losses beside JAX's: 4 float32 ulps on XLA's CPUs; 16 on the NumPy
# backend, whose dots are NumPy's BLAS (another order of summands than XLA's), over a few steps
_ULPS = 16 if on_numpy_backend() else 4


def _f32_ulps(a: float, b: float) -> int:
    """How many float32 steps apart two printed float32 values are."""
    def bits(x):
        (i,) = struct.unpack("<i", struct.pack("<f", x))
        return i if i >= 0 else -(i & 0x7FFFFFFF)
    return abs(bits(a) - bits(b))


def _numbers(lines) -> list:
    return [float(line.rsplit(" ", 1)[-1]) for line in lines]


@pytest.fixture(scope="module")
def flax_cells():
    return _cells((SETUP["flax"], FLAX))


@pytest.fixture(scope="module")
def optax_cells():
    return _cells((SETUP["optax"], OPTAX), (SETUP["equinox"], EQUINOX))


def test_static_sizes_passed_on_to_a_model_are_not_advised_traced(flax_cells):
    """key_concepts: init_state(dim, nlayers), static, returns MLP(dim, nlayers, ...), traced
    by eval_shape for 8190/64, then 1024/2 (JAX's miss: Static(val=1024) and before 8190).
    The note said "init_state only computes with dim. Make it traced" with `@jax.jit`; pasted,
    JAX raises TracerIntegerConversionError (MLP's range(nlayers), nnx.Linear(dim, dim)). The
    fix says now that init_state passes them on to MLP(...) and to keep them static unless
    MLP only computes with them: no code that cannot run."""
    jax = JAX["flax_cases"]
    for name in ("static_sizes_first", "static_sizes_again"):
        assert flax_cells[name]["error"] is None
        assert flax_cells[name]["stdout"].splitlines() == jax[name]["printed"]
    assert flax_cells["static_sizes_first"]["notes"] == []
    (miss,) = jax["static_sizes_again"]["misses"]
    assert "Static(val=1024)" in miss and "Static(val=8190)" in miss
    (note,) = flax_cells["static_sizes_again"]["notes"]
    first = note.splitlines()[0]
    assert first.startswith("⚙ init_state traced again (by jax.eval_shape, for shapes only") \
        and "dim: static 8190 -> 1024" in first, note
    # eval_shape compiles nothing (JAX neither: its miss "at :", no lowering)
    assert note.splitlines()[-1].startswith("traced for (") and \
        "by jax.eval_shape(init_state), for shapes only: nothing compiled" in note, note
    assert first.endswith("· fix: Keep dim static unless MLP(...) only computes with it (then "
                          "drop it from static_argnums/static_argnames)."), first
    assert "init_state passes nlayers on to MLP(...)" in note
    assert "only computes with dim. Make it traced" not in note and "@jax.jit" not in note
    # the fix it gave, pasted: JAX raises, as jxkernel
    assert jax["static_sizes_made_traced"]["error"].startswith("TracerIntegerConversionError")
    assert flax_cells["static_sizes_made_traced"]["error"][0] == "TracerIntegerConversionError"


def test_the_cards_static_fix_names_every_size_and_rebinds_no_partial(flax_cells):
    """The card for that TracerIntegerConversionError (nlayers, in MLP.__init__, called by
    `jax.eval_shape(partial(init_state, dim, nlayers))`) offered `partial = jax.jit(init_state,
    static_argnames=('nlayers',))`, rebinding functools' partial; and nlayers alone static,
    JAX raises again for dim. It offers both static, in the jit made again from init_state's
    function: pasted, JAX prints (1024, 1024), as jxkernel."""
    card = flax_cells["static_sizes_made_traced"]["card"]
    fixed = FLAX["static_sizes_card_fix"].splitlines()[0]
    assert card["rewrite"].splitlines()[0] == fixed, card["rewrite"]
    assert JAX["flax_cases"]["static_sizes_card_fix"]["error"] is None
    assert JAX["flax_cases"]["static_sizes_card_fix"]["printed"] == ["(1024, 1024)"]
    assert flax_cells["static_sizes_card_fix"]["error"] is None
    assert flax_cells["static_sizes_card_fix"]["stdout"].splitlines() == ["(1024, 1024)"]


def test_a_traced_variables_print_is_told_with_a_line_that_prints_as_jax_does(flax_cells):
    """key_concepts' cell 6 prints `model.traced_dim.value` inside jit: the same lines as
    JAX's (the file of the error's sentence aside), and a print note offering
    jax.debug.print of the learner's f-string; pasted, JAX prints the value at each of two
    calls, "model.traced_dim.value = Array(4, dtype=int32)", as jxkernel."""
    jax = JAX["flax_cases"]
    ours = flax_cells["print_in_jit"]["stdout"].splitlines()
    assert [line.split(" at ")[0] for line in ours] == \
        [line.split(" at ")[0] for line in jax["print_in_jit"]["printed"]]
    fixed = FLAX["print_note_fix"].splitlines()[2].strip()
    assert fixed in flax_cells["print_in_jit"]["card_or_notes"], \
        flax_cells["print_in_jit"]["card_or_notes"]
    assert flax_cells["print_note_fix"]["stdout"].splitlines() == \
        jax["print_note_fix"]["printed"] == ["model.traced_dim.value = Array(4, dtype=int32)"] * 2


def test_a_new_optimizers_transformation_made_again_is_told_where_and_made_once(flax_cells):
    """A step under nnx.jit, then a new model and optimizer with optax.adam(...) called again:
    JAX compiles train_step again (its GraphDef holds the transformation's new functions: a
    miss listing the whole GraphDef, thousands of characters). The note gave that text
    twice in its title and said a number should go "out of GraphDef". It names the entry that
    differs, ('tx', ...), and to make the transformation once; its code filled in, two new
    optimizers given one tx compile once, in JAX as here."""
    jax = JAX["flax_cases"]
    names = ("new_optimizer_first", "new_optimizer_again", "new_optimizer_fixed")
    assert [jax[n]["compiles"] for n in names] == [{"train_step": 1}] * 3
    for name in names:
        ours = _numbers(flax_cells[name]["stdout"].splitlines())
        theirs = _numbers(jax[name]["printed"])
        assert len(ours) == len(theirs) and all(_f32_ulps(a, b) <= _ULPS for a, b in zip(ours,
                                                                                   theirs))
    (note,) = flax_cells["new_optimizer_again"]["notes"]
    first = note.splitlines()[0]
    assert first.startswith(here("⚙ train_step compiled again (compile #2, at")), first
    assert "GraphDef meta …" in first and "('tx', Static(value=GradientTransformationExtraArgs(" \
        "init=<function chain.<locals>.init_fn at 0x" in first, first
    assert first.endswith("· fix: Make the transformation once and give the same one to each "
                          "new optimizer."), first
    assert len(note) < 3000 and "goes out of GraphDef" not in note, len(note)
    code = [line.strip() for line in FLAX["new_optimizer_fixed"].splitlines()]
    assert "tx = optax.adam(...)    # once, in a cell of its own" in note
    assert "optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)    # each new optimizer: the " \
        "same tx" in note and code[3] in note
    (fixed,) = flax_cells["new_optimizer_fixed"]["notes"]       # the new tx's one compile
    assert "×" not in fixed.splitlines()[0], fixed


def test_a_models_mode_in_its_graphdef_is_told_by_the_attribute_that_changed(flax_cells):
    """model.eval() after model.train(): nnx.jit compiles again, in JAX as here (its miss
    lists both GraphDefs whole). The note gave each GraphDef whole, hundreds of lines; it
    names the entry that differs, Dropout's ('deterministic', Static(value=False)) -> True."""
    jax = JAX["flax_cases"]
    assert jax["mode_train"]["compiles"] == {"predict": 1} == jax["mode_eval"]["compiles"]
    (note,) = flax_cells["mode_eval"]["notes"]
    first = note.splitlines()[0]
    assert "('deterministic', Static(value=False))" in first.split(" -> ")[0] and \
        "('deterministic', Static(value=True))" in first.split(" -> ")[1], first
    assert len(note) < 3000, len(note)


def test_an_nnx_step_under_jax_jit_is_told_to_use_nnx_jit(flax_cells):
    """A training step under jax.jit calling optimizer.update(model, grads): JAX (and jxkernel)
    runs it on copies, the loss the same at each call. The note said to return the optimizer
    as `return y, optimizer` (y was the step's input) and left the model, which the update
    changes too, behind. It says nnx.jit carries the changes back; so jitted, the loss goes
    down, in JAX as here."""
    jax = JAX["flax_cases"]
    stuck, fixed = (_numbers(jax[n]["printed"]) for n in ("jax_jit_of_nnx_step",
                                                          "jax_jit_of_nnx_step_fixed"))
    assert stuck[0] == stuck[1] and fixed[1] < fixed[0]
    for name in ("jax_jit_of_nnx_step", "jax_jit_of_nnx_step_fixed"):
        ours = _numbers(flax_cells[name]["stdout"].splitlines())
        assert all(_f32_ulps(a, b) <= _ULPS for a, b in zip(ours, _numbers(jax[name]["printed"])))
    notes = flax_cells["jax_jit_of_nnx_step"]["card_or_notes"]
    assert "⚠ plain_step changes its argument optimizer (optimizer.update(model, grads)" in notes
    assert notes.endswith("use it in place of jax.jit:\n  @nnx.jit\n  def plain_step(model, "
                          "optimizer, x, y):\n      ..."), notes
    assert "return y" not in notes
    assert flax_cells["jax_jit_of_nnx_step_fixed"]["card_or_notes"] == ""


def nan_note_told(cells, jax, cases, loss, step, called_at) -> str:
    """The NaN note of `cases`' nan_where_step, its cells' results JAX's (NaN, then finite
    with the note's line), held to its title (the where at line 3 of the loss, the gradient
    asked at line 6, the step called at line `called_at`) and its rewrite, `cases`'
    nan_where_fixed line (the note writes it dedented). Returns the note."""
    assert jax["nan_where_step"]["printed"] == ["True"] == \
        cells["nan_where_step"]["stdout"].splitlines()
    assert jax["nan_where_fixed"]["printed"] == ["False"] == \
        cells["nan_where_fixed"]["stdout"].splitlines()
    notes = cells["nan_where_step"]["card_or_notes"]
    (title,) = [line for line in notes.splitlines() if line.startswith("⚠ the gradient")]
    assert re.fullmatch(rf"⚠ the gradient holds NaN, though {loss}'s value is finite \(at "
                        rf"In\[(\d+)\]:6, inside {step} \(jitted\), called at "
                        rf"In\[\1\]:{called_at}\): the jnp.where at In\[\1\]:3 passed it back "
                        r"from the branch it did not take", title), title
    fixed = cases["nan_where_fixed"].splitlines()[2]
    assert notes.splitlines()[-1] == "  " + fixed.strip(), notes
    return notes


def test_a_nan_gradient_under_nnx_jit_is_told_at_the_learners_where_with_its_fix(flax_cells):
    """The FAQ's where guarding sqrt, in the loss of an nnx.jit step (JAX: the parameters NaN
    after one update). The note named Flax's files (autodiff.py:255, compilation.py:852) and
    no line: nnx.value_and_grad's function runs once, so the gradient could not be traced
    again. It names the learner's lines and, stepping the step's own program, the where,
    rewritten; that line in the loss, the parameters are finite, in JAX as here."""
    notes = nan_note_told(flax_cells, JAX["flax_cases"], FLAX, "sqrt_loss", "sqrt_step", 11)
    assert "site-packages" not in notes and "autodiff.py" not in notes


def test_an_nnx_jit_called_with_a_new_length_each_step_is_told_to_pad_as_jax_jit(flax_cells):
    """A loop calling an nnx.jit function with 5, 6, 7 rows made at the call (JAX with Flax:
    three compiles). The third compile was told "x grew by one ... make it at its full size
    once, before the loop", a fix for a history appended to, not for this loop: the call's
    argument was read at Flax's own call of the jit. It is read at the learner's line, and
    the fix is to pad x, as under jax.jit (found running Flax 0.12.7's nnx_basics)."""
    ran = flax_cells["lengths_loop"]
    theirs = JAX["flax_cases"]["lengths_loop"]
    assert ran["stdout"].splitlines() == theirs["printed"]
    (note,) = ran["notes"]
    assert note.count(here("mean_square compiled again (compile #")) == \
        theirs["compiles"]["mean_square"] - 1
    assert "grew by one" not in note and "Pad or bucket x to a few fixed sizes" in note


def test_a_traced_row_past_the_end_of_a_param_is_told_at_the_learners_line(flax_cells):
    """A module reading its Param at a traced row under nnx.jit (JAX with Flax: row 9 read,
    "[18. 19.]"). The index is Flax's Variable.__getitem__'s; the note names the learner's
    line, `return self.rows[i]` (the cell's fifth), not Flax's file."""
    ran = flax_cells["row_past_the_end"]
    assert ran["stdout"].splitlines() == JAX["flax_cases"]["row_past_the_end"]["printed"]
    (note,) = [n for n in ran["card_or_notes"].split("\n⚠") if "jitted" in n]
    assert re.search(r"index 12 is past the end of axis 0 \(size 10\) in row, jitted \(at "
                     r"In\[\d+\]:5, called at In\[\d+\]:9\): JAX read index 9 instead", note), note
    assert "variablelib" not in note and "site-packages" not in note


def test_a_flax_model_jitted_whole_is_told_its_kernel_was_read_once(flax_cells):
    """`apply = jax.jit(lin)` of an nnx.Linear, then its kernel set anew: JAX with Flax
    returns the old kernel's result ("True"), silently. The note names self.kernel (read by
    Flax's __call__, of the learner's object) and pastes the class's __call__ jitted with the
    model passed, which gives the new kernel's result, as JAX's does ("[[0. 0.]]")."""
    jax = JAX["flax_cases"]
    for name in ("jit_model_stale", "jit_model_fixed"):
        assert flax_cells[name]["stdout"].splitlines() == jax[name]["printed"], name
    notes = flax_cells["jit_model_stale"]["card_or_notes"]
    assert re.search(r"⚠ __call__ read self\.kernel = \[\[.*\(float32\[3,2\]\) when traced",
                     notes)
    assert "A Linear was jitted as a callable (jax.jit(obj), its __call__ bound to it)" in notes
    assert "Linear is a pytree already" in notes
    assert notes.endswith("\n  " + FLAX["jit_model_fixed"].splitlines()[0]), notes
    assert flax_cells["jit_model_fixed"]["card_or_notes"] == ""


def test_a_nan_gradient_under_equinox_names_the_learners_loss_and_where(optax_cells):
    """The FAQ's where in the loss of an eqx.filter_jit step taking
    eqx.filter_value_and_grad (JAX: the weights NaN after one update). The note's title named
    Equinox's own `fun_value_and_grad` as the function differentiated; it names the
    learner's loss, and the where, rewritten: that line in the loss, the weights are finite,
    in JAX as here."""
    nan_note_told(optax_cells, JAX["equinox_cases"], EQUINOX, "eqx_sqrt_loss", "eqx_sqrt_step",
                  12)


def test_a_step_closing_over_an_optimizer_is_advised_static_not_traced(optax_cells):
    """getting_started: fit() jits a def `step` reading `optimizer`; fit again with another
    optimizer compiles step again (JAX: "never seen function step ... maybe the function is
    being re-defined repeatedly"; one compile per fit). The note said "Pass optimizer as
    arguments to one jitted function (traced ...), even when optimizer did not change";
    pasted traced, JAX raises TypeError (an optax GradientTransformation holds functions).
    It says now to define step once with optimizer static: JAX compiles that once for two
    fits with one optimizer, and jxkernel notes no compile in them."""
    jax = JAX["optax_cases"]
    assert jax["fit_adam"]["compiles"] == {"step": 1} == jax["fit_chain"]["compiles"]
    assert jax["fit_chain"]["redefined"] == 1
    assert optax_cells["fit_adam"]["notes"] == []
    (note,) = optax_cells["fit_chain"]["notes"]
    assert note.splitlines()[0].startswith(here("⚙ step compiled again (a new jit object")), note
    assert note.splitlines()[0].endswith(
        "· fix: Define step once, outside, with optimizer a static argument (hashable: one "
        "program per optimizer object, reused by every call given that object).")
    assert "optimizer holds Python functions (GradientTransformationExtraArgs)" in note
    assert "@functools.partial(jax.jit, static_argnames=('optimizer',))" in note
    assert "traced: one program" not in note and "did not change" not in note
    for name in ("fit_adam", "fit_chain"):      # the printed loss: float32, 4 ulps
        ours = _numbers(optax_cells[name]["stdout"].splitlines())
        assert len(ours) == len(jax[name]["printed"])
        assert all(_f32_ulps(a, b) <= _ULPS for a, b in zip(ours, _numbers(jax[name]["printed"])))
    assert jax["optimizer_traced"]["error"].startswith("TypeError: Error interpreting argument")
    assert optax_cells["optimizer_traced"]["error"][0] == "TypeError"
    # the fix, pasted: one compile for two fits (no note), the same losses (float32, 4 ulps:
    # printed to 6 decimals, whose last moved on the NumPy backend, as it may on another CPU)
    assert jax["optimizer_static"]["compiles"] == {"step_static": 1}
    assert optax_cells["optimizer_static"]["error"] is None
    assert optax_cells["optimizer_static"]["notes"] == []
    ours = _numbers(optax_cells["optimizer_static"]["stdout"].splitlines())
    theirs = _numbers(jax["optimizer_static"]["printed"])
    assert len(ours) == len(theirs) and all(_f32_ulps(a, b) <= _ULPS for a, b in zip(ours, theirs))


def test_a_step_closing_over_optax_multisteps_is_advised_static_not_traced(optax_cells):
    """gradient_accumulation's optax.MultiSteps (a plain class, not a pytree of functions)
    given to fit, whose step closes over it: told "Pass optimizer as arguments ... (traced)",
    which JAX refuses (TypeError, recorded). It is told static, as an optax transformation is;
    static, the step runs under JAX (its loss) and here (within 4 float32 ulps)."""
    jax = JAX["optax_cases"]
    (note,) = optax_cells["fit_multisteps"]["notes"]
    assert "optimizer holds Python objects (MultiSteps)" in note, note
    assert "static_argnames=('optimizer',)" in note and "traced: one program" not in note
    assert jax["multisteps_traced"]["error"].startswith("TypeError: Error interpreting")
    assert optax_cells["multisteps_traced"]["error"][0] == "TypeError"
    assert jax["multisteps_static"]["error"] is None
    ours = _numbers(optax_cells["multisteps_static"]["stdout"].splitlines())
    theirs = _numbers(jax["multisteps_static"]["printed"])
    assert len(ours) == len(theirs) and all(_f32_ulps(a, b) <= _ULPS for a, b in zip(ours, theirs))


def test_another_model_given_to_one_filter_jit_is_another_program_nothing_to_pad(optax_cells):
    """evaluate(up) then evaluate(down) under one eqx.filter_jit (Equinox's DCGAN example,
    JAX 0.10.2: two compiles, "different input pytree"). The note paired the two models'
    leaves by position and advised padding their weights (and a lax.switch over Equinox's
    whole `static`, kilobytes long): it says the model is another one, another program."""
    theirs = JAX["equinox_cases"]["two_models"]
    ran = optax_cells["two_models"]
    assert ran["stdout"].splitlines() == theirs["printed"]
    (note,) = ran["notes"]
    assert note.count(here("evaluate compiled again")) == theirs["compiles"]["evaluate"] - 1
    assert "model: pytree a Up -> a Down" in note, note
    assert "their Python types differ" in note and "nothing to fix" in note
    assert "Pad" not in note and "switch" not in note and "PyTreeDef" not in note.splitlines()[0]


def test_a_constructor_given_one_key_in_a_loop_is_told_a_key_per_call(optax_cells):
    """Equinox's vision_transformer: `[Block(k2) for _ in range(3)]`, each Block splitting its
    key (JAX 0.10.2: the blocks alike, "True"). The note advised splitting more inside Block,
    which leaves them alike; it says each call needs a key of its own, split where the calls
    are made, and that pasted (a key per Block) makes them differ, in JAX as here."""
    theirs = JAX["equinox_cases"]
    ran = optax_cells["one_key_per_loop"]
    assert ran["stdout"].splitlines() == theirs["one_key_per_loop"]["printed"] == ["True"]
    note = ran["card_or_notes"]
    assert "Block.__init__ ran this line again with the same key" in note, note
    assert "split one more there" not in note
    fixed = optax_cells["one_key_per_loop_fixed"]
    assert fixed["stdout"].splitlines() == theirs["one_key_per_loop_fixed"]["printed"] == \
        ["False"]


def test_a_key_given_to_equinox_layers_is_told_at_the_learners_lines(optax_cells):
    """One key given to two of Equinox's Linear layers: the draw is Linear's, past Equinox's
    own `__call__` (its module metaclass), which the note named ("__call__'s split"); it
    names the learner's call, eqx.nn.Linear. And the learner's module handing its key to a
    Linear, made in a loop with one key: the note named Equinox's own line (_linear.py); it
    names the learner's line in Wrap.__init__ and gives each call a key of its own. JAX
    0.10.2 makes the layers alike in both (recorded)."""
    theirs = JAX["equinox_cases"]
    twice = optax_cells["linear_one_key_twice"]
    assert twice["stdout"].splitlines() == theirs["linear_one_key_twice"]["printed"] == ["True"]
    title = twice["card_or_notes"].splitlines()[0]
    assert re.fullmatch(r"⚠ key reused \(at In\[\d+\]:3\): eqx\.nn\.Linear's split drew with "
                        r"the key that eqx\.nn\.Linear's split used at In\[\d+\]:2, .+",
                        title), title
    looped = optax_cells["wrapped_linear_per_loop"]
    assert looped["stdout"].splitlines() == theirs["wrapped_linear_per_loop"]["printed"] == \
        ["True"]
    note = looped["card_or_notes"]
    assert re.match(r"⚠ key reused \(at In\[\d+\]:4\): eqx\.nn\.Linear's split drew with the "
                    r"key that eqx\.nn\.Linear's split used at In\[\d+\]:4, the same line run "
                    r"before", note), note
    assert "_linear.py" not in note and "Wrap.__init__ ran this line again" in note


def test_an_optax_optimizer_passed_traced_gets_static_not_a_class_rewrite(optax_cells):
    """The card for optax's GradientTransformation passed traced rewrote it as the learner's
    own registered dataclass ("in place of the NamedTuple"): optax's class is no class of the
    learner's, and optax.adam would still return its NamedTuple. It marks the optimizer
    static, whole, in place of the decorator: pasted, with the call as it was, JAX compiles
    step_of once for three calls and prints the losses jxkernel prints (4 float32 ulps)."""
    card = optax_cells["optimizer_traced"]["card"]
    assert "a NamedTuple of optax's" in card["fix"] and "dataclass" not in card["rewrite"]
    pasted = OPTAX["optimizer_card_fix"].splitlines()
    assert card["rewrite"].splitlines() == pasted[:3], card["rewrite"]
    jax = JAX["optax_cases"]["optimizer_card_fix"]
    assert jax["error"] is None and jax["compiles"] == {"step_of": 1}
    ran = optax_cells["optimizer_card_fix"]
    assert ran["error"] is None and ran["notes"] == []
    ours = [float(v) for v in ran["stdout"].split()]
    assert len(ours) == 3
    assert all(_f32_ulps(a, float(b)) <= _ULPS for a, b in zip(ours, jax["printed"]))


def test_an_equinox_models_optimizer_state_made_whole_is_told_with_the_filter(optax_cells):
    """train_rnn's main(): `opt_state = optim.init(model)` (hidden_size, an int, a leaf of the
    state), gradients from eqx.filter_value_and_grad (None there): JAX raises "pytree
    structure error: different types at key path" in optim.update. The card said to give
    tree_map trees of one structure and printed tree_structure(a) and (b), names the
    learner has not; it says now that grads is None at .hidden_size and offers the state made
    from eqx.filter(model, eqx.is_array): pasted in main, JAX trains and prints the losses
    and accuracy jxkernel prints (4 float32 ulps)."""
    jax = JAX["equinox_cases"]
    assert jax["rnn_main"]["error"] == optax_cells["rnn_main"]["error"][0] + ": " + \
        optax_cells["rnn_main"]["error"][1]
    card = optax_cells["rnn_main"]["card"]
    assert "grads is None at .hidden_size" in card["why"], card["why"]
    assert card["rewrite"].splitlines()[0] == \
        "opt_state = optim.init(eqx.filter(model, eqx.is_array))    # in place of " \
        "optim.init(model)"
    assert card["rewrite"].splitlines()[0] in EQUINOX["rnn_card_fix"]
    fixed = optax_cells["rnn_card_fix"]
    assert jax["rnn_card_fix"]["error"] is None and fixed["error"] is None
    ours = [line.rpartition("=")[2] for line in fixed["stdout"].splitlines()]
    theirs = [line.rpartition("=")[2] for line in jax["rnn_card_fix"]["printed"]]
    assert len(ours) == len(theirs) == 3
    assert all(_f32_ulps(float(a), float(b)) <= _ULPS for a, b in zip(ours, theirs)), (ours, theirs)
