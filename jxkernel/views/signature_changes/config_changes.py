"""What differs in the configuration a program was compiled under (kind "config"): x64, the
device, a trace option (`with jax.default_matmul_precision(...)`), a jax.make_user_context
context, a jit option; with the fix for each.
"""
from __future__ import annotations

import enum
import re
import sys

from .change import Change
from .fixes import PATTERN_SAID, _fixed, _refixed


def _config_changes(old, new):
    """The options whose value differs, each with its kind's fix (x64, the default device, a
    trace option, a user context, a jit option); then a user context made since, once."""
    before = dict(old.config)
    changed = {name for name, value in new.config if name in before and before[name] != value}
    if "donate_argnums" in changed:           # its names follow from its numbers: one change
        changed.discard("donate_argnames")
    if "jax_default_device" in changed:       # the option's change names the device's (as JAX)
        changed.discard("device")
    if "device" in changed:     # its fix puts every call's inputs on one device, committed
        changed.discard(COMMITTED)
    for name, value in new.config:
        if name == COMMITTED and name in changed:
            yield from _committed_changes(before, dict(new.config))
        elif name in changed:
            change = _fixed(name, "config", before[name], value)
            if name == CONTEXT_MESH and "None" not in (value, before[name]):
                change = _refixed(change, _MESH_CHANGED_FIX)     # one mesh, then another
            elif name == CONTEXT_MESH:
                change = _refixed(change, _CONTEXT_MESH_FIX, where=_MESH_SET if value != "None"
                                  else _NO_MESH, was=_NO_MESH if value != "None" else _MESH_SET)
            elif name == "jax_default_device":
                change = _refixed(change, _DEFAULT_DEVICE_FIX, new_code=_device_code(value))
            elif name.startswith("jax_") and name != "jax_enable_x64":   # a trace option
                change = _refixed(change, _TRACE_OPTION_FIX, new_repr=_value_code(value),
                                  set_by=_option_setters(name), old=_value_text(before[name]),
                                  new=_value_text(value))
            elif _USER_CONTEXT.search(name):      # jax.make_user_context's
                change = _user_context_change(name, before[name], value)
            yield change
    # a context made since the old signature: every jit's key has one value more (JAX:
    # "number of tracing context values differs")
    # (the dict lookup first: a regex search for every option of every signature compared
    # was 0.5 s of test_recompile_corpus.py's 117 s in a profile)
    made = [name for name, _ in new.config if name not in before and
            _USER_CONTEXT.search(name)]
    if made and old.config:
        count = sum(bool(_USER_CONTEXT.search(name)) for name, _ in new.config)
        context = _context_name(made[-1])
        change = Change(USER_CONTEXTS, "config", str(count - len(made)), str(count))
        yield _refixed(change, _NEW_CONTEXT_FIX, context=context,
                       value=repr(dict(new.config)[made[-1]]))


def _committed_changes(before: dict, after: dict):
    """Per argument committed to the device on one side only (kind "committed"), with its
    fix: JAX's compile cache keys each argument's sharding ("Argument mapping" in its
    "Compiling jit(f)" line: SingleDeviceSharding(...) for a committed Array, UnspecifiedValue
    for one it made on the default device), so the same trace compiled again."""
    was, now = set(before[COMMITTED]), set(after[COMMITTED])
    for path in [p for p in after[COMMITTED] if p not in was] + \
            [p for p in before[COMMITTED] if p not in now]:
        old = f"committed to {before['device']}" if path in was else "uncommitted"
        new = f"committed to {after['device']}" if path in now else "uncommitted"
        device = after["device"] if path in now else before["device"]
        yield _refixed(Change(path, "committed", old, new), COMMITTED_FIX,
                       device=device, index=device.rpartition(":")[2])


def _value_text(value) -> str:
    """An option's value as a learner sets it: an enum's by its name, as config.update takes
    it (JAX's line names jax_explicit_x64_dtypes's ALLOW as its number, 3).

        >>> from jxkernel.core.config import ExplicitX64Mode
        >>> _value_text(ExplicitX64Mode.ALLOW), _value_text(None)
        ('allow', 'None')
    """
    return value.name.lower() if isinstance(value, enum.Enum) else str(value)


def _value_code(value) -> str:
    """An option's value as code for config.update: a string (an enum's name) quoted."""
    if isinstance(value, (str, enum.Enum)):
        return f'"{_value_text(value)}"'
    return repr(value)


def _device_code(value) -> str:
    """jax_default_device's value as code: a Device as jax.devices("cpu")[0]; a string or
    None as itself."""
    platform, index = getattr(value, "platform", None), getattr(value, "id", None)
    if platform is not None and index is not None:
        return f'jax.devices("{platform}")[{index}]'
    return f'"{value}"' if isinstance(value, str) else repr(value)


# the end of a jax.make_user_context context's name in a signature: "ctx (user context #3)",
# shown as "ctx (user context)"
_USER_CONTEXT = re.compile(r" \(user context #\d+\)$")
USER_CONTEXTS = "user contexts"       # how many there are (a new one made: every key grows)


def _context_name(name) -> str:
    """The name to write a fix with: "ctx (user context #3)" -> "ctx" (one made where no
    name holds it: ctx)."""
    context = _USER_CONTEXT.sub("", name)
    return context if context.isidentifier() else "ctx"


def _user_context_change(name, old, new) -> Change:
    context = _context_name(name)
    change = Change(_USER_CONTEXT.sub(" (user context)", name), "config", repr(old), repr(new))
    return _refixed(change, _USER_CONTEXT_FIX, context=context, old_repr=repr(old),
                    new_repr=repr(new))


def _option_setters(name: str) -> str:
    """What sets the option `name` in a learner's code: its context manager where jax has
    one under the option's name (jax_numpy_rank_promotion: `jax.numpy_rank_promotion`), and
    jax.config.update.

        >>> _option_setters("jax_numpy_rank_promotion")
        'a `with jax.numpy_rank_promotion(...)` block or jax.config.update'
    """
    # read from the loaded package (this module is imported by it): the table is jax's own
    manager = getattr(sys.modules.get("jxkernel"), name.removeprefix("jax_"), None)
    if callable(manager):
        return f"a `with jax.{name.removeprefix('jax_')}(...)` block or jax.config.update"
    return "jax.config.update"


_X64_PAIRS = {("f32", "f64"), ("i32", "i64"), ("u32", "u64"), ("c64", "c128")}


def _widened_by_x64(change) -> bool:
    """A dtype change x64 makes by itself (a Python 1.0 is f32 without it, f64 with it): JAX
    names the config alone, and casting the argument would not stop it.

        >>> _widened_by_x64(Change("x", "dtype", "f32[] (weak)", "f64[] (weak)"))
        True
    """
    if change.kind != "dtype":
        return False
    (a, a_dims), (b, b_dims) = (re.match(r"^([a-z]+\d*)(.*)$", t).groups()
                                for t in (change.old, change.new))
    return a_dims == b_dims and ((a, b) in _X64_PAIRS or (b, a) in _X64_PAIRS)


_TRACE_OPTION_FIX = (
    "{path} changed ({old} -> {new}): it is part of every jit's cache key ({set_by} sets "
    "it), so the "
    "function traced and compiled again; back at {old}, the earlier program is reused. "
    "Set it once, at start-up, if every call should use it.",
    'jax.config.update("{path}", {new_repr})    # once, at start-up')
# the arguments committed to the program's device (a jit cache key's; their names), and
# the fix of a change in them: every call's arguments committed alike
COMMITTED = "committed"
COMMITTED_FIX = (
    "{path} was {old} and is {new} now: an array put on a device with jax.device_put (or "
    "computed from one) is committed to it, one jax made on the default device is not, and "
    "JAX compiles a program for each (its log's \"Compiling jit(...)\" line maps a committed "
    "argument to its SingleDeviceSharding, an uncommitted one to UnspecifiedValue): the same "
    "trace, compiled again. Give every call's {path} the same placement: put it on {device} "
    "before each call (or put none there)." + PATTERN_SAID,
    "{path} = jax.device_put({path}, jax.devices()[{index}])    # before each call")
# set_mesh's mesh, as JAX's trace context names it (None outside set_mesh)
CONTEXT_MESH = "abstract_mesh_context_manager"
_CONTEXT_MESH_FIX = (
    "The call ran {where}, and compiled {was} before: the mesh set_mesh sets is part of "
    "the context every jit traces in "
    "(its arrays' types are typed on it), so the function traced and compiled again, as in "
    "JAX. Make the calls under the same mesh: each after set_mesh (or in its block), or "
    "each with none set.",
    "with jax.set_mesh(mesh):    # around every call of the function, or around none\n"
    "    ...")
_MESH_SET, _NO_MESH = ("under a mesh jax.set_mesh set (called, or as a `with` block)",
                       "with no mesh set")
# set_mesh called with another mesh since (the shard_map tutorial's 8-device mesh, then a
# 4-device one, set_mesh called as a function): JAX 0.10.2 compiles once per mesh and, the
# first mesh set again, reuses its program (tests/data/tutorial_mesh_reference.json)
_MESH_CHANGED_FIX = (
    "The mesh jax.set_mesh sets is another one now: the mesh in effect is part of the context "
    "every jit traces in (its arrays' types are typed on it), so the function traced and "
    "compiled again for it, as in JAX: a program per mesh. Nothing to fix where the new mesh "
    "is meant: with the earlier mesh set again (and the earlier calls' arguments), the "
    "earlier program is reused.",
    "")
_DEFAULT_DEVICE_FIX = (
    "jax_default_device changed ({old} -> {new}): as in JAX, the option itself is part of "
    "every jit's cache key (a `with jax.default_device(...)` block sets it), even where the "
    "program runs on the same device as before, so the function traced and compiled again; "
    "back at {old}, the earlier program is reused. Set it once, at start-up, if every call "
    "should use it.",
    'jax.config.update("jax_default_device", {new_code})    # once, at start-up')
_USER_CONTEXT_FIX = (
    "{path} changed ({old} -> {new}): the value of a jax.make_user_context context is part "
    "of every jit's cache key, so the function traced and compiled again for it; each value "
    "compiles once, and back at {old} the earlier program is reused. If every call should "
    "run under {new}, set it once instead of per block.",
    "{context}.set_global({new_repr})    # once, at start-up: every call under one value")
_NEW_CONTEXT_FIX = (
    "A new jax.make_user_context context ({context}) was made after this function compiled "
    "({old} -> {new} contexts): every jit's cache key holds each context's value, so every "
    "jitted function traces and compiles again, once. Make your contexts at start-up, "
    "before the first jitted call.",
    "{context} = jax.make_user_context({value})    # at start-up, before any jitted call")
