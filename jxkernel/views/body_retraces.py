"""Why a control-flow body was traced again: a scan, while_loop or fori_loop body, a cond or
switch branch is traced once per input types and reused (lax/_cf_bodies.trace_fun), as JAX's
trace_to_jaxpr cache keeps it by the function object; a miss of that cache is told as a
retrace event (nothing compiles of its own: it is part of the loop's program), explained
against the same function's earlier traces, with each change's fix written for the loop's
own arguments (`init`, `xs`, `init_val`, ...).

For example, a scan body given a carry of another dtype on a later call (`init` 0.0, then 0)
is traced again, and its event says "c: f32[] (weak) -> i32[] (weak)", with a fix for init.

compile_record.body_traced calls `body_traced` (through recompile_explainer, the installed
explainer); the function's lineage and names are traced_functions.py's.
"""
from __future__ import annotations

import ast
import collections
import dataclasses
import inspect
import linecache
import re
import textwrap
import weakref

from ..core import compile_record as _record
from ..core.compile_record import CompileEvent, record, signature_text
from ..core.config import _TRACE_OPTIONS, config
from ..core.lru import LRU, cleared_with_caches
from ..core.partial_eval import PartialEvalTrace
from ..core.staging import JaxprTrace
from ..core.source_info import SourceInfo, is_user_filename, user_source_info
from ..core.trace import _ctx
from ..transforms.api_util import body_arg_names
from ..transforms.jit.refs import HostReads
from ..xla import client as _client
from ..xla.compiler import Phases
from . import outside_values
from .outside_values import reads_from_outside
from .signature_changes.change import Change, Signature
from .signature_changes.compare import explain_changes
from .source_edits import replaced
from .signature_changes.nearest import change_distance, jax_order
from .traced_functions import (_MAX_LINEAGES, _PER_FUNCTION, _lineage, _lineage_in,
                               _named_signature, _user_contexts, _user_function, _weak,
                               jax_tree_lines, miss_site)


# ------------------------------------------------------------------ control-flow bodies
# A scan, while_loop or fori_loop body, a cond or switch branch, is traced once per input types
# and reused (lax/_cf_bodies.trace_fun), as JAX's trace_to_jaxpr cache keeps it by the function
# object; a miss of that cache is told here as a retrace (nothing compiles of its own: it is
# part of the loop's program), explained against the same function's earlier traces, as JAX's
# jax_explain_cache_misses explains it: the tracing context, then the pytree, then what it was
# traced for (JAX's "Debug info doesn't match"), then the input types, the first that differ
# from the closest earlier trace.
_BODY_API = {"scan body": "lax.scan", "cond branch": "lax.cond", "switch branch": "lax.switch",
             "while_loop body": "lax.while_loop", "while_loop cond": "lax.while_loop",
             # (a body's trace is told for these, JAX's names: lax/_cf_bodies.py)
             "scan": "lax.scan", "cond": "lax.cond", "switch": "lax.switch",
             "while_body": "lax.while_loop", "while_cond": "lax.while_loop",
             "fori_loop": "lax.fori_loop"}
# what the user passes that a body's inputs come from, per API and the body's parameter (for
# the fixes' code): scan's carry is init, its x a slice of xs; fori_loop's i comes from lower
# (and upper), its carry from init_val
_BODY_INPUT = {"lax.scan": ("init", "xs"), "lax.fori_loop": ("lower", "init_val"),
               "lax.while_loop": ("init_val",), "lax.cond": ("operand",),
               "lax.switch": ("operand",)}


def _input_index(user, path) -> int:
    """Which of the body's parameters its input at `path` is (`c[0]` of `body(c, x)`: 0)."""
    try:
        params = [p.name for p in inspect.signature(user).parameters.values()]
    except (TypeError, ValueError):
        params = []
    root = re.match(r"[^\[.]*", path).group(0)
    return params.index(root) if root in params else 0


def _body_input(user, api, path) -> str:
    """The argument of `api` that the body's input at `path` comes from."""
    given = _BODY_INPUT.get(api, ("the operands",))
    return given[min(_input_index(user, path), len(given) - 1)]


# fun -> [(what, sig)], and code key -> deque: emptied by jax.clear_caches() (core/lru), as
# JAX's clear_caches forgets the bodies' traces (a body traced after it is "never seen")
_BODY_SEEN: weakref.WeakKeyDictionary = cleared_with_caches(weakref.WeakKeyDictionary())
_BODY_LINEAGES = LRU(_MAX_LINEAGES)
# a body's code -> weak references to the traces of the functions running the loop when its
# function objects were traced (None: run eagerly): a new object of that code made by a
# retrace of the function running it is not the learner's doing, one made again within one
# trace (a Python loop in it) is
_BODY_OUTER: weakref.WeakKeyDictionary = cleared_with_caches(weakref.WeakKeyDictionary())


_BODY_CONFIG: list = [None, ()]      # [config._trace_state it was made from, the config]


def _body_config() -> tuple:
    """What a body's trace is keyed on besides its inputs: the tracing options (x64 among
    them) and the jax.make_user_context values, as jit's; made again only when they change
    (config._trace_state is a new tuple then)."""
    state = config._trace_state
    if _BODY_CONFIG[0] is not state:
        _BODY_CONFIG[:] = [state, tuple((name, getattr(config, name))
                                        for name in _TRACE_OPTIONS) + _user_contexts()]
    return _BODY_CONFIG[1]


_BODY_TEXTS: dict = {}       # named avals -> their signature as written (a body's repeat)


def _body_signature(named) -> tuple:
    found = _BODY_TEXTS.get(named)
    if found is None:
        if len(_BODY_TEXTS) > 4096:
            _BODY_TEXTS.clear()
        found = _BODY_TEXTS[named] = _named_signature(named, ())
    return found


def _body_severity(old_what, old: Signature, what, new: Signature) -> int:
    """JAX's order of what to name (diff_tracing_cache_keys): the tracing context (0), the
    pytree (1), what it was traced for (2), the types (3); 4: the same key (its trace was not
    kept: it closed over an enclosing trace's values)."""
    if old.config != new.config:
        return 0
    if old.treedef != new.treedef:
        return 1
    if old_what != what:
        return 2
    return 3 if old.named != new.named else 4


def _body_lineage(user) -> collections.deque:
    return _lineage_in(_BODY_LINEAGES, user)


def body_traced(fun, in_tree, in_avals, what: str, source, promoted: tuple = (),
                closed=None, host_reads=None) -> None:
    """Log the trace of control-flow body `fun` (a miss of its trace cache), where the
    function is the user's: a retrace event inside the loop or the traced function running
    it, with why (compile_record.body_traced). `promoted`: in the loop's own retrace with weak
    carries promoted, not a call given other types, the carry's types the body returned
    before. `closed`, its trace, and `host_reads` tell what the trace holds of what it read
    from outside."""
    user, api, namer = getattr(fun, "_jx_traced_as", (fun, _BODY_API.get(what, what), None))
    if source is None or not is_user_filename(source.file):
        # jxkernel's own bodies (lax.map's), or a registered library's: not the user's (JAX
        # explains no miss of a function outside the user's files)
        return
    named = tuple(zip(body_arg_names(user, in_tree, namer), in_avals))
    new = Signature(named, in_tree, (), _body_config())
    try:
        seen = _BODY_SEEN.setdefault(fun, [])
    except TypeError:                   # not weakly referable: no history
        seen = []
    # a promotion that still leaves a carry other than the body returns (weak f32 promoted
    # to f32 where the body returns i32): the loop raises next, as JAX's does
    unmatched = {name: out.str_short(True) for (name, a), out in zip(named, promoted)
                 if out.dtype != a.dtype}
    changes, old = _body_changes(fun, user, api, what, new, seen, bool(promoted), unmatched)
    if seen and not changes:
        reason = ("traced again: its earlier trace for these inputs closed over values of an "
                  "enclosing trace, so it was not kept")
    elif changes and changes[0].kind != "fresh_body":
        reason = "; ".join(map(str, changes))
    else:
        reason = "first call"
    site, same_site = None, False
    if reason == "first call" and _record.logged():
        # as a jit's (recompile_explainer.compiled): JAX says a body is re-defined only at a
        # call site that traced another function before
        site = user_source_info()
        same_site = site is not None and _record.seen_miss_site(miss_site(site))
        if not same_site:
            changes = tuple(c for c in changes if c.kind != "fresh_body")
    seen.append((what, new))
    del seen[:-_PER_FUNCTION]
    code = getattr(user, "__code__", None)
    if code is not None:
        outers = _BODY_OUTER.setdefault(code, [])
        outers.append(_outer_trace_ref())
        del outers[:-_PER_FUNCTION]
    lineage = _body_lineage(user)
    if not any(w == what and sig == new for _, w, sig in lineage):   # a few, each once
        lineage.append((_weak(fun), what, new))
    name = getattr(user, "__name__", type(user).__name__)
    event = CompileEvent(name, f"{source.file}:{source.line}", _body_signature(named),
                         reason, Phases(), _client.platform_of(_client.default_device()),
                         key=fun, changes=changes, origin=_record.USER,
                         inlined_into=_body_inside(api), call_site=site, same_site=same_site,
                         jax_lines=jax_tree_lines(old.treedef, new.treedef, args_only=True)
                         if changes and changes[0].kind == "structure" and old is not None
                         else ())
    record(event)
    # what it read from outside, and what its trace holds of it (its constants and literals,
    # as a jit's: a global only printed is in none)
    reads = None
    if closed is not None and host_reads is not None:
        reads = HostReads(host_reads)
        reads.program = weakref.ref(closed)
    outside_values.traced(_user_function(user), event,
                          None if closed is None else closed.consts, reads)


def _body_changes(fun, user, api, what, new, seen, promoted=False, unmatched=None) -> tuple:
    """(changes, the closest earlier Signature or None): what differs from the closest
    earlier trace of `fun` (JAX's order), or for a function never traced: a trace of it for
    jit (JAX's "Debug info doesn't match"), or another function object of the same code
    traced before (a lambda made anew)."""
    if seen:
        # JAX's order (signature_changes/nearest.py's jax_order): the first of equals by its text
        def rank(e):                        # (equal: the latest)
            changes = explain_changes(e[1], new)        # once for both orders
            return (_body_severity(e[0], e[1], what, new), *jax_order(e[1], new, changes)[1:],
                    change_distance(e[1], new, changes))
        old_what, old = min(reversed(seen), key=rank)
        severity = _body_severity(old_what, old, what, new)
        if severity == 2:
            return (_traced_for_change(user, api, old_what, what),), old
        if severity == 4:
            return (), old
        kinds = {0: ("config",), 1: ("structure",), 3: ("shape", "dtype", "weak_type")}
        found = tuple(_body_fixed(c, user, api, promoted, unmatched)
                      for c in explain_changes(old, new)
                      if c.kind in kinds[severity])
        if not found and severity == 1:
            found = (Change("(inputs)", "structure", str(old.treedef), str(new.treedef),
                            _BODY_STRUCTURE_FIX.format(fun=_fname(user), api=api,
                                                       path="(inputs)"), ""),)
        return found, old
    if getattr(fun, "_jx_traced_as", None) is None and \
            any(ref() is user for ref, *_ in tuple(_lineage(user))):
        return (_traced_for_change(user, api, "jit", what),), None
    others = [(w, sig) for ref, w, sig in tuple(_body_lineage(user)) if ref() is not fun]
    if not others:
        return (), None
    outer = _outer_trace_ref()
    code = getattr(user, "__code__", None)
    if outer is not None and code is not None and outer not in _BODY_OUTER.get(code, ()):
        # made anew because the function running it is traced again (a lambda written in a
        # jitted function retraced for a new shape): nothing the learner did; one object
        # made outside would be traced again for the new trace too
        return (), None
    return (_fresh_body_change(user, api, what, new, others),), None


def _fname(user) -> str:
    return getattr(user, "__name__", type(user).__name__)


def _body_fixed(change: Change, user, api, promoted: bool = False,
                unmatched: dict | None = None) -> Change:
    """`change` with a body's fix: the types a body sees come from what is passed to the
    loop or cond, so the fix is there (a jit's pad-the-argument code would not apply). A
    promoted carry's fix starts the loop from the type the body returns: casting it back
    to the start's dtype would make the carry's types differ, which JAX refuses. `unmatched`:
    the carry paths whose promoted type the body still does not return ("c": "i32[]"), told
    as the error to come, with no code."""
    if change.kind == "config":
        return change
    given = _body_input(user, api, change.path)
    returned = (unmatched or {}).get(change.path)
    promoted = promoted and change.kind in ("dtype", "weak_type")
    if promoted and returned is not None:
        return Change(change.path, change.kind, change.old, change.new,
                      _PROMOTED_UNMATCHED_FIX.format(
                          path=change.path, old=change.old, new=change.new, api=api,
                          fun=_fname(user), returned=returned), "")
    fill = dict(fun=_fname(user), api=api, path=change.path, old=change.old,
                new=change.new, given=given,
                dtype=(change.new if promoted else change.old).split("[")[0])
    dtype = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
             "i32": "int32", "i64": "int64", "bool": "bool_"}.get(fill["dtype"], "float32")
    if change.kind == "weak_type":
        dtype = {"f": "float32", "i": "int32"}.get(change.new[:1], dtype)
    fill["dtype"] = dtype
    fix, snippet = _PROMOTED_FIX if promoted else _BODY_FIXES[change.kind]
    fix = fix.format(**fill)
    if snippet:
        # the fix is code written on the learner's own call line: a variable it names is one
        # the line passes (a name the line lacks fails with NameError when pasted)
        # (a weak type's line is fixed where a Python number is written on it: a line
        # passing an array already passes the strong kind)
        written = _call_line_fix(user_source_info(), api, _body_position(user, api, change.path),
                                 change.path, dtype, numbers_only=change.kind == "weak_type",
                                 weak=not promoted and change.kind == "dtype" and
                                 change.old.endswith("(weak)"))
        if written is None:
            fix += f" Pass the {api} jnp.asarray(..., jnp.{dtype}) as {given}."
            snippet = ""
        else:
            snippet = f"{written}    # {snippet.split('#', 1)[1].strip().format(**fill)}"
    return dataclasses.replace(change, fix=fix, snippet=snippet)


# where a body's input comes from in the call: (position, keyword) of the argument, by API and
# the body parameter's index (cond's and switch's operands follow the branches)
_CALL_ARGUMENT = {"lax.scan": ((1, "init"), (2, "xs")),
                  "lax.fori_loop": ((0, "lower"), (3, "init_val")),
                  "lax.while_loop": ((2, "init_val"),)}


def _body_position(user, api, path) -> tuple:
    """(position, keyword or None) in the call to `api` of the argument the body's input at
    `path` comes from."""
    index = _input_index(user, path)
    if api in _CALL_ARGUMENT:
        given = _CALL_ARGUMENT[api]
        return given[min(index, len(given) - 1)]
    return ({"lax.cond": 3, "lax.switch": 2}.get(api, 0) + index, None)


def _call_line_fix(site, api, position, path, dtype, numbers_only=False,
                   weak=False) -> str | None:
    """The learner's call of `api` at `site` with the argument at `position` cast to `dtype`:
    a number written on the line is wrapped where it is (`lax.scan(f, 0, xs)` ->
    `lax.scan(f, jnp.asarray(0, jnp.float32), xs)`), a variable cast before the call
    (`init = jnp.asarray(init, jnp.float32)`), another expression wrapped in place; None
    where the line cannot be read or holds no such call (or, `numbers_only`, passes no
    number written there). `weak`: the earlier trace was of a Python number (weakly typed), so
    the line passes one of that kind (`2` -> `2.0`, `k` -> `k = float(k)`): an array of the
    dtype is strong, and JAX traces it again (recorded: cond_operand_float_then_int_fixed).

        >>> linecache.cache["<ex>"] = (1, None, ["c, ys = lax.scan(f, 0, xs)\\n"], "<ex>")
        >>> _call_line_fix(SourceInfo("<ex>", 1, "g"), "lax.scan", (1, "init"), "c", "float32")
        'c, ys = lax.scan(f, jnp.asarray(0, jnp.float32), xs)'
    """
    if site is None or path != re.match(r"[^\[.]*", path).group(0):
        return None         # a leaf inside a container: no one argument to wrap
    lines = linecache.getlines(site.file)
    name = api.rsplit(".", 1)[-1]
    for end in range(site.line, min(site.line + 8, len(lines)) + 1):
        text = textwrap.dedent("".join(lines[site.line - 1:end]))
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
                 getattr(n.func, "attr", getattr(n.func, "id", None)) == name]
        if not calls:
            return None
        call = calls[0]
        index, keyword = position
        arg = next((k.value for k in call.keywords if k.arg == keyword), None) if keyword \
            else None
        if arg is None and index < len(call.args) and not any(
                isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            arg = call.args[index]
        number = isinstance(arg, ast.Constant) or isinstance(arg, ast.UnaryOp) and \
            isinstance(arg.operand, ast.Constant)
        if arg is None or numbers_only and not (number or isinstance(arg, ast.Name)):
            return None
        source = ast.get_source_segment(text, arg)
        kind = {"f": "float", "i": "int", "u": "int", "b": "bool"}.get(dtype[:1], "float")
        if isinstance(arg, ast.Name):
            return f"{arg.id} = {kind}({arg.id})" if weak else \
                f"{arg.id} = jnp.asarray({arg.id}, jnp.{dtype})"
        if not weak:
            written = f"jnp.asarray({source}, jnp.{dtype})"
        elif isinstance(arg, ast.Constant) and isinstance(arg.value, (int, float)):
            written = repr({"float": float, "int": int, "bool": bool}[kind](arg.value))
        else:
            written = f"{kind}({source})"
        return replaced(text, [(arg, written)]).rstrip()
    return None


_BODY_FIXES = {
    "shape": ("{fun} is traced once per input types and then reused: {path} has a new shape, "
              "so it is traced again (and the {api} runs as a new program). Expected when "
              "the data changes shape; to trace it once, give the {api} the same shapes "
              "every time (pad to a few fixed sizes).", ""),
    "dtype": ("{path} came as {new} (before: {old}): the {api} was given another dtype, so "
              "{fun} is traced again. Cast what you pass to the {api} ({given}) to one dtype.",
              "{given} = jnp.asarray({given}, jnp.{dtype})    # what you pass to {api}"),
    "weak_type": ("A Python scalar is weakly typed and an array is not, so {path} flipping "
                  "between them traces {fun} again. Pass the {api} the same kind every time "
                  "(weak types: https://docs.jax.dev/en/latest/type_promotion.html#weak-types).",
                  "{given} = jnp.asarray({given}, jnp.{dtype})    # always a (strong) array"),
    "structure": ("The pytree structure of what {fun} is given changed ({path}: {old} -> "
                  "{new}), and every structure traces anew. Give the {api} the same keys and "
                  "fields every time (zeros instead of a missing entry).", ""),
}
# JAX's rule (lax's _promote_weak_typed_inputs): a weakly typed carry whose body returns
# another dtype is promoted and the body traced again, in the same call
# (said of the loop's body: a while_loop's cond, traced again with it, returns a bool)
_PROMOTED_FIX = (
    "{path} started as {old} (a Python number: weakly typed) and the loop's body returns "
    "{new} for it: the {api} promoted the start to {new} and traced {fun} again, in this one "
    "call (as JAX does; the result is the same). To trace it once, start from the type the "
    "body returns.",
    "{given} = jnp.asarray({given}, jnp.{dtype})    # the type the body returns")
# ... where the promoted type is still not the one the body returns (a weak f32 start, an
# i32 carry out: f32, the type both can take): JAX 0.10.2 traces the body again, then raises
# that the carry's types differ; that error's card says what to change, so no code here
_PROMOTED_UNMATCHED_FIX = (
    "{path} started as {old} (a Python number: weakly typed) and the loop's body returns "
    "{returned} for it: the {api} promoted the start to {new}, the type both can take, and "
    "traced {fun} again, as JAX does. {fun} still returns {returned} for it, so the {api} "
    "raises that the carry's types differ: change what {fun} returns, or start {path} as "
    "{returned} (the error says how).")
_BODY_STRUCTURE_FIX = _BODY_FIXES["structure"][0].replace("({path}: {old} -> {new})",
                                                          "({path})")


def _traced_for_change(user, api, old, new) -> Change:
    fix = (f"{_fname(user)} was traced for {old} before and now as a {new} ({api}): as in "
           f"JAX, a function's trace is kept per use, so each use traces it once. Nothing to "
           f"fix: later calls of each reuse their trace.")
    return Change("(traced for)", "traced_for", old, new, fix, "")


def _fresh_body_change(user, api, what, new, others) -> Change:
    """A new function object of the same code as a body traced before (a lambda or a def made
    anew each time its line runs). The fix is a claim tested here: one function object would
    have reused an earlier trace only where one was for the same inputs."""
    name = _fname(user)
    free = reads_from_outside(_user_function(user))
    same = any(w == what and sig == new for w, sig in others)
    head = (f"This is a new function object of the same code as one {api} traced before (a "
            f"lambda or def made anew each time its line runs): {api} keeps a body's trace by "
            f"the function object, so each new one is traced again.")
    # a function it closes over (Custom derivative rules' fixed_point: body_fun calls f) can
    # go in no carry: "taking a, f as an input (in the carry)" could not work
    calls = tuple(n for n in free if _holds_function(_user_function(user), n))
    free = tuple(n for n in free if n not in calls)
    if not same:
        # (a closure's fix would not help: one object is traced again for new inputs too)
        _, sig = others[-1]
        differs = explain_changes(sig, new)
        told = ", ".join(map(str, differs[:2])) or "its inputs"
        fix = (f"{head} Its inputs differ from the earlier traces' too ({told}), so one "
               f"function object would be traced again here as well: nothing to fix for this "
               f"trace (defining it once saves the traces whose inputs repeat).")
        snippet = ""
    elif calls:
        names = ", ".join(calls)
        data = (f" Its {', '.join(free)} could go in as an input (in the carry: traced), but "
                f"not {names}." if free else "")
        fix = (f"{head} It calls {names}, a function from outside: no carry holds a "
               f"function, so a body closing over one is traced again for each new body "
               f"object, as in JAX.{data} To trace it once, make {names} once and the body "
               f"once for it, outside the function being traced; where {names} is made anew "
               f"for each call (a lambda or partial inside the caller), each call traces "
               f"again.")
        snippet = ""
    elif free:
        names = ", ".join(free)
        where_input = "an operand" if api in ("lax.cond", "lax.switch") else "in the carry"
        fix = (f"{head} It reads {names} from outside (a closure or a global): one function "
               f"object would keep the value {names} had when first traced, and reuse that "
               f"trace after {names} changes. Make it once, taking {names} as an "
               f"input ({where_input}: traced, one trace for all values).")
        snippet = _taking_it(name if name.isidentifier() else "body", api, free[0])
    else:
        fix = (f"{head} Define it once (outside the loop, or outside the function being "
               f"traced) and pass the same object: its trace for these inputs is reused.")
        snippet = (f"def {name if name.isidentifier() else 'body'}(...):    # once, then "
                   f"pass the same function to {api}")
    _, last = others[-1]
    was = signature_text(_body_signature(last.named))
    return Change("(function object)", "fresh_body", f"{name} traced for ({was})",
                  "a new function object", fix, snippet)


# how each loop calls its function (a while_loop's cond and body take the carry alone: a
# second parameter, pasted, was a TypeError): a value read from outside goes in the carry
_LOOP_PARAMETERS = {"lax.while_loop": "carry", "lax.fori_loop": "i, carry", "lax.scan": "carry, x"}


def _taking_it(name: str, api: str, value: str) -> str:
    """The pattern of a function made once taking `value` in, as `api` calls it: in the carry
    of a loop, as one more operand of a branch (lax.cond passes each operand)."""
    if api in _LOOP_PARAMETERS:
        return (f"def {name}({_LOOP_PARAMETERS[api]}):    # once, outside the loop: {value} "
                f"in the carry (..., {value} = carry), not closed over")
    return f"def {name}(..., {value}):    # once, outside: {value} passed in, not closed over"


def _holds_function(fun, name) -> bool:
    """Whether the closure variable `name` of `fun` holds a function (a callable that is no
    array and no number), which no carry can hold."""
    code = getattr(fun, "__code__", None)
    if code is None or name not in code.co_freevars:
        return False
    try:
        value = (fun.__closure__ or ())[code.co_freevars.index(name)].cell_contents
    except ValueError:                  # an empty cell
        return False
    return callable(value) and not hasattr(value, "shape")


def _outer_trace():
    """The trace of the function running the loop or cond now (a jit's, a body's), or None
    run eagerly."""
    trace = _ctx.trace
    while trace is not None:
        if isinstance(trace, JaxprTrace) and not isinstance(trace, PartialEvalTrace):
            return trace
        trace = trace.parent
    return None


def _outer_trace_ref():
    """A weak reference to _outer_trace() (equal for one trace; dead once it is), or None."""
    trace = _outer_trace()
    return None if trace is None else weakref.ref(trace)


def _body_inside(api) -> str:
    """What the body's trace is part of: the traced function running the loop ("jit(f)", a
    body "lax.scan(outer)"), or, run eagerly, the loop itself ("lax.scan")."""
    trace = _ctx.trace
    while trace is not None:
        if isinstance(trace, JaxprTrace) and not isinstance(trace, PartialEvalTrace):
            info = trace.debug_info
            if info is None:
                return api
            return f"{_BODY_API.get(info.transformation, info.transformation)}({info.fun_name})"
        trace = trace.parent
    return api
