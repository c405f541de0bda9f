"""Cards for the number of devices: a CPU device count asked for once the backend runs (JAX's
RuntimeError "jax_num_cpu_devices config should be updated before backends are initialized"):
`jax.config.update('jax_num_cpu_devices', 8)` in a later cell than the first operation. The
count is fixed for the process; the card says how many devices run and to restart the kernel
with the update first.

And pmap given a mapped axis longer than the devices there are, `jax.pmap(f)(x)` of x's 64
rows on one CPU: JAX splits the axis over the devices and says so in a squeeze's words
("cannot select an axis to squeeze out ... got shape=(64, 2)"), or, where the count does not
divide it, a sharding's (IndivisibleError). The card says what pmap maps and offers vmap, or
the axis reshaped to a block per device.
"""
from __future__ import annotations

import ast
import re

from ...xla import client
from .card import ErrorCard
from .rewrites import _operand, _parse_line, _pattern, _replaced, _whole_statement

_LATE = "jax_num_cpu_devices config should be updated before backends are initialized"


def _is_late_device_count(e) -> bool:
    return isinstance(e, RuntimeError) and str(e).startswith(_LATE)


def _asked(where) -> str | None:
    """The count the user's line asks for (`jax.config.update('jax_num_cpu_devices', 16)`)."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and len(node.args) == 2 and \
                isinstance(node.args[0], ast.Constant) and \
                node.args[0].value == "jax_num_cpu_devices":
            return ast.unparse(node.args[1])
    return None


def _late_device_count_card(exc, where, called_from) -> ErrorCard:
    running = client.device_count()
    asked = _asked(where)
    rewrite = "" if asked is None else (
        f"import jax\njax.config.update('jax_num_cpu_devices', {asked})    # the first cell "
        f"of a restarted kernel, before any operation")
    return ErrorCard(
        "late-device-count", "The CPU device count is fixed once JAX has run",
        why=(f"The CPU backend started at the first operation (or jax.devices()) with "
             f"{running} device{'s' if running != 1 else ''}; a process keeps that count."),
        fix=("Restart the kernel, then update jax_num_cpu_devices in the first cell, right "
             "after `import jax`, before anything runs (or set "
             "XLA_FLAGS=--xla_force_host_platform_device_count=N before importing jax)."),
        rewrite=rewrite, docs="https://docs.jax.dev/en/latest/parallel.html")


# ------------------------------------------------------------------ pmap's axis, the devices
def _is_pmap_devices(e) -> bool:
    """pmap's own error for an axis longer than the devices (api/pmap.py attaches what it
    saw): a squeeze's text is any squeeze's."""
    return isinstance(e, ValueError) and isinstance(getattr(e, "pmap_devices", None), dict)


def _pmap_devices_card(exc, where, called_from) -> ErrorCard:
    seen = exc.pmap_devices
    size, n = seen["size"], seen["devices"]
    shape, axis = next(((s, a) for s, a in seen["mapped"] if s[a] == size), seen["mapped"][0])
    block = re.search(r"got shape=(\(.*?\))", str(exc))
    said = (f"gives each device a block of the axis, here of shape {block.group(1)}, and a "
            f"block of more than one entry cannot be squeezed to the one entry the function "
            f"takes" if block else f"says the axis's {size} entries do not split evenly over "
            f"{n} devices")
    devices = f"{n} device{'s' if n != 1 else ''}"
    return ErrorCard(
        "pmap-devices", f"pmap: an axis of {size} entries, {devices} to run them on",
        why=(f"pmap runs the function once on each device, in parallel, each call given one "
             f"entry of the mapped axis (axis {axis} of the argument of shape {shape}), so "
             f"that axis can have at most as many entries as there are devices: "
             f"jax.local_device_count() is {n} here. JAX splits the axis over the devices: its "
             f"message {said}."),
        fix=(f"For a batch on one device, jax.vmap maps the function over the axis in one "
             f"program: the same values, and no devices needed. To use the devices there "
             f"are, reshape the axis to (jax.local_device_count(), -1, ...) (where the count "
             f"divides {size}) and pmap a vmap of the function: a block of entries per "
             f"device."),
        rewrite=_pmap_rewrite(where, seen, exc),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html")


# pmap's keywords that vmap takes too, meaning the same (in_axes, out_axes; axis_name: vmap
# binds it for the collectives in the function)
_AS_VMAP = {"in_axes", "out_axes", "axis_name"}


def _pmap_rewrite(where, seen, exc) -> str:
    """The user's `jax.pmap(f, ...)(args)` as `jax.vmap(f, ...)(args)`, then, where every
    argument is one array mapped along axis 0, no axis is named (a collective would then
    reduce over the devices alone) and the devices divide the axis (else the reshape
    raises), pmap of vmap(f) over the arguments reshaped to a block per device; a pattern
    where the line has no such call."""
    tree = _parse_line(_whole_statement(where)) if where else None
    call = next((c for c in ast.walk(tree) if isinstance(c, ast.Call) and
                 isinstance(c.func, ast.Call) and
                 ast.unparse(c.func.func).split(".")[-1] == "pmap"), None) if tree else None
    made = call.func if call is not None else None
    if made is None or not made.args or len(made.args) > 2 or \
            any(k.arg not in _AS_VMAP for k in made.keywords):
        return _pattern("y = jax.vmap(f)(x)    # in place of jax.pmap(f)(x): one program, the "
                        "whole axis\n@jax.vmap    # in place of @jax.pmap")
    head = ast.unparse(made.func)[:-len("pmap")]
    keywords = made.keywords + ([ast.keyword("axis_name", made.args[1])]
                                if len(made.args) == 2 else [])   # (pmap's 2nd: axis_name)
    vmapped = ast.Call(ast.parse(head + "vmap", mode="eval").body, made.args[:1], keywords)
    lines = [f"{_replaced(tree, made, vmapped)}    # the whole axis in one program, on "
             f"one device"]
    shapes = [s for s, _ in seen["mapped"]]
    blocks = seen["size"] % seen["devices"] == 0 and len(shapes) == len(call.args) and \
        not call.keywords and not keywords and \
        all(a == 0 for _, a in seen["mapped"]) and \
        not any(isinstance(a, ast.Starred) for a in call.args)
    if blocks:
        count = f"{head}local_device_count()"
        args = [ast.parse(f"{_operand(a)}.reshape({', '.join([count, '-1', *map(str, s[1:])])})",
                          mode="eval").body for a, s in zip(call.args, shapes)]
        inner = ast.Call(ast.parse(head + "vmap", mode="eval").body, made.args[:1], [])
        over = ast.Call(ast.Call(made.func, [inner], []), args, [])
        lines.append(f"{_replaced(tree, call, over)}    # or a block per device: the result "
                     f"is (devices, {seen['size']} // devices, ...)")
    return "\n".join(lines)

