"""What JAX 0.10.2's own tests/lax_control_flow_test.py and tests/batching_test.py found
jxkernel doing differently, run the same way with JAX and with jxkernel
(reference/make_control_flow_gaps_reference.py records JAX's answers in
tests/data/control_flow_gaps_reference.json; tests/lax/test_control_flow_gaps.py compares).

`errors(jax)`: name -> a thunk that raises; recorded: the exception's class name and the
first line of its message. `values(jax)`: name -> a thunk returning a pytree of arrays;
recorded: each leaf's dtype, shape and values (exact: ints and bools, or floats computed
exactly)."""
import numpy as np


def errors(jax):
    jnp, lax = jax.numpy, jax.lax
    return {
        "while_loop_not_callable": lambda: lax.while_loop(42, 42, 0),
        "switch_not_callable": lambda: lax.switch(0, [42]),
        "switch_no_branches": lambda: lax.switch(0, []),
        "switch_float_index": lambda: lax.switch(1.0, [lambda: 1, lambda: 2]),
        "cond_pred_none": lambda: lax.cond(None, lambda: 1, lambda: 2),
        "cond_pred_string": lambda: lax.cond("yes", lambda: 1, lambda: 2),
        "cond_pred_object": lambda: lax.cond(_Opaque(), lambda: 1, lambda: 2),
        "scan_not_callable": lambda: lax.scan(42, 0, 1),
        "scan_body_numpy_scalar": lambda: lax.scan(lambda c, x: np.float32(0.), 0,
                                                   jnp.arange(5.)),
        "scan_negative_unroll": lambda: lax.scan(lambda x, _: (x, x), 0, jnp.arange(5),
                                                 unroll=-1),
    }


def values(jax):
    jnp, lax = jax.numpy, jax.lax
    return {
        "scan_unroll_true": lambda: lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(5),
                                             unroll=True),
        "scan_unroll_false": lambda: lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(5),
                                              unroll=False),
    }


class _Opaque:
    """A value of no array type, printed the same in every process."""
    def __repr__(self):
        return "<opaque>"
