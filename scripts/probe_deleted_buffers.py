"""Which jaxlib buffer calls crash the process on a deleted buffer: each call in its own child
process (a crash there is a return code, -11 for a segmentation fault, not the end of the probe),
on the jaxlib buffer of an Array given to `.delete()`, of one donated to a jit, and of a jaxlib
ArrayImpl made over the shards of one deleted since. Run it again after a jaxlib upgrade:

    PYTHONPATH=$PWD .venv/bin/python scripts/probe_deleted_buffers.py [CALL ...]

jaxlib 0.10.2 crashes on `_pjrt_layout`, `is_ready()`, `clone()` and
`batched_copy_array_to_devices_with_sharding` of a `.delete()`d buffer (a donated one raises);
jxkernel asks `is_deleted()` first (docs/contributing.md, "When a worker crashes")."""
import subprocess
import sys

SETUP = r'''
import numpy as np, jxkernel as jax, jxkernel.numpy as jnp
from jxkernel.xla.client import xc
x, live = jnp.arange(3.0), jnp.arange(3.0)
if KIND == "delete":
    x.delete(); b = x._buf.deleted_buf
elif KIND == "donate":
    jax.jit(lambda a: a * 2, donate_argnums=0)(x); b = x._buf.deleted_buf
else:
    raw = x._buf
    b = xc.ArrayImpl(raw.aval, raw._sharding, raw._arrays, committed=True)
    raw.delete()
dev = live._buf._sharding._devices[0]
'''
CALLS = {
    "_arrays": "b._arrays", "_committed": "b._committed", "_sharding": "b._sharding",
    "aval": "b.aval", "_pjrt_layout": "b._pjrt_layout",
    "on_device_size_in_bytes": "b.on_device_size_in_bytes()",
    "unsafe_buffer_pointer": "b.unsafe_buffer_pointer()",
    "__cuda_array_interface__": "b.__cuda_array_interface__",
    "buffer_to_dlpack_managed_tensor": "xc._xla.buffer_to_dlpack_managed_tensor(b, stream=None)",
    "_copy_single_device_array_to_host_async": "b._copy_single_device_array_to_host_async()",
    "_single_device_array_to_np_array_did_copy": "b._single_device_array_to_np_array_did_copy()",
    "memoryview": "memoryview(b)", "block_until_ready": "b.block_until_ready()",
    "is_ready": "b.is_ready()", "is_deleted": "b.is_deleted()", "delete": "b.delete()",
    "traceback": "b.traceback", "clone": "b.clone()",
    "_fully_replicated_shard": "b._fully_replicated_shard()",
    "_rewrap_with_aval_and_sharding":
        "b._rewrap_with_aval_and_sharding(live._buf.aval, live._buf._sharding)",
    "ArrayImpl": "xc.ArrayImpl(live._buf.aval, live._buf._sharding, [b], committed=True, "
                 "_skip_checks=True)",
    "batched_device_put": "xc.batched_device_put(live._buf.aval, live._buf._sharding, [b], [dev], "
                          "True, False, xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL, True)",
    "batched_copy_array_to_devices_with_sharding":
        "xc.batched_copy_array_to_devices_with_sharding([b], [xc.DeviceList((dev,))], "
        "[live._buf._sharding], [xc.ArrayCopySemantics.ALWAYS_COPY])",
    "execute_sharded": "dev.client.compile_and_load(jax.jit(lambda a: a + 1).lower(live).as_text(), "
                       "xc.DeviceList((dev,))).execute_sharded([b])",
}


def main(names):
    for kind in ("delete", "donate", "rewrap"):
        for name in names or CALLS:
            code = (SETUP.replace("KIND", repr(kind)) +
                    f"try:\n    print('works:', repr({CALLS[name]})[:60])\n"
                    f"except Exception as e:\n    print('raises', type(e).__name__, str(e)[:80])\n")
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            said = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
            rc = f"CRASH rc={done.returncode}" if done.returncode else ""
            print(f"{kind:7} {name:45} {rc:14} {said}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
