"""eval_jaxpr: run a jaxpr by binding each equation's primitive on the current trace.

Under the eval trace this executes the program op by op; under any other
trace it re-traces it (which is how jaxprs get transformed, or inlined).
"""
from __future__ import annotations

import contextlib
import functools

import numpy as np

from . import dtypes
from .config import config
from .ir import Jaxpr, Literal
from .literals import TypedNdArray, typed_scalar
from .mesh import run_under_recorded_mesh
from .name_stack import replay, replaying, with_name_stack
from .source_info import add_user_context, traced_source_info
from .trace import _ctx as _trace_ctx


def literal_operand(atom: Literal):
    """A jaxpr literal as an operand to bind again: the Literal itself where its NumPy value
    alone would lose its type (a weak type; a 64-bit dtype without x64, made under
    jax_explicit_x64_dtypes ALLOW, which binding a NumPy value would narrow), else the value."""
    aval = atom.aval
    return atom if aval.weak_type or not dtypes.is_canonical(aval.dtype) else atom.val


def read_atom(env: dict, atom):
    """An equation's input while interpreting a jaxpr: a variable's value from `env`, or a
    literal's (literal_operand)."""
    if isinstance(atom, Literal):
        return literal_operand(atom)
    return env[atom]


def literal_result(atom: Literal):
    """A jaxpr's literal output as JAX's eval_jaxpr gives it (its Literal.val): a weakly typed
    one as the Python scalar carrying its dtype (`TypedFloat(1.0, dtype=float32)`: remat of
    `lambda: 1.0`), another as its NumPy data in a TypedNdArray, never the Literal itself.

        >>> from jxkernel.core.avals import ShapedArray
        >>> literal_result(Literal(np.float32(2.0), ShapedArray((), np.float32, True)))
        TypedFloat(2.0, dtype=float32)
    """
    if atom.aval.weak_type:
        return typed_scalar(np.asarray(atom.val).item(), atom.aval.dtype)
    return TypedNdArray(np.asarray(atom.val), atom.aval)


def recorded_threefry(eqn):
    """A context in which `eqn` runs or is made physical under jax_threefry_partitionable as
    it was where the equation was recorded (a key primitive's: JAX's eqn.ctx), else none."""
    flag = eqn.threefry
    if flag is None or flag == config.jax_threefry_partitionable:
        return contextlib.nullcontext()
    return config.override("jax_threefry_partitionable", flag)


def eval_jaxpr(jaxpr: Jaxpr, consts, *args, site=None) -> list:
    """Outputs of `jaxpr` on `consts` and `args`, computed by the current trace. With a
    `site` (a SourceInfo), the equations it records come from there, each under its own
    name stack (eval_at_call_site).

    >>> from jxkernel import make_jaxpr
    >>> eval_jaxpr(make_jaxpr(jnp.sin)(1.0).jaxpr, [], 0.5)
    [Array(0.47942555, dtype=float32, weak_type=True)]
    """
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    read = functools.partial(read_atom, env)

    outer = replaying.source_info
    names = _trace_ctx.names
    try:
        for eqn in jaxpr.eqns:
            # equations this bind records get this one's source line (eqn_source_info), and
            # its name stack under the one running (JAX's eval_jaxpr: current + the eqn's)
            info = eqn.source_info
            if site is not None:
                info = with_name_stack(site, info.name_stack) \
                    if info is not None and info.name_stack else site
            replay(info, outer, names)
            try:
                context = None if eqn.mesh is None else run_under_recorded_mesh(eqn.mesh)
                if context is None and eqn.threefry is None:
                    outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
                else:           # recorded under another mesh: run under it (JAX's eqn.ctx)
                    with context or contextlib.nullcontext(), recorded_threefry(eqn):
                        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            except (FloatingPointError, ZeroDivisionError) as e:
                # jax_debug_nans' error running a transformed equation: its cause is where
                # the user's code made the equation, as JAX's eval_jaxpr attaches it
                add_user_context(e, eqn.source_info)
                raise
            env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    finally:
        replay(None, outer, names)
    return [read(v) for v in jaxpr.outvars]


def held_values(outs) -> list:
    """Outputs of eval_jaxpr as JAX's eval_jaxpr gives them to a user: each literal as its
    held value (literal_result). jxkernel's interpreters keep the Literal, which the trace
    running them lifts (an inlined jit's literal result is a tracer of the enclosing jit)."""
    return [literal_result(o) if type(o) is Literal else o for o in outs]


def public_eval_jaxpr(jaxpr: Jaxpr, consts, *args, propagate_source_info=True) -> list:
    """jax.core.eval_jaxpr: the outputs of `jaxpr` on `consts` and `args`, as JAX's gives
    them (a literal output as its value, never the Literal)."""
    return held_values(eval_jaxpr(jaxpr, consts, *args))


def eval_at_call_site(jaxpr: Jaxpr, consts, *args) -> list:
    """eval_jaxpr with every equation recorded at the line running now (the user's, or the
    equation being bound again), each under its own name stack: an inlined jit's body, as
    JAX's inline_jaxpr_into_trace records it (the call site's traceback, not the body's)."""
    site = replaying.source_info or traced_source_info(2)
    if site is not None and site.name_stack:
        site = with_name_stack(site, ())
    return eval_jaxpr(jaxpr, consts, *args, site=site)
