"""Collectives under vmap (this process, one device) and pmap (a 4-device process: the
tests marked `four_devices` run there through test_pmap_in_a_four_device_process).

Then ppermute, pshuffle, all_to_all, pswapaxes, psum_scatter, axis_size, all_gather's transpose
and axis_index_groups: values against JAX 0.10.2 (tests/data/collectives_more_*, made by
reference/make_collectives_more_reference.py) under vmap in this process and under pmap in a
4-device process (RECORDED_PMAP_TESTS, run there by
test_recorded_pmap_cases_in_a_four_device_process), the printed jaxprs, gradients and errors."""
import os

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from collectives_more_cases import JAXPRS, ULPS, cases, operands, pmap_only
from fresh_process import assert_pytest_passes
from grads_together import check_grads_together
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp
import locations  # tests/support: the repository's folders

DATA = locations.DATA
four_devices = pytest.mark.skipif(jax.device_count() < 4, reason="needs JXKERNEL_CPU_DEVICES=4")


def arr(x, dtype=np.float32):
    return jax.device_put(np.asarray(x, dtype))


XS = np.arange(8.0, dtype=np.float32).reshape(4, 2)


def test_collectives_under_vmap():
    xs = arr(XS)
    np.testing.assert_allclose(np.asarray(jax.vmap(lambda x: lax.psum(x, "i"), axis_name="i")(xs)),
                               np.broadcast_to(XS.sum(0), XS.shape))
    np.testing.assert_allclose(np.asarray(jax.vmap(lambda x: lax.sub(x, lax.pmean(x, "i")),
                                                   axis_name="i")(xs)), XS - XS.mean(0))
    np.testing.assert_allclose(np.asarray(jax.vmap(lambda x: lax.pmax(x, "i"), axis_name="i")(xs)),
                               np.broadcast_to(XS.max(0), XS.shape))
    np.testing.assert_allclose(np.asarray(jax.vmap(lambda x: lax.pmin(x, "i"), axis_name="i")(xs)),
                               np.broadcast_to(XS.min(0), XS.shape))
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda x: lax.axis_index("i"), axis_name="i")(xs)),
                                  [0, 1, 2, 3])
    gathered = jax.vmap(lambda x: lax.all_gather(x, "i"), axis_name="i")(xs)
    np.testing.assert_allclose(np.asarray(gathered), np.broadcast_to(XS, (4, 4, 2)))
    tiled = jax.vmap(lambda x: lax.all_gather(x, "i", tiled=True), axis_name="i")(xs)
    assert tiled.shape == (4, 8)
    np.testing.assert_allclose(np.asarray(tiled)[0], XS.reshape(-1))


def test_collectives_nested_and_under_jit_and_grad():
    xs = arr(XS)
    inner_outer = jax.vmap(jax.vmap(lambda x: lax.psum(x, "i"), axis_name="j"), axis_name="i")(xs)
    np.testing.assert_allclose(np.asarray(inner_outer), np.broadcast_to(XS.sum(0), XS.shape))
    both = jax.vmap(jax.vmap(lambda x: lax.psum(x, ("i", "j")), axis_name="j"), axis_name="i")(xs)
    np.testing.assert_allclose(np.asarray(both), np.full(XS.shape, XS.sum()))
    np.testing.assert_allclose(np.asarray(jax.jit(jax.vmap(lambda x: lax.psum(x, "i"), axis_name="i"))(xs)),
                               np.broadcast_to(XS.sum(0), XS.shape))
    grads = jax.vmap(jax.grad(lambda x: lax.psum(lax.mul(x, x), "i")), axis_name="i")(arr([0.0, 1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(grads), [0.0, 6.0, 12.0])      # as JAX 0.10.2 gives


def test_pmean_of_integers_is_a_float_mean():
    # JAX's pmean divides with `/`: the mean of int32 0..3 is 1.5 (float32), not the integer
    # quotient 1 (pmean's docstring example in JAX 0.10.2, run under vmap here)
    out = jax.vmap(lambda x: lax.pmean(x, "i"), axis_name="i")(jnp.arange(4))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), np.full(4, 1.5, np.float32))
    floats = jax.vmap(lambda x: lax.pmean(x, "i"), axis_name="i")(arr([1, 2, 3, 5], np.float16))
    assert floats.dtype == np.float16
    # bfloat16 stays bfloat16, as in JAX (NumPy's issubdtype takes it for no inexact type)
    bf16 = jax.vmap(lambda x: lax.pmean(x, "i"), axis_name="i")(
        jnp.asarray([1, 2, 3, 5], jnp.bfloat16))
    assert bf16.dtype == jnp.bfloat16
    assert np.asarray(bf16, np.float32).tolist() == [2.75] * 4      # 11 / 4, exact in bfloat16


def test_unbound_axis_names():
    with pytest.raises(NameError, match="unbound axis name: q"):
        lax.psum(1.0, "q")
    with pytest.raises(NameError, match="unbound axis name: q"):
        jax.vmap(lambda x: lax.psum(x, "q"), axis_name="i")(arr(XS))


@four_devices
def test_pmap_collectives():
    out = jax.pmap(lambda x: lax.div(x, lax.psum(x, "i")), axis_name="i")(arr([1.0, 2.0, 3.0, 4.0]))
    # x / 10 with an exact sum: IEEE division, correctly rounded [worst seen 0, all four CPUs]
    assert_allclose_ulp(np.asarray(out), np.float32([0.1, 0.2, 0.3, 0.4]), 1)
    assert len(out.devices()) == 4
    idx = jax.pmap(lambda x: lax.add(x, lax.convert_element_type(lax.axis_index("i"), np.float32)),
                   axis_name="i")(arr(XS))
    np.testing.assert_allclose(np.asarray(idx), XS + np.arange(4)[:, None])
    gathered = jax.pmap(lambda x: lax.all_gather(x, "i"), axis_name="i")(arr(np.arange(4.0)))
    np.testing.assert_allclose(np.asarray(gathered), np.tile(np.arange(4.0), (4, 1)))
    mx = jax.pmap(lambda x: lax.pmax(x, "i"), axis_name="i")(arr(XS))
    np.testing.assert_allclose(np.asarray(mx), np.broadcast_to(XS.max(0), XS.shape))


@four_devices
def test_pmap_under_grad_and_vmap_and_errors():
    x = arr(np.arange(4.0))
    g = jax.grad(lambda v: lax.reduce_sum(jax.pmap(lambda a: lax.mul(lax.sin(a), 2.0), axis_name="i")(v),
                                          (0,)))(x)
    # XLA's cos per CPU against float64, rounded once [worst seen 0, all four CPUs]
    assert_allclose_ulp(np.asarray(g), (2 * np.cos(np.arange(4.0))).astype(np.float32), ELEMENTWISE)
    out = jax.vmap(jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i"))(arr(np.arange(8.0).reshape(2, 4)))
    np.testing.assert_allclose(np.asarray(out), [[6.0] * 4, [22.0] * 4])
    unmapped = jax.pmap(lambda a, b: lax.mul(a, b), in_axes=(0, None))(arr(np.arange(4.0)), arr(3.0))
    np.testing.assert_allclose(np.asarray(unmapped), 3 * np.arange(4.0))
    # JAX's error where the devices divide the axis (its body's squeeze), then the fix
    with pytest.raises(ValueError, match=r"cannot select an axis to squeeze out which has size "
                                         r"not equal to one, got shape=\(\d+,\) and "
                                         r"dimensions=\(0,\)\npmap's mapped axis has size 8"):
        jax.pmap(lambda a: a)(arr(np.arange(8.0)))


@four_devices
def test_a_pmap_called_again_neither_traces_nor_compiles_again(monkeypatch):
    # pmap is a jit of a shard_map (JAX 0.10.2): a call with the arguments' types of an
    # earlier one binds nothing (jit's cache, issue 38); an Array closed over or passed with
    # in_axes=None is copied to the devices each call, as JAX's jit does; the values are
    # always this call's, and new types, keywords or a transformation trace anew
    from jxkernel.core import Primitive
    from jxkernel.xla.client import xc
    c = arr([1.0, 4.0])
    scaled = jax.pmap(lambda x: x * c)
    shifted = jax.pmap(lambda x, w: x + w, in_axes=(0, None))
    f = jax.pmap(lambda a, b: {"sum": a["x"] + b, "twice": 2 * b}, axis_name="i")
    x = jax.pmap(lambda a: a)(arr(XS))                # already on the devices
    data, b = {"x": arr(XS)}, XS.copy()
    scaled(x), shifted(x, c), f(data, b)
    moved, bind, put = [], Primitive.bind, xc.batched_device_put
    monkeypatch.setattr(Primitive, "bind", lambda p, *a, **k: moved.append(p.name) or bind(p, *a, **k))
    monkeypatch.setattr(xc, "batched_device_put", lambda *a: moved.append("put") or put(*a))
    b[0] = 100.0                                       # NumPy data: this call's values
    again = (scaled(x), shifted(x, c), f(data, b))
    monkeypatch.undo()
    assert "put" in moved and set(moved) == {"put"}   # copies of c, b and data: no trace
    np.testing.assert_array_equal(np.asarray(again[0]), XS * [1.0, 4.0])
    np.testing.assert_array_equal(np.asarray(again[1]), XS + [1.0, 4.0])
    np.testing.assert_array_equal(np.asarray(again[2]["sum"]), XS + b)
    as_ints = f({"x": arr(XS, np.int32)}, b.astype(np.int32))
    assert as_ints["sum"].dtype == np.int32
    batched = jax.vmap(lambda c: f(data, c)["twice"])(np.stack([b, -b]))
    np.testing.assert_array_equal(np.asarray(batched), [2 * b, -2 * b])
    by_name = f(data, b=b)
    assert np.asarray(by_name["twice"]).tolist() == (2 * b).tolist()


@four_devices
def test_default_device_moves_computation():
    x = arr([1.0, 2.0])
    f = jax.jit(lambda a: lax.mul(a, 2.0))
    assert f(x).devices() == {jax.devices()[0]}
    with jax.config.override("jax_default_device", "cpu:2"):
        assert f(x).devices() == {jax.devices()[2]}
        assert lax.add(x, 1.0).devices() == {jax.devices()[2]}
        np.testing.assert_allclose(np.asarray(f(x)), [2.0, 4.0])
    with jax.config.override("jax_default_device", jax.devices()[3]):
        assert lax.sin(x).devices() == {jax.devices()[3]}
    assert f(x).devices() == {jax.devices()[0]}


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
def test_pmap_in_a_four_device_process():
    # the tests above; the recorded cases below run in a process of their own
    # (test_recorded_pmap_cases_in_a_four_device_process), their vmap tests in this one
    assert_pytest_passes(["-k", "not in_a_four_device_process and not ("
                          + " or ".join(RECORDED_PMAP_TESTS + RECORDED_VMAP_TESTS) + ")",
                          "tests/lax/test_collectives.py"], {"JXKERNEL_CPU_DEVICES": "4"})


def test_pmap_over_the_one_device_of_this_process():
    # a leading axis of 1: the body runs on that one device, the axis comes back (as JAX)
    out, total = jax.pmap(lambda x, y: (x * 2 + y, lax.psum(x, "i")), axis_name="i",
                          in_axes=(0, None))(arr([[1.0, 2.0, 3.0]]), 1.0)
    np.testing.assert_array_equal(np.asarray(out), [[3.0, 5.0, 7.0]])
    np.testing.assert_array_equal(np.asarray(total), [[1.0, 2.0, 3.0]])
    grads = jax.grad(lambda x: jax.pmap(lambda v: v * v)(x).sum())(arr([[1.0, 2.0]]))
    np.testing.assert_array_equal(np.asarray(grads), [[2.0, 4.0]])
    n = jax.device_count() + 1
    # JAX's error (IndivisibleError where the devices do not divide the axis), then the fix
    with pytest.raises(ValueError, match=f"(requires {n} logical devices|mapped axis has size "
                                         f"{n}).* Set JXKERNEL_CPU_DEVICES={n}"):
        jax.pmap(lambda x: x)(arr(np.ones((n, 1))))


def test_pmap_maps_keyword_arguments_over_their_leading_axis():
    # as JAX's pmap: keywords are mapped over axis 0 (Chex's fake_pmap tests call foo(x=, y=))
    n = jax.device_count()
    foo = jax.pmap(lambda x, y=2.0: x * 2 + y)
    x = np.ones((n, 3), np.float32)
    assert np.asarray(foo(x=x)).tolist() == [[4.0] * 3] * n
    assert np.asarray(foo(x, y=x)).tolist() == [[3.0] * 3] * n


def test_pmap_of_a_scalar_mapped_argument_is_a_value_error():
    # JAX 0.10.2's error: its jit's, for a sharding over the mapped axis of a scalar
    with pytest.raises(ValueError, match="flat_args\\[1\\] is incompatible with its sharding "
                                         ".* valid for values of rank at least 1, but was "
                                         "applied to a value of rank 0"):
        jax.pmap(lambda x, y: x * y)(np.ones((jax.device_count(), 2), np.float32), 3.0)


def test_pmap_lowers_and_compiles_ahead_of_time():
    # Equinox's filter_pmap(...).lower(...): pmap's stages are jax.stages' Lowered and Compiled
    from jxkernel import stages
    n = jax.device_count()
    f = jax.pmap(lambda x, y: x * 2 + y, in_axes=(0, None))
    x = np.arange(n, dtype=np.float32)
    lowered = f.lower(x, 1.0)
    assert isinstance(lowered, stages.Lowered)
    compiled = lowered.compile()
    assert isinstance(compiled, stages.Compiled)
    np.testing.assert_array_equal(np.asarray(compiled(x, 1.0)), x * 2 + 1)
    # pmap(f).lower is its jit's lowering (JAX 0.10.2): jit's error for other types
    with pytest.raises(TypeError, match="Argument types differ from the types for which this "
                                        "computation was compiled"):
        compiled(np.ones((n, 2), np.float32), 1.0)


@pytest.mark.xla_only("XLA text")
def test_pmap_lowered_text_is_stablehlo():
    f = jax.pmap(lambda x, y: x * 2 + y, in_axes=(0, None))
    lowered = f.lower(np.arange(jax.device_count(), dtype=np.float32), 1.0)
    assert "stablehlo.multiply" in lowered.as_text()


# ================================================================ recorded from JAX 0.10.2
# the tests of this part that the 4-device process runs, and those it leaves to this one
RECORDED_PMAP_TESTS = ('test_pmap_matches_jax', 'test_pmap_under_jit_grad_and_vmap')
RECORDED_VMAP_TESTS = ('test_vmap_matches_jax',
                       'test_partial_ppermute_under_vmap_gives_pmaps_answer',
                       'test_jaxpr_prints_as_jax',
                       'test_gradients_numerically',
                       'test_transposes_are_each_other',
                       'test_other_axis_passes_through_and_jit',
                       'test_axis_size',
                       'test_a_jitted_function_is_traced_again_for_other_axis_sizes',
                       'test_errors')
REF = np.load(os.path.join(DATA, "collectives_more_reference.npz"))
REF_JAXPRS = locations.recorded("collectives_more_jaxprs.json")
OPS = operands()
CASES = cases(jax, jnp, lax)
PMAP_ONLY = pmap_only(jax, jnp, lax)


def vmap_i(f):
    return jax.vmap(f, axis_name="i")


def pmap_i(f):
    return jax.pmap(f, axis_name="i")


def check_against_reference(out, key):
    """Bit for bit, or within the case's ULPS (measured at the largest |value|)."""
    want = REF[key]
    ulps = ULPS.get(key.split("/")[1], 0)
    assert_allclose_ulp(np.asarray(out), want, ulps,
                        scale=np.abs(want).max(initial=0) if ulps else None, err_msg=key)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_jax(name):
    fun, key = CASES[name]
    check_against_reference(vmap_i(fun)(OPS[key]), f"vmap/{name}")


def test_partial_ppermute_under_vmap_gives_pmaps_answer():
    fun, key = PMAP_ONLY["ppermute_partial"]
    np.testing.assert_array_equal(np.asarray(vmap_i(fun)(OPS[key])), REF["pmap/ppermute_partial"])
    unbatched = jax.vmap(lambda x: lax.ppermute(jnp.float32(3.0), "i", [(0, 1)]), axis_name="i")
    np.testing.assert_array_equal(np.asarray(unbatched(OPS["x42"])), [0, 3, 0, 0])
    full = jax.vmap(lambda x: lax.ppermute(jnp.float32(3.0), "i", [(0, 1), (1, 0)]),
                    axis_name="i")(OPS["x42"][:2])
    np.testing.assert_array_equal(np.asarray(full), [3, 3])


@four_devices
@pytest.mark.parametrize("name", sorted(CASES) + sorted(PMAP_ONLY))
def test_pmap_matches_jax(name):
    fun, key = {**CASES, **PMAP_ONLY}[name]
    out = pmap_i(fun)(OPS[key])
    assert len(out.devices()) == 4
    check_against_reference(out, f"pmap/{name}")


@four_devices
def test_pmap_under_jit_grad_and_vmap():
    x = OPS["x443"]
    f = pmap_i(lambda a: lax.all_to_all(a, "i", 0, 1))
    g = jax.grad(lambda v: jnp.sum(jnp.sin(f(v)) * jnp.arange(48.0).reshape(4, 3, 4)))(x)
    g_vmap = jax.grad(lambda v: jnp.sum(jnp.sin(vmap_i(lambda a: lax.all_to_all(a, "i", 0, 1))(v))
                                        * jnp.arange(48.0).reshape(4, 3, 4)))(x)
    assert_allclose_ulp(np.asarray(g), np.asarray(g_vmap), ELEMENTWISE)  # cos * arange; worst 0
    inner = jax.vmap(pmap_i(lambda a: lax.ppermute(a, "i", [(0, 1), (1, 2), (2, 3), (3, 0)])))
    stacked = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(np.asarray(inner(stacked)), np.roll(stacked, 1, axis=1))
    sizes = pmap_i(lambda a: a * lax.axis_size("i") + lax.psum(1, "i"))(np.zeros(4, np.float32))
    np.testing.assert_array_equal(np.asarray(sizes), [4.0] * 4)


def _inner_jaxpr_text(fun, x):
    """The per-member jaxpr of `fun` with the axis bound, as JAX's was recorded (pmap's own
    jaxpr is now a jit of a shard_map: tests/api/test_pmap.py checks it). jxkernel's
    make_jaxpr does not take axis_env yet: the axis is bound around it."""
    from jxkernel.core.axis_env import bound_axis
    with bound_axis("i", 4):
        return str(jax.make_jaxpr(fun)(x[0]))


@pytest.mark.parametrize("name", JAXPRS)
def test_jaxpr_prints_as_jax(name):
    fun, key = {**CASES, **PMAP_ONLY}[name]
    assert _inner_jaxpr_text(fun, OPS[key]) == REF_JAXPRS[name]


def test_gradients_numerically():
    rng = np.random.RandomState(1)
    x443, x483 = rng.randn(4, 4, 3).astype(np.float32), rng.randn(4, 8, 3).astype(np.float32)
    x42 = rng.randn(4, 2).astype(np.float32)

    def check(f, x):
        check_grads_together(vmap_i(lambda a: jnp.sin(f(a))), (x,), order=2,
                             modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)
    check(lambda a: lax.ppermute(a, "i", [(0, 2), (1, 0), (3, 1)]), x42)
    check(lambda a: lax.psum_scatter(a, "i"), x443)
    check(lambda a: lax.psum_scatter(a, "i", scatter_dimension=0, tiled=True), x483)
    check(lambda a: lax.all_to_all(a, "i", 0, 1), x443)      # JAX 0.10.2's transpose fails here
    check(lambda a: lax.all_to_all(a, "i", 0, 1, tiled=True), x483)
    # (tiled along axis 1: each member's value needs two axes; JAX refuses axis 1 of a vector)
    check(lambda a: lax.all_gather(a, "i", axis=1, tiled=True), x443)


def test_transposes_are_each_other():
    # all_gather's transpose is psum_scatter and back; ppermute's is the inverse permutation
    text = str(jax.make_jaxpr(vmap_i(jax.grad(lambda a: jnp.sum(lax.all_gather(a, "i")))))(
        OPS["x42"]))
    assert "reduce_sum" in text          # under vmap both became array operations
    ct = jax.vjp(vmap_i(lambda a: lax.ppermute(a, "i", [(0, 1), (1, 2), (2, 3), (3, 0)])),
                 OPS["x42"])[1](OPS["x42"])[0]
    np.testing.assert_array_equal(np.asarray(ct), np.roll(OPS["x42"], -1, axis=0))
    x = OPS["x434"]
    y, vjp = jax.vjp(vmap_i(lambda a: lax.all_to_all(a, "i", 1, 0)), x)
    assert y.shape == (4, 4, 3)
    np.testing.assert_array_equal(np.asarray(vjp(y)[0]), x)       # a permutation of the data


def test_other_axis_passes_through_and_jit():
    x = OPS["x443"]
    outer = jax.vmap(jax.vmap(lambda a: lax.psum_scatter(a, "i"), axis_name="j"), axis_name="i")
    y = np.stack([x * (j + 1) for j in range(3)], 1)           # [i, j, 4, 3]
    # device i's row of the sum of 4 over i: in float64 rounded once, at the scale of the sum
    # of |terms| (they cancel; worst seen 1)
    y64 = np.swapaxes(y.astype(np.float64), 1, 2)               # [i, its row, j, 3]
    assert_allclose_ulp(np.asarray(outer(y)), y64.sum(0).astype(np.float32), REDUCTION,
                        scale=np.abs(y64).sum(0))
    cycle = [(0, 1), (1, 2), (2, 3), (3, 0)]
    swap = jax.jit(jax.vmap(jax.vmap(lambda a: lax.ppermute(a, "i", cycle), axis_name="j"),
                            axis_name="i"))
    np.testing.assert_array_equal(np.asarray(swap(x)), np.roll(x, 1, axis=0))
    a2a = jax.vmap(jax.vmap(lambda a: lax.all_to_all(a, "i", 0, 0), axis_name="i"),
                   axis_name="j")(np.stack([x] * 2))
    np.testing.assert_array_equal(np.asarray(a2a), np.stack([np.swapaxes(x, 0, 1)] * 2))
    gathered = jax.vmap(jax.vmap(lambda a: lax.all_gather(a, "j"), axis_name="i"),
                        axis_name="j", in_axes=1)(x[:, :, 0])
    assert gathered.shape == (4, 4, 4)
    np.testing.assert_array_equal(np.asarray(gathered)[0, 2], x[2, :, 0])


def test_axis_size():
    got = jax.vmap(jax.vmap(lambda a: a * lax.axis_size(("i", "j")), axis_name="j"),
                   axis_name="i")(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(np.asarray(got), np.full((2, 3), 6.0))
    sizes = []
    jax.vmap(lambda a: sizes.append(lax.axis_size("i")) or a, axis_name="i")(np.ones(5))
    assert sizes == [5] and type(sizes[0]) is int


def test_a_jitted_function_is_traced_again_for_other_axis_sizes():
    # (JAX 0.10.2 answers the same: its jit cache is keyed by the axis environment)
    scaled = jax.jit(lambda a: a * lax.axis_size("i"))
    for n in (2, 3):
        got = jax.vmap(scaled, axis_name="i")(np.ones(n, np.float32))
        np.testing.assert_array_equal(np.asarray(got), np.full(n, float(n)))
    # the same axes bound the other way round: the outer one named "i" is 3 long
    got = jax.vmap(jax.vmap(scaled, axis_name="j"), axis_name="i")(np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(np.asarray(got), np.full((3, 2), 3.0))


def test_errors():
    x = OPS["x42"]
    with pytest.raises(ValueError, match="sources and destinations must be unique"):
        vmap_i(lambda a: lax.ppermute(a, "i", [(0, 1), (1, 1)]))(x)
    with pytest.raises(ValueError, match="indices must lie in"):
        vmap_i(lambda a: lax.ppermute(a, "i", [(0, 5)]))(x)
    with pytest.raises(ValueError, match="does not represent a permutation"):
        vmap_i(lambda a: lax.pshuffle(a, "i", [0, 0, 1, 2]))(x)
    for fun in (lambda a: lax.ppermute(a, "q", [(0, 1)]), lambda a: lax.psum_scatter(a, "q"),
                lambda a: lax.all_to_all(a, "q", 0, 0), lambda a: lax.axis_size("q")):
        with pytest.raises(NameError, match="unbound axis name: q"):
            vmap_i(fun)(x)
    with pytest.raises(NameError, match="unbound axis name: q"):
        lax.axis_size("q")
    z = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match=r"split_axis \(3\) has to be divisible by the size of "
                                         r"the named axis i \(4\)"):
        vmap_i(lambda a: lax.all_to_all(a, "i", 0, 0, tiled=True))(z)
    with pytest.raises(ValueError, match="but they are 4 and 3 respectively"):
        vmap_i(lambda a: lax.pswapaxes(a, "i", 0))(z)
    with pytest.raises(ValueError, match="scatter dimension size 3 must match shard count 4"):
        vmap_i(lambda a: lax.psum_scatter(a, "i"))(z)
    with pytest.raises(ValueError, match="must be divisible by shard_count 4"):
        vmap_i(lambda a: lax.psum_scatter(a, "i", tiled=True))(z)
    with pytest.raises(NotImplementedError, match="axis_index_groups not supported in vmap"):
        vmap_i(lambda a: lax.psum(a, "i", axis_index_groups=[[0, 1], [2, 3]]))(x)
    with pytest.raises(ValueError, match="must cover all indices exactly once"):
        vmap_i(lambda a: lax.psum(a, "i", axis_index_groups=[[0, 1], [2]]))(x)
    with pytest.raises(ValueError, match="must all be the same size"):
        vmap_i(lambda a: lax.all_gather(a, "i", axis_index_groups=[[0, 1, 2], [3]]))(x)


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
def test_recorded_pmap_cases_in_a_four_device_process():
    assert_pytest_passes(["-k", " or ".join(RECORDED_PMAP_TESTS), "tests/lax/test_collectives.py"],
                         {"JXKERNEL_CPU_DEVICES": "4"})
