"""Live device arrays: which are alive, grouped by shape and dtype, and their bytes per device.

    >>> x = jnp.ones((256, 256))
    >>> any(a is x for a in jxkernel.live_arrays())
    True
    >>> print(memory_report([x]))
    live arrays on cpu: 1 array, 262,144 bytes (256.0 KiB)
    shape       dtype    device  count    bytes
    (256, 256)  float32  cpu:0       1  262,144
    cpu:0: 1 array, 262,144 bytes (256.0 KiB)
    allocator (bytes in use, peak, limit): not reported by the cpu backend

`live_arrays()` finds the jxkernel Arrays whose buffer the backend's client still holds
(jaxlib's `client.live_arrays()` lists buffers, not our wrappers, so the wrappers are found
among the garbage collector's objects: the cost is paid when asked, never when an array is
made). An array counts once per buffer; bytes are the logical `nbytes` (size × itemsize;
the allocator may pad), one shard's on each device of an array over several (a block of a
split array, all of a replicated one). In the notebook (`%jxmemory`,
jxkernel/notebook/memory.py) each row also names the cell that created its arrays.

Below the arrays, the device allocator's own count where the backend reports one
(`Device.memory_stats()`: GPU and TPU): bytes in use (arrays, compiled programs' buffers and
what the allocator keeps), the peak since the process started, and the limit it may use. The
NumPy backend (JupyterLite, `JAX_PLATFORMS=numpy`) reports the bytes its live buffers hold and
their peak, and no limit (numpy_device.Usage says why). XLA's CPU backend reports none. What
is not reported is said to be so ("not reported by this backend"), never shown as zeros.

The report renders as text (`repr`), an HTML table (no JavaScript) and the JSON MIME bundle
`application/vnd.jxkernel.memory+json`:

    {"version": 1,
     "platform": "cpu",                  # the backend whose arrays these are
     "by_cell": true,                    # whether rows carry a cell
     "total_arrays": 3, "total_bytes": 1280,
     "devices": [{"device": "cpu:0", "arrays": 3, "bytes": 1280}],
     "allocator": null | [{"device": "gpu:0", "bytes_in_use": 1024, # null: not reported
                           "peak_bytes_in_use": 4096, "bytes_limit": 8589934592}],
     "rows": [{"cell": "In[2]" | "before %load_ext" | "unknown" | null,
               "shape": [3, 4], "dtype": "float32", "devices": ["cpu:0"],
               "count": 2, "bytes": 96}]}  # bytes: all `count` arrays, on all their devices

Rows come cell by cell ("before %load_ext", In[1], In[2], ..., then others), the largest
first within a cell.
"""
from __future__ import annotations

import collections
import dataclasses
import gc
import html
import math
import re

from .rich_view import RichView
from ..core.avals import MemorySpace as Space  # noqa: F401 (jax.memory.Space, JAX's name)
from ..xla import client
from ..xla.array import Array, buffers, held_by_jxkernel, let_go_before_listing
from .schema import mime_type

MEMORY_MIME = mime_type("MemoryBundle")
MAX_SHOWN = 200              # rows in the text and HTML (the JSON has them all)


live_buffers = client.live_buffers       # every started backend's: the notebook's cell origins


def live_arrays(platform: str | None = None) -> list:
    """The live jxkernel Arrays on `platform`'s backend (default: the default one), as
    `jax.live_arrays()`; deleted and donated arrays are left out.

        >>> x = jnp.arange(3)
        >>> any(a is x for a in live_arrays("cpu"))
        True
    """
    for let_go in let_go_before_listing:
        let_go()
    alive = {id(buf) for buf in client.live_buffers(client.get_backend(platform))}
    # jxkernel's own (eager arithmetic's cached scalar constants, up to 256): JAX's
    # live_arrays() has none such, and a loop of `x * i` showed them as the cell's
    ours = {id(a) for held in held_by_jxkernel for a in held()}
    return [obj for obj in gc.get_objects()
            if isinstance(obj, Array) and id(obj) not in ours and id(buffers([obj])[0]) in alive]


def bytes_per_device(x: Array) -> dict:
    """{device name: bytes} of `x`: each of its devices holds one shard, of the shape its
    sharding gives (the whole array where it is replicated, a block where it is split)."""
    devices = [client.device_name(d) for d in sorted(x.devices(), key=lambda d: d.id)]
    share = math.prod(x.sharding.shard_shape(x.shape)) * x.dtype.itemsize
    return {d: share for d in devices}


ALLOCATOR_FIELDS = ("bytes_in_use", "peak_bytes_in_use", "bytes_limit")
NOT_REPORTED = "not reported by this backend"   # (the labextension's memoryView.ts says the same)


def allocator_stats(device) -> dict | None:
    """The device allocator's bytes in use, peak and limit, as `device.memory_stats()` reports
    them (GPU, TPU and NumPy backends; a field it lacks is None: the NumPy backend's limit), or
    None where it reports nothing (jaxlib's CPU devices answer None).

        >>> allocator_stats(jax.devices("cpu")[0]) is None
        True
    """
    stats = device.memory_stats()
    if not stats:
        return None
    found = {k: int(stats[k]) if k in stats else None for k in ALLOCATOR_FIELDS}
    return found if any(v is not None for v in found.values()) else None


def allocator_text(stats: dict) -> str:
    """'1,024 bytes (1.0 KiB) in use, peak 4,096 bytes (4.0 KiB), limit ...'; a field the
    backend lacks: 'limit not reported by this backend'."""
    said = lambda k: NOT_REPORTED if stats[k] is None else size_text(stats[k])
    return (f"{said('bytes_in_use')} in use, peak {said('peak_bytes_in_use')}, "
            f"limit {said('bytes_limit')}")


def cell_rank(label: str | None) -> tuple:
    """Sort key of a row's cell: before %load_ext, then In[1], In[2], ..., then the rest."""
    if label is None or label.startswith("before"):
        return (0, 0, "")
    found = re.fullmatch(r"In\[(\d+)\]", label)
    return (1, int(found.group(1)), "") if found else (2, 0, label)


@dataclasses.dataclass(frozen=True)
class Row:
    """Arrays of one shape and dtype, on the same devices, from the same cell."""
    cell: str | None
    shape: tuple
    dtype: str
    devices: tuple
    count: int
    bytes: int

    def json(self) -> dict:
        return {"cell": self.cell, "shape": list(self.shape), "dtype": self.dtype,
                "devices": list(self.devices), "count": self.count, "bytes": self.bytes}


def size_text(n: int) -> str:
    """Exact bytes, then a rounded binary size.

        >>> size_text(1280), size_text(12)
        ('1,280 bytes (1.2 KiB)', '12 bytes')
    """
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= scale:
            return f"{n:,} bytes ({n / scale:.1f} {unit})"
    return f"{n:,} bytes"


def _arrays(n: int) -> str:
    return f"{n} array" + ("" if n == 1 else "s")


@dataclasses.dataclass(frozen=True)
class MemoryReport(RichView):
    """Live arrays grouped into rows, with totals per device."""
    MIME = MEMORY_MIME
    platform: str
    rows: tuple
    devices: tuple              # (device name, arrays, bytes)
    by_cell: bool
    allocator: tuple = ()       # (device name, allocator_stats(device)) per device

    @property
    def total_arrays(self) -> int:
        return sum(r.count for r in self.rows)

    @property
    def total_bytes(self) -> int:
        return sum(r.bytes for r in self.rows)

    def title(self) -> str:
        if not self.rows:
            return f"no live arrays on {self.platform}"
        return (f"live arrays on {self.platform}: {_arrays(self.total_arrays)}, "
                f"{size_text(self.total_bytes)}")

    def columns(self) -> tuple:
        return (("cell",) if self.by_cell else ()) + ("shape", "dtype", "device", "count",
                                                      "bytes")

    def table(self) -> list:
        """The shown rows as text cells, in the order of `columns()`."""
        return [((r.cell or "",) if self.by_cell else ()) +
                (str(r.shape), r.dtype, ",".join(r.devices), str(r.count), f"{r.bytes:,}")
                for r in self.rows[:MAX_SHOWN]]

    def device_lines(self) -> list:
        return [f"{d}: {_arrays(n)}, {size_text(b)}" for d, n, b in self.devices]

    def reported(self) -> bool:
        """Did the backend report its allocator's bytes?"""
        return any(stats is not None for _, stats in self.allocator)

    def allocator_lines(self) -> list:
        if not self.reported():
            return [f"allocator (bytes in use, peak, limit): not reported by the {self.platform} "
                    f"backend"]
        return [f"{d} allocator: {allocator_text(stats)}" for d, stats in self.allocator
                if stats is not None]

    def _more(self) -> list:
        hidden = len(self.rows) - MAX_SHOWN
        return [f"… {hidden} more rows (the JSON bundle has them all)"] if hidden > 0 else []

    def __repr__(self):
        if not self.rows:
            return "\n".join([self.title()] + self.allocator_lines())
        rows = [self.columns(), *self.table()]
        right = {"count", "bytes"}
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [self.title()]
        for row in rows:
            lines.append("  ".join(c.rjust(w) if name in right else c.ljust(w)
                                   for c, w, name in zip(row, widths, self.columns())).rstrip())
        return "\n".join(lines + self._more() + self.device_lines() + self.allocator_lines())

    def _repr_html_(self):
        esc = html.escape
        right = {"count", "bytes"}
        align = ["right" if c in right else "left" for c in self.columns()]
        head = "".join(f"<th style='text-align:{a}'>{esc(c)}</th>"
                       for c, a in zip(self.columns(), align))
        body = "".join("<tr>" + "".join(f"<td style='text-align:{a}'>{esc(c)}</td>"
                                        for c, a in zip(row, align)) + "</tr>"
                       for row in self.table())
        table = (f"<table style='font-size:12px;font-family:monospace'><tr>{head}</tr>{body}"
                 f"</table>") if self.rows else ""
        totals = "".join(f"<li>{esc(line)}</li>" for line in
                         self._more() + self.device_lines() + self.allocator_lines())
        return (f"<div class='jx-memory'><b>{esc(self.title())}</b>{table}"
                f"<ul style='font-size:11px;margin:2px 0'>{totals}</ul></div>")

    def to_json(self) -> dict:
        return {"version": 1, "platform": self.platform, "by_cell": self.by_cell,
                "total_arrays": self.total_arrays, "total_bytes": self.total_bytes,
                "devices": [{"device": d, "arrays": n, "bytes": b} for d, n, b in self.devices],
                "allocator": [{"device": d, **stats} for d, stats in self.allocator
                              if stats is not None] if self.reported() else None,
                "rows": [r.json() for r in self.rows]}



def _unique_buffers(arrays) -> list:
    """`arrays` without deleted ones, each buffer once (two wrappers may share one)."""
    seen, kept = set(), []
    for x in arrays:
        if not isinstance(x, Array):
            raise TypeError(f"memory_report: arrays must hold jxkernel Arrays; got "
                            f"{type(x).__name__} {x!r:.80}")
        buf = buffers([x])[0]
        if id(buf) not in seen and not x.is_deleted():
            seen.add(id(buf))
            kept.append(x)
    return kept


def memory_report(arrays=None, *, platform: str | None = None, origin=None,
                  devices=None) -> MemoryReport:
    """Group `arrays` (default: `live_arrays(platform)`) by shape, dtype and devices, and
    by `origin(array)` (a label such as "In[3]") when an `origin` function is given; with the
    allocator statistics of `devices` (default: the platform's devices).

        >>> memory_report([jnp.ones(3), jnp.zeros(3)]).rows[0].count
        2
    """
    if platform is None:
        platform = client.default_backend()
    found = _unique_buffers(live_arrays(platform) if arrays is None else arrays)
    groups: dict = collections.defaultdict(lambda: [0, 0])
    per_device: dict = collections.defaultdict(lambda: [0, 0])
    for x in found:
        shares = bytes_per_device(x)
        key = (origin(x) if origin else None, tuple(x.shape), str(x.dtype), tuple(shares))
        groups[key][0] += 1
        groups[key][1] += sum(shares.values())
        for device, share in shares.items():
            per_device[device][0] += 1
            per_device[device][1] += share
    rows = sorted((Row(*key, count, size) for key, (count, size) in groups.items()),
                  key=lambda r: (cell_rank(r.cell), -r.bytes, r.shape, r.dtype, r.devices))
    per_device_rows = tuple((d, n, b) for d, (n, b) in sorted(
        per_device.items(), key=lambda item: (item[0].split(":")[0], int(item[0].split(":")[1]))))
    allocator = tuple((client.device_name(d), allocator_stats(d))
                      for d in (client.devices(platform) if devices is None else devices))
    return MemoryReport(platform, tuple(rows), per_device_rows, origin is not None, allocator)


__all__ = ["live_arrays", "live_buffers", "memory_report", "MemoryReport", "Row", "MEMORY_MIME",
           "allocator_stats", "Space"]
