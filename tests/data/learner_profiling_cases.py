"""A learner measuring and profiling JAX code (JAX's "Benchmarking JAX code", "Ahead-of-time
lowering" and "Profiling device memory" pages): `run(jax)` gives the lines of this file the
lowered modules' locations name (`Lowered.as_text(debug_info=True)`), XLA's cost and memory
analyses of the compiled programs, and what donation leaves. The reference
(learner_profiling_reference.json) is real JAX 0.10.2's, written by
reference/make_learner_profiling_reference.py; tests/notebook/test_learner_profiling.py
compares jxkernel's answers and %explain's per-line counts with it."""
import re


# The learner's functions: the line numbers of this file are what the locations name.
def bench(jnp, x):      # benchmarking.md's f
    return x.T @ (x - x.mean(axis=0))


def g(jax, a, x):
    return jax.lax.igamma(a, x)


def h(jax, a, x):
    y = a * 2.0
    return jax.lax.igamma(y, x)


def step(c, _):
    return c * 0.99 + 1.0, None


def scanned(jax, c):
    return jax.lax.scan(step, c, None, length=100)[0]


def first_calls(jax, jnp):
    """igamma and scan lowered once here first: a later program's ops are not this line's."""
    jax.jit(lambda a, x: g(jax, a, x))(jnp.ones(3), jnp.ones(3)).block_until_ready()
    jax.jit(lambda c: scanned(jax, c))(jnp.ones(4)).block_until_ready()


def update(p):
    return p + 1


def lines_named(text: str) -> list:
    """The lines of this file a module's debug-info locations name."""
    return sorted({int(n) for n in re.findall(r'learner_profiling_cases\.py":(\d+)', text)})


def costs(compiled) -> dict:
    cost = compiled.cost_analysis()
    return {k: cost[k] for k in ("flops", "bytes accessed", "transcendentals") if k in cost}


MEMORY_FIELDS = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                 "temp_size_in_bytes")


def memory(compiled) -> dict:
    stats = compiled.memory_analysis()
    return {k: getattr(stats, k) for k in MEMORY_FIELDS}


def programs(jax, jnp) -> dict:
    """{name: (jitted function, arguments)}: the programs whose texts and costs are compared."""
    return {"bench": (jax.jit(lambda x: bench(jnp, x)), (jnp.ones((100, 100)),)),
            "h": (jax.jit(lambda a, x: h(jax, a, x)), (jnp.ones(3), jnp.ones(3))),
            "scanned": (jax.jit(lambda c: scanned(jax, c)), (jnp.ones(1000),))}


def run(jax) -> dict:
    jnp = jax.numpy
    first_calls(jax, jnp)
    out = {}
    for name, (fun, args) in programs(jax, jnp).items():
        lowered = fun.lower(*args)
        compiled = lowered.compile()
        out[name] = {"lines": lines_named(lowered.as_text(debug_info=True)),
                     "cost": costs(compiled), "memory": memory(compiled)}
    donating = jax.jit(update, donate_argnums=0)
    p = jnp.ones((100, 100))
    out["update_donated"] = {"memory": memory(donating.lower(p).compile())}
    q = donating(p)
    out["update_donated"]["deleted"] = [p.is_deleted(), q.is_deleted()]
    out["update_plain"] = {"memory": memory(jax.jit(update).lower(q).compile())}
    return out
