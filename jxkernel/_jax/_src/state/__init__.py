"""jxkernel._src.state, as jax._src.state: mutable array references (`Ref`) and their type."""
from .types import AbstractRef, Ref, new_ref  # noqa: F401
