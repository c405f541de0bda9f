"""Named axes bound while pmap and shard_map trace their bodies.

vmap's named axes live on its traces (`trace.axis_data`); pmap and shard_map bind theirs
here, so a collective in the body (`lax.psum(x, 'i')`, `lax.axis_size('i')`) finds the
axis size while lax stays below the transformations that bind it.

    >>> with bound_axis("i", 4):
    ...     axis_size("i")
    4
    >>> axis_size("i") is None
    True
"""
import threading

from .trace import current_trace

_env = threading.local()


def axis_size(name):
    """The size of the innermost axis `name` bound by pmap or shard_map (None if unbound)."""
    for bound_name, size in reversed(getattr(_env, "stack", [])):
        if bound_name == name:
            return size
    return None


class bound_axis:
    """A context in which axis `name` has size `size`."""

    def __init__(self, name, size):
        self.entry = (name, size)

    def __enter__(self):
        if not hasattr(_env, "stack"):
            _env.stack, _env.levels = [], []
        _env.stack.append(self.entry)
        _env.levels.append(current_trace().level)     # (axis_names' order: where it was bound)

    def __exit__(self, *exc):
        _env.stack.pop()
        _env.levels.pop()


def visible_axes() -> tuple:
    """Every named axis a function traced here sees, as (name, size): the enclosing vmaps'
    (on the traces), then those pmap and shard_map bound, each innermost first. A cached
    trace is only valid where these are the same (`lax.axis_size` reads them at trace time).

        >>> with bound_axis("i", 4):
        ...     visible_axes()
        (('i', 4),)
    """
    found = []
    t = current_trace()
    while t is not None:
        data = getattr(t, "axis_data", None)
        if data is not None and data.name is not None:
            found.append((data.name, data.size))
        t = t.parent
    return (*found, *reversed(getattr(_env, "stack", ())))


def axis_names() -> list:
    """The names of visible_axes() outermost first, each once, where it was first bound (JAX's
    axis env, an insertion-ordered dict: `unsafe_get_axis_names`). A vmap's axis is bound
    where its trace is; pmap's and shard_map's where the trace current then was, after it.

        >>> with bound_axis("i", 4), bound_axis("j", 2), bound_axis("i", 8):
        ...     axis_names()
        ['i', 'j']
    """
    found = []
    t = current_trace()
    while t is not None:
        data = getattr(t, "axis_data", None)
        if data is not None and data.name is not None:
            found.append(((t.level, 0, 0), data.name))
        t = t.parent
    found += [((level, 1, i), name) for i, ((name, _), level) in
              enumerate(zip(getattr(_env, "stack", ()), getattr(_env, "levels", ())))]
    return list(dict.fromkeys(name for _, name in sorted(found, key=lambda f: f[0])))
