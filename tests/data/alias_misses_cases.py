"""A name a `jax` module lacks (`jax.tree.nope`, `jax.numpy.nope`): JAX 0.10.2's AttributeError
names the module as the learner wrote it ("module 'jax.tree' has no attribute 'nope'"), where
Python named jxkernel's module object under the alias ('jxkernel._jax.tree'). `run(jax)` gives,
per module path, the class and message of getattr(module, 'nope'): the module imported as
`jax.<path>` ("imported"), and a few reached as attributes of their package, as a learner's
`jnp.fft.nope` reaches them ("reached"). Recorded from JAX 0.10.2 by
reference/make_alias_misses_reference.py into tests/data/alias_misses_reference.json;
tests/jax_compat/test_as_jax.py runs it under the alias (install_as_jax) and compares.

Left out: `jax.nope` itself (the alias adds that jxkernel has no such name yet, on purpose) and
`from jax.numpy import nope` (Python's ImportError names the module object's own name, which
the alias cannot change)."""
import importlib

IMPORTED = ("tree", "numpy", "numpy.linalg", "numpy.fft", "lax", "lax.linalg", "random", "nn",
            "scipy", "scipy.linalg", "scipy.special", "scipy.stats", "scipy.stats.norm",
            "tree_util", "sharding", "dtypes", "experimental", "image", "debug", "export",
            "ffi", "profiler", "stages", "typing", "errors", "custom_derivatives", "extend",
            "test_util", "api_util", "core", "distributed", "monitoring", "flatten_util",
            "ad_checkpoint")
# (package imported, then the attribute path a learner's line reads)
REACHED = (("numpy", "fft"), ("numpy", "linalg"), ("lax", "linalg"), ("scipy", "special"),
           ("nn", "initializers"))


def _miss(module) -> list:
    try:
        module.nope
    except AttributeError as e:
        return [type(e).__name__, str(e)]
    return ["ok", None]


def run(jax) -> dict:
    out = {f"imported:{path}": _miss(importlib.import_module(f"jax.{path}"))
           for path in IMPORTED}
    for package, attribute in REACHED:
        module = getattr(importlib.import_module(f"jax.{package}"), attribute)
        out[f"reached:{package}.{attribute}"] = _miss(module)
    return out
