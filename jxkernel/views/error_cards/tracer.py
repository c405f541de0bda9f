"""Cards for a traced value used where Python needs a real one: `if x > 0` (bool), `int(x)` or
a shape (concretization), `np.sin(x)` (array conversion), and a tracer kept past its
transformation (leaked)."""
from __future__ import annotations

import ast
import re

from ...core import errors as jx_errors
from ...core.trace import Tracer
from .card import ErrorCard, _DOCS
from .conversions import _astype_rewrite, _printed_as_it_runs, _unwrapped
from .reading import _origin, _user_frame
from .static_fixes import _array_note, _or_static, _static_fix, _static_how, _traced_phrase
from .rewrites import (_branch_rewrite, _node_at, _parse_line, _pattern, _print_when,
                       _python_math_rewrite, _range_loop_rewrite, _whole_statement)
from ..source_edits import replaced
from .truth import (_NONE_WHY, _assert_rewrite, _bool_call_rewrite, _filtered_rewrite,
                    _none_test)


def _bool_card(exc, where, called_from) -> ErrorCard:
    origin = _origin(exc)
    static = _static_fix(origin, where, exc)
    # no if/while/and/or on the line: Python's max() or min() compared the traced values
    node = _node_at(where)
    builtin = _python_math_rewrite(where) if node is None else ""
    # an `if` that only prints (a learner debugging): static would print at compiles alone
    printing = isinstance(node, ast.If) and _print_when(node) is not None
    if printing or static and _tests_other_arguments(node, origin, _user_frame(exc)):
        static = None
    # `assert x > 0, "..."` (a learner checking an input): checkify's check, the call checkified
    asserted = _assert_rewrite(where, exc) if node is None else ""
    if asserted:
        return _assert_card(exc, origin, static, asserted)
    # `[v for v in xs if v > 0]`: the test asked of each traced element
    filtered, same = _filtered_rewrite(where, exc) if node is None else ("", False)
    if filtered:
        return ErrorCard(
            "bool-conversion", "A comprehension filtering on traced values",
            why=(f"The comprehension's `if` asks each element of {_traced_phrase(origin)} for "
                 f"True or False while tracing, before any value exists; and the list it "
                 f"keeps would have a length known only from the values, which jit's fixed "
                 f"shapes cannot hold."),
            fix=("Compute on the whole array with a mask: jnp.where(mask, x, 0) keeps the "
                 "shape (0 where an element fails), x.sum(where=mask) / x.mean(where=mask) "
                 "reduce over the elements that pass." +
                 ("" if same else " A list of the passing elements themselves is only "
                  "possible outside jit (x[mask] of a concrete array).")),
            rewrite=filtered, origin=origin, docs=_DOCS + "TracerBoolConversionError")
    # `flag = bool(x > 0)`: the comparison itself, a bool array that stays traced
    kept = _bool_call_rewrite(where, exc) if node is None else ""
    if kept:
        return ErrorCard(
            "bool-conversion", "bool() of a traced value",
            why=(f"bool() asks for one Python True or False, but its argument depends on "
                 f"{_traced_phrase(origin)}: it runs while tracing, before any value exists."),
            fix=("Keep it traced: a comparison is already a bool array (jnp's operations and "
                 "jnp.where take it); where Python's if/while then tests it, that branch must "
                 "be jnp.where or lax.cond too." +
                 (" Or make the argument static." if static else _array_note(origin))),
            rewrite=kept + _or_static(origin, static, "value"),
            origin=origin, docs=_DOCS + "TracerBoolConversionError")
    rewrite = (f"{builtin}    # jnp's max and min: traced, no True or False needed"
               if builtin else _in_jnp(_branch_rewrite(where, _user_frame(exc)))) + \
        _or_static(origin, static, "value")
    # `if bias:` of an argument defaulting to None: whether it was given, asked of Python
    none = "" if builtin or printing else _none_test(node, where)
    if none:
        rewrite = f"{none}\n# or, if the test is of its value (nonzero), traced:\n{rewrite}"
    if printing:
        why = (f"This line needs True or False, but the condition depends on "
               f"{_traced_phrase(origin)}. Python's if and print run while tracing, once per "
               f"compile, before any value exists.")
        fix = ("jax.debug.print prints as the compiled program runs: in a lax.cond branch "
               "(below) it prints only when the condition holds.")
        if _CHECKS_NAN.search(ast.unparse(node.test)):
            name = where.get("function", "")
            name = name if name.isidentifier() else "f"      # (not "<module>")
            fix += (f" To stop where a NaN or inf is made instead, checkify.checkify({name}, "
                    f"errors=checkify.float_checks) returns an error whose err.throw() names "
                    f"the operation that made it.")
    elif builtin:
        why = (f"Python's max() and min() pick with a comparison (a > b), which must give "
               f"True or False, but it depends on {_traced_phrase(origin)}: it runs while "
               f"tracing, before any value exists.")
        fix = ("Use jnp's: jnp.maximum(a, b) / jnp.minimum(a, b) elementwise, jnp.max(x) / "
               "jnp.min(x) for an array's largest or smallest element; they trace.")
    else:
        why = (f"This line needs True or False, but the condition depends on "
               f"{_traced_phrase(origin)}. Python's if/while/and/or/not run while tracing, "
               f"before any value exists." + (_NONE_WHY if none else ""))
        fix = ("Branch inside the program: jnp.where(cond, a, b) computes both and picks "
               "elementwise; lax.cond(cond, true_fn, false_fn) runs one branch; loops: "
               "lax.while_loop / lax.fori_loop.")
    if not printing:
        fix += " Or make the argument static." if static else _array_note(origin)
    return ErrorCard(
        "bool-conversion", "Python control flow on a traced value",
        why=why, fix=fix, rewrite=rewrite,
        origin=origin, docs=_DOCS + "TracerBoolConversionError")


def _assert_card(exc, origin, static, rewrite) -> ErrorCard:
    return ErrorCard(
        "bool-conversion", "An assert on a traced value",
        why=(f"assert asks for one Python True or False, but its test depends on "
             f"{_traced_phrase(origin)}: it runs while tracing, once per compile, before any "
             f"value exists, so it cannot check the values the function is called with."),
        fix=("Check inside the program: checkify.check(pred, message) (from "
             "jax.experimental import checkify). Under jit a check raises unless the call goes "
             "through checkify.checkify, which returns (err, result); err.throw() raises the "
             "message if the check failed (a JaxRuntimeError, a ValueError: not "
             "AssertionError). checkify.checkify(f) around the jitted f keeps @jax.jit; "
             "jax.jit(checkify.checkify(f)) of the function undecorated works as well." +
             (" Or make the argument static: the assert then runs in Python, per compile."
              if static else "")),
        rewrite=rewrite + _or_static(origin, static, "value"),
        origin=origin, docs="https://docs.jax.dev/en/latest/debugging/checkify_guide.html")


def _tests_other_arguments(node, origin, frame) -> bool:
    """Whether the condition at the line (an `if`'s, a `while`'s, `a if c else b`'s, or an
    `and`/`or`) reads another argument of the function than the one the card would make
    static, traced: `if x > 0 or y > 0` with x static still asks traced y for True or False
    (JAX 0.10.2 raises again when x > 0 is False)."""
    test = getattr(node, "test", node) if isinstance(node, (ast.If, ast.While, ast.IfExp,
                                                            ast.BoolOp)) else None
    if test is None or frame is None or not origin:
        return False
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    parameters = set(code.co_varnames[:count])
    read = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    # (an argument static already, a Python value, asks nothing)
    return any(isinstance(frame.f_locals.get(name), Tracer)
               for name in (read & parameters) - {origin.get("argument")})


# a test for NaN or inf, where checkify's float_checks name the operation that made one
_CHECKS_NAN = re.compile(r"\b(isnan|isinf|isfinite|isposinf|isneginf)\(")


def _in_jnp(rewrite) -> str:
    """A rewrite's lines with Python's max/min and math's functions as jnp's (`if max(x, 0) >
    1` made jnp.where still compares in max)."""
    return "\n".join(_python_math_rewrite({"code": line}) or line
                     for line in rewrite.splitlines())


def _also_static(static, origin, where, exc) -> str:
    """`static` (a static_argnames fix for the origin's argument) naming also the jitted
    function's other arguments that the line reads traced, Python numbers passed (a 0-d weak
    tracer): Flax's key_concepts `nnx.Linear(dim, dim) for _ in range(nlayers)` under
    init_state(dim, nlayers) needs both (JAX 0.10.2, nlayers alone static: "Shapes must be
    1D sequences of concrete values", library_notes_reference.json)."""
    arg, function = (origin or {}).get("argument"), (origin or {}).get("function")
    written = f"static_argnames=({arg!r},)"
    tree = _parse_line(where) if where and static and written in static else None
    if tree is None:
        return static
    # names where a size or a count goes: a call's argument (nnx.Linear(dim, dim), range(n)),
    # a shape's tuple, a slice's bound; an int (x * 2.0 of a float needs no static)
    read = {child.id for parent in ast.walk(tree) if isinstance(
        parent, (ast.Call, ast.Tuple, ast.List, ast.Slice, ast.keyword))
        for child in ast.iter_child_nodes(parent)
        if isinstance(child, ast.Name) and child is not getattr(parent, "func", None)}
    # a Python number converted on the line (`f'{float(x):.1f} {float(y):.1f}'`): x static
    # alone, float(y) still raised (JAX 0.10.2), a float argument too
    converted = {call.args[0].id for call in ast.walk(tree) if isinstance(call, ast.Call)
                 and isinstance(call.func, ast.Name) and call.func.id in _CONVERTERS
                 and len(call.args) == 1 and isinstance(call.args[0], ast.Name)}
    tb, jitted = getattr(exc, "__traceback__", None), None
    while tb is not None:                 # the jitted function's frame: its parameters
        if tb.tb_frame.f_code.co_name == function:
            jitted = tb.tb_frame
        tb = tb.tb_next
    if jitted is None:
        return static
    code = jitted.f_code
    names = [p for p in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
             if p == arg or p in read and _python_number_traced(jitted.f_locals.get(p))
             or p in converted and _python_number_traced(jitted.f_locals.get(p), "")]
    if names == [arg] or arg not in names:
        return static
    return static.replace(written, f"static_argnames={tuple(names)!r}")


def _python_number_traced(value, kind="int") -> bool:
    """Whether `value` is a Python number traced (0-d, weak), of `kind` ("" for any)."""
    aval = getattr(value, "aval", None)
    return isinstance(value, Tracer) and getattr(aval, "shape", None) == () and \
        getattr(aval, "weak_type", False) and kind in str(getattr(aval, "dtype", ""))


_CONVERTERS = ("int", "float", "complex", "bool")


def _keywords_added(fixed, code) -> bool:
    """Whether `fixed` is the line `code` with static_argnames added to a jit on it (the fix
    in place, `jax.jit(jnp.sum, static_argnames=('axis',))(x, 0)`): the line as it was,
    shown after it, would trace the argument again."""
    trees = [_parse_line({"code": c}) for c in (fixed, code)]
    if None in trees:
        return False
    for call in ast.walk(trees[0]):
        if isinstance(call, ast.Call):
            call.keywords = [k for k in call.keywords if k.arg != "static_argnames"]
    return ast.dump(trees[0]) == ast.dump(trees[1])


def _concretization_card(exc, where, called_from) -> ErrorCard:
    # a line of a longer statement: the whole statement rewritten (its fragment did not parse)
    where = _whole_statement(where)
    origin = _origin(exc)
    integer = isinstance(exc, jx_errors.TracerIntegerConversionError)
    static = _also_static(_static_fix(origin, where, exc), origin, where, exc)
    code = where["code"] if where else ""
    converts = re.search(r"\b(int|float|complex|bool)\(([^()]*)\)?", code)
    # JAX's own advice for int(x) / float(x) of a tracer: convert the dtype, stay traced
    frame = _user_frame(exc)
    astype = _astype_rewrite(where, converts.group(1), frame) if converts else ""
    looped = ""
    if converts and converts.group(1) in ("float", "complex") and \
            (converts.group(2) or "").strip() and converts.group(0).endswith(")"):
        # float(w) only made a Python number of an array: the array itself does as well, and
        # stays traced (under grad, JAX refuses float() of w even though its value is known:
        # a Python number would have no derivative)
        astype = _unwrapped(where, converts.group(1), frame) or \
            (f"{code.replace(converts.group(0), converts.group(2).strip(), 1)}   # the "
             f"array itself, traced: no {converts.group(1)}()")
    # x.item() / x.tolist() of a static argument cannot work: static, x is the Python number
    # itself, which has no .item() (JAX: "'float' object has no attribute 'item'"); the fix is
    # to keep the array, which jnp code takes wherever it took the number
    pulls = re.search(r"\.(item|tolist)\(\)", code)
    if pulls:
        static = ""
        astype = _printed_as_it_runs(code.replace(pulls.group(0), '', 1)) or \
            (f"{code.replace(pulls.group(0), '', 1)}   # the array itself, traced: "
             f"no .{pulls.group(1)}()")
    # `if m.item() > 0:` kept traced is still Python's `if` of a traced value (JAX 0.10.2:
    # TracerBoolConversionError): the branch itself traced, its test unconverted
    astype = _branch_unconverted(where, frame) or astype
    if static:
        # the line itself, a lambda jitted where it is called (`s[0]`'s fix: s static)
        in_place = "\n" not in static and ("lambda" in static or _keywords_added(static, code))
        # after a `def f(...):` the line is in its body: indented, as it would be pasted
        body = "    " if static.rstrip().endswith(":") else ""
        lines = "\n".join(body + line for line in code.splitlines())  # (a statement's all)
        rewrite = static + (f"\n{body}# then this line sees a Python value:\n{lines}"
                            if code and not in_place else "")
        rewrite += f"\n# or, if an array is fine here, keep it traced:\n{astype}" if astype else ""
        loop = _range_loop_rewrite(where) if where else ""
        if loop:                    # JAX's fori_loop takes traced bounds: nothing static
            rewrite = (f"{loop}\n# or, if {origin['argument']} is a Python int that seldom "
                       f"changes (each new value compiles anew):\n{rewrite}")
    elif where and _range_loop_rewrite(where):       # `for i in range(n)`, n an array:
        rewrite = looped = _range_loop_rewrite(where)    # the loop traced (it said "a size?")
    elif pulls:                                       # not a size: the number itself
        rewrite = astype
    elif astype and converts.group(1) in ("float", "complex"):     # a number, not a size
        rewrite = astype
    elif astype:
        rewrite = f"{astype}\n# a size? take it from a shape, known under jit (n = x.shape[0])"
    elif _numpy_for_constants(where, _user_frame(exc), origin):
        rewrite = _numpy_for_constants(where, _user_frame(exc), origin)
    else:
        rewrite = "# a size? take it from a shape (n = x.shape[0]): shapes are static under jit"
    math = _python_math_rewrite(where) if not (pulls or converts) else ""
    if math:            # math.exp(x): float(x) inside math; jnp's function traces
        rewrite = (f"{math}    # jnp's function: traced, no Python float needed" +
                   _or_static(origin, static, "float"))
    kept = _kept_outside(where, _user_frame(exc)) if converts and not static and \
        where["function"].isidentifier() else None
    if kept:
        # `running_loss += float(loss)` in a jitted step: dropping float() keeps a tracer in
        # running_loss past the trace (JAX's UnexpectedTracerError at its next use); the sum
        # is made outside, from the value the step returns
        value = converts.group(2).strip() or "value"
        rewrite = (f"return {value}    # from {where['function']}: a traced value leaves "
                   f"only as an output\n# then, outside, after each call, it has a value:\n"
                   f"{_added_after(kept, where['function'], called_from)}")
        fix = (f"{kept} lives outside {where['function']}, which runs once, while tracing: "
               f"return {value} and add it up after each call, where float() sees its value "
               f"(writing the traced value into {kept} instead leaks it: JAX's "
               f"UnexpectedTracerError).")
    elif math:
        fix = ("Use jnp's function of the same name (jnp.exp for math.exp, ...): math's "
               "functions take Python floats, and call float() on an array, which a traced "
               "one cannot give." + (" Or make the argument static." if static
                                     else _array_note(origin)))
    elif looped:
        fix = ("Loop inside the program: lax.fori_loop takes a traced count (Python's range "
               "needs a Python int), its state carried from step to step." + _array_note(origin))
    elif static:
        fix = (f"Make the argument static ({_static_how(origin)}), so Python "
               "sees its value; sizes can come from shapes (x.shape), which are static.")
    elif rewrite == _numpy_for_constants(where, _user_frame(exc), origin) and rewrite:
        fix = ("It is made from shapes and constants alone, which are Python values under "
               "jit, but by jnp operations, which trace them: NumPy's (np.prod(x.shape)) "
               "compute it in Python while tracing, a concrete value.")
    else:
        fix = ("Keep the value traced: jnp operations instead of Python ones (x.astype(int) "
               "instead of int(x)); sizes must come from shapes (x.shape), which are static "
               "under jit." + _array_note(origin))
    advice = _jax_advice(exc)
    if advice and not kept and not math:
        # the jnp function's own fix in JAX's message (jnp.repeat's total_repeat_length=,
        # bincount's length=), which the card's first line left out and its words buried
        fix = f"JAX's message says: {advice} " + fix
        rewrite = f"# {advice}\n{rewrite}" if rewrite.startswith("# a size?") else rewrite
    return ErrorCard(
        "integer-conversion" if integer else "concretization",
        "A Python value was needed from a traced array",
        why=(f"This line needs a concrete Python value (a size, an index, a number), but it "
             f"comes from {_traced_phrase(origin)}."),
        fix=fix, rewrite=rewrite,
        origin=origin, docs=_DOCS + (type(exc).__name__ if isinstance(exc, jx_errors.JAXTypeError)
                                     else "ConcretizationTypeError"))


def _jax_advice(exc) -> str:
    """The line of JAX's message that says how to fix it (a jnp function's own words: "To
    fix this, ... pass a static value to `total_repeat_length`."), or ""."""
    for line in str(exc).splitlines()[1:]:
        if line.startswith("The error occurred while tracing"):
            break
        if "To fix this" in line or "To avoid this error" in line:
            return line.strip()
    return ""


def _branch_unconverted(where, frame) -> str:
    """The `if`/`while` at `where` as jnp.where / lax.cond / lax.while_loop, each conversion
    in its test (`m.item()`, `float(x)`: dropped; `int(i)`: i.astype(int)) made traced; ""
    for any other line, or a test converting nothing."""
    node = _node_at(where) if where else None
    if not isinstance(node, (ast.If, ast.While)) or node.lineno != where["line"]:
        return ""
    kept = [(ast.unparse(call), traced) for call in ast.walk(node.test)
            for traced in [_unconverted(call)] if traced]
    if not kept:
        return ""
    rewrite = _branch_rewrite(where, frame)
    for call, traced in kept:
        rewrite = rewrite.replace(call, traced)
    return rewrite


def _unconverted(node) -> str:
    """`node`, a conversion of one value to a Python number, as the array it converts
    (`x.item()`, `float(x)`: x; `int(x)`, `bool(x)`: x.astype(int)); "" for any other node."""
    if not isinstance(node, ast.Call) or node.keywords:
        return ""
    if isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args:
        value = node.func.value
    elif isinstance(node.func, ast.Name) and node.func.id in _CONVERTERS and \
            len(node.args) == 1:
        value = node.args[0]
    else:
        return ""
    text = ast.unparse(value)
    if not isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        text = f"({text})"
    return f"{text}.astype({node.func.id})" if getattr(node.func, "id", "") in ("int", "bool") \
        else text


# what NumPy may read of a traced array: these are Python values under jit
_STATIC_ATTRIBUTES = {"shape", "ndim", "size", "dtype"}


def _numpy_for_constants(where, frame, origin) -> str:
    """The user's line with its jnp calls on constants and shapes made NumPy's, where the value
    that had to be concrete was made from constants by jnp operations (tracing.md's
    `x.reshape(jnp.array(x.shape).prod())`: under jit jnp traces even a shape's product, and
    NumPy computes it in Python while tracing, as the page's fix `np.prod(x.shape)` does).
    Only calls reading nothing traced but shapes are changed; "" where there is none.

        >>> import jxkernel.numpy as jnp
        >>> class F: f_globals, f_locals = {"jnp": jnp}, {}
        >>> print(_numpy_for_constants({"code": "return x.reshape(jnp.array(x.shape).prod())"},
        ...                            F, {"steps": [1]}))
        import numpy as np
        return x.reshape(np.array(x.shape).prod())    # NumPy's: a Python value while tracing
    """
    if not origin or origin.get("input_type") or not origin.get("steps") or frame is None:
        return ""
    tree = _parse_line(where)
    if tree is None:
        return ""
    names = {**frame.f_globals, **frame.f_locals}
    numpy = next((n for n, v in names.items() if getattr(v, "__name__", None) == "numpy"
                  and n.isidentifier()), None)
    code, spans, calls = where["code"], [], []

    def traced(node) -> bool:
        shapes = {id(n.value) for n in ast.walk(node)
                  if isinstance(n, ast.Attribute) and n.attr in _STATIC_ATTRIBUTES}
        return any(isinstance(names.get(n.id), Tracer) for n in ast.walk(node)
                   if isinstance(n, ast.Name) and id(n) not in shapes)

    for node in ast.walk(tree):
        func = getattr(node, "func", None)
        if isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and \
                isinstance(func.value, ast.Name) and func.value.lineno == 1 and \
                getattr(names.get(func.value.id), "__name__", "") in ("jax.numpy",
                                                                      "jxkernel.numpy") and \
                node.end_lineno == 1 and not traced(node) and \
                not any(a <= node.col_offset < b for a, b in calls):     # (inside one made)
            spans.append(func.value)
            calls.append((node.col_offset, node.end_col_offset))
    if not spans:
        return ""
    line = replaced(code, [(node, numpy or "np") for node in spans])
    return (("" if numpy else "import numpy as np\n") + line +
            "    # NumPy's: a Python value while tracing")


def _kept_outside(where, frame) -> str | None:
    """The name or attribute a line like `total += float(loss)` adds into when it lives
    outside the traced function (a global, a nonlocal, `self.total`), else None.

        >>> _kept_outside({"code": "self.total += float(loss)"}, None)
        'self.total'
    """
    tree = _parse_line(where)
    node = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    if isinstance(node, ast.AugAssign):
        target = node.target
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and \
            isinstance(node.value, ast.BinOp) and \
            ast.unparse(node.targets[0]) in (ast.unparse(node.value.left),
                                             ast.unparse(node.value.right)):
        target = node.targets[0]        # total = total + float(loss)
    else:
        return None
    if isinstance(target, (ast.Attribute, ast.Subscript)):
        return ast.unparse(target)
    # a name the function does not bind itself (declared global or nonlocal)
    if isinstance(target, ast.Name) and frame is not None and \
            target.id not in frame.f_code.co_varnames and \
            target.id not in frame.f_code.co_cellvars:
        return target.id
    return None


def _added_after(kept, function, called_from) -> str:
    """`kept += float(f(...))`, written on the user's call of `function` when it is the
    line's whole statement (`f(a, b)` or `loss = f(a, b)`)."""
    tree = _parse_line(called_from)
    node = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    call = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    if not (isinstance(call, ast.Call) and ast.unparse(call.func) == function):
        return f"{kept} += float({function}(...))"
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
            isinstance(node.targets[0], ast.Name):
        return f"{called_from['code']}\n{kept} += float({node.targets[0].id})"
    return f"{kept} += float({ast.unparse(call)})"


def _is_traced_shape_error(e) -> bool:
    """jnp.zeros(n) with a traced n: JAX's plain TypeError, which carries the provenance."""
    return isinstance(e, TypeError) and getattr(e, "provenance", None) is not None and \
        str(e).startswith("Shapes must be 1D sequences of concrete values")


def _array_card(exc, where, called_from) -> ErrorCard:
    origin = _origin(exc)
    code = where["code"] if where else ""
    jnp_code = re.sub(r"\b(?:np|numpy|onp)\.", "jnp.", code)
    rewrite = (jnp_code if jnp_code != code else
               "# jax.numpy's function in place of NumPy's on traced values (jnp.asarray(x) "
               "for np.asarray(x))")
    rewrite += ("\n# or, for NumPy code with no jnp equivalent, call it outside the transformed "
                "function (or through jax.pure_callback)")
    return ErrorCard(
        "array-conversion", "NumPy called on a traced value",
        why=(f"NumPy needs the numbers, but under the transformation {_traced_phrase(origin)} "
             f"has none yet."),
        # (jax.numpy: the name the learner imported, jxkernel.numpy under `import jxkernel as
        # jax` and under the kernel that is JAX on jxkernel alike)
        fix="Use jax.numpy (jnp) on traced values: the same functions, traced.",
        rewrite=rewrite,
        origin=origin, docs=_DOCS + "TracerArrayConversionError")


def _leaked_card(exc, where, called_from) -> ErrorCard:
    origin = _origin(exc)
    by = _leaked_by(exc)
    function = (origin or {}).get("function")
    how = by or (origin or {}).get("transformation") or "jit"
    made = (origin or {}).get("steps") or []
    made_at = f" (made at {made[-1]['where']}: {made[-1]['code']})" \
        if made and made[-1]["where"] and made[-1]["code"] else ""
    inside = f"inside {function}" if function else "inside the transformed function"
    return ErrorCard(
        "leaked-tracer", "A traced value escaped its transformation",
        why=(f"A value traced {inside} (for {_LEAK_WORDS.get(how, how)}){made_at} was kept "
             f"outside it, in a global, a list or an attribute; once the trace ended it has "
             f"no value."),
        fix=_LEAK_FIXES.get(how, "Return the value from the transformed function instead of "
                                 "storing it."),
        rewrite=_leak_rewrite(function or "f", how),
        origin=origin,
        docs=_DOCS + "UnexpectedTracerError")


# the tracer JAX's message names ("... wrapped in a LinearizeTracer to escape ..."): a
# differentiation's or vmap's value carries no function of its own, so the core's provenance
# is missing (jax.grad(loss) alone) or names the jit around it (jax.jit(jax.grad(loss)));
# either way "(for jit)" and `jax.jit(f)` were the wrong transformation
_LEAKED_BY = {"LinearizeTracer": "grad", "JVPTracer": "jvp", "BatchTracer": "vmap"}
_LEAK_WORDS = {"grad": "differentiation: jax.grad, value_and_grad, jacrev or vjp",
               "jvp": "forward-mode differentiation: jax.jvp or jacfwd", "vmap": "jax.vmap"}
# a differentiated function's second output breaks grad ("Gradient only defined for
# scalar-output functions", JAX 0.10.2): it leaves through has_aux
_LEAK_FIXES = {
    "grad": "Return the value beside the loss, as (loss, value), and differentiate with "
            "has_aux=True: jax.grad(loss, has_aux=True) gives (grads, value), "
            "jax.value_and_grad(loss, has_aux=True) gives ((loss, value), grads).",
    "jvp": "Return the value beside the output, as (output, value), and pass has_aux=True: "
           "jax.jacfwd(f, has_aux=True) gives (jacobian, value), jax.jvp(f, primals, "
           "tangents, has_aux=True) gives (output, tangent, value)."}


def _leaked_by(exc) -> str | None:
    """The transformation whose tracer leaked, read from the tracer JAX's message names
    ("grad", "jvp", "vmap"); None for a jit's or a loop's (DynamicJaxprTracer)."""
    found = re.search(r"wrapped in an? (\w+Tracer)", str(exc))
    return _LEAKED_BY.get(found.group(1)) if found else None


# a loop's or a branch's body (what JAX says it was traced for): how a value leaves it
_BODY_RETURNS = {
    "scan": "def step(carry, x):\n    ...\n    return carry, value    # out as scan's ys, "
            "stacked\n\ncarry, values = lax.scan(step, init, xs)",
    "fori_loop": "def body(i, state):\n    ...\n    return (carry, value)    # in the loop "
                 "state, not a list\n\ncarry, value = lax.fori_loop(lower, upper, body, "
                 "(init, value0))",
    "cond": "def branch(x):\n    ...\n    return result, value    # each branch returns "
            "both\n\nresult, value = lax.cond(pred, branch, other_branch, x)"}
_BODY_RETURNS.update({"while_body": _BODY_RETURNS["fori_loop"].replace(
    "def body(i, state)", "def body(state)").replace("lax.fori_loop(lower, upper, body,",
                                                     "lax.while_loop(cond_fun, body,"),
    "switch": _BODY_RETURNS["cond"].replace("lax.cond(pred, branch, other_branch, x)",
                                            "lax.switch(index, [branch, ...], x)")})


# a differentiated function's value: out beside its output, through has_aux
_AUX_RETURNS = {
    "grad": "def loss(w):\n    ...\n    return loss_value, value    # the value beside the "
            "loss\n\ngrads, value = jax.grad(loss, has_aux=True)(w)",
    "jvp": "def f(x):\n    ...\n    return y, value    # the value beside the output\n\n"
           "jacobian, value = jax.jacfwd(f, has_aux=True)(x)"}


def _leak_rewrite(function, how) -> str:
    """Code that returns the leaked value instead of storing it: through the loop's state or
    the branches' results for a body (its name, a lambda's, would not parse), else from the
    jitted function."""
    if how in _BODY_RETURNS:
        return _pattern(_BODY_RETURNS[how])
    if how in _AUX_RETURNS:
        return _pattern(_AUX_RETURNS[how])
    name = function if function.isidentifier() else "f"
    return _pattern(f"def {name}(x):\n    ...\n    return result, value    # return it, don't "
                    f"store it\n\nresult, value = jax.{how if how.isidentifier() else 'jit'}"
                    f"({name})(x)")
