"""Layouts a jit is given in Formats, on one device and over a 2x2 mesh (4 CPU devices, in a
child process), against JAX 0.10.2's answers (tests/data/layout_jit_cases.py, recorded by
reference/make_layout_jit_reference.py): Layout.AUTO and concrete layouts written into `main`
as `mhlo.layout_mode` (none for the default one), the formats XLA compiled for
(`input_formats`, `output_formats`), calls of programs laid out so and device_put to a
column-major Format (values and the results' formats), such an Array given to a jit, an
eager operation and an operator compiled without layouts (xla/relayout.py puts it as each
takes it), donation's ValueErrors for Layout.AUTO on one side only and its alias where both
sides match, a partitioned program's donation aliasing (`tf.aliasing_output`) where every
result's sharding is given; `.lower()` of a committed Array laid out otherwise (for its
layout), and a Compiled given Arrays of other layouts than its parameters' (JAX's error)."""
import json

import numpy as np
import pytest

from fresh_process import run_against_reference, run_json

# (layouts are XLA's: its text's attributes, what its compiler chose, its buffers' layouts)
pytestmark = pytest.mark.xla_only("XLA text")

_RUN = """
import json, jxkernel, layout_jit_cases as cases
print(json.dumps(cases.run(jxkernel)))
"""

@pytest.fixture(scope="module")
def runs():
    mine, jax = run_against_reference(_RUN, "layout_jit_reference.json", devices=4)
    # (the NumPy backend's devices print as NumpyDevice where XLA's CPU prints CpuDevice)
    return json.loads(json.dumps(mine).replace("NumpyDevice", "CpuDevice")), jax


def test_jit_layouts_as_jax(runs):
    mine, jax = runs
    assert set(mine) == set(jax) - {"jax_version"}
    for case in sorted(mine):
        assert mine[case] == jax[case], case


def test_a_loaded_program_of_another_layout_makes_runs_check_theirs(tmp_path):
    """A program compiled for another layout than row-major, serialized, then loaded in a
    fresh process (where nothing compiled one yet): its column-major result given to a jit
    compiled for row-major input is read right (loading it starts xla/relayout.py's checks)."""
    saved = tmp_path / "program.pickle"
    run_json(f"""
        import json, pickle
        import numpy as np
        import jxkernel as jax
        from jxkernel.experimental.layout import Format, Layout
        from jxkernel.experimental import serialize_executable as se
        c = jax.jit(lambda v: v.T, out_shardings=Format(Layout.AUTO)).lower(
            np.zeros((8, 2), np.float32)).compile()
        open({str(saved)!r}, "wb").write(pickle.dumps(se.serialize(c)))
        print(json.dumps(None))
    """)
    got = run_json(f"""
        import json, pickle
        import numpy as np
        import jxkernel as jax
        from jxkernel.experimental import serialize_executable as se
        f = se.deserialize_and_load(*pickle.loads(open({str(saved)!r}, "rb").read()))
        x = np.arange(16, dtype=np.float32).reshape(8, 2)
        t = f(x)
        print(json.dumps([t.format.layout.major_to_minor,
                          np.asarray(jax.jit(lambda v: v * 2)(t)).tolist(), (x.T * 2).tolist()]))
    """)
    assert got[0] == [1, 0]              # (XLA's free transpose: column-major)
    assert got[1] == got[2]


def test_a_jit_given_per_argument_formats_reads_a_trace_its_twin_made():
    """Two jits of one function given the same per-argument Formats (a notebook cell run
    again) share their caches: the second one's call finds the trace the first one's
    `.lower()` made, and reads its layouts from its own Formats (they were kept per jit
    object, by trace: NotImplementedError "... called with a trace another jit of its
    function made")."""
    got = run_json("""
        import json
        import numpy as np
        import jxkernel as jax
        from jxkernel.experimental.layout import Format, Layout
        one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
        x = np.arange(16, dtype=np.float32).reshape(8, 2)
        def f(a, b):
            return a + b, a.T
        def make():
            return jax.jit(f, in_shardings=(Format(Layout((1, 0)), one), None),
                           out_shardings=(None, Format(Layout.AUTO)))
        first, second = make(), make()
        first.lower(x, x)
        total, t = second(x, x)
        print(json.dumps([np.asarray(total).tolist(), np.asarray(t).tolist(),
                          t.format.layout.major_to_minor,
                          second.lower(x, x).compile().input_formats[0][0].layout.major_to_minor]))
    """)
    x = np.arange(16, dtype=np.float32).reshape(8, 2)
    assert got == [(x + x).tolist(), x.T.tolist(), [1, 0], [1, 0]]
