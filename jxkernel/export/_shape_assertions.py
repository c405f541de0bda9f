"""The shape assertions of a module exported over symbolic shapes, as JAX 0.10.2 writes them:
after its dimension variables are read from the arguments' sizes, a
`stablehlo.custom_call @shape_assertion(ok, values...)` per check JAX makes on the
arguments, in JAX's order (a variable `k*v + rest` dividing exactly, each variable >= 1, a
size read twice agreeing, then each of the scope's constraints), with JAX's message, whose `{i}`
are the values after `ok`.

jaxlib's shape refinement (a call's, jxkernel's or JAX's) checks them with the arguments'
sizes and removes them; jxkernel checks the same before calling (`shape_poly.
solve_dimension_variables`), so they matter to a module loaded elsewhere, and they are what
JAX's modules carry (its back-compatibility tests compare the custom calls).
"""
from __future__ import annotations

import numpy as np

from ..xla import stablehlo as hlo
from .shape_poly import _SPEC_DOC, _DimExpr, solving_plan, specs_text

_I32 = "tensor<i32>"


def add_shape_assertions(block, symbolic, in_avals, args, arg_paths) -> None:
    """Emit into `block` (main's, where `symbolic`, the SymbolicLowering, read the variables
    from `args`) the shape assertions of arguments of types `in_avals`."""
    dims = [(d, (i, axis, path)) for i, (aval, path) in enumerate(zip(in_avals, arg_paths))
            for axis, d in enumerate(aval.shape) if isinstance(d, _DimExpr)]
    steps, unsolved = solving_plan(dims)
    if unsolved:                 # (SymbolicLowering refused these already)
        return
    spec_text = specs_text([a.shape for a in in_avals], arg_paths)
    sizes: dict = {}                 # (argument, axis) -> its size, read once
    for step in steps:               # (a variable that is a size itself: the value read)
        if step[0] == "var" and step[2] == 1 and _is_zero(step[3]):
            sizes.setdefault(step[5][:2], symbolic.values[step[1]])
    found: list = []                 # each variable's (name, spec, where, its size)

    def size(i, axis):
        if (i, axis) not in sizes:
            sizes[i, axis] = block.op1("stablehlo.get_dimension_size", [args[i]], _I32,
                                       {"dimension": hlo.i64_attr(axis)})
        return sizes[i, axis]

    def assertion(ok, why: list, head: str = "Input shapes do not match the polymorphic "
                  "shapes specification. ", end: str = ". ") -> None:
        pieces = [head, *why,
                  f"{end}Using the following polymorphic shapes specifications: {spec_text}. "
                  f"Obtained dimension variables: "]
        for name, d, where, n in found:
            pieces += [f"'{name}' = ", symbolic.values[name],
                       f" from specification '{d}' for dimension {where} (= ", n, "), "]
        pieces.append(f". {_SPEC_DOC}")
        message, inputs = "", []
        for piece in pieces:
            if isinstance(piece, str):
                message += piece
                continue
            names = [v.name for v in inputs]
            if piece.name not in names:
                inputs.append(piece)
                names.append(piece.name)
            message += f"{{{names.index(piece.name)}}}"
        block.op("stablehlo.custom_call", [ok, *inputs], [], {
            "call_target_name": '"shape_assertion"', "api_version": hlo.i32_attr(2),
            "error_message": hlo.string_attr(message), "has_side_effect": "true"})

    for step in steps:
        if step[0] == "var":
            _, name, k, rest, d, (i, axis, path) = step
            n = size(i, axis)
            if k != 1:
                left = n if _is_zero(rest) else \
                    block.op1("stablehlo.subtract", [n, symbolic.dim(block, rest)], _I32)
                remainder = block.op1("stablehlo.remainder",
                                      [left, block.constant(np.int32(k))], _I32)
                assertion(_compare(block, remainder, block.constant(np.int32(0)), "EQ"),
                          ["Division had remainder ", remainder,
                           f" when computing the value of '{name}'"])
            found.append((name, d, f"{path}.shape[{axis}]", n))
            assertion(_compare(block, symbolic.values[name], block.constant(np.int32(1)), "GE"),
                      [f"Expected value >= 1 for dimension variable '{name}'"])
        else:
            _, d, (i, axis, path) = step
            n, want = size(i, axis), symbolic.dim(block, d)
            assertion(_compare(block, n, want, "EQ"),
                      [f"Found inconsistency between dimension size {path}.shape[{axis}] (= ",
                       n, f") and the specification '{d}' (= ", want, ")"])


    # then the scope's constraints, in the user's order (JAX's explicit constraints, an
    # equality on a term after its normalization rule): one whose difference is a constant
    # (a variable an equality substituted) is decided statically, as JAX's
    scopes = {id(d.scope): d.scope for d, _ in dims}
    for scope in scopes.values():
        for cmp, diff, text in scope._explicit_constraints:
            if not isinstance(diff, _DimExpr) or \
                    not set(diff.variables()) <= set(symbolic.values):
                continue
            value = symbolic.dim(block, diff)
            ok = _compare(block, value, block.constant(np.int32(0)),
                          "GE" if cmp == ">=" else "EQ")
            relation = "greater or equal" if cmp == ">=" else "equal"
            assertion(ok, [f"Input shapes do not match the symbolic shape constraint {text}. "
                           f"Expected '{diff}' to be {relation} to 0, but found ", value],
                      head="", end=".  ")      # (JAX's two spaces)


def _is_zero(d) -> bool:
    return isinstance(d, (int, np.integer)) and d == 0


def _compare(block, x, y, direction: str):
    return block.op1("stablehlo.compare", [x, y], "tensor<i1>", {
        "comparison_direction": hlo.enum("comparison_direction", direction),
        "compare_type": hlo.enum("comparison_type", "SIGNED")})
