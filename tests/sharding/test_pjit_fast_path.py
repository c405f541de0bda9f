"""pjit given no shardings is jit outside a `with mesh:` block, its compiled fast path included
(no Python call of its own once it has hit), and inside one runs over the block's mesh (P(),
committed), whatever hits it made outside: entering a block starts a config generation of
its own (core/mesh.py's Mesh.__enter__), which no hit made outside holds."""
import warnings

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel._jax._src import pjit as pjit_module
from jxkernel.core.native import native
from jxkernel.sharding import NamedSharding, PartitionSpec as P


@pytest.fixture
def python_calls(monkeypatch):
    """The calls that reach the pjit's Python call (the C fast path's misses)."""
    calls = []
    real = pjit_module._PjitInMeshBlock._python_call

    def counted(self, *args, **kwargs):
        calls.append(args)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(pjit_module._PjitInMeshBlock, "_python_call", counted)
    if native is None:      # then the class bound __call__ to the Python call when it was made
        monkeypatch.setattr(pjit_module._PjitInMeshBlock, "__call__", counted)
    return calls


@pytest.mark.skipif(native is None, reason="no compiled fast path (core/_fastpath.c unbuilt)")
@pytest.mark.xla_only("XLA compiler")   # the C fast path serves XLA's executables only
def test_pjit_outside_a_mesh_block_takes_jits_fast_path(python_calls):
    f, x = pjit_module.pjit(lambda v: v * 2), jnp.arange(4.0)
    f(x), f(x)                             # compiled, then hit: its hit remembered
    del python_calls[:]
    for _ in range(3):
        assert f(x).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert python_calls == []


def test_a_hit_made_outside_a_mesh_block_does_not_serve_a_call_inside(python_calls):
    f, x = pjit_module.pjit(lambda v: v * 2), jnp.arange(4.0)
    outside = [f(x), f(x)]
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",))
    del python_calls[:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)       # `with mesh:`
        with mesh:
            inside = [f(x), f(x)]
    after = f(x)
    assert len(python_calls) >= 2          # the block's calls: the Python call, each
    for y in inside:                       # over the block's mesh, as a pjit called there first
        assert y.sharding == NamedSharding(mesh, P()) and y.committed
    for y in [*outside, after]:            # jit's, on one device
        assert not y.committed and not isinstance(y.sharding, NamedSharding)
    assert [y.tolist() for y in [*inside, after]] == [[0.0, 2.0, 4.0, 6.0]] * 3
