"""shard_map called outside jit, as JAX 0.10.2 runs it (its shard_map notebook shows it):
eagerly, device by device, so `print(x)` in the body shows each device's block; plus what
that notebook prints of types: varying types inside, `f32[6@i]` results on an Explicit mesh,
the context mesh shown abstract in the equation, and the error for arguments not split as
their in_specs say. Expected texts are JAX's, as that notebook prints them.

One subprocess with 4 CPU devices runs every case and prints one JSON object.
"""
import pytest
from fresh_process import as_the_suite_compiles, run_json

pytestmark = pytest.mark.cpu_only("simulated CPU devices")     # the GPU tier skips this file (docs/gpu.md)
# the tests reading the module fixture's process of several CPU devices; the NumPy backend has one
SEVERAL_DEVICES = pytest.mark.xla_only("several devices")


_RUN = r"""
import contextlib, io, json
import numpy as np
import jxkernel as jax, jxkernel.numpy as jnp
P = jax.P
out = {}


def printed(f, *args):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        result = f(*args)
    return buffer.getvalue(), result


jax.set_mesh(jax.make_mesh((2,), ('i',)))
x = jax.device_put(jnp.arange(6.), P('i'))


@jax.shard_map(in_specs=P('i'), out_specs=P())
def total(x):
    print(x)
    print(jax.typeof(x), sorted(jax.typeof(x).manual_axis_type.varying))
    y = jax.lax.psum(x, 'i')
    print(jax.typeof(y))
    print(y)
    return y
text, result = printed(total, x)
out["eager"] = [text, np.asarray(result).tolist()]
out["under_jit"] = printed(jax.jit(total), x)[0].splitlines()[0]

# the out_spec is checked by a shard_map of '_rem_singleton' (JAX's helper, named in its error)
try:
    jax.shard_map(lambda v: v, in_specs=P('i'), out_specs=P())(x)
except ValueError as e:
    out["unchecked"] = str(e).splitlines()[0]

# no operands (axis_index), a permutation, 2-d mesh coordinates
mesh2 = jax.make_mesh((2, 2), ('a', 'b'), axis_types=(jax.sharding.AxisType.Auto,) * 2)


def body(block):
    i = jax.lax.axis_index('a') * 2 + jax.lax.axis_index('b')
    shifted = jax.lax.ppermute(block, ('a', 'b'), [(k, (k + 1) % 4) for k in range(4)])
    print(shifted)
    return shifted + i
with jax.set_mesh(mesh2):
    text, result = printed(jax.shard_map(body, mesh=mesh2, in_specs=P(('a', 'b')),
                                         out_specs=P(('a', 'b'))), np.arange(4, dtype=np.int32))
out["two_axes"] = [text.splitlines()[:2], np.asarray(result).tolist()]


@jax.shard_map(in_specs=(P('i'), P()), out_specs=P('i'))
def scale(x, y):
    return x * y
jaxpr = str(jax.make_jaxpr(scale)(x, jnp.arange(3.)))
out["jaxpr"] = [line.strip() for line in jaxpr.splitlines() if "shard_map[" in line or
                "mesh=" in line]
given = jax.shard_map(lambda v: v * 2, mesh=jax.sharding.get_mesh(), in_specs=P('i'),
                      out_specs=P('i'))
out["jaxpr_given_mesh"] = [line.strip() for line in str(jax.make_jaxpr(given)(x)).splitlines()
                           if "mesh=" in line]
try:
    scale(jnp.arange(6.), jnp.arange(3.))
except ValueError as e:
    out["not_split"] = str(e)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def out():
    return run_json(as_the_suite_compiles(_RUN), {"JXKERNEL_CPU_DEVICES": "4"}, timeout=300)


@SEVERAL_DEVICES
def test_an_eager_body_prints_each_devices_block(out):
    text, result = out["eager"]
    assert text == (
        "On cpu:0 at mesh coordinates (i,) = (0,):\n[0. 1. 2.]\n\n"
        "On cpu:1 at mesh coordinates (i,) = (1,):\n[3. 4. 5.]\n\n"
        "float32[3]{V:i} ['i']\n"
        "float32[3]\n"
        "On cpu:0 at mesh coordinates (i,) = (0,):\n[3. 5. 7.]\n\n"
        "On cpu:1 at mesh coordinates (i,) = (1,):\n[3. 5. 7.]\n\n")
    assert result == [3., 5., 7.]
    assert out["under_jit"].startswith("JitTracer")         # traced there, as in JAX


@SEVERAL_DEVICES
def test_an_unchecked_replication_names_jaxs_helper(out):
    assert out["unchecked"] == ("shard_map applied to the function '_rem_singleton' was given "
                                "out_specs which require replication which can't be statically "
                                "inferred given the mesh:")


@SEVERAL_DEVICES
def test_collectives_without_operands_and_two_mesh_axes(out):
    lines, result = out["two_axes"]
    assert lines == ["On cpu:0 at mesh coordinates (a, b,) = (0, 0):", "[3]"]
    assert result == [3, 1, 3, 5]


@SEVERAL_DEVICES
def test_types_and_meshes_in_the_equation(out):
    assert out["jaxpr"] == [
        "c:f32[6@i] = shard_map[",
        "mesh=AbstractMesh('i': 2, axis_types=(Explicit,), device_kind=cpu, num_cores=None, "
        "platform=cpu)"]
    assert out["jaxpr_given_mesh"] == ["mesh=Mesh('i': 2, axis_types=(Explicit,))"]


@SEVERAL_DEVICES
def test_arguments_not_split_as_in_specs_say_raise_jaxs_error(out):
    assert out["not_split"].startswith(
        "in_specs passed to shard_map: P('i',) does not match the specs of the input: P(None,) "
        "for arg: float32[6]. `in_specs` is an optional argument")
