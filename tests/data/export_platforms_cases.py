"""Programs exported for several platforms at once (`export(jit(f), platforms=("cpu",
"cuda"))`), as JAX's "Exporting and serializing" page writes them ("Cross-platform and
multi-platform export"). Shared by reference/make_export_platforms_reference.py (run with real
JAX 0.10.2) and tests/export/test_export_platforms.py (run with jxkernel).

`run(jax)` returns {program: {name: value}} of JSON data: text, ints and booleans compared
exactly, lists of floats (under a key ending in "_values") in ulps. The modules are compared
by their shape, not their text: JAX writes each op's source location and hoists constants
to the top of a function, where jxkernel writes them where they are used. What is kept
(`skeleton`): each function's arguments and attributes, and its ops in order with each
`stablehlo.case`'s number of branches, constants and returns left out.
"""
import importlib
import re

import numpy as np
from recorded_errors import error_of

# one of JAX's `loc(...)` annotations, nested parentheses included (`loc("x")`, `loc(#loc3)`)
_LOC = re.compile(r" loc\((?:[^()]|\([^()]*\))*\)")
_FUNC = re.compile(r'func\.func (?:public |private )?@(?:"[^"]*"|[\w.$]+)\((.*?)\) ->')
_CASE = re.compile(r'"stablehlo\.case"\((%\w+)\)')
_OP = re.compile(r'^(?:%\S+ = )?"?(\w+\.\w+|call)\b')
_LEFT_OUT = ("stablehlo.constant", "stablehlo.return")


def _module(jax, name):
    return importlib.import_module(f"{jax.__name__}.{name}")


def _floats(x) -> list:
    return np.asarray(x, np.float64).ravel().tolist()


def skeleton(text: str) -> list:
    """Per function, in the module's order: [its arguments (type and attributes), its ops].
    An op is its name; a case is "case(<index>)" where its index is an argument (the platform
    index, or a function's), else "case", then its branches' ops with "|" between branches
    and ")" after the last."""
    functions = []
    for line in _LOC.sub("", text).splitlines():
        line = line.strip()
        head, case, op = _FUNC.search(line), _CASE.search(line), _OP.match(line)
        if head:
            args = [a.split(": ", 1)[1] for a in re.split(r", (?=%arg)", head.group(1)) if a]
            functions.append([args, []])
        elif case:
            index = case.group(1)
            functions[-1][1].append(f"case({index})" if index.startswith("%arg") else "case")
        elif line == "}, {":
            functions[-1][1].append("|")
        elif line.startswith("}) :"):
            functions[-1][1].append(")")
        elif op and op.group(1) not in _LEFT_OUT:
            functions[-1][1].append(op.group(1))
    return functions


def _sin_or_cos(jax):
    lax, jnp = jax.lax, jax.numpy
    return lambda x: lax.platform_dependent(x, cpu=jnp.sin, cuda=jnp.cos)


_SPEC = ((3,), np.float32)
_X = np.array([0.5, -1.25, 2.0], np.float32)


def _export(jax, f, platforms):
    export = _module(jax, "export")
    return export.export(jax.jit(f), platforms=platforms)(jax.ShapeDtypeStruct(*_SPEC))


def platforms_signature(jax):
    """Exported's fields for platform_dependent(x, cpu=sin, cuda=cos) on ("cpu", "cuda"), its
    module's shape, and its VJP's fields."""
    exp = _export(jax, _sin_or_cos(jax), ("cpu", "cuda"))
    vjp = exp.vjp()
    return {"platforms": list(exp.platforms), "uses_global_constants": exp.uses_global_constants,
            "module_kept_var_idx": list(exp.module_kept_var_idx),
            "in_avals": str(exp.in_avals), "out_avals": str(exp.out_avals),
            "skeleton": skeleton(exp.mlir_module()),
            "vjp_platforms": list(vjp.platforms),
            "vjp_uses_global_constants": vjp.uses_global_constants,
            "vjp_main_arguments": skeleton(vjp.mlir_module())[0][0]}


def platforms_call(jax):
    """The export called on the CPU (its cpu branch), eagerly, inside jit, differentiated, and
    inside another export for ("cuda", "cpu") that is called in turn."""
    exp = _export(jax, _sin_or_cos(jax), ("cpu", "cuda"))
    outer = _export(jax, lambda x: exp.call(x) * 2, ("cuda", "cpu"))
    return {"call_values": _floats(exp.call(_X)),
            "jit_values": _floats(jax.jit(lambda x: exp.call(x) + 1)(_X)),
            "grad_values": _floats(jax.grad(lambda x: exp.call(x).sum())(_X)),
            "outer_values": _floats(outer.call(_X)),
            "outer_platforms": list(outer.platforms)}


def platforms_modules(jax):
    """The modules' shape: no platform-dependent op (the index argument only), a default
    branch over three platforms, a nested jit (its function takes the index too), and the
    platform_dependent lowered by jit for the CPU alone, with its jaxpr."""
    jnp, lax = jax.numpy, jax.lax
    inner = jax.jit(lambda x: _sin_or_cos(jax)(x) + 1)
    with_default = lambda x: lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos)
    spec = jax.ShapeDtypeStruct(*_SPEC)
    return {"plain": skeleton(_export(jax, lambda x: jnp.sin(x) * 2, ("cpu", "cuda"))
                              .mlir_module()),
            "default": skeleton(_export(jax, with_default, ("cpu", "cuda", "tpu"))
                                .mlir_module()),
            "nested_jit": skeleton(_export(jax, lambda x: inner(x) * inner(x), ("cpu", "cuda"))
                                   .mlir_module()),
            "jit_cpu": skeleton(jax.jit(_sin_or_cos(jax)).lower(spec).as_text()),
            "jaxpr": str(jax.make_jaxpr(_sin_or_cos(jax))(_X))}


def platforms_errors(jax):
    """Calling on a platform not exported for, directly and from an export for several, and a
    platform_dependent without a branch for one of the platforms."""
    jnp = jax.numpy
    for_cuda = _export(jax, jnp.sin, ("cuda",))
    return {"not_exported_for_here": error_of(lambda: _export(jax, jnp.sin, ("cuda", "tpu"))
                                              .call(_X)),
            "callee_for_fewer": error_of(lambda: _export(jax, lambda x: for_cuda.call(x),
                                                         ("cpu", "cuda"))),
            "no_branch": error_of(lambda: _export(jax, _sin_or_cos(jax), ("cpu", "tpu")))}


PROGRAMS = [platforms_signature, platforms_call, platforms_modules, platforms_errors]


def run(jax) -> dict:
    return {program.__name__: program(jax) for program in PROGRAMS}
