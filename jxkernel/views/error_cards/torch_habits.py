"""The card for PyTorch's names asked of a JAX array or of jax.numpy, a habit most learners
bring: `x.unsqueeze(0)`, `x.to('cuda')`, `x.size(1)`, `x.sum(dim=1)`, `jnp.cat`, `x.add_(1.0)`.
JAX's arrays follow NumPy's names; the rewrite is the learner's line in them, each name's
checked under JAX 0.10.2 (tests/data/learner_mistakes_cases.py TORCH_HABITS).

    x.unsqueeze(0)    ->  jnp.expand_dims(x, 0)
    x.cpu().numpy()   ->  np.asarray(x)
    x.add_(1.0)       ->  x = x + 1.0
"""
from __future__ import annotations

import ast
import re

from .axes import _AXIS_SECOND
from .card import ErrorCard
from .reading import _user_lines
from .rewrites import _int_written, _operand, _parse_line, _pattern, _replaced

_NO_ATTRIBUTE = re.compile(r"^(?:'[\w.]*ArrayImpl' object|\w*Tracer) has no attribute "
                           r"'?(\w+)'?$")
_NO_FUNCTION = re.compile(r"^module '(?:jax|jxkernel)\.numpy' has no attribute '(\w+)'$")
_KEYWORD = re.compile(r"^\w+\(\) got an unexpected keyword argument '(dim|keepdim)'$")
# a call of what is no method in JAX (x.size is an int, x.device a property), x.view(3, 2)
_CALLED = {"'int' object is not callable": "size", "'Device' object is not callable": "device",
           "'NumpyDevice' object is not callable": "device",    # (the NumPy backend's)
           "`type` argument of array.view() is not supported.": "view"}
_VIEW_SIZE = re.compile(r"^Cannot interpret '-?\d+' as a data type$")

_DTYPES = {"float": "float32", "double": "float32", "half": "float16", "bfloat16": "bfloat16",
           "long": "int32", "int": "int32", "short": "int16", "bool": "bool_"}
_JNP_MATH = ("exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "square", "sign", "floor",
             "ceil")
_NN = ("sigmoid", "relu", "softmax", "log_softmax")
_IN_PLACE = {"add_": "+", "sub_": "-", "mul_": "*", "div_": "/"}
_FUNCTIONS = {"cat": "concatenate", "tensor": "array", "from_numpy": "asarray",
              "clamp": "clip"}
_KEYWORDS = {"dim": "axis", "keepdim": "keepdims"}
# torch.cat's keyword for its sequence, jnp.concatenate's name for it
_SEQUENCE_KEYWORDS = {"tensors": "arrays"}


def _method(name, x, args, kw, traced=False):
    """JAX's code for PyTorch's `x.name(*args, **kw)` (code texts), or None. `traced`: the
    line runs under jit, grad or vmap, where no NumPy array exists (np.asarray of a traced
    value raises): .numpy() leaves the JAX array as it is."""
    if name in ("cuda", "cpu", "contiguous") or name == "to" and not _is_dtype(args, kw) or \
            name == "numpy" and traced:
        return x
    if name == "to":
        return f"{x}.astype({(args or list(kw.values()))[0]})"
    if name in _DTYPES:
        return f"{x}.astype(jnp.{_DTYPES[name]})"
    if name in _JNP_MATH:
        return f"jnp.{name}({x})"
    if name in _NN:
        return f"jax.nn.{name}({', '.join([x, *_keywords(kw)])})"
    simple = {"numpy": f"np.asarray({x})", "detach": f"jax.lax.stop_gradient({x})",
              "dim": f"{x}.ndim", "numel": f"{x}.size", "device": f"{x}.device",
              "size": f"{x}.shape[{args[0]}]" if args else f"{x}.shape",
              "permute": f"{x}.transpose({', '.join(args)})",
              "view": f"{x}.reshape({', '.join(args)})",
              "clamp": f"jnp.clip({', '.join([x, *args, *_keywords(kw)])})"}
    if name in simple:
        return simple[name]
    if name in ("mm", "matmul", "bmm") and len(args) == 1:
        return f"{x} @ {args[0]}"
    if name == "pow" and len(args) == 1:
        return f"{x} ** {args[0]}"
    if name == "unsqueeze" and len(args) == 1:
        return f"jnp.expand_dims({x}, {args[0]})"
    if name == "masked_fill" and len(args) == 2:
        return f"jnp.where({args[0]}, {args[1]}, {x})"
    if name == "expand" and args and "-1" not in args:      # (-1 keeps a size: no such word)
        if len(args) == 1 and args[0].startswith(("(", "[")):     # x.expand((2, 3)): the shape
            return f"jnp.broadcast_to({x}, {args[0]})"
        return f"jnp.broadcast_to({x}, ({', '.join(args)}{',' if len(args) == 1 else ''}))"
    return None


def _is_dtype(args, kw) -> bool:
    """Whether `.to(...)` was given a dtype (`jnp.float32`), not a device ('cuda')."""
    given = args[:1] or [v for k, v in kw.items() if k == "dtype"]
    return bool(given) and given[0].rpartition(".")[2] in {
        "float32", "float16", "bfloat16", "float64", "int32", "int64", "int16", "int8",
        "uint8", "bool_", "complex64"}


def _keywords(kw) -> list:
    return [f"{_KEYWORDS.get(k, k)}={v}" for k, v in kw.items()]


class _Rewrite(ast.NodeTransformer):
    """The learner's line with each PyTorch name in JAX's words (innermost first, so that
    `x.cpu().numpy()` is np.asarray(x)); `done` maps each PyTorch name to JAX's code."""

    def __init__(self, traced=False):
        self.done, self.traced = {}, traced

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        for k in node.keywords:
            if k.arg in _KEYWORDS and _takes_axis(node):
                self.done[k.arg] = k.arg = _KEYWORDS[k.arg]
        if not isinstance(func, ast.Attribute) or any(
                isinstance(a, ast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            return node
        owner = ast.unparse(func.value)
        if owner in ("jnp", "jax.numpy") and func.attr in _FUNCTIONS:
            self.done[func.attr] = f"{owner}.{_FUNCTIONS[func.attr]}"
            func.attr = _FUNCTIONS[func.attr]
            for k in node.keywords:         # torch.cat(tensors=...): jnp's arrays=
                k.arg = _SEQUENCE_KEYWORDS.get(k.arg, k.arg)
            return node
        # a module's function, not an array's method: `jax.nn.softmax(x, dim=1)` was read as
        # x.softmax's habit, with jax.nn for x
        # (a module's path: a name or attribute, not an expression such as the JAX call a
        # method before it became, `jax.lax.stop_gradient(x).cpu()`)
        if isinstance(func.value, (ast.Name, ast.Attribute)) and (
                owner in ("jnp", "np", "jax", "jax.numpy", "numpy", "lax", "nn", "random") or
                owner.startswith(("jax.", "jnp.", "np.", "numpy."))):
            return node
        x = _operand(func.value)
        new = _method(func.attr, x, [ast.unparse(a) for a in node.args],
                      {k.arg: ast.unparse(k.value) for k in node.keywords}, self.traced)
        if new is None:
            return node
        self.done[func.attr] = new
        return ast.parse(new, mode="eval").body


    def visit_Attribute(self, node):
        # `dtype=jnp.float`: a dtype by PyTorch's name (torch.float), or NumPy 1's alias of
        # Python's float (np.float, gone since NumPy 1.24): JAX's dtype of that kind
        self.generic_visit(node)
        if node.attr in ("values", "indices") and _reduced_along(node.value, self.done):
            # PyTorch's x.max(dim=1) is a pair, (values, indices); JAX's the values alone
            return node.value if node.attr == "values" else _arg_of(node.value)
        if ast.unparse(node.value) in ("jnp", "jax.numpy") and node.attr in _DTYPES:
            self.done[node.attr] = f"{ast.unparse(node.value)}.{_DTYPES[node.attr]}"
            node.attr = _DTYPES[node.attr]
        return node


def _reduced_along(node, done) -> bool:
    """Whether `node` is x.max(axis=...) or x.min(axis=...) written with PyTorch's dim=."""
    return "dim" in done and isinstance(node, ast.Call) and \
        isinstance(node.func, ast.Attribute) and node.func.attr in ("max", "min") and \
        any(k.arg == "axis" for k in node.keywords)


def _arg_of(call):
    """x.argmax(axis=...) for x.max(axis=...) (argmin for min): PyTorch's indices."""
    return ast.Call(ast.Attribute(call.func.value, "arg" + call.func.attr, ast.Load()),
                    call.args, call.keywords)


def _takes_axis(node) -> bool:
    """Whether `node` calls jnp's or jax.nn's function, or an array method, that takes axis=
    where PyTorch's takes dim= (a function of the learner's keeps its own keywords)."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return False
    owner = ast.unparse(func.value)
    return owner in ("jnp", "jax.numpy", "jax.nn", "nn") or func.attr in _AXIS_SECOND


def torch_rewrite(code: str) -> str | None:
    """The line `code` in JAX's words, or None where it holds no PyTorch name this knows.

        >>> torch_rewrite("y = x.unsqueeze(0).sum(dim=1)")
        'y = jnp.expand_dims(x, 0).sum(axis=1)'
    """
    found = _rewritten(code)
    return found[0] if found else None


def _rewritten(code: str, traced=False):
    """(the line in JAX's words, {PyTorch's name: JAX's code}), or None; `traced` as
    _method's."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):   # x.add_(1.0): rebound
        call = tree.body[0].value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                (call.func.attr in _IN_PLACE and len(call.args) == 1 or
                 call.func.attr == "zero_" and not call.args):
            x = ast.unparse(call.func.value)
            line = f"{x} = jnp.zeros_like({x})" if call.func.attr == "zero_" else \
                f"{x} = {x} {_IN_PLACE[call.func.attr]} {_right(call.args[0])}"
            return line, {call.func.attr: line}
    rewrite = _Rewrite(traced)
    tree = rewrite.visit(tree)
    first = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(first, ast.Assign) and len(first.targets) == 1 and \
            isinstance(first.targets[0], ast.Tuple) and len(first.targets[0].elts) == 2 and \
            _reduced_along(first.value, rewrite.done):
        # `values, indices = x.max(dim=1)`, PyTorch's pair: JAX's max then argmax (unpacked
        # as it was, the two names took the two rows' maxima)
        first.value = ast.Tuple([first.value, _arg_of(first.value)], ast.Load())
    out = ast.unparse(tree)
    return (out, rewrite.done) if rewrite.done else None


def _right(node) -> str:
    """`node`'s code as the right operand of + - * /: in parentheses unless a number or an
    operand (`x = x - (a - b)`, `x = x + 1.0`)."""
    return ast.unparse(node) if isinstance(node, ast.Constant) else _operand(node)


def _asked(exc) -> str | None:
    """The PyTorch name `exc` says was asked for ('unsqueeze', 'dim', 'cat'), or None."""
    text = str(exc)
    for pattern in (_NO_ATTRIBUTE, _NO_FUNCTION, _KEYWORD):
        found = pattern.match(text)
        if found:
            return found.group(1)
    return _CALLED.get(text) or ("view" if _VIEW_SIZE.match(text) and _calls_view(exc)
                                 else None)


def _calls_view(exc) -> bool:
    """Whether the user's line calls a `.view(...)` method: NumPy's "Cannot interpret '3' as
    a data type" comes from any number where a dtype goes (jax.random.uniform(key, (2,), 0, 1),
    its third argument the dtype), and only x.view(3) is PyTorch's view."""
    where, _ = _user_lines(exc)
    tree = _parse_line(where)
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
               node.func.attr == "view" for node in ast.walk(tree)) if tree is not None \
        else False


def _is_torch_habit(e) -> bool:
    return isinstance(e, (AttributeError, TypeError, NotImplementedError)) and \
        _asked(e) in _WHY


# what each name's family says: why JAX has it not, or has it otherwise
_DEVICE = ("JAX places an array on the default device when it is made (the GPU, where there "
           "is one): there is nothing to move. jax.device_put(x, device) places one "
           "elsewhere; np.asarray(x) copies it to the host as a NumPy array.")
_GRAPH = ("JAX records no graph on arrays: a gradient is taken of a function, jax.grad(loss)"
          "(params), and jax.lax.stop_gradient keeps a value out of it.")
_IMMUTABLE = ("JAX arrays never change in place (other code may hold the same one): each "
              "operation returns a new array, bound to the name again.")
_NAMES = ("JAX's arrays follow NumPy's names, not PyTorch's: methods for the NumPy ones, "
          "jnp and jax.nn functions for the rest.")
_WHY = {
    **dict.fromkeys(("to", "cuda", "cpu"), _DEVICE),
    "contiguous": "XLA lays out every JAX array itself: there are no strides, no views to "
                  "copy.",
    "numpy": "A JAX array converts to a NumPy array as any array-like does: np.asarray(x) "
             "(a copy to the host, where the array is on a GPU).",
    **dict.fromkeys(("detach", "backward", "grad"), _GRAPH),
    **dict.fromkeys((*_IN_PLACE, "zero_"), _IMMUTABLE),
    **dict.fromkeys(("unsqueeze", "permute", "numel", "mm", "matmul", "bmm", "expand", "pow",
                     "masked_fill", "clamp", "cat", "tensor", "from_numpy", *_JNP_MATH, *_NN),
                    _NAMES),
    **dict.fromkeys(_DTYPES, "JAX changes a dtype with astype and jnp's dtypes; its default "
                             "ints and floats are 32-bit (64-bit ones need jax_enable_x64)."),
    "dim": "x.ndim is the number of axes, a property as in NumPy.",
    "size": "x.size is the number of elements, an int as in NumPy, not a method: PyTorch's "
            "size() is x.shape.",
    "device": "x.device is a property in JAX (the Array API's), not a method.",
    "view": "x.view(dtype) reads the same bits as another dtype in NumPy and JAX; a new shape "
            "is x.reshape.",
    "keepdim": "NumPy's and JAX's words for dim and keepdim are axis and keepdims.",
}
_DIM_KEYWORD = _WHY["keepdim"]          # (dim= shares its key with x.dim())


def _torch_card(exc, where, called_from) -> ErrorCard:
    name = _asked(exc)
    keyword = _KEYWORD.match(str(exc)) is not None
    module = _NO_FUNCTION.match(str(exc)) is not None
    shown = f"{name}=" if keyword else f"jnp.{name}" if module else f".{name}()"
    # a tracer's class in JAX's words ('DynamicJaxprTracer' has no attribute 'numpy')
    traced = "Tracer" in str(exc).split(" has no attribute ")[0]
    found = _rewritten(where["code"], traced) if _parse_line(where) is not None else None
    rewrite, said = found if found else (None, {})
    jaxs = said.get(name)
    jaxs = f"{jaxs}=" if keyword and jaxs else jaxs
    if name in ("backward", "grad"):
        rewrite = _pattern("loss, grads = jax.value_and_grad(loss_fn)(params)    # loss_fn "
                           "returns the loss of params")
        title, fix = (f"{shown} is PyTorch's: JAX takes gradients of functions",
                      "Write the loss as a function of the parameters and ask jax.grad (or "
                      "jax.value_and_grad) for its gradient.")
    elif name == "contiguous" and jaxs is not None:
        rewrite += "    # laid out by XLA"
        title, fix = (f"{shown} is PyTorch's: a JAX array has no strides to fix",
                      "Leave the call out.")
    elif name == "numpy" and traced and jaxs is not None:
        rewrite += "    # a JAX array: np.asarray(out) of the result, outside"
        title, fix = (f"{shown} is PyTorch's: under jit, grad or vmap there is no NumPy array "
                      f"yet", "Keep the JAX array inside the function; take np.asarray of "
                      "what it returns, outside, where the values exist.")
    elif name in ("to", "cuda", "cpu") and jaxs is not None and ".astype(" not in jaxs:
        rewrite += "    # on its device already"
        title, fix = (f"{shown} is PyTorch's: a JAX array is on its device already",
                      "Leave the call out (jax.device_put(x, device) where it must go "
                      "elsewhere).")
    elif module and name in _DTYPES and jaxs is not None:
        numpy1 = f" and NumPy 1's (np.{name}, gone since NumPy 1.24)" \
            if name in ("float", "int") else ""
        title = f"{shown} is PyTorch's (torch.{name}){numpy1}: JAX writes {jaxs}"
        fix = f"Write {jaxs} in its place, as the line below does."
    else:
        title = f"{shown} is PyTorch's: JAX writes {jaxs}" if jaxs else \
            f"{shown} is PyTorch's: JAX's arrays take NumPy's names"
        fix = f"Write {jaxs} in its place, as the line below does." if jaxs else \
            "Look the name up among jnp's functions (NumPy's names)."
    return ErrorCard(
        "torch-habit", title, why=_DIM_KEYWORD if keyword else _WHY[name], fix=fix,
        rewrite=rewrite or "# JAX's names: https://docs.jax.dev/en/latest/jax.numpy.html",
        docs="https://docs.jax.dev/en/latest/jax.numpy.html")


# ------------------------------------------------------------------ PyTorch's repeat: a tile
# x.repeat(2, 1) is PyTorch's tile (copies of the whole tensor per axis); NumPy's and JAX's
# x.repeat(repeats, axis) repeats each element, so the 1 was read as an axis
_REPEAT_WORDS = re.compile(r"^(axis -?\d+ is out of bounds for array of dimension \d+"
                           r"|_repeat\(\) takes from 2 to 3 positional arguments but \d+ were "
                           r"given)$")


def _torch_repeat(e):
    """(the line's tree, its `x.repeat(a, b, ...)` of ints written out) where JAX's words
    are the axis's or the count's, or None."""
    if not isinstance(e, (ValueError, TypeError)) or not _REPEAT_WORDS.match(str(e)):
        return None
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr == "repeat" and len(call.args) >= 2 and not call.keywords and \
                all(_int_written(a) for a in call.args):
            return tree, call
    return None


def _is_torch_repeat(e) -> bool:
    return _torch_repeat(e) is not None


def _torch_repeat_card(exc, where, called_from) -> ErrorCard:
    tree, call = _torch_repeat(exc)
    x = _operand(call.func.value)
    reps = ", ".join(ast.unparse(a) for a in call.args)
    tiled = f"jnp.tile({x}, ({reps}))"
    return ErrorCard(
        "torch-habit", f".repeat({reps}) is PyTorch's tile: JAX writes {tiled}",
        why=(f"PyTorch's x.repeat({reps}) makes copies of the whole array along each axis; "
             f"NumPy's and JAX's x.repeat(repeats, axis) repeats each element along one axis, "
             f"so {ast.unparse(call.args[1])} was read as that axis (JAX's message is about "
             f"it). jnp.tile takes the copies per axis."),
        fix=f"Write {tiled}.",
        rewrite=f"{_replaced(tree, call, tiled)}    # copies of the whole array, per axis",
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.tile.html")
