"""The note under the cell after which jit's compiled fast paths make no more hits
(notebook/notes/layout_notes.py): told once, in the cell that laid the first array out otherwise
than row-major, and true: a jit's calls made native Hits before it and make none after. In a
child process: the switch is for the whole process."""
import pytest

from fresh_process import run_json
from jxkernel.core.native import native


@pytest.mark.xla_only("XLA compiler")     # (layouts are XLA's)
@pytest.mark.skipif(native is None, reason="no compiled fast path to turn off")
def test_the_cell_that_turns_the_fast_paths_off_says_so_once():
    got = run_json("""
        import json
        import numpy as np
        import jxkernel as jax
        from jxkernel.experimental.layout import Format, Layout
        from jxkernel.notebook.notes.layout_notes import FastPathWatch
        from jxkernel.xla import relayout

        def native_hits(f):
            x = jax.numpy.ones((8, 2))
            f(x), f(x)
            return len(f._last["last hit"].native)

        watch, notes = FastPathWatch(), []
        watch.cell_started()
        before = native_hits(jax.jit(lambda v: v * 2))
        notes.append(watch.cell_finished())
        watch.cell_started()
        one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
        jax.device_put(np.ones((8, 2), np.float32), Format(Layout((1, 0)), one))
        notes.append(watch.cell_finished())
        watch.cell_started()
        after = native_hits(jax.jit(lambda v: v * 3))
        notes.append(watch.cell_finished())
        print(json.dumps([before, after, [None if n is None else repr(n) for n in notes],
                          relayout.ARRAY]))
    """)
    before, after, notes, reason = got
    assert before >= 1 and after == 0
    assert notes[0] is None and notes[2] is None
    assert notes[1].startswith("ⓘ jit's compiled fast paths are off from this cell on (until "
                               "the kernel restarts): " + reason)
    assert "%timeit" in notes[1] and "the same values" in notes[1]


@pytest.mark.xla_only("XLA compiler")     # (layouts are XLA's)
@pytest.mark.skipif(native is None, reason="no compiled fast path to turn off")
def test_environment_info_says_the_fast_path_makes_no_jit_hits_and_why():
    """jax.print_environment_info (what a bug report pastes) said "fast path: on" after it."""
    lines = run_json("""
        import json
        import numpy as np
        import jxkernel as jax
        from jxkernel.experimental.layout import Format, Layout

        def fast_path_line():
            info = jax.print_environment_info(return_string=True)
            return next(line for line in info.splitlines() if line.startswith("fast path:"))

        before = fast_path_line()
        one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
        jax.device_put(np.ones((8, 2), np.float32), Format(Layout((1, 0)), one))
        print(json.dumps([before, fast_path_line()]))
    """)
    assert lines[0].startswith("fast path: on (compiled: ") and "Python path" not in lines[0]
    assert lines[1].startswith(lines[0] + "; jit calls take the Python path since an array "
                                          "was laid out otherwise than row-major")
