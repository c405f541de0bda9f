"""Transfer guards: log or refuse data moving between host and devices, as JAX's.

Each direction (host_to_device, device_to_device, device_to_host) has a level, its own
`jax_transfer_guard_<direction>` option or else `jax_transfer_guard`:

    allow               every transfer
    log                 log implicit transfers, allow explicit ones
    disallow            refuse implicit transfers, allow explicit ones
    log_explicit        log every transfer
    disallow_explicit   refuse every transfer

Explicit transfers are the ones asked for by name: `device_put`, `device_get`; implicit ones
are everything else, such as NumPy data or a Python scalar handed to `jit` or to `jnp.add`.
As in JAX, a CPU device's memory is host memory, so reading a CPU array (`np.asarray(x)`) is
no device-to-host transfer, and an array moved implicitly onto the default device is not
checked: the device-to-device guard sees `device_put(x, device)` only.

The array code (xla/array.py) reads one flag, `config._transfer_guarded`, where arrays move,
and loads this module only once a guard is set.

    >>> from jxkernel.config import config
    >>> x, host = jnp.ones(2), np.ones(2, np.float32)
    >>> with config.override("jax_transfer_guard", "disallow"):  # doctest: +IGNORE_EXCEPTION_DETAIL
    ...     jnp.add(x, host)
    Traceback (most recent call last):
    JaxRuntimeError: INVALID_ARGUMENT: Disallowed host-to-device transfer: ...
"""
from __future__ import annotations

import logging
import sys

from ..core.config import config
from ..core.source_info import is_jxkernel_file
from . import client

DIRECTIONS = ("host_to_device", "device_to_device", "device_to_host")
# The public functions whose transfers are explicit, when the user called them directly.
EXPLICIT_CALLS = frozenset({"device_put", "device_get"})
# JAX moves an array to the default device when an operation needs it there without asking
# the guard (recorded: tests/data/runtime_state_reference.json); jxkernel's implicit moves
# between devices are those.
_UNGUARDED = frozenset({"device_to_device"})

logger = logging.getLogger("jxkernel.transfer_guard")


def level(direction: str) -> str:
    """The level guarding `direction` now.

    >>> level("device_to_host")
    'allow'
    """
    return (getattr(config, f"jax_transfer_guard_{direction}") or config.jax_transfer_guard
            or "allow")


def called_explicitly() -> bool:
    """Whether the jxkernel function the user's code called (the outermost jxkernel frame
    on the stack) is one of EXPLICIT_CALLS."""
    frame, entry = sys._getframe(1), None
    while frame is not None and is_jxkernel_file(frame.f_code.co_filename):
        entry, frame = frame.f_code.co_name, frame.f_back
    return entry in EXPLICIT_CALLS


def check(direction: str, aval, device, sharding=None) -> None:
    """Log or refuse a transfer of `aval` to `device` (or laid out as `sharding` over several)
    as `direction`'s guard says."""
    guard = level(direction)
    if guard == "allow":
        return
    explicit = called_explicitly()
    if explicit and guard in ("log", "disallow") or not explicit and direction in _UNGUARDED:
        return
    end = "src" if direction == "device_to_host" else "dst"
    where = repr(sharding) if sharding is not None else \
        f"SingleDeviceSharding(device={device!r}, memory_kind=device)"
    what = f"{direction.replace('_', '-')} transfer: aval={aval!r}, {end}_sharding={where}"
    if guard.startswith("log"):
        logger.warning(what)
        return
    raise client.JaxRuntimeError(
        f"INVALID_ARGUMENT: Disallowed {what}. The {direction} transfer guard is {guard!r}: "
        f"{_HINTS[direction] if guard == 'disallow' else 'allow the transfers meant'} "
        f"(`with jax.transfer_guard_{direction}('allow'):` allows them in a block)")


_HINTS = {"host_to_device": "put the data on the device once with jax.device_put(x)",
          "device_to_device": "move the array with jax.device_put(x, device)",
          "device_to_host": "read the array with jax.device_get(x)"}


def check_read(buf) -> None:
    """Reading `buf` into NumPy: a device-to-host transfer unless it lives in host memory
    (XLA's CPU devices, the NumPy backend's)."""
    if buf.platform() not in ("cpu", "numpy"):
        sharding = buf._sharding            # jaxlib's: one device, or a list of them
        device = getattr(sharding, "_device", None) or sharding._devices[0]
        check("device_to_host", buf.aval, device)
