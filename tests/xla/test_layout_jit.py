"""Layouts a jit is given in Formats, on one device and over a 2x2 mesh (4 CPU devices, in a
child process), against JAX 0.10.2's answers (tests/data/layout_jit_cases.py, recorded by
reference/make_layout_jit_reference.py): Layout.AUTO and concrete layouts written into `main`
as `mhlo.layout_mode` (none for the default one), the formats XLA compiled for
(`input_formats`, `output_formats`), donation's ValueErrors for Layout.AUTO on one side only
and its alias where both sides match, a partitioned program's donation aliasing
(`tf.aliasing_output`) where every result's sharding is given."""
import json

import pytest
from fresh_process import run_against_reference

_RUN = """
import json, jxkernel, layout_jit_cases as cases
print(json.dumps(cases.run(jxkernel)))
"""

# Cases whose programs take or give a buffer laid out otherwise than row-major: jxkernel
# compiles them as JAX's (their formats above are compared) but does not run them
# (xla/executable.py's refusing_other_layouts): NotImplementedError
_NOT_RUN = {"one/auto_T/call", "one/column_in/call_numpy", "one/column_in/call_array",
            "one/put_column", "mesh/auto_T/call", "mesh/put_column"}


@pytest.fixture(scope="module")
def runs():
    mine, jax = run_against_reference(_RUN, "layout_jit_reference.json", devices=4)
    # (the NumPy backend's devices print as NumpyDevice where XLA's CPU prints CpuDevice)
    return json.loads(json.dumps(mine).replace("NumpyDevice", "CpuDevice")), jax


def test_jit_layouts_as_jax(runs):
    mine, jax = runs
    assert set(mine) == set(jax) - {"jax_version"}
    for case in sorted(set(mine) - _NOT_RUN):
        assert mine[case] == jax[case], case


def test_a_program_laid_out_otherwise_is_not_run(runs):
    mine, _ = runs
    for case in sorted(_NOT_RUN):
        assert mine[case][0] == "NotImplementedError", case
