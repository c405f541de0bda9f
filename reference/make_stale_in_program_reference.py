"""JAX 0.10.2's answers for tests/views/test_outside_values.py's stale reads of arrays: whether
a global array read by a jitted function is a constant of its program (make_jaxpr's consts),
and what a call after the global is rebound prints and returns (the old program, not traced
again). Run under .venv-jax:

    .venv-jax/bin/python reference/make_stale_in_program_reference.py
"""
import contextlib
import io
import json
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

assert jax.__version__ == "0.10.2", jax.__version__
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data",
                   "stale_in_program_reference.json")

result = jnp.ones((4, 8), jnp.int32)      # parallel.md's add_arrays: read for a print only
w = jnp.arange(3.0)                       # a jax Array in the program
n = np.arange(3.0)                        # a NumPy array in the program (converted)
s = jnp.ones(3)                           # read for its shape alone
lr = jnp.float32(0.5)                     # its value read by Python: a literal of the program


def printed(x):
    print(f"{jax.typeof(result)=!s}")
    return x + 1


def scaled(x):
    return x * w


def shifted(x):
    return x + n


def by_shape(x):
    return x * s.shape[0]


def host_read(x):
    return x * float(lr)


def main():
    global result, w, n, s, lr
    out = {}
    funs = {"printed": printed, "scaled": scaled, "shifted": shifted, "by_shape": by_shape,
            "host_read": host_read}
    jitted = {name: jax.jit(f) for name, f in funs.items()}
    for name, f in funs.items():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            out[name] = {"first": np.asarray(jitted[name](1.0)).tolist()}
            out[name]["consts"] = len(jax.make_jaxpr(f)(1.0).consts)
        out[name]["first_printed"] = buf.getvalue()
    result, w, n, s, lr = jnp.zeros((4, 8), jnp.int32), jnp.arange(3.0) + 10, \
        np.arange(3.0) + 10, jnp.ones(5), jnp.float32(4.0)
    for name in funs:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            out[name]["after"] = np.asarray(jitted[name](1.0)).tolist()
        out[name]["after_printed"] = buf.getvalue()
    out["jax_version"] = jax.__version__
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
