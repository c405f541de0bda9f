"""The card for a CPU device count asked for once the backend runs (JAX's RuntimeError
"jax_num_cpu_devices config should be updated before backends are initialized"):
`jax.config.update('jax_num_cpu_devices', 8)` in a later cell than the first operation. The
count is fixed for the process; the card says how many devices run and to restart the kernel
with the update first.
"""
from __future__ import annotations

import ast

from ...xla import client
from .card import ErrorCard
from .rewrites import _parse_line

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
