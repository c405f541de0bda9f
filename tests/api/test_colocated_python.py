"""jax.experimental.colocated_python: every answer of tests/data/colocated_python_cases.py
(values, dtypes, shardings, errors and their messages, what a pickled function's side
effects reach, a class's lifetime, PRNG keys, threads) is jxkernel's as JAX 0.10.2's,
recorded on the CPU by reference/make_colocated_python_reference.py; and serialization's
reducers round-trip meshes, shardings and device lists."""
import json

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.experimental.colocated_python import serialization as ser

import colocated_python_cases
from doc_examples import check_docstring_examples
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("colocated_python_reference.json")["cases"]
pytestmark = pytest.mark.skipif(ser.cloudpickle is None,
                                reason="colocated_python pickles with cloudpickle (test extra)")


# colocated_python runs on CPU devices and refuses others, as JAX's ("Device list must contain
# only CPU devices"); the NumPy backend has none, and the cases ask for jax.devices('cpu')
CPU_DEVICES = pytest.mark.xla_only("CPU platform")


@pytest.fixture(scope="module")
def answers():
    # (JSON's round trip: tuples as lists, as the reference was written)
    return json.loads(json.dumps(colocated_python_cases.run(jxkernel)))


@CPU_DEVICES
@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_case_as_jax(answers, case):
    assert answers[case] == REFERENCE[case]


def test_the_orbax_imports():
    # Orbax evaluates this annotation at import time
    import jxkernel.experimental.colocated_python as cp
    from jxkernel.experimental.colocated_python import func  # noqa: F401
    assert cp.colocated_python is cp.api.colocated_python
    assert ser.DeviceList(tuple(jxkernel.devices())) == ser.DeviceList(tuple(jxkernel.devices()))


def _round_trip(obj):
    return ser._deserialize(ser._serialize(obj))


@CPU_DEVICES
def test_mesh_and_shardings_round_trip():
    mesh = jxkernel.sharding.Mesh(tuple(jxkernel.devices()), ("x",))
    named = jxkernel.sharding.NamedSharding(mesh, jxkernel.P("x"), memory_kind="device")
    single = jxkernel.sharding.SingleDeviceSharding(jxkernel.devices()[0])
    devices = ser.DeviceList(tuple(jxkernel.devices()))
    back = _round_trip([mesh, named, single, devices, mesh])
    assert back[0] == mesh and back[0].axis_types == mesh.axis_types
    assert back[1] == named and back[1].memory_kind == "device"
    assert back[2] == single and back[3] == devices
    assert back[4] is back[0]        # a repeated mesh is written once and read back as one


def test_reducers_write_device_ids():
    mesh = jxkernel.sharding.Mesh(tuple(jxkernel.devices()), ("x",))
    ser._common_obj_state.common_obj_index = {}
    try:
        unreduce, (obj_id, inner, args) = ser._reduce_mesh(mesh)
        assert (obj_id, inner) == (0, ser._unreduce_mesh)
        assert args[0].tolist() == [d.id for d in jxkernel.devices()]
        assert ser._reduce_mesh(mesh) == (ser._wrapped_unreduce_func_with_existing_common_obj,
                                          (0,))
        _, (_, inner, args) = ser._reduce_device_list(ser.DeviceList(tuple(jxkernel.devices())))
        assert inner is ser._unreduce_device_list and args == ([0],)
    finally:
        ser._common_obj_state.common_obj_index = None


@CPU_DEVICES
def test_an_unknown_device_id_is_refused():
    with pytest.raises(ValueError, match="Invalid device ID 12345. Device list must contain"):
        ser._unreduce_single_device_sharding(12345, None)
    assert ser._get_cpu_device_map()[0] is jxkernel.devices()[0]


@CPU_DEVICES
def test_specs_round_trip():
    spec = jxkernel.ShapeDtypeStruct((2,), jnp.float32,
                                     sharding=jxkernel.sharding.SingleDeviceSharding(
                                         jxkernel.devices()[0]))
    treedef = jxkernel.tree_util.tree_structure({"a": 0})
    packed = ser._serialize_specs(treedef, (spec,), ser.DeviceList(tuple(jxkernel.devices())))
    assert packed.dtype == np.dtypes.StringDType()
    back_treedef, (back,) = ser._deserialize_specs(packed)
    assert back_treedef == treedef and (back.shape, back.dtype) == ((2,), jnp.float32)
    assert back.sharding == spec.sharding


def test_without_cloudpickle_serializing_is_refused(monkeypatch):
    monkeypatch.setattr(ser, "cloudpickle", None)
    with pytest.raises(ModuleNotFoundError, match='No module named "cloudpickle"'):
        ser._serialize(1)


@pytest.mark.parametrize("module", [
    *(pytest.param(m, marks=CPU_DEVICES) for m in (
        "jxkernel.api.colocated_python", "jxkernel.api.colocated_python.api",
        "jxkernel.api.colocated_python.serialization")),
    "jxkernel._jax.extend.ifrt_programs"])
def test_docstring_examples(module):
    check_docstring_examples(module, {"jxkernel": jxkernel})


def test_pjit_is_jit_deprecated_in_jaxs_words():
    from jxkernel._jax.experimental import pjit
    with pytest.warns(DeprecationWarning, match=r"jax.experimental.pjit.pjit has been "
                                                r"deprecated. Please use `jax.jit` instead."):
        # JAX's is jax._src.pjit.pjit: jit reading a `with mesh:` block's mesh
        from jxkernel._jax._src.pjit import pjit as src_pjit
        assert pjit.__getattr__("pjit") is src_pjit
    with pytest.raises(AttributeError, match="has no attribute 'pmap'"):
        pjit.pmap
    check_docstring_examples("jxkernel._jax.experimental.pjit")


def test_private_distributed_state_and_ifrt_programs_for_orbax():
    # Orbax reads jax._src.distributed.global_state.client (None: one process) and imports
    # jax.extend.ifrt_programs at import time
    check_docstring_examples("jxkernel._jax._src.distributed")
    from jxkernel._jax.extend import ifrt_programs
    assert callable(ifrt_programs.ifrt_programs.make_colocated_python_program)
