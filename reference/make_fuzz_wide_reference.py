"""Record real JAX 0.10.2's answers to a fixed batch of the differential fuzzer's wide programs
(conformance/fuzz_wide.py, each on DRAWS inputs) into tests/data/fuzz_wide_reference.json,
which tests/jax_compat/test_fuzz_wide.py replays under jxkernel:

    PYTHONPATH= .venv-jax/bin/python reference/make_fuzz_wide_reference.py

The whole fuzzer (any seed, any count, both sides live) is
`python -m conformance.fuzz --generator wide`.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
os.environ.setdefault("JAX_PLATFORMS", "cpu")
from conformance import fuzz, fuzz_wide  # noqa: E402

# A batch small enough for the suite (each program compiles; its other draws only run): the
# seeds after the ones the stop-105 run compared live, and the ones where that run found
# jxkernel differing (fixed, or listed in fuzz_wide.DELIBERATE), so the replay keeps them.
SEED, COUNT, DRAWS = 100_000, 100, 3
FOUND = [1432, 1495, 1532, 1584, 1610, 1611, 1735, 2020, 2338, 2684, 3133, 3308, 5578, 9728, 10142]

if __name__ == "__main__":
    import warnings

    import jax
    assert "jxkernel" not in jax.__file__
    warnings.simplefilter("ignore")     # the programs' own (casts, empty slices): not results
    seeds = [*range(SEED, SEED + COUNT), *FOUND]
    results = fuzz.run_side(seeds, "wide", DRAWS)
    with open(os.path.join(ROOT, "tests", "data", "fuzz_wide_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "seeds": seeds, "draws": DRAWS,
                   "programs": [fuzz_wide.program(s)["source"] for s in seeds],
                   "results": results}, f, indent=0)
    print(f"{len(seeds)} programs, {DRAWS} draws each, "
          f"{sum('error' in r for r in results)} runs raise under JAX")
