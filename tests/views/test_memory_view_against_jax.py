"""The memory view (jxkernel/views/memory.py: live_arrays, memory_report, %jxmemory's rows
and allocator line) against JAX 0.10.2 for the same steps (tests/data/memory_view_cases.py;
memory_view_reference.json recorded by reference/make_memory_view_reference.py): which
arrays are live after a delete, a donation and a drop, that eager arithmetic's scalars are
none of them, the bytes of each dtype (JAX's nbytes), and that the CPU device reports no
allocator statistics, which the view says rather than show zeros."""
import json

import pytest

import locations                                 # tests/support
import memory_view_cases as cases               # tests/data

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.memory import memory_report

pytestmark = [pytest.mark.cpu_only("CPU backend"),
              pytest.mark.skipif(jxkernel.default_backend() == "numpy", reason=(
                  "the CPU device's allocator; the numpy backend reports its own"))]

JAX = locations.jax_answers("memory_view_reference.json")


def test_live_arrays_nbytes_and_memory_stats_are_jaxs():
    ours = cases.run(jxkernel)
    assert ours == JAX


def test_the_views_bytes_are_jaxs_nbytes_and_it_says_the_cpu_reports_no_allocator():
    arrays = [jnp.ones((3, 5), getattr(jnp, d)) for d in cases.DTYPES]
    report = memory_report(arrays)
    by_dtype = {str(r.dtype): r.bytes for r in report.rows}
    assert by_dtype == JAX["nbytes_3x5"]
    assert JAX["cpu_memory_stats"] is None
    assert "allocator (bytes in use, peak, limit): not reported by the cpu backend" in repr(report)
