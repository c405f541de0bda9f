"""Cards for differentiation: an integer given to grad, and a function whose output is not
one number (an array with dimensions: the Jacobian's; a (loss, extra) pair: has_aux), and
has_aux=True given a function that returns no pair."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap

from ...transforms.ad import reverse
from ..source import is_user_file
from ..source_edits import replaced
from .card import ErrorCard
from .reading import _user_frame
from .rewrites import _called, _parse_line, _pattern, _replaced


# JAX 0.10.2's words: grad, value_and_grad and jacrev "require real- or complex-valued
# inputs"; jacfwd (and hessian, jacfwd of jacrev) "requires real-valued inputs"
_INT_INPUT = re.compile(r"^(\w+) requires (?:real- or complex-valued|real-valued) inputs .*"
                        r"but got u?int\d+\.")
# the transformations whose argument an int cannot be, as the user's line calls them
_DIFFERENTIATORS = {"grad", "value_and_grad", "jacrev", "jacfwd", "hessian"}


def _is_int_grad_input(e) -> bool:
    return isinstance(e, TypeError) and _INT_INPUT.match(str(e)) is not None


def _int_grad_card(exc, where, called_from) -> ErrorCard:
    # JAX's own advice (vjp, allow_int=True) gives a float0 zero, not a slope: a learner who
    # wrote grad(f)(3) wanted the slope at 3.0. jax.hessian(f)(ints) raises jacfwd's words:
    # the card names the function the learner called (learner6's trial)
    api = _called_differentiator(where) or _INT_INPUT.match(str(exc)).group(1)
    allow_int = "" if api in ("jacfwd", "hessian") else \
        " allow_int=True only gives a zero of dtype float0, not a slope."
    return ErrorCard(
        "integer-grad-input", f"{api} was given an integer to differentiate by",
        why=("A derivative is taken with respect to float inputs; an int (a Python int such as "
             f"3, or an int array) has none.{allow_int}"),
        fix=("A number to differentiate by: pass it as a float (3.0, or "
             "jnp.asarray(x, jnp.float32)). An int that only counts or indexes (a leaf of "
             f"params, say): pass it as another argument, which {api} does not differentiate "
             "(argnums=0 by default)."),
        rewrite=_float_input_rewrite(where, _user_frame(exc), api),
        docs=None)


def _literal_int_leaves(node) -> list:
    """The int constants that are leaves of a dict, list or tuple literal `node` (nested ones
    too), not the arguments of a call inside it (`jnp.arange(3)` keeps its 3).

        >>> tree = ast.parse("{'w': 2.0, 'n': [3, (4,)], 'k': jnp.arange(5)}")
        >>> [n.value for n in _literal_int_leaves(tree.body[0].value)]
        [3, 4]
    """
    if isinstance(node, ast.Dict):
        items = node.values
    elif isinstance(node, (ast.List, ast.Tuple)):
        items = node.elts
    else:
        return []
    found = []
    for item in items:
        if isinstance(item, ast.Constant) and type(item.value) is int:
            found.append(item)
        else:
            found += _literal_int_leaves(item)
    return found


def _called_differentiator(where) -> str | None:
    """grad, jacfwd, jacrev, hessian or value_and_grad as the user's line calls it
    (`jax.hessian(f)(x)`), or None."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Call):
            name = ast.unparse(call.func.func).split(".")[-1]
            if name in _DIFFERENTIATORS:
                return name
    return None


def _float_input_rewrite(where, frame=None, api="grad") -> str:
    """The user's call with its int literal arguments written as floats (3 -> 3.0), or its
    differentiated argument made a float array (`grad(loss)(jnp.arange(3))`: the template's
    `x = ...` named an x the learner's line does not have)."""
    tree = _parse_line(where)
    code = (where or {}).get("code") or ""
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Call):   # grad(f)(3)
            ints = [a for a in call.args if isinstance(a, ast.Constant)
                    and type(a.value) is int]
            # an int leaf of a dict, list or tuple written on the line (learner6: grad of
            # {'w': 2.0, 'n': 3} got a template naming x, loss and params)
            ints += [n for a in call.args for n in _literal_int_leaves(a)]
            if ints:
                line = replaced(code, [(arg, f"{arg.value}.0") for arg in ints])
                return f"{line}    # a float input: {api} differentiates it"
            arg = _differentiated(call, frame)
            if arg is not None:
                line = _replaced(tree, arg, f"jnp.asarray({ast.unparse(arg)}, jnp.float32)")
                return f"{line}    # a float input: {api} differentiates it"
    # (the int that counts or indexes, in words: `grads = jax.grad(loss)(params, n)` named
    # what the learner's line has not)
    return (_pattern(f"x = jnp.asarray(x, jnp.float32)    # a float input: {api} "
                     f"differentiates it") + "\n"
            f"# or, for an int that counts or indexes: pass it as a second argument, left "
            f"alone (argnums=0): jax.{api}(loss)(params, n)")


def _differentiated(call, frame):
    """The argument of `jax.grad(f)(...)` (`call`) that grad differentiates (argnums 0, or an
    int literal argnums) when it is one array: an expression (`jnp.arange(3)`) or a name
    whose value in `frame` has a dtype; None for a name holding a pytree (params: a dict of
    arrays is no asarray's) or argnums of several."""
    grad = call.func
    if _called(grad) not in _DIFFERENTIATORS:
        return None
    argnums = next((k.value for k in grad.keywords if k.arg == "argnums"), None)
    if len(grad.args) > 1:
        argnums = grad.args[1]
    index = 0 if argnums is None else \
        argnums.value if isinstance(argnums, ast.Constant) and type(argnums.value) is int \
        else None
    if index is None or not 0 <= index < len(call.args) or \
            isinstance(call.args[index], ast.Starred):
        return None
    arg = call.args[index]
    if isinstance(arg, ast.Name):
        names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
        value = names.get(arg.id)
        # an array, or a Python int held in a name (`x = 3` then grad(f)(x): the template's
        # `x = jnp.asarray(x, ...)` fitted only a name that was x)
        return arg if hasattr(value, "dtype") or type(value) is int else None
    return arg if isinstance(arg, (ast.Call, ast.Attribute, ast.Subscript, ast.BinOp)) \
        else None


# ------------------------------------------------------------------ grad of a non-scalar output
_SCALAR_OUTPUT = "Gradient only defined for scalar-output functions."
_OUTPUT_SHAPE = re.compile(r"Output had shape: \(([\d, ]*)\)\.")
_GRADS = {"jax.grad", "grad", "jax.value_and_grad", "value_and_grad"}


def _is_scalar_output(e) -> bool:
    return isinstance(e, TypeError) and str(e).startswith(_SCALAR_OUTPUT)


def _scalar_output_card(exc, where, called_from) -> ErrorCard:
    """grad of a function returning an array with dimensions (JAX: "Output had shape"), or a
    tuple, list, dict or None (JAX: "Output was ..."; the core keeps it as `exc.output`)."""
    found = _OUTPUT_SHAPE.search(str(exc))
    if found:
        shape = tuple(int(d) for d in found.group(1).split(",") if d.strip())
        return _array_output_card(shape, where, called_from, _user_frame(exc))
    return _container_output_card(getattr(exc, "output", None), where, called_from,
                                  _user_frame(exc))


def returns_to_grad(frame) -> bool:
    """Whether `frame`, a learner's function's, was called by jax.grad or value_and_grad to be
    differentiated, no frame of the learner's between: what it returns must be one number.
    Read through the frames' callers, which traceback filtering leaves whole.
    `jax.grad(lambda a: jnp.dot(a, a))(a)`'s lambda: yes; a model that the loss calls: no."""
    caller = frame.f_back if frame is not None else None
    while caller is not None and not is_user_file(caller.f_code.co_filename):
        if caller.f_code.co_name == "value_and_grad_f" and caller.f_globals is vars(reverse):
            return True
        caller = caller.f_back
    return False


def _grad_call(tree):
    """The `jax.grad(f, ...)` (or value_and_grad) call in the user's line, or None."""
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and ast.unparse(node.func) in _GRADS and node.args:
            return node
    return None


def _array_output_card(shape, where, called_from, frame=None) -> ErrorCard:
    n = 1
    for d in shape:
        n *= d
    return ErrorCard(
        "grad-output", f"grad needs one number; the function returned shape {shape}",
        why=(f"grad(f) is the derivative of one number (a loss) with respect to f's input. f "
             f"returned an array of shape {shape}: {n} number{'s' * (n != 1)}, whose "
             f"derivatives together are a Jacobian, not a gradient"
             + (" (one element, but grad takes shape () only)." if n == 1 else ".")),
        fix=(f"For a loss, make f return one number: its .sum() or .mean(). For every output's "
             f"derivative, jax.jacrev(f) (or jax.jacfwd) gives the Jacobian, of shape {shape} "
             f"+ the input's shape. If f works elementwise (each output from its own input, "
             f"as x ** 2 does), jax.vmap(jax.grad(f)) gives each output's derivative, of "
             f"shape {shape}."),
        rewrite=_array_output_rewrite(where, frame),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.grad.html")


def _array_output_rewrite(where, frame=None) -> str:
    """The user's line twice: with jax.jacrev (the Jacobian), and with the sum of the outputs
    differentiated (a loss); then vmap's way, as a comment (it works for elementwise f only).
    A line calling a grad bound to a name earlier (`g = jax.grad(f)`, then `g(xs)`) is read
    as `jax.grad(f)(xs)`; else the pattern (its `f(x)` named what the line has not: pasted,
    a NameError, and `g = ...` rebound the learner's own g)."""
    tree = _parse_line(where)
    call = _grad_call(tree) or _bound_grad_call(tree, frame)
    if call is None:
        return _pattern("J = jax.jacrev(f)(x)    # the Jacobian: every output's derivative\n"
                        "grads = jax.grad(lambda *args: f(*args).sum())(x)    # or: of their "
                        "sum (a loss)\n"
                        "# f elementwise (each output from its own input)? "
                        "jax.vmap(jax.grad(f))(x)")
    function = ast.unparse(call.args[0])
    aux = any(k.arg == "has_aux" for k in call.keywords)
    lines = []
    if ast.unparse(call.func).endswith("grad") and "value_and_grad" not in ast.unparse(call.func):
        saved = call.func
        call.func = ast.parse("jax.jacrev", mode="eval").body     # (`grad` imported bare too)
        lines.append(f"{ast.unparse(tree)}    # the Jacobian: every output's derivative")
        call.func = saved
    if not aux:                # (with has_aux, f returns a pair: its first is what to sum)
        given = call.args[0]
        if _plain_lambda(given):   # lambda x: x ** 2 -> lambda x: (x ** 2).sum() (learner6:
            call.args[0] = ast.Lambda(given.args, ast.Call(   # the *args wrapper around a
                ast.Attribute(given.body, "sum"), [], []))   # lambda read as a puzzle)
        else:
            summed = ast.Call(given, [ast.Starred(ast.Name("args"))], [])
            call.args[0] = ast.Lambda(
                ast.arguments([], [], ast.arg("args"), [], [], None, []),
                ast.Call(ast.Attribute(summed, "sum"), [], []))
        lines.append(f"{ast.unparse(tree)}    # the derivative of their sum (a loss)")
    if "value_and_grad" not in ast.unparse(call.func):
        lines.append(f"# {function} elementwise (each output from its own input)? "
                     f"jax.vmap(jax.grad({function})) gives each output's derivative")
    return "\n".join(lines)


def _bound_grad_call(tree, frame):
    """The call in `tree` of a name `frame` binds to a jax.grad or value_and_grad of a
    function it binds to a name too, made that call's `jax.grad(f, ...)` (its argnums and
    has_aux as made) in place of the name; None where there is none."""
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    for call in ast.walk(tree) if tree is not None else ():
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        made = _grad_made(names.get(call.func.id))
        fun = made and next((n for n, v in names.items() if v is made[1] and
                             n.isidentifier() and not n.startswith("_")), None)
        if fun is None:
            continue
        api, _, argnums, has_aux = made
        keywords = ([ast.keyword("argnums", ast.parse(repr(argnums), mode="eval").body)]
                    if argnums != 0 else []) + \
            ([ast.keyword("has_aux", ast.Constant(True))] if has_aux else [])
        call.func = ast.Call(ast.parse(f"jax.{api}", mode="eval").body, [ast.Name(fun)],
                             keywords)
        return call.func
    return None


def _grad_made(value):
    """(api, fun, argnums, has_aux) of a function jxkernel's grad or value_and_grad made, or
    None."""
    try:
        return reverse.made_by.get(value)
    except TypeError:           # (a value no weak reference can be made to: a number)
        return None


def _plain_lambda(node) -> bool:
    """A lambda of positional parameters alone (no defaults, *args or keywords)."""
    a = getattr(node, "args", None)
    return isinstance(node, ast.Lambda) and not (a.posonlyargs or a.vararg or a.kwonlyargs or
                                                 a.kwarg or a.defaults)


def _container_output_card(output, where, called_from, frame=None) -> ErrorCard:
    kind = type(output).__name__
    if isinstance(output, (tuple, list)) and output and _is_one_number(output[0]):
        pair = len(output) == 2
        return ErrorCard(
            "grad-output", f"grad needs one number; the function returned a {kind} of "
                           f"{len(output)}",
            why=(f"grad differentiates one number (a loss). f returned a {kind} whose first "
                 f"element is one number: grad must be told that the rest is extra output, "
                 f"returned as it is, not differentiated."),
            fix=("Pass has_aux=True: grad then differentiates the first element and returns "
                 "(gradient, the second element); value_and_grad returns ((value, aux), "
                 "gradient)." + ("" if pair else
                                 f" has_aux takes a pair: make f return loss, "
                                 f"({_extras(len(output))}) (the rest as one tuple).")),
            rewrite=_aux_rewrite(where, pair, len(output)),
            docs="https://docs.jax.dev/en/latest/_autosummary/jax.grad.html")
    if isinstance(output, dict) and any(_is_one_number(v) for v in output.values()):
        numbers = [k for k, v in output.items() if _is_one_number(v)]
        # the entry named as a loss, where one is ({'loss', 'acc'}: it took 'acc', first in
        # the tree's sorted order)
        key = next((k for k in numbers if "loss" in str(k).lower()), numbers[0])
        return ErrorCard(
            "grad-output", "grad needs one number; the function returned a dict",
            why=("grad differentiates one number (a loss); f returned a dict of values."),
            fix=(f"Differentiate the entry that is the loss ({key!r} is one number): "
                 f"jax.grad(lambda *args: f(*args)[{key!r}]); for the other entries too, "
                 f"return the loss first and the dict as has_aux's extra output."),
            rewrite=_entry_rewrite(where, key),
            docs="https://docs.jax.dev/en/latest/_autosummary/jax.grad.html")
    return ErrorCard(
        "grad-output", f"grad needs one number; the function returned {kind}",
        why=("grad differentiates the one number (a loss) the function returns"
             + ("; it returned None: a missing return statement?" if output is None else
                f"; it returned a {kind}.")),
        fix=("Return the loss, one number (a float, or an array of shape ()); extra outputs "
             "go beside it with has_aux=True: return loss, extra."),
        rewrite=_return_added(where, frame) if output is None else
        _pattern("return loss    # in f: the one number grad differentiates"),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.grad.html")


def _return_added(where, frame) -> str:
    """For a function that returned None: `return y` at the end of it, `y` the name its last
    line assigns (`def f(x): y = x ** 2` differentiated: it wrote `return loss`, a name f
    has not); the pattern where its last line assigns no one name."""
    tree = _parse_line(where)
    call = _grad_call(tree) if tree is not None else None
    name = ast.unparse(call.args[0]) if call is not None and call.args else ""
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    try:
        source = ast.parse(textwrap.dedent(inspect.getsource(names[name]))) \
            if name.isidentifier() and name in names else None
    except (OSError, TypeError, SyntaxError):
        source = None
    define = source.body[0] if source is not None and source.body else None
    last = define.body[-1] if isinstance(define, ast.FunctionDef) else None
    if isinstance(last, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = last.targets if isinstance(last, ast.Assign) else [last.target]
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            return (f"return {targets[0].id}    # at the end of {name}: the one number "
                    f"grad differentiates")
    return _pattern("return loss    # at the end of f: the one number grad differentiates")


def _is_one_number(value) -> bool:
    """A float, int or array of shape (): what grad can differentiate."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) or \
        getattr(value, "shape", None) == ()


def _extras(size) -> str:
    return ", ".join(f"extra{i}" for i in range(1, size))


def _aux_rewrite(where, pair, size) -> str:
    """The user's grad call with has_aux=True, its result unpacked: `g, aux = jax.grad(f,
    has_aux=True)(x)`, `(v, aux), g = jax.value_and_grad(f, has_aux=True)(x)`."""
    tree = _parse_line(where)
    call = _grad_call(tree)
    fix_f = "" if pair else f"# in f: return loss, ({_extras(size)})\n"
    if call is None:
        return fix_f + _pattern("grads, aux = jax.grad(f, has_aux=True)(x)")
    call.keywords.append(ast.keyword("has_aux", ast.Constant(True)))
    statement = tree.body[0] if tree.body else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if "value_and_grad" in ast.unparse(call.func):
            if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target.elts[0] = ast.Tuple([target.elts[0], ast.Name("aux")])
        elif isinstance(target, ast.Name):
            statement.targets[0] = ast.Tuple([target, ast.Name("aux")])
    return fix_f + f"{ast.unparse(tree)}    # aux: the rest of what f returned"


_AUX_SHAPE = "expected function with aux output to return a two-element tuple, but got type "


def _is_aux_shape(e) -> bool:
    return isinstance(e, TypeError) and str(e).startswith(_AUX_SHAPE)


def _aux_shape_card(exc, where, called_from) -> ErrorCard:
    """has_aux=True, and f returned one value (most often: has_aux added to a plain loss) or a
    tuple of another length (extras side by side: `return loss, acc, logits`)."""
    output = getattr(exc, "output", None)
    api = _called_differentiator(where) or "grad"
    docs = "https://docs.jax.dev/en/latest/_autosummary/jax.grad.html"
    why = (f"has_aux=True tells {api} that f returns a pair: first the number to "
           f"differentiate, then anything to pass through untouched (aux).")
    if isinstance(output, (tuple, list)):
        size = len(output)
        return ErrorCard(
            "aux-output", f"has_aux=True, and the function returned {size} values, not a pair",
            why=f"{why} This f returned a {type(output).__name__} of {size}.",
            fix=("Return the loss first and every extra in one tuple (or dict): "
                 f"return loss, ({_extras(size)}); unpack them from aux after the call."),
            rewrite=(f"# in f: return loss, ({_extras(size)})    # one pair: the loss, "
                     f"then the extras together"),
            docs=docs)
    return ErrorCard(
        "aux-output", "has_aux=True, and the function returned one value, not a pair",
        why=f"{why} This f returned one value, not a tuple.",
        fix=("If f returns only the loss, leave has_aux out. To pass something else out "
             "beside the loss, make f return loss, aux."),
        rewrite=_without_aux(where), docs=docs)


def _without_aux(where) -> str:
    """The user's grad call without has_aux, its result no longer unpacked with an aux:
    `g, aux = jax.grad(f, has_aux=True)(x)` -> `g = jax.grad(f)(x)`."""
    tree = _parse_line(where)
    call = _grad_call(tree)
    if call is None or not any(k.arg == "has_aux" for k in call.keywords):
        return _pattern("grads = jax.grad(f)(x)    # no has_aux: f returns the loss alone")
    call.keywords = [k for k in call.keywords if k.arg != "has_aux"]
    statement = tree.body[0] if tree.body else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        pair = isinstance(target, ast.Tuple) and len(target.elts) == 2
        if pair and "value_and_grad" in ast.unparse(call.func):
            first = target.elts[0]      # (v, aux), g -> v, g
            if isinstance(first, ast.Tuple) and len(first.elts) == 2:
                target.elts[0] = first.elts[0]
        elif pair:                      # g, aux -> g
            statement.targets[0] = target.elts[0]
    return f"{ast.unparse(tree)}    # no has_aux: f returns the loss alone"


def _entry_rewrite(where, key) -> str:
    """The user's grad call differentiating one entry of the dict f returns."""
    tree = _parse_line(where)
    call = _grad_call(tree)
    if call is None:
        return _pattern(f"grads = jax.grad(lambda *args: f(*args)[{key!r}])(x)")
    entry = ast.Subscript(ast.Call(call.args[0], [ast.Starred(ast.Name("args"))], []),
                          ast.Constant(key))
    call.args[0] = ast.Lambda(ast.arguments([], [], ast.arg("args"), [], [], None, []), entry)
    return f"{ast.unparse(tree)}    # the loss entry: one number"


# ------------------------------------------------------------------ grad of an integer output
_INT_OUTPUT = re.compile(r"^grad requires real-valued outputs \(output dtype that is a "
                         r"sub-dtype of np\.floating\), but got (u?int\d+|bool)\.")


def _is_int_grad_output(e) -> bool:
    return isinstance(e, TypeError) and _INT_OUTPUT.match(str(e)) is not None


def _int_grad_output_card(exc, where, called_from) -> ErrorCard:
    """grad of a function returning an integer: a count (`jnp.sum(x > 0)`), an index
    (`jnp.argmax`), a cast. Its derivative is 0 wherever it has one; the rewrite casts the
    output to float, which gives those zeros, and the words name a smooth stand-in for a
    slope to learn from."""
    dtype = _INT_OUTPUT.match(str(exc)).group(1)
    return ErrorCard(
        "integer-grad-output", f"grad was given a function returning {dtype}",
        why=(f"grad differentiates a float output. This one returns {dtype}: a count or an "
             f"index (jnp.sum(x > 0), jnp.argmax), which changes only in whole steps, so "
             f"its derivative is 0 wherever it has one."),
        fix=("Cast the output to float to get that derivative (zeros). For a slope to learn "
             "from, compute a smooth stand-in instead: jnp.sum(jax.nn.sigmoid(x / t)) for a "
             "count of x > 0 (t a small temperature), jax.nn.softmax(x) for an argmax. "
             "JAX's own advice, jax.vjp, gives zeros of dtype float0 for it."),
        rewrite=_float_output_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.grad.html")


def _float_output_rewrite(where) -> str:
    """The user's grad call with the function's output cast to float32: a lambda's body
    cast in place, a named function wrapped (`lambda *args: f(*args).astype(...)`)."""
    tree = _parse_line(where)
    call = _grad_call(tree)
    cast = ast.Attribute(ast.Name("jnp"), "float32")
    if call is None:
        return "jax.grad(lambda *args: f(*args).astype(jnp.float32))(x)    # a float output"
    given = call.args[0]
    if _plain_lambda(given):
        call.args[0] = ast.Lambda(given.args, ast.Call(ast.Attribute(given.body, "astype"),
                                                       [cast], []))
    else:
        called = ast.Call(given, [ast.Starred(ast.Name("args"))], [])
        call.args[0] = ast.Lambda(ast.arguments([], [], ast.arg("args"), [], [], None, []),
                                  ast.Call(ast.Attribute(called, "astype"), [cast], []))
    return f"{ast.unparse(tree)}    # a float output: its derivative, zero"
