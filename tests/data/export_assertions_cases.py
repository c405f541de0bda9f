"""The cases that reference/make_export_assertions_reference.py runs on JAX 0.10.2 and
tests/export/test_export_assertions.py on jxkernel: the calling convention of a module
exported over symbolic shapes. Its `main` reads the dimension variables from the arguments'
sizes, checks them with `shape_assertion` custom calls (each one's message and number of
operands, in order) and calls `_wrapped_jax_export_main`, which takes the variables first
(`jax.global_constant`, sorted by name); and an Exported whose `out_avals` are static where
its module's results are not (as JAX's back-compatibility data builds them), called.
`run(jax)` takes the `jax` module (real or jxkernel) and returns JSON data."""
import dataclasses
import re

import numpy as np

SPECS = ["3,4,5*a", "3,a,a+b", "a,a", "2*a+1, b", "a, 4*b+a", "b, a"]


def _signatures(text: str) -> list:
    """The visibility, name, arguments and results of `main` and the function it wraps,
    without locations (JAX's module has helpers too, its integer division's `divmod`...,
    whose ops jxkernel writes inline)."""
    text = re.sub(r" loc\((?:[^()]|\([^()]*\))*\)", "", text)
    return [list(m) for m in re.findall(
        r"func\.func (public|private) @(main|_wrapped_jax_export_main)\((.*?)\) -> (.*) \{$",
        text, re.M)]


def _assertions(text: str) -> list:
    """Each shape assertion's number of operands and message."""
    return [[len(operands.split(", ")), message] for operands, message in re.findall(
        r'shape_assertion\((.*?)\) \{api_version = 2 : i32, error_message = "(.*?)"', text)]


def run(jax) -> dict:
    export = jax.export
    out = {}
    for spec in SPECS:
        exp = export.export(jax.jit(lambda x: x + 1.))(
            jax.ShapeDtypeStruct(export.symbolic_shape(spec), np.float32))
        text = exp.mlir_module()
        out[spec] = {"signatures": _signatures(text), "assertions": _assertions(text)}
    a, = export.symbolic_shape("a")
    exp = export.export(jax.jit(lambda x: x * 2.))(jax.ShapeDtypeStruct((a, 3), np.float32))
    static = dataclasses.replace(exp, out_avals=(jax.core.ShapedArray((4, 3), np.float32),))
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out["static_out_avals"] = {"call": np.asarray(static.call(x)).tolist(),
                               "jit": np.asarray(jax.jit(static.call)(x)).tolist()}
    return out
