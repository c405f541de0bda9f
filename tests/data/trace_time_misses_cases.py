"""Programs whose tracing-cache misses JAX 0.10.2 logs at a line that compiles nothing
(eval_shape, `jit(f).trace(...)`, `.lower(...)`), or after `jax.clear_caches()`: recorded step
by step by reference/make_trace_time_misses_reference.py into
tests/data/trace_time_misses_reference.json and compared by
tests/views/test_trace_time_misses.py. Each case defines its own functions (JAX's tracing
cache is keyed on the function object) and calls `step(label)` before each step, so that each
logged message is known by the step that logged it.

The inputs are NumPy arrays: nothing but the case's own functions compiles.
"""
import numpy as np

X3 = np.ones(3, np.float32)
X4 = np.ones(4, np.float32)


def eval_shape_of_jit(jax, step):
    def f(x):
        return x * 2
    step("eval_shape")
    jax.eval_shape(jax.jit(f), X3)


def eval_shape_then_call(jax, step):
    def f(x):
        return x * 2
    step("eval_shape")
    jax.eval_shape(f, X3)
    step("call")
    jax.jit(f)(X3)


def trace_then_call(jax, step):
    def f(x):
        return x + 1
    jf = jax.jit(f)
    step("trace")
    jf.trace(X3)
    step("call")
    jf(X3)


def lower_compile_call(jax, step):
    def f(x):
        return x - 1
    jf = jax.jit(f)
    step("lower")
    lowered = jf.lower(X3)
    step("compile")
    lowered.compile()
    step("call")
    jf(X3)


def lower_then_call_another_shape(jax, step):
    def f(x):
        return x * 3
    jf = jax.jit(f)
    step("lower")
    jf.lower(X3)
    step("call")
    jf(X4)


def eval_shape_then_calls(jax, step):
    def f(x):
        return x / 2
    jf = jax.jit(f)
    step("eval_shape")
    jax.eval_shape(jf, X3)
    step("call another shape")
    jf(X4)
    step("call the shape eval_shape traced")
    jf(X3)


def two_jits_traced(jax, step):
    def f(x):
        return x ** 2
    step("trace")
    jax.jit(f).trace(X3)
    step("trace another shape, another jit")
    jax.jit(f).trace(X4)


def clear_caches(jax, step):
    def f(x):
        return x + 2
    jf = jax.jit(f)
    step("call")
    jf(X3)
    step("clear_caches, call")
    jax.clear_caches()
    jf(X3)
    step("call another shape")
    jf(X4)


def clear_cache_method(jax, step):
    def f(x):
        return x - 2
    jf = jax.jit(f)
    step("call")
    jf(X3)
    step("f.clear_cache(), call")
    jf.clear_cache()
    jf(X3)


def clear_caches_another_jit(jax, step):
    def f(x):
        return x * 4
    step("call")
    jax.jit(f)(X3)
    step("clear_caches, another jit, same shape")
    jax.clear_caches()
    jax.jit(f)(X3)
    step("another jit, another shape")
    jax.jit(f)(X4)


def clear_caches_then_another_shape(jax, step):
    def f(x):
        return x - 4
    jf = jax.jit(f)
    step("call")
    jf(X3)
    step("another jit, another shape")
    jax.jit(f)(X4)
    step("clear_caches, call another shape")
    jax.clear_caches()
    jf(X4)
    step("make_jaxpr, clear_caches, jit")
    jax.make_jaxpr(f)(X3)
    jax.clear_caches()
    jax.jit(f)(X4)


def clear_cache_method_other_jits(jax, step):
    def f(x):
        return x * 6
    def g(x):
        return x * 7
    jf, jg = jax.jit(f), jax.jit(g)
    step("call both")
    jf(X3)
    jg(X3)
    step("f.clear_cache(), another jit of f, another shape")
    jf.clear_cache()
    jax.jit(f)(X4)
    step("f's first shape again")
    jf(X3)
    step("g, another shape (its traces stay)")
    jg(X4)


def clear_cache_method_other_options(jax, step):
    def f(x):
        return x - 6
    jf, donating = jax.jit(f), jax.jit(f, donate_argnums=0)
    step("call both")
    jf(X3)
    donating(np.ones(3, np.float32))
    step("f.clear_cache(), the donating jit, another shape")
    jf.clear_cache()
    donating(np.ones(4, np.float32))


def export_then_call(jax, step):
    def f(x):
        return x * 8
    jf = jax.jit(f)
    step("export")
    jax.export.export(jf)(X3)
    step("call")
    jf(X3)
    step("export another shape")
    jax.export.export(jf)(X4)
    step("export that shape again")
    jax.export.export(jf)(X4)


def call_then_export(jax, step):
    def f(x):
        return x - 8
    jf = jax.jit(f)
    step("call")
    jf(X3)
    step("export")
    jax.export.export(jf)(X3)


def clear_caches_scan_body(jax, step):
    def body(c, x):
        return c + x.sum(), None
    step("scan")
    jax.lax.scan(body, 0.0, X3)
    step("scan rows of 4")
    jax.lax.scan(body, 0.0, np.ones((3, 4), np.float32))
    step("clear_caches, scan")
    jax.clear_caches()
    jax.lax.scan(body, 0.0, X3)


def clear_caches_in_a_loop(jax, step):
    def f(x):
        return x * 9
    jf = jax.jit(f)
    for i in range(2):          # JAX remembers the call site across the clear: its hint
        step(f"clear_caches, call #{i}")
        jax.clear_caches()
        jf(X3)


def deserialized_export_calls(jax, step):
    def f(x):
        return x * 10
    jf = jax.jit(f)
    step("export")
    exp = jax.export.export(jf)(X3)
    step("call the Exported")
    exp.call(X3)
    step("deserialize, call")               # equal to exp but for its VJP: compiled
    jax.export.deserialize(exp.serialize()).call(X3)
    step("deserialize again, call")         # equal to the one before: its program reused
    jax.export.deserialize(exp.serialize()).call(X3)
    step("export again, call")              # another VJP function: compiled
    jax.export.export(jf)(X3).call(X3)


def make_jaxpr_and_other_jits(jax, step):
    # JAX logs "Finished tracing f for jit" at each make_jaxpr, and where a jit object finds
    # in the tracing cache a trace another made (its first lookup of it: a later one is its
    # own cache's), not where the call finds a compiled program
    def f(x):
        return x * 12
    step("make_jaxpr")
    jax.make_jaxpr(f)(X3)
    step("make_jaxpr again")
    jax.make_jaxpr(f)(X3)
    step("jit, after make_jaxpr")
    jf = jax.jit(f)
    jf(X3)
    step("another jit's trace, lower, eval_shape")
    jax.jit(f).trace(X3)
    jax.jit(f).lower(X3)
    jax.eval_shape(jax.jit(f), X3)
    step("eval_shape of f, twice")
    jax.eval_shape(f, X3)
    jax.eval_shape(f, X3)
    step("the jit's trace of another shape, twice")
    jf.trace(X4)
    jf.trace(X4)
    step("another jit's call at that shape")
    jax.jit(f)(X4)
    step("the first jit's call at that shape")
    jf(X4)


CASES = {name: fun for name, fun in list(globals().items())
         if callable(fun) and getattr(fun, "__module__", None) == __name__}


def run(jax, name: str, step) -> None:
    """Case `name`, calling `step(label)` before each of its steps."""
    CASES[name](jax, step)
