"""The exercises of demos/03_autodiff.ipynb."""
from __future__ import annotations

import numpy as np

from ... import grad
from . import NotYet, exercise, expect_close

# the data of the notebook's least-squares example: y = 2 x - 1, exactly
XS = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
YS = 2.0 * XS - 1.0


@exercise("ad-grad", hints=(
    "jax.grad(f) is a new function: it takes the same arguments as f and returns the "
    "derivative of f's (scalar) result with respect to the first argument.",
    "The loss takes the parameters first: loss(params, xs, ys). grad differentiates with "
    "respect to params, a tuple (w, b), and returns a tuple of the same structure.",
    "loss_grad = jax.grad(loss)",
), solution="loss_grad = jax.grad(loss)")
def _grad(answer):
    if not callable(answer):
        raise NotYet("loss_grad should be a function (what jax.grad returns).")
    got = answer((0.0, 0.0), XS, YS)
    if not isinstance(got, tuple) or len(got) != 2:
        raise NotYet(f"loss_grad((0., 0.), xs, ys) should give a pair (dw, db), like the "
                     f"parameters (w, b); it gave {got!r}.")
    # d/dw mean((w x + b - y)^2) = 2 mean((w x + b - y) x); at w = b = 0: -2 mean(y x)
    expect_close(got, (-2.0 * float(np.mean(YS * XS)), -2.0 * float(np.mean(YS))),
                 "loss_grad((0., 0.), xs, ys)", rtol=1e-5)   # means of 4 products


@exercise("ad-hessian", hints=(
    "The Hessian is the Jacobian of the gradient: the matrix of second derivatives.",
    "jax.hessian(f)(x) computes it; so does jax.jacfwd(jax.grad(f))(x).",
    "cubes_hessian = jax.hessian(cubes)(x)",
), solution="cubes_hessian = jax.hessian(cubes)(x)")
def _hessian(answer):
    x = np.array([1.0, 2.0, 3.0], np.float32)
    want = np.diag(6.0 * x)          # d²/dx_i dx_j sum(x³) = 6 x_i on the diagonal
    expect_close(answer, want, "cubes_hessian", rtol=1e-5)


@exercise("ad-stop-gradient", hints=(
    "lax.stop_gradient(v) is v for the value and a constant for differentiation.",
    "x * x has derivative 2x: each factor contributes x. Stop one of them.",
    "return x * lax.stop_gradient(x)",
), solution="def half_square_grad(x):\n    return x * lax.stop_gradient(x)")
def _stop_gradient(answer):
    value, slope = float(answer(3.0)), float(grad(answer)(3.0))
    if value != 9.0:
        raise NotYet(f"half_square_grad(3.0) should still be 9.0 (x squared); it is {value}.")
    if slope != 3.0:
        raise NotYet(f"Its derivative at 3.0 should be 3.0 (x, not 2x); it is {slope}.")


@exercise("ad-custom-jvp", hints=(
    "softplus(x) = log(1 + exp(x)) has derivative exp(x) / (1 + exp(x)) = sigmoid(x); "
    "for large x, exp(x) overflows to inf and inf / inf is nan.",
    "With @jax.custom_jvp the function says its own derivative: define it with "
    "@softplus.defjvp, returning (primal_out, tangent_out).",
    "primal_out = softplus(x); tangent_out = jax.nn.sigmoid(x) * x_dot",
), solution="@jax.custom_jvp\n"
            "def softplus(x):\n"
            "    return jnp.logaddexp(x, 0.0)\n\n"
            "@softplus.defjvp\n"
            "def softplus_jvp(primals, tangents):\n"
            "    (x,), (x_dot,) = primals, tangents\n"
            "    return softplus(x), jax.nn.sigmoid(x) * x_dot")
def _custom_jvp(answer):
    for x, value, slope in ((0.0, np.log(2.0), 0.5), (100.0, 100.0, 1.0), (-100.0, 0.0, 0.0)):
        got_value, got_slope = float(answer(x)), float(grad(answer)(x))
        if np.isnan(got_slope):
            raise NotYet(f"The derivative at {x} is nan: exp({x}) overflows in float32; give "
                         f"softplus its own derivative (sigmoid) with jax.custom_jvp.")
        if not np.isclose(got_value, value, rtol=1e-5, atol=1e-6):
            raise NotYet(f"softplus({x}) should be {value:.6g}, not {got_value:.6g}.")
        if not np.isclose(got_slope, slope, rtol=1e-5, atol=1e-6):
            raise NotYet(f"Its derivative at {x} should be {slope}, not {got_slope:.6g}.")

