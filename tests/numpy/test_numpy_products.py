"""jnp products against NumPy (shapes, broadcasting, 1-D rules, dtypes), einsum over many
subscript forms, errors as JAX words them, golden jaxprs from JAX 0.10.2."""


import ml_dtypes
import numpy as np
import pytest
from numerics import REDUCTION, assert_allclose_ulp
from structure_check import JAXPRS, VALUES, check_printed_jaxpr, check_value, names

import jxkernel
import jxkernel.numpy as jnp
from rule_checks import same_text

rng = np.random.default_rng(0)


def f(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _wide(x):
    """A float (complex) NumPy array in float64 (complex128); anything else as it is."""
    if isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind == "c":
        return x.astype(np.complex128)
    if isinstance(x, (np.ndarray, np.generic)) and (x.dtype.kind == "f"
                                                     or x.dtype == ml_dtypes.bfloat16):
        return x.astype(np.float64)
    return x


class _WideNumPy:
    """NumPy's functions on float64 copies of their float arguments: the references, rounded
    once to the result's dtype by assert_close, are then the correctly rounded values."""

    def __getattr__(self, name):
        return lambda *args, **kw: getattr(np, name)(*map(_wide, args), **kw)


wnp = _WideNumPy()


def assert_close(got, want, dtype=np.float32, ulps=REDUCTION, scale=None):
    """dtype and shape exactly, integers exactly; floats within `ulps` of the reference rounded
    once to `dtype`, measured at the result's largest |value| (a dot product's rounding follows
    the CPU's vector width and FMA, and an entry that cancels is only as exact as the terms');
    `scale` overrides that magnitude (a scalar that cancels: its terms'). Worst seen 7 (dot,
    AVX-512), 2 elsewhere; a 6-term vdot that cancels 13 at its own size (AVX)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
        return
    want = want.astype(got.dtype)
    scale = np.abs(want.astype(np.complex128)).max(initial=0) if scale is None else scale
    assert_allclose_ulp(got, want, ulps, scale=scale, gpu="tf32")


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (1, 4, 2)),
                 ((6, 2, 3), (6, 3, 2)), ((3,), (6, 3, 2)), ((6, 2, 3), (3,))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=str)
def test_matmul(sa, sb):
    a, b = f(*sa), f(*sb)
    assert_close(jnp.matmul(a, b), wnp.matmul(a, b))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (4, 3, 5)),
                                   ((), (3,)), ((2, 3), ())], ids=str)
def test_dot(sa, sb):
    a, b = f(*sa), f(*sb)
    assert_close(jnp.dot(a, b), wnp.dot(a, b))


def test_dtypes_and_preferred_element_type():
    i8a, i8b = (rng.integers(-3, 3, s).astype(np.int8) for s in ((2, 3), (3, 4)))
    assert_close(jnp.dot(i8a, i8b), wnp.dot(i8a, i8b), np.int8)
    assert_close(jnp.matmul(i8a, i8b, preferred_element_type=np.int32),
                 wnp.dot(i8a.astype(np.int32), i8b), np.int32)
    b4 = f(3, 4)
    assert_close(jnp.dot(i8a, b4), wnp.dot(i8a.astype(np.float32), b4))          # i8 x f32
    bf = f(2, 3).astype(ml_dtypes.bfloat16)
    assert_close(jnp.dot(bf, b4), wnp.dot(bf, b4))                         # bf16 x f32
    assert_close(jnp.dot(bf, bf.T), wnp.dot(bf, bf.T), ml_dtypes.bfloat16)
    c = (f(2, 3) + 1j * f(2, 3)).astype(np.complex64)
    assert_close(jnp.matmul(c, b4), wnp.matmul(c, b4), np.complex64)
    assert_close(jnp.vdot(c, c), wnp.vdot(c, c), np.complex64)
    w = jnp.dot(jxkernel.device_put(2.0), jxkernel.device_put(3.0))
    assert w.weak_type and float(w) == 6.0                  # weak in, weak out
    assert not jnp.dot(b4, 2.0).weak_type
    assert_close(jnp.einsum("i,i", np.ones(3, np.int8), np.ones(3, np.int8)), 3, np.int8)
    assert_close(jnp.einsum("ij,j->i", i8a, np.ones(3, np.int8),
                            preferred_element_type=np.int32), i8a.sum(1), np.int32)


def test_contractions():
    a, b = f(2, 3, 4), f(3, 4, 5)
    assert_close(jnp.tensordot(a, b), wnp.tensordot(a, b))
    c = f(4, 2)
    assert_close(jnp.tensordot(a, c, 1), wnp.tensordot(a, c, 1))
    assert_close(jnp.tensordot(a, b, ((1, 2), (0, 1))), wnp.tensordot(a, b, ((1, 2), (0, 1))))
    assert_close(jnp.tensordot(a, b, (1, 0)), wnp.tensordot(a, b, (1, 0)))
    assert_close(jnp.tensordot(a, b, [[-1], [1]]), wnp.tensordot(a, b, [[-1], [1]]))
    x, y = f(2, 3), f(4, 3)
    assert_close(jnp.inner(x, y), wnp.inner(x, y))
    assert_close(jnp.inner(x, np.float32(2)), wnp.inner(x, np.float32(2)))
    assert_close(jnp.outer(x, y), wnp.outer(x, y))
    # bools multiply as logical and, as JAX's jnp.multiply (the differential fuzzer's finding)
    b = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(jnp.outer(b, b[1]), np.outer(b, b[1]))
    assert jnp.outer(b, b).dtype == np.bool_ and bool(jnp.inner(True, np.bool_(True)))
    assert_close(jnp.vdot(x, y[:2]), wnp.vdot(x, y[:2]),
                 scale=np.abs(_wide(x)).ravel() @ np.abs(_wide(y[:2])).ravel())   # cancels
    k = f(2, 2)
    assert_close(jnp.kron(x, k), wnp.kron(x, k))
    assert_close(jnp.kron(x[0], k), wnp.kron(x[0], k))
    u, v = f(4, 3), f(4, 3)
    u64, v64 = _wide(u), _wide(v)
    assert_close(jnp.cross(u, v), wnp.cross(u, v))
    assert_close(jnp.cross(u.T, v.T, axisa=0, axisb=0, axisc=0), wnp.cross(u.T, v.T, 0, 0, 0))
    assert_close(jnp.cross(u[:, :2], v), wnp.cross(np.pad(u[:, :2], ((0, 0), (0, 1))), v))
    assert_close(jnp.cross(u[:, :2], v[:, :2]), u64[:, 0] * v64[:, 1] - u64[:, 1] * v64[:, 0])
    assert_close(jnp.matrix_transpose(a), np.swapaxes(a, -1, -2))
    m, vec = f(5, 2, 3), f(5, 3)
    assert_close(jnp.matvec(m, vec), wnp.einsum("bij,bj->bi", m, vec))
    assert_close(jnp.vecmat(vec[:, :2], m), wnp.einsum("bi,bij->bj", vec[:, :2], m))
    assert_close(jnp.vecdot(u, v), np.sum(u64 * v64, -1))
    assert_close(jnp.vecdot(u.T, v[0], axis=0), u64 @ v64[0])


A, B, C, D = f(2, 3), f(3, 4), f(4, 5), f(5, 2)
EINSUMS = [
    ("ij,jk->ik", (A, B)), ("ij,jk", (A, B)), ("ij,jk,kl->il", (A, B, C)),
    ("ij,jk,kl,lm->im", (A, B, C, D)), ("ii->i", (f(3, 3),)), ("ii", (f(3, 3),)),
    ("ij->", (A,)), ("ij->ji", (A,)), ("bij,bjk->bik", (f(5, 2, 3), f(5, 3, 4))),
    ("...ij,...jk->...ik", (f(5, 2, 3), f(3, 4))), ("i,i->", (f(3), f(3))),
    ("i,j->ij", (f(3), f(4))), ("iij,jk->ik", (f(3, 3, 4), f(4, 2))), ("ij,ij->i", (A, A)),
    ("i...->...", (f(3, 4, 5),)), ("ab,bc,cd,de,ef->af", (A, B, C, f(5, 6), f(6, 2))),
    ("ijk,ikl->jl", (f(2, 3, 4), f(2, 4, 5))), ("ij,kj->ik", (A, f(4, 3))),
    ("...i,...i->...", (f(1, 3), f(4, 3))), ("iji->j", (f(2, 3, 2),)), ("ijk->kji", (f(2, 3, 4),)),
    ("ij,j", (A, f(3))), ("ba,ba->b", (A, A)), ("i,i,i->", (f(3), f(3), f(3))),
]


@pytest.mark.parametrize("spec,ops", EINSUMS, ids=[e[0] for e in EINSUMS])
def test_einsum(spec, ops):
    assert_close(jnp.einsum(spec, *ops), wnp.einsum(spec, *ops))


def test_einsum_forms_and_jit():
    assert_close(jnp.einsum(A, [0, 1], B, [1, 2], [0, 2]), wnp.einsum(A, [0, 1], B, [1, 2], [0, 2]))
    t = f(2, 3, 4)
    assert_close(jnp.einsum(t, [Ellipsis, 1], [Ellipsis]), wnp.einsum(t, [Ellipsis, 1], [Ellipsis]))
    assert_close(jnp.einsum("ij,jk,kl->il", A, B, C, optimize=False),
                 wnp.einsum("ij,jk,kl->il", A, B, C))
    path, info = jnp.einsum_path("ij,jk,kl->il", A, B, C)     # opt_einsum's, as in JAX
    assert path == [(0, 1), (0, 1)] and "Complete contraction:  ij,jk,kl->il" in str(info)
    big = np.ones((3, 100), np.float32)
    assert jnp.einsum_path("ij,jk,kl", A, big, np.ones((100, 5)), optimize="optimal")[0] == \
        [(1, 2), (0, 1)]
    assert jnp.einsum_path("ij,jk,kl", A, big, np.ones((100, 5)), optimize=False)[0] == \
        [(0, 1), (0, 1)]
    assert_close(jnp.einsum("ij,jk,kl->il", A, B, C, optimize=[(1, 2), (0, 1)]),
                 wnp.einsum("ij,jk,kl->il", A, B, C))
    fn = jxkernel.jit(lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c))
    assert_close(fn(A, B, C), wnp.einsum("ij,jk,kl->il", A, B, C))
    m = f(5, 2, 3)
    assert_close(jxkernel.jit(jnp.matmul)(m, B), wnp.matmul(m, B))


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda: jnp.matmul(np.float32(1), np.ones(2, np.float32)), ValueError,
     "matmul input operand 0 must have ndim at least 1, but it has ndim 0"),
    (lambda: jnp.matmul(np.ones((2, 2, 3), np.float32), np.ones((3, 3, 2), np.float32)),
     ValueError, r"Incompatible types for matmul arguments: float32\[2,2,3\] and "
                 r"float32\[3,3,2\]"),
    (lambda: jnp.matmul(np.ones((2, 3)), np.ones((4, 2))), TypeError,
     r"dot_general requires contracting dimensions to have the same shape, got \(3,\) and "
     r"\(4,\)"),
    (lambda: jnp.tensordot(np.ones(3), np.ones(3), 2), TypeError,
     r"Number of tensordot axes \(axes 2\) exceeds input ranks \(\(3,\) and \(3,\)\)"),
    (lambda: jnp.tensordot(np.ones(3), np.ones(3), ((0,), (0, 0))), TypeError,
     "tensordot requires axes lists to have equal length"),
    (lambda: jnp.tensordot(np.ones(3), np.ones(3), "x"), TypeError,
     "tensordot axes argument must be an int"),
    (lambda: jnp.einsum("ij,jk", np.ones((2, 3)), np.ones((4, 2))), ValueError,
     r"Size of label 'j' for operand 1 \(3\) does not match previous terms \(4\)."),
    (lambda: jnp.einsum("ij", np.ones((2, 3)), np.ones(2)), ValueError,
     "Number of einsum subscripts, 1, must be equal to the number of operands, 2."),
    (lambda: jnp.cross(np.ones(4), np.ones(4)), ValueError,
     "Dimension must be either 2 or 3 for cross product"),
    (lambda: jnp.dot([1, 2], [3, 4]), TypeError, "dot requires ndarray or scalar arguments"),
])
def test_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


GOLDEN = {  # printed by JAX 0.10.2
    "dot": (jnp.dot, [(2, 3), (3, 4)], """{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""),
    "matmul_batch": (jnp.matmul, [(5, 2, 3), (3, 4)], """{ lambda ; a:f32[5,2,3] b:f32[3,4]. let
    c:f32[5,2,4] = dot_general[
      dimension_numbers=(([2], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""),
    "matmul_vec": (jnp.matmul, [(3,), (3, 4)], """{ lambda ; a:f32[3] b:f32[3,4]. let
    c:f32[4] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""),
    "einsum_ii": (lambda a: jnp.einsum("ii->i", a), [(3, 3)], """{ lambda ; a:f32[3,3]. let
    b:u32[3,3] = iota[dimension=0 dtype=uint32 shape=(3, 3) sharding=None] 
    c:u32[3,3] = iota[dimension=1 dtype=uint32 shape=(3, 3) sharding=None] 
    d:bool[3,3] = eq b c
    e:f32[3,3] = broadcast_in_dim 0.0:f32[]
    f:f32[3,3] = select_n d e a
    g:f32[3] = reduce_sum[axes=(0,) out_sharding=None] f
  in (g,) }"""),
    "einsum_matmul": (lambda a, b: jnp.einsum("ij,jk->ik", a, b), [(2, 3), (3, 4)],
                      """{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""),
    "outer": (jnp.outer, [(3,), (3,)], """{ lambda ; a:f32[3] b:f32[3]. let
    c:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a
    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    e:f32[3,3] = mul c d
  in (e,) }"""),
    "vdot": (jnp.vdot, [(3,), (3,)], """{ lambda ; a:f32[3] b:f32[3]. let
    c:f32[] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }"""),
}


@pytest.mark.parametrize("name", names("einsum", JAXPRS))
def test_einsum_jaxprs_match_jax(name):
    """Contraction order (opt_einsum's), dot_general operand order and dimension numbers,
    transposes, diagonals: as JAX 0.10.2 prints them (tests/data/structure_reference.json)."""
    check_printed_jaxpr(name)


@pytest.mark.parametrize("name", names("einsum", VALUES))
def test_einsum_values_match_jax(name):
    # (the cases' jit programs compile together: structure_check._jitted)
    check_value(name, together=tuple(names("einsum", VALUES)))


def test_einsum_eager_plan_is_cached():
    # the opt_einsum path search runs once per (subscripts, shapes, optimize)
    from jxkernel.numpy import products
    products._cached_contractions.cache_clear()
    for _ in range(3):
        jnp.einsum("ij,jk,kl->il", A, B, C)
    info = products._cached_contractions.cache_info()
    assert (info.misses, info.hits) == (1, 2)


@pytest.mark.parametrize("name", list(GOLDEN))
def test_golden_jaxprs(name):
    fn, shapes, want = GOLDEN[name]
    got = str(jxkernel.make_jaxpr(fn)(*(np.ones(s, np.float32) for s in shapes)))
    same_text(got, want)
