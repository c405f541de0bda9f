"""The learner's names for the paths of a library's jit that compiles the learner's function:
eqx.filter_jit jits Equinox's own `fun_wrapped(dynamic_donate, dynamic_nodonate, static)`, so
JAX's log names a leaf of the learner's `x` "dynamic_nodonate['rest'][13]". The notes say `x`
(JAX's log keeps Equinox's paths, as JAX's own log does).

The mapping is made only where it is certain: Equinox 0.13's dict keys 'first' (the learner's
first argument's leaves, in its flattening's order) and 'rest' (the leaves of `(rest_args,
kwargs)`, the arguments bound to the function's signature), the structures Equinox passes in
`static` = (static_fun, static_first, static_rest), each `(leaves, treedef)`, and the learner's
function's signature. Any other layout keeps the library's paths.
"""
from __future__ import annotations

import dataclasses
import inspect
import re

from ...core.compile_record import _short, learners_function
from ...tree_util import keystr, tree_leaves_with_path, tree_structure
from .change import Change
from .statics import _equal

# a leaf of Equinox's dynamic arguments: "dynamic_nodonate['rest'][13]"
_EQUINOX_LEAF = re.compile(r"dynamic_(?:no)?donate\['(first|rest)'\]\[(\d+)\]")
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def in_learners_names(event, statics, closest, changes):
    """`event` (a jit cache miss's, `statics` its static arguments, `closest` the Signature it
    was compared with, `changes` what differs) with its learner_paths and learner_changes set
    where it compiles a learner's function in eqx.filter_jit's layout; else `event`."""
    if not any(str(n).startswith("dynamic_") for n, _ in event.signature):
        return event
    function = learners_function(statics)
    if function is None:
        return event
    paths = learner_paths([n for n, _ in event.signature], statics, function)
    # Equinox's fun_wrapped is defined on one line for every filter_jit'd function, so a new
    # one is "a function defined on the same line" to JAX (whose log says so): not the
    # learner's function again, which the notes would say it is
    said = tuple(c for c in changes if c.kind not in ("fresh_jit", "fresh_body"))
    return dataclasses.replace(event, learner_paths=paths, learner_changes=(
        in_learners_terms(said, paths, closest.statics, statics, function)
        if said and closest is not None else ()))


def learner_paths(paths, statics, function) -> tuple:
    """((library's path, learner's path), ...) for those of `paths` (a jit's input names) that
    are leaves of eqx.filter_jit's arguments of `function` (the learner's, found among
    `statics`, the jit's (name, value, ...) static arguments), named by the learner's
    parameter and the leaf's path in it: "x", "model.layers[0].weight"; () for any other jit.

        >>> def step(model, x): ...
        >>> first = ((None,), _treedef((1.0,)))          # model: one leaf
        >>> rest = ((None, None), _treedef(((2.0, None), {})))
        >>> learner_paths(["dynamic_nodonate['rest'][0]"], (("static", (None, first, rest)),),
        ...               step)
        (("dynamic_nodonate['rest'][0]", 'x'),)
    """
    parts = _equinox_static(statics)
    if parts is None:
        return ()
    try:
        params = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return ()
    found = []
    for path in paths:
        match = _EQUINOX_LEAF.fullmatch(path)
        if match is None:
            continue
        part, index = match.group(1), int(match.group(2))
        name = _first_name(parts[0], index, params) if part == "first" else \
            _rest_name(parts[1], index, params)
        if name is not None:
            found.append((path, name))
    return tuple(found)


def _treedef(tree):
    """A tree's structure (the doctest's stand-in for Equinox's static treedefs)."""
    return tree_structure(tree)


def _equinox_static(statics):
    """(static_first's treedef, static_rest's) of eqx.filter_jit's `static` argument, or None
    where the statics are not laid out as Equinox 0.13 lays them."""
    value = _equinox_value(statics)
    return None if value is None else (value[1][1], value[2][1])


def _leaf_paths(treedef) -> dict:
    """{leaf index: its key path} of `treedef`."""
    try:
        tree = treedef.unflatten(list(range(treedef.num_leaves)))
        return {index: path for path, index in tree_leaves_with_path(tree)}
    except Exception:       # a structure that cannot be rebuilt here: no certain name
        return {}


def _first_name(treedef, index, params) -> str | None:
    """The learner's name of leaf `index` of the first argument."""
    path = _leaf_paths(treedef).get(index)
    if path is None or not params or params[0].kind not in _POSITIONAL:
        return None
    return params[0].name + keystr(path)


def _rest_name(treedef, index, params) -> str | None:
    """The learner's name of leaf `index` of `(rest_args, kwargs)`: rest_args[j] is the
    positional parameter j + 1 (or the *args' element), kwargs[k] the keyword k."""
    path = _leaf_paths(treedef).get(index)
    if path is None or len(path) < 2:
        return None
    where, key, inner = getattr(path[0], "idx", None), path[1], keystr(path[2:])
    if where == 0 and hasattr(key, "idx"):
        position = key.idx + 1
        for i, param in enumerate(params):
            if param.kind == inspect.Parameter.VAR_POSITIONAL:
                return f"{param.name}[{position - i}]{inner}" if position >= i else None
            if i == position:
                return param.name + inner if param.kind in _POSITIONAL else None
        return None
    if where == 1 and hasattr(key, "key") and isinstance(key.key, str):
        named = [p for p in params if p.name == key.key and p.kind in
                 (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        if named:
            return key.key + inner
        var = [p for p in params if p.kind == inspect.Parameter.VAR_KEYWORD]
        return f"{var[0].name}[{key.key!r}]{inner}" if var else None
    return None


def in_learners_terms(changes, paths, before=(), now=(), function=None) -> tuple:
    """`changes` said with the learner's paths (`paths`: learner_paths' pairs): each Change's
    path, and the library's path in its fix and snippet, replaced by the learner's. A snippet
    that would assign to a part of an argument (`model.layers[0].weight = ...`: an Equinox
    Module is immutable) is dropped; one on a whole argument (`x = jnp.pad(x, ...)`) is kept.
    A change of Equinox's `static` (the statics `before` and `now`) is said as the change of
    the learner's argument that is not an array (static_changes), where certain.

        >>> c = Change("a['rest'][0]", "shape", "f32[8]", "f32[5]", "Pad a['rest'][0].", "")
        >>> in_learners_terms((c,), (("a['rest'][0]", "x"),))[0].fix
        'Pad x.'
    """
    names = dict(paths)
    said = []
    for change in changes:
        if change.kind == "static" and change.path == "static" and function is not None:
            said += static_changes(before, now, function) or [change]
            continue
        name = names.get(change.path)
        if name is None:
            said.append(change)
            continue
        snippet = change.snippet.replace(change.path, name) if name.isidentifier() else ""
        said.append(dataclasses.replace(change, path=name,
                                        fix=change.fix.replace(change.path, name),
                                        snippet=snippet))
    # another model (a structure of its own) is another program whatever else is given: its
    # leaves' shapes, paired by position with the other model's, are no change to pad, and
    # padding another argument would not save this compile
    another = [c for c in said if c.kind == "pytree"]
    return tuple(another) if another else tuple(said)


def static_changes(before, now, function) -> list:
    """The learner's arguments that are not arrays whose values differ between Equinox's
    `static` of the statics `before` and `now` (filter_jit makes every such value static: a
    new value compiles anew), as Changes naming the argument; [] where uncertain (another
    function, another structure)."""
    old, new = _equinox_value(before), _equinox_value(now)
    if old is None or new is None or old[0] != new[0]:
        return []
    try:
        params = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []
    if old[1][1] != new[1][1] and params and params[0].kind in _POSITIONAL:
        return [_another_structure(params[0].name, old[1][1], new[1][1])]
    found = []
    for (old_leaves, old_def), (new_leaves, new_def), name_of in (
            (old[1], new[1], _first_name), (old[2], new[2], _rest_name)):
        if old_def != new_def or len(old_leaves) != len(new_leaves):
            return []
        for i, (a, b) in enumerate(zip(old_leaves, new_leaves)):
            if a is b or type(a) is type(b) and _equal(a, b):
                continue
            name = name_of(new_def, i, params)
            if name is None:
                return []
            found.append(Change(name, "static", _short(a), _short(b), _STATIC_FIX.format(
                name=name, call=function.__name__)))
    return found


def _another_structure(name: str, old_def, new_def) -> Change:
    """The learner's first argument given another structure (another model: a Discriminator
    after a Generator, a Sequential of other layers): a program of its own, as JAX 0.10.2
    says ("different input pytree ... their Python types differ"), nothing to pad."""
    old_type, new_type = (_top_type(d) for d in (old_def, new_def))
    same = old_type == new_type
    what = (f"another {new_type} (its layers or fields differ)" if same
            else f"a {new_type} now and a {old_type} before (their Python types differ)")
    return Change(name, "pytree", f"a {old_type}", f"{'another' if same else 'a'} "
                  f"{new_type}", _ANOTHER_STRUCTURE_FIX.format(name=name, what=what), "")


def _top_type(treedef) -> str:
    """The name of the type at the top of `treedef` (its node's), or "pytree"."""
    try:
        return treedef.node_data()[0].__name__
    except (AttributeError, TypeError, IndexError):
        return "pytree"


# checked under JAX 0.10.2 with Equinox 0.13.8: evaluate(generator) then
# evaluate(discriminator) (the DCGAN example's) misses JAX's cache, "different input pytree";
# each model's own program is reused by its later calls
_ANOTHER_STRUCTURE_FIX = (
    "{name} is {what}: eqx.filter_jit, as jax.jit, compiles one program per structure of its "
    "arguments, so another model is another program. This is expected: nothing to fix; each "
    "model compiles once, and later calls with a model of the same structure reuse its "
    "program.")


# checked under JAX 0.10.2 with Equinox 0.13.8: scale(x, 2) then scale(x, 3) under
# eqx.filter_jit misses its cache (Equinox's `static` differs); with jnp.asarray(2) and
# jnp.asarray(3) it does not
_STATIC_FIX = ("eqx.filter_jit makes every argument that is not an array static, so each new "
               "value of {name} compiles anew, and a value seen before reuses its program. If "
               "{call} uses {name} as a number only (arithmetic, not a shape or a loop count), "
               "pass it as an array, jnp.asarray({name}): filter_jit traces arrays, one "
               "program for every value.")


def _equinox_value(statics):
    """Equinox's `static` value among `statics` ((name, value, ...) pairs), or None."""
    for static in statics:
        value = static[1]
        if str(static[0]) == "static" and isinstance(value, tuple) and len(value) == 3 and \
                all(isinstance(v, tuple) and len(v) == 2 and hasattr(v[1], "unflatten")
                    for v in value[1:]):
            return value
    return None
