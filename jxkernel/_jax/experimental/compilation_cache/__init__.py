"""jax.experimental.compilation_cache: the package of `compilation_cache`, the persistent
(on-disk) cache of compiled programs (xla/disk_cache.py holds it)."""
