"""Buffers laid out otherwise than row-major, and the programs that take them (jit's Formats:
Layout.AUTO, a concrete Layout; device_put to one).

PJRT runs a program on a buffer of another layout than its parameter's without a check or a
copy, reading it wrongly (jaxlib 0.10.2's CPU client: a row-major (8, 2) buffer given to a
program compiled for a column-major parameter is read as column-major). JAX's dispatch checks
each argument's layout against the program's and puts it anew where they differ (pxla's
shard_args); jxkernel does the same, but only once a program that takes or gives another layout
has been compiled (`watch`): until then every buffer is row-major and no run checks anything.
From then on each run (xla/executable.py) hands its buffers to `relayed`, which copies those
laid out otherwise than the program's parameters into its layout, shard by shard, with an
identity program compiled for the two layouts. The compiled fast paths (core/_fastpath.c's
Hits), which call jaxlib's execute directly, make no new hits from then on and the ones held
are stale (a new config generation): every call takes the checked path.
"""
from __future__ import annotations

import functools

from ..core.config import config
from . import stablehlo as hlo
from .client import xc
from .compiler import compile_module
from .layout import executable_layouts, from_pjrt_layout
from .op_shardings import get_num_ways_dim_sharded, is_hlo_sharding_replicated

# whether a program taking or giving a layout other than row-major has been compiled: every
# run checks its arguments' layouts from then on (xla/executable.py reads it on each run)
watching = False
# what started it (`watch`'s reason), for the notebook's note (notebook/notes/layout_notes.py)
started_by: str | None = None

PROGRAM = "a program taking or giving a layout other than row-major was compiled or loaded"
ARRAY = "an array was laid out otherwise than row-major (device_put to a Format's layout)"


def watch(reason: str = ARRAY) -> None:
    """From now on, each run checks its arguments' layouts (`relayed`), and the compiled fast
    paths are off (xla/fastpath.py makes no Hits; those held are stale). `reason`: what
    started it (PROGRAM or ARRAY), kept in `started_by`."""
    global watching, started_by
    if not watching:
        watching, started_by = True, reason
        config._note_generation()


def watch_program(loaded, text: str | None = None) -> None:
    """`watch` where the program `loaded`, compiled from module `text`, takes or gives a
    buffer laid out otherwise than row-major (jit's Formats asked for it: `mhlo.layout_mode`;
    `text` None: one loaded from its bytes, read from its layouts alone)."""
    if watching or text is not None and "mhlo.layout_mode" not in text:
        return
    layouts = executable_layouts(loaded.get_parameter_layouts()) + \
        executable_layouts(loaded.get_output_layouts())
    if not all(map(is_row_major, layouts)):
        watch(PROGRAM)


def is_row_major(layout) -> bool:
    """Whether a compiled parameter's or result's `Layout` (xla/layout.py) is the row-major,
    untiled one every other buffer has."""
    return layout.major_to_minor == tuple(range(len(layout.major_to_minor))) and \
        not layout.tiling


def arg_layouts(leaves) -> tuple | None:
    """Per leaf its `Layout` where it is a committed Array laid out otherwise than row-major,
    else None; None where no leaf is (always so until `watch`). A jit compiles its program for
    such an argument's layout where it is given none, as JAX's (pjit's dispatch_arg_layout):
    its call's key holds them, and its fast paths leave such calls to it."""
    if not watching:
        return None
    found = None
    for i, x in enumerate(leaves):
        buf = getattr(x, "_buf", None)
        have = _pjrt_layout(buf)
        if have is None or not buf._committed:
            continue
        layout = from_pjrt_layout(have)
        if not is_row_major(layout):
            found = found or [None] * len(leaves)
            found[i] = layout
    return None if found is None else tuple(found)


def layouts_key(leaves) -> tuple:
    """What a jit's call keys add for `leaves`: (their arg_layouts,) where one is laid out
    otherwise than row-major, else () (a call of row-major Arrays keeps its key)."""
    found = arg_layouts(leaves)
    return () if found is None else (found,)


def parameter_layouts(loaded) -> list | None:
    """jaxlib's PjRtLayouts of a compiled program's parameters (each device's share); None for
    the NumPy backend's programs (row-major NumPy arrays)."""
    found = getattr(loaded, "get_parameter_layouts", None)
    return None if found is None else list(found())


def relayed(bufs, wanted) -> list:
    """`bufs` with each one laid out otherwise than its parameter's PjRtLayout in `wanted`
    copied into that layout (the others as they are); `bufs` itself where none differs (or
    `wanted` is None). A deleted buffer is left to the run's own error."""
    if wanted is None:
        return bufs
    out = None
    for i, (buf, want) in enumerate(zip(bufs, wanted)):
        have = _pjrt_layout(buf)
        if have is not None and have != want:
            if out is None:
                out = list(bufs)
            out[i] = relayout(buf, str(want._xla_layout()))
    return bufs if out is None else out


def _pjrt_layout(buf):
    """jaxlib's PjRtLayout of `buf`; None for a deleted buffer (jaxlib 0.10.2's `_pjrt_layout`
    of a `.delete()`d Array crashes the process: a segmentation fault, not an error), a
    deleted Array's stand-in (xla/deleted.Gone) and anything that is no jaxlib buffer (a
    NumPy backend's, or no Array at all: the run says what)."""
    try:
        if buf.is_deleted():
            return None
        return buf._pjrt_layout
    except Exception:       # noqa: BLE001 (no jaxlib buffer: no is_deleted or no layout)
        return None


def relayout(buf, to: str, aval=None):
    """jaxlib Array `buf` copied into the layout XLA's text `to` says ("{0,1}"), each device's
    share by an identity program for the two layouts, assembled with `buf`'s sharding again.
    `aval`: the type of each device's share, where jaxlib's buffers hold none (else their
    sharding's share of `buf`'s type: an argument put over a mesh for a run)."""
    watch()                         # (a buffer of another layout than row-major may be made)
    shards = buf._arrays
    have = str(buf._pjrt_layout._xla_layout())
    moved = []
    for s in shards:
        typed = s.aval or aval
        shape, dtype = (tuple(typed.shape), typed.dtype) if typed is not None else \
            (_share_shape(buf), buf.aval.dtype)
        moved.append(_identity(shape, dtype, have, to, _device_of(s))
                     .execute_sharded([s]).disassemble_into_single_device_arrays()[0][0])
    return xc.ArrayImpl(buf.aval, buf._sharding, moved, committed=buf._committed,
                        _skip_checks=True)


def _share_shape(buf) -> tuple:
    """The shape of each device's share of jaxlib Array `buf` (of a type, over a jaxlib
    sharding: an argument put over a mesh for a run), as its HloSharding tiles it."""
    shape = tuple(buf.aval.shape)
    hlo = getattr(buf._sharding, "_hlo_sharding", None)
    if hlo is None or is_hlo_sharding_replicated(hlo):
        return shape
    tiles = get_num_ways_dim_sharded(hlo)[0]
    return tuple(-(-d // t) for d, t in zip(shape, tiles))


def _device_of(shard):
    """The device of a one-device jaxlib buffer (its sharding is jaxlib's or jxkernel's)."""
    sharding = shard._sharding
    device = getattr(sharding, "_device", None)
    return device if device is not None else sharding._internal_device_list[0]


@functools.lru_cache(maxsize=256)
def _identity(shape: tuple, dtype, have: str, to: str, device):
    """The program on `device` that copies a buffer of `shape` and `dtype` laid out as XLA's
    text `have` ("{1,0}": minor to major) into `to`."""
    t = hlo.tensor_type(shape, dtype)
    text = (f"module @jit_relayout attributes {{mhlo.num_partitions = 1 : i32, "
            f"mhlo.num_replicas = 1 : i32}} {{\n"
            f"  func.func public @main(%arg0: {t} {{mhlo.layout_mode = \"{have}\"}}) -> "
            f"({t} {{mhlo.layout_mode = \"{to}\"}}) {{\n"
            f"    return %arg0 : {t}\n  }}\n}}\n")
    return compile_module(text, [device])[0]
