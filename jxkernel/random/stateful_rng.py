"""A stateful PRNG over mutable Refs, public as jax.experimental.random (new in JAX 0.10.x, as
jax/_src/random/stateful_rng.py has it): a typed base key and a counter held in a Ref, each
draw folding the counter into the key and adding one to it, so repeated draws differ without
the caller threading a key, in jit too (the counter is a Ref the jitted function closes over or
is passed: api/state.py, transforms/jit/refs.py).

    >>> rng = stateful_rng(0)
    >>> rng.key()
    Array((), dtype=key<fry>) overlaying:
    [1797259609 2579123966]
    >>> rng.integers(0, 10, 3)          # (JAX 0.10.2's draw)
    Array([2, 2, 6], dtype=int32)
"""
from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence

import numpy as np

from .. import numpy as jnp
from ..api.state import AbstractRef, addupdate, get, new_ref
from ..core import dtypes
from ..core.staging import is_ref
from ..core.trace import EvalTrace, Tracer, current_trace
from ..tree_util import register_dataclass
from . import keys, samplers


def _canonicalize_size(size, *args) -> tuple[int, ...]:
    """The shape of a draw: `size` as a tuple, or (None) the broadcast shape of `args`."""
    if size is None:
        return np.broadcast_shapes(*(np.shape(arg) for arg in args))
    if isinstance(size, (int, np.number)):
        return (operator.index(size),)
    return tuple(map(operator.index, size))


def _is_ref(x) -> bool:
    # a Ref, jit's stand-in for one, vmap's view of a mapped one (all three `is_ref`), or a
    # tracer of Ref type: what JAX's check accepts (a Ref, or a tracer with an AbstractRef)
    return is_ref(x) or (isinstance(x, Tracer) and isinstance(x.aval, AbstractRef))


def _is_key_array(x) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "shape") and \
        jnp.issubdtype(x.dtype, dtypes.prng_key)


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class StatefulPRNG:
    """Stateful JAX random generator; make one with `stateful_rng`.

    Attributes: `_base_key`, a typed PRNG key (`jax.random.key`), and `_counter`, a scalar
    integer in a `jax.Ref`.

    >>> stateful_rng(42)
    StatefulPRNG(_base_key=Array((), dtype=key<fry>) overlaying:
    [ 0 42], _counter=Ref(0, dtype=int32, weak_type=True))
    """
    _base_key: object
    _counter: object

    def __post_init__(self):
        # pytree code rebuilds the class around leaves that are not keys (vmap's axes,
        # eval_shape's types): checked only where the leaves are values, as JAX skips its
        # SENTINEL
        if not (isinstance(self._base_key, Tracer) or _is_key_array(self._base_key)) and \
                not isinstance(self._base_key, (jnp.ndarray, np.ndarray)):
            return
        if not _is_key_array(self._base_key):
            raise ValueError(f"Expected base_key to be a typed PRNG key; got {self._base_key}")
        if not _is_ref(self._counter):
            raise ValueError(f"Expected counter to be a scalar integer ref; got {self._counter}")

    def key(self, shape: int | Sequence[int] = ()):
        """A new PRNG key (or `shape` of them) of the base key's implementation; the state
        moves on by one.

        >>> rng = stateful_rng(0); _ = rng.key(); rng.key()
        Array((), dtype=key<fry>) overlaying:
        [ 928981903 3453687069]
        """
        if self._base_key.shape:
            raise ValueError("cannot operate on split stateful generator")
        key = keys.fold_in(self._base_key, get(self._counter, ...))
        addupdate(self._counter, ..., 1)
        shape = _canonicalize_size(shape)
        return keys.split(key, shape) if shape else key

    def random(self, size=None, dtype=float):
        """Floats in the half-open interval [0.0, 1.0)."""
        return samplers.uniform(self.key(), shape=_canonicalize_size(size), dtype=dtype)

    def uniform(self, low=0, high=1, size=None, *, dtype=float):
        """Values drawn uniformly from [low, high)."""
        return samplers.uniform(self.key(), _canonicalize_size(size, low, high),
                                minval=low, maxval=high, dtype=dtype)

    def normal(self, loc=0, scale=1, size=None, *, dtype=float):
        """Normally distributed values of mean `loc` and standard deviation `scale`."""
        norm = samplers.normal(self.key(), _canonicalize_size(size, loc, scale), dtype)
        return (jnp.asarray(loc) + jnp.asarray(scale) * norm).astype(dtype)

    def integers(self, low, high=None, size=None, *, dtype=int):
        """Integers drawn uniformly from [low, high) (from [0, low) without `high`)."""
        if high is None:
            low, high = 0, low
        return samplers.randint(self.key(), _canonicalize_size(size, low, high),
                                minval=low, maxval=high, dtype=dtype)

    def split(self, num: int | Sequence[int]) -> StatefulPRNG:
        """One generator holding `num` independent children, to be mapped by `jax.vmap`.

        >>> rng = stateful_rng(123)
        >>> jax.vmap(lambda r, x: x + r.uniform())(rng.split(3), jnp.zeros(3))
        Array([0.35525954, 0.21937883, 0.5336956 ], dtype=float32)
        """
        return StatefulPRNG(_base_key=self.key(num),
                            _counter=new_ref(jnp.zeros(num, dtype=int)))

    def spawn(self, n_children: int) -> list[StatefulPRNG]:
        """A list of `n_children` independent generators.

        >>> [r.integers(0, 10, 2) for r in stateful_rng(123).spawn(2)]
        [Array([4, 5], dtype=int32), Array([2, 1], dtype=int32)]
        """
        return [self.__class__(key, new_ref(0)) for key in self.key(n_children)]


def stateful_rng(seed=None, *, impl=None) -> StatefulPRNG:
    """A `StatefulPRNG` seeded with `seed` (a 32- or 64-bit integer), as
    `numpy.random.default_rng`: draws update its state in place, under jit too. Without a
    seed, NumPy's entropy seeds it, outside any transformation only.

    >>> rng = stateful_rng(42)
    >>> rng.uniform(), rng.uniform()
    (Array(0.5302608, dtype=float32), Array(0.72766423, dtype=float32))
    """
    if seed is None:
        if not isinstance(current_trace(), EvalTrace):
            raise TypeError(
                "When used within transformed code, jax.experimental.random.stateful_rng()"
                " requires an explicit seed to be set.")
        entropy = np.random.SeedSequence().entropy
        seed = np.int64(entropy & dtypes.iinfo(np.int64).max)
    return StatefulPRNG(_base_key=keys.key(seed, impl=impl), _counter=new_ref(0))
