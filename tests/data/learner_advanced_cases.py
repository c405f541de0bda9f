"""Learners' mistakes on JAX's advanced tutorials (custom derivative rules, gradient
checkpointing, ahead-of-time lowering), and the fixes their cards advise, as programs run
under JAX (reference/make_learner_advanced_reference.py) and under jxkernel
(tests/notebook/test_learner_advanced.py). Each case is source text run with `jax` and `jnp`
bound; its last line's value, or what it raised, is recorded.

    >>> sorted(CASES)[0]
    'aot_cost_analysis_as_list'
"""
import numpy as np

from recorded_errors import error_of

_BWD = """@jax.custom_vjp
def g(x):
    return jnp.sin(x)

def g_fwd(x):
    return g(x), jnp.cos(x)

g.defvjp(g_fwd, g_bwd)
"""
_H = """@jax.custom_vjp
def h(x, y):
    return x * y

def h_fwd(x, y):
    return h(x, y), (x, y)

h.defvjp(h_fwd, h_bwd)
"""
_COND = """def cond_fn(x, flag):
    if flag:
        return jnp.sin(x)
    return jnp.cos(x)
"""
_IF = """def f(x):
    if x > 0:
        return 2 * x
    return -x
"""
_MODE = """def g(x, mode):
    return jnp.sin(x) if mode == 'sin' else jnp.cos(x)
"""
_F2 = """def g2(W, x):
    return jnp.sin(jnp.dot(W, x))

def f2(W1, W2, x):
    return g2(W2, g2(W1, x))

W1, W2, x = jnp.ones((5, 4)), jnp.ones((6, 5)), jnp.ones(4)
loss = lambda f: jax.grad(lambda W1: f(W1, W2, x).sum())(W1)
"""
_FA = """def fa(x, y):
    return 2 * x + y
"""

CASES = {
    # custom_vjp: bwd returns a bare value; the card's rewrite wraps it in a tuple
    "vjp_bwd_bare": "def g_bwd(cos_x, ct):\n    return cos_x * ct\n" + _BWD + "jax.grad(g)(1.)",
    "vjp_bwd_bare_fixed": "def g_bwd(cos_x, ct):\n    return (cos_x * ct,)\n" + _BWD +
                          "jax.grad(g)(1.)",
    # one cotangent for two arguments, and a list of one
    "vjp_bwd_count": "def h_bwd(res, ct):\n    x, y = res\n    return (y * ct,)\n" + _H +
                     "jax.grad(h)(2., 3.)",
    "vjp_bwd_count_list": "def h_bwd(res, ct):\n    x, y = res\n    return [y * ct]\n" + _H +
                          "jax.grad(h)(2., 3.)",
    "vjp_bwd_three": "def h_bwd(res, ct):\n    x, y = res\n    return (y * ct, x * ct, ct)\n" +
                     _H + "jax.grad(h)(2., 3.)",
    # the card's fix: None for an argument without a cotangent
    "vjp_bwd_count_none": "def h_bwd(res, ct):\n    x, y = res\n    return (y * ct, None)\n" +
                          _H + "jax.grad(h)(2., 3.)",
    # a pair argument answered with a bare cotangent: the structure of one argument
    "vjp_bwd_inner": """@jax.custom_vjp
def s(p):
    return p[0] * p[1]

s.defvjp(lambda p: (s(p), p), lambda p, ct: ((ct, ct, ct),))
jax.grad(s)((2., 3.))""",
    # a Python if on a checkpointed function's flag; static_argnums as JAX's message says
    "remat_if": _COND + "jax.grad(jax.checkpoint(cond_fn))(1., True)",
    "remat_if_static": _COND + "jax.grad(jax.checkpoint(cond_fn, static_argnums=(1,)))(1., True)",
    "remat_if_where": "def cond_fn(x, flag):\n    return jnp.where(flag, jnp.sin(x), jnp.cos(x))\n"
                      "jax.grad(jax.checkpoint(cond_fn))(1., True)",
    # ... checkpointed alone: JAX's whole message; the card's static_argnums, in place
    "remat_if_alone": _COND + "jax.checkpoint(cond_fn)(1., True)",
    "remat_if_alone_fixed": _COND + "jax.checkpoint(cond_fn, static_argnums=(1,))(1., True)",
    "remat_if_fixed": _COND + "jax.grad(jax.checkpoint(cond_fn, static_argnums=(1,)))(1., True)",
    # the argument grad differentiates: static_argnums of checkpoint cannot work (no card offers)
    "remat_if_x": _IF + "jax.grad(jax.checkpoint(f))(1.)",
    "remat_if_x_static": _IF + "jax.grad(jax.checkpoint(f, static_argnums=(0,)))(1.)",
    # a Python if on x that grad (jvp, vmap) traces inside jit: static_argnames cannot work
    # (JAX: "Non-hashable static arguments" of a LinearizeTracer); jnp.where / lax.cond do
    "grad_if_under_jit": _IF + "jax.jit(jax.grad(f))(1.)",
    "grad_if_under_jit_static": _IF + "f = jax.jit(f, static_argnames=('x',))\n"
                                      "jax.jit(jax.grad(f))(1.)",
    # the card's two rewrites of f, pasted in place of its if (JAX: 2.0 for both)
    "grad_if_under_jit_where": "def f(x):\n    return jnp.where(x > 0, 2 * x, -x)\n"
                               "jax.jit(jax.grad(f))(1.)",
    "grad_if_under_jit_cond": "def f(x):\n    return jax.lax.cond(x > 0, lambda: 2 * x, "
                              "lambda: -x)\njax.jit(jax.grad(f))(1.)",
    "jit_under_grad_if": _IF + "jax.grad(jax.jit(f))(1.)",
    "jit_under_grad_if_static": _IF + "jax.grad(jax.jit(f, static_argnames=('x',)))(1.)",
    "jacfwd_if_under_jit": _IF + "jax.jit(jax.jacfwd(f))(1.)",
    "jacfwd_if_under_jit_static": _IF + "f = jax.jit(f, static_argnames=('x',))\n"
                                        "jax.jit(jax.jacfwd(f))(1.)",
    "vmap_if_under_jit": _IF + "jax.jit(jax.vmap(f))(jnp.ones(3))",
    "vmap_if": _IF + "jax.vmap(f)(jnp.ones(3))",
    # a flag grad does not differentiate, used in an if inside jit(grad(g)): static where
    # the jit is made works; static on g itself gets the outer jit's tracer (JAX refuses)
    "grad_flag_under_jit": _COND + "jax.jit(jax.grad(cond_fn))(1., True)",
    "grad_flag_under_jit_inner_static": _COND +
        "cond_fn = jax.jit(cond_fn, static_argnames=('flag',))\n"
        "jax.jit(jax.grad(cond_fn))(1., True)",
    "grad_flag_under_jit_fixed": _COND +
        "jax.jit(jax.grad(cond_fn), static_argnames=('flag',))(1.0, True)",
    # a string jit cannot trace, under jit(grad(g)): static on that jit (not on g)
    "grad_mode_string_under_jit": _MODE + "jax.jit(jax.grad(g))(1., 'sin')",
    "grad_mode_string_under_jit_fixed": _MODE +
        "jax.jit(jax.grad(g), static_argnames=('mode',))(1.0, 'sin')",
    # a checkpointed function's size argument: static_argnums of checkpoint
    "remat_shape": "def h(x, n):\n    return jnp.zeros(n) + x\njax.checkpoint(h)(1., 3)",
    "remat_shape_fixed": "def h(x, n):\n    return jnp.zeros(n) + x\n"
                         "jax.checkpoint(h, static_argnums=(1,))(1., 3)",
    # jvp with a tangent of the wrong dtype: JAX's text (float0 as NumPy prints it)
    "jvp_int_primal_float_tangent": "jax.jvp(lambda x: x, (1,), (1.,))",
    "jvp_float_primal_int_tangent": "jax.jvp(lambda x: x, (1.,), (1,))",
    "jvp_float0_tangent": "import numpy as np\n"
                          "jax.jvp(lambda x: x, (1.,), (np.zeros((), jax.dtypes.float0),))",
    # a policy's name misspelled, or given as a string; the card's fixes
    "policy_misspelled": _F2 + "jax.checkpoint(f2, policy="
                               "jax.checkpoint_policies.dots_saveable_with_no_batch_dims)",
    "policy_string": _F2 + "loss(jax.checkpoint(f2, policy='dots_saveable'))",
    "policy_string_fixed": _F2 + "loss(jax.checkpoint(f2, "
                                 "policy=jax.checkpoint_policies.dots_saveable))",
    "policy_misspelled_fixed": _F2 + "loss(jax.checkpoint(f2, "
                               "policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable))",
    # a compiled function called with its static argument again; the card's fix
    "aot_static_again": _FA + "jax.jit(fa, static_argnums=0).lower(7, 8).compile()(7, 8)",
    "aot_static_again_fixed": _FA + "jax.jit(fa, static_argnums=0).lower(7, 8).compile()(8)",
    # the static argument given as a shape/dtype structure (aot.md's error), and the guide's way
    "aot_static_as_struct": _FA + "s = jax.ShapeDtypeStruct((), jnp.int32)\n"
                                  "jax.jit(fa, static_argnums=0).trace(s, s)",
    "aot_static_traced_fixed": _FA + "s = jax.ShapeDtypeStruct((), jnp.int32)\n"
                                     "jax.jit(fa, static_argnums=0).trace(10, s)"
                                     ".lower().compile()(5)",
    # called with another shape or dtype than it was lowered for; the card's fixes
    "aot_other_shape": "jax.jit(jnp.sin).lower(jnp.ones(3)).compile()(jnp.ones(4))",
    "aot_other_dtype": "jax.jit(jnp.sin).lower(jnp.ones(3)).compile()(jnp.ones(3, jnp.int32))",
    "aot_other_shape_relowered": "jax.jit(jnp.sin).lower(jnp.ones(4)).compile()(jnp.ones(4))",
    "aot_other_shape_jit": "jax.jit(jnp.sin)(jnp.ones(4))",
    # a compiled function called inside jit: JAX's class path of jit's tracer
    "aot_under_jit": "c1 = jax.jit(jnp.sin).lower(jnp.ones(3)).compile()\n"
                     "jax.jit(lambda x: c1(x))(jnp.ones(3))",
    # cost_analysis is one dict in 0.10.2 (a list of dicts before)
    "aot_cost_analysis_as_list": _FA + "jax.jit(fa).lower(3, 4).compile().cost_analysis()[0]",
    "aot_cost_analysis_type": _FA +
        "type(jax.jit(fa).lower(3, 4).compile().cost_analysis()).__name__",
    "aot_cost_analysis_flops": _FA +
        "'flops' in jax.jit(fa).lower(3, 4).compile().cost_analysis()",
}


def run_case(jax, source: str):
    """The value of `source`'s last line (as nested lists for arrays), or [class, message]."""
    lines = source.rstrip("\n").split("\n")
    env = {"jax": jax, "jnp": jax.numpy}

    def go():
        exec(compile("\n".join(lines[:-1]) + "\n", "<case>", "exec"), env)
        return eval(compile(lines[-1], "<case>", "eval"), env)
    result = []

    def keep():
        result.append(go())
    raised = error_of(keep)
    if raised is not None:
        return {"raised": raised}
    value = result[0]
    if isinstance(value, (str, bool)) or value is None:
        return {"value": value}
    if callable(value):
        return {"value": "a function"}
    return {"value": jax.tree_util.tree_map(lambda v: np.asarray(v).tolist(), value)}


def run(jax) -> dict:
    return {name: run_case(jax, source) for name, source in CASES.items()}
