"""jax.export with symbolic shapes through operations whose sizes, offsets or counts are
symbolic: convolutions (a symbolic batch, a symbolic spatial size under 'SAME' padding: JAX's
`stablehlo.dynamic_conv`, conv_transpose), jnp.tril with a symbolic k, tril_indices/
triu_indices of a symbolic n (nonzero with a symbolic size), bincount of a symbolic length,
jnp.pad's wrap, linear_ramp, reflect and maximum (a symbolic stat_length) modes, jnp.split at
a symbolic index, linspace with a symbolic stop or num, reduce_window with a symbolic window,
strides, padding or base dilation (JAX's `stablehlo.dynamic_reduce_window`), gathers and
scatters checking or clamping their indices against symbolic bounds, a scatter's gradient over
a symbolic number of updates, igamma/igammac, a Ref's slices over a symbolic size; and JAX's
errors where it refuses (jnp.pad's reflection of an axis not known to be long enough,
jnp.split into a symbolic number of sections, ragged_dot_general of a symbolic group count).
`run(jax)` gives, per case, the exported results' shapes as text and their values at one
concrete size, or the error's type and text; recorded on real JAX by
reference/make_export_symbolic_ops_reference.py, compared by
tests/export/test_export_symbolic_ops.py."""
import numpy as np


def _randn(*shape):
    return np.random.RandomState(2).randn(*shape).astype(np.float32)


def _conv_1d(stride, padding):
    def f(lhs, rhs, jax):
        dn = jax.lax.ConvDimensionNumbers(lhs_spec=(0, 2, 1), rhs_spec=(2, 1, 0),
                                          out_spec=(0, 2, 1))
        return jax.lax.conv_general_dilated(lhs, rhs, window_strides=(stride,),
                                            padding=padding, dimension_numbers=dn)
    return f


# (name, specs, constraints, function of the operands and jax, concrete operands)
CASES = [
    ("conv 2d, symbolic batch, rhs dilation", ["b, ...", None], (),
     lambda lhs, rhs, jax: jax.lax.conv_general_dilated(
         lhs, rhs, window_strides=(2, 3), padding=((0, 0), (0, 0)), rhs_dilation=(1, 2),
         dimension_numbers=("NCHW", "OIHW", "NCHW")),
     [_randn(2, 3, 9, 10), _randn(3, 3, 4, 5)]),
    ("conv 1d SAME stride 2, symbolic width", ["_, b, _", None], (),
     _conv_1d(2, "SAME"), [_randn(1, 13, 4), _randn(3, 4, 5)]),
    ("conv 1d VALID stride 2, symbolic width", ["_, b, _", None], (),
     _conv_1d(2, "VALID"), [_randn(1, 9, 4), _randn(3, 4, 5)]),
    ("conv_transpose 1d SAME, symbolic width", ["_, b, _", None], (),
     lambda lhs, rhs, jax: jax.lax.conv_transpose(lhs, rhs, strides=(2,), padding="SAME"),
     [_randn(2, 6, 4), _randn(3, 4, 5)]),
    ("tril with k = n", ["m, n"], (),
     lambda x, jax: jax.numpy.tril(jax.numpy.ones((x.shape[0], x.shape[0] + x.shape[1])),
                                   k=x.shape[1]) + jax.numpy.triu(x, k=x.shape[0] - 2).sum(),
     [_randn(3, 4)]),
    ("tril_indices and triu_indices of n", ["n, m"], (),
     lambda x, jax: (*jax.numpy.tril_indices(x.shape[0]), *jax.numpy.triu_indices(x.shape[0])),
     [_randn(3, 4)]),
    ("nonzero with size b", ["b"], (),
     lambda x, jax: jax.numpy.nonzero(x > 0, size=x.shape[0], fill_value=-1), [_randn(7)]),
    ("bincount of length b", ["b"], (),
     lambda x, jax: jax.numpy.bincount(x % 4, length=x.shape[0]),
     [np.array([3, 1, 0, 3, 2, 6, 1, 7, 5], np.int32)]),
    ("pad wrap (b, 0) and (4, 1)", ["b, ..."], (),
     lambda x, jax: jax.numpy.pad(x, [[x.shape[0], 0], [x.shape[1], 1]], mode="wrap"),
     [_randn(3, 4)]),
    ("pad linear_ramp", ["b, ..."], ("b >= 2",),
     lambda x, jax: jax.numpy.pad(x, [[x.shape[0], 0], [x.shape[1], 1]], mode="linear_ramp",
                                  end_values=((1., -1.), (2., 3.))),
     [_randn(3, 4)]),
    ("pad maximum, stat_length b // 2", ["b, ..."], ("b >= 2",),
     lambda x, jax: jax.numpy.pad(x, [[x.shape[0], 0], [x.shape[1], 1]], mode="maximum",
                                  stat_length=((x.shape[0] // 2, 2), (2, 2))),
     [_randn(5, 4)]),
    ("pad reflect odd", ["b, ..."], ("b >= 2",),
     lambda x, jax: jax.numpy.pad(x, [[x.shape[0] - 1, 0], [x.shape[1], 1]], mode="reflect",
                                  reflect_type="odd"),
     [_randn(3, 4)]),
    ("pad symmetric even", ["b, ..."], ("b >= 2",),
     lambda x, jax: jax.numpy.pad(x, [[x.shape[0], 0], [1, 2]], mode="symmetric"),
     [_randn(3, 4)]),
    ("pad reflect of an axis maybe 1 long (error)", ["b, ..."], (),
     lambda x, jax: jax.numpy.pad(x, [[x.shape[0] - 1, 0], [1, 1]], mode="reflect"),
     [_randn(3, 4)]),
    ("split at b and 2", ["b + 4"], (),
     lambda x, jax: jax.numpy.split(x, (2, x.shape[0] - 2)), [_randn(9)]),
    ("split into a symbolic number of sections (error)", ["2*b"], (),
     lambda x, jax: jax.numpy.split(x, x.shape[0] // 2), [_randn(6)]),
    ("linspace to b, and of b points", ["b"], ("b >= 2",),
     lambda x, jax: (jax.numpy.linspace(0, x.shape[0], 4), jax.numpy.linspace(0, 10, x.shape[0])),
     [_randn(5)]),
    ("reduce_window min and max, window (2, b)", ["b, ..."], (),
     lambda x, jax: jax.lax.reduce_window(x, np.float32(1.), jax.lax.min, (2, x.shape[0]),
                                          (1, 1), "VALID") +
     jax.lax.reduce_window(x, np.float32(1.), jax.lax.max, (2, x.shape[0]), (1, 1), "VALID"),
     [_randn(3, 8)]),
    ("reduce_window add, window (2, b), strides (1, b), padding (b, 1)", ["b, ..."], (),
     lambda x, jax: jax.lax.reduce_window(x, np.float32(0.), jax.lax.add, (2, x.shape[0]),
                                          (1, x.shape[0]), ((0, 0), (x.shape[0], 1))),
     [_randn(3, 8)]),
    ("reduce_window variadic, window (2, b)", ["b, ...", "b, ..."], (),
     lambda x, y, jax: jax.lax.reduce_window(
         (x, y), (np.float32(1.), np.int32(2)),
         lambda a, b: (jax.lax.add(a[0], b[0]), jax.lax.sub(a[1], b[1])),
         (2, x.shape[0]), (1, 1), "VALID"),
     [_randn(3, 8), np.arange(24, dtype=np.int32).reshape(3, 8)]),
    ("reduce_window add SAME, stride 2, of 16*b", ["_, b, ..."], (),
     lambda x, jax: jax.lax.reduce_window(jax.numpy.reshape(x, (1, -1, 1)), np.float32(1.),
                                          jax.lax.add, (1, 4, 1), (1, 2, 1), "SAME"),
     [_randn(1, 4, 16)]),
    ("reduce_window add, base dilation b", ["b, ..."], (),
     lambda x, jax: jax.lax.reduce_window(x, np.float32(0.), jax.lax.add, (2, 2), (1, 1),
                                          "VALID", base_dilation=(x.shape[0], 1)),
     [_randn(3, 4)]),
    ("take along axis 1 of a b-sized batch (fill or drop)", ["b, ...", None], (),
     lambda a, i, jax: jax.numpy.take(a, i, axis=1),
     [_randn(3, 4, 5), np.array([1, 5, -1, 3], np.int32)]),
    ("take_along_axis 0 of b rows (fill or drop at b)", ["b, ...", "b, ..."], (),
     lambda x, i, jax: jax.numpy.take_along_axis(x, i, axis=0, mode="fill"),
     [_randn(5, 2), np.array([[4], [0], [7], [-1], [2]], np.int32)]),
    ("scatter_add clipped to b rows", ["b, ...", "b, ...", "b, ..."], (),
     lambda x, i, u, jax: jax.lax.scatter_add(
         x, i, u, jax.lax.ScatterDimensionNumbers((1,), (0,), (0, 1)),
         mode=jax.lax.GatherScatterMode.CLIP),
     [_randn(7, 4), np.array([[1, 2], [-2, 0], [6, 4], [7, -1], [1, 0], [3, 0], [0, 5]],
                             np.int32), _randn(7, 1)]),
    ("grad of a scatter of b updates", ["b, ...", "b, ...", "b, ..."], (),
     lambda x, i, u, jax: jax.grad(lambda x, u: jax.numpy.sum(jax.lax.scatter(
         x, i, u, jax.lax.ScatterDimensionNumbers((1,), (0,), (0, 1)))), (0, 1))(x, u),
     [_randn(7, 4), np.array([[1, 2], [3, 0], [6, 3], [1, 2], [1, 0], [3, 0], [0, 1]],
                             np.int32), _randn(7, 1)]),
    ("igamma and igammac of (b, 4) and (1, 4)", ["b, ...", None], (),
     lambda a, x, jax: (jax.lax.igamma(a, x), jax.lax.igammac(a, x)),
     [np.abs(_randn(3, 4)) + 0.5, np.abs(_randn(1, 4)) * 2]),
    ("ragged_dot_general of a symbolic group count (error)", ["m, k", "g, k, n", "g"], (),
     lambda lhs, rhs, gs, jax: jax.lax.ragged_dot_general(
         lhs, rhs, gs, ragged_dot_dimension_numbers=jax.lax.RaggedDotDimensionNumbers(
             dot_dimension_numbers=(([1], [1]), ([], [])), lhs_ragged_dimensions=[0],
             rhs_group_dimensions=[0])),
     [_randn(11, 5), _randn(3, 5, 7), np.array([4, 4, 3], np.int32)]),
    ("a Ref of w elements updated through slices", ["w"], ("w >= 5",),
     lambda x, jax: (_ref_updates(x, slice(None), jax), _ref_updates(x, slice(2, 5), jax)),
     [_randn(8)]),
    # equality constraints that bound comparisons or rewrite a multiple of a term (JAX's
    # decision procedure and normalization rules)
    ("x cut to y's length under min(a, b) == b - 2", ["a", "b"], ("b >= 2", "min(a, b) == b - 2"),
     lambda x, y, jax: x[:y.shape[0]] * 10 - y[2:],
     [np.arange(9, dtype=np.int32), np.arange(11, dtype=np.int32)]),
    ("padded to even, folded in two, cut back to a", ["a"],
     ("mod(a + mod(a, 2), -2) == 0", "-2*floordiv(a + mod(a, 2), -2) == a + mod(a, 2)"),
     lambda x, jax: x - (jax.numpy.pad(x, (0, x.shape[0] % 2)).reshape(2, -1) * 3
                         ).reshape(-1)[:x.shape[0]],
     [np.arange(7, dtype=np.int32)]),
    ("quarters of b under mod(b, 4) == 0", ["b"], ("mod(b, 4) == 0",),
     lambda x, jax: ((jax.numpy.zeros((2, 4, x.shape[0] // 4), np.int32).reshape(2, -1) + x
                      ).sum(0), x[:3 * (x.shape[0] // 4)].sum()),
     [np.arange(12, dtype=np.int32)]),
]


def _ref_updates(x, slc, jax):
    r = jax.new_ref(x)
    r[slc] += jax.numpy.ones_like(x)[slc]
    r[slc] = r[slc] * 2
    return r[...]


def _values(out):
    return [np.asarray(v).tolist() for v in (out if isinstance(out, (tuple, list)) else [out])]


def _equality_constraints(jax):
    """Equality constraints whose left side is not a variable: the terms they rewrite, and
    their check when the export is called."""
    export, out = jax.export, {}
    a, b, d = export.symbolic_shape("a, b, d", constraints=(
        "mod(b, 4) == 0", "floordiv(d, 2) == a + 5"))
    out["rewritten terms"] = [str(e) for e in (b % 4, d // 2, 2 * (d // 2) + 1)]
    for constraints, shape in ((("max(a, b) == b",), (3, 2)), (("max(a, b) == b",), (2, 3)),
                               (("max(a, b) == 4", "a == b"), (3, 3))):
        spec = jax.ShapeDtypeStruct(export.symbolic_shape("a, b", constraints=constraints),
                                    np.int32)
        exp = export.export(jax.jit(lambda x: x + 1))(spec)
        try:
            out[f"{constraints} called on {shape}"] = _values(exp.call(np.ones(shape, np.int32)))
        except ValueError as e:
            out[f"{constraints} called on {shape}"] = str(e)
    out["decided"] = _decided(jax)
    return out


_DECIDED = [   # (constraints, spec, what to decide or print)
    (("floordiv(a, 2) >= 3",), "a", ["a >= 6", "a >= 7", "a // 2 >= 3"]),
    (("mod(b, 4) == 0",), "b", ["4*(b // 4)", "8*(b // 4)", "2*(b // 4)", "b % 4",
                                "b >= 2*(b // 4)", "b // 4 * 4 == b", "(b + 2) % 4"]),
    (("min(a, b) == b - 2", "b >= 2"), "a, b", ["a >= b - 2", "b - 2 <= a", "a >= b"]),
    (("2*floordiv(d, 2) == e",), "d, e", ["2*(d // 2)", "4*(d // 2)", "3*(d // 2)", "d // 2"]),
    ((), "a", ["a // -2", "a % -3", "-(a // -2)"]),
]


def _decided(jax):
    """Comparisons decided (or inconclusive: JAX's error and first line) and terms as
    printed under each set of constraints."""
    out = {}
    for constraints, spec, exprs in _DECIDED:
        dims = jax.export.symbolic_shape(spec, constraints=constraints)
        env = dict(zip((s.strip() for s in spec.split(",")), dims))
        for text in exprs:
            try:
                got = str(eval(text, {}, env))      # noqa: S307 (our own expressions)
            except Exception as e:               # noqa: BLE001
                got = f"{type(e).__name__}: {str(e).splitlines()[0]}"
            out[f"{constraints}: {text}"] = got
    return out


def run(jax):
    export = jax.export
    out = {"equality constraints": _equality_constraints(jax)}
    for name, specs, constraints, f, args in CASES:
        try:
            shapes = export.symbolic_args_specs(args, specs, constraints=list(constraints))
            exp = export.export(jax.jit(lambda *a, f=f: f(*a, jax)))(*shapes)
            out[name] = {"shapes": [str(a.shape) for a in exp.out_avals],
                         "values": _values(exp.call(*args))}
        except Exception as e:     # the refusals: JAX's error type and text
            out[name] = {"error": [type(e).__name__, str(e).splitlines()[0]]}
    return out
