"""nn.dot_product_attention and nn.logmeanexp against JAX 0.10.2 (reference values in
tests/data/nn_reference.npz: masks, bias, causal, sequence lengths, local windows, GQA/MQA,
residuals, bf16/f16, gradients, vmap), against a NumPy attention, and the errors JAX raises."""
import functools
import os

import nn_cases
import numpy as np
import pytest
from compiled import jit_together
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import nn
from jxkernel.test_util import check_grads
import locations  # tests/support: the repository's folders

REF = np.load(os.path.join(locations.DATA, "nn_reference.npz"))
INPUTS = nn_cases.inputs()


def namespace():
    return dict(jax=jax, jnp=jnp, nn=nn, np=np, **INPUTS)


def _traced_case(expr):
    """(fun, args): `expr` as a function of the input arrays it names, and those arrays."""
    names = sorted(set(compile(expr, "<case>", "eval").co_names) & set(INPUTS))
    return (lambda *xs: eval(expr, dict(namespace(), **dict(zip(names, xs))))), \
        [INPUTS[n] for n in names]


@functools.cache
def _cases_jitted():
    """Every case of test_matches_jax under jit, compiled together (compiled.jit_together):
    one program instead of each case's operations compiled one by one (242 compiles). Eager
    attention keeps its own tests (test_against_numpy, test_padding_...)."""
    return jit_together(jax, {i: _traced_case(expr) for i, expr in enumerate(nn_cases.ATTN_CASES)})


@pytest.mark.parametrize("i", range(len(nn_cases.ATTN_CASES)), ids=nn_cases.ATTN_CASES)
def test_matches_jax(i):
    leaves = jax.tree_util.tree_leaves(_cases_jitted()[i])
    nn_cases.compare_with_reference(REF, f"attn{i}", leaves, nn_cases.ATTN_TOLERANCE)


def numpy_attention(q, k, v, bias=None, mask=None, causal=False, scale=None):
    """Plain multi-head attention in float64, (B T N H) layout, K == N or K dividing N."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    G = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, G, axis=2), np.repeat(v, G, axis=2)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    logits = np.einsum("btnh,bsnh->bnts", q, k) * scale
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    if causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -1e30)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", p, v)


def _numpy_cases():
    """(attention of some arrays, the arrays, numpy_attention's keyword arguments)."""
    d, attention = INPUTS, nn.dot_product_attention
    return [
        (lambda q, k, v: attention(q, k, v), (d["q"], d["kk"], d["v"]), {}),
        (lambda q, k, v, b, m: attention(q, k, v, b, mask=m, is_causal=True),
         (d["q"], d["kk"], d["v"], d["bias"], d["mask"]), dict(mask=d["mask"], causal=True)),
        (lambda q, k, v: attention(q, k, v, scale=0.3), (d["q"], d["kg"], d["vg"]),
         dict(scale=0.3)),
        (lambda q, k, v, b: attention(q, k, v, b), (d["q"], d["k1"], d["v1"], d["bias1"]), {}),
    ]


# float32 attention's dots run in TF32 on the GPU: 5e3 ulps off NumPy's (H200, run 6)
@pytest.mark.cpu_only("recorded CPU values")
def test_against_numpy():
    # the four cases under jit in one program (eagerly: 67 compiles of single operations;
    # test_padding_zeroes_queries_past_their_length runs attention eagerly)
    cases = _numpy_cases()
    jitted = jit_together(jax, {i: (f, args) for i, (f, args, _) in enumerate(cases)})
    for i, (_, args, kw) in enumerate(cases):
        got = jitted[i]
        bias = args[3] if len(args) > 3 else None
        want = numpy_attention(*args[:3], bias, **kw)
        # softmax (exp, a sum) and two contractions; an output that cancels is only as exact
        # as the values: measured at the largest |value| (worst seen 3, every CPU)
        want = want.astype(got.dtype)
        assert_allclose_ulp(got, want, REDUCTION, scale=np.abs(want).max())


def test_padding_zeroes_queries_past_their_length():
    d = INPUTS
    out = np.asarray(nn.dot_product_attention(d["q"], d["kk"], d["v"],
                                              query_seq_lengths=d["qs"]))
    assert not out[0, 3:].any() and out[0, :3].any() and out[1].all()
    # keys past the kv length get no weight: the output ignores their values
    v2 = d["v"].copy()
    v2[1, 2:] = 100.0
    a = nn.dot_product_attention(d["q"], d["kk"], d["v"], key_value_seq_lengths=d["kvs"])
    b = nn.dot_product_attention(d["q"], d["kk"], v2, key_value_seq_lengths=d["kvs"])
    np.testing.assert_array_equal(a, b)


def test_gradients_by_finite_differences():
    rng = np.random.default_rng(1)
    q, k, v, bias = (rng.standard_normal(s).astype(np.float32)
                     for s in [(1, 3, 2, 4), (1, 4, 1, 4), (1, 4, 1, 4), (1, 2, 3, 4)])
    # the softmax runs in float32 whatever the input dtype (as JAX's), so check in float32
    f = jax.jit(lambda q, k, v, b: nn.dot_product_attention(q, k, v, b, is_causal=True))
    check_grads(f, (q, k, v, bias), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("kwargs, match", [
    (dict(value=np.ones((2, 6, 4, 7), np.float32)), "value shape should be"),
    (dict(key=np.ones((2, 6, 3, 8), np.float32), value=np.ones((2, 6, 3, 8), np.float32)),
     "multiple of key/value heads"),
    (dict(query=np.ones((2, 5, 4, 8), np.float16)), "query dtype should be float32"),
    (dict(mask=np.ones((2, 1, 5, 6), np.float32)), "mask dtype should be bool"),
    (dict(query_seq_lengths=np.array([1, 2, 3], np.int32)), "query_seq_lengths shape"),
    (dict(key_value_seq_lengths=np.array([1., 2.])), "key_value_seq_lengths dtype should be int32"),
    (dict(implementation="tpu"), "Unsupported implementation"),
])
def test_errors(kwargs, match):
    d = INPUTS
    args = dict(query=d["q"], key=d["kk"], value=d["v"])
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        nn.dot_product_attention(**args)


def test_logmeanexp_against_numpy_and_tanh():
    x = INPUTS["x"].astype(np.float64)
    assert_allclose_ulp(nn.logmeanexp(INPUTS["x"], axis=0),
                        np.log(np.mean(np.exp(x), axis=0)).astype(np.float32), REDUCTION)  # worst 4, every CPU
    assert_allclose_ulp(nn.tanh(INPUTS["x"]), np.tanh(x).astype(np.float32), ELEMENTWISE)
    assert nn.tanh is jnp.tanh and "logmeanexp" in nn.__all__
