"""lax.composite: a named operation whose meaning is a decomposition function. The program
keeps the name (a `stablehlo.composite` op calling the decomposition as a private function),
so a compiler that knows the name may emit a better kernel; XLA's CPU backend runs the
decomposition.

    >>> tangent = lax.composite(lambda x: lax.sin(x) / lax.cos(x), name="my.tangent")
    >>> tangent(jnp.float32(0.5)) == lax.sin(0.5) / lax.cos(0.5)
    Array(True, dtype=bool)

As in JAX, a composite has no derivative or batching rule of its own (jvp and transpose raise
JAX's ValueError, saying to use custom_jvp); positional arguments are its operands, keyword
arguments its attributes (static: ints, floats, bools, strings, NumPy arrays).
"""
from __future__ import annotations

import functools

import numpy as np

from ..core.avals import get_aval
from ..core.errors import UnexpectedTracerError
from ..core.ir import param_printers
from ..core.numpy_eval import call_rule
from ..core.primitive import (Primitive, abstract_eval_rules, jvp_rules, lowering_rules,
                              numpy_rules, transpose_rules)
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ..core.trace import Tracer
from ..tree_util import tree_flatten, tree_unflatten
from ..xla import stablehlo as hlo
from ..xla.lowering import function_for, platform_index_args

composite_p = Primitive("composite", multiple_results=True)


def composite(decomposition, name: str, version: int = 0):
    """The function `decomposition`, as one operation named `name` (and `version`)."""
    @functools.wraps(decomposition)
    def call(*args, **kwargs):
        if any(isinstance(v, Tracer) for v in kwargs.values()):
            raise UnexpectedTracerError(
                f"Found a JAX Tracer as an attribute in the decomposition for the composite op "
                f"'{name}'. This means that the decomposition function closes over a value "
                "that is involved in a JAX transformation. Any values that aren't explicitly "
                "known at compile time must be explicitly passed as arguments to the "
                "composite.\n\nNote: If you are passing jax arrays as attributes, use numpy "
                "arrays instead.")
        flat, in_tree = tree_flatten(args)
        out_tree = []

        def flat_fun(*leaves):
            out, tree = tree_flatten(decomposition(*tree_unflatten(in_tree, leaves), **kwargs))
            out_tree.append(tree)
            return out
        jaxpr = trace_to_jaxpr(flat_fun, [get_aval(x) for x in flat])
        if any(isinstance(c, Tracer) for c in jaxpr.consts):   # its lowering embeds them
            raise UnexpectedTracerError(
                f"Found a JAX Tracer as a constant in the decomposition for the composite op "
                f"'{name}'. This means that the decomposition function closes over a value "
                "that is involved in a JAX transformation. Any values that aren't explicitly "
                "known at compile time must be explicitly passed as arguments to the "
                "composite.")
        attributes = tuple((k, v) for k, v in kwargs.items() if v is not None)
        # the decomposition's array constants are the composite's first operands, as JAX's
        # (its decomposition function takes them as arguments)
        opened, consts = convert_constvars_to_invars(jaxpr)
        outs = composite_p.bind(*consts, *flat, name=name, attributes=_Attributes(attributes),
                                version=version, jaxpr=opened)
        return tree_unflatten(out_tree[0], outs)
    return call


class _Attributes(tuple):
    """The composite's attributes, ((name, value), ...): hashable and comparable with NumPy
    arrays among them (compared by contents)."""

    def _key(self):
        return tuple((k, (v.dtype.str, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else v)
                     for k, v in self)

    def __eq__(self, other):
        return isinstance(other, _Attributes) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


def _attribute(value) -> str:
    """An MLIR attribute for a Python value (as JAX's mlir.ir_attribute)."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return f"{int(value)} : i64"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):e} : f32"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, np.ndarray):
        return f"{hlo.dense_attr(value)} : {hlo.tensor_type(value.shape, value.dtype)}"
    if isinstance(value, (tuple, list)):        # an array attribute (JAX's, nested too)
        return "[" + ", ".join(map(_attribute, value)) + "]"
    if isinstance(value, np.dtype):             # a type attribute: its element type
        return hlo.element_type(value)
    raise TypeError(f"composite attribute of type {type(value).__name__} ({value!r}): use an "
                    "int, float, bool, str, dtype, NumPy array or a tuple of them")


def _composite_lowering(ctx, *args, name, attributes, version, jaxpr):
    fn = function_for(ctx.module_ctx, jaxpr, name)
    attrs = ", ".join(f"{k} = {_attribute(v)}" for k, v in attributes)
    return ctx.op("stablehlo.composite", [*platform_index_args(ctx.block), *args], {
        "name": '"' + name + '"', "decomposition": "@" + fn.name,
        "composite_attributes": "{" + attrs + "}", "version": f"{int(version)} : i32"})


def _no_jvp(*args, **params):
    raise ValueError("JVP rule for composite not implemented. You can use `jax.custom_jvp` to "
                     "add support. See "
                     "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


def _no_transpose(*args, **params):
    raise ValueError("Transpose rule for composite not implemented. You can use"
                     "`jax.custom_jvp` or `jax.custom_vjp` to add support. See "
                     "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


abstract_eval_rules[composite_p] = lambda *avals, jaxpr, **params: list(jaxpr.out_avals)
lowering_rules[composite_p] = _composite_lowering
numpy_rules[composite_p] = call_rule("jaxpr")          # its decomposition
jvp_rules[composite_p] = _no_jvp
transpose_rules[composite_p] = _no_transpose
param_printers[composite_p] = lambda params: sorted(
    (k, v if k != "attributes" else tuple(params["attributes"])) for k, v in params.items())
