"""A library's effects in jax.export, against JAX 0.10.2 (tests/data/export_effects_reference.json,
recorded by reference/make_export_effects_reference.py from tests/data/export_effects_cases.py):
`Exported.ordered_effects`/`unordered_effects`, the signatures of `main`, of the
`_wrapped_jax_export_main` it calls and of an inner jit's function (a `!stablehlo.token` per
ordered effect first, in and out; a donated argument aliasing its result past the tokens), a
caller's lowering with its own effects, a module for two platforms, and the values of the
calls (exact: sums of small integers in float32)."""
import json

import pytest

import jxkernel
import locations  # tests/support: the repository's folders

from export_effects_cases import run       # tests/data, on pytest's pythonpath

JAX = locations.recorded("export_effects_reference.json")["cases"]

pytestmark = pytest.mark.xla_only("XLA text")    # jax.export: refused on the NumPy backend


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("case", sorted(JAX))
def test_effects_as_jax(ours, case):
    assert ours[case] == JAX[case]
