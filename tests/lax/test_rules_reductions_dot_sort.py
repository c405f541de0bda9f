"""vmap, jvp and transpose rules of the reduction, dot_general and sorting primitives:
vmap against stacking per-example results (in_axes 0, 1, -1 and None mixes, nested, with jit
in both orders), check_grads to order 2 in both modes, vjp/jvp dot-product tests, JAX's
tie-splitting and zero-tangent conventions, and jaxprs as JAX 0.10.2 prints them."""
import re

import numpy as np
import pytest

import jxkernel as jax
from jxkernel import lax
from jxkernel.core import check_jaxpr
from jxkernel.test_util import check_grads, check_vjp
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp

F32 = np.float32
B = 2                                   # the vmapped axis size


def data(shape, seed=0, dtype=F32):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 8, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def S(y):
    """Sum of everything: a scalar loss for grad."""
    return lax.reduce_sum(y, tuple(range(np.ndim(y))))


def _moveaxis(x, src, dst):
    return np.moveaxis(np.asarray(x), src, dst)


def _largest(want):
    """The largest |value| of a float result: the scale its sums and dots that cancel are
    measured at (None for integers, compared exactly)."""
    want = np.asarray(want)
    return np.abs(want.astype(np.float64)).max() if want.dtype.kind in "fc" and want.size else None


def check_vmap(f, per_example, in_axes, with_jit=True):
    """vmap(f, in_axes) on the per-example args stacked along their axes equals stacking f
    over the examples; the batched jaxpr typechecks; jit(vmap) and vmap(jit) agree."""
    shuffled = lambda a, i: np.random.default_rng(i).permutation(a.ravel()).reshape(a.shape)
    batched = [a if ax is None else _moveaxis(np.stack([shuffled(a, i) for i in range(B)]), 0, ax)
               for a, ax in zip(per_example, in_axes)]      # examples: `a` shuffled
    examples = [[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(batched, in_axes)]
                for i in range(B)]
    want = [jax.tree_util.tree_leaves(f(*map(jax.device_put, ex))) for ex in examples]
    want = [np.stack([np.asarray(w[j]) for w in want]) for j in range(len(want[0]))]
    vf = jax.vmap(f, in_axes=tuple(in_axes))
    jitted = (jax.jit(vf), jax.vmap(jax.jit(f), in_axes=tuple(in_axes))) if with_jit else ()
    for g in (vf,) + jitted:
        got = jax.tree_util.tree_leaves(g(*batched))
        assert len(got) == len(want)
        for gv, wv in zip(got, want):
            assert np.asarray(gv).dtype == wv.dtype
            # batched dots, sums and cumsums may add in another order than one example's:
            # REDUCTION ulps at the output's largest |value| [worst seen 1, all four CPUs]
            assert_allclose_ulp(np.asarray(gv), wv, REDUCTION, scale=_largest(wv))
    check_jaxpr(jax.make_jaxpr(vf)(*batched))


# --------------------------------------------------------------- the primitives, one-operand
X = data((3, 4))
BOOLS, INTS = data((3, 4), 1, np.bool_), data((3, 4), 2, np.int32)


def _monoid(a, b):
    """(1 + a)(1 + b) - 1: associative and commutative with identity 0, and no lax op, so
    lax.reduce traces it as a generic `reduce` region."""
    return lax.add(lax.add(lax.mul(a, b), a), b)


def _argmax_pair(a, b):
    (va, ia), (vb, ib) = a, b
    pick_a = lax.bitwise_or(lax.gt(va, vb), lax.bitwise_and(lax.eq(va, vb), lax.lt(ia, ib)))
    return lax.select(pick_a, va, vb), lax.select(pick_a, ia, ib)


UNARY = {
    "reduce_sum0": (lambda x: lax.reduce_sum(x, (0,)), X),
    "reduce_sum01": (lambda x: lax.reduce_sum(x, (0, 1)), X),
    "reduce_max1": (lambda x: lax.reduce_max(x, (1,)), X),
    "reduce_min0": (lambda x: lax.reduce_min(x, (0,)), X),
    "reduce_prod1": (lambda x: lax.reduce_prod(x, (1,)), X),
    "reduce_and": (lambda x: lax.reduce_and(x, (1,)), BOOLS),
    "reduce_or": (lambda x: lax.reduce_or(x, (0,)), BOOLS),
    "reduce_xor": (lambda x: lax.reduce_xor(x, (0, 1)), INTS),
    "argmax0": (lambda x: lax.argmax(x, 0, np.int32), X),
    "argmin1": (lambda x: lax.argmin(x, 1, np.int32), X),
    "reduce_generic": (lambda x: lax.reduce(x, F32(0), _monoid, (1,)), X * 0.3),
    "reduce_pair": (lambda x: lax.reduce((x, lax.broadcasted_iota(np.int32, (3, 4), 0)),
                                         (F32(-np.inf), np.int32(0)), _argmax_pair, (0,)), X),
    "cumsum1": (lambda x: lax.cumsum(x, 1), X),
    "cumsum0r": (lambda x: lax.cumsum(x, 0, reverse=True), X),
    "cumprod1": (lambda x: lax.cumprod(x, 1), X),
    "cummax0": (lambda x: lax.cummax(x, 0), X),
    "cummin1r": (lambda x: lax.cummin(x, 1, reverse=True), X),
    "cumlogsumexp1": (lambda x: lax.cumlogsumexp(x, 1), X),
    "sort1": (lambda x: lax.sort(x, 1), X),
    "sort0": (lambda x: lax.sort(x, 0), X),
    "top_k": (lambda x: lax.top_k(x, 2), X),
    "top_k0": (lambda x: lax.top_k(x, 2, axis=0), X),
}


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("name", list(UNARY))
def test_vmap_unary(name, axis):
    f, x = UNARY[name]
    check_vmap(f, [x], [axis], with_jit=axis == -1)      # jit both ways once per primitive


# --------------------------------------------------------------- two operands
A, Bm = data((2, 3, 4), 3), data((2, 4, 5), 4)
BATCHED_DOT = (((2,), (1,)), ((0,), (0,)))
CONTRACT2 = (((0, 2), (0, 1)), ((), ()))
BINARY = {
    "matmul": (lambda a, b: lax.dot(a, b), data((3, 4)), data((4, 5), 5)),
    "matvec": (lambda a, b: lax.dot(a, b), data((3, 4)), data((4,), 5)),
    "vecvec": (lambda a, b: lax.dot(a, b), data((4,)), data((4,), 5)),
    "batched": (lambda a, b: lax.dot_general(a, b, BATCHED_DOT), A, Bm),
    "contract2": (lambda a, b: lax.dot_general(a, b, CONTRACT2), A, Bm),
    "outer": (lambda a, b: lax.dot_general(a, b, (((), ()), ((), ()))), data((3,)), data((2, 2))),
    "preferred": (lambda a, b: lax.dot(a, b, preferred_element_type=F32),
                  data((3, 4), 0, np.float16), data((4, 2), 1, np.float16)),
    "sort_kv": (lambda k, v: lax.sort_key_val(k, v, 0), X, data((3, 4), 6)),
    "sort_2keys": (lambda k, v: lax.sort((lax.round(k), v), 1, num_keys=2), X * 2, data((3, 4), 6)),
}
MIXES = [(0, 0), (0, None), (None, 1), (-1, 0), (1, -1)]


@pytest.mark.parametrize("in_axes", MIXES, ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_vmap_binary(name, in_axes):
    f, a, b = BINARY[name]
    check_vmap(f, [a, b], list(in_axes), with_jit=in_axes == (-1, 0))


def test_nested_vmap():
    def f(a, b):        # a: (2, 3, 4), b: (2, 4, 5) per example
        return lax.cumsum(lax.sort(lax.dot_general(a, b, BATCHED_DOT), 2), 1)
    a, b = data((3, 2, 2, 3, 4)), data((2, 4, 5, 3), 1)
    # outer: a's axis 0, b's axis 3; inner: axis 1 of a's slice, b unbatched
    nested = jax.vmap(jax.vmap(f, in_axes=(1, None)), in_axes=(0, 3))
    want = np.stack([np.stack([f(a[o][:, i], b[..., o]) for i in range(2)]) for o in range(3)])
    for g in (nested, jax.jit(nested), jax.vmap(jax.jit(jax.vmap(f, in_axes=(1, None))),
                                                in_axes=(0, 3))):
        # (batched dots and cumsums: REDUCTION at the largest |value| [worst seen 0])
        assert_allclose_ulp(np.asarray(g(a, b)), want, REDUCTION, scale=_largest(want))
    check_jaxpr(jax.make_jaxpr(nested)(a, b))


def test_vmap_keeps_unbatched_operands_unbatched():
    """JAX folds the batch dim into the free dims of the batched operand: no broadcast of
    the weights, no transposes, one dot_general per layer."""
    def predict(params, x):
        for w, b in params:
            x = lax.tanh(lax.add(lax.dot(x, w), b))
        return x
    params = [(data((8, 16)), data((16,), 1)), (data((16, 4), 2), data((4,), 3))]
    jaxpr = jax.make_jaxpr(jax.vmap(predict, in_axes=(None, 0)))(params, data((5, 8), 4))
    check_jaxpr(jaxpr)
    prims = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert prims.count("dot_general") == 2 and "transpose" not in prims
    dot_in_shapes = [tuple(v.aval.shape for v in e.invars) for e in jaxpr.jaxpr.eqns
                     if e.primitive.name == "dot_general"]
    assert dot_in_shapes == [((5, 8), (8, 16)), ((5, 16), (16, 4))]
    # reductions shift their axes instead of moving the batch dim
    jaxpr = jax.make_jaxpr(jax.vmap(lambda x: lax.reduce_max(x, (0, 2)), in_axes=1))(
        data((3, 4, 5, 6)))
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["reduce_max"]
    assert jaxpr.jaxpr.eqns[0].params["axes"] == (0, 3)


def test_vmap_of_reduce_with_batched_init_is_an_error():
    with pytest.raises(NotImplementedError, match="batched initial values"):
        jax.vmap(lambda x, i: lax.reduce(x, i, _monoid, (0,)))(data((2, 3)), data((2,)))


# --------------------------------------------------------------- derivatives
GRADS = {
    "reduce_sum": lambda x: lax.reduce_sum(lax.sin(x), (1,)),
    "reduce_max": lambda x: lax.reduce_max(x, (0,)),
    "reduce_min": lambda x: lax.reduce_min(x, (0, 1)),
    "reduce_prod": lambda x: lax.reduce_prod(x, (1,)),
    "reduce_prod_all": lambda x: lax.reduce_prod(x, (0, 1)),
    "reduce_generic": lambda x: lax.reduce(x, F32(0), _monoid, (1,)),
    "reduce_pair": lambda x: lax.reduce((x, lax.broadcasted_iota(np.int32, np.shape(x), 0)),
                                        (F32(-np.inf), np.int32(0)), _argmax_pair, (0,))[0],
    "cumsum": lambda x: lax.cumsum(x, 1),
    "cumsum_rev": lambda x: lax.cumsum(x, 0, reverse=True),
    "cumprod": lambda x: lax.cumprod(x, 1),
    "cumprod_rev": lambda x: lax.cumprod(x, 0, reverse=True),
    "cummax": lambda x: lax.cummax(x, 1),
    "cummin_rev": lambda x: lax.cummin(x, 0, reverse=True),
    "cumlogsumexp": lambda x: lax.cumlogsumexp(x, 1),
    "sort": lambda x: lax.sort(x, 1),
    "sort0": lambda x: lax.sort(x, 0),
    "top_k": lambda x: lax.top_k(x, 2)[0],
    "top_k0": lambda x: lax.top_k(x, 3, axis=0)[0],
}


@pytest.mark.parametrize("name", list(GRADS))
def test_check_grads_order_2(name):
    scale = 0.5 if "prod" in name or "generic" in name else 1
    x = data((3, 5), 5) * scale
    check_grads(GRADS[name], (x,), order=2, modes=("fwd", "rev"))
    check_grads(GRADS[name], (data((4, 3), 6) * scale,), order=1, modes=("fwd", "rev"))
    check_jaxpr(jax.make_jaxpr(jax.grad(lambda x: S(GRADS[name](x))))(x))
    check_jaxpr(jax.make_jaxpr(lambda x, t: jax.jvp(GRADS[name], (x,), (t,)))(x, x))


def test_reduce_with_a_tangent_on_its_initial_value_is_not_differentiable():
    with pytest.raises(NotImplementedError, match="initial values"):
        jax.grad(lambda i: S(lax.reduce(X, i, _monoid, (1,))))(F32(0))


@pytest.mark.parametrize("dims,shapes", [
    ((((1,), (0,)), ((), ())), ((3, 4), (4, 2))),
    (BATCHED_DOT, ((2, 3, 4), (2, 4, 5))),
    ((((0, 2), (0, 1)), ((), ())), ((2, 3, 4), (2, 4, 5))),
    ((((2,), (0,)), ((1,), (2,))), ((3, 2, 4), (4, 5, 2))),      # batch dims not in front
    ((((), ()), ((), ())), ((3,), (2,))),
], ids=["matmul", "batched", "contract2", "batch_mid", "outer"])
def test_dot_general_grads(dims, shapes):
    f = lambda a, b: lax.dot_general(a, b, dims)
    args = (data(shapes[0], 1), data(shapes[1], 2))
    check_grads(f, args, order=2, modes=("fwd", "rev"))
    check_vjp(f, args)                 # the dot-product test <vjp(ct), t> == <ct, jvp(t)>
    for argnums in (0, 1, (0, 1)):
        check_jaxpr(jax.make_jaxpr(jax.grad(lambda a, b: S(f(a, b)), argnums=argnums))(*args))


def test_dot_general_preferred_element_type_and_mixed_dtypes():
    a, b = data((3, 4), 1, np.float16), data((4, 2), 2, np.float16)
    f = lambda a, b: S(lax.dot(a, b, preferred_element_type=F32))
    ga, gb = jax.grad(f, argnums=(0, 1))(a, b)
    assert ga.dtype == gb.dtype == np.float16          # cast back to the operands' type
    # sums of two float16 values, exact in float32 and rounded once to float16: correctly
    # rounded on every CPU, 1 ulp for a double rounding should one appear [worst seen 0]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert_allclose_ulp(np.asarray(ga), (np.ones((3, 2)) @ b64.T).astype(np.float16), 1)
    assert_allclose_ulp(np.asarray(gb), (a64.T @ np.ones((3, 2))).astype(np.float16), 1)
    check_jaxpr(jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(a, b))
    i8, w = data((3, 4), 3, np.int8), data((4, 2), 4)
    gw = jax.grad(lambda w: S(lax.dot(i8, w)))(w)
    # sums of 2 small integers times 1.0: exact on every CPU
    np.testing.assert_array_equal(np.asarray(gw), i8.T.astype(F32) @ np.ones((3, 2), F32))


def test_max_ties_split_the_gradient_and_argmax_has_none():
    x = np.array([[1., 3., 3.], [2., 0., 2.]], F32)
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: S(lax.reduce_max(x, (1,))))(x)),
                               [[0, .5, .5], [.5, 0, .5]])
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: lax.reduce_min(x, (0, 1)))(x)),
                               [[0, 0, 0], [0, 1, 0]])
    # argmax's integer result carries no tangent: only the reduce_max path contributes
    f = lambda x: S(lax.mul(lax.reduce_max(x, (1,)),
                            lax.convert_element_type(lax.argmax(x, 1, np.int32), F32)))
    np.testing.assert_allclose(np.asarray(jax.grad(f)(x)), [[0, .5, .5], [0, 0, 0]])
    _, t = jax.jvp(lambda x: lax.argmax(x, 1, np.int32), (x,), (np.ones_like(x),))
    assert not np.any(np.asarray(t))


def test_cumsum_transpose_is_reverse_cumsum_and_prod_with_zeros():
    x = data((4,), 1)
    ct = data((4,), 2)
    _, f_vjp = jax.vjp(lambda x: lax.cumsum(x, 0), x)
    # float64 reverse cumsum rounded once; partial sums that cancel measured at sums of |ct|
    # [worst seen 0]
    ct64 = ct[::-1].astype(np.float64)
    assert_allclose_ulp(np.asarray(f_vjp(ct)[0]), np.cumsum(ct64)[::-1].astype(F32), REDUCTION,
                        scale=np.cumsum(np.abs(ct64))[::-1])
    x = np.array([2., 0., 3., 4.], F32)          # a zero: the tree jvp stays finite and exact
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: lax.reduce_prod(x, (0,)))(x)),
                               [0., 24., 0., 0.])
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: S(lax.cumprod(x, 0)))(x)),
                               [1., 2 + 6 + 24, 0., 0.])


def test_sort_multi_operand_and_top_k_tangents():
    k, v = np.array([[3., 1., 2.]], F32), np.array([[10., 20., 30.]], F32)
    (sk, sv), (tk, tv) = jax.jvp(lambda k, v: lax.sort((k, v), 1), (k, v),
                                 (np.array([[1., 2., 3.]], F32), np.array([[4., 5., 6.]], F32)))
    np.testing.assert_allclose(np.asarray(sv), [[20., 30., 10.]])
    np.testing.assert_allclose(np.asarray(tk), [[2., 3., 1.]])
    np.testing.assert_allclose(np.asarray(tv), [[5., 6., 4.]])
    # the values operand alone differentiable (keys are integers)
    g = jax.grad(lambda v: S(lax.mul(lax.sort((np.array([2, 0, 1], np.int32), v), 0)[1],
                                     np.array([1., 10., 100.], F32))))(np.ones(3, F32))
    np.testing.assert_allclose(np.asarray(g), [100., 1., 10.])
    check_grads(lambda k, v: lax.sort((k, v), 1, num_keys=1), (data((2, 5), 1), data((2, 5), 2)),
                order=2, modes=("fwd", "rev"))
    values, idx = jax.jvp(lambda x: lax.top_k(x, 2), (X,), (np.ones_like(X),))[1]
    assert idx.dtype == jax.transforms.ad_util.float0            # integer outputs: float0, as JAX


def test_grads_under_jit_and_vmap_of_grad():
    for name in ("reduce_max", "cumprod", "sort", "top_k", "reduce_generic"):
        f = lambda x: S(GRADS[name](x))
        x = data((3, 5), 5) * 0.5
        want = np.asarray(jax.grad(f)(x))
        # (jit fuses the gradient's products and sums differently from eager), at the
        # largest |value| [worst seen 1.1]
        assert_allclose_ulp(np.asarray(jax.jit(jax.grad(f))(x)), want, REDUCTION,
                            scale=_largest(want))
        if name in ("cumprod", "sort"):
            assert_allclose_ulp(np.asarray(jax.grad(jax.jit(f))(x)), want, REDUCTION,
                                scale=_largest(want))
        xs = np.stack([x, x * 2])
        # vmap's batching rules run at trace time: under jit the whole batched gradient is one
        # compile instead of one per primitive
        per = np.asarray(jax.jit(jax.vmap(jax.grad(f)))(xs))
        assert_allclose_ulp(per[0], want, REDUCTION, scale=_largest(want))
        want2 = np.asarray(jax.grad(f)(x * 2))
        assert_allclose_ulp(per[1], want2, REDUCTION, scale=_largest(want2))
        check_jaxpr(jax.make_jaxpr(jax.vmap(jax.grad(f)))(xs))


def test_grad_of_vmapped_dot():
    w, xs = data((4, 3), 1), data((5, 4), 2)
    loss = lambda w: S(lax.tanh(jax.vmap(lambda x: lax.dot(x, w))(xs)))
    x64 = xs.astype(np.float64)              # float64, rounded once to float32
    dtanh = 1 - np.tanh(x64 @ w.astype(np.float64)) ** 2
    want = (x64.T @ dtanh).astype(F32)
    # 5-term sums of tanh' that cancel: REDUCTION at the sum of |terms| [worst seen 3]
    terms = np.abs(x64).T @ dtanh
    assert_allclose_ulp(np.asarray(jax.grad(loss)(w)), want, REDUCTION, scale=terms)
    assert_allclose_ulp(np.asarray(jax.jit(jax.grad(loss))(w)), want, REDUCTION, scale=terms)


# --------------------------------------------------------------- JAX's printed jaxprs
def _same_text(ours, jax_text):
    """JAX prints some params as NumPy scalars (np.int64(0)) and wraps long lines: compare
    modulo those."""
    norm = lambda t: " ".join(re.sub(r"np\.int64\((-?\d+)\)", r"\1", t).split())
    assert norm(str(ours)) == norm(jax_text), str(ours)


X34 = np.zeros((3, 4), F32)
A234, B245 = np.zeros((2, 3, 4), F32), np.zeros((2, 4, 5), F32)
GOLDEN = {
    "grad_reduce_sum_tanh": (jax.grad(lambda x: S(lax.tanh(x))), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = tanh a
    c:f32[3,4] = sub 1.0:f32[] b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    d:f32[3,4] = broadcast_in_dim 1.0:f32[]
    e:f32[3,4] = mul d c
    f:f32[3,4] = mul e b
    g:f32[3,4] = add_any e f
  in (g,) }"""),
    "grad_reduce_max": (jax.grad(lambda x: S(lax.reduce_max(x, (1,)))), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3] = reduce_max[axes=(1,)] a
    c:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] b
    d:bool[3,4] = eq a c
    e:f32[3,4] = convert_element_type[new_dtype=float32 weak_type=False] d
    f:f32[3] = reduce_sum[axes=(1,) out_sharding=None] e
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    g:f32[3] = broadcast_in_dim 1.0:f32[]
    h:f32[3] = div g f
    i:f32[3,4] = broadcast_in_dim[broadcast_dimensions=(np.int64(0),)] h
    j:f32[3,4] = mul i e
  in (j,) }"""),
    "grad_reduce_prod": (jax.grad(lambda x: S(lax.reduce_prod(x, (1,)))), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[4,3] = reshape[dimensions=(1, 0) new_sizes=(4, 3) sharding=None] a
    c:f32[2,3] = slice[limit_indices=(2, 3) start_indices=(0, 0) strides=(1, 1)] b
    d:f32[2,3] = slice[limit_indices=(4, 3) start_indices=(2, 0) strides=(1, 1)] b
    e:f32[2,3] = mul c d
    f:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=(1, 1)] e
    g:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=(1, 1)] e
    h:f32[1,3] = mul f g
    i:f32[3] = squeeze[dimensions=(0,)] h
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] i
    j:f32[3] = broadcast_in_dim 1.0:f32[]
    k:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] j
    l:f32[1,3] = mul f k
    m:f32[1,3] = mul k g
    n:f32[2,3] = pad[padding_config=((1, np.int64(0), 0), (0, np.int64(0), 0))] l
      0.0:f32[]
    o:f32[2,3] = pad[padding_config=((0, np.int64(1), 0), (0, np.int64(0), 0))] m
      0.0:f32[]
    p:f32[2,3] = add_any n o
    q:f32[2,3] = mul c p
    r:f32[2,3] = mul p d
    s:f32[4,3] = pad[padding_config=((2, np.int64(0), 0), (0, np.int64(0), 0))] q
      0.0:f32[]
    t:f32[4,3] = pad[padding_config=((0, np.int64(2), 0), (0, np.int64(0), 0))] r
      0.0:f32[]
    u:f32[4,3] = add_any s t
    v:f32[3,4] = transpose[permutation=(1, 0)] u
  in (v,) }"""),
    "grad_cumsum_rev": (jax.grad(lambda x: S(lax.sin(lax.cumsum(x, 0, reverse=True)))), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = cumsum[axis=0 reverse=True] a
    c:f32[3,4] = sin b
    d:f32[3,4] = cos b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    e:f32[3,4] = broadcast_in_dim 1.0:f32[]
    f:f32[3,4] = mul e d
    g:f32[3,4] = cumsum[axis=0 reverse=False] f
  in (g,) }"""),
    "grad_top_k": (jax.grad(lambda x: S(lax.top_k(x, 2)[0])), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3,2] c:i32[3,2] = top_k[axis=1 k=2] a
    d:i32[3,2,1] = reshape[dimensions=None new_sizes=(3, 2, 1) sharding=None] c
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    e:f32[3,2] = broadcast_in_dim 1.0:f32[]
    f:f32[3,4] = broadcast_in_dim 0.0:f32[]
    g:f32[3,4] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; h:f32[] i:f32[]. let j:f32[] = add h i in (j,) }
    ] f d e
  in (g,) }"""),
    "jvp_sort": (lambda x, t: jax.jvp(lambda x: lax.sort(x, 0), (x,), (t,)), (X34, X34), """
{ lambda ; a:f32[3,4] b:f32[3,4]. let
    c:u32[3,4] = iota[dimension=0 dtype=uint32 shape=(3, 4) sharding=None] 
    d:f32[3,4] e:u32[3,4] = sort[dimension=0 is_stable=True num_keys=1] a c
    f:u32[3,4,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] e
    g:f32[3,4] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(np.int64(1),), start_indices_batching_dims=(np.int64(1),))
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 1)
      unique_indices=False
    ] b f
  in (d, g) }"""),
    "grad_dot_batched": (jax.grad(lambda a, b: S(lax.dot_general(a, b, BATCHED_DOT)),
                                  argnums=(0, 1)), (A234, B245), """
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[2,3,5] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
    _:f32[] = reduce_sum[axes=(0, 1, 2) out_sharding=None] c
    d:f32[2,3,5] = broadcast_in_dim 1.0:f32[]
    e:f32[2,5,4] = dot_general[dimension_numbers=(([1], [1]), ([0], [0]))] d a
    f:f32[2,4,5] = transpose[permutation=(0, 2, 1)] e
    g:f32[2,3,4] = dot_general[dimension_numbers=(([2], [2]), ([0], [0]))] d b
  in (g, f) }"""),
    "grad_dot_contract2": (jax.grad(lambda a, b: S(lax.dot_general(a, b, CONTRACT2)),
                                    argnums=(0, 1)), (A234, B245), """
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[3,5] = dot_general[dimension_numbers=(([0, 2], [0, 1]), ([], []))] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[3,5] = broadcast_in_dim 1.0:f32[]
    e:f32[5,2,4] = dot_general[dimension_numbers=(([0], [1]), ([], []))] d a
    f:f32[2,4,5] = transpose[permutation=(1, 2, 0)] e
    g:f32[3,2,4] = dot_general[dimension_numbers=(([1], [2]), ([], []))] d b
    h:f32[2,3,4] = transpose[permutation=(1, 0, 2)] g
  in (h, f) }"""),
    "vmap_dot_rhs": (jax.vmap(lambda a, b: lax.dot_general(a, b, BATCHED_DOT), in_axes=(None, 2)),
                     (A234, B245), """
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[2,3,5] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
    d:f32[5,2,3] = transpose[permutation=(2, 0, 1)] c
  in (d,) }"""),
    "vmap_dot_both": (jax.vmap(lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())))),
                      (A234, B245), """
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[2,3,5] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
  in (c,) }"""),
    "vmap_reduce_sum": (jax.vmap(lambda x: lax.reduce_sum(x, (0,)), in_axes=1), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[4] = reduce_sum[axes=(np.int64(0),) out_sharding=None] a
  in (b,) }"""),
    "vmap_argmax": (jax.vmap(lambda x: lax.argmax(x, 0, np.int32), in_axes=1), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:i32[4] = argmax[axes=(np.int64(0),) index_dtype=int32] a
  in (b,) }"""),
    "vmap_cumsum": (jax.vmap(lambda x: lax.cumsum(x, 0), in_axes=1), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = cumsum[axis=0 reverse=False] a
    c:f32[4,3] = transpose[permutation=(1, 0)] b
  in (c,) }"""),
    "vmap_sort2": (jax.vmap(lambda x, y: lax.sort((x, y), 0), in_axes=(1, None)),
                   (X34, np.zeros(3, F32)), """
{ lambda ; a:f32[3,4] b:f32[3]. let
    c:f32[3,4] = broadcast_in_dim[broadcast_dimensions=(0,)] b
    d:f32[3,4] e:f32[3,4] = sort[dimension=0 is_stable=True num_keys=1] a c
    f:f32[4,3] = transpose[permutation=(1, 0)] d
    g:f32[4,3] = transpose[permutation=(1, 0)] e
  in (f, g) }"""),
    "vmap_top_k": (jax.vmap(lambda x: lax.top_k(x, 2), in_axes=1), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[2,4] c:i32[2,4] = top_k[axis=0 k=2] a
    d:f32[4,2] = transpose[permutation=(1, 0)] b
    e:i32[4,2] = transpose[permutation=(1, 0)] c
  in (d, e) }"""),
}


@pytest.mark.parametrize("name", list(GOLDEN))
def test_jaxprs_as_jax_prints_them(name):
    f, args, text = GOLDEN[name]
    jaxpr = jax.make_jaxpr(f)(*args)
    check_jaxpr(jaxpr)
    _same_text(jaxpr, text.strip())


def test_every_primitive_of_these_families_has_its_rules():
    from jxkernel.core.primitive import batching_rules, jvp_rules, transpose_rules
    linear = [lax.reduce_sum_p, lax.cumsum_p, lax.dot_general_p]
    everything = linear + [lax.reduce_max_p, lax.reduce_min_p, lax.reduce_prod_p,
                           lax.reduce_and_p, lax.reduce_or_p, lax.reduce_xor_p, lax.argmax_p,
                           lax.argmin_p, lax.reduce_p, lax.cumprod_p, lax.cummax_p,
                           lax.cummin_p, lax.cumlogsumexp_p, lax.sort_p, lax.top_k_p]
    for p in everything:
        assert p in batching_rules and p in jvp_rules, p
    for p in linear:
        assert p in transpose_rules, p
