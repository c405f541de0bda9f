import jax
import jax.numpy as jnp
from jax.extend import core


def eval_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(var):
        return var.val if isinstance(var, core.Literal) else env[var]

    def write(var, val):
        env[var] = val

    for v, c in zip(jaxpr.constvars, consts):
        write(v, c)
    for v, a in zip(jaxpr.invars, args):
        write(v, a)
    for eqn in jaxpr.eqns:
        outvals = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        if not eqn.primitive.multiple_results:
            outvals = [outvals]
        for v, val in zip(eqn.outvars, outvals):
            write(v, val)
    return [read(v) for v in jaxpr.outvars]


def f(x):
    return jnp.exp(jnp.tanh(x)) * 2.0


closed = jax.make_jaxpr(f)(jnp.ones(3))
print(isinstance(closed, core.ClosedJaxpr), type(closed.jaxpr).__name__)
print([str(e.primitive) for e in closed.jaxpr.eqns])
print(eval_jaxpr(closed.jaxpr, closed.literals, jnp.arange(3.)))
print(core.jaxpr_as_fun(closed)(jnp.arange(3.)))
RESULTS = {"interp": eval_jaxpr(closed.jaxpr, closed.literals, jnp.arange(3.))[0]}
