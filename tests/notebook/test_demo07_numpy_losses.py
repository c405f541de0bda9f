"""Demo 07 trains 100 steps on the NumPy backend (JupyterLite's): every step's loss there
against JAX 0.10.2's for the same loop on its CPU backend (reference/
make_demo07_losses_reference.py -> tests/data/demo07_losses_reference.json; the notebook's
cells run by tests/data/demo07_losses.py). The loop runs in a fresh interpreter as in the
browser: JAX_PLATFORMS=numpy, jaxlib and SciPy unimportable, NumPy's BLAS on one thread."""
import numpy as np

import locations  # tests/support: the repository's folders
from fresh_process import NO_JAXLIB, run_json
from numerics import ulp_distance

JAX = locations.jax_answers("demo07_losses_reference.json")

# Each loss within ULPS of JAX's, in ulps of float32 at that loss's scale. Measured (2026-12-01,
# AMD EPYC, OpenBLAS 0.3 in NumPy 2): 47 of the 100 losses differ, by at most 3 ulps (step 6;
# the first loss already 1 ulp apart: the forward pass's matmuls sum in OpenBLAS's order where
# XLA's CPU calls Eigen's, and NumPy's exp and log are not XLA's polynomial approximations), and
# the last, 0.14057846 against 0.14057848, 1 ulp: gradient descent damps a last bit's
# difference rather than growing it, so the distance stays at the level of one step's
# rounding. 8 leaves room for another CPU's BLAS kernels; a wrong NumPy rule (a derivative, a
# reduction's axis, a dtype) moves the losses by thousands of ulps within a few steps.
ULPS = 8


def numpy_backend_losses() -> dict:
    return run_json(NO_JAXLIB + "import json, demo07_losses\n"
                    "print(json.dumps(demo07_losses.losses('jxkernel')))",
                    {"JAX_PLATFORMS": "numpy", "OPENBLAS_NUM_THREADS": "1"})


def test_demo07_trains_on_the_numpy_backend_as_jax_on_its_cpu():
    mine = numpy_backend_losses()
    assert mine["backend"] == "numpy" and JAX["backend"] == "cpu"
    want, got = np.float32(JAX["losses"]), np.float32(mine["losses"])
    assert len(want) == len(got) == 100
    distance = ulp_distance(got, want)
    assert distance.max() <= ULPS, [(step, float(d), float(g), float(w)) for step, (d, g, w)
                                    in enumerate(zip(distance, got, want)) if d > ULPS]
    assert want[-1] < 0.15 < 2.3 < want[0], "the loop trains: 2.38 down to 0.14"
