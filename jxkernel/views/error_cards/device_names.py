"""The card for a device named by a string where JAX takes a Device: `jax.device_put(x, 'cpu')`,
`x.to_device('cuda')` (PyTorch's `x.to('cuda')` habit), `jax.jit(f, device='cpu')`. JAX's
errors name the types it accepts ("`jax.device_put` only accepts `None`,
`jax.sharding.Sharding`, `jax.Device`, ...") or an attribute a str lacks ("'str' object has no
attribute 'client'"). The rewrite asks jax.devices for the device: `jax.devices('cpu')[0]`;
a GPU named on a machine without one gets the default device, said so.

    jax.device_put(x, 'cpu')  ->  jax.device_put(x, jax.devices('cpu')[0])

And a device asked for by an index past the list, `jax.devices()[1]` on a machine of one
(code written for several GPUs, run on a CPU or a one-GPU runtime): Python's IndexError, "list
index out of range", in JAX's words too. The card names the devices there are and writes the
last of them; where the platform is the CPU, it says how to simulate several.
"""
from __future__ import annotations

import ast
import re

from ...xla import client
from .card import ErrorCard
from .reading import _user_lines
from .rewrites import _bound_above, _called, _parse_line, _replaced

_NOT_ACCEPTED = re.compile(r"^`jax\.device_put` only accepts `None`, .* Received invalid "
                           r"value: (\S+)$")
_STR_DEVICE = re.compile(r"^'str' object has no attribute '(client|platform)'$")
# a learner's names for a platform: jax.devices's
_PLATFORMS = {"cpu": "cpu", "cuda": "gpu", "gpu": "gpu", "rocm": "gpu", "tpu": "tpu"}


def _named(text: str):
    """(platform, index) of a device name ('cuda:1' -> ('gpu', 1)), or None."""
    name, _, index = text.strip().lower().partition(":")
    if name not in _PLATFORMS or index and not index.isdigit():
        return None
    return _PLATFORMS[name], int(index or 0)


def _string_given(tree):
    """(the call, the string node naming a device) of the line: device_put's or to_device's
    second/first argument (or device=), jit's device=; None without one."""
    for call in ast.walk(tree) if tree is not None else ():
        name = _called(call)
        if name not in ("device_put", "to_device", "jit"):
            continue
        at = {"device_put": 1, "to_device": 0}.get(name)
        given = [k.value for k in call.keywords if k.arg == "device"] + \
            (call.args[at:at + 1] if at is not None else [])
        if given and isinstance(given[0], ast.Constant) and isinstance(given[0].value, str) and \
                _named(given[0].value):
            return call, given[0]
    return None


def _jit_made_above(where):
    """(the statement, its jit call, the device's string) of the user's cell that bound, above
    the line, a name the line calls to a jit of device='cpu' (`f = jax.jit(g, device='cpu')`
    then `f(x)`, where JAX raises); None otherwise."""
    tree = _parse_line(where)
    called = {c.func.id for c in ast.walk(tree) if isinstance(c, ast.Call) and
              isinstance(c.func, ast.Name)} if tree is not None else set()
    for name in sorted(called):
        node = _bound_above(where, name)
        found = _string_given(ast.Module([node], [])) if node is not None else None
        if found is not None and _called(found[0]) == "jit":
            return (node, *found)
    return None


def _is_device_name(e) -> bool:
    if not ((isinstance(e, ValueError) and _NOT_ACCEPTED.match(str(e))) or
            (isinstance(e, AttributeError) and _STR_DEVICE.match(str(e)))):
        return False
    where, _ = _user_lines(e)
    return _string_given(_parse_line(where)) is not None or \
        (where is not None and _jit_made_above(where) is not None)


def _device_code(module: str, platform: str, index: int) -> tuple:
    """(the code of the device, a note where it is not the one named): jax.devices('cpu')[0];
    the default device where this machine has no device of `platform` (or not that many)."""
    try:
        count = len(client.devices(platform))
    except RuntimeError:
        count = 0
    if index < count:
        return f"{module}.devices('{platform}')[{index}]", ""
    has = f"has {count} {platform.upper()} device{'s' * (count > 1)}" if count else \
        f"has no {platform.upper()}"
    return f"{module}.devices()[0]", f"this machine {has}: its default device instead"


def _device_name_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    above = None if _string_given(tree) is not None else _jit_made_above(where)
    if above is not None:       # the jit made on a line above, called here: that line fixed
        statement, call, given = above
        tree = ast.Module([statement], [])
    else:
        call, given = _string_given(tree)
    name = _called(call)
    module = ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) and \
        name != "to_device" else "jax"
    platform, index = _named(given.value)
    device, note = _device_code(module, platform, index)
    if name == "jit":           # device= dropped, as JAX's deprecation says: inputs put there
        new = ast.Call(call.func, call.args, [k for k in call.keywords if k.arg != "device"])
        rewrite = (f"{_replaced(tree, call, new)}    # then put its inputs on the device: "
                   f"{module}.device_put(x, {device})")
        if above is not None:
            rewrite += f"\n{where['code']}"
    else:
        rewrite = f"{_replaced(tree, given, device)}    # " + \
            (note or f"the Device object for {given.value!r}")
    return ErrorCard(
        "device-name", f"{given.value!r} names a device: JAX takes the Device itself",
        why=(f"JAX places arrays on Device objects (and shardings), not on names as PyTorch's "
             f".to('cuda') does: {module}.devices('{platform}') lists this machine's "
             f"{platform.upper()} devices" + (f"; {note}." if note else ".") +
             (" jit's device= is deprecated too: put its inputs on the device, and it runs "
              "there." if name == "jit" else "")),
        fix=(f"Ask for the device: {module}.devices('{platform}')[{index}] (or "
             f"{module}.devices()[0], the default one), and pass it."),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.device_put.html")


# ------------------------------------------------------------ a device index past the list
_LISTS = ("devices", "local_devices")


def _indexed_list(tree):
    """(the subscript node, the call, its platform or None, the index) of the line's first
    `jax.devices()[N]` (or local_devices, a platform named) whose N is past the list; None."""
    for node in ast.walk(tree) if tree is not None else ():
        if not (isinstance(node, ast.Subscript) and _called(node.value) in _LISTS):
            continue
        try:        # (`[-2]` is an operator applied to 2)
            index = ast.literal_eval(node.slice)
        except ValueError:
            continue
        if type(index) is not int:
            continue
        call = node.value
        named = call.args[:1] or [k.value for k in call.keywords if k.arg == "backend"]
        platform = named[0].value if named and isinstance(named[0], ast.Constant) else None
        platform = _PLATFORMS.get(platform, platform)
        try:
            count = len(client.devices(platform) if _called(call) == "devices" else
                        client.local_devices(backend=platform))
        except (RuntimeError, TypeError):
            continue
        if not -count <= index < count:
            return node, call, platform, index, count
    return None


def _is_device_index(e) -> bool:
    if not (isinstance(e, IndexError) and str(e) == "list index out of range"):
        return False
    where, _ = _user_lines(e)
    return _indexed_list(_parse_line(where)) is not None


def _device_index_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    node, call, platform, index, count = _indexed_list(tree)
    listed = ast.unparse(call)
    kind = (platform or client.default_backend()).upper()
    # the NumPy backend (JupyterLite) stands in for XLA's CPU and simulates devices as it does
    where_ = {"CPU": "this machine's CPU devices",
              "NUMPY": "the NumPy backend's devices (XLA's CPU's stand-in)"}.get(
        kind, f"this machine's {kind} devices")
    rewrite = (f"{_replaced(tree, node.slice, ast.Constant(count - 1))}    # the "
               f"{'only' if count == 1 else 'last'} one here")
    simulate, needed = "", index + 1 if index >= 0 else -index
    if kind in ("CPU", "NUMPY"):
        simulate = (f" On the CPU (and the NumPy backend), "
                    f"jax.config.update('jax_num_cpu_devices', {needed}) in the "
                    f"notebook's first cell (before any array is made) gives {needed} "
                    f"simulated devices, as code for several GPUs expects.")
        rewrite += (f"\n# or {needed} CPU devices: jax.config.update('jax_num_cpu_devices', "
                    f"{needed}) first, in a fresh kernel")
    return ErrorCard(
        "device-index", f"{listed} lists {count} device{'s' * (count != 1)} here: index {index} "
                        f"is past them",
        why=(f"{listed} is the list of {where_}, {count} here, at indices "
             f"0 to {count - 1}: code written for a machine of several devices (device 1 the "
             f"second GPU) asks for more than this one has."),
        fix=(f"Use the devices there are: {listed}[0], or len({listed}) for how many."
             + simulate),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.devices.html")
