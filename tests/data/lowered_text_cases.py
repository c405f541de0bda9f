"""Programs whose printed forms a learner compares with JAX's: `jit(f).lower(...).as_text()`
(StableHLO as MLIR prints it, with each result's `jax.result_info`) and `make_jaxpr` text
(results nobody reads printed `_` at the top level only), and the op names XLA's compiled
program keeps (`Compiled.as_text()`'s `op_name="jit(f)/sin"`). Shared by
reference/make_lowered_text_reference.py (run with real JAX 0.10.2) and
tests/transforms/test_lowered_text.py (run with jxkernel); compared as text, exactly.

Left out, as jxkernel still writes them otherwise (docs/jaxlib.md, "What jxkernel prints"):
scan's body (JAX calls private functions from it), and jnp functions JAX jits inside (`@sort`,
`@argmax`). Unused arguments are in (JAX drops them from `main` unless keep_unused=True, and
so does jxkernel); tests/data/kept_args_cases.py has more of them.
"""
import re
from collections import namedtuple

import numpy as np

Pair = namedtuple("Pair", ["first", "second"])


def _stablehlo(jax):
    jnp, lax = jax.numpy, jax.lax

    def named_pair(x, y):
        unused = jnp.sin(y)          # noqa: F841 (dead: y is then unused)
        return x * 2
    ones = jnp.ones
    out = {}
    out["pytree_results"] = jax.jit(lambda x, y: {"a": x * 2, "b": (y + 1, x)}).lower(
        ones(3), ones((2, 2)))
    out["namedtuple_result"] = jax.jit(lambda x: Pair(x, -x)).lower(ones(2))
    out["donated"] = jax.jit(lambda x, y: (x + 1, y * 2), donate_argnums=0).lower(ones(3), ones(3))
    out["grad_drops_the_forward_value"] = jax.jit(
        jax.grad(lambda x: jnp.sum(jnp.tanh(x) ** 2))).lower(ones(4))

    def named(x):
        unused = jnp.sin(x)          # noqa: F841 (dead: gone unless keep_unused)
        return x * 3
    out["keep_unused_keeps_dead_code"] = jax.jit(named, keep_unused=True).lower(ones(2))
    out["unused_argument_dropped"] = jax.jit(lambda x, y: x * 2).lower(1., 2.)
    out["unused_argument_kept_by_keep_unused"] = jax.jit(lambda x, y: x * 2,
                                                         keep_unused=True).lower(1., 2.)
    out["no_argument_used"] = jax.jit(lambda x, y: (3., x.shape)[0]).lower(ones(2), 2.)
    out["unused_donated_argument_dropped"] = jax.jit(
        lambda x, y: x * 2, donate_argnums=1).lower(ones(3), ones(3))
    out["unused_donated_argument_kept_and_donated"] = jax.jit(
        lambda x, y: x * 2, donate_argnums=1, keep_unused=True).lower(ones(3), ones(3))
    out["argument_read_by_dead_code_only"] = jax.jit(named_pair).lower(ones(3), ones(4))
    out["unused_leaf_of_a_dict"] = jax.jit(lambda d: d["a"] - d["c"]).lower(
        {"a": ones(2), "b": ones(5), "c": ones(2)})
    def inner(x):
        jnp.exp(x)                   # dead inside the inner jit: its function leaves it out
        return jnp.cos(x) + 1
    out["nested_jit_drops_dead_code"] = jax.jit(lambda x: jax.jit(inner)(x) * 2).lower(ones(3))
    w = np.arange(3., dtype=np.float32)

    def scaled(x):                   # closes over w: its function holds it as a constant
        return x * w + w
    out["nested_jit_embeds_its_constant"] = jax.jit(
        lambda x: jax.jit(scaled)(x) * 2).lower(ones(3))
    # closed-over arrays in main: written in as constants (JAX 0.10.2's default), main takes
    # the arguments alone; a float64 NumPy array as its canonical f32, once however often read
    const = jnp.arange(16.) + 42.
    out["closed_over_array_is_a_constant"] = jax.jit(lambda x: const[0:8] + x).lower(ones(8))
    c64, flags = np.arange(3.), np.array([True, False, True])
    out["closed_over_numpy_arrays_are_constants"] = jax.jit(
        lambda x: (jnp.where(flags, x * c64, x + c64), jnp.sum(c64))).lower(ones(3))
    out["closed_over_array_and_donation"] = jax.jit(
        lambda x, y: (x + const[:3], y * 2), donate_argnums=1).lower(ones(3), ones(3))
    out["closed_over_array_read_by_dead_code_only"] = jax.jit(
        lambda x: (jnp.sin(const), x * 2)[1]).lower(ones(3))
    # a closed-over token: a new one in main (`stablehlo.create_token`), not an argument
    token = lax.create_token()
    out["closed_over_token_is_created"] = jax.jit(lambda x: (x + 2, token)).lower(7)
    out["fori_loop"] = jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c * 2., 1.)).lower(3)
    out["cond"] = jax.jit(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)).lower(True, 1.)
    out["compare_and_select"] = jax.jit(lambda x: jnp.where(x > 0, x, -x)).lower(ones(3))
    out["weak_scalar_made_strong"] = jax.jit(lambda x, s: x * s).lower(ones(2), 2.)
    out["literals_each_their_constant"] = jax.jit(lambda x: (x + 1.) * (x - 1.) + 1.).lower(ones(2))
    f = jax.jit(lambda x: jnp.sin(x) * 2)
    out["two_platforms"] = f.trace(ones(3)).lower(lowering_platforms=("cpu", "cuda"))
    out["platform_dependent_two_platforms"] = jax.jit(
        lambda x: lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos)).trace(1.).lower(
            lowering_platforms=("cpu", "cuda"))
    return {name: lowered.as_text() for name, lowered in out.items()}


def _jaxprs(jax):
    jnp = jax.numpy
    drop = lambda x: (jnp.sin(x), x)[1]           # noqa: E731
    loss = lambda x: jnp.sum(jnp.tanh(x) ** 2)    # noqa: E731
    return {
        "unused_result_top_level": jax.make_jaxpr(drop)(1.),
        "unused_result_inside_jit": jax.make_jaxpr(jax.jit(drop))(1.),
        "grad_top_level": jax.make_jaxpr(jax.grad(loss))(jnp.ones(4)),
        "grad_inside_jit": jax.make_jaxpr(jax.jit(jax.grad(loss)))(jnp.ones(4)),
        "traced_jit_of_grad": jax.jit(jax.grad(jnp.sin)).trace(1.).jaxpr,
    }


def _compiled(jax):
    """What XLA's compiled program says of where its ops came from: each op's `op_name`
    (JAX's name stack, `jit(f)/sin`) and the parameters named after the arguments."""
    jnp = jax.numpy

    def f(x, y):
        return {"a": jnp.sin(x) * y, "b": jnp.exp(x) - 1}
    text = jax.jit(f).lower(jnp.ones(3), 2.).compile().as_text()
    return {"op_names": sorted(set(re.findall(r'op_name="([^"]*)"', text))),
            "parameters": sorted(set(re.findall(r"%(\w+)\.\d+ = \S+ parameter\(", text)))}


def run(jax, kinds=("stablehlo", "jaxpr", "compiled")) -> dict:
    """The texts of each kind in `kinds` (a jaxpr's runs where no XLA compiles)."""
    makers = {"stablehlo": _stablehlo,
              "jaxpr": lambda jax: {name: str(j) for name, j in _jaxprs(jax).items()},
              "compiled": _compiled}
    return {kind: makers[kind](jax) for kind in kinds}
