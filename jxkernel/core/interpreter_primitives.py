"""The primitives the transformations themselves emit, declared here without rules.

AD and vmap build arrays of their own: real zeros for a symbolic zero tangent
(broadcast_in_dim, convert_element_type), a cotangent summed back to its operand's shape
(reduce_sum, reshape), a batch axis moved or added (transpose, broadcast_in_dim); jit pins
an argument's sharding (sharding_constraint); grad's seed over a mesh with Explicit axes is
laid out as its output's type says (reshard). Declared here, transforms/ binds them without
importing lax, which is built on transforms/. Each primitive gets its rules beside its
siblings in lax (shapes.py, conversion.py, reductions.py, sharding.py), as every primitive
does, and the functions below bind them with the parameters lax's own functions give.

    >>> import jxkernel
    >>> reshape(jxkernel.numpy.arange(6), (2, 3)).shape
    (2, 3)
"""
import numpy as np

from . import dtypes
from .mesh import PartitionSpec
from .primitive import Primitive
from .symbolic import is_symbolic, symbolic_as_value

broadcast_in_dim_p = Primitive("broadcast_in_dim")
reshape_p = Primitive("reshape")
transpose_p = Primitive("transpose")
reduce_sum_p = Primitive("reduce_sum")
convert_element_type_p = Primitive("convert_element_type")
sharding_constraint_p = Primitive("sharding_constraint")
reshard_p = Primitive("reshard")      # jax.sharding.reshard, named (and printed) as JAX's


def sharding_constraint(x, sharding, context_mesh=None):
    """sharding_constraint_p bound with JAX 0.10.2's params: context_mesh, layout (jxkernel
    keeps arrays row-major: None), sharding and unconstrained_dims (the dimensions its spec
    leaves P.UNCONSTRAINED)."""
    free = frozenset(i for i, p in enumerate(sharding.spec.partitions)
                     if p is PartitionSpec.UNCONSTRAINED)
    return sharding_constraint_p.bind(x, context_mesh=context_mesh, layout=None,
                                      sharding=sharding, unconstrained_dims=free)


def reshard(x, sharding, concrete_mesh=None):
    """reshard_p bound with JAX 0.10.2's params: `dst_sharding`, the result's type, and
    `concrete_mesh`, the device Mesh a NamedSharding given to reshard named (None for a bare
    spec: set_mesh's devices; AD's and vmap's reshards pass the original's on)."""
    return reshard_p.bind(x, dst_sharding=sharding, concrete_mesh=concrete_mesh)


def broadcast_in_dim(x, shape, broadcast_dimensions, sharding=None):
    """lax.broadcast_in_dim without its shortcuts (`sharding`: its result's type, a
    NamedSharding over an abstract mesh)."""
    return broadcast_in_dim_p.bind(x, shape=tuple(shape),
                                   broadcast_dimensions=tuple(broadcast_dimensions),
                                   sharding=sharding)


def reshape(x, new_sizes, sharding=None):
    """lax.reshape (row-major, no `dimensions`) without its shortcuts (`sharding`: its
    result's type, a NamedSharding over an abstract mesh)."""
    return reshape_p.bind(x, new_sizes=tuple(new_sizes), dimensions=None, sharding=sharding)


def transpose(x, permutation):
    return transpose_p.bind(x, permutation=tuple(permutation))


def reduce_sum(x, axes, out_sharding=None):
    return reduce_sum_p.bind(x, axes=tuple(axes), out_sharding=out_sharding)


def convert_element_type(x, dtype, weak_type=False):
    """x as `dtype`, weakly typed if `weak_type` (as jnp's promotion makes them)."""
    return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=bool(weak_type),
                                       sharding=None)


def typed_constant(value, dtype):
    """Scalar `value` as a constant of `dtype` for a rule to bind: a NumPy scalar array, but a
    64-bit dtype without x64 (an operand's under jax_explicit_x64_dtypes ALLOW) as a
    conversion of it, since a NumPy operand is narrowed (JAX's rules use TypedNdArray
    constants there).

    >>> typed_constant(2, np.int32)
    array(2, dtype=int32)
    """
    if is_symbolic(value):        # jax.export: a symbolic size's value, as JAX's rules take it
        return convert_element_type(symbolic_as_value(value), dtype)
    if dtypes.is_canonical(dtype):
        return np.array(value, dtype)
    return convert_element_type(np.array(value, dtype), dtype)


def typed_scalar(value, dtype):
    """typed_constant as a NumPy scalar where it is a NumPy value.

    >>> typed_scalar(2, np.int32)
    np.int32(2)
    """
    out = typed_constant(value, dtype)
    return out[()] if isinstance(out, np.ndarray) else out
