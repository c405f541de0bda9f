"""custom_jvp and custom_vjp: functions that bring their own derivative rule.

    >>> @custom_jvp
    ... def log1pexp(x):
    ...     return jnp.log(1. + jnp.exp(x))
    >>> @log1pexp.defjvp
    ... def log1pexp_jvp(primals, tangents):
    ...     x, = primals; t, = tangents
    ...     return log1pexp(x), t * jax.nn.sigmoid(x)

Outside any transformation they just run. Under a JVP (jvp, grad, vjp) the rule
is called at once on the primals, as in JAX, so outside jit it sees concrete values
and Python control flow on them works. Under the other transformations the function
is traced to a jaxpr and bound as one `custom_jvp_call` / `custom_vjp_call` equation
that carries the rule; a JVP of that equation calls the rule, everything else uses
the jaxpr.
A custom_vjp under differentiation becomes its `fwd` plus a `custom_lin`
equation, linear in the tangents, whose transpose is the user's `bwd`.

Read it top-down; custom_jvp's module and custom_vjp's two each stand on the two shared
modules alone, so either reads without the other:

* `function.py`: the decorated function both are, called: its arguments resolved to
  positions and split at `nondiff_argnums`, then run, traced and bound, or (under a JVP) its
  rule called at once.
* `call_rules.py`: what the two call primitives' rules share: the rules that just run the
  traced body, a body and a rule batched under vmap, the body cut to the used outputs, a
  literal as the user's rules see one, types as JAX's messages print them.
* `jvp.py`: `custom_jvp`, its rule over flat lists (JAX's errors for what it returns), and the
  `custom_jvp_call` primitive with its rules.
* `vjp_rules.py`: custom_vjp's fwd and bwd over flat lists (JAX's errors for what they
  return), and `CustomVJPPrimal`, what fwd gets with `symbolic_zeros=True`.
* `vjp.py`: `custom_vjp`, the checks of its arguments, the `custom_vjp_call` primitive with
  its rules, and `custom_lin`, the equation it becomes under differentiation.
* `linear_call.py`: `linear_call`, a function linear in some arguments with its own transpose.
"""
from .jvp import CustomJVPCallPrimitive, custom_jvp, custom_jvp_call_p
from .vjp import custom_lin_p, custom_vjp, custom_vjp_call_p
from .vjp_rules import CustomVJPPrimal
from .linear_call import linear_call, linear_call_p

# JAX's home for the two classes, where they answer under the alias (jax._src.custom_derivatives,
# jxkernel/_jax/custom_derivatives.py): what libraries reading `custom_jvp.__module__` and a
# pickle of one find, as before this package was split from one module
custom_jvp.__module__ = custom_vjp.__module__ = "jxkernel._src.custom_derivatives"
CustomVJPPrimal.__module__ = "jxkernel._src.custom_derivatives"     # (what fwd is given)

__all__ = ["CustomJVPCallPrimitive", "CustomVJPPrimal", "custom_jvp", "custom_jvp_call_p",
           "custom_lin_p", "custom_vjp", "custom_vjp_call_p", "linear_call", "linear_call_p"]
