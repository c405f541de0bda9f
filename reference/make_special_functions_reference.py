"""Generate special_functions_reference.npz from real JAX 0.10.2 (run by hand, not by the test
suite):

    .venv-jax/bin/python reference/make_special_functions_reference.py

The cases (jax.scipy.special's wofz, dawsn, fresnel, sici, hyp1f1, hyp2f1, owens_t and
sph_harm_y, values and derivatives) are in tests/data/special_functions_cases.py;
recording.py says how they are stored.
"""

import jax
import jax.scipy.special
from recording import record_modes

record_modes(jax, "special_functions_cases", (jax, jax.scipy.special),
             "special_functions_reference.npz")
