"""What the user's frame holds under a name, as the cards read it (never calling the user's
code): an array's shape, a jit object, one example of a vmap."""
from __future__ import annotations

from ...transforms.batching import BatchTracer


def _named_value(frame, name):
    """What `name` holds in the user's `frame`: its local, else its global (None if neither)."""
    return frame.f_locals.get(name, frame.f_globals.get(name))


def _is_one_example(value) -> bool:
    """Whether `value` is vmap's tracer: inside jax.vmap the function sees one example, and
    its shape is that example's, where JAX's messages list the batched one."""
    return isinstance(value, BatchTracer)
