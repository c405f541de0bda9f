"""JAX's module names, behind one fence: the modules that exist only to answer JAX's public and
private paths (`jax.extend.core`, `jax._src.util`, `jax.tree`, ...), each at JAX's path below
this folder. They forward, or give jxkernel's functions JAX's names and signatures; the work
is done in the engine packages beside this one (core/, lax/, api/, ...).

`import jax` (jxkernel/as_jax.py) looks here first: `jax.X.Y` is `jxkernel._jax.X.Y` where that
exists, else `jxkernel.X.Y` (`jax.numpy is jxkernel.numpy`). jxkernel's own paths reach these
modules too (`import jxkernel.extend.core`: the root's module aliases).

    >>> import jxkernel._jax.tree as tree
    >>> tree.leaves({"a": 1, "b": (2, 3)})
    [1, 2, 3]
"""
