"""jxkernel.experimental.colocated_python, as JAX 0.10.2's jax.experimental.colocated_python:
Python code run on the host of a set of devices, taking and returning their Arrays.

jxkernel's devices are this process's, so their colocated host is this process: a colocated
function runs here, with JAX's semantics (what JAX itself does on a backend without colocated
Python programs, as its CPU backend): the function and its specialization go through
cloudpickle (serialization.py) and back, typed PRNG keys cross as their key data, the output
specs are found by the first call unless `out_specs_fn` gives them, and a
`colocated_python_class` instance is made at its first method call.

    >>> from jxkernel.experimental import colocated_python as cp
    >>> cp.colocated_python(lambda x: x + 1)(jnp.arange(3))
    Array([1, 2, 3], dtype=int32)
"""
# (as JAX's __init__: only the API; func, obj and serialization are submodules)
from .api import colocated_cpu_devices, colocated_python, colocated_python_class  # noqa: F401
