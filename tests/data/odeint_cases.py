"""odeint cases run the same way with JAX and with jxkernel
(reference/make_odeint_reference.py records JAX 0.10.2's values in
tests/data/odeint_reference.npz; tests/api/test_odeint.py compares).

`cases(jax, odeint)`: name -> a thunk returning a dict of arrays (solutions, and gradients
through the adjoint method)."""
import numpy as np


def cases(jax, odeint):
    jnp = jax.numpy

    def oscillator(state, t, omega):
        return {"x": state["v"], "v": -omega ** 2 * state["x"] - 0.1 * state["v"] * jnp.cos(t)}

    def solve(y0, ts, k, w):
        # a pytree state; k is an argument, w is closed over (closure_convert hoists it)
        deriv = lambda y, t, k: {"y": -k * y["y"] + w * jnp.sin(t)}
        return odeint(deriv, y0, ts, k, hmax=0.3)["y"]

    def solve_and_adjoint():
        ts = jnp.linspace(0., 1., 4)      # made here, not when the cases are built (at collection)
        ys, pullback = jax.vjp(solve, {"y": jnp.ones(2)}, ts, 2.0, 0.5)
        y0_bar, ts_bar, k_bar, w_bar = pullback(2 * ys)      # the gradient of sum(ys ** 2)
        return {"ys": ys, "y0_bar": y0_bar["y"], "ts_bar": ts_bar, "k_bar": k_bar,
                "w_bar": w_bar}

    return {
        "decay_pytree_adjoint": solve_and_adjoint,
        # 3 steps reach t=0.7, and 3 more stop short of t=2: that value is the last step's
        # polynomial extrapolated, as in JAX (mxstep=4 moves it by 6e-4)
        "oscillator_mxstep": lambda: odeint(oscillator,
                                            {"x": jnp.float32(1.), "v": jnp.float32(0.)},
                                            jnp.array([0., 0.7, 2.]), 3.0,
                                            rtol=1e-3, atol=1e-3, mxstep=3),
    }


def as_numpy(tree) -> dict:
    return {name: np.asarray(value) for name, value in tree.items()}
