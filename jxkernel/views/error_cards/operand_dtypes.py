"""Cards for an operand of the wrong dtype: lax's operations given two dtypes (lax never
promotes), an integer array raised to a negative power, an array indexed by a float, a shape
given a float (`jnp.zeros(n / 2)`), a fori_loop bound given one (`lax.fori_loop(0, n / 2,
body, x)`: bounds of two dtypes), lax.switch given a float index, and an integer array given
to an operation of floats alone (`jax.nn.sigmoid(labels)`: lax's logistic, "does not accept
dtype int32"). Each rewrite is the user's own line with the one change that gives the
operation a dtype it takes."""
from __future__ import annotations

import ast
import re

from ...core import dtypes
from ..source_edits import replaced
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _first_call, _operand, _parse_line, _pattern, _replaced

# JAX's text (lax._check_same_dtypes) names the jnp function that promotes
_LAX_DTYPES = re.compile(r"^lax\.(\w+) requires arguments to have the same dtypes, got (\w+), "
                         r"(\w+)\. \(Tip: jnp\.(\w+) is a similar function that does automatic "
                         r"type promotion on inputs\)")
_INT_POWER = "Integers cannot be raised to negative powers"
_FLOAT_SHAPE = re.compile(r"^Shapes must be 1D sequences of concrete values of integer type, "
                          r"got ([(\[].*[)\]])\.( .*\.)?$")       # a tuple, or the list given
_FORI_BOUNDS = re.compile(r"^lower and upper arguments to fori_loop must have equal types, "
                          r"got (\w+) and (\w+)$")
_SWITCH_INDEX = re.compile(r"^Index type must be an integer, got (.+) as (\w+)$")
_FLOAT_INDEX = re.compile(r"^Indexer must have integer or boolean type, got indexer with type "
                          r"(\w+)$")


# ------------------------------------------------------------------ lax: one dtype
def _is_lax_dtypes(e) -> bool:
    return isinstance(e, TypeError) and _LAX_DTYPES.match(str(e)) is not None


def _lax_dtypes_card(exc, where, called_from) -> ErrorCard:
    op, a, b, numpy_name = _LAX_DTYPES.match(str(exc)).groups()
    both = str(dtypes.promote_types(a, b))
    tree = _parse_line(where)
    call = _first_call(tree, {op})
    note = f"    # promotes {a} and {b} to {both}"
    rewrite = (f"{_replaced(tree, call.func, f'jnp.{numpy_name}')}{note}" if call is not None
               else f"y = jnp.{numpy_name}(a, b){note}")
    return ErrorCard(
        "lax-dtypes", f"lax.{op} was given two dtypes, {a} and {b}",
        why=(f"lax's operations are XLA's, which take operands of one dtype: lax.{op} never "
             f"promotes, so {a} with {b} is refused."),
        fix=(f"jnp.{numpy_name} promotes the operands to one dtype first ({both} here), as "
             f"NumPy does. To stay with lax.{op}, cast one operand to the other's dtype: "
             f"b.astype(a.dtype)."),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/type_promotion.html")


# ------------------------------------------------------------------ lax.clamp, lax.select
_CLAMP_DTYPES = re.compile(r"^lax\.clamp requires arguments to have the same dtypes, got "
                           r"(\w+), (\w+), (\w+)\.$")
_SELECT_SHAPES = re.compile(r"^select cases must have the same shapes, got \[(.*)\]\.$")


def _is_lax_clamp_or_select(e) -> bool:
    return isinstance(e, TypeError) and (_CLAMP_DTYPES.match(str(e)) or
                                         _SELECT_SHAPES.match(str(e))) is not None


def _lax_clamp_or_select_card(exc, where, called_from) -> ErrorCard:
    """lax.clamp(lo, x, hi) of several dtypes as jnp.clip(x, lo, hi), which promotes them;
    lax.select(which, a, b) of cases of two shapes as jnp.where(which, a, b), which
    broadcasts them (a scalar case: `lax.select(x > 2, x, 0.0)`)."""
    clamp = _CLAMP_DTYPES.match(str(exc))
    op, jnp_name = ("clamp", "clip") if clamp else ("select", "where")
    tree = _parse_line(where)
    call = _first_call(tree, {op}, 3)
    if call is None:
        rewrite = _pattern("y = jnp.clip(x, lo, hi)" if clamp else "y = jnp.where(which, a, b)")
    else:
        lo, x, hi = call.args[:3]
        args = [x, lo, hi] if clamp else call.args[:3]
        new = ast.Call(ast.parse(f"jnp.{jnp_name}", mode="eval").body, args, call.keywords)
        rewrite = f"{_replaced(tree, call, new)}    # " + \
            ("x first, then the bounds: one dtype made of the three" if clamp else
             "its cases broadcast to one shape")
    if clamp:
        got = ", ".join(clamp.groups())
        title, why = (f"lax.clamp was given dtypes {got}",
                      f"lax.clamp(min, x, max) is XLA's clamp, which takes one dtype for all "
                      f"three and never promotes; these are {got}.")
        fix = ("jnp.clip(x, min, max) promotes them, as NumPy's clip does (note the order: x "
               "first); or cast the bounds to x's dtype.")
    else:
        title, why = ("lax.select takes cases of one shape",
                      f"lax.select(which, on_true, on_false) is XLA's select, which takes cases "
                      f"of one shape and never broadcasts; these are "
                      f"{_SELECT_SHAPES.match(str(exc)).group(1)}.")
        fix = "jnp.where(which, on_true, on_false) broadcasts them (a scalar fits any shape)."
    return ErrorCard("lax-dtypes" if clamp else "lax-shapes", title, why=why, fix=fix,
                     rewrite=rewrite,
                     docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.numpy.{jnp_name}.html")


# ------------------------------------------------------------------ integer ** negative
def _is_int_power(e) -> bool:
    return isinstance(e, TypeError) and str(e).startswith(_INT_POWER)


def _int_power_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    power = next((n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and
                  isinstance(n.op, ast.Pow)), None) if tree else None
    note = "    # a float array: its negative powers are fractions (1 / 0 gives inf)"
    if power is not None:       # the user's text kept (ast.unparse would write ** (-1))
        code, left = where["code"], power.left
        base = ast.get_source_segment(code, left)
        if not isinstance(left, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)):
            base = f"({base})"
        rewrite = replaced(code, [(left, base + ".astype(float)")]) + note
    else:
        rewrite = _pattern("y = x.astype(float) ** -1" + note)
    return ErrorCard(
        "integer-power", "An integer array raised to a negative power",
        why=("x ** -n is 1 / x ** n: fractions, which an integer array cannot hold, so JAX "
             "refuses it rather than round them (NumPy refuses it too)."),
        fix="Make the base a float array first: x.astype(float) ** -1 (or 1 / x).",
        rewrite=rewrite, docs=None)


# ------------------------------------------------------------------ a float index
def _is_float_index(e) -> bool:
    found = isinstance(e, TypeError) and _FLOAT_INDEX.match(str(e))
    return bool(found) and "float" in found.group(1)


def _float_index_card(exc, where, called_from) -> ErrorCard:
    dtype = _FLOAT_INDEX.match(str(exc)).group(1)
    # a Python float (or NumPy's) is float64 while x64 is off; an array's float is float32
    python = dtype == "float64" and dtypes.canonicalize_dtype("float64") != "float64"
    return ErrorCard(
        "float-index", f"An array was indexed by a {dtype}",
        why=(f"An index picks positions, which are whole numbers: this one is a {dtype}"
             f"{' (a Python float)' if python else ''}. x / 2 gives a float even for whole "
             f"numbers."),
        fix=("Divide with // (floor division, an integer), or make the index an integer: "
             "int(i) for a Python number, i.astype(int) for an array (traced too)."),
        rewrite=_index_rewrite(where, python),
        docs=None)


def _index_rewrite(where, python) -> str:
    """The user's line with its float index made an integer: each `/` in an index as `//`,
    else the one index that is not an integer as int(i) (a Python float) or i.astype(int)."""
    tree = _parse_line(where)
    fallback = ("y = x[i // 2]        # // gives an integer\n"
                f"y = x[{'int(i)' if python else 'i.astype(int)'}]")
    if tree is None:
        return fallback
    entries = [e for n in ast.walk(tree) if isinstance(n, ast.Subscript)
               for e in (n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice])
               if not isinstance(e, ast.Slice)]
    divisions = [e for e in entries if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Div)]
    if divisions:
        for e in divisions:
            e.op = ast.FloorDiv()
        return f"{ast.unparse(tree)}    # // gives an integer"
    floats = [e for e in entries if not (isinstance(e, ast.Constant) and
                                         type(e.value) in (int, bool))]
    if len(floats) != 1:
        return fallback
    (index,) = floats
    if isinstance(index, ast.Constant) and isinstance(index.value, float) and \
            index.value.is_integer():
        return f"{_replaced(tree, index, str(int(index.value)))}    # an integer index"
    made = f"int({ast.unparse(index)})" if python else f"({ast.unparse(index)}).astype(int)"
    return f"{_replaced(tree, index, made)}    # an integer index"


# ------------------------------------------------------------------ a float in a shape
def _is_float_shape(e) -> bool:
    found = isinstance(e, TypeError) and _FLOAT_SHAPE.match(str(e))
    return bool(found) and re.search(r"\d\.\d|float", found.group(1)) is not None


def _float_shape_card(exc, where, called_from) -> ErrorCard:
    shape = _FLOAT_SHAPE.match(str(exc)).group(1)
    return ErrorCard(
        "float-shape", f"A shape was given a float: {shape}",
        why=(f"An array's sizes are whole numbers: {shape} has a float in it. In Python 3, "
             f"n / 2 is a float even where n is even (6 / 2 is 3.0)."),
        fix="Divide with // (floor division, an integer), or make the size an int: int(n).",
        rewrite=_shape_rewrite(where), docs=None)


def _shape_rewrite(where) -> str:
    """The user's line with its float size made an int (`_whole_numbers`); a comment where
    the line has neither a `/` nor a whole float."""
    tree = _parse_line(where)
    made = _whole_numbers(tree) if tree is not None else None
    if made is None:
        return "# a size must be an int: n // 2, or int(n)"
    return f"{ast.unparse(tree)}    # {_SAID[made].format('size')}"


_SAID = {"//": "// gives an integer", "int": "an integer {}"}


def _whole_numbers(node) -> str | None:
    """Makes `node` (a parsed line, or one argument of it; changed in place) count in whole
    numbers: each `/` of whole numbers (names, ints) as `//`, else its one whole float written
    as an int (2.0 as 2). Says which ("//" or "int"), or None where it has neither.

        >>> tree = ast.parse("jnp.zeros(n / 2)")
        >>> _whole_numbers(tree), ast.unparse(tree)
        ('//', 'jnp.zeros(n // 2)')
    """
    divisions = [n for n in ast.walk(node) if isinstance(n, ast.BinOp) and
                 isinstance(n.op, ast.Div) and not any(
                     isinstance(c, ast.Constant) and isinstance(c.value, float)
                     for c in ast.walk(n))]
    for n in divisions:
        n.op = ast.FloorDiv()
    if divisions:
        return "//"
    floats = [n for n in ast.walk(node) if isinstance(n, ast.Constant) and
              type(n.value) is float and n.value.is_integer()]
    if len(floats) != 1:
        return None
    floats[0].value = int(floats[0].value)
    return "int"


# ------------------------------------------------------------------ a float loop bound
def _is_fori_bounds(e) -> bool:
    found = isinstance(e, TypeError) and _FORI_BOUNDS.match(str(e))
    return bool(found) and any(_inexact(d) for d in found.groups())


def _inexact(name) -> bool:
    return name.startswith(("float", "bfloat", "complex"))


def _fori_bounds_card(exc, where, called_from) -> ErrorCard:
    lower, upper = _FORI_BOUNDS.match(str(exc)).groups()
    return ErrorCard(
        "fori-bounds", f"lax.fori_loop was given bounds of two dtypes, {lower} and {upper}",
        why=(f"fori_loop counts its index i from lower to upper in one dtype, so both bounds "
             f"must have it: here lower is {lower} and upper {upper}. In Python 3, n / 2 is a "
             f"float even where n is even (6 / 2 is 3.0), and 5.0 is a float too."),
        fix=("Divide with // (floor division, an integer), write the bound as an int (5, not "
             "5.0), or make it one: int(n) for a Python number, n.astype(int) for an array "
             "(traced too)."),
        rewrite=_bounds_rewrite(where, _inexact(lower), _inexact(upper)),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html")


def _bounds_rewrite(where, lower_float, upper_float) -> str:
    """The user's line with each float bound (the ones JAX's message says) made an int, as
    float-shape's sizes: the body and the initial value are left as they are."""
    fallback = "# the bounds must be integers: n // 2, int(n), or n.astype(int) for a traced n"
    tree = _parse_line(where)
    call = _first_call(tree, {"fori_loop"})
    if call is None:
        return fallback
    given = dict(zip(("lower", "upper"), call.args)) | \
        {k.arg: k.value for k in call.keywords if k.arg in ("lower", "upper")}
    floats = [given.get(name) for name, is_float in (("lower", lower_float),
                                                     ("upper", upper_float)) if is_float]
    made = [_whole_numbers(bound) if bound is not None else None for bound in floats]
    if None in made:
        return fallback
    return f"{ast.unparse(tree)}    # {_SAID['//' if '//' in made else 'int'].format('bound')}"


# ------------------------------------------------------------------ a float switch index
def _is_switch_index(e) -> bool:
    return isinstance(e, TypeError) and _SWITCH_INDEX.match(str(e)) is not None


def _switch_index_card(exc, where, called_from) -> ErrorCard:
    dtype = _SWITCH_INDEX.match(str(exc)).group(2)
    return ErrorCard(
        "switch-index", f"lax.switch was given a {dtype} index",
        why=(f"lax.switch runs branches[index], so index counts branches: an integer (it is "
             f"clamped into 0 .. len(branches) - 1). This one is a {dtype}; in Python 3, n / 2 "
             f"is a float even where n is even."),
        fix=("Make the index an integer: write 1, not 1.0; n // 2 for whole numbers; or "
             "jnp.int32(index), which works on a Python number and on a traced array alike "
             "(it rounds toward zero)."),
        rewrite=_switch_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.switch.html")


def _switch_rewrite(where) -> str:
    """The user's line with switch's index made an int: a whole float literal written as an
    int (1.0 as 1), anything else wrapped in jnp.int32."""
    tree = _parse_line(where)
    call = _first_call(tree, {"switch"})
    index = None if call is None else next(
        (k.value for k in call.keywords if k.arg == "index"), call.args[0] if call.args else None)
    if index is None:
        return "# the index must be an integer: 1, n // 2, or jnp.int32(index)"
    if isinstance(index, ast.Constant) and type(index.value) is float and \
            index.value.is_integer():
        return f"{_replaced(tree, index, str(int(index.value)))}    # an integer index"
    return (f"{_replaced(tree, index, f'jnp.int32({ast.unparse(index)})')}    # an integer "
            f"index, rounded toward zero")


# ------------------------------------------------------------------ floats alone
# lax's words for an operation of floats given integers or booleans (jax.nn.sigmoid's logistic,
# lax.exp): JAX's jnp functions promote an int array to float, lax's and these do not
_FLOATS_ONLY = re.compile(r"^(\w+) does not accept dtype (u?int\d+|bool)\. Accepted dtypes "
                          r"are subtypes of floating, complexfloating\.$")


def _is_floats_only(e) -> bool:
    return isinstance(e, TypeError) and _FLOATS_ONLY.match(str(e)) is not None and \
        _int_argument(e) is not None


def _int_argument(e):
    """(the line's tree, the learner's call, its argument that holds the integers): a name
    holding an integer array, or the one positional argument of the call; None otherwise."""
    where, _ = _user_lines(e)
    tree, frame = _parse_line(where), _user_frame(e)
    for call in ast.walk(tree) if tree is not None else ():
        if not isinstance(call, ast.Call) or not call.args:
            continue
        for node in call.args:
            value = _named_value(frame, node.id) if isinstance(node, ast.Name) and frame \
                else None
            if getattr(getattr(value, "dtype", None), "kind", "f") in "iub":
                return tree, call, node
        if len(call.args) == 1 and not isinstance(call.args[0], ast.Name) and \
                ast.unparse(call.func).startswith(("jax.nn.", "nn.", "jax.lax.", "lax.")):
            return tree, call, call.args[0]
    return None


def _floats_only_card(exc, where, called_from) -> ErrorCard:
    name, dtype = _FLOATS_ONLY.match(str(exc)).groups()
    tree, call, node = _int_argument(exc)
    cast = f"{_operand(node)}.astype(jnp.float32)"
    func = ast.unparse(call.func)
    return ErrorCard(
        "lax-dtypes", f"{func} takes floats, and was given {dtype}",
        why=(f"{func} runs lax's {name}, which computes on floating-point values only and "
             f"does not promote: jnp's functions turn an integer array into floats for you, "
             f"lax's operations and the jax.nn functions built on them do not."),
        fix=f"Make it a float array first: {cast}.",
        rewrite=f"{_replaced(tree, node, cast)}    # floats in, as {func} takes",
        docs="https://docs.jax.dev/en/latest/type_promotion.html")

