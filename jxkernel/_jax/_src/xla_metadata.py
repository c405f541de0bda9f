"""jxkernel._src.xla_metadata, as jax._src.xla_metadata for what JAX's tests read of it:
`set_xla_metadata`, which in JAX marks the operations traced inside it with XLA frontend
attributes. jxkernel's lowering attaches none, so it refuses rather than drop them silently.

    >>> with set_xla_metadata(_my_tag="yes"):
    ...     pass
    Traceback (most recent call last):
    NotImplementedError: set_xla_metadata(_my_tag='yes'): jxkernel does not attach XLA metadata (frontend attributes) to the operations it lowers; leave the block out
"""


def set_xla_metadata(x=None, **kwargs):
    """Refused: see the module's docstring."""
    given = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    raise NotImplementedError(
        f"set_xla_metadata({given}): jxkernel does not attach XLA metadata (frontend "
        f"attributes) to the operations it lowers; leave the block out")
