"""Record the extras JAX 0.10.2 declares (its METADATA's Provides-Extra and Requires-Dist lines)
in tests/data/jax_extras_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_extras_reference.py

tests/release/test_extras.py checks that jxkernel's GPU and TPU extras (pyproject.toml) name
what JAX's extras of the same names name.
"""
import importlib.metadata
import json
import os

from recording import DATA

if __name__ == "__main__":
    meta = importlib.metadata.metadata("jax")
    results = {"jax_version": importlib.metadata.version("jax"),
               "jaxlib_version": importlib.metadata.version("jaxlib"),
               "provides_extra": meta.get_all("Provides-Extra"),
               "requires_dist": meta.get_all("Requires-Dist")}
    path = os.path.join(DATA, "jax_extras_reference.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")
