"""The random-arguments card: NumPy's arguments given to jax.random's functions, a habit of
NumPy's np.random: size= for the shape, low=/high= for minval/maxval, loc=/scale= (JAX's normal
is standard), randint(key, 0, 10) without a shape, NumPy's bounds by position where JAX takes
the dtype; and randint's upper bound left out where no NumPy reading fits.

    jax.random.normal(key, size=3)     ->  jax.random.normal(key, shape=(3,))
    jax.random.uniform(key, (3,), -1.0, 1.0)
                                       ->  jax.random.uniform(key, (3,), minval=-1.0, maxval=1.0)
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .reading import _user_lines
from .rewrites import _int_written, _parse_line, _pattern, _replaced


# Python's words for a jax.random call written as NumPy's: a keyword NumPy's functions take,
# or randint missing its shape or upper bound
_NUMPY_KEYWORD = re.compile(r"^(\w+)\(\) got an unexpected keyword argument "
                            r"'(size|low|high|loc|scale)'$")
_RANDINT_MISSING = re.compile(r"^randint\(\) missing 1 required positional argument: "
                              r"'(maxval|shape)'$")
_RENAMED = {"size": "shape", "low": "minval", "high": "maxval"}
# NumPy's words for a number where a dtype goes: uniform(key, shape, dtype, minval, maxval)
# and normal(key, shape, dtype) given NumPy's bounds, or loc and scale, after the shape
# (normal's loc and scale both: Python's count of its arguments)
_DTYPE_PLACE = re.compile(r"^Cannot interpret '.+' as a data type$|^(?:uniform|normal)\(\) takes "
                          r"from \d+ to \d+ positional arguments but \d+ were given$")
_AFTER_SHAPE = {"uniform": ("minval", "maxval"), "normal": ("loc", "scale")}
# jax.random's functions that take a key but no shape: size= there names nothing of JAX's
_NO_SHAPE = frozenset(["permutation", "split", "fold_in", "shuffle"])


def _positional_bounds(e) -> str | None:
    """'uniform' or 'normal' where NumPy refused a number as the dtype (or Python the count of
    the arguments) and the user's line passes jax.random.uniform or normal more than a key and
    a shape by position."""
    if not (isinstance(e, TypeError) and _DTYPE_PLACE.match(str(e))):
        return None
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        func = ast.unparse(call.func) if isinstance(call, ast.Call) else ""
        name = func.rpartition(".")[2]
        if name in _AFTER_SHAPE and func.rpartition(".")[0].endswith("random") and \
                len(call.args) > 2:
            return name
    return None


def _is_dtype_text(node) -> bool:
    """Whether an argument reads as a dtype: jnp.float32, np.int8, 'float32', float."""
    text = ast.unparse(node).rpartition(".")[2].strip("'\"")
    return re.fullmatch(r"(float|int|uint|bfloat|complex)\d*|bool_?", text) is not None


def _numpy_order(e):
    """(the line's tree, its randint call) where jax.random.randint was given NumPy's order,
    randint(key, low, high, size) (its size then JAX's maxval: the traced bound's conversion
    fails, a TracerArrayConversionError the array-conversion card told as NumPy's), or None."""
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        func = ast.unparse(call.func) if isinstance(call, ast.Call) else ""
        if func.endswith("random.randint") and len(call.args) == 4 and not call.keywords and \
                all(_int_written(a) for a in call.args[1:3]) and \
                (isinstance(call.args[3], (ast.Tuple, ast.List)) or _int_written(call.args[3])):
            return tree, call
    return None


def _is_numpy_order(e) -> bool:
    return type(e).__name__ == "TracerArrayConversionError" and _numpy_order(e) is not None


def _is_numpy_random(e) -> bool:
    """The words of a NumPy-style call, and the user's line calls jax.random's function (not
    a function of the user's named `normal`)."""
    if not isinstance(e, TypeError):
        return False
    if _positional_bounds(e) is not None:
        return True
    found = _NUMPY_KEYWORD.match(str(e)) or _RANDINT_MISSING.match(str(e))
    name = "randint" if found is not None and found.re is _RANDINT_MISSING else \
        found and found.group(1)
    where, _ = _user_lines(e) if found is not None else (None, None)
    return bool(where) and re.search(rf"\brandom\.{name}\(", where["code"]) is not None


def _numpy_random_card(exc, where, called_from) -> ErrorCard:
    found = _NUMPY_KEYWORD.match(str(exc))
    name = found.group(1) if found else _positional_bounds(exc) or "randint"
    ordered = _numpy_order(exc) if type(exc).__name__ == "TracerArrayConversionError" else None
    if ordered is not None:         # randint(key, low, high, size): the size as the shape
        tree, call = ordered
        key, low, high, size = call.args
        shape = size if isinstance(size, (ast.Tuple, ast.List)) else \
            ast.Tuple([size], ast.Load())
        rewrite = _replaced(tree, call, ast.Call(call.func, [key, shape, low, high], []))
    else:
        rewrite = _numpy_random_rewrite(where, name)
    if not rewrite and _RANDINT_MISSING.match(str(exc)):
        return _randint_bounds_card(where)
    return ErrorCard(
        "random-arguments", f"jax.random.{name} was called with NumPy's arguments",
        why=("jax.random's functions take a key first, then the shape (NumPy's size=), then "
             "their parameters by JAX's names: minval/maxval for NumPy's low/high, and no "
             "loc/scale (normal is standard: scale and shift its result). randint needs both "
             "bounds after the shape: randint(key, shape, minval, maxval)."
             + (f" After the shape, {name} takes the dtype (uniform(key, shape, dtype, minval, "
                f"maxval); normal(key, shape, dtype)): the number there was read as a dtype."
                if name in _AFTER_SHAPE else "")),
        fix=("Pass shape= (a tuple: (3,), or () for one number) where NumPy took size=, "
             "minval=/maxval= for low=/high=, and write normal's loc + scale * normal(key, "
             "shape)."),
        rewrite=(f"{rewrite}    # JAX's arguments" if rewrite else
                 _pattern("x = jax.random.randint(key, (3,), 0, 10)    # key, shape, minval, "
                          "maxval\ny = 1.0 + 2.0 * jax.random.normal(key, (3,))    # loc + "
                          "scale * normal")),
        docs="https://docs.jax.dev/en/latest/jax.random.html")


def _randint_bounds_card(where) -> ErrorCard:
    """randint with its upper bound left out where no NumPy reading fits (`randint(key, (3,),
    0)`: a low of 0, NumPy's randint(high) has no high of 0): the bound is the learner's to
    choose, so the card shows the call with `maxval` in its place, as a comment."""
    tree = _parse_line(where)
    call = next((c for c in ast.walk(tree) if isinstance(c, ast.Call) and
                 ast.unparse(c.func).endswith("random.randint")), None) if tree else None
    line = "jax.random.randint(key, shape, minval, maxval)" if call is None else _replaced(
        tree, call, ast.Call(call.func, call.args + [ast.Name("maxval")], call.keywords))
    return ErrorCard(
        "random-arguments", "jax.random.randint takes both bounds, minval and maxval",
        why=("randint(key, shape, minval, maxval) draws integers from minval up to maxval, "
             "maxval left out; neither bound has a default (NumPy's randint(high) starts at 0)."),
        fix=("Pass maxval after minval: one past the largest integer you want (maxval=10 for "
             "0 to 9)."),
        rewrite=_pattern(line).replace("your own names in place of these",
                                       "your upper bound for maxval"),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.random.randint.html")


def _numpy_random_rewrite(where, name) -> str:
    """The user's jax.random.<name>(...) call with JAX's arguments for NumPy's, or ""."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        func = ast.unparse(call.func) if isinstance(call, ast.Call) else ""
        if not (func.rpartition(".")[2] == name and func.rpartition(".")[0].endswith("random")
                and call.args and not any(isinstance(a, ast.Starred) for a in call.args)):
            continue
        if any(k.arg is None for k in call.keywords):       # **kwargs: not read here
            return ""
        # JAX's names for NumPy's, in the user's order; loc and scale out of the call
        keywords = {_RENAMED.get(k.arg, k.arg): k.value for k in call.keywords
                    if k.arg not in ("loc", "scale")}
        shift = {k.arg: k.value for k in call.keywords if k.arg in ("loc", "scale")}
        if isinstance(keywords.get("shape"), ast.Constant) and \
                type(keywords["shape"].value) is int:       # size=3: the shape (3,)
            keywords["shape"] = ast.Tuple([keywords["shape"]], ast.Load())
        args = list(call.args)
        if "shape" in keywords and len(args) > 1 and isinstance(args[1], (ast.Tuple, ast.List)):
            # a shape by position and size= both: one of them, where they agree
            if ast.unparse(args[1]) != ast.unparse(keywords["shape"]):
                return ""
            del keywords["shape"]
        if "shape" in keywords and name in _NO_SHAPE:     # size= where JAX has no shape
            return ""
        meant = {"randint": ("minval", "maxval"), **_AFTER_SHAPE}.get(name)
        if "shape" in keywords and len(args) > 1 and meant is not None:
            # size= given, and numbers after the key by position, which would take JAX's
            # shape slot too (randint(key, 0, 10, size=5): "multiple values for 'shape'"):
            # NumPy's meanings for them, by keyword
            if len(args) - 1 > len(meant):
                return ""
            for key, value in zip(meant, args[1:]):
                (shift if key in ("loc", "scale") else keywords)[key] = value
            args = args[:1]
        if name in _AFTER_SHAPE and len(args) > 2:      # NumPy's order after the shape
            extra, args = args[2:], args[:2]
            dtype = [a for a in extra if _is_dtype_text(a)]
            numbers = [a for a in extra if not _is_dtype_text(a)]
            if len(numbers) > 2 or len(dtype) > 1:
                return ""
            for key, value in zip(_AFTER_SHAPE[name], numbers):
                (shift if key in ("loc", "scale") else keywords)[key] = value
            if dtype and not (name == "uniform" and "int" in ast.unparse(dtype[0])):
                keywords["dtype"] = dtype[0]    # (uniform draws floats: an int dtype left out)
        if name == "randint" and "shape" not in keywords:
            args = _randint_arguments(args, keywords)
            if args is None:
                return ""
        new = ast.Call(call.func, args, [ast.keyword(k, v) for k, v in keywords.items()])
        if shift:           # normal's loc + scale * normal(key, shape)
            if "scale" in shift:
                new = ast.BinOp(shift["scale"], ast.Mult(), new)
            if "loc" in shift:
                new = ast.BinOp(shift["loc"], ast.Add(), new)
        return _replaced(tree, call, new)
    return ""


def _randint_arguments(args, keywords):
    """randint's positional arguments with the shape NumPy's randint has not (`randint(key,
    0, 10)`: shape ()) or the lower bound it takes as 0 (`randint(key, (3,), 10)`); None where
    neither reading fits."""
    shape_given = len(args) > 1 and isinstance(args[1], (ast.Tuple, ast.List))
    bounds = args[2:] if shape_given else args[1:]
    bounds += [keywords[k] for k in ("minval", "maxval") if k in keywords]
    if shape_given and len(bounds) == 1 and "maxval" not in keywords:
        if isinstance(bounds[0], ast.Constant) and isinstance(bounds[0].value, int) and \
                bounds[0].value <= 0:       # no high NumPy takes (its "high <= 0"): a low
            return None                     # whose maxval was left out, which no one can tell
        return args[:2] + [ast.Constant(0)] + args[2:]      # NumPy's randint(high): from 0
    if not shape_given and len(bounds) == 2:
        if len(args) == 1:                                  # all by keyword: shape= first
            moved = dict(keywords)
            keywords.clear()
            keywords.update(shape=ast.Tuple([], ast.Load()), **moved)
            return args
        return args[:1] + [ast.Tuple([], ast.Load())] + args[1:]
    return None
