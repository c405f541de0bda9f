"""Cells of JAX 0.10.2's tutorials (docs/notebooks/Common_Gotchas_in_JAX.md, control-flow.md,
random-numbers.md, array_refs.md, and JAX 101's state chapter of jax-v0.4.26) where a note jxkernel's notebook layer showed was noise or offered a fix
that fails (stop 115, docs/seeing_inside.md "JAX's tutorials, cell by cell"), and the fixes
those notes offered, pasted in. Each case is the page's cell verbatim but its imports (`jax`,
`jnp`, `jit` and `random` are given: jxkernel's in tests/notebook/test_tutorial_notes.py);
they run in order in one namespace. reference/make_tutorial_notes_reference.py's `fourth`
records what JAX printed and raised for each, and how many times each jit compiled
(tutorial_notes4_reference.json); KEY_CHECKED's cases run with jax_debug_key_reuse on."""

CASES4 = {
    # Common Gotchas' "Pure functions" cell: a Python number, then an array, on purpose ("Third
    # call, different type"). The note's fix made line 6's number an array "from the start"
    "scalar_then_array_on_purpose": (
        "def impure_print_side_effect(x):\n"
        "  print(\"Executing function\")  # This is a side-effect\n"
        "  return x\n"
        "\n"
        "# The side-effects appear during the first run\n"
        "print (\"First call: \", jit(impure_print_side_effect)(4.))\n"
        "\n"
        "# Subsequent runs with parameters of same type and shape may not show the side-effect\n"
        "# This is because JAX now invokes a cached compilation of the function\n"
        "print (\"Second call: \", jit(impure_print_side_effect)(5.))\n"
        "\n"
        "# JAX re-runs the Python function when the type or shape of the argument changes\n"
        "print (\"Third call, different type: \", "
        "jit(impure_print_side_effect)(jnp.array([5.])))\n"),
    # that fix pasted in before line 6, as the note wrote it
    "scalar_then_array_old_fix_pasted": (
        "def impure_print_side_effect(x):\n"
        "  print(\"Executing function\")  # This is a side-effect\n"
        "  return x\n"
        "\n"
        "x = 4.    # line 6's argument, named\n"
        "x = jnp.broadcast_to(jnp.asarray(x, jnp.float32), (1,))    # from the start\n"
        "print (\"First call: \", jit(impure_print_side_effect)(x))    # line 6, given it\n"
        "print (\"Second call: \", jit(impure_print_side_effect)(5.))\n"
        "print (\"Third call, different type: \", "
        "jit(impure_print_side_effect)(jnp.array([5.])))\n"),
    # control-flow.md's cells 14 and 15: the jitted check of 24, then of an array
    "positive_even_of_a_number": (
        "def python_check_positive_even(x):\n"
        "  is_even = x % 2 == 0\n"
        "  # `and` short-circults, so when `is_even` is `False`, `x > 0` is not evaluated.\n"
        "  return is_even and (x > 0)\n"
        "\n"
        "@jit\n"
        "def jax_check_positive_even(x):\n"
        "  is_even = x % 2 == 0\n"
        "  # `logical_and` does not short circuit, so `x > 0` is always evaluated.\n"
        "  return jnp.logical_and(is_even, x > 0)\n"
        "\n"
        "print(python_check_positive_even(24))\n"
        "print(jax_check_positive_even(24))\n"),
    "positive_even_of_an_array": (
        "x = jnp.array([-1, 2, 5])\n"
        "print(jax_check_positive_even(x))\n"),
    # the note's fix for it, pasted at In[..]:13 (the 24 made an array "from the start")
    "positive_even_old_fix_pasted": (
        "x = 24\n"
        "x = jnp.broadcast_to(jnp.asarray(x, jnp.int32), (3,))    # from the start\n"
        "print(jax_check_positive_even(x))\n"),
    # random-numbers.md's cells 8-10: one key drawn with twice (the page's point), then the
    # page's split loop over that key
    "key_made": (
        "key = random.key(42)\n"
        "print(key)\n"),
    "key_drawn_twice": (
        "print(random.normal(key))\n"
        "print(random.normal(key))\n"),
    "split_loop": (
        "for i in range(3):\n"
        "  new_key, subkey = random.split(key)\n"
        "  del key  # The old key is consumed by split() -- we must never use it again.\n"
        "\n"
        "  val = random.normal(subkey)\n"
        "  del subkey  # The subkey is consumed by normal().\n"
        "\n"
        "  print(f\"draw {i}: {val}\")\n"
        "  key = new_key  # new_key is safe to use in the next iteration.\n"),
    # under JAX's checker: the two draws as the page writes them, then as the first note
    # rewrote them, then the page's loop as it is
    "checked_key_made": "key = random.key(42)\n",
    "checked_key_drawn_twice": (
        "print(random.normal(key))\n"
        "print(random.normal(key))\n"),
    "checked_key_drawn_as_the_note_wrote": (
        "key = random.key(42)\n"
        "key, subkey = random.split(key)\n"
        "print(random.normal(subkey))    # at In[12]:1\n"
        "key, subkey = random.split(key)\n"
        "print(random.normal(subkey))    # at In[12]:2\n"),
    "checked_split_loop": (
        "for i in range(3):\n"
        "  new_key, subkey = random.split(key)\n"
        "  del key  # The old key is consumed by split() -- we must never use it again.\n"
        "\n"
        "  val = random.normal(subkey)\n"
        "  del subkey  # The subkey is consumed by normal().\n"
        "\n"
        "  print(f\"draw {i}: {val}\")\n"
        "  key = new_key  # new_key is safe to use in the next iteration.\n"),
    # JAX 101's state chapter (jax-v0.4.26): its cell 4's Params and init (its update, which
    # calls jax.tree_map, gone since JAX 0.6.0, left out)
    "state_init": (
        'from typing import NamedTuple\n'
        '\n'
        'class Params(NamedTuple):\n'
        '  weight: jnp.ndarray\n'
        '  bias: jnp.ndarray\n'
        '\n'
        '\n'
        'def init(rng) -> Params:\n'
        '  """Returns the initial model params."""\n'
        '  weights_key, bias_key = jax.random.split(rng)\n'
        '  weight = jax.random.normal(weights_key, ())\n'
        '  bias = jax.random.normal(bias_key, ())\n'
        '  return Params(weight, bias)\n'
    ),
    # its cell 5 to `params = init(rng)` (its matplotlib import and the fitting loop left out):
    # rng split at line 5, each key drawn with, then init's split of rng again
    "state_data_then_init": (
        'rng = jax.random.key(42)\n'
        '\n'
        '# Generate true data from y = w*x + b + noise\n'
        'true_w, true_b = 2, -1\n'
        'x_rng, noise_rng = jax.random.split(rng)\n'
        'xs = jax.random.normal(x_rng, (128, 1))\n'
        'noise = jax.random.normal(noise_rng, (128, 1)) * 0.5\n'
        'ys = xs * true_w + true_b + noise\n'
        '\n'
        '# Fit regression\n'
        'params = init(rng)\n'
    ),
    # under JAX's checker: as the page writes it; with the note's old advice, one of the keys
    # split made (x_rng, drawn with at line 6); and as the note writes it now
    "checked_state_data_then_init": (
        'rng = jax.random.key(42)\n'
        '\n'
        '# Generate true data from y = w*x + b + noise\n'
        'true_w, true_b = 2, -1\n'
        'x_rng, noise_rng = jax.random.split(rng)\n'
        'xs = jax.random.normal(x_rng, (128, 1))\n'
        'noise = jax.random.normal(noise_rng, (128, 1)) * 0.5\n'
        'ys = xs * true_w + true_b + noise\n'
        '\n'
        '# Fit regression\n'
        'params = init(rng)\n'
    ),
    "checked_state_init_with_a_key_split_made": (
        'rng = jax.random.key(42)\n'
        '\n'
        '# Generate true data from y = w*x + b + noise\n'
        'true_w, true_b = 2, -1\n'
        'x_rng, noise_rng = jax.random.split(rng)\n'
        'xs = jax.random.normal(x_rng, (128, 1))\n'
        'noise = jax.random.normal(noise_rng, (128, 1)) * 0.5\n'
        'ys = xs * true_w + true_b + noise\n'
        '\n'
        '# Fit regression\n'
        'params = init(x_rng)\n'
    ),
    "checked_state_split_one_more": (
        'rng = jax.random.key(42)\n'
        '\n'
        '# Generate true data from y = w*x + b + noise\n'
        'true_w, true_b = 2, -1\n'
        'x_rng, noise_rng, subkey = jax.random.split(rng, 3)    # at In[8]:5\n'
        'xs = jax.random.normal(x_rng, (128, 1))\n'
        'noise = jax.random.normal(noise_rng, (128, 1)) * 0.5\n'
        'ys = xs * true_w + true_b + noise\n'
        '\n'
        '# Fit regression\n'
        'params = init(subkey)    # at In[8]:11\n'
    ),
    # array_refs.md's cell 16: a Ref written in place inside jit (the page prints its buffer
    # pointer and value before and after: the same buffer, sin of its values). The effect
    # note said sin_inplace got a copy and the x_ref passed was left as it was
    "ref_written_in_place": (
        "@jax.jit\n"
        "def sin_inplace(x_ref):\n"
        "  x_ref[...] = jnp.sin(x_ref[...])\n"
        "\n"
        "x_ref = jax.new_ref(jnp.arange(3.))\n"
        "print(x_ref.unsafe_buffer_pointer(), x_ref)\n"
        "sin_inplace(x_ref)\n"
        "print(x_ref.unsafe_buffer_pointer(), x_ref)\n"),
    "ref_after": "print(x_ref)\n",
    # the note's fix pasted: return it, and keep what the call returns
    "ref_returned": (
        "@jax.jit\n"
        "def sin_inplace(x_ref):\n"
        "  x_ref[...] = jnp.sin(x_ref[...])\n"
        "  return x_ref\n"
        "\n"
        "x_ref = jax.new_ref(jnp.arange(3.))\n"
        "x_ref = sin_inplace(x_ref)\n"),
}
# the cases run with jax_debug_key_reuse on (set before each, off after)
KEY_CHECKED = ("checked_key_made", "checked_key_drawn_twice",
               "checked_key_drawn_as_the_note_wrote", "checked_split_loop",
               "checked_state_data_then_init", "checked_state_init_with_a_key_split_made",
               "checked_state_split_one_more")
