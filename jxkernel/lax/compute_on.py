"""compute_on_p: a traced function run on a named compute type (JAX 0.10.2's
`jax._src.compute_on.compute_on2`): `compute_on_p.bind(*args, jaxpr=closed, compute_type=...)`.
Its lowering is a call of a private function `@compute_on` carrying the compute type as XLA's
frontend attribute (`_xla_compute_type = "host"` for "device_host"), as JAX's; every
batched body binds compute_on again (on the same compute type); a derivative's body runs in
place, unmarked (as eval_jaxpr's: grad splits it equation by equation).

    >>> closed = jax.make_jaxpr(lambda x: [x + 1.0])(1.0)
    >>> compute_on_p.bind(jnp.float32(1.0), jaxpr=closed, compute_type="device_host",
    ...                   out_memory_spaces=(None,), compiler_options_json=None)
    [Array(2., dtype=float32)]
"""
from ..core.interpret import eval_jaxpr
from ..core.numpy_eval import call_rule
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules, transpose_rules)
from ..transforms import batch_util as bu
from ..transforms.ad import jvp_jaxpr, transpose_jaxpr
from ..transforms.ad_util import Zero, instantiate, is_undefined
from ..transforms.batching import batch_jaxpr
from ..xla import stablehlo as hlo
from ..xla.lowering import function_for, platform_index_args

compute_on_p = Primitive("compute_on", multiple_results=True)

# JAX's compute types and the `_xla_compute_type` each lowers to ("gpu_stream:N" is a stream
# annotation instead)
XLA_COMPUTE_TYPES = {"device_host": "host", "device": "dense", "tpu_sparsecore": "sparseoffload"}


def check_compute_type(compute_type) -> None:
    """JAX's checks of a compute type, with JAX's words."""
    if not isinstance(compute_type, str):
        raise TypeError("`compute_on`'s compute_type argument must be a string.")
    if compute_type not in XLA_COMPUTE_TYPES and not compute_type.startswith("gpu_stream:"):
        raise ValueError(f"Invalid compute type {compute_type}. Current supported values are "
                         "`device_host`, `device`, `tpu_sparsecore`, and `gpu_stream:#`.")


def _bind(args, jaxpr, params, out_memory_spaces) -> list:
    return compute_on_p.bind(*args, jaxpr=jaxpr, **{**params,
                                                   "out_memory_spaces": out_memory_spaces})


def _jvp(primals, tangents, *, jaxpr, out_memory_spaces, **params):
    """The body's jvp run in place (as eval_jaxpr's), unmarked: its equations stay apart for
    linearize and grad, which split known from unknown equation by equation."""
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_closed, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    outs = list(eval_jaxpr(jvp_closed.jaxpr, jvp_closed.consts, *primals,
                           *[t for t in tangents if type(t) is not Zero]))
    n = len(jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(a.strip_weak_type())
                      for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


def _batching(axis_data, vals, dims, *, jaxpr, **params):
    batched, out_dims = batch_jaxpr(jaxpr, axis_data, list(dims))
    outs = compute_on_p.bind(*vals, jaxpr=batched, **params)
    return outs, [bu.not_mapped if d is bu.not_mapped else 0 for d in out_dims]


def _transpose(cts, *args, jaxpr, out_memory_spaces, **params):
    linear = [is_undefined(a) for a in args]
    transposed = transpose_jaxpr(jaxpr, linear)
    outs = iter(_bind([*[a for a, lin in zip(args, linear) if not lin],
                       *[instantiate(ct) for ct in cts]], transposed, params,
                      (None,) * len(transposed.out_avals)))
    return [next(outs) if lin else None for lin in linear]


def _lowering(ctx, *args, jaxpr, compute_type, out_memory_spaces, compiler_options_json):
    """A call of the body's private function, marked with the compute type as JAX's."""
    fn = function_for(ctx.module_ctx, jaxpr, "compute_on")
    if compute_type.startswith("gpu_stream:"):
        attrs = {"_xla_stream_annotation": hlo.string_attr(compute_type.split(":")[1]),
                 "inlineable": hlo.string_attr("false")}
    else:
        attrs = {"_xla_compute_type": hlo.string_attr(XLA_COMPUTE_TYPES[compute_type])}
    if compiler_options_json is not None:
        attrs["backend_config"] = hlo.string_attr(compiler_options_json)
    elif compute_type == "device":
        attrs["inlineable"] = hlo.string_attr("false")
    frontend = "{" + ", ".join(f"{k} = {v}" for k, v in sorted(attrs.items())) + "}"
    return ctx.block.op("func.call", [*platform_index_args(ctx.block), *args],
                        list(fn.result_types),
                        {"callee": f"@{fn.name}", "mhlo.frontend_attributes": frontend},
                        loc=ctx.loc)


abstract_eval_rules[compute_on_p] = lambda *avals, jaxpr, **params: list(jaxpr.out_avals)
impl_rules[compute_on_p] = \
    lambda *args, jaxpr, **params: list(eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args))
lowering_rules[compute_on_p] = _lowering
numpy_rules[compute_on_p] = call_rule("jaxpr")
jvp_rules[compute_on_p] = _jvp
axis_batching_rules[compute_on_p] = _batching
transpose_rules[compute_on_p] = _transpose
