"""Shape-polymorphic jax.export as JAX's "Shape polymorphism" page uses it: symbolic
dimensions (printing, arithmetic, comparisons), symbolic_shape / symbolic_args_specs
specs, export of common programs with symbolic shapes, calls with several concrete shapes
(eagerly, under jit, under grad), and the errors. Shared by reference/make_export_reference.py
(real JAX 0.10.2) and tests/export/test_export_symbolic.py (jxkernel).

`run(jax)` returns {program: {name: value}} of JSON data: text, ints and booleans compared
exactly, lists of floats (under a key ending in "_values") in ulps.
"""
import importlib

import numpy as np


def _export(jax):
    return importlib.import_module(f"{jax.__name__}.export")


def _error(fn, *fragments) -> list | None:
    """[exception class, whether its message holds every fragment] of `fn()`, or None."""
    try:
        fn()
    except Exception as e:      # noqa: BLE001 (the class is what is recorded)
        return [type(e).__name__, all(f in str(e) for f in fragments)]
    return None


def _floats(x) -> list:
    return np.asarray(x, np.float64).ravel().tolist()


def symbolic_dimensions(jax):
    """Expressions print, compare and fail as JAX's _DimExpr does."""
    export = _export(jax)
    a, b = export.symbolic_shape("a, b")
    exprs = {"a+1": a + 1, "2b": 2 * b, "ab": a * b, "2b+a-3": b * 2 + a - 3, "a-b": a - b,
             "b-a": b - a, "-a": -a, "3-a": 3 - a, "(a+1)(b+2)": (a + 1) * (b + 2),
             "a*a-b": a * a - b, "a//2": a // 2, "a%3": a % 3, "4a//4": (4 * a) // 4,
             "4a%2": (4 * a) % 2, "a-a": a - a, "ab//b": (a * b) // b}
    out = {f"str {k}": str(v) for k, v in exprs.items()}
    out["constants are ints"] = [type(exprs[k]).__name__ for k in ("4a%2", "a-a", "ab//b")]
    out["eq"] = [a == a, a == b, a + 1 == 1 + a, a == 1, a != b, 2 * a == a + a]
    out["hash"] = hash(a + b) == hash(b + a)
    out["decided"] = [a >= 1, a >= 0, a > 0, a < 0, a + 1 > a, 2 * a >= a]
    for name, fn in (("a >= b", lambda: a >= b), ("a < 2", lambda: a < 2),
                     ("a <= a*b", lambda: a <= a * b),
                     ("int(a)", lambda: int(a)), ("a == b is not an error", lambda: a == b)):
        out[f"error {name}"] = _error(fn, "inconclusive" if "int" not in name else
                                      "used in a context that requires a constant")
    out["error np.zeros"] = _error(lambda: np.zeros((a,)))
    out["is_symbolic_dim"] = [export.is_symbolic_dim(a), export.is_symbolic_dim(3),
                              export.is_symbolic_dim(a + 1)]
    return out


def symbolic_specs(jax):
    """symbolic_shape's language (+ - * ^, floordiv/mod/max/min, parentheses, `_` and `...`
    with like=), constraints, scopes, and symbolic_args_specs."""
    export = _export(jax)
    jnp = jax.numpy
    out = {spec: str(export.symbolic_shape(spec)) for spec in (
        "a, b", "(b, 4)", "a*2, floordiv(a, 2), mod(a, 3), max(a, 4), min(a, b) + 1",
        "2*a + 2, a^2, 3 - a", "b")}
    out["like"] = str(export.symbolic_shape("a, _", like=(None, 5)))
    out["None is ..."] = str(export.symbolic_shape(None, like=(2, 3)))
    out["equality"] = str(export.symbolic_shape("a, b", constraints=("a == 2*b",)))
    a, b = export.symbolic_shape("a, b", constraints=("a >= b",))
    out["constrained"] = [a >= b, a - b >= 0, a + 1 > b, b <= a]
    out["constrained error"] = _error(lambda: a >= 2 * b, "inconclusive")
    scope = export.SymbolicScope(("a >= 4",))
    c, = export.symbolic_shape("a", scope=scope)
    out["scope"] = [c >= 4, c > 3, type(scope).__name__]
    other, = export.symbolic_shape("a")
    out["scope mixing"] = _error(lambda: c + other, "Invalid mixing of symbolic scopes")
    args = (jnp.zeros((3, 4), np.float32), jnp.zeros((3,), np.int32))
    out["args_specs ..."] = str(export.symbolic_args_specs(args, "b, ..."))
    out["args_specs _"] = str(export.symbolic_args_specs(args[:1], "_, b"))
    out["args_specs tree"] = str(export.symbolic_args_specs(
        {"x": args[0], "y": args[1]}, {"x": "(a, 4)", "y": "a"}))
    specs = export.symbolic_args_specs(args, "b, ...")
    out["args_specs one scope"] = specs[0].shape[0] == specs[1].shape[0]
    out["syntax error"] = _error(lambda: export.symbolic_shape("a +"), "syntax error")
    out["no parentheses"] = _error(lambda: export.symbolic_shape("2 * (a + 1)"), "syntax error")
    return out


def _programs(jnp):
    return {
        "elementwise": (lambda x: jnp.sin(x) * 2.0 + 1.0, ["a, 4"]),
        "broadcast": (lambda x, y: x + y, ["a, a", "a"]),
        "reductions": (lambda x: jnp.sum(x, axis=0) / x.shape[0] + jnp.mean(x), ["a, 4"]),
        "shape arithmetic": (lambda x: x.shape[0] * x + jnp.arange(x.shape[0]), ["a"]),
        "reshape": (lambda x: (x.reshape(-1), x.reshape((-1, 2)),
                               x.reshape((x.shape[0] * 4,))), ["a, 4"]),
        "concatenate": (lambda x: jnp.concatenate([x, 2 * x], axis=0), ["a, 4"]),
        "matmul": (lambda x, w: jnp.dot(x, w) @ w.T, ["a, b", "b, 3"]),
        "creation": (lambda x: (jnp.zeros(x.shape), jnp.ones_like(x)), ["a, 4"]),
        "slicing": (lambda x: (x[:, 1:3], x[1:], x[:2], x[-1], x.T, x[-2:], x[:-1],
                               x[np.array([0, -1])]), ["a, 4"]),
        "jnp.reshape": (lambda x: jnp.reshape(x, (-1, x.shape[1])) + jnp.squeeze(x[:, None], 1),
                        ["a, b"]),
        "linear dimension": (lambda x: x.reshape((x.shape[0] // 2, 2, 4)).sum(1), ["2*a, 4"]),
        "split": (lambda x: (*jnp.split(x, [1, 3], axis=1), *jnp.split(x, [1], axis=0)),
                  ["a, 4"]),
        "indexing": (lambda x, i: (
            jnp.take_along_axis(x, (i % 4)[:, None], axis=1), x[jnp.argmax(x[:, 0])],
            x[:, jnp.array([0, 2])],
            _sibling(jnp, "lax").dynamic_update_slice(x, jnp.ones((1, 4)), (i[0] % 2, 0))),
            ["a, 4", "a"]),
        "scatter": (lambda x, i: (x.at[:, 1].set(0.0), x.at[i % 2, 0].add(5.0),
                                  x.at[jnp.array([0, 2])].multiply(3.0)), ["a, 4", "a"]),
        "cumulative": (lambda x: (jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=1),
                                  _sibling(jnp, "lax").cummax(x, 1, reverse=True)), ["a, 4"]),
        # over the symbolic axis: JAX writes a stablehlo.dynamic_reduce_window custom call
        "cumulative over a": (lambda x: (
            jnp.cumsum(x, axis=0), jnp.cumsum(x), jnp.cumprod(x, axis=0),
            _sibling(jnp, "lax").cummax(x, 0, reverse=True), _sibling(jnp, "lax").cummin(x, 0),
            _sibling(jnp, "lax").cumlogsumexp(x, 0), _sibling(jnp, "lax").cumsum(x, 0, True)),
            ["a, b"]),
        "sorting": (lambda x: (jnp.sort(x, axis=0), jnp.argsort(x[:, 0]), jnp.argmax(x, axis=0),
                               jnp.argmin(x, axis=1)), ["a, 4"]),
        "control flow": (lambda x: (
            _sibling(jnp, "lax").fori_loop(0, 3, lambda i, v: v * 2 + i, x),
            _sibling(jnp, "lax").cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x),
            _sibling(jnp, "lax").while_loop(lambda v: v.sum() < 50, lambda v: v + 1, x)),
            ["a, 4"]),
        "nn": (lambda x: jax_nn(jnp).softmax(x, axis=0) * jax_nn(jnp).relu(x), ["a, 4"]),
    }


def jax_nn(jnp):
    return _sibling(jnp, "nn")


def _sibling(jnp, name: str):
    """jax.`name` (or jxkernel.`name`) beside the numpy module given."""
    return importlib.import_module(jnp.__name__.replace(".numpy", f".{name}"))


def _arg(shape, dtype=np.float32, salt=0):
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.float32).reshape(shape) / 3 - salt).astype(dtype)


def _concrete(specs, sizes) -> list:
    """Arguments for specs like "a, 4" with the variables' values in `sizes`."""
    out = []
    for i, spec in enumerate(specs):
        shape = tuple(int(eval(d, {}, dict(sizes))) for d in spec.split(","))
        out.append(_arg(shape, np.int32 if spec == "a" else np.float32, salt=i))
    return out


def symbolic_export(jax):
    """Each program exported with symbolic shapes: its avals, and its results for two sets of
    concrete shapes."""
    export = _export(jax)
    jnp = jax.numpy
    out = {}
    for name, (fn, specs) in _programs(jnp).items():
        scope = export.SymbolicScope()
        dtypes = [np.int32 if s == "a" else np.float32 for s in specs]
        structs = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), d)
                   for s, d in zip(specs, dtypes)]
        exp = export.export(jax.jit(fn))(*structs)
        out[f"{name} in_avals"] = str(exp.in_avals)
        out[f"{name} out_avals"] = str(exp.out_avals)
        for sizes in ({"a": 3, "b": 5}, {"a": 1, "b": 2}):
            args = _concrete(specs, sizes)
            results = jax.tree_util.tree_leaves(exp.call(*args))
            key = f"{name} a={sizes['a']}"
            out[f"{key} shapes"] = [list(np.shape(r)) for r in results]
            out[f"{key} dtypes"] = [str(np.asarray(r).dtype) for r in results]
            out[f"{key} _values"] = _floats(np.concatenate([np.ravel(r) for r in results]))
    return out


def symbolic_call_modes(jax):
    """One export called eagerly, inside jit, and under grad (its VJP is exported too)."""
    export = _export(jax)
    jnp = jax.numpy
    a, = export.symbolic_shape("a")

    def f(x):
        return jnp.sum(jnp.tanh(x) * x.shape[0], axis=1) + x[0, 0]
    exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct((a, 3), np.float32))
    out = {}
    for n in (2, 4):
        x = _arg((n, 3)) / 4
        out[f"eager n={n} _values"] = _floats(exp.call(x))
        out[f"jit n={n} _values"] = _floats(jax.jit(lambda v: exp.call(v) * 2)(x))
        out[f"grad n={n} _values"] = _floats(jax.grad(lambda v: exp.call(v).sum())(x))

    def g(x, k):            # integer inputs and outputs have no cotangents
        return jnp.sort(x) * 2 + k, jnp.argsort(x), k + 1
    mixed = export.export(jax.jit(g))(jax.ShapeDtypeStruct((a,), np.float32),
                                      jax.ShapeDtypeStruct((a,), np.int32))
    for n in (2, 5):
        x, k = np.cos(np.arange(n, dtype=np.float32)), np.arange(n, dtype=np.int32)
        out[f"mixed grad n={n} _values"] = _floats(
            jax.grad(lambda v: (mixed.call(v, k)[0] * np.arange(n)).sum())(x))
    return out


def symbolic_errors(jax):
    """Calls whose shapes break the spec, and export-time errors."""
    export = _export(jax)
    jnp = jax.numpy
    a, = export.symbolic_shape("a")
    square = export.export(jax.jit(lambda x, y: x + y))(
        jax.ShapeDtypeStruct((a, a), np.float32), jax.ShapeDtypeStruct((a,), np.float32))
    out = {
        "(a, a) with (3, 4)": _error(lambda: square.call(np.zeros((3, 4), np.float32),
                                                         np.zeros(3, np.float32)),
                                     "args[0].shape[1] (= 4)", "'a' (= 3)"),
        "a with 4 beside a = 3": _error(lambda: square.call(np.zeros((3, 3), np.float32),
                                                            np.zeros(4, np.float32)),
                                        "args[1].shape[0] (= 4)"),
        "rank": _error(lambda: square.call(np.zeros(3, np.float32), np.zeros(3, np.float32)),
                       "Rank mismatch for args[0]"),
    }
    b, = export.symbolic_shape("b", constraints=("b >= 4",))
    at_least_4 = export.export(jax.jit(lambda x: x * 2))(jax.ShapeDtypeStruct((b,), np.float32))
    out["constraint"] = _error(lambda: at_least_4.call(np.zeros(2, np.float32)),
                               "symbolic shape constraint b >= 4", "found -2")
    out["constraint met"] = _floats(at_least_4.call(np.ones(4, np.float32)))
    c, = export.symbolic_shape("2*c")
    even = export.export(jax.jit(lambda x: x + 1))(jax.ShapeDtypeStruct((c,), np.float32))
    out["odd for 2*c"] = _error(lambda: even.call(np.zeros(5, np.float32)),
                                "Division had remainder 1 when computing the value of 'c'")
    out["reshape (3, -1)"] = _error(
        lambda: export.export(jax.jit(lambda x: x.reshape((3, -1))))(
            jax.ShapeDtypeStruct((a, 4), np.float32)))
    d, e = export.symbolic_shape("d, e", constraints=("d == 2*e",))
    pair = export.export(jax.jit(lambda x, y: x.sum() + y.sum()))(
        jax.ShapeDtypeStruct((d,), np.float32), jax.ShapeDtypeStruct((e,), np.float32))
    out["equality constraint avals"] = str(pair.in_avals)
    out["equality constraint call"] = _floats(pair.call(np.ones(4, np.float32),
                                                        np.ones(2, np.float32)))
    out["equality constraint broken"] = _error(
        lambda: pair.call(np.ones(5, np.float32), np.ones(2, np.float32)),
        "Division had remainder 1 when computing the value of 'e'")
    out["variable not in the arguments"] = _error(
        lambda: export.export(jax.jit(lambda x: jnp.broadcast_to(x, (a, 4))))(
            jax.ShapeDtypeStruct((4,), np.float32)),
        "Encountered dimension variable 'a' that is not appearing in the shapes")
    out["squeeze all"] = _error(lambda: export.export(jax.jit(jnp.squeeze))(
        jax.ShapeDtypeStruct((a, 1), np.float32)), "not supported with shape polymorphism")
    out["int of a shape"] = _error(
        lambda: export.export(jax.jit(lambda x: jnp.zeros(int(x.shape[0]))))(
            jax.ShapeDtypeStruct((a,), np.float32)), "used in a context that requires")
    out["top_k over a"] = _error(
        lambda: export.export(jax.jit(lambda x: _sibling(jnp, "lax").top_k(x, 2)))(
            jax.ShapeDtypeStruct((a,), np.float32)), "'a' < '2' is inconclusive")
    return out


PROGRAMS = [symbolic_dimensions, symbolic_specs, symbolic_export, symbolic_call_modes,
            symbolic_errors]


def run(jax) -> dict:
    return {program.__name__: program(jax) for program in PROGRAMS}
