"""custom_vjp with symbolic_zeros=True: fwd gets each primal leaf as a CustomVJPPrimal saying
whether it is perturbed, as JAX's does (Equinox's filter_custom_vjp is built on it)."""
import numpy as np

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.custom_derivatives import CustomVJPPrimal


def _mul_recording_perturbed(seen):
    f = jax.custom_vjp(lambda x, y: x * y)

    def fwd(x, y):
        assert type(x) is CustomVJPPrimal and type(y) is CustomVJPPrimal
        seen.append((x.perturbed, y.perturbed))
        return x.value * y.value, (x.value, y.value)

    f.defvjp(fwd, lambda res, g: (res[1] * g, res[0] * g), symbolic_zeros=True)
    return f


def test_fwd_sees_which_primals_are_perturbed_under_grad_vjp_jit_and_vmap():
    seen = []
    f = _mul_recording_perturbed(seen)
    assert float(jax.grad(f)(2.0, 3.0)) == 3.0
    assert float(jax.grad(f, argnums=1)(2.0, 3.0)) == 2.0
    _, pullback = jax.vjp(f, 2.0, 3.0)
    assert [float(c) for c in pullback(1.0)] == [3.0, 2.0]
    g = jax.jit(jax.vmap(jax.grad(f), in_axes=(0, None)))(jnp.array([1.0, 2.0]), 5.0)
    np.testing.assert_array_equal(g, [5.0, 5.0])
    assert seen == [(True, False), (False, True), (True, True), (True, False)]
    assert float(f(2.0, 4.0)) == 8.0        # called outside AD: the primal function


def test_grad_of_a_jitted_custom_vjp_traces_bwd_once():
    traces = []
    f = jax.custom_vjp(lambda x: x)
    f.defvjp(lambda x: (x, None), lambda _, g: (traces.append(1) or g + 2,))
    jf = jax.jit(f)
    assert float(jax.grad(jf)(1.0)) == 3.0
    assert float(jax.grad(jf)(1.0)) == 3.0
    assert len(traces) == 1


def test_rules_see_a_jaxprs_literals_as_values():
    # a constant argument is a Literal of the jaxpr that grad of jit replays: fwd and jvp
    # rules get an array of its type (Equinox's checkpointed while_loop reads its .shape)
    seen = []
    f = jax.custom_vjp(lambda x, n: x * n)
    f.defvjp(lambda x, n: (seen.append(n) or x * n, n), lambda n, g: (g * n, None))
    h = jax.custom_jvp(lambda x, n: x * n)
    h.defjvp(lambda p, t: (seen.append(p[1]) or p[0] * p[1], t[0] * p[1]))
    for fn in (f, h):
        for n in (3.0, np.float32(3.0)):
            assert float(jax.grad(lambda x: jax.jit(lambda y: fn(y, n))(x))(2.0)) == 3.0
    assert len(seen) == 4 and all(v.shape == () and v.dtype == np.float32 for v in seen)
    assert [getattr(v, "weak_type", False) for v in seen] == [True, False] * 2   # kept weak


def test_bwd_does_not_run_for_a_call_without_outputs():
    # JAX's linearize drops such an equation; Equinox's filter_custom_vjp makes one when the
    # forward output is a Python scalar (static)
    runs = []
    f = jax.custom_vjp(lambda x: ())
    f.defvjp(lambda x: ((), None), lambda _, g: (runs.append(1) or 0.0,))
    assert float(jax.grad(lambda x: (f(x), x * 3.0)[1])(2.0)) == 3.0
    assert runs == []
