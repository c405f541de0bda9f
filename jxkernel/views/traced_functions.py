"""What the recompile explainers know of a user's traced function: the function a jitted
callable runs (through partials, methods, wrappers), the key that makes two function objects
"the same code" (a cell run again, a lambda made anew), the recent signatures compiled or
traced for that code (its lineage), the names it reads its closed-over constants by, where it
was defined, whether a file is jxkernel's own, and the user contexts' values.

    >>> f = lambda x: x
    >>> _code_key(f) == _code_key(functools.partial(f))
    True

recompile_explainer.py (a jit's miss) and body_retraces.py (a control-flow body's retrace)
both read them.
"""
from __future__ import annotations

import collections
import functools
import re
import types
import weakref

import numpy as np

from ..core.compile_record import named_repr
from ..core.config import _USER_CONTEXTS
from ..core.lru import LRU
from ..core.source_info import innermost_function
from ..tree_util import PyTreeDef, Static, equality_errors, keystr, stand_in_tree
from .signature_changes.closed_over import _COMPARE_MAX, _Large
from .static_attributes import global_loads


def _user_contexts() -> tuple:
    """(name, value) per jax.make_user_context context, as jit's cache key holds their values:
    "ctx (user context #3)", the name the user's code holds it by and its place among the
    contexts made (two contexts held by one name, as a cell run twice makes, stay apart; the
    explanation shows "ctx (user context)")."""
    found = []
    for index, context in enumerate(_USER_CONTEXTS):
        # named once: a later name would make an earlier signature's context look another
        label = getattr(context, "_shown_as", None) or context.label or \
            f"the context made at {context.made_at}"
        context._shown_as = label
        found.append((f"{label} (user context #{index})", context.value))
    return tuple(found)


_MAX_LINEAGES, _PER_LINEAGE = 1024, 16
# (cell file, qualname, code) -> deque of (a weak reference to the jitted callable, one to the
# jit, Signature): the callable itself is what JAX's tracing cache is keyed on. An LRU, so
# that jax.clear_caches() (lru.clear_every_cache) forgets it, as JAX's tracing cache: a jit
# of the function made after it is "never seen", not explained against traces made before.
_LINEAGES = LRU(_MAX_LINEAGES)
_PER_FUNCTION = 1024      # signatures a jit's history keeps (as many as its cache: SIGNATURES)
_CONSTS_KEPT = 16         # of which the newest keep their closed-over constants, to compare


def _user_function(fun):
    """The function a jitted callable really runs: through functools.partial, bound methods
    and `functools.wraps` wrappers (a %%jit cell's jitted `cell` wraps the cell's own code:
    every cell's wrapper has the same code, the cells do not)."""
    for _ in range(32):
        if isinstance(fun, functools.partial):
            fun = fun.func
        elif getattr(fun, "__func__", None) is not None and hasattr(fun, "__self__"):
            fun = fun.__func__
        elif getattr(fun, "__wrapped__", None) is not None:
            fun = fun.__wrapped__
        else:
            break
    return fun


def _instance_call(fun):
    """The __call__ of a callable object of a user's class (not a function, a partial, a
    method or a builtin), or None."""
    if isinstance(fun, (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                        functools.partial, type)):
        return None
    call = getattr(type(fun), "__call__", None)
    return call if isinstance(call, types.FunctionType) else None


_BUILTIN = re.compile(r"<built-in function (\S+)>")


def name_without_source(fun) -> str | None:
    """The name JAX's jax_explain_cache_misses gives a jitted callable it knows no file of
    (api_util.fun_sourceinfo, through partials and wrappers): "<unknown>" for an object with
    __call__ (jax.jit(Model())), a builtin's own name (jax.jit(operator.add): "add"); None
    for a function with code, which JAX names with where it was defined.

        >>> class Model:
        ...     def __call__(self, x): return x
        >>> name_without_source(Model()), name_without_source(functools.partial(Model()))
        ('<unknown>', '<unknown>')
        >>> name_without_source(lambda x: x) is None
        True
    """
    fun = innermost_function(fun)
    if getattr(fun, "__code__", None) is not None:
        return None
    try:
        found = _BUILTIN.match(str(fun))
    except Exception:                   # noqa: BLE001  a __str__ that raises: JAX's <unknown>
        found = None
    return found.group(1) if found else "<unknown>"


_CELL_FILE = re.compile(r"^<ipython-input-\d+-([0-9a-f]+)>$")


def jax_tree_lines(old, new, args_only: bool = False) -> tuple:
    """JAX's lines for a different input pytree (partial_eval.diff_trees: each difference of
    the call's (args, kwargs) trees, in tree_util's words) between treedefs `old` and `new`;
    `args_only`: they are of the arguments alone (a loop body's), which JAX's tree holds at
    [0]. `old` and `new` may be trees of stand-in leaves too (tree_util.stand_in_tree: a jit's
    inputs with their Static nodes).

        >>> from jxkernel.tree_util import tree_structure as t
        >>> jax_tree_lines(t(((1, None), {})), t(((1, 1), {})))[0]
        "  * at input path [0][1], now pytree leaf and before <class 'NoneType'>, so their \
Python types differ"
    """
    at = "[0]" if args_only else ""
    old, new = (stand_in_tree(t) if isinstance(t, PyTreeDef) else t for t in (old, new))
    return tuple(f"  * at input path {at}{keystr(tuple(path))}, now {now} and before "
                 f"{before}, so {why}" for path, now, before, why
                 in equality_errors(new, old))


def signature_tree_lines(closest, new, changes) -> tuple:
    """JAX's lines for a different input pytree between Signatures `closest` and `new`
    (partial_eval.diff_trees: each difference of the (args, kwargs) trees, tree_util's
    words), their static arguments Static nodes in them; () where `changes` start with
    another kind of difference.

        * at input path [0][0], now <class 'tuple'> and before <class 'list'>, so their
          Python types differ
    """
    if closest is None or not changes or changes[0].kind not in _TREE_KINDS or \
            closest.treedef is None or new.treedef is None:
        return ()
    return jax_tree_lines(_jax_inputs(closest), _jax_inputs(new))


_TREE_KINDS = ("structure", "static", "traced")      # what JAX's tree of the inputs tells


def _jax_inputs(signature):
    """The (args, kwargs) tree JAX keys a jit's trace on: the dynamic arguments' structure
    with each static argument a Static node where it was passed (its position, or its
    keyword: f(x, n=2) and f(x, 2) are two trees).

        >>> from jxkernel.tree_util import tree_structure
        >>> from .signature_changes.change import Signature
        >>> _jax_inputs(Signature((), tree_structure(((1,), {})), (("n", 2),), static_at=(0,)))
        ((Static(val=2), pytree leaf), {})
    """
    args, kwargs = stand_in_tree(signature.treedef)
    args, kwargs = list(args), dict(kwargs)
    placed = sorted(((at, name, value) for (name, value), at in
                     zip(signature.statics, signature.static_at)),
                    key=lambda s: (s[0] is None, s[0] or 0))
    for at, name, value in placed:
        if at is None:
            kwargs[name] = Static(value)
        else:
            args.insert(at, Static(value))
    return tuple(args), kwargs


def miss_site(site) -> str:
    """JAX's key of a call site for its "re-defined repeatedly?" hint, "file:line:column
    (function)", a notebook cell's file by its content alone: Jupyter's kernel names a cell's
    file by a hash of its source, so to JAX a cell run again is the same call site.

        >>> miss_site("<ipython-input-7-0a1b2c3d4e5f>:2 (<module>)")
        '<cell 0a1b2c3d4e5f>:2 (<module>)'
    """
    file, _, rest = str(site).partition(":")
    found = _CELL_FILE.match(file)
    return f"<cell {found.group(1)}>:{rest}" if found else str(site)


def _code_key(fun):
    """What makes two function objects "the same code", as a re-run cell or a lambda made
    anew in a loop: equal code objects (bytecode, constants, names, first line) in the same
    file, a notebook cell's file named by its content (IPython's execution count dropped),
    and the same qualified name. None when there is no code to compare."""
    code = getattr(_user_function(fun), "__code__", None)
    if code is None:         # an object of a class with __call__ (jax.jit(Model(k))): its code
        code = getattr(_instance_call(fun), "__code__", None)
    if code is None:
        return None
    found = _CELL_FILE.match(code.co_filename)
    return (found.group(1) if found else code.co_filename,
            getattr(code, "co_qualname", code.co_name), code)


def _weak(fun):
    try:
        return weakref.ref(fun)
    except TypeError:                # not weakly referable: never taken for the same object
        return lambda: None


def _lineage(fun) -> collections.deque:
    """The recent signatures compiled for `fun`'s code by any jit object (a lambda made anew
    in a loop shares its code), to explain a jit called anew each time."""
    return _lineage_in(_LINEAGES, fun)


def _lineage_in(table, fun) -> collections.deque:
    """`fun`'s code's recent signatures in `table` (jits' or bodies'), kept bounded."""
    key = _code_key(fun)
    if key is None:          # no code to recognise it by (an id could be reused): no lineage
        return collections.deque(maxlen=_PER_LINEAGE)
    found = table.get(key)
    if found is None:
        found = table[key] = collections.deque(maxlen=_PER_LINEAGE)
        if len(table) > _MAX_LINEAGES:      # (an LRU drops its oldest itself)
            table.popitem(last=False)
    return found


def edited_lineage(fun) -> collections.deque | None:
    """The recent signatures of another code of `fun`'s file and qualified name: the function
    before its module was edited and reloaded (a cell's file is named by its content, so an
    edited cell is another file: a module's alone); None where none compiled."""
    key = _code_key(fun)
    if key is None:
        return None
    return next((found for other, found in reversed(tuple(_LINEAGES.items()))
                 if other[:2] == key[:2] and other[2] != key[2] and found), None)


def forget_function(fun) -> None:
    """Drop what `fun` itself (this function object, not others of its code) was traced for
    from its lineage: JAX's `jit(fun).clear_cache()` evicts the function's traces, whichever
    jit made them, so that its next miss is "never seen function".

        >>> f = lambda x: x
        >>> _lineage(f).append((weakref.ref(f), None, "f32[3]", None)); forget_function(f)
        >>> len(_lineage(f))
        0
    """
    lineage = _lineage(fun)
    kept = [entry for entry in tuple(lineage) if entry[0]() is not fun]
    lineage.clear()
    lineage.extend(kept)


def _closure_names(fun) -> dict:
    """id(value) -> the name `fun` reads it by: its closure variables and the globals its
    code names."""
    code = getattr(fun, "__code__", None)
    if code is None:
        return {}
    names = {}
    for name, cell in zip(code.co_freevars, getattr(fun, "__closure__", None) or ()):
        try:
            names[id(cell.cell_contents)] = name
        except ValueError:                # a cell not yet filled
            pass
    found = getattr(fun, "__globals__", {})
    for name in global_loads(code):
        if name in found:
            names.setdefault(id(found[name]), name)
    return names


def _named_consts(fun, consts) -> tuple:
    """The closed-over constants named as the function's source names them, where it names
    them directly (a global or a closure variable), else by position."""
    by_id = _closure_names(fun)
    return tuple((by_id.get(id(c), f"constant {i}"),
                  _Large(c) if int(np.prod(getattr(c, "shape", ()))) > _COMPARE_MAX else c)
                 for i, c in enumerate(consts))


def _named_signature(named, static_named) -> tuple:
    # a static function object keeping object's repr (a custom_jvp: its repr names
    # jxkernel's module) by its name, as the changes write it: "static <custom_jvp function f>"
    return tuple((n, a.str_short(True) + (" (weak)" if a.weak_type else "")) for n, a in named) + \
        tuple((n, f"static {named_repr(v)}") for n, v in static_named)


def call_source_of(jitted) -> str | None:
    """Where the __call__ of a jitted callable object (through partials) was defined
    ("file:line"), else None: `jax.jit(Model())` is defined nowhere to JAX, its class's
    __call__ somewhere."""
    fun = _user_function(jitted._fun)
    code = getattr(_instance_call(fun), "__code__", None) if _source_of(jitted) is None \
        else None
    return None if code is None else f"{code.co_filename}:{code.co_firstlineno}"


def _source_of(jitted) -> str | None:
    """Where the jitted function was defined ("file:line"); for a functools.partial or a
    wrapper, where the function it runs was."""
    found = jitted._source_text()
    if found is None:
        code = getattr(_user_function(jitted._fun), "__code__", None)
        if code is not None:
            found = f"{code.co_filename}:{code.co_firstlineno}"
    return found
