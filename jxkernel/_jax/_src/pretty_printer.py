"""jxkernel._src.pretty_printer, as jax._src.pretty_printer for what JAX's tests read of it:
`OutputFormat`, the format a jaxpr's pretty_print writes (core/ir.py). jxkernel writes TEXT;
HTML raises NotImplementedError.

    >>> jax.make_jaxpr(lambda x: x + 1)(1.0).pretty_print(output_format=OutputFormat.TEXT)
    '{ lambda ; a:f32[]. let b:f32[] = add a 1.0:f32[] in (b,) }'
"""
from ...core.ir import OutputFormat  # noqa: F401
