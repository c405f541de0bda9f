"""The interpreters and jit, which lax's rules are written against: `ad/` (jvp, transposition,
vjp, grad), `batching.py` (vmap), `custom_derivatives/`, `jit/`, `make_jaxpr.py`, and the
rules' vocabulary (`ad_util.py`, `batch_util.py`). They sit below lax, as JAX's interpreters
sit below its lax. Start at `jit/__init__.py` (its modules by job) and `ad/reverse.py`. Each
module is imported on its own; `jxkernel` re-exports the public names.
"""
