"""What a checkpoint saves by its policy, and the jaxpr recomputing the rest: into cond
branches, scan bodies and jitted functions too, as JAX's partial_eval_jaxpr_custom rules.

    >>> from jxkernel import checkpoint, linearize, make_jaxpr
    >>> f = checkpoint(lambda x: lax.cond(x > 0, jnp.sin, lambda x: x, x),
    ...                policy=lambda prim, *_, **__: str(prim) == "cos")
    >>> "cos" in str(make_jaxpr(linearize(f, 4.0)[1])(1.0))     # cos saved inside the cond
    False

`saved_and_recomputed(jaxpr, need, policy)` walks back from the outputs `need` flags: an
equation they read is saved when the policy says so, else recomputed; a cond or scan whose
policy saves something inside is split in two: the forward equation returns the values saved
inside (a scan's per iteration, stacked), the recomputing one takes them. A debug print or
callback is recomputed too (it prints again in the backward pass) unless the policy saves it,
as JAX's rule for them.
"""
from __future__ import annotations

import typing

import numpy as np

from ..core.avals import dim_inserted, mem_kind_to_space
from ..core.dce import dce_rules
from ..core.interpret import eval_jaxpr
from ..core import dtypes
from ..core.ir import ClosedJaxpr, Eqn, Jaxpr, Var
from ..core.staging import trace_to_jaxpr
from ..lax.callbacks import debug_callback_p, debug_print_p
from ..lax.cond import cond_p
from ..core.interpreter_primitives import broadcast_in_dim_p
from ..lax.creation import empty2_p, empty_like_aval
from ..lax.elementwise import reduce_precision_p
from ..lax.scan import scan_p
from ..lax.transfer import copy_semantics_of, device_put_p
from ..transforms.jit.pinned import params as placements, pin_of
from ..transforms.jit.primitive import jit_p


class _SavedName(str):
    """A checkpoint_name that every checkpoint saves, whatever its policy."""


# custom_remat's residuals (its f1's `res`: api/ad_checkpoint.py), named so: JAX's remat3
# saves them and recomputes only what its f2 computes from them
SAVED_WHATEVER_THE_POLICY = _SavedName("custom_remat residual")


class RecomputeType:
    """The type of `Recompute`, a policy's answer: recompute the equation's results."""


class SaveableType:
    """The type of `Saveable`, a policy's answer: save the equation's results."""


Recompute = RecomputeType()
Saveable = SaveableType()


class Offloadable(typing.NamedTuple):
    """A policy's answer: save the equation's results, moved from memory kind `src` to `dst`
    (`Offloadable("device", "pinned_host")`): the forward pass puts them in `dst` memory
    (typed `f32<host>`), the backward pass puts them back in `src` where it reads them.

        >>> Offloadable(src="device", dst="pinned_host")
        Offloadable(src='device', dst='pinned_host')
    """
    src: str
    dst: str


def saves(answer) -> bool:
    """Whether a policy's `answer` saves the results (True, Saveable, an Offloadable) or
    recomputes them (False, Recompute); anything else is JAX's TypeError."""
    if isinstance(answer, bool):
        return answer
    if isinstance(answer, (SaveableType, Offloadable)):
        return True
    if isinstance(answer, RecomputeType):
        return False
    raise TypeError(
        "Value returned by a remat policy should be a bool or `ad_checkpoint.Recompute`, "
        "`ad_checkpoint.Saveable` or `ad_checkpoint.Offloadable(...)`. "
        f"Got {answer} of type {type(answer)}.")


def _answer(eqn, policy):
    """The policy's answer for `eqn` (True for a value named SAVED_WHATEVER_THE_POLICY, False
    where there is no policy)."""
    if type(eqn.params.get("name")) is _SavedName:
        return True
    if policy is None:
        return False
    return policy(eqn.primitive, *[v.aval for v in eqn.invars], **eqn.params)


def _saved(eqn, policy) -> bool:
    """Whether a checkpoint saves `eqn`'s results: a value named SAVED_WHATEVER_THE_POLICY,
    or what the policy says (None: nothing)."""
    return saves(_answer(eqn, policy))


def _put(values, outs, space, source_info) -> Eqn:
    """`outs = device_put values` into memory `space`, always copying, as JAX's remat
    offloading writes it."""
    n = len(values)
    params = dict(devices=(space,) * n, srcs=(None,) * n,
                  copy_semantics=(copy_semantics_of(copy=True),) * n)
    return Eqn(list(values), list(outs), device_put_p, params, source_info)


def _offloaded(eqn, outs, answer: Offloadable):
    """(the vars saved for `eqn`'s results `outs`, the equation the forward pass puts them in
    `dst` memory with, the one the recomputation puts them back in `src` with): an
    Offloadable's residual lives in `dst` memory between the passes (JAX's
    partial_eval_jaxpr_custom)."""
    dst = mem_kind_to_space(answer.dst)
    saved = [Var(v.aval.update(memory_space=dst)) for v in outs]
    return saved, _put(outs, saved, dst, eqn.source_info), \
        _put(saved, outs, mem_kind_to_space(answer.src), eqn.source_info)


def saved_and_recomputed(jaxpr: Jaxpr, need, policy) -> tuple:
    """(`jaxpr` with its split equations, the vars of it to save, the Jaxpr recomputing the
    outputs `need` flags from `jaxpr`'s inputs followed by the saved values)."""
    needed = {v for v, n in zip(jaxpr.outvars, need) if n and isinstance(v, Var)}
    saved, recomputed, replaced, after = [], [], {}, {}
    debug = any(e.primitive in _DEBUG for e in jaxpr.eqns)
    there = _recomputed_anyway(jaxpr, policy) if debug else set()
    for eqn in reversed(jaxpr.eqns):
        if eqn.primitive in _DEBUG:
            if _debug_recomputed(eqn, policy, there):
                recomputed.append(eqn)
                needed.update(v for v in eqn.invars if isinstance(v, Var))
            continue
        used = [v in needed for v in eqn.outvars]
        if not any(used):
            continue
        answer = _answer(eqn, policy)
        if isinstance(answer, Offloadable):
            # saved in `dst` memory: put there after the equation, back where it was read
            host, after[id(eqn)], reload = _offloaded(
                eqn, [v for v in eqn.outvars if v in needed], answer)
            saved.extend(reversed(host))
            recomputed.append(reload)
            continue
        if saves(answer):
            saved.extend(v for v in reversed(eqn.outvars) if v in needed)
            continue
        rule = split_rules.get(eqn.primitive) if policy is not None else None
        split = rule(eqn, used, policy) if rule is not None else None
        if split is None:
            recomputed.append(eqn)
            needed.update(v for v in eqn.invars if isinstance(v, Var))
            continue
        known_eqn, inner, recompute_eqn = split
        replaced[id(eqn)] = known_eqn
        saved.extend(reversed(inner))
        recomputed.append(recompute_eqn)
        needed.update(v for v in recompute_eqn.invars if isinstance(v, Var) and v not in inner)
    saved.reverse()
    known = Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars,
                  [k for e in jaxpr.eqns
                   for k in (replaced.get(id(e), e), *([after[id(e)]] if id(e) in after else ()))])
    recompute = Jaxpr(jaxpr.constvars, jaxpr.invars + saved,
                      [v for v, n in zip(jaxpr.outvars, need) if n], recomputed[::-1])
    return known, saved, _forwarding(recompute)


# the callbacks a checkpoint recomputes although nothing reads them: JAX's rule for them
# stages them in the recomputation too, "to provide more information to the user"
_DEBUG = (debug_callback_p, debug_print_p)


def _debug_recomputed(eqn, policy, there) -> bool:
    """Whether a checkpoint's recomputation calls debug print or callback `eqn` again: when
    the policy does not save it, or saves it but every value it reads is recomputed anyway
    (`there`), as JAX's: `checkpoint(f, policy=nothing_saveable)` prints twice under grad,
    `everything_saveable` once."""
    if not _saved(eqn, policy):
        return True
    return all(v in there for v in eqn.invars if isinstance(v, Var))


def _recomputed_anyway(jaxpr: Jaxpr, policy) -> set:
    """The vars of `jaxpr` a recomputation has without a saved value: its inputs and what the
    equations the policy does not save compute (not an effectful equation's results, which
    run once)."""
    there = set(jaxpr.constvars) | set(jaxpr.invars)
    for eqn in jaxpr.eqns:
        if not eqn.effects and not _saved(eqn, policy):
            there.update(eqn.outvars)
    return there


def _forwarding(jaxpr: Jaxpr) -> Jaxpr:
    """`jaxpr` reading, in place of a cond's or scan's result, the operand it only passes on
    (a saved value taken by a split equation and returned as it is): the equation left for
    DCE, so that the staged part reads the saved values themselves, as JAX's."""
    subst, eqns = {}, []
    for eqn in jaxpr.eqns:
        if any(v in subst for v in eqn.invars):
            eqn = eqn.replace(invars=[subst.get(v, v) for v in eqn.invars])
        rule = _forwarding_rules.get(eqn.primitive)
        if rule is not None:
            subst.update((out, eqn.invars[i]) for out, i in rule(eqn).items())
        eqns.append(eqn)
    if not subst:
        return jaxpr
    return Jaxpr(jaxpr.constvars, jaxpr.invars, [subst.get(v, v) for v in jaxpr.outvars], eqns)


def _cond_forwarded(eqn) -> dict:
    """{result: index of the operand every branch returns as it is there}: a branch that
    returns an empty placeholder there (another branch's residual) agrees with any."""
    found = {}
    for k, out in enumerate(eqn.outvars):
        sources = {_source(b.jaxpr, b.jaxpr.outvars[k]) for b in eqn.params["branches"]}
        sources.discard("empty")
        if len(sources) == 1 and None not in sources:
            found[out] = 1 + sources.pop()
    return found


def _source(jaxpr: Jaxpr, v):
    """The index of the input `v` is, "empty" for a placeholder of no value, else None."""
    if v in jaxpr.invars:
        return jaxpr.invars.index(v)
    for eqn in jaxpr.eqns:
        if v in eqn.outvars:
            if eqn.primitive is empty2_p:
                return "empty"
            if eqn.primitive is broadcast_in_dim_p and isinstance(eqn.invars[0], Var):
                return "empty" if _source(jaxpr, eqn.invars[0]) == "empty" else None
    return None


def _scan_forwarded(eqn) -> dict:
    """{result: operand index}: a carry the body returns unchanged, a scanned input it returns
    as its stacked output."""
    p = eqn.params
    body, nc, nk = p["jaxpr"].jaxpr, p["num_consts"], p["num_carry"]
    found = {}
    for k, (out, v) in enumerate(zip(eqn.outvars, body.outvars)):
        if v not in body.invars:
            continue
        i = body.invars.index(v)
        if (k < nk and i == nc + k) or (k >= nk and i >= nc + nk):
            found[out] = i
    return found


def rounded_where_saved(jaxpr: Jaxpr, saved) -> Jaxpr:
    """`jaxpr` whose floating saved values, where its own equations read them too, are first
    rounded to their dtype (reduce_precision), so that the forward pass computes with the
    value the backward pass gets (XLA may keep excess precision in one and not the other:
    JAX's _insert_reduce_precision)."""
    read = {v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var)}
    eqns = list(jaxpr.eqns)
    for v in saved:
        if v not in read or not dtypes.issubdtype(v.aval.dtype, np.inexact):
            continue
        at = next(i for i, e in enumerate(eqns) if v in e.outvars)
        eqn, finfo = eqns[at], dtypes.finfo(v.aval.dtype)
        params = dict(exponent_bits=finfo.nexp, mantissa_bits=finfo.nmant)
        if eqn.primitive is reduce_precision_p and eqn.params == params:
            continue
        exact = Var(v.aval)
        eqns[at:at + 1] = [eqn.replace(outvars=[exact if o is v else o for o in eqn.outvars]),
                           Eqn([exact], [v], reduce_precision_p, params, eqn.source_info)]
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns)


def _pruned(eqn, used):
    """`eqn` computing only its `used` outputs and reading only what they need."""
    return dce_rules[eqn.primitive](used, eqn)[1]


# ------------------------------------------------------------------ cond
def _cond_split(eqn, used, policy):
    """Each branch split alike; the forward cond returns every branch's saved values (each
    branch its own, empties for the others', as JAX's cond partial eval), the recomputing
    cond takes them."""
    branches = eqn.params["branches"]
    splits = [saved_and_recomputed(b.jaxpr, used, policy) for b in branches]
    if not any(saved for _, saved, _ in splits):
        return None
    slots = [v.aval for _, saved, _ in splits for v in saved]
    starts = [sum(len(s) for _, s, _ in splits[:i]) for i in range(len(splits))]
    forward, again = [], []
    for b, (known, saved, recompute), start in zip(branches, splits, starts):
        forward.append(_forward_branch(b, known, saved, slots, start))
        again.append(_recompute_branch(b, recompute, len(saved), slots, start))
    slot_vars = [Var(a) for a in slots]
    known_eqn = eqn.replace(outvars=eqn.outvars + slot_vars,
                            params=dict(eqn.params, branches=tuple(forward)))
    recompute_eqn = eqn.replace(invars=eqn.invars + slot_vars,
                                outvars=[v for v, u in zip(eqn.outvars, used) if u],
                                params=dict(eqn.params, branches=tuple(again)))
    return known_eqn, slot_vars, _pruned(recompute_eqn, [True] * len(recompute_eqn.outvars))


def _forward_branch(b: ClosedJaxpr, known: Jaxpr, saved, slots, start) -> ClosedJaxpr:
    with_saved = Jaxpr(known.constvars, known.invars, known.outvars + saved, known.eqns)
    n_out = len(known.outvars)

    def branch(*args):
        outs = eval_jaxpr(with_saved, b.consts, *args)
        mine = iter(outs[n_out:])
        return outs[:n_out] + [next(mine) if start <= i < start + len(saved)
                               else empty_like_aval(a) for i, a in enumerate(slots)]
    return trace_to_jaxpr(branch, b.in_avals)


def _recompute_branch(b: ClosedJaxpr, recompute: Jaxpr, n_saved, slots, start) -> ClosedJaxpr:
    n_in = len(b.in_avals)

    def branch(*args):
        ops, all_slots = args[:n_in], args[n_in:]
        return eval_jaxpr(recompute, b.consts, *ops, *all_slots[start:start + n_saved])
    return trace_to_jaxpr(branch, list(b.in_avals) + list(slots))


# ------------------------------------------------------------------ jit
def _jit_split(eqn, used, policy):
    """The function split alike: the forward jit returns the values saved inside, the
    recomputing one takes them (not a jit pinned to a device, nor one writing Refs)."""
    p = eqn.params
    closed = p["jaxpr"]
    if pin_of(p) is not None or closed.ref_writes:
        return None
    known, saved, recompute = saved_and_recomputed(closed.jaxpr, used, policy)
    if not saved:
        return None
    inner = [Var(v.aval) for v in saved]
    outvars = [v for v, u in zip(eqn.outvars, used) if u]
    known_eqn = eqn.replace(outvars=eqn.outvars + inner, params=dict(
        p, jaxpr=ClosedJaxpr(Jaxpr(known.constvars, known.invars, known.outvars + saved,
                                   known.eqns), closed.consts),
        **placements(None, len(eqn.invars), len(eqn.outvars) + len(inner))))
    recompute_eqn = eqn.replace(
        invars=eqn.invars + inner, outvars=outvars,
        params=dict(p, jaxpr=ClosedJaxpr(recompute, closed.consts),
                    donated_invars=tuple(p["donated_invars"]) + (False,) * len(inner),
                    **placements(None, len(eqn.invars) + len(inner), len(outvars))))
    return known_eqn, inner, recompute_eqn


def _jit_forwarded(eqn) -> dict:
    """{result: operand index} of the results the function returns as its inputs."""
    body = eqn.params["jaxpr"].jaxpr
    return {out: body.invars.index(v) for out, v in zip(eqn.outvars, body.outvars)
            if v in body.invars}


# ------------------------------------------------------------------ scan
def _scan_split(eqn, used, policy):
    """The body split alike, the carries it reads recomputed to a fixed point; the forward
    scan returns the values saved inside each iteration as extra stacked outputs, the
    recomputing scan takes them as extra scanned inputs."""
    p = eqn.params
    closed, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
    body = closed.jaxpr
    need_carry, need_ys = list(used[:nk]), list(used[nk:])
    for _ in range(nk + 1):
        known, saved, recompute = saved_and_recomputed(body, need_carry + need_ys, policy)
        read = {v for e in recompute.eqns for v in e.invars} | set(recompute.outvars)
        carry_read = [n or v in read for n, v in zip(need_carry, body.invars[nc:nc + nk])]
        if carry_read == need_carry:
            break
        need_carry = carry_read
    if not saved:
        return None
    stacked = [Var(dim_inserted(v.aval, 0, p["length"])) for v in saved]
    forward_body = ClosedJaxpr(Jaxpr(known.constvars, known.invars, known.outvars + saved,
                                     known.eqns), closed.consts)
    known_eqn = eqn.replace(outvars=eqn.outvars + stacked, params=dict(p, jaxpr=forward_body))
    carry_in = [v for v, n in zip(body.invars[nc:nc + nk], need_carry) if n]
    again = Jaxpr(recompute.constvars,
                  body.invars[:nc] + carry_in + body.invars[nc + nk:] + saved,
                  recompute.outvars, recompute.eqns)
    invars = eqn.invars[:nc] + [v for v, n in zip(eqn.invars[nc:nc + nk], need_carry) if n] + \
        eqn.invars[nc + nk:] + stacked
    outvars = [v for v, n in zip(eqn.outvars, need_carry + need_ys) if n]
    recompute_eqn = eqn.replace(invars=invars, outvars=outvars, params=dict(
        p, jaxpr=ClosedJaxpr(again, closed.consts), num_carry=len(carry_in)))
    return known_eqn, stacked, _pruned(recompute_eqn, [True] * len(outvars))


# (shard_map's split rule is in api/shard_map/residuals.py, beside its partial eval)
split_rules = {cond_p: _cond_split, scan_p: _scan_split, jit_p: _jit_split}
_forwarding_rules = {cond_p: _cond_forwarded, scan_p: _scan_forwarded, jit_p: _jit_forwarded}


def partial_eval_jaxpr_custom(jaxpr: Jaxpr, in_unknowns, in_inst, ensure_out_unknowns,
                              ensure_out_inst, saveable) -> tuple:
    """JAX's `pe.partial_eval_jaxpr_custom`: (known jaxpr, staged jaxpr, out_unknowns,
    out_inst, number of residuals), `jaxpr` split equation by equation. An equation reading
    an unknown value is staged (the known values it reads become residuals unless
    instantiated); a known one runs in the known jaxpr and, unless it has effects or
    `saveable` saves its results, is staged again to recompute them. The known jaxpr takes
    the known inputs and returns the known outputs then the residuals; the staged one takes
    the residuals then the inputs `in_inst` flags. jxkernel splits a nested jaxpr's
    equation whole (JAX's rules split a jit, cond or scan inside)."""
    n_in, n_out = len(jaxpr.invars), len(jaxpr.outvars)
    in_inst = (in_inst,) * n_in if isinstance(in_inst, bool) else tuple(in_inst)
    ensure_out_unknowns = (ensure_out_unknowns,) * n_out \
        if isinstance(ensure_out_unknowns, bool) else tuple(ensure_out_unknowns)
    ensure_out_inst = (ensure_out_inst,) * n_out if isinstance(ensure_out_inst, bool) \
        else tuple(ensure_out_inst)
    env: dict = {}
    residuals: dict = {}          # (ordered)

    def read(x):
        return env[x] if isinstance(x, Var) else (False, True)

    def instantiated(inst, x):
        if isinstance(x, Var) and not inst:
            residuals[x] = None
        return x

    for v, unk, inst in zip(jaxpr.invars, in_unknowns, in_inst):
        env[v] = (bool(unk), bool(inst))
    for v in jaxpr.constvars:
        env[v] = (False, True)
    known_eqns, staged_eqns = [], []
    for eqn in jaxpr.eqns:
        unks_in, inst_in = zip(*map(read, eqn.invars)) if eqn.invars else ((), ())
        if any(unks_in):
            staged_eqns.append(eqn.replace(invars=list(map(instantiated, inst_in,
                                                            eqn.invars))))
            env.update((v, (True, True)) for v in eqn.outvars)
            continue
        known_eqns.append(eqn)
        answer = saveable(eqn.primitive, *[x.aval for x in eqn.invars], **eqn.params)
        if not eqn.effects and isinstance(answer, Offloadable):
            # the results put in `dst` memory are the residuals, put back where staged
            host, offload, reload = _offloaded(eqn, eqn.outvars, answer)
            known_eqns.append(offload)
            residuals.update(dict.fromkeys(host))
            staged_eqns.append(reload)
            env.update((v, (False, True)) for v in eqn.outvars)
        elif eqn.effects or saves(answer):
            env.update((v, (False, False)) for v in eqn.outvars)
        else:
            staged_eqns.append(eqn.replace(invars=list(map(instantiated, inst_in,
                                                            eqn.invars))))
            env.update((v, (False, True)) for v in eqn.outvars)
    out_unknowns, out_inst = (list(t) for t in zip(*map(read, jaxpr.outvars))) \
        if jaxpr.outvars else ([], [])
    for x, inst, ensure in zip(jaxpr.outvars, out_inst, ensure_out_inst):
        if ensure:
            instantiated(inst, x)
    out_unknowns = [a or b for a, b in zip(out_unknowns, ensure_out_unknowns)]
    out_inst = [a or b for a, b in zip(out_inst, ensure_out_inst)]
    residuals = list(residuals)
    known = Jaxpr(jaxpr.constvars, [v for v, u in zip(jaxpr.invars, in_unknowns) if not u],
                  [v for v, u in zip(jaxpr.outvars, out_unknowns) if not u] + residuals,
                  known_eqns)
    staged = Jaxpr(jaxpr.constvars,
                   residuals + [v for v, i in zip(jaxpr.invars, in_inst) if i],
                   [v for v, i in zip(jaxpr.outvars, out_inst) if i], staged_eqns)
    return known, staged, out_unknowns, out_inst, len(residuals)
