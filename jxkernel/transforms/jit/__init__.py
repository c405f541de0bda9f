"""jit: trace once per input signature, compile with XLA, cache, and publish every miss.

One module per job, the lower ones first (each imports only modules above it in this list):

- `args.py`: what jit and make_jaxpr do with their arguments: static and donated ones by
  position and name, their keys, names and avals, with JAX's errors
- `refs.py`: the Refs a jitted function closes over or is passed: stand-ins, each call's
  values in and what was written back
- `cache.py`: what a jitted function's caches hold, shared by every jit of one function
- `pinned.py`: where a program on one device runs (`device=`, SingleDeviceShardings)
- `sharded.py`: jit over a mesh: in_shardings, out_shardings and the call path
- `primitive.py`: the `jit` primitive and all its rules (a jitted call inside another
  transformation is one `jit` equation)
- `high.py`: jit called with hijax values (core/hijax.py's) among its arguments or closed over
- `stages.py`: `.trace`, `.lower`, `.compile`: Traced, Lowered, Compiled, as JAX's `jax.stages`
- `function.py`: `jit` and `Jitted`, the call path: fast paths, trace, compile, record
- `serialize_executable.py`: a `Compiled` as bytes and loaded again
- `namesakes.py`: the jit objects of the functions JAX jits, which stay plain here
"""
from .function import Jitted, jit

__all__ = ["Jitted", "jit"]
