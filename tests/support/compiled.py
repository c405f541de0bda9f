"""Evaluating a library's calls as one compiled program each (fewer compiles in the tests).

Op by op, a call like `stats.t.pdf(x, df)` compiles every primitive it runs for every new shape
and dtype; one `jit` around the call compiles once. The tests that only need values go through
`compiled_per_call`; eager evaluation keeps its own tests (jit equals eager, vmap equals rows).
XLA fuses a whole program differently from single operations, so the last bits may move: the
comparisons allow ulps for that.
"""
import contextlib
import os
import types

import numpy as np

import gpu_tier


def compiled_per_call(jax, namespace):
    """`namespace` (a module like jax.scipy.special or jax.scipy.stats, nested modules included)
    whose functions each run as one jitted program: NumPy array arguments are traced, the rest
    stay static (Python scalars keep their weak types; a traced integer order, as in
    vmap(grad(expn, 1), (None, 0)), would not be concrete where the function needs it).

    >>> import jxkernel, jxkernel.numpy as jnp
    >>> float(compiled_per_call(jxkernel, jnp).sin(np.float32(0.0)))
    0.0
    """
    return _Compiled(jax, namespace)


class _Compiled:
    def __init__(self, jax, namespace):
        self._jax, self._namespace = jax, namespace

    def __getattr__(self, name):
        attr = getattr(self._namespace, name)
        if isinstance(attr, types.ModuleType) or not callable(attr):
            return _Compiled(self._jax, attr) if isinstance(attr, types.ModuleType) else attr
        return _jitted_call(self._jax, attr)


def _jitted_call(jax, fun):
    def call(*args, **kwargs):
        traced = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

        def program(*arrays):
            full = list(args)
            for i, a in zip(traced, arrays):
                full[i] = a
            return fun(*full, **kwargs)
        return jax.jit(program)(*[args[i] for i in traced])
    return call


def compiled_transforms(jax):
    """`jax` whose vmap(...)(...) and jvp(...) each run as one jitted program."""
    class Compiled:
        def __getattr__(self, name):
            return getattr(jax, name)

        def vmap(self, fun, *args, **kwargs):
            return jax.jit(jax.vmap(fun, *args, **kwargs))

        def jvp(self, fun, primals, tangents):
            return jax.jit(lambda p, t: jax.jvp(fun, p, t))(primals, tangents)
    return Compiled()


# XLA's loop emitters instead of its fusion emitters: about half the compile CPU for the same
# program (measured: 64 vmap cases 4.5-4.8 s -> 2.2-2.7 s; tiny programs 22-25 -> 13 ms). Only
# for checks whose two sides are computed in one program (vmap against f per example, a jvp
# against its finite differences), so both see the same code. Never suite-wide: the loop
# emitters flush subnormals inside frexp and cbrt, where JAX's values keep them.
# With them, LLVM's module compiled in one piece rather than split for threads, and the
# thunks scheduled in program order: 10-20 % less compile CPU again (test_vmap's programs of
# test_transforms_numpy 6.2 -> 5.0 s, of test_transforms_numpy_arrays 8.7 -> 7.9 s).
# They are XLA CPU's options: the GPU's compiler refuses them ("No such compile option"), so the
# GPU tier compiles those programs with its defaults.
LOOP_EMITTERS = {} if gpu_tier.ON_GPU else {
    "xla_cpu_use_fusion_emitters": False, "xla_cpu_parallel_codegen_split_count": 1,
    "xla_cpu_enable_concurrency_optimized_scheduler": False}


def suite_compiler_options() -> dict:
    """The XLA options the test processes compile with (tests/conftest.py): LOOP_EMITTERS, or
    none under JXKERNEL_TEST_XLA_DEFAULT_CODE=1 (XLA's default code for the whole suite).

    >>> suite_compiler_options() in ({}, LOOP_EMITTERS)
    True
    """
    return {} if os.environ.get("JXKERNEL_TEST_XLA_DEFAULT_CODE") == "1" else LOOP_EMITTERS


@contextlib.contextmanager
def constants_as_arguments():
    """The closed-over constants of the programs jitted inside stay arguments of `main`, as
    jxkernel passed them before it wrote them in as JAX does
    (transforms/jit/captured_constants.EMBED_MAX_BYTES). For a test that computes its cases
    as one program with no arguments (`jax.jit(lambda: cases(...))()`, one compile instead of
    hundreds): written in, XLA would fold the whole program at compile time with its
    evaluator, whose last bits and tie order are not the compiled code's that JAX's recorded
    values and a learner's calls get.

    >>> with constants_as_arguments():
    ...     pass
    """
    from jxkernel.transforms.jit import captured_constants
    previous, captured_constants.EMBED_MAX_BYTES = captured_constants.EMBED_MAX_BYTES, -1
    try:
        yield
    finally:
        captured_constants.EMBED_MAX_BYTES = previous


@contextlib.contextmanager
def xla_default_code():
    """XLA's default code for the compiles inside: the test processes compile with
    LOOP_EMITTERS (tests/conftest.py), whose code differs from the default's in the last bits
    and in a few discrete results. jit's caches key on the setting; the eager operations'
    programs are forgotten on the way in and out (their lowering is quick, and the compiler's
    cache by text still holds each setting's executables).

    >>> with xla_default_code():
    ...     pass
    """
    from jxkernel.transforms.jit import primitive as jit_primitive
    from jxkernel.xla import compiler, dispatch

    def forget_eager():
        for cache in (dispatch._executables, dispatch._fast, dispatch._last_run,
                      jit_primitive._impl_cache):
            cache.clear()
    previous = compiler.set_base_compiler_options({})
    forget_eager()
    try:
        yield
    finally:
        compiler.set_base_compiler_options(previous)
        forget_eager()


def jit_together(jax, calls, chunk=64, compiler_options=None):
    """`{key: (fun, args)}` -> `{key: jax.jit(fun)(*args)}`, compiled as one program per
    `chunk` calls instead of one each (issue 45: a compile costs ~35 ms whatever its size).
    Each call is traced on its own arguments as jax.jit(fun) traces it, and its outputs are
    the common program's: the calls share no values, so XLA compiles each one's operations
    as it would alone. Where a chunk fails to trace or compile, its calls run one by one, so
    a case's error is raised for that case (by `.get`), not for its neighbours.
    `compiler_options` go to each jit (e.g. LOOP_EMITTERS).

    >>> import jxkernel, jxkernel.numpy as jnp
    >>> zero = np.float32(0)
    >>> float(jit_together(jxkernel, {"a": (jnp.sin, [zero]), "b": (jnp.cos, [zero])})["b"])
    1.0
    """
    return _Together(jax, calls, chunk, compiler_options)


class _Together:
    def __init__(self, jax, calls, chunk, compiler_options=None):
        self._jax, self._calls, self._done = jax, dict(calls), {}
        self._options = compiler_options
        keys = list(self._calls)
        for start in range(0, len(keys), chunk):
            part = keys[start:start + chunk]
            funs = [self._calls[k][0] for k in part]

            def program(all_args, funs=funs):
                return [fun(*args) for fun, args in zip(funs, all_args)]
            try:
                outs = jax.jit(program, compiler_options=compiler_options)(
                    [list(self._calls[k][1]) for k in part])
                jax.block_until_ready(outs)
            except Exception:  # noqa: BLE001  (each call runs alone, on first use)
                continue
            self._done.update(zip(part, outs))

    def __getitem__(self, key):
        if key not in self._done:
            fun, args = self._calls[key]
            return self._jax.jit(fun, compiler_options=self._options)(*args)
        return self._done[key]

    def __len__(self):
        return len(self._calls)
