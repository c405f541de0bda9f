"""`P.UNCONSTRAINED`: a dimension a sharding constraint leaves to XLA's propagation, as JAX
0.10.2 has it (Flax's logical partitioning rules produce it). JAX's answers below were recorded
with JAX 0.10.2 on 8 CPU devices (XLA_FLAGS=--xla_force_host_platform_device_count=8)."""
import pickle

import numpy as np
import pytest
from fresh_process import run_json

import jxkernel as jax
from jxkernel.sharding import AxisType, Mesh, NamedSharding
from jxkernel.sharding import PartitionSpec as P

U = P.UNCONSTRAINED


def test_the_spec_holds_it_as_jax_does():
    spec = P("x", U, None)
    assert repr(spec) == "P('x', UNCONSTRAINED, None)"
    assert (spec.index(U), spec.count(None), spec.index(("x",))) == (1, 1, 0)
    assert spec.update(partitions=("y", None)) == P("y", None)
    assert pickle.loads(pickle.dumps(U)) is U
    assert spec != P("x", None, None)


def test_explicit_axes_cannot_leave_a_dimension_open():
    explicit = Mesh(np.array(jax.devices()[:1]), ("x",), axis_types=(AxisType.Explicit,))
    with pytest.raises(ValueError, match=r"^P\(None, UNCONSTRAINED\) cannot contain "
                       r"`P.UNCONSTRAINED` when no mesh axis_types are `Auto`. Got mesh "
                       r"axis_types: \(Explicit,\)$"):
        NamedSharding(explicit, P(None, U))


@pytest.mark.xla_only("XLA text")           # the lowered module's text
@pytest.mark.cpu_only("simulated CPU devices")
def test_an_open_dimension_takes_the_sharding_propagation_gives_it():
    out = run_json("""
        import json
        import numpy as np
        import jxkernel as jax
        from jxkernel.sharding import AxisType, NamedSharding, PartitionSpec as P
        mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
        x = jax.device_put(np.arange(64.).reshape(8, 8), NamedSharding(mesh, P("x", "y")))
        f = jax.jit(lambda a: jax.lax.with_sharding_constraint(
            a * 2, NamedSharding(mesh, P("x", P.UNCONSTRAINED))) + 1)
        y = f(x)
        print(json.dumps({"spec": repr(y.sharding.spec), "sum": float(y.sum()),
                          "text": f.lower(x).as_text()}))
    """, {"JXKERNEL_CPU_DEVICES": "8"})
    assert (out["spec"], out["sum"]) == ("P('x', 'y')", 4096.0)        # JAX: the same
    assert '<@mesh, [{"x"}, {?}]>' in out["text"]        # open in Shardy's terms
