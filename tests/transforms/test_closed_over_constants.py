"""Arrays a traced function closes over: one constant each however often it is used, as JAX's
(its staging keys constants by id; tests/data/jaxpr_text_cases.py's `const_*` programs compare
the printed jaxprs with JAX 0.10.2's). Here what those texts do not show: the values computed,
the lowered module's constant arguments, and that a NumPy array is put on the device once per
transformation, not once for good (it may change between two traces)."""
import gc
import re
import weakref

import numpy as np

import jxkernel as jax
import jxkernel.numpy as jnp
from backend_tier import on_numpy_backend  # tests/support

X = np.array([1., 2., 3.], np.float32)
C = np.arange(3., dtype=np.float32)


def test_a_numpy_array_used_twice_is_one_constant_of_the_program_jit_compiles():
    text = jax.jit(lambda x: (x + C, x * C)).lower(X).as_text()
    main = re.search(r"func\.func public @main\(([^)]*)\)", text).group(1)
    assert main.count("%arg") == 1          # x alone: the constant is written in once, as JAX's
    assert text.count("stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]>") == 1
    plus, times = jax.jit(lambda x: (x + C, x * C))(X)
    np.testing.assert_array_equal(plus, X + C)           # exact: small integers in f32
    np.testing.assert_array_equal(times, X * C)


def test_a_float64_array_is_one_constant_of_its_canonical_dtype():
    c64 = np.arange(3.)
    jaxpr = jax.make_jaxpr(lambda x: (x + c64, x * c64, jnp.sin(c64)))(X)
    assert len(jaxpr.consts) == 1 and jaxpr.jaxpr.constvars[0].aval.dtype == np.float32


def test_each_trace_reads_the_array_anew():
    c = np.zeros(3, np.float32)
    first = jax.make_jaxpr(lambda x: x + c)(X)
    c[0] = 5.
    second = jax.make_jaxpr(lambda x: x + c)(X)
    np.testing.assert_array_equal(first.consts[0], [0., 0., 0.])
    np.testing.assert_array_equal(second.consts[0], [5., 0., 0.])


def test_the_array_is_not_kept_once_the_trace_is_done():
    c = np.arange(3., dtype=np.float32)
    held = weakref.ref(c)
    jaxpr = jax.make_jaxpr(lambda x: jnp.where(x > c, c, x))(X)   # jnp and lax both take it
    del c
    gc.collect()
    assert held() is None and len(jaxpr.consts) == 1


def test_a_jit_inside_keeps_its_constant_and_computes_with_it():
    inner = jax.jit(lambda y: y * C + C)
    outer = jax.jit(lambda x: inner(x) * 2 + C)
    eqn, = [e for e in jax.make_jaxpr(outer)(X).eqns[0].params["jaxpr"].eqns
            if e.primitive.name == "jit"]
    assert len(eqn.params["jaxpr"].consts) == 1 and len(eqn.invars) == 1
    np.testing.assert_array_equal(outer(X), (X * C + C) * 2 + C)


def test_grad_and_vmap_of_a_jit_that_closes_over_an_array():
    inner = jax.jit(lambda y: jnp.sum(y * C * C))
    np.testing.assert_array_equal(jax.grad(inner)(X), C * C)
    np.testing.assert_array_equal(jax.jit(jax.grad(lambda x: inner(x) + inner(2 * x)))(X),
                                  3 * C * C)
    rows = np.stack([X, 2 * X])
    np.testing.assert_array_equal(jax.vmap(inner)(rows), [np.sum(X * C * C),
                                                          np.sum(2 * X * C * C)])
    np.testing.assert_array_equal(jax.jit(jax.vmap(inner))(rows), jax.vmap(inner)(rows))


def test_a_jit_inside_grad_takes_the_grads_tracers_as_operands():
    def f(x):
        return jax.jit(lambda y: y * x)(X).sum()     # closes over grad's tracer x
    assert float(jax.grad(f)(2.)) == float(X.sum())


def test_a_constant_over_a_mebibyte_stays_an_argument_of_main():
    # JAX 0.10.2 writes every one in; jxkernel past 1 MiB passes it (captured_constants.py:
    # its text and XLA's folding of it cost seconds at tens of MB)
    big = jnp.arange(300_000, dtype=np.float32)              # 1.2 MB
    small = np.arange(3, dtype=np.int32)
    lowered = jax.jit(lambda x: x + big[:3] + small).lower(X)
    main = re.search(r"func\.func public @main\(([^)]*)\)", lowered.as_text()).group(1)
    assert main.count("%arg") == 2 and "tensor<300000xf32>" in main
    # (the NumPy backend's program takes every constant as an argument: its text is XLA's)
    consts = lowered._lowering.const_args
    assert (len(consts) == 2 if on_numpy_backend() else len(consts) == 1) and consts[0] is big
    want = X + np.arange(3) + small
    np.testing.assert_array_equal(lowered.compile()(X), want)
    np.testing.assert_array_equal(jax.jit(lambda x: x + big[:3] + small)(X), want)


def test_a_closed_over_view_is_written_in_as_its_values():
    """A column, a reversed or a broadcast NumPy view that `lax.add` or `jnp.where` under jit
    takes as it is: written into the module as its values in order (its bytes were read
    through `.view(np.uint8)` of a non-contiguous array, and the first call raised
    "ValueError: To change to a dtype of a different size, the last axis must be
    contiguous")."""
    from jxkernel import lax
    views = (np.arange(9., dtype=np.float32).reshape(3, 3)[:, 0],
             np.arange(3., dtype=np.float32)[::-1],
             np.broadcast_to(np.arange(3., dtype=np.float32)[::-1], (2, 3))[1])
    for view in views:
        assert not view.flags.c_contiguous
        np.testing.assert_array_equal(jax.jit(lambda x: lax.add(x, view))(X), X + view)
        np.testing.assert_array_equal(jax.jit(lambda x: jnp.where(x > 1, view, x))(X),
                                      np.where(X > 1, view, X))        # exact: small integers
