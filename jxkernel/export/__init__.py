"""jax.export: store a jitted function as a StableHLO module and call it again later.

    >>> from jxkernel import export
    >>> exp = export.export(jxkernel.jit(jnp.sin))(jxkernel.ShapeDtypeStruct((3,), np.float32))
    >>> blob = exp.serialize()                         # a bytearray: write it to a file
    >>> export.deserialize(blob).call(np.zeros(3, np.float32))
    Array([0., 0., 0.], dtype=float32)

Differences from JAX 0.10.2: `serialize` writes jxkernel's own format (JAX's flatbuffer
is not read or written); one platform per export; shapes are static (symbolic shapes,
`symbolic_shape`, raise NotImplementedError); single-device programs only.
"""
from ._export import (  # noqa: F401
    Exported,
    default_export_platform,
    export,
    maximum_supported_calling_convention_version,
    minimum_supported_calling_convention_version,
)
from ._serialization import deserialize  # noqa: F401

from .shape_poly import (  # noqa: F401
    SymbolicScope,
    is_symbolic_dim,
    symbolic_args_specs,
    symbolic_shape,
)
