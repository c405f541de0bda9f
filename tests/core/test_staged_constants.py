"""Values a jitted function makes from constants alone are traced, as JAX 0.10.2's: int(),
bool(), a shape or a size of them raise JAX's errors (tests/data/staged_constants_cases.py,
recorded by reference/make_staged_constants_reference.py). jxkernel's jit tracer knew such a
value and gave it (core/staging.py, DynamicJaxprTracer.to_concrete_value): 9 of 20 cases ran
where JAX raises."""
import locations  # tests/support: the repository's folders
from staged_constants_cases import run

import jxkernel

JAX = locations.jax_answers("staged_constants_reference.json")
# where jxkernel still differs, and why (each must still differ: fixed, its entry goes)
GAPS = {
    # jnp.array of a list under jit is put on the device as a constant of the trace, where JAX
    # stages a convert_element_type of it: JAX's error names the list (int32[3]), ours the
    # mask computed from it (bool[3]; trim_zeros read the constant's values and answered,
    # unique raised NumPy's "Calling nonzero on 0d arrays")
    "trim_zeros_of_a_constant": "jnp.array(list) under jit is a device constant, not staged",
    "unique_of_a_constant": "jnp.array(list) under jit is a device constant, not staged",
}


def test_a_value_made_from_constants_under_jit_is_traced_as_in_jax():
    ours = run(jxkernel)
    assert set(ours) == set(JAX)
    wrong = {name: (ours[name], want) for name, want in JAX.items()
             if (ours[name] != want) != (name in GAPS)}
    assert not wrong, wrong


def test_unique_of_a_constant_under_jit_raises_jaxs_class():
    # unique's mask under jit is traced: it raised NumPy's ValueError ("Calling nonzero on 0d
    # arrays is not allowed") from np.nonzero(None)
    assert run(jxkernel)["unique_of_a_constant"][0] == JAX["unique_of_a_constant"][0] == \
        "ConcretizationTypeError"


def test_trim_zeros_of_a_constant_under_jit_raises_jaxs_class():
    # its bounds are jnp operations, traced under jit as JAX's: it computed them with NumPy
    # from the constant's value and answered [1] (the wide differential fuzzer, seed 2020)
    assert run(jxkernel)["trim_zeros_of_a_constant"][0] == \
        JAX["trim_zeros_of_a_constant"][0] == "ConcretizationTypeError"
