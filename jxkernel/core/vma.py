"""Varying manual axes: which mesh axes a value in a shard_map body differs along.

While a body of `shard_map(..., check_vma=True)` is traced, each value's type carries the
manual mesh axes it may differ along (`aval.vma`, JAX's `typeof(x).mat.varying`): an input
varies over the axes its in_spec names, `psum` removes its axes, `axis_index('x')` varies
over 'x', and any other primitive's result varies over the union of its inputs'. An input
that varies over fewer axes than that union first goes through `pvary`, a no-op on the
data that only changes the type; its transpose is a `psum`, which is how `grad` taken
inside a body sums the cotangent of a replicated input over the devices. A value may also
be unreduced over manual axes (each device holds a summand: `aval.ur[0]`, JAX's
`mat.unreduced`) or reduced over them (the same on each device, its cotangent unreduced:
`aval.ur[1]`), with JAX's casts between those and varying below.

    >>> from jxkernel.sharding import Mesh, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()[:1]), ('x',))
    >>> f = jax.shard_map(lambda a, w: a * w, mesh=mesh, in_specs=(P('x'), P()), out_specs=P('x'))
    >>> print(jax.make_jaxpr(f)(jnp.ones(8), 2.0))    # doctest: +ELLIPSIS
    { lambda ; a:f32[8] b:f32[]. let
    ...
          g:f32[]{V:x} = pvary[axes=('x',)] f
          h:f32[8]{V:x} = mul d g
    ...
"""
from __future__ import annotations

from .avals import NO_AXES, NO_UR, ShapedArray, axis_order, make_ur
from .axis_env import visible_axes
from .config import config
from .ir import jaxpr_params
from .primitive import Primitive, abstract_eval_rules, own_vma_rules

# The manual axes of each check_vma=True shard_map body being traced (innermost last).
checked: list = []


def trace_place() -> tuple:
    """What a trace reads of where it is made, so that a cached trace (jit's, a loop body's,
    checkpoint's, shard_map's) serves only the same place: the named axes bound
    (lax.axis_size is read at trace time) and a check_vma body's manual axes (pvary)."""
    return visible_axes(), checked[-1] if checked else None


class checking:
    """Types inside this block follow the varying manual axes of `axes` (of `mesh_axes`,
    whose order is the order types print their axes in)."""

    def __init__(self, axes, mesh_axes=()):
        self.axes, self.mesh_axes = frozenset(axes), tuple(mesh_axes)

    def __enter__(self):
        checked.append(self.axes)
        axis_order.update({a: i for i, a in enumerate(self.mesh_axes)})

    def __exit__(self, *exc):
        checked.pop()


def checks(axes) -> bool:
    """Whether every one of `axes` is a manual axis of a check_vma body being traced."""
    return bool(checked) and all(a in checked[-1] for a in axes)


def vma_of(x) -> frozenset:
    """The axes `x` varies over (none for Python and NumPy values)."""
    return getattr(getattr(x, "aval", None), "vma", NO_AXES)


def vary_like(value, x):
    """`value` typed as varying over the axes `x` varies over too (JAX's full_like does)."""
    if not checked:
        return value
    missing = vma_of(x) - vma_of(value)
    return pvary(value, missing) if missing else value


def in_mesh_order(axes) -> tuple:
    return tuple(sorted(axes, key=lambda a: (axis_order.get(a, len(axis_order)), str(a))))


# ------------------------------------------------------------------ pvary
pvary_p = Primitive("pvary")
own_vma_rules.add(pvary_p)


def _pvary_abstract_eval(x, *, axes):
    return x.update(vma=x.vma | frozenset(axes))


abstract_eval_rules[pvary_p] = _pvary_abstract_eval


def pvary(x, axes):
    """`x` typed as varying over `axes` too (the data is unchanged)."""
    return pvary_p.bind(x, axes=in_mesh_order(axes))


# ------------------------------------------------------------------ unreduced and reduced
# A body's value may be unreduced over manual axes (each device holds a summand: an
# out_spec's unreduced axes, a contraction's partial sums) or reduced over them (the same on
# each device, typed so that its cotangent is unreduced there: an in_spec's reduced axes).
# The casts between those and varying are no-ops on the data, each the other's transpose
# (JAX's reduced_vary_cast, vary_unreduced_cast; preduced and unreduced_psum likewise).
def _cast_rule(name, kind_from, kind_to, check):
    def rule(x, *, axes):
        if not checked:     # (run where the body's types are erased: an eager body's steps)
            return x
        axes_set = frozenset(axes)
        unreduced, reduced = x.ur
        have = {"varying": x.vma, "unreduced": unreduced, "reduced": reduced}
        check(name, x, axes_set, have)
        new = dict(have)
        if kind_from != "invarying":
            new[kind_from] = have[kind_from] - axes_set
        new[kind_to] = have[kind_to] | axes_set
        return x.update(vma=new["varying"], ur=make_ur(new["unreduced"], new["reduced"]))
    return rule


def _check_cast(kind_from, kind_to, arrow):
    def check(name, x, axes, have):
        if kind_to == "unreduced":          # (JAX's check_unreduced_args)
            for kind in ("unreduced", "reduced"):
                if have[kind] & axes:
                    raise ValueError(f"{name} cannot accept args which are {kind}. Got "
                                     f"{x.str_short(True)} and axes={set(axes)}")
        if kind_from != "invarying":
            if not have[kind_from]:
                raise ValueError(f"{name} only accepts inputs that are {kind_from}. Got "
                                 f"{x.str_short(True)}")
            if not have[kind_from] & axes:
                raise ValueError(
                    f"{name} is a {arrow} collective. This means that the axis names "
                    f"mentioned in `axes` passed to `{name}` must be present in "
                    f"`jax.typeof(x).mat.{kind_from}`. Got axes={tuple(axes)} and "
                    f"jax.typeof(x).mat.{kind_from}={have[kind_from]}")
        elif have["varying"] & axes:
            raise ValueError(
                f"{name} is a {arrow} collective. This means that the axis names mentioned "
                f"in `axes` passed to `{name}` must not be present in "
                f"`jax.typeof(inp).mat.varying`. Got axes={tuple(axes)} and "
                f"jax.typeof(inp).mat.varying={have['varying']}")
        if have[kind_to] & axes:
            raise ValueError(f"{name} input cannot be {kind_to} across the axis_name provided. "
                             f"Got x={x.str_short(True)} and axis_name={tuple(axes)}")
    return check


reduced_vary_cast_p = Primitive("reduced_vary_cast_p")
vary_unreduced_cast_p = Primitive("vary_unreduced_cast_p")
preduced_p = Primitive("preduced")
for _p, _from, _to, _arrow in (
        (reduced_vary_cast_p, "reduced", "varying", "Reduced->Varying"),
        (vary_unreduced_cast_p, "varying", "unreduced", "Varying->Unreduced"),
        (preduced_p, "invarying", "reduced", "Invariant->Reduced")):
    own_vma_rules.add(_p)
    abstract_eval_rules[_p] = _cast_rule(_p.name.removesuffix("_p"), _from, _to,
                                         _check_cast(_from, _to, _arrow))


def reduced_vary_cast(x, axes):
    """`x`, reduced over `axes`, typed as varying over them (the data is unchanged)."""
    return reduced_vary_cast_p.bind(x, axes=in_mesh_order(axes))


def vary_unreduced_cast(x, axes):
    """`x`, varying over `axes`, typed as unreduced over them: each device's value is its
    summand (the data is unchanged)."""
    return vary_unreduced_cast_p.bind(x, axes=in_mesh_order(axes))


def preduced(x, axes):
    """`x`, the same over `axes`, typed as reduced over them (the data is unchanged)."""
    return preduced_p.bind(x, axes=in_mesh_order(axes))


def _pvary_or_cast(trace, x, missing):
    """The cast making `x` vary over `missing` too: from reduced where it is reduced over just
    those axes (JAX's auto_insert_reshard), else pvary."""
    prim = reduced_vary_cast_p if getattr(getattr(x, "aval", None), "ur", NO_UR)[1] == missing \
        else pvary_p
    return trace.process_primitive(prim, [x], {"axes": in_mesh_order(missing)})


# ------------------------------------------------------------------ the rules for the others
def match_inputs(trace, prim, args, params) -> list:
    """`args` with each one varying over fewer axes than the others put through pvary."""
    if prim in own_vma_rules or len(args) < 2 or _calls_a_body(params):
        return args
    vmas = [vma_of(x) for x in args]
    union = NO_AXES.union(*vmas)
    if not union:
        return args
    if not config.jax_auto_pcast:        # jax.auto_pcast(False): no pvary put in, JAX's error
        if any(v != union for v in vmas):
            raise ValueError(
                f"Primitive {prim.name} requires varying manual axes to match, but got "
                f"[{', '.join(_frozenset_text(v) for v in vmas)}]. Please open an issue at "
                "https://github.com/jax-ml/jax/issues and as a temporary workaround pass the "
                "check_vma=False argument to `jax.shard_map`")
        return args
    return [x if v == union else _pvary_or_cast(trace, x, union - v)
            for x, v in zip(args, vmas)]


# a scatter's combiner (how an update meets the operand's element) is no body: the scatter
# takes the standard rule, its operands put through pvary as JAX's are (a body's call types
# its own results)
_COMBINERS = frozenset({"update_jaxpr"})


def _calls_a_body(params) -> bool:
    return bool(jaxpr_params({k: v for k, v in params.items() if k not in _COMBINERS}))


def _frozenset_text(axes) -> str:
    return f"frozenset({{{', '.join(repr(a) for a in in_mesh_order(axes))}}})" if axes \
        else "frozenset()"


def out_types(prim, in_avals, params, out_avals) -> list:
    """The results' types: varying over the union of the inputs' axes (call-like primitives
    and collectives have typed their results already)."""
    if prim in own_vma_rules or _calls_a_body(params):
        return out_avals
    union = NO_AXES.union(*(getattr(a, "vma", NO_AXES) for a in in_avals))
    if not union:
        return out_avals
    return [a.update(vma=union) if type(a) is ShapedArray else a for a in out_avals]
