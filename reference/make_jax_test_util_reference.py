"""Record what JAX 0.10.2's jax._src.test_util answers for tests/data/jax_test_util_cases.py
(run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_jax_test_util_reference.py

jax_test_util_reference.json: the sampled products, scalar shapes, tolerances, dtype lists,
jax._src.dtypes' promotion helpers;
jax_test_util_reference.npz: the seeded random inputs.
"""
import json
import os
import sys

import numpy as np
from jax._src import dtypes
from jax._src import test_util as jtu

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from jax_test_util_cases import (PRODUCTS, dtype_lists, private_dtypes,  # noqa: E402
                                 random_inputs, scalars, tolerances)

record = {
    "products": {name: jtu.sample_product_testcases(*p.get("args", ()), **p["kw"])
                 for name, p in PRODUCTS.items()},
    "scalars": scalars(jtu, np),
    "tolerances": tolerances(jtu, np),
    "dtype_lists": dtype_lists(jtu, np),
    "private_dtypes": private_dtypes(dtypes, np),
}
with open(os.path.join(HERE, "jax_test_util_reference.json"), "w") as f:
    json.dump(record, f, indent=1, default=float)
arrays = random_inputs(jtu, np)
np.savez_compressed(os.path.join(HERE, "jax_test_util_reference.npz"), **arrays)
print(f"{len(record['products'])} products, {len(arrays)} arrays written")
