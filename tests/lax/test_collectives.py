"""Collectives under vmap (this process, one device) and pmap (a 4-device process: the
tests marked `four_devices` run there through test_pmap_in_a_four_device_process)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import jxkernel as jax
from jxkernel import lax
from numerics import ELEMENTWISE, assert_allclose_ulp
import locations  # tests/support: the repository's folders

ROOT = locations.ROOT
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
    with pytest.raises(ValueError, match="requires 8 logical devices"):
        jax.pmap(lambda a: a)(arr(np.arange(8.0)))


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


def test_pmap_in_a_four_device_process():
    env = {**os.environ, "JXKERNEL_CPU_DEVICES": "4",
           "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p",
                             "no:cacheprovider", "-k", "not in_a_four_device_process",
                             "tests/lax/test_collectives.py"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=300)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "passed" in summary and "skipped" not in summary and "failed" not in summary, summary


def test_pmap_over_the_one_device_of_this_process():
    # a leading axis of 1: the body runs on that one device, the axis comes back (as JAX)
    out, total = jax.pmap(lambda x, y: (x * 2 + y, lax.psum(x, "i")), axis_name="i",
                          in_axes=(0, None))(arr([[1.0, 2.0, 3.0]]), 1.0)
    np.testing.assert_array_equal(np.asarray(out), [[3.0, 5.0, 7.0]])
    np.testing.assert_array_equal(np.asarray(total), [[1.0, 2.0, 3.0]])
    grads = jax.grad(lambda x: jax.pmap(lambda v: v * v)(x).sum())(arr([[1.0, 2.0]]))
    np.testing.assert_array_equal(np.asarray(grads), [[2.0, 4.0]])
    n = jax.device_count() + 1
    with pytest.raises(ValueError, match=f"requires {n} logical devices"):
        jax.pmap(lambda x: x)(arr(np.ones((n, 1))))


def test_pmap_maps_keyword_arguments_over_their_leading_axis():
    # as JAX's pmap: keywords are mapped over axis 0 (Chex's fake_pmap tests call foo(x=, y=))
    n = jax.device_count()
    foo = jax.pmap(lambda x, y=2.0: x * 2 + y)
    x = np.ones((n, 3), np.float32)
    assert np.asarray(foo(x=x)).tolist() == [[4.0] * 3] * n
    assert np.asarray(foo(x, y=x)).tolist() == [[3.0] * 3] * n


def test_pmap_of_a_scalar_mapped_argument_is_a_value_error():
    with pytest.raises(ValueError, match="rank should be at least 1, but is only 0"):
        jax.pmap(lambda x, y: x * y)(np.ones((jax.device_count(), 2), np.float32), 3.0)


def test_pmap_lowers_and_compiles_ahead_of_time():
    # Equinox's filter_pmap(...).lower(...): pmap's stages are jax.stages' Lowered and Compiled
    from jxkernel import stages
    n = jax.device_count()
    f = jax.pmap(lambda x, y: x * 2 + y, in_axes=(0, None))
    x = np.arange(n, dtype=np.float32)
    lowered = f.lower(x, 1.0)
    assert isinstance(lowered, stages.Lowered) and "stablehlo.multiply" in lowered.as_text()
    compiled = lowered.compile()
    assert isinstance(compiled, stages.Compiled)
    np.testing.assert_array_equal(np.asarray(compiled(x, 1.0)), x * 2 + 1)
    with pytest.raises(TypeError, match="other types than it was lowered for"):
        compiled(np.ones((n, 2), np.float32), 1.0)
