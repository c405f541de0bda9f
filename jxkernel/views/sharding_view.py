"""Where an array's data lives: which device holds which block, drawn as a grid labelled with
the mesh's axes, the shard's shape and the bytes on each device.

    >>> x = jax.device_put(np.zeros((4, 4), np.float32), NamedSharding(mesh, P('x')))  # 2x2 mesh
    >>> v = sharding_view(x)
    >>> v.rows, v.cols, [b.devices for b in v.blocks], v.bytes_per_device
    (2, 1, [[0, 1], [2, 3]], 32)

A block held by several devices (replicated over the mesh axes the spec leaves out) lists
them all and has one colour. `print(v)` is the text grid (`visualize_array_sharding`'s)
under a header; `_repr_html_` a table coloured per block (no script, for a saved notebook);
`to_json` the bundle `application/vnd.jxkernel.sharding+json` that the JupyterLab extension
draws:

    version           1
    title             "f32[4,4]"
    shape, dtype      [4, 4], "float32"
    spec              "P('x',)"          (the PartitionSpec's repr)
    mesh              {"axis_names": ["x", "y"], "axis_sizes": [2, 2]}
    dims              per array dimension, the mesh axes splitting it ([["x"], []])
    replicated_over   the mesh axes no dimension is split over (["y"])
    shard_shape       [2, 4]
    bytes_per_device  32  (a shard's bytes), total_bytes: the array's
    num_devices       4
    rows, cols        the grid's size: rows split dimension 0, columns the others (a 1-d
                      array is one row)
    blocks            [{"row", "col", "devices": [ids], "labels": ["CPU 0", ...],
                        "index": [[start, stop], ...] per dimension, "color": "#rrggbb"}]
    array             the array's repr, or null (the view of `show_sharding` alone)

A sharded Array displays this view under its usual one (its _repr_mimebundle_, xla/sharded.py).
"""
from __future__ import annotations

import dataclasses
import html
import math

import numpy as np

from ..core.avals import ShapedArray
from .rich_view import RichView
from .schema import mime_type

MIME = mime_type("ShardingBundle")
VERSION = 1
# Light backgrounds under near-black text: contrast above 7:1 with every one, in any theme.
PALETTE = ("#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7",
           "#bebada", "#fccde5", "#d9d9d9", "#ccebc5", "#ffed6f")
TEXT_COLOR = "#111111"


@dataclasses.dataclass
class Block:
    row: int
    col: int
    devices: list                  # device ids holding this block
    labels: list                   # 'CPU 0', ...
    index: list                    # [start, stop] per dimension
    color: str


class ShardingView(RichView):
    """The blocks of an array laid out as `sharding` says; see the module docstring."""
    MIME = MIME

    def __init__(self, shape, dtype, sharding, array_text: str | None = None):
        self.shape, self.dtype, self.sharding = tuple(shape), np.dtype(dtype), sharding
        self.array_text = array_text
        mesh = sharding.mesh
        self.axis_names, self.axis_sizes = tuple(mesh.axis_names), tuple(mesh.devices.shape)
        self.dims = [list(a) for a in sharding.spec._axes(len(self.shape))]
        used = {a for axes in self.dims for a in axes}
        self.replicated_over = [a for a in self.axis_names if a not in used]
        self.shard_shape = tuple(sharding.shard_shape(self.shape))
        self.bytes_per_device = math.prod(self.shard_shape) * self.dtype.itemsize
        self.num_devices = mesh.devices.size
        self.blocks = _blocks(self.shape, sharding)
        self.rows = 1 + max(b.row for b in self.blocks)
        self.cols = 1 + max(b.col for b in self.blocks)

    @property
    def title(self) -> str:
        return _type_text(self.dtype, self.shape)

    def header(self) -> list[str]:
        mesh = " × ".join(f"{n}={s}" for n, s in zip(self.axis_names, self.axis_sizes))
        split = "; ".join(f"dim {d} over {' × '.join(map(repr, axes))}" if axes else
                          f"dim {d} whole" for d, axes in enumerate(self.dims))
        copies = self.num_devices // len(self.blocks)
        rep = (f"; replicated over {', '.join(map(repr, self.replicated_over))} "
               f"({copies} copies of each block)" if copies > 1 else "")
        return [f"{self.title} on mesh {mesh} as {self.sharding.spec!r}",
                f"shard {_type_text(self.dtype, self.shard_shape)} · "
                f"{self.bytes_per_device:,} bytes per device · {self.num_devices} "
                f"device{'s' if self.num_devices > 1 else ''}"
                + (f" · {split}" if split else "") + rep]

    def __repr__(self):
        lines = self.header()
        if 1 <= len(self.shape) <= 2:
            lines.append(sharding_picture(self.shape, self.sharding))
        else:
            lines += [f"  {', '.join(b.labels)}: {_index_text(b.index)}" for b in self.blocks]
        return "\n".join(lines)

    def _repr_html_(self):
        head = "".join(f"<div>{html.escape(line)}</div>" for line in self.header())
        cell = ("border:2px solid #fff;padding:6px 10px;text-align:center;font-family:monospace;"
                f"font-size:12px;color:{TEXT_COLOR};background:")
        rows = []
        for r in range(self.rows):
            tds = "".join(f"<td style='{cell}{b.color}' "
                          f"title='{html.escape(_index_text(b.index))}'>"
                          f"{html.escape(', '.join(b.labels))}<br><span style='font-size:10px'>"
                          f"{html.escape(_index_text(b.index))}</span></td>"
                          for b in self.blocks if b.row == r)
            rows.append(f"<tr>{tds}</tr>")
        array = (f"<pre style='margin:2px 0'>{html.escape(self.array_text)}</pre>"
                 if self.array_text is not None else "")
        return (f"<div class='jx-sharding' style='font-size:12px'>{array}{head}"
                f"<table style='border-collapse:collapse;margin:4px 0'>{''.join(rows)}</table>"
                f"</div>")

    def to_json(self) -> dict:
        return {"version": VERSION, "title": self.title, "shape": list(self.shape),
                "dtype": self.dtype.name, "spec": repr(self.sharding.spec),
                "mesh": {"axis_names": list(self.axis_names), "axis_sizes": list(self.axis_sizes)},
                "dims": self.dims, "replicated_over": self.replicated_over,
                "shard_shape": list(self.shard_shape), "bytes_per_device": self.bytes_per_device,
                "total_bytes": math.prod(self.shape) * self.dtype.itemsize,
                "num_devices": self.num_devices, "rows": self.rows, "cols": self.cols,
                "blocks": [dataclasses.asdict(b) for b in self.blocks], "array": self.array_text}


def sharding_view(x, sharding=None) -> ShardingView:
    """The view of `x` (a sharded Array, or anything with .shape and .dtype given a
    NamedSharding).

    >>> sharding_view(jax.ShapeDtypeStruct((8,), jnp.float32), NamedSharding(mesh, P('x'))).cols
    2
    """
    sharding = sharding if sharding is not None else getattr(x, "sharding", None)
    if sharding is None or not hasattr(sharding, "mesh"):
        raise TypeError(f"sharding_view(x): x has sharding {sharding!r}; pass a sharded Array "
                        f"(jax.device_put(x, NamedSharding(mesh, P(...)))) or give a NamedSharding")
    return ShardingView(x.shape, x.dtype, sharding)


def array_bundle(x) -> dict:
    """A sharded Array's display: its repr, then its sharding view (HTML and the bundle)."""
    view = ShardingView(x.shape, x.dtype, x.sharding, repr(x))
    return {"text/plain": repr(x), "text/html": view._repr_html_(), MIME: view.to_json()}


def _blocks(shape, sharding) -> list[Block]:
    """One Block per distinct piece of the array, its devices in mesh order."""
    pieces: dict = {}
    for device, index in sharding.devices_indices_map(shape).items():
        spans = tuple((s.start or 0, n if s.stop is None else s.stop)
                      for s, n in zip(index, shape))
        pieces.setdefault(spans, []).append(device)
    blocks = []
    for spans, devices in pieces.items():
        chunk = [start // max(stop - start, 1) for start, stop in spans]
        per_dim = [max(n // max(stop - start, 1), 1) for (start, stop), n in zip(spans, shape)]
        row = chunk[0] if len(shape) >= 2 else 0
        rest = chunk[1:] if len(shape) >= 2 else chunk
        col = int(np.ravel_multi_index(rest, per_dim[-len(rest):])) if rest else 0
        ids = [d.id for d in devices]
        blocks.append(Block(row, col, ids, [f"{d.platform.upper()} {d.id}" for d in devices],
                            [list(s) for s in spans], PALETTE[min(ids) % len(PALETTE)]))
    return sorted(blocks, key=lambda b: (b.row, b.col))


def _type_text(dtype, shape) -> str:
    return ShapedArray(tuple(shape), dtype).str_short(True)


def _index_text(index) -> str:
    return "[" + ", ".join(f"{a}:{b}" for a, b in index) + "]"


# ------------------------------------------------------------------ the text grid
def visualize_sharding(shape, sharding, *, use_color: bool = True, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map=None) -> None:
    """Print which devices hold which block of a 1-d or 2-d array of `shape` laid out as
    `sharding`, as JAX's grid. JAX draws it with `rich`, in colour only on a terminal; this
    is the layout it prints elsewhere (a notebook, a file), so `use_color` and `color_map`
    change nothing.

    >>> visualize_sharding((8,), NamedSharding(mesh, P('x')))
    ┌───────┬───────┐
    │CPU 0,1│CPU 2,3│
    └───────┴───────┘
    """
    del use_color, color_map
    print(sharding_picture(shape, sharding, scale=scale, min_width=min_width,
                           max_width=max_width))


def visualize_array_sharding(x, **kwargs) -> None:
    """`visualize_sharding(x.shape, x.sharding, **kwargs)`, as in JAX."""
    visualize_sharding(x.shape, x.sharding, **kwargs)


def sharding_picture(shape, sharding, *, scale=1.0, min_width=9, max_width=80) -> str:
    """The text of `visualize_array_sharding` for an array of `shape` laid out as `sharding`."""
    shape = tuple(shape)
    if not 1 <= len(shape) <= 2:
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    cells = _cells(shape, sharding)
    rows = 1 + max(i for i, _ in cells)
    cols = 1 + max(j for _, j in cells)
    kind = next(iter(sharding.device_set)).platform.upper()
    base_height = int(10 * scale)
    base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
    grid = [[_cell_lines(f"{kind} " + ",".join(map(str, sorted(cells[i, j][0]))),
                         cells[i, j][1], cells[i, j][2], base_width, base_height, min_width,
                         max_width) for j in range(cols)] for i in range(rows)]
    widths = [max(len(grid[i][j][0]) for i in range(rows)) for j in range(cols)]
    lines = ["┌" + "┬".join("─" * w for w in widths) + "┐"]
    for i, row in enumerate(grid):
        if i:
            lines.append("├" + "┼".join("─" * w for w in widths) + "┤")
        height = max(len(c) for c in row)
        for k in range(height):
            lines.append("│" + "│".join(_centered(c, k, w) for c, w in zip(row, widths)) + "│")
    lines.append("└" + "┴".join("─" * w for w in widths) + "┘")
    return "\n".join(lines)


def _cells(shape, sharding) -> dict:
    """(row, column) -> (device ids, height fraction or None, width fraction) of each block."""
    cells: dict = {}
    for device, index in sharding.devices_indices_map(shape).items():
        spans = [(0, n) if s.start is None else (s.start, s.stop) for s, n in zip(index, shape)]
        chunk = [start // (stop - start) for start, stop in spans]
        sizes = [(stop - start) / n for (start, stop), n in zip(spans, shape)]
        if len(shape) == 1:
            key, height, width = (0, chunk[0]), None, sizes[0]
        else:
            key, height, width = tuple(chunk), sizes[0], sizes[1]
        cells.setdefault(key, [set(), height, width])[0].add(device.id)
    return cells


def _cell_lines(text, height, width, base_width, base_height, min_width, max_width) -> list:
    """A block's lines: its label padded as JAX pads it (2.5 columns per row of height)."""
    width = min(max(int(width * base_width * 2.5), min_width), max_width)
    height = 1 if height is None else int(height * base_height)
    left, extra = divmod(width - len(text) - 2, 2)
    left, right = max(left, 0), max(left + extra, 0)
    top, extra = divmod(height - 2, 2)
    top, bottom = max(top, 0), max(top + extra, 0)
    blank = " " * (left + len(text) + right)
    return [blank] * top + [" " * left + text + " " * right] + [blank] * bottom


def _centered(cell, k, width) -> str:
    line = cell[k] if k < len(cell) else " " * len(cell[0])
    excess = width - len(line)
    return " " * (excess // 2) + line + " " * (excess - excess // 2)
