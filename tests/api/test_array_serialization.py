"""jax.experimental.array_serialization and what Orbax reads besides (jax.interpreters.pxla,
`Sharding._addressable_device_assignment`, device_put to a Format): every answer of
tests/data/array_serialization_cases.py is jxkernel's as JAX 0.10.2's, recorded on two CPU
devices by reference/make_array_serialization_reference.py. Those cases write a sharded, a
replicated, a one-device and a 0-d array to a temporary folder and read them back: the specs
and the metadata files on disk are the contract with a checkpoint JAX wrote (compared as they
are), the data a byte copy (compared as bytes)."""
import importlib.util
import warnings

import numpy as np
import pytest

import jxkernel
from fresh_process import run_json
from doc_examples import check_docstring_examples
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("array_serialization_reference.json")["cases"]
HAS_TENSORSTORE = importlib.util.find_spec("tensorstore") is not None
needs_tensorstore = pytest.mark.skipif(not HAS_TENSORSTORE,
                                       reason="array_serialization writes with tensorstore "
                                              "(test extra)")


@pytest.fixture(scope="module")
def answers():
    # two CPU devices, in a process of their own (the suite's has one)
    return run_json("""
        import json, jxkernel, array_serialization_cases
        print(json.dumps(array_serialization_cases.run(jxkernel)))
        """, {"JXKERNEL_CPU_DEVICES": "2", "JAX_PLATFORMS": "cpu"})


@needs_tensorstore
@pytest.mark.xla_only("several devices")
@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_case_as_jax(answers, case):
    assert answers[case] == REFERENCE[case]


def test_the_reference_holds_what_the_checks_rely_on():
    # the round trips are byte copies, and the files on disk are the ones JAX wrote
    assert all(v["same_bytes"] for v in REFERENCE["zarr_back"].values())
    assert REFERENCE["zarr_files"]["sharded/.zarray"]["chunks"] == [4, 3]
    assert REFERENCE["zarr3_back"] == [True] * 4


@needs_tensorstore
def test_importing_jxkernel_leaves_tensorstore_alone():
    # tensorstore is heavy: only the serialization modules import it
    found = run_json("""
        import json, sys, jxkernel, jxkernel.experimental
        before = "tensorstore" in sys.modules
        from jxkernel.experimental.array_serialization import serialization
        print(json.dumps([before, "tensorstore" in sys.modules]))
        """)
    assert found == [False, True]


@pytest.mark.xla_only("XLA compiler")
def test_create_compile_options():
    from jxkernel.interpreters import pxla
    options = pxla.create_compile_options(None, True, [False], [True], None,
                                          np.array(jxkernel.devices()[:1]),
                                          {"xla_cpu_enable_fast_math": False})
    build = options.executable_build_options
    assert (options.num_replicas, options.num_partitions) == (1, 1)
    assert options.parameter_is_tupled_arguments is True
    assert list(build.allow_spmd_sharding_propagation_to_parameters) == [False]
    assert list(build.allow_spmd_sharding_propagation_to_output) == [True]
    assert options.device_assignment.computation_count() == 1


def test_pxla_names_jxkernel_has_none_of_raise_saying_so():
    from jxkernel.interpreters import pxla
    with pytest.raises(AttributeError, match="deprecated as of JAX v0.8.2.*jxkernel has no"):
        pxla.global_avals_to_results_handler
    with pytest.raises(AttributeError, match="has no attribute 'nothing_such'"):
        pxla.nothing_such
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning, match="MeshAxisName is deprecated"):
            pxla.MeshAxisName


def test_addressable_device_assignment_of_one_device():
    s = jxkernel.sharding.SingleDeviceSharding(jxkernel.devices()[0])
    assert s._addressable_device_assignment == (jxkernel.devices()[0],)


def test_make_array_from_single_device_arrays_over_one_device():
    x = jxkernel.device_put(np.arange(3.0, dtype=np.float32))
    s = jxkernel.sharding.SingleDeviceSharding(x.device)
    y = jxkernel.make_array_from_single_device_arrays((3,), s, [x])
    assert y.sharding == s and np.asarray(y).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="needs one array of shape"):
        jxkernel.make_array_from_single_device_arrays((4,), s, [x])


def test_device_put_to_a_format():
    from jxkernel.experimental.layout import Format, Layout
    s = jxkernel.sharding.SingleDeviceSharding(jxkernel.devices()[0])
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert jxkernel.device_put(x, Format(None, s)).sharding == s
    assert jxkernel.device_put(x, Format(Layout((0, 1)), s)).tolist() == x.tolist()
    # (another layout than row-major, Layout((1, 0)), is put as JAX puts it: checked against
    # JAX's answers in a child process by tests/xla/test_layout_jit.py, since its first use
    # switches every later run of this process to checking layouts, xla/relayout.watch)


@pytest.mark.xla_only("XLA compiler")
def test_pxla_docstring():
    check_docstring_examples("jxkernel._jax.interpreters.pxla")
