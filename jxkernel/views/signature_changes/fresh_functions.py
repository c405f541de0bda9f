"""A new function object of code jitted before (kind "fresh_jit"): jit's cache is keyed on the
function object, so a lambda, a partial, a bound method, a wrapper, a closure or a cell run
again compiles anew. The Change, and the fix for each way a new object is made (which one
applies, views/recompile_explainer.py reads from the jitted function).
"""
from __future__ import annotations

import inspect
import os
import sys

import numpy as np

from ...tree_util import leaves_within
from .change import Change
from .fixes import _fixed


def partial_call(part) -> dict:
    """The fill of _PARTIAL_FRESH_FIX's call for `part`, a functools.partial: the wrapped
    function's parameters by name, those the partial bound passed as keywords (where its
    signature is read; else a generic `k, x`).

        >>> import functools
        >>> def loss(x, y, beta, gamma=1.0):
        ...     return x
        >>> partial_call(functools.partial(loss, beta=0.1))["call"]
        'x, y, beta=beta'
        >>> partial_call(functools.partial(loss, 0.5))["note"]
        '    # x passed, not bound'
        >>> partial_call(functools.partial(loss))["note"]       # it bound nothing
        ''
    """
    try:
        params = list(inspect.signature(part.func).parameters.values())
    except (TypeError, ValueError):
        return _bound_said("k, x", ["k"])
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    bound = [p.name for p in positional[:len(part.args)]] + list(part.keywords)
    # every parameter without a default is passed, and each bound one
    rest = [p.name for p in positional if p.name not in part.keywords and
            (p.default is p.empty or p.name in bound)]
    call = rest + [f"{k}={k}" for k in part.keywords]
    return _bound_said(", ".join(call), bound)


def _bound_said(call: str, bound: list) -> dict:
    """The fill of _PARTIAL_FRESH_FIX: the call, and what it says of the bound arguments
    (`partial(f)` binds none: its fix named a `k` that was nowhere, "# k passed, not bound")."""
    if not bound:
        return {"call": call, "bound": "", "then": "call that one (this partial binds nothing)",
                "note": ""}
    names = ", ".join(bound)
    return {"call": call, "bound": names, "note": f"    # {names} passed, not bound",
            "then": "pass what the partial bound as arguments (static if it must be)"}


def fresh_jit_change(other_owner: str) -> Change:
    """The "jit in a loop" change: `other_owner` describes the earlier jit object."""
    return _fixed("(jit object)", "fresh_jit", other_owner, "a new jit object")


_PARTIAL_FRESH_FIX = (
    "This is jit(functools.partial({func}, ...)) made anew: every partial is a new function "
    "object, and jit's cache is keyed on the function object, so each one traces and "
    "compiles again. Jit {func} once and {then}.",
    "f_jit = jax.jit({func})    # once\n"
    "out = f_jit({call}){note}")


# the same, written in the learner's lines (partial_at_the_call): the jit of the partial's
# function above the loop, and the call given what the partial bound (JAX 0.10.2 traces the
# pasted program once: pasted_fixes_reference.json's partial_jitted_in_a_loop)
_PARTIAL_AT_CALL_FIX = (
    "This is jit(functools.partial({func}, ...)) made anew (line {made}): every "
    "partial is a new function object, and jit's cache is keyed on the function object, so "
    "each one traces and compiles again. Jit {func} once, above the loop, and {then}, as "
    "below.",
    "{func}_jit = jax.jit({func})    # once, above the loop that runs line {line}{dropped}\n"
    "{call}    # line {line}")


_METHOD_FRESH_FIX = (
    "This is jax.jit(obj.{method}) made anew: every `obj.{method}` is a new bound-method "
    "object, and jit's cache is keyed on the function object, so each jit of it traces "
    "and compiles again. Jit it once and reuse the jitted method.",
    "{method}_jit = jax.jit(obj.{method})    # once, outside the loop\n"
    "for batch in batches:\n"
    "    out = {method}_jit(batch)")


# the same, written in the learner's lines (method_at_the_call): `jax.jit(m.apply)(x)` in a
# loop, m made before it, hoisted (JAX 0.10.2 traces the pasted program once:
# pasted_fixes_reference.json's method_jitted_in_a_loop)
_METHOD_AT_CALL_FIX = (
    "This is jax.jit({obj}.{method}) made anew (line {line}): every `{obj}.{method}` is a new "
    "bound-method object, and jit's cache is keyed on the function object, so each jit of "
    "it traces and compiles again. {obj} is made before the loop: jit its method once, "
    "above the loop, and reuse it, as below.",
    "{method}_jit = jax.jit({obj}.{method})    # once, above the loop that runs line "
    "{line}\n"
    "{call}    # line {line}")


# a new object each pass (`m = Model(k)` in the loop): its method made once would keep the
# first object's fields (a value it reads from self is baked in when traced); no code of the
# learner's class can be written here
_METHOD_NEW_OBJECT_FIX = (
    "This is jax.jit({obj}.{method}) made anew (line {line}), of a new {obj} made in the "
    "loop: every `{obj}.{method}` is a new bound-method object, and jit's cache is keyed on "
    "the function object, so each one traces and compiles again. Jitted once, the method "
    "would keep the first {obj}'s fields (what it reads from self is baked in when it "
    "traces), so there is no line to move: make {obj} once and reuse it, or make what "
    "differs between the objects (a number, an array) an argument of {method}, traced, "
    "and jit that once. No code is written here: it depends on your class.",
    "")


# a class whose __init__ jits its own method (`self.step = jax.jit(self._step)`), made anew in
# a loop: "jit it once" is to make the object once (JAX 0.10.2 lowers
# trainer_made_each_epoch_fixed, one Trainer, once)
_INIT_METHOD_FRESH_FIX = (
    "This is jax.jit(self.{method}) made in {cls}.__init__, and a new {cls} was made: each "
    "{cls} jits its own bound method, a new function object, and jit's cache is keyed on "
    "the function object, so each new {cls} traces and compiles again. Make the {cls} once, "
    "outside the loop, and reuse it; what must differ between calls (a learning rate) "
    "becomes an argument of {method} (traced: one program for all values).",
    "obj = {cls}(...)    # once, outside the loop\n"
    "for batch in batches:\n"
    "    out = obj.{attr}(batch)")


# the same, the object made anew by a cell run again (`model = Model(2.0)` run again, then
# `model.step(x)`), not a loop: JAX 0.10.2 says "never seen function" with "maybe the function
# is being re-defined repeatedly" and lowers again (recompile_cells_cases.py's
# model_cell_run_again_jitting_in_init); "make it once, outside the loop" with a `for` the
# cells have not. The cell that makes it is run once, the cells calling it as often as wished
_INIT_METHOD_CELL_FIX = (
    "This is jax.jit(self.{method}) made in {cls}.__init__, and a new {cls} was made by a "
    "cell ({made}: `{line}`), not a loop: running a cell that makes a {cls} again makes a "
    "new object, which jits its own bound method, a new function object, and jit's cache is "
    "keyed on the function object, so its first call compiles again. Make {name} in a cell "
    "of its own, run once, and call {name}.{attr} from other cells: they reuse its program "
    "however often they run.",
    "{line}    # in a cell of its own, run once\n"
    "# in the cells that call it, run as often as you like:\n"
    "{call}    # {at}")


# jit of a function jitted already, made anew: `f = jax.jit(f)` in a cell run again jits the
# jit the first run bound to f (JAX 0.10.2: "never seen function" with its hint, a lowering;
# `f_jit = jax.jit(f)` run again, none: recompile_cells_cases.py's rebinding_jit_cell_run_*).
# The wrapper's fix said `jax.jit(PjitFunction(f))`, a name no learner has
_JIT_OF_JIT_FIX = (
    "This is a jit of {func} made of a jit of {func} (jax.jit given a function jitted already, "
    "as `{func} = jax.jit({func})` does when its cell runs again: {func} holds the jit the "
    "last run made): jit's cache is keyed on the function object it is given, here a jit "
    "never seen, so it traces and compiles again. Jit the def once under a name of its own "
    "and call that: run again, `{func}_jit = jax.jit({func})` jits the same def and reuses "
    "its program (where {func} holds a jit now, run its def's cell again first).",
    "{func}_jit = jax.jit({func})    # a name of its own: run again, it jits the same def\n"
    "{func}_jit(...)    # your call's arguments")


# jit of a wrapper made anew (jax.grad(loss), jax.checkpoint(loss, policy=p)): the wrapped
# code is the same, the wrapper a new object, and its options may differ (another program)
_WRAPPER_FRESH_FIX = (
    "This is a new jit of {func} through a wrapper made anew ({wrapper}(...) or a decorator, "
    "called again for this jit): jit's cache is keyed on the function object it is given, "
    "so each new wrapper traces and compiles again. Make the jitted function once per set "
    "of options and reuse it; wrappers with other options (another checkpoint policy, "
    "other argnums) are other programs, each compiled once.",
    "{func}_jit = jax.jit({wrapper}({func}))    # once, outside the loop; one per options")


# a notebook cell defining and calling a jitted function, run again (or another cell of the
# same code): its function is a new object, which JAX too has never seen
_CELL_RERUN_FIX = (
    "{now} defined this function anew ({before} defined one of the same code): running a "
    "cell again makes new function objects, and jit's cache is keyed on the function "
    "object, so its first call compiles again. Define and jit it in a cell of its own, run "
    "once, and call it from other cells: they reuse its program however often they run.",
    "{fname} = jax.jit({fun})    # in a cell of its own, run once\n"
    "# in the cells that call it, run as often as you like:\n"
    "out = {fname}(...)    # your call's arguments")


# the same, a jitted lambda bound by a cell's line (`sq = jax.jit(lambda x: x * 2)`, made_once.
# made_by_a_cell): that line as it is, and the call, in the learner's names (the pattern's `f`
# and `lambda ...: ...` were no names of theirs)
_CELL_RERUN_NAMED_FIX = (
    _CELL_RERUN_FIX[0],
    "{line}    # in a cell of its own, run once\n"
    "# in the cells that call it, run as often as you like:\n"
    "{call}    # {at}")


# a def of a module the learner reloaded (importlib.reload runs its file again, making each of
# its functions anew), its code the same: JAX 0.10.2 says "never seen function", with its
# "re-defined repeatedly?" hint where the call site traced one before; the generic fix spoke of
# a lambda or nested def made anew, which the learner did not write
_RELOADED_FIX = (
    "{module}.{func} is a new function object of the same code: reloading {module} "
    "(importlib.reload) runs its file again and makes each of its functions anew, and jit's "
    "cache is keyed on the function object, so {func} traces and compiles again though "
    "nothing in it changed. Reload {module} only after you edit it, not before each call "
    "(nor in a loop), and {jit_once}.",
    "importlib.reload({module})    # only after an edit of {module}, not before each call\n"
    "{jitted}"
    "out = {call}(...)    # every call: your arguments")


# the same, its file edited before the reload (importlib.reload, or IPython's %autoreload,
# which reloads an edited module before the next cell): another code, which JAX has never
# traced either; the old function's program is not the new one's
_RELOADED_EDITED_FIX = (
    "{module}.{func} is a new function: {module} was reloaded after an edit (importlib."
    "reload, or %autoreload), which runs its file again and makes each of its functions "
    "anew, and jit's cache is keyed on the function object, so the edited {func} traces and "
    "compiles at its first call (its later calls reuse that program; a reload before each "
    "call, or in a loop, would compile each time: reload only after an edit, and "
    "{jit_once}). Nothing to fix: a compile per edit is expected.",
    _RELOADED_FIX[1])


def reloaded_module(fun) -> str | None:
    """The name of the module whose file defined `fun` at its top level (or in a class
    there), where that module is not the program's own (`__main__`, a notebook's cells): a
    second function of the same code from it is that file run again, a reload. None for any
    other function.

        >>> import json
        >>> reloaded_module(json.dumps), reloaded_module(lambda: 0)
        ('json', None)
    """
    module = sys.modules.get(getattr(fun, "__module__", None) or "")
    code = getattr(fun, "__code__", None)
    if module is None or code is None or module.__name__ == "__main__" or \
            "<" in getattr(fun, "__qualname__", "<"):       # <lambda>, <locals>
        return None
    file = getattr(module, "__file__", None)
    return module.__name__ if file and os.path.abspath(file) == \
        os.path.abspath(code.co_filename) else None


# a cell run again that jits its def with a decorator: that def, as it is, goes in the cell of
# its own (`name = jax.jit(name)` would jit the jitted function)
_CELL_RERUN_DECORATED_FIX = (
    _CELL_RERUN_FIX[0],
    "{def_line}    # with its decorator and body, in a cell of its own, run once\n"
    "# in the cells that call it, run as often as you like:\n"
    "out = {fname}(...)    # your call's arguments")


_CLOSURE_FRESH_FIX = (
    "This is a new function object of the same code, a closure over {names} made anew (a "
    "factory, or a def inside a loop): jit's cache is keyed on the function object, so "
    "each one traces and compiles again, even when {names} did not change. Pass {names} "
    "as arguments to one jitted function (traced where it is only computed with: one "
    "program for all values; static, in static_argnames, where the code needs a Python "
    "value, a shape or an `if`: one program per value), or keep one jitted function per "
    "value and reuse it.",
    "@jax.jit\n"
    "def f(x, {first}):     # what the closure read, now an argument\n"
    "    ...")


# the same, the closure a def jitted by its decorator inside a factory that the learner's line
# calls (`w = make_step(lr)(w, g)`, or `step = make_step(lr)` just above the call), its values
# numbers or arrays only computed with (traced) or Python values it needs (static): the def
# written once at the top level, what it closed over its parameters, and the call passing what
# the factory was given (JAX 0.10.2 traces the pasted program once, or once per static value:
# pasted_fixes_reference.json's jitted_closure_of_a_factory...)
_FACTORY_AT_CALL_FIX = (
    "This is a new function object of the same code: {outer} makes {fun}, a closure over "
    "{names}, and its jit anew at each call, and jit's cache is keyed on the function "
    "object, so each one traces and compiles again, even when {names} did not change. "
    "{reading}. Define {fun} once, at the top level, with {them}, and pass what {outer} was "
    "given in the call, as below.",
    "{code}\n"
    "{call}    # line {line}{dropped}")


# ... where a value it closes over holds Python functions (Optax's getting started: `fit`'s
# `@jax.jit def step` reads `optimizer`, an optax GradientTransformation): passed traced, JAX
# 0.10.2 raises TypeError ("The problematic value is of type <class 'function'>"); static,
# one jitted step defined once compiles once for every fit with that optimizer
# (library_notes_reference.json's optimizer_traced, optimizer_static); or other objects that
# are no arrays (Optax's gradient_accumulation: an optax.MultiSteps, a plain class, whose
# traced argument JAX refuses with TypeError too, and which hashes: static works,
# library_notes' multisteps_static)
_CLOSURE_FUNCTIONS_FIX = (
    "This is a new function object of the same code, a closure over {names} made anew (a "
    "def inside a function called again, or a factory): jit's cache is keyed on the "
    "function object, so each one traces and compiles again. {held} holds {what} "
    "({kinds}), not arrays: it cannot be a traced argument, and another {held} is another "
    "program anyway. Define {fun} once, outside, with {held} a static argument (hashable: "
    "one program per {held} object, reused by every call given that object).",
    "@functools.partial(jax.jit, static_argnames=('{held}',))    # once, outside\n"
    "def {fun}(..., {held}):     # its arguments, and {held}\n"
    "    ...\n"
    "{fun}(..., {held}={held})    # in each call")


def holding_functions(fun, names) -> list:
    """Those of `names`, free variables of `fun`, whose values hold what jit cannot take
    traced (leaves of their pytrees that are callables, not arrays: an optax
    GradientTransformation, a function; or other objects that are no arrays and no numbers:
    an optax.MultiSteps, a string), in order: each (name, its type's name, what it holds:
    "Python functions" or "Python objects").

        >>> def fit(optimizer, k):
        ...     def step(x):
        ...         return optimizer(x) * k
        ...     return step
        >>> holding_functions(fit(abs, 2), ("optimizer", "k"))
        [('optimizer', 'builtin_function_or_method', 'Python functions')]
    """
    code = getattr(fun, "__code__", None)
    cells = dict(zip(code.co_freevars, fun.__closure__ or ())) if code is not None else {}
    found = []
    for name in names:
        try:
            value = cells[name].cell_contents
        except (KeyError, ValueError):
            continue
        leaves = leaves_within(value)
        if leaves is None:                # a value pytrees cannot read, or too deep to read
            continue
        if any(callable(leaf) and not hasattr(leaf, "shape") for leaf in leaves):
            found.append((name, type(value).__name__, "Python functions"))
        elif any(_no_jax_type(leaf) for leaf in leaves):
            found.append((name, type(value).__name__, "Python objects"))
    return found


def _no_jax_type(leaf) -> bool:
    """Whether a leaf is neither an array nor a number, so no traced argument (a class's
    instance, a string): JAX's "is not a valid JAX type"."""
    return not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")) and \
        not isinstance(leaf, (bool, int, float, complex, np.generic))


# a lambda or def made anew with defaults bound at each making (`lambda x, k=k: x * k` in a
# loop over k): "make it once" alone would keep the first k; k becomes an argument (JAX
# 0.10.2 lowers lambda_default_in_a_loop_fixed, k passed each call, once)
_DEFAULTS_FRESH_FIX = (
    "This is a new function object of the same code, made with its own default values "
    "({names}: bound when it was made, as `lambda x, k=k: ...` in a loop does): jit's cache "
    "is keyed on the function object, so each one traces and compiles again. Jit one "
    "function, once, and pass {names} in each call (traced: one program for all values).",
    "f = jax.jit(lambda x, {first}: ...)    # once, outside the loop: no default\n"
    "out = f(x, {first})    # {first} passed in each call")


# jax.jit(Model(k)) of a new callable object each time: jit's cache is keyed on the object.
# One jitted function taking the model as a pytree argument is one program for every model
# of the same structure (JAX 0.10.2 lowers callable_object_jitted_anew_fixed once)
_INSTANCE_FRESH_FIX = (
    "This is jax.jit of a new {kind} object ({kind} has a __call__): jit's cache is keyed "
    "on the callable it is given, so each new {kind} traces and compiles again, however "
    "alike. Register {kind} as a pytree (its numbers and arrays the leaves) and jit, once, a "
    "function that takes the model as an argument: one program for every {kind} of the "
    "same structure.",
    "{register}\n"
    "apply = jax.jit(lambda model, x: model(x))    # once, outside the loop\n"
    "out = apply({kind}(...), x)")


# the same, the jit of the object made by a cell run again (`scale = jax.jit(Scale(2.0))`),
# not a loop: the jit made in a cell run once (JAX 0.10.2: "maybe the function is being
# re-defined repeatedly", callable_object_jitted_in_a_cell_run_again)
_INSTANCE_CELL_FIX = (
    "This is jax.jit of a new {kind} object ({kind} has a __call__), made by a cell ({made}: "
    "`{line}`), not a loop: running that cell again makes a new {kind} and a new jit of it, "
    "and jit's cache is keyed on the callable it is given, so its first call compiles again, "
    "however alike. Make {name} in a cell of its own, run once, and call it from other cells: "
    "they reuse its program however often they run.",
    _CELL_RERUN_NAMED_FIX[1])


# a lambda jitted on a line of the learner's that a loop runs again (`step = jax.jit(lambda v:
# v * 2)`): that line, as it is, moved above the loop. Only where the lambda reads nothing
# that could change between passes (modules, functions, classes): one reading the loop's
# variable would keep its first value (learner5_lambda_made_once_reads_i)
_HOIST_FIX = (
    "This is a new jit(...) of the same code in a new function object: line {line} makes "
    "the lambda and its jit anew at every pass, and jit's cache is keyed on the function "
    "object, so every pass compiles. The lambda reads nothing that changes between passes: "
    "move that line, as it is, above the loop (one jit object, one program).",
    "{code}    # line {line}: moved above the loop, unchanged")


# a jit made and called on one line (`return jax.jit(lambda v: g(v) + 1)(x)`,
# `g = jax.jit(jax.grad(loss))(w)`), in a function called again or a loop: the jit made once,
# outside, and called at that line (JAX 0.10.2 traces the pasted program once:
# pasted_fixes_reference.json's jit_of_a_lambda_called_in_a_function, ...)
_HOIST_CALL_FIX = (
    "This is a new jit(...) of the same code in a new function object: line {line} makes "
    "{what} and its jit anew each time it runs ({runs}), and jit's cache is keyed on "
    "the function object, so every time compiles. It reads nothing that changes between "
    "runs: jit it once, {where}, and call that at line {line}, as below.",
    "{jitted} = jax.jit({code})    # once, {where}\n"
    "{call}    # line {line}")


# a jit made and called in the statement %timeit times (`%timeit jax.jit(lambda v: v + 1)(x)`):
# every run compiles and is timed with its compile; the jit made once before the magic, its
# call timed (JAX 0.10.2 compiles nothing in the timed runs then:
# timeit_compiles_reference.json's jitted_once_before)
_TIMEIT_HOIST_FIX = (
    "This is a new jit(...) of the same code in a new function object: the statement %timeit "
    "times makes the lambda and its jit anew at every run, and jit's cache is keyed on the "
    "function object, so every run compiles and the time counts compiling. The lambda reads "
    "nothing that changes between runs: jit it once before %timeit and time the call of "
    "that, as below.",
    "lambda_jit = jax.jit({code})    # once, before %timeit\n"
    "%timeit {options}{call}")


# a wrapper's jit made on its own line in a loop (`g = jax.jit(jax.grad(loss))`) and called
# on the next: that line, as it is, moved above the loop
_HOIST_WRAPPER_FIX = (
    "This is a new jit of {func} through a wrapper made anew ({wrapper}(...)): line {made} "
    "makes it at every pass, and jit's cache is keyed on the function object it is given, "
    "so every pass compiles. It reads nothing that changes between passes: move that line, "
    "as it is, above the loop (one jit object, one program).",
    "{code}    # line {made}: moved above the loop, unchanged")


# a def jitted by its decorator inside a function called again (`def step(x): @jax.jit def
# inner(v): ...`): each call makes it anew; it reads nothing of step's (no free variables),
# so it moves, as it is, out of step (JAX 0.10.2 traces the pasted program once:
# pasted_fixes_reference.json's jitted_def_inside_a_function)
_NESTED_DEF_FIX = (
    "This is a new jit(...) of the same code in a new function object: {name} is defined, "
    "and jitted by its decorator, inside {outer} (lines {first}-{last}), so each call of "
    "{outer} makes it anew, and jit's cache is keyed on the function object: every call "
    "compiles. {name} reads nothing of {outer}'s: move its def, as it is, out of {outer}, "
    "above `{outer_head}` (one jit object, one program).",
    "{code}")


# the same, written in the learner's lines (defaults_at_the_call): the lambda without its
# defaults jitted once above the loop, and the call given them (JAX 0.10.2 traces the pasted
# program once: pasted_fixes_reference.json's lambda_with_a_default_jitted_in_a_loop)
_DEFAULTS_AT_CALL_FIX = (
    "This is a new function object of the same code, made with its own default values "
    "({names}: bound when it was made, line {made}): jit's cache is keyed on the function "
    "object, so each one traces and compiles again. Jit the lambda once, above the loop, "
    "without the defaults, and pass {names} in the call (traced: one program for all "
    "values), as below.",
    "{jitted}    # once, above the loop that runs line {line}{dropped}\n"
    "{call}    # line {line}")


# the same, written in the learner's lines (made_in_the_loop): the line making the object,
# reading nothing that changes, moved above the loop (JAX 0.10.2 traces the pasted program
# once: pasted_fixes_reference.json's object_jitting_its_method_made_in_a_loop)
_INIT_METHOD_MOVED_FIX = (
    "This is jax.jit(self.{method}) made in {cls}.__init__, and a new {cls} was made (line "
    "{made}): each {cls} jits its own bound method, a new function object, and jit's cache "
    "is keyed on the function object, so each new {cls} traces and compiles again. Line "
    "{made} reads nothing that changes between passes: move it, as it is, above the loop "
    "(one {cls}, one program); what must differ between passes (a learning rate) would "
    "instead become an argument of {method}.",
    "{code}    # line {made}: moved above the loop, unchanged")
