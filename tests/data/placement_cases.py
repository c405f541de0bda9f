"""Where results land and whether they are committed, on four CPU devices: run by JAX 0.10.2
(reference/make_placement_reference.py records its answers in placement_reference.json) and by
jxkernel (tests/xla/test_dispatch.py, in a process with JXKERNEL_CPU_DEVICES=4).

Each case is a function of a namespace `v` (jax, jnp, the devices d0..d3 and arrays: `u` made
without naming a device, `u1` made so under `default_device(d1)`, `c0`, `c1`, `c2` put on a
device by name; `f(a, b)` and `g(a)` jitted) returning an array or a tuple of them. Its outcome
is [committed, device ids] per array, or the error's class and text."""
import types

import numpy as np

HOST = np.arange(3, dtype=np.float32)


def add(a, b):
    return a + b


def double(a):
    return a * 2


def pair(t):
    return t[0] + t[1]


def on(v, device, fun):
    with v.jax.default_device(device):
        return fun()


CASES = {
    # ---------------------------------------------------------------- made
    "jnp_ones": lambda v: v.jnp.ones(3),
    "jnp_arange": lambda v: v.jnp.arange(3.0),
    "jnp_asarray_numpy": lambda v: v.jnp.asarray(HOST),
    "jnp_array_numpy": lambda v: v.jnp.array(HOST),
    "device_put_numpy": lambda v: v.jax.device_put(HOST),
    "device_put_scalar": lambda v: v.jax.device_put(1.0),
    "device_put_numpy_d0": lambda v: v.jax.device_put(HOST, v.d0),
    "device_put_numpy_d1": lambda v: v.jax.device_put(HOST, v.d1),
    "device_put_numpy_sharding_d1": lambda v: v.jax.device_put(
        HOST, v.jax.sharding.SingleDeviceSharding(v.d1)),
    "device_put_uncommitted": lambda v: v.jax.device_put(v.u),
    "device_put_uncommitted_d0": lambda v: v.jax.device_put(v.u, v.d0),
    "device_put_uncommitted_d1": lambda v: v.jax.device_put(v.u, v.d1),
    "device_put_committed_d1": lambda v: v.jax.device_put(v.c1),
    "device_put_committed_d1_to_d2": lambda v: v.jax.device_put(v.c1, v.d2),
    "uncommitted_d1": lambda v: v.u1,
    "default_device_d1_device_put_numpy": lambda v: on(v, v.d1, lambda: v.jax.device_put(HOST)),
    "asarray_committed_d1": lambda v: v.jnp.asarray(v.c1),
    "array_committed_d1": lambda v: v.jnp.array(v.c1),
    "random_normal": lambda v: v.jax.random.normal(v.jax.random.key(0), (3,)),
    # ---------------------------------------------------------------- eager
    "uncommitted_plus_1": lambda v: v.u + 1,
    "committed_d1_plus_1": lambda v: v.c1 + 1,
    "sin_committed_d1": lambda v: v.jnp.sin(v.c1),
    "committed_d1_plus_uncommitted": lambda v: v.c1 + v.u,
    "uncommitted_plus_committed_d1": lambda v: v.u + v.c1,
    "committed_d0_plus_uncommitted": lambda v: v.c0 + v.u,
    "committed_d1_plus_numpy": lambda v: v.c1 + HOST,
    "uncommitted_d1_plus_1": lambda v: v.u1 + 1,
    "uncommitted_d1_plus_uncommitted": lambda v: v.u1 + v.u,
    "uncommitted_plus_uncommitted_d1": lambda v: v.u + v.u1,
    "uncommitted_d1_plus_committed_d2": lambda v: v.u1 + v.c2,
    "committed_d1_plus_committed_d2": lambda v: v.c1 + v.c2,
    "committed_d0_plus_committed_d1": lambda v: v.c0 + v.c1,
    "sin_of_sin_committed_d1": lambda v: v.jnp.sin(v.jnp.sin(v.c1)),
    "index_committed_d1": lambda v: v.c1[0],
    "sum_committed_d1": lambda v: v.c1.sum(),
    "astype_committed_d1": lambda v: v.c1.astype(v.jnp.int32),
    "zeros_like_committed_d1": lambda v: v.jnp.zeros_like(v.c1),
    "zeros_like_uncommitted": lambda v: v.jnp.zeros_like(v.u),
    "stack_committed_d1_uncommitted": lambda v: v.jnp.stack([v.c1, v.u]),
    # ---------------------------------------------------------------- jit
    "jit_uncommitted": lambda v: v.g(v.u),
    "jit_committed_d1": lambda v: v.g(v.c1),
    "jit_uncommitted_d1": lambda v: v.g(v.u1),
    "jit_numpy": lambda v: v.g(HOST),
    "jit_scalar": lambda v: v.g(1.0),
    "jit_of_jit_committed_d1": lambda v: v.g(v.g(v.c1)),
    "jit_uncommitted_committed_d1": lambda v: v.f(v.u, v.c1),
    "jit_committed_d1_uncommitted": lambda v: v.f(v.c1, v.u),
    "jit_committed_d1_committed_d1": lambda v: v.f(v.c1, v.c1),
    "jit_committed_d1_numpy": lambda v: v.f(v.c1, HOST),
    "jit_scalar_committed_d1": lambda v: v.f(1.0, v.c1),
    "jit_uncommitted_d1_uncommitted": lambda v: v.f(v.u1, v.u),
    "jit_uncommitted_d1_committed_d2": lambda v: v.f(v.u1, v.c2),
    "jit_committed_d1_committed_d2": lambda v: v.f(v.c1, v.c2),
    "jit_committed_d0_committed_d1": lambda v: v.f(v.c0, v.c1),
    "jit_keywords_committed_d1_d2": lambda v: v.f(a=v.c1, b=v.c2),
    "jit_pytree_committed_d1_d2": lambda v: v.jax.jit(pair)((v.c1, v.c2)),
    "lower_compile_uncommitted": lambda v: v.g.lower(v.u).compile()(v.u),
    "lower_compile_committed_d1": lambda v: v.g.lower(v.c1).compile()(v.c1),
    # ---------------------------------------------------------------- a chosen default device
    "default_device_d2_ones": lambda v: on(v, v.d2, lambda: v.jnp.ones(3)),
    "default_device_d2_uncommitted_plus_1": lambda v: on(v, v.d2, lambda: v.u + 1),
    "default_device_d2_committed_d1_plus_1": lambda v: on(v, v.d2, lambda: v.c1 + 1),
    "default_device_d2_committed_d1_plus_uncommitted": lambda v: on(v, v.d2,
                                                                    lambda: v.c1 + v.u),
    "default_device_d2_jit_uncommitted": lambda v: on(v, v.d2, lambda: v.g(v.u)),
    "default_device_d2_jit_committed_d1": lambda v: on(v, v.d2, lambda: v.g(v.c1)),
    # ---------------------------------------------------------------- transformations
    "grad_committed_d1": lambda v: v.jax.grad(lambda a: (a * a).sum())(v.c1),
    "vmap_committed_d1": lambda v: v.jax.vmap(lambda a: a * 2)(v.c1),
    "jvp_committed_d1_tangent_uncommitted": lambda v: v.jax.jvp(v.jnp.sin, (v.c1,), (v.u,)),
}


def outcome(v, case):
    """[[committed, device ids] per result], or "<error class>: <text>"."""
    try:
        result = case(v)
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    leaves = result if isinstance(result, tuple) else (result,)
    return [[bool(x.committed), sorted(d.id for d in x.devices())] for x in leaves]


def namespace(jax):
    jnp = jax.numpy
    d0, d1, d2, d3 = jax.devices()[:4]
    with jax.default_device(d1):
        u1 = jnp.arange(3.0)
    return types.SimpleNamespace(
        jax=jax, jnp=jnp, d0=d0, d1=d1, d2=d2, d3=d3, u=jnp.arange(3.0), u1=u1,
        c0=jax.device_put(HOST, d0), c1=jax.device_put(HOST, d1), c2=jax.device_put(HOST, d2),
        f=jax.jit(add), g=jax.jit(double))


def run(jax) -> dict:
    """{case: outcome}: each case run twice, the second time where a warm cache decides (the
    hot paths), both recorded ("<case>" and "<case>#again")."""
    v = namespace(jax)
    out = {}
    for name, case in CASES.items():
        out[name] = outcome(v, case)
        out[name + "#again"] = outcome(v, case)
    return out
