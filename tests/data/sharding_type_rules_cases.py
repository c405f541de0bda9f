"""The cases that reference/make_sharding_type_rules_reference.py runs on JAX 0.10.2 and
tests/sharding/test_sharding_type_rules.py on jxkernel: the sharding rules of operations on
values typed over Explicit mesh axes (JAX's tests/pjit_test.py reads them) and the
ShardingTypeErrors a learner meets where a rule refuses: the result's type, its values, the
error's class and text. `run(jax)` takes the `jax` module (real or jxkernel, with 8 CPU
devices) and returns JSON data."""


def _answer(fn):
    """[error class, message] or ["ok", value]; a message cut before JAX's note of the user's
    source line (its path differs between runs: recorded_errors.SOURCE_NOTE)."""
    try:
        return ["ok", fn()]
    except Exception as e:      # noqa: BLE001  (the answer is the error)
        return [type(e).__name__, str(e).split(" This error occurs at source:")[0]]


def _mesh(jax, shape, names):
    """A mesh of Explicit axes over the first devices."""
    import math
    AxisType = jax.sharding.AxisType
    return jax.make_mesh(shape, names, axis_types=(AxisType.Explicit,) * len(names),
                         devices=jax.devices()[:math.prod(shape)])


def _typed(jax, outs):
    """Each result's type and values (a list for several)."""
    if isinstance(outs, (list, tuple)):
        return [_typed(jax, o) for o in outs]
    return [str(jax.typeof(outs)), outs.tolist()]


def run(jax) -> dict:
    out = {}
    _split(jax, out)
    _unstack(jax, out)
    _einsum(jax, out)
    _tile(jax, out)
    _custom_vjp_tangent(jax, out)
    return out


def _split(jax, out):
    """lax.split along a split dimension: each piece keeps the operand's sharding where its
    size divides by the axes' count; JAX's ShardingTypeError else."""
    import numpy as np
    P, lax = jax.sharding.PartitionSpec, jax.lax
    mesh = _mesh(jax, (2, 2), ("x", "y"))
    with jax.set_mesh(mesh):
        arr = jax.device_put(np.arange(16.).reshape(8, 2), P("x", "y"))
        for name, sizes, axis in [("even", (4, 4), 0), ("uneven", (2, 6), 0),
                                  ("odd pieces", (3, 5), 0), ("last axis", (1, 1), 1),
                                  ("unsplit axis", (1, 1), 1)]:
            x = arr if name != "unsplit axis" else jax.device_put(arr, P("x", None))
            out[f"split {name}"] = _answer(lambda x=x, sizes=sizes, axis=axis: _typed(
                jax, jax.jit(lambda v: lax.split(v, sizes, axis=axis))(x)))
        out["split grad"] = _answer(lambda: _typed(jax, jax.grad(
            lambda v: (lax.split(v, (4, 4))[0] ** 2).sum())(arr)))


def _unstack(jax, out):
    """jnp.unstack (lax.unstack's primitive, as JAX's): the pieces keep the other dimensions'
    sharding; the unstacked axis split is refused; the scalar's error; the jaxpr."""
    import numpy as np
    P, jnp = jax.sharding.PartitionSpec, jax.numpy
    mesh = _mesh(jax, (2, 2), ("x", "y"))
    with jax.set_mesh(mesh):
        x = jax.device_put(np.arange(8.).reshape(2, 2, 2), P(None, "x", None))
        f = jax.jit(lambda v: jnp.unstack(v, axis=0))
        out["unstack kept"] = _answer(lambda: _typed(jax, f(x)))
        out["unstack split axis"] = _answer(lambda: _typed(jax, f(
            jax.device_put(x, P("x", None, None)))))
        out["unstack grad"] = _answer(lambda: _typed(jax, jax.jit(jax.grad(
            lambda v: sum(y.sum() for y in jnp.unstack(v))))(x)))
    out["unstack scalar"] = _answer(lambda: jnp.unstack(jnp.float32(1)))
    out["unstack jaxpr"] = _answer(lambda: str(jax.make_jaxpr(
        lambda v: jnp.unstack(v, axis=1))(np.ones((2, 3), np.float32))))


def _einsum(jax, out):
    """jnp.einsum's out_sharding= checked as einsum's (JAX's errors name it): an Auto axis,
    inside auto_axes and under a mesh of Auto axes; an Explicit one types the result."""
    import numpy as np
    sh, jnp = jax.sharding, jax.numpy
    P = sh.PartitionSpec
    mesh = _mesh(jax, (4,), ("x",))
    a = np.arange(16.).reshape(8, 2)

    def f(x, y):
        return jnp.einsum("xy,yz->xz", x, y, out_sharding=P("x", None))

    with jax.set_mesh(mesh):
        x = jax.device_put(a, P("x", None))
        y = jax.device_put(a.T, P(None, "x"))
        out["einsum explicit"] = _answer(lambda: _typed(jax, jax.jit(f)(x, y)))
        out["einsum in auto_axes"] = _answer(lambda: _typed(jax, sh.auto_axes(
            f, out_sharding=P())(x, y)))
    auto = jax.make_mesh((4,), ("x",), axis_types=(sh.AxisType.Auto,),
                         devices=jax.devices()[:4])
    with jax.set_mesh(auto):
        out["einsum auto mesh"] = _answer(lambda: _typed(jax, f(a, a.T)))


def _tile(jax, out):
    """jnp.tile of a value split along a dimension tiled once keeps its sharding, and so does
    its gradient (the transpose's reshape typed as JAX's); one tiled along a split dimension
    is refused."""
    import numpy as np
    P, jnp = jax.sharding.PartitionSpec, jax.numpy
    mesh = _mesh(jax, (2, 2), ("x", "y"))
    f = jax.jit(lambda v: jnp.tile(v, (1, 2)))
    with jax.set_mesh(mesh):
        x = jax.device_put(np.arange(8.).reshape(4, 2), P("x", None))
        out["tile kept"] = _answer(lambda: _typed(jax, f(x)))
        out["tile grad"] = _answer(lambda: _typed(jax, jax.jit(jax.grad(
            lambda v: (f(v) * np.arange(4.)).sum()))(x)))
        out["tile split dimension"] = _answer(lambda: _typed(jax, f(
            jax.device_put(x, P("x", "y")))))


def _custom_vjp_tangent(jax, out):
    """A custom_vjp's output cotangent, as its bwd receives it, typed as the output is (its
    linearized equation's results keep the tangents' shardings)."""
    import numpy as np
    P, jnp = jax.sharding.PartitionSpec, jax.numpy
    mesh = _mesh(jax, (2, 2), ("x", "y"))
    seen = {}

    @jax.custom_vjp
    def f(a, b):
        return jnp.einsum("btd,df->btf", a, b)

    def bwd(res, g):
        seen["g"] = str(jax.typeof(g))
        return res

    f.defvjp(lambda a, b: (f(a, b), (a, b)), bwd)
    with jax.set_mesh(mesh):
        a = jax.device_put(np.arange(64.).reshape(8, 4, 2), P("x", "y", None))
        b = jax.device_put(np.arange(12.).reshape(2, 6), P("y", None))
        out["custom_vjp cotangent type"] = _answer(lambda: [
            _typed(jax, jax.jit(jax.grad(lambda a, b: f(a, b).sum()))(a, b)), seen["g"]])
