"""JAX's logging options and module loggers: `jax_logging_level` sets the loggers "jax" and
"jaxlib" to a level and writes them to stderr; `jax_debug_log_modules` ("jax._src.dispatch",
"jax" for all) makes the loggers it names log at DEBUG to stderr. jxkernel's compile lines
(core/compile_record.py, logger "jxkernel.compile_log") reach JAX's loggers' handlers too,
under JAX's names (`to_jax_loggers`), so that what a handler on `logging.getLogger("jax")`
or these options show is what JAX shows.

    >>> config.update("jax_debug_log_modules", "jax._src.dispatch")
    >>> logging.getLogger("jax._src.dispatch").level == logging.DEBUG
    True
    >>> config.update("jax_debug_log_modules", "")
"""
from __future__ import annotations

import logging
import sys

from .config import config

# JAX's loggers of the compile lines (the module each line is logged from in JAX 0.10.2)
DISPATCH = "jax._src.dispatch"            # "Finished tracing", "... MLIR ...", "... XLA ..."
PXLA = "jax._src.interpreters.pxla"       # "Compiling jit(f) ..."
PARTIAL_EVAL = "jax._src.interpreters.partial_eval"    # "TRACING CACHE MISS ..."

# JAX's line format for what these options write ("DEBUG:2026-...:jax._src.dispatch:204: ...")
FORMAT = logging.Formatter("{levelname}:{asctime}:{name}:{lineno}: {message}", style="{")
LEVELS = {"NOTSET": logging.NOTSET, "DEBUG": logging.DEBUG, "INFO": logging.INFO,
          "WARNING": logging.WARNING, "ERROR": logging.ERROR, "CRITICAL": logging.CRITICAL}


class _Stderr(logging.StreamHandler):
    """A handler writing to the sys.stderr of the moment (pytest's capture, a notebook's)."""

    def __init__(self):
        super().__init__()
        self.setFormatter(FORMAT)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):       # (StreamHandler.__init__ sets it: the moment's is read)
        pass


_level_handler = _Stderr()
_leveled: list = []                # the loggers jax_logging_level set


def _set_level(old, new) -> None:
    """jax_logging_level: the loggers "jax" and "jaxlib" at `new`, writing to stderr. None
    takes the handler away and leaves their level as it was set, as JAX 0.10.2 does (a
    handler of the user's on "jax" still sees its DEBUG lines); "NOTSET" sets NOTSET."""
    for logger in _leveled:
        logger.removeHandler(_level_handler)
    _leveled.clear()
    if new is None:
        return
    for name in ("jax", "jaxlib"):
        logger = logging.getLogger(name)
        logger.setLevel(LEVELS[new])
        if LEVELS[new] != logging.NOTSET:
            logger.addHandler(_level_handler)
            _leveled.append(logger)


class _UnlessLeveled(logging.Filter):
    """A debug module's lines are written once: by its own handler only where the logger
    "jax" has a level above DEBUG, as JAX 0.10.2's (at DEBUG jax_logging_level's handler
    writes them; at NOTSET, its default, JAX's handler writes nothing either: a handler on
    "jax" sees them)."""

    def filter(self, record) -> bool:
        return logging.getLogger("jax").level > logging.DEBUG


_debug_handler = _Stderr()
_debug_handler.setLevel(logging.DEBUG)
_debug_handler.addFilter(_UnlessLeveled())
_debugged: list = []               # (logger, its level before) per module named


def _set_debug_modules(old, new) -> None:
    """jax_debug_log_modules: each named logger at DEBUG, writing to stderr; the ones named
    before given back their levels."""
    for logger, level in _debugged:
        logger.removeHandler(_debug_handler)
        logger.setLevel(level)
    _debugged.clear()
    for name in (new or "").split(","):
        if name:
            logger = logging.getLogger(name)
            _debugged.append((logger, logger.level))
            logger.addHandler(_debug_handler)
            logger.setLevel(logging.DEBUG)


def jax_logger_enabled(name: str, level: int) -> bool:
    """Whether JAX's logger `name` (or one above it, below the root) would pass a record of
    `level` to a handler of its own: what `to_jax_loggers` delivers to."""
    logger = logging.getLogger(name)
    if not logger.isEnabledFor(level):
        return False
    while logger is not None and logger is not logging.root:
        if logger.handlers:
            return True
        if not logger.propagate:
            return False
        logger = logger.parent
    return False


def to_jax_loggers(name: str, level: int, line: str, extra=None) -> None:
    """`line`, logged by jxkernel on "jxkernel.compile_log", handed to the handlers of JAX's
    logger `name` and of those above it, the root's excepted (the root has the line from
    jxkernel's logger already: one line, not two, for `logging.basicConfig`)."""
    if not jax_logger_enabled(name, level):
        return
    logger = logging.getLogger(name)
    record = logger.makeRecord(name, level, __file__, 0, "%s", (line,), None, extra=extra)
    while logger is not None and logger is not logging.root:
        if logger.filter(record):
            for handler in logger.handlers:
                if record.levelno >= handler.level:
                    handler.handle(record)
        if not logger.propagate:
            return
        logger = logger.parent


config.watch("jax_logging_level", _set_level)
config.watch("jax_debug_log_modules", _set_debug_modules)
# (set by the environment: JAX_LOGGING_LEVEL=DEBUG, JAX_DEBUG_LOG_MODULES=jax)
if config.jax_logging_level not in (None, "NOTSET"):
    _set_level(None, config.jax_logging_level)
_set_debug_modules(None, config.jax_debug_log_modules)
