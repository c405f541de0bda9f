"""jxkernel._src.export, as jax._src.export: the private modules of jax.export that JAX's export
tests import (`_export`, `shape_poly`, `shape_poly_decision`, `serialization`), each over
jxkernel's own export (jxkernel/export/).

    >>> from jxkernel._src.export import shape_poly
    >>> shape_poly.symbolic_shape("b, 4")
    (b, 4)
"""
