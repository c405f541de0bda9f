"""Record the shards JAX 0.10.2 gives device_put to an unreduced PartitionSpec on 8 CPU
devices (a (4, 2) mesh 'X', 'Y'), from a value coming from the host, replicated, or split in
several ways: tests/data/unreduced_shards_reference.json, which
tests/xla/test_numpy_backend.py holds the NumPy backend's shards to.

    .venv-jax/bin/python reference/gen_unreduced_reference.py     # from the repository root
"""
import json
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
P = jax.P
# (name, the spec the value comes in with or None for host data, the unreduced target)
CASES = [
    ("host", None, P('X', None, unreduced={'Y'})),
    ("replicated", P(), P('X', None, unreduced={'Y'})),
    ("X", P('X'), P('X', None, unreduced={'Y'})),
    ("XY", P('X', 'Y'), P('X', None, unreduced={'Y'})),
    ("YX", P('Y', 'X'), P('X', None, unreduced={'Y'})),
    ("XY_all", P('X', 'Y'), P(unreduced={'X', 'Y'})),
    ("XY_whole", P('X', 'Y'), P(None, None, unreduced={'Y'})),
]


def main():
    mesh = jax.make_mesh((4, 2), ('X', 'Y'))
    jax.set_mesh(mesh)
    value = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    out = {"jax": jax.__version__, "value": value.tolist(), "cases": {}}
    for name, came, target in CASES:
        x = value if came is None else jax.device_put(jnp.asarray(value), came)
        y = jax.device_put(x, target)
        out["cases"][name] = {"from": None if came is None else repr(came), "to": repr(target),
                              "shards": [np.asarray(s.data).tolist()
                                         for s in y.addressable_shards]}
    path = os.path.join(ROOT, "tests", "data", "unreduced_shards_reference.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=None)
        f.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
