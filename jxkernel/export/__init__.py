"""jax.export: store a jitted function as a StableHLO module and call it again later.

    >>> from jxkernel import export
    >>> exp = export.export(jxkernel.jit(jnp.sin))(jxkernel.ShapeDtypeStruct((3,), np.float32))
    >>> blob = exp.serialize()                         # a bytearray: write it to a file
    >>> export.deserialize(blob).call(np.zeros(3, np.float32))
    Array([0., 0., 0.], dtype=float32)

Shape polymorphism: export once for a family of shapes, call with concrete ones.

    >>> a, = export.symbolic_shape("a")
    >>> exp = export.export(jxkernel.jit(lambda x: jnp.concatenate([x, x])))(
    ...     jxkernel.ShapeDtypeStruct((a, 4), np.float32))
    >>> exp.out_avals, exp.call(np.ones((3, 4), np.float32)).shape
    ((ShapedArray(float32[2*a,4]),), (6, 4))

Supported: `symbolic_shape` (+ - * ^, floordiv/mod/max/min, `_`/`...` with `like=`,
`constraints` with >=, <= and ==, `scope=`), `symbolic_args_specs`, `SymbolicScope`,
`is_symbolic_dim`; exports of elementwise ops and broadcasting, reductions, mean, dot and
matmul, transpose, concatenate, split, reshape (with -1), slicing with static bounds,
zeros/ones, arange(x.shape[0]), sort/argsort/argmax, cumulative ops along a static axis,
take_along_axis, integer-array and dynamic indexing, `.at[...]` updates,
cond/while/fori_loop, and sizes used as values (`x / x.shape[0]`); calls eagerly, under jit
and under grad; serialize/deserialize keep the symbolic avals and constraints.

Several devices: a jit with in_shardings/out_shardings, arguments split over a mesh, or a
shard_map inside, is exported over its mesh (`nr_devices`, `in_shardings_jax(mesh)`,
`out_shardings_jax(mesh)`; export/_sharded.py) and called on any mesh of as many devices.
On one device, a committed argument and a jit's SingleDeviceShardings are recorded over an
empty mesh (`sdy.mesh @empty_mesh`), as JAX records them. `platforms=` exports for several
platforms at once (the module takes the platform index first).

Differences from JAX 0.10.2: `serialize` writes jxkernel's own format (JAX's flatbuffer
is not read or written; a module JAX exported runs when put in an Exported's
`mlir_module_serialized`). With symbolic
shapes: primitives without a shape-polymorphic lowering (cumsum along a symbolic axis, conv,
fft, scan over a symbolic length...) raise NotImplementedError at export time, naming the
primitive and the dimension; each dimension variable must be some argument's dimension
`k*v + c`; shape checks run in Python when called (the module holds no shape assertions).
"""
from ._export import (  # noqa: F401
    Exported,
    deserialize,
    default_export_platform,
    export,
    maximum_supported_calling_convention_version,
    minimum_supported_calling_convention_version,
)
from ._serialization import (  # noqa: F401
    DisabledSafetyCheck,
    register_namedtuple_serialization,
    register_pytree_node_serialization,
)
from .shape_poly import (  # noqa: F401
    SymbolicScope,
    is_symbolic_dim,
    symbolic_args_specs,
    symbolic_shape,
)
