"""jxkernel._src.api, as jax._src.api: the module JAX's transformations are defined in, which
its primitives guide imports (`from jax._src import api`; `api.jit`, `api.grad`, `api.jvp`,
`api.vmap`). Each name is jxkernel's own transformation (the same object as `jax.jit`, ...).

    >>> from jxkernel._src import api
    >>> api.grad(lambda x: x * x)(3.0)
    Array(6., dtype=float32, weak_type=True)
"""
from ... import (ShapeDtypeStruct, block_until_ready, clear_caches,  # noqa: F401
                copy_to_host_async, device_get, device_put, disable_jit, effects_barrier,
                eval_shape, grad, hessian, jacfwd, jacobian, jacrev, jit, jvp,
                linear_transpose, linearize, live_arrays, make_jaxpr, named_call, named_scope,
                pmap, value_and_grad, vjp, vmap)
from ...api.jacobians import fwd_and_bwd  # noqa: E402,F401
from ...transforms.ad import GradRef, NotNeeded  # noqa: E402,F401  (vjp's, by JAX's path)
from ...api.jacobians import _std_basis  # noqa: E402,F401  (JAX's tests call it)
from ...api.pmap import device_put_replicated, device_put_sharded  # noqa: E402,F401
from ...api.runtime_state import clear_backends  # noqa: E402,F401  (jax.extend.backend's)
