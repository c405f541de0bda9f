"""checkpoint (remat) and dead-code elimination, run alike by real JAX
(reference/make_remat_dce_reference.py records remat_dce_reference.json) and by jxkernel
(tests/transforms/test_remat_dce.py): `run(jax)` returns plain JSON data.

- "residuals": per function, what `print_saved_residuals` lists, each line cut before the
  source line it names ("f32[] from the argument x", "f32[4] output of exp").
- "dce": per jaxpr and used outputs, `pe.dce_jaxpr`'s used inputs, its equation count with
  nested jaxprs', and the primitives a custom rule's call keeps.
- "counts": how often ` sin `, ` cos `, ` dot_` print in a linearized or vjp'd checkpoint's
  jaxpr (a cond or scan inside: its primal part is not recomputed).
- "barriers": per checkpoint's prevent_cse, the operand count of each optimization_barrier in
  the lowered text of jit(grad(loss)) (a tuple or pytree of flags: only the flagged inputs).
- "name_stacks": the `# [name stack]` notes of `pretty_print(name_stack=True)` of a vjp of a
  checkpointed, named, jitted function (its recomputation under `rematted_computation`).
- "call": results of JAX's private `core.call` (a WrappedFun called as one operation) eagerly,
  under jit closing over a traced value, and its gradient under checkpoint.
- "residual_log": the lines of the log a checkpoint writes when differentiated (logging, level
  DEBUG), each cut before a source line, per policy (none, everything, save cos).
- "cotangent_dtypes": the dtypes vjp gives where a custom_vjp's bwd returns another float
  dtype than its input's (JAX casts none back), plain, under checkpoint, jit and a gather.
- "optimize_remat": values of a custom_vjp whose fwd runs as its function under checkpoint.

    run(jax)["residuals"]["name_denylist_all"]  ->  []
"""
import contextlib
import importlib
import io
import itertools
import logging
import re
from functools import partial

import numpy as np


def _residuals(jax, f, *args) -> list:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        importlib.import_module(jax.__name__ + ".ad_checkpoint").print_saved_residuals(f, *args)
    return [line if " from the argument" in line or " from a " in line else
            line.split(" from ")[0] for line in out.getvalue().splitlines()]


def _named(jax, policy):
    jnp = jax.numpy
    name = importlib.import_module(jax.__name__ + ".ad_checkpoint").checkpoint_name

    def f(x):
        y = name(jnp.multiply(2., 2.), 'y')
        z = name(jnp.multiply(2., 2.), 'z')
        w = name(jnp.multiply(2., 2.), 'w')
        return (((x * y) * z) * w) * jnp.multiply(2., 2.)
    return jax.checkpoint(f, policy=policy)


def _residual_cases(jax) -> dict:
    jnp, policies = jax.numpy, jax.checkpoint_policies

    @partial(jax.checkpoint, policy=lambda *_, **__: True)
    def forwarded(x):
        y = jnp.ones(2, 'float32')
        x = jax.jit(lambda: x * y)()
        return jax.jit(lambda: x * y)()

    with jax.softmax_custom_jvp(False):      # (the reduce_max mask's tangent: dead code)
        softmax = _residuals(jax, jax.nn.softmax, jnp.arange(4.0))
    return {
        "name_denylist_all": _residuals(jax, _named(jax, policies.save_any_names_but_these(
            'y', 'z', 'w')), 1.),
        "name_denylist_w": _residuals(jax, _named(jax, policies.save_any_names_but_these('w')),
                                      1.),
        "name_allowlist_yz": _residuals(jax, _named(jax, policies.save_only_these_names(
            'y', 'z')), 1.),
        "einsum_diagonal": _residuals(jax, jax.checkpoint(lambda x: jnp.einsum('ii->i', x),
                                                          policy=lambda *_, **__: False),
                                      jnp.ones((2, 2))),
        "jit_forwarding": _residuals(jax, forwarded, jnp.float32(3.)),
        "softmax": softmax,
        "sin_of_sin": _residuals(jax, jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))), 1.0),
    }


def _subjaxprs(jaxpr):
    for eqn in jaxpr.eqns:
        for p in eqn.params.values():
            for j in (p if isinstance(p, (tuple, list)) else [p]):
                inner = getattr(j, "jaxpr", j)
                if hasattr(inner, "eqns") and hasattr(inner, "outvars"):
                    yield inner
                    yield from _subjaxprs(inner)


def _dce(pe, jaxpr, used) -> dict:
    pruned, used_inputs = pe.dce_jaxpr(jaxpr, used)
    n = len(pruned.eqns) + sum(len(j.eqns) for j in _subjaxprs(pruned))
    return {"used_inputs": list(map(bool, used_inputs)), "eqns": n}


def _dce_cases(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    pe = importlib.import_module(jax.__name__ + ".interpreters.partial_eval")

    def carry(lst):
        def body(c, _):
            return [c[0]] + [c1 + c2 for c1, c2 in zip(c[:-1], c[1:])], None
        return lax.scan(body, lst, None, length=len(lst))[0]
    scan_jaxpr = jax.make_jaxpr(carry)([1., 2., 3., 4.]).jaxpr
    cond_jaxpr = jax.make_jaxpr(lambda p, x, y: lax.cond(
        p, lambda x, y: (jnp.sin(x), jnp.cos(y)), lambda x, y: (x, y * 2.), x, y))(
        True, 1., 2.).jaxpr

    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x), x + jnp.cos(y)
    f.defjvp(lambda p, t: (f(*p), (2.0 * jnp.cos(p[0]) * t[0], t[0] - jnp.sin(p[1]) * t[1])))

    @jax.custom_vjp
    def g(x, y):
        return jnp.sin(x), x + jnp.cos(y)
    g.defvjp(lambda x, y: (g(x, y), (jnp.cos(x), jnp.sin(y))),
             lambda r, ct: (r[0] * ct[0] + ct[1], -r[1] * ct[1]))
    out = {}
    for used in itertools.product([True, False], repeat=4):
        out[f"scan_{''.join('1' if u else '0' for u in used)}"] = _dce(pe, scan_jaxpr, list(used))
    for used in ([True, False], [False, True]):
        key = ''.join('1' if u else '0' for u in used)
        out[f"cond_{key}"] = _dce(pe, cond_jaxpr, used)
        for name, fun in (("custom_jvp", f), ("custom_vjp", g)):
            pruned, _ = pe.dce_jaxpr(jax.make_jaxpr(fun)(0.1, -1.3).jaxpr, used)
            out[f"{name}_{key}"] = sorted(e.primitive.name for e in
                                          pruned.eqns[0].params["call_jaxpr"].eqns)
    return out


def _count_cases(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax

    def counts(text):
        return [text.count(' sin '), text.count(' cos '), text.count(' dot_')]

    def linearized(f):
        return counts(str(jax.make_jaxpr(jax.linearize(f, 4.)[1])(1.)))

    both_sin = lambda c: (jnp.sin(c), jnp.sin(c))      # noqa: E731
    sin_sin = lambda x: lax.cond(x > 0., lambda c: jnp.sin(jnp.sin(c)), lambda c: c, x)  # noqa
    save_cos = lambda prim, *_, **__: str(prim) == 'cos'      # noqa: E731
    save_sin = lambda prim, *_, **__: str(prim) == 'sin'      # noqa: E731

    @jax.custom_jvp
    def sin(x):
        return jnp.sin(x)
    sin.defjvp(lambda p, t: (lambda yc: (yc[0], yc[1] * t[0]))(
        jax.jit(lambda: (jnp.sin(p[0]), jnp.cos(p[0])))()))
    in_cond = lambda f: lambda x: lax.cond(x.sum() > -jnp.inf, f, lambda x: x, x)  # noqa
    in_scan = lambda f: lambda x: lax.scan(lambda c, _: (f(c), None), x, None,  # noqa
                                           length=1)[0]
    out = {
        "cond_both_sin": linearized(jax.checkpoint(lambda x: lax.cond(x > 0., both_sin,
                                                                      both_sin, x))),
        "cond_sin_sin": linearized(jax.checkpoint(sin_sin)),
        "cond_save_cos": linearized(jax.checkpoint(
            lambda x: lax.cond(x > 0, jnp.sin, lambda x: x, x), policy=save_cos)),
        "scan_save_cos": linearized(jax.checkpoint(
            lambda x: lax.scan(lambda c, _: (jnp.sin(c), jnp.sin(c)), x, None, length=3),
            policy=save_cos)),
    }
    for where, wrap in (("cond", in_cond), ("scan", in_scan)):
        for name, policy in (("save_cos", save_cos), ("save_sin", save_sin),
                             ("nothing", jax.checkpoint_policies.nothing_saveable)):
            out[f"{where}_jit_in_jvp_{name}"] = linearized(jax.checkpoint(wrap(sin),
                                                                          policy=policy))

    @partial(jax.checkpoint, policy=jax.checkpoint_policies.checkpoint_dots)
    def dots(W):
        def layers(x):
            for _ in range(3):
                x = jnp.sin(jnp.dot(x, W, precision=lax.Precision.HIGHEST))
            return x
        return lax.cond(jnp.ones(5).sum() > 0, layers, lambda x: x, jnp.ones(5))
    y, f_vjp = jax.vjp(dots, jnp.ones((5, 5)))
    out["dots_in_cond_vjp"] = counts(str(jax.make_jaxpr(f_vjp)(y)))
    return out


def _optimize_remat_cases(jax) -> dict:
    jnp = jax.numpy

    @jax.custom_vjp
    def f(x):
        return jnp.tan(x)
    f.defvjp(lambda x: (jnp.sin(x), (x,)), lambda res, g: (jnp.cos(res[0]) * g,),
             optimize_remat=True)
    v, g = jax.value_and_grad(lambda x: jax.checkpoint(f)(x) ** 2)(3.2)
    plain = jax.value_and_grad(f)(3.2)
    return {"remat_value_and_grad": [float(v), float(g)],
            "plain_value_and_grad": [float(plain[0]), float(plain[1])],
            "vmap": np.asarray(jax.vmap(jax.grad(f))(jnp.linspace(0.0, 1.0, 3))).tolist()}


def _barriers(jax, prevent_cse, as_dict) -> list:
    jnp = jax.numpy

    @partial(jax.checkpoint, prevent_cse=prevent_cse)
    def layer(*args):
        W, x = (args[0]['W'], args[0]['x']) if as_dict else args
        return x @ W + jnp.array([1.0, 2.0, 3.0])

    def loss(Ws, x):
        for W in Ws:
            x = layer(dict(W=W, x=x)) if as_dict else layer(W, x)
        return jnp.sum(x ** 2)
    text = jax.jit(jax.grad(loss, (0, 1))).lower([jnp.ones((3, 3))] * 2, jnp.ones(3)).as_text()
    return [line.split("optimization_barrier")[1].split(" : ")[0].count("%")
            for line in text.splitlines()
            if "optimization_barrier" in line]


def _barrier_cases(jax) -> dict:
    return {"all": _barriers(jax, True, False), "none": _barriers(jax, False, False),
            "x_only": _barriers(jax, (False, True), False),
            "pytree_x_only": _barriers(jax, ({'W': False, 'x': True},), True)}


def _name_stack_notes(jax) -> list:
    jnp = jax.numpy
    name = importlib.import_module(jax.__name__ + ".ad_checkpoint").checkpoint_name

    def g(x, y):
        with jax.named_scope("g"):
            return x @ y

    def g1(x, y):
        with jax.named_scope("g1"):
            return name(x @ y, "save_me")

    def f2(x, ws):
        return jnp.sum(jnp.tanh(g1(jnp.tanh(g(x, ws[0])), ws[1])))
    f = jax.remat(lambda x, ws: jax.named_call(jax.jit(f2), name='per_shard')(x, ws))
    x, ws = jnp.ones((4, 4)), [jnp.ones((4, 8)), jnp.ones((8, 4))]
    jaxpr = jax.make_jaxpr(jax.vjp(partial(f, x), ws)[1])(f(x, ws)).jaxpr
    return re.findall(r"# (\[[^\]]*\])", jaxpr.pretty_print(name_stack=True))


def _call_cases(jax) -> dict:
    jnp = jax.numpy
    core = importlib.import_module(jax.__name__ + "._src.core")
    lu = importlib.import_module(jax.__name__ + ".extend.linear_util")
    call = lambda f, *args: core.call(*args, name="f", subfuns=(lu.wrap_init(  # noqa: E731
        lambda *xs: [f(*xs)], debug_info=None),))[0]
    closing = jax.jit(lambda y: core.call_p.bind(subfuns=(lu.wrap_init(
        lambda: [y * 3.0], debug_info=None),))[0])
    grad = jax.grad(jax.checkpoint(lambda x: jnp.sin(call(jnp.sin, x))))
    return {"eager": float(call(lambda x: x + 1.0, jnp.float32(2.0))),
            "closing_over_a_tracer": float(closing(2.0)), "grad_under_checkpoint": float(grad(0.5))}


def _residual_log(jax) -> dict:
    jnp = jax.numpy

    def f(x):
        return jnp.cos(jnp.sin(x).sum())
    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = lambda record: records.append(record.getMessage())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    out = {}
    try:
        for name, policy in (("none", None), ("everything", lambda *_, **__: True),
                             ("save_cos", lambda p, *_, **__: str(p) == 'cos')):
            records.clear()
            jax.grad(jax.checkpoint(f, policy=policy))(jnp.arange(3.))
            out[name] = [line.split(" from ")[0] for r in records if "remat-decorated" in r
                         for line in r.splitlines()]
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    return out


def _cotangent_dtypes(jax) -> dict:
    jnp = jax.numpy

    @jax.custom_vjp
    def widen(x):
        return x.astype('float32')
    widen.defvjp(lambda x: (widen(x), x), lambda x, _: (x.astype('float32'),))

    @jax.custom_vjp
    def same(x):
        return x
    same.defvjp(lambda x: (same(x), ()), lambda res, g: (g.astype(jnp.bfloat16),))
    x = jnp.ones(2, dtype='bfloat16')
    out = {}
    for name, f in (("plain", widen), ("checkpoint", jax.checkpoint(widen)),
                    ("jit", jax.jit(widen))):
        y, vjp = jax.vjp(f, x)
        out[name] = str(vjp(jnp.ones_like(y))[0].dtype)
    f8 = jnp.arange(8, dtype=jnp.float8_e4m3fn)
    _, vjp = jax.vjp(lambda x: same(x.at[jnp.argsort(x)].get()), f8)
    out["gather"] = str(vjp(jnp.ones((8,), dtype=jnp.float8_e4m3fn))[0].dtype)
    return out


def run(jax) -> dict:
    return {"residuals": _residual_cases(jax), "dce": _dce_cases(jax),
            "counts": _count_cases(jax), "barriers": _barrier_cases(jax),
            "name_stacks": _name_stack_notes(jax), "call": _call_cases(jax),
            "residual_log": _residual_log(jax), "cotangent_dtypes": _cotangent_dtypes(jax),
            "optimize_remat": _optimize_remat_cases(jax)}
