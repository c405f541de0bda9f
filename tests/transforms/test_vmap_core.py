"""vmap machinery: in/out axes, unbatched values stay unbatched, nesting with jit and with
itself, and JAX's error messages. (Per-primitive batching rules are tested with each family.)"""
import numpy as np
import pytest

import jxkernel as jax
from jxkernel import lax
from jxkernel.core import check_jaxpr
from numerics import ELEMENTWISE, assert_allclose_ulp

rng = np.random.default_rng(0)


def arr(x, dtype=np.float32):
    return jax.device_put(np.asarray(x, dtype))


def f(a, b):
    return lax.add(lax.mul(lax.sin(a), b), lax.exp(b))


def assert_f_of(got, a, b):
    """got == f(a, b) within ELEMENTWISE ulps of the float64 value, measured at the size of its
    two terms (sin(a) * b + exp(b) can cancel, and XLA's sin and exp differ per ISA)."""
    a, b = np.float64(a), np.float64(b)
    assert_allclose_ulp(np.asarray(got), (np.sin(a) * b + np.exp(b)).astype(np.float32),
                        ELEMENTWISE, scale=np.abs(np.sin(a) * b) + np.exp(b))


def stack_ref(fun, in_axes, *args):
    """vmap's meaning: apply `fun` per example and stack the results."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [fun(*[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)])
            for i in range(size)]
    return np.stack([np.asarray(o) for o in outs])


@pytest.mark.parametrize("in_axes", [(0, 0), (1, 0), (-1, 0), (0, None), (None, 1), (1, -1)])
def test_vmap_equals_stacking(in_axes):
    def shape_for(ax):
        return (4, 3) if ax is None else [(5, 3), (3, 5)][ax % 2] if ax in (0, 1) else (3, 5)
    a = rng.standard_normal(shape_for(in_axes[0]) if in_axes[0] is not None else (3,)).astype(np.float32)
    b = rng.standard_normal((5, 3) if in_axes[1] == 0 else (3, 5) if in_axes[1] in (1, -1)
                            else (3,)).astype(np.float32)
    got = jax.vmap(f, in_axes=in_axes)(arr(a), arr(b))
    # (the batched and per-example programs compile separately) [worst seen 1, all four CPUs]
    assert_allclose_ulp(np.asarray(got), stack_ref(f, in_axes, a, b), ELEMENTWISE)


def test_out_axes_and_pytrees():
    xs = rng.standard_normal((4, 3)).astype(np.float32)

    def g(d):
        return {"s": lax.sin(d["x"]), "c": (lax.cos(d["x"]), 2.0)}
    out = jax.vmap(g, in_axes=({"x": 1},), out_axes={"s": 1, "c": (0, None)})({"x": arr(xs)})
    # XLA's sin and cos differ per ISA; near their zeros only as exact as the range 1 allows
    x64 = np.float64(xs)
    assert_allclose_ulp(np.asarray(out["s"]), np.sin(x64).astype(np.float32), ELEMENTWISE,
                        scale=1.0)
    assert_allclose_ulp(np.asarray(out["c"][0]), np.cos(x64).T.astype(np.float32), ELEMENTWISE,
                        scale=1.0)
    assert float(out["c"][1]) == 2.0


def test_unbatched_values_stay_unbatched():
    closed = jax.make_jaxpr(jax.vmap(lambda a, b: lax.mul(a, b), in_axes=(0, None)))(
        arr(np.ones((4, 3))), arr(np.ones(3)))
    check_jaxpr(closed)
    assert str(closed) == ("{ lambda ; a:f32[4,3] b:f32[3]. let\n"
                           "    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions="
                           "(np.int64(1),)] b\n"           # (JAX 0.10.2's NumPy integer)
                           "    d:f32[4,3] = mul a c\n  in (d,) }")
    # a batched scalar against an unbatched scalar: no data movement at all
    closed = jax.make_jaxpr(jax.vmap(lambda a: lax.mul(a, 2.0)))(arr(np.ones(4)))
    assert str(closed) == "{ lambda ; a:f32[4]. let b:f32[4] = mul a 2.0:f32[] in (b,) }"


def test_axis_size_without_mapped_inputs():
    out = jax.vmap(lambda: arr(1.0), axis_size=3)()
    np.testing.assert_allclose(np.asarray(out), [1.0, 1.0, 1.0])


def test_nested_vmap_and_jit_in_both_orders():
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    inner = jax.vmap(f, in_axes=(0, 0))
    nested = jax.vmap(inner, in_axes=(0, None))
    assert_f_of(nested(arr(a), arr(b)), a, b)
    assert_f_of(jax.jit(nested)(arr(a), arr(b)), a, b)
    assert_f_of(jax.vmap(jax.vmap(jax.jit(f)), in_axes=(0, None))(arr(a), arr(b)), a, b)

    @jax.jit
    def body_with_vmap(x, y):
        return jax.vmap(f)(x, y)
    assert_f_of(body_with_vmap(arr(b), arr(b)), b, b)


def test_vmap_of_jit_reuses_compiled_code():
    g = jax.jit(lambda x: lax.cos(x))
    batched = jax.vmap(g)
    batched(arr(np.ones((5, 2))))
    before = len(jax.compile_events())
    batched(arr(np.zeros((5, 2))))
    assert len(jax.compile_events()) == before


def test_inconsistent_sizes_error_names_arguments():
    with pytest.raises(ValueError) as info:
        jax.vmap(lambda a, b: a)(arr(np.ones((2, 3))), {"w": arr(np.ones(3))})
    assert str(info.value) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 2: axis 0 of argument a of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of argument b['w'] of type float32[3]")


def test_in_axes_errors():
    with pytest.raises(ValueError, match=r"len\(in_axes\)=1, len\(args\)=2"):
        jax.vmap(lambda a, b: a, in_axes=(0,))(arr(np.ones(2)), arr(np.ones(2)))
    with pytest.raises(ValueError, match="axis 2, which implies that its rank should be at least 3"):
        jax.vmap(lambda a: a, in_axes=2)(arr(np.ones((2, 3))))
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        jax.vmap(lambda a: lax.sin(a), out_axes=None)(arr(np.ones(3)))
    with pytest.raises(ValueError, match="tree prefix"):
        jax.vmap(lambda d: d["x"], in_axes=({"y": 0},))({"x": arr(np.ones(3))})
    # checked when vmap is called, as JAX does: no pytree of specs is built first (a node
    # whose unflatten checks its children would raise its own error)
    with pytest.raises(TypeError, match="in_axes must be an int, None, or a tuple of entries "
                                        "corresponding to the positional arguments"):
        jax.vmap(lambda a: a, in_axes={"a": 0})
    with pytest.raises(TypeError, match=r"in_axes must be an int, None, or \(nested\) "
                                        r"container with those types as leaves, but got \(0.5,\)"):
        jax.vmap(lambda a: a, in_axes=(0.5,))
    with pytest.raises(TypeError, match="out_axes must be an int, None, or"):
        jax.vmap(lambda a: a, out_axes=(arr(1.0),))


def test_select_n_and_clamp_batching():
    x = rng.standard_normal((6, 4)).astype(np.float32)
    out = jax.vmap(lambda a: lax.select_n(lax.gt(a, 0.0), a, lax.neg(a)))(arr(x))
    np.testing.assert_allclose(np.asarray(out), np.where(x > 0, -x, x))
    lo = rng.standard_normal(6).astype(np.float32)
    out = jax.vmap(lambda l, a: lax.clamp(l, a, 1.0))(arr(lo), arr(x))
    np.testing.assert_array_equal(np.asarray(out), np.clip(x, lo[:, None], 1.0))   # selects
    which = rng.standard_normal(6) > 0
    out = jax.vmap(lambda w, a, b: lax.select_n(w, a, b))(arr(which, np.bool_), arr(x), arr(-x))
    np.testing.assert_allclose(np.asarray(out), np.where(which[:, None], -x, x))



def test_callables_without_a_string_name():
    # JAX's api_util.wraps: a partial is named for its function, a callable object without
    # __name__ is '<unnamed function>', and a __name__ that is not a str is left alone
    import functools

    class NoName:
        def __call__(self, x):
            return lax.neg(x)

    class IntName(NoName):
        __name__ = 3

    x = arr([1.0, 2.0])
    part = jax.vmap(functools.partial(lax.mul, arr(2.0)))
    np.testing.assert_array_equal(np.asarray(part(x)), [2.0, 4.0])
    assert part.__name__ == "mul"
    assert part.__doc__.startswith("Vectorized version of mul. Takes similar arguments as mul")
    assert jax.vmap(NoName()).__name__ == "<unnamed function>"
    assert jax.grad(NoName()).__doc__.startswith("Gradient of <unnamed function> with respect")
    np.testing.assert_array_equal(np.asarray(jax.vmap(IntName())(x)), [-1.0, -2.0])
    for transform in (jax.grad, jax.jacfwd, jax.jacrev, jax.checkpoint):
        assert float(transform(IntName())(arr(1.0))) == -1.0
    assert jax.jit(functools.partial(lax.mul, 2.0)).lower(x).as_text().startswith(
        "module @jit_mul")


def test_in_axes_of_a_pytree_whose_init_converts_its_fields():
    # JAX's custom_pytrees guide: an unflatten that runs __init__ (jnp.asarray of each field)
    # under vmap; in_axes are matched on the treedefs, no placeholder tree is unflattened
    class Converting:
        def __init__(self, a):
            self.a = jax.numpy.asarray(a)
    jax.tree_util.register_pytree_node(Converting, lambda t: ((t.a,), None),
                                       lambda _, c: Converting(*c))
    out = jax.vmap(lambda t: t.a * 2)(Converting(jax.numpy.arange(3.0)))
    assert out.tolist() == [0.0, 2.0, 4.0]
