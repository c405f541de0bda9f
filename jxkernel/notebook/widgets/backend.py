"""The backend selector: where later `%%jit` cells, `jit` calls and eager operations
compile and run.

A dropdown of the devices of every backend that starts here; backends that
don't are listed greyed out with what to install. Choosing a device calls
`on_select(device)` (the extension sets `jax_default_device`); the status line
shows the choice, and `show(device)` updates it when the choice is made elsewhere
(`%jxbackend NAME`, another selector). Below, whether the compiled fast path is on and,
if not, why (core/native.py's STATE, as `python -m jxkernel` prints it).
"""
from __future__ import annotations

import ipywidgets as w

from ...core.config import config
from ...core.native import STATE as FASTPATH_STATE
from ...xla import client
from ...xla.client import device_name
from ...views.rich_view import esc
from ._fallback import TextFallback

PLATFORMS = ("cpu", "gpu", "tpu")


def platforms() -> tuple:
    """The backends offered: XLA's, and the NumPy backend's once it is in use (chosen, or the
    default where jaxlib cannot be imported)."""
    if "numpy" in client._backends or client.default_backend() == "numpy":
        return PLATFORMS + ("numpy",)
    return PLATFORMS


def probe(offered: tuple | None = None) -> tuple[dict, dict]:
    """({platform: [devices]} that start, {platform: why not}) of the `offered` platforms (all
    of platforms() by default); where jaxlib does not import (the browser), XLA's platforms
    are missing for one reason, said once (`grouped`)."""
    found, missing = {}, {}
    xla_missing = client.xla_unavailable()
    for platform in platforms() if offered is None else offered:
        if xla_missing is not None and platform in PLATFORMS:
            missing[platform] = xla_missing
            continue
        try:
            found[platform] = client.devices(platform)
        except (RuntimeError, ValueError) as e:
            missing[platform] = _left_out(platform) or str(e)
    return found, missing


def _left_out(platform: str) -> str | None:
    """Why a platform that JAX_PLATFORMS does not list is missing, with what gives it, or None
    where JAX_PLATFORMS allows it (its start-up error says why then). JAX's own refusal
    ("Unknown backend cpu...") names neither the setting nor the package to install."""
    if not config.jax_platforms or platform in client._allowed_platforms():
        return None
    left_out = f"JAX_PLATFORMS={config.jax_platforms!r} leaves it out"
    if platform != "cpu" and not client._available(platform):
        return f"not installed; to add it: {client.install_line(platform)} ({left_out} too)"
    if platform == "cpu":
        return f"{left_out}: {client.how_to_get_xla()}"
    return f"{left_out}: list it in JAX_PLATFORMS and restart"


def grouped(missing: dict) -> dict:
    """{platforms: why} with the platforms missing for the same reason on one line.

        >>> grouped({"cpu": "no jaxlib", "gpu": "no jaxlib"})
        {'cpu, gpu': 'no jaxlib'}
    """
    by_why: dict = {}
    for platform, why in missing.items():
        by_why.setdefault(why, []).append(platform)
    return {", ".join(platforms): why for why, platforms in by_why.items()}


class BackendSelector(TextFallback, w.VBox):
    """dropdown + missing backends + the current choice."""

    def __init__(self, on_select=None, current=None):
        self._on_select = on_select
        self.available, self.missing = probe()
        self.devices = {device_name(d): d for ds in self.available.values() for d in ds}
        current = current or client.default_device()
        self.devices.setdefault(device_name(current), current)     # chosen on a backend not probed
        self.dropdown = w.Dropdown(options=self._options(), value=device_name(current),
                                   description="backend",
                                   layout=w.Layout(width="max-content"))
        self.missing_html = w.HTML(self._missing_html())
        self.status = w.HTML()
        self.fastpath = w.HTML(f"<span style='font-size:11px'>fast path: "
                               f"{esc(FASTPATH_STATE)}</span>")
        super().__init__([self.dropdown, self.missing_html, self.status, self.fastpath])
        self._quiet = False
        self._show_status(current)
        self.dropdown.observe(self._changed, "value")

    def _options(self) -> list:
        return [(f"{k} · {d!r}", k) for k, d in self.devices.items()]

    def _changed(self, change):
        device = self.devices[change["new"]]
        if self._on_select is not None and not self._quiet:
            self._on_select(device)
        self._show_status(device)

    def show(self, device) -> None:
        """Show `device` as the choice, without choosing it again (added to the list where its
        backend started after this selector was made: `%jxbackend numpy`)."""
        self._quiet = True
        try:
            if device_name(device) not in self.devices:
                self.devices[device_name(device)] = device
                self.dropdown.options = self._options()
            self.dropdown.value = device_name(device)
        finally:
            self._quiet = False
        self._show_status(device)

    def select(self, key: str) -> None:
        """Choose a device by key, e.g. 'cpu:0' (what the dropdown does)."""
        if self.dropdown.value == key:
            self._changed({"new": key})            # choosing the shown one still applies it
        self.dropdown.value = key

    def _show_status(self, device):
        self.current = device
        also = f" ({esc(device)})" if str(device) != device_name(device) else ""
        self.status.value = (f"<span style='font-size:12px'>jit calls, %%jit cells and eager "
                             f"operations run on <b>{esc(device_name(device))}</b>{also}</span>")

    def _missing_html(self) -> str:
        rows = "".join(f"<li style='color:var(--jp-content-font-color2, #777)'><s>{esc(p)}</s> — {esc(why)}</li>"
                       for p, why in grouped(self.missing).items())
        return f"<ul style='font-size:11px;margin:2px 0'>{rows}</ul>" if rows else ""

    def text_repr(self) -> str:
        lines = ["backends:"]
        for key, d in self.devices.items():
            lines.append(f"  {'*' if d == self.current else ' '} {key}  {d!r}")
        lines += [f"    {p}: unavailable — {why}" for p, why in grouped(self.missing).items()]
        return "\n".join(lines + [f"fast path: {FASTPATH_STATE}"])

    def html_repr(self) -> str:
        items = "".join(f"<li>{'<b>' if d == self.current else ''}{esc(k)} {esc(repr(d))}"
                        f"{'</b> (selected)' if d == self.current else ''}</li>"
                        for k, d in self.devices.items())
        return (f"<div><b>backends</b><ul>{items}</ul>{self._missing_html()}"
                f"<span style='font-size:11px'>fast path: {esc(FASTPATH_STATE)}</span></div>")
