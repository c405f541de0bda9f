"""`JAXSparse`, the base class of the sparse array types (JAX's `sparse._base`): the
array-like attributes every format shares, computed from `shape`, `dtype` and `nse`. The
operators (`@`, `*`, `-x`, ...) are given to each format by `transform.py`, through sparsify.

    >>> JAXSparse.ndim.fget(type("S", (), {"shape": (3, 4)})())
    2
"""
import abc
import math
from typing import NamedTuple

from ...core.trace import Tracer


class SparseEfficiencyError(ValueError):
    """A sparse layout change that would store many zeros explicitly (JAX's)."""


class SparseEfficiencyWarning(UserWarning):
    """The warning twin of `SparseEfficiencyError`."""


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
    """JAX's warning for the cuSPARSE kernels' slow paths (kept for its name)."""


class SparseInfo(NamedTuple):
    """The static facts of a sparse array a primitive needs: its shape and what is known of
    its indices (a hashable parameter, as JAX's)."""
    shape: tuple
    indices_sorted: bool = False
    unique_indices: bool = False


class JAXSparse(abc.ABC):
    """Base class for high-level sparse objects (`BCOO`, `BCSR`)."""
    __hash__ = None      # mutable-looking containers of arrays, as JAX's: not hashable

    def __init__(self, args, *, shape):
        self.shape = tuple(int(s) for s in shape)

    @property
    def dtype(self):
        return self.data.dtype          # (every format holds its stored values in `data`)

    @property
    @abc.abstractmethod
    def nse(self) -> int: ...

    @property
    @abc.abstractmethod
    def n_batch(self) -> int: ...

    @property
    @abc.abstractmethod
    def n_dense(self) -> int: ...

    @property
    def _info(self) -> SparseInfo:
        return SparseInfo(self.shape, self.indices_sorted, self.unique_indices)

    @abc.abstractmethod
    def tree_flatten(self): ...

    @abc.abstractmethod
    def transpose(self, axes=None): ...

    @abc.abstractmethod
    def todense(self): ...

    def __len__(self):
        return self.shape[0]

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def T(self):
        return self.transpose()

    def _repr_extra(self) -> str:
        extra = f", n_batch={self.n_batch}" if self.n_batch else ""
        return extra + (f", n_dense={self.n_dense}" if self.n_dense else "")

    def __repr__(self):
        name = type(self).__name__
        try:
            text = f"{name}({self.dtype}{list(self.shape)}, nse={self.nse}{self._repr_extra()})"
        except Exception:             # a half-built or malformed object, as JAX prints it
            text = f"{name}(<invalid>)"
        if isinstance(self.data, Tracer):
            text = f"{type(self.data).__name__}[{text}]"
        return text

    def block_until_ready(self):
        for buf in self.tree_flatten()[0]:
            buf.block_until_ready()
        return self


def is_sparse(x) -> bool:
    """Whether `x` is a sparse array (a `JAXSparse`: BCOO, BCSR, COO, CSR), a leaf of the
    sparse transformations' pytrees."""
    return isinstance(x, JAXSparse)
