"""The input-type fixes of a jitted function traced under vmap, where it sees rows: a row's new
shape is told as such, its padding on the array vmap is given (vmap's mapped axis changing
retraces nothing), and a Python number in an earlier call is told as that call's.
"""
from __future__ import annotations

import ast
import inspect
import linecache

from ...core.compile_record import compile_events
from .fixes import _refixed
from .input_types import (BUCKET_SAID, _TRANSPOSED_SAID, _bucket_fill, _dtype_name,
                          _shape_of, _transposed, bucket_floors)


def rows_under_vmap(changes, jitted=None) -> tuple:
    """`changes` of a jitted function (`jitted`) traced under vmap: a row's new shape is
    told as such, with its fix on the array vmap is given (vmap's mapped axis changing
    retraces nothing); a leaf weak before and strong under vmap is told as the earlier
    call's Python number (number_passed: as the learner wrote it), the vmap's array being
    strong already (a cast of it, pasted at the vmap, changed nothing:
    learner13_python_number_then_vmap_cast_pasted misses as before)."""
    fun = getattr(jitted, "_name", "f")
    fun = fun if fun.isidentifier() else "f"
    out = []
    for c in changes:
        if c.kind == "weak_type" and c.old.endswith(" (weak)") and not c.new.endswith(" (weak)"):
            dtype = _dtype_name(c.new)
            number = None if jitted is None else number_passed(jitted, c.path)
            # its code only with the learner's own number: an example's would change the value
            example = number or ("1" if dtype.startswith(("int", "uint")) else "1.0")
            fix, code = _VMAP_AFTER_NUMBER_FIX
            c = _refixed(c, (fix, code if number else ""), fun=fun, dtype=dtype,
                         number=example, said=f", as in {fun}({number})" if number else
                         # (not read at the line: a name, which may hold a weak array)
                         " or an array made from one without a dtype")
        old, new = _shape_of(c.old), _shape_of(c.new)
        if c.kind == "shape" and old is not None and new is not None and len(old) != len(new):
            # external-callbacks' numpy_random_like(x), then jax.vmap(numpy_random_like)(x):
            # "make it that shape where it is made" cannot be done to the row vmap gives
            c = _refixed(c, _VMAP_RANK_FIX, fun=fun)
        elif c.kind == "shape" and _TRANSPOSED_SAID in c.fix and \
                (perm := _transposed(old, new)) is not None:    # the row's axes, after axis 0
            c = _refixed(c, _VMAP_ROWS_TRANSPOSED_FIX, perm=(0, *(i + 1 for i in perm)))
        elif c.kind == "shape" and c.fix.startswith(BUCKET_SAID):
            if old is not None and new is not None and len(old) == len(new):
                floors = bucket_floors(old, new)
                axes = [i for i, floor in enumerate(floors) if floor is not None]
                if len(axes) == 1:
                    c = _refixed(c, _VMAP_ROWS_FIX,
                                 **_bucket_fill(axes[0], old, new, "xs", offset=1))
                else:       # each of the row's axes that changed, as _BUCKETS_FIX pads them
                    c = _refixed(c, _VMAP_ROWS_AXES_FIX, floors=floors)
        out.append(c)
    return tuple(out)


def number_passed(jitted, path: str) -> str | None:
    """The Python number an earlier call of `jitted` passed as its argument `path`, as the
    learner wrote it ("2.5" from the line `f(2.5)`, the latest compile where `path` was weak),
    None where that line holds no one call of the function with a number there."""
    try:
        index = list(inspect.signature(jitted._fun).parameters).index(path)
    except (TypeError, ValueError):
        return None
    name = jitted._name
    for event in reversed(compile_events()):
        site = event.call_site
        if event.key is not jitted or site is None or \
                not dict(event.signature).get(path, "").endswith(" (weak)"):
            continue
        try:
            tree = ast.parse(linecache.getline(site.file, site.line).strip())
        except SyntaxError:
            return None
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and not n.keywords
                 and ast.unparse(n.func).split(".")[-1] == name and len(n.args) > index]
        if len(calls) != 1:
            return None
        arg = calls[0].args[index]
        number = arg.operand if isinstance(arg, ast.UnaryOp) and \
            isinstance(arg.op, (ast.USub, ast.UAdd)) else arg
        if isinstance(number, ast.Constant) and type(number.value) in (int, float):
            return ast.unparse(arg)
        return None
    return None


# a jitted function under vmap sees rows: the fix pads what vmap is given, along the row's axis
_VMAP_ROWS_FIX = (
    "{path} is a row of what vmap maps over, and its shape changed ({old} -> {new}): the "
    "mapped axis may change freely (5 rows or 7 reuse one trace), a row of another shape is "
    "another program. If the two calls map different axes (another in_axes), a compile for "
    "each is expected. If the rows grew, pad the array given to vmap along the row's axis: "
    "lengths up to {floor} then share one program and each doubling past it adds one, at "
    "most {most} compiles for lengths up to {upto}.",
    "n = xs.shape[{axis}]    # xs: the array given to vmap (mapped over axis 0)\n"
    "size = max({floor}, 1 << (n - 1).bit_length())    # a power of two, at least {floor}\n"
    "xs = jnp.pad(xs, {before}[(0, size - n)]{after})")
# the same, a row changed along several axes: each padded (one alone leaves a program per
# length of the other, as _BUCKETS_FIX says)
_VMAP_ROWS_AXES_FIX = (
    "{path} is a row of what vmap maps over, and its shape changed ({old} -> {new}): the "
    "mapped axis may change freely (5 rows or 7 reuse one trace), a row of another shape is "
    "another program. If the two calls map different axes (another in_axes), a compile for "
    "each is expected. If the rows grew, pad the array given to vmap along each of the "
    "row's axes that changed (one alone leaves a program per length of the other): rows up "
    "to {floors} then share one program and each doubling of an axis past it adds one.",
    "floors = {floors}    # per axis of a row: a power of two holding the lengths seen\n"
    "pads = [(0, 0)] + [(0, 0) if m is None else (0, max(m, 1 << (n - 1).bit_length()) - n)\n"
    "                   for m, n in zip(floors, xs.shape[1:])]    # xs: given to vmap\n"
    "xs = jnp.pad(xs, pads)")
# a row's lengths in another order: what vmap is given transposed back, its mapped axis kept
# (JAX 0.10.2 lowers vmap_rows_transposed_fixed once)
_VMAP_ROWS_TRANSPOSED_FIX = (
    "{path} is a row of what vmap maps over, and came as {new}, the lengths of {old} in "
    "another order: every shape is a program of its own. If it is the same data transposed, "
    "give vmap one layout (what it is given transposed back before the call, its mapped "
    "axis first, as below); if the calls really take both layouts, a compile for each is "
    "expected.",
    "xs = jnp.transpose(xs, {perm})    # xs: the array given to vmap; the first call's layout")
# a row of another rank than the nearest earlier compile's argument: the whole array in a call
# outside vmap, or rows of another rank (JAX 0.10.2 logs the miss "now f32[] and before
# f32[5]" and compiles the batched program, for f32[5]: tutorial_notes_cases' vmap_of_a_jit)
_VMAP_RANK_FIX = (
    "{path} is a row of what vmap maps over ({new} now, {old} at the nearest earlier "
    "compile): vmap traces {fun} for one row, so {fun} called on a whole array and vmap of "
    "{fun} over it are two traces, a program each, and rows of another rank are another. "
    "Nothing to fix: each compile is expected.",
    "")
# a Python number in an earlier call, then under vmap (never weak there): the weak side is the
# earlier call's; an array there moves the miss to each later call given a number (JAX 0.10.2:
# learner13_array_first_then_vmap misses at jax.grad(f)(1.0)); arrays in each, one trace
# (learner13_arrays_in_every_call_fixed)
_VMAP_AFTER_NUMBER_FIX = (
    "{path} was weakly typed in an earlier call of {fun} (given a Python number{said}) and "
    "is a strong {dtype} under vmap now: two types, a trace each. Where "
    "vmap maps over it, the weak side is the earlier call's: a row of the array vmap maps "
    "over is never weak, so no rewrite of that array removes this miss (it is {dtype} "
    "already). An array in that earlier call alone moves the miss to the next call given a "
    "Python number (jax.grad({fun}) of one, after it). Give {fun} {a_dtype} array in "
    "place of the Python number in every call that passes one, or keep the two traces.",
    "jnp.asarray({number}, jnp.{dtype})    # in place of {number} in {fun}({number}), and of "
    "each Python number passed as {path}")
