"""Jaxprs edited to be wrong, and what check_jaxpr says of each (JAX 0.10.2's core_test,
JaxprTypeChecks): a binder typed otherwise than its equation gives, a call given fewer operands
than its jaxpr takes, a cond whose branches take different inputs, in a short jaxpr and in one
of 201 equations (the jaxpr around the equation is cut ten either side). Shared by
reference/make_check_jaxpr_reference.py (real JAX) and tests/core/test_core_jaxpr.py
(jxkernel); source lines are written "<cases>:LINE" and the message's "from source:" line
is left out (JAX's names no line for the jit equation edited here)."""
import re


def _edit_binder(jax, core, jaxpr):
    jaxpr.eqns[0].outvars[0].aval = core.ShapedArray((), jax.numpy.dtype(jax.numpy.int32))


def _no_invars(jaxpr):
    """The jaxpr with no inputs (JAX keeps them as `_invars`; jxkernel as `invars`)."""
    if hasattr(jaxpr, "_invars"):
        jaxpr._invars = ()
    else:
        jaxpr.invars = []


def _replace_eqn(jaxpr, i, eqn):
    eqns = jaxpr._eqns if hasattr(jaxpr, "_eqns") else jaxpr.eqns
    eqns[i] = eqn


def run(jax, core) -> dict:
    """{case: check_jaxpr's message}; `core` is the side's jax._src.core."""
    jnp, lax = jax.numpy, jax.lax
    out = {}

    def message(jaxpr):
        try:
            core.check_jaxpr(jaxpr)
        except core.JaxprTypeError as e:
            text = re.sub(r"\n\nfrom source: [^\n]*", "", str(e.args[0]))
            return text.replace(__file__, "<cases>")
        return "ok"

    jaxpr = jax.make_jaxpr(lambda x: jnp.sin(x) + jnp.cos(x))(jnp.float32(1.)).jaxpr
    _edit_binder(jax, core, jaxpr)
    out["binder"] = message(jaxpr)

    jaxpr = jax.make_jaxpr(jax.jit(lambda x, y: x + 1))(1., 2.).jaxpr
    _replace_eqn(jaxpr, 0, jaxpr.eqns[0].replace(invars=()))
    out["call"] = message(jaxpr)

    def switch(x):
        return lax.switch(0, [lambda x: jnp.sin(x) * 2, lambda x: jnp.cos(x) * 2], x)
    jaxpr = jax.make_jaxpr(switch)(1.).jaxpr
    cond = next(eqn for eqn in jaxpr.eqns if eqn.primitive.name == "cond")
    _no_invars(cond.params["branches"][0].jaxpr)
    out["cond"] = message(jaxpr)

    def long(x):
        for _ in range(100):
            x = x + x
        x = lax.switch(0, [lambda x: jnp.sin(x) + 1, lambda x: jnp.cos(x) + 1], x)
        for _ in range(100):
            x = x + x
        return x
    jaxpr = jax.make_jaxpr(long)(1.).jaxpr
    cond = next(eqn for eqn in jaxpr.eqns if eqn.primitive.name == "cond")
    _no_invars(cond.params["branches"][0].jaxpr)
    out["long"] = message(jaxpr)
    return out
