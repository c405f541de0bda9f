"""The card for a device named by a string where JAX takes a Device: `jax.device_put(x, 'cpu')`,
`x.to_device('cuda')` (PyTorch's `x.to('cuda')` habit), `jax.jit(f, device='cpu')`. JAX's
errors name the types it accepts ("`jax.device_put` only accepts `None`,
`jax.sharding.Sharding`, `jax.Device`, ...") or an attribute a str lacks ("'str' object has no
attribute 'client'"). The rewrite asks jax.devices for the device: `jax.devices('cpu')[0]`;
a GPU named on a machine without one gets the default device, said so.

    jax.device_put(x, 'cpu')  ->  jax.device_put(x, jax.devices('cpu')[0])
"""
from __future__ import annotations

import ast
import re

from ...xla import client
from .card import ErrorCard
from .reading import _user_lines
from .rewrites import _called, _parse_line, _replaced

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


def _is_device_name(e) -> bool:
    if not ((isinstance(e, ValueError) and _NOT_ACCEPTED.match(str(e))) or
            (isinstance(e, AttributeError) and _STR_DEVICE.match(str(e)))):
        return False
    where, _ = _user_lines(e)
    return _string_given(_parse_line(where)) is not None


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
