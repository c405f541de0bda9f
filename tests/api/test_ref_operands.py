"""Refs passed as operands of cond, switch and scan, as JAX 0.10.2's
(tests/data/ref_operands_cases.py, recorded by reference/make_ref_operands_reference.py):
what they return and leave in the Refs (small whole numbers in float32: exact), a Ref
scanned along its leading axis, JAX's errors for one Ref passed twice or passed and closed
over."""
import functools
import json

import pytest

import jxkernel
import ref_operands_cases as cases
import locations  # tests/support

REFERENCE = locations.jax_answers("ref_operands_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
ours = functools.cache(lambda: cases.run(jxkernel))


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_as_jax(name):
    assert ours()[name] == REFERENCE[name]


def test_a_scanned_row_is_written_where_the_scan_runs():
    # under make_jaxpr the Ref's row writes are one write of the Ref after the loop
    ref = jxkernel.new_ref(jxkernel.numpy.zeros((3, 2)))

    def fill(c, row):
        row[...] = row[...] + c
        return c + 1.0, None
    jaxpr = jxkernel.make_jaxpr(lambda: jxkernel.lax.scan(fill, 1.0, ref))()
    assert [e.primitive.name for e in jaxpr.eqns][-1] == "swap"
    assert ref[...].tolist() == [[0.0, 0.0]] * 3      # (make_jaxpr ran nothing)
    jxkernel.lax.scan(fill, 1.0, ref)
    assert ref[...].tolist() == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
