"""Sharding in types on a mesh with Explicit axes, run alike by real JAX
(reference/make_explicit_sharding_reference.py records explicit_sharding_reference.json) and
by jxkernel (tests/sharding/test_sharding_explicit.py, in a subprocess with 8 CPU devices): `run(jax)`
returns plain JSON data — types (`str(jax.typeof(...))`) eagerly and in jaxprs, jit results'
shardings, values, and the errors.

    run(jax)["types"]["mul_scalar"]  ->  "float32[8@x]"

The mesh is jax.make_mesh((4, 2), ('x', 'y')), Explicit axes (JAX's default). Values are
small integers in float32, so every sum and product below is exact.
"""
import functools

import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of

_error = functools.partial(error_of, cut=TRACEBACK_NOTE)


def _arrays(jax, mesh, P):
    put = lambda v, *spec: jax.device_put(v, jax.sharding.NamedSharding(mesh, P(*spec)))  # noqa
    return {
        "x": put(np.arange(8, dtype=np.float32), "x"),
        "y": put(np.arange(8, dtype=np.float32), "y"),
        "r": put(np.arange(8, dtype=np.float32)),
        "a": put(np.arange(32, dtype=np.float32).reshape(8, 4), "x", "y"),
        "b": put(np.arange(8, dtype=np.float32).reshape(4, 2), "y", None),
        "c": put(np.arange(32, dtype=np.float32).reshape(8, 4), "x"),
        "w": put(np.arange(8, dtype=np.float32).reshape(4, 2)),
        "z": put(np.arange(8, dtype=np.float32), ("x", "y")),
        "s": put(np.arange(16, dtype=np.float32).reshape(4, 2, 2), "x"),
        "t": put(np.arange(16, dtype=np.float32).reshape(4, 2, 2), "x"),
    }


def _types(jax, v, P):
    """Each operation's result type, eagerly."""
    jnp, lax = jax.numpy, jax.lax
    x, y, r, a, b, c, w, z, s, t = (v[k] for k in "xyrabcwzst")
    cases = {
        "x": lambda: x, "a": lambda: a, "z": lambda: z, "replicated": lambda: r,
        "mul_scalar": lambda: x * 2, "sin": lambda: jnp.sin(x), "add_float": lambda: x + 1.0,
        "add_replicated": lambda: x + r, "add_mismatch": lambda: x + y,
        "sum": lambda: jnp.sum(x), "sum_axis0": lambda: a.sum(0), "max_axis1": lambda: a.max(1),
        "prod_axis0": lambda: c.prod(0), "min_all": lambda: a.min(),
        "argmax_axis1": lambda: jnp.argmax(a, axis=1), "transpose": lambda: a.T,
        "astype": lambda: a.astype(jnp.int32), "expand_dims": lambda: jnp.expand_dims(a, 0),
        "squeeze": lambda: jnp.squeeze(jnp.expand_dims(a, 2), 2),
        "broadcast_row": lambda: jnp.broadcast_to(x, (3, 8)),
        "broadcast_add": lambda: c + jnp.ones((8, 1), np.float32),
        "slice_unsplit": lambda: c[:, 1:3], "concat_unsplit": lambda: jnp.concatenate([c, c], 1),
        "where": lambda: jnp.where(x > 2, x, 0.0), "compare": lambda: x > 2,
        "reshape_same": lambda: c.reshape(8, 4), "reshape_unit": lambda: c.reshape(8, 1, 4),
        "reshape_unsplit": lambda: c.reshape(8, 2, 2), "reshape_merge": lambda: c.reshape(32),
        "reshape_mixed": lambda: c.reshape(4, 8), "slice_split": lambda: c[2:6],
        "concat_split": lambda: jnp.concatenate([c, c], 0),
        "dynamic_slice_unsplit": lambda: lax.dynamic_slice(c, (0, 1), (8, 2)),
        "matmul_split_contracting": lambda: a @ b,
        "matmul_same_axis_twice": lambda: c @ c.T,
        "matmul_free": lambda: c @ w, "dot_out_sharding": lambda: jnp.dot(a, b, out_sharding=P("x")),
        "matmul_out_sharding": lambda: jnp.matmul(a, b, out_sharding=P(None, "y")),
        "einsum_out_sharding": lambda: jnp.einsum("ij,jk->ik", a, b, out_sharding=P("x")),
        "einsum_batch": lambda: jnp.einsum("bij,bjk->bik", s, t),
        "dot_general_batch": lambda: lax.dot_general(s, t, (((2,), (1,)), ((0,), (0,)))),
        "reshard": lambda: jax.sharding.reshard(a, P("y", "x")),
        "reshard_replicate": lambda: jax.sharding.reshard(x, P()),
        "zeros_out_sharding": lambda: jnp.zeros((8, 4), out_sharding=P("x")),
        "cumsum_axis1": lambda: jnp.cumsum(c, axis=1), "cumsum_split": lambda: jnp.cumsum(c, 0),
        "rev": lambda: lax.rev(c, (0,)), "pad": lambda: lax.pad(c, 0.0, ((0, 0, 0), (1, 1, 0))),
        "pad_split": lambda: lax.pad(c, 0.0, ((1, 1, 0), (0, 0, 0))),
        "sort_axis1": lambda: jnp.sort(c, axis=1), "argsort_axis1": lambda: jnp.argsort(c, 1),
        "top_k": lambda: lax.top_k(c, 2)[0], "split": lambda: jnp.split(c, 2, axis=1)[0],
        "cond": lambda: lax.cond(True, lambda v: v + 1, lambda v: v - 1, c),
        "fori": lambda: lax.fori_loop(0, 3, lambda i, v: v * 2, c),
        "stop_gradient": lambda: lax.stop_gradient(c), "softmax": lambda: jax.nn.softmax(c, 1),
        "ones_out_sharding": lambda: jnp.ones((8,), jnp.int32, out_sharding=P(("x", "y"))),
        "full_out_sharding": lambda: jnp.full((4, 8), 2.0, out_sharding=P(None, "x")),
    }
    out = {}
    for name, f in cases.items():
        try:
            out[name] = str(jax.typeof(f()))
        except Exception as e:
            out[name] = [type(e).__name__, str(e).split("\n--------------------")[0]]
    return out


def _jit(jax, v, P):
    """Types in jaxprs and jit's results (type, sharding spec and value)."""
    jnp = jax.numpy
    x, a, b, c, w = (v[k] for k in "xabcw")

    def f(a, c, w):
        h = jnp.sin(a) * 2
        m = jnp.dot(c.T, c @ w, out_sharding=P(None, "y"))
        return h.T, h.sum(0), m, jax.sharding.reshard(c, P(None, "y")), jnp.zeros(
            (4,), out_sharding=P("x"))

    out = {"jaxpr": str(jax.make_jaxpr(f)(a, c, w))}
    results = jax.jit(f)(a, c, w)
    out["jit_types"] = [str(jax.typeof(y)) for y in results]
    out["jit_specs"] = [repr(y.sharding.spec) for y in results]
    out["values"] = [np.asarray(y).tolist() for y in results]
    out["grad_type"] = str(jax.typeof(jax.grad(lambda x: jnp.sum(jnp.sin(x) * x))(x)))
    out["grad_value"] = np.asarray(jax.grad(lambda x: jnp.sum(x * x))(x)).tolist()
    out["vmap_type"] = str(jax.typeof(jax.vmap(lambda row: row * 2)(c)))
    out["matmul_error_in_jit"] = _error(lambda: jax.jit(lambda a, b: a @ b)(a, b))
    lax = jax.lax
    made = jax.jit(lambda: jnp.zeros((8,), out_sharding=P("x")))()      # no sharded input
    out["jit_made"] = [str(jax.typeof(made)), repr(made.sharding.spec)]
    w1 = jnp.ones((4, 2), np.float32)                                   # one device
    g = jax.grad(lambda w: jnp.mean((c @ w) ** 2))(w1)
    out["grad_of_replicated"] = [str(jax.typeof(g)), np.asarray(g).tolist()]
    gj = jax.jit(jax.grad(lambda c: jnp.sum(jnp.sin(c) @ w)))(c)
    out["grad_in_jit_type"] = str(jax.typeof(gj))
    struct = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=c.sharding)
    out["struct"] = [str(jax.typeof(struct)), str(jax.jit(lambda v: v * 2).trace(struct).jaxpr),
                     str(jax.typeof(jax.eval_shape(lambda v: v.sum(1), c)))]
    i, u = jax.device_put(np.int32(1), c.sharding.update(spec=P())), jnp.arange(8.0)
    out["only_an_index_typed"] = str(jax.typeof(jax.jit(lambda: lax.dynamic_slice(u, (i,),
                                                                                  (2,)))()))
    out["scan_split_xs"] = _error(lambda: lax.scan(lambda k, r: (k + r, r), jnp.zeros(4), c))
    out["scan_carry_mismatch"] = _error(lambda: lax.scan(
        lambda k, r: (jax.sharding.reshard(k + r, P()), r), jnp.zeros(8, out_sharding=P("x")),
        c.T))
    carry, ys = lax.scan(lambda k, r: (k + r, r * 2), jnp.zeros(8, out_sharding=P("x")), c.T)
    out["scan"] = [np.asarray(carry).tolist(), str(jax.typeof(ys)), np.asarray(ys).sum().item()]

    seen = []
    jax.make_jaxpr(lambda x: seen.append(jax.sharding.get_abstract_mesh().axis_names) or x)(x)
    out["abstract_mesh_in_trace"] = list(seen[0])
    out["eager_values"] = {
        "dot_out_sharding": np.asarray(jnp.dot(a, b, out_sharding=P("x"))).tolist(),
        "matmul_free": np.asarray(c @ w).tolist(),
        "sum_axis0": np.asarray(a.sum(0)).tolist(),
    }
    out["eager_specs"] = {
        "transpose": repr(a.T.sharding.spec), "sum_axis0": repr(a.sum(0).sharding.spec),
        "dot_out_sharding": repr(jnp.dot(a, b, out_sharding=P("x")).sharding.spec),
        "reshard": repr(jax.sharding.reshard(a, P("y", "x")).sharding.spec),
    }
    return out


def _axis_type_changes(jax, mesh, v, P):
    """auto_axes (Explicit -> Auto inside) and explicit_axes (Auto -> Explicit inside): the
    types seen inside, and the results' types, specs and values."""
    NS = jax.sharding.NamedSharding
    a, b = v["a"], v["b"]
    seen, out = [], {}

    def matmul(a, b):
        seen.append([str(jax.typeof(a)), str(jax.typeof(b)),
                     str(jax.sharding.get_abstract_mesh().axis_types)])
        return a @ b

    def note(name, f):
        try:
            r = f()
            out[name] = [str(jax.typeof(r)), repr(r.sharding.spec), np.asarray(r).tolist()]
        except Exception as e:
            out[name] = [type(e).__name__, str(e).split("\n--------------------")[0]]
    auto_axes, explicit_axes = jax.sharding.auto_axes, jax.sharding.explicit_axes
    with jax.set_mesh(mesh):
        note("auto", lambda: auto_axes(matmul, out_sharding=P("x"))(a, b))
        note("auto_at_call", lambda: auto_axes(matmul)(a, b, out_sharding=P("x")))
        note("auto_jit", lambda: jax.jit(auto_axes(matmul, out_sharding=P(None, "y")))(a, b))
        note("auto_y", lambda: auto_axes(matmul, axes="y", out_sharding=P("x"))(a, b))
        note("auto_missing", lambda: auto_axes(matmul)(a, b))
    auto = jax.make_mesh((4, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    c = jax.device_put(np.arange(32, dtype=np.float32).reshape(8, 4), NS(auto, P("x")))

    def double(c):
        seen.append(str(jax.typeof(c)))
        return c * 2
    with jax.set_mesh(auto):
        note("explicit", lambda: explicit_axes(double, in_sharding=P("x"))(c))
        note("explicit_jit", lambda: jax.jit(explicit_axes(double, in_sharding=P(None, "y")))(c))
    note("explicit_no_mesh", lambda: explicit_axes(double, in_sharding=P("x"))(c))
    out["seen"] = seen
    return out


def _given_in_shardings(jax, mesh, P):
    """A jit given in_shardings over Explicit axes, called on host data: outside set_mesh
    its untyped results are laid out as XLA's propagation chooses and typed so; under
    set_mesh they are replicated (their type names the context's mesh)."""
    jnp, ns = jax.numpy, jax.sharding.NamedSharding(mesh, P("x", "y"))
    v = np.arange(16, dtype=np.float32).reshape(8, 2)
    f = jax.jit(lambda a: (a * 2, jnp.zeros(3), a.sum(0), a.T, a[None]), in_shardings=ns)
    g = jax.jit(lambda a, b: a + b, in_shardings=(ns, None))

    def seen(outs):
        return [[repr(o.sharding.spec), str(jax.typeof(o)), np.asarray(o).tolist()]
                for o in jax.tree.leaves(outs)]
    out = {"outside": seen(f(v)), "outside_two": seen(g(v, jax.device_put(v)))}
    # (under set_mesh JAX types a reduction's or transpose's result otherwise, as their
    # sharding rules give it an empty mesh: jxkernel's avals do not tell the two apart)
    h = jax.jit(lambda a: (a * 2, jnp.zeros(3), a[None]), in_shardings=ns)
    with jax.set_mesh(mesh):
        out["under_set_mesh"] = seen(h(jax.device_put(v)))
    return out


def _eqn_types(jaxpr, names=None) -> list:
    """[primitive, operand types, result types] of each equation of `jaxpr` (and the jaxprs
    in its params) whose primitive is one of `names` (None: every equation)."""
    out = []
    for eqn in jaxpr.eqns:
        if names is None or eqn.primitive.name in names:
            out.append([eqn.primitive.name, [str(v.aval) for v in eqn.invars],
                        [str(v.aval) for v in eqn.outvars]])
        for p in eqn.params.values():
            inner = getattr(p, "jaxpr", p)
            if hasattr(inner, "eqns"):
                out += _eqn_types(inner, names)
    return out


def _gradient_types(jax, mesh, P):
    """Differentiating over a batch split on 'x' (the shard_map page's `jit(grad(loss))` of an
    MLP with biases and relu): the types of the tangents and cotangents JAX's rules make,
    where select_n (relu's JVP, jnp.where's transpose) needs its cases split alike: a bias's
    tangent broadcast to the split batch (add's JVP), cotangents meeting (add_any), zeros
    like a cotangent (select_n's transpose). Small integers: every value exact."""
    jnp = jax.numpy
    put = lambda v, *spec: jax.device_put(np.asarray(v, np.float32),  # noqa: E731
                                          jax.sharding.NamedSharding(mesh, P(*spec)))
    ints = lambda n, *shape: (np.arange(n, dtype=np.float32) % 5 - 2).reshape(shape)  # noqa
    batch = (put(ints(32, 8, 4), "x"), put(ints(16, 8, 2)[::-1], "x"))
    params = [(put(ints(12, 4, 3)), put([1, -1, 0])), (put(ints(6, 3, 2)), put([0, 1]))]

    def loss(params, batch):
        inputs, targets = batch
        for W, b in params:
            outputs = jnp.dot(inputs, W) + b
            inputs = jax.nn.relu(outputs)
        return jnp.mean(jnp.sum((outputs - targets) ** 2, axis=-1))

    def seen(tree):
        return [[str(jax.typeof(g)), np.asarray(g).tolist()] for g in jax.tree.leaves(tree)]
    c = batch[0]
    bias = put([1, 2, 3, 4])
    where = lambda c: jnp.sum(jnp.where(c > 0, c, 0.0) * c)  # noqa: E731
    return {
        "mlp_select_n": _eqn_types(jax.make_jaxpr(jax.grad(loss))(params, batch).jaxpr,
                                   {"select_n"}),
        "mlp_grad_jit": seen(jax.jit(jax.grad(loss))(params, batch)),
        "mlp_grad_eager": seen(jax.grad(loss)(params, batch)),
        "bias_tangent": [str(jax.typeof(jax.jvp(lambda b: c + b, (bias,), (bias,))[1])),
                         str(jax.make_jaxpr(lambda b: jax.jvp(lambda b: c + b, (bias,),
                                                              (b,))[1])(bias).out_avals[0])],
        "where_grad": seen(jax.grad(where)(c)) + seen(jax.jit(jax.grad(where))(c)),
        "where_select_n": _eqn_types(jax.make_jaxpr(jax.grad(where))(c).jaxpr, {"select_n"}),
        "add_any": _eqn_types(jax.make_jaxpr(jax.grad(lambda c: jnp.sum(jnp.sin(c) * c)))(
            c).jaxpr, {"add_any"}),
    }


def _resharded_tangents(jax, mesh, P):
    """A bias of the activation's shape but another type (replicated, or split over 'y' where
    the batch is over 'x'): JAX's _maybe_broadcast reshards its tangent to the result's type
    (add's and sub's JVP: `reshard`), its _unbroadcast gives the cotangent the bias's type
    back (`reshape[... sharding=...]`), reshard's transpose reshards back to its operand's.
    Per program: make_jaxpr(grad)'s text (every equation's types, reshape's sharding=), the
    gradients' types and values eagerly and under jit, the JVP's type and jaxprs (one
    tangent, both); for the layer also each equation's types as a list. Small integers:
    every value exact."""
    jnp = jax.numpy
    put = lambda v, *spec: jax.device_put(np.asarray(v, np.float32),  # noqa: E731
                                          jax.sharding.NamedSharding(mesh, P(*spec)))
    grid = np.arange(32).reshape(8, 4)
    c = put(grid % 5 - 2, "x")
    biases = {"replicated": put(grid % 3 - 1), "split_y": put(grid % 3 - 1, None, "y"),
              "row_split_y": put(np.arange(4).reshape(1, 4) % 3 - 1, None, "y")}
    ops = {"add": lambda c, b: c + b, "sub": lambda c, b: c - b, "rsub": lambda c, b: b - c,
           "mul": lambda c, b: c * b, "max": jnp.maximum,
           "add_sub": lambda c, b: (c + b) * (c - b)}

    def seen(tree):
        return [[str(jax.typeof(g)), np.asarray(g).tolist()] for g in jax.tree.leaves(tree)]
    out = {}
    for op_name, op in ops.items():
        for bias_name, b in biases.items():
            for argnums in (1, (0, 1)):
                grad = jax.grad(lambda c, b: jnp.sum(op(c, b) ** 2), argnums=argnums)
                jaxpr = jax.make_jaxpr(grad)(c, b)
                out[f"{op_name}/{bias_name}/{argnums}"] = {
                    "jaxpr": str(jaxpr), "grad": seen(grad(c, b)),
                    "grad_jit": seen(jax.jit(grad)(c, b))}
            jvp = lambda t: jax.jvp(lambda b: op(c, b), (b,), (t,))[1]  # noqa: E731
            both = lambda t, u: jax.jvp(op, (c, b), (t, u))[1]  # noqa: E731
            out[f"{op_name}/{bias_name}/jvp"] = [str(jax.typeof(jvp(b))),
                                                 str(jax.make_jaxpr(jvp)(b)),
                                                 str(jax.make_jaxpr(both)(c, b))]

    W, b = put(np.arange(16).reshape(4, 4) % 3 - 1), put(np.arange(32).reshape(8, 4) % 4 - 2)
    targets = put(np.arange(32).reshape(8, 4) % 5 - 2, None, "y")

    def layer(W, b, targets):     # a per-example bias and targets split otherwise than it
        h = jnp.maximum(jnp.dot(c, W) + b, 0.0)
        return jnp.mean(jnp.sum((h - targets) ** 2, axis=-1))
    grad = jax.grad(layer, argnums=(0, 1, 2))
    jaxpr = jax.make_jaxpr(grad)(W, b, targets)
    out["layer"] = {"jaxpr": str(jaxpr), "eqns": _eqn_types(jaxpr.jaxpr),
                    "grad": seen(grad(W, b, targets)),
                    "grad_jit": seen(jax.jit(grad)(W, b, targets))}
    moved = jax.grad(lambda a: jnp.sum(jax.sharding.reshard(a, P(None, "y")) * biases[
        "replicated"]))
    out["reshard"] = [str(jax.make_jaxpr(moved)(c)), seen(moved(c)), seen(jax.jit(moved)(c))]
    return out


def _broadcast_params(jax, mesh, P):
    """broadcast_in_dim in jaxprs of programs that broadcast typed values: the printed text
    (JAX prints neither its shape nor its sharding= param: the result's type says both) and
    each broadcast_in_dim's `sharding` param (None unless an out_sharding= or a full_like
    gave one)."""
    jnp, lax = jax.numpy, jax.lax
    ns = lambda *spec: jax.sharding.NamedSharding(mesh, P(*spec))  # noqa: E731
    put = lambda v, *spec: jax.device_put(np.asarray(v, np.float32), ns(*spec))  # noqa: E731
    x, c = put(np.arange(8), "x"), put(np.arange(32).reshape(8, 4), "x")
    r, y4 = put(np.arange(4)), put(np.arange(4), "y")
    programs = {
        "broadcast_to": (lambda x: jnp.broadcast_to(x, (3, 8)), x),
        "broadcast_to_leading": (lambda c: jnp.broadcast_to(c, (2, 8, 4)), c),
        "add_column": (lambda c: c + jnp.ones((8, 1), np.float32), c),
        "add_row": (lambda c, r: c + r, c, r),
        "add_row_split_y": (lambda c, r: c + r, c, y4),
        "expand_dims_add": (lambda x, r: jnp.expand_dims(x, 1) + r, x, r),
        "expand_dims_add_split_y": (lambda x, r: jnp.expand_dims(x, 1) + r, x, y4),
        "reshard_after": (lambda x: jax.sharding.reshard(jnp.broadcast_to(x, (4, 8)),
                                                         P(None, None)), x),
        "reshard_after_split_y": (lambda x: jax.sharding.reshard(
            jnp.broadcast_to(x[:, None], (8, 4)), P("x", "y")), x),
        "lax_out_sharding_spec": (lambda x: lax.broadcast_in_dim(
            x, (8, 4), (0,), out_sharding=P("x", "y")), x),
        "lax_out_sharding_named": (lambda x: lax.broadcast_in_dim(
            x, (8, 4), (0,), out_sharding=ns("x", "y")), x),
        "lax_broadcast": (lambda x: lax.broadcast(x, (2,)), x),
        "zeros_out_sharding": (lambda: jnp.zeros((8, 4), out_sharding=P("x")),),
        "full_like": (lambda c: jnp.full_like(c, 3.0), c),
        "ones_like_out_sharding": (lambda c: jnp.ones_like(c, out_sharding=P(None, "y")), c),
        "where_scalar": (lambda c: jnp.where(c > 2, c, 0.0), c),
        "grad_of_broadcast": (lambda c, r: jax.grad(lambda c, r: jnp.sum(c * r),
                                                    argnums=1)(c, r), c, y4),
        "vmap_broadcast_to": (lambda c: jax.vmap(lambda row: jnp.broadcast_to(row, (2, 4)))(c),
                              c),
        "jit_broadcast_to": (lambda x: jax.jit(lambda x: jnp.broadcast_to(x, (3, 8)))(x), x),
    }

    def params(jaxpr):
        found = []
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "broadcast_in_dim":
                found.append(repr(eqn.params["sharding"]))
            for p in eqn.params.values():
                inner = getattr(p, "jaxpr", p)
                if hasattr(inner, "eqns"):
                    found += params(inner)
        return found
    out = {}
    for name, (f, *args) in programs.items():
        jaxpr = jax.make_jaxpr(f)(*args)
        out[name] = [str(jaxpr), params(jaxpr.jaxpr)]
    return out


def _rule_constants(jax, mesh, P):
    """Scalars and zeros that differentiation rules make over a split value: JAX's _one/_zero
    are placed on the value's mesh (`reshard 1.0:f32[]`: log1p, expm1, tanh, logistic, asinh,
    atanh, abs), pow's JVP spreads `1` as its exponent (full_like) and broadcasts only an
    integer exponent of another shape, and a zero tangent is typed as its primal (a scan's
    carry). Per program: make_jaxpr(grad)'s text, the gradient's type and values (the test
    compares those within ELEMENTWISE ulps: transcendental functions' last bits may differ)."""
    jnp, lax = jax.numpy, jax.lax
    put = lambda v, *spec: jax.device_put(np.asarray(v, np.float32),  # noqa: E731
                                          jax.sharding.NamedSharding(mesh, P(*spec)))
    grid = np.arange(32).reshape(8, 4)
    c = put((grid % 7 - 3) / 8, "x")
    e = put(grid % 3 + 1, None, "y")
    n = jax.device_put(grid % 4, jax.sharding.NamedSharding(mesh, P(None, "y")))
    programs = {
        "log1p": (lambda c: jnp.sum(lax.log1p(c)), c),
        "expm1": (lambda c: jnp.sum(lax.expm1(c)), c),
        "tanh": (lambda c: jnp.sum(lax.tanh(c)), c),
        "logistic": (lambda c: jnp.sum(lax.logistic(c)), c),
        "asinh": (lambda c: jnp.sum(lax.asinh(c)), c),
        "atanh": (lambda c: jnp.sum(lax.atanh(c)), c),
        "abs": (lambda c: jnp.sum(lax.abs(c)), c),
        "gelu": (lambda c: jnp.sum(jax.nn.gelu(c)), c),
        "logsumexp": (lambda c: jnp.sum(jax.nn.logsumexp(c, axis=1)), c),
        "pow_float_exponent": (lambda c, e: jnp.sum(lax.pow(jnp.abs(c) + 1.0, e)), c, e),
        "pow_int_exponent": (lambda c, n: jnp.sum(lax.pow(c, n[:1])), c, n),
        "scan_carry": (lambda c: lax.scan(lambda k, row: (k + row * 2.0, None),
                                          jnp.zeros(8, out_sharding=P("x")), c.T)[0].sum(), c),
    }
    # an integer exponent of the result's shape but another type: select_n's cases differ
    # (JAX broadcasts, so retypes, only an exponent of another shape)
    out = {"pow_int_exponent_retyped": _error(lambda: jax.grad(
        lambda c, n: jnp.sum(lax.pow(c, n)))(c, n))}
    for name, (f, *args) in programs.items():
        grad = jax.grad(f)
        g = grad(*args)
        text = str(jax.make_jaxpr(grad)(*args))
        if name == "scan_carry":      # the zero's type (JAX stages it after the scan)
            text = sorted(line.split("=")[0].strip() for line in text.splitlines()
                          if "broadcast_in_dim 0.0" in line)
        out[name] = [text, str(jax.typeof(g)), np.asarray(g).tolist()]
    return out


def _model_gradients(jax, mesh, P):
    """Gradients of small model pieces over a batch split on 'x' with replicated parameters
    (a layer norm's scale and shift, a bias, weights split over 'y'): where both operands of
    add/sub have tangents they meet in the op itself and the cotangents are summed back by
    JAX's _unbroadcast (reduce_sum with no out_sharding=, reshape with the operand's type).
    Per program: make_jaxpr(grad)'s text, the gradients' types, and jit's results' specs."""
    jnp, lax = jax.numpy, jax.lax
    put = lambda v, *spec: jax.device_put(np.asarray(v, np.float32),  # noqa: E731
                                          jax.sharding.NamedSharding(mesh, P(*spec)))
    grid = np.arange(32).reshape(8, 4)
    X = put((grid % 7 - 3) / 4, "x")
    Wq = put((np.arange(16).reshape(4, 4) % 5 - 2) / 4, None, "y")
    Wo = put((np.arange(16).reshape(4, 4) % 3 - 1) / 4, "y", None)
    g, b = put(np.ones(4)), put(np.zeros(4))

    def layernorm(h, g, b):
        m = jnp.mean(h, axis=-1, keepdims=True)
        v = jnp.var(h, axis=-1, keepdims=True)
        return (h - m) * lax.rsqrt(v + 1e-5) * g + b
    programs = {
        "layernorm": (lambda X, g, b: jnp.sum(layernorm(X, g, b) ** 2), X, g, b),
        "mse_bias": (lambda X, b: jnp.mean((X + b - 1.0) ** 2), X, b),
        "var_std": (lambda X: jnp.std(X) + jnp.var(X, axis=0).sum(), X),
        "mlp_split_y": (lambda X, Wq, Wo: jnp.sum(jnp.dot(
            jax.nn.relu(jnp.dot(X, Wq)), Wo, out_sharding=P("x")) ** 2), X, Wq, Wo),
    }
    out = {}
    for name, (f, *args) in programs.items():
        grad = jax.grad(f, argnums=tuple(range(len(args))))
        out[name] = [str(jax.make_jaxpr(grad)(*args)),
                     [str(jax.typeof(v)) for v in grad(*args)],
                     [repr(v.sharding.spec) for v in jax.jit(grad)(*args)]]
    return out


def _sort_shardings(jax, mesh, P):
    """sort's operands over a split value (JAX's sort abstract eval): each operand typed over
    a mesh with Explicit axes must be unsplit along the sorting dimension and typed as the
    others, so sort's JVP (an iota sorted along, typed unsplit over set_mesh's mesh) raises
    along an unsplit axis of a split value, where argsort (its iota typed as the operand) and
    vmap (the unbatched iota broadcast to the batched operand's type) do not. Outside
    set_mesh the JVP's iota is untyped and does not count. Per case: the result's type, or
    the error."""
    jnp, lax = jax.numpy, jax.lax
    put = lambda v, *spec: jax.device_put(np.asarray(v, np.float32),  # noqa: E731
                                          jax.sharding.NamedSharding(mesh, P(*spec)))
    c = put(np.arange(32).reshape(8, 4) % 7, "x")
    x = put(np.arange(8)[::-1], "x")
    grad1 = jax.grad(lambda c: jnp.sort(c, axis=1).sum())

    def note(f):
        try:
            return str(jax.typeof(f()))
        except Exception as e:
            return [type(e).__name__, str(e).split("\n--------------------")[0]]
    cases = {
        "sort_split_axis": lambda: jnp.sort(x),
        "grad_split_axis": lambda: jax.grad(lambda x: jnp.sort(x).sum())(x),
        "grad_unsplit_axis": lambda: grad1(c),
        "grad_unsplit_axis_jit": lambda: jax.jit(grad1)(c),
        "jvp_unsplit_axis": lambda: jax.jvp(lambda c: jnp.sort(c, axis=1), (c,), (c,))[1],
        "argsort_unsplit_axis": lambda: jnp.argsort(c, axis=1),
        "sort_key_val_replicated_values": lambda: lax.sort_key_val(c, jnp.zeros((8, 4)), 1)[1],
        "sort_key_val_alike": lambda: lax.sort_key_val(c, c * 2, 1)[1],
        "sort_second_split": lambda: lax.sort((jnp.zeros((8, 4)), c), dimension=0)[1],
        "vmap_sort": lambda: jax.vmap(jnp.sort)(c),
        "vmap_grad_sort": lambda: jax.vmap(jax.grad(lambda r: jnp.sort(r).sum()))(c),
        "median_grad": lambda: jax.grad(lambda c: jnp.median(c, axis=1).sum())(c),
        "top_k_grad": lambda: jax.grad(lambda c: lax.top_k(c, 2)[0].sum())(c),
    }
    with jax.set_mesh(mesh):
        out = {name: note(f) for name, f in cases.items()}
    out["outside_set_mesh"] = {"jit": note(lambda: jax.jit(grad1)(c)),
                               "jvp": note(lambda: jax.jvp(lambda c: jnp.sort(c, axis=1),
                                                           (c,), (c,))[1])}
    # the gathers' transposes scatter into zeros typed as the operand (JAX's lax.full with
    # its sharding); sort's batch dims are np.delete's (`np.int64(0)`), top_k's Python's
    out["outside_set_mesh"]["jit_jaxpr"] = str(jax.make_jaxpr(jax.jit(grad1))(c))
    with jax.set_mesh(mesh):
        out["vmap_grad_sort_jaxpr"] = str(jax.make_jaxpr(
            jax.vmap(jax.grad(lambda r: jnp.sort(r).sum())))(c))
        out["top_k_grad_jaxpr"] = str(jax.make_jaxpr(
            jax.grad(lambda c: lax.top_k(c, 2)[0].sum()))(c))
    return out


def _window_constants(jax, mesh, P):
    """pad's batching and the windowed reductions over a split value: the windowed
    primitives typed as JAX's (reduce_window's operand's type where each resized split
    dimension still divides, select_and_scatter_add's operand's, select_and_gather_add's
    tangents typed as its operand), the zero that reduce_window_sum's transpose and pad's
    batching pad with on the value's mesh (`reshard 0.0:f32[]`, JAX's _zero), pad's mask
    typed as the operand, pad's transpose's NumPy integers. Per program: make_jaxpr's text,
    then the eager results' types and values (small integers: exact), or the error."""
    jnp, lax = jax.numpy, jax.lax
    put = lambda v, *spec: jax.device_put(np.asarray(v, np.float32),  # noqa: E731
                                          jax.sharding.NamedSharding(mesh, P(*spec)))
    grid = np.arange(32).reshape(8, 4)
    c, cy = put(grid % 7 - 3, "x"), put(grid % 7 - 3, None, "y")
    c3 = put(np.arange(64).reshape(8, 4, 2) % 5, "x")
    pv = put(np.arange(8) % 3, "x")
    window = functools.partial(lax.reduce_window, window_dimensions=(1, 2))
    wsum = lambda c, strides=(1, 1), pad="VALID": window(  # noqa: E731
        c, 0.0, lax.add, window_strides=strides, padding=pad)
    wmax = lambda c: window(c, -jnp.inf, lax.max, window_strides=(1, 2), padding="VALID")  # noqa
    programs = {
        "pad_vmap": (lambda c: jax.vmap(lambda r: lax.pad(r, 0.0, ((1, 2, 0),)))(c), c),
        "pad_vmap_value": (lambda c, v: jax.vmap(lambda r, v: lax.pad(r, v, ((1, 2, 1),)))(
            c, v), c, pv),
        "pad_grad": (jax.grad(lambda c: lax.pad(c, 0.0, ((0, 0, 0), (1, 1, 1))).sum()), c),
        "sum_grad": (jax.grad(lambda c: wsum(c).sum()), c),
        "sum_grad_jit": (jax.jit(jax.grad(lambda c: wsum(c).sum())), c),
        "sum_same_grad": (jax.grad(lambda c: lax.reduce_window(
            c, 0.0, lax.add, (1, 3), (1, 2), "SAME").sum()), c),
        "sum_split_y_grad": (jax.grad(lambda c: wsum(c, (1, 2)).sum()), cy),
        "max_grad": (jax.grad(lambda c: wmax(c).sum()), c),
        "max_jvp": (lambda c: jax.jvp(wmax, (c,), (c,)), c),
        "max_jvp_tangent_typed_otherwise": (lambda c, t: jax.jvp(wmax, (c,), (t,)), c, cy),
        "max_vmap_grad": (jax.vmap(jax.grad(lambda r: lax.reduce_window(
            r, -jnp.inf, lax.max, (2,), (2,), "VALID").sum())), c),
        "avg_pool_grad": (jax.grad(lambda c: lax.reduce_window(
            c, 0.0, lax.add, (1, 2, 1), (1, 1, 1), "SAME").sum()), c3),
        "generic": (lambda c: lax.reduce_window((c, c), (0.0, 0.0), lambda a, b: (
            a[0] + b[0], a[1] * b[1]), (1, 2), (1, 1), "VALID"), c),
        "split_window_dim": (lambda c: lax.reduce_window(c, 0.0, lax.add, (2, 1), (2, 1),
                                                         "VALID"), c),
        "split_window_dim_indivisible": (lambda c: lax.reduce_window(
            c, 0.0, lax.add, (3, 1), (1, 1), "VALID"), c),
        "cumsum_y": (lambda c: jnp.cumsum(c, axis=1), cy),
        "cummax_grad_y": (jax.grad(lambda c: lax.cummax(c, axis=0).sum()), cy),
    }
    out = {}
    for name, (f, *args) in programs.items():
        try:
            text = str(jax.make_jaxpr(f)(*args))
            leaves = jax.tree.leaves(f(*args))
            out[name] = [text, [str(jax.typeof(v)) for v in leaves],
                         [np.asarray(v).tolist() for v in leaves]]
        except Exception as e:
            out[name] = [type(e).__name__, str(e).split("\n--------------------")[0]]
    return out


def _where_batching(jax, mesh, P):
    """vmap of jnp.where / lax.select_n over a batch split on 'x': JAX's select_n batching
    broadcasts an unbatched case (a scalar spread to a row) split as vmap's inputs, so the
    cases stay typed alike; a per-example scalar `which` is spread typed as the cases.
    Per program: make_jaxpr's text and the jit result's type, or the error."""
    jnp, lax = jax.numpy, jax.lax
    put = lambda v, *spec: jax.device_put(np.asarray(v, np.float32),  # noqa: E731
                                          jax.sharding.NamedSharding(mesh, P(*spec)))
    c = put(np.arange(32).reshape(8, 4) % 7 - 3, "x")
    r = put(np.arange(4) % 3)
    programs = {
        "scalar_case": (jax.vmap(lambda row: jnp.where(row > 0, row, 0.0)), c),
        "scalar_first_case": (jax.vmap(lambda row: jnp.where(row > 0, 1.0, row)), c),
        "unbatched_row_case": (lambda c, r: jax.vmap(lambda row: jnp.where(row > 0, row, r))(
            c, ), c, r),
        "per_example_which": (jax.vmap(lambda row: jnp.where(row.sum() > 0, row, -row)), c),
        "scalar_cases": (jax.vmap(lambda row: lax.select(row > 0, 1.0, 2.0)), c),
        "relu_grad": (jax.vmap(jax.grad(lambda row: jax.nn.relu(row).sum())), c),
    }
    out = {}
    for name, (f, *args) in programs.items():
        try:
            out[name] = [str(jax.make_jaxpr(f)(*args)), str(jax.typeof(jax.jit(f)(*args)))]
        except Exception as e:
            out[name] = [type(e).__name__, str(e).split("\n--------------------")[0]]
    return out


def run(jax):
    """All cases as JSON data (under jax.set_mesh, as JAX's out_sharding=P(...) needs)."""
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    v = _arrays(jax, mesh, P)
    with jax.set_mesh(mesh):
        out = {"axis_types": [str(t) for t in mesh.axis_types], "types": _types(jax, v, P),
               **_jit(jax, v, P)}
    out["axis_type_changes"] = _axis_type_changes(jax, mesh, v, P)
    out["given_in_shardings"] = _given_in_shardings(jax, mesh, P)
    with jax.set_mesh(mesh):
        out["gradient_types"] = _gradient_types(jax, mesh, P)
        out["resharded_tangents"] = _resharded_tangents(jax, mesh, P)
        out["broadcast_params"] = _broadcast_params(jax, mesh, P)
        out["rule_constants"] = _rule_constants(jax, mesh, P)
        out["model_gradients"] = _model_gradients(jax, mesh, P)
    out["sort_shardings"] = _sort_shardings(jax, mesh, P)
    with jax.set_mesh(mesh):
        out["window_constants"] = _window_constants(jax, mesh, P)
        out["where_batching"] = _where_batching(jax, mesh, P)
    return out
