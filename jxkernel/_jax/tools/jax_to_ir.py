"""jax.tools.jax_to_ir: a function's XLA program for named argument shapes, some arguments fixed
as compile-time constants, as a serialized HLO module and its text.

    >>> _, text = jax_to_hlo(lambda x, y: x * y, [("x", parse_shape_str("f32[2]"))],
    ...                      constants={"y": 3.0})
    >>> "f32[2]{0} parameter(0)" in text and "multiply" in text
    True
"""
import functools
import re

from ... import numpy as jnp
from ...core.avals import ShapedArray
from ...transforms.jit import jit

__all__ = ["jax_to_hlo", "jax_to_ir", "jax_to_tf", "parse_shape_str"]


def jax_to_ir(fn, input_shapes, *, constants=None, format):
    """(serialized program, its text) of `fn` called by keyword: `input_shapes` lists
    (argument name, ShapedArray) in the order of the program's parameters, `constants` maps
    other argument names to values fixed at compile time; `format` "HLO" (or "TF", which needs
    TensorFlow and jax2tf: jxkernel has no jax2tf)."""
    constants = dict(constants or {})
    both = sorted({name for name, _ in input_shapes} & set(constants))
    if both:
        raise ValueError("Arguments appear in both `input_shapes` and `constants`: "
                         + ", ".join(both))
    names = [name for name, _ in input_shapes]
    with_constants = functools.partial(fn, **constants)

    def by_position(*args):
        return with_constants(**dict(zip(names, args)))

    zeros = [jnp.zeros(aval.shape, aval.dtype) for _, aval in input_shapes]
    if format == "HLO":
        program = jit(by_position).lower(*zeros).compiler_ir("hlo")
        return program.as_serialized_hlo_module_proto(), program.as_hlo_text()
    if format != "TF":
        raise ValueError(f"format={format!r}: 'HLO' or 'TF'")
    try:
        import tensorflow  # noqa: F401  (optional: only the TF format asks for it)
    except ImportError:
        raise ValueError("Conversion to TF graph requires TensorFlow to be installed.") from None
    raise ValueError("Conversion to TF graph requires jax.experimental.jax2tf to be "
                     "importable: jxkernel has no jax2tf; use format='HLO'.")


jax_to_hlo = functools.partial(jax_to_ir, format="HLO")
jax_to_tf = functools.partial(jax_to_ir, format="TF")

# XLA's element type names, in the order JAX's error lists them (those whose jnp type the
# ml_dtypes here gives: without it no narrow ones, before ml_dtypes 0.6 no s1 and u1)
_DTYPES = {xla: getattr(jnp, name) for xla, name in (
    ("pred", "bool_"), ("u2", "uint2"), ("u4", "uint4"), ("u8", "uint8"), ("u16", "uint16"),
    ("u32", "uint32"), ("u64", "uint64"), ("s2", "int2"), ("s4", "int4"), ("s8", "int8"),
    ("s16", "int16"), ("s32", "int32"), ("s64", "int64"), ("bf16", "bfloat16"),
    ("f16", "float16"), ("f32", "float32"), ("f64", "float64"), ("c64", "complex64"),
    ("c128", "complex128"), ("s1", "int1"), ("u1", "uint1")) if hasattr(jnp, name)}
_SHAPE = re.compile(r"^([a-z]+[0-9]*)\[\s*([0-9,\s]*)\]$")


def parse_shape_str(s: str) -> ShapedArray:
    """XLA's shape text ("f32[128,2]", "pred[]") as a ShapedArray.

    >>> parse_shape_str("s8[3, 4]").str_short()
    'int8[3,4]'
    """
    match = _SHAPE.match(s)
    dims = [d.strip() for d in match.group(2).split(",")] if match else None
    if not match or match.group(1) not in _DTYPES or (
            dims != [""] and not all(d.isdigit() for d in dims)):
        raise ValueError(f'Invalid shape {s}. Valid example: "f32[1,2,3]".'
                         f'Note that dtype must be one of {list(_DTYPES)}')
    shape = () if dims == [""] else tuple(int(d) for d in dims)
    return ShapedArray(shape, _DTYPES[match.group(1)])
