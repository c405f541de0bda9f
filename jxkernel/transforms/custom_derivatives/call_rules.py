"""What the rules of custom_jvp_call and custom_vjp_call share.

Outside differentiation and batching each call is just its traced body (`_register_call_rules`).
Under a JVP a tangent of a closed-over value is refused (`_closure_error`); under vmap the body
is batched and the user's rule run batched (`_batched_call`, `_batch_rule`, `_match_dim`); dead-code
elimination cuts the body to the used outputs (`_used_call_jaxpr`). The user's rules see a
literal argument as JAX's do (`_literal_as_array`, `_literal_residual`), and JAX's messages
print types as `_type_text` does.
"""
from __future__ import annotations

import numpy as np

from ...core import sharding_types
from ...core.avals import ShapedArray, dim_inserted, dim_removed, get_aval
from ...core.dce import dce_jaxpr_outputs
from ...core.interpret import eval_jaxpr
from ...core.interpreter_primitives import convert_element_type, reduce_sum
from ...core.ir import ClosedJaxpr, Literal
from ...core.literals import TypedNdArray, typed_scalar
from ...core.numpy_eval import call_rule
from ...core.primitive import (abstract_eval_rules, axis_batching_rules, impl_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_typing_rules)
from ...tree_util import tree_unflatten
from .. import batch_util as bu
from ..ad_util import Zero
from ..batching import batch_jaxpr, batch_subtrace


def _closure_error(name):
    return ValueError(
        f"Detected differentiation of a custom_jvp/custom_vjp function ({name}) with respect to "
        f"a closed-over value. That isn't supported because the custom rule only specifies how "
        f"to differentiate the function with respect to its explicit inputs. Pass the value as "
        f"an argument instead.")


def _literal_as_array(x):
    """A jaxpr's literal argument as custom rules see one in JAX: an array of its type (a
    weak type kept), with `shape` and `dtype` (Equinox's loops read them)."""
    if type(x) is not Literal:
        return x
    return convert_element_type(np.asarray(x.val, x.aval.dtype), x.aval.dtype, x.aval.weak_type)


def _literal_residual(x):
    if type(x) is Literal and type(x.val) in (bool, int, float, complex):
        return typed_scalar(x.val, x.aval.dtype)      # JAX's TypedFloat (a float subclass)
    if isinstance(x, (np.ndarray, np.generic)):     # host data stays so: JAX's TypedNdArray
        return x if type(x) is TypedNdArray else TypedNdArray(np.asarray(x))
    return _literal_as_array(x)


def _types_differ(leaves, avals) -> bool:
    """Whether a rule's outputs differ in shape or dtype from the function's (JAX's
    core.typematch: weak types aside); never where the function was not traced."""
    return avals is not None and any(
        get_aval(x).shape != a.shape or get_aval(x).dtype != a.dtype
        for x, a in zip(leaves, avals))


def _types_tree(tree, leaves) -> str:
    """A pytree of values as JAX's messages print it: each leaf its short type, unquoted
    (`(float32[], float32[])`); None where the values are not known."""
    if leaves is None:
        return str(tree)
    texts = [_type_text(x if isinstance(x, ShapedArray) else get_aval(x)) for x in leaves]
    return str(tree_unflatten(tree, texts)).replace("'", "")


def _type_text(aval, shape=None) -> str:
    """A type as JAX's custom rules' messages print it: `float32[3]` (the dtype's full name)."""
    dims = aval.shape if shape is None else shape
    return f"{np.dtype(aval.dtype).name}[{','.join(map(str, dims))}]"


def _unbatched_call(axis_data, dims) -> bool:
    """Whether a custom call under vmap stays as it is: nothing batched, and no axis name a
    collective in it could name (under a named axis its body and rules are batched, as JAX
    always batches them, so that `psum(x, 'i')` of an unbatched `x` sums over the axis)."""
    return all(d is bu.not_mapped for d in dims) and axis_data.name is None


def _batched_call(axis_data, vals, dims, call_jaxpr) -> tuple:
    """(inputs batched at 0 or not, their dims, the batched body, its out dims) of a custom
    call: every output batched at 0 where any input is, else as the body makes it."""
    size, ema = axis_data.size, axis_data.explicit_mesh_axis
    vals = [v if d is bu.not_mapped else bu.bdim_at_front(v, d, size, ema)
            for v, d in zip(vals, dims)]
    in_dims = [bu.not_mapped if d is bu.not_mapped else 0 for d in dims]
    force = [True] * len(call_jaxpr.out_avals) if any(d == 0 for d in in_dims) else None
    batched, out_dims = batch_jaxpr(call_jaxpr, axis_data, in_dims, force_out_batched=force)
    return vals, in_dims, batched, list(out_dims)


def _batch_rule(rule, axis_data, vals, dims) -> tuple:
    """(outputs, dims) of a custom rule over flat `vals` batched at `dims`, as JAX's
    batch_custom_jvp_subtrace: a symbolic zero goes in unbatched, of its per-example type."""
    vals = [Zero(dim_removed(v.aval, d)) if type(v) is Zero and d is not bu.not_mapped else v
            for v, d in zip(vals, dims)]
    dims = [bu.not_mapped if type(v) is Zero else d for v, d in zip(vals, dims)]
    return batch_subtrace(lambda *xs: rule(xs), axis_data, vals, dims)


def _match_dim(axis_data, x, src, dst, sum_match=False):
    """`x`, batched at `src`, moved to `dst` (JAX's _matchaxis_symzeros): a symbolic zero
    gets its type there; with `sum_match`, a batched cotangent of an unbatched input is
    summed over the batch."""
    size, ema = axis_data.size, axis_data.explicit_mesh_axis
    if src == dst:
        return x
    if dst is bu.not_mapped:
        if not sum_match:
            raise ValueError(f"a custom rule under vmap gave an output batched along axis "
                             f"{axis_data.name!r} where the function's output is not batched")
        return Zero(dim_removed(x.aval, src)) if type(x) is Zero else \
            reduce_sum(x, axes=(src,))
    if type(x) is Zero:
        aval = x.aval if src is bu.not_mapped else dim_removed(x.aval, src)
        return Zero(dim_inserted(aval, dst, size, ema))
    return bu.move_to(x, src, dst, size, ema)


def _register_call_rules(prim, jvp_rule, batching_rule):
    """The rules custom_jvp_call and custom_vjp_call share: outside differentiation and
    batching each is just its traced body, `call_jaxpr`."""
    abstract_eval_rules[prim] = lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals
    impl_rules[prim] = lambda *args, call_jaxpr, **_: eval_jaxpr(
        call_jaxpr.jaxpr, call_jaxpr.consts, *args)
    # inlined, as JAX's lowering does (its ops named `jit(f)/sin`, not under a call)
    lowering_rules[prim] = lambda ctx, *args, call_jaxpr, **_: \
        ctx.lower_jaxpr(call_jaxpr, list(args))
    numpy_rules[prim] = call_rule("call_jaxpr")
    jvp_rules[prim] = jvp_rule
    axis_batching_rules[prim] = batching_rule
    sharding_typing_rules[prim] = sharding_types.call_typing


# ------------------------------------------------------------------ dead-code elimination
# JAX's dce rules of custom_jvp_call and custom_vjp_call: the call computes only the results
# used; every operand stays (the rules may read any), the rules' results cut to match.
def _pick(xs, used):
    return [x for x, u in zip(xs, used) if u]


def _used_call_jaxpr(eqn, used_outs):
    closed = eqn.params["call_jaxpr"]
    jaxpr, _ = dce_jaxpr_outputs(closed.jaxpr, used_outs, instantiate=True)
    return ClosedJaxpr(jaxpr, closed.consts)
