"""A learner's audit of the recompile notes (h-explain9, h-explain10): programs recompiling a
`jax.jit` that tests/data/recompile_cases.py does not hold, in its format (source text run
with `jax`, `jnp` and `np` in its globals, file `<recompile:NAME>`). JAX 0.10.2's log of each
is recorded by reference/make_recompile_audit_reference.py in
tests/data/recompile_audit_reference.json; tests/views/test_recompile_audit.py compares
jxkernel's explanations with it, and tests/notebook/test_notebook_recompile_audit.py the
notes a notebook shows.
"""
import numpy as np

FILE_PREFIX = "<recompile:"

# a register_static definition holding an update function made by make_update (and twelve
# names, for a text of some length): register_static_holding_a_function_made_anew's
DEF_HOLDING_AN_UPDATE = (
    "import dataclasses\n"
    "@jax.tree_util.register_static\n"
    "@dataclasses.dataclass(frozen=True)\n"
    "class Def:\n"
    "    names: tuple\n"
    "    update: object\n"
    "def make_update(lr):\n"
    "    def update_fn(g):\n"
    "        return -lr * g\n"
    "    return update_fn\n"
    "def step(x, d):\n"
    "    return x + d.update(x) * len(d.names)\n"
    "f = jax.jit(step)\n"
    "names = tuple(f'layer_{i}.kernel' for i in range(12))\n")

SCENARIOS = {
    "static_enum_member": (
        "an Enum member as a static argument, TRAIN then EVAL",
        "import enum\n"
        "class Mode(enum.Enum):\n"
        "    TRAIN = 1\n"
        "    EVAL = 2\n"
        "def apply(x, mode):\n"
        "    return x * 0.5 if mode is Mode.TRAIN else x\n"
        "f = jax.jit(apply, static_argnums=1)\n"
        "f(jnp.ones(3), Mode.TRAIN); f(jnp.ones(3), Mode.EVAL)\n"),
    "static_activation_function": (
        "an activation function as a static argument: relu, then gelu",
        "def layer(x, act):\n"
        "    return act(x)\n"
        "f = jax.jit(layer, static_argnums=1)\n"
        "f(jnp.ones(3), jax.nn.relu); f(jnp.ones(3), jax.nn.gelu)\n"),
    "static_jnp_function": (
        "a jnp function as a static argument: jnp.sin, then jnp.cos",
        "def apply(x, fn):\n"
        "    return fn(x)\n"
        "f = jax.jit(apply, static_argnames='fn')\n"
        "f(jnp.ones(3), fn=jnp.sin); f(jnp.ones(3), fn=jnp.cos)\n"),
    "static_lambda_written_twice": (
        "the same lambda written twice as a static argument, as in two cells",
        "def apply(x, fn):\n"
        "    return fn(x)\n"
        "f = jax.jit(apply, static_argnums=1)\n"
        "f(jnp.ones(3), lambda v: v * 2)\n"
        "f(jnp.ones(3), lambda v: v * 2)\n"),
    "pytree_node_without_keys_leaf_shape": (
        "a class registered with register_pytree_node (no keys): its second leaf grows",
        "class Pair:\n"
        "    def __init__(self, a, b):\n"
        "        self.a, self.b = a, b\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Pair, lambda p: ((p.a, p.b), None), lambda _, ab: Pair(*ab))\n"
        "f = jax.jit(lambda p: p.a.sum() + p.b.sum())\n"
        "f(Pair(jnp.ones(2), jnp.ones(3))); f(Pair(jnp.ones(2), jnp.ones(4)))\n"),
    "register_dataclass_field_dtype": (
        "a jax.tree_util.register_dataclass state: its step field int32, then float32",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass\n"
        "class State:\n"
        "    w: jax.Array\n"
        "    step: jax.Array\n"
        "f = jax.jit(lambda s: s.w * s.step)\n"
        "f(State(jnp.ones(3), jnp.array(0))); f(State(jnp.ones(3), jnp.array(0.0)))\n"),
    "dict_int_keys_then_str_keys": (
        "a dict keyed by layer number, then by its string",
        "f = jax.jit(lambda d: sum(v.sum() for v in d.values()))\n"
        "f({0: jnp.ones(2), 1: jnp.ones(2)}); f({'0': jnp.ones(2), '1': jnp.ones(2)})\n"),
    "typed_key_batch_grows": (
        "a batch of typed keys (jax.random.split) of 3, then of 4",
        "def sample(keys):\n"
        "    return jax.vmap(lambda k: jax.random.normal(k, (2,)))(keys)\n"
        "f = jax.jit(sample)\n"
        "key = jax.random.key(0)\n"
        "f(jax.random.split(key, 3)); f(jax.random.split(key, 4))\n"),
    "raw_key_then_split_raw_keys": (
        "a raw PRNGKey, then a batch of raw keys from split",
        "f = jax.jit(lambda k: jax.random.key_data(jax.random.wrap_key_data(k)).sum())\n"
        "key = jax.random.PRNGKey(0)\n"
        "f(key); f(jax.random.split(key, 2))\n"),
    "debug_infs_toggled": (
        "jax_debug_infs switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_debug_infs', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_debug_infs', False)\n"),
    "log_compiles_toggled": (
        "jax_log_compiles switched off between two calls: not in the trace context, a hit",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_log_compiles', False)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_log_compiles', True)\n"),
    "static_negative_zero": (
        "a static 0.0, then -0.0: equal, the same hash, a cache hit",
        "f = jax.jit(lambda x, b: x + b, static_argnums=1)\n"
        "f(jnp.ones(3), 0.0); out = f(jnp.ones(3), -0.0)\n"),
    "static_set_unhashable": (
        "a set as a static argument: an error, nothing traced",
        "f = jax.jit(lambda x, axes: x.sum(tuple(axes)), static_argnums=1)\n"
        "f(jnp.ones((2, 3)), {0, 1})\n"),
    "static_frozenset_changes": (
        "a frozenset of axes as a static argument: a new one, a new value",
        "f = jax.jit(lambda x, axes: x.sum(tuple(sorted(axes))), static_argnums=1)\n"
        "f(jnp.ones((2, 3)), frozenset({0})); f(jnp.ones((2, 3)), frozenset({0, 1}))\n"),
    "jnp_float32_scalar_then_python_float": (
        "jnp.float32(0.1) as a learning rate, then a Python float",
        "step = jax.jit(lambda w, lr: w - lr * w)\n"
        "step(jnp.ones(3), jnp.float32(0.1)); step(jnp.ones(3), 0.1)\n"),
    "jnp_array_of_python_float_then_float32": (
        "jnp.array(1.0) (weak), then jnp.array(1.0, jnp.float32)",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.array(1.0)); f(jnp.array(1.0, jnp.float32))\n"),
    "value_and_grad_of_jit_new_shape": (
        "value_and_grad of a jitted loss, then a longer batch",
        "loss = jax.jit(lambda w: (w ** 2).sum())\n"
        "vg = jax.value_and_grad(loss)\n"
        "vg(jnp.ones(3)); vg(jnp.ones(4))\n"),
    "hessian_of_jit_new_shape": (
        "jax.hessian of a jitted function, then a longer vector",
        "f = jax.jit(lambda w: (w ** 3).sum())\n"
        "h = jax.hessian(f)\n"
        "h(jnp.ones(2)); h(jnp.ones(3))\n"),
    "global_array_rebound_new_dtype": (
        "a global array read inside jit, rebound to an int array",
        "scale = jnp.ones(3)\n"
        "def g(x):\n"
        "    return x * scale\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(3))\n"
        "scale = jnp.arange(3)\n"
        "out = f(jnp.ones(3))\n"),
    "list_comprehension_of_jits": (
        "jitted lambdas made in a list comprehension, each called once",
        "fs = [jax.jit(lambda x, k=k: x * k) for k in range(3)]\n"
        "for f in fs:\n"
        "    f(jnp.ones(3))\n"),
    "jit_decorator_with_partial_static_argnames_value": (
        "@functools.partial(jax.jit, static_argnames='training'): True, then False",
        "import functools\n"
        "@functools.partial(jax.jit, static_argnames='training')\n"
        "def dropout(x, training):\n"
        "    return x * 0.5 if training else x\n"
        "dropout(jnp.ones(3), training=True); dropout(jnp.ones(3), training=False)\n"),
    "int8_then_uint8": (
        "int8 pixels, then uint8 pixels",
        "f = jax.jit(lambda img: img.astype(jnp.float32) / 255)\n"
        "f(np.zeros((2, 2), np.int8)); f(np.zeros((2, 2), np.uint8))\n"),
    "int8_then_uint8_at_two_calls": (
        "int8 pixels, then uint8 ones of 200, each call on its own line",
        "f = jax.jit(lambda img: img.astype(jnp.float32) / 255)\n"
        "a = np.zeros((2, 2), np.int8)\n"
        "b = np.full((2, 2), 200, np.uint8)\n"
        "f(a)\n"
        "pixels = f(b)\n"),
    "bool_then_int": (
        "a scale passed as True, then as 2",
        "f = jax.jit(lambda x, s: x * s)\n"
        "a = f(jnp.ones(3), True)\n"
        "b = f(jnp.ones(3), 2)\n"
        "out = jnp.stack([a, b])\n"),
    "complex64_then_float32": (
        "a complex64 signal, then a float32 one",
        "f = jax.jit(lambda s: jnp.abs(s).sum())\n"
        "f(jnp.ones(4, jnp.complex64)); f(jnp.ones(4))\n"),
    "dict_int_keys_gains_a_key": (
        "a dict of layers keyed by number gains a layer",
        "f = jax.jit(lambda layers: sum(w.sum() for w in layers.values()))\n"
        "f({0: jnp.ones(2), 1: jnp.ones(2)}); f({0: jnp.ones(2), 1: jnp.ones(2), 2: jnp.ones(2)})\n"),
    "pytree_node_without_keys_child_added": (
        "a register_pytree_node class holding a list of arrays, one more",
        "class Stack:\n"
        "    def __init__(self, items):\n"
        "        self.items = items\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Stack, lambda s: (tuple(s.items), None), lambda _, xs: Stack(list(xs)))\n"
        "f = jax.jit(lambda s: sum(x.sum() for x in s.items))\n"
        "f(Stack([jnp.ones(2)])); f(Stack([jnp.ones(2), jnp.ones(2)]))\n"),
    # ------------------------------------------------ h-explain10: custom rules, hessian
    "custom_jvp_jitted_new_shape": (
        "a jitted custom_jvp function, then a longer vector: JAX names the function",
        "@jax.custom_jvp\n"
        "def softclip(x):\n"
        "    return jnp.tanh(x)\n"
        "@softclip.defjvp\n"
        "def softclip_jvp(p, t):\n"
        "    (x,), (dx,) = p, t\n"
        "    return jnp.tanh(x), dx * (1 - jnp.tanh(x) ** 2)\n"
        "f = jax.jit(softclip)\n"
        "f(jnp.ones(3)); f(jnp.ones(4))\n"),
    "custom_vjp_jitted_new_shape": (
        "a jitted custom_vjp function, then a longer vector",
        "@jax.custom_vjp\n"
        "def clipgrad(x):\n"
        "    return x\n"
        "clipgrad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1, 1),))\n"
        "f = jax.jit(clipgrad)\n"
        "f(jnp.ones(3)); f(jnp.ones(4))\n"),
    "static_custom_jvp_then_custom_vjp": (
        "a custom_jvp function as a static argument, then a custom_vjp one",
        "@jax.custom_jvp\n"
        "def softclip(x):\n"
        "    return jnp.tanh(x)\n"
        "softclip.defjvp(lambda p, t: (softclip(p[0]), t[0]))\n"
        "@jax.custom_vjp\n"
        "def clipgrad(x):\n"
        "    return x\n"
        "clipgrad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1, 1),))\n"
        "def loss(w, act):\n"
        "    return act(w).sum()\n"
        "f = jax.jit(loss, static_argnums=1)\n"
        "f(jnp.ones(3), softclip); f(jnp.ones(3), clipgrad)\n"),
    "jit_of_hessian_new_shape": (
        "jax.jit(jax.hessian(f)) of a plain function, then a longer vector",
        "def f(w):\n"
        "    return (w ** 3).sum()\n"
        "h = jax.jit(jax.hessian(f))\n"
        "h(jnp.ones(2)); h(jnp.ones(3))\n"),
    "jit_calling_hessian_new_shape": (
        "a jitted function calling jax.hessian of a plain one, then a longer vector",
        "def f(w):\n"
        "    return (w ** 3).sum()\n"
        "@jax.jit\n"
        "def curvature(w):\n"
        "    return jnp.trace(jax.hessian(f)(w))\n"
        "curvature(jnp.ones(2)); curvature(jnp.ones(3))\n"),
    "jit_calling_hessian_of_jit_new_shape": (
        "a jitted function calling jax.hessian of a jitted one, then a longer vector",
        "f = jax.jit(lambda w: (w ** 3).sum())\n"
        "@jax.jit\n"
        "def curvature(w):\n"
        "    return jnp.trace(jax.hessian(f)(w))\n"
        "curvature(jnp.ones(2)); curvature(jnp.ones(3))\n"),
    # ------------------------------------------------ h-explain10: a workshop's mistakes
    "python_scalar_each_iteration": (
        "a Python float learning rate that changes each loop iteration: traced, one program",
        "def sgd(w, lr):\n"
        "    return w - lr * w\n"
        "step = jax.jit(sgd)\n"
        "w = jnp.ones(3)\n"
        "for lr in (0.1, 0.05, 0.025):\n"
        "    w = step(w, lr)\n"),
    "static_python_scalar_each_iteration": (
        "a static Python float that changes each loop iteration: a program per value",
        "step = jax.jit(lambda w, lr: w - lr * w, static_argnums=1)\n"
        "w = jnp.ones(3)\n"
        "for lr in (0.1, 0.05, 0.025):\n"
        "    w = step(w, lr)\n"),
    "list_argument_grows": (
        "a list of arrays one longer each iteration",
        "f = jax.jit(lambda xs: sum(x.sum() for x in xs))\n"
        "xs = []\n"
        "for i in range(3):\n"
        "    xs.append(jnp.ones(2))\n"
        "    f(xs)\n"),
    "dict_key_order": (
        "the same dict keys in another order: JAX sorts them, a cache hit",
        "f = jax.jit(lambda d: d['a'] * 2 + d['b'])\n"
        "f({'a': jnp.ones(2), 'b': jnp.ones(2)}); out = f({'b': jnp.ones(2), 'a': jnp.ones(2)})\n"),
    "dataclass_meta_field_changes": (
        "a register_dataclass config whose meta field (static) changes",
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class Cfg:\n"
        "    w: jax.Array\n"
        "    layers: int\n"
        "jax.tree_util.register_dataclass(Cfg, data_fields=['w'], meta_fields=['layers'])\n"
        "f = jax.jit(lambda c: c.w * c.layers)\n"
        "f(Cfg(jnp.ones(3), 2)); f(Cfg(jnp.ones(3), 3))\n"),
    "namedtuple_int_field_changes": (
        "a NamedTuple with a Python int field: a traced leaf, its new value no new program",
        "from typing import NamedTuple\n"
        "class Batch(NamedTuple):\n"
        "    x: jax.Array\n"
        "    n: int\n"
        "f = jax.jit(lambda b: b.x * b.n)\n"
        "f(Batch(jnp.ones(3), 2)); out = f(Batch(jnp.ones(3), 3))\n"),
    "donated_then_new_shape": (
        "donate_argnums: the same shape reuses the program, a new shape compiles",
        "f = jax.jit(lambda x: x + 1, donate_argnums=0)\n"
        "x = f(jnp.ones(3)); x = f(x); x = f(jnp.ones(4))\n"),
    "global_python_float_changes": (
        "a global Python float read inside jit, changed: a cache hit keeping the old value",
        "scale = 2.0\n"
        "def g(x):\n"
        "    return x * scale\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(3))\n"
        "scale = 3.0\n"
        "out = f(jnp.ones(3))\n"),
    "fresh_lambda_jit_in_loop": (
        "jax.jit of a new lambda inside a for loop, each iteration",
        "x = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    x = jax.jit(lambda v: v * 2)(x)\n"),
    "sequence_lengths_vary": (
        "sequences of length 5, then 7 (shape polymorphism: padding advice)",
        "f = jax.jit(lambda s: jnp.cumsum(s).max())\n"
        "for n in (5, 7):\n"
        "    f(jnp.ones(n))\n"),
    "python_int_then_python_float": (
        "a Python int scale, then a Python float: weak i32 to weak f32",
        "f = jax.jit(lambda x, s: x * s)\n"
        "f(jnp.ones(3), 2); f(jnp.ones(3), 2.0)\n"),
    "x64_toggled": (
        "jax_enable_x64 switched on between two calls",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "try:\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    # a static argument the function only passes on to a helper of the learner's, whose use
    # of it the note does not read (fixes._STATIC_PASSED): a program per value, as in JAX;
    # its "drop it from static_argnums" where the helper only computes with it:
    # static_passed_on_to_a_helper_fixed; its "a shape: a program per value is expected"
    "static_passed_on_to_a_helper": (
        "a static n passed on to a helper that only computes with it, n = 1, 2, 3",
        "import functools\n"
        "def scaled(x, n):\n"
        "    return x * n\n"
        "@functools.partial(jax.jit, static_argnums=1)\n"
        "def f(x, n):\n"
        "    return scaled(x, n)\n"
        "out = jnp.stack([f(jnp.ones(2), n) for n in (1, 2, 3)])\n"),
    # n static in one jit of a function and an array traced in another (statics'
    # _ARRAY_TRACED_FIX): two programs in JAX; with n traced in both jits still two
    # (_unstatic: a Python 2 traced is a weak i32[], another type than f32[3]); passed as an
    # array of one shape to one jit, one (_fixed)
    "static_in_one_jit_array_in_another": (
        "n static 2 in one jit of scale, then an array f32[3] in another jit of it",
        "def scale(x, n):\n"
        "    return x * n\n"
        "g = jax.jit(scale, static_argnums=1)\n"
        "a = g(jnp.ones(3), 2)\n"
        "h = jax.jit(scale)\n"
        "b = h(jnp.ones(3), jnp.arange(3.0))\n"
        "out = jnp.stack([a, b])\n"),
    "static_in_one_jit_array_in_another_unstatic": (
        "static_in_one_jit_array_in_another with n traced in both jits: still two types",
        "def scale(x, n):\n"
        "    return x * n\n"
        "g = jax.jit(scale)    # n traced here too\n"
        "a = g(jnp.ones(3), 2)\n"
        "h = jax.jit(scale)\n"
        "b = h(jnp.ones(3), jnp.arange(3.0))\n"
        "out = jnp.stack([a, b])\n"),
    # an argument passed as one array, then as a tuple of arrays (structure._ARRAYS_FIX):
    # told "t was f32[2] and is absent now" (left out, to its default) and "t changed
    # length", neither true; the tuple passed again reuses its program, as in JAX
    "array_then_tuple_of_arrays": (
        "t one array, then a tuple of two arrays, then that tuple again",
        "f = jax.jit(lambda t: sum(v.sum() for v in jax.tree.leaves(t)))\n"
        "a = f(jnp.ones(2))\n"
        "b = f((jnp.ones(2), jnp.ones(2)))\n"
        "c = f((jnp.zeros(2), jnp.ones(2)))\n"
        "out = jnp.stack([a, b, c])\n"),
    # both axes of an image grow (input_types._BUCKETS_FIX): the fix padded axis 0 alone,
    # (32, 28) and (32, 32), two programs still (_one_axis_padded); each axis padded, one
    "image_size_changes_both_axes": (
        "28x28 images, then 32x32 ones",
        "f = jax.jit(lambda x: x.mean())\n"
        "f(jnp.ones((28, 28)))\n"
        "f(jnp.ones((32, 32)))\n"),
    "image_size_changes_both_axes_one_axis_padded": (
        "image_size_changes_both_axes with the old fix: axis 0 alone padded to 32",
        "f = jax.jit(lambda x: x.mean())\n"
        "for x in (jnp.ones((28, 28)), jnp.ones((32, 32))):\n"
        "    n = x.shape[0]\n"
        "    size = max(32, 1 << (n - 1).bit_length())\n"
        "    x = jnp.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1))\n"
        "    f(x)\n"),
    # the same under vmap: rows of 28x28, then 32x32 (input_types._VMAP_ROWS_AXES_FIX)
    "vmap_image_rows_grow_both_axes": (
        "vmap of a jitted function: rows of 28x28, then of 32x32",
        "f = jax.jit(lambda x: x.mean())\n"
        "g = jax.vmap(f)\n"
        "g(jnp.ones((4, 28, 28)))\n"
        "g(jnp.ones((4, 32, 32)))\n"),
    "vmap_rows_transposed": (
        "vmap of a jitted function: rows of (2, 3), then of (3, 2)",
        "f = jax.jit(lambda x: x.sum(0))\n"
        "g = jax.vmap(f)\n"
        "xs = jnp.ones((4, 2, 3))\n"
        "g(xs)\n"
        "g(xs.transpose(0, 2, 1))\n"),
    # the lengths of an array in another order (input_types._TRANSPOSED_FIX)
    "transposed_argument": (
        "x, then x.T",
        "f = jax.jit(lambda x: x.sum(0))\n"
        "x = jnp.ones((2, 3))\n"
        "f(x)\n"
        "f(x.T)\n"),
    "static_passed_on_as_a_shape": (
        "a static n passed on to a helper that makes a shape of it, n = 1, 2, 3",
        "import functools\n"
        "def padded(x, n):\n"
        "    return jnp.concatenate([x, jnp.zeros(n)])\n"
        "@functools.partial(jax.jit, static_argnums=1)\n"
        "def f(x, n):\n"
        "    return padded(x, n).sum()\n"
        "out = jnp.stack([f(jnp.ones(2), n) for n in (1, 2, 3)])\n"),
    # a dataclass registered by register_pytree_node, its learning rate the aux data: each
    # value a structure of its own (structure._META_FIX, a note no test produced), as in JAX
    "pytree_node_dataclass_aux_changes": (
        "a dataclass registered with register_pytree_node, lr its aux data: 0.1, 0.05, 0.025",
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class Opt:\n"
        "    w: object\n"
        "    lr: float\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Opt, lambda o: ((o.w,), o.lr), lambda lr, c: Opt(c[0], lr))\n"
        "step = jax.jit(lambda o: o.w - o.lr * o.w)\n"
        "out = jnp.stack([step(Opt(jnp.ones(2), lr)) for lr in (0.1, 0.05, 0.025)])\n"),
    # a static size or shape the function needs as a Python value (fixes._STATIC_STAYS,
    # statics._STATIC_SHAPE_FIX, no JAX-compared scenario produced them): "a program per
    # value is expected", and a value seen before reuses its program (JAX: 2 lowerings for
    # 4 calls); that it must stay static: recompile_cases' ones_traced_n (JAX's TypeError)
    "static_size_needed_seen_again": (
        "a static n used as a size, n = 2, 3, 2, 3",
        "import functools\n"
        "@functools.partial(jax.jit, static_argnums=1)\n"
        "def f(x, n):\n"
        "    return jnp.ones(n) * x.sum()\n"
        "out = jnp.stack([f(jnp.ones(2), n).sum() for n in (2, 3, 2, 3)])\n"),
    "static_shape_tuple_seen_again": (
        "a static shape tuple, (2,), (3,), (2,), (3,)",
        "import functools\n"
        "@functools.partial(jax.jit, static_argnames='shape')\n"
        "def zeros_plus(x, shape):\n"
        "    return jnp.zeros(shape) + x.sum()\n"
        "out = jnp.stack([zeros_plus(jnp.ones(2), shape=s).sum()\n"
        "                 for s in ((2,), (3,), (2,), (3,))])\n"),
    # a velocity started as 0.0 at one call and given back as an array at the next, on two
    # lines (two cells alike): the note made it an array "from the start" before the later
    # call, where v is that array already (JAX 0.10.2: still two lowerings,
    # ..._pasted_at_the_later_call); at the earlier call, which passed 0.0: one (_fixed)
    "scalar_then_array_at_two_calls": (
        "momentum(0.0, grads), then momentum(v, grads) with v the f32[3] it returned",
        "@jax.jit\n"
        "def momentum(v, g):\n"
        "    return 0.9 * v + g\n"
        "grads = jnp.ones(3)\n"
        "v = momentum(0.0, grads)\n"
        "v = momentum(v, grads)\n"
        "out = v\n"),
    "scalar_then_array_at_two_calls_pasted_at_the_later_call": (
        "scalar_then_array_at_two_calls with the note's code as it was: before line 6",
        "@jax.jit\n"
        "def momentum(v, g):\n"
        "    return 0.9 * v + g\n"
        "grads = jnp.ones(3)\n"
        "v = momentum(0.0, grads)\n"
        "v = jnp.broadcast_to(jnp.asarray(v, jnp.float32), (3,))    # from the start\n"
        "v = momentum(v, grads)\n"
        "out = v\n"),
    # None, then an array, on two lines (structure._NONE_ARGUMENT_FIX): the note's "zeros
    # where None" was written before the array's call (JAX 0.10.2: still two lowerings,
    # ..._pasted_at_the_later_call), now at None's (_fixed: one). The array first, then None:
    # the note's code renamed bias to the call's `None` (`None = jnp.zeros(...)`, no Python)
    "none_then_array_at_two_calls": (
        "f(x, None), then f(x, jnp.ones(3)) on the next line",
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "x = jnp.ones(3)\n"
        "y = f(x, None)\n"
        "y = f(x, jnp.ones(3))\n"
        "out = y\n"),
    "none_then_array_at_two_calls_pasted_at_the_later_call": (
        "none_then_array_at_two_calls with the note's code as it was: before line 6",
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "x = jnp.ones(3)\n"
        "y = f(x, None)\n"
        "bias = jnp.ones(3)    # line 6's argument, named\n"
        "bias = jnp.zeros((3,)) if bias is None else bias    # an array in every call\n"
        "y = f(x, bias)    # line 6, given it\n"
        "out = y\n"),
    # None, then an empty container: no leaves on either side to name the argument by (the
    # note read "The arguments' pytree structure changed (PyTreeDef(((*, None), {})) -> ...")
    # and code to pass one kind in every call, written at the later call: it was written at
    # the earlier, which passes None already (JAX 0.10.2: two lowerings, _pasted_...)
    "none_then_empty_tuple_at_two_calls": (
        "f(x, None), then f(x, ()) on the next line",
        "@jax.jit\n"
        "def f(x, extra):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, None)\n"
        "y = f(x, ())\n"
        "out = y\n"),
    "keyword_none_then_empty_list_at_two_calls": (
        "f(x, mask=None), then f(x, mask=[]) on the next line",
        "@jax.jit\n"
        "def f(x, mask=None):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, mask=None)\n"
        "y = f(x, mask=[])\n"
        "out = y\n"),
    "keyword_none_then_empty_list_at_two_calls_pasted_at_the_earlier_call": (
        "keyword_none_then_empty_list_at_two_calls with the note's code as it was: at line 5",
        "@jax.jit\n"
        "def f(x, mask=None):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "mask_arg = None    # line 5's argument, named\n"
        "mask_arg = None    # one kind of empty value, every call\n"
        "y = f(x, mask=mask_arg)    # line 5, given it\n"
        "y = f(x, mask=[])\n"
        "out = y\n"),
    # an empty container, then None: its code made the later call's None a tuple again with
    # `extra = tuple(extra)`, which raises (tuple(None)); now `extra = ()`. A tuple holding
    # arrays, then None, gets no code (no code can know the arrays)
    "empty_tuple_then_none_at_two_calls": (
        "f(x, ()), then f(x, None) on the next line",
        "@jax.jit\n"
        "def f(x, extra):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, ())\n"
        "y = f(x, None)\n"
        "out = y\n"),
    "tuple_of_arrays_then_none_at_two_calls": (
        "f(x, (jnp.ones(2),)), then f(x, None) on the next line",
        "@jax.jit\n"
        "def f(x, extra):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, (jnp.ones(2),))\n"
        "y = f(x, None)\n"
        "out = y\n"),
    "tuple_of_arrays_then_none_at_two_calls_fixed": (
        "tuple_of_arrays_then_none_at_two_calls with its note's code pasted at the later call",
        "@jax.jit\n"
        "def f(x, extra):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, (jnp.ones(2),))\n"
        "extra = None    # line 6's argument, named\n"
        "extra = (jnp.zeros((2,)),) if extra is None else extra    # arrays in every call\n"
        "y = f(x, extra)    # line 6, given it\n"
        "out = y\n"),
    # an empty value passed in one call, left out in the next: the note printed two PyTreeDefs
    # (structure._TREE_FIX); it is now the argument left out, its code at the call leaving it
    # out (at_the_calls._EMPTY_AT_THE_CALL), passed as the other call passes it
    "none_by_keyword_then_left_out": (
        "f(x, mask=None), then f(x), mask's default being None",
        "@jax.jit\n"
        "def f(x, mask=None):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, mask=None)\n"
        "y = f(x)\n"
        "out = y\n"),
    "empty_tuple_by_position_then_left_out": (
        "f(x, ()), then f(x), extra's default being ()",
        "@jax.jit\n"
        "def f(x, extra=()):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, ())\n"
        "y = f(x)\n"
        "out = y\n"),
    # a dict's entry None, then (): the code was written in the parameter's name (`p['b'] =
    # None`), which pasted before the call names nothing (NameError); it is in the name the
    # call passes (`params`), or that argument named first where the call passes a literal
    "dict_entry_none_then_empty_tuple": (
        "loss(params) with params['b'] None, then ()",
        "@jax.jit\n"
        "def loss(p):\n"
        "    return p['w'].sum()\n"
        "params = {'w': jnp.ones(3), 'b': None}\n"
        "y = loss(params)\n"
        "params = {'w': jnp.ones(3), 'b': ()}\n"
        "y = loss(params)\n"
        "out = y\n"),
    "dict_entry_none_then_empty_tuple_in_the_call": (
        "loss({'w': w, 'b': None}), then loss({'w': w, 'b': ()})",
        "@jax.jit\n"
        "def loss(p):\n"
        "    return p['w'].sum()\n"
        "w = jnp.ones(3)\n"
        "y = loss({'w': w, 'b': None})\n"
        "y = loss({'w': w, 'b': ()})\n"
        "out = y\n"),
    # None, then an array, both calls passing a variable of the parameter's name: the code
    # (None made zeros) belongs before the earlier call, but said nothing of where; pasted
    # under the note, at the later call, it changes nothing (the variable is an array there)
    "none_then_array_in_a_variable": (
        "bias = None; f(x, bias), then bias = jnp.ones(3); f(x, bias)",
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "x = jnp.ones(3)\n"
        "bias = None\n"
        "y = f(x, bias)\n"
        "bias = jnp.ones(3)\n"
        "y = f(x, bias)\n"
        "out = y\n"),
    # a frozen register_dataclass's field None, then an array: told "s.b: absent -> f32[3]"
    # with the code `s = {**defaults, **s}` (a dict's; s is no mapping: TypeError)
    "dataclass_field_none_then_array": (
        "a frozen register_dataclass State's field b None, then an array",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class S:\n"
        "    w: jax.Array\n"
        "    b: object\n"
        "@jax.jit\n"
        "def f(s):\n"
        "    return s.w * 2\n"
        "s = S(jnp.ones(3), None)\n"
        "y = f(s)\n"
        "s = S(jnp.ones(3), jnp.ones(3))\n"
        "y = f(s)\n"
        "out = y\n"),
    # a dict's entry grows: the padding code was in the parameter's name (`p['w'] = ...`,
    # a NameError before `loss(params)`), and its last line said to pad "line 5's params",
    # not the entry
    "dict_entry_grows": (
        "loss(params) with params['w'] of 3, then of 4",
        "@jax.jit\n"
        "def loss(p):\n"
        "    return p['w'].sum()\n"
        "params = {'w': jnp.ones(3)}\n"
        "y = loss(params)\n"
        "params = {'w': jnp.ones(4)}\n"
        "y = loss(params)\n"
        "out = y\n"),
    # *xs given one array, then two: the note's code, written at the call, took the call's
    # first argument for xs (`g(jnp.stack(list(jnp.ones(3)) + ...), jnp.ones(3))`)
    "varargs_gains_an_item": (
        "g(a) then g(a, b) for def f(*xs)",
        "def f(*xs):\n"
        "    return sum(x.sum() for x in xs)\n"
        "g = jax.jit(f)\n"
        "a = jnp.ones(3)\n"
        "y = g(a)\n"
        "y = g(a, jnp.ones(3))\n"
        "out = y\n"),
    "array_then_none_at_two_calls": (
        "f(x, jnp.ones(3)), then f(x, None) on the next line",
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "x = jnp.ones(3)\n"
        "y = f(x, jnp.ones(3))\n"
        "y = f(x, None)\n"
        "out = y\n"),
    # a list of one item at one call, of two at the next line (structure._LENGTH_FIX, stacked
    # at the call: at_the_calls._stacked_at_the_call): stacked at the later call alone, the
    # earlier's list is a program of its own (JAX 0.10.2: two lowerings); the note's last
    # line names it, and both stacked compile once (_fixed)
    "list_length_at_two_calls": (
        "total([jnp.ones(2)]), then total([jnp.ones(2), jnp.ones(2)]) on the next line",
        "@jax.jit\n"
        "def total(xs):\n"
        "    return sum(x.sum() for x in xs)\n"
        "a = total([jnp.ones(2)])\n"
        "b = total([jnp.ones(2), jnp.ones(2)])\n"
        "out = jnp.stack([a, b])\n"),
    "list_length_at_two_calls_stacked_at_the_later_call": (
        "list_length_at_two_calls with the note's code in place of line 5 alone",
        "@jax.jit\n"
        "def total(xs):\n"
        "    return sum(x.sum() for x in xs)\n"
        "a = total([jnp.ones(2)])\n"
        "MAX = 8                              # the most items a call has\n"
        "mask = jnp.arange(MAX) < len([jnp.ones(2), jnp.ones(2)])    # which rows are real: "
        "pass it too\n"
        "b = total(jnp.stack(list([jnp.ones(2), jnp.ones(2)]) + [jnp.zeros((2,), jnp.float32)]"
        " * (MAX - len([jnp.ones(2), jnp.ones(2)]))))    # line 5\n"
        "out = jnp.stack([a, b])\n"),
    # a dict's key added, the function's parameter p and the learner's variable params
    # (structure._KEY_FIX): the note's `p = {**defaults, **p}` before each call named nothing
    # there (NameError); in the calls' name, pasted before each, JAX lowers once (_fixed)
    "dict_key_added_under_another_name": (
        "loss(params) with loss's parameter p, params given a 'b' entry after the first call",
        "@jax.jit\n"
        "def loss(p):\n"
        "    return (p['w'] + p.get('b', 0.0)).sum()\n"
        "params = {'w': jnp.ones(3)}\n"
        "a = loss(params)\n"
        "params['b'] = jnp.ones(3)\n"
        "b = loss(params)\n"
        "out = jnp.stack([a, b])\n"),
    # ------------------------------------------------ each fix the notes offer, applied
    # (the note's code pasted into the learner's program: one compile, as JAX lowers once)
    "static_lambda_written_twice_fixed": (
        "static_lambda_written_twice's note: the lambda made once, that object passed",
        "def apply(x, fn):\n"
        "    return fn(x)\n"
        "f = jax.jit(apply, static_argnums=1)\n"
        "double = lambda v: v * 2    # made once\n"
        "f(jnp.ones(3), double)\n"
        "f(jnp.ones(3), double)\n"),
    "pytree_node_dataclass_aux_changes_fixed": (
        "pytree_node_dataclass_aux_changes's note filled in: register_dataclass, lr data",
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class Opt:\n"
        "    w: object\n"
        "    lr: float\n"
        "jax.tree_util.register_dataclass(Opt, data_fields=['w', 'lr'], meta_fields=[])\n"
        "step = jax.jit(lambda o: o.w - o.lr * o.w)\n"
        "out = jnp.stack([step(Opt(jnp.ones(2), lr)) for lr in (0.1, 0.05, 0.025)])\n"),
    # recompile_cases' closure_factory_in_a_loop, its note's code filled in (what the closure
    # read, k, an argument of one jitted function): fresh_functions._CLOSURE_FRESH_FIX
    "closure_factory_in_a_loop_fixed": (
        "closure_factory_in_a_loop's note: k passed to one jitted f, not closed over",
        "@jax.jit\n"
        "def f(x, k):     # what the closure read, now an argument\n"
        "    return x * k\n"
        "out = jnp.stack([f(jnp.ones(3), k) for k in (2.0, 3.0)])\n"),
    "scalar_then_array_at_two_calls_fixed": (
        "scalar_then_array_at_two_calls with its note's code in place of line 5",
        "@jax.jit\n"
        "def momentum(v, g):\n"
        "    return 0.9 * v + g\n"
        "grads = jnp.ones(3)\n"
        "v_arg = 0.0    # line 5's argument, named\n"
        "v_arg = jnp.broadcast_to(jnp.asarray(v_arg, jnp.float32), (3,))    # from the start\n"
        "v = momentum(v_arg, grads)    # line 5, given it\n"
        "v = momentum(v, grads)\n"
        "out = v\n"),
    "none_then_array_at_two_calls_fixed": (
        "none_then_array_at_two_calls with its note's code in place of line 5",
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "x = jnp.ones(3)\n"
        "bias = None    # line 5's argument, named\n"
        "bias = jnp.zeros((3,)) if bias is None else bias    # an array in every call\n"
        "y = f(x, bias)    # line 5, given it\n"
        "y = f(x, jnp.ones(3))\n"
        "out = y\n"),
    "none_then_empty_tuple_at_two_calls_fixed": (
        "none_then_empty_tuple_at_two_calls with its note's code in place of line 6",
        "@jax.jit\n"
        "def f(x, extra):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, None)\n"
        "extra = ()    # line 6's argument, named\n"
        "extra = None    # one kind of empty value, every call\n"
        "y = f(x, extra)    # line 6, given it\n"
        "out = y\n"),
    "keyword_none_then_empty_list_at_two_calls_fixed": (
        "keyword_none_then_empty_list_at_two_calls with its note's code in place of line 6",
        "@jax.jit\n"
        "def f(x, mask=None):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, mask=None)\n"
        "mask_arg = []    # line 6's argument, named\n"
        "mask_arg = None    # one kind of empty value, every call\n"
        "y = f(x, mask=mask_arg)    # line 6, given it\n"
        "out = y\n"),
    "empty_tuple_then_none_at_two_calls_fixed": (
        "empty_tuple_then_none_at_two_calls with its note's code in place of line 6",
        "@jax.jit\n"
        "def f(x, extra):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, ())\n"
        "extra = None    # line 6's argument, named\n"
        "extra = ()    # one kind of empty value, every call\n"
        "y = f(x, extra)    # line 6, given it\n"
        "out = y\n"),
    "none_by_keyword_then_left_out_fixed": (
        "none_by_keyword_then_left_out with its note's code in place of line 6",
        "@jax.jit\n"
        "def f(x, mask=None):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, mask=None)\n"
        "y = f(x, mask=None)    # line 6: mask passed, as line 5 passes it\n"
        "out = y\n"),
    "empty_tuple_by_position_then_left_out_fixed": (
        "empty_tuple_by_position_then_left_out with its note's code in place of line 6",
        "@jax.jit\n"
        "def f(x, extra=()):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, ())\n"
        "y = f(x, ())    # line 6: extra passed, as line 5 passes it\n"
        "out = y\n"),
    "dict_entry_none_then_empty_tuple_fixed": (
        "dict_entry_none_then_empty_tuple with its note's code before line 7",
        "@jax.jit\n"
        "def loss(p):\n"
        "    return p['w'].sum()\n"
        "params = {'w': jnp.ones(3), 'b': None}\n"
        "y = loss(params)\n"
        "params = {'w': jnp.ones(3), 'b': ()}\n"
        "params['b'] = None    # one kind of empty value, every call\n"
        "y = loss(params)\n"
        "out = y\n"),
    "dict_entry_none_then_empty_tuple_in_the_call_fixed": (
        "dict_entry_none_then_empty_tuple_in_the_call with its note's code in place of line 6",
        "@jax.jit\n"
        "def loss(p):\n"
        "    return p['w'].sum()\n"
        "w = jnp.ones(3)\n"
        "y = loss({'w': w, 'b': None})\n"
        "p = {'w': w, 'b': ()}    # line 6's argument, named\n"
        "p['b'] = None    # one kind of empty value, every call\n"
        "y = loss(p)    # line 6, given it\n"
        "out = y\n"),
    "none_then_array_in_a_variable_fixed": (
        "none_then_array_in_a_variable with its note's code before line 6",
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "x = jnp.ones(3)\n"
        "bias = None\n"
        "# before line 6's call\n"
        "bias = jnp.zeros((3,)) if bias is None else bias    # an array in every call\n"
        "y = f(x, bias)\n"
        "bias = jnp.ones(3)\n"
        "y = f(x, bias)\n"
        "out = y\n"),
    "dataclass_field_none_then_array_fixed": (
        "dataclass_field_none_then_array with its note's code before line 11",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class S:\n"
        "    w: jax.Array\n"
        "    b: object\n"
        "@jax.jit\n"
        "def f(s):\n"
        "    return s.w * 2\n"
        "s = S(jnp.ones(3), None)\n"
        "# before line 11's call\n"
        "import dataclasses\n"
        "s = dataclasses.replace(s, b=jnp.zeros((3,)) if s.b is None else s.b)\n"
        "y = f(s)\n"
        "s = S(jnp.ones(3), jnp.ones(3))\n"
        "y = f(s)\n"
        "out = y\n"),
    "dict_entry_grows_fixed": (
        "dict_entry_grows with its note's code before line 7, and line 5's entry padded so too",
        "@jax.jit\n"
        "def loss(p):\n"
        "    return p['w'].sum()\n"
        "params = {'w': jnp.ones(3)}\n"
        "n = params['w'].shape[0]\n"
        "size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
        "params['w'] = jnp.pad(params['w'], [(0, size - n)] + [(0, 0)] * (params['w'].ndim - 1))\n"
        "y = loss(params)\n"
        "params = {'w': jnp.ones(4)}\n"
        "n = params['w'].shape[0]\n"
        "size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
        "params['w'] = jnp.pad(params['w'], [(0, size - n)] + [(0, 0)] * (params['w'].ndim - 1))\n"
        "y = loss(params)\n"
        "out = y\n"),
    "array_then_none_at_two_calls_fixed": (
        "array_then_none_at_two_calls with its note's code in place of line 6",
        "@jax.jit\n"
        "def f(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "x = jnp.ones(3)\n"
        "y = f(x, jnp.ones(3))\n"
        "bias = None    # line 6's argument, named\n"
        "bias = jnp.zeros((3,)) if bias is None else bias    # an array in every call\n"
        "y = f(x, bias)    # line 6, given it\n"
        "out = y\n"),
    "list_length_at_two_calls_fixed": (
        "list_length_at_two_calls with the note's code, line 4's list stacked so too",
        "@jax.jit\n"
        "def total(xs):\n"
        "    return sum(x.sum() for x in xs)\n"
        "MAX = 8                              # the most items a call has\n"
        "a = total(jnp.stack(list([jnp.ones(2)]) + [jnp.zeros((2,), jnp.float32)]"
        " * (MAX - len([jnp.ones(2)]))))\n"
        "MAX = 8                              # the most items a call has\n"
        "mask = jnp.arange(MAX) < len([jnp.ones(2), jnp.ones(2)])    # which rows are real: "
        "pass it too\n"
        "b = total(jnp.stack(list([jnp.ones(2), jnp.ones(2)]) + [jnp.zeros((2,), jnp.float32)]"
        " * (MAX - len([jnp.ones(2), jnp.ones(2)]))))    # line 5\n"
        "out = jnp.stack([a, b])\n"),
    "dict_key_added_under_another_name_fixed": (
        "dict_key_added_under_another_name with its note's code before each call",
        "@jax.jit\n"
        "def loss(p):\n"
        "    return (p['w'] + p.get('b', 0.0)).sum()\n"
        "params = {'w': jnp.ones(3)}\n"
        "defaults = {'b': jnp.zeros((3,), jnp.float32)}    # the keys some call lacks\n"
        "params = {**defaults, **params}    # the same keys in every call: before each\n"
        "a = loss(params)\n"
        "params['b'] = jnp.ones(3)\n"
        "defaults = {'b': jnp.zeros((3,), jnp.float32)}    # the keys some call lacks\n"
        "params = {**defaults, **params}    # the same keys in every call: before each\n"
        "b = loss(params)\n"
        "out = jnp.stack([a, b])\n"),
    "static_in_one_jit_array_in_another_fixed": (
        "static_in_one_jit_array_in_another's note: n an array of one shape, one jit",
        "def scale(x, n):\n"
        "    return x * n\n"
        "g = jax.jit(scale)    # the one jit of scale, n traced\n"
        "a = g(jnp.ones(3), jnp.full(3, 2.0, jnp.float32))    # n f32[3] every call\n"
        "b = g(jnp.ones(3), jnp.arange(3.0))\n"
        "out = jnp.stack([a, b])\n"),
    "image_size_changes_both_axes_fixed": (
        "image_size_changes_both_axes's note pasted at both calls: each axis padded",
        "f = jax.jit(lambda x: x.mean())\n"
        "for x in (jnp.ones((28, 28)), jnp.ones((32, 32))):\n"
        "    floors = (32, 32)    # per axis: a power of two holding the lengths seen\n"
        "    pads = [(0, 0) if m is None else (0, max(m, 1 << (n - 1).bit_length()) - n)\n"
        "            for m, n in zip(floors, x.shape)]\n"
        "    x = jnp.pad(x, pads)\n"
        "    f(x)\n"),
    "vmap_image_rows_grow_both_axes_fixed": (
        "vmap_image_rows_grow_both_axes's note pasted: what vmap is given padded per axis",
        "f = jax.jit(lambda x: x.mean())\n"
        "g = jax.vmap(f)\n"
        "for xs in (jnp.ones((4, 28, 28)), jnp.ones((4, 32, 32))):\n"
        "    floors = (32, 32)    # per axis of a row: a power of two holding the lengths seen\n"
        "    pads = [(0, 0)] + [(0, 0) if m is None else "
        "(0, max(m, 1 << (n - 1).bit_length()) - n)\n"
        "                       for m, n in zip(floors, xs.shape[1:])]    # xs: given to vmap\n"
        "    xs = jnp.pad(xs, pads)\n"
        "    g(xs)\n"),
    "vmap_rows_transposed_fixed": (
        "vmap_rows_transposed's note pasted: what vmap is given transposed back",
        "f = jax.jit(lambda x: x.sum(0))\n"
        "g = jax.vmap(f)\n"
        "xs = jnp.ones((4, 2, 3))\n"
        "g(xs)\n"
        "xs = xs.transpose(0, 2, 1)\n"
        "xs = jnp.transpose(xs, (0, 2, 1))    # xs: the array given to vmap; the first call's "
        "layout\n"
        "g(xs)\n"),
    "transposed_argument_fixed": (
        "transposed_argument's note pasted: transposed back before the call",
        "f = jax.jit(lambda x: x.sum(0))\n"
        "x = jnp.ones((2, 3))\n"
        "f(x)\n"
        "x_arg = x.T    # line 4's argument, named\n"
        "x_arg = jnp.transpose(x_arg, (1, 0))    # the first call's layout\n"
        "f(x_arg)    # line 4, given it\n"),
    "static_passed_on_to_a_helper_fixed": (
        "static_passed_on_to_a_helper's note: scaled only computes with n, so n traced",
        "def scaled(x, n):\n"
        "    return x * n\n"
        "@jax.jit    # n dropped from static_argnums: traced\n"
        "def f(x, n):\n"
        "    return scaled(x, n)\n"
        "out = jnp.stack([f(jnp.ones(2), n) for n in (1, 2, 3)])\n"),
    "static_activation_function_seen_again": (
        "static_activation_function's note: each function compiles once, then is found",
        "def layer(x, act):\n"
        "    return act(x)\n"
        "f = jax.jit(layer, static_argnums=1)\n"
        "for act in (jax.nn.relu, jax.nn.gelu, jax.nn.relu, jax.nn.gelu):\n"
        "    f(jnp.ones(3), act)\n"),
    "dict_int_keys_then_str_keys_fixed": (
        "dict_int_keys_then_str_keys with its fix: the keys made str before each call",
        "f = jax.jit(lambda d: sum(v.sum() for v in d.values()))\n"
        "for d in ({0: jnp.ones(2), 1: jnp.ones(2)}, {'0': jnp.ones(2), '1': jnp.ones(2)}):\n"
        "    d = {str(k): v for k, v in d.items()}    # one type of key, every call\n"
        "    f(d)\n"),
    "typed_key_batch_grows_fixed": (
        "typed_key_batch_grows with its fix: MAX keys split every call, the rows needed kept",
        "def sample(keys):\n"
        "    return jax.vmap(lambda k: jax.random.normal(k, (2,)))(keys)\n"
        "f = jax.jit(sample)\n"
        "key = jax.random.key(0)\n"
        "MAX = 4\n"
        "for n in (3, 4):\n"
        "    out = f(jax.random.split(key, MAX))[:n]\n"),
    "jnp_array_of_python_float_then_float32_fixed": (
        "jnp_array_of_python_float_then_float32 with its fix: the dtype given in jnp.array",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.array(1.0, jnp.float32)); f(jnp.array(1.0, jnp.float32))\n"),
    "jnp_float32_scalar_then_python_float_fixed": (
        "jnp_float32_scalar_then_python_float with its fix: a float32 array at the call",
        "step = jax.jit(lambda w, lr: w - lr * w)\n"
        "step(jnp.ones(3), jnp.float32(0.1)); step(jnp.ones(3), jnp.asarray(0.1, jnp.float32))\n"),
    "register_dataclass_field_dtype_fixed": (
        "register_dataclass_field_dtype with its fix: step a Python float in every call",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass\n"
        "class State:\n"
        "    w: jax.Array\n"
        "    step: jax.Array\n"
        "f = jax.jit(lambda s: s.w * s.step)\n"
        "for s in (State(jnp.ones(3), jnp.array(0)), State(jnp.ones(3), jnp.array(0.0))):\n"
        "    s.step = float(s.step)    # always a Python float\n"
        "    f(s)\n"),
    "hessian_of_jit_new_shape_fixed": (
        "hessian_of_jit_new_shape with its fix: w padded to a bucket of 4",
        "f = jax.jit(lambda w: (w ** 3).sum())\n"
        "h = jax.hessian(f)\n"
        "for w in (jnp.ones(2), jnp.ones(3)):\n"
        "    n = w.shape[0]\n"
        "    size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
        "    w = jnp.pad(w, [(0, size - n)] + [(0, 0)] * (w.ndim - 1))\n"
        "    h(w)\n"),
    "dict_int_keys_gains_a_key_fixed": (
        "dict_int_keys_gains_a_key with its fix: zeros for the key a call lacks",
        "f = jax.jit(lambda layers: sum(w.sum() for w in layers.values()))\n"
        "for layers in ({0: jnp.ones(2), 1: jnp.ones(2)},\n"
        "               {0: jnp.ones(2), 1: jnp.ones(2), 2: jnp.ones(2)}):\n"
        "    defaults = {2: jnp.zeros((2,), jnp.float32)}    # the keys some call lacks\n"
        "    layers = {**defaults, **layers}    # the same keys in every call: before each\n"
        "    f(layers)\n"),
    "pytree_node_without_keys_child_added_fixed": (
        "pytree_node_without_keys_child_added with its fix: the items padded to 2 with zeros",
        "class Stack:\n"
        "    def __init__(self, items):\n"
        "        self.items = items\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Stack, lambda s: (tuple(s.items), None), lambda _, xs: Stack(list(xs)))\n"
        "f = jax.jit(lambda s: sum(x.sum() for x in s.items))\n"
        "for items in ([jnp.ones(2)], [jnp.ones(2), jnp.ones(2)]):\n"
        "    f(Stack(items + [jnp.zeros(2)] * (2 - len(items))))    # 2 children, every call\n"),
    "pytree_node_without_keys_leaf_shape_fixed": (
        "pytree_node_without_keys_leaf_shape with its fix: the leaf padded before Pair is made",
        "class Pair:\n"
        "    def __init__(self, a, b):\n"
        "        self.a, self.b = a, b\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Pair, lambda p: ((p.a, p.b), None), lambda _, ab: Pair(*ab))\n"
        "f = jax.jit(lambda p: p.a.sum() + p.b.sum())\n"
        "for leaf in (jnp.ones(3), jnp.ones(4)):\n"
        "    n = leaf.shape[0]\n"
        "    size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
        "    leaf = jnp.pad(leaf, [(0, size - n)] + [(0, 0)] * (leaf.ndim - 1))\n"
        "    f(Pair(jnp.ones(2), leaf))\n"),
    "list_comprehension_of_jits_fixed": (
        "list_comprehension_of_jits with its fix: one jit, k passed in each call",
        "f = jax.jit(lambda x, k: x * k)    # once, outside the loop: no default\n"
        "for k in range(3):\n"
        "    f(jnp.ones(3), k)\n"),
    # (the fix cast the uint8 pixels to int8, which wraps 200 to -56: int16 holds both)
    "int8_then_uint8_fixed": (
        "int8_then_uint8 with its fix: img cast to int16 before each call, a pixel of 200",
        "f = jax.jit(lambda img: img.astype(jnp.float32) / 255)\n"
        "for img in (np.zeros((2, 2), np.int8), np.full((2, 2), 200, np.uint8)):\n"
        "    img = jnp.asarray(img, jnp.int16)\n"
        "    pixels = f(img)\n"),
    "int8_then_uint8_at_two_calls_fixed": (
        "int8_then_uint8_at_two_calls's note pasted: both calls cast to int16",
        "f = jax.jit(lambda img: img.astype(jnp.float32) / 255)\n"
        "a = np.zeros((2, 2), np.int8)\n"
        "b = np.full((2, 2), 200, np.uint8)\n"
        "f(jnp.asarray(a, jnp.int16))    # line 4\n"
        "pixels = f(jnp.asarray(b, jnp.int16))    # line 5\n"),
    # (the fix cast 2 to bool, True: x * 2 became x; True a Python int at its call instead)
    "bool_then_int_fixed": (
        "bool_then_int with its fix: int(True) in place of True at the first call",
        "f = jax.jit(lambda x, s: x * s)\n"
        "a = f(jnp.ones(3), int(True))    # line 2\n"
        "b = f(jnp.ones(3), 2)\n"
        "out = jnp.stack([a, b])\n"),
    "complex64_then_float32_fixed": (
        "complex64_then_float32 with its fix: the float32 signal cast at the call",
        "f = jax.jit(lambda s: jnp.abs(s).sum())\n"
        "f(jnp.ones(4, jnp.complex64)); f(jnp.asarray(jnp.ones(4), jnp.complex64))\n"),
    "static_python_scalar_each_iteration_fixed": (
        "static_python_scalar_each_iteration with its fix (its note's line): lr traced",
        "step = jax.jit(lambda w, lr: w - lr * w)\n"
        "w = jnp.ones(3)\n"
        "for lr in (0.1, 0.05, 0.025):\n"
        "    w = step(w, lr)\n"),
    "list_argument_grows_fixed": (
        "list_argument_grows with its fix: the list padded to 3 with zeros",
        "f = jax.jit(lambda xs: sum(x.sum() for x in xs))\n"
        "xs = []\n"
        "for i in range(3):\n"
        "    xs.append(jnp.ones(2))\n"
        "    f(xs + [jnp.zeros(2)] * (3 - len(xs)))    # 3 arrays, every call\n"),
    "fresh_lambda_jit_in_loop_fixed": (
        "fresh_lambda_jit_in_loop with its fix: one jit, made once outside the loop",
        "double = jax.jit(lambda v: v * 2)\n"
        "x = jnp.ones(3)\n"
        "for i in range(3):\n"
        "    x = double(x)\n"),
    "sequence_lengths_vary_fixed": (
        "sequence_lengths_vary with its fix (its note's code in the loop): padded to 8",
        "f = jax.jit(lambda s: jnp.cumsum(s).max())\n"
        "for n in (5, 7):\n"
        "    s = jnp.ones(n)    # line 3's argument, named\n"
        "    n_s = s.shape[0]\n"
        "    size = max(8, 1 << (n_s - 1).bit_length())    # a power of two, at least 8\n"
        "    s = jnp.pad(s, [(0, size - n_s)] + [(0, 0)] * (s.ndim - 1))\n"
        "    f(s)    # line 3, given it\n"),
    "python_int_then_python_float_fixed": (
        "python_int_then_python_float with its fix: always a Python float",
        "f = jax.jit(lambda x, s: x * s)\n"
        "f(jnp.ones(3), float(2)); f(jnp.ones(3), 2.0)\n"),
    "dataclass_meta_field_changes_fixed": (
        "dataclass_meta_field_changes with its fix: layers registered as a data field",
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class Cfg:\n"
        "    w: jax.Array\n"
        "    layers: int\n"
        "jax.tree_util.register_dataclass(Cfg, data_fields=['w', 'layers'], meta_fields=[])\n"
        "f = jax.jit(lambda c: c.w * c.layers)\n"
        "f(Cfg(jnp.ones(3), 2)); out = f(Cfg(jnp.ones(3), 3))\n"),
    "donated_then_new_shape_fixed": (
        "donated_then_new_shape with its note's code pasted, and the other call padded so too",
        "f = jax.jit(lambda x: x + 1, donate_argnums=0)\n"
        "x_arg = jnp.ones(4)    # line 2's argument, named\n"
        "n = x_arg.shape[0]\n"
        "size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
        "x_arg = jnp.pad(x_arg, [(0, size - n)] + [(0, 0)] * (x_arg.ndim - 1))\n"
        "first = jnp.ones(3)    # pad line 2's jnp.ones(3) so too\n"
        "n = first.shape[0]\n"
        "size = max(4, 1 << (n - 1).bit_length())\n"
        "first = jnp.pad(first, [(0, size - n)] + [(0, 0)] * (first.ndim - 1))\n"
        "x = f(first); x = f(x); x = f(x_arg)    # line 2, given it\n"),
    # what differs holds no arrays (a key or item None or empty in one call, absent in the
    # other): the note printed two PyTreeDefs (structure._TREE_FIX); it names the node, as
    # JAX's path does, and the keys or length that differ, each with code where it can be
    # written (structure._EMPTY_KEYS_FIX, _EMPTY_ITEMS_FIX, _LEAFLESS_FIX)
    "params_bias_none_then_key_dropped": (
        "params with 'b': None, then params without the key 'b'",
        "@jax.jit\n"
        "def predict(params, x):\n"
        "    y = x @ params['w']\n"
        "    if params.get('b') is not None:\n"
        "        y = y + params['b']\n"
        "    return y\n"
        "x = jnp.ones((2, 3))\n"
        "params = {'w': jnp.ones((3, 4)), 'b': None}\n"
        "y = predict(params, x)\n"
        "params = {'w': jnp.ones((3, 4))}\n"
        "y = predict(params, x)\n"
        "out = y\n"),
    "layer_bias_none_then_key_dropped": (
        "a layer's params with 'b': None, then without the key, one level down",
        "@jax.jit\n"
        "def predict(params, x):\n"
        "    layer = params['dense']\n"
        "    y = x @ layer['w']\n"
        "    return y if layer.get('b') is None else y + layer['b']\n"
        "x = jnp.ones((2, 3))\n"
        "params = {'dense': {'w': jnp.ones((3, 4))}}\n"
        "y = predict(params, x)\n"
        "params = {'dense': {'w': jnp.ones((3, 4)), 'b': None}}\n"
        "y = predict(params, x)\n"
        "out = y\n"),
    "masks_list_grows_with_none": (
        "a list of masks, all None, one item longer",
        "@jax.jit\n"
        "def f(x, masks):\n"
        "    for m in masks:\n"
        "        if m is not None:\n"
        "            x = x * m\n"
        "    return x\n"
        "x = jnp.ones(3)\n"
        "masks = [None]\n"
        "y = f(x, masks)\n"
        "masks = [None, None]\n"
        "y = f(x, masks)\n"
        "out = y\n"),
    "none_keys_renamed": (
        "a dict of None values whose key is another name",
        "@jax.jit\n"
        "def f(x, flags):\n"
        "    return x * 2 if 'double' in flags else x\n"
        "x = jnp.ones(3)\n"
        "y = f(x, {'double': None})\n"
        "y = f(x, {'half': None})\n"
        "out = y\n"),
    "empty_tuple_then_nested_empty_tuple_seen_again": (
        "f(x, ()), then f(x, ((),)), then f(x, ()) again",
        "@jax.jit\n"
        "def f(x, extra):\n"
        "    return x * (len(extra) + 1)\n"
        "x = jnp.ones(3)\n"
        "y = f(x, ())\n"
        "y = f(x, ((),))\n"
        "y = f(x, ())\n"
        "out = y\n"),
    "two_empty_arguments_then_left_out": (
        "f(x, None, ()), then f(x), both left to their defaults",
        "@jax.jit\n"
        "def f(x, mask=None, extra=()):\n"
        "    return x * 2\n"
        "x = jnp.ones(3)\n"
        "y = f(x, None, ())\n"
        "y = f(x)\n"
        "out = y\n"),
    "params_bias_none_then_key_dropped_fixed": (
        "params_bias_none_then_key_dropped with its note's code pasted before each call",
        "@jax.jit\n"
        "def predict(params, x):\n"
        "    y = x @ params['w']\n"
        "    if params.get('b') is not None:\n"
        "        y = y + params['b']\n"
        "    return y\n"
        "x = jnp.ones((2, 3))\n"
        "defaults = {'b': None}    # the keys some call lacks\n"
        "params = {'w': jnp.ones((3, 4)), 'b': None}\n"
        "params = {**defaults, **params}    # the same keys in every call: before each\n"
        "y = predict(params, x)\n"
        "params = {'w': jnp.ones((3, 4))}\n"
        "params = {**defaults, **params}    # the same keys in every call: before each\n"
        "y = predict(params, x)\n"
        "out = y\n"),
    "layer_bias_none_then_key_dropped_fixed": (
        "layer_bias_none_then_key_dropped with its note's code pasted before each call",
        "@jax.jit\n"
        "def predict(params, x):\n"
        "    layer = params['dense']\n"
        "    y = x @ layer['w']\n"
        "    return y if layer.get('b') is None else y + layer['b']\n"
        "x = jnp.ones((2, 3))\n"
        "defaults = {'b': None}    # the keys some call lacks\n"
        "params = {'dense': {'w': jnp.ones((3, 4))}}\n"
        "params['dense'] = {**defaults, **params['dense']}    # before each\n"
        "y = predict(params, x)\n"
        "params = {'dense': {'w': jnp.ones((3, 4)), 'b': None}}\n"
        "params['dense'] = {**defaults, **params['dense']}    # before each\n"
        "y = predict(params, x)\n"
        "out = y\n"),
    "masks_list_grows_with_none_fixed": (
        "masks_list_grows_with_none with its note's code pasted before each call",
        "@jax.jit\n"
        "def f(x, masks):\n"
        "    for m in masks:\n"
        "        if m is not None:\n"
        "            x = x * m\n"
        "    return x\n"
        "x = jnp.ones(3)\n"
        "masks = [None]\n"
        "masks = list(masks) + [None] * (2 - len(masks))    # one length, every call\n"
        "y = f(x, masks)\n"
        "masks = [None, None]\n"
        "masks = list(masks) + [None] * (2 - len(masks))    # one length, every call\n"
        "y = f(x, masks)\n"
        "out = y\n"),
    "none_keys_renamed_fixed": (
        "none_keys_renamed with its note's code, each call's argument named first",
        "@jax.jit\n"
        "def f(x, flags):\n"
        "    return x * 2 if 'double' in flags else x\n"
        "x = jnp.ones(3)\n"
        "defaults = {'double': None, 'half': None}    # the keys some call lacks\n"
        "flags = {'double': None}    # line 5's argument, named\n"
        "flags = {**defaults, **flags}    # the same keys in every call: before each\n"
        "y = f(x, flags)\n"
        "flags = {'half': None}    # line 6's argument, named\n"
        "flags = {**defaults, **flags}    # the same keys in every call: before each\n"
        "y = f(x, flags)\n"
        "out = y\n"),
    # another rank and another dtype: a program per rank however cast, so no cast is offered
    # (the note gave `labels = jnp.asarray(labels, jnp.float32)`, two lowerings still)
    "one_hot_labels_then_class_indices": (
        "labels one-hot (f32[4,3]), then as class indices (i32[4])",
        "@jax.jit\n"
        "def total(logits, labels):\n"
        "    return jnp.sum(logits) + jnp.sum(labels)\n"
        "logits = jnp.ones((4, 3))\n"
        "labels = jax.nn.one_hot(jnp.array([0, 1, 2, 0]), 3)\n"
        "out = total(logits, labels)\n"
        "labels = jnp.array([0, 1, 2, 0])\n"
        "out = total(logits, labels)\n"),
    "one_hot_labels_then_class_indices_cast": (
        "one_hot_labels_then_class_indices with the old note's cast pasted: two programs still",
        "@jax.jit\n"
        "def total(logits, labels):\n"
        "    return jnp.sum(logits) + jnp.sum(labels)\n"
        "logits = jnp.ones((4, 3))\n"
        "labels = jax.nn.one_hot(jnp.array([0, 1, 2, 0]), 3)\n"
        "out = total(logits, labels)\n"
        "labels = jnp.array([0, 1, 2, 0])\n"
        "labels = jnp.asarray(labels, jnp.float32)\n"
        "out = total(logits, labels)\n"),
    "x64_toggled_fixed": (
        "x64_toggled with its fix: jax_enable_x64 set first, before any jit",
        "jax.config.update('jax_enable_x64', True)    # first thing, before any jit\n"
        "try:\n"
        "    f = jax.jit(lambda x: x * 2)\n"
        "    f(jnp.ones(3))\n"
        "    f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    "grad_accumulator_starts_as_none": (
        "gradients summed over micro-batches, the accumulator None at first, then a dict",
        "@jax.jit\n"
        "def accumulate(acc, grads):\n"
        "    if acc is None:\n"
        "        return grads\n"
        "    return jax.tree.map(lambda a, g: a + g, acc, grads)\n"
        "grads = {'w': jnp.ones((3, 2)), 'b': jnp.ones(2)}\n"
        "acc = None\n"
        "for _ in range(3):\n"
        "    acc = accumulate(acc, grads)\n"
        "out = acc['w']\n"),
    "adam_state_dict_starts_as_floats": (
        "an Adam state dict whose m and v start as 0.0 and come back as arrays",
        "@jax.jit\n"
        "def adam(w, g, state):\n"
        "    m = 0.9 * state['m'] + 0.1 * g\n"
        "    v = 0.99 * state['v'] + 0.01 * g * g\n"
        "    return w - 0.01 * m / (jnp.sqrt(v) + 1e-8), {'m': m, 'v': v}\n"
        "w = jnp.ones(3)\n"
        "state = {'m': 0.0, 'v': 0.0}\n"
        "for _ in range(3):\n"
        "    w, state = adam(w, jnp.ones(3), state)\n"
        "out = w\n"),
    "opt_state_tuple_starts_as_floats": (
        "an Adam state tuple (m, v) of two 0.0s, given back as arrays",
        "@jax.jit\n"
        "def adam(w, g, state):\n"
        "    m, v = state\n"
        "    m = 0.9 * m + 0.1 * g\n"
        "    v = 0.99 * v + 0.01 * g * g\n"
        "    return w - 0.01 * m / (jnp.sqrt(v) + 1e-8), (m, v)\n"
        "w = jnp.ones(3)\n"
        "state = (0.0, 0.0)\n"
        "for _ in range(3):\n"
        "    w, state = adam(w, jnp.ones(3), state)\n"
        "out = w\n"),
    "momentum_namedtuple_starts_as_float": (
        "a namedtuple optimizer state whose velocity starts as 0.0",
        "import collections\n"
        "Opt = collections.namedtuple('Opt', ['velocity', 'count'])\n"
        "@jax.jit\n"
        "def sgd(w, g, opt):\n"
        "    v = 0.9 * opt.velocity + g\n"
        "    return w - 0.1 * v, Opt(v, opt.count + 1)\n"
        "w = jnp.ones(3)\n"
        "opt = Opt(0.0, 0)\n"
        "for _ in range(3):\n"
        "    w, opt = sgd(w, jnp.ones(3), opt)\n"
        "out = w\n"),
    "frozen_dataclass_state_starts_as_float": (
        "a frozen register_dataclass optimizer state whose momentum starts as 0.0",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Opt:\n"
        "    mu: jax.Array\n"
        "@jax.jit\n"
        "def sgd(w, g, opt):\n"
        "    mu = 0.9 * opt.mu + g\n"
        "    return w - 0.1 * mu, Opt(mu)\n"
        "w = jnp.ones(3)\n"
        "opt = Opt(0.0)\n"
        "for _ in range(3):\n"
        "    w, opt = sgd(w, jnp.ones(3), opt)\n"
        "out = w\n"),
    "tuple_batch_last_short": (
        "a batch tuple (x, y) sliced per step: the last batch is short",
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    x, y = batch\n"
        "    return ((x @ w) - y).sum()\n"
        "xs, ys = jnp.ones((10, 3)), jnp.zeros(10)\n"
        "w = jnp.ones(3)\n"
        "total = 0.0\n"
        "for i in range(0, 10, 4):\n"
        "    batch = (xs[i:i + 4], ys[i:i + 4])\n"
        "    total = total + loss(w, batch)\n"
        "out = total\n"),
    "batch_unpacked_as_keywords_last_short": (
        "loss(w, **batch), the batch a dict sliced per step: the last is short",
        "@jax.jit\n"
        "def loss(w, x, y):\n"
        "    return ((x @ w) - y).sum()\n"
        "data = {'x': jnp.ones((10, 3)), 'y': jnp.zeros(10)}\n"
        "w = jnp.ones(3)\n"
        "total = 0.0\n"
        "for i in range(0, 10, 4):\n"
        "    batch = {k: v[i:i + 4] for k, v in data.items()}\n"
        "    total = total + loss(w, **batch)\n"
        "out = total\n"),
    "namedtuple_batch_label_dtype": (
        "a Batch namedtuple whose labels are ints, then floats",
        "import collections\n"
        "Batch = collections.namedtuple('Batch', ['x', 'y'])\n"
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    return ((batch.x @ w) - batch.y).mean()\n"
        "w = jnp.ones(3)\n"
        "batch = Batch(jnp.ones((4, 3)), jnp.array([0, 1, 0, 1]))\n"
        "l1 = loss(w, batch)\n"
        "batch = Batch(jnp.ones((4, 3)), jnp.array([0., 1., 0., 1.]))\n"
        "l2 = loss(w, batch)\n"
        "out = [l1, l2]\n"),
    "dict_literal_label_dtype": (
        "a batch dict written in the call: its labels ints, then floats",
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    return ((batch['x'] @ w) - batch['y']).mean()\n"
        "w = jnp.ones(3)\n"
        "l1 = loss(w, {'x': jnp.ones((4, 3)), 'y': jnp.array([0, 1, 0, 1])})\n"
        "l2 = loss(w, {'x': jnp.ones((4, 3)), 'y': jnp.array([0., 1., 0., 1.])})\n"
        "out = [l1, l2]\n"),
    "tuple_literal_label_dtype": (
        "a batch tuple written in the call: its labels ints, then floats",
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    x, y = batch\n"
        "    return ((x @ w) - y).mean()\n"
        "w = jnp.ones(3)\n"
        "l1 = loss(w, (jnp.ones((4, 3)), jnp.array([0, 1, 0, 1])))\n"
        "l2 = loss(w, (jnp.ones((4, 3)), jnp.array([0., 1., 0., 1.])))\n"
        "out = [l1, l2]\n"),
    "keyword_with_an_array_default_passed": (
        "a keyword whose default is an array: left out, then passed",
        "@jax.jit\n"
        "def f(x, scale=jnp.ones(3)):\n"
        "    return x * scale\n"
        "x = jnp.ones(3)\n"
        "y1 = f(x)\n"
        "y2 = f(x, scale=jnp.full(3, 2.0, jnp.float32))\n"
        "out = [y1, y2]\n"),
    "step_count_int_then_int32": (
        "a learning-rate schedule's step: a Python int, then jnp.int32",
        "@jax.jit\n"
        "def lr_at(step):\n"
        "    return 0.1 * 0.99 ** step\n"
        "step = 0\n"
        "lr1 = lr_at(step)\n"
        "step = jnp.int32(step + 1)\n"
        "lr2 = lr_at(step)\n"
        "out = [lr1, lr2]\n"),
    "grad_accumulator_starts_as_none_fixed": (
        "grad_accumulator_starts_as_none with its note's code pasted before the loop's call",
        "@jax.jit\n"
        "def accumulate(acc, grads):\n"
        "    if acc is None:\n"
        "        return grads\n"
        "    return jax.tree.map(lambda a, g: a + g, acc, grads)\n"
        "grads = {'w': jnp.ones((3, 2)), 'b': jnp.ones(2)}\n"
        "acc = None\n"
        "for _ in range(3):\n"
        "    acc = {'b': jnp.zeros((2,)), 'w': jnp.zeros((3, 2))} if acc is None else acc    # "
        "arrays in every call\n"
        "    acc = accumulate(acc, grads)\n"
        "out = acc['w']\n"),
    "grad_accumulator_starts_as_none_reset_to_none": (
        "grad_accumulator_starts_as_none with the note's old code, `acc = None` before each call: "
        "one program, but the last step's gradients alone",
        "@jax.jit\n"
        "def accumulate(acc, grads):\n"
        "    if acc is None:\n"
        "        return grads\n"
        "    return jax.tree.map(lambda a, g: a + g, acc, grads)\n"
        "grads = {'w': jnp.ones((3, 2)), 'b': jnp.ones(2)}\n"
        "acc = None\n"
        "for _ in range(3):\n"
        "    acc = None    # one kind of empty value, every call\n"
        "    acc = accumulate(acc, grads)\n"
        "out = acc['w']\n"),
    "adam_state_dict_starts_as_floats_fixed": (
        "adam_state_dict_starts_as_floats with its note's code pasted after the state is made",
        "@jax.jit\n"
        "def adam(w, g, state):\n"
        "    m = 0.9 * state['m'] + 0.1 * g\n"
        "    v = 0.99 * state['v'] + 0.01 * g * g\n"
        "    return w - 0.01 * m / (jnp.sqrt(v) + 1e-8), {'m': m, 'v': v}\n"
        "w = jnp.ones(3)\n"
        "state = {'m': 0.0, 'v': 0.0}\n"
        "state['m'] = jnp.broadcast_to(jnp.asarray(state['m'], jnp.float32), (3,))    # from the "
        "start\n"
        "state['v'] = jnp.broadcast_to(jnp.asarray(state['v'], jnp.float32), (3,))    # from the "
        "start\n"
        "for _ in range(3):\n"
        "    w, state = adam(w, jnp.ones(3), state)\n"
        "out = w\n"),
    "opt_state_tuple_starts_as_floats_fixed": (
        "opt_state_tuple_starts_as_floats with its note's code pasted after the state is made",
        "@jax.jit\n"
        "def adam(w, g, state):\n"
        "    m, v = state\n"
        "    m = 0.9 * m + 0.1 * g\n"
        "    v = 0.99 * v + 0.01 * g * g\n"
        "    return w - 0.01 * m / (jnp.sqrt(v) + 1e-8), (m, v)\n"
        "w = jnp.ones(3)\n"
        "state = (0.0, 0.0)\n"
        "state = (jnp.broadcast_to(jnp.asarray(state[0], jnp.float32), (3,)),) + state[1:]    # "
        "from the start\n"
        "state = state[:1] + (jnp.broadcast_to(jnp.asarray(state[1], jnp.float32), (3,)),) + "
        "state[2:]    # from the start\n"
        "for _ in range(3):\n"
        "    w, state = adam(w, jnp.ones(3), state)\n"
        "out = w\n"),
    "momentum_namedtuple_starts_as_float_fixed": (
        "momentum_namedtuple_starts_as_float with its note's code pasted after the state is made",
        "import collections\n"
        "Opt = collections.namedtuple('Opt', ['velocity', 'count'])\n"
        "@jax.jit\n"
        "def sgd(w, g, opt):\n"
        "    v = 0.9 * opt.velocity + g\n"
        "    return w - 0.1 * v, Opt(v, opt.count + 1)\n"
        "w = jnp.ones(3)\n"
        "opt = Opt(0.0, 0)\n"
        "opt = opt._replace(velocity=jnp.broadcast_to(jnp.asarray(opt.velocity, jnp.float32), "
        "(3,)))    # from the start\n"
        "for _ in range(3):\n"
        "    w, opt = sgd(w, jnp.ones(3), opt)\n"
        "out = w\n"),
    "frozen_dataclass_state_starts_as_float_fixed": (
        "frozen_dataclass_state_starts_as_float with its note's code pasted after the state is "
        "made",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Opt:\n"
        "    mu: jax.Array\n"
        "@jax.jit\n"
        "def sgd(w, g, opt):\n"
        "    mu = 0.9 * opt.mu + g\n"
        "    return w - 0.1 * mu, Opt(mu)\n"
        "w = jnp.ones(3)\n"
        "opt = Opt(0.0)\n"
        "import dataclasses\n"
        "opt = dataclasses.replace(opt, mu=jnp.broadcast_to(jnp.asarray(opt.mu, jnp.float32), "
        "(3,)))\n"
        "for _ in range(3):\n"
        "    w, opt = sgd(w, jnp.ones(3), opt)\n"
        "out = w\n"),
    "tuple_batch_last_short_fixed": (
        "tuple_batch_last_short with its note's code pasted before the loop's call",
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    x, y = batch\n"
        "    return ((x @ w) - y).sum()\n"
        "xs, ys = jnp.ones((10, 3)), jnp.zeros(10)\n"
        "w = jnp.ones(3)\n"
        "total = 0.0\n"
        "for i in range(0, 10, 4):\n"
        "    batch = (xs[i:i + 4], ys[i:i + 4])\n"
        "    n = batch[0].shape[0]\n"
        "    batch = (jnp.pad(batch[0], [(0, 4 - n)] + [(0, 0)] * (batch[0].ndim - 1)),) + "
        "batch[1:]\n"
        "    mask = jnp.arange(4) < n    # pass it in: weigh each row by it\n"
        "    n = batch[1].shape[0]\n"
        "    batch = batch[:1] + (jnp.pad(batch[1], [(0, 4 - n)] + [(0, 0)] * (batch[1].ndim - "
        "1)),) + batch[2:]\n"
        "    mask = jnp.arange(4) < n    # pass it in: weigh each row by it\n"
        "    total = total + loss(w, batch)\n"
        "out = total\n"),
    "batch_unpacked_as_keywords_last_short_fixed": (
        "batch_unpacked_as_keywords_last_short with its note's code pasted before the loop's call",
        "@jax.jit\n"
        "def loss(w, x, y):\n"
        "    return ((x @ w) - y).sum()\n"
        "data = {'x': jnp.ones((10, 3)), 'y': jnp.zeros(10)}\n"
        "w = jnp.ones(3)\n"
        "total = 0.0\n"
        "for i in range(0, 10, 4):\n"
        "    batch = {k: v[i:i + 4] for k, v in data.items()}\n"
        "    n = batch['x'].shape[0]\n"
        "    batch['x'] = jnp.pad(batch['x'], [(0, 4 - n)] + [(0, 0)] * (batch['x'].ndim - 1))\n"
        "    mask = jnp.arange(4) < n    # pass it in: weigh each row by it\n"
        "    n = batch['y'].shape[0]\n"
        "    batch['y'] = jnp.pad(batch['y'], [(0, 4 - n)] + [(0, 0)] * (batch['y'].ndim - 1))\n"
        "    mask = jnp.arange(4) < n    # pass it in: weigh each row by it\n"
        "    total = total + loss(w, **batch)\n"
        "out = total\n"),
    "namedtuple_batch_label_dtype_fixed": (
        "namedtuple_batch_label_dtype with its note's code pasted before line 8's call",
        "import collections\n"
        "Batch = collections.namedtuple('Batch', ['x', 'y'])\n"
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    return ((batch.x @ w) - batch.y).mean()\n"
        "w = jnp.ones(3)\n"
        "batch = Batch(jnp.ones((4, 3)), jnp.array([0, 1, 0, 1]))\n"
        "batch = batch._replace(y=jnp.asarray(batch.y, jnp.float32))\n"
        "l1 = loss(w, batch)\n"
        "batch = Batch(jnp.ones((4, 3)), jnp.array([0., 1., 0., 1.]))\n"
        "l2 = loss(w, batch)\n"
        "out = [l1, l2]\n"),
    "namedtuple_batch_label_dtype_pasted_at_the_later_call": (
        "namedtuple_batch_label_dtype with the note's old code pasted under it, before line 10's "
        "call, whose labels are float32 already",
        "import collections\n"
        "Batch = collections.namedtuple('Batch', ['x', 'y'])\n"
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    return ((batch.x @ w) - batch.y).mean()\n"
        "w = jnp.ones(3)\n"
        "batch = Batch(jnp.ones((4, 3)), jnp.array([0, 1, 0, 1]))\n"
        "l1 = loss(w, batch)\n"
        "batch = Batch(jnp.ones((4, 3)), jnp.array([0., 1., 0., 1.]))\n"
        "batch = batch._replace(y=jnp.asarray(batch.y, jnp.float32))    # "
        "dataclasses.replace(...) for a dataclass\n"
        "l2 = loss(w, batch)\n"
        "out = [l1, l2]\n"),
    "dict_literal_label_dtype_fixed": (
        "dict_literal_label_dtype with its note's code in place of line 5",
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    return ((batch['x'] @ w) - batch['y']).mean()\n"
        "w = jnp.ones(3)\n"
        "batch = {'x': jnp.ones((4, 3)), 'y': jnp.array([0, 1, 0, 1])}    # line 5's argument, "
        "named\n"
        "batch['y'] = jnp.asarray(batch['y'], jnp.float32)\n"
        "l1 = loss(w, batch)    # line 5, given it\n"
        "l2 = loss(w, {'x': jnp.ones((4, 3)), 'y': jnp.array([0., 1., 0., 1.])})\n"
        "out = [l1, l2]\n"),
    "tuple_literal_label_dtype_fixed": (
        "tuple_literal_label_dtype with its note's code in place of line 6",
        "@jax.jit\n"
        "def loss(w, batch):\n"
        "    x, y = batch\n"
        "    return ((x @ w) - y).mean()\n"
        "w = jnp.ones(3)\n"
        "batch = (jnp.ones((4, 3)), jnp.array([0, 1, 0, 1]))    # line 6's argument, named\n"
        "batch = batch[:1] + (jnp.asarray(batch[1], jnp.float32),) + batch[2:]\n"
        "l1 = loss(w, batch)    # line 6, given it\n"
        "l2 = loss(w, (jnp.ones((4, 3)), jnp.array([0., 1., 0., 1.])))\n"
        "out = [l1, l2]\n"),
    "keyword_with_an_array_default_passed_fixed": (
        "keyword_with_an_array_default_passed with scale passed in every call, as its note says",
        "@jax.jit\n"
        "def f(x, scale=jnp.ones(3)):\n"
        "    return x * scale\n"
        "x = jnp.ones(3)\n"
        "y1 = f(x, scale=jnp.ones(3))\n"
        "y2 = f(x, scale=jnp.full(3, 2.0, jnp.float32))\n"
        "out = [y1, y2]\n"),
    "step_count_int_then_int32_fixed": (
        "step_count_int_then_int32 with its note's code in place of line 5",
        "@jax.jit\n"
        "def lr_at(step):\n"
        "    return 0.1 * 0.99 ** step\n"
        "step = 0\n"
        "lr1 = lr_at(jnp.asarray(step, jnp.int32))    # line 5\n"
        "step = jnp.int32(step + 1)\n"
        "lr2 = lr_at(step)\n"
        "out = [lr1, lr2]\n"),
    # ---- a third audit (h-recomp-101, stop 101): 29 programs a learner writes, and five
    # notes' code pasted
    "bfloat16_then_float32": (
        'a bfloat16 array, then a float32 one',
        'f = jax.jit(lambda x: x * 2)\n'
        'f(jnp.ones(3, jnp.bfloat16)); f(jnp.ones(3))\n'),
    "bfloat16_warmup_then_float32_loop": (
        'a bfloat16 warm-up call, then float32 data in a loop (the first call the odd one)',
        'f = jax.jit(lambda x: (x * x).sum())\n'
        'f(jnp.zeros(3, jnp.bfloat16))\n'
        'for i in range(3):\n'
        '    f(jnp.arange(3.0) + i)\n'),
    "float32_then_bfloat16": (
        'float32, then bfloat16 (mixed precision)',
        'f = jax.jit(lambda x: x * 2)\n'
        'f(jnp.ones(3)); f(jnp.ones(3, jnp.bfloat16))\n'),
    "numpy_float16_then_jnp_float32": (
        'a NumPy float16 array, then a jnp float32 one',
        'f = jax.jit(lambda x: x.sum())\n'
        'f(np.ones(3, np.float16)); f(jnp.ones(3))\n'),
    "staticmethod_jitted_new_shape": (
        'a jitted staticmethod called as Model.apply, a new length',
        'class Model:\n'
        '    @staticmethod\n'
        '    @jax.jit\n'
        '    def apply(x):\n'
        '        return x * 2\n'
        'Model.apply(jnp.ones(3)); Model.apply(jnp.ones(4))\n'),
    "layers_list_in_dict_grows": (
        "params {'layers': [w1]}, then two layers",
        "f = jax.jit(lambda p, x: sum((x @ w).sum() for w in p['layers']))\n"
        'w = jnp.ones((3, 3))\n'
        "f({'layers': [w]}, jnp.ones(3)); f({'layers': [w, w]}, jnp.ones(3))\n"),
    "python_int_then_numpy_float32": (
        'a Python int, then a NumPy float32 scalar',
        'f = jax.jit(lambda x: x * 2)\n'
        'f(1); f(np.float32(1))\n'),
    "index_python_int_then_argmax": (
        "an index as a Python int, then jnp.argmax's int32",
        'f = jax.jit(lambda x, i: x[i])\n'
        'x = jnp.arange(4.0)\n'
        'f(x, 0); f(x, jnp.argmax(x))\n'),
    "numpy_int64_scalar_then_python_int": (
        'a NumPy int64 scalar, then a Python int',
        'f = jax.jit(lambda x, n: x * n)\n'
        'f(jnp.ones(3), np.int64(3)); f(jnp.ones(3), 3)\n'),
    "static_axis_tuple_then_int": (
        'a static axis (0,), then 0',
        'f = jax.jit(lambda x, axis: x.sum(axis), static_argnums=1)\n'
        'f(jnp.ones((2, 3)), (0,)); f(jnp.ones((2, 3)), 0)\n'),
    "static_argnums_negative_value_changes": (
        'static_argnums=-1, its value 2 then 3',
        'def power(x, n):\n'
        '    return x ** n\n'
        'f = jax.jit(power, static_argnums=-1)\n'
        'f(jnp.ones(3), 2); f(jnp.ones(3), 3)\n'),
    "global_dict_entry_mutated": (
        'a global config dict read inside, its entry changed: a hit, old value',
        "cfg = {'scale': 2.0}\n"
        "f = jax.jit(lambda x: x * cfg['scale'])\n"
        'f(jnp.ones(3))\n'
        "cfg['scale'] = 3.0\n"
        'out = f(jnp.ones(3))\n'),
    "closure_list_appended_len_read": (
        "a global list's length read inside, the list appended: a hit, old length",
        'history = [1.0]\n'
        'f = jax.jit(lambda x: x * len(history))\n'
        'f(jnp.ones(3))\n'
        'history.append(2.0)\n'
        'out = f(jnp.ones(3))\n'),
    "keyword_default_float_then_array": (
        'bias left to its default 0.0, then given an array',
        'def layer(x, bias=0.0):\n'
        '    return x + bias\n'
        'f = jax.jit(layer)\n'
        'f(jnp.ones(3)); f(jnp.ones(3), bias=jnp.zeros(3))\n'),
    "training_flag_python_bool_then_array": (
        'a traced training flag: a Python bool, then jnp.array(True)',
        'def drop(x, training):\n'
        '    return jnp.where(training, x * 0.5, x)\n'
        'f = jax.jit(drop)\n'
        'f(jnp.ones(3), False); f(jnp.ones(3), jnp.array(True))\n'),
    "eval_set_in_one_batch": (
        'train batches of 32 rows, then the whole eval set of 100 rows',
        'f = jax.jit(lambda x: (x ** 2).mean())\n'
        'f(jnp.ones((32, 4))); f(jnp.ones((32, 4))); f(jnp.ones((100, 4)))\n'),
    "empty_last_batch": (
        'batches of 4 rows, then an empty one (0 rows)',
        'f = jax.jit(lambda x: x.sum())\n'
        'data = jnp.ones((8, 3))\n'
        'for i in range(0, 12, 4):\n'
        '    f(data[i:i + 4])\n'),
    "jit_inline_each_call_same_function": (
        'jax.jit(loss)(x) written inline each step, loss a top-level def: a hit',
        'def loss(x):\n'
        '    return (x ** 2).sum()\n'
        'for _ in range(3):\n'
        '    jax.jit(loss)(jnp.ones(3))\n'),
    "registered_class_layers_grow": (
        'a register_pytree_node_class model whose layer list grows',
        '@jax.tree_util.register_pytree_node_class\n'
        'class MLP:\n'
        '    def __init__(self, ws):\n'
        '        self.ws = ws\n'
        '    def tree_flatten(self):\n'
        '        return tuple(self.ws), None\n'
        '    @classmethod\n'
        '    def tree_unflatten(cls, aux, ws):\n'
        '        return cls(list(ws))\n'
        'f = jax.jit(lambda m, x: sum((x @ w).sum() for w in m.ws))\n'
        'w = jnp.ones((3, 3))\n'
        'f(MLP([w]), jnp.ones(3)); f(MLP([w, w]), jnp.ones(3))\n'),
    "register_dataclass_field_python_float_then_array": (
        'a register_dataclass state, its lr a Python float then an array',
        'import dataclasses\n'
        '@jax.tree_util.register_dataclass\n'
        '@dataclasses.dataclass\n'
        'class Opt:\n'
        '    w: jax.Array\n'
        '    lr: jax.Array\n'
        'f = jax.jit(lambda o: o.w * o.lr)\n'
        'f(Opt(jnp.ones(3), 0.1)); f(Opt(jnp.ones(3), jnp.full((), 0.1)))\n'),
    "outputs_list_then_tuple_fed_back": (
        'a state built as a list, fed back as the tuple the step returns',
        'def step(state):\n'
        '    w, b = state\n'
        '    return (w * 0.9, b * 0.9)\n'
        'f = jax.jit(step)\n'
        's = [jnp.ones(3), jnp.zeros(3)]\n'
        's = f(s); s = f(s)\n'),
    "hyperparams_dict_float_then_schedule": (
        "hyperparameters {'lr': 0.1}, then lr from a schedule array",
        "f = jax.jit(lambda w, hp: w - hp['lr'] * w)\n"
        'lrs = 0.1 * 0.9 ** jnp.arange(3.0)\n'
        "f(jnp.ones(3), {'lr': 0.1}); f(jnp.ones(3), {'lr': lrs[1]})\n"),
    "int_labels_numpy_then_jnp_float": (
        'integer labels from NumPy (int64: int32 without x64), then float labels',
        'f = jax.jit(lambda y: (y * 2).sum())\n'
        'f(np.array([0, 1, 2])); f(jnp.array([0.0, 1.0, 2.0]))\n'),
    "static_self_model_hyper_changed": (
        "a method jitted with self static (partial(jax.jit, static_argnums=0)), self's depth set",
        'import functools\n'
        'class Net:\n'
        '    def __init__(self, depth):\n'
        '        self.depth = depth\n'
        '    @functools.partial(jax.jit, static_argnums=0)\n'
        '    def __call__(self, x):\n'
        '        for _ in range(self.depth):\n'
        '            x = x * 2\n'
        '        return x\n'
        'Net(2)(jnp.ones(3)); Net(3)(jnp.ones(3))\n'),
    "donate_argnums_state_weak_start": (
        'a donated state started as a Python float, updated in a loop',
        'step = jax.jit(lambda s, g: s - 0.1 * g, donate_argnums=0)\n'
        's = 0.0\n'
        'for _ in range(3):\n'
        '    s = step(s, jnp.ones(3))\n'),
    "optional_mask_none_then_bool": (
        'mask=None, then a boolean mask',
        'def masked_mean(x, mask=None):\n'
        '    return x.mean() if mask is None else (x * mask).sum() / mask.sum()\n'
        'f = jax.jit(masked_mean)\n'
        'f(jnp.ones(4)); f(jnp.ones(4), mask=jnp.array([True, True, False, True]))\n'),
    "image_batch_hwc_channel_count": (
        'RGB images, then grayscale (3 channels, then 1)',
        'f = jax.jit(lambda img: img.mean(axis=(1, 2)))\n'
        'f(jnp.ones((2, 8, 8, 3))); f(jnp.ones((2, 8, 8, 1)))\n'),
    "staticmethod_keyword_left_out_then_passed": (
        'a jitted staticmethod, b left out, then passed: Model.apply',
        'class Model:\n'
        '    @staticmethod\n'
        '    @jax.jit\n'
        '    def apply(x, b=0.0):\n'
        '        return x + b\n'
        'Model.apply(jnp.ones(3)); Model.apply(jnp.ones(3), b=jnp.zeros(3))\n'),
    "staticmethod_jitted_by_its_class_static_value": (
        'jax.jit(Model.apply) of a staticmethod, n static 2 then 3',
        'class Model:\n'
        '    @staticmethod\n'
        '    def apply(x, n):\n'
        '        return x * n\n'
        'f = jax.jit(Model.apply, static_argnums=1)\n'
        'f(jnp.ones(3), 2); f(jnp.ones(3), 3)\n'),
    # their notes' code pasted where it says (h-recomp-101)
    "bfloat16_warmup_then_float32_loop_fixed": (
        "bfloat16_warmup_then_float32_loop with its note's code in place of line 2",
        "f = jax.jit(lambda x: (x * x).sum())\n"
        "f(jnp.asarray(jnp.zeros(3, jnp.bfloat16), jnp.float32))    # line 2\n"
        "out = []\n"
        "for i in range(3):\n"
        "    out.append(f(jnp.arange(3.0) + i))\n"),
    "staticmethod_jitted_by_its_class_static_value_fixed": (
        "staticmethod_jitted_by_its_class_static_value with its note's jit line",
        "class Model:\n"
        "    @staticmethod\n"
        "    def apply(x, n):\n"
        "        return x * n\n"
        "f = jax.jit(Model.apply)    # n traced: one program for all its values\n"
        "out = [f(jnp.ones(3), 2), f(jnp.ones(3), 3)]\n"),
    "static_self_model_hyper_changed_fixed": (
        "static_self_model_hyper_changed with its note's __hash__ and __eq__ in class Net",
        "import functools\n"
        "class Net:\n"
        "    def __init__(self, depth):\n"
        "        self.depth = depth\n"
        "    def __hash__(self): return hash((self.depth,))          # in class Net\n"
        "    def __eq__(self, other): return isinstance(other, Net) and "
        "(self.depth,) == (other.depth,)\n"
        "    @functools.partial(jax.jit, static_argnums=0)\n"
        "    def __call__(self, x):\n"
        "        for _ in range(self.depth):\n"
        "            x = x * 2\n"
        "        return x\n"
        "out = [Net(2)(jnp.ones(3)), Net(2)(jnp.ones(3))]\n"),
    "static_axis_tuple_then_int_fixed": (
        "static_axis_tuple_then_int with the axis written one way, 0, as its note says",
        "f = jax.jit(lambda x, axis: x.sum(axis), static_argnums=1)\n"
        "out = [f(jnp.ones((2, 3)), 0), f(jnp.ones((2, 3)), 0)]\n"),
    "hyperparams_dict_float_then_schedule_fixed": (
        "hyperparams_dict_float_then_schedule with its note's code in place of line 3",
        "f = jax.jit(lambda w, hp: w - hp['lr'] * w)\n"
        "lrs = 0.1 * 0.9 ** jnp.arange(3.0)\n"
        "hp = {'lr': 0.1}    # line 3's argument, named\n"
        "hp['lr'] = jnp.asarray(hp['lr'], jnp.float32)    # an array from the start\n"
        "out = [f(jnp.ones(3), hp), f(jnp.ones(3), {'lr': lrs[1]})]    # line 3, given it\n"),
    # ---- a fourth audit (h-recomp-102, stop 102): a list grown inside a dict literal, the
    # note's code pasted; then 20 programs of recompiles (and hits) the audits above miss
    "layers_list_in_dict_grows_fixed": (
        "layers_list_in_dict_grows with its note's code pasted, both calls' lists stacked",
        "f = jax.jit(lambda p, x: sum((x @ w).sum() for w in p['layers']))\n"
        "w = jnp.ones((3, 3))\n"
        "p_1 = {'layers': [w]}    # line 3's first argument, named and stacked so too\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(p_1['layers'])\n"
        "p_1['layers'] = jnp.stack(list(p_1['layers']) + [jnp.zeros((3, 3), jnp.float32)]"
        " * (MAX - n))\n"
        "p = {'layers': [w, w]}    # line 3's argument, named\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(p['layers'])\n"
        "p['layers'] = jnp.stack(list(p['layers']) + [jnp.zeros((3, 3), jnp.float32)]"
        " * (MAX - n))\n"
        "mask = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "out = [f(p_1, jnp.ones(3)), f(p, jnp.ones(3))]    # line 3, given it\n"),
    "layers_list_in_dict_grows_stacked_at_the_later_call": (
        "layers_list_in_dict_grows with the note's code at the later call alone",
        "f = jax.jit(lambda p, x: sum((x @ w).sum() for w in p['layers']))\n"
        "w = jnp.ones((3, 3))\n"
        "p = {'layers': [w, w]}    # line 3's argument, named\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(p['layers'])\n"
        "p['layers'] = jnp.stack(list(p['layers']) + [jnp.zeros((3, 3), jnp.float32)]"
        " * (MAX - n))\n"
        "mask = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "out = [f({'layers': [w]}, jnp.ones(3)), f(p, jnp.ones(3))]    # line 3, given it\n"),
    "layers_dict_call_in_a_loop_grows": (
        "dict(layers=layers) passed in a loop that appends a layer after each call",
        "f = jax.jit(lambda p, x: sum((x @ w).sum() for w in p['layers']))\n"
        "w = jnp.ones((3, 3))\n"
        "layers = [w]\n"
        "for _ in range(3):\n"
        "    f(dict(layers=layers), jnp.ones(3))\n"
        "    layers.append(w)\n"),
    "layers_dict_call_in_a_loop_grows_fixed": (
        "layers_dict_call_in_a_loop_grows with its note's code in place of line 5",
        "f = jax.jit(lambda p, x: sum((x @ w).sum() for w in p['layers']))\n"
        "w = jnp.ones((3, 3))\n"
        "layers = [w]\n"
        "out = []\n"
        "for _ in range(3):\n"
        "    p = dict(layers=layers)    # line 5's argument, named\n"
        "    MAX = 8                              # the most items a call has\n"
        "    n = len(p['layers'])\n"
        "    p['layers'] = jnp.stack(list(p['layers']) + [jnp.zeros((3, 3), jnp.float32)]"
        " * (MAX - n))\n"
        "    mask = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "    out.append(f(p, jnp.ones(3)))    # line 5, given it\n"
        "    layers.append(w)\n"),
    "layers_dict_call_in_a_loop_grows_pattern_applied": (
        "layers_dict_call_in_a_loop_grows with its third note's pattern filled in: layers an "
        "array of 3 rows, row i set at step i",
        "f = jax.jit(lambda p, x: sum((x @ w).sum() for w in p['layers']))\n"
        "w = jnp.ones((3, 3))\n"
        "layers = jnp.zeros((3, 3, 3), jnp.float32)    # once, before the loop\n"
        "out = []\n"
        "for i in range(3):\n"
        "    layers = layers.at[i].set(w)    # step i: not an append (+ [value])\n"
        "    out.append(f(dict(layers=layers), jnp.ones(3)))\n"),
    "static_intenum_then_int": (
        "an IntEnum member as a static argument, then its int: equal, the same hash",
        "import enum\n"
        "class Mode(enum.IntEnum):\n"
        "    TRAIN = 1\n"
        "f = jax.jit(lambda x, mode: x * mode, static_argnums=1)\n"
        "f(jnp.ones(3), Mode.TRAIN); f(jnp.ones(3), 1)\n"),
    "intenum_member_traced_then_int": (
        "an IntEnum member passed traced, then its int: both weak int32, a hit",
        "import enum\n"
        "class Mode(enum.IntEnum):\n"
        "    TRAIN = 1\n"
        "f = jax.jit(lambda x, mode: x * mode)\n"
        "f(jnp.ones(3), Mode.TRAIN); out = f(jnp.ones(3), 1)\n"),
    "static_namedtuple_config_changed": (
        "a NamedTuple config passed static, its lr changed",
        "from typing import NamedTuple\n"
        "class Config(NamedTuple):\n"
        "    lr: float\n"
        "    steps: int\n"
        "f = jax.jit(lambda w, cfg: w - cfg.lr * w, static_argnums=1)\n"
        "f(jnp.ones(3), Config(0.1, 10)); f(jnp.ones(3), Config(0.05, 10))\n"),
    "register_static_config_changed": (
        "a config class registered with jax.tree_util.register_static, a new depth",
        "import dataclasses\n"
        "@jax.tree_util.register_static\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Cfg:\n"
        "    depth: int\n"
        "def run(x, cfg):\n"
        "    for _ in range(cfg.depth):\n"
        "        x = x * 2\n"
        "    return x\n"
        "f = jax.jit(run)\n"
        "f(jnp.ones(3), Cfg(2)); f(jnp.ones(3), Cfg(3))\n"),
    "register_static_holding_a_function_made_anew": (
        "a register_static definition holding an update function made anew each time, as "
        "Flax's GraphDef holds a new optax transformation's functions",
        DEF_HOLDING_AN_UPDATE +
        "f(jnp.ones(3), Def(names, make_update(0.1)))\n"
        "out = f(jnp.ones(3), Def(names, make_update(0.1)))\n"),
    "register_static_holding_a_function_made_anew_fixed": (
        "the same, the update function made once and passed in each definition",
        DEF_HOLDING_AN_UPDATE +
        "update = make_update(0.1)    # once\n"
        "f(jnp.ones(3), Def(names, update))\n"
        "out = f(jnp.ones(3), Def(names, update))\n"),
    "static_range_equal_objects": (
        "range(3) made anew as a static argument: equal ranges, a hit",
        "f = jax.jit(lambda x, r: sum(x[i] for i in r), static_argnums=1)\n"
        "f(jnp.ones(3), range(3)); out = f(jnp.ones(3), range(3))\n"),
    "partial_of_jit_keyword_value_changes": (
        "functools.partial of a jitted function, its traced keyword another float each time",
        "import functools\n"
        "@jax.jit\n"
        "def scaled(x, scale):\n"
        "    return x * scale\n"
        "for s in (0.5, 1.0, 2.0):\n"
        "    g = functools.partial(scaled, scale=s)\n"
        "    out = g(jnp.ones(3))\n"),
    "params_cast_to_bfloat16_all_leaves": (
        "params float32, then every leaf cast to bfloat16 with jax.tree.map",
        "f = jax.jit(lambda p, x: (x @ p['w'] + p['b']).sum())\n"
        "params = {'w': jnp.ones((3, 2)), 'b': jnp.zeros(2)}\n"
        "f(params, jnp.ones(3))\n"
        "params = jax.tree.map(lambda a: a.astype(jnp.bfloat16), params)\n"
        "f(params, jnp.ones(3))\n"),
    "grads_reset_to_python_zeros_with_tree_map": (
        "an accumulator reset with jax.tree.map(lambda g: 0.0, acc): arrays, then Python 0.0s",
        "f = jax.jit(lambda acc, g: jax.tree.map(lambda a, b: a + b, acc, g))\n"
        "g = {'w': jnp.ones(3)}\n"
        "acc = f({'w': jnp.zeros(3)}, g)\n"
        "acc = jax.tree.map(lambda a: 0.0, acc)\n"
        "acc = f(acc, g)\n"),
    "static_argnames_list_value": (
        "a list passed by keyword to a static_argnames parameter: an error",
        "f = jax.jit(lambda x, axes: x.sum(axes), static_argnames='axes')\n"
        "f(jnp.ones((2, 3)), axes=[0, 1])\n"),
    "method_jitted_in_init_two_models": (
        "a model that jits its bound method in __init__: a second model, the same shapes",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "        self.apply = jax.jit(self._apply)\n"
        "    def _apply(self, x):\n"
        "        return x * self.k\n"
        "Model(2.0).apply(jnp.ones(3)); Model(3.0).apply(jnp.ones(3))\n"),
    "jit_of_vmap_last_batch_smaller": (
        "jax.jit(jax.vmap(per_example)) given 8 examples, then a last batch of 5",
        "def per_example(x):\n"
        "    return (x ** 2).sum()\n"
        "f = jax.jit(jax.vmap(per_example))\n"
        "f(jnp.ones((8, 3))); f(jnp.ones((5, 3)))\n"),
    "keyword_only_static_changes": (
        "a keyword-only n in static_argnames, 2 then 3",
        "def power(x, *, n):\n"
        "    return x ** n\n"
        "f = jax.jit(power, static_argnames='n')\n"
        "f(jnp.ones(3), n=2); f(jnp.ones(3), n=3)\n"),
    "tuple_of_python_int_then_float": (
        "a tuple of Python numbers, (1, 2) then (1.0, 2)",
        "f = jax.jit(lambda t: t[0] + t[1])\n"
        "f((1, 2)); f((1.0, 2))\n"),
    "empty_dict_then_none": (
        "an extras argument {} then None: no arrays either way",
        "f = jax.jit(lambda x, extras: x * 2)\n"
        "f(jnp.ones(3), {}); f(jnp.ones(3), None)\n"),
    "namedtuple_of_python_floats_new_values": (
        "a NamedTuple of Python floats, new values each call: traced, a hit",
        "from typing import NamedTuple\n"
        "class Hyper(NamedTuple):\n"
        "    lr: float\n"
        "    decay: float\n"
        "f = jax.jit(lambda w, h: w * (1 - h.lr * h.decay))\n"
        "for lr in (0.1, 0.05, 0.01):\n"
        "    out = f(jnp.ones(3), Hyper(lr, 0.9))\n"),
    "class_method_jitted_self_field_shape": (
        "jax.jit(Model.loss) of a register_dataclass model, its w longer",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass\n"
        "class Model:\n"
        "    w: jax.Array\n"
        "    def loss(self, x):\n"
        "        return (self.w * x).sum()\n"
        "loss = jax.jit(Model.loss)\n"
        "loss(Model(jnp.ones(3)), jnp.ones(3)); loss(Model(jnp.ones(4)), jnp.ones(4))\n"),
    "numpy_float32_array_then_jnp_array_of_list": (
        "a NumPy float32 array, then jnp.array of a list of floats: both float32, a hit",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(np.ones(3, np.float32)); out = f(jnp.array([1.0, 2.0, 3.0]))\n"),
    "static_python_bool_then_numpy_bool": (
        "a static flag True, then np.bool_(True) (from a NumPy comparison)",
        "f = jax.jit(lambda x, flag: x * 2 if flag else x, static_argnums=1)\n"
        "f(jnp.ones(3), True); f(jnp.ones(3), np.ones(2)[0] > 0)\n"),
    "donated_by_name_then_by_position": (
        "donate_argnames='state': state passed by keyword, then by position",
        "f = jax.jit(lambda state: state * 0.9, donate_argnames='state')\n"
        "s = f(state=jnp.ones(3)); s = f(s)\n"),
    "jnp_int32_then_numpy_int32_scalar": (
        "jnp.int32(3), then np.int32(3): both strong int32 scalars, a hit",
        "f = jax.jit(lambda x, n: x * n)\n"
        "f(jnp.ones(3), jnp.int32(3)); out = f(jnp.ones(3), np.int32(3))\n"),
    "tuple_of_python_floats_then_float32_scalars": (
        "betas (0.9, 0.999) as Python floats, then as jnp.float32 scalars",
        "f = jax.jit(lambda w, betas: w * betas[0] * betas[1])\n"
        "f(jnp.ones(3), (0.9, 0.999)); f(jnp.ones(3), (jnp.float32(0.9), jnp.float32(0.999)))\n"),
    # their notes' code pasted where it says (h-recomp-102)
    "static_intenum_then_int_fixed": (
        "static_intenum_then_int with its note's code in place of line 5",
        "import enum\n"
        "class Mode(enum.IntEnum):\n"
        "    TRAIN = 1\n"
        "f = jax.jit(lambda x, mode: x * mode, static_argnums=1)\n"
        "mode = 1    # line 5's argument, named\n"
        "mode = Mode(mode)    # one type in every call\n"
        "out = [f(jnp.ones(3), Mode.TRAIN), f(jnp.ones(3), mode)]    # line 5, given it\n"),
    "grads_reset_to_python_zeros_with_tree_map_fixed": (
        "grads_reset_to_python_zeros_with_tree_map with its note's code before line 5",
        "f = jax.jit(lambda acc, g: jax.tree.map(lambda a, b: a + b, acc, g))\n"
        "g = {'w': jnp.ones(3)}\n"
        "acc = f({'w': jnp.zeros(3)}, g)\n"
        "acc = jax.tree.map(lambda a: 0.0, acc)\n"
        "acc['w'] = jnp.broadcast_to(jnp.asarray(acc['w'], jnp.float32), (3,))    # the earlier "
        "call's shape and dtype\n"
        "out = f(acc, g)['w']\n"),
    "elementwise_length_changes": (
        "an elementwise jitted function (the tour's selu) given 12 values, then 5",
        "f = jax.jit(lambda x: 1.05 * jnp.where(x > 0, x, 1.67 * jnp.exp(x) - 1.67))\n"
        "f(jnp.arange(-3.0, 3.0, 0.5)); out = f(jnp.arange(5.0))\n"),
    "elementwise_length_changes_fixed": (
        "elementwise_length_changes with its note's code at both calls, the result's first n "
        "values kept",
        "f = jax.jit(lambda x: 1.05 * jnp.where(x > 0, x, 1.67 * jnp.exp(x) - 1.67))\n"
        "x = jnp.arange(-3.0, 3.0, 0.5)\n"
        "n = x.shape[0]\n"
        "size = max(16, 1 << (n - 1).bit_length())    # a power of two, at least 16\n"
        "x = jnp.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1))\n"
        "f(x)[:n]\n"
        "x = jnp.arange(5.0)    # line 2's argument, named\n"
        "n = x.shape[0]\n"
        "size = max(16, 1 << (n - 1).bit_length())    # a power of two, at least 16\n"
        "x = jnp.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1))\n"
        "out = f(x)[:n]    # line 2, given it; its first n values kept\n"),
    "jit_of_vmap_last_batch_smaller_fixed": (
        "jit_of_vmap_last_batch_smaller with its note's code, the result's first n rows kept",
        "def per_example(x):\n"
        "    return (x ** 2).sum()\n"
        "f = jax.jit(jax.vmap(per_example))\n"
        "x = jnp.ones((5, 3))    # line 4's argument, named\n"
        "n = x.shape[0]\n"
        "x = jnp.pad(x, [(0, 8 - n)] + [(0, 0)] * (x.ndim - 1))\n"
        "mask = jnp.arange(8) < n    # pass it in: weigh each row by it\n"
        "f(jnp.ones((8, 3))); out = f(x)[:n]    # line 4, given it; its first n rows kept\n"),
    "class_method_jitted_self_field_shape_fixed": (
        "class_method_jitted_self_field_shape with both its notes' code pasted in order, line "
        "9's earlier call padded so too, as they say",
        "import dataclasses\n"
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass\n"
        "class Model:\n"
        "    w: jax.Array\n"
        "    def loss(self, x):\n"
        "        return (self.w * x).sum()\n"
        "loss = jax.jit(Model.loss)\n"
        "self = Model(jnp.ones(4))    # line 9's argument, named\n"
        "n = self.w.shape[0]\n"
        "size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
        "self = dataclasses.replace(self, w=jnp.pad(self.w, [(0, size - n)] + [(0, 0)] * "
        "(self.w.ndim - 1)))\n"
        "x = jnp.ones(4)    # line 9's argument, named\n"
        "n = x.shape[0]\n"
        "size = max(4, 1 << (n - 1).bit_length())    # a power of two, at least 4\n"
        "x = jnp.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1))\n"
        "m3 = Model(jnp.pad(jnp.ones(3), [(0, 1)]))    # line 9's Model(jnp.ones(3)).w padded\n"
        "x3 = jnp.pad(jnp.ones(3), [(0, 1)])    # line 9's jnp.ones(3) padded\n"
        "out = [loss(m3, x3), loss(self, x)]    # line 9, given it\n"),
    "donated_by_name_then_by_position_fixed": (
        "donated_by_name_then_by_position with its note's pattern: state by keyword in both",
        "f = jax.jit(lambda state: state * 0.9, donate_argnames='state')\n"
        "s = f(state=jnp.ones(3)); s = f(state=s)    # or always by position\n"
        "out = s\n"),
    "params_cast_to_bfloat16_all_leaves_fixed": (
        "params_cast_to_bfloat16_all_leaves with its notes' code before line 5",
        "f = jax.jit(lambda p, x: (x @ p['w'] + p['b']).sum())\n"
        "params = {'w': jnp.ones((3, 2)), 'b': jnp.zeros(2)}\n"
        "f(params, jnp.ones(3))\n"
        "params = jax.tree.map(lambda a: a.astype(jnp.bfloat16), params)\n"
        "params['b'] = jnp.asarray(params['b'], jnp.float32)\n"
        "params['w'] = jnp.asarray(params['w'], jnp.float32)\n"
        "out = f(params, jnp.ones(3))\n"),
    "static_python_bool_then_numpy_bool_fixed": (
        "static_python_bool_then_numpy_bool with its note's code in place of line 2",
        "f = jax.jit(lambda x, flag: x * 2 if flag else x, static_argnums=1)\n"
        "flag = np.ones(2)[0] > 0    # line 2's argument, named\n"
        "flag = bool(flag)    # one type in every call\n"
        "out = [f(jnp.ones(3), True), f(jnp.ones(3), flag)]    # line 2, given it\n"),
    "tuple_of_python_int_then_float_fixed": (
        "tuple_of_python_int_then_float with its note's code in place of line 2",
        "f = jax.jit(lambda t: t[0] + t[1])\n"
        "t = (1, 2)    # line 2's argument, named\n"
        "t = (float(t[0]),) + t[1:]    # always a Python float\n"
        "out = [f(t), f((1.0, 2))]    # line 2, given it\n"),
    "python_int_then_python_float_cast_at_the_later_call": (
        "python_int_then_python_float with the code its note gave before: the later call's "
        "2.0, a float already, cast",
        "f = jax.jit(lambda x, s: x * s)\n"
        "s = 2.0    # line 2's argument, named\n"
        "s = float(s)    # always a Python float\n"
        "f(jnp.ones(3), 2); f(jnp.ones(3), s)    # line 2, given it\n"),
    "static_namedtuple_config_changed_fixed": (
        "static_namedtuple_config_changed with its note's jit line: cfg traced",
        "from typing import NamedTuple\n"
        "class Config(NamedTuple):\n"
        "    lr: float\n"
        "    steps: int\n"
        "f = jax.jit(lambda w, cfg: w - cfg.lr * w)    # cfg traced: its numbers are leaves\n"
        "out = [f(jnp.ones(3), Config(0.1, 10)), f(jnp.ones(3), Config(0.05, 10))]\n"),
    "keyword_only_static_changes_fixed": (
        "keyword_only_static_changes with its note's jit line: n traced",
        "def power(x, *, n):\n"
        "    return x ** n\n"
        "f = jax.jit(power)    # n traced: one program for all its values\n"
        "out = [f(jnp.ones(3), n=2), f(jnp.ones(3), n=3)]\n"),
    "tuple_of_python_floats_then_float32_scalars_fixed": (
        "tuple_of_python_floats_then_float32_scalars with both its notes' code pasted in order",
        "f = jax.jit(lambda w, betas: w * betas[0] * betas[1])\n"
        "betas = (0.9, 0.999)    # line 2's argument, named\n"
        "betas = (jnp.asarray(betas[0], jnp.float32),) + betas[1:]    # an array from the start\n"
        "betas = betas[:1] + (jnp.asarray(betas[1], jnp.float32),) + betas[2:]    # an array "
        "from the start\n"
        "out = [f(jnp.ones(3), betas), f(jnp.ones(3), (jnp.float32(0.9), jnp.float32(0.999)))]"
        "    # line 2, given it\n"),
    # stop 104's audit (h-recomp-104): families the scenarios above did not hold
    "dict_literal_two_lists_grow": (
        "f({'a': a_list, 'b': b_list}) in a loop appending to both lists before each call",
        "f = jax.jit(lambda d: sum(v.sum() for v in d['a']) + sum(v.sum() for v in d['b']))\n"
        "a_list, b_list = [], []\n"
        "for i in range(3):\n"
        "    a_list.append(jnp.ones(2)); b_list.append(jnp.ones(3))\n"
        "    f({'a': a_list, 'b': b_list})\n"),
    "two_list_arguments_grow": (
        "f(a_list, b_list), both appended to before each call",
        "f = jax.jit(lambda a, b: sum(v.sum() for v in a) + sum(v.sum() for v in b))\n"
        "a_list, b_list = [], []\n"
        "for i in range(3):\n"
        "    a_list.append(jnp.ones(2)); b_list.append(jnp.ones(3))\n"
        "    f(a_list, b_list)\n"),
    "prefix_slice_python_n_grows": (
        "x[:n] passed with a Python n growing each step",
        "f = jax.jit(lambda x: (x ** 2).sum())\n"
        "x = jnp.arange(8.0)\n"
        "for n in (2, 3, 4):\n"
        "    f(x[:n])\n"),
    "static_n_sliced_in_jit": (
        "x[:n] inside the jit with n static, a new n each step",
        "f = jax.jit(lambda x, n: x[:n].sum(), static_argnums=1)\n"
        "x = jnp.arange(8.0)\n"
        "for n in (2, 3, 4):\n"
        "    f(x, n)\n"),
    "static_n_arange_in_jit": (
        "jnp.arange(n) inside the jit with n static, a new n each step",
        "f = jax.jit(lambda n: jnp.arange(n).sum(), static_argnums=0)\n"
        "for n in (3, 4, 5):\n"
        "    f(n)\n"),
    "arange_argument_grows": (
        "jnp.arange(n) passed with n growing",
        "f = jax.jit(lambda t: jnp.sin(t).sum())\n"
        "for n in (3, 4, 5):\n"
        "    f(jnp.arange(n, dtype=jnp.float32))\n"),
    "static_string_other_case": (
        "a static activation name, 'relu' then 'ReLU'",
        "def layer(x, act):\n"
        "    return jnp.maximum(x, 0) if act.lower() == 'relu' else x\n"
        "f = jax.jit(layer, static_argnames='act')\n"
        "f(jnp.ones(3), act='relu'); f(jnp.ones(3), act='ReLU')\n"),
    "python_bool_then_jnp_bool": (
        "a traced flag, a Python True then jnp.bool_(True)",
        "f = jax.jit(lambda x, flag: jnp.where(flag, x * 2, x))\n"
        "f(jnp.ones(3), True); f(jnp.ones(3), jnp.bool_(True))\n"),
    "python_bool_then_numpy_bool": (
        "a traced flag, a Python True then np.True_",
        "f = jax.jit(lambda x, flag: jnp.where(flag, x * 2, x))\n"
        "f(jnp.ones(3), True); f(jnp.ones(3), np.True_)\n"),
    "optax_like_state_python_int_count": (
        "an optax-like state (count, mu), count a Python 0, then the jitted update's count",
        "@jax.jit\n"
        "def update(g, state):\n"
        "    count, mu = state\n"
        "    mu = 0.9 * mu + g\n"
        "    return -0.1 * mu, (count + 1, mu)\n"
        "state = (0, jnp.zeros(3))\n"
        "for _ in range(3):\n"
        "    u, state = update(jnp.ones(3), state)\n"),
    "optax_like_state_count_made_int32": (
        "an optax-like state (count, mu), count a Python 0, then made an int32 array",
        "@jax.jit\n"
        "def update(g, state):\n"
        "    count, mu = state\n"
        "    return -0.1 * mu, (jnp.asarray(count + 1, jnp.int32), 0.9 * mu + g)\n"
        "state = (0, jnp.zeros(3))\n"
        "for _ in range(3):\n"
        "    u, state = update(jnp.ones(3), state)\n"),
    "list_of_scalars_float32_then_weak": (
        "a list of two float32 scalars, then its second a Python float",
        "f = jax.jit(lambda xs: xs[0] * xs[1])\n"
        "f([jnp.float32(1), jnp.float32(2)]); f([jnp.float32(1), 2.0])\n"),
    "donated_state_same_shape_in_a_loop": (
        "a donated state of one shape in a loop: one program",
        "step = jax.jit(lambda s, g: s - 0.1 * g, donate_argnums=0)\n"
        "s = jnp.zeros(3)\n"
        "for _ in range(3):\n"
        "    s = step(s, jnp.ones(3))\n"),
    "donated_state_starts_as_numpy": (
        "a donated state made by NumPy (float64), then the step's float32 result",
        "step = jax.jit(lambda s, g: s - 0.1 * g, donate_argnums=0)\n"
        "s = np.zeros(3)\n"
        "for _ in range(3):\n"
        "    s = step(s, jnp.ones(3))\n"),
    "optional_bias_none_then_array_in_a_loop": (
        "a bias None at the first step, an array after",
        "@jax.jit\n"
        "def layer(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "bias = None\n"
        "for _ in range(3):\n"
        "    y = layer(jnp.ones(3), bias)\n"
        "    bias = jnp.zeros(3)\n"),
    "x64_config_update_between_calls_int_argument": (
        "jax_enable_x64 updated between two calls given a Python int",
        "f = jax.jit(lambda x, k: x * k)\n"
        "f(jnp.ones(3), 2)\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "try:\n"
        "    f(jnp.ones(3), 2)\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    "dict_literal_two_lists_at_two_calls": (
        "f({'a': [x], 'b': [y]}), then both lists one longer, on one line",
        "f = jax.jit(lambda d: sum(v.sum() for v in d['a']) + sum(v.sum() for v in d['b']))\n"
        "x, y = jnp.ones(2), jnp.ones(3)\n"
        "f({'a': [x], 'b': [y]}); f({'a': [x, x], 'b': [y, y]})\n"),
    "two_list_arguments_at_two_calls": (
        "f([x], [y]), then both lists one longer, on one line",
        "f = jax.jit(lambda a, b: sum(v.sum() for v in a) + sum(v.sum() for v in b))\n"
        "x, y = jnp.ones(2), jnp.ones(3)\n"
        "f([x], [y]); f([x, x], [y, y])\n"),
    # (h-notes2-104) two lists that grow in one call, at different lengths: each its own mask
    "two_list_arguments_grow_unevenly": (
        "f(a_list, b_list), both appended to before each call, b_list two items longer",
        "f = jax.jit(lambda a, b: sum(v.sum() for v in a) / len(a) + sum(v.sum() for v in b)"
        " / len(b))\n"
        "a_list, b_list, out = [], [jnp.ones(3) * 5, jnp.ones(3) * 7], []\n"
        "for i in range(3):\n"
        "    a_list.append(jnp.ones(2) * (i + 1)); b_list.append(jnp.ones(3) * (i + 1))\n"
        "    out.append(f(a_list, b_list))\n"),
    "two_list_arguments_grow_unevenly_fixed": (
        "two_list_arguments_grow_unevenly with its first recompile's two notes' code pasted in "
        "order in place of line 5, f given each list's mask as the notes say (pass it too)",
        "f = jax.jit(lambda a, b, mask_a, mask_b: (a.sum(1) * mask_a).sum() / mask_a.sum()"
        " + (b.sum(1) * mask_b).sum() / mask_b.sum())\n"
        "a_list, b_list, out = [], [jnp.ones(3) * 5, jnp.ones(3) * 7], []\n"
        "for i in range(3):\n"
        "    a_list.append(jnp.ones(2) * (i + 1)); b_list.append(jnp.ones(3) * (i + 1))\n"
        "    MAX = 8                              # the most items a call has\n"
        "    mask_a = jnp.arange(MAX) < len(a_list)    # which rows are real: pass it too\n"
        "    MAX = 8                              # the most items a call has\n"
        "    mask_b = jnp.arange(MAX) < len(b_list)    # which rows are real: pass it too\n"
        "    out.append(f(jnp.stack(list(a_list) + [jnp.zeros((2,), jnp.float32)] * (MAX -"
        " len(a_list))), jnp.stack(list(b_list) + [jnp.zeros((3,), jnp.float32)] * (MAX"
        " - len(b_list))), mask_a, mask_b))    # line 5\n"),
    "two_list_arguments_grow_unevenly_pasted_before": (
        "two_list_arguments_grow_unevenly with the code its notes gave before, pasted in "
        "order: each list's mask named `mask`, the second overwriting the first (b_list's "
        "rows), so f is given b_list's mask for a_list too",
        "f = jax.jit(lambda a, b, mask_a, mask_b: (a.sum(1) * mask_a).sum() / mask_a.sum()"
        " + (b.sum(1) * mask_b).sum() / mask_b.sum())\n"
        "a_list, b_list, out = [], [jnp.ones(3) * 5, jnp.ones(3) * 7], []\n"
        "for i in range(3):\n"
        "    a_list.append(jnp.ones(2) * (i + 1)); b_list.append(jnp.ones(3) * (i + 1))\n"
        "    MAX = 8                              # the most items a call has\n"
        "    mask = jnp.arange(MAX) < len(a_list)    # which rows are real: pass it too\n"
        "    MAX = 8                              # the most items a call has\n"
        "    mask = jnp.arange(MAX) < len(b_list)    # which rows are real: pass it too\n"
        "    out.append(f(jnp.stack(list(a_list) + [jnp.zeros((2,), jnp.float32)] * (MAX -"
        " len(a_list))), jnp.stack(list(b_list) + [jnp.zeros((3,), jnp.float32)] * (MAX"
        " - len(b_list))), mask, mask))    # line 5\n"),
    # the code the notes of static_n_sliced_in_jit and static_n_arange_in_jit gave before
    # (fixes._static_kept): the lambda jitted with n traced, which JAX refuses
    "static_n_sliced_in_jit_traced": (
        "static_n_sliced_in_jit with the code its note gave before: n traced",
        "f = jax.jit(lambda x, n: x[:n].sum())    # n traced: one program for all its values\n"
        "x = jnp.arange(8.0)\n"
        "for n in (2, 3, 4):\n"
        "    f(x, n)\n"),
    "static_n_arange_in_jit_traced": (
        "static_n_arange_in_jit with the code its note gave before: n traced",
        "f = jax.jit(lambda n: jnp.arange(n).sum())    # n traced: one program for all its "
        "values\n"
        "for n in (3, 4, 5):\n"
        "    f(n)\n"),
    # stop 104's new scenarios with their notes' code pasted
    "dict_literal_two_lists_grow_fixed": (
        "dict_literal_two_lists_grow with its first recompile's two notes' code pasted in "
        "order in place of line 5",
        "f = jax.jit(lambda d: sum(v.sum() for v in d['a']) + sum(v.sum() for v in d['b']))\n"
        "a_list, b_list = [], []\n"
        "for i in range(3):\n"
        "    a_list.append(jnp.ones(2)); b_list.append(jnp.ones(3))\n"
        "    d = {'a': a_list, 'b': b_list}    # line 5's argument, named\n"
        "    MAX = 8                              # the most items a call has\n"
        "    n = len(d['a'])\n"
        "    d['a'] = jnp.stack(list(d['a']) + [jnp.zeros((2,), jnp.float32)] * (MAX - n))\n"
        "    mask_a = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "    MAX = 8                              # the most items a call has\n"
        "    n = len(d['b'])\n"
        "    d['b'] = jnp.stack(list(d['b']) + [jnp.zeros((3,), jnp.float32)] * (MAX - n))\n"
        "    mask_b = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "    f(d)    # line 5, given it\n"),
    "dict_literal_two_lists_at_two_calls_fixed": (
        "dict_literal_two_lists_at_two_calls with its two notes' code pasted in order in "
        "place of line 3, the earlier call's lists stacked so too as their last lines say",
        "f = jax.jit(lambda d: sum(v.sum() for v in d['a']) + sum(v.sum() for v in d['b']))\n"
        "x, y = jnp.ones(2), jnp.ones(3)\n"
        "d_1 = {'a': [x], 'b': [y]}    # line 3's first argument, named and stacked so too\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(d_1['a'])\n"
        "d_1['a'] = jnp.stack(list(d_1['a']) + [jnp.zeros((2,), jnp.float32)] * (MAX - n))\n"
        "mask_a = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(d_1['b'])\n"
        "d_1['b'] = jnp.stack(list(d_1['b']) + [jnp.zeros((3,), jnp.float32)] * (MAX - n))\n"
        "mask_b = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "d = {'a': [x, x], 'b': [y, y]}    # line 3's argument, named\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(d['a'])\n"
        "d['a'] = jnp.stack(list(d['a']) + [jnp.zeros((2,), jnp.float32)] * (MAX - n))\n"
        "mask_a = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "# stack the ['a'] of line 3's {'a': [x], 'b': [y]} so too: done above\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(d['b'])\n"
        "d['b'] = jnp.stack(list(d['b']) + [jnp.zeros((3,), jnp.float32)] * (MAX - n))\n"
        "mask_b = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "f(d_1); f(d)    # line 3, given it\n"),
    "dict_literal_two_lists_at_two_calls_pasted_before": (
        "dict_literal_two_lists_at_two_calls with the two codes its notes gave before, pasted "
        "in order: the second named the literal again, undoing the first's stacking",
        "f = jax.jit(lambda d: sum(v.sum() for v in d['a']) + sum(v.sum() for v in d['b']))\n"
        "x, y = jnp.ones(2), jnp.ones(3)\n"
        "d_1 = {'a': [x], 'b': [y]}    # line 3's first argument, named and stacked so too\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(d_1['a'])\n"
        "d_1['a'] = jnp.stack(list(d_1['a']) + [jnp.zeros((2,), jnp.float32)] * (MAX - n))\n"
        "mask = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(d_1['b'])\n"
        "d_1['b'] = jnp.stack(list(d_1['b']) + [jnp.zeros((3,), jnp.float32)] * (MAX - n))\n"
        "mask = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "d = {'a': [x, x], 'b': [y, y]}    # line 3's argument, named\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(d['a'])\n"
        "d['a'] = jnp.stack(list(d['a']) + [jnp.zeros((2,), jnp.float32)] * (MAX - n))\n"
        "mask = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "d = {'a': [x, x], 'b': [y, y]}    # line 3's argument, named\n"
        "MAX = 8                              # the most items a call has\n"
        "n = len(d['b'])\n"
        "d['b'] = jnp.stack(list(d['b']) + [jnp.zeros((3,), jnp.float32)] * (MAX - n))\n"
        "mask = jnp.arange(MAX) < n           # which rows are real: pass it too\n"
        "f(d_1); f(d)    # line 3, given it\n"),
    "two_list_arguments_grow_fixed": (
        "two_list_arguments_grow with its first recompile's two notes' code pasted in order "
        "in place of line 5",
        "f = jax.jit(lambda a, b: sum(v.sum() for v in a) + sum(v.sum() for v in b))\n"
        "a_list, b_list = [], []\n"
        "for i in range(3):\n"
        "    a_list.append(jnp.ones(2)); b_list.append(jnp.ones(3))\n"
        "    MAX = 8                              # the most items a call has\n"
        "    mask_a = jnp.arange(MAX) < len(a_list)    # which rows are real: pass it too\n"
        "    MAX = 8                              # the most items a call has\n"
        "    mask_b = jnp.arange(MAX) < len(b_list)    # which rows are real: pass it too\n"
        "    f(jnp.stack(list(a_list) + [jnp.zeros((2,), jnp.float32)] * (MAX -"
        " len(a_list))), jnp.stack(list(b_list) + [jnp.zeros((3,), jnp.float32)] * (MAX"
        " - len(b_list))))    # line 5\n"),
    "two_list_arguments_grow_pasted_before": (
        "two_list_arguments_grow with the two codes its notes gave before, pasted in order: "
        "each its own call line, stacking one list of the two",
        "f = jax.jit(lambda a, b: sum(v.sum() for v in a) + sum(v.sum() for v in b))\n"
        "a_list, b_list = [], []\n"
        "for i in range(3):\n"
        "    a_list.append(jnp.ones(2)); b_list.append(jnp.ones(3))\n"
        "    MAX = 8                              # the most items a call has\n"
        "    mask = jnp.arange(MAX) < len(a_list)    # which rows are real: pass it too\n"
        "    f(jnp.stack(list(a_list) + [jnp.zeros((2,), jnp.float32)] * (MAX -"
        " len(a_list))), b_list)    # line 5\n"
        "    MAX = 8                              # the most items a call has\n"
        "    mask = jnp.arange(MAX) < len(b_list)    # which rows are real: pass it too\n"
        "    f(a_list, jnp.stack(list(b_list) + [jnp.zeros((3,), jnp.float32)] * (MAX -"
        " len(b_list))))    # line 5\n"),
    "two_list_arguments_at_two_calls_fixed": (
        "two_list_arguments_at_two_calls with its two notes' code pasted in order in place of "
        "line 3, the earlier call's lists stacked so too as their last lines say",
        "f = jax.jit(lambda a, b: sum(v.sum() for v in a) + sum(v.sum() for v in b))\n"
        "x, y = jnp.ones(2), jnp.ones(3)\n"
        "MAX = 8                              # the most items a call has\n"
        "mask_a = jnp.arange(MAX) < len([x, x])    # which rows are real: pass it too\n"
        "# stack line 3's [x] so too: done below\n"
        "MAX = 8                              # the most items a call has\n"
        "mask_b = jnp.arange(MAX) < len([y, y])    # which rows are real: pass it too\n"
        "f(jnp.stack(list([x]) + [jnp.zeros((2,), jnp.float32)] * (MAX - len([x]))),"
        " jnp.stack(list([y]) + [jnp.zeros((3,), jnp.float32)] * (MAX - len([y]))));"
        " f(jnp.stack(list([x, x]) + [jnp.zeros((2,), jnp.float32)] * (MAX - len([x,"
        " x]))), jnp.stack(list([y, y]) + [jnp.zeros((3,), jnp.float32)] * (MAX -"
        " len([y, y]))))    # line 3\n"),
    "prefix_slice_python_n_grows_fixed": (
        "prefix_slice_python_n_grows with its first recompile's note's code in place of line "
        "4",
        "f = jax.jit(lambda x: (x ** 2).sum())\n"
        "x = jnp.arange(8.0)\n"
        "for n in (2, 3, 4):\n"
        "    x_arg = x[:n]    # line 4's argument, named\n"
        "    n_x = x_arg.shape[0]\n"
        "    size = max(4, 1 << (n_x - 1).bit_length())    # a power of two, at least 4\n"
        "    x_arg = jnp.pad(x_arg, [(0, size - n_x)] + [(0, 0)] * (x_arg.ndim - 1))\n"
        "    f(x_arg)    # line 4, given it\n"),
    "arange_argument_grows_fixed": (
        "arange_argument_grows with its first recompile's note's code in place of line 3: "
        "buckets of 4 and 8, two programs as the note says",
        "f = jax.jit(lambda t: jnp.sin(t).sum())\n"
        "for n in (3, 4, 5):\n"
        "    t = jnp.arange(n, dtype=jnp.float32)    # line 3's argument, named\n"
        "    n_t = t.shape[0]\n"
        "    size = max(4, 1 << (n_t - 1).bit_length())    # a power of two, at least 4\n"
        "    t = jnp.pad(t, [(0, size - n_t)] + [(0, 0)] * (t.ndim - 1))\n"
        "    f(t)    # line 3, given it\n"),
    "list_of_scalars_float32_then_weak_fixed": (
        "list_of_scalars_float32_then_weak with its note's code in place of line 2",
        "f = jax.jit(lambda xs: xs[0] * xs[1])\n"
        "xs = [jnp.float32(1), 2.0]    # line 2's argument, named\n"
        "xs[1] = jnp.asarray(xs[1], jnp.float32)    # always a (strong) array\n"
        "f([jnp.float32(1), jnp.float32(2)]); f(xs)    # line 2, given it\n"),
    "optax_like_state_count_made_int32_fixed": (
        "optax_like_state_count_made_int32 with its note's code after line 5",
        "@jax.jit\n"
        "def update(g, state):\n"
        "    count, mu = state\n"
        "    return -0.1 * mu, (jnp.asarray(count + 1, jnp.int32), 0.9 * mu + g)\n"
        "state = (0, jnp.zeros(3))\n"
        "state = (jnp.asarray(state[0], jnp.int32),) + state[1:]    # an array from the start\n"
        "for _ in range(3):\n"
        "    u, state = update(jnp.ones(3), state)\n"),
    "optional_bias_none_then_array_in_a_loop_fixed": (
        "optional_bias_none_then_array_in_a_loop with its note's code before the call",
        "@jax.jit\n"
        "def layer(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "bias = None\n"
        "for _ in range(3):\n"
        "    bias = jnp.zeros((3,)) if bias is None else bias    # an array in every call\n"
        "    y = layer(jnp.ones(3), bias)\n"
        "    bias = jnp.zeros(3)\n"),
    "x64_config_update_between_calls_int_argument_fixed": (
        "x64_config_update_between_calls_int_argument with its note's code first thing",
        'jax.config.update("jax_enable_x64", True)    # first thing, before any jit\n'
        "try:\n"
        "    f = jax.jit(lambda x, k: x * k)\n"
        "    f(jnp.ones(3), 2)\n"
        "    jax.config.update('jax_enable_x64', True)\n"
        "    f(jnp.ones(3), 2)\n"
        "finally:\n"
        "    jax.config.update('jax_enable_x64', False)\n"),
    "two_list_arguments_at_two_calls_pasted_before": (
        "two_list_arguments_at_two_calls with the two codes its notes gave before, pasted "
        "in order, the earlier call's list stacked in each as its last line said: each "
        "code its own call line, stacking one list of the two",
        "f = jax.jit(lambda a, b: sum(v.sum() for v in a) + sum(v.sum() for v in b))\n"
        "x, y = jnp.ones(2), jnp.ones(3)\n"
        "MAX = 8                              # the most items a call has\n"
        "mask = jnp.arange(MAX) < len([x, x])    # which rows are real: pass it too\n"
        "f(jnp.stack(list([x]) + [jnp.zeros((2,), jnp.float32)] * (MAX - len([x]))),"
        " [y]); f(jnp.stack(list([x, x]) + [jnp.zeros((2,), jnp.float32)] * (MAX -"
        " len([x, x]))), [y, y])    # line 3\n"
        "MAX = 8                              # the most items a call has\n"
        "mask = jnp.arange(MAX) < len([y, y])    # which rows are real: pass it too\n"
        "f([x], jnp.stack(list([y]) + [jnp.zeros((3,), jnp.float32)] * (MAX -"
        " len([y])))); f([x, x], jnp.stack(list([y, y]) + [jnp.zeros((3,), jnp.float32)]"
        " * (MAX - len([y, y]))))    # line 3\n"),
}

# scenarios that raise: the recorded result is the exception class name
RAISES = {"static_set_unhashable", "static_argnames_list_value", "static_n_sliced_in_jit_traced",
          "static_n_arange_in_jit_traced"}


def run(jax, name, tag=""):
    """Execute scenario `name` with `jax` (real JAX or jxkernel): its globals, or the
    exception it raised (for those in RAISES). Its file is `<recompile:NAME>`, or
    `<recompile:NAME TAG>` with a tag."""
    _, source = SCENARIOS[name]
    filename = f"{FILE_PREFIX}{name}{' ' + tag if tag else ''}>"
    env = {"jax": jax, "jnp": jax.numpy, "np": np, "FILE": filename, "__name__": name}
    try:
        exec(compile(source, filename, "exec"), env)
    except Exception as e:       # noqa: BLE001 (recorded for RAISES, re-raised otherwise)
        if name in RAISES:
            return e
        raise
    return env
