"""jxkernel._src.distributed, as jax._src.distributed: `global_state`, the distributed
runtime's state (`client`, `service`, `process_id`, `num_processes`, `coordinator_address`;
`client` is None until `jax.distributed.initialize` connects), and the functions of
jax.distributed. Orbax reads `global_state.client` to tell a multi-process run.

    >>> global_state.client is None, global_state.num_processes
    (True, 1)
"""
from ...api.distributed import initialize, is_initialized, shutdown  # noqa: F401
from ...xla.distributed import state as global_state  # noqa: F401
