"""Extended dtypes made physical: a jaxpr over values of an extended dtype (a typed key's
`key<fry>[3]`, Flax's `fp8_meta32[3]`) rewritten, before it is lowered or run by the NumPy
backend, into one over their data (`u32[3,2]`, `f32[3]`), as JAX lowers them through their
dtype's `_rules.physical_element_aval`: the data of an array of shape S is of shape
S + the element's shape, of the element's dtype.

Every interpreter above this one (jit, vmap, grad, the control-flow primitives) sees such a
value as one value of its type, so none of them needs to know the type; only this pass does.
It is an interpreter like the others: the logical jaxpr is evaluated under a staging trace,
each equation by its `physical_rules` entry (the random_* primitives compute threefry or rbg
on the data; shape primitives extend their params by the trailing element axes; to_edtype
and from_edtype are the identity on the data), equations with inner jaxprs are rebound with
those jaxprs made physical, and the rest are rebound as they are. Only jaxprs with a value of
an extended dtype pay for the pass (`has_keys`, cached).

    >>> from jxkernel import make_jaxpr, random
    >>> split = make_jaxpr(lambda k: random.split(k))(random.key(0))
    >>> physicalize(split.jaxpr)    # doctest: +ELLIPSIS
    { lambda ; a:u32[2]. let ... l:u32[2,2] = concatenate[dimension=1] j k in (l,) }
"""
from __future__ import annotations

import numpy as np

from . import dtypes
from .avals import ShapedArray
from .earray import EArray
from .interpret import eval_jaxpr, literal_operand, recorded_threefry
from .ir import ClosedJaxpr, Jaxpr, Literal, Var
from .lru import WeakLRU
from .mesh import NamedSharding, PartitionSpec
from .primitive import lowering_rules
from .staging import trace_to_jaxpr

# primitive -> rule(in_avals, out_avals, *physical operands, **params) -> physical results
# (a list for multiple-result primitives, else one value); the avals are the logical ones
physical_rules: dict = {}



def is_extended(aval) -> bool:
    """Whether `aval` is of an extended dtype (typed keys', or any other)."""
    return isinstance(getattr(aval, "dtype", None), dtypes.ExtendedDType)


is_key = is_extended        # (the name the typed-key code knew it by)


_element_avals: dict = {}      # dtype -> its element aval (asked for each result of the type)


def element_aval(dtype) -> ShapedArray:
    """The aval of one element's data of extended dtype `dtype` (its rules'
    physical_element_aval: u32[2] for a threefry key, f32[] for Flax's fp8_meta32)."""
    try:
        return _element_avals[dtype]
    except KeyError:
        out = _element_avals[dtype] = dtype._rules.physical_element_aval(dtype)
        return out
    except TypeError:             # (an unhashable dtype: asked each time)
        return dtype._rules.physical_element_aval(dtype)


def physical_aval(aval):
    """An extended type's data type (`key<fry>[3]` -> `u32[3,2]`); any other type as it is. A
    sharding on the array's axes stays, the element axes are not split (as JAX's)."""
    if not is_extended(aval):
        return aval
    elt = element_aval(aval.dtype)
    key_shape = tuple(elt.shape)
    sharding = aval.split
    if sharding is not None and hasattr(sharding, "spec"):
        try:
            spec = sharding.spec.partitions + (None,) * (len(aval.shape) - len(sharding.spec))
            sharding = NamedSharding(sharding.mesh, PartitionSpec(*spec, *(None,) * len(key_shape)))
        except Exception:          # (an abstract or unusual sharding: leave the data unsplit)
            sharding = None
    return ShapedArray(tuple(aval.shape) + key_shape, elt.dtype, aval.weak_type, aval.vma,
                       sharding)


def wrap_physical(aval, data):
    """The value of extended type `aval` over its physical Array `data`, as the type's rules
    make it (`global_sharded_result_handler`; keys: a KeyArray; without one: an EArray). The
    handler's result is applied to `data` itself: in jxkernel the physical Array is what
    JAX's buffers are to its handlers. It is given `data`'s mesh sharding, None for an Array
    on one device (whose placement is its own: reading its sharding costs microseconds on
    each eager result, a typed key's split among them)."""
    handler = getattr(aval.dtype._rules, "global_sharded_result_handler", None)
    if handler is None:
        return EArray(aval, data)
    return handler(aval, getattr(data, "_sharding", None), True)(data)


def _jaxprs_of(value):
    if isinstance(value, (Jaxpr, ClosedJaxpr)):
        return [value]
    if isinstance(value, tuple) and value and all(isinstance(v, (Jaxpr, ClosedJaxpr))
                                                  for v in value):
        return list(value)
    return []


# jaxpr -> answer, held weakly: a jaxpr kept here would keep its inner closed jaxprs' consts
# (a closed-over array's buffer) alive after the function that made it is gone
_has_keys_cache = WeakLRU(4096)


def has_keys(jaxpr) -> bool:
    """Whether a key type appears anywhere in `jaxpr` (its inner jaxprs included)."""
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    hit = _has_keys_cache.get((jaxpr, None))
    if hit is not None:
        return hit
    answer = any(is_key(v.aval) for v in (*jaxpr.constvars, *jaxpr.invars)) or any(
        any(is_key(v.aval) for v in eqn.outvars) or
        any(is_key(v.aval) for v in eqn.invars if not isinstance(v, Literal)) or
        any(has_keys(j) for value in eqn.params.values() for j in _jaxprs_of(value))
        for eqn in jaxpr.eqns) or any(is_key(getattr(v, "aval", None)) for v in jaxpr.outvars)
    _has_keys_cache[jaxpr, None] = answer
    return answer


def physical_value(x):
    """A concrete extended-dtype array's data (a closed jaxpr's const); any other value as it
    is."""
    return x._base if is_extended(getattr(x, "aval", None)) and hasattr(x, "_base") else x


# primitive -> params -> the context its inner jaxprs are traced in (a shard_map's body: its
# manual axes bound and, with check_vma, varying), so their physical forms are typed as they
body_contexts: dict = {}    # were (physical_params)


def physical_params(params: dict, prim=None) -> dict:
    """`params` with each inner jaxpr that has keys made physical (under `prim`'s
    body_contexts context, where it has one)."""
    context = body_contexts.get(prim)
    if context is not None and any(has_keys(j) for value in params.values()
                                   for j in _jaxprs_of(value)):
        with context(params):
            return physical_params(params)
    new = None
    for name, value in params.items():
        jaxprs = _jaxprs_of(value)
        if jaxprs and any(has_keys(j) for j in jaxprs):
            made = [physicalize_closed(j) if isinstance(j, ClosedJaxpr) else _open(j)
                    for j in jaxprs]
            new = dict(params) if new is None else new
            new[name] = made[0] if isinstance(value, (Jaxpr, ClosedJaxpr)) else tuple(made)
    return params if new is None else new


def _open(jaxpr: Jaxpr) -> Jaxpr:
    """An open inner jaxpr (no constvars: they are a closed jaxpr's) made physical."""
    if jaxpr.constvars:
        raise NotImplementedError("typed keys in an inner jaxpr with constvars")
    return inline_consts(physicalize_closed(ClosedJaxpr(jaxpr, ())), 0)


def eval_physical(jaxpr: Jaxpr, consts, args) -> list:
    """`jaxpr`'s outputs on the physical `consts` and `args`, each equation bound (under the
    trace running) as its physical form."""
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))

    def read(atom):
        if type(atom) is Literal:
            return literal_operand(atom)
        return env[atom]

    for eqn in jaxpr.eqns:
        in_avals = [a.aval for a in eqn.invars]
        out_avals = [v.aval for v in eqn.outvars]
        vals = list(map(read, eqn.invars))
        rule = physical_rules.get(eqn.primitive)
        keyed = any(map(is_key, in_avals)) or any(map(is_key, out_avals))
        params = physical_params(eqn.params, eqn.primitive)
        if rule is None and keyed and params is eqn.params:
            rule = _traced_lowering(eqn.primitive)
        if rule is not None and keyed:
            # a rule computes on values: a literal's own (a weak one travels as a Literal
            # only to be bound again, keeping its weak type)
            vals = [v.val if type(v) is Literal else v for v in vals]
            with recorded_threefry(eqn):
                outs = rule(in_avals, out_avals, *vals, **params)
        elif keyed and params is eqn.params:
            raise TypeError(f"{eqn.primitive.name} does not accept dtype "
                            f"{next(a.dtype for a in in_avals + out_avals if is_key(a))}")
        else:
            outs = eqn.primitive.bind(*vals, **params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


def _traced_lowering(prim):
    """The physical rule of a library's primitive lowered by `mlir.lower_fun(fun)` (JAX lowers
    `fun` traced on the logical types, lax_test's make/bake/take): `fun` traced on the
    logical avals, that jaxpr made physical on the data. None for any other primitive."""
    traceable = getattr(lowering_rules.get(prim), "traceable", None)
    if traceable is None:
        return None
    fun, multiple = traceable

    def rule(in_avals, out_avals, *vals, **params):
        def flat(*args):
            out = fun(*args, **params)
            return list(out) if multiple else [out]
        closed = trace_to_jaxpr(flat, list(in_avals))
        outs = eval_physical(closed.jaxpr, [physical_value(c) for c in closed.consts], vals)
        return outs if multiple else outs[0]
    return rule


_closed_cache = WeakLRU(1024)   # closed jaxpr (held weakly) -> its physical form


def physicalize_closed(closed: ClosedJaxpr) -> ClosedJaxpr:
    """A closed jaxpr over key types as one over their data (itself if it has none)."""
    if not has_keys(closed.jaxpr):
        return closed
    hit = _closed_cache.get((closed, None))
    if hit is not None:
        return hit
    from .staging import trace_to_jaxpr       # (staging imports the rule tables)
    jaxpr = closed.jaxpr
    consts = [physical_value(c) for c in closed.consts]
    avals = [physical_aval(v.aval) for v in jaxpr.invars]
    out = trace_to_jaxpr(lambda *args: eval_physical(jaxpr, consts, args), avals)
    _closed_cache[closed, None] = out
    return out


_top_cache = WeakLRU(1024)      # jaxpr (held weakly) -> its physical form


def physicalize(jaxpr: Jaxpr) -> Jaxpr:
    """A jaxpr (constvars, then invars: the arguments of a lowered module) over key types
    as one over their data, with the same arguments in the same order (itself if it has no
    keys). Constants the physical rules make are written in as literals."""
    if not has_keys(jaxpr):
        return jaxpr
    hit = _top_cache.get((jaxpr, None))
    if hit is not None:
        return hit
    n = len(jaxpr.constvars)
    avals = [physical_aval(v.aval) for v in (*jaxpr.constvars, *jaxpr.invars)]
    closed = trace_to_jaxpr(lambda *args: eval_physical(jaxpr, args[:n], args[n:]), avals)
    out = inline_consts(closed, n)
    _top_cache[jaxpr, None] = out
    return out


def eval_logical(fun, in_avals, *args):
    """`fun` (a function of values of the logical `in_avals`, such as an extended dtype's
    rules' `add`) applied to their physical data `args`: traced, made physical and evaluated
    under the trace running (a physical rule's way to call a rule written on logical values,
    as JAX's lower_fun)."""
    closed = physicalize_closed(trace_to_jaxpr(lambda *xs: [fun(*xs)], list(in_avals)))
    outs = eval_jaxpr(closed.jaxpr, [physical_value(c) for c in closed.consts], *args)
    return outs[0]


def inline_consts(closed: ClosedJaxpr, n: int = 0) -> Jaxpr:
    """`closed`'s jaxpr with its first `n` inputs as constvars and its own consts (what the
    physical rules captured, what a function closes over) written in as literals, which the
    lowering writes as constants of the module."""
    inner = closed.jaxpr
    literals = {v: Literal(np.asarray(c), v.aval) for v, c in zip(inner.constvars, closed.consts)}

    def sub(atom):
        return literals.get(atom, atom) if isinstance(atom, Var) else atom

    eqns = [e.replace(invars=[sub(a) for a in e.invars]) for e in inner.eqns] if literals \
        else inner.eqns
    outvars = [sub(a) for a in inner.outvars]
    return Jaxpr(inner.invars[:n], inner.invars[n:], outvars, eqns)
