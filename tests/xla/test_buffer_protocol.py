"""An Array's buffer protocol (`memoryview(x)`, `bytes(x)`: xla/buffer_protocol.py, exported by
core/_fastpath.c's ArrayBuffer, ArrayImpl's C base) against what JAX 0.10.2 answers for the
same programs (tests/data/buffer_protocol_reference.json, recorded by
reference/make_buffer_protocol_reference.py with x64 on): each dtype's view (JAX's format
strings, '=f', '=q'; its BufferError for bfloat16, float8 and int4, which NumPy's np.asarray
then reads through `__array__`), a deleted Array's error, a view kept readable after delete()
and across a donation, and, over two devices (a subprocess), JAX's "single shard" error."""
import sys

import pytest

import jxkernel as jax
import locations  # tests/support: the repository's folders
from buffer_protocol_cases import run  # tests/data
from fresh_process import run_code, run_json
from jxkernel.core.native import native

JAX = locations.recorded("buffer_protocol_reference.json")
TWO_DEVICES = {k for k in JAX if k.startswith("two_devices/")}

needs_native = pytest.mark.skipif(native is None and sys.version_info < (3, 12),
                                  reason="no buffer protocol: Python 3.11 without the fast path")


@pytest.fixture(scope="module")
def ours():
    with jax.enable_x64(True):
        return run(jax)


@needs_native
@pytest.mark.parametrize("case", sorted(set(JAX) - TWO_DEVICES))
def test_each_case_answers_as_jax(ours, case):
    assert ours[case] == JAX[case]


@needs_native
def test_over_two_devices_jaxs_single_shard_error_and_np_asarray_reads_it():
    got = run_json("""
        import json
        import jxkernel as jax
        from buffer_protocol_cases import run_two_devices
        print(json.dumps(run_two_devices(jax)))
    """, env={"JXKERNEL_CPU_DEVICES": "2"})
    assert got == {k: JAX[k] for k in TWO_DEVICES}


def test_without_the_fast_path_np_asarray_reads_and_312_exports_the_buffer():
    """The Python path (JupyterLite, no compiler): NumPy reads `__array__`; Python 3.12's
    `__buffer__` exports the view there (its format NumPy's), 3.11 has none."""
    out = run_code("""
        import sys
        import numpy as np
        import jxkernel.numpy as jnp
        from jxkernel.core.native import native
        assert native is None
        x = jnp.arange(6.0).reshape(2, 3)
        assert np.asarray(x).tolist() == [[0, 1, 2], [3, 4, 5]]
        try:
            m = memoryview(x)
        except TypeError:
            assert sys.version_info < (3, 12)
        else:
            assert m.tobytes() == np.asarray(x).tobytes() and m.readonly
        print("OK")
    """, env={"JXKERNEL_FASTPATH": "0"}).stdout
    assert "OK" in out
