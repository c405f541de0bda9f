"""A learner's program for each kind of recompile the explainer writes a fix for (a static
argument's value, a partial batch, a growing length, a dict key, a list appended to, None then
an array, x64, a jit of a lambda made in a loop), and where its note's code goes when pasted:
tests/views/test_pasted_fixes.py pastes the note's own snippet there (`pasted`) under jxkernel
and checks the trace count.

reference/make_pasted_fixes_reference.py runs each program and its pasted form (with `snippet`,
the note's code as the test checks it is written) under JAX 0.10.2 with
`jax_explain_cache_misses` on: tests/data/pasted_fixes_reference.json holds the traces of each.

name -> (what the learner did, program, the jitted function's name, where the snippet goes,
the snippet as the note writes it, traces of the pasted program). Where: ("before", callee)
before every line calling `callee` (at its indentation: the note's "before the call", "before
each call"); ("replace", first, last) in place of those lines (1-based: the jit or decorator
line the note rewrites); ("top", *moved) first thing, the lines `moved` deleted; ("after",
line) after that line; ("in_place", line, text) the snippet's expression (its code before
its comment) in place of `text` in that line; ("moved", first, last, above) those lines out, the snippet above line
`above` (a def moved out of the function around it); ("hoist", line, deleted) the snippet's first
line above the loop around `line`, its other lines in place of `line`, the lines `deleted`
(1-based) deleted: the notes that jit once above the loop (or the def) and call at the line
they name; ("factory", above, call, deleted) the snippet's def above line `above` (the
factory's def), its last line in place of line `call`, the lines `deleted` deleted.
"""

# a factory whose @jax.jit def closes over lr, called at every pass of a loop over lr, and its
# note's def written once (the jitted_closure_of_a_factory cases)
_MAKE_STEP = ("def make_step(lr):\n"
              "    @jax.jit\n"
              "    def step(w, g):\n"
              "        return w - lr * g\n"
              "    return step\n"
              "w = jnp.ones(3)\n"
              "for lr in (0.5, 0.25, 0.5):\n")
_STEP_ONCE = ("@jax.jit    # once, at the top level (above `def make_step(lr):`)\n"
              "def step(w, g, lr):\n"
              "    return w - lr * g\n")

CASES = {
    "static_value_decorated": (
        "a number static (static_argnums) that only scales: a new value each step",
        "import functools\n"
        "@functools.partial(jax.jit, static_argnums=1)\n"
        "def scale(x, k):\n"
        "    return x * k\n"
        "x = jnp.ones(3)\n"
        "for k in (1.0, 2.0, 3.0):\n"
        "    y = scale(x, k)\n",
        "scale", ("replace", 2, 3),
        "@jax.jit    # k traced: one program for all its values\n"
        "def scale(x, k):", 1),
    "static_value_jitted_by_name": (
        "the same, jitted by name: scale_jit = jax.jit(scale, static_argnums=1)",
        "def scale(x, k):\n"
        "    return x * k\n"
        "scale_jit = jax.jit(scale, static_argnums=1)\n"
        "x = jnp.ones(3)\n"
        "for k in (1.0, 2.0, 3.0):\n"
        "    y = scale_jit(x, k)\n",
        "scale", ("replace", 3, 3),
        "scale_jit = jax.jit(scale)    # k traced: one program for all its values", 1),
    "last_partial_batch": (
        "batches of 4 rows from 10: the last has 2",
        "data = jnp.arange(30.0).reshape(10, 3)\n"
        "@jax.jit\n"
        "def loss(batch):\n"
        "    return (batch ** 2).sum(axis=1).mean()\n"
        "for i in range(0, 10, 4):\n"
        "    batch = data[i:i + 4]\n"
        "    l = loss(batch)\n",
        "loss", ("before", "loss"),
        "n = batch.shape[0]\n"
        "batch = jnp.pad(batch, [(0, 4 - n)] + [(0, 0)] * (batch.ndim - 1))\n"
        "mask = jnp.arange(4) < n    # pass it in: weigh each row by it", 1),
    "growing_length": (
        "a vector one longer at every step (lengths 1 to 5)",
        "@jax.jit\n"
        "def total(x):\n"
        "    return x.sum()\n"
        "for n in range(1, 6):\n"
        "    x = jnp.ones(n)\n"
        "    t = total(x)\n",
        "total", ("before", "total"),
        "n = x.shape[0]\n"
        "size = max(2, 1 << (n - 1).bit_length())    # a power of two, at least 2\n"
        "x = jnp.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1))",
        3),                                         # buckets 2, 4, 8: not one, as it says
    "growing_length_of_an_expression": (
        "total(jnp.ones(n)) for n from 1 to 5: the argument an expression, n the loop's",
        "@jax.jit\n"
        "def total(x):\n"
        "    return x.sum()\n"
        "for n in range(1, 6):\n"
        "    t = total(jnp.ones(n))\n",
        "total", ("replace", 5, 5),
        "x = jnp.ones(n)    # line 5's argument, named\n"
        "n_x = x.shape[0]\n"
        "size = max(2, 1 << (n_x - 1).bit_length())    # a power of two, at least 2\n"
        "x = jnp.pad(x, [(0, size - n_x)] + [(0, 0)] * (x.ndim - 1))\n"
        "t = total(x)    # line 5, given it",
        3),                                         # buckets 2, 4, 8, as for growing_length
    "last_partial_batch_named_b": (
        "batches of 4 rows from 10, held in b (the parameter is batch)",
        "data = jnp.arange(30.0).reshape(10, 3)\n"
        "@jax.jit\n"
        "def loss(batch):\n"
        "    return (batch ** 2).sum(axis=1).mean()\n"
        "for i in range(0, 10, 4):\n"
        "    b = data[i:i + 4]\n"
        "    l = loss(b)\n",
        "loss", ("before", "loss"),
        "n = b.shape[0]\n"
        "b = jnp.pad(b, [(0, 4 - n)] + [(0, 0)] * (b.ndim - 1))\n"
        "mask = jnp.arange(4) < n    # pass it in: weigh each row by it", 1),
    "dict_key_added": (
        "a params dict given a 'b' entry after the first call",
        "@jax.jit\n"
        "def apply(params, x):\n"
        "    return x * params['w'] + params.get('b', 0.0)\n"
        "params = {'w': jnp.ones(3)}\n"
        "y = apply(params, jnp.ones(3))\n"
        "params['b'] = jnp.zeros(3)\n"
        "y = apply(params, jnp.ones(3))\n",
        "apply", ("before", "apply"),
        "defaults = {'b': jnp.zeros((3,), jnp.float32)}    # the keys some call lacks\n"
        "params = {**defaults, **params}    # the same keys in every call: before each"
        "\n# the same before line 5's call, for its params: set at one call alone, "
        "the other's structure is a program of its own", 1),
    "list_grown_by_append": (
        "a list appended to in a loop, passed whole at every pass",
        "@jax.jit\n"
        "def total(xs):\n"
        "    return sum(x.sum() for x in xs)\n"
        "xs = []\n"
        "for i in range(3):\n"
        "    xs.append(jnp.ones(2))\n"
        "    t = total(xs)\n",
        "total", ("replace", 7, 7),
        "MAX = 8                              # the most items a call has\n"
        "mask = jnp.arange(MAX) < len(xs)    # which rows are real: pass it too\n"
        "t = total(jnp.stack(list(xs) + [jnp.zeros((2,), jnp.float32)] * (MAX - len(xs))))"
        "    # line 7", 1),
    "none_then_array": (
        "a bias passed as None, then as an array",
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "for bias in (None, jnp.ones(3)):\n"
        "    y = f(jnp.ones(3), bias)\n",
        "f", ("before", "f"),
        "bias = jnp.zeros((3,)) if bias is None else bias    # an array in every call", 1),
    "none_then_int_array": (
        "an int32 offset passed as None, then as an array",
        "@jax.jit\n"
        "def shift(idx, offset):\n"
        "    return idx if offset is None else idx + offset\n"
        "for offset in (None, jnp.arange(3)):\n"
        "    y = shift(jnp.arange(3), offset)\n",
        "shift", ("before", "shift"),
        "offset = jnp.zeros((3,), jnp.int32) if offset is None else offset    # an array in "
        "every call", 1),
    "none_then_float32_array_under_x64": (
        "x64 on: a bias passed as None, then as a float32 array (jnp.zeros alone is float64)",
        "jax.config.update('jax_enable_x64', True)\n"
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "for bias in (None, jnp.ones(3, jnp.float32)):\n"
        "    y = f(jnp.ones(3, jnp.float32), bias)\n",
        "f", ("before", "f"),
        "bias = jnp.zeros((3,), jnp.float32) if bias is None else bias    # an array in every "
        "call", 1),
    "dict_key_added_under_x64": (
        "x64 on: a params dict given a 'b' entry (float64) after the first call",
        "jax.config.update('jax_enable_x64', True)\n"
        "@jax.jit\n"
        "def apply(params, x):\n"
        "    return x * params['w'] + params.get('b', 0.0)\n"
        "params = {'w': jnp.ones(3)}\n"
        "y = apply(params, jnp.ones(3))\n"
        "params['b'] = jnp.zeros(3)\n"
        "y = apply(params, jnp.ones(3))\n",
        "apply", ("before", "apply"),
        "defaults = {'b': jnp.zeros((3,), jnp.float64)}    # the keys some call lacks\n"
        "params = {**defaults, **params}    # the same keys in every call: before each"
        "\n# the same before line 6's call, for its params: set at one call alone, "
        "the other's structure is a program of its own", 1),
    "x64_turned_on_midway": (
        "jax_enable_x64 switched on between two calls",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(jnp.ones(3))\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "y = f(jnp.ones(3))\n",
        "f", ("top",),
        'jax.config.update("jax_enable_x64", True)    # first thing, before any jit', 1),
    "jit_of_a_lambda_in_a_loop": (
        "jax.jit(lambda ...) made at every pass of a loop",
        "x = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    step = jax.jit(lambda v: v * 2)\n"
        "    x = step(x)\n",
        "<lambda>", ("move", 3),
        "step = jax.jit(lambda v: v * 2)    # line 3: moved above the loop, unchanged", 1),
    "partial_jitted_in_a_loop": (
        "jax.jit(functools.partial(loss, beta=beta)) made at every pass, called on the next line",
        "import functools\n"
        "def loss(x, beta):\n"
        "    return x * beta\n"
        "x = jnp.ones(3)\n"
        "for beta in (0.1, 0.2, 0.3):\n"
        "    f = jax.jit(functools.partial(loss, beta=beta))\n"
        "    y = f(x)\n",
        "loss", ("hoist", 7, (6,)),
        "loss_jit = jax.jit(loss)    # once, above the loop that runs line 7; line 6 deleted\n"
        "y = loss_jit(x, beta=beta)    # line 7", 1),
    "partial_jitted_and_called_on_one_line": (
        "jax.jit(functools.partial(loss, b))(x) at every pass (bound by position)",
        "import functools\n"
        "def loss(beta, x):\n"
        "    return x * beta\n"
        "x = jnp.ones(3)\n"
        "for b in (0.1, 0.2, 0.3):\n"
        "    y = jax.jit(functools.partial(loss, b))(x)\n",
        "loss", ("hoist", 6, ()),
        "loss_jit = jax.jit(loss)    # once, above the loop that runs line 6\n"
        "y = loss_jit(b, x)    # line 6", 1),
    "method_jitted_in_a_loop": (
        "jax.jit(m.apply)(x) at every pass, m made before the loop",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "m = Model(2.0)\n"
        "x = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    y = jax.jit(m.apply)(x)\n",
        "apply", ("hoist", 9, ()),
        "apply_jit = jax.jit(m.apply)    # once, above the loop that runs line 9\n"
        "y = apply_jit(x)    # line 9", 1),
    "jit_of_a_lambda_called_on_its_line_in_a_loop": (
        "x = jax.jit(lambda v: ...)(x) at every pass (its note moved that line, call and all, "
        "above the loop: run once, not at every pass)",
        "x = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    x = jax.jit(lambda v: jnp.sin(v) * 2)(x)\n",
        "<lambda>", ("hoist", 3, ()),
        "lambda_jit = jax.jit(lambda v: jnp.sin(v) * 2)    # once, above the loop that runs it\n"
        "x = lambda_jit(x)    # line 3", 1),
    "jit_of_a_lambda_called_in_a_function": (
        "return jax.jit(lambda v: ...)(x) in a function called at every pass",
        "def g(v):\n"
        "    return v * 2\n"
        "def step(x):\n"
        "    return jax.jit(lambda v: g(v) + 1)(x)\n"
        "x = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    x = step(x)\n",
        "<lambda>", ("hoist", 4, ()),
        "lambda_jit = jax.jit(lambda v: g(v) + 1)    # once, above `def step(x):`, outside it\n"
        "return lambda_jit(x)    # line 4", 1),
    "jit_of_grad_made_in_a_loop": (
        "g = jax.jit(jax.grad(loss)) at every pass, called on the next line",
        "def loss(w):\n"
        "    return (w ** 2).sum()\n"
        "w = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    g = jax.jit(jax.grad(loss))\n"
        "    w = w - 0.1 * g(w)\n",
        "loss", ("move", 5),
        "g = jax.jit(jax.grad(loss))    # line 5: moved above the loop, unchanged", 1),
    "jit_of_grad_called_on_its_line": (
        "w - 0.1 * jax.jit(jax.grad(loss))(w) at every pass",
        "def loss(w):\n"
        "    return (w ** 2).sum()\n"
        "w = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    w = w - 0.1 * jax.jit(jax.grad(loss))(w)\n",
        "loss", ("hoist", 5, ()),
        "loss_jit = jax.jit(jax.grad(loss))    # once, above the loop that runs it\n"
        "w = w - 0.1 * loss_jit(w)    # line 5", 1),
    "lambda_with_a_default_jitted_in_a_loop": (
        "f = jax.jit(lambda v, k=k: v * k) at every pass, called on the next line",
        "x = jnp.ones(3)\n"
        "for k in (1.0, 2.0, 3.0):\n"
        "    f = jax.jit(lambda v, k=k: v * k)\n"
        "    y = f(x)\n",
        "<lambda>", ("hoist", 4, (3,)),
        "f = jax.jit(lambda v, k: v * k)    # once, above the loop that runs line 4; line 3 "
        "deleted\n"
        "y = f(x, k)    # line 4", 1),
    "lambda_with_a_default_jitted_and_called_on_one_line": (
        "jax.jit(lambda v, k=k: v * k)(x) at every pass",
        "x = jnp.ones(3)\n"
        "for k in (1.0, 2.0, 3.0):\n"
        "    y = jax.jit(lambda v, k=k: v * k)(x)\n",
        "<lambda>", ("hoist", 3, ()),
        "f_jit = jax.jit(lambda v, k: v * k)    # once, above the loop that runs line 3\n"
        "y = f_jit(x, k)    # line 3", 1),
    "object_jitting_its_method_made_in_a_loop": (
        "t = Trainer(0.1) at every pass, its __init__ jitting self._step",
        "class Trainer:\n"
        "    def __init__(self, lr):\n"
        "        self.lr = lr\n"
        "        self.step = jax.jit(self._step)\n"
        "    def _step(self, w):\n"
        "        return w - self.lr * w\n"
        "w = jnp.ones(3)\n"
        "for epoch in range(3):\n"
        "    t = Trainer(0.1)\n"
        "    w = t.step(w)\n",
        "_step", ("move", 9),
        "t = Trainer(0.1)    # line 9: moved above the loop, unchanged", 1),
    "jitted_def_inside_a_function": (
        "@jax.jit def inner inside a function called at every pass",
        "def step(x):\n"
        "    @jax.jit\n"
        "    def inner(v):\n"
        "        return v * 2\n"
        "    return inner(x)\n"
        "x = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    x = step(x)\n",
        "inner", ("moved", 2, 4, 1),
        "@jax.jit    # lines 2-4: moved out of step, above `def step(x):`, unchanged\n"
        "def inner(v):\n"
        "    return v * 2", 1),
    "jitted_closure_of_a_factory": (
        "w = make_step(lr)(w, g) at every pass, make_step's @jax.jit def closing over lr",
        _MAKE_STEP +
        "    w = make_step(lr)(w, jnp.ones(3))\n",
        "step", ("factory", 1, 8, ()),
        _STEP_ONCE +
        "w = step(w, jnp.ones(3), lr)    # line 8", 1),
    "jitted_closure_of_a_factory_bound_above": (
        "step = make_step(lr), then step(w, g), at every pass",
        _MAKE_STEP +
        "    update = make_step(lr)\n"
        "    w = update(w, jnp.ones(3))\n",
        "step", ("factory", 1, 9, (8,)),
        _STEP_ONCE +
        "w = step(w, jnp.ones(3), lr)    # line 9; line 8 deleted", 1),
    "jitted_closure_of_a_factory_static": (
        "make_zeros(n)(x) at every pass, n a shape in make_zeros' @jax.jit def",
        "def make_zeros(n):\n"
        "    @jax.jit\n"
        "    def zeros(x):\n"
        "        return jnp.zeros(n) + x\n"
        "    return zeros\n"
        "for n in (3, 3, 4):\n"
        "    y = make_zeros(n)(1.0)\n",
        "zeros", ("factory", 1, 7, ()),
        "@jax.jit(static_argnames=('n',))    # once, at the top level (above `def "
        "make_zeros(n):`)\n"
        "def zeros(x, n):\n"
        "    return jnp.zeros(n) + x\n"
        "y = zeros(1.0, n)    # line 7", 2),
    "user_context_in_a_block": (
        "a call inside `with ctx(1):` of a jax.make_user_context context, one outside",
        "ctx = jax.make_user_context(0)\n"
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(jnp.ones(3))\n"
        "with ctx(1):\n"
        "    y = f(jnp.ones(3))\n",
        "f", ("after", 1),
        "ctx.set_global(1)    # once, at start-up: every call under one value", 1),
    "user_context_made_after_a_call": (
        "a jax.make_user_context context made after the first call",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(jnp.ones(3))\n"
        "mode = jax.make_user_context('train')\n"
        "y = f(jnp.ones(3))\n",
        "f", ("top", 5),
        "mode = jax.make_user_context('train')    # at start-up, before any jitted call", 1),
    "matmul_precision_in_a_block": (
        "a call inside `with jax.default_matmul_precision('highest')`, one outside",
        "@jax.jit\n"
        "def f(a):\n"
        "    return a @ a\n"
        "a = jnp.ones((2, 2))\n"
        "y = f(a)\n"
        "with jax.default_matmul_precision('highest'):\n"
        "    y = f(a)\n",
        "f", ("top",),
        'jax.config.update("jax_default_matmul_precision", "highest")    # once, at start-up',
        1),
    "default_device_in_a_block": (
        "a call inside `with jax.default_device(cpu 0)`, one outside",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(jnp.ones(3))\n"
        "with jax.default_device(jax.devices('cpu')[0]):\n"
        "    y = f(jnp.ones(3))\n",
        "f", ("top",),
        'jax.config.update("jax_default_device", jax.devices("cpu")[0])    # once, at start-up',
        1),
    "traced_in_one_jit": (
        "jax.jit(f) and jax.jit(f, static_argnames='n'), called a(x, 2), then b(x, n=2)",
        "def f(x, n):\n"
        "    return x * n\n"
        "a = jax.jit(f)\n"
        "b = jax.jit(f, static_argnames='n')\n"
        "x = jnp.ones(3)\n"
        "y = a(x, 2)\n"
        "y = b(x, n=2)\n",
        "f", ("replace", 6, 6),
        "y = b(x, n=2)    # line 6: b, the one jit of f", 1),
    "traced_in_one_jit_by_position": (
        "n static in the first jit (a(x, n=2)), traced in the second (b(x, 2))",
        "def f(x, n):\n"
        "    return x * n\n"
        "a = jax.jit(f, static_argnames='n')\n"
        "b = jax.jit(f)\n"
        "x = jnp.ones(3)\n"
        "y = a(x, n=2)\n"
        "y = b(x, 2)\n",
        "f", ("replace", 6, 6),
        "y = b(x, 2)    # line 6: b, the one jit of f", 1),
    "static_by_position_then_keyword": (
        "a static n passed by position, then by keyword (its value the same)",
        "import functools\n"
        "@functools.partial(jax.jit, static_argnames='n')\n"
        "def power(x, n):\n"
        "    return x ** n\n"
        "x = jnp.ones(3)\n"
        "y = power(x, 2)\n"
        "y = power(x, n=2)\n",
        "power", ("replace", 6, 6),
        "y = power(x, n=2)    # line 6: n by keyword, as at line 7", 1),
    "static_by_keyword_then_position": (
        "a static n passed by keyword, then by position, to a function jitted by name",
        "def power(x, n):\n"
        "    return x ** n\n"
        "p = jax.jit(power, static_argnums=1)\n"
        "x = jnp.ones(3)\n"
        "y = p(x, n=2)\n"
        "y = p(x, 2)\n",
        "power", ("replace", 6, 6),
        "y = p(x, n=2)    # line 6: n by keyword, as at line 5", 1),
    "argument_by_position_then_keyword": (
        "a traced k passed by position, then by keyword",
        "@jax.jit\n"
        "def scale(x, k):\n"
        "    return x * k\n"
        "v = jnp.ones(3)\n"
        "y = scale(v, 2.0)\n"
        "y = scale(v, k=2.0)\n",
        "scale", ("replace", 5, 5),
        "y = scale(v, k=2.0)    # line 5: k by keyword, as at line 6", 1),
    "numbers_then_array": (
        "an array, then a list of Python numbers, passed as xs",
        "@jax.jit\n"
        "def total(xs):\n"
        "    return jnp.sum(jnp.asarray(xs))\n"
        "y = total(jnp.ones(3))\n"
        "xs = [1.0, 2.0, 3.0]\n"
        "y = total(xs)\n",
        "total", ("after", 5),
        "xs = jnp.asarray(xs)    # one array, every call", 1),
    "object_static_of_number_fields": (
        "a hashable object of number fields, static, made anew with another value each pass",
        "import functools\n"
        "class Params:\n"
        "    def __init__(self, a, b):\n"
        "        self.a = a\n"
        "        self.b = b\n"
        "    def __eq__(self, other):\n"
        "        return (self.a, self.b) == (other.a, other.b)\n"
        "    def __hash__(self):\n"
        "        return hash((self.a, self.b))\n"
        "@functools.partial(jax.jit, static_argnums=1)\n"
        "def apply(x, p):\n"
        "    return x * p.a + p.b\n"
        "x = jnp.ones(3)\n"
        "for a in (1.0, 2.0, 3.0):\n"
        "    y = apply(x, Params(a, 0.5))\n",
        "apply", ("replace", 10, 11),
        "jax.tree_util.register_pytree_node(\n"
        "    Params, lambda m: ((m.a, m.b,), None), lambda _, leaves: Params(*leaves))\n"
        "@jax.jit    # p traced: its fields are the leaves\n"
        "def apply(x, p):", 1),
    "symbolic_shape_made_in_a_loop": (
        "jax.export of one function with a symbolic shape, its symbol n made anew each pass",
        "def f(x):\n"
        "    return x * 2\n"
        "for i in range(2):\n"
        "    n, = jax.export.symbolic_shape(\"n\")\n"
        "    exp = jax.export.export(jax.jit(f))(jax.ShapeDtypeStruct((n,), jnp.float32))\n",
        "f", ("move", 4),
        "n, = jax.export.symbolic_shape(\"n\")    # once; then every export uses n", 1),
    "number_then_vmap": (
        "f(1.0), then jax.vmap(f) of an array: weak in the first call, strong under vmap",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(1.0)\n"
        "ys = jax.vmap(f)(jnp.ones(3))\n",
        "f", ("in_place", 4, "1.0"),
        "jnp.asarray(1.0, jnp.float32)    # in place of 1.0 in f(1.0), and of each Python "
        "number passed as x", 1),
    "meta_field_changes": (
        "a dataclass registered with k a meta field, k another number in the next call",
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class P:\n"
        "    w: object\n"
        "    k: float\n"
        "jax.tree_util.register_dataclass(P, data_fields=['w'], meta_fields=['k'])\n"
        "@jax.jit\n"
        "def f(p):\n"
        "    return p.w * p.k\n"
        "y = f(P(jnp.ones(3), 1.0))\n"
        "y = f(P(jnp.ones(3), 2.0))\n",
        "f", ("replace", 6, 6),
        "jax.tree_util.register_dataclass(P, data_fields=['w', 'k'], meta_fields=[])    # k: "
        "data, traced", 1),
    "default_left_out_then_passed": (
        "scale(v), factor left to its default 2.0, then scale(v, factor=3.0)",
        "@jax.jit\n"
        "def scale(x, factor=2.0):\n"
        "    return x * factor\n"
        "v = jnp.ones(5)\n"
        "y = scale(v)\n"
        "y = scale(v, factor=3.0)\n",
        "scale", ("replace", 5, 5),
        "y = scale(v, factor=2.0)    # line 5: factor passed, its default, as line 6 passes one",
        1),
}

# the options a case may set (config.update, a block's), each set back after a program runs
OPTIONS = ("jax_enable_x64", "jax_default_matmul_precision", "jax_default_device")


def pasted(name, snippet=None):
    """CASES[name]'s program with `snippet` (by default the one recorded there) pasted where
    the case says."""
    _, program, _, where, recorded, _ = CASES[name]
    snippet = recorded if snippet is None else snippet
    lines, block = program.splitlines(), snippet.splitlines()
    if where[0] == "hoist":         # the first line above the loop around line where[1],
        call = where[1] - 1         # the rest in place of that line, lines where[2] deleted
        indent = len(lines[call]) - len(lines[call].lstrip())
        loop = max(i for i in range(call) if lines[i].lstrip().startswith(
            ("for ", "while ", "def ")) and len(lines[i]) - len(lines[i].lstrip()) < indent)
        at = lines[loop][:len(lines[loop]) - len(lines[loop].lstrip())]
        inner = lines[call][:indent]
        out = []
        for i, line in enumerate(lines):
            if i == loop:
                out.append(at + block[0])
            if i == call:
                out += [inner + b for b in block[1:]]
            elif i + 1 not in where[2]:
                out.append(line)
        lines = out
    elif where[0] == "move":          # line where[1] out, the snippet above its loop
        line = where[1] - 1
        indent = len(lines[line]) - len(lines[line].lstrip())
        loop = max(i for i in range(line) if lines[i].lstrip().startswith(("for ", "while "))
                   and len(lines[i]) - len(lines[i].lstrip()) < indent)
        at = lines[loop][:len(lines[loop]) - len(lines[loop].lstrip())]
        lines = lines[:loop] + [at + b for b in block] + lines[loop:line] + lines[line + 1:]
    elif where[0] == "top":         # first thing, the lines where[1:] (moved there) deleted
        lines = block + [line for i, line in enumerate(lines) if i + 1 not in where[1:]]
    elif where[0] == "moved":       # lines where[1]..where[2] out, the snippet above line
        first, last, above = where[1:]  # where[3], at its indentation
        at = lines[above - 1][:len(lines[above - 1]) - len(lines[above - 1].lstrip())]
        kept = lines[:first - 1] + lines[last:]
        lines = kept[:above - 1] + [at + b for b in block] + kept[above - 1:]
    elif where[0] == "factory":     # the snippet's def above line where[1] (a factory's
        above, call = where[1] - 1, where[2] - 1    # def), its last line in place of line
        inner = lines[call][:len(lines[call]) - len(lines[call].lstrip())]   # where[2], the
        out = []                                    # lines where[3] deleted
        for i, line in enumerate(lines):
            if i == above:
                out += block[:-1]
            if i == call:
                out.append(inner + block[-1])
            elif i + 1 not in where[3]:
                out.append(line)
        lines = out
    elif where[0] == "in_place":    # the snippet's expression for where[2] in line where[1]
        lines[where[1] - 1] = lines[where[1] - 1].replace(
            where[2], snippet.partition("    #")[0], 1)
    elif where[0] == "after":       # after line where[1]
        lines = lines[:where[1]] + block + lines[where[1]:]
    elif where[0] == "replace":     # at the first line's indentation
        first = lines[where[1] - 1]
        at = first[:len(first) - len(first.lstrip())]
        lines = lines[:where[1] - 1] + [at + b for b in block] + lines[where[2]:]
    else:
        out = []
        for line in lines:
            body = line.lstrip()
            if f"{where[1]}(" in body and not body.startswith(("def ", "@")):
                indent = line[:len(line) - len(body)]
                out += [indent + b for b in block]
            out.append(line)
        lines = out
    return "\n".join(lines) + "\n"


# An array grown by jnp.append at every pass and read whole (a mean): its note's code is a
# pattern (n_steps, i, value: the learner's to fill in), and the function must weigh by the
# mask (said in words). `grown_filled` fills the note's pattern in as its comments say.
GROWN = (
    "h = jnp.zeros(0)\n"
    "@jax.jit\n"
    "def mean(h):\n"
    "    return h.mean()\n"
    "for i in range(4):\n"
    "    h = jnp.append(h, float(i + 1))\n"
    "    means.append(float(mean(h)))\n")

# its note's code at the third call, as the note writes it (the test checks it is)
GROWN_SNIPPET = (
    "# n_steps: how many steps; i: this step's index; value: this step's value\n"
    "h = jnp.zeros((n_steps,) + h.shape[1:], h.dtype)    # once, before the loop\n"
    "# in the jitted step, i an argument (traced):\n"
    "h = h.at[i].set(value)\n"
    "mask = jnp.arange(n_steps) <= i    # the rows written so far, where it is read whole")


def grown_filled(snippet=GROWN_SNIPPET):
    """GROWN with the note's pattern filled in: n_steps 4, value the appended one; its first
    line after the one making h, the write and the mask in place of the append, and the
    mean weighed by the mask."""
    code = [line.replace("n_steps", "4").replace("value", "float(i + 1)")
            for line in snippet.splitlines() if not line.startswith("#")]
    made, written, mask = code
    return GROWN.replace("h = jnp.zeros(0)\n", f"h = jnp.zeros(0)\n{made}\n").replace(
        "    h = jnp.append(h, float(i + 1))\n", f"    {written}\n    {mask}\n").replace(
        "def mean(h):\n    return h.mean()\n",
        "def mean(h, mask):\n    return (h * mask).sum() / mask.sum()\n").replace(
        "mean(h)))", "mean(h, mask)))")


# A value closed over (a global array) rebound between calls, and a compile for a new shape
# after it: that compile's note (a "constant" change) passes the value in. Its code is the
# def line given the value as a parameter and the call at the line it names passing it; the
# note says "and w so in every call": `passed_in` pastes the def line over the learner's, the
# call line over line 7 and passes w in the other calls too. Under JAX 0.10.2, as under
# jxkernel, the program's last call (a cache hit) keeps the first w; pasted, it reads the
# new one (`outs`). (w = jnp.full(3, 2.0) would be weakly typed in JAX: a third trace.)
CLOSED_OVER = (
    "w = jnp.ones(3)\n"
    "@jax.jit\n"
    "def f(x):\n"
    "    return x * w.sum()\n"
    "outs.append(f(jnp.ones(2)).tolist())\n"
    "w = 2 * jnp.ones(3)\n"
    "outs.append(f(jnp.ones(3)).tolist())\n"
    "outs.append(f(jnp.ones(2)).tolist())\n")
CLOSED_OVER_SNIPPET = (
    "def f(x, w):    # w passed in: its value at each call, not the one traced\n"
    "outs.append(f(jnp.ones(3), w).tolist())    # line 7: and w so in every call")


def passed_in(snippet=CLOSED_OVER_SNIPPET):
    """CLOSED_OVER with the note's code pasted: its def line over line 3, its call over line
    7, and w passed in the other calls of f, as the note says."""
    def_line, call = snippet.splitlines()
    lines = CLOSED_OVER.splitlines()
    lines[2], lines[6] = def_line, call
    lines = [line.replace("f(jnp.ones(2))", "f(jnp.ones(2), w)") for line in lines]
    return "\n".join(lines) + "\n"


# Two jits of one function with other options (donate_argnums), both called: JAX 0.10.2
# traces once and lowers and compiles twice (jxkernel: two compile events). The note's code
# binds the name the second call used; pasted over the first jit's line, the other jit's line
# deleted ("no other"), one program (`options_pasted`).
OPTIONS_DIFFER = (
    "def f(x):\n"
    "    return x * 2\n"
    "a = jax.jit(f)\n"
    "y = a(jnp.ones(3))\n"
    "a = jax.jit(f, donate_argnums=0)\n"
    "y = a(jnp.ones(3))\n")
OPTIONS_SNIPPET = ("a = jax.jit(f, donate_argnums=(0,))    # the one jit of f: call it "
                   "everywhere, no other")


def options_pasted(snippet=OPTIONS_SNIPPET):
    """OPTIONS_DIFFER with the note's code over line 3 and line 5 deleted."""
    lines = OPTIONS_DIFFER.splitlines()
    lines[2] = snippet
    del lines[4]
    return "\n".join(lines) + "\n"


# jax.jit(f)(x) at every pass, f a def made once: jit's cache is keyed on f, so one trace in
# JAX 0.10.2 and no note (a new jit object of the same function object is no new function)
JIT_OF_A_DEF_IN_A_LOOP = (
    "def f(x):\n"
    "    return x * 2\n"
    "x = jnp.ones(3)\n"
    "for i in range(3):\n"
    "    x = jax.jit(f)(x)\n")


# An input put on another device (cpu:1 of the 8 CPU devices the suite and the reference ask
# for) between two calls: JAX 0.10.2 traces once and compiles twice (jxkernel: two compile
# events). The note's code puts each call's argument on the first call's device, in its
# names, each line before the line it names: one compile, as in JAX (v alone put back,
# committed, and x left uncommitted, JAX compiles twice: pasted_fixes_reference.json's
# device_v_alone).
DEVICE_CHANGED = (
    "@jax.jit\n"
    "def f(x):\n"
    "    return x * 2\n"
    "x = jnp.ones(3)\n"
    "y = f(x)\n"
    "v = jax.device_put(jnp.ones(3), jax.devices()[1])\n"
    "y = f(v)\n")
DEVICE_SNIPPET = ("x = jax.device_put(x, jax.devices()[0])    # before line 5\n"
                  "v = jax.device_put(v, jax.devices()[0])    # before line 7")


# an array put on the one device (committed to it) where the first call's was made there
# (uncommitted): one trace, two compiles in JAX 0.10.2; the note's code puts each call's
# arguments on the device before the call (at_the_calls._COMMITTED_AT_THE_CALLS)
COMMITTED_CHANGED = (
    "@jax.jit\n"
    "def f(x):\n"
    "    return x * 2\n"
    "x = jnp.ones(3)\n"
    "y = f(x)\n"
    "v = jax.device_put(jnp.ones(3), jax.devices()[0])\n"
    "y = f(v)\n")
COMMITTED_SNIPPET = DEVICE_SNIPPET


def device_pasted(snippet=DEVICE_SNIPPET, program=DEVICE_CHANGED):
    """`program` (DEVICE_CHANGED) with each line of the note's code before the line it
    names."""
    lines = program.splitlines()
    out = []
    for number, line in enumerate(lines, 1):
        out += [code for code in snippet.splitlines() if code.endswith(f"# before line {number}")]
        out.append(line)
    return "\n".join(out) + "\n"
