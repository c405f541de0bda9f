"""eval_jaxpr_numpy: run a jaxpr with NumPy alone, one NumPy rule per equation.

Where jaxlib cannot run (Pyodide in a browser), a traced program still can: each primitive
has a NumPy evaluation rule beside its other rules (`numpy_rules` in `core/primitive.py`,
filled in `lax/`), and this interpreter walks the jaxpr calling them on `np.ndarray`s.
Primitives that hold jaxprs (jit, cond, while, scan, custom_jvp_call, ...) call back into
`eval_jaxpr_numpy` from their rules. Results keep the dtypes the jaxpr's avals give (float32
stays float32), as XLA's do. Nothing here imports jaxlib.

    >>> import jxkernel, jxkernel.numpy as jnp
    >>> closed = jxkernel.make_jaxpr(lambda x: jnp.sin(x) * 2)(np.float32(1.0))
    >>> eval_closed_jaxpr_numpy(closed, np.float32(0.5))
    [array(0.9588511, dtype=float32)]
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from .ir import ClosedJaxpr, Jaxpr, Literal
from .physical import has_keys, physical_value, physicalize
from .primitive import foreign_primitives, impl_rules, lowering_rules, numpy_rules, rule
from .source_info import add_user_context, staged_line


def _as_array(x, aval) -> np.ndarray:
    """x as an ndarray of aval's dtype (Python scalars, jxkernel Arrays, NumPy scalars)."""
    dtype = getattr(aval, "dtype", None)
    if dtype is None:                                     # a key array's or token's aval
        return x
    return np.asarray(x, dtype)


def eval_jaxpr_numpy(jaxpr: Jaxpr | ClosedJaxpr, consts, *args, prepare=None) -> list:
    """Outputs of `jaxpr` on `consts` and `args`, each an `np.ndarray`, computed with NumPy.
    `args` are the jaxpr's flat inputs (the leaves of the traced function's arguments; typed
    keys run as their uint32 data), converted to their avals' dtypes. A ClosedJaxpr brings its
    own consts: pass `()` for `consts`. Results may be read-only views (a broadcast).
    `prepare` (from the NumPy backend: the indices of some equations of this jaxpr, and a
    function of an index and that equation's operand list) makes the operands those equations
    read (XLA's arithmetic reads subnormals as zero)."""
    if isinstance(jaxpr, ClosedJaxpr):
        assert not len(consts), "a ClosedJaxpr brings its own consts"
        jaxpr, consts = jaxpr.jaxpr, jaxpr.consts
    if has_keys(jaxpr):         # typed keys run as their uint32 data (core/physical.py)
        jaxpr = physicalize(jaxpr)
        consts, args = [physical_value(c) for c in consts], [physical_value(a) for a in args]
    if _errors.ignored:              # a rule's call (jit, scan, ...): the outer call set it
        return _eval(jaxpr, consts, args, prepare)
    _errors.ignored = True
    try:
        with np.errstate(all="ignore"):      # XLA's inf and NaN arrive silently; so do NumPy's
            return _eval(jaxpr, consts, args, prepare)
    finally:
        _errors.ignored = False


class _Errors(threading.local):
    ignored = False          # whether this thread's evaluation has set NumPy's errstate
    # the NumPy backend's `written(eqn, outs)` while it runs a program: each equation's
    # results as XLA's CPU writes them (its arithmetic flushes subnormals), in the bodies of
    # scan, while and cond too
    written = None


def writing(written):
    """Run the evaluations of this thread under `written(eqn, outs)` (None: as the rules
    give them) until the returned token is passed to `done_writing`."""
    before, _errors.written = _errors.written, written
    return before


def done_writing(token) -> None:
    _errors.written = token


_errors = _Errors()


def user_impl(prim):
    """A user's primitive's rule on the NumPy backend where it has no NumPy rule: its impl
    (def_impl), the function JAX calls when it is bound eagerly, run on the operands as NumPy
    arrays where XLA would run its lowering rule (mlir.register_lowering: written with MLIR
    ops, XLA's; the NumPy backend runs each equation in Python), or None (jxkernel's own
    primitives; one without an impl, or without a lowering, which XLA refuses too).

        >>> p = Primitive("twice_np"); _ = p.def_impl(lambda x: 2 * x)      # doctest: +SKIP
        >>> user_impl(p)(np.float32(3))                                     # doctest: +SKIP
        6.0
    """
    if prim not in foreign_primitives or prim not in lowering_rules:
        return None
    impl = impl_rules.get(prim)
    if impl is None:
        return None

    def run(*args, **params):
        # an impl that compiles the primitive (JAX's `partial(dispatch.apply_primitive, p)`)
        # comes back here: refused, as a primitive with no rule the NumPy backend can run
        running = _impls_running.__dict__.setdefault("prims", set())
        if prim in running:
            raise NotImplementedError(
                f"the primitive {prim.name!r} is not available on the 'numpy' backend (jaxprs "
                f"run with NumPy, without XLA): it has no NumPy evaluation rule, its lowering "
                f"rule (mlir.register_lowering) is XLA's, and its def_impl compiles it again "
                f"(dispatch.apply_primitive). Give it a def_impl of its own, or run under "
                f"JAX_PLATFORMS=cpu")
        running.add(prim)
        try:
            return impl(*args, **params)
        finally:
            running.discard(prim)
    return run


_impls_running = threading.local()          # the user primitives whose impl runs, per thread


def numpy_rule(prim):
    """The primitive's NumPy rule (`numpy_rules`), a user's primitive's impl (`user_impl`), or
    JAX's NotImplementedError naming it."""
    found = numpy_rules.get(prim)
    if found is None:
        found = user_impl(prim)
    return found if found is not None else rule("numpy", prim)


# Jaxpr -> per equation, the variables it is the last to read or that no one reads
_dead_after: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _dead(jaxpr: Jaxpr) -> list:
    """Per equation of `jaxpr`, the variables no later equation and no output reads (its
    operands read last, its results never read): dropped once it has run, so that a program
    holds only what is still to be read, as XLA frees a buffer after its last use (a 7168x7168
    MLP's Adam step held every intermediate, 24 GB, to its end and was killed)."""
    found = _dead_after.get(jaxpr)
    if found is None:
        last, outs = {}, {v for v in jaxpr.outvars if type(v) is not Literal}
        for i, eqn in enumerate(jaxpr.eqns):
            for v in eqn.invars:
                if type(v) is not Literal:
                    last[v] = i
        found = [[] for _ in jaxpr.eqns]
        for v, i in last.items():
            if v not in outs:
                found[i].append(v)
        for i, eqn in enumerate(jaxpr.eqns):
            found[i].extend(v for v in eqn.outvars if v not in last and v not in outs)
        found = [tuple(dict.fromkeys(d)) for d in found]
        _dead_after[jaxpr] = found
    return found


def _eval(jaxpr: Jaxpr, consts, args, prepare=None) -> list:
    env = {v: _as_array(c, v.aval) for v, c in zip(jaxpr.constvars, consts)}
    env.update((v, _as_array(a, v.aval)) for v, a in zip(jaxpr.invars, args))
    dead = _dead(jaxpr)
    for i, eqn in enumerate(jaxpr.eqns):
        impl = numpy_rules.get(eqn.primitive) or numpy_rule(eqn.primitive)
        operands = [np.asarray(a.val, a.aval.dtype) if type(a) is Literal else env[a]
                    for a in eqn.invars]
        if prepare is not None and i in prepare[0]:
            operands = prepare[1](i, operands)
        try:
            outs = impl(*operands, **eqn.params)
        except Exception as e:
            # a rule marked `compile_error` raises what XLA's lowering raises at compile time,
            # with the equation's line as its cause (the lowering's ctx.source_info)
            if getattr(impl, "compile_error", False):
                add_user_context(e, eqn.source_info)
            # a failed host callback (a CallbackError) without its line: the equation's, the
            # learner's line that staged it (XLA's lowering records it so)
            if getattr(e, "staged_at", False) is None:
                e.staged_at = staged_line(eqn.source_info)
            raise
        if _errors.written is not None:
            outs = _errors.written(eqn, outs)
        if eqn.primitive.multiple_results:
            env.update(zip(eqn.outvars, map(np.asarray, outs)))
        else:
            env[eqn.outvars[0]] = np.asarray(outs)
        for v in dead[i]:
            env.pop(v, None)
    return [np.asarray(a.val, a.aval.dtype) if type(a) is Literal else env[a]
            for a in jaxpr.outvars]


def eval_closed_jaxpr_numpy(closed: ClosedJaxpr, *args) -> list:
    """`eval_jaxpr_numpy` of a ClosedJaxpr (what a jaxpr-holding primitive's params hold)."""
    return eval_jaxpr_numpy(closed.jaxpr, closed.consts, *args)


def call_rule(param: str):
    """The NumPy rule of a primitive that calls the ClosedJaxpr `params[param]` on its
    operands (jit, custom_jvp_call, custom_vjp_call, checkpoint, ...): for custom derivatives,
    the primal function, as their lowering."""
    def rule(*args, **params):
        closed = params[param]
        return _eval(closed.jaxpr, closed.consts, args)
    rule.calls = param          # (the NumPy backend inlines such calls: numpy_simplify.py)
    return rule
