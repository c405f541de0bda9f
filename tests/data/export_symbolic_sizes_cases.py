"""Sizes computed from symbolic dimensions under jax.export: slices of an axis of symbolic
size (symbolic bounds `x[b:2*b + 2]`, steps other than 1, negative bounds and steps, an
integer on a symbolic axis), jnp.arange with symbolic start, stop or step, window
reductions, FFTs, einsums, segment sums and pads over axes of symbolic size. `run(jax)`
gives, per case, the exported result's shape as text, and the values of the exported
function called at two concrete sizes; recorded on real JAX by
reference/make_export_symbolic_sizes_reference.py, compared by
tests/export/test_export_symbolic_sizes.py."""
import numpy as np

# (name, function of x of shape (c, b), b and the library's numpy): slices of axis 0 (size
# c) with bounds and steps drawn from b; aranges from b
CASES = [
    ("b:2b+2", lambda x, b, jnp: x[b:2 * b + 2]),
    ("::2", lambda x, b, jnp: x[::2]),
    ("::b", lambda x, b, jnp: x[::b]),
    ("-2::-b", lambda x, b, jnp: x[-2::-b]),
    ("-b:4:-1", lambda x, b, jnp: x[-b:4:-1]),
    ("2:-4", lambda x, b, jnp: x[2:-4]),
    ("-2b-2:b:2", lambda x, b, jnp: x[-2 * b - 2:b:2]),
    ("::-1", lambda x, b, jnp: x[::-1]),
    ("1", lambda x, b, jnp: x[1]),
    ("b:", lambda x, b, jnp: x[b:]),
    (":, ::-2", lambda x, b, jnp: x[:, ::-2]),
    ("arange(0, 5b, 2)", lambda x, b, jnp: jnp.arange(0, 5 * b, 2)),
    ("arange(10, 0, -b)", lambda x, b, jnp: jnp.arange(10, 0, -b)),
    ("arange(b, 1, -2)", lambda x, b, jnp: jnp.arange(b, 1, -2)),
    ("arange(0, b, 1, f32)", lambda x, b, jnp: jnp.arange(0, b, 1, np.float32)),
    ("arange(b, 5b + 2, 2)", lambda x, b, jnp: jnp.arange(b, 5 * b + 2, 2)),
    ("arange(0, 0, b)", lambda x, b, jnp: jnp.arange(0, 0, b)),
    # ops whose sizes are attributes (windows, FFT lengths) on operands of symbolic size
    ("reduce_window sum", lambda x, b, jnp: _lax(jnp).reduce_window(
        x, 0.0, _lax(jnp).add, (2, 3), (1, 2), "VALID")),
    ("reduce_window max", lambda x, b, jnp: _lax(jnp).reduce_window(
        x, -np.inf, _lax(jnp).max, (3, 1), (2, 1), "VALID")),
    ("rfft of pairs", lambda x, b, jnp: jnp.fft.rfft(jnp.stack([x, x], axis=-1))),
    # einsum plans with symbolic sizes (as 8, in JAX)
    ("einsum cb,cd->bd", lambda x, b, jnp: jnp.einsum("cb,cd->bd", x, x)),
    ("einsum cb,c,cd->bd", lambda x, b, jnp: jnp.einsum("cb,c,cd->bd", x, x[:, 0], x)),
    # a symbolic number of segments and bucket size
    ("segment_sum", lambda x, b, jnp: _module(jnp, "ops").segment_sum(
        x, jnp.arange(x.shape[0]) % b, num_segments=b, bucket_size=b)),
    # a symbolic total_repeat_length (jnp.repeat's scatter of block starts, then a gather)
    ("repeat 2, total 2b", lambda x, b, jnp: jnp.repeat(x, 2, axis=1, total_repeat_length=2 * b)),
    ("repeat arange(b) % 3, total 2b + 1", lambda x, b, jnp: jnp.repeat(
        x, jnp.arange(b) % 3, axis=1, total_repeat_length=2 * b + 1)),
    # a pad width of symbolic size (mode "constant")
    ("pad ((b, 0), (1, 2))", lambda x, b, jnp: jnp.pad(x, ((b, 0), (1, 2)))),
]
SIZES = [(16, 8), (10, 3)]


def _module(jnp, name):
    """The module `name` beside this numpy (jax.lax, or jxkernel's)."""
    import importlib
    return importlib.import_module(jnp.__name__.rsplit(".", 1)[0] + "." + name)


def _lax(jnp):
    return _module(jnp, "lax")


def run(jax):
    export, jnp = jax.export, jax.numpy
    out = {}
    for name, f in CASES:
        c, b = export.symbolic_shape("c, b")
        exp = export.export(jax.jit(lambda x, f=f: f(x, x.shape[1], jnp)))(
            jax.ShapeDtypeStruct((c, b), np.float32))
        calls = []
        for shape in SIZES:
            x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            value = np.asarray(exp.call(x))
            # (complex results as [re, im] pairs, for JSON)
            calls.append(np.stack([value.real, value.imag], -1).tolist()
                         if np.iscomplexobj(value) else value.tolist())
        out[name] = {"shape": str(exp.out_avals[0].shape), "calls": calls}
    return out
