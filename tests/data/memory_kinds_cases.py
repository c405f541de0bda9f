"""Memory kinds on one CPU device (JAX's host offloading), run alike by JAX 0.10.2
(reference/make_memory_kinds_reference.py, into memory_kinds_reference.json) and by jxkernel
(tests/sharding/test_memory_kinds.py).

`run(jax)`: name -> a text (a repr, a type, a jaxpr or a lowered module), a list of texts, or
[exception class, message]; under "lowered", `lowered(jax)`: the lowered modules' texts.
"""
import importlib

import numpy as np


def _setup(jax):
    Mesh, NamedSharding, P = jax.sharding.Mesh, jax.sharding.NamedSharding, jax.P
    mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("x", "y"))
    s_dev = NamedSharding(mesh, P("x"), memory_kind="device")
    s_host = s_dev.with_memory_kind("pinned_host")
    x = jax.numpy.arange(4.0)
    return mesh, s_dev, s_host, x, jax.device_put(x, s_host), jax.device_put(x, s_dev)


def _case(out, name, thunk):
    try:
        out[name] = thunk()
    except Exception as e:              # (what each raises is what is compared)
        out[name] = [type(e).__name__, str(e)]


def _placed(jax, a):
    return [repr(a.sharding), a.sharding.memory_kind, str(jax.typeof(a)), repr(np.asarray(a))]


def run(jax) -> dict:
    NamedSharding, P = jax.sharding.NamedSharding, jax.P
    SingleDeviceSharding = jax.sharding.SingleDeviceSharding
    jnp, dev = jax.numpy, jax.devices()[0]
    mesh, s_dev, s_host, x, host, on_dev = _setup(jax)
    out = {}
    _case(out, "memory_kinds", lambda: [m.kind for m in dev.addressable_memories()])
    _case(out, "default_memory", lambda: dev.default_memory().kind)
    _case(out, "spaces", lambda: repr(list(jax.memory.Space)))
    for kind in ("device", "pinned_host", "unpinned_host"):
        _case(out, f"put_single_{kind}",
              lambda: _placed(jax, jax.device_put(x, SingleDeviceSharding(dev, memory_kind=kind))))
        _case(out, f"put_named_{kind}",
              lambda: _placed(jax, jax.device_put(x, NamedSharding(mesh, P(), memory_kind=kind))))
    _case(out, "put_bogus", lambda: repr(SingleDeviceSharding(dev, memory_kind="bogus")))
    _case(out, "put_space_host", lambda: _placed(jax, jax.device_put(x, jax.memory.Space.Host)))
    _case(out, "put_space_device", lambda: _placed(
        jax, jax.device_put(jax.device_put(x, jax.memory.Space.Host), jax.memory.Space.Device)))
    _case(out, "host_back_to_device", lambda: _placed(jax, jax.device_put(host, s_dev)))
    _case(out, "put_numpy_to_host", lambda: _placed(jax, jax.device_put(np.ones(2), s_host)))
    _case(out, "put_tree_to_host", lambda: [a.sharding.memory_kind for a in
                                            jax.device_put([x, x], s_host)])
    _case(out, "typeof_repr_host", lambda: repr(jax.typeof(host)))
    _case(out, "host_plus_device", lambda: host + on_dev)
    _case(out, "host_plus_scalar", lambda: _placed(jax, host + 1))
    _case(out, "host_times_host", lambda: _placed(jax, host * host))
    _case(out, "jit_host_plus_device", lambda: jax.jit(lambda a, b: a + b)(host, on_dev))
    _case(out, "jit_identity_host", lambda: _placed(jax, jax.jit(lambda a: a)(host)))
    _case(out, "jit_double_host", lambda: _placed(jax, jax.jit(lambda a: a * 2)(host)))
    _case(out, "jit_out_device", lambda: _placed(
        jax, jax.jit(lambda a: a, out_shardings=s_dev)(host)))
    _case(out, "jit_out_host", lambda: _placed(
        jax, jax.jit(lambda a: a * 2, out_shardings=s_host)(on_dev)))
    _case(out, "jit_in_shardings_host", lambda: jax.jit(lambda a: a, in_shardings=s_host)(on_dev))
    # a jit pinned to one device (SingleDeviceShardings), its results asked in host memory
    # (the host-offloading page's optimizer state): placed there, typed as device arrays
    single_host = SingleDeviceSharding(dev, memory_kind="pinned_host")
    _case(out, "jit_out_single_host", lambda: _placed(
        jax, jax.jit(lambda a: a * 2, out_shardings=single_host)(x)))
    _case(out, "jit_out_single_host_tree", lambda: [a.sharding.memory_kind for a in jax.jit(
        lambda a: (a, a + 1), out_shardings=(single_host, SingleDeviceSharding(dev)))(x)])
    _case(out, "jit_in_single_host_out_device", lambda: _placed(jax, jax.jit(
        lambda a: a + 1, in_shardings=single_host,
        out_shardings=SingleDeviceSharding(dev, memory_kind="device"))(
            jax.device_put(x, single_host))))

    def to_device_add(a):
        return jax.device_put(a, s_dev) + 1
    _case(out, "jit_put_to_device", lambda: _placed(
        jax, jax.jit(to_device_add, out_shardings=s_dev)(host)))
    _case(out, "jaxpr_put_to_device", lambda: str(jax.make_jaxpr(to_device_add)(host)))
    _case(out, "jaxpr_put_to_host", lambda: str(jax.make_jaxpr(
        lambda a: jax.device_put(a, s_host))(on_dev)))
    _case(out, "jaxpr_put_to_space_host", lambda: str(jax.make_jaxpr(
        lambda a: jax.device_put(a, jax.memory.Space.Host) * 1)(on_dev)))
    grad = jax.grad(lambda a: jnp.sum(jax.device_put(a, s_dev) ** 2))
    _case(out, "grad_of_host", lambda: _placed(jax, grad(host)))
    _case(out, "jaxpr_grad_of_host", lambda: str(jax.make_jaxpr(grad)(host)))
    whole = NamedSharding(mesh, P(), memory_kind="device")
    _case(out, "scan_grad_of_host_xs", lambda: _placed(jax, jax.grad(lambda w: jnp.sum(
        jax.lax.scan(lambda c, wi: (c * jax.device_put(wi, whole), None), 1.0, w)[0]))(
        jax.device_put(jnp.arange(1.0, 5.0), s_host))))
    _case(out, "offload_policy_grad", lambda: _offloaded_grad(jax, s_dev, s_host))
    # a one-device program's host-typed results are placed in host memory, as typed
    space_host = jax.device_put(x, jax.memory.Space.Host)
    _case(out, "jit_double_space_host", lambda: _placed(jax, jax.jit(lambda a: a * 2)(space_host)))
    _case(out, "single_host_plus_scalar", lambda: _placed(jax, jax.device_put(
        x, single_host) + 1.0))
    _case(out, "jit_put_to_space_host", lambda: _placed(jax, jax.jit(
        lambda a: jax.device_put(a * 2, jax.memory.Space.Host))(x)))
    # a device argument's sharding is not a host result's: named from its layout (P())
    _case(out, "jit_put_to_space_host_of_mesh", lambda: _placed(jax, jax.jit(
        lambda a: jax.device_put(a * 2, jax.memory.Space.Host))(on_dev)))
    _case(out, "jit_put_to_space_host_of_host", lambda: _placed(jax, jax.jit(
        lambda a: jax.device_put(a * 2, jax.memory.Space.Host))(host)))
    _case(out, "put_space_host_of_mesh", lambda: _placed(
        jax, jax.device_put(on_dev, jax.memory.Space.Host)))
    with jax.set_mesh(mesh):
        _case(out, "put_space_host_on_context_mesh", lambda: _placed(
            jax, jax.device_put(x, jax.memory.Space.Host)))
        _case(out, "put_space_device_on_context_mesh", lambda: _placed(
            jax, jax.device_put(x, jax.memory.Space.Device)))
    # a scalar put in host memory; its rank error names the sharding asked
    for kind in ("pinned_host", "unpinned_host"):
        _case(out, f"put_scalar_single_{kind}", lambda: _placed(
            jax, jax.device_put(1.0, SingleDeviceSharding(dev, memory_kind=kind))))
        _case(out, f"put_scalar_named_{kind}", lambda: _placed(
            jax, jax.device_put(1.0, NamedSharding(mesh, P(), memory_kind=kind))))
        _case(out, f"put_scalar_named_split_{kind}", lambda: _placed(
            jax, jax.device_put(1.0, NamedSharding(mesh, P("x"), memory_kind=kind))))
    out["lowered"] = lowered(jax)
    return out


def _offloaded_grad(jax, s_dev, s_host):
    """The host-offloading page's hybrid layer, small: weights in host memory moved to the
    device in the body, activations named "x" offloaded by the remat policy."""
    jnp = jax.numpy
    checkpoint_name = importlib.import_module(f"{jax.__name__}.ad_checkpoint").checkpoint_name
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["x"],
        offload_src="device", offload_dst="pinned_host")

    def layer(x, w):
        w1, w2 = jax.tree.map(lambda v: jax.device_put(v, s_dev), w)
        x = checkpoint_name(x, "x")
        return (x @ w1) @ w2, None

    def scanned(w, x):
        return jnp.sum(jax.lax.scan(jax.remat(layer, policy=policy, prevent_cse=False), x,
                                    w)[0])
    w = (jax.device_put(jnp.full((3, 4, 8), 0.5), s_host),
         jax.device_put(jnp.full((3, 8, 4), 0.25), s_host))
    g = jax.jit(jax.grad(scanned))(w, jnp.ones((4, 4)))
    return [_placed(jax, a) for a in g]


def lowered(jax) -> dict:
    mesh, s_dev, s_host, x, host, on_dev = _setup(jax)
    out = {}
    _case(out, "lower_default", lambda: jax.jit(lambda a: a * 2).lower(on_dev).as_text())
    _case(out, "lower_host_argument", lambda: jax.jit(
        lambda a: jax.device_put(a, s_dev) + 1).lower(host).as_text())
    _case(out, "lower_out_host", lambda: jax.jit(
        lambda a: a * 2, out_shardings=s_host).lower(on_dev).as_text())
    _case(out, "lower_put_to_host", lambda: jax.jit(
        lambda a: jax.device_put(a * 2, s_host)).lower(on_dev).as_text())
    single_host = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
    _case(out, "lower_out_single_host", lambda: jax.jit(
        lambda a: a * 2, out_shardings=single_host).lower(x).as_text())
    _case(out, "lower_put_to_space_host", lambda: jax.jit(
        lambda a: jax.device_put(a * 2, jax.memory.Space.Host)).lower(on_dev).as_text())
    # an uncommitted argument is given no memory kind, donated or not; a committed one 'device'
    add_on_device = jax.jit(lambda a, b: jax.device_put(a, s_dev) + b)
    _case(out, "lower_uncommitted_beside_host", lambda: add_on_device.lower(
        host, jax.numpy.ones(4)).as_text())
    _case(out, "lower_uncommitted_out_host", lambda: jax.jit(
        lambda a: a * 2, out_shardings=s_host).lower(x).as_text())
    _case(out, "lower_donated_uncommitted_put_to_space_host", lambda: jax.jit(
        lambda a: jax.device_put(a * 2, jax.memory.Space.Host), donate_argnums=0).lower(
            jax.numpy.ones(4)).as_text())
    _case(out, "lower_in_single_host_out_single", lambda: jax.jit(
        lambda a: a + 1, out_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[0])).lower(
            jax.device_put(x, single_host)).as_text())
    _case(out, "lower_committed_put_to_space_host", lambda: jax.jit(
        lambda a: jax.device_put(a * 2, jax.memory.Space.Host)).lower(
            jax.device_put(x, jax.devices()[0])).as_text())
    return out
