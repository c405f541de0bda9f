"""The transformations written with lax operations, so they sit above lax: `jacfwd`, `jacrev`
and `hessian` (jacobians.py), `pmap`, `shard_map`, and `checkpoint` with its policies
(remat.py). The interpreters they are built on (jvp, vmap, transposition) and jit sit below
lax in `transforms/`, because lax's rules are written with them. Each module is imported on
its own; `jxkernel` re-exports the public names.
"""
