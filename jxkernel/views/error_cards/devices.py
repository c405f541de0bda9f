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

And pmap given mapped axes of two sizes, `jax.pmap(lambda x, w: x * w)(xs, w)` of a w with no
axis per device: the card lists them and rewrites the call with in_axes None for the
arguments of the other size (every device takes them whole), where the function traces so.
"""
from __future__ import annotations

import ast
import contextlib
import io
import re
from collections import Counter

from ...core import compile_record
from ...transforms.make_jaxpr import eval_shape
from ...tree_util import tree_leaves
from ...xla import client
from .card import ErrorCard
from .rewrites import _operand, _parse_line, _pattern, _replaced, _whole_statement
from .vmap import _with_in_axes, mapped_axes

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


# ------------------------------------------------------------------ pmap's axes of two sizes
def _is_pmap_sizes(e) -> bool:
    """pmap's own error for mapped axes of different sizes (api/pmap.py; JAX 0.10.2's is its
    body's squeeze's), which lists them in vmap's words."""
    return isinstance(e, ValueError) and str(e).startswith("pmap got inconsistent sizes") \
        and bool(mapped_axes(e))


def _pmap_sizes_card(exc, where, called_from) -> ErrorCard:
    mapped = mapped_axes(exc)
    n = client.local_device_count()
    size = _device_size(mapped, n)
    listing = ", ".join(f"{m['name']} {m['type']} axis {m['axis']} (size {m['size']})" +
                        (f" and {m['count'] - 1} more of that size" if m["count"] > 1 else "")
                        for m in mapped)
    others = ", ".join(m["name"] + (f" (and {m['count'] - 1} more of that size)"
                                    if m["count"] > 1 else "")
                       for m in mapped if m["size"] != size)
    axes = _in_axes_that_trace(exc, size)
    # (a claim about this call only where the function was traced so)
    here = f"here {others} with in_axes None, to map over size {size}" if axes else \
        f"here, to map over size {size}, {others} with in_axes None, if the function takes it whole"
    rewrite = axes and (_with_in_axes(where, axes, transform="pmap") or
                        _pattern(f"jax.pmap(f, in_axes={axes!r})(...)"))
    return ErrorCard(
        "pmap-sizes", "pmap: the mapped axes have different sizes",
        why=(f"pmap runs the function once per entry of the mapped axis, each on its own "
             f"device (jax.local_device_count() is {n} here), so the axes it maps must have "
             f"one size: {listing}."),
        fix=(f"Map only the arguments that hold one entry per device, along that axis "
             f"(in_axes), and give None for an argument that every device takes whole "
             f"(weights, a constant): {here}."),
        rewrite=rewrite or _pattern(
            "jax.pmap(f, in_axes=(0, None))(xs, w)    # xs: one entry per device; w: whole, "
            "on every device"),
        origin={"arguments": [{k: m[k] for k in ("name", "axis", "size", "type")}
                              for m in mapped]},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html")


def _device_size(mapped, devices) -> int:
    """The size pmap should map over: of those no larger than the devices, the one most
    leaves have (a tie: the first's, as JAX's pmap reads the first argument's), else the
    first's."""
    fits = Counter()
    for m in mapped:
        if m["size"] <= devices:
            fits[m["size"]] += m["count"]
    if not fits:
        return mapped[0]["size"]
    return max(fits, key=lambda s: (fits[s], -[m["size"] for m in mapped].index(s)))


def _in_axes_that_trace(exc, size) -> tuple | None:
    """in_axes for the call, one per positional argument: the arguments of `size` along their
    axis, None for the others, where each is one array (none static) and the function traces
    so (abstractly: eval_shape of the pmap so made), else None. pmap's error carries the call
    (api/pmap.py: a pmap of other in_axes, the arguments, each leaf's axis)."""
    call = getattr(exc, "pmap_call", None)
    if call is None:
        return None
    remade, args, kwargs, flat_axes = call
    if kwargs or remade.keywords["static_broadcasted_argnums"] or \
            len(flat_axes) != len(args) or \
            any(len(tree_leaves(a)) != 1 or not hasattr(a, "shape") for a in args):
        return None
    axes = tuple(ax if ax is not None and a.shape[ax] == size else None
                 for a, ax in zip(args, flat_axes))
    try:
        with compile_record.unlogged(), contextlib.redirect_stdout(io.StringIO()):
            eval_shape(remade(in_axes=axes), *args)
    except Exception:       # noqa: BLE001  (the function does not take them so)
        return None
    return axes
