"""Dtypes, canonicalization under the x64 flag, and JAX's type-promotion lattice.

    >>> result_type(np.int8, 2.0)            # a Python float is weakly typed
    (dtype('float32'), True)
    >>> result_type(np.float16, np.int32)[0]
    dtype('float16')

Weak types are how Python scalars avoid widening arrays: ``x_f16 * 2.0`` stays
float16. They are represented here by the Python types ``int``, ``float`` and
``complex`` standing in the lattice for "an int/float/complex of no fixed width".
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .config import ExplicitX64Mode, config
from .source_info import user_stacklevel

# ml_dtypes gives NumPy its narrow dtypes (bfloat16, the float8/6/4s, the 1/2/4-bit ints).
# Pyodide has no build of it, so it is optional: where it is absent those dtypes are left
# out of every table below and each name stands for a placeholder that says what to
# install. This is the one place that imports it; other modules read `ml_dtypes` here.
try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

NARROW_DTYPE_NAMES = (
    "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float6_e2m3fn",
    "float6_e3m2fn", "float4_e2m1fn", "int1", "int2", "int4", "uint1", "uint2", "uint4")
# the names the ml_dtypes here lacks: all without it, int1 and uint1 under 0.5 (new in 0.6)
MISSING_NARROW_NAMES = frozenset(n for n in NARROW_DTYPE_NAMES if not hasattr(ml_dtypes, n))


def missing_ml_dtypes_message(name) -> str:
    """What to say when narrow dtype `name` is used without ml_dtypes installed (or with one
    too old to have it)."""
    if ml_dtypes is not None:
        return (f"dtype {name} needs a newer ml_dtypes package than the {ml_dtypes.__version__} "
                f"installed here (pip install -U ml_dtypes); jxkernel's other dtypes work")
    return (f"dtype {name} needs the ml_dtypes package, which is not installed here "
            f"(pip install ml_dtypes); jxkernel's other dtypes work without it")


def missing_narrow_attribute(module: str, name: str) -> AttributeError:
    """The AttributeError for `module.name`, saying what to install where `name` is a narrow
    dtype that ml_dtypes would give."""
    if name in MISSING_NARROW_NAMES:
        return AttributeError(f"{module}.{name}: {missing_ml_dtypes_message(name)}")
    return AttributeError(f"module {module!r} has no attribute {name!r}")


def ml_dtypes_hint(dtype) -> str:
    """What to install, if `dtype` (a name, placeholder or np.dtype) is a narrow dtype and
    ml_dtypes is absent; "" otherwise."""
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None)
    return missing_ml_dtypes_message(name) if name in MISSING_NARROW_NAMES else ""


def check_ml_dtypes_for(dtype, what="dtype") -> None:
    """A TypeError saying what to install if `dtype` is a narrow dtype and ml_dtypes is
    absent; nothing otherwise."""
    message = ml_dtypes_hint(dtype)
    if message:
        raise TypeError(message if what == "dtype" else f"{what}: {message}")


class UnavailableDType:
    """Stands for a narrow dtype when ml_dtypes is absent: equal to no dtype, in no table,
    and np.dtype() of it (so any dtype= argument) raises a TypeError saying what to install.

    >>> UnavailableDType("bfloat16") == np.dtype(np.float32)
    False
    """

    def __init__(self, name: str):
        self.name = name

    @property
    def dtype(self):
        raise TypeError(missing_ml_dtypes_message(self.name))

    def __repr__(self):
        return f"<{self.name}: needs ml_dtypes>"


def _narrow(*names) -> tuple:
    """The narrow dtypes named, as np.dtypes, or their placeholders where the ml_dtypes here
    has none (none without ml_dtypes)."""
    return tuple(UnavailableDType(n) if n in MISSING_NARROW_NAMES
                 else np.dtype(getattr(ml_dtypes, n)) for n in names)


def _available(*ds) -> tuple:
    """`ds` without the placeholders of dtypes ml_dtypes would give."""
    return tuple(d for d in ds if isinstance(d, np.dtype))

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
bfloat16, = _narrow("bfloat16")
BFLOAT16_DTYPES = _available(bfloat16)       # (bfloat16,), or () without ml_dtypes
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)
# the 8-bit floats (ml_dtypes'), for low-precision matmuls: each promotes with nothing but
# Python scalars, as in JAX
float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz = _narrow(
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz")
float8_e3m4, float8_e4m3, float8_e8m0fnu = _narrow("float8_e3m4", "float8_e4m3", "float8_e8m0fnu")
FLOAT8_DTYPES = _available(float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz,
                           float8_e4m3b11fnuz, float8_e3m4, float8_e4m3, float8_e8m0fnu)
# the 6- and 4-bit floats and the 1-, 2- and 4-bit integers (ml_dtypes' too, one byte an
# element in NumPy): like the float8s, each meets only Python scalars of its kind
float6_e2m3fn, float6_e3m2fn, float4_e2m1fn = _narrow("float6_e2m3fn", "float6_e3m2fn",
                                                      "float4_e2m1fn")
FLOAT6_DTYPES, FLOAT4_DTYPES = _available(float6_e2m3fn, float6_e3m2fn), _available(float4_e2m1fn)
NARROW_FLOAT_DTYPES = (*FLOAT8_DTYPES, *FLOAT6_DTYPES, *FLOAT4_DTYPES)
int1, int2, int4, uint1, uint2, uint4 = _narrow("int1", "int2", "int4", "uint1", "uint2", "uint4")
INTN_DTYPES = _available(int1, int2, int4, uint1, uint2, uint4)


def bit_width(dtype: np.dtype) -> int:
    """The bits of one element: int4's 4 though NumPy stores it in a byte (bool: 8)."""
    if dtype in INTN_DTYPES:
        return ml_dtypes.iinfo(dtype).bits
    if dtype in NARROW_FLOAT_DTYPES:
        return ml_dtypes.finfo(dtype).bits
    return dtype.itemsize * 8

SUPPORTED_DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                    *BFLOAT16_DTYPES, float16, float32, float64, complex64, complex128,
                    *NARROW_FLOAT_DTYPES, *INTN_DTYPES)
_SUPPORTED = frozenset(SUPPORTED_DTYPES)

BOOL_DTYPES = frozenset([bool_])
SIGNED_DTYPES = frozenset([int8, int16, int32, int64, *_available(int1, int2, int4)])
UNSIGNED_DTYPES = frozenset([uint8, uint16, uint32, uint64, *_available(uint1, uint2, uint4)])
INT_DTYPES = SIGNED_DTYPES | UNSIGNED_DTYPES
FLOAT_DTYPES = frozenset([*BFLOAT16_DTYPES, float16, float32, float64, *NARROW_FLOAT_DTYPES])
COMPLEX_DTYPES = frozenset([complex64, complex128])
INEXACT_DTYPES = FLOAT_DTYPES | COMPLEX_DTYPES

_X64_TO_X32 = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}

SHORT_NAMES = {bool_: "bool", int8: "i8", int16: "i16", int32: "i32", int64: "i64",
               uint8: "u8", uint16: "u16", uint32: "u32", uint64: "u64",
               **{d: "bf16" for d in BFLOAT16_DTYPES}, float16: "f16", float32: "f32",
               float64: "f64", complex64: "c64", complex128: "c128",
               **{d: "f" + d.name[len("float"):] for d in NARROW_FLOAT_DTYPES},
               **{d: d.name.replace("uint", "u").replace("int", "i") for d in INTN_DTYPES}}


def _kind_test(family):
    """A test of whether a dtype is in `family` (typed keys' extended dtypes are in none)."""
    def test(dtype) -> bool:
        try:
            return np.dtype(dtype) in family
        except TypeError:
            if isinstance(dtype, ExtendedDType):
                return False
            raise
    return test


is_float = _kind_test(FLOAT_DTYPES)
is_complex = _kind_test(COMPLEX_DTYPES)
is_inexact = _kind_test(INEXACT_DTYPES)
is_int = _kind_test(INT_DTYPES)
is_signed = _kind_test(SIGNED_DTYPES)
is_unsigned = _kind_test(UNSIGNED_DTYPES)
is_bool = _kind_test({bool_})


def is_numeric_kind(dtype: np.dtype) -> bool:
    """Whether NumPy data of `dtype` can be a JAX value: not strings, objects, dates or
    raw records (kind 'V', which ml_dtypes' bfloat16 and float8s share, and float0: a
    zero-width record, integer inputs' tangents)."""
    kind = dtype.kind
    return kind not in "OUSMmV" or (kind == "V" and (dtype in _SUPPORTED or dtype == float0))


def check_valid_dtype(dtype: np.dtype) -> None:
    """JAX's TypeError (its dtypes.check_valid_dtype) for NumPy data of no JAX type."""
    if not is_numeric_kind(dtype):
        raise TypeError(f"Dtype {dtype} is not a valid JAX array type. Only arrays of numeric "
                        f"types are supported by JAX.")


def check_supported(dtype, what="dtype") -> np.dtype:
    """`dtype` as a np.dtype, or a TypeError naming it and listing what is supported."""
    if isinstance(dtype, ExtendedDType):      # typed keys' dtypes are their own
        return dtype
    try:
        d = np.dtype(dtype)
    except TypeError:
        check_ml_dtypes_for(dtype, what)
        raise TypeError(f"{what} {dtype!r} is not a dtype") from None
    if d not in _SUPPORTED:
        check_ml_dtypes_for(d, what)
        names = ", ".join(str(t) for t in SUPPORTED_DTYPES)
        raise TypeError(f"{what} {d} is not supported by jxkernel; supported dtypes are {names}")
    return d


# dtypes JAX 0.10.2 names but XLA's CPU backend keeps no arrays of (JAX's fail there too)
NO_ARRAY_DTYPES = frozenset(_available(float6_e2m3fn, float6_e3m2fn, int1, uint1))


def check_has_arrays(dtype, what="an array") -> None:
    """A TypeError if XLA cannot hold arrays of `dtype` (finfo, iinfo and promotion still
    know it, as in JAX)."""
    if np.dtype(dtype) in NO_ARRAY_DTYPES:
        raise TypeError(
            f"{what} of dtype {np.dtype(dtype)}: XLA's CPU backend has no arrays of this "
            "dtype (JAX 0.10.2's neither); convert with NumPy (ml_dtypes), or use "
            "float8_e4m3fn/int2/int4 for narrow arrays")


@functools.lru_cache(maxsize=None)
def _canonicalize(dtype, x64: bool) -> np.dtype:
    d = check_supported(dtype)
    return d if x64 else _X64_TO_X32.get(d, d)


def canonicalize_dtype(dtype) -> np.dtype:
    """The dtype arrays of `dtype` get: 64-bit types shrink to 32 bits unless x64 is on
    (float0, the tangent type of integers, is its own, as in JAX)."""
    if isinstance(dtype, np.dtype) and dtype == float0:
        return dtype
    return _canonicalize(dtype, config.jax_enable_x64)


def canonicalize_named(dtype) -> np.dtype:
    """A dtype a call names (lax.convert_element_type's, a promotion's strong result) as arrays
    get it: kept where jax_enable_x64 is on or jax_explicit_x64_dtypes is ALLOW (JAX's
    _maybe_canonicalize_explicit_dtype), else canonicalize_dtype's, without its warning.

    >>> with config.override("jax_explicit_x64_dtypes", "allow"):
    ...     canonicalize_named(np.int64)
    dtype('int64')
    """
    try:
        return _canonicalize(dtype, config._named_x64)
    except TypeError:           # (an array is unhashable: the cache's key)
        if not _is_array(dtype):
            raise
    raise ValueError(_ARRAY_AS_DTYPE)


# JAX's words where an array is given as a dtype (`jnp.vstack(x, y)`: y is vstack's dtype
# argument), said before NumPy would read the array's own dtype from it
_ARRAY_AS_DTYPE = ("Passing an array as a dtype argument is no longer supported; instead of "
                   "dtype=arr use dtype=arr.dtype.")


def _is_array(d) -> bool:
    return hasattr(d, "aval") and not isinstance(d, type)


def is_canonical(dtype) -> bool:
    """Whether `dtype` is its own canonical dtype in the current mode: a 64-bit type only with
    x64 on (a value of another can still be typed so, made in an enable_x64 block)."""
    return config.jax_enable_x64 or dtype not in _X64_TO_X32


def default_int_dtype() -> np.dtype: return int64 if config.jax_enable_x64 else int32
def default_uint_dtype() -> np.dtype: return uint64 if config.jax_enable_x64 else uint32
def default_float_dtype() -> np.dtype: return float64 if config.jax_enable_x64 else float32
def default_complex_dtype() -> np.dtype: return complex128 if config.jax_enable_x64 else complex64


# ---------------------------------------------------------------- dtypes a user names
_DEFAULT_TYPEMAP = {bool: lambda: bool_, int: default_int_dtype, float: default_float_dtype,
                    complex: default_complex_dtype}


def canonicalize_user_dtype(d, fun_name: str = "") -> np.dtype:
    """A dtype argument (`float`, 'int8', jnp.float32, np.dtype) as the dtype arrays get:
    JAX's check_and_canonicalize_user_dtype (jnp.zeros's dtype, lax.full's, lax.iota's...).
    A 64-bit type without x64 goes through `explicit_dtype`.

    >>> canonicalize_user_dtype(int), canonicalize_user_dtype("int8")
    (dtype('int32'), dtype('int8'))
    """
    if d is None:
        raise ValueError("dtype must be specified.")
    if isinstance(d, ExtendedDType):            # a key type (jnp.zeros(shape, key.dtype)): as is
        return d
    if isinstance(d, type) and d in _DEFAULT_TYPEMAP:
        return _DEFAULT_TYPEMAP[d]()
    if _is_array(d):
        raise ValueError(_ARRAY_AS_DTYPE)
    try:
        nd = np.dtype(d)
    except TypeError:
        check_ml_dtypes_for(d, fun_name or "dtype")
        raise       # NumPy's words, as JAX's: "Cannot interpret '1.0' as a data type"
    if nd not in _SUPPORTED:
        check_ml_dtypes_for(nd, fun_name or "dtype")
        # the argument as given, as JAX's (`got dtype str`, not NumPy's `<U0`)
        raise TypeError(f"JAX only supports number, bool, and string dtypes, got dtype {d}"
                        + (f" in {fun_name}" if fun_name else ""))
    return explicit_dtype(nd, fun_name)


def dtype_of_named(x) -> np.dtype:
    """JAX's dtypes.dtype: a dtype named (np.dtype, str, NumPy scalar type) is checked by
    `explicit_dtype` as requested in 'dtype'; anything else (a value, jnp.int64, a
    ShapeDtypeStruct) gives `dtype`'s answer, quietly canonicalized (lax.full_like's dtype).

    >>> dtype_of_named(np.float16), dtype_of_named(3)
    (dtype('float16'), dtype('int32'))
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, (str, bytes)):
        x = _named_by_text(x)
    if isinstance(x, (str, np.dtype)) or isinstance(x, type) and issubclass(x, np.generic):
        return canonicalize_user_dtype(x, "dtype")
    return dtype(x)


def _named_by_text(x):
    """JAX's dtypes.dtype of a str or bytes: NumPy reads it as a dtype's name (np.dtype('a') is
    |S0, a string type), refused in JAX's words where that is no type of JAX's arrays. A str
    comes back as is, bytes as the dtype named.

    >>> _named_by_text("int8")
    'int8'
    """
    try:
        named = np.dtype(x) if isinstance(x, str) else np.result_type(x)
    except TypeError as err:
        if isinstance(x, str):
            raise                   # NumPy's "data type 'cat' not understood", as JAX's
        raise TypeError(f"Cannot determine dtype of {x}") from err
    if named not in _SUPPORTED:
        raise TypeError(f"Value '{x}' with dtype {named} is not a valid JAX array type. Only "
                        f"arrays of numeric types are supported by JAX.")
    return x if isinstance(x, str) else named


def explicit_dtype(d: np.dtype, fun_name: str = "") -> np.dtype:
    """A dtype the user asked for, as jax_explicit_x64_dtypes says (JAX's
    _maybe_canonicalize_explicit_dtype): kept with x64 or under ALLOW; else a 64-bit type
    becomes 32 bits with JAX's warning (WARN, the default) or raises JAX's ValueError (ERROR).
    jxkernel's own calls pass canonical dtypes, so only the user's names get here narrowed.

    >>> explicit_dtype(np.dtype("int8"))
    dtype('int8')
    """
    if config._named_x64:
        return d
    out = canonicalize_dtype(d)
    if out == d:
        return d
    where = f" requested in {fun_name}" if fun_name else ""
    if ExplicitX64Mode(config.jax_explicit_x64_dtypes) == ExplicitX64Mode.ERROR:
        # (JAX's words, its missing space included)
        raise ValueError(f"Explicitly requested dtype {d}{where} is not available. To enable "
                         "more dtypes, set the jax_enable_x64 or allow_explicit_x64_dtypes "
                         "configuration options.See https://github.com/jax-ml/jax#current-gotchas "
                         "for more.")
    # the user's line, however deep in jxkernel the dtype was checked: a fixed stacklevel=4
    # named IPython's interactiveshell.py for jnp.array(..., float64)
    warnings.warn(f"Explicitly requested dtype {d}{where} is not available, and will be "
                  f"truncated to dtype {out.name}. To enable more dtypes, set the jax_enable_x64 "
                  f"configuration option or the JAX_ENABLE_X64 shell environment variable. See "
                  f"https://github.com/jax-ml/jax#current-gotchas for more.",
                  UserWarning, stacklevel=user_stacklevel())
    return out


_PYTHON_SCALAR_DTYPES = {bool: bool_, int: int64, float: float64, complex: complex128}


def is_python_scalar(x) -> bool:
    return type(x) in _PYTHON_SCALAR_DTYPES


def python_scalar_dtype(x) -> np.dtype:
    """The canonical dtype a Python scalar is traced with (weakly typed unless bool)."""
    return canonicalize_dtype(_PYTHON_SCALAR_DTYPES[type(x)])


# value types whose dtype is theirs in any x64 mode (JAX's typed literals, _src/literals.py)
_UNCANONICALIZED_TYPES: tuple = ()


def register_uncanonicalized_type(kind: type) -> None:
    """Have `dtype` give values of class `kind` their own dtype, not canonicalized (a
    TypedInt of int64 stays int64 without x64)."""
    global _UNCANONICALIZED_TYPES
    _UNCANONICALIZED_TYPES += (kind,)


def keeps_its_dtype(x) -> bool:
    """Whether `x` is a value whose dtype no x64 mode changes (a registered type's)."""
    return isinstance(x, _UNCANONICALIZED_TYPES)


def dtype(x, *, canonicalize=True) -> np.dtype:
    """The dtype of a value (array, scalar, aval) or dtype-like, as jnp.dtype does."""
    if keeps_its_dtype(x):
        return x.dtype
    if type(x) in _PYTHON_SCALAR_DTYPES:
        d = _PYTHON_SCALAR_DTYPES[type(x)]
    elif isinstance(x, type) and x in _PYTHON_SCALAR_DTYPES:
        d = _PYTHON_SCALAR_DTYPES[x]
    elif hasattr(x, "aval") and hasattr(x, "dtype"):
        # an Array's or tracer's: kept where named 64-bit dtypes are (an int64 array made
        # under jax_explicit_x64_dtypes ALLOW is int64, as JAX's dtype gives it); read from
        # the aval, which a ShapeDtypeStruct's has canonicalized (JAX's: it is no Array)
        d = x.aval.dtype
        return canonicalize_named(d) if canonicalize else check_supported(d)
    elif hasattr(x, "dtype") and not (isinstance(x, type) and issubclass(x, np.generic)):
        d = x.dtype                     # (NumPy's scalar classes have a `dtype` descriptor)
    else:
        d = np.dtype(x)
    return canonicalize_dtype(d) if canonicalize else check_supported(d)


def is_weakly_typed(x) -> bool:
    if type(x) in (int, float, complex):
        return True
    aval = getattr(x, "aval", None)
    return bool(getattr(aval if aval is not None else x, "weak_type", False))


# ---------------------------------------------------------------- promotion
# JAX's lattice (see "Design of Type Promotion Semantics for JAX"): each node lists the
# nodes directly above it. `int`, `float`, `complex` are the weak types. In 32-bit mode
# uint32 meets int32 at int32 (there is no int64 to go to), as in JAX.
def _lattice(x64: bool):
    i_, f_, c_ = int, float, complex
    return {
        bool_: [i_],
        i_: [uint8, int8, *INTN_DTYPES], **{d: [] for d in INTN_DTYPES},
        uint8: [int16, uint16], uint16: [int32, uint32],
        uint32: [int64, uint64] if x64 else [int32, uint64], uint64: [f_],
        int8: [int16], int16: [int32], int32: [int64], int64: [f_],
        f_: [c_, float16, *BFLOAT16_DTYPES, *NARROW_FLOAT_DTYPES],
        **{d: [float32] for d in BFLOAT16_DTYPES},
        float16: [float32], **{d: [] for d in NARROW_FLOAT_DTYPES},
        float32: [float64, complex64], float64: [complex128],
        c_: [complex64], complex64: [complex128], complex128: [],
    }


def _upper_bounds(lattice: dict):
    bounds = {}

    def up(node):
        if node not in bounds:
            bounds[node] = {node}.union(*(up(parent) for parent in lattice[node]))
        return bounds[node]

    for node in lattice:
        up(node)
    return bounds


_UPPER_BOUNDS = {False: _upper_bounds(_lattice(False)), True: _upper_bounds(_lattice(True))}


def _strict_lattice():
    """jax_numpy_dtype_promotion='strict': a weak type joins only dtypes of its own kind
    (or above), and distinct strong dtypes never meet."""
    lattice = {d: [] for d in SUPPORTED_DTYPES}
    lattice[int] = [float, *sorted(INT_DTYPES, key=str)]
    lattice[float] = [complex, *sorted(FLOAT_DTYPES, key=str)]
    lattice[complex] = sorted(COMPLEX_DTYPES, key=str)
    return lattice


_STRICT_UPPER_BOUNDS = _upper_bounds(_strict_lattice())


# the dtype JAX gives tangents of integer and boolean values (no bytes, only a shape)
float0 = np.dtype([("float0", np.void, 0)])


def primal_dtype_to_tangent_dtype(primal_dtype) -> np.dtype:
    """float0 for integer and boolean primals (they have no tangents), an extended dtype's own
    answer (its rules' `tangent_dtype`: float0 for typed keys), else the same dtype."""
    if isinstance(primal_dtype, ExtendedDType):
        return primal_dtype._rules.tangent_dtype(primal_dtype)
    dtype = np.dtype(primal_dtype)
    return float0 if dtype == bool_ or dtype in INT_DTYPES else dtype


class TypePromotionError(ValueError):
    """Raised when dtypes have no implicit promotion (jax_numpy_dtype_promotion='strict')."""


# JAX's wording for each narrow kind, checked in this order
_NARROW_KINDS = (("8-bit floats", set(FLOAT8_DTYPES)), ("6-bit floats", set(FLOAT6_DTYPES)),
                 ("4-bit floats", set(FLOAT4_DTYPES)),
                 ("1-bit, 2-bit and 4-bit integers", set(INTN_DTYPES)))


@functools.lru_cache(maxsize=None)
def _join(x64: bool, *nodes, strict: bool = False):
    bounds = _STRICT_UPPER_BOUNDS if strict else _UPPER_BOUNDS[x64]
    unknown = next((n for n in nodes if n not in bounds), None)
    if unknown is not None:     # an extended dtype (a typed key's) meeting another: JAX's error
        # repr, as JAX's `{dtype=}`: "dtype=dtype('<M8[D]')"; a key type's repr is its name
        raise ValueError(f"dtype={unknown!r} is not a valid dtype for JAX type promotion.")
    common = set.intersection(*(bounds[n] for n in nodes))
    least = common & set(nodes) or {n for n in common if common <= bounds[n]}
    if not least and strict:
        raise TypePromotionError(
            f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit dtype "
            "promotion path when jax_numpy_dtype_promotion=strict. Try explicitly casting "
            "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard.")
    narrow = next((kind for kind, members in _NARROW_KINDS if set(nodes) & members), None)
    if not least and narrow:
        raise TypePromotionError(
            f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit dtype "
            f"promotion path. To avoid unintended promotion, {narrow} do not support "
            "implicit promotion. If you'd like your inputs to be promoted to another type, "
            "you can do so explicitly using e.g. "
            f"x.astype('{'int32' if narrow.endswith('integers') else 'float32'}')")
    assert len(least) == 1, nodes
    return least.pop()


def _weak_node(d: np.dtype):
    if d == bool_:
        return bool_
    if d in INT_DTYPES:
        return int
    if d in FLOAT_DTYPES:
        return float
    return complex


_WEAK_DEFAULT = {int: int64, float: float64, complex: complex128}


def _dtype_and_weak(x) -> tuple:
    """(dtype, weak_type) of an argument to result_type: a dtype named (jxkernel's own calls
    name them) canonicalized quietly; a value's (an Array's, an aval's) as it is."""
    if type(x) in (int, float, complex):
        return canonicalize_dtype(_PYTHON_SCALAR_DTYPES[type(x)]), True
    if type(x) is bool:
        return bool_, False
    if isinstance(x, type):
        if x in (int, float, complex):
            return canonicalize_dtype(_PYTHON_SCALAR_DTYPES[x]), True
        if not issubclass(x, np.generic) and hasattr(x, "dtype"):    # jnp.int64, as JAX's
            return canonicalize_dtype(x.dtype), False
        return canonicalize_named(x), False
    if isinstance(x, np.dtype):
        return canonicalize_named(x), False
    if isinstance(x, (np.ndarray, np.generic)):       # host values: canonicalized, as JAX's
        return canonicalize_dtype(x.dtype), False
    if hasattr(x, "dtype"):
        return check_supported(x.dtype), is_weakly_typed(x)
    return canonicalize_named(x), False


def promoted(pairs: tuple) -> tuple:
    """(dtype, weak) of promoting (dtype, weak) `pairs` in the current mode. A 64-bit dtype
    the lattice joins to without x64 goes through `explicit_dtype` as JAX's (its dtype() of
    the join): an int64 array made under enable_x64 meeting an int32 one warns (WARN) or
    raises (ERROR) where it narrows; a lone argument, or equal dtypes, pass as they are."""
    out, weak, joined = _result(pairs, config.jax_enable_x64, config.jax_numpy_dtype_promotion,
                                config._named_x64)
    if joined is not None and joined != out:
        explicit_dtype(joined, "dtype")
    return out, weak


@functools.lru_cache(maxsize=None)
def _result(pairs: tuple, x64: bool, promotion: str = "standard",
            named_x64: bool = False) -> tuple:
    """(dtype, weak, joined) of promoting `pairs`; `joined` is the strong dtype the lattice
    gave (None for a lone argument, equal dtypes or a weak result), which JAX checks as an
    explicit dtype. `named_x64` (config._named_x64): a 64-bit dtype the lattice gives stays
    64-bit, as JAX's explicit dtypes under ALLOW (an int64 array meeting an int32 one gives
    int64); a weak result's default dtype still follows `x64`."""
    dts = [d for d, _ in pairs]
    weaks = [w for _, w in pairs]
    strict = promotion == "strict"
    if len(pairs) == 1:         # no promotion: the dtype as it is, as JAX's (an int64
        return (*pairs[0], None)  # array made under enable_x64 stays int64: sin gives float64)
    if len(set(dts)) == 1 and not all(weaks):
        return dts[0], False, None
    joined = None
    if all(weaks) and not strict:
        # all weak: join the strong dtypes, then mark the result weak (as JAX does: this
        # keeps e.g. two weak float16 values float16)
        out, weak = _join(x64, *set(dts)), True
        joined = out
    else:
        node = _join(x64, *_ordered_nodes(pairs), strict=strict)
        if node in _WEAK_DEFAULT:
            out = _canonicalize(_WEAK_DEFAULT[node], x64)
            return out, out != bool_, None
        out, weak, joined = node, False, node
    out = _canonicalize(out, x64 or named_x64)
    return out, out != bool_ and weak, joined


def _ordered_nodes(pairs) -> tuple:
    """The distinct lattice nodes of (dtype, weak) pairs, in argument order."""
    return tuple(dict.fromkeys(_weak_node(d) if w else d for d, w in pairs))


def result_type(*args):
    """(dtype, weak_type) that JAX's promotion gives for `args`.

    Arguments may be dtypes, Python scalars (weak), or anything with `.dtype`
    (arrays, tracers, avals: weakly typed if their `weak_type` is set).
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    return promoted(tuple(map(_dtype_and_weak, args)))


def promote_types(a, b) -> np.dtype:
    """jnp.promote_types: the promoted dtype of two dtypes (no weak types, not
    canonicalized: int64 and uint64 meet at float64 even in 32-bit mode, as in JAX)."""
    return np.dtype(_join(config.jax_enable_x64, check_supported(a), check_supported(b),
                          strict=config.jax_numpy_dtype_promotion == "strict"))


# JAX's table, not a promotion: ints of up to 32 bits and bool become float32 even in
# 64-bit mode; 64-bit ints become float64 (then canonicalized: kept where named 64-bit
# dtypes are, as an int64 array's mean is float64 under jax_explicit_x64_dtypes ALLOW).
# int4 and uint4 are in it, int2 and uint2 not (kept: their mean is int2's, their sin refused)
_TO_INEXACT = {**{d: float32 for d in (bool_, int8, int16, int32, uint8, uint16, uint32,
                                       *_available(int4, uint4))},
               int64: float64, uint64: float64}


def to_inexact_dtype(d) -> np.dtype:
    """The float dtype an op like sin or mean gives for an input of dtype `d`."""
    d = np.dtype(d)
    return canonicalize_named(_TO_INEXACT.get(d, d))


def to_complex_dtype(d) -> np.dtype:
    """The complex dtype of the same width: complex128 for float64 and complex128, else
    complex64 (as JAX's dtypes.to_complex_dtype)."""
    return complex128 if np.dtype(d) in (float64, complex128) else complex64


# The one place jxkernel asks NumPy for finfo, iinfo and issubdtype (the rule of
# tests/architecture/test_numpy_dtype_queries.py): NumPy knows ml_dtypes' types only in part,
# and how much depends on ml_dtypes' version (np.finfo(bfloat16) raises before 0.7;
# np.issubdtype(bfloat16, np.floating) is False in each, int4 an np.integer in none).
_ML_FLOATS = frozenset((*BFLOAT16_DTYPES, *NARROW_FLOAT_DTYPES))
_ML_INTS = frozenset(INTN_DTYPES)


def finfo(d):
    """np.finfo that knows ml_dtypes' floats under each ml_dtypes version."""
    d = np.dtype(d)
    return ml_dtypes.finfo(d) if d in _ML_FLOATS else np.finfo(d)


def iinfo(d):
    """np.iinfo that knows ml_dtypes' narrow ints."""
    d = np.dtype(d)
    return ml_dtypes.iinfo(d) if d in _ML_INTS else np.iinfo(d)


_ABSTRACT_KINDS = {np.bool_: BOOL_DTYPES, np.integer: INT_DTYPES,
                   np.signedinteger: SIGNED_DTYPES, np.unsignedinteger: UNSIGNED_DTYPES,
                   np.floating: FLOAT_DTYPES, np.complexfloating: COMPLEX_DTYPES,
                   np.inexact: INEXACT_DTYPES, np.number: INT_DTYPES | INEXACT_DTYPES,
                   np.generic: _SUPPORTED}


def issubdtype(a, b) -> bool:
    """np.issubdtype that also knows ml_dtypes' types: bfloat16 and the narrow floats are
    floating, int4 and the narrow ints signed or unsigned integers (as in JAX)."""
    if isinstance(b, type) and b in _ABSTRACT_KINDS:
        try:
            d = np.dtype(a)
        except TypeError:              # an abstract type (np.floating) or an extended one
            return isinstance(a, type) and issubclass(a, b)
        if d in _SUPPORTED:
            return d in _ABSTRACT_KINDS[b]
    return np.issubdtype(a, b)         # NumPy's other types (float128, strings) as NumPy says


# ------------------------------------------------------------------ extended dtypes
# Scalar classes that only answer `issubdtype`: extended dtypes (typed PRNG keys) name one
# as their `.type`, as NumPy dtypes name their scalar type.
class ExtendedDType:
    """The base class of dtypes beyond NumPy's (typed PRNG keys', or a user's, as Flax's
    fp8_meta32): each names its scalar class (a subclass of `extended`) as `type`, its `name`,
    and `_rules`, the class whose static methods say what the type is made of and how it
    behaves, as JAX's (those JAX calls, and jxkernel reads, on the paths a value takes):

    - `physical_element_aval(dtype)`: the ShapedArray of one element's data (keys: u32[2]);
      an array of the type is held as data of shape `shape + element shape` (core/physical.py)
    - `global_sharded_result_handler(aval, sharding, committed)`: a function making the
      user-facing value from the physical Array (default: an EArray, core/earray.py)
    - `convert_to(other, dtype)`, `convert_from(dtype, other)` (or `allow_conversion`):
      whether lax.convert_element_type may go from or to the representation dtype
    - `tangent_dtype(dtype)`: its tangents' dtype (float0: not differentiable)
    - `zero(dtype)`, `add(dtype, x, y)`: autodiff's zero and how contributions accumulate
    - `full(shape, fill_value, dtype)`: lax.full of the type
    """
    type: type
    name: str
    _rules: type = None


class extended(np.generic):
    """The scalar class of extended dtypes (never instantiated): `jnp.issubdtype(d, extended)`."""


class prng_key(extended):
    """The scalar class of PRNG key dtypes (never instantiated).

    >>> jnp.issubdtype(jxkernel.random.key(0).dtype, prng_key)
    True
    """


def extended_scalar_type(dtype):
    """The scalar class of an extended dtype (a typed key's dtype), else None."""
    kind = getattr(dtype, "type", None)
    return kind if isinstance(kind, type) and issubclass(kind, extended) else None


def is_extended(dtype) -> bool:
    """Whether `dtype` is an extended dtype (typed keys', or any with `_rules`)."""
    return isinstance(dtype, ExtendedDType)


# NumPy 2's variable-width strings (JAX's `dtypes.string_dtype`): arrays of it live on CPU
# devices (jaxlib keeps them; xla/string_arrays.py), no computation takes them
string_dtype = np.dtypes.StringDType() if hasattr(np.dtypes, "StringDType") else None
# its class, for the hot paths' `type(x.dtype) is StringDType` (before NumPy 2: none's)
StringDType = type(string_dtype) if string_dtype is not None else type("NoStringDType", (), {})


def is_string(dtype) -> bool:
    """Whether `dtype` is NumPy's StringDType (JAX's `dtype == dtypes.string_dtype`)."""
    return string_dtype is not None and isinstance(dtype, np.dtype) and dtype == string_dtype


def has_tangent(dtype) -> bool:
    """Whether values of `dtype` are differentiable: inexact ones, and extended dtypes whose
    tangent dtype is not float0 (Flax's fp8_meta32 is its own tangent; keys have none)."""
    if isinstance(dtype, ExtendedDType):
        t = primal_dtype_to_tangent_dtype(dtype)
        return isinstance(t, ExtendedDType) or np.dtype(t) != float0
    return is_inexact(dtype)
