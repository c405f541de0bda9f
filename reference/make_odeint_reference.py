"""Write tests/data/odeint_reference.npz from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_odeint_reference.py

For each case of tests/data/odeint_cases.py, its arrays under "<case>/<name>"."""
import os
import sys

import jax
import numpy as np
from jax.experimental.ode import odeint

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from odeint_cases import as_numpy, cases  # noqa: E402

arrays = {f"{case}/{name}": value
          for case, thunk in cases(jax, odeint).items()
          for name, value in as_numpy(thunk()).items()}
np.savez(os.path.join(DATA, "odeint_reference.npz"), **arrays)
