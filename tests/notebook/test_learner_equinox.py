"""A learner's Equinox training cells in a real kernel with `import jax` answered by jxkernel
(JXKERNEL_AS_JAX=1), against what JAX 0.10.2 with Equinox 0.13.8 and Optax 0.2.8 said for the
same cells (tests/data/learner_equinox_reference.json, recorded by
reference/make_learner_equinox_reference.py from tests/data/learner_equinox_cases.py): the
messages are JAX's (or Equinox's), each card points at the learner's line, and each rewrite a
card writes is the Equinox way that runs when pasted, under JAX too."""
import importlib.util
import json

import pytest

# looked up, not imported: Equinox imports `jax`, which in this process is the real one
if importlib.util.find_spec("equinox") is None or importlib.util.find_spec("optax") is None:
    pytest.skip("needs equinox and optax (the kernel imports them)", allow_module_level=True)

import locations                        # tests/support
from learner_equinox_cases import CASES, FIXED, KEY_SEED_FIXED, PRINT_STEP, SETUP  # tests/data
from real_kernel import alias_kernel_cells

JAX = locations.recorded("learner_equinox_reference.json")

# where jxkernel's message names its own class's module: the class of jax.nn.relu is
@pytest.fixture(scope="module")
def cells():
    """{case: its KernelCell} for each case and fixed case (its result printed), one kernel
    for all."""
    return alias_kernel_cells(SETUP, {**CASES, "print_step": PRINT_STEP,
                                      **{name: source + f"print({result})"
                                         for name, (source, result) in FIXED.items()}})


def _rewrite(card) -> list:
    """The card's rewrite, its lines without their trailing comments."""
    return [line.split("    #")[0] for line in card["rewrite"].splitlines()]


def test_the_mistakes_raise_jaxs_errors(cells):
    for name in CASES:
        # jit's message names custom_jvp's class jax._src.custom_derivatives.custom_jvp, as
        # JAX's does (it said jxkernel._src's before stop 128); grad's prints the object's own
        # default repr, its module jxkernel._src's (left as it is: noted)
        error = cells[name].error_line
        said = error[1] if name.startswith("jax_jit") else \
            error[1].replace("<jxkernel._src.", "<jax._src.")
        assert error and (error[0], said) == (JAX[name]["error"], JAX[name]["first_line"]), name


def test_each_fixed_cell_gives_what_it_gave_under_jax(cells):
    for name in FIXED:
        ran = cells[name]
        assert ran.error is None and ran.stdout == f"{JAX[name]}\n", (name, ran)


def test_jax_jit_of_a_module_gets_filter_jit_not_static(cells):
    """jax.jit of predict(model, x): JAX's TypeError names static_argnums, which cannot mark
    model.layers[1] (a part of an argument); the card (not-an-array's before: "pass the
    custom_jvp as an argument of its own, static") writes eqx.filter_jit on the learner's
    function, and that cell runs under JAX and here, as does eqx.partition's way."""
    card = cells["jax_jit_module"].card
    assert card["kind"] == "equinox-jit", card
    assert card["title"] == "jax.jit was given model, an Equinox model: its model.layers[1] is " \
        "relu (a custom_jvp)", card["title"]
    assert "static_argnums cannot" in card["why"], card
    # the other way the fix names, as JAX_JIT_MODULE_PARTITION writes it (run under JAX)
    assert "params, static = eqx.partition(model, eqx.is_array)" in card["fix"] and \
        "eqx.combine(params, static) with static read from outside" in card["fix"], card["fix"]
    assert _rewrite(card) == ["@eqx.filter_jit", "def predict(model, x):"], card["rewrite"]
    assert "\n".join(_rewrite(card)) in FIXED["jax_jit_module_fixed"][0]


@pytest.mark.parametrize("case", ["jax_jit_module_bound", "jax_jit_module_inline"])
def test_a_jit_written_as_a_call_gets_filter_jit_where_it_is_written(cells, case):
    """`predict_b = jax.jit(f)` above the call, or `jax.jit(f)(model, x)` on the line: the
    card wrote `@eqx.filter_jit`, a decorator, which pasted there is a syntax error; now
    eqx.filter_jit on the statement that made the jit (then the line), or in the line's call.
    Those lines are the fixed cells', which give JAX's shapes."""
    card = cells[case].card
    assert card["kind"] == "equinox-jit", card
    fixed = FIXED[f"{case}_fixed"][0].splitlines()
    if case.endswith("bound"):
        assert _rewrite(card) == [fixed[0], "predict_b(model, x)"], card["rewrite"]
    else:
        assert _rewrite(card) == ["eqx.filter_jit(lambda m, v: jax.vmap(m)(v))(model, x)"], \
            card["rewrite"]
        assert _rewrite(card)[0] in fixed[0]


@pytest.mark.parametrize("case, line, fixed", [
    ("jax_grad_module", "jax.grad(loss)(model, x, y)", "eqx.filter_grad(loss)(model, x, y)"),
    ("jax_value_and_grad_module", "loss_value, grads = jax.value_and_grad(loss)(model, x, y)",
     "loss_value, grads = eqx.filter_value_and_grad(loss)(model, x, y)")])
def test_jax_grad_of_a_module_gets_filter_grad(cells, case, line, fixed):
    """jax.grad(loss)(model, x, y) and jax.value_and_grad's: JAX's TypeError (no card before);
    the card writes the learner's line with eqx.filter_grad or eqx.filter_value_and_grad,
    whose gradients are a CNN (None for relu), which runs under JAX and here."""
    card = cells[case].card
    assert card["kind"] == "equinox-grad", card
    assert card["where"]["code"] == line, card["where"]
    (rewritten,) = _rewrite(card)
    assert rewritten == fixed, card["rewrite"]
    assert fixed in FIXED[f"{case}_fixed"][0]
    assert JAX[f"{case}_fixed"] == ["CNN", True]


@pytest.mark.parametrize("case, call, layer, shape", [
    ("batch_into_model", "model(x)", "eqx.nn.Conv2d", (8, 1, 28, 28)),
    ("linear_batch", "lin(jnp.ones((8, 784)))", "eqx.nn.Linear", (8, 784))])
def test_a_batch_into_an_equinox_layer_gets_vmap_on_the_learners_call(cells, case, call,
                                                                      layer, shape):
    """A batch given to the model (Equinox's ValueError from its Conv2d: no card before) or to
    an eqx.nn.Linear (dot_general's TypeError: the matmul card's `y = a @ b.T` before, names
    that are not the learner's): Equinox's layers take one example; the card writes
    jax.vmap of the learner's own call, and that line runs under JAX and here."""
    card = cells[case].card
    assert card["kind"] == "equinox-batch", card
    assert card["title"].startswith(f"{layer} takes one example") and str(shape) in \
        card["title"], card["title"]
    assert (card["called_from"] or card["where"])["code"] == call, card
    (line,) = _rewrite(card)
    name, _, arg = call.partition("(")
    assert line == f"jax.vmap({name})({arg}", card["rewrite"]
    assert line in FIXED[f"{case}_fixed"][0]
    told = json.dumps({k: card[k] for k in ("where", "called_from", "title", "why", "fix")})
    assert "_conv.py" not in told and "_linear.py" not in told, told


def test_a_field_assigned_gets_tree_at(cells):
    """`model.layers = ...`: the dataclass's FrozenInstanceError (no card before); the card
    writes eqx.tree_at making the changed model, which runs under JAX and here."""
    card = cells["mutate_field"].card
    assert card["kind"] == "equinox-frozen", card
    assert card["title"] == "An Equinox CNN cannot be changed in place: layers was assigned"
    (line,) = _rewrite(card)
    assert line == "model = eqx.tree_at(lambda m: m.layers, model, model.layers[:-1])", line
    assert line in FIXED["mutate_field_fixed"][0]


def test_a_print_in_the_filter_jit_step_is_noted_at_the_learners_line(cells):
    """print inside an eqx.filter_jit'd step shows a tracer, as under JAX (JitTracer(float32[])
    seen there); the note names the learner's cell and line, never Equinox's _jit.py."""
    ran = cells["print_step"]
    assert ran.error is None and ran.stdout == "loss JitTracer(float32[])\n", ran
    (note,) = ran.notes
    assert note.startswith(f"⚠ print ran while tracing (at In[{ran.count}]:4)"), note
    assert "_jit.py" not in note and "jax.debug.print" in note, note


def test_an_int_field_built_as_an_array_gets_a_python_int_and_a_static_field(cells):
    """`Counted(layers, jnp.array(1))` and `self.layers[:self.calls]` under eqx.filter_jit:
    JAX's TracerIntegerConversionError names Equinox's path dynamic_nodonate['first'][4] (the
    integer-conversion card repeated it and advised `n = x.shape[0]`, no help); the card names
    the field and the class, and its line pasted into the class with the model built with 1
    runs, under JAX and here."""
    card = cells["counter"].card
    assert card["kind"] == "equinox-array-field", card
    assert card["title"].startswith("Counted.calls holds an array, so jit traces it"), card
    assert "dynamic_nodonate" not in json.dumps({k: card[k] for k in ("title", "why", "fix")})
    (line,) = _rewrite(card)
    assert line == "calls: int = eqx.field(static=True)", card["rewrite"]
    assert f"  {line}\n" in FIXED["counter_fixed"][0] and \
        "Counted(..., 1), not jnp.array(1)" in card["rewrite"]


def test_one_example_of_another_size_into_eqx_linear_names_the_layer(cells):
    """eqx.nn.Linear(784, 10) on jnp.ones(785): dot_general's TypeError (the matmul card before:
    "Matrix product of shapes (10, 784) and (785,)", `print(a.shape, b.shape)`, names not the
    learner's); the card names the layer and writes it built again on the learner's own name,
    which runs pasted, under JAX and here."""
    card = cells["linear_features"].card
    assert card["kind"] == "equinox-features", card
    assert card["title"] == "eqx.nn.Linear(784, 10) got an input of shape (785,): it takes 784 " \
        "features", card["title"]
    (line,) = _rewrite(card)
    assert line == "lin = eqx.nn.Linear(785, 10, key=jax.random.PRNGKey(0))", card["rewrite"]
    assert line in FIXED["linear_features_fixed"][0]


def test_a_seed_given_to_an_equinox_layers_key_is_made_a_key_there(cells):
    """eqx.nn.Linear(3, 2, key=0): JAX's "invalid PRNG key data" from inside Equinox; the
    seed-as-key card's line was its template (a key made and numbers drawn that the learner
    never asked for); now the learner's line with jax.random.key(0) as the key, which gives
    JAX's layer (FIXED key_seed_fixed)."""
    card = cells["key_seed"].card
    assert card is not None and card["kind"] == "seed-as-key", card
    assert card["rewrite"].split("    #")[0] == KEY_SEED_FIXED.splitlines()[0], card["rewrite"]
