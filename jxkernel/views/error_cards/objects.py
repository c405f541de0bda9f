"""Cards for an object of the learner's own class that is no registered pytree, given where
JAX looks inside pytrees: grad, value_and_grad or vmap of it (JAX: "is not a valid JAX type"),
or tree_map, which passes the whole object to the function as one leaf (the function's own
error, `v * 2` of a Box). jit's is the not-an-array card (static.py)."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import re

from ...core.traceback_util import unfiltered_traceback
from ...tree_util import keystr, tree_flatten_with_path, tree_leaves
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _parse_line, _replaced

# grad's words (type unquoted, a full stop) and vmap's (quoted)
_NOT_JAX_TYPE = re.compile(r"^Argument '.*' of type '?<class '([\w.<>]+)'>'? is not a valid "
                           r"JAX type", re.S)
_DOCS = "https://docs.jax.dev/en/latest/_autosummary/jax.tree_util.register_dataclass.html"


def _is_own_object(value) -> bool:
    """An instance of a class the learner wrote (attributes in a __dict__ or a dataclass's
    fields), not a function, a class, an array or a value of a library's type."""
    kind = type(value)
    return (hasattr(value, "__dict__") or dataclasses.is_dataclass(value)) and \
        not isinstance(value, type) and not callable(value) and \
        not kind.__module__.split(".")[0] in ("jxkernel", "numpy", "jaxlib")


def _named_in_traceback(exc, class_path):
    """The object of class `class_path` (module.Name as the message prints it) that one of
    the traceback's frames holds (grad's and vmap's leaf), or None."""
    tb = unfiltered_traceback(exc)     # (jxkernel's frames, though a boundary filtered them)
    found = None
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            kind = type(value)
            if f"{kind.__module__}.{kind.__qualname__}" in (class_path, f"builtins.{class_path}") \
                    and _is_own_object(value):
                found = value
        tb = tb.tb_next
    return found


def _tree_map_leaf(exc):
    """(the leaf, the API) for an exception raised in the function tree_map called on a leaf
    that is an object of the learner's class, its class named in the message; else None."""
    tb = unfiltered_traceback(exc)     # (jxkernel's frames, though a boundary filtered them)
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == "tree_map" and "tree_util" in code.co_filename.replace("\\", "/"):
            names = tb.tb_frame.f_locals
            for tree in (names.get("tree"), *(names.get("rest") or ())):
                for leaf in tree_leaves(tree):
                    if _is_own_object(leaf) and \
                            re.search(rf"\b{re.escape(type(leaf).__name__)}\b", str(exc)):
                        return leaf
        tb = tb.tb_next
    return None


def _is_unregistered_object(e) -> bool:
    if isinstance(e, TypeError):
        found = _NOT_JAX_TYPE.match(str(e))
        if found and _named_in_traceback(e, found.group(1)) is not None:
            return True
    return isinstance(e, (TypeError, AttributeError)) and _tree_map_leaf(e) is not None


def _fields(value) -> tuple:
    """(data fields, meta fields, every field data and the class a dataclass): the fields
    holding numbers or arrays are data (traced, differentiated); strings and other settings
    meta (static).

        >>> class Box:
        ...     def __init__(self, name, a):
        ...         self.name, self.a = name, a
        >>> _fields(Box("w", 1.0))
        (['a'], ['name'], False)
    """
    if dataclasses.is_dataclass(value):
        items = [(f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value)
                 if f.init]
    else:
        items = list(vars(value).items())
    data = [k for k, v in items if (isinstance(v, (int, float, complex, list, tuple, dict))
                                    and not isinstance(v, bool)) or hasattr(v, "dtype")]
    meta = [k for k, _ in items if k not in data]
    return data, meta, dataclasses.is_dataclass(value) and not meta


def _unregistered_object_card(exc, where, called_from) -> ErrorCard:
    found = _NOT_JAX_TYPE.match(str(exc)) if isinstance(exc, TypeError) else None
    value = _named_in_traceback(exc, found.group(1)) if found else None
    api = None
    if value is None:
        value, api = _tree_map_leaf(exc), "tree_map"
    kind = type(value).__name__
    data, meta, whole = _fields(value)
    if api == "tree_map":
        why = (f"tree_map calls the function on each leaf of the tree. {kind} is not a "
               f"registered pytree node, so a {kind} is one leaf, and the function was "
               f"given the whole {kind}, not the numbers it holds.")
    else:
        why = (f"JAX differentiates and maps over arrays and the pytrees that hold them "
               f"(tuples, lists, dicts, registered classes). {kind} is not registered, so a "
               f"{kind} is one leaf to JAX, and no array.")
    if whole:
        register = f"jax.tree_util.register_dataclass({kind})"
    elif data and all(k.isidentifier() for k in data + meta):
        register = (f"jax.tree_util.register_dataclass({kind}, data_fields={data!r}, "
                    f"meta_fields={meta!r})")
    else:
        register = None
    if register is None:
        fix = (f"Register {kind} as a pytree: jax.tree_util.register_dataclass({kind}, "
               f"data_fields=[...], meta_fields=[...]) names the attributes holding arrays "
               f"(data) and the rest (meta), or @jax.tree_util.register_pytree_node_class "
               f"with tree_flatten and tree_unflatten methods.")
        rewrite = (f"jax.tree_util.register_dataclass({kind}, data_fields=[...], "
                   f"meta_fields=[...])    # once, after class {kind}")
    else:
        meta_words = f"; {', '.join(meta)} meta (static: part of the structure)" if meta else ""
        fix = (f"Register {kind} as a pytree, once, after the class: its "
               f"{'field' if len(data) == 1 else 'fields'} {', '.join(data)} then become "
               f"leaves (arrays JAX traces and differentiates){meta_words}, and the result "
               f"is a {kind} of the same fields. "
               + ("(Or @jax.tree_util.register_dataclass above @dataclasses.dataclass.)"
                  if dataclasses.is_dataclass(value) else
                  f"(Or @jax.tree_util.register_pytree_node_class on {kind}, with "
                  f"tree_flatten and tree_unflatten methods.)"))
        rewrite = f"{register}    # once, after class {kind}"
    line = (called_from or where or {}).get("code")
    if line and _parses(line):
        rewrite += "\n" + line
    elif line:          # the first line of a longer call (custom_pytrees' jax.tree.map(f,
        rewrite += "\n# then your call again, as it is"      # [...]) over four lines)
    return ErrorCard(
        "unregistered-class", f"{kind} is not a registered pytree", why=why, fix=fix,
        rewrite=rewrite, docs=_DOCS)


def _parses(line: str) -> bool:
    """Whether the user's line is a statement of its own (not the first of several)."""
    try:
        ast.parse(line)
    except SyntaxError:
        return False
    return True


# ------------------------------------------------------------------ a str among the leaves
_TEXT_LEAF = re.compile(r"^Argument '(.*)' of type '?<class 'str'>'? is not a valid JAX type",
                        re.S)
# the transformations whose argument's leaves must all be arrays, and what each does to them
_TAKES_ARRAYS = {"grad": "differentiates", "value_and_grad": "differentiates",
                 "jacrev": "differentiates", "jacfwd": "differentiates",
                 "hessian": "differentiates", "vmap": "maps over"}


def _text_leaf(exc):
    """(the line's tree, the transformation's call `api(f, ...)`, the called call, the
    argument's name, the path to the str in it, the dict holding it at its top level or None)
    of a str among the leaves of a name given to grad or vmap; None where not found."""
    found = _TEXT_LEAF.match(str(exc)) if isinstance(exc, TypeError) else None
    where, _ = _user_lines(exc) if found else (None, None)
    tree, frame = _parse_line(where), _user_frame(exc)
    for call in ast.walk(tree) if tree is not None and frame is not None else ():
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Call) and
                _called(call.func) in _TAKES_ARRAYS and call.func.args):
            continue
        for i, arg in enumerate(call.args):
            if isinstance(arg, (ast.Dict, ast.List, ast.Tuple)):    # written on the line
                entry = _literal_entry(arg, found.group(1))
                if entry is not None:
                    return tree, call.func, call, f"args[{i}]", entry[0], entry[1:]
                continue
            value = _named_value(frame, arg.id) if isinstance(arg, ast.Name) else None
            paths = [keystr(path) for path, leaf in tree_flatten_with_path(value)[0]
                     if isinstance(leaf, str) and leaf == found.group(1)] if value else []
            if paths:
                return tree, call.func, call, arg.id, paths[0], value
    return None


def _literal_entry(node, text: str, path: str = ""):
    """(the path to the str constant `text` in the dict, list or tuple written as `node`, the
    dict or sequence node holding it, its index there), or None: `{'cfg': {'act': 'relu'}}`
    -> ("['cfg']['act']", the inner dict, 0). Read from the source, never evaluated."""
    if isinstance(node, ast.Dict):
        entries = [(ast.unparse(k) if k is not None else None, v)
                   for k, v in zip(node.keys, node.values)]
    elif isinstance(node, (ast.List, ast.Tuple)):
        entries = [(str(i), v) for i, v in enumerate(node.elts)]
    else:
        return None
    for i, (key, value) in enumerate(entries):
        if key is None:                         # (a `**rest` in the dict: not read)
            return None
        if isinstance(value, ast.Constant) and value.value == text:
            return f"{path}[{key}]", node, i
        inner = _literal_entry(value, text, f"{path}[{key}]")
        if inner is not None:
            return inner
    return None


def _is_text_leaf(e) -> bool:
    return _text_leaf(e) is not None


def _reads_key(function, key: str, frame) -> bool | None:
    """Whether the function (a lambda on the line, or a name of the frame's) reads `key`
    (`p['name']`); None where its source is not at hand."""
    if isinstance(function, ast.Lambda):
        body = function
    else:
        value = _named_value(frame, function.id) if isinstance(function, ast.Name) else None
        code = getattr(value, "__code__", None)
        try:
            body = ast.parse(inspect.getsource(code).lstrip()) if code else None
        except (OSError, TypeError, SyntaxError):
            return None
    if body is None:
        return None
    return any(isinstance(n, ast.Constant) and n.value == key for n in ast.walk(body))


def _text_leaf_card(exc, where, called_from) -> ErrorCard:
    tree, api_call, call, name, path, value = _text_leaf(exc)
    api = _called(api_call)
    does = _TAKES_ARRAYS[api]
    text = _TEXT_LEAF.match(str(exc)).group(1)
    key = ast.literal_eval(path[1:-1]) if re.fullmatch(r"\['[^'\]]*'\]", path) else None
    rewrite = f"# {name}{path} = {text!r}: keep it out of what {api} {does}"
    if key is not None and isinstance(value, dict) and api == "vmap":
        axes = "{" + ", ".join(f"{k!r}: {'None' if isinstance(v, str) else 0}"
                               for k, v in value.items()) + "}"
        given = [axes if isinstance(a, ast.Name) and a.id == name else "0" for a in call.args]
        spec = given[0] + "," if len(given) == 1 else ", ".join(given)
        new = ast.Call(api_call.func, api_call.args, [
            k for k in api_call.keywords if k.arg != "in_axes"] +
            [ast.keyword("in_axes", ast.parse(f"({spec})", mode="eval").body)])
        rewrite = (f"{_replaced(tree, api_call, new)}    # None: {name}{path} given to every "
                   f"example as it is")
    elif isinstance(value, tuple) and isinstance(value[0], ast.Dict) and \
            isinstance(value[0].keys[value[1]], ast.Constant) and \
            _reads_key(api_call.args[0], value[0].keys[value[1]].value, _user_frame(exc)) is False:
        holder, i = value       # the entry taken out of the dict written on the line
        holder.keys.pop(i)
        holder.values.pop(i)
        rewrite = f"{ast.unparse(tree)}    # {text!r} left out: the arrays alone"
    elif key is not None and isinstance(value, dict) and \
            _reads_key(api_call.args[0], key, _user_frame(exc)) is False:
        arrays = f"{{k: v for k, v in {name}.items() if k != {key!r}}}"
        new = ast.Call(api_call, [ast.Name("arrays") if isinstance(a, ast.Name) and
                                  a.id == name else a for a in call.args], call.keywords)
        rewrite = (f"arrays = {arrays}    # the arrays alone\n"
                   f"{_replaced(tree, call, new)}")
    return ErrorCard(
        "text-leaf", f"{name}{path} is a str, which {api} cannot take as an array",
        why=(f"{api} {does} every leaf of its arguments (each entry of a dict, list or tuple, "
             f"down to the arrays), and {name}{path} holds the str {text!r}, no number."),
        fix=(f"Keep settings out of what {api} {does}: pass them as another argument"
             + (" (grad differentiates argnums=0 alone)" if does == "differentiates" else
                " (in_axes None for them)") +
             f", or close over them; give {api} the arrays alone."),
        rewrite=rewrite, docs="https://docs.jax.dev/en/latest/pytrees.html")
