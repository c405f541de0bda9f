"""jxkernel's version, and the JAX release whose behaviour it matches, in a module of its own
(as `jax.version`) so that any layer can read them without importing the package root.

    >>> from jxkernel.version import __version__, jax_version, jax_version_info
    >>> __version__, jax_version, jax_version_info
    ('0.1.0', '0.10.2', (0, 10, 2))
"""
__version__ = "0.1.0"

# The JAX release jxkernel answers as: its numbers, names and messages are checked against it.
# `import jax` under jxkernel's alias (jxkernel.as_jax) reports this as `jax.__version__`, since
# libraries gate features on it (Flax and Optax compare `jax.__version_info__`).
jax_version = "0.10.2"
jax_version_info = tuple(int(part) for part in jax_version.split("."))
