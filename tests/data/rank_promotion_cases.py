"""jax_numpy_rank_promotion='raise' over the jnp, scipy and nn functions that broadcast their
operands, run the same way with JAX and with jxkernel (reference/make_rank_promotion_reference.py
records JAX 0.10.2's answers in tests/data/rank_promotion_reference.json;
tests/numpy/test_rank_promotion.py compares).

`cases(jax)`: name -> a thunk. What is recorded: None when the thunk returns, else the
exception's class name and the first line of its message. Each case mixes a rank-1 and a
rank-2 operand, unless its name says the ranks are equal or one operand is a scalar."""
import numpy as np


def cases(jax):
    jnp, lax, sp, nn = jax.numpy, jax.lax, jax.scipy.special, jax.nn
    stats = jax.scipy.stats
    v, m = jnp.full(3, 0.5), jnp.full((2, 3), 0.25)           # rank 1, rank 2
    i, k = jnp.arange(1, 4), jnp.ones((2, 3), jnp.int32)
    binary = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
              "float_power", "arctan2", "hypot", "maximum", "minimum", "fmax", "fmin",
              "logaddexp", "logaddexp2", "copysign", "nextafter", "remainder", "mod", "fmod",
              "equal", "not_equal", "less", "greater_equal", "logical_and", "logical_xor",
              "heaviside", "divmod"]
    integer = ["bitwise_and", "bitwise_or", "left_shift", "right_shift", "gcd", "lcm"]
    out = {f"jnp.{n}": (lambda n=n: getattr(jnp, n)(v, m)) for n in binary}
    out.update({f"jnp.{n}": (lambda n=n: getattr(jnp, n)(i, k)) for n in integer})
    out.update({
        "operator +": lambda: v + m,
        "operator * (reflected)": lambda: m.__rmul__(v),
        "operator >": lambda: v > m,
        "operator @ (no promotion)": lambda: m @ v,
        "jnp.ldexp": lambda: jnp.ldexp(v, k),
        "jnp.where": lambda: jnp.where(v > 0, v, m),
        "jnp.where (equal ranks)": lambda: jnp.where(m > 0, m, m),
        "jnp.clip": lambda: jnp.clip(m, v, 1.0),
        "jnp.isclose": lambda: jnp.isclose(v, m),
        "jnp.dot (no promotion)": lambda: jnp.dot(m, v),
        "jnp.inner": lambda: jnp.inner(v, m),
        "scalar operand": lambda: m * jnp.float32(2.0) + 1.0,
        "equal ranks": lambda: m + jnp.ones((1, 3)),
        "jit": lambda: jax.jit(lambda a, b: a * b)(v, m),
        "vmap (per example ranks equal)": lambda: jax.vmap(lambda a, b: a * b)(m, m),
        "vmap (per example ranks differ)": lambda: jax.vmap(lambda a, b: a * b,
                                                            in_axes=(None, 0))(v, m[:, None]),
        "sp.xlogy": lambda: sp.xlogy(v, m),
        "sp.xlog1py": lambda: sp.xlog1py(v, m),
        "sp.gammainc": lambda: sp.gammainc(v, m),
        "sp.betainc": lambda: sp.betainc(jnp.float32(2.0), v, m),
        "sp.zeta": lambda: sp.zeta(v + 2, m),
        "sp.polygamma": lambda: sp.polygamma(i, m),
        "stats.norm.logpdf": lambda: stats.norm.logpdf(m, v),
        "stats.gamma.cdf": lambda: stats.gamma.cdf(m, v + 1),
        "nn.logsumexp(b=)": lambda: nn.logsumexp(m, b=v),
        "lax.add (lax never promotes)": lambda: lax.add(v, m),
    })
    return out


def outcome(thunk):
    """None, or [class name, first line of the message] of what `thunk()` raised."""
    try:
        thunk()
    except Exception as e:              # what is compared is the class and the message
        return [type(e).__name__, str(e).strip().splitlines()[0]]
    return None


def run(jax):
    """{case: outcome} with jax_numpy_rank_promotion='raise', and how 'warn' reports one."""
    import warnings
    with jax.numpy_rank_promotion("raise"):
        raised = {name: outcome(thunk) for name, thunk in cases(jax).items()}
    with jax.numpy_rank_promotion("warn"), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        jax.numpy.ones(3) - jax.numpy.ones((2, 3))
    return {"raise": raised, "warn": [str(w.message) for w in seen],
            "bad_value": outcome(lambda: jax.config.update("jax_numpy_rank_promotion", "no")),
            "default": jax.config.jax_numpy_rank_promotion,
            "no_argument": outcome(lambda: jax.numpy_rank_promotion().__enter__()),
            "allowed": np.asarray(jax.numpy.ones(3) + jax.numpy.ones((2, 3))).tolist()}
