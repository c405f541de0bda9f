"""JAX's deprecations by id: each warns (DeprecationWarning) until it is accelerated, then
raises. JAX's tests accelerate one to check the error it will become
(`jax._src.deprecations.accelerate`); `JaxTestCase.assertDeprecationWarnsOrRaises` asks which.

    >>> is_accelerated("jax-numpy-astype-complex-to-real")
    False
    >>> with accelerated("jax-numpy-astype-complex-to-real"):
    ...     warn("jax-numpy-astype-complex-to-real", "no more", stacklevel=1)
    Traceback (most recent call last):
    ValueError: no more
"""
import contextlib
import warnings

# id -> accelerated?; the ids JAX 0.10.2 registers
_registered: dict[str, bool] = {}


def register(deprecation_id: str) -> None:
    _registered[deprecation_id] = False


def unregister(deprecation_id: str) -> None:
    _known(deprecation_id)
    del _registered[deprecation_id]


def accelerate(deprecation_id: str) -> None:
    """From now on, `warn(deprecation_id, ...)` raises."""
    _known(deprecation_id)
    _registered[deprecation_id] = True


def is_accelerated(deprecation_id: str) -> bool:
    _known(deprecation_id)
    return _registered[deprecation_id]


@contextlib.contextmanager
def accelerated(deprecation_id: str):
    """`deprecation_id` accelerated inside the block only."""
    before = is_accelerated(deprecation_id)
    _registered[deprecation_id] = True
    try:
        yield
    finally:
        _registered[deprecation_id] = before


def warn(deprecation_id: str, message: str, stacklevel: int, *,
         error_class: type[Exception] = ValueError) -> None:
    """Warn `message` (DeprecationWarning), or raise `error_class(message)` once accelerated."""
    if is_accelerated(deprecation_id):
        raise error_class(message)
    warnings.warn(message, DeprecationWarning, stacklevel=stacklevel + 1)


def _known(deprecation_id: str) -> None:
    if deprecation_id not in _registered:
        raise ValueError(f"{deprecation_id=!r} not registered.")


for _id in ("jax-array-numpy-dtype", "jax-nn-one-hot-float-input",
            "jax-numpy-astype-complex-to-real", "jax-array-positional-args",
            "jax-pallas-call-mgpu", "jax-pallas-mgpu-shapes-types"):
    register(_id)
