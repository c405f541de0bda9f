"""Programs whose persistent-compilation-cache lines JAX 0.10.2 logs with
`jax_explain_cache_misses` on (reference/make_persistent_cache_reference.py records them in
tests/data/persistent_cache_reference.json; tests/views/test_persistent_cache_lines.py runs
the same under jxkernel and compares).

Each case is source run with `jax`, `jnp` and `np` in its globals, in a process of its own
(JAX decides once per process whether it uses its persistent cache), with a cache folder set
(`jax_compilation_cache_dir`: JAX logs these lines at WARNING only then) and
`jax_persistent_cache_min_compile_time_secs` 0 (the default, 1 s in both, writes nothing of
these small programs: "Not writing ... < 1.00 seconds"), unless the case is in FOLDERLESS
(no folder) or DEFAULT_MIN_TIME (the option left at its default).
Inputs are NumPy arrays, so that no eager operation compiles a program of its own.
"""
import numpy as np

CASES = {
    "new_shape": (
        "a jit called with a new length: each trace logs its miss, then the program's",
        "f = jax.jit(lambda x: x * 2)\n"
        "f(np.ones(3, np.float32)); f(np.ones(4, np.float32))\n"),
    "debug_print": (
        "a program with jax.debug.print: looked up, missed, and not written (host callbacks)",
        "def f(x):\n"
        "    jax.debug.print('x {}', x)\n"
        "    return x * 2\n"
        "jax.jit(f)(np.ones(3, np.float32))\n"),
    "pure_callback": (
        "a program with jax.pure_callback: not written either",
        "def g(x):\n"
        "    return jax.pure_callback(lambda a: np.asarray(a) * 3,\n"
        "                             jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n"
        "jax.jit(g)(np.ones(3, np.float32))\n"),
    "explain_off": (
        "jax_explain_cache_misses off: nothing at WARNING",
        "jax.config.update('jax_explain_cache_misses', False)\n"
        "jax.jit(lambda x: x * 3)(np.ones(3, np.float32))\n"),
    "no_folder": (
        "no cache folder set: nothing at WARNING (JAX has no persistent cache without one)",
        "jax.jit(lambda x: x * 4)(np.ones(3, np.float32))\n"),
    "quick_compile": (
        "the minimum compile time left at its default: a quick compile is not written",
        "def h(x):\n"
        "    return x * 5\n"
        "jax.jit(h)(np.ones(3, np.float32))\n"),
}

# cases run without a cache folder
FOLDERLESS = {"no_folder"}
# cases run with jax_persistent_cache_min_compile_time_secs at its default
DEFAULT_MIN_TIME = {"quick_compile"}


def run(jax, name):
    """Execute case `name` with `jax` (real JAX or jxkernel); its file is `<cache:NAME>`."""
    _, source = CASES[name]
    env = {"jax": jax, "jnp": jax.numpy, "np": np, "__name__": name}
    exec(compile(source, f"<cache:{name}>", "exec"), env)
    return env
