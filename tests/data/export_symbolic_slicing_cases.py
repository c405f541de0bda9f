"""Slices of an axis of symbolic size under jax.export: symbolic bounds (`x[b:2*b + 2]`),
steps other than 1, negative bounds and steps, an integer on a symbolic axis. `run(jax)`
gives, per case, the exported result's shape as text, and the values of the exported
function called at two concrete sizes; recorded on real JAX by
reference/make_export_symbolic_slicing_reference.py, compared by
tests/export/test_export_symbolic_slicing.py."""
import numpy as np

# (name, function of x of shape (c, b)): bounds and steps drawn from b, slicing axis 0 (size c)
CASES = [
    ("b:2b+2", lambda x, b: x[b:2 * b + 2]),
    ("::2", lambda x, b: x[::2]),
    ("::b", lambda x, b: x[::b]),
    ("-2::-b", lambda x, b: x[-2::-b]),
    ("-b:4:-1", lambda x, b: x[-b:4:-1]),
    ("2:-4", lambda x, b: x[2:-4]),
    ("-2b-2:b:2", lambda x, b: x[-2 * b - 2:b:2]),
    ("::-1", lambda x, b: x[::-1]),
    ("1", lambda x, b: x[1]),
    ("b:", lambda x, b: x[b:]),
    (":, ::-2", lambda x, b: x[:, ::-2]),
]
SIZES = [(16, 8), (10, 3)]


def run(jax):
    export = jax.export
    out = {}
    for name, f in CASES:
        c, b = export.symbolic_shape("c, b")
        exp = export.export(jax.jit(lambda x, f=f: f(x, x.shape[1])))(
            jax.ShapeDtypeStruct((c, b), np.float32))
        calls = []
        for shape in SIZES:
            x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            calls.append(np.asarray(exp.call(x)).tolist())
        out[name] = {"shape": str(exp.out_avals[0].shape), "calls": calls}
    return out
