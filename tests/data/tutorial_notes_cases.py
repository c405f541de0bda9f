"""Cells of JAX 0.10.2's tutorials (docs/notebooks/Common_Gotchas_in_JAX.md) where a note
jxkernel's notebook layer shows claims what a later call computes: each case is the page's
cell verbatim (`jit` from jax), then CHECKS, calls made after it whose values JAX recorded
(reference/make_tutorial_notes_reference.py -> tutorial_notes_reference.json) and
tests/notebook/test_tutorial_notes.py holds the notes to."""

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
}

# after the cell: calls whose values show which g each program keeps
CHECKS = {
    "impure_uses_globals": ["jit(impure_uses_globals)(1.)",
                            "jit(impure_uses_globals)(jnp.array([1.]))"],
}
