"""jax._src.error_check (set_error_if, raise_if_error, unwrap_from_import), run the same way by
real JAX 0.10.2 (reference/make_error_check_reference.py writes error_check_reference.json) and
by jxkernel (tests/api/test_error_check.py): what raise_if_error raises after each program,
[class, message, whether the traceback names the checking function] or None."""
import importlib
import traceback


def _raised(ec) -> list | None:
    try:
        ec.raise_if_error()
    except Exception as e:      # the class, message and traceback are what is compared
        text = "".join(traceback.format_tb(e.__traceback__))
        return [type(e).__name__, str(e), "checking_function" in text]
    return None


def run(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    ec = importlib.import_module(f"{jax.__name__}._src.error_check")
    out = {}
    for jit in (False, True):
        wrap = jax.jit if jit else (lambda f: f)

        def checking_function(x, name="f"):
            ec.set_error_if(x <= 0, f"x must be greater than 0 in {name}")
            return x + 1
        f = wrap(lambda x: checking_function(x, "f"))
        g = wrap(lambda x: checking_function(x, "g"))
        neg, pos = jnp.full((4,), -1, jnp.int32), jnp.full((4,), 1, jnp.int32)
        _raised(ec)                                    # (a clean state)
        f(pos)
        out[f"jit={jit}: no error"] = _raised(ec)
        f(neg), g(neg)
        out[f"jit={jit}: the first error"] = _raised(ec)
        out[f"jit={jit}: cleared"] = _raised(ec)
        wrap(lambda p, x: lax.cond(p, f, g, x))(jnp.bool_(False), jnp.zeros(4, jnp.int32))
        out[f"jit={jit}: cond"] = _raised(ec)

        def step(c, x):
            ec.set_error_if(x >= 4, "x must be less than 4")
            return c + x, x + 1
        wrap(lambda xs: lax.scan(step, jnp.int32(0), xs))(jnp.arange(5, dtype=jnp.int32))
        out[f"jit={jit}: scan"] = _raised(ec)
        def below_10(x):
            ec.set_error_if(x >= 10, "x must be less than 10")
            return x + 1
        wrap(lambda x: lax.while_loop(lambda x: (x < 10).any(), below_10, x))(
            jnp.arange(4, dtype=jnp.int32))
        out[f"jit={jit}: while"] = _raised(ec)
    try:
        jax.jit(ec.raise_if_error)()
        out["raise_if_error under jit"] = None
    except ValueError as e:
        out["raise_if_error under jit"] = str(e)
    unwrapped = ec.unwrap_from_import(
        lambda x: (x + 1, ec._ErrorClass(jnp.uint32(999), [])))
    unwrapped(jnp.float32(1))
    out["an imported code no check set"] = _raised(ec)
    return out
