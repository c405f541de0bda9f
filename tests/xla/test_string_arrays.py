"""Arrays of NumPy 2's StringDType on CPU devices (xla/string_arrays.py) against what JAX 0.10.2
answers for the same programs (tests/data/string_arrays_reference.json, recorded by
reference/make_string_arrays_reference.py): put on a device and read back (repr, values,
committed), jnp.asarray's dtype errors, jit's and grad's "not a valid JAX type", vmap passing
one through and its promotion error, device_put without a CPU device refused, and, over two
devices (a subprocess), split and read back. On the NumPy backend the same programs run on its
devices (it has no "cpu" by name), against the same answers."""
import numpy as np
import pytest

import jxkernel as jax
import locations  # tests/support
from fresh_process import run_json
from recorded_answers import families_sorted
from string_arrays_cases import run  # tests/data

JAX = locations.recorded("string_arrays_reference.json")
TWO_DEVICES = {k for k in JAX if k.startswith("two_devices/")}

pytestmark = pytest.mark.skipif(not hasattr(np.dtypes, "StringDType"),
                                reason="NumPy 2's StringDType")


@pytest.fixture(scope="module")
def ours():
    return run(jax)


# the accepted dtypes of add's refusal are named in the order of JAX's set `_int | _float |
# _complex`, which follows the types' addresses: "integer, floating, complexfloating" in the
# recording (NumPy 2.4.6), "integer, complexfloating, floating" with NumPy 2.5.5 on Python
# 3.13.0; so compared without that order, and the order checked against that set built here
@pytest.mark.parametrize("case", sorted(set(JAX) - TWO_DEVICES))
def test_each_case_as_jax(ours, case):
    assert families_sorted(ours[case]) == families_sorted(JAX[case])


def test_adds_accepted_dtypes_are_named_in_the_order_jaxs_set_has_here(ours):
    ordered = ", ".join(t.__name__ for t in {np.integer} | {np.floating} | {np.complexfloating})
    assert ours["add"]["message"].endswith(f"are subtypes of {ordered}.")


def test_split_over_two_devices_as_jax():
    got = run_json("""
        import json
        import jxkernel as jax
        from string_arrays_cases import run_two_devices
        print(json.dumps(run_two_devices(jax)))
    """, env={"JXKERNEL_CPU_DEVICES": "2"})
    assert got == {k: JAX[k] for k in TWO_DEVICES}
