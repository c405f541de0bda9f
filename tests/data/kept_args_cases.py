"""A jit's unused arguments (JAX's `kept_var_idx`: jit drops the arguments its function never
reads from the program, unless keep_unused=True), run alike by real JAX
(reference/make_kept_args_reference.py records kept_args_reference.json) and by jxkernel
(tests/transforms/test_kept_args.py): `run(jax)` returns plain JSON data.

- "main": per program, the types `main` takes (`Lowered.as_text()`, and `compiler_ir()`
  printed), and XLA's compiled program's parameters (`Compiled.as_text()`).
- "compiled": `Compiled.input_shardings` (per leaf the sharding's class, None where the program
  does not take it), `args_info` (shape, donated), `in_tree`, and a call's results.
- "donated": which arguments a call deletes, donated used or not, and the warnings it gives.
- "calls": results of calls with unused arguments of every kind (arrays, Python scalars,
  NumPy data, containers, keywords, static arguments), called several times (the cached and
  compiled fast paths too).
- "exported": `module_kept_var_idx`, the types `main` takes, and calls, of jax.export's.
- "pmap": the types of pmap's `main`.

    run(jax)["main"]["one_unused"]  ->  {"lowered": ["tensor<f32>"], ...}
"""
import re
import warnings

import numpy as np

_MAIN = re.compile(r"func\.func public @main\((.*?)\) ->")
_ARG = re.compile(r"%arg\d+: (tensor<[^>]*>)")


def _main_types(text: str) -> list:
    """The types `main`'s arguments have in a module's text."""
    return _ARG.findall(_MAIN.search(text).group(1))


def _parameters(text: str) -> list:
    """The shapes of the ENTRY computation's parameters in XLA's compiled HLO."""
    entry = text[text.index("ENTRY"):]
    return re.findall(r"= (\S+) parameter\(\d+\)", entry)


def _values(tree, jax) -> list:
    return [np.asarray(x).tolist() for x in jax.tree_util.tree_leaves(tree)]


def _programs(jax):
    jnp = jax.numpy
    ones = jnp.ones
    return {
        "one_unused": (jax.jit(lambda x, y: x * 2), (1.0, 2.0)),
        "keep_unused": (jax.jit(lambda x, y: x * 2, keep_unused=True), (1.0, 2.0)),
        "none_used": (jax.jit(lambda x, y: 3.0), (ones(2), 2.0)),
        "read_by_dead_code_only": (jax.jit(lambda x, y: (jnp.sin(y), x * 2)[1]),
                                   (ones(3), ones(4))),
        "middle_of_a_pytree": (jax.jit(lambda d: d["a"] + d["c"]),
                               ({"a": ones(2), "b": ones(5), "c": ones(2)},)),
        "donated_unused": (jax.jit(lambda x, y: x * 2, donate_argnums=1), (ones(3), ones(3))),
        "closes_over_a_constant": (jax.jit(lambda x, y: y + np.arange(3.0, dtype=np.float32)),
                                   (ones(4), ones(3))),
    }


def _main(jax) -> dict:
    out = {}
    for name, (f, args) in _programs(jax).items():
        lowered = f.lower(*args)
        out[name] = {"lowered": _main_types(lowered.as_text()),
                     "compiler_ir": _main_types(str(lowered.compiler_ir())),
                     "compiled": _parameters(lowered.compile().as_text())}
    return out


def _compiled(jax) -> dict:
    out = {}
    for name, (f, args) in _programs(jax).items():
        compiled = f.lower(*args).compile()
        shardings = jax.tree_util.tree_leaves(compiled.input_shardings,
                                              is_leaf=lambda s: s is None)
        info = jax.tree_util.tree_leaves(compiled.args_info)
        out[name] = {"input_shardings": [None if s is None else type(s).__name__
                                         for s in shardings],
                     "args_info": [[list(a.shape), a.donated] for a in info],
                     "in_tree_leaves": compiled.in_tree.num_leaves,
                     "call": _values(compiled(*args), jax)}
    return out


def _donated(jax) -> dict:
    jnp = jax.numpy
    out = {}
    cases = {"unused": (lambda x, y: x * 2, 1, (3, 3)),
             "used_and_unused": (lambda x, y, z: x + 1, (0, 1), (3, 3, 3)),
             "unused_keep_unused": (lambda x, y: x * 2, 1, (3, 3)),
             # kept, donated, and no result to take its buffer: JAX's warning
             "unused_keep_unused_unusable": (lambda x, y: x * 2, 1, (3, 5))}
    for name, (fun, donate, sizes) in cases.items():
        f = jax.jit(fun, donate_argnums=donate, keep_unused="keep_unused" in name)
        rows = []
        for _ in range(3):                     # the first call, then the cached paths'
            args = [jnp.ones(n) for n in sizes]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = f(*args)
            rows.append({"deleted": [a.is_deleted() for a in args],
                         "warnings": sorted({str(w.message).split("\n")[0] for w in caught}),
                         "result": _values(result, jax)})
        out[name] = rows
    return out


def _calls(jax) -> dict:
    jnp = jax.numpy
    a, b, c = jnp.arange(3.0), jnp.ones(4), jnp.full(3, 2.0)
    f = jax.jit(lambda x, y, z: x * 2 + z)
    g = jax.jit(lambda x, n, y: x * n, static_argnums=1)
    h = jax.jit(lambda d: d["w"] * 3)
    k = jax.jit(lambda x, y: 1.0)
    cases = {
        "arrays": lambda: f(a, b, c),
        "python_scalar_unused": lambda: f(a, 2.0, c),
        "numpy_unused": lambda: f(a, np.ones(7), c),
        "keywords": lambda: f(a, y=b, z=c),
        "static_and_unused": lambda: g(a, 3, b),
        "container": lambda: h({"v": b, "w": a}),
        "none_used": lambda: k(a, b),
    }
    return {name: [_values(call(), jax) for _ in range(3)] for name, call in cases.items()}


def _exported(jax) -> dict:
    jnp = jax.numpy
    export = jax.export
    b, = export.symbolic_shape("b")
    f32 = np.float32
    cases = {
        "one_unused": (jax.jit(lambda x, y, z: x * 2 + z), (1.0, jnp.ones(3), 2.0)),
        "keep_unused": (jax.jit(lambda x, y: x * 2, keep_unused=True), (1.0, 2.0)),
        "symbolic": (jax.jit(lambda x, y: x * 2), (jax.ShapeDtypeStruct((b,), f32),
                                                   jax.ShapeDtypeStruct((3,), f32))),
        "pytree": (jax.jit(lambda d: d["a"] * d["c"]),
                   ({"a": jnp.ones(2), "b": jnp.ones(3), "c": jnp.ones(2)},)),
    }
    out = {}
    for name, (f, args) in cases.items():
        exp = export.export(f)(*args)
        row = {"kept": list(exp.module_kept_var_idx), "n_in": len(exp.in_avals),
               "main": _main_types(exp.mlir_module())}
        if name != "symbolic":
            row["call"] = _values(exp.call(*args), jax)
            row["jit_call"] = _values(jax.jit(exp.call)(*args), jax)
            again = export.deserialize(exp.serialize())
            row["deserialized_kept"] = list(again.module_kept_var_idx)
            row["vjp_kept"] = list(exp.vjp().module_kept_var_idx)
        out[name] = row
    out["grad_through_call"] = _values(jax.grad(
        lambda x, y, z: export.export(jax.jit(lambda x, y, z: x * 2 + z))(x, y, z).call(x, y, z))(
            1.0, jnp.ones(3), 2.0), jax)
    return out


def _pmap(jax) -> dict:
    jnp = jax.numpy
    x = jnp.ones((1, 3))
    return {"one_unused": _main_types(jax.pmap(lambda x, y: x * 2).lower(x, x).as_text()),
            "call": _values(jax.pmap(lambda x, y: x * 2)(x, x), jax)}


def run(jax) -> dict:
    return {"main": _main(jax), "compiled": _compiled(jax), "donated": _donated(jax),
            "calls": _calls(jax), "exported": _exported(jax), "pmap": _pmap(jax)}
