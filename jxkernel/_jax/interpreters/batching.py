"""jxkernel.interpreters.batching, as jax.interpreters.batching: vmap rules of primitives.

A batching rule is `rule(args, dims, **params) -> (out, out_dim)`: each `dims` entry is the
argument's batch axis, or `not_mapped` (None) for an unbatched argument.

    >>> from jxkernel.extend.core import Primitive
    >>> double_p = Primitive("double_batching_doc")
    >>> _ = double_p.def_impl(lambda x: 2 * x)
    >>> primitive_batchers[double_p] = lambda args, dims: (double_p.bind(args[0]), dims[0])
    >>> jax.vmap(double_p.bind)(jnp.arange(3))
    Array([0, 2, 4], dtype=int32)

A rule that needs the mapped axis goes in `fancy_primitive_batchers`, called as
`rule(axis_data, args, dims, **params)` (`axis_data.size`, `axis_data.name`), or in the older
`axis_primitive_batchers`, called as `rule(axis_size, axis_name, None, args, dims, **params)`.
Both are called even when no argument is batched (a rule in `primitive_batchers` is not: the
primitive is then bound unbatched).

A container type vmap maps by rules of its own (its in_axes entry a spec of its own type):
`register_vmappable` (jxkernel/transforms/vmappable.py).
"""
from ...core.primitive import axis_batching_rules, batching_rules
from ...transforms.batch_util import (bdim_at_front, defbroadcasting,  # noqa: F401
                                     defvectorized, not_mapped)
from ...transforms.batching import AxisData  # noqa: F401
from ...transforms.vmappable import (is_vmappable, register_vmappable,  # noqa: F401
                                     unregister_vmappable)
from ._user_rules import UserRules, plain_values

primitive_batchers = UserRules(batching_rules, lambda rule: lambda args, dims, **params: rule(
    plain_values(args), tuple(dims), **params))
fancy_primitive_batchers = UserRules(
    axis_batching_rules, lambda rule: lambda axis_data, args, dims, **params: rule(
        axis_data, plain_values(args), tuple(dims), **params))
axis_primitive_batchers = UserRules(
    axis_batching_rules, lambda rule: lambda axis_data, args, dims, **params: rule(
        axis_data.size, axis_data.name, None, plain_values(args), tuple(dims), **params))
