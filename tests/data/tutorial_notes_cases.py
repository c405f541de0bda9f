"""Cells of JAX 0.10.2's tutorials (docs/notebooks/Common_Gotchas_in_JAX.md,
docs/external-callbacks.md, docs/notebooks/Custom_derivative_rules_for_Python_code.md) where a note
jxkernel's notebook layer shows claims what a later call computes: each case is the page's
cell verbatim (`jit` from jax), then CHECKS, calls made after it whose values JAX recorded
(reference/make_tutorial_notes_reference.py -> tutorial_notes_reference.json) and
tests/notebook/test_tutorial_notes.py holds the notes to. Their `import` lines are left out:
`jax`, `jnp`, `jit`, `grad`, `vmap`, `np`, `io_callback`, `partial`, `custom_vjp`, `vjp`
and `while_loop` are given (jxkernel's in the tests), and the cases run in order in one namespace, as
the test's cells in one shell."""

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
    # Custom derivative rules' newton_sqrt and fixed_point (custom_vjp, nondiff f), then
    # newton_sqrt(2.) and its grads: body_fun, made anew in each call, calls f (a function:
    # update, then partial(rev_iter, f)); the note said "taking a, f as an input (in the
    # carry)", and no carry holds a function
    "fixed_point": 'def newton_sqrt(a):\n  update = lambda a, x: 0.5 * (x + a / x)\n  return fixed_point(update, a, a)\n\n@partial(custom_vjp, nondiff_argnums=(0,))\ndef fixed_point(f, a, x_guess):\n  def cond_fun(carry):\n    x_prev, x = carry\n    return jnp.abs(x_prev - x) > 1e-6\n\n  def body_fun(carry):\n    _, x = carry\n    return x, f(a, x)\n\n  _, x_star = while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))\n  return x_star\n\ndef fixed_point_fwd(f, a, x_init):\n  x_star = fixed_point(f, a, x_init)\n  return x_star, (a, x_star)\n\ndef fixed_point_rev(f, res, x_star_bar):\n  a, x_star = res\n  _, vjp_a = vjp(lambda a: f(a, x_star), a)\n  a_bar, = vjp_a(fixed_point(partial(rev_iter, f),\n                             (a, x_star, x_star_bar),\n                             x_star_bar))\n  return a_bar, jnp.zeros_like(x_star)\n\ndef rev_iter(f, packed, u):\n  a, x_star, x_star_bar = packed\n  _, vjp_x = vjp(lambda x: f(a, x), x_star)\n  return x_star_bar + vjp_x(u)[0]\n\nfixed_point.defvjp(fixed_point_fwd, fixed_point_rev)\nprint(newton_sqrt(2.))\n',
    "fixed_point_grads": 'print(grad(newton_sqrt)(2.))\nprint(grad(grad(newton_sqrt))(2.))\n',
    # (not the page's) jax-primitives prints tracers on purpose, from one helper's line, in 10
    # cells; the note was under each. A print line is told once now: the same line printing
    # again for a new shape is not
    "print_told_once_defs": (
        "@jax.jit\n"
        "def shown(x):\n"
        "  print('shown', x)\n"
        "  return x\n"),
    "print_told_once_first": "shown(1.0)\n",
    "print_told_once_again": "shown(jnp.ones(2))\n",
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
    "fixed_point": [],
    "fixed_point_grads": [],
    "print_told_once_defs": [],
    "print_told_once_first": [],
    "print_told_once_again": [],
}
