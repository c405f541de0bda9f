"""Eager programs under grad whose `jax_log_compiles` lines are compared with JAX 0.10.2's
(reference/make_eager_grad_log_reference.py records them, tests/views/test_eager_grad_log.py
compares). Each takes (jax, jnp, x) with x = jnp.ones(3) made before the log is on."""

PROGRAMS = {
    "grad_sum_sq": lambda jax, jnp, x: jax.grad(lambda x: jnp.sum(x ** 2))(x),
    "grad_mean_sin": lambda jax, jnp, x: jax.grad(lambda x: jnp.mean(jnp.sin(x)))(x),
    "value_and_grad_dot": lambda jax, jnp, x: jax.value_and_grad(lambda w: jnp.dot(w, w))(x),
    "grad_tanh_sum_method": lambda jax, jnp, x: jax.grad(lambda x: jnp.tanh(x).sum())(x),
    "grad_two_uses": lambda jax, jnp, x: jax.grad(lambda x: jnp.sum(x * 2.0 + x))(x),
}


def steps(lines) -> list:
    """[("traced" | "compiled", name)] from jax_log_compiles's lines, in order: "Finished
    tracing mul for jit" and "Compiling jit(mul) with ..." (the other lines left out)."""
    out = []
    for line in lines:
        if line.startswith("Finished tracing ") and line.split()[3:4] == ["for"]:
            out.append(("traced", line.split()[2]))
        elif line.startswith("Compiling jit("):
            out.append(("compiled", line[len("Compiling jit("):].split(") with global")[0]))
    return out
