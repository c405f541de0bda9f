"""Host values that carry their JAX type (JAX's jax._src.literals, forwarded there from here):
what `vjp` keeps a Python-scalar primal as, and what a custom rule gets for a scalar constant.

TypedInt, TypedFloat and TypedComplex are Python scalars with a dtype: weakly typed, like a
plain int, but of a fixed width that no x64 mode changes. TypedNdArray is a NumPy array with
an aval (possibly weak) whose dtype is likewise kept as it is.

    >>> x = TypedInt(6, np.dtype(np.int64))
    >>> x + 1, x.aval, dtype(x)
    (7, ShapedArray(int64[], weak_type=True), dtype('int64'))
    >>> TypedNdArray(np.array([1, 2], np.int64))
    TypedNdArray([1, 2], dtype=int64)
"""
import numpy as np

from .avals import ShapedArray
from .dtypes import dtype, register_uncanonicalized_type


def _weak_scalar_aval(dtype) -> ShapedArray:
    """The aval every typed scalar of `dtype` shares (rank 0, weak)."""
    dtype = np.dtype(dtype)
    if dtype not in _SCALAR_AVALS:
        _SCALAR_AVALS[dtype] = ShapedArray((), dtype, weak_type=True)
    return _SCALAR_AVALS[dtype]


_SCALAR_AVALS: dict = {}


def _typed_scalar(base: type):
    """The subclass of Python scalar type `base` that carries a dtype (weakly typed)."""
    name = f"Typed{base.__name__.capitalize()}"

    def __new__(cls, value, dtype):
        self = base.__new__(cls, value)
        self.dtype = np.dtype(dtype)
        self.aval = _weak_scalar_aval(self.dtype)
        return self

    def __repr__(self):
        return f"{name}({base(self)}, dtype={self.dtype.name})"

    def __getnewargs__(self):                     # pickle and copy rebuild it with its dtype
        return (base(self), self.dtype)

    namespace = {"__new__": __new__, "__repr__": __repr__, "__getnewargs__": __getnewargs__,
                 "__doc__": f"A Python {base.__name__} with a dtype: `{name}(6, np.dtype"
                            f"(np.int64))`, weakly typed, its dtype kept in any x64 mode."}
    if base is float:                             # str() of a float stays its number
        namespace["__str__"] = lambda self: str(float(self))
    return type(name, (base,), namespace)


TypedInt = _typed_scalar(int)
TypedFloat = _typed_scalar(float)
TypedComplex = _typed_scalar(complex)
typed_scalar_types: set = {TypedInt, TypedFloat, TypedComplex}


def typed_scalar(x, dtype):
    """The Python scalar `x` carrying `dtype`, as JAX's canonicalize_value makes it (a bool
    stays itself).

    >>> typed_scalar(2.0, np.float32)
    TypedFloat(2.0, dtype=float32)
    """
    for base, kind in ((bool, None), (int, TypedInt), (float, TypedFloat),
                       (complex, TypedComplex)):
        if isinstance(x, base):
            return x if kind is None else kind(x, dtype)
    raise TypeError(f"typed_scalar: {x!r} is not a Python scalar")


class TypedNdArray(np.ndarray):
    """A host array with an aval: its dtype is never canonicalized, and it may be weakly
    typed. Arithmetic on it gives plain NumPy arrays (the type is the value's, not the
    result's); slices and views keep the weak type.

    >>> w = TypedNdArray(np.array([6]), ShapedArray((1,), np.int64, weak_type=True))
    >>> w.weak_type, type(w + 1).__name__
    (True, 'ndarray')
    """

    def __new__(cls, val, aval: ShapedArray | None = None):
        self = np.asarray(val).view(cls)
        if aval is not None:
            self._aval = aval
        return self

    def __array_finalize__(self, obj):
        # a view of a TypedNdArray keeps its weak type; its aval is remade for its shape
        self._aval = None
        self._weak_type = isinstance(obj, TypedNdArray) and obj.weak_type

    @property
    def aval(self) -> ShapedArray:
        if self._aval is None:
            self._aval = ShapedArray(self.shape, self.dtype, weak_type=self._weak_type)
        return self._aval

    weak_type = property(lambda self: self.aval.weak_type)
    val = property(lambda self: np.asarray(self))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # compute on the plain arrays: a result is NumPy's, with no JAX type to keep
        plain = lambda xs: tuple(np.asarray(x) if isinstance(x, TypedNdArray) else x for x in xs)
        if "out" in kwargs:
            kwargs["out"] = plain(kwargs["out"])
        return getattr(ufunc, method)(*plain(inputs), **kwargs)

    def __repr__(self):
        prefix = "TypedNdArray("
        suffix = f"dtype={self.dtype.name}" + (", weak_type=True)" if self.weak_type else ")")
        width = np.get_printoptions()["linewidth"]
        body = f"[], shape={self.shape}" if self.size == 0 else np.array2string(
            np.asarray(self), prefix=prefix, suffix=",", separator=", ", max_line_width=width)
        last_line = len(body) - body.rfind("\n") + 1
        sep = " " * len(prefix) if last_line + len(suffix) + 1 > width else " "
        return f"{prefix}{body},{sep}{suffix}"

    def __reduce__(self):
        # pickled with its aval (JAX 0.10.2 passes the weak flag where the aval goes, so its
        # weak arrays come back broken; here they come back as they were)
        return (TypedNdArray, (np.asarray(self), self.aval))


# their dtypes are theirs in any x64 mode (their weak types are their avals', which
# dtypes.is_weakly_typed reads)
for _type in (*typed_scalar_types, TypedNdArray):
    register_uncanonicalized_type(_type)
