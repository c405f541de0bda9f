"""The ways a learner reaches a jaxlib call that crashes the process on a `.delete()`d buffer
(jaxlib 0.10.2: `is_ready()`, `_pjrt_layout`, `clone()`, batched_copy_array_to_devices_with_sharding;
a segmentation fault, not an error), on two CPU devices (a copy to the other one): `run(jax)`
gives, per case, the exception's class name and message (None where it works), as
deleted_arrays_cases.py does. The caller sets `jax_num_cpu_devices` to 2 first. The reference
(deleted_buffer_ways_reference.json) is JAX 0.10.2's, by reference/make_deleted_buffer_ways_reference.py;
JAX's `x.is_ready()` after `x.delete()` crashes, so that case is not here (the test runs ours)."""
import numpy as np

from deleted_arrays_cases import _said


def run(jax):
    jnp = jax.numpy
    d0, d1 = jax.devices()[:2]

    def gone(how, x=None):
        x = jnp.arange(3.0) if x is None else x
        if how == "delete":
            x.delete()
        else:
            jax.jit(lambda a: a * 2, donate_argnums=0)(x)
        return x

    def over_a_gone_one(how):
        """An Array made from one-device Arrays, one of which is gone since."""
        x = jnp.arange(3.0)
        made = jax.make_array_from_single_device_arrays(
            (3,), jax.sharding.SingleDeviceSharding(d0), [x])
        gone(how, x)
        return made

    def on_a_mesh(how):
        mesh = jax.make_mesh((2,), ("x",))
        spec = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))
        return gone(how, jax.device_put(jnp.arange(4.0), spec))

    out = {}
    for how in ("delete", "donate"):
        ways = {
            "format_layout": lambda: gone(how).format.layout,
            "put_to_another_device": lambda: jax.device_put(gone(how), d1),
            "put_to_another_sharding": lambda: jax.device_put(
                gone(how), jax.sharding.SingleDeviceSharding(d1)),
            "copy_method": lambda: gone(how).copy(),
            "copy_to_host_async": lambda: gone(how).copy_to_host_async(),
            "from_dlpack": lambda: np.from_dlpack(gone(how)),
            "made_over_it/is_deleted": lambda: None if over_a_gone_one(how).is_deleted() else 1,
            "made_over_it/is_ready": lambda: over_a_gone_one(how).is_ready(),
            "made_over_it/format_layout": lambda: over_a_gone_one(how).format.layout,
            "made_over_it/put_to_another_device": lambda: jax.device_put(over_a_gone_one(how), d1),
            "made_over_it/np_asarray": lambda: np.asarray(over_a_gone_one(how)),
            "on_a_mesh/format_layout": lambda: on_a_mesh(how).format.layout,
            "on_a_mesh/put_to_one_device": lambda: jax.device_put(on_a_mesh(how), d0),
            "on_a_mesh/np_asarray": lambda: np.asarray(on_a_mesh(how)),
            "live_arrays_leave_it_out": lambda: [a for a in jax.live_arrays()
                                                 if a is gone(how)] or None,
        }
        if how == "donate":         # (after .delete(), JAX's is_ready crashes the process)
            ways["is_ready"] = lambda: gone(how).is_ready()
            ways["on_a_mesh/is_ready"] = lambda: on_a_mesh(how).is_ready()
        for name, fn in ways.items():
            out[f"{how}/{name}"] = _said(fn)
    return out
