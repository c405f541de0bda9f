"""A Python number and an array passed as one argument of a jitted function (a weak type, then a
strong one, or the other way), and the program with the explainer's fix pasted at the line it
names (tests/views/test_weak_type_calls.py pastes it under jxkernel and checks the text below).

reference/make_weak_type_calls_reference.py runs each under JAX 0.10.2 with
`jax_explain_cache_misses` on: tests/data/weak_type_calls_reference.json holds how many traces
each program and its pasted form make, and JAX's line for the miss.

name -> (what the learner did, program, the line the fix rewrites (1-based), that line as
the fix writes it).
"""

CASES = {
    "array_then_literal": (
        "an array first, then the Python number 1.0",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(jnp.asarray(1.0, jnp.float32))\n"
        "y = f(1.0)\n",
        5, "y = f(jnp.asarray(1.0, jnp.float32))"),
    "literal_then_array": (
        "the Python number 1.0 first, then a float32 array",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(1.0)\n"
        "y = f(jnp.float32(1.0))\n",
        4, "y = f(jnp.asarray(1.0, jnp.float32))"),
    "array_then_literal_in_a_loop": (
        "in a loop, an array first, then a Python number, as the second of two arguments",
        "@jax.jit\n"
        "def scale(x, w):\n"
        "    return x * w\n"
        "x = jnp.ones(3)\n"
        "for w in (jnp.float32(0.5), 0.25):\n"
        "    x = scale(x, w)\n",
        6, "x = scale(x, jnp.asarray(w, jnp.float32))"),
    "array_then_literal_by_keyword": (
        "two arguments, the second passed by keyword: an array, then a Python number",
        "@jax.jit\n"
        "def g(x, w):\n"
        "    return x * w\n"
        "y = g(jnp.ones(3), w=jnp.float32(2.0))\n"
        "y = g(jnp.ones(3), w=2.0)\n",
        5, "y = g(jnp.ones(3), w=jnp.asarray(2.0, jnp.float32))"),
    "jitted_by_name_array_then_literal": (
        "f_jit = jax.jit(f): an int32 array first, then the Python int 3",
        "def f(n):\n"
        "    return n + 1\n"
        "f_jit = jax.jit(f)\n"
        "out = f_jit(jnp.int32(3))\n"
        "out = f_jit(3) * 2\n",
        5, "out = f_jit(jnp.asarray(3, jnp.int32)) * 2"),
    "accumulator_started_as_a_number": (
        "an accumulator started as 0.0, then given the jitted function's result",
        "@jax.jit\n"
        "def add(acc, x):\n"
        "    return acc + x.sum()\n"
        "acc = 0.0\n"
        "for i in range(3):\n"
        "    acc = add(acc, jnp.ones(3))\n",
        6, "acc = add(jnp.asarray(acc, jnp.float32), jnp.ones(3))"),
    # the same by a name given no Python number: jnp.array(1.0) is weak in JAX 0.10.2 too,
    # and the fix said "the Python number w" of it (ARRAYS_BY_NAME)
    "weak_array_by_name_then_result": (
        "w = jnp.array(1.0), weak, given by name, then the function's strong result",
        "@jax.jit\n"
        "def step(w):\n"
        "    return w - jnp.float32(0.01)\n"
        "w = jnp.array(1.0)\n"
        "for i in range(3):\n"
        "    w = step(w)\n",
        6, "w = step(jnp.asarray(w, jnp.float32))"),
}
# the cases whose weak argument was an array made from a number, given by name: the fix says
# so, where for the others it names the Python number
ARRAYS_BY_NAME = {"weak_array_by_name_then_result"}

# the same trap for a dtype: the plain fix `x = jnp.asarray(x, jnp.float32)` named the
# parameter; the cast belongs in the call whose dtype is not the one cast to
DTYPE_CASES = {
    "float_then_int_array": (
        "float32 data, then jnp.arange(3) (int32): the new call cast to float32",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(jnp.ones(3))\n"
        "y = f(jnp.arange(3))\n",
        5, "y = f(jnp.asarray(jnp.arange(3), jnp.float32))"),
    "int_then_float_array": (
        "jnp.arange(3) (int32) first, then float32 data: the first call cast to float32 (an "
        "int32 cast would truncate the floats)",
        "@jax.jit\n"
        "def f(x):\n"
        "    return x * 2\n"
        "y = f(jnp.arange(3))\n"
        "y = f(jnp.linspace(0.0, 1.0, 3))\n",
        4, "y = f(jnp.asarray(jnp.arange(3), jnp.float32))"),
}


def pasted(name) -> str:
    """The program of `name` with its fix's line pasted in place of the line it names, at
    that line's indentation."""
    _, program, line, fixed = {**CASES, **DTYPE_CASES}[name]
    lines = program.splitlines(keepends=True)
    old = lines[line - 1]
    lines[line - 1] = old[:len(old) - len(old.lstrip())] + fixed + "\n"
    return "".join(lines)
