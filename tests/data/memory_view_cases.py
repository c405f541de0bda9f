"""What the memory view (%jxmemory, jxkernel.memory.memory_report) says of a learner's
arrays, held against JAX 0.10.2 for the same steps: `run(jax)` answers which of the arrays
made are among `jax.live_arrays()` after each step (an array kept, one deleted, one donated
to a jit, one dropped, eager arithmetic's scalar), each kept array's `nbytes` (the view's
bytes) per dtype, and what the CPU device's `memory_stats()` reports (the view's allocator
line). The reference (memory_view_reference.json) is real JAX's, written by
reference/make_memory_view_reference.py; tests/views/test_memory_view_against_jax.py compares."""
import gc
import weakref

DTYPES = ("float32", "bfloat16", "float16", "int8", "bool", "int32", "complex64", "uint8")


def run(jax) -> dict:
    jnp = jax.numpy

    def live(*arrays):
        alive = {id(a) for a in jax.live_arrays()}
        return [id(a) in alive for a in arrays]

    kept = jnp.ones((37, 5))
    deleted = jnp.zeros((37, 6))
    deleted.delete()
    donated = jnp.ones((37, 7))
    jax.jit(lambda v: v + 1, donate_argnums=0)(donated).block_until_ready()
    dropped = jnp.ones((37, 8))
    gone = weakref.ref(dropped)
    del dropped
    gc.collect()
    scaled = kept * 987653                  # a Python int put on the device for the product
    scalars = [a for a in jax.live_arrays() if a.shape == () and a.dtype.kind in "iu"
               and int(a) == 987653]
    sizes = {d: int(jnp.ones((3, 5), getattr(jnp, d)).nbytes) for d in DTYPES}
    stats = jax.devices("cpu")[0].memory_stats()
    return {"live": {"kept, deleted, donated": live(kept, deleted, donated),
                     "scaled": live(scaled)[0], "dropped_freed": gone() is None,
                     "scalar_constants": len(scalars)},
            "deleted_flags": [kept.is_deleted(), deleted.is_deleted(), donated.is_deleted()],
            "nbytes_3x5": sizes,
            "cpu_memory_stats": None if stats is None else sorted(stats)}
