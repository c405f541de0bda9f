"""The static_argnames fix written for the user's own call (the name it calls, a decorator, a
lambda, a library's function jitted on the line), offered only where static can work: a
static argument must be a hashable Python value, never an array."""
from __future__ import annotations

import ast
import linecache
import re

from ...core.errors import CHECKPOINT
from ...transforms.api_util import positional_parameters
from ...transforms.jit.args import python_value_of
from ..argument_uses import argument_expression, literal_of, python_value, with_argument
from ..source import is_user_file
from ..source_edits import after, replaced
from .frame_names import _named_value
from .magics import _magic_code, as_typed
from .reading import _user_frame
from .rewrites import _parse_line


def _static_fix(origin, where=None, exc=None) -> str:
    """How to make the origin's argument static where the function was transformed; "" when
    static cannot work: a static argument must be hashable and is compared by value, so only
    a plain Python value (a number, a bool, a tuple) can be one, never an array (its input
    type has dimensions) nor a leaf inside a dict or list argument (the whole container
    would have to be static, and a dict or list is not hashable). A function defined under
    `@jax.jit` gets the decorator rewritten: `f = jax.jit(f, static_argnames=...)` would wrap
    the jit object, whose own jit still traces the argument (JAX 0.10.2 raises the same error
    again)."""
    arg = origin and origin.get("argument")
    if not arg or origin.get("traced_also_by"):     # grad's, jvp's or vmap's inside: traced
        return ""
    if origin.get("transformation") == CHECKPOINT:
        return _checkpoint_static(origin, where, exc)
    if origin.get("transformation") != "jit":   # a loop body's input can't be
        return ""
    as_tuple = None     # a list of numbers passed (static, it must come as a tuple): its tuple
    if not arg.isidentifier():          # `shape[0]`: the whole tuple static, if it can be
        arg, as_tuple = _static_sequence(origin, exc)
        if not arg:
            return ""
    if is_array_input(origin):
        return ""
    function = origin.get("function") or "f"
    if function.startswith("cell["):
        return "" if as_tuple else f"%%jit --static {arg}"
    if not function.isidentifier():       # a lambda: static where the line jits it, else named
        in_place = _lambda_static(where, arg)
        if as_tuple:
            return _tuple_passed(in_place, arg, _parameter_at(exc, function, arg), as_tuple)
        return in_place or f"jax.jit(f, static_argnames=({arg!r},))"
    decorator, header = _jit_decorator(where, function)
    # (a 0-d array passed: static under the decorator, JAX 0.10.2 refuses it, a jax.Array
    # being unhashable; the call would have to pass a Python value, which the card cannot see)
    if decorator and not as_tuple and origin.get("input_kind") != "array":
        # the decorator's own name for jit: `@jit` after `from jax import jit` has no `jax`
        return (f"from functools import partial\n"
                f"@partial({decorator[1:]}, static_argnames=({arg!r},))   # in place of "
                f"{decorator}\n{header}")
    # (a library's function jitted, `jax.jit(jnp.sum)(x, 0)`: its frames are filtered out of
    # the traceback, and the learner's line is the call)
    caller = _jit_caller(exc, function) or _line_of(where, exc)
    rebound = _rebound(caller, function, arg)
    if as_tuple:
        if decorator:
            return ""
        position = _parameter_at(exc, function, arg)
        passed = _tuple_passed(rebound, arg, position, as_tuple)
        if not passed and rebound and caller:
            # `g = jax.jit(f)` made earlier, `g(1.0, shp)` called: the jit made again, then
            # the call with the tuple (the call is no part of the jit's line)
            call = _tuple_passed((caller or {}).get("code", ""), arg, position, as_tuple)
            passed = f"{rebound}\n{call}" if call else ""
        return passed
    if origin.get("input_kind") != "array":
        return rebound or _jit_again(exc, function, arg)
    # jit was given an array, or an outer transformation's tracer (`jax.grad(jax.jit(f))(1.0)`:
    # JAX raises "Non-hashable static arguments" of a LinearizeTracer): static works only
    # where the call can pass a Python value in its place
    passed = _value_passed(rebound, arg, _parameter_at(exc, function, arg), True) \
        if rebound else ""
    return passed if passed != rebound else ""


def _jit_again(exc, function, arg) -> str:
    """`f = jax.jit(f, static_argnames=...)`, or, where the learner's `f` is the jit already
    (`f = jax.jit(f)` earlier), the jit rebuilt from the function it wraps: the jit of the jit
    still traced the argument (JAX 0.10.2 raises the same error again), as for a lambda's."""
    frame = _user_frame(exc)
    bound = (frame.f_globals.get(function) if frame is not None else None)
    wrapped = getattr(bound, "__wrapped__", None)
    if wrapped is not None and getattr(wrapped, "__name__", None) == function and \
            getattr(bound, "lower", None) is not None:
        return (f"{function} = jax.jit({function}.__wrapped__, static_argnames=({arg!r},))"
                f"    # {function} is the jit already: made again from the function it wraps")
    return f"{function} = jax.jit({function}, static_argnames=({arg!r},))"


def _static_or(origin, where, exc, kind, otherwise) -> tuple[str, str]:
    """The fix's last sentence and the rewrite for a traced value a jnp function needs as a
    Python `kind`: make its source argument static where that can work (the rewrite is
    `_static_fix`'s), else `otherwise`, a (sentence, rewrite) pair.

        jnp.tile(x, (n,)) in `@jax.jit def f(x, n)` -> ("Mark n static ...", "@partial(...)")
    """
    static = _static_fix(origin, where, exc) if origin else ""
    if not static:
        return otherwise
    return (f"Mark {origin['argument']} static where the function is jitted: it is then a "
            f"Python {kind} while tracing, and each new value compiles once.", static)


def _static_how(origin) -> str:
    """How the card's static fix makes the argument static, in a few words: jit's keywords
    or %%jit's flag, or checkpoint's static_argnums (JAX's checkpoint has no static_argnames).

        >>> _static_how({"transformation": "checkpoint / remat"})
        'static_argnums of jax.checkpoint'
    """
    if (origin or {}).get("transformation") == CHECKPOINT:
        return "static_argnums of jax.checkpoint"
    return "static_argnames, or --static in %%jit"


def _checkpoint_static(origin, where, exc) -> str:
    """The argument static where the user checkpoints the function: static_argnums (JAX's
    checkpoint takes no static_argnames) added to `jax.checkpoint(f)` in the calling line, or
    to a `@jax.checkpoint` decorator; "" for an array, a leaf of a container, or an argument
    an outer transformation passed traced (`jax.grad(jax.checkpoint(f))(1.0)`'s x: static,
    JAX still raises, as its value is grad's tracer).

        jax.grad(jax.checkpoint(cond_fn))(1., True)
        -> jax.grad(jax.checkpoint(cond_fn, static_argnums=(1,)))(1.0, True)
    """
    arg, function = origin["argument"], origin.get("function") or ""
    if not arg.isidentifier() or not function.isidentifier() or is_array_input(origin) or \
            origin.get("input_kind") != "python":
        return ""
    position = _parameter_at(exc, function, arg)
    if position is None:
        return ""
    caller = _caller(exc, function)
    code = linecache.getline(*caller[:2]).strip() if caller else ""
    tree = _parse_line({"code": code}) if code else None
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and ast.unparse(call.func) in _CHECKPOINTS and \
                [ast.unparse(a) for a in call.args] == [function] and not any(
                    k.arg == "static_argnums" for k in call.keywords) and \
                call.lineno == call.end_lineno == 1:
            # in the learner's own text (ast.unparse would write their `1.` as `1.0`)
            return replaced(code, [(after(call.args[-1]), f", static_argnums=({position},)")])
    decorator = _decorator(where, function, _CHECKPOINTS)
    if decorator:
        return (f"from functools import partial\n@partial({decorator[0][1:]}, static_argnums="
                f"({position},))   # in place of {decorator[0]}\n{decorator[1]}")
    return f"jax.checkpoint({function}, static_argnums=({position},))   # where it is checkpointed"


_CHECKPOINTS = ("jax.checkpoint", "jax.remat", "checkpoint", "remat")


def _static_sequence(origin, exc) -> tuple:
    """(the argument, None) for an element `shape[0]` of a tuple of Python numbers passed to
    the jitted function: hashable, so the whole tuple can be static; (the argument, the code
    of its tuple) for a list of numbers, static once passed as that tuple; ("", None) for any
    other (an array inside, a dict, a value the calling line does not show)."""
    found = re.fullmatch(r"([A-Za-z_]\w*)\[\d+\]", origin.get("argument") or "")
    if found is None or origin.get("input_kind") != "python":
        return "", None
    arg, function = found.group(1), origin.get("function") or ""
    position, caller = _parameter_at(exc, function, arg), _caller(exc, function)
    if position is None or caller is None:
        library = _library_jitted(exc, function, arg)
        if library is None:
            return "", None
        position, code, frame = library
        caller = (None, None, frame)
    else:
        code = linecache.getline(*caller[:2]).strip()
    expression = argument_expression(code, arg, position)
    try:
        value = ast.literal_eval(expression) if expression else None
    except (ValueError, SyntaxError):       # a name: its value in the calling frame
        value = _named_value(caller[2], expression) \
            if expression.isidentifier() else None
    if not isinstance(value, (tuple, list)) or not all(
            type(v) in (int, float, bool) for v in value):
        return "", None
    if isinstance(value, tuple):
        return arg, None
    return arg, (repr(tuple(value)) if expression.startswith("[") else f"tuple({expression})")


def _library_jitted(exc, function, arg):
    """(`arg`'s position among the parameters of a library's function jitted on the user's
    line, the line, the user's frame): `jax.jit(jnp.reshape)(x, (3, 2))` gives shape's 1
    (its frames are filtered out of the traceback, where a function of the user's has its
    own); None otherwise."""
    frame = _user_frame(exc)
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip() \
        if frame is not None else ""
    tree = _parse_line({"code": line})
    for call in ast.walk(tree) if tree is not None else ():
        inner = call.func if isinstance(call, ast.Call) else None
        if isinstance(inner, ast.Call) and ast.unparse(inner.func) in ("jax.jit", "jit") and \
                len(inner.args) == 1 and ast.unparse(inner.args[0]).split(".")[-1] == function:
            value = _dotted_value(inner.args[0], frame)
            params = positional_parameters(value) if callable(value) else None
            if params and arg in params:
                return params.index(arg), line, frame
    return None


def _dotted_value(node, frame):
    """What the frame binds to a name or a dotted name (`jnp.reshape`), never calling."""
    if isinstance(node, ast.Name):
        return _named_value(frame, node.id)
    if isinstance(node, ast.Attribute):
        return getattr(_dotted_value(node.value, frame), node.attr, None)
    return None


def _tuple_passed(line, arg, position, as_tuple) -> str:
    """The static fix's call with the list argument passed as its tuple, or "" where the line
    does not show it."""
    return (with_argument(line, arg, position, as_tuple) or "") if line and position is not None \
        else ""


def _or_static(origin, static, kind) -> str:
    """`static` (_static_fix's) as an alternative after a card's rewrite ("" where none can
    work): for an argument that is a Python `kind` (value, int) that seldom changes."""
    return (f"\n# or, if {origin['argument']} is a Python {kind} that seldom changes (each "
            f"new value compiles anew):\n{static}") if static else ""


def _parameter_at(exc, function, arg):
    """`arg`'s position among `function`'s parameters, read from its frame (the user's) in the
    traceback (None where it is not there)."""
    tb = getattr(exc, "__traceback__", None)
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == function and is_user_file(code.co_filename):   # not jxkernel's lambda
            names = code.co_varnames[:code.co_argcount]
            return names.index(arg) if arg in names else None
        tb = tb.tb_next
    return None


def _value_passed(line, arg, position, array) -> str:
    """The static fix's call with the argument passed as a Python value where it came as an
    array (jit saw it: `array`), which made static as it is fails again (unhashable: JAX's
    ValueError): `jnp.array(True)` as `True`, a name as `flag.item()`."""
    expression = argument_expression(line, arg, position) if position is not None else None
    if not expression:
        return line
    value = python_value(expression, 0, python_value_of) if array else literal_of(expression)
    return (with_argument(line, arg, position, value) or line) if value else line


def _lambda_static(where, arg) -> str:
    """The user's line `jax.jit(lambda x: ...)(...)` with `arg` static_argnames there (JAX
    names a lambda's parameters as a def's), or "" when the line jits no such lambda."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and ast.unparse(call.func) in ("jax.jit", "jit") and \
                len(call.args) == 1 and isinstance(call.args[0], ast.Lambda) and \
                arg in [a.arg for a in call.args[0].args.args] and not call.keywords:
            call.keywords.append(ast.keyword("static_argnames",
                                             ast.Tuple([ast.Constant(arg)], ast.Load())))
            return ast.unparse(tree)
    return ""


def _jit_caller(exc, function):
    """{"code": the line} of the user's frame that called the jitted `function` (`return
    cube(x, 3)` inside the learner's `volume`, not the cell's `volume(...)`), or None."""
    caller = _caller(exc, function)
    # (as typed: `%timeit jax.jit(f)(1.0)` ran as get_ipython().run_line_magic(...), whose
    # one plain call made the fix `get_ipython = jax.jit(f, ...)`)
    line = as_typed(linecache.getline(*caller[:2]).strip()) if caller else ""
    return {"code": line, "_frame": caller[2]} if line else None


def _line_of(where, exc):
    """`where` as _jit_caller gives its line: its code and the user's frame; None without."""
    return {"code": where["code"], "_frame": _user_frame(exc)} if where else None


def _caller(exc, function):
    """(file, line, frame) of the user's frame that called the jitted `function`: the frame
    before the first frame of `function` in the traceback (jxkernel's own frames are filtered
    out of it, or skipped here), or None."""
    tb, caller = getattr(exc, "__traceback__", None), None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == function and caller is not None:
            return caller
        if is_user_file(code.co_filename):
            caller = (code.co_filename, tb.tb_lineno, tb.tb_frame)
        tb = tb.tb_next
    return None


def _rebound(called_from, function, arg) -> str:
    """The fix where the calling line names the jit otherwise than `function`: `jax.jit(f)(x,
    3)` gets static_argnames in place, and `g(x, 3)` with `g = jax.jit(f)` made earlier gets
    `g = jax.jit(f, ...)` (rebinding `f` left the learner's `g` tracing the argument); "" when
    the line calls `function` itself or says nothing clear."""
    magic, code = _magic_code((called_from or {}).get("code", ""))
    if magic:           # `%timeit -n 1 jax.jit(f)(1.0)`: its code rewritten, the magic kept
        fixed = _rebound({"code": code}, function, arg) if code else ""
        rebinds = re.fullmatch(rf"\w+ = jax\.jit\({re.escape(function)}, static_argnames=.*",
                               fixed)   # `g = jax.jit(f, ...)`: a line of its own, then the magic
        return fixed if rebinds or not fixed else magic + fixed
    tree = _parse_line(called_from)
    if tree is None:
        return ""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    for call in calls:                  # jax.jit(function)(...) in the line: add it there
        inner = call.func
        # (a lambda's name, `<lambda>`, is in no line: the one function jitted there is it)
        # (a library's function by its module, `jax.jit(jnp.sum)`: its name is the last one)
        wraps = [_unwrapped(a).split(".")[-1] for a in inner.args] \
            if isinstance(inner, ast.Call) else []
        if isinstance(inner, ast.Call) and ast.unparse(inner.func) in ("jax.jit", "jit") and \
                (wraps == [function] or len(wraps) == 1 and not function.isidentifier()) and \
                not inner.keywords:
            inner.keywords.append(ast.keyword("static_argnames",
                                              ast.Tuple([ast.Constant(arg)], ast.Load())))
            return ast.unparse(tree)
    names = [c.func.id for c in calls if isinstance(c.func, ast.Name)]
    # a line passing the jit on (`jax.eval_shape(partial(init_state, dim, nlayers))`, Flax's
    # key_concepts) calls no other name of it: `partial = jax.jit(...)` rebound functools'
    passed = any(isinstance(a, ast.Name) and a.id == function for c in calls
                 for a in [*c.args, *(k.value for k in c.keywords)])
    if function in names or len(set(names)) != 1 or not function.isidentifier() or passed:
        return ""       # (a lambda: the caller rebuilds the jit from its __wrapped__)
    frame = (called_from or {}).get("_frame")
    wrapped = getattr(_named_value(frame, names[0]), "__wrapped__", None) if frame else None
    if wrapped is not None and getattr(wrapped, "__name__", None) == function and \
            _named_value(frame, function) is not wrapped:
        # `g = jax.jit(jnp.sum)`: no name of the learner's is `sum` (Python's builtin is):
        # the function g wraps, made again with the argument static
        return (f"{names[0]} = jax.jit({names[0]}.__wrapped__, static_argnames=({arg!r},))"
                f"    # the function {names[0]} jits, {arg} static")
    return f"{names[0]} = jax.jit({function}, static_argnames=({arg!r},))"


# what a jit may wrap around the function and still take its argument's name: the wrapper
# keeps the function's signature (JAX's `jax.jit(jax.grad(g), static_argnames=('flag',))`
# works, where `g = jax.jit(g, static_argnames=...)` under it gets the outer jit's tracer)
_SIGNATURE_KEEPING = {"jax.grad", "grad", "jax.value_and_grad", "value_and_grad", "jax.jacfwd",
                      "jacfwd", "jax.jacrev", "jacrev", "jax.hessian", "hessian",
                      "jax.checkpoint", "checkpoint", "jax.remat", "remat"}


def _unwrapped(node) -> str:
    """The source of `node`, or of the function it wraps in a signature-keeping transformation
    (`jax.grad(g)` -> "g"): an argument of g is one of the jit's by the same name."""
    while isinstance(node, ast.Call) and ast.unparse(node.func) in _SIGNATURE_KEEPING and \
            node.args:
        node = node.args[0]
    return ast.unparse(node)


def _called_name(line, function) -> str:
    """The name `line` calls the jit of `function` by: the one plain name it calls, else
    `function`."""
    tree = _parse_line(line)
    names = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and
             isinstance(n.func, ast.Name)} if tree is not None else set()
    return names.pop() if len(names) == 1 else function


def _jit_decorator(where, function) -> tuple:
    """(the `@jax.jit` or `@jit` line that decorates `function`, whose body holds `where`, its
    `def` line), or ("", "") when it has none: read back from `where`'s line to the
    function's `def` and the decorators above it."""
    return _decorator(where, function, ("jit",)) or ("", "")


def _decorator(where, function, names) -> tuple:
    """(the decorator line of `function` among `names`, bare or under a module (`@jax.jit`
    for "jit"), its `def` line), or () when it has none."""
    path = (where or {}).get("_path")
    if not path:
        return ()
    header = re.compile(rf"\s*(?:async\s+)?def\s+{re.escape(function)}\s*\(")
    line = where["line"]
    while line > 0 and not header.match(linecache.getline(path, line)):
        line -= 1
    define = linecache.getline(path, line).strip()
    while line > 1:
        line -= 1
        above = linecache.getline(path, line).strip()
        if not above.startswith("@"):
            break
        if any(re.fullmatch(rf"@(?:[A-Za-z_][\w.]*\.)?{re.escape(n.rsplit('.', 1)[-1])}",
                            above) for n in names):
            return above, define
    return ()


def is_array_input(origin) -> bool:
    """Whether the offending value came from an input with dimensions ("f32[3]"): an array,
    which no static_argnames can take. A rank-0 input ("f32[]") may be a Python scalar."""
    return bool((origin or {}).get("input_type", "").partition("[")[2].strip("]"))


def _array_note(origin) -> str:
    """Why the card does not offer static_argnames for an array argument."""
    if not (origin and origin.get("argument") and is_array_input(origin)):
        return ""
    return (f" {origin['argument']} is an array ({origin['input_type']}): it cannot be a "
            f"static argument (those must be hashable Python values).")


def _traced_phrase(origin) -> str:
    if origin and not origin.get("input_type") and origin.get("steps"):
        return (f"a value {origin['function']} made from constants with jnp operations "
                f"(traced for {origin['transformation']} all the same: no value)")
    if origin and not origin.get("argument") and origin.get("input_type"):
        return (f"input {origin['input_index']} of {origin['function']} (traced for "
                f"{origin['transformation']}: shape and dtype only, no value)")
    if not origin or not origin.get("argument"):
        return "a traced value"
    how = origin.get("transformation") or "the transformation"
    return f"{origin['argument']} (traced by {how}: shape and dtype only, no value)"
