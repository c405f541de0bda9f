"""Cases for the names JAX 0.10.2 has that jxkernel lacked until they were added together:
lax's total-order comparisons (eq_to, le_to, lt_to), device_put_p, lax.linalg.qdwh,
lax.scaled_dot, tokens (create_token, after_all), the collectives JAX runs only on GPUs
(ragged_all_to_all, psend, precv), jax.ad with vjp's with_refs, and the config context
managers array_garbage_collection_guard and remove_size_one_mesh_axis_from_type.

Shared by reference/make_missing_names_reference.py (real JAX) and
tests/jax_compat/test_missing_names.py (jxkernel). `run(jax)` runs the one-device cases,
`run_mesh(jax)` those over a mesh of 4 CPU devices (a fresh process each side). Values are
JSON data: text, ints and booleans compare exactly; lists of floats under a key ending in
"_values" compare in ulps (`ULPS`); errors are [class name, first line of the message].
"""
import numpy as np
from recorded_errors import error_of  # tests/data

# ulps at the scale of 1 (QDWH's u has orthonormal columns, h the input's scale; every step is
# a QR or Cholesky of LAPACK's, whose blocked order may differ by CPU): LAPACK's bound
ULPS = {"qdwh": 64, "scaled_dot": 0}


def _error(fn) -> list | None:
    """[exception class, first line of its message] of `fn()`, or None if it returns."""
    return error_of(fn, "\n")


def _runtime_error(jax, fn) -> list | None:
    """[is it a jax.errors.JaxRuntimeError, XLA's message (from its status code on)] of `fn()`:
    jxkernel's CompileError is one, its message prefixed with what failed."""
    try:
        fn()
    except Exception as e:      # noqa: BLE001 (the class is what is recorded)
        text = str(e).splitlines()[0]
        return [isinstance(e, jax.errors.JaxRuntimeError), text[text.find("UNIMPLEMENTED"):]]
    return None


def _ints(x) -> list:
    return np.asarray(x).astype(np.int64).ravel().tolist()


def _floats(x) -> list:
    return np.asarray(np.asarray(x).astype(np.complex128 if np.iscomplexobj(x) else np.float64)
                      ).view(np.float64).ravel().tolist()


# ------------------------------------------------------------------ total-order comparisons
_EDGES = np.float32([np.nan, -np.nan, -np.inf, -1.0, -0.0, 0.0, 1e-45, 1.0, np.inf])


def comparisons(jax):
    lax = jax.lax
    out = {}
    for prim in (lax.eq_to_p, lax.le_to_p, lax.lt_to_p):
        out[prim.name] = _ints(prim.bind(_EDGES[None, :], _EDGES[:, None]))
        out[prim.name + "_f16"] = _ints(prim.bind(_EDGES.astype(np.float16)[None, :],
                                                  _EDGES.astype(np.float16)[:, None]))
        out[prim.name + "_int"] = _ints(prim.bind(np.int32([-3, 0, 5])[None, :],
                                                  np.int32([-3, 0, 5])[:, None]))
        out[prim.name + "_jit"] = _ints(jax.jit(prim.bind)(_EDGES, _EDGES[::-1]))
    out["jaxpr"] = str(jax.make_jaxpr(lambda a, b: lax.lt_to_p.bind(a, b))(1.0, 2.0))
    out["mixed_dtypes"] = _error(lambda: lax.lt_to_p.bind(np.float32(1), np.int32(1)))
    out["complex_lt_to"] = _error(lambda: lax.lt_to_p.bind(np.complex64(1), np.complex64(1)))
    out["tip_div"] = _error(lambda: lax.div(np.float32(1), np.int32(1)))
    out["vmap"] = _ints(jax.vmap(lax.lt_to_p.bind)(_EDGES, _EDGES[::-1]))
    return out


# ------------------------------------------------------------------ device_put_p
def device_put(jax):
    dev = jax.devices()[0]
    put = lambda x: jax.device_put(x, dev) * 2
    return {
        "jaxpr": str(jax.make_jaxpr(put)(1.0)),
        "jaxpr_tree": str(jax.make_jaxpr(lambda x, y: jax.device_put((x, y), dev))(1.0, 2)),
        "jaxpr_copy": str(jax.make_jaxpr(lambda x: jax.device_put(x, may_alias=False))(1.0)),
        "both_flags": _error(lambda: jax.device_put(1.0, may_alias=True, donate=True)),
        "grad_jaxpr": str(jax.make_jaxpr(jax.grad(put))(1.0)),
        "grad": float(jax.grad(put)(1.0)),
        "vmap_jaxpr": str(jax.make_jaxpr(jax.vmap(put))(np.ones(3, np.float32))),
        "jit_values": _floats(jax.jit(put)(np.arange(3, dtype=np.float32))),
        "prim": jax.lax.device_put_p.name,
    }


# ------------------------------------------------------------------ qdwh
def _qdwh_inputs():
    rng = np.random.RandomState(5)
    tall = rng.randn(6, 4).astype(np.float32)
    square = rng.randn(5, 5).astype(np.float32) @ np.diag([1, 1e-2, 1e-3, 3, 10]).astype(np.float32)
    cplx = (rng.randn(4, 3) + 1j * rng.randn(4, 3)).astype(np.complex64)
    padded = np.zeros((7, 5), np.float32)
    padded[:6, :4] = tall
    return {"tall": (tall, {}), "square": (square, {}), "complex": (cplx, {}),
            "padded": (padded, {"dynamic_shape": (6, 4)}),
            "two_iterations": (square, {"max_iterations": 2}),
            "diag": (np.diag(np.float32([2, 3])), {})}


def qdwh(jax):
    out = {}
    for name, (x, kwargs) in _qdwh_inputs().items():
        u, h, num_iters, ok = jax.lax.linalg.qdwh(x, **kwargs)
        out[name] = {"u_values": _floats(u), "h_values": _floats(h),
                     "num_iters": int(num_iters), "is_converged": bool(ok),
                     "dtypes": [str(np.dtype(a.dtype)) for a in (u, h, num_iters, ok)]}
    out["wide"] = _error(lambda: jax.lax.linalg.qdwh(np.ones((2, 3), np.float32)))
    out["jit_values"] = _floats(jax.jit(lambda x: jax.lax.linalg.qdwh(x)[0])(
        _qdwh_inputs()["tall"][0]))
    return out


# ------------------------------------------------------------------ scaled_dot
def scaled_dot(jax):
    jnp, lax = jax.numpy, jax.lax
    rng = np.random.RandomState(3)
    a = jnp.asarray(rng.randn(4, 64).astype(np.float32)).astype(jnp.float8_e4m3fn)
    b = jnp.asarray(rng.randn(64, 3).astype(np.float32)).astype(jnp.float8_e4m3fn)
    sa = jnp.asarray(2.0 ** rng.randint(-3, 4, (4, 2)).astype(np.float32)).astype(jnp.float8_e8m0fnu)
    sb = jnp.asarray(2.0 ** rng.randint(-3, 4, (2, 3)).astype(np.float32)).astype(jnp.float8_e8m0fnu)
    batched = (jnp.stack([a, a[::-1]]), jnp.stack([b, b]))
    f = lambda a, b, sa, sb: lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb,
                                            preferred_element_type=jnp.float32)
    lowered = jax.jit(f).lower(a, b, sa, sb).as_text()
    r = lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb)
    return {
        "default_values": _floats(r.astype(np.float32)), "default_dtype": str(r.dtype),
        "f32_values": _floats(f(a, b, sa, sb)),
        "no_scales_values": _floats(lax.scaled_dot(a, b, preferred_element_type=jnp.float32)),
        "batched_values": _floats(lax.scaled_dot(*batched, preferred_element_type=jnp.float32)),
        "vmap_values": _floats(jax.vmap(lambda a: lax.scaled_dot(
            a, b, preferred_element_type=jnp.float32))(batched[0])),
        "jaxpr": str(jax.make_jaxpr(f)(a, b, sa, sb)),
        "composite": [line.strip().split(" : ")[0] for line in lowered.splitlines()
                      if "stablehlo.composite" in line],
        "rank_1": _error(lambda: lax.scaled_dot(a[0], b[:, 0])),
        "rank_mismatch": _error(lambda: lax.scaled_dot(a, b, lhs_scale=sa[None])),
        "ratio": _error(lambda: lax.scaled_dot(a, b, lhs_scale=jnp.ones((4, 64), jnp.float8_e8m0fnu))),
        "divisible": _error(lambda: lax.scaled_dot(a, b, lhs_scale=jnp.ones((4, 3), jnp.float8_e8m0fnu))),
        "non_contracting": _error(lambda: lax.scaled_dot(a, b, lhs_scale=jnp.ones((3, 2), jnp.float8_e8m0fnu))),
        "contracting": _error(lambda: lax.scaled_dot(a, b[:32])),
        "grad": _error(lambda: jax.grad(lambda x: lax.scaled_dot(
            x, b.astype(np.float32), preferred_element_type=jnp.float32).sum())(a.astype(np.float32))),
    }


# ------------------------------------------------------------------ tokens
def tokens(jax):
    lax = jax.lax
    t = lax.create_token()
    f = jax.jit(lambda: lax.create_token())
    two = jax.jit(lambda t: lax.after_all(t, t))
    lowered = jax.jit(lambda: lax.after_all(lax.create_token(), lax.create_token())).lower()
    return {
        "type": type(t).__name__, "typeof": repr(jax.typeof(t)),
        "jaxpr": str(jax.make_jaxpr(lambda x: lax.after_all(lax.create_token(x),
                                                            lax.create_token()))(1.0)),
        "jit_result": [type(f()).__name__, type(f()).__name__],
        "jit_argument": [type(two(t)).__name__, type(two(two(t))).__name__],
        "after_all_none": type(lax.after_all()).__name__,
        "eager_after_all": type(lax.after_all(t, lax.create_token())).__name__,
        "lowered": [line.strip().split(" loc(")[0] for line in lowered.as_text().splitlines()
                    if "token" in line and "func.func" not in line],
        "not_tokens": _error(lambda: lax.after_all(1.0)),
        "vmap": _error(lambda: jax.vmap(lambda x: lax.create_token())(np.ones(3))),
        "grad": float(jax.grad(lambda x: (lax.create_token(), x * 3)[1])(1.0)),
    }


# ------------------------------------------------------------------ collectives, one device
_PERM = [(0, 1), (1, 0)]


def collectives(jax):
    lax, jnp = jax.lax, jax.numpy
    out_shape = jax.ShapeDtypeStruct((), jnp.float32)
    sizes = [jnp.zeros(4, jnp.int32)] * 4
    rata = lambda *a: lax.ragged_all_to_all(*a, axis_name="i")
    return {
        "ragged_eager": _error(lambda: rata(jnp.ones(4), jnp.zeros(4), *sizes)),
        "ragged_vmap": _error(lambda: jax.vmap(rata, axis_name="i")(
            jnp.ones((2, 4)), jnp.zeros((2, 4)), *[jnp.zeros((2, 4), jnp.int32)] * 4)),
        "psend_eager": _error(lambda: lax.psend(1.0, "i", _PERM)),
        "psend_jaxpr": _error(lambda: jax.make_jaxpr(lambda x: lax.psend(x, "i", _PERM))(1.0)),
        "psend_vmap_values": _floats(jax.vmap(lambda x: lax.psend(x, "i", _PERM), axis_name="i")(
            jnp.arange(2.0))),
        "psend_grad": _error(lambda: jax.grad(lambda x: lax.psend(x, "i", _PERM))(1.0)),
        "precv_jaxpr": str(jax.make_jaxpr(lambda x: lax.precv(lax.create_token(), out_shape, "i",
                                                              _PERM))(1.0)),
        "precv_eager": _error(lambda: lax.precv(lax.create_token(), out_shape, "i", _PERM)),
        "precv_vmap": _error(lambda: jax.vmap(lambda x: lax.precv(
            lax.create_token(), out_shape, "i", _PERM), axis_name="i")(jnp.arange(2.0))),
    }


# ------------------------------------------------------------------ jax.ad, config options
def ad(jax):
    f = lambda x, y: (jax.numpy.sin(x) * y, x)
    _, f_vjp = jax.vjp(f, 1.0, 2.0)
    ref = jax.new_ref(0.5)
    into_ref = f_vjp.with_refs(ref, jax.ad.GradValue())((1.0, 1.0))
    declined = f_vjp.with_refs(jax.ad.GradValue(), jax.ad.DontWant())((1.0, 1.0))
    return {
        "names": sorted(n for n in vars(jax.ad) if not n.startswith("_")),
        "reprs": [repr(c()) for c in (jax.ad.DontWant, jax.ad.DidntWant, jax.ad.GradRef,
                                      jax.ad.GradValue)],
        "leaves": [len(jax.tree_util.tree_leaves(c())) for c in (
            jax.ad.DontWant, jax.ad.DidntWant, jax.ad.GradRef, jax.ad.GradValue)],
        "into_ref": [repr(into_ref[0]), float(into_ref[1]), float(ref[...])],
        "declined": [float(declined[0]), repr(declined[1])],
        "plain": [float(v) for v in f_vjp.with_refs()((1.0, 1.0))],
        "declined_staged": _declined_staged(jax),
    }


def _declined_staged(jax):
    """What a jit of a pullback computes for cotangents it is told are not wanted: a
    bilinear equation's transpose into such an input is not staged (JAX's NullAccum); other
    equations are, and nothing is made for the unwanted cotangent itself."""
    jnp, want, dont = jax.numpy, jax.ad.GradValue(), jax.ad.DontWant()
    x = y = jnp.arange(3.0)
    out = []
    for f in (lambda x, y: x * y, lambda x, y: jnp.sin(x) * y + jnp.dot(x, y) - (-x)):
        z, f_vjp = jax.vjp(f, x, y)
        for refs in ((dont, want), (want, dont), (dont, dont)):
            g = jax.jit(lambda: f_vjp.with_refs(*refs)(jnp.ones_like(z)))
            out.append([repr(g()), str(g.trace().jaxpr)])
    return out


def config_options(jax):
    gc_guard, size_one = jax.array_garbage_collection_guard, jax.remove_size_one_mesh_axis_from_type
    out = {"gc_bad": _error(lambda: gc_guard("bad").__enter__()),
           "gc_no_argument": _error(lambda: gc_guard()),
           "gc_default": jax.config.jax_array_garbage_collection_guard,
           "size_one_default": jax.config.jax_remove_size_one_mesh_axis_from_type}
    with gc_guard("log"):
        out["gc_inside"] = jax.config.jax_array_garbage_collection_guard
    with size_one(True):
        out["size_one_inside"] = jax.config.jax_remove_size_one_mesh_axis_from_type
    return out


def run(jax):
    return {"comparisons": comparisons(jax), "device_put": device_put(jax), "qdwh": qdwh(jax),
            "scaled_dot": scaled_dot(jax), "tokens": tokens(jax),
            "collectives": collectives(jax), "ad": ad(jax), "config": config_options(jax)}


# ------------------------------------------------------------------ over a mesh of 4 devices
def run_mesh(jax):
    lax, jnp, P = jax.lax, jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    ring = [(0, 1), (1, 2), (2, 3), (3, 0)]

    def send_recv(x):
        return lax.precv(lax.psend(x, "x", ring), jax.ShapeDtypeStruct((4,), jnp.float32), "x", ring)
    sm = jax.shard_map(send_recv, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    ints = [jnp.tile(jnp.arange(4, dtype=jnp.int32), 4), jnp.ones(16, jnp.int32)] * 2
    args = (jnp.arange(16.0, dtype=jnp.float32), jnp.zeros(16, jnp.float32), *ints)
    ragged = jax.shard_map(lambda *a: lax.ragged_all_to_all(*a, axis_name="x"), mesh=mesh,
                           in_specs=P("x"), out_specs=P("x"))
    lowered = jax.jit(ragged).lower(*args).as_text()
    bad = (*args[:2], args[2].astype(jnp.float32), *args[3:])
    out = {"send_recv_jaxpr": str(jax.make_jaxpr(sm)(args[0])),
           "send_recv_run": _error(lambda: jax.jit(sm)(args[0])),
           "ragged_jaxpr": str(jax.make_jaxpr(ragged)(*args)),
           "ragged_custom_call": [line.strip().split(" : (")[0] for line in lowered.splitlines()
                                  if "ragged_all_to_all" in line],
           "ragged_run": _runtime_error(jax, lambda: jax.jit(ragged)(*args)),
           "ragged_float_offsets": _error(lambda: jax.make_jaxpr(ragged)(*bad)),
           "ragged_rank": _error(lambda: jax.make_jaxpr(ragged)(
               *args[:2], jnp.zeros((16, 1), jnp.int32), *args[3:]))}
    explicit = jax.make_mesh((1, 4), ("a", "b"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    x = jax.device_put(np.ones((4, 8), np.float32),
                       jax.sharding.NamedSharding(explicit, P("a", "b")))
    with jax.set_mesh(explicit):
        out["size_one_off"] = str(jax.typeof(jax.jit(lambda v: v * 2)(x)))
        with jax.remove_size_one_mesh_axis_from_type(True):
            y = jax.jit(lambda v: v * 2)(x)
            z = jax.device_put(np.ones((4, 8), np.float32),
                               jax.sharding.NamedSharding(explicit, P(("a", "b"), None)))
            # (types only: the concrete spec of y, P(None, 'b') in JAX, is jxkernel's
            # P('a', 'b'), the same layout over a size-1 axis named after the argument's)
            out["size_one_on"] = [str(jax.typeof(y)), str(jax.typeof(z)), str(jax.typeof(x))]
    out.update(_device_put_traced_on_a_mesh(jax))
    return out


def _device_put_traced_on_a_mesh(jax):
    """jax.device_put of a traced value under set_mesh (Explicit axes): a PartitionSpec made a
    NamedSharding over the mesh, the result typed so under jit and in a scan body, grad's
    cotangent moved back untyped, and vmap's batched value checked against the spec."""
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))

    def body(c, x):
        y = jax.device_put(x, P("x"))
        return c + y.sum(), y

    def typed(fn):
        try:
            return str(jax.typeof(fn()))
        except Exception as e:  # noqa: BLE001  the error is the answer
            return [type(e).__name__, str(e)]
    with jax.set_mesh(mesh):
        named = jax.sharding.NamedSharding(mesh, P("x"))
        return {"device_put_traced": {
            "jit_spec": typed(lambda: jax.jit(lambda x: jax.device_put(x, P("x")))(jnp.ones(8))),
            "jit_named": typed(lambda: jax.jit(lambda x: jax.device_put(x, named))(jnp.ones(8))),
            "grad": typed(lambda: jax.grad(lambda x: jax.device_put(x, P("x")).sum())(
                jnp.ones(8))),
            "vmap": typed(lambda: jax.vmap(lambda x: jax.device_put(x, P("x")))(
                jnp.ones((2, 8)))),
            "scan": typed(lambda: jax.lax.scan(body, 0.0, jnp.ones((2, 8)))[1]),
            "jit_scan": typed(lambda: jax.jit(lambda xs: jax.lax.scan(body, 0.0, xs))(
                jnp.ones((2, 8)))[1]),
            "jit_device": typed(lambda: jax.jit(lambda x: jax.device_put(
                x, jax.devices()[1]))(jnp.ones(8)))}}


def gc_guard_program(package: str) -> str:
    """A program that frees an Array through the cycle collector under the 'log' guard."""
    return f"""
import gc, {package} as jax
class Holder: pass
with jax.array_garbage_collection_guard("log"):
    h = Holder(); h.me = h; h.x = jax.numpy.ones(3) + 1
    del h; gc.collect()
print("done")
"""
