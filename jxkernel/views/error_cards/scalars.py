"""The card for an array where Python needs one number: int(x), float(x) or complex(x) of an
array with dimensions, which JAX refuses even for a single element (NumPy 2.4 refuses it too)."""
from __future__ import annotations

import ast

from .card import ErrorCard
from .rewrites import _parse_line, _pattern, _python_math_rewrite, _replaced

_CONVERSION = "Only scalar arrays can be converted to Python scalars"
_CONVERTERS = ("int", "float", "complex")


def _is_scalar_conversion(e) -> bool:
    # the core attaches the array's shape and whether it was traced (core/errors.py)
    return isinstance(e, TypeError) and str(e).startswith(_CONVERSION) and hasattr(e, "shape")


def _scalar_conversion_card(exc, where, called_from) -> ErrorCard:
    shape, traced = exc.shape, exc.traced
    size = 1
    for d in shape:
        size *= d
    why = (f"int(), float() and complex() make one Python number, and JAX takes it from an "
           f"array of shape () only (as NumPy 2.4 does). This array has shape {shape}")
    if traced:
        why += (", and it is traced (jit sees its shape and dtype only): it has no value to "
                "give while tracing.")
        fix = ("Keep it an array inside the traced function: x.astype(float) (or int, "
               "complex) changes its dtype, and jnp operations use it as it is. Convert to a "
               "Python number outside, on the jitted function's result.")
    elif size == 1:
        why += ": one element, but with dimensions."
        fix = "x.item() gives its one element as a Python number (x[0] too, for shape (1,))."
    else:
        why += f": {size} numbers."
        fix = ("Choose what you want from it: one element, float(x[i]) for a vector; one "
               "number made of them, float(x.sum()); every value as Python numbers, "
               "x.tolist().")
    rewrite = _conversion_rewrite(where, traced, size)
    math = _python_math_rewrite(where) if _conversion_call(_parse_line(where)) is None else ""
    if math:            # math.sin(x) of an array: math takes one number, jnp works elementwise
        why = why.replace("int(), float() and complex() make one Python number",
                          "math's functions take one Python number (float() of the array)")
        fix = "Use jnp's function of the same name (jnp.sin for math.sin): elementwise, traced."
        rewrite = f"{math}    # jnp's function: elementwise, an array in and out"
    return ErrorCard(
        "scalar-conversion", f"A Python number was asked of an array of shape {shape}",
        why=why, fix=fix, rewrite=rewrite, docs=None)


def _conversion_call(tree):
    """The `float(x)` (int, complex) call of one argument in the user's line, or None."""
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in _CONVERTERS and len(node.args) == 1 and not node.keywords \
                and not isinstance(node.args[0], ast.Constant):
            return node
    return None


def _conversion_rewrite(where, traced, size) -> str:
    """The user's line with its conversion replaced by one that works for this array."""
    tree = _parse_line(where)
    call = _conversion_call(tree)
    converter, array = (call.func.id, ast.unparse(call.args[0])) if call else ("float", "x")
    if traced:
        new, note = f"{array}.astype({converter})", "an array still (traced): no Python number"
    elif size == 1:
        new, note = f"{converter}({array}.item())", "its one element"
    else:
        new, note = f"{array}.tolist()", (f"every value; or one: {converter}({array}.sum()), "
                                          f"{converter}({array}[0]) for a vector")
    if call is None:
        return _pattern(f"y = {new}    # {note}")
    spec = next((n for n in ast.walk(tree) if isinstance(n, ast.FormattedValue) and
                 n.value is call and n.format_spec is not None), None)
    if spec is not None and not traced and size != 1:
        # f'{float(v):.2f}': a format spec formats one number, not the list of them
        # (JAX 0.10.2 and Python: "unsupported format string passed to list.__format__")
        shown = ast.FormattedValue(ast.parse(new, mode="eval").body, -1, None)
        return (f"{_replaced(tree, spec, shown)}    # without the spec (it formats one "
                f"number): {note}")
    return f"{_replaced(tree, call, new)}    # {note}"
