"""Automatic differentiation: forward mode by JVP, reverse mode by linearize + transpose.

    >>> grad(lambda x: jnp.sin(x) * x)(1.0)
    Array(1.3817732, dtype=float32, weak_type=True)

- `JVPTrace` carries (primal, tangent) pairs; each primitive's jvp rule (in lax/)
  maps them forward. Traces have identities, so nested derivatives of the same
  kind never confuse their tangents (`grad(lambda x: grad(lambda y: x * y)(1.))(1.)`).
- `linearize` runs the JVP inside a `PartialEvalTrace` where tangents are unknown:
  the primal computation runs, the tangent computation is staged as a linear jaxpr.
- `vjp` transposes that linear jaxpr (`backward_pass`), walking it backwards with
  each primitive's transpose rule. `grad` is vjp with a cotangent of one.

One module per step, each importing only those listed before it (`transposition.py` and
`pullback.py` none of the others):

- `forward.py`: the JVP trace and tracers, `jvp_flat`, `jvp`, `jvp_jaxpr`
- `linearization.py`: `linearize_flat`, `linearize`
- `transposition.py`: `backward_pass`, `transpose_jaxpr`, `linear_transpose`
- `pullback.py`: `VJP`, the pullback vjp returns, and `jax.ad`'s classes for `with_refs`
- `reverse.py`: `vjp`, `value_and_grad`, `grad` and their checks
"""
from __future__ import annotations

from .forward import (DualTracer, JVPTrace, JVPTracer, PrimalTracer, jvp,  # noqa: F401
                      jvp_flat, jvp_jaxpr)
from .linearization import linearize, linearize_flat  # noqa: F401
from .transposition import (always_transposed, backward_pass, linear_transpose,  # noqa: F401
                            refs_as_values, transpose_jaxpr)
from .pullback import DidntWant, DontWant, GradRef, GradValue, NotNeeded  # noqa: F401
from .reverse import (_check_grad_input, check_output_dtype, grad, grad_input_aval,  # noqa: F401
                      value_and_grad, vjp)

# The classes and functions answer at the package, as before it was split into modules: a
# tracer's type prints as `jxkernel.transforms.ad.JVPTracer` (JAX's jax-primitives page tells
# tracers apart by "ad.JVPTracer" in that text), and reprs and pickles name the package.
for _public in (DualTracer, JVPTrace, JVPTracer, PrimalTracer, jvp, jvp_flat, jvp_jaxpr,
                linearize, linearize_flat, backward_pass, linear_transpose, transpose_jaxpr,
                DidntWant, DontWant, GradRef, GradValue, NotNeeded, check_output_dtype, grad,
                value_and_grad, vjp):
    _public.__module__ = __name__
del _public
