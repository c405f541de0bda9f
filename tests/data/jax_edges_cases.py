"""Common mistakes and tracer prints, run the same way with JAX and with jxkernel
(reference/make_jax_edges_reference.py records JAX 0.10.2's answers in
tests/data/jax_edges_reference.json; tests/jax_compat/test_jax_names.py compares).

`mistakes(jax)`: name -> a thunk that raises; what is recorded is the exception's class name
and the first line of its message. `tracer_prints(jax)`: name -> the list of strings a
function printed of its traced argument under each transformation."""
import importlib
import numpy as np


def mistakes(jax):
    jnp, lax = jax.numpy, jax.lax
    return {
        "jnp_add_broadcast": lambda: jnp.ones(3) + jnp.ones(4),
        "jnp_mul_broadcast_2d": lambda: jnp.ones((2, 3)) * jnp.ones((3, 2)),
        "jnp_where_broadcast": lambda: jnp.where(jnp.ones(3) > 0, jnp.ones(4), 0),
        "lax_add_shapes": lambda: lax.add(jnp.ones(3), jnp.ones(4)),
        "lax_add_dtypes": lambda: lax.add(jnp.ones(3), jnp.ones(3, jnp.int32)),
        "jit_add_broadcast": lambda: jax.jit(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4)),
        "broadcast_to": lambda: jnp.broadcast_to(jnp.ones((3, 4), jnp.int32), (3, 5)),
        "reshape_size": lambda: jnp.ones(6).reshape(4, 2),
        "reshape_size_jit": lambda: jax.jit(lambda x: x.reshape(4, 2))(jnp.ones(6)),
        "dot_contracting": lambda: jnp.dot(jnp.ones((2, 3)), jnp.ones((2, 3))),
        "matmul_contracting": lambda: jnp.ones((2, 3)) @ jnp.ones((2, 3)),
        "too_many_indices": lambda: jnp.ones(3)[0, 0],
        "float_index": lambda: jnp.ones(3)[1.0],
        "traced_slice": lambda: jax.jit(lambda x, i: x[i:i + 2])(jnp.arange(5), 1),
        "item_assignment": lambda: jnp.ones(3).__setitem__(0, 2),
        "bool_of_tracer": lambda: jax.jit(lambda x: 1 if x > 0 else 2)(jnp.float32(1)),
        "int_of_tracer": lambda: jax.jit(lambda x: int(x))(1.0),
        "index_of_tracer": lambda: jax.jit(lambda i: [1, 2][i])(1),
        "numpy_of_tracer": lambda: jax.jit(lambda x: np.sin(x))(1.0),
        "arange_of_tracer": lambda: jax.jit(lambda n: jnp.arange(n))(3),
        "zeros_of_tracer": lambda: jax.jit(lambda n: jnp.zeros((n, 2)))(3),
        "boolean_mask_traced": lambda: jax.jit(lambda m: jnp.ones(3)[m])(jnp.ones(3) > 0),
        "grad_of_int": lambda: jax.grad(lambda x: x * 2)(1),
        "grad_non_scalar": lambda: jax.grad(lambda x: x * 2)(jnp.ones(2)),
        "vmap_sizes": lambda: jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4)),
        "vmap_axis": lambda: jax.vmap(lambda a: a, in_axes=1)(jnp.ones(3)),
        "concatenate_shapes": lambda: jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))]),
        "transpose_permutation": lambda: jnp.transpose(jnp.ones((2, 3)), (0, 0)),
        "sum_axis": lambda: jnp.sum(jnp.ones(3), axis=2),
        "split_unequal": lambda: jnp.split(jnp.ones(5), 2),
        "cond_branches": lambda: lax.cond(True, lambda: jnp.ones(2), lambda: jnp.ones(3)),
        "while_carry_changes": lambda: lax.while_loop(
            lambda c: c.sum() < 3, lambda c: jnp.concatenate([c, c]), jnp.ones(1)),
        "vjp_pullback_splatted": lambda: jax.vjp(lambda x: (x, x), 1.0)[1](1.0, 1.0),
        "custom_jvp_rule_structure": _custom_jvp_bad_rule(jax),
        "static_argnums_range": lambda: jax.jit(lambda x: x, static_argnums=5),
        # scatter_apply has no derivative (JAX 0.10.2's own lax_autodiff_test)
        "scatter_apply_jacfwd": lambda: jax.jacfwd(lambda x: x.at[1].apply(jnp.sin))(
            jnp.array([1.0, 2.0])),
        "scatter_apply_jacrev": lambda: jax.jacrev(lambda x: x.at[1].apply(jnp.sin))(
            jnp.array([1.0, 2.0])),
        "static_argnames_unknown": lambda: jax.jit(lambda x: x, static_argnames="y"),
        "static_and_donated": lambda: jax.jit(lambda a: a, static_argnames="a",
                                              donate_argnames="a"),
        "vmap_out_axes_range": lambda: jax.vmap(lambda a: a.sum(), out_axes=1)(jnp.ones((3, 2))),
        "vmap_out_axes_none_batched": lambda: jax.vmap(lambda a: a, out_axes=None)(jnp.ones(3)),
        "vmap_out_axes_none_batched_path": lambda: jax.vmap(
            lambda a: [a, {"k": (a,)}], out_axes=[0, {"k": (None,)}])(jnp.ones(3)),
        "fori_loop_bound_types": lambda: lax.fori_loop(0.0, 3, lambda i, c: c, 0),
        "scan_body_not_a_pair": lambda: lax.scan(lambda c, x: c + x, 0., jnp.ones(3)),
        # argnums past the arguments: jacfwd and jacrev take jit's ValueError, grad its own
        "jacfwd_argnums_range": lambda: jax.jacfwd(lambda x, y: x * y, argnums=3)(1., 2.),
        "jacrev_argnums_range": lambda: jax.jacrev(lambda x, y: x * y, argnums=-3)(1., 2.),
        "grad_argnums_range": lambda: jax.grad(lambda x, y: x * y, argnums=2)(1., 2.),
    }


def _custom_jvp_bad_rule(jax):
    @jax.custom_jvp
    def f(x):
        return jax.numpy.sin(x)
    f.defjvp(lambda p, t: (jax.numpy.sin(p[0]), (t[0],)))
    return lambda: jax.jvp(f, (1.0,), (1.0,))


def tracer_prints(jax):
    jnp = jax.numpy
    seen = []

    def show(x):
        seen.append(repr(x))
        seen.append(str(x))
        return x
    out = {}

    def record(name, run):
        seen.clear()
        run()
        out[name] = list(seen)
    record("jit_weak", lambda: jax.jit(show)(1.0))
    record("jit", lambda: jax.jit(show)(jnp.ones((2, 3), jnp.int32)))
    record("grad", lambda: jax.grad(show)(1.0))
    record("jvp", lambda: jax.jvp(show, (1.0,), (1.0,)))
    record("vmap", lambda: jax.vmap(show)(jnp.ones(3)))
    record("jit_of_grad", lambda: jax.jit(jax.grad(show))(1.0))
    record("grad_of_jit", lambda: jax.grad(jax.jit(show))(1.0))
    record("vmap_of_grad", lambda: jax.vmap(jax.grad(show))(jnp.ones(2)))
    record("make_jaxpr", lambda: jax.make_jaxpr(show)(1))
    record("linearize", lambda: jax.linearize(show, 1.0))
    record("jacfwd", lambda: jax.jacfwd(show)(1.0))
    record("hessian", lambda: jax.hessian(show)(1.0))

    def show_type(x):           # grad's tracers are a LinearizeTracer, jvp's a JVPTracer
        seen.append(type(x).__name__)
        return x
    for name, run in (("types_grad", lambda: jax.grad(show_type)(1.0)),
                      ("types_jvp", lambda: jax.jvp(show_type, (1.0,), (1.0,)))):
        record(name, run)

    # what a primitive's own JVP and transpose rules are given (JAX's primitives guide prints
    # them): under grad the tangents are partial evaluation's tracers, weak types shown
    ad = importlib.import_module(jax.__name__ + ".interpreters.ad")
    mul = importlib.import_module(jax.__name__ + ".extend.core").Primitive("edges_mul")
    mul.def_impl(lambda x, y: x * y)
    mul.def_abstract_eval(lambda x, y: x)

    def mul_jvp(primals, tangents):
        seen.append(repr(tangents))
        (x, y), (tx, ty) = primals, [ad.instantiate_zeros(t) for t in tangents]
        return mul.bind(x, y), mul.bind(tx, y) + mul.bind(x, ty)

    def mul_transpose(ct, x, y):
        seen.append(", ".join(map(str, (ct, x, y))))   # (the guide's str: JAX holds a
        # residual as a TypedFloat or an Array, jxkernel as a float or a NumPy scalar)
        return (mul.bind(ct, y) if ad.is_undefined_primal(x) else None,
                mul.bind(x, ct) if ad.is_undefined_primal(y) else None)
    ad.primitive_jvps[mul] = mul_jvp
    ad.primitive_transposes[mul] = mul_transpose
    record("rules_grad_weak", lambda: jax.grad(lambda x: mul.bind(x, 10.0))(2.0))
    record("rules_grad", lambda: jax.grad(lambda x: mul.bind(x, jnp.float32(10.0)))(2.0))
    record("rules_grad_both", lambda: jax.grad(mul.bind, argnums=(0, 1))(2.0, 3.0))
    record("rules_jvp", lambda: jax.jvp(lambda x: mul.bind(x, 10.0), (2.0,), (1.0,)))
    return out


def trace_counts(jax):
    """How many times each control-flow body's Python runs over two calls (JAX traces a
    body once per input types, caching by the function): name -> count."""
    jnp, lax = jax.numpy, jax.lax
    n = [0]

    def counted(f):
        def g(*args):
            n[0] += 1
            return f(*args)
        return g
    body = counted(lambda c, x: (c + x, c * 2))
    xs = jnp.arange(3.0)
    branch = counted(lambda x: x + 1)
    loop = counted(lambda c: c + 1)
    step = counted(lambda i, c: c + i)
    closure_scan = jax.jit(lambda c: lax.scan(body, c, xs))
    runs = {
        "scan": lambda: lax.scan(body, 0.0, xs),
        "scan_f32": lambda: lax.scan(body, jnp.float32(0.0), xs),
        "scan_new_length": lambda: lax.scan(body, 0.0, jnp.arange(4.0)),
        "while": lambda: lax.while_loop(lambda c: c < 3, loop, 0.0),
        "fori_static": lambda: lax.fori_loop(0, 3, step, 0.0),
        "fori_traced": lambda: jax.jit(lambda u: lax.fori_loop(0, u, step, 0.0))(3),
        "cond_python_bool": lambda: lax.cond(True, branch, branch, 1.0),
        "cond_traced": lambda: lax.cond(jnp.bool_(True), branch, branch, 1.0),
        "cond_new_dtype": lambda: lax.cond(jnp.bool_(True), branch, branch, 1),
        "new_jit_each_call": lambda: jax.jit(lambda c: lax.scan(body, c, xs))(1.0),
        "one_jit_new_shape": lambda: closure_scan(jnp.ones(2)),
        "map_new_closure": lambda: lax.map(branch, xs),
    }
    out = {}
    for name, run in runs.items():
        n[0] = 0
        run(), run()
        out[name] = n[0]
    return out


def cond_forwarding(jax):
    """What cond makes of outputs every branch returns as the same input (JAX prunes them from
    the equation), and of branches used twice: name -> a jaxpr's text, or values' repr."""
    jnp, lax = jax.numpy, jax.lax

    def f(p, x, y):
        return lax.cond(p, lambda x, y: (x, y + 1), lambda x, y: (x, y * 2), x, y)

    def passthrough(p, x):
        return lax.cond(p, lambda x: x, lambda x: x, x)
    preds = jnp.array([True, False])
    return {
        "jaxpr": str(jax.make_jaxpr(f)(True, 1.0, jnp.ones(2))),
        "jaxpr_only_passthrough": str(jax.make_jaxpr(passthrough)(True, 1.0)),
        "jaxpr_switch": str(jax.make_jaxpr(lambda i, x: lax.switch(
            i, [lambda x: (x, x + 1), lambda x: (x, x * 2), lambda x: (x + 0, x)], x))(1, 1.0)),
        "values": repr(f(True, 1.0, jnp.ones(2))),
        "vmap_batched_pred": repr(jax.vmap(f, in_axes=(0, None, 0))(preds, 1.0, jnp.ones((2, 2)))),
        "vmap_out_axes_none": repr(jax.vmap(f, in_axes=(0, None, 0), out_axes=(None, 0))(
            preds, 1.0, jnp.ones((2, 2)))),
        "passthrough_value": repr((passthrough(True, 1.0), jax.jit(passthrough)(True, 1))),
        # two conds of the same branches: one traced jaxpr each, printed once (`let jaxpr =`)
        "jaxpr_shared_branches": str(jax.make_jaxpr(lambda a: lax.cond(
            a > 0, jnp.sin, jnp.cos, lax.cond(a > 1, jnp.sin, jnp.cos, a)))(1.0)),
    }


def custom_vjp_cases(jax):
    """custom_vjp as Flax's nnx.custom_vjp uses it: a bwd whose cotangent is a leaf standing
    for a whole subtree of the argument (JAX's prefix rule), and whether a function called in
    fwd sees the trace fwd runs in. name -> repr."""
    jnp = jax.numpy
    get_state = importlib.import_module(jax.__name__ + ".extend.core").get_opaque_trace_state

    class Box:                      # one child, as Flax's Param around its array
        def __init__(self, v):
            self.v = v
    jax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(c[0]))

    @jax.custom_vjp
    def f(b, c):
        return jnp.sin(b.v) * c["w"][0]

    def f_fwd(b, c):
        return f(b, c), (b.v, c)

    def f_bwd(res, g):
        v, c = res                  # a raw array for the Box, a leaf for the tuple of two
        return g * jnp.cos(v) * c["w"][0], {"w": g * jnp.sin(v)}
    f.defvjp(f_fwd, f_bwd)
    args = (Box(jnp.float32(1.0)), {"w": (jnp.float32(2.0), jnp.float32(3.0))})
    grads = jax.grad(f, argnums=(0, 1))(*args)
    seen = []

    @jax.custom_vjp
    def h(x):
        seen.append(get_state())
        return jnp.sin(x)

    def h_fwd(x):
        state = get_state()
        y = h(x)
        seen.append(state == seen[-1])
        return y, x
    h.defvjp(h_fwd, lambda x, g: (g * jnp.cos(x),))
    jax.grad(h)(1.0)
    top = seen[-1]
    jax.jit(jax.grad(h))(1.0)
    return {"prefix_cotangent": repr(jax.tree_util.tree_map(lambda x: x, (grads[0].v, grads[1]))),
            "fwd_sees_its_trace": repr((top, seen[-1]))}
