"""enable_x64 switched inside a traced function, and jax_explicit_x64_dtypes, run the same way
by real JAX (reference/make_x64_context_reference.py writes x64_context_reference.json) and by
jxkernel (tests/core/test_x64_context.py): what dtypes come out, the values, the jaxprs, and
the error of a 64-bit dtype asked for in 'error' mode. `run(jax)` is called with x64 off."""
import numpy as np


def _typed(x):
    return [np.asarray(x).tolist(), np.dtype(x.dtype).name, bool(x.weak_type)]


def grad_through_x64_block(jax):
    """A gradient whose function widens nothing inside an enable_x64 block: its float32
    argument stays float32 (a Python float argument too), and so does the gradient."""
    jnp = jax.numpy

    def fun(x):
        with jax.enable_x64(True):
            return jnp.sin(x)
    return {"python_float": _typed(jax.grad(fun)(0.5)),
            "float32": _typed(jax.grad(fun)(np.float32(0.5))),
            "value_and_grad": [_typed(v) for v in jax.value_and_grad(fun)(0.25)],
            "jaxpr": str(jax.make_jaxpr(jax.grad(fun))(0.5))}


def scan_with_x64_block(jax):
    """A scan whose body makes int64 values in an enable_x64 block: its stacked ys keep them."""
    jnp, lax = jax.numpy, jax.lax

    def f(a):
        def body(carry, x):
            with jax.enable_x64():
                y = (carry + a + x).astype(jnp.int64)
                z = y.astype(jnp.int32)
            return carry, (z, y)
        return lax.scan(body, jnp.int32(2), jnp.arange(4))
    out = {}
    for name, disable in (("jit", False), ("disable_jit", True)):
        with jax.disable_jit(disable):
            carry, (z, y) = f(3)
        out[name] = [_typed(carry), _typed(z), _typed(y)]
    return out


def explicit_x64_dtypes(jax):
    """The option's default, and 'error' mode refusing a 64-bit dtype asked for by name."""
    jnp = jax.numpy
    out = {"default": str(jax.config.jax_explicit_x64_dtypes)}
    jax.config.update("jax_explicit_x64_dtypes", "error")
    try:
        for name, make in (("zeros", lambda: jnp.zeros(3, jnp.float64)),
                           ("arange", lambda: jnp.arange(3, dtype="int64")),
                           ("float32_is_fine", lambda: jnp.zeros(2, jnp.float32))):
            try:
                out[name] = _typed(make())
            except ValueError as e:
                out[name] = ["ValueError", str(e)]
    finally:
        jax.config.update("jax_explicit_x64_dtypes", "warn")
    return out


def _in_threads(jax, *blocks):
    """Run each of `blocks` (a callable taking a wait()) in its own thread, every thread inside
    its block at the same time (a barrier, no sleeps), and return their results."""
    import threading
    barrier = threading.Barrier(len(blocks))
    results = [None] * len(blocks)

    def runner(i):
        results[i] = blocks[i](barrier.wait)
    threads = [threading.Thread(target=runner, args=(i,)) for i in range(len(blocks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def context_managers_in_threads(jax):
    """JAX's config context managers set an option for their thread only: two threads inside
    enable_x64(True) and enable_x64(False) at once each see their own value (and a jitted
    function traced in each gives its own dtype); a thread started inside a block sees the
    global value; config.update inside a block changes the global value, not the block's."""
    jnp = jax.numpy
    f = jax.jit(lambda v: v + 1)

    def x64_block(flag):
        def block(wait):
            with jax.enable_x64(flag):
                wait()
                seen = [bool(jax.config.jax_enable_x64), jnp.array(np.int64(0)).dtype.name,
                        f(np.int64(1)).dtype.name]
                wait()
            return seen
        return block

    def rank_block(mode):
        def block(wait):
            with jax.numpy_rank_promotion(mode):
                wait()
                try:
                    seen = (jnp.ones(2) + jnp.ones((3, 2))).shape
                except ValueError as e:
                    seen = ["ValueError", str(e).split(";")[0]]
                wait()
            return list(seen)
        return block

    out = {"x64": _in_threads(jax, x64_block(True), x64_block(False), x64_block(True))}
    out["rank_promotion"] = _in_threads(jax, rank_block("raise"), rank_block("allow"))
    with jax.enable_x64(True):
        out["thread_started_in_block"] = _in_threads(
            jax, lambda wait: [bool(jax.config.jax_enable_x64), jnp.arange(2).dtype.name])[0]
    with jax.enable_x64(False):
        jax.config.update("jax_enable_x64", True)
        inside = bool(jax.config.jax_enable_x64)
    after = bool(jax.config.jax_enable_x64)
    jax.config.update("jax_enable_x64", False)
    out["update_in_block"] = [inside, after, bool(jax.config.jax_enable_x64)]
    return out


def run(jax):
    return {"grad_through_x64_block": grad_through_x64_block(jax),
            "scan_with_x64_block": scan_with_x64_block(jax),
            "explicit_x64_dtypes": explicit_x64_dtypes(jax),
            "context_managers_in_threads": context_managers_in_threads(jax)}
