"""Error classes named as JAX names them, so JAX's documentation applies."""
from __future__ import annotations

import math
import sys

import numpy as np

from . import dtypes

_DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."


def aval_text(aval, weak: bool = True) -> str:
    """An aval as JAX prints it in tracer reprs and error messages: long dtype names, a weak
    type marked with `~` (unless `weak=False`).

    >>> from jxkernel.core.avals import ShapedArray
    >>> aval_text(ShapedArray((2, 3), np.dtype("float32"), True))
    '~float32[2,3]'
    """
    if getattr(aval, "is_high", False):        # a library's type prints itself
        return str(aval)
    # float0 is a structured void dtype; bfloat16 and the float8s are void-kind too; a typed
    # key's dtype (key<fry>) is no NumPy dtype and has no fields
    name = "float0" if getattr(aval.dtype, "names", None) == ("float0",) else aval.dtype.name
    dims = aval._dims() if getattr(aval, "split", None) is not None else \
        ','.join(map(str, aval.shape))
    space = aval._space() if hasattr(aval, "_space") else ""      # '<host>', as JAX's
    return f"{'~' if weak and aval.weak_type else ''}{name}{space}[{dims}]"


def _shape_of(tracer) -> str:
    aval = tracer.aval          # None: a library's Tracer built without a type, as JAX allows
    return str(aval) if aval is None else aval_text(aval, weak=False)


def _traced_text(tracer) -> str:
    """How JAX's tracer errors name the value (its Tracer._error_repr): "traced array with
    shape float32[3]", or "traced array with aval None" for a tracer without a type."""
    if tracer.aval is None:
        return "traced array with aval None"
    return f"traced array with shape {_shape_of(tracer)}"


class JAXTypeError(TypeError):
    pass


def conversion_context(function: str) -> str:
    """JAX's words for int(x) / float(x) / complex(x) of a tracer: the dtype conversion that
    keeps the value traced."""
    return (f"The problem arose with the `{function}` function. If trying to convert the data "
            f"type of a value, try using `x.astype({function})` or `jnp.array(x, {function})` "
            f"instead.\n")


def _traced_arguments(tracer) -> list:
    """The traced inputs a tracer depends on, for tools (the notebook marks them)."""
    trace = getattr(tracer, "_trace", None)
    find = getattr(trace, "traced_arguments", None)
    return find(tracer) if find is not None else []


def provenance(tracer) -> dict | None:
    """Where a traced value came from, for error displays (the notebook's error cards): the
    traced function, the input it depends on and the operations in between, as the trace
    knows them (`JaxprTrace.provenance`). A jvp or vmap tracer is looked through to the
    staged value it wraps. Computed only when an error is raised, so tracing pays nothing."""
    for _ in range(32):                 # nested transformations: jvp of vmap of jit ...
        trace = getattr(tracer, "_trace", None)
        find = getattr(trace, "provenance", None)
        if find is not None:
            found = find(tracer)
            if found is not None:
                found["traced_also_by"] = _wrapping_transformation(found)
            return found
        inner = getattr(tracer, "primal", getattr(tracer, "val", None))
        if inner is None or not hasattr(inner, "_trace"):
            return None
        tracer = inner
    return None


# The transformations whose tracer a staged argument may be wrapped in, by the class JAX
# gives it: the argument is then differentiated or batched, never a Python value
_WRAPPERS = {"LinearizeTracer": "grad", "JVPTracer": "jvp", "BatchTracer": "vmap"}


def _wrapping_transformation(found) -> str | None:
    """"grad", "jvp" or "vmap" where the traced function's argument `found` names is, inside
    the function, that transformation's tracer (`jax.jit(jax.grad(f))(1.0)`: jit saw a Python
    1.0, but f's x is grad's, so static_argnames=('x',) on f makes JAX raise "Non-hashable
    static arguments" of a LinearizeTracer); None where it is the staging trace's own, or the
    function's frame is not on the stack. Read from the live frame, as the error is raised."""
    source, argument = found.get("defined_at"), found.get("argument")
    if source is None or not argument or not argument.isidentifier():
        return None
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_filename == source.file and code.co_firstlineno == source.line and \
                argument in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
            return _WRAPPERS.get(type(frame.f_locals.get(argument)).__name__)
        frame = frame.f_back
    return None


class ConcretizationTypeError(JAXTypeError):
    """A concrete Python value was needed from a traced (abstract) array."""

    def __init__(self, tracer, context: str = ""):
        record_tracer(self, tracer)
        origin = _origin(tracer)
        # JAX's origin opens with a newline and its context ends without one; ours the other
        # way round, the same text where there is a context, one newline short where not
        if origin and not context:
            context = "\n"
        super().__init__(
            f"Abstract tracer value encountered where concrete value is expected: "
            f"{_traced_text(tracer)}\n"
            f"{context}{origin}\n"
            f"See {_DOCS}ConcretizationTypeError")


def shape_error(shape: tuple, tracer, context: str = "") -> TypeError:
    """JAX's plain TypeError for a traced size in a shape (`jnp.zeros(n)` under jit), carrying
    the tracer's provenance like the concretization errors (the notebook's card reads it).
    `context` follows the shape on the first line (jnp.eye's " argument of 'N' jnp.eye().");
    JAX writes the line on jit's argument once per traced size in the shape."""
    dims = shape if isinstance(shape, (tuple, list)) else (tracer,)
    origin = "".join(_origin(d) for d in dims if getattr(d, "_trace", None) is not None)
    origin = (origin or _origin(tracer)).removesuffix("\n")
    error = TypeError(
        f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
        f"{context}\n"
        f"If using `jit`, try using `static_argnums` or applying `jit` to smaller "
        f"subfunctions.\n{origin}")
    return record_tracer(error, tracer)


def unhashable_parameter(primitive: str, param: str, value, tracer) -> TypeError:
    """JAX's TypeError for a traced value given where a primitive's parameter goes (its bind,
    staging a jaxpr, hashes the parameters: JAX 0.7's check), as jnp.tile's reps and
    jax.random.split's shape meet it; carrying the tracer's provenance (the notebook's card
    reads it)."""
    return record_tracer(TypeError(
        f"As of JAX v0.7, parameters to jaxpr equations must have __hash__ and __eq__ "
        f"methods. In a call to primitive {primitive}, the value of parameter {param} was not "
        f"hashable: {value}"), tracer)


def record_tracer(error, tracer):
    """`error` carrying the traced arguments and provenance of `tracer` (the notebook's
    error card reads them)."""
    error.arg_names, error.provenance = _traced_arguments(tracer), provenance(tracer)
    return error


class TracerBoolConversionError(ConcretizationTypeError):
    """JAX 0.10.2's whole message under every transformation (jit, vmap, a loop's or
    branch's trace, checkpoint, whose static_argnums advice api/remat.py appends as JAX's);
    the notebook's card (views/error_cards, from the provenance recorded here) advises
    lax.cond / jnp.where or a static argument."""
    def __init__(self, tracer):
        record_tracer(self, tracer)
        TypeError.__init__(
            self,
            f"Attempted boolean conversion of {_traced_text(tracer)}.\n"
            f"{_origin(tracer)}See {_DOCS}TracerBoolConversionError")


class TracerIntegerConversionError(JAXTypeError):
    def __init__(self, tracer):
        record_tracer(self, tracer)
        super().__init__(
            f"The __index__() method was called on "
            f"{_traced_text(tracer)}\n{_origin(tracer)}See {_DOCS}TracerIntegerConversionError")


class TracerArrayConversionError(JAXTypeError):
    """JAX 0.10.2's whole message; the notebook's card says to use jax.numpy instead."""
    def __init__(self, tracer):
        record_tracer(self, tracer)
        super().__init__(
            f"The numpy.ndarray conversion method __array__() was called on "
            f"{_traced_text(tracer)}\n{_origin(tracer)}See {_DOCS}TracerArrayConversionError")


class JAXIndexError(IndexError):
    """As JAX's: the message ends with the link to the class's page of JAX's errors."""
    def __init__(self, message: str):
        super().__init__(f"{message}\nSee {_DOCS}{type(self).__name__}")


class NonConcreteBooleanIndexError(JAXIndexError):
    """JAX 0.10.2's whole message (its blank line before the link too); what to use instead
    is the notebook's card's (views/error_cards)."""
    def __init__(self, tracer):
        super().__init__(f"Array boolean indices must be concrete; got {_shape_of(tracer)}\n")


class UnexpectedTracerError(Exception):
    """As JAX's: the message ends with the link to the class's page of JAX's errors (a value
    of a transformation's trace used after it ended, or where a rule refuses a tracer)."""
    def __init__(self, message: str):
        super().__init__(f"{message}\nSee {_DOCS}UnexpectedTracerError")


class KeyReuseError(JAXTypeError):
    """A typed PRNG key used again after it was consumed, found by the key-reuse checker
    (`jax_debug_key_reuse`, random/key_reuse.py). As JAX's, the message ends with the link to
    the error's documentation."""
    def __init__(self, message: str):
        super().__init__(f"{message}\nSee https://docs.jax.dev/en/latest/errors.html"
                         f"#jax.errors.KeyReuseError")


class InconclusiveDimensionOperation(Exception):
    """A comparison or conversion of symbolic dimensions (jax.export) whose answer depends on
    the values of the dimension variables."""


class RecompileError(RuntimeError):
    """A jitted function with fail-on-recompile on (`compile_log.fail_on_recompile`) was
    called with a signature it has not compiled, after it had compiled another. Raised
    before anything is traced or compiled; the function keeps its compiled programs."""

    def __init__(self, function: str, function_key: str, old_signature: str,
                 new_signature: str, reason: str, source=None):
        self.function, self.function_key = function, function_key
        self.old_signature, self.new_signature = old_signature, new_signature
        self.reason, self.source = reason, source
        where = f"called at {source.file}:{source.line}\n" if source is not None else ""
        super().__init__(
            f"jit({function}) would recompile because {reason}, and fail_on_recompile is on "
            f"for it.\n"
            f"  compiled for: ({old_signature})\n"
            f"  called with:  ({new_signature})\n"
            f"{where}"
            f"Call it with the compiled signature, or allow recompiling with "
            f"jxkernel.compile_log.fail_on_recompile({function_key!r}, False).")


# what a checkpointed function's trace is told as (JAX's "for checkpoint / remat")
CHECKPOINT = "checkpoint / remat"
# what the trace of a loop body or a branch is told as (lax/_cf_bodies.py's, JAX's traced_for):
# its inputs come from the loop or cond, so static_argnums cannot reach them
BODY_TRACES = frozenset({"scan", "fori_loop", "while_body", "while_cond", "cond", "switch"})


def _origin(tracer) -> str:
    """Which transformation traced the value, and which arguments it depends on."""
    trace = getattr(tracer, "_trace", None)
    describe = getattr(trace, "describe_origin", None)
    return describe(tracer) if describe is not None else ""


def masked_array_error() -> ValueError:
    """JAX's refusal of a NumPy masked array as an operand (jnp.array takes one: its data)."""
    return ValueError("numpy masked arrays are not supported as direct inputs to JAX functions. "
                      "Use arr.filled() to convert the value to a standard numpy array.")


def jax_class_name(cls) -> str:
    """The name JAX gives this tracer or trace class (`_jax_class_name` where ours is
    another's: jit's `JaxprTrace` is JAX's `DynamicJaxprTrace`).

    >>> jax_class_name(float)
    'float'
    """
    return cls.__dict__.get("_jax_class_name", cls.__name__)


def jax_type_text(x) -> str:
    """`type(x)` as JAX's messages print it: a tracer's class by the JAX path under which
    jxkernel's class answers, where it has one (`_jax_class_path`: jit's tracers,
    `jxkernel._src.interpreters.partial_eval.DynamicJaxprTracer`), a class named as a C type
    of jaxlib's by that name (an Array's `jaxlib._jax.ArrayImpl`, a jitted function's
    `jaxlib._jax.PjitFunction`: their C-level names, which Python's messages print too).

    >>> jax_type_text(1.0)
    "<class 'float'>"
    """
    kind = type(x)
    path = jax_class_path(kind) or _c_level_name(kind)
    if path is None and kind.__module__.startswith("jxkernel._src."):
        path = src_class_path(kind)
    return f"<class '{path}'>" if path else str(kind)


def src_class_path(kind) -> str:
    """`module.qualname` of a class, a module of jxkernel's `_src` (JAX's home for the class:
    custom_jvp's `jxkernel._src.custom_derivatives`) printed under the package the learner
    imports JAX by (`jax._src...` under the alias), as JAX's messages and reprs print it.

        >>> class C: pass
        >>> C.__module__ = "jxkernel._src.custom_derivatives"
        >>> src_class_path(C).endswith("._src.custom_derivatives.C")
        True
    """
    path = f"{kind.__module__}.{kind.__qualname__}"
    return _under_package(path) if kind.__module__.startswith("jxkernel._src.") else path


def jax_class_path(kind) -> str | None:
    """`kind`'s `_jax_class_path`, its package the one the learner imports JAX's modules by
    (`jax._src...` under the `import jax` alias, which names no module of jxkernel's), or
    None where it has none."""
    path = kind.__dict__.get("_jax_class_path")
    return _under_package(path) if path is not None else None


def _under_package(path: str) -> str:
    """A dotted path of jxkernel's printed under the package JAX is imported by."""
    return _SRC_PACKAGE[0] + path[len("jxkernel"):] if path.startswith("jxkernel.") else path


# the package `jxkernel._src...` class paths are printed under: as_jax.install_as_jax makes it
# "jax", whose `jax._src` is the same modules
_SRC_PACKAGE = ["jxkernel"]


def name_src_paths_as(package: str) -> None:
    """Print jxkernel's `_src` class paths under `package` from now on (the alias's "jax")."""
    _SRC_PACKAGE[0] = package


def _c_level_name(kind) -> str | None:
    """A class's name as Python's own messages print it, where it is a dotted one (jaxlib's
    C types' names, set on the classes jxkernel names so), else None."""
    name = type.__dict__["__name__"].__get__(kind)
    return name if "." in name else None


def not_a_jax_value(name: str, position: int, value) -> TypeError:
    """JAX's refusal of an operand no array type holds (a string, NumPy text) bound to the
    primitive `name`: `lax.sin('a')`, or jnp's promotion converting one (`jnp.power('int32',
    2)`'s convert_element_type)."""
    return TypeError(f"Error interpreting argument to {name} as a JAX value. The problematic "
                     f"value is of type {jax_type_text(value)} and was passed to {name} at "
                     f"position {position}.\n")                 # (JAX's trailing newline)


def shapes_only_error(name: str, value) -> TypeError:
    """JAX's error for a ShapeDtypeStruct given where a value is needed (a jitted function's
    argument, a jnp function's, a primitive's operand): it has a type but no data. `name` is
    the argument's as JAX's jit names it ('x', 'args[0]')."""
    return TypeError(f"Argument '{name}' of shape {value.aval.str_short()} of type "
                     f"{jax_type_text(value)} is not a valid JAX type.")


def float0_error(name: str, position=None) -> TypeError:
    """JAX's refusal of a float0 operand (an integer input's cotangent: no vector space, so
    no operation). `position`: lax's n-ary dtype rule names it; jnp's check and unary rules
    say "a float0 array"."""
    what = "a float0 array" if position is None else f"a float0 at position {position}"
    comma = "" if name.startswith("jnp:") else ","       # (jnp's words lack lax's comma)
    return TypeError(
        f"Called {name.removeprefix('jnp:')} with {what}. float0s do not support any operations "
        f"by design{comma} because they are not compatible with non-trivial vector spaces. No "
        "implicit dtype conversion is done. You can use np.zeros_like(arr, dtype=np.float) to "
        "cast a float0 array to a regular zeros array. \nIf you didn't expect to get a float0 "
        "you might have accidentally taken a gradient with respect to an integer argument.")


# Python's conversions of an array (int(x), operator.index(x), bool(x)), checked as JAX's core
# checks them, of an Array and of a tracer alike, before any value is read
def check_scalar_conversion(aval, traced: bool = False) -> None:
    """int(), float(), complex(): a 0-d array alone, as NumPy 2's. The error carries the
    array's shape and whether it was traced (the notebook's error card reads them)."""
    shape = tuple(getattr(aval, "shape", ()))
    if shape:
        error = TypeError(f"Only scalar arrays can be converted to Python scalars; "
                          f"got arr.ndim={len(shape)}")
        error.shape, error.traced = shape, traced
        raise error


def check_integer_conversion(aval) -> None:
    """operator.index(), hex(), oct(), indexing: a 0-d integer array alone."""
    if not (getattr(aval, "shape", ()) == () and dtypes.is_int(getattr(aval, "dtype", None))):
        raise TypeError("Only integer scalar arrays can be converted to a scalar index.")


def check_bool_conversion(aval) -> None:
    """bool(): one element (an empty array, or one of more, is ambiguous)."""
    size = math.prod(getattr(aval, "shape", ()))
    if size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. Use "
                         "`array.size > 0` to check that an array is not empty.")
    if size > 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")


def jax_array_abstractified() -> ValueError:
    """JAX's refusal of an object with `__jax_array__` where a JAX type is needed (a jit's
    argument that is no pytree of arrays): the conversion is explicit now."""
    return ValueError("Triggering __jax_array__() during abstractification is no longer "
                      "supported. To avoid this error, either explicitly convert your object "
                      "using jax.numpy.array(), or register your object as a pytree.")


# Their public home, as JAX's say jax.errors: a traceback reads
# `jxkernel.errors.ConcretizationTypeError: ...` (and a pickle finds them there). JAX also
# renames jaxlib's JaxRuntimeError so; jxkernel leaves that class, jaxlib's, as it is.
for _cls in (JAXTypeError, JAXIndexError, ConcretizationTypeError, TracerBoolConversionError,
             TracerIntegerConversionError, TracerArrayConversionError,
             NonConcreteBooleanIndexError, UnexpectedTracerError, KeyReuseError,
             InconclusiveDimensionOperation):
    _cls.__module__ = "jxkernel.errors"
del _cls


# ------------------------------------------------------------------ Refs passed twice
def ref_type(ref) -> str:
    return f"Ref{{{aval_text(ref.aval.inner_aval, weak=False)}}}"


def check_passed_once(where: str, leaves, positions, names, traced_for: str = "jit") -> None:
    """JAX's error for one Ref passed as two arguments (`where`: "f at file.py:3"; jit's or
    vmap's, `traced_for`)."""
    for n, i in enumerate(positions):
        for j in positions[n + 1:]:
            if leaves[i] is leaves[j]:
                raise ValueError(
                    f"only one reference to a mutable array may be passed as an argument to a "
                    f"function, but when tracing {where} for {traced_for} the mutable array "
                    f"reference of type {ref_type(leaves[i])} appeared at both {names()[i]} "
                    f"and {names()[j]}.")
