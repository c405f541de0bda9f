"""jax.experimental.custom_partitioning: a function whose partitioning over a mesh the user
writes. Inside a jit over several devices it is XLA's `CustomSPMDPartitioning` custom call,
with the Shardy sharding rule the user gave (api/custom_partitioning_sharding_rule.py); while
XLA compiles, its partitioner calls back `partition(mesh, arg_shapes, result_shape)` with the
shardings it chose, and the per-device function that returns is lowered and put in the call's
place (JAX's design, jax/_src/custom_partitioning.py). Elsewhere (eagerly, on one device, in a
shard_map body) the function itself runs.

    >>> @custom_partitioning
    ... def double(x):
    ...     return x * 2
    >>> _ = double.def_partition(
    ...     partition=lambda mesh, args, result: (mesh, lambda x: x * 2, result.sharding,
    ...                                           (args[0].sharding,)),
    ...     sharding_rule="i -> i")
    >>> double(jnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
"""
from __future__ import annotations

import inspect
import weakref

import numpy as np

from ..core.avals import ShapedArray, ShapeDtypeStruct, get_aval
from ..core.errors import UnexpectedTracerError
from ..core.interpret import eval_jaxpr
from ..core.ir import param_printers
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.numpy_eval import call_rule
from ..core.physical import inline_consts, physical_aval
from ..core.primitive import Primitive, abstract_eval_rules, impl_rules, lowering_rules, numpy_rules
from ..core.staging import convert_constvars_to_invars, trace_to_jaxpr
from ..core.trace import Tracer
from ..lax.callbacks import _masked
from ..transforms.make_jaxpr import make_jaxpr
from ..tree_util import tree_flatten, tree_leaves, tree_unflatten
from ..xla import stablehlo as hlo
from ..xla.compiler import CUSTOM_PARTITIONING_TARGET
from ..xla.lowering import lower_module
from ..xla.sharding import (GSPMDSharding, hlo_sharding, register_custom_partitioner,
                            spec_from_hlo, tensor_types, tuple_hlo_sharding)
from .custom_partitioning_sharding_rule import (  # noqa: F401
    BATCHING, ArrayMapping, CompoundFactor, SdyShardingRule, rule_attribute,
    str_to_sdy_sharding_rule)

custom_partitioning_p = Primitive("custom_partitioning", multiple_results=True)


class custom_partitioning:
    """`fun` with the partitioning rules `def_partition` gives it; `static_argnums` are
    passed to the rules as they are (first), not traced."""

    def __init__(self, fun, static_argnums=()):
        self.fun, self.static_argnums = fun, tuple(static_argnums)
        self.partition = self.propagate_user_sharding = None
        self.infer_sharding_from_operands = self.sharding_rule = None
        self.decode_shardings = True
        self.__wrapped__ = fun

    def __getattr__(self, name):          # (JAX's forward_attr: the function's attributes)
        return getattr(self.__dict__["fun"], name)

    def def_partition(self, partition, infer_sharding_from_operands=None,
                      propagate_user_sharding=None, decode_shardings=True,
                      sharding_rule=None, *, reduction_factors=(),
                      need_replication_factors=(), permutation_factors=(), **factor_sizes):
        """Set the rules: `partition` (required), Shardy's `sharding_rule` (an
        SdyShardingRule, an Einsum-like string with its factor keywords, or a callable
        making either), and GSPMD's propagation callbacks (unused: jxkernel partitions with
        Shardy). Returns `partition`."""
        self.partition = partition
        self.propagate_user_sharding = propagate_user_sharding
        self.infer_sharding_from_operands = infer_sharding_from_operands
        self.decode_shardings = decode_shardings
        if sharding_rule is None or callable(sharding_rule) or \
                isinstance(sharding_rule, SdyShardingRule):
            extra = dict(factor_sizes)
            for name, given in (("reduction_factors", reduction_factors),
                                ("need_replication_factors", need_replication_factors),
                                ("permutation_factors", permutation_factors)):
                if given:
                    extra[name] = given
            if extra:
                raise ValueError(f"Unknown keyword arguments: {extra}")
            self.sharding_rule = sharding_rule
        else:
            self.sharding_rule = str_to_sdy_sharding_rule(
                sharding_rule, reduction_factors=reduction_factors,
                need_replication_factors=need_replication_factors,
                permutation_factors=permutation_factors, **factor_sizes)
        return partition

    def __call__(self, *args, **kwargs):
        args = _resolve_kwargs(self.fun, args, kwargs)
        static = set(self.static_argnums)
        static_args = tuple(args[i] for i in self.static_argnums)
        if any(isinstance(x, Tracer) for x in tree_leaves(static_args)):
            raise UnexpectedTracerError(
                "Found a JAX Tracer object passed as an argument to acustom_partitioning "
                "function in a position indicated as static bystatic_argnums. ")
        dyn_args = tuple(x for i, x in enumerate(args) if i not in static)
        flat, in_tree = tree_flatten(dyn_args)
        out_trees = []

        def flat_fun(*leaves):
            merged, rest = [], iter(tree_unflatten(in_tree, list(leaves)))
            for i in range(len(args)):
                merged.append(args[i] if i in static else next(rest))
            out, out_tree = tree_flatten(self.fun(*merged))
            out_trees.append(out_tree)
            return out
        call, consts = convert_constvars_to_invars(
            trace_to_jaxpr(flat_fun, [get_aval(x) for x in flat]))
        if consts:      # JAX's `assert not len(consts)`: its class (its message is empty)
            raise AssertionError(
                f"custom_partitioning's function {getattr(self.fun, '__name__', self.fun)!r} "
                f"closes over {len(consts)} array(s) (or tracers), which JAX refuses: pass "
                f"them as arguments (scalars may stay closed over)")
        if self.sharding_rule is None and (self.propagate_user_sharding is not None or
                                           self.infer_sharding_from_operands is not None):
            raise NotImplementedError(
                "Shardy is used, but sharding propagation callbacks instead of sharding_rule "
                "are provided. Need to provide sharding_rule to migrate to Shardy.")
        outs = custom_partitioning_p.bind(
            *consts, *flat, call=call, decode_shardings=self.decode_shardings,
            in_tree=in_tree, infer_sharding_from_operands=None, out_tree=out_trees[0],
            partition=self.partition, propagate_user_sharding=None,
            sharding_rule=self.sharding_rule, static_args=static_args)
        return tree_unflatten(out_trees[0], outs)


def _resolve_kwargs(fun, args, kwargs) -> tuple:
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError("keyword arguments could not be resolved to positions")
    return bound.args


# ------------------------------------------------------------------ the primitive
def _impl(*args, call, **params):
    return eval_jaxpr(call.jaxpr, call.consts, *args)


def _lowering(ctx, *values, call, partition, decode_shardings, sharding_rule, in_tree,
              out_tree, static_args, **unused):
    """One device, or a shard_map body manual over every axis: the function inlined. Over a
    mesh: XLA's custom call, partitioned by the callbacks below while XLA compiles."""
    module_ctx = ctx.module_ctx
    mesh, manual = module_ctx.mesh, module_ctx.manual
    if mesh is None or mesh.size == 1 or \
            manual is not None and set(manual[1]) == set(manual[0].axis_names):
        return ctx.lower_jaxpr(call, values)         # inline, as JAX's lower_fun
    info = _Callbacks(partition, mesh, decode_shardings, in_tree, out_tree, static_args,
                      module_ctx.platform)
    key = str(id(info))
    _callbacks[key.encode()] = info
    module_ctx.add_keepalive(info)            # (XLA holds its key alone, until compiled)
    attrs = {"call_target_name": f'"{CUSTOM_PARTITIONING_TARGET}"',
             "api_version": hlo.i32_attr(2), "backend_config": f'"{key}"',
             "has_side_effect": "false"}
    if sharding_rule is not None:
        rule = _rule_of(sharding_rule, static_args, mesh, call)
        attrs["sdy.sharding_rule"] = rule_attribute(
            rule, [a.shape for a in call.in_avals], [a.shape for a in call.out_avals])
    return ctx.op("stablehlo.custom_call", list(values), attrs,
                  result_types=[hlo.aval_type(a) for a in call.out_avals])


def _rule_of(sharding_rule, static_args, mesh, call) -> SdyShardingRule:
    """A callable rule called as JAX calls it, with the operands' and results' MLIR types
    (jaxlib's RankedTensorTypes), its answer made an SdyShardingRule."""
    if isinstance(sharding_rule, SdyShardingRule):
        return sharding_rule
    made = sharding_rule(*static_args, mesh, *[
        tensor_types([hlo.aval_type(physical_aval(a)) for a in avals])
        for avals in (call.in_avals, call.out_avals)])
    made, keywords = made if isinstance(made, (list, tuple)) and len(made) == 2 else (made, {})
    if isinstance(made, str):
        return str_to_sdy_sharding_rule(made, **keywords)
    if not isinstance(made, SdyShardingRule):
        raise ValueError("sharding_rule callable must produce either an SdyShardingRule object "
                         "or an Einsum-like notation string.")
    return made


abstract_eval_rules[custom_partitioning_p] = lambda *avals, call, **params: call.out_avals
impl_rules[custom_partitioning_p] = _impl
numpy_rules[custom_partitioning_p] = call_rule("call")
lowering_rules[custom_partitioning_p] = _lowering
param_printers[custom_partitioning_p] = lambda p: [       # (functions as JAX prints them)
    (k, _masked(v) if k == "partition" else v) for k, v in sorted(p.items())]


# ------------------------------------------------------------------ XLA's callbacks
class _Callbacks:
    """What XLA's partitioner callbacks need of one lowered call (found by its key)."""

    def __init__(self, partition, mesh, decode_shardings, in_tree, out_tree, static_args,
                 platform):
        self.partition, self.mesh, self.decode = partition, mesh, decode_shardings
        self.in_tree, self.out_tree, self.static_args = in_tree, out_tree, static_args
        self.platform = platform

    def sharding(self, hlo_sharding, ndim):
        """XLA's HloSharding as a NamedSharding over the mesh (a GSPMDSharding where the user
        asked for no decoding, or no spec over the mesh says it)."""
        if hlo_sharding is None:
            return None
        if self.decode:
            try:
                spec = tuple(spec_from_hlo(hlo_sharding, self.mesh, ndim))
                return NamedSharding(self.mesh, PartitionSpec(*spec, *(None,) *
                                                              (ndim - len(spec))))
            except NotImplementedError:
                pass
        return GSPMDSharding(self.mesh._flat_devices, hlo_sharding)

    def struct(self, shape, hlo_sharding):
        dims = tuple(shape.dimensions())
        return ShapeDtypeStruct(dims, shape.numpy_dtype(),
                                sharding=self.sharding(hlo_sharding, len(dims)))

    def arg_structs(self, shapes, shardings):
        return tree_unflatten(self.in_tree, [self.struct(s, h) for s, h in zip(shapes,
                                                                               shardings)])


_callbacks: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _parts(shape, sharding):
    """(shapes, shardings) of a value that may be a tuple."""
    if shape.is_tuple():
        return shape.tuple_shapes(), (None if sharding is None else sharding.tuple_elements())
    return (shape,), (sharding,)


def _to_hlo(sharding, ndim):
    if isinstance(sharding, NamedSharding):
        return hlo_sharding(sharding, ndim)
    if not hasattr(sharding, "_to_xla_hlo_sharding"):
        raise ValueError("Custom Partitioning rules must return Sharding.")
    return sharding._to_xla_hlo_sharding(ndim)


def _flat_hlo(tree, shardings, shapes) -> list:
    return [_to_hlo(s, len(shape.dimensions()))
            for s, shape in zip(tree.flatten_up_to(shardings), shapes)]


def _pack(shape, shardings):
    return tuple_hlo_sharding(shape, shardings) if shape.is_tuple() else shardings[0]


def _tiled(hlo_sharding, shape) -> ShapedArray:
    return ShapedArray(tuple(hlo_sharding.tile(shape).dimensions()), np.dtype(shape.numpy_dtype()))


def _partition(arg_shapes, arg_shardings, result_shape, result_sharding, backend_string):
    """XLA's call: the user's partition at XLA's shardings; the per-device function lowered
    (StableHLO text), with the shardings it wants its operands and result in."""
    info = _callbacks[backend_string]
    result_shapes, result_shardings = _parts(result_shape, result_sharding)
    mesh, lower_fn, result_given, args_given = info.partition(
        *info.static_args, info.mesh, info.arg_structs(arg_shapes, arg_shardings),
        tree_unflatten(info.out_tree, [info.struct(s, h) for s, h in zip(result_shapes,
                                                                         result_shardings)]))
    result_hlos = _flat_hlo(info.out_tree, result_given, result_shapes)
    arg_hlos = _flat_hlo(info.in_tree, args_given, arg_shapes)
    tiled_args = [_tiled(h, s) for h, s in zip(arg_hlos, arg_shapes)]
    tiled_results = [_tiled(h, s) for h, s in zip(result_hlos, result_shapes)]
    closed = make_jaxpr(lower_fn, axis_env=list(mesh.shape.items()))(
        *tree_unflatten(info.in_tree, tiled_args))
    if [(o.shape, o.dtype) for o in closed.out_avals] != \
            [(t.shape, t.dtype) for t in tiled_results]:
        raise ValueError(f"Mismatch in result shapes. {closed.out_avals!r} vs {tiled_results!r}")
    # (the array constants it closes over written in: JAX's lowering embeds them)
    text, _ = lower_module(inline_consts(closed), name="tmp_xla_computation",
                           platform=info.platform, manual=(mesh, frozenset(mesh.axis_names)))
    return text.encode(), arg_hlos, _pack(result_shape, result_hlos)


def _infer_from_operands(arg_shapes, arg_shardings, result_shape, backend_string):
    """GSPMD's forward propagation (XLA calls it without Shardy): none asked, replicated."""
    info = _callbacks[backend_string]
    result_shapes, _ = _parts(result_shape, None)
    return _pack(result_shape, [hlo_sharding(NamedSharding(info.mesh, PartitionSpec()),
                                             len(s.dimensions())) for s in result_shapes])


def _propagate_user_sharding(user_sharding, shape, backend_string):
    """GSPMD's backward propagation: the user's sharding kept."""
    return user_sharding


register_custom_partitioner(CUSTOM_PARTITIONING_TARGET, _propagate_user_sharding, _partition,
                            _infer_from_operands)
