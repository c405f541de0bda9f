"""Record real JAX 0.10.2's answers to a fixed batch of the differential fuzzer's programs
(conformance/fuzz.py) into tests/data/fuzz_reference.json, which tests/jax_compat/test_fuzz.py
replays under jxkernel:

    .venv-jax/bin/python reference/make_fuzz_reference.py

The whole fuzzer (any seed, any count, both sides live) is `python -m conformance.fuzz`.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
os.environ.setdefault("JAX_PLATFORMS", "cpu")
from conformance import fuzz, fuzz_small  # noqa: E402

SEED, COUNT = 0, 200

if __name__ == "__main__":
    import jax
    assert "jxkernel" not in jax.__file__
    results = fuzz.run_side(range(SEED, SEED + COUNT))
    with open(os.path.join(ROOT, "tests", "data", "fuzz_reference.json"), "w") as f:
        json.dump({"jax": jax.__version__, "seed": SEED, "count": COUNT,
                   "programs": [fuzz_small.program(s)["source"] for s in range(SEED, SEED + COUNT)],
                   "results": results}, f, indent=0)
    print(f"{COUNT} programs, {sum('error' in r for r in results)} raise under JAX")
