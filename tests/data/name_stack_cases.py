"""Programs whose op names a learner reads in XLA's compiled program (`Compiled.as_text()`'s
`op_name="jit(f)/transpose(jvp())/mul"`, the HLO view, profiles): JAX's name stack, with the
transformations each equation was traced under (jvp, transpose, vmap), the calls it sits in
(`jit(g)`, `closed_call`) and the scopes control flow and checkpoint lower it under
(`cond/branch_0_fun`, `while/body`, `checkpoint`, `rematted_computation`). Shared by
reference/make_name_stack_reference.py (run with real JAX 0.10.2) and
tests/transforms/test_name_stack.py (run with jxkernel).

Recorded per program: "compiled", the op_name of every instruction of the compiled HLO in
the order XLA prints them, and "lowered", the names of the ops' locations in the lowered
module, distinct and sorted (`as_text(debug_info=True)` for JAX, the module jxkernel hands
XLA for jxkernel, which writes the same names without JAX's call-site frames).
"""
import re


def programs(jax) -> dict:
    """name -> (jitted function, arguments)."""
    jnp, lax = jax.numpy, jax.lax
    x = jnp.arange(3.) + 1.

    def loss(x):
        return jnp.sum(jnp.sin(x) * x)

    def f(x):
        return jnp.cos(x) * 2.

    def g(x):
        return jnp.exp(x) + 1.

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x)
    cv.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, t: (c * t,))

    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x)
    cj.defjvp(lambda p, t: (jnp.sin(p[0]), jnp.cos(p[0]) * t[0]))

    def scan_body(c, y):
        return c + jnp.sin(y), c * y

    def scoped(x):
        with jax.named_scope("layer"):
            y = jnp.sin(x) * x
        return jnp.sum(y)

    out = {
        "plain": (jax.jit(loss), (x,)),
        "grad": (jax.jit(jax.grad(loss)), (x,)),
        "value_and_grad": (jax.jit(jax.value_and_grad(loss)), (x,)),
        "jvp": (jax.jit(lambda x, t: jax.jvp(loss, (x,), (t,))), (x, x)),
        "vjp": (jax.jit(lambda x, t: jax.vjp(jnp.sin, x)[1](t)), (x, x)),
        "linearize": (jax.jit(lambda x, t: jax.linearize(jnp.sin, x)[1](t)), (x, x)),
        "vmap": (jax.jit(jax.vmap(f)), (x,)),
        "vmap_of_grad": (jax.jit(jax.vmap(jax.grad(lambda s: jnp.sin(s) * s))), (x,)),
        "grad_of_vmap": (jax.jit(jax.grad(lambda x: jnp.sum(jax.vmap(jnp.sin)(x)))), (x,)),
        "jit_in_jit": (jax.jit(lambda x: jax.jit(g)(x) * 2.), (x,)),
        "grad_of_inner_jit": (jax.jit(jax.grad(lambda x: jnp.sum(jax.jit(g)(x)))), (x,)),
        "jacrev": (jax.jit(jax.jacrev(jnp.sin)), (x,)),
        "jacfwd": (jax.jit(jax.jacfwd(jnp.sin)), (x,)),
        "hessian": (jax.jit(jax.hessian(loss)), (x,)),
        "checkpoint": (jax.jit(jax.grad(lambda x: jnp.sum(jax.checkpoint(f)(x)))), (x,)),
        "custom_vjp": (jax.jit(jax.grad(lambda x: jnp.sum(cv(x)))), (x,)),
        "custom_jvp": (jax.jit(jax.grad(lambda x: jnp.sum(cj(x)))), (x,)),
        "custom_jvp_linearize": (jax.jit(lambda x, t: jax.linearize(cj, x)[1](t)), (x, x)),
        # not differentiated, a custom_jvp or custom_vjp call is its body, inlined
        "custom_jvp_call": (jax.jit(lambda x: cj(x) + 1.), (x,)),
        "custom_vjp_call_in_vmap": (jax.jit(jax.vmap(cv)), (x,)),
        "scan": (jax.jit(lambda x: lax.scan(scan_body, 0., x)), (x,)),
        "fori_loop": (jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * 2., x)),
                      (x,)),
        "while_loop": (jax.jit(lambda x: lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x))), (x,)),
        "cond": (jax.jit(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)), (True, x)),
        "switch": (jax.jit(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp], x)), (1, x)),
        "grad_of_cond": (jax.jit(jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))),
                         (1.,)),
        "grad_of_scan": (jax.jit(jax.grad(
            lambda x: lax.scan(lambda c, y: (c * jnp.sin(y), None), 1., x)[0])), (x,)),
        "vmap_of_cond": (jax.jit(jax.vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x))),
                         (jnp.array([True, False, True]), x)),
        "named_scope": (jax.jit(lambda x: jax.named_scope("layer")(jnp.sin)(x) * 2.), (x,)),
        "named_call": (jax.jit(lambda x: jax.named_call(jnp.cos, name="block")(x) + 1.), (x,)),
        "sum_of_squares": (jax.jit(lambda x: jnp.sum(x * x, axis=0)), (jnp.ones((2, 3)),)),
        # a transformation wraps the scope inside it: `jvp(layer)/sin`
        "named_scope_in_grad": (jax.jit(jax.grad(scoped)), (x,)),
        "grad_in_named_scope": (jax.jit(lambda x: jax.named_scope("outer")(
            jax.grad(lambda y: jnp.sin(y) * y))(x)), (1.,)),
        "vmap_with_axes": (jax.jit(jax.vmap(lambda x: jnp.cos(x) * 2, in_axes=1, out_axes=1)),
                           (jnp.ones((2, 3)),)),
        "jit_in_vmap": (jax.jit(jax.vmap(jax.jit(lambda x: jnp.exp(x) * 3))),
                        (jnp.ones((2, 3)),)),
        "vmap_of_grad_of_cond": (jax.jit(jax.vmap(jax.grad(
            lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)))), (x,)),
        # a predicate per element: the body computes it again, under `while/body_pred`
        "vmap_of_while_loop": (jax.jit(jax.vmap(lambda x: lax.while_loop(
            lambda c: c < 5., lambda c: c + jnp.sin(c) + 1., x))), (x,)),
    }
    return out


_ALIAS = re.compile(r"^(#loc\d*) = (loc\(.*\))$", re.M)
# a line ending in a location is an op's (a region op's ends its last line, `}) ... loc(...)`
# or JAX's pretty `} loc(...)`), unless it returns, ends a function or the module (`} loc`
# at the left or two in) or defines an alias (`#loc3 = loc(...)`)
_OP_LOC = re.compile(r"^(?!#loc|  ?\} loc)(?!\s*(?:stablehlo\.|func\.)?return\b).* "
                     r"(loc\([^\n]*\))$", re.M)


def _loc_name(loc: str, aliases: dict):
    """The name a location gives its op (what XLA keeps as op_name), or None: through
    aliases (`#loc12`), past JAX's `"sin:"` marker to the name stack it wraps."""
    while True:
        inner = loc[4:-1] if loc.startswith("loc(") else loc
        if inner.startswith("#loc"):
            loc = aliases[inner]
            continue
        m = re.match(r'"((?:[^"\\]|\\.)*)"(?:\((.*)\))?$', inner)
        if m is None:
            return None           # unknown, a file position, a call site
        name, child = m.group(1), m.group(2)
        if name.endswith(":") and child is not None:
            loc = child
            continue
        return name


def lowered_names(text: str) -> list:
    """The distinct names of the ops' locations of a module's text (sorted)."""
    aliases = dict(_ALIAS.findall(text))
    names = set()
    for m in _OP_LOC.finditer(text):
        name = _loc_name(m.group(1), aliases)
        if name is not None:
            names.add(name)
    return sorted(names)


def compiled_names(text: str) -> list:
    return re.findall(r'op_name="([^"]*)"', text)


def run(jax, lowered_text=None) -> dict:
    """{program: {"compiled": [...], "lowered": [...]}}; `lowered_text(lowered)` is the
    module text with its locations (JAX's `as_text(debug_info=True)` by default)."""
    lowered_text = lowered_text or (lambda lowered: lowered.as_text(debug_info=True))
    out = {}
    for name, (fun, args) in programs(jax).items():
        lowered = fun.lower(*args)
        out[name] = {"compiled": compiled_names(lowered.compile().as_text()),
                     "lowered": lowered_names(lowered_text(lowered))}
    return out
