"""jxkernel.debug: look at values inside jit, vmap, grad and loops (`jax.debug`).

    >>> @jax.jit
    ... def f(x):
    ...     jax.debug.print("x = {x}", x=x)
    ...     return x * 2
    >>> f(jnp.arange(3.0))
    x = [0. 1. 2.]
    Array([0., 2., 4.], dtype=float32)

Values arrive when the program runs (not when it is traced), as Arrays. Under vmap the
callback runs once per batch element; under grad it sees the primal values; in a scan or
while loop, once per iteration. A jitted program that calls back runs synchronously, so its
output appears during the call.
"""
from __future__ import annotations

import logging as _logging
import string as _string
import sys as _sys
import warnings as _warnings

import numpy as _np

from .core.source_info import is_user_filename as _is_user_filename, user_source_info
from .core.traceback_util import include_filename as _include_filename
from .core.trace import Tracer as _Tracer
from .lax.callbacks import (
    DebugEffect,
    OrderedDebugEffect,
    debug_callback_p,
    debug_effect,
    debug_print_p,
    merge_static,
    ordered_debug_effect,
    split_callback_args,
)
from .lax.inspect_sharding import inspect_array_sharding  # noqa: F401
from .tree_util import tree_flatten as _tree_flatten
from .xla.array import ArrayImpl as _ArrayImpl

__all__ = ["DebugEffect", "OrderedDebugEffect", "breakpoint", "callback", "log", "print"]


def debug_callback(callback=None, *args, ordered=False, partitioned=False, **kwargs):
    """Call `callback(*args, **kwargs)` for its side effect, also from compiled code.

    >>> shapes = []            # (here `print` is this module's, jax.debug.print)
    >>> jax.debug.callback(lambda x: shapes.append(x.shape), jnp.ones(3))
    >>> shapes
    [(3,)]

    Array leaves of the arguments are passed as Arrays with their runtime values; other
    leaves (strings, ...) as they are. Two-call form: ``jax.debug.callback(ordered=True)(f,
    x)``. XLA keeps the call even though nothing uses it; `ordered=True` (effect
    OrderedDebug) keeps such calls in program order, threaded by the program's effect token
    (without it XLA's CPU runtime may run two of them in either order).
    """
    def _debug_callback(callback, *c_args, **c_kwargs):
        if not callable(callback):
            raise TypeError(f"first argument to jax.debug.callback must be callable, but got "
                            f"an object of type {type(callback)}")
        in_tree, dyn, static = split_callback_args(c_args, c_kwargs)
        static = tuple(static.items())

        def _flat_callback(*dyn_leaves):      # printed in jaxprs by its qualified name, as JAX's
            f_args, f_kwargs = merge_static(in_tree, dyn_leaves, static)
            callback(*f_args, **f_kwargs)
        _flat_callback.callback_func = callback     # named in error messages

        debug_callback_p.bind(*dyn, callback=_flat_callback,
                              effect=ordered_debug_effect if ordered else debug_effect,
                              partitioned=partitioned)

    return _one_or_two_calls("debug_callback", _debug_callback, callback, args, kwargs)


def _one_or_two_calls(name, call, first, args, kwargs):
    """JAX's two forms of debug_callback and debug_print: with its first argument, `call`
    runs now; without (options only), `call` is returned to be called."""
    if first is not None:
        call(first, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"{name} received unexpected arguments in the two-call form: "
                        f"{args=} {kwargs=}")
    return call


class _FormatChecker(_string.Formatter):
    """Checks a format against its arguments when traced; formats nothing."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused_kw:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused_kw}. You may be "
                f"passing an f-string (i.e, `f\"{{x}}\"`) into `jax.debug.print` and instead "
                f"should pass in a regular string.")


_checker = _FormatChecker()


def debug_print(fmt=None, *args, ordered=False, partitioned=False, skip_format_check=False,
                _use_logging=False, **kwargs):
    """Print `fmt.format(*args, **kwargs)` with the values the program computes.

    >>> jax.jit(lambda x: jax.debug.print("x = {x}, {}", 2, x=x))(jnp.ones(2))
    x = [1. 1.], 2

    Not an f-string: the values are filled in when the program runs. Arrays print as NumPy
    prints them (with the NumPy print options in force when traced); ``{x!r}`` gives the
    Array's repr. Two-call form: ``jax.debug.print(ordered=True)("{}", x)``.
    """
    def _debug_print(fmt, *c_args, **c_kwargs):
        if not skip_format_check:
            _checker.format(fmt, *c_args, **c_kwargs)
        # as JAX: only the first piece of the format decides whether it has placeholders
        has_placeholders = bool(fmt) and next(iter(_string.Formatter().parse(fmt)))[1] is not None
        in_tree, dyn, static = split_callback_args(c_args, c_kwargs)
        record = None
        if _use_logging:
            where = user_source_info(2)
            record = _logger.makeRecord(_logger.name, _logging.INFO,
                                        where.file if where else "(unknown file)",
                                        where.line if where else 0, "", (), None)
        debug_print_p.bind(*dyn, fmt=fmt, ordered=ordered, partitioned=partitioned,
                           in_tree=in_tree, static_args=tuple(static.items()),
                           np_printoptions=tuple(_np.get_printoptions().items()),
                           has_placeholders=has_placeholders, logging_record=record)

    return _one_or_two_calls("debug_print", _debug_print, fmt, args, kwargs)


# JAX's logger name for jax.debug's module: a script's logging configuration (or a library's
# filter) for JAX's debug.log applies here too
_logger = _logging.getLogger("jax._src.debugging")


def log(fmt=None, *args, ordered=False, partitioned=False, skip_format_check=False, **kwargs):
    """Like `print`, but the text goes to the `jax._src.debugging` logger at INFO level."""
    return debug_print(fmt, *args, ordered=ordered, partitioned=partitioned,
                       skip_format_check=skip_format_check, _use_logging=True, **kwargs)


def _shown_at_the_prompt(filename: str) -> bool:
    """Whether breakpoint's prompt lists a frame of `filename`. JAX's lists the frames its
    filtered tracebacks keep (traceback_util.include_frame in JAX 0.10.2's debugger/core.py,
    so a library registered there is left out); this one keeps to the user's lines as well
    (not the standard library's, nor the shell's the notebook registers with source_info)."""
    return _is_user_filename(filename) and _include_filename(filename)


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,
               token=None, **kwargs):
    """Stop here when the program runs and open a debugger prompt (`(jdb) `) on the user's
    frames, with the values the program computed (see jxkernel/views/debugger.py's commands).

    Inside jit the prompt opens when the compiled program reaches this point, each time
    (under a false branch of `lax.cond`, never). `num_frames` limits the frames kept;
    `filter_frames=False` keeps jxkernel's own; `token` (a pytree of arrays) is returned
    unchanged. Only the text debugger exists: `backend` may be None or "cli"; the other
    keywords go to it, as JAX's (`stdin=`, `stdout=`: files it reads commands from and
    writes to, instead of the terminal).
    """
    # the debugger (and what it reads) loads only when a breakpoint is hit
    from .views import debugger as _debugger
    if backend not in (None, "cli"):
        raise ValueError(f"jax.debug.breakpoint: backend={backend!r} is not available; "
                         f"jxkernel has the text debugger only (backend=None or 'cli')")
    frames = _debugger.user_frames(_sys._getframe(1), _shown_at_the_prompt if filter_frames
                                   else None, num_frames)
    staged = [_stage_locals(f.locals, _debugger.CANT_FLATTEN) for f in frames]

    def _enter(values):
        for frame, (trees, _), runtime in zip(frames, staged, values):
            for name, (tree, leaves, where) in trees.items():
                leaves = list(leaves)
                for i, value in zip(where, runtime[name]):
                    leaves[i] = value
                frame.locals[name] = tree.unflatten(leaves)
        _debugger.Debugger(frames, **kwargs).run()

    debug_callback(_enter, [arrays for _, arrays in staged], ordered=ordered)
    return token


def _stage_locals(frame_locals: dict, cant_flatten) -> tuple:
    """Split a frame's locals for breakpoint's callback: each local whose pytree holds arrays
    (tracers under jit) -> (its treedef, its leaves, the arrays' places), and the arrays by
    name, which go through the callback so the prompt sees their runtime values; the other
    locals stay in `frame_locals` as they were when traced, one that is no pytree (a dict
    whose keys do not sort) replaced by `cant_flatten`, as JAX's jdb shows it."""
    trees, arrays = {}, {}
    for name, value in list(frame_locals.items()):
        try:
            # the debugger's own look at the user's locals: no pytree warning of theirs (a
            # generator among them "is treated as a leaf") is the user's to act on
            with _warnings.catch_warnings():
                _warnings.simplefilter("ignore", DeprecationWarning)
                leaves, tree = _tree_flatten(value)
        except Exception:   # noqa: BLE001 -- any failure to flatten: JAX's placeholder
            frame_locals[name] = cant_flatten
            continue
        where = [i for i, leaf in enumerate(leaves) if isinstance(leaf, (_Tracer, _ArrayImpl))]
        if where:
            trees[name] = (tree, leaves, where)
            arrays[name] = [leaves[i] for i in where]
    return trees, arrays


callback = debug_callback
print = debug_print


def visualize_array_sharding(arr, **kwargs):
    """Print which devices hold which block of a 1-d or 2-d array (see sharding_view.py).

    >>> jax.debug.visualize_array_sharding(jnp.zeros(4))
    ┌───────┐
    │ CPU 0 │
    └───────┘
    """
    # deferred: the views load on first use, not with `import jxkernel`
    from .views.sharding_view import visualize_sharding as visualize
    # the sharding as inspect_array_sharding sees it, as JAX's: at once for an Array, when
    # the program is compiled for a value inside jit or shard_map (a tracer has no .sharding)
    inspect_array_sharding(arr, callback=lambda sharding: visualize(arr.shape, sharding,
                                                                     **kwargs))


def visualize_sharding(shape, sharding, **kwargs):
    """Print which devices hold which block of an array of `shape` laid out as `sharding`
    (what `visualize_array_sharding(x)` prints for `x.shape`, `x.sharding`)."""
    from .views.sharding_view import visualize_sharding as visualize  # the view: on first use
    visualize(shape, sharding, **kwargs)
