"""Small learner programs, each run with jax_log_compiles and jax_explain_cache_misses on:
what JAX 0.10.2 logs for each, step by step (reference/make_learner_log_reference.py writes
tests/data/learner_log_reference.json), against what jxkernel logs
(tests/views/test_learner_log.py). The sweep of the workshop's kinds of program: jit, grad
of jit, vmap of jit, eval_shape, .lower/.compile, jnp operations run eagerly, lax.scan /
cond / while_loop inside and outside jit, random, pmap, shard_map, checkpoint, custom_vjp.

Each case defines its own functions (JAX's tracing cache is keyed on the function object)
and calls `step(label)` before each step. The inputs are NumPy arrays (no program made to
put them on a device). pmap and shard_map run over one device (the corpus runs in the
test's process, which has one).
"""
import numpy as np

X3 = np.ones(3, np.float32)
X4 = np.ones(4, np.float32)


def jit_first_call_and_hit(jax, step):
    def f(x):
        return x * 2
    jf = jax.jit(f)
    step("first")
    jf(X3)
    step("hit")
    jf(X3)
    step("new shape")
    jf(X4)


def jit_static_argnames(jax, step):
    def f(x, n):
        return x * n
    jf = jax.jit(f, static_argnames="n")
    step("n=2")
    jf(X3, n=2)
    step("n=3")
    jf(X3, n=3)


def jit_new_dtype(jax, step):
    def f(x):
        return x + 1
    jf = jax.jit(f)
    step("f32")
    jf(X3)
    step("i32")
    jf(np.ones(3, np.int32))


def jit_of_python_scalar(jax, step):
    def f(x):
        return x * 2
    jf = jax.jit(f)
    step("float")
    jf(1.0)
    step("int")
    jf(1)


def jit_nested(jax, step):
    def inner(x):
        return x * 2

    def outer(x):
        return jax.jit(inner)(x) + 1
    step("outer")
    jax.jit(outer)(X3)


def jit_inside_jit_then_called(jax, step):
    def inner(x):
        return x + 1
    ji = jax.jit(inner)
    step("jit(outer) calls it")
    jax.jit(lambda x: ji(x) * 2)(X3)
    step("called itself")
    ji(X3)


def make_jaxpr_of_jit_then_called(jax, step):
    def f(x, n):
        return x * n
    jf = jax.jit(f, static_argnums=1)
    step("make_jaxpr")
    jax.make_jaxpr(jf, static_argnums=1)(X3, 3)
    step("called")
    jf(X3, 3)


def nested_three_deep(jax, step):
    def c(x):
        return x + 1

    def b(x):
        return jax.jit(c)(x) * 2

    def a(x):
        return jax.lax.scan(lambda k, y: (k + jax.jit(b)(y).sum(), y), 0.0, x[None])[0]
    step("jit(a): scan body, jit(b), jit(c)")
    jax.jit(a)(X3)


def jit_raises_after_inner(jax, step):
    def inner(x):
        return x * 2

    def outer(x):
        y = jax.jit(inner)(x)
        if y.sum() > 0:
            return y
        return -y
    step("raises")
    try:
        jax.jit(outer)(X3)
    except Exception:
        pass


def jitted_helper_raises_inside_jit(jax, step):
    def helper(x):
        if x.sum() > 0:
            return x
        return -x

    def step_fn(x):
        return jax.jit(helper)(x) * 2
    for label in ("first", "again (new jit objects)"):
        step(label)
        try:
            jax.jit(step_fn)(X3)
        except Exception:
            pass


def make_jaxpr_of_jit_raises(jax, step):
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    step("make_jaxpr")
    try:
        jax.make_jaxpr(jax.jit(f))(X3)
    except Exception:
        pass


def grad_of_jit(jax, step):
    def loss(x):
        return (x ** 2).sum()
    step("grad")
    jax.grad(jax.jit(loss))(X3)


def jit_of_grad(jax, step):
    def loss(x):
        return (x ** 2).sum()
    step("jit(grad)")
    jax.jit(jax.grad(loss))(X3)


def vmap_of_jit(jax, step):
    def f(x):
        return x * 3
    step("vmap")
    jax.vmap(jax.jit(f))(np.ones((2, 3), np.float32))


def jit_of_vmap(jax, step):
    def f(x):
        return x * 3
    step("jit(vmap)")
    jax.jit(jax.vmap(f))(np.ones((2, 3), np.float32))


def eval_shape_plain(jax, step):
    def f(x):
        return x.sum()
    step("eval_shape")
    jax.eval_shape(f, X3)


def lower_compile(jax, step):
    def f(x):
        return x - 1
    jf = jax.jit(f)
    step("lower")
    lowered = jf.lower(X3)
    step("compile")
    compiled = lowered.compile()
    step("run compiled")
    compiled(X3)


def make_jaxpr_plain(jax, step):
    def f(x):
        return x * 5
    step("make_jaxpr")
    jax.make_jaxpr(f)(X3)
    step("again")
    jax.make_jaxpr(f)(X3)


def make_jaxpr_jit_static_raises(jax, step):
    def g(x, n):
        return x * n
    step("make_jaxpr")
    try:
        jax.make_jaxpr(jax.jit(g, static_argnames="n"))(X3, n=3)
    except ValueError:
        pass


def make_jaxpr_raises(jax, step):
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    step("make_jaxpr")
    try:
        jax.make_jaxpr(f)(X3)
    except Exception:
        pass
    step("again")
    try:
        jax.make_jaxpr(f)(X3)
    except Exception:
        pass


def jnp_eager_ops(jax, step):
    jnp = jax.numpy
    step("sin")
    jnp.sin(X3)
    step("sin again")
    jnp.sin(X3)
    step("add")
    jnp.add(X3, X3)


def scan_in_jit(jax, step):
    def body(c, x):
        return c + x, c

    def f(xs):
        return jax.lax.scan(body, 0.0, xs)
    step("jit(scan)")
    jax.jit(f)(X3)


def scan_eager(jax, step):
    def body(c, x):
        return c + x, c
    step("scan")
    jax.lax.scan(body, 0.0, X3)


def cond_in_jit(jax, step):
    def f(p, x):
        return jax.lax.cond(p, lambda v: v + 1, lambda v: v - 1, x)
    step("jit(cond)")
    jax.jit(f)(True, X3)


def cond_eager(jax, step):
    step("cond")
    jax.lax.cond(True, lambda v: v + 1, lambda v: v - 1, X3)


def while_in_jit(jax, step):
    def f(x):
        return jax.lax.while_loop(lambda v: v.sum() < 10, lambda v: v * 2, x)
    step("jit(while)")
    jax.jit(f)(X3)


def while_eager(jax, step):
    step("while_loop")
    jax.lax.while_loop(lambda v: v < 10, lambda v: v * 2, 1.0)


def random_in_jit(jax, step):
    def f(k):
        return jax.random.normal(k, (3,))
    step("key")
    key = jax.random.key(0)
    step("jit(normal)")
    jax.jit(f)(key)


def pmap_one_device(jax, step):
    def f(x):
        return x * 2
    step("pmap")
    jax.pmap(f)(np.ones((1, 3), np.float32))
    step("pmap again (a new pmap object)")
    jax.pmap(f)(np.ones((1, 3), np.float32))


def _mesh(jax):
    return jax.make_mesh((1,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))


def shard_map_in_jit(jax, step):
    mesh, P = _mesh(jax), jax.sharding.PartitionSpec

    def body(a):
        return a * 2

    def f(x):
        return jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
    step("jit(shard_map)")
    jax.jit(f)(X4)


def shard_map_eager(jax, step):
    mesh, P = _mesh(jax), jax.sharding.PartitionSpec

    def body(a):
        return jax.lax.psum(a.sum(), "i")
    step("shard_map")
    jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P())(X4)


def checkpoint_in_jit(jax, step):
    def f(x):
        return (jax.numpy.sin(x) ** 2).sum()

    def g(x):
        return jax.grad(jax.checkpoint(f))(x)
    step("jit(grad(checkpoint))")
    jax.jit(g)(X3)


def custom_vjp_in_jit(jax, step):
    @jax.custom_vjp
    def f(x):
        return x * 2

    def f_fwd(x):
        return f(x), None

    def f_bwd(_, g):
        return (g * 2,)
    f.defvjp(f_fwd, f_bwd)

    def loss(x):
        return f(x).sum()
    step("jit(grad(custom_vjp))")
    jax.jit(jax.grad(loss))(X3)


def jit_in_a_loop(jax, step):
    step("loop")
    for _ in range(2):
        jax.jit(lambda x: x + 1)(X3)


def clear_cache_then_call(jax, step):
    def f(x):
        return x * 4
    jf = jax.jit(f)
    step("first")
    jf(X3)
    step("after clear_cache")
    jf.clear_cache()
    jf(X3)


CASES = {name: fun for name, fun in list(globals().items())
         if callable(fun) and getattr(fun, "__module__", None) == __name__
         and not name.startswith("_")}


def run(jax, name: str, step) -> None:
    """Case `name`, calling `step(label)` before each of its steps."""
    CASES[name](jax, step)
