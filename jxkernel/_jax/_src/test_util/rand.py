"""Random test inputs as JAX's test files draw them: `rand_default(rng)(shape, dtype)` and its
kin, from a NumPy RandomState, so a test seeded alike gets the same values under JAX and here.

A shape is a tuple, or one of two markers: `NUMPY_SCALAR_SHAPE` (a NumPy scalar of the dtype)
and `PYTHON_SCALAR_SHAPE` (a Python scalar), which tests use to exercise weak types.

    >>> rng = np.random.RandomState(0)
    >>> rand_default(rng)((2,), np.float32).dtype, type(rand_default(rng)(PYTHON_SCALAR_SHAPE, np.float32))
    (dtype('float32'), <class 'float'>)
"""
import functools
import math

import numpy as np

from ....core import dtypes as _core
from ....core.config import config
from .dtype_lists import _dtype


class ScalarShape:
    """A shape standing for a scalar: empty, so code that loops over dimensions sees ()."""
    def __len__(self):
        return 0

    def __getitem__(self, i):
        raise IndexError(f"index {i} out of range.")


class _NumpyScalar(ScalarShape):
    pass


class _PythonScalar(ScalarShape):
    pass


NUMPY_SCALAR_SHAPE = _NumpyScalar()
PYTHON_SCALAR_SHAPE = _PythonScalar()


def is_valid_shape(shape, dtype) -> bool:
    """A Python scalar only of a dtype Python has (bool, int64, float64, complex128)."""
    if shape == PYTHON_SCALAR_SHAPE:
        return dtype == np.dtype(type(np.array(0, dtype=dtype).item()))
    return True


def _dims_of_shape(shape) -> tuple:
    if type(shape) in (list, tuple):
        return shape
    if isinstance(shape, ScalarShape):
        return ()
    if np.ndim(shape) == 0:
        return (shape,)
    raise TypeError(type(shape))


def _cast_to_shape(value, shape, dtype):
    """`value` as the kind of thing `shape` asks for: a NumPy or Python scalar, or the array."""
    if shape is NUMPY_SCALAR_SHAPE:
        return np.dtype(dtype).type(value)
    if shape is PYTHON_SCALAR_SHAPE:
        return np.asarray(value).item()
    if type(shape) in (list, tuple):
        assert np.shape(value) == tuple(shape)
        return value
    if np.ndim(shape) == 0:
        assert np.shape(value) == (shape,)
        return value
    raise TypeError(type(shape))


def dtype_str(dtype) -> str:
    return np.dtype(dtype).name


def format_shape_dtype_string(shape, dtype) -> str:
    """'float32[2,3]', 'float32' (a NumPy scalar), 'pyfloat64' (a Python scalar): the piece
    of a test's name that says its input."""
    if isinstance(shape, np.ndarray):
        return f"{dtype_str(dtype)}[{shape}]"
    if shape is NUMPY_SCALAR_SHAPE:
        return dtype_str(dtype)
    if shape is PYTHON_SCALAR_SHAPE:
        return "py" + dtype_str(dtype)
    if type(shape) in (tuple, list):
        return f"{dtype_str(dtype)}[{','.join(str(d) for d in shape)}]"
    if type(shape) is int:
        return f"{dtype_str(dtype)}[{shape},]"
    raise TypeError(type(shape))


def _rand_dtype(rand, shape, dtype, scale=1., post=lambda x: x):
    """`rand(*dims)` scaled, cast to `dtype` (its absolute value for unsigned types; real and
    imaginary parts drawn apart for complex), passed through `post`."""
    unsigned = _core.issubdtype(dtype, np.unsignedinteger)     # (uint4 too, as JAX's)
    draw = lambda: np.asarray(scale * (abs(rand(*_dims_of_shape(shape))) if unsigned
                                       else rand(*_dims_of_shape(shape)))).astype(dtype)
    vals = draw() + 1.0j * draw() if _core.issubdtype(dtype, np.complexfloating) else draw()
    return _cast_to_shape(np.asarray(post(vals), dtype), shape, dtype)


def rand_fullrange(rng, standardize_nans=False):
    """Random bytes viewed as `dtype`: every bit pattern (NaNs made standard on request, as
    NumPy's equality checks need)."""
    def gen(shape, dtype, post=lambda x: x):
        dtype = np.dtype(dtype)
        size = dtype.itemsize * math.prod(_dims_of_shape(shape))
        draws = rng.randint(0, _core.iinfo(np.uint8).max, size=size, dtype=np.uint8)
        vals = post(draws).view(dtype)
        if shape is PYTHON_SCALAR_SHAPE:      # a Python int must fit the signed default
            if dtype == np.uint64:
                vals = vals.astype(np.int64)
            elif dtype == np.uint32 and not config.jax_enable_x64:
                vals = vals.astype(np.int32)
        vals = vals.reshape(shape)
        # NumPy's floats only, as JAX's np.issubdtype there: a bfloat16 NaN keeps its bits
        if standardize_nans and dtype.kind == "f":
            vals[np.isnan(vals)] = np.nan
        return _cast_to_shape(vals, shape, dtype)
    return gen


def rand_default(rng, scale=3):
    return functools.partial(_rand_dtype, rng.randn, scale=scale)


def rand_nonzero(rng):
    post = lambda x: np.where(x == 0, np.array(1, dtype=x.dtype), x)
    return functools.partial(_rand_dtype, rng.randn, scale=3, post=post)


def rand_positive(rng):
    return functools.partial(_rand_dtype, rng.rand, scale=2, post=lambda x: x + 1)


def rand_small(rng):
    return functools.partial(_rand_dtype, rng.randn, scale=1e-3)


def rand_not_small(rng, offset=10.):
    post = lambda x: x + np.where(x > 0, offset, -offset)
    return functools.partial(_rand_dtype, rng.randn, scale=3., post=post)


def rand_small_positive(rng):
    return functools.partial(_rand_dtype, rng.rand, scale=2e-5)


def rand_uniform(rng, low=0.0, high=1.0):
    assert low < high
    return functools.partial(_rand_dtype, rng.rand, post=lambda x: x * (high - low) + low)


def rand_some_equal(rng):
    """About half the entries equal to the first (ties for sorts, uniques, extrema)."""
    def post(x):
        flat = x.ravel()
        if len(flat) == 0:
            return x
        return np.where(rng.rand(*np.shape(x)) < 0.5, flat[0], x)
    return functools.partial(_rand_dtype, rng.randn, scale=100., post=post)


def _complex_from_parts(rand, shape, dtype):
    """A complex sample whose real and imaginary parts are each drawn by `rand`."""
    part = np.real(np.array(0, dtype=dtype)).dtype
    return _cast_to_shape(rand(shape, part) + np.array(1j, dtype) * rand(shape, part),
                          shape, dtype)


def _with_specials(rng, specials, complex_first):
    """rand_default's values with some entries replaced by special values; only floating
    dtypes get them. `specials`: (value, threshold, redraw): where a uniform draw (a fresh one
    if `redraw`, else the previous one) is below `threshold`, the entry becomes `value`, later
    ones winning. The draws come before the values, in JAX's order, so that a seeded test gets
    JAX's inputs."""
    base = rand_default(rng)

    def rand(shape, dtype):
        if complex_first and _core.issubdtype(dtype, np.complexfloating):
            return _complex_from_parts(rand, shape, dtype)
        if not _core.issubdtype(dtype, np.floating):      # (bfloat16 too, as JAX's)
            return base(shape, dtype)
        dims = _dims_of_shape(shape)
        masks, draw = [], None
        for _, threshold, redraw in specials:
            draw = rng.rand(*dims) if redraw else draw
            masks.append(draw < threshold)
        vals = base(shape, dtype)
        for (value, _, _), mask in zip(specials, masks):
            vals = np.where(mask, np.array(value, dtype=dtype), vals)
        return _cast_to_shape(np.asarray(vals, dtype=dtype), shape, dtype)
    return rand


def rand_some_inf(rng):
    """Some +inf and -inf among the floats."""
    return _with_specials(rng, [(np.inf, 0.1, True), (-np.inf, 0.1, True)], complex_first=False)


def rand_some_nan(rng):
    """Some NaNs (half of them negative) among the floats and complex numbers."""
    return _with_specials(rng, [(np.nan, 0.1, True), (-np.nan, 0.05, False)], complex_first=True)


def rand_some_inf_and_nan(rng):
    """Some +inf, -inf and NaN among the floats."""
    return _with_specials(rng, [(np.inf, 0.1, True), (-np.inf, 0.1, True), (np.nan, 0.1, True)],
                          complex_first=False)


def rand_some_zero(rng):
    """About half the entries zero."""
    base = rand_default(rng)

    def rand(shape, dtype):
        zeros = rng.rand(*_dims_of_shape(shape)) < 0.5
        vals = np.where(zeros, np.array(0, dtype=dtype), base(shape, dtype))
        return _cast_to_shape(np.asarray(vals, dtype=dtype), shape, dtype)
    return rand


def rand_int(rng, low=0, high=None):
    """Integers in [low, high); `high` defaults to the integer dtype's maximum."""
    def fn(shape, dtype):
        nonlocal high
        # NumPy's ints only (as JAX's np.issubdtype there): NumPy draws no int4
        numpy_int = np.dtype(dtype).kind in "iu"
        draw_dtype = dtype if numpy_int else np.int64
        if low == 0 and high is None:
            if not numpy_int:
                raise ValueError("rand_int requires an explicit `high` value for "
                                 "non-integer types.")
            high = _core.iinfo(dtype).max
        return rng.randint(low, high=high, size=shape, dtype=draw_dtype).astype(dtype)
    return fn


def rand_unique_int(rng, high=None):
    """Distinct integers below `high` (default: the number of entries)."""
    def fn(shape, dtype):
        return rng.choice(np.arange(high or math.prod(shape), dtype=dtype), size=shape,
                          replace=False)
    return fn


def rand_indices_unique_along_axis(rng):
    """Indices below `dim`, distinct along `axis`, some made negative (counted from the end)."""
    def fn(dim, shape, axis, allow_negative=True):
        others = shape[:axis] + shape[axis:][1:]        # (axis may count from the end)
        rows = [rng.choice(dim, size=shape[axis], replace=False) for _ in range(math.prod(others))]
        idx = np.moveaxis(np.array(rows).reshape(*others, shape[axis]), -1, axis)
        if allow_negative:
            idx[rng.choice([False, True], idx.shape)] -= dim
        return idx
    return fn


def rand_bool(rng):
    def generator(shape, dtype):
        return _cast_to_shape(np.asarray(rng.rand(*_dims_of_shape(shape)) < 0.5, dtype=dtype),
                              shape, dtype)
    return generator
