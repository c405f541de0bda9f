"""The exercises of demos/10_inside_the_core.ipynb."""
from __future__ import annotations

import numpy as np

from ... import grad, lax, make_jaxpr, vmap
from ... import numpy as jnp
from ...transforms.jit import jit
from . import NotYet, exercise

_W = np.array([0.5, -1.0, 2.0], np.float32)        # a constant the traced function closes over


def _programs():
    """(name, function, args): a literal, two outputs, a captured constant, a cond."""
    x = np.array([0.25, 1.0, 2.0], np.float32)
    return [
        ("sin(x) * 2 + 1", lambda v: jnp.sin(v) * 2.0 + 1.0, (x,)),
        ("two outputs", lambda v: (v * v, jnp.exp(-v)), (x,)),
        ("a constant", lambda v: v @ jnp.asarray(_W), (x,)),
        ("a cond", lambda v: lax.cond(v.sum() > 0, jnp.cos, jnp.sin, v), (x,)),
    ]


@exercise("core-eval", hints=(
    "Keep a dict from variables to values: first the constvars (closed.consts) and the "
    "invars (the arguments), then each equation's outvars as you compute them.",
    "An equation's input is a Var (look it up) or a Literal (its value is .val). "
    "eqn.primitive.bind(*inputs, **eqn.params) computes it; a primitive with "
    "multiple_results returns a list.",
    "for eqn in jaxpr.eqns: outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params); "
    "env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))",
), solution="def my_eval(closed, *args):\n"
            "    jaxpr = closed.jaxpr\n"
            "    env = dict(zip(jaxpr.constvars, closed.consts))\n"
            "    env.update(zip(jaxpr.invars, args))\n"
            "    read = lambda v: v.val if isinstance(v, Literal) else env[v]\n"
            "    for eqn in jaxpr.eqns:\n"
            "        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)\n"
            "        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))\n"
            "    return [read(v) for v in jaxpr.outvars]")
def _eval(answer):
    for name, f, args in _programs():
        closed = make_jaxpr(f)(*args)
        got = answer(closed, *args)
        want = f(*args)
        want = list(want) if isinstance(want, tuple) else [want]
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            raise NotYet(f"For {name}, my_eval should return a list of {len(want)} output(s) "
                         f"(one per outvar), not {got!r}.")
        for g, w in zip(got, want):
            # the same primitives run one by one on the same device: the same numbers
            if not np.array_equal(np.asarray(g), np.asarray(w)):
                raise NotYet(f"For {name}, my_eval gave {np.asarray(g).tolist()}, not "
                             f"{np.asarray(w).tolist()}.")


@exercise("core-count", hints=(
    "closed.jaxpr.eqns is the list of equations; each has .primitive, whose .name is "
    "'sin', 'mul', ...",
    "collections.Counter counts for you.",
    "return dict(Counter(eqn.primitive.name for eqn in closed.jaxpr.eqns))",
), solution="def count_primitives(closed):\n"
            "    return dict(Counter(eqn.primitive.name for eqn in closed.jaxpr.eqns))")
def _count(answer):
    closed = make_jaxpr(lambda v: jnp.sin(v) * jnp.sin(v + 1.0) * 2.0)(np.ones(3, np.float32))
    got = answer(closed)
    want = {"sin": 2, "add": 1, "mul": 2}
    if dict(got) != want:
        raise NotYet(f"For sin(x) * sin(x + 1) * 2 the counts are {want}; you gave {dict(got)}.")


@exercise("core-primitive", hints=(
    "Follow square_p above: a Primitive('cube'), an abstract_eval rule (the shape and dtype "
    "do not change), a lowering rule (XLA's backends), a NumPy rule (the numpy backend, in "
    "the browser), a jvp rule and a batching rule.",
    "The lowering multiplies twice: ctx.op1('stablehlo.multiply', [ctx.op1("
    "'stablehlo.multiply', [x, x]), x]); the NumPy rule computes on ndarrays: x * x * x. "
    "The derivative of x³ is 3x².",
    "jvp: (x,), (t,) = primals, tangents; return cube(x), 3.0 * x * x * t",
), solution="cube_p = Primitive('cube')\n"
            "abstract_eval_rules[cube_p] = lambda x: x\n"
            "lowering_rules[cube_p] = lambda ctx, x: ctx.op1(\n"
            "    'stablehlo.multiply', [ctx.op1('stablehlo.multiply', [x, x]), x])\n"
            "numpy_rules[cube_p] = lambda x: x * x * x\n\n"
            "def cube(x):\n"
            "    return cube_p.bind(x)\n\n"
            "def cube_jvp(primals, tangents):\n"
            "    (x,), (t,) = primals, tangents\n"
            "    return cube(x), 3.0 * x * x * t\n\n"
            "jvp_rules[cube_p] = cube_jvp\n"
            "batching_rules[cube_p] = lambda args, dims: (cube(*args), dims[0])")
def _primitive(answer):
    x = np.array([1.0, 2.0, -3.0], np.float32)
    names = [e.primitive.name for e in make_jaxpr(answer)(x).jaxpr.eqns]
    if names != ["cube"]:
        raise NotYet(f"cube(x)'s jaxpr should be one equation of a primitive named 'cube'; "
                     f"it is {names}.")
    want = x ** 3
    for how, got in (("cube(x)", lambda: answer(x)), ("jax.jit(cube)(x)", lambda: jit(answer)(x)),
                     ("jax.vmap(cube)(x)", lambda: vmap(answer)(x))):
        try:
            value = np.asarray(got())
        except NotImplementedError as e:       # a missing rule names itself
            raise NotYet(f"{how} failed: {e}") from None
        if not np.array_equal(value, want):
            raise NotYet(f"{how} gave {value.tolist()}, not {want.tolist()}.")
    try:
        slope = np.asarray(vmap(grad(answer))(x))
    except NotImplementedError as e:
        raise NotYet(f"grad failed: {e}") from None
    if not np.array_equal(slope, 3 * x ** 2):
        raise NotYet(f"The derivative of cube at {x.tolist()} should be {(3 * x ** 2).tolist()}, "
                     f"not {slope.tolist()}.")
