"""Cards for an Equinox model (an `eqx.Module`) met by plain JAX: `jax.jit` or `jax.grad` of a
function taking the model (its non-array fields, jax.nn.relu in its list of layers, are no
arrays: eqx.filter_jit and eqx.filter_grad trace the arrays alone), a batch given to a layer or
model that takes one example (`jax.vmap(model)(x)`), one example of another size given to
eqx.nn.Linear (the layer named, not a matrix product's a and b), a field of the model assigned
(`eqx.tree_at` makes the changed copy), and a field built as an array (`jnp.array(1)`) read as
a Python int under jit (a Python int, static). JAX's (or Equinox's) message stays as it is; the
card writes the Equinox way on the learner's own line. No Equinox import: a module is told by
its class's bases (Equinox's `Module`), a layer by its class's module (equinox.nn).

    >>> _is_equinox_module(object())
    False
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import re

from ...core import errors as jx_errors
from ...core.trace import Tracer
from .card import ErrorCard
from .reading import _user_lines, traceback_frames
from .rewrites import _bound_above, _called, _parse_line, _replaced

_DOCS = "https://docs.kidger.site/equinox/all-of-equinox/"
_NOT_ARRAY = re.compile(r"^Error interpreting argument to <function ([\w.<>]+) at 0x[0-9a-f]+> "
                        r"as an abstract array\. The problematic value is of type "
                        r"<class '([\w.<>]+)'> and was passed to the function at path (.+?)\.$",
                        re.M)
_NOT_JAX_TYPE = re.compile(r"^Argument '.*' of type <class '([\w.<>]+)'> is not a valid JAX "
                           r"type\.$", re.M)
_DOT = "dot_general requires contracting dimensions to have the same shape"
_CONV_RANK = "('Input to `Conv` needs to have rank "
_GRADS = {"grad": "filter_grad", "value_and_grad": "filter_value_and_grad"}


def _is_equinox_module(value) -> bool:
    return any(c.__name__ == "Module" and c.__module__.startswith("equinox")
               for c in type(value).__mro__)


def _lookup(exc, name):
    """The value `name` has in a frame of `exc`'s traceback (locals, then globals), or None."""
    for frame in traceback_frames(exc):
        for scope in (frame.f_locals, frame.f_globals):
            if name in scope:
                return scope[name]
    return None


def _module_names(exc, where) -> list:
    """The names on the user's line that hold an Equinox module, in the line's order."""
    tree = _parse_line(where)
    if tree is None:
        return []
    names = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
    return [n for n in dict.fromkeys(names) if _is_equinox_module(_lookup(exc, n))]


# ---------------------------------------------------------------- jax.jit of a module

def _is_jit_of_module(e) -> bool:
    return isinstance(e, TypeError) and _NOT_ARRAY.search(str(e)) is not None and \
        bool(_module_names(e, _cell_line(e)))


def _cell_line(exc):
    """The user's outermost line in `exc`'s traceback (the one the card's rewrite is on)."""
    where, called_from = _user_lines(exc)
    return called_from or where


def _jit_of_module_card(exc, where, called_from) -> ErrorCard:
    qualified, type_path, path = _NOT_ARRAY.search(str(exc)).groups()
    kind = type_path.rsplit(".", 1)[-1]
    named = getattr(getattr(exc, "value", None), "__name__", None)     # relu, of jax.nn.relu
    what = f"{named} (a {kind})" if isinstance(named, str) and named.isidentifier() else \
        f"a {kind}"
    module = _module_names(exc, called_from or where)[0]
    fun = getattr(exc, "fun", None)
    try:
        params = ", ".join(inspect.signature(fun).parameters) if fun is not None else None
    except (TypeError, ValueError):
        params = None
    name = qualified.rsplit(".", 1)[-1]
    rewrite = _filter_jit_line(called_from or where) or \
        "@eqx.filter_jit    # in place of @jax.jit: the arrays traced, the rest static"
    if rewrite.startswith("@") and params is not None and name.isidentifier():
        rewrite += f"\ndef {name}({params}):"
    return ErrorCard(
        "equinox-jit", f"jax.jit was given {module}, an Equinox model: its {path} is {what}",
        why=(f"jax.jit traces every leaf of its arguments as an array; {module} is an "
             f"eqx.Module, whose leaves are its arrays and also its other fields ({path}, "
             f"{what}, which is no array). static_argnums cannot mark a part of an argument."),
        fix=("Jit it with eqx.filter_jit (as a decorator or eqx.filter_jit(f)): it traces the "
             "arrays and holds everything else static. Or pass the arrays alone: params, static "
             "= eqx.partition(model, eqx.is_array), and inside the jitted function "
             "eqx.combine(params, static) with static read from outside (as a static argument "
             "it must be hashable, and a Module holding a list is not)."),
        rewrite=rewrite, docs="https://docs.kidger.site/equinox/api/transformations/")


def _filter_jit_line(where) -> str | None:
    """The learner's jax.jit as eqx.filter_jit where it is written as a call: on the line
    (`jax.jit(f)(model, x)`), or on the statement above that bound the name the line calls
    (`predict = jax.jit(f)`, then the line); None for a decorator (the card writes one).
    filter_jit takes the function alone: jit's static_argnums have no place there."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and _called(call.func) == "jit" and call.func.args:
            jitted = ast.Call(ast.parse("eqx.filter_jit", mode="eval").body,
                              call.func.args[:1], [])
            return f"{_replaced(tree, call.func, jitted)}    # the arrays traced, the rest static"
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            bound = _bound_above(where, call.func.id)
            made = bound.value if bound is not None else None
            if _called(made) == "jit" and made.args:
                fixed = ast.Assign(bound.targets, ast.Call(ast.parse(
                    "eqx.filter_jit", mode="eval").body, made.args[:1], []), lineno=0)
                return (f"{ast.unparse(fixed)}    # line {bound.lineno}: the arrays traced, "
                        f"the rest static\n{where['code']}")
    return None


# ---------------------------------------------------------------- jax.grad of a module

def _is_grad_of_module(e) -> bool:
    if not (isinstance(e, TypeError) and _NOT_JAX_TYPE.search(str(e))):
        return False
    line = _cell_line(e)
    return _grad_call(line) is not None and bool(_module_names(e, line))


def _grad_call(where):
    """The `jax.grad` or `jax.value_and_grad` attribute node called on the user's line."""
    tree = _parse_line(where)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _GRADS and isinstance(node.func.value, ast.Name):
            return node.func
    return None


def _grad_of_module_card(exc, where, called_from) -> ErrorCard:
    line = called_from or where
    kind = _NOT_JAX_TYPE.search(str(exc)).group(1).rsplit(".", 1)[-1]
    module = _module_names(exc, line)[0]
    func = _grad_call(line)
    code = line["code"]
    api = func.attr
    segment = ast.get_source_segment(code, func)
    rewrite = code.replace(segment, f"eqx.{_GRADS[api]}", 1).strip() + \
        f"    # the gradient by the model's arrays, a {type(_lookup(exc, module)).__name__}"
    return ErrorCard(
        "equinox-grad", f"jax.{api} was given {module}, an Equinox model: a {kind} in it is "
        "no array",
        why=(f"jax.{api} differentiates by every leaf of its first argument; {module} is an "
             f"eqx.Module whose leaves include its non-array fields (a {kind}), which have no "
             "derivative."),
        fix=(f"Use eqx.{_GRADS[api]}: it differentiates by the floating-point arrays of the "
             "model and leaves the rest alone; the gradients come back as a model of the same "
             "shape, None where a field is no array (what optax's update takes)."),
        rewrite=rewrite, docs="https://docs.kidger.site/equinox/api/transformations/")


# ---------------------------------------------------------------- a batch into one example

def _layer_input(exc):
    """(the Equinox layer, its input's shape, the rank it takes) of the innermost `__call__`
    frame whose `self` is a layer of equinox.nn and whose `x` has a shape, or None."""
    found = None
    for frame in traceback_frames(exc):
        layer, x = frame.f_locals.get("self"), frame.f_locals.get("x")
        if frame.f_code.co_name != "__call__" or not _is_equinox_module(layer) or \
                not type(layer).__module__.startswith("equinox.nn"):
            continue
        shape = getattr(x, "shape", None)
        rank = frame.f_locals.get("unbatched_rank")
        if rank is None and isinstance(getattr(layer, "in_features", None), int):
            rank = 1
        if isinstance(shape, tuple) and isinstance(rank, int):
            found = layer, shape, rank
    return found


def _is_batch_into_layer(e) -> bool:
    text = str(e)
    if not (isinstance(e, TypeError) and text.startswith(_DOT) or
            isinstance(e, ValueError) and text.startswith(_CONV_RANK)):
        return False
    found = _layer_input(e)
    return found is not None and len(found[1]) == found[2] + 1 and \
        _called_module(e, _cell_line(e)) is not None


def _called_module(exc, where):
    """The call node on the user's line whose function is a name holding an Equinox module."""
    tree = _parse_line(where)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args and \
                _is_equinox_module(_lookup(exc, node.func.id)):
            return node
    return None


def _batch_into_layer_card(exc, where, called_from) -> ErrorCard:
    layer, shape, rank = _layer_input(exc)
    line = called_from or where
    call = _called_module(exc, line)
    code = line["code"]
    name = call.func.id
    mapped = code.replace(ast.get_source_segment(code, call),
                          f"jax.vmap({name})({ast.get_source_segment(code, call.args[0])})", 1)
    spelled = f"eqx.nn.{type(layer).__name__}"
    return ErrorCard(
        "equinox-batch", f"{spelled} takes one example of {rank} "
        f"ax{'is' if rank == 1 else 'es'}; it was given a batch of shape {shape}",
        why=(f"Equinox's layers take one example, not a batch: {spelled} expects an input of "
             f"{rank} ax{'is' if rank == 1 else 'es'}, and {name} was called on one more, "
             f"{shape} (a batch of {shape[0]} in front)."),
        fix=(f"Map {name} over the batch's first axis with jax.vmap: each example goes through "
             f"the layers alone, and the results are stacked again ({shape[0]} of them)."),
        rewrite=mapped.strip() + "    # one example at a time, the batch's first axis",
        docs=_DOCS)


# ---------------------------------------------------------------- a field assigned

def _is_frozen_field(e) -> bool:
    if not isinstance(e, dataclasses.FrozenInstanceError):
        return False
    return any(f.f_code.co_name == "__setattr__" and
               _is_equinox_module(f.f_locals.get("self")) for f in traceback_frames(e))


def _assigned_field(where):
    """(the object's source, the field, the value's source) of `obj.field = value` on the
    user's line, or None."""
    tree = _parse_line(where)
    if tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign):
        return None
    assign = tree.body[0]
    target = assign.targets[0] if len(assign.targets) == 1 else None
    if not isinstance(target, ast.Attribute):
        return None
    code = where["code"]
    return (ast.get_source_segment(code, target.value), target.attr,
            ast.get_source_segment(code, assign.value))


def _frozen_field_card(exc, where, called_from) -> ErrorCard:
    module = next(f.f_locals["self"] for f in traceback_frames(exc)
                  if f.f_code.co_name == "__setattr__"
                  and _is_equinox_module(f.f_locals.get("self")))
    cls = type(module).__name__
    assigned = _assigned_field(where)
    field = assigned[1] if assigned else "a field"
    if assigned and assigned[0].isidentifier() and assigned[0] != "self":
        obj, field, value = assigned
        rewrite = (f"{obj} = eqx.tree_at(lambda m: m.{field}, {obj}, {value})    # a new "
                   f"{cls}, {field} replaced")
    else:
        rewrite = ("# return a new model: eqx.tree_at(lambda m: m.field, model, new_value); "
                   "fields are set in __init__ only")
    return ErrorCard(
        "equinox-frozen", f"An Equinox {cls} cannot be changed in place: {field} was assigned",
        why=(f"An eqx.Module is a frozen dataclass: its fields are set once, in __init__, so "
             f"that the {cls} stays a value JAX can trace, copy and compare."),
        fix=("Make a changed copy with eqx.tree_at(where, model, replacement) and use the copy "
             "(as eqx.apply_updates gives a new model after each step)."),
        rewrite=rewrite, docs="https://docs.kidger.site/equinox/api/manipulation/#equinox.tree_at")


# ---------------------------------------------------------------- an int field traced

def _traced_fields(exc) -> tuple:
    """(the Equinox module, [its fields the user's line reads as `self.NAME` that hold a traced
    scalar]) of the innermost frame whose `self` is a module of the learner's, or None."""
    where, _ = _user_lines(exc)
    code = where["code"].strip() if where else ""
    try:                    # (a loop's or branch's head, `for layer in self.layers[:self.n]:`)
        tree = ast.parse(code + " pass" if code.endswith(":") else code)
    except SyntaxError:
        return None
    read = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and
            isinstance(n.value, ast.Name) and n.value.id == "self"]
    for frame in reversed(traceback_frames(exc)):
        module = frame.f_locals.get("self")
        if not _is_equinox_module(module) or type(module).__module__.startswith("equinox"):
            continue
        traced = [name for name in dict.fromkeys(read)
                  if isinstance(getattr(module, name, None), Tracer) and
                  getattr(module, name).shape == ()]
        return (module, traced) if traced else None
    return None


def _is_traced_field(e) -> bool:
    return isinstance(e, (jx_errors.TracerIntegerConversionError,
                          jx_errors.ConcretizationTypeError,
                          jx_errors.TracerBoolConversionError)) and \
        _traced_fields(e) is not None


def _traced_field_card(exc, where, called_from) -> ErrorCard:
    module, (field, *_) = _traced_fields(exc)
    cls = type(module).__name__
    dtype = getattr(getattr(module, field), "dtype", None)
    kind = "int" if dtype is not None and "int" in str(dtype) else \
        "bool" if dtype is not None and "bool" in str(dtype) else "float"
    return ErrorCard(
        "equinox-array-field", f"{cls}.{field} holds an array, so jit traces it: Python needs "
        f"its value on this line",
        why=(f"eqx.filter_jit (and jax.jit) trace the array fields of a Module: {cls}.{field} was "
             f"built as a JAX array, so inside the jitted function it is a placeholder with a "
             f"shape and dtype, no value, and this line needs a Python {kind} from it. A field "
             f"holding a plain Python {kind} is no array: filter_jit keeps it static, its value "
             f"known while tracing (a new value compiles again)."),
        fix=(f"Build the {cls} with a Python {kind} for {field} (1, not jnp.array(1)); to keep it "
             f"static under jax.jit as well, declare the field with eqx.field(static=True)."),
        rewrite=(f"{field}: {kind} = eqx.field(static=True)    # in class {cls}; and build it "
                 f"with a Python {kind}: {cls}(..., 1), not jnp.array(1)"),
        docs="https://docs.kidger.site/equinox/api/module/advanced_fields/")


# ---------------------------------------------------------------- one example, other features

def _is_linear_features(e) -> bool:
    found = isinstance(e, TypeError) and str(e).startswith(_DOT) and _layer_input(e)
    if not found:
        return False
    layer, shape, rank = found
    return len(shape) == rank == 1 and shape[-1] != layer.in_features


def _linear_features_card(exc, where, called_from) -> ErrorCard:
    layer, shape, _ = _layer_input(exc)
    need, got, out = layer.in_features, shape[-1], getattr(layer, "out_features", "...")
    spelled = f"eqx.nn.{type(layer).__name__}({need}, {out})"
    call = _called_module(exc, called_from or where)
    if call is not None and _lookup(exc, call.func.id) is layer:
        # the learner's own name for the layer: built again, pasted as it is
        rewrite = (f"{call.func.id} = eqx.nn.{type(layer).__name__}({got}, {out}, "
                   f"key=jax.random.PRNGKey(0))    # in_features {got}, the input's size "
                   f"(new weights)")
    else:
        rewrite = (f"eqx.nn.{type(layer).__name__}({got}, {out}, key=key)    # in __init__: "
                   f"in_features {got}, the input's size")
    return ErrorCard(
        "equinox-features", f"{spelled} got an input of shape {shape}: it takes {need} features",
        why=(f"{spelled} multiplies one example of {need} features by its weight of shape "
             f"({out}, {need}); this input has {got}, so the matrix product's sizes differ."),
        fix=(f"Give the layer inputs of {need} features (print the input's shape where you call "
             f"it), or build it for this input: in_features {got}."),
        rewrite=rewrite, docs="https://docs.kidger.site/equinox/api/nn/linear/")
