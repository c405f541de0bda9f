"""Cells of JAX 0.10.2's tutorials (docs/notebooks/Common_Gotchas_in_JAX.md,
docs/external-callbacks.md, docs/notebooks/Custom_derivative_rules_for_Python_code.md) where a note
jxkernel's notebook layer shows claims what a later call computes: each case is the page's
cell verbatim (`jit` from jax), then CHECKS, calls made after it whose values JAX recorded
(reference/make_tutorial_notes_reference.py -> tutorial_notes_reference.json) and
tests/notebook/test_tutorial_notes.py holds the notes to. Their `import` lines are left out:
`jax`, `jnp`, `jit`, `grad`, `vmap`, `np` and `io_callback` are given (jxkernel's in the tests)."""

CASES = {
    # the page's "Pure functions" cell: traced with g = 0.0 for a scalar, then with g = 10.0
    # for an array; the scalars' program keeps 0.0
    "impure_uses_globals": (
        "g = 0.\n"
        "def impure_uses_globals(x):\n"
        "  return x + g\n"
        "\n"
        "# JAX captures the value of the global during the first run\n"
        "print (\"First call: \", jit(impure_uses_globals)(4.))\n"
        "g = 10.  # Update the global\n"
        "\n"
        "# Subsequent runs may silently use the cached value of the globals\n"
        "print (\"Second call: \", jit(impure_uses_globals)(5.))\n"
        "\n"
        "# JAX re-runs the Python function when the type or shape of the argument changes\n"
        "# This will end up reading the latest value of the global\n"
        "print (\"Third call, different type: \", jit(impure_uses_globals)(jnp.array([4.])))\n"),
    # external-callbacks' first cell: a print of a tracer, written with str.format; the note's
    # fix was `jax.debug.print("x = {}", x)`, which prints x, not y
    "print_in_jit_format": (
        "@jax.jit\n"
        "def f(x):\n"
        "  y = x + 1\n"
        "  print(\"intermediate value: {}\".format(y))\n"
        "  return y * 2\n"
        "\n"
        "result = f(2)\n"),
    # the same with the note's line (PRINT_FIX) in place of the print
    "print_in_jit_format_fixed": (
        "@jax.jit\n"
        "def f(x):\n"
        "  y = x + 1\n"
        "  jax.debug.print('intermediate value: {}', y)\n"
        "  return y * 2\n"
        "\n"
        "result = f(2)\n"),
    # external-callbacks' io_callback cell, then vmap of the jitted function: the row (f32[])
    # is traced apart from the whole array's call (f32[5]); the note's fix said "make it that
    # shape where it is made", which cannot be done to a row vmap gives
    "vmap_of_a_jit": (
        "global_rng = np.random.default_rng(0)\n"
        "\n"
        "def host_side_random_like(x):\n"
        "  \"\"\"Generate a random array like x using the global_rng state\"\"\"\n"
        "  # We have two side-effects here:\n"
        "  # - printing the shape and dtype\n"
        "  # - calling global_rng, thus updating its state\n"
        "  print(f'generating {x.dtype}{list(x.shape)}')\n"
        "  return global_rng.uniform(size=x.shape).astype(x.dtype)\n"
        "\n"
        "@jax.jit\n"
        "def numpy_random_like(x):\n"
        "  return io_callback(host_side_random_like, x, x)\n"
        "\n"
        "x = jnp.zeros(5)\n"
        "numpy_random_like(x)\n"
        "jax.vmap(numpy_random_like)(x)\n"),
    # Custom_derivative_rules_for_Python_code's log1pexp cells: three jits of log1pexp, the
    # third under vmap on its own line; JAX logs "never seen function" for each, no hint that
    # it is re-defined (the note told "a new jit object" with "make it once", which saved
    # nothing: one jit reused misses under vmap too, its row being strong)
    "jit_of_grad_then_vmap": (
        "def log1pexp(x):\n"
        "  return jnp.log(1. + jnp.exp(x))\n"
        "\n"
        "log1pexp(3.)\n"
        "print(jit(log1pexp)(3.))\n"
        "print(jit(grad(log1pexp))(3.))\n"
        "print(vmap(jit(grad(log1pexp)))(jnp.arange(3.)))\n"),
    # (not the page's) that line run three times: JAX hints "re-defined repeatedly" twice
    "jit_of_grad_then_vmap_in_a_loop": (
        "for i in range(3):\n"
        "  print(vmap(jit(grad(log1pexp)))(jnp.arange(3.) + i))\n"),
}
PRINT_FIX = "jax.debug.print('intermediate value: {}', y)"

# after the cell: calls whose values show which g each program keeps
CHECKS = {
    "impure_uses_globals": ["jit(impure_uses_globals)(1.)",
                            "jit(impure_uses_globals)(jnp.array([1.]))"],
    "print_in_jit_format": [],
    "print_in_jit_format_fixed": ["f(3)"],
    "vmap_of_a_jit": [],
    "jit_of_grad_then_vmap": [],
    "jit_of_grad_then_vmap_in_a_loop": [],
}
