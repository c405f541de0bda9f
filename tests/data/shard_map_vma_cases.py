"""shard_map's varying-manual-axes types (check_vma=True), run alike by real JAX
(reference/make_shard_map_reference.py records them in shard_map_vma_reference.json) and by
jxkernel (tests/sharding/test_shard_map_vma.py, in a subprocess with 8 CPU devices): `run(jax)` returns
plain JSON data — the types values have inside a body, the jaxprs with pvary, gradients
inside and outside a body with respect to replicated inputs, pcast, and the errors.

    run(jax)["types"]["psum_x"]  ->  {"varying": [], "text": "float32[4]"}

The mesh is 4 x 2 over ('x', 'y') with Auto axes. Values are small integers and halves in
float32, so every sum and product below is exact.
"""
import functools

import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of

_error = functools.partial(error_of, cut=TRACEBACK_NOTE)


def _types(jax, mesh, P):
    """typeof(...).mat.varying and the type's text of values inside one body."""
    lax, jnp = jax.lax, jax.numpy
    seen = {}

    def note(name, x):
        t = jax.typeof(x)
        seen[name] = {"varying": sorted(t.mat.varying), "text": str(t)}

    def body(a, w, b):
        note("in_x", a)
        note("in_replicated", w)
        note("in_xy", b)
        note("mul_varying_invariant", a * w)
        note("psum_x", lax.psum(a, "x"))
        note("psum_xy", lax.psum(b, ("x", "y")))
        note("psum_of_invariant", lax.psum(w, "x"))
        note("pmax_x", lax.pmax(a, "x"))
        note("all_gather_x", lax.all_gather(a, "x"))
        note("axis_index_y", lax.axis_index("y"))
        note("ppermute_x", lax.ppermute(w, "x", [(0, 1), (1, 0), (2, 3), (3, 2)]))
        note("pcast_y", lax.pcast(w, "y", to="varying"))
        note("pcast_yx", lax.pcast(w, ("y", "x"), to="varying"))
        note("constant", jnp.float32(3.0))
        note("grad_replicated", jax.grad(lambda w: jnp.sum(a * w))(w))
        return a
    jax.make_jaxpr(jax.shard_map(body, mesh=mesh, in_specs=(P("x"), P(), P(("x", "y"))),
                                 out_specs=P("x")))(
        np.ones(8, np.float32), np.float32(2), np.ones(8, np.float32))
    return seen


def _jaxprs(jax, mesh, P):
    """make_jaxpr texts of bodies where pvary appears (or psum becomes psum_invariant)."""
    lax, jnp = jax.lax, jax.numpy
    a, w = np.arange(16, dtype=np.float32), np.float32(2)
    sm = lambda f, i, o: jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o)   # noqa: E731
    cases = {
        "mul": (sm(lambda a, w: a * w, (P("x"), P()), P("x")), (a, w)),
        "psum_loss": (sm(lambda a, w: lax.psum(jnp.sum(a * w), "x"), (P("x"), P()), P()),
                      (a, w)),
        "psum_xy_then_mul": (sm(lambda a, w: lax.psum(a, ("x", "y")) * w, (P(("x", "y")), P()),
                                P()), (a, w)),
        "axis_index": (sm(lambda v: v + lax.axis_index("x"), P(), P("x")), (a[:2],)),
        "output_split": (sm(lambda v: v, P(), P("x")), (a[:2],)),
        "pcast": (sm(lambda v: lax.pcast(v, ("y", "x"), to="varying"), P(), P(("x", "y"))),
                  (a[:2],)),
        "pmax_of_invariant": (sm(lambda v: lax.pmax(v, "x"), P(), P()), (w,)),
        "pmean": (sm(lambda a: lax.pmean(a, "x"), P("x"), P()), (a,)),
        "jit_inside": (sm(lambda a, w: jax.jit(lambda a, w: (a * w, w))(a, w), (P("x"), P()),
                          (P("x"), P())), (a, w)),
    }
    return {name: str(jax.make_jaxpr(f)(*args)) for name, (f, args) in cases.items()}


def _grads(jax, mesh, P):
    """Gradients with respect to a batch split over 'x' and a replicated weight, taken inside
    a body and of a function holding a shard_map."""
    lax, jnp = jax.lax, jax.numpy
    a = np.arange(16, dtype=np.float32) / 2
    w = np.float32(1.5)
    xb = np.arange(16, dtype=np.float32).reshape(8, 2) / 4
    wm = np.array([[1.0, -2.0, 0.5], [0.5, 1.0, -1.0]], np.float32)
    sm = lambda f, i, o, **k: jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o, **k)  # noqa: E731

    def psum_loss(a, w):
        return lax.psum(jnp.sum(a * w * w), "x")

    def matrix_loss(xb, wm):
        return lax.psum(jnp.sum((xb @ wm) ** 2), "x")
    inside = sm(lambda a, w: jax.grad(psum_loss, argnums=(0, 1))(a, w), (P("x"), P()),
                (P("x"), P()))
    inside_local = sm(lambda a, w: jax.grad(lambda w: jnp.sum(a * w * w))(w), (P("x"), P()),
                      P())
    inside_matrix = sm(lambda xb, wm: jax.grad(matrix_loss, argnums=1)(xb, wm),
                       (P("x"), P()), P())
    # check_vma=False: no types, so the same gradient taken inside is each device's own
    unchecked = sm(lambda a, w: jax.grad(lambda w: jnp.sum(a * w * w))(w)[None],
                   (P("x"), P()), P(("x", "y")), check_vma=False)
    outside = jax.grad(lambda a, w: sm(psum_loss, (P("x"), P()), P())(a, w), argnums=(0, 1))
    outside_split = jax.grad(lambda a, w: jnp.sum(sm(lambda a, w: a * w * w, (P("x"), P()),
                                                     P("x"))(a, w) ** 2), argnums=(0, 1))
    outside_matrix = jax.grad(lambda xb, wm: sm(matrix_loss, (P("x"), P()), P())(xb, wm),
                              argnums=(0, 1))
    # one jitted function called in a checked body, then in an unchecked one: each call keeps
    # its own trace (only the checked one has pvary, whose transpose sums over 'x')
    scaled = jax.jit(lambda w: w * (1.0 + lax.axis_index("x")))
    shared = lambda check: jax.grad(lambda w: jnp.sum(sm(  # noqa: E731
        lambda w: scaled(w)[None], P(), P("x"), check_vma=check)(w)))(w)
    out = {}
    for name, value in {
            "jit_in_checked_then_unchecked_body": (shared(True), shared(False)),
            "inside": inside(a, w), "inside_local_loss": inside_local(a, w),
            "inside_matrix": inside_matrix(xb, wm), "unchecked_inside": unchecked(a, w),
            "outside": outside(a, w), "outside_jit": jax.jit(outside)(a, w),
            "outside_split_output": outside_split(a, w),
            "outside_matrix": outside_matrix(xb, wm)}.items():
        leaves = value if isinstance(value, tuple) else (value,)
        out[name] = [np.asarray(v).tolist() for v in leaves]
    return out


def _library_ops(jax, mesh, P):
    """grad, hessian and vmap of grad inside a body through jax.nn, logsumexp, where, slices,
    checkpoint, fori_loop (a scan lowered as a while loop), dot and take: zeros_like and
    the zeros of a symbolic tangent vary where their argument does (not exact: tanh, exp)."""
    lax, jnp = jax.lax, jax.numpy
    a = (np.arange(16, dtype=np.float32) / 8 - 1).reshape(8, 2)
    w = np.array([0.5, -1.25], np.float32)

    def loss(a, w):
        z = a * w
        t = jax.nn.softplus(z) + jax.nn.relu(z) + jax.scipy.special.logsumexp(z, axis=1,
                                                                              keepdims=True)
        t = t + jnp.where(z > 0, z, 0.0) + z[:, ::-1] + jax.checkpoint(
            lambda q: jnp.sin(q) * w)(z)
        t = t + lax.fori_loop(0, 2, lambda i, c: c + z * w, jnp.zeros_like(z))
        t = t + jnp.dot(z, w)[:, None] + jnp.take(w, jnp.array([1, 0]))
        return lax.psum(jnp.sum(t ** 2), "x")
    sm = lambda f, o: jax.jit(jax.shard_map(f, mesh=mesh, in_specs=(P("x"), P()),  # noqa: E731
                                            out_specs=o))
    cases = {
        "grad": sm(lambda a, w: jax.grad(loss, argnums=(0, 1))(a, w), (P("x"), P())),
        "hessian": sm(lambda a, w: jax.hessian(lambda w: loss(a, w))(w), P()),
        "vmap_of_grad": sm(lambda a, w: jax.vmap(lambda w: jax.grad(loss, argnums=1)(a, w))(
            jnp.stack([w, 2 * w])), P())}
    return {name: [np.asarray(v).tolist() for v in jax.tree_util.tree_leaves(f(a, w))]
            for name, f in cases.items()}


def _values(jax, mesh, P):
    lax = jax.lax
    v = np.arange(2, dtype=np.float32)
    sm = lambda f, i, o: jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o)   # noqa: E731
    shifted = sm(lambda v: lax.pcast(v, "x", to="varying") + lax.axis_index("x"), P(), P("x"))
    summed = sm(lambda v: lax.psum(v, ("x", "y")), P(), P())
    return {"pcast_then_axis_index": np.asarray(shifted(v)).tolist(),
            "psum_of_invariant": np.asarray(summed(v)).tolist()}


def _message_from(marker, error):
    """A recorded error with its message from `marker` on."""
    return error and [error[0], error[1][error[1].find(marker):]]


def _errors(jax, mesh, P):
    lax, jnp = jax.lax, jax.numpy
    a = np.arange(16, dtype=np.float32)
    sm = lambda f, i, o: jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o)   # noqa: E731

    def gathered(v):
        return lax.all_gather(v, "x")

    def mixed(a, b):
        return a * 2, b + jnp.sum(a)
    return {
        "pvary_removed": _error(lambda: lax.pvary),
        "pcast_set": _error(lambda: jax.make_jaxpr(sm(lambda v: lax.pcast(v, {"x"}, to="varying"),
                                                      P(), P("x")))(a[:2])),
        "pcast_to": _error(lambda: jax.make_jaxpr(sm(lambda v: lax.pcast(v, "x", to="vary"),
                                                     P(), P("x")))(a[:2])),
        "pcast_twice": _error(lambda: jax.make_jaxpr(sm(lambda v: lax.pcast(v, "x", to="varying"),
                                                        P("x"), P("x")))(a)),
        "psum_partly_varying": _error(lambda: jax.make_jaxpr(sm(lambda v: lax.psum(v, ("x", "y")),
                                                                P("x"), P()))(a)),
        "gathered_not_replicated": _error(lambda: jax.make_jaxpr(sm(gathered, P(), P()))(a[:2])),
        "mixed_outputs": _error(lambda: jax.make_jaxpr(sm(mixed, (P("x"), P("y")),
                                                          (P("x"), P("x"))))(a, a)),
        "scan_carry_becomes_varying": _error(lambda: jax.make_jaxpr(sm(
            lambda a: lax.scan(lambda c, x: (c + x, c), np.float32(0), a)[0], P("x"), P()))(a)),
        # from "The output of" on: the lines before name the branches' files and lines
        "cond_branches_vary_differently": _message_from("The output of", _error(
            lambda: jax.make_jaxpr(sm(lambda a, w: lax.cond(
                w > 0, lambda: a * w, lambda: jnp.broadcast_to(w, a.shape)), (P("x"), P()),
                P("x")))(a, np.float32(2)))),
        "grad_inside_needs_psum": _error(lambda: jax.make_jaxpr(sm(
            lambda a, w: jax.grad(lambda w: jnp.sum(a * w))(w) + a[0], (P("x"), P()), P()))(
                a, np.float32(2))),
    }


def _partial(jax, mesh, P):
    """shard_map(axis_names={'x'}) on the 4 x 2 mesh: manual over 'x', 'y' left to XLA."""
    lax, jnp = jax.lax, jax.numpy
    a = np.arange(32, dtype=np.float32).reshape(8, 4)
    w = np.float32(1.5)
    sm = lambda f, i, o: jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o,   # noqa: E731
                                       axis_names={"x"})
    ring = [(i, (i + 1) % 4) for i in range(4)]
    y_split = jax.sharding.NamedSharding(mesh, P("x", "y"))
    cases = {
        "psum": lambda: sm(lambda a: lax.psum(a, "x") * 2, P("x"), P())(a),
        "ppermute": lambda: sm(lambda a: lax.ppermute(a, "x", ring), P("x"), P("x"))(a),
        "axis_index": lambda: sm(lambda a: a + lax.axis_index("x"), P("x"), P("x"))(a),
        "grad_inside": lambda: sm(lambda a, w: jax.grad(
            lambda w: lax.psum(jnp.sum(a * w * w), "x"))(w), (P("x"), P()), P())(a, w),
        "grad_outside": lambda: jax.grad(lambda a, w: jnp.sum(sm(
            lambda a, w: lax.psum(a * w, "x"), (P("x"), P()), P())(a, w) ** 2),
            argnums=(0, 1))(a, w),
        "jit_of_y_split_input": lambda: jax.jit(sm(lambda a: lax.psum(a * 3, "x"), P("x"), P()),
                                                in_shardings=y_split)(a),
    }
    out = {name: [np.asarray(v).tolist() for v in jax.tree_util.tree_leaves(f())]
           for name, f in cases.items()}
    out["jaxpr"] = str(jax.make_jaxpr(sm(lambda a: lax.psum(a, "x"), P("x"), P()))(a))
    text = jax.jit(sm(lambda a: a + lax.axis_index("x"), P("x"), P("x"))).lower(a).as_text()
    # (JAX prints sdy's short form, manual_axes={"x"}; jxkernel the generic one)
    out["lowered"] = {"x_split_y_open": '[{"x", ?}, {?}]' in text,
                      "manual_computations": text.count("sdy.manual_computation"),
                      **{f"manual_{a}": f'manual_axes={{"{a}"}}' in text or
                         f'manual_axes{{"{a}"}}' in text for a in "xy"}}
    out["spec_names_auto_axis"] = _error(lambda: jax.make_jaxpr(sm(lambda a: a, P("y"),
                                                                   P("y")))(a))
    return out


def _nested(jax, mesh, P):
    """A shard_map manual over 'y' inside one manual over 'x' (the inner takes the outer body's
    mesh). JAX 0.10.2 fails to lower grad of it (its residuals name 'x' again): recorded as
    the error it raises."""
    lax, jnp = jax.lax, jax.numpy
    a = np.arange(32, dtype=np.float32).reshape(8, 4)
    w = np.float32(1.5)
    seen = {}

    def inner_body(b, w):
        seen["inner_in"], seen["inner_w"] = str(jax.typeof(b)), str(jax.typeof(w))
        return lax.psum(b * w, "y") + lax.axis_index("x")

    def outer(a, w):
        r = jax.shard_map(inner_body, in_specs=(P(None, "y"), P()), out_specs=P(),
                          axis_names={"y"})(a, w)
        seen["inner_out"] = str(jax.typeof(r))
        return lax.psum(r, "x")
    sm = lambda f: jax.shard_map(f, mesh=mesh, in_specs=(P("x"), P()), out_specs=P(),  # noqa: E731
                                 axis_names={"x"})
    f = sm(outer)
    grad_inside = sm(lambda a, w: jax.grad(lambda w: jnp.sum(outer(a, w)))(w))
    text = jax.jit(f).lower(a, w).as_text()

    def grad():
        try:
            return [np.asarray(g).tolist() for g in jax.jit(jax.grad(
                lambda a, w: jnp.sum(f(a, w) ** 2), argnums=(0, 1)))(a, w)]
        except Exception as e:          # its class and first line (the rest names files)
            return [type(e).__name__, str(e).split("\n")[0]]
    # one shard_map called first inside a body manual over 'x', then at the top level, where
    # its result varies over 'x' that out_specs leaves out: the top-level call must raise as
    # a first call does, not reuse the trace made inside the body
    inner = jax.shard_map(lambda b: b * (1 + lax.axis_index("x")), in_specs=P("y"),
                          out_specs=P("y"))
    v = np.arange(4, dtype=np.float32)
    reused = []

    def nested_then_top():
        reused.append(np.asarray(jax.jit(jax.shard_map(
            inner, mesh=mesh, in_specs=P(), out_specs=P("x"), axis_names={"x"}))(v)).tolist())
        with jax.set_mesh(mesh):
            reused.append(_error(lambda: inner(v)))
    reused.append(_error(nested_then_top))      # (JAX 0.10.2 raises in the nested call)
    return {"value": np.asarray(jax.jit(f)(a, w)).tolist(),
            "reused": reused,
            "grad_inside": np.asarray(jax.jit(grad_inside)(a, w)).tolist(), "types": seen,
            "lowered": {"manual_computations": text.count("sdy.manual_computation"),
                        "inner_y_split": '[{?}, {"y", ?}]' in text},
            "grad": grad(),
            "same_axis_again": _error(lambda: jax.jit(jax.shard_map(
                lambda a: jax.shard_map(lambda b: b, in_specs=P("x"), out_specs=P("x"))(a),
                mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"}))(a))}


def run(jax):
    Mesh, P = jax.sharding.Mesh, jax.sharding.PartitionSpec
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    return {"types": _types(jax, mesh, P), "jaxprs": _jaxprs(jax, mesh, P),
            "grads": _grads(jax, mesh, P), "values": _values(jax, mesh, P),
            "library_ops": _library_ops(jax, mesh, P),
            "errors": _errors(jax, mesh, P), "partial": _partial(jax, mesh, P),
            "nested": _nested(jax, mesh, P)}
