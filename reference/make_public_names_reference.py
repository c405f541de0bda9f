"""Record JAX 0.10.2's public names into tests/data/jax_public_names.json (run by hand):

    .venv-jax/bin/python reference/make_public_names_reference.py

For each module below, a fresh process imports it alone and lists `dir(module)` without the
names that start with an underscore (dunders such as `__version__` included: they are not part
of the comparison). A name counts as API unless it is a module that is not a submodule of the
module itself: a foreign module bound by an `import` in its source (`np`, `operator`, ...) is an
artifact of how the file is written, not something users reach for; so are the typing helpers and
`from __future__ import annotations` a module imports (`Sequence`, `annotations`: the very
object of that name in `typing`, `collections.abc` or `__future__`; `lax.PrecisionLike`, an
alias JAX defines, stays). The submodules JAX binds
(`jax.numpy.linalg`, `jax.lax.linalg`, `jax.nn.initializers`, and every `jax.X` that
`import jax` loads, `jax.core` and `jax.experimental` included) stay in: after `import jax`,
code writes `jax.experimental.X` without importing it.

tests/jax_compat/test_public_names.py compares jxkernel's corresponding modules with this list, and
`python -m conformance.public_names --report` writes the counts into conformance/README.md.

It also records what the names jxkernel added answer in JAX (the cases of
tests/data/public_names_cases.py) into tests/data/public_names_reference.json.
"""
import json
import os
import subprocess
import sys

MODULES = ("jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.tree_util",
           "jax.numpy.linalg", "jax.numpy.fft", "jax.scipy.special", "jax.lax.linalg",
           # the documented public modules beside them
           "jax.debug", "jax.sharding", "jax.export", "jax.experimental.layout",
           "jax.custom_derivatives", "jax.experimental.custom_partitioning",
           "jax.experimental.serialize_executable",
           "jax.experimental.compilation_cache.compilation_cache",
           # what libraries that define primitives reach for
           "jax.interpreters.ad", "jax.api_util", "jax.extend.core",
           # what treescope (Flax's nnx.display) and older libraries reach for
           "jax.core")

# Run in a child process per module, so no other import adds names to its namespace.
_LIST = """
import importlib, json, sys, types
name = sys.argv[1]
module = importlib.import_module(name)
public = []
for attr in sorted(dir(module)):
    if attr.startswith("_"):
        continue
    value = getattr(module, attr)
    if isinstance(value, types.ModuleType) and value.__name__ != f"{name}.{attr}":
        continue                  # a foreign module imported by the source: not API
    home = getattr(value, "__module__", None)
    if home in ("typing", "collections.abc", "__future__") and \
            getattr(sys.modules[home], attr, None) is value:
        continue                  # `from collections.abc import Sequence`: an import, not API
    public.append(attr)
print(json.dumps(public))
"""


def main():
    import jax
    names = {}
    for module in MODULES:
        out = subprocess.run([sys.executable, "-c", _LIST, module], check=True,
                             capture_output=True, text=True).stdout
        names[module] = json.loads(out)
        print(f"{module}: {len(names[module])} names")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                        "jax_public_names.json")
    with open(path, "w") as f:
        json.dump({"jax_version": jax.__version__, "modules": names}, f, indent=1)
        f.write("\n")
    # what the names added to jxkernel do, in JAX
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
    from recording import record_json
    record_json(jax, "public_names_cases", "public_names_reference.json")


if __name__ == "__main__":
    main()
