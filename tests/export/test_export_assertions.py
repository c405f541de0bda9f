"""The calling convention of a module exported over symbolic shapes, against JAX 0.10.2
(tests/data/export_assertions_reference.json, recorded by
reference/make_export_assertions_reference.py from tests/data/export_assertions_cases.py):
`main`'s shape assertions (their messages and operands, in JAX's order) and its call of
`_wrapped_jax_export_main`, which takes the dimension variables first; and an Exported with
static `out_avals` over a module of symbolic results, called eagerly and under jit (exact
values: doubled small integers)."""
import json

import pytest

import jxkernel
import locations  # tests/support: the repository's folders

from export_assertions_cases import run       # tests/data, on pytest's pythonpath

JAX = locations.recorded("export_assertions_reference.json")["cases"]

pytestmark = pytest.mark.xla_only("XLA text")    # jax.export: refused on the NumPy backend


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("case", sorted(JAX))
def test_calling_convention_as_jax(ours, case):
    assert ours[case] == JAX[case]
