"""What JAX 0.10.2's explicit-sharding guide (docs/parallel.md) shows, on jxkernel: set_mesh's
class, unreduced PartitionSpecs and the shards device_put gives them, an abstract mesh set
inside jit (use_abstract_mesh) that reshapes the devices, jax.typeof's sharding over an
AbstractMesh, and random samplers' out_sharding=. The expected texts are JAX's, as printed by
that page's cells.

One subprocess with 8 CPU devices runs every case and prints one JSON object.
"""
import pytest
from fresh_process import as_the_suite_compiles, run_json

from jxkernel.sharding import PartitionSpec as P

pytestmark = pytest.mark.cpu_only("simulated CPU devices")     # the GPU tier skips this file (docs/gpu.md)
# (on the NumPy backend the fixture's process, JXKERNEL_CPU_DEVICES=8, has eight NumPy devices)


_RUN = r"""
import json
import numpy as np
import jxkernel as jax, jxkernel.numpy as jnp
from jxkernel.sharding import AbstractMesh, AxisType, NamedSharding
P = jax.P
out = {}
mesh = jax.make_mesh((4, 2), ('X', 'Y'))
setter = jax.set_mesh(mesh)
out["set_mesh"] = [type(setter).__module__, type(setter).__name__, setter.__enter__()]
x = jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), P('X', 'Y'))

# unreduced: each device along Y holds a summand of its block (XLA's split, as JAX's)
y = jax.device_put(x, P('X', None, unreduced={'Y'}))
out["unreduced_sharding"] = str(y.sharding)
out["unreduced_shards"] = [np.asarray(s.data).tolist() for s in y.addressable_shards[:2]]
out["unreduced_sum"] = (np.asarray(y.addressable_shards[0].data)
                        + np.asarray(y.addressable_shards[1].data)).tolist()

# an abstract mesh inside jit names the same devices otherwise
@jax.jit
def f(x):
    with jax.sharding.use_abstract_mesh(AbstractMesh((8,), ('A',), (AxisType.Explicit,))):
        return jax.reshard(x, P('A', None)) * 2
z = f(x)
out["abstract_mesh"] = [str(jax.typeof(z)), str(z.sharding.spec), np.asarray(z)[:, 0].tolist()]

# typeof's sharding: over the AbstractMesh, at the top and under jit
seen = []
jax.jit(lambda v: seen.append(str(jax.typeof(v).sharding)))(x)
out["typeof"] = [str(jax.typeof(x).sharding), seen[0]]
out["eval_shape_of_typeof"] = str(jax.eval_shape(lambda v: v * 2, jax.typeof(x)).shape)

# random samplers: out_sharding lays the same values out as asked (and types them)
k = jax.random.key(0)
r = jax.random.normal(k, (8, 4), out_sharding=P('X', 'Y'))
out["normal"] = [str(jax.typeof(r)),
                 bool((np.asarray(r) == np.asarray(jax.random.normal(k, (8, 4)))).all())]
out["uniform_jit"] = str(jax.jit(lambda k: jax.random.uniform(k, (8,), out_sharding=P('X')))(k)
                         .sharding.spec)

# on an Auto mesh the type names no axis; libraries pass it on as out_sharding=
jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y'), (AxisType.Auto,) * 2))
a = jnp.sin(jax.device_put(np.arange(8.), P('X')))
out["auto"] = [str(a.sharding.spec), str(jax.typeof(a).sharding.spec)]
b = jax.random.uniform(k, (8,), out_sharding=jax.typeof(a).sharding)
out["auto_out_sharding"] = bool((np.asarray(b) == np.asarray(jax.random.uniform(k, (8,)))).all())
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def out():
    return run_json(as_the_suite_compiles(_RUN), {"JXKERNEL_CPU_DEVICES": "8"}, timeout=300)


def test_set_mesh_is_jaxs_class(out):
    # JAX prints `<jax._src.sharding_impls.set_mesh object at 0x...>`; `with` gives None
    assert out["set_mesh"] == ["jxkernel._src.sharding_impls", "set_mesh", None]


def test_unreduced_specs_print_and_split_as_jaxs():
    assert repr(P('X', None, unreduced={'Y'})) == "P('X', None, unreduced={'Y'})"
    assert repr(P(unreduced={'Y'})) == "P(unreduced={'Y'})"
    assert repr(P('X', unreduced={'Y'})) == "P('X', unreduced={'Y'})"
    with pytest.raises(TypeError, match="unreduced argument of PartitionSpec"):
        P('X', unreduced=['Y'])


def test_device_put_to_an_unreduced_sharding(out):
    assert out["unreduced_sharding"] == (
        "NamedSharding(mesh=Mesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit)), "
        "spec=P('X', None, unreduced={'Y'}), memory_kind=device)")
    # cpu:0 and cpu:1 (X=0, Y=0 and 1), as JAX 0.10.2 shows them: summands of rows 0-1
    assert out["unreduced_shards"] == [[[0., 1., 0., 0.], [4., 5., 0., 0.]],
                                       [[0., 0., 2., 3.], [0., 0., 6., 7.]]]
    assert out["unreduced_sum"] == [[0., 1., 2., 3.], [4., 5., 6., 7.]]


def test_an_abstract_mesh_inside_jit_reshapes_the_devices(out):
    assert out["abstract_mesh"] == ["float32[8@A,4]", "P('A', None)",
                                    [0., 8., 16., 24., 32., 40., 48., 56.]]


@pytest.mark.xla_only("CPU platform")       # the abstract mesh's device_kind, cpu
def test_typeof_sharding_is_over_the_abstract_mesh(out):
    explicit = ("NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, "
                "Explicit), device_kind=cpu, num_cores=None, platform=cpu), spec=P('X', 'Y'))")
    assert out["typeof"] == [explicit, explicit]
    assert out["eval_shape_of_typeof"] == "(8, 4)"
    assert out["auto"] == ["P('X',)", "P(None,)"]


def test_random_samplers_take_out_sharding(out):
    assert out["normal"] == ["float32[8@X,4@Y]", True]
    assert out["uniform_jit"] == "P('X',)"
    assert out["auto_out_sharding"]


def test_typeof_of_an_untyped_array_equals_its_plain_type():
    import numpy as np
    import jxkernel as jax
    from jxkernel.core.avals import ShapedArray
    x = jax.numpy.ones(3)
    t = jax.typeof(x)
    assert repr(t.sharding) == "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))"
    assert t == x.aval == ShapedArray((3,), np.float32) and hash(t) == hash(x.aval)
