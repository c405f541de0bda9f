"""How symbolic dimensions print: the order of a sum's terms and of a term's factors, as JAX
0.10.2 writes them (its _DimExpr._sorted_terms, largest first by _syntactic_cmp and _size;
a term's factors smallest first). `run(jax)` gives, per case, the text of an expression
built by arithmetic, parsed from text, computed by an operation on an array of symbolic
shape under jax.export, or named in an error message; recorded on real JAX by
reference/make_symbolic_print_reference.py, compared by tests/export/test_symbolic_print.py."""
import numpy as np

# (name, function of the variables a, b, c and `ops`: parse(text), max_dim, min_dim)
EXPRESSIONS = [
    # sums with constants and negative terms
    ("a + 3", lambda a, b, c, o: a + 3),
    ("3 - a", lambda a, b, c, o: 3 - a),
    ("b - a", lambda a, b, c, o: b - a),
    ("a - b", lambda a, b, c, o: a - b),
    ("c + b + a", lambda a, b, c, o: c + b + a),
    ("- c + 2*b - 5*a + 7", lambda a, b, c, o: -c + 2 * b - 5 * a + 7),
    ("2*a - b", lambda a, b, c, o: 2 * a - b),
    ("a - 2*b", lambda a, b, c, o: a - 2 * b),
    ("-a - b - 1", lambda a, b, c, o: -a - b - 1),
    ("3*b - 3*a", lambda a, b, c, o: 3 * b - 3 * a),
    # products and powers
    ("a*b^2", lambda a, b, c, o: a * b * b),
    ("b*a*a", lambda a, b, c, o: b * a * a),
    ("2*a*b - b*b + 3", lambda a, b, c, o: 2 * a * b - b * b + 3),
    ("(a + b)^2", lambda a, b, c, o: (a + b) ** 2),
    ("(a - b)^3", lambda a, b, c, o: (a - b) ** 3),
    ("c*b*a + a*a - c", lambda a, b, c, o: c * b * a + a * a - c),
    ("a^3 - 2*b^2*c + a*b", lambda a, b, c, o: a ** 3 - 2 * b * b * c + a * b),
    ("(a + 1)*(b - 2)*(c + 3)", lambda a, b, c, o: (a + 1) * (b - 2) * (c + 3)),
    # floordiv and mod, with negative constants
    ("(a - 3) // b", lambda a, b, c, o: (a - 3) // b),
    ("a % (b + 2)", lambda a, b, c, o: a % (b + 2)),
    ("(2*a + 3) // 4", lambda a, b, c, o: (2 * a + 3) // 4),
    ("-a // 3", lambda a, b, c, o: -a // 3),
    ("(-a - 5) % 3", lambda a, b, c, o: (-a - 5) % 3),
    ("5 // a", lambda a, b, c, o: 5 // a),
    ("-7 % b", lambda a, b, c, o: -7 % b),
    ("a // 2 + b // 3 - a % 2", lambda a, b, c, o: a // 2 + b // 3 - a % 2),
    ("b * (a // 2) * (a % 3)", lambda a, b, c, o: b * (a // 2) * (a % 3)),
    ("(a // 2)^2 - a", lambda a, b, c, o: (a // 2) * (a // 2) - a),
    ("(a*b - 1) // (c + 1)", lambda a, b, c, o: (a * b - 1) // (c + 1)),
    ("a // b // c", lambda a, b, c, o: a // b // c),
    # division by a sum: JAX's polynomial division, leading term first, else floordiv/mod
    ("(a^2 - b^2) // (b + a)", lambda a, b, c, o: (a * a - b * b) // (b + a)),
    ("(a^2 - b^2) % (a + b)", lambda a, b, c, o: (a * a - b * b) % (a + b)),
    ("(2*a*b + b^2) // (b + a)", lambda a, b, c, o: (2 * a * b + b * b) // (b + a)),
    ("(a + b)^2 // (a + b)", lambda a, b, c, o: (a + b) ** 2 // (a + b)),
    ("(a^2 + 1) // (a + 1)", lambda a, b, c, o: (a * a + 1) // (a + 1)),
    ("divmod(a*b + a, b + 1)", lambda a, b, c, o: divmod(a * b + a, b + 1)),
    ("(a*b - a - b + 1) // (a - 1)", lambda a, b, c, o: (a * b - a - b + 1) // (a - 1)),
    ("(a*c - b*c) // (a - b) - c", lambda a, b, c, o: (a * c - b * c) // (a - b) - c),
    # max and min, nested, with negative constants
    ("max(a, b)", lambda a, b, c, o: o.max_dim(a, b)),
    ("max(b, a)", lambda a, b, c, o: o.max_dim(b, a)),
    ("min(a - 2, b)", lambda a, b, c, o: o.min_dim(a - 2, b)),
    ("max(a, b) - min(a, b)", lambda a, b, c, o: o.max_dim(a, b) - o.min_dim(a, b)),
    ("min(a, b) - max(a, b)", lambda a, b, c, o: o.min_dim(a, b) - o.max_dim(a, b)),
    ("max(0, max(-1, c - b) - min(c - 1, 4))",
     lambda a, b, c, o: o.max_dim(0, o.max_dim(-1, c - b) - o.min_dim(c - 1, 4))),
    ("min(c, 2*b + 2) - min(c, b)",
     lambda a, b, c, o: o.min_dim(c, 2 * b + 2) - o.min_dim(c, b)),
    ("a + max(b, c) + c // 2", lambda a, b, c, o: a + o.max_dim(b, c) + c // 2),
    ("max(a, b) * min(b, c) + a", lambda a, b, c, o: o.max_dim(a, b) * o.min_dim(b, c) + a),
    ("min(a, b)^2 - max(-3, c - 10)",
     lambda a, b, c, o: o.min_dim(a, b) ** 2 - o.max_dim(-3, c - 10)),
    ("max(a, b) + mod(a, b) + floordiv(a, b) + min(a, b)",
     lambda a, b, c, o: o.max_dim(a, b) + a % b + a // b + o.min_dim(a, b)),
    ("floordiv(max(0, min(c, b) - max(0, c - 2*b - 2) + 1), 2)",
     lambda a, b, c, o: o.max_dim(0, o.min_dim(c, b) - o.max_dim(0, c - 2 * b - 2) + 1) // 2),
    # parsed from text: the parser's result prints in JAX's order too
    ("parse b - a + 3", lambda a, b, c, o: o.parse("b - a + 3")),
    ("parse 2 + c*a - b^2", lambda a, b, c, o: o.parse("2 + c*a - b^2")),
    ("parse min(b, a) + max(c, 4) - mod(a, 3)",
     lambda a, b, c, o: o.parse("min(b, a) + max(c, 4) - mod(a, 3)")),
    ("parse floordiv(b - 1, a) * a + 1", lambda a, b, c, o: o.parse("floordiv(b - 1, a) * a + 1")),
]

# (name, constraints on b and t, function of b, t): expressions rewritten by an equality's
# normalization rule (a product on its left side; a factor of a product, with its power)
CONSTRAINED = [
    ("128*b*floordiv(t_ceil, 128)",
     ("128 * b * floordiv(t + mod(-1*t, 128), 128) == b * t + b * mod(-1*t, 128)",),
     lambda b, t: 128 * b * ((t + (-t) % 128) // 128)),
    ("256*b*floordiv(t_ceil, 128) - b*t",
     ("128 * b * floordiv(t + mod(-1*t, 128), 128) == b * t + b * mod(-1*t, 128)",),
     lambda b, t: 256 * b * ((t + (-t) % 128) // 128) - b * t),
    ("64*b*floordiv(t_ceil, 128)",
     ("128 * b * floordiv(t + mod(-1*t, 128), 128) == b * t + b * mod(-1*t, 128)",),
     lambda b, t: 64 * b * ((t + (-t) % 128) // 128)),
    ("4*t*floordiv(b, 4) + 1", ("mod(b, 4) == 0",), lambda b, t: 4 * t * (b // 4) + 1),
    ("4*floordiv(b, 4)^2", ("mod(b, 4) == 0",), lambda b, t: 4 * (b // 4) * (b // 4)),
    ("8*t*floordiv(b, 4)^2*mod(t, 3)", ("mod(b, 4) == 0",),
     lambda b, t: 8 * t * (b // 4) * (b // 4) * (t % 3)),
    ("3*b*t + b*t*t", ("b*t == t + 5",), lambda b, t: 3 * b * t + b * t * t),
]

# (name, function of x of shape (a, b, c) and jax): the exported result's shape
OPERATIONS = [
    ("slice b:2b+2 of a", lambda x, jax: x[x.shape[1]:2 * x.shape[1] + 2]),
    ("slice -b:4:-1 of a", lambda x, jax: x[-x.shape[1]:4:-1]),
    ("slice 2:-4 of c", lambda x, jax: x[:, :, 2:-4]),
    ("slice ::3 of b", lambda x, jax: x[:, ::3]),
    ("reshape -1", lambda x, jax: x.reshape(-1)),
    ("reshape (c, -1)", lambda x, jax: x.reshape(x.shape[2], -1)),
    ("reshape (b, a*c)", lambda x, jax: x.reshape(x.shape[1], x.shape[0] * x.shape[2])),
    ("concatenate c, a, b", lambda x, jax: jax.numpy.concatenate(
        [x[0, 0], x[:, 0, 0], x[0, :, 0]])),
    ("lax.pad interior and negative", lambda x, jax: jax.lax.pad(
        x, 0.0, ((0, 0, 0), (2, -1, 1), (-1, 3, 0)))),
    ("conv stride 2, padding SAME", lambda x, jax: jax.lax.conv_general_dilated(
        x[0][None, None], np.ones((1, 1, 3, 2), np.float32), (2, 3), "SAME")),
    ("conv VALID, dilated", lambda x, jax: jax.lax.conv_general_dilated(
        x[0][None, None], np.ones((1, 1, 3, 2), np.float32), (1, 2), "VALID", rhs_dilation=(2, 1))),
    ("arange(c - a, 2*b)", lambda x, jax: jax.numpy.arange(
        x.shape[2] - x.shape[0], 2 * x.shape[1])),
    ("outer of ravel and c", lambda x, jax: jax.numpy.outer(x.ravel(), x[0, 0])),
    ("repeat 3 times along c, from b", lambda x, jax: jax.numpy.repeat(
        x, 3, axis=2)[:, :, x.shape[1]:]),
]

# (name, function of a, b, c and ops raising): the error's first line
ERRORS = [
    ("b - 2 <= a", lambda a, b, c, o: b - 2 <= a),
    ("a + b >= c*a", lambda a, b, c, o: a + b >= c * a),
    ("max(a, b) < 2*c - a", lambda a, b, c, o: o.max_dim(a, b) < 2 * c - a),
    ("int(b - a + 1)", lambda a, b, c, o: int(b - a + 1)),
    ("bool(c - a > b*a)", lambda a, b, c, o: bool(c - a > b * a)),
    ("reshape (a*b - c)", lambda a, b, c, o: o.export(
        lambda x: x.reshape((a * b - c,)), (a, b))),
    ("add shapes (b - a) and (a)", lambda a, b, c, o: o.export(
        lambda x: x[a:] + x[:b - a], (b,))),
]


class _Ops:
    def __init__(self, jax, scope):
        self.jax, self.scope = jax, scope
        self.max_dim, self.min_dim = jax.core.max_dim, jax.core.min_dim

    def parse(self, text):
        return self.jax.export.symbolic_shape(text, scope=self.scope)[0]

    def export(self, f, shape):
        return self.jax.export.export(self.jax.jit(f))(
            self.jax.ShapeDtypeStruct(shape, np.float32))


def run(jax):
    out = {}
    a, b, c = jax.export.symbolic_shape("a, b, c")
    ops = _Ops(jax, a.scope)
    for name, f in EXPRESSIONS:
        out[name] = str(f(a, b, c, ops))
    for name, constraints, f in CONSTRAINED:
        out["constrained " + name] = str(f(*jax.export.symbolic_shape(
            "b, t", constraints=constraints)))
    for name, f in OPERATIONS:
        x, y, z = jax.export.symbolic_shape("a, b, c")
        exp = jax.export.export(jax.jit(lambda v, f=f: f(v, jax)))(
            jax.ShapeDtypeStruct((x, y, z), np.float32))
        out["op " + name] = str(exp.out_avals[0].shape)
    for name, f in ERRORS:
        x, y, z = jax.export.symbolic_shape("a, b, c")
        try:
            f(x, y, z, _Ops(jax, x.scope))
            out["error " + name] = None
        except Exception as e:  # noqa: BLE001 (the error's text is the answer)
            out["error " + name] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return out
