"""Cells of the libraries' first tutorials (Flax 0.12.7's key_concepts, Optax 0.2.8's
getting_started, Equinox 0.13.8's train_rnn) where a note's or a card's fix could not work (stop 89, branch h-libnotes;
docs/seeing_inside.md "JAX's tutorials, cell by cell"), and the fixes they offer now, pasted
in. Each case is the page's cell verbatim except where said (`NUM_TRAIN_STEPS` 3 for 1_000,
the tutorial's imports given); they run in order in one namespace per library (Equinox's after Optax's, in the same kernel).
reference/make_library_notes_reference.py records what JAX 0.10.2 logged, printed and raised
for each (library_notes_reference.json); tests/notebook/test_library_notes.py runs them under
jxkernel. After the key_concepts cells, FLAX holds a learner's own nnx.jit training steps
(stop 119), each note's fix among them."""

# an nnx.jit training step whose loss guards sqrt with a where (`ret`: the guarded branch)
SQRT_STEP = ("def sqrt_loss(model, x, y):\n"
             "  r = model(x) - y\n"
             "  return jnp.mean(jnp.where(r > 0, {ret}, 0.0))\n"
             "@nnx.jit\n"
             "def sqrt_step(model, optimizer, x, y):\n"
             "  loss, grads = nnx.value_and_grad(sqrt_loss)(model, x, y)\n"
             "  optimizer.update(model, grads)\n"
             "  return loss\n"
             "model = Lin(nnx.Rngs(0))\n"
             "optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)\n"
             "sqrt_step(model, optimizer, x, jnp.full((4, 1), 10.0))\n"
             "print(bool(jnp.isnan(model.l.kernel[...]).any()))\n")
# a training step of Lin's model (`jit`: how it is jitted), called twice from a new model
NNX_STEP = ("@{jit}\n"
            "def plain_step(model, optimizer, x, y):\n"
            "  loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)\n"
            "  optimizer.update(model, grads)\n"
            "  return loss\n"
            "model = Lin(nnx.Rngs(0))\n"
            "optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)\n"
            "print(plain_step(model, optimizer, x, y))\n"
            "print(plain_step(model, optimizer, x, y))\n")
FLAX = {
    # key_concepts' cell 8: init_state's static sizes, traced by eval_shape (MLP(8190, 64))
    "static_sizes_first": (
        "class MLP(nnx.Module):\n"
        "  def __init__(self, dim, nlayers, rngs):\n"
        "    self.blocks = nnx.List([nnx.Linear(dim, dim, rngs=rngs) for _ in range(nlayers)])\n"
        "    self.activation = jax.nn.relu\n"
        "    self.nlayers = nlayers\n"
        "  def __call__(self, x):\n"
        "    for block in self.blocks:\n"
        "      x = self.activation(block(x))\n"
        "    return x\n"
        "\n"
        "dim, nlayers = 8190, 64   # Some very big numbers\n"
        "@partial(jax.jit, static_argnums=(0, 1))\n"
        "def init_state(dim, nlayers):\n"
        "  return MLP(dim, nlayers, nnx.Rngs(0))\n"
        "abstract_model = jax.eval_shape(partial(init_state, dim, nlayers))\n"
        "print(abstract_model.blocks[0].kernel.value.shape)\n"),
    # cell 9's first lines: other sizes, the miss JAX logs ("Static(val=1024) and before
    # Static(val=8190)")
    "static_sizes_again": (
        "# Some smaller numbers so that we actually can run it\n"
        "dim, nlayers = 1024, 2\n"
        "abstract_model = jax.eval_shape(partial(init_state, dim, nlayers))\n"
        "print(abstract_model.blocks[0].kernel.value.shape)\n"),
    # the fix the note offered ("init_state only computes with dim. Make it traced"), pasted:
    # MLP's nnx.Linear(dim, dim) and range(nlayers) need Python ints (JAX raises)
    "static_sizes_made_traced": (
        "@jax.jit    # dim traced: one program for all its values\n"
        "def init_state(dim, nlayers):\n"
        "  return MLP(dim, nlayers, nnx.Rngs(0))\n"
        "abstract_model = jax.eval_shape(partial(init_state, dim, nlayers))\n"),
    # the error card's fix for that error, pasted: both sizes static (nlayers alone, JAX
    # raises again for nnx.Linear(dim, dim): "Shapes must be 1D sequences of concrete values")
    "static_sizes_card_fix": (
        "init_state = jax.jit(init_state.__wrapped__, static_argnames=('dim', 'nlayers'))"
        "    # init_state is the jit already: made again from the function it wraps\n"
        "abstract_model = jax.eval_shape(partial(init_state, dim, nlayers))\n"
        "print(abstract_model.blocks[0].kernel.value.shape)\n"),
    # key_concepts' cells 5 (its Foo, without the printing loop) and 6 verbatim: a print of
    # a traced Variable's value inside jit
    "print_in_jit": (
        "class Foo(nnx.Module):\n"
        "  def __init__(self, dim, rngs):\n"
        "    self.w = nnx.Param(jax.random.normal(rngs.param(), (dim, dim)))\n"
        "    self.dim = dim\n"
        "    self.traced_dim = nnx.Param(dim)  # This became traced!\n"
        "    self.rng = rngs\n"
        "\n"
        "foo = Foo(4, nnx.Rngs(0))\n"
        "@jax.jit\n"
        "def jitted(model):\n"
        "  print(f'{model.dim = }')\n"
        "  print(f'{model.traced_dim.value = }')  # This is being traced\n"
        "  if model.dim == 4:\n"
        "    print('Code path based on static data value works fine.')\n"
        "  try:\n"
        "    if model.traced_dim.value == 4:\n"
        "      print('This will never run :(')\n"
        "  except jax.errors.TracerBoolConversionError as e:\n"
        "    print(f'Code path based on JAX data value throws error: {e}')\n"
        "\n"
        "jitted(foo)\n"),
    # its print note's line pasted in place of the print (JAX prints the value at each call)
    "print_note_fix": (
        "@jax.jit\n"
        "def jitted(model):\n"
        "  jax.debug.print('model.traced_dim.value = {!r}', model.traced_dim.value)\n"
        "jitted(foo)\n"
        "jitted(foo)\n"),
    # a training step under nnx.jit, then a new model and a new optimizer, its optax
    # transformation made again (a learner's "start over" cell): the optimizer's GraphDef
    # holds the transformation's functions, new ones, so the step compiles again (JAX too)
    "new_optimizer_first": (
        "import optax\n"
        "class Lin(nnx.Module):\n"
        "  def __init__(self, rngs):\n"
        "    self.l = nnx.Linear(3, 1, rngs=rngs)\n"
        "  def __call__(self, x):\n"
        "    return self.l(x)\n"
        "def loss_fn(model, x, y):\n"
        "  return jnp.mean((model(x) - y) ** 2)\n"
        "@nnx.jit\n"
        "def train_step(model, optimizer, x, y):\n"
        "  loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)\n"
        "  optimizer.update(model, grads)\n"
        "  return loss\n"
        "x, y = jnp.ones((4, 3)), jnp.zeros((4, 1))\n"
        "model = Lin(nnx.Rngs(0))\n"
        "optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)\n"
        "print(train_step(model, optimizer, x, y))\n"),
    "new_optimizer_again": (
        "model = Lin(nnx.Rngs(0))\n"
        "optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)\n"
        "print(train_step(model, optimizer, x, y))\n"),
    # its note's code, filled in: the transformation made once, two new optimizers given it
    # (JAX: no compile of train_step in this cell)
    "new_optimizer_fixed": (
        "tx = optax.adam(1e-2)    # once, in a cell of its own\n"
        "for _ in range(2):\n"
        "  model = Lin(nnx.Rngs(0))\n"
        "  optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)    # each new optimizer: the "
        "same tx\n"
        "  print(train_step(model, optimizer, x, y))\n"),
    # a model with Dropout under nnx.jit, in training mode, then in evaluation mode: its
    # GraphDef holds Dropout's `deterministic`, so the function compiles again (JAX too)
    "mode_train": (
        "class Drop(nnx.Module):\n"
        "  def __init__(self, rngs):\n"
        "    self.l = nnx.Linear(3, 4, rngs=rngs)\n"
        "    self.d = nnx.Dropout(0.5, rngs=rngs)\n"
        "  def __call__(self, x):\n"
        "    return self.d(self.l(x))\n"
        "@nnx.jit\n"
        "def predict(model, x):\n"
        "  return model(x)\n"
        "dropping = Drop(nnx.Rngs(0))\n"
        "dropping.train()\n"
        "print(predict(dropping, x).shape)\n"),
    "mode_eval": (
        "dropping.eval()\n"
        "print(predict(dropping, x).shape)\n"),
    # the training step under jax.jit, not nnx.jit: the optimizer's update (and the model's,
    # which it changes) happens to the trace's copies, so the loss stays where it was
    "jax_jit_of_nnx_step": NNX_STEP.format(jit="jax.jit"),
    # its note's fix: nnx.jit in place of jax.jit (the loss goes down)
    "jax_jit_of_nnx_step_fixed": NNX_STEP.format(jit="nnx.jit"),
    # a where guarding sqrt in the loss of an nnx.jit step: its gradient NaN where r < 0 (the
    # FAQ's where), the step's parameters NaN after one update
    "nan_where_step": SQRT_STEP.format(ret="jnp.sqrt(r)"),
    # the NaN note's line in place of the loss's return: the parameters finite
    "nan_where_fixed": SQRT_STEP.format(ret="jnp.sqrt(jnp.where(r > 0, r, 1.0))"),
    # an nnx.jit function called with a new length at each step of a loop, the argument made
    # at the call: its fix is to pad it, as under jax.jit (it was told to make a history
    # appended to at its full size, the call's line read at Flax's own call of the jit)
    "lengths_loop": (
        "@nnx.jit\n"
        "def mean_square(x):\n"
        "  return (x ** 2).mean()\n"
        "for n in (5, 6, 7):\n"
        "  out = mean_square(jnp.ones((n, 2)))\n"
        "print(out)\n"),
    # a module reading its Param at a traced row past the end, under nnx.jit: JAX reads row 9
    # (the indexing is Flax's Variable.__getitem__, under the learner's `self.rows[i]`)
    "row_past_the_end": (
        "class Table(nnx.Module):\n"
        "  def __init__(self):\n"
        "    self.rows = nnx.Param(jnp.arange(20.).reshape(10, 2))\n"
        "  def __call__(self, i):\n"
        "    return self.rows[i]\n"
        "@nnx.jit\n"
        "def row(table, i):\n"
        "  return table(i)\n"
        "print(row(Table(), 12))\n"),
    # a Flax model jitted whole (jax.jit(model), its __call__ bound to it), its kernel set
    # after the trace: the old kernel's result (stop 122's stale-field note), and the fix it
    # pastes, the class's __call__ jitted with the model passed
    "jit_model_stale": (
        "lin = nnx.Linear(3, 2, rngs=nnx.Rngs(0))\n"
        "apply = jax.jit(lin)\n"
        "ones = jnp.ones((1, 3))\n"
        "before = apply(ones)\n"
        "lin.kernel.value = jnp.zeros((3, 2))\n"
        "print(bool((apply(ones) == before).all()))\n"),
    "jit_model_fixed": (
        "jitted = jax.jit(type(lin).__call__)    # called as jitted(lin, ...)\n"
        "print(jitted(lin, ones))\n"),
}

OPTAX = {
    # getting_started's cells 8-10 (NUM_TRAIN_STEPS 3): fit() jits a def closing over the
    # optimizer
    "fit_adam": (
        "BATCH_SIZE = 5\n"
        "NUM_TRAIN_STEPS = 3\n"
        "RAW_TRAINING_DATA = np.random.randint(255, size=(NUM_TRAIN_STEPS, BATCH_SIZE, 1))\n"
        "\n"
        "TRAINING_DATA = np.unpackbits(RAW_TRAINING_DATA.astype(np.uint8), axis=-1)\n"
        "LABELS = jax.nn.one_hot(RAW_TRAINING_DATA % 2, 2).astype(jnp.float32)"
        ".reshape(NUM_TRAIN_STEPS, BATCH_SIZE, 2)\n"
        "\n"
        "initial_params = {\n"
        "    'hidden': jax.random.normal(shape=[8, 32], key=jax.random.PRNGKey(0)),\n"
        "    'output': jax.random.normal(shape=[32, 2], key=jax.random.PRNGKey(1)),\n"
        "}\n"
        "\n"
        "\n"
        "def net(x: jnp.ndarray, params: optax.Params) -> jnp.ndarray:\n"
        "  x = jnp.dot(x, params['hidden'])\n"
        "  x = jax.nn.relu(x)\n"
        "  x = jnp.dot(x, params['output'])\n"
        "  return x\n"
        "\n"
        "\n"
        "def loss(params: optax.Params, batch: jnp.ndarray, labels: jnp.ndarray) -> jnp.ndarray:\n"
        "  y_hat = net(batch, params)\n"
        "\n"
        "  # optax also provides a number of common loss functions.\n"
        "  loss_value = optax.sigmoid_binary_cross_entropy(y_hat, labels).sum(axis=-1)\n"
        "\n"
        "  return loss_value.mean()\n"
        "\n"
        "def fit(params: optax.Params, optimizer: optax.GradientTransformation) -> optax.Params:\n"
        "  opt_state = optimizer.init(params)\n"
        "\n"
        "  @jax.jit\n"
        "  def step(params, opt_state, batch, labels):\n"
        "    loss_value, grads = jax.value_and_grad(loss)(params, batch, labels)\n"
        "    updates, opt_state = optimizer.update(grads, opt_state, params)\n"
        "    params = optax.apply_updates(params, updates)\n"
        "    return params, opt_state, loss_value\n"
        "\n"
        "  for i, (batch, labels) in enumerate(zip(TRAINING_DATA, LABELS)):\n"
        "    params, opt_state, loss_value = step(params, opt_state, batch, labels)\n"
        "    if i % 100 == 0:\n"
        "      print(f'step {i}, loss: {loss_value}')\n"
        "\n"
        "  return params, opt_state\n"
        "\n"
        "# Finally, we can fit our parametrized function using the Adam optimizer\n"
        "# provided by optax.\n"
        "optimizer = optax.adam(learning_rate=1e-2)\n"
        "_ = fit(initial_params, optimizer)\n"),
    # cell 11: fit again, with another optimizer (JAX: "never seen function step ... maybe
    # the function is being re-defined repeatedly")
    "fit_chain": (
        "schedule = optax.warmup_cosine_decay_schedule(\n"
        "  init_value=0.0,\n"
        "  peak_value=1.0,\n"
        "  warmup_steps=50,\n"
        "  decay_steps=1_000,\n"
        "  end_value=0.0,\n"
        ")\n"
        "\n"
        "optimizer = optax.chain(\n"
        "  optax.clip(1.0),\n"
        "  optax.adamw(learning_rate=schedule),\n"
        ")\n"
        "\n"
        "_ = fit(initial_params, optimizer)\n"),
    # the fix the note offered ("Pass optimizer as arguments ... (traced)"), pasted: an
    # optax GradientTransformation holds functions, no valid JAX type (JAX raises TypeError)
    "optimizer_traced": (
        "@jax.jit\n"
        "def step_of(params, opt_state, batch, labels, optimizer):\n"
        "  loss_value, grads = jax.value_and_grad(loss)(params, batch, labels)\n"
        "  updates, opt_state = optimizer.update(grads, opt_state, params)\n"
        "  return optax.apply_updates(params, updates), opt_state, loss_value\n"
        "step_of(initial_params, optimizer.init(initial_params), TRAINING_DATA[0], LABELS[0],"
        " optimizer)\n"),
    # the error card's fix for that TypeError, pasted in place of its decorator; the call
    # as it was (optimizer passed by position)
    "optimizer_card_fix": (
        "from functools import partial\n"
        "@partial(jax.jit, static_argnames=('optimizer',))   # in place of @jax.jit\n"
        "def step_of(params, opt_state, batch, labels, optimizer):\n"
        "  loss_value, grads = jax.value_and_grad(loss)(params, batch, labels)\n"
        "  updates, opt_state = optimizer.update(grads, opt_state, params)\n"
        "  return optax.apply_updates(params, updates), opt_state, loss_value\n"
        "for batch, labels in zip(TRAINING_DATA, LABELS):\n"
        "  print(step_of(initial_params, optimizer.init(initial_params), batch, labels,"
        " optimizer)[2])\n"),
    # the fix the note offers now: one jitted step, defined once, the optimizer static (hashable:
    # one program per optimizer object, reused by every fit with it)
    "optimizer_static": (
        "@functools.partial(jax.jit, static_argnames=('optimizer',))\n"
        "def step_static(params, opt_state, batch, labels, optimizer):\n"
        "  loss_value, grads = jax.value_and_grad(loss)(params, batch, labels)\n"
        "  updates, opt_state = optimizer.update(grads, opt_state, params)\n"
        "  return optax.apply_updates(params, updates), opt_state, loss_value\n"
        "for _ in range(2):    # two fits with the same optimizer: one compile\n"
        "  params, opt_state = initial_params, optimizer.init(initial_params)\n"
        "  for batch, labels in zip(TRAINING_DATA, LABELS):\n"
        "    params, opt_state, loss_value = step_static(params, opt_state, batch, labels,\n"
        "                                                optimizer=optimizer)\n"
        "  print(f'loss: {loss_value:.6f}')\n"),
    # gradient_accumulation's optimizer: an optax.MultiSteps (a plain class, no pytree of
    # functions) given to fit, whose step closes over it: a new program, told static, not
    # traced; passed traced, JAX raises TypeError; static, it runs
    "fit_multisteps": (
        "multi = optax.MultiSteps(optax.adam(1e-2), every_k_schedule=2)\n"
        "_ = fit(initial_params, multi)\n"),
    "multisteps_traced": (
        "@jax.jit\n"
        "def step_traced(params, opt_state, batch, labels, optimizer):\n"
        "  loss_value, grads = jax.value_and_grad(loss)(params, batch, labels)\n"
        "  updates, opt_state = optimizer.update(grads, opt_state, params)\n"
        "  return optax.apply_updates(params, updates), opt_state, loss_value\n"
        "step_traced(initial_params, multi.init(initial_params), TRAINING_DATA[0], LABELS[0],"
        " multi)\n"),
    "multisteps_static": (
        "params, opt_state = initial_params, multi.init(initial_params)\n"
        "for batch, labels in zip(TRAINING_DATA, LABELS):\n"
        "  params, opt_state, loss_value = step_static(params, opt_state, batch, labels,\n"
        "                                              optimizer=multi)\n"
        "print(f'loss: {loss_value:.6f}')\n"),
}

SETUP = {"flax": "import jax\nimport jax.numpy as jnp\nimport flax\nfrom flax import nnx\n"
                 "from functools import partial\n",
         "optax": "import functools\nimport optax\nimport jax.numpy as jnp\nimport jax\n"
                  "import numpy as np\nnp.random.seed(0)\n"}

# Equinox's train_rnn, cells 1-3 verbatim (its imports are SETUP's), then cell 4's `main()`
# with a smaller run (dataset_size=64, steps=2): JAX raises ValueError (the state made by
# optim.init(model), gradients None at hidden_size)
EQUINOX = {
    "rnn_cells": 'def dataloader(arrays, batch_size):\n    dataset_size = arrays[0].shape[0]\n    assert all(array.shape[0] == dataset_size for array in arrays)\n    indices = np.arange(dataset_size)\n    while True:\n        perm = np.random.permutation(indices)\n        start = 0\n        end = batch_size\n        while end <= dataset_size:\n            batch_perm = perm[start:end]\n            yield tuple(array[batch_perm] for array in arrays)\n            start = end\n            end = start + batch_size\n\n\ndef get_data(dataset_size, *, key):\n    t = jnp.linspace(0, 2 * math.pi, 16)\n    offset = jrandom.uniform(key, (dataset_size, 1), minval=0, maxval=2 * math.pi)\n    x1 = jnp.sin(t + offset) / (1 + t)\n    x2 = jnp.cos(t + offset) / (1 + t)\n    y = jnp.ones((dataset_size, 1))\n\n    half_dataset_size = dataset_size // 2\n    x1 = x1.at[:half_dataset_size].multiply(-1)\n    y = y.at[:half_dataset_size].set(0)\n    x = jnp.stack([x1, x2], axis=-1)\n\n    return x, y\n\nclass RNN(eqx.Module):\n    hidden_size: int\n    cell: eqx.Module\n    linear: eqx.nn.Linear\n    bias: jax.Array\n\n    def __init__(self, in_size, out_size, hidden_size, *, key):\n        ckey, lkey = jrandom.split(key)\n        self.hidden_size = hidden_size\n        self.cell = eqx.nn.GRUCell(in_size, hidden_size, key=ckey)\n        self.linear = eqx.nn.Linear(hidden_size, out_size, use_bias=False, key=lkey)\n        self.bias = jnp.zeros(out_size)\n\n    def __call__(self, input):\n        hidden = jnp.zeros((self.hidden_size,))\n\n        def f(carry, inp):\n            return self.cell(inp, carry), None\n\n        out, _ = lax.scan(f, hidden, input)\n        # sigmoid because we\'re performing binary classification\n        return jax.nn.sigmoid(self.linear(out) + self.bias)\n\ndef main(\n    dataset_size=10000,\n    batch_size=32,\n    learning_rate=3e-3,\n    steps=200,\n    hidden_size=16,\n    depth=1,\n    seed=5678,\n):\n    data_key, model_key = jrandom.split(jrandom.PRNGKey(seed), 2)\n    xs, ys = get_data(dataset_size, key=data_key)\n    iter_data = dataloader((xs, ys), batch_size)\n\n    model = RNN(in_size=2, out_size=1, hidden_size=hidden_size, key=model_key)\n\n    @eqx.filter_value_and_grad\n    def compute_loss(model, x, y):\n        pred_y = jax.vmap(model)(x)\n        # Trains with respect to binary cross-entropy\n        return -jnp.mean(y * jnp.log(pred_y) + (1 - y) * jnp.log(1 - pred_y))\n\n    # Important for efficiency whenever you use JAX: wrap everything into a single JIT\n    # region.\n    @eqx.filter_jit\n    def make_step(model, x, y, opt_state):\n        loss, grads = compute_loss(model, x, y)\n        updates, opt_state = optim.update(grads, opt_state)\n        model = eqx.apply_updates(model, updates)\n        return loss, model, opt_state\n\n    optim = optax.adam(learning_rate)\n    opt_state = optim.init(model)\n    for step, (x, y) in zip(range(steps), iter_data):\n        loss, model, opt_state = make_step(model, x, y, opt_state)\n        loss = loss.item()\n        print(f"step={step}, loss={loss}")\n\n    pred_ys = jax.vmap(model)(xs)\n    num_correct = jnp.sum((pred_ys > 0.5) == ys)\n    final_accuracy = (num_correct / dataset_size).item()\n    print(f"final_accuracy={final_accuracy}")',
    "rnn_main": "main(dataset_size=64, steps=2)\n",
}
# the card's fix pasted in place of main's `opt_state = optim.init(model)`
EQUINOX["rnn_card_fix"] = EQUINOX["rnn_cells"].replace(
    "opt_state = optim.init(model)",
    "opt_state = optim.init(eqx.filter(model, eqx.is_array))    # in place of "
    "optim.init(model)") + "\n" + EQUINOX["rnn_main"]
# an Equinox step (filter_jit, filter_value_and_grad) whose loss guards sqrt with a where
# (`ret`: the guarded branch): the model's weights NaN after one update (stop 119)
EQX_SQRT_STEP = ("def eqx_sqrt_loss(model, x, y):\n"
                 "    r = jax.vmap(model)(x) - y\n"
                 "    return jnp.mean(jnp.where(r > 0, {ret}, 0.0))\n"
                 "@eqx.filter_jit\n"
                 "def eqx_sqrt_step(model, opt_state, x, y):\n"
                 "    loss, grads = eqx.filter_value_and_grad(eqx_sqrt_loss)(model, x, y)\n"
                 "    updates, opt_state = sqrt_opt.update(grads, opt_state)\n"
                 "    return eqx.apply_updates(model, updates), opt_state, loss\n"
                 "mlp = eqx.nn.MLP(3, 1, 8, 2, key=jrandom.PRNGKey(0))\n"
                 "sqrt_opt = optax.adam(1e-2)\n"
                 "mlp_state = sqrt_opt.init(eqx.filter(mlp, eqx.is_array))\n"
                 "mlp, mlp_state, _ = eqx_sqrt_step(mlp, mlp_state, jnp.ones((4, 3)), "
                 "jnp.full((4, 1), 10.0))\n"
                 "print(bool(jnp.isnan(mlp.layers[0].weight).any()))\n")
EQUINOX["nan_where_step"] = EQX_SQRT_STEP.format(ret="jnp.sqrt(r)")
EQUINOX["nan_where_fixed"] = EQX_SQRT_STEP.format(ret="jnp.sqrt(jnp.where(r > 0, r, 1.0))")
SETUP["equinox"] = (
    "import math\n\nimport equinox as eqx\nimport jax\nimport jax.lax as lax\n"
    "import jax.numpy as jnp\nimport jax.random as jrandom\nimport numpy as np\n"
    "import optax  # https://github.com/deepmind/optax\nnp.random.seed(0)\n")
# the DCGAN example's evaluate(generator) then evaluate(discriminator) under one filter_jit:
# another model, another program (JAX: "different input pytree ... their Python types differ")
EQUINOX["two_models"] = (
    "class Up(eqx.Module):\n"
    "  layer: eqx.nn.Linear\n"
    "  def __init__(self, key):\n"
    "    self.layer = eqx.nn.Linear(3, 8, key=key)\n"
    "  def __call__(self, x):\n"
    "    return jnp.tanh(self.layer(x))\n"
    "class Down(eqx.Module):\n"
    "  layer: eqx.nn.Linear\n"
    "  def __init__(self, key):\n"
    "    self.layer = eqx.nn.Linear(8, 1, key=key)\n"
    "  def __call__(self, x):\n"
    "    return jax.nn.relu(self.layer(x))\n"
    "@eqx.filter_jit\n"
    "def evaluate(model, x):\n"
    "  return jax.vmap(model)(x)\n"
    "up, down = Up(jax.random.PRNGKey(0)), Down(jax.random.PRNGKey(1))\n"
    "y = evaluate(up, jnp.ones((5, 3)))\n"
    "print(evaluate(down, y).shape)\n")
# the vision_transformer example's constructor called in a loop with one key: each Block
# splits the same k2 (JAX: the blocks alike); the note's way out, a key per call, pasted
BLOCKS = (
    "class Block(eqx.Module):\n"
    "  a: eqx.nn.Linear\n"
    "  b: eqx.nn.Linear\n"
    "  def __init__(self, key):\n"
    "    key1, key2 = jax.random.split(key, 2)\n"
    "    self.a = eqx.nn.Linear(2, 2, key=key1)\n"
    "    self.b = eqx.nn.Linear(2, 2, key=key2)\n"
    "k1, k2 = jax.random.split(jax.random.PRNGKey(0))\n"
    "blocks = {blocks}\n"
    "print(bool((blocks[0].a.weight == blocks[1].a.weight).all()))\n")
EQUINOX["one_key_per_loop"] = BLOCKS.format(blocks="[Block(k2) for _ in range(3)]")
EQUINOX["one_key_per_loop_fixed"] = BLOCKS.format(
    blocks="[Block(k) for k in jax.random.split(k2, 3)]")
# one key given to two of Equinox's layers, at the learner's two lines (the draw is Linear's,
# past Equinox's own `__call__`): JAX makes them alike
EQUINOX["linear_one_key_twice"] = (
    "lk = jax.random.PRNGKey(3)\n"
    "l1 = eqx.nn.Linear(3, 4, key=lk)\n"
    "l2 = eqx.nn.Linear(3, 4, key=lk)\n"
    "print(bool((l1.weight == l2.weight).all()))\n")
# the learner's module handing its key to an Equinox layer, made in a loop with one key: the
# draw is inside Linear, the line to name the learner's
EQUINOX["wrapped_linear_per_loop"] = (
    "class Wrap(eqx.Module):\n"
    "  lin: eqx.nn.Linear\n"
    "  def __init__(self, key):\n"
    "    self.lin = eqx.nn.Linear(2, 2, key=key)\n"
    "wk = jax.random.PRNGKey(4)\n"
    "wraps = [Wrap(wk) for _ in range(2)]\n"
    "print(bool((wraps[0].lin.weight == wraps[1].lin.weight).all()))\n")
