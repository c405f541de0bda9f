"""A name a `jax` module lacks (`jax.tree.nope`, `jax.numpy.nope`): JAX 0.10.2's AttributeError
names the module as the learner wrote it ("module 'jax.tree' has no attribute 'nope'"), where
Python named jxkernel's module object under the alias ('jxkernel._jax.tree'). `run(jax)` gives,
per module path, the class and message of getattr(module, 'nope'): the module imported as
`jax.<path>` ("imported"), and a few reached as attributes of their package, as a learner's
`jnp.fft.nope` reaches them ("reached"). Recorded from JAX 0.10.2 by
reference/make_alias_misses_reference.py into tests/data/alias_misses_reference.json;
tests/jax_compat/test_as_jax.py runs it under the alias (install_as_jax) and compares.
"texts": errors that print a tracer's class by its JAX path, which under the alias is
`jax._src...` as JAX's (it printed `jxkernel._src...`, where jxkernel's own names it so).

"top": names `jax` itself lacks, as old tutorials reach for them (`jax.tree_multimap`,
`jax.ShapedArray`): JAX's bare words. The alias added "(jax is jxkernel here: jxkernel has no
'tree_multimap' yet)", untrue: jxkernel has every public name JAX 0.10.2's `jax` has
(tests/jax_compat/test_public_names.py), so one JAX lacks is no gap of jxkernel's.
"gone": names jxkernel's modules had where JAX's have none, so code that ran here failed under
JAX (`jnp.product`, `jax.random.KeyArray`).

"from": `from jax.<path> import nope` (and names JAX's modules lack: `from jax.experimental
import optimizers`, older tutorials' path of jax.example_libraries.optimizers): Python's
ImportError names the module as written ("cannot import name 'nope' from 'jax.tree' (<file>)"),
where it named jxkernel's module object; the file is each side's own.
"absent": `import jax.xla`, `import jax.notebook`, ...: modules of jxkernel's that JAX 0.10.2
has not, which the alias served; JAX's ModuleNotFoundError. (`modules`: JAX's module names,
which reference/make_alias_misses_reference.py adds as "jax_modules", for the test's sweep of
every module of jxkernel's.)
"unloaded": JAX's modules that `import jax` does not load (`jax.extend`), read as attributes
before any import of them: JAX's AttributeError (the alias then says to import it).
"own": jxkernel's own modules read as attributes of `jax` (`jax.xla`, `jax.stepper`), which the
alias handed on to jxkernel though JAX's `jax` has no such attribute; JAX's words (the alias
then says where jxkernel's module is). "from_top": `from jax import name`, whose ImportError
names JAX's file (Python said "unknown location" of the alias's `jax`)."""
import importlib
import os
import re

IMPORTED = ("tree", "numpy", "numpy.linalg", "numpy.fft", "lax", "lax.linalg", "random", "nn",
            "scipy", "scipy.linalg", "scipy.special", "scipy.stats", "scipy.stats.norm",
            "tree_util", "sharding", "dtypes", "experimental", "image", "debug", "export",
            "ffi", "profiler", "stages", "typing", "errors", "custom_derivatives", "extend",
            "test_util", "api_util", "core", "distributed", "monitoring", "flatten_util",
            "ad_checkpoint")
# public names JAX 0.10.2's `jax` lacks: a typo, and names older JAX had (removed before 0.6)
TOP = ("nope", "tree_multimap", "ShapedArray", "xla_computation", "abstract_arrays", "pxla",
       "host_count", "DeviceArray", "stop_gradient")
# names jxkernel's modules had that JAX 0.10.2's lack (NumPy 1's `product`, JAX's removed
# `KeyArray`, a top-level `stop_gradient`): code run here then failed under JAX
GONE = ("numpy.product", "numpy.alltrue", "numpy.sometrue", "random.KeyArray",
        "random.threefry_2x32", "random.threefry2x32_p")
# JAX's modules its `import jax` does not load: `jax.extend` without `import jax.extend` is
# JAX's AttributeError (it ran here, and the same code failed under JAX); read before anything
# imports them
UNLOADED = ("extend", "flatten_util", "ad_checkpoint", "test_util", "scipy.optimize",
            "scipy.spatial")
# modules JAX 0.10.2 has not (older tutorials' `from jax.config import config`): JAX's
# ModuleNotFoundError; the alias adds what to write instead
NO_MODULE = ("config",)
# modules of jxkernel's the alias served as `jax.<path>` though JAX 0.10.2 has none there
# (a plain module of JAX's is a package of jxkernel's: "'jax.core' is not a package")
ABSENT = ("xla", "xla.array", "notebook", "views", "transforms", "api", "as_jax", "__main__",
          "numpy.reductions", "lax.loops", "core.avals", "core.nope", "random.prng",
          "scipy.stats.kde", "export.shape_poly", "_src.test_util.case", "tree_util.pure",
          "interpreters._user_rules")
# jxkernel's modules that are no name of JAX's `jax`: its internals and its see-inside views
OWN = ("xla", "views", "transforms", "api", "as_jax", "compile_log", "compile_report",
       "debugger", "explainer", "sharding_view", "stepper", "timing")
# `from jax import name`: a typo, one of jxkernel's modules, a name JAX removed
FROM_TOP = ("nope", "xla", "stepper", "tree_multimap")
# (module imported from, name): a name each lacks, and names JAX's modules lack
FROM = tuple((path, "nope") for path in IMPORTED) + (
    ("experimental", "optimizers"), ("experimental", "stax"), ("numpy", "product"),
    ("random", "KeyArray"), ("numpy.fft", "nope"), ("nn.initializers", "nope"))
# (package imported, then the attribute path a learner's line reads)
REACHED = (("numpy", "fft"), ("numpy", "linalg"), ("lax", "linalg"), ("scipy", "special"),
           ("nn", "initializers"))


def _miss(module, name: str = "nope") -> list:
    try:
        getattr(module, name)
    except AttributeError as e:
        return [type(e).__name__, str(e)]
    return ["ok", None]


def _imported(line: str) -> list:
    """The class and words of what an import line raised, the folders of a file it names
    named "<file>" (each side's own: jax/random.py is jxkernel/random/__init__.py)."""
    try:
        exec(line, {})
    except ImportError as e:
        return [type(e).__name__, re.sub(r"\(/\S*\.py\)$", "(<file>)", str(e))]
    return ["ok", None]


def modules(jax) -> dict:
    """Every module JAX has, from its package's files (JAX's own side only): name -> whether
    it is a package."""
    root = os.path.dirname(jax.__file__)
    names = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        parts = ["jax"] + [p for p in os.path.relpath(folder, root).split(os.sep) if p != "."]
        for f in files:
            if f.endswith(".py"):
                package = f == "__init__.py"
                names[".".join(parts + ([] if package else [f[:-3]]))] = package
    return names


def run(jax) -> dict:
    out = {f"unloaded:{path}": _miss(importlib.import_module(".".join(["jax", *parent])), name)
           for path in UNLOADED for *parent, name in [path.split(".")]}
    out.update({f"imported:{path}": _miss(importlib.import_module(f"jax.{path}"))
                for path in IMPORTED})
    for package, attribute in REACHED:
        module = getattr(importlib.import_module(f"jax.{package}"), attribute)
        out[f"reached:{package}.{attribute}"] = _miss(module)
    for name in TOP:
        out[f"top:{name}"] = _miss(jax, name)
    for name in OWN:
        out[f"own:{name}"] = _miss(jax, name)
    out["own_in_dir"] = sorted(set(OWN) & set(dir(jax)))    # (tab completion lists dir's)
    for name in FROM_TOP:
        out[f"from_top:{name}"] = _imported(f"from jax import {name}")
    for path in GONE:
        package, name = path.rsplit(".", 1)
        out[f"gone:{path}"] = _miss(importlib.import_module(f"jax.{package}"), name)
    for path in NO_MODULE:
        try:
            importlib.import_module(f"jax.{path}")
            out[f"module:{path}"] = ["ok", None]
        except ImportError as e:
            out[f"module:{path}"] = [type(e).__name__, str(e)]
    for path in ABSENT:
        out[f"absent:{path}"] = _imported(f"import jax.{path}")
    for path, name in FROM:
        out[f"from:{path}:{name}"] = _imported(f"from jax.{path} import {name}")
    # a module JAX has that the alias lacked: `from jax.interpreters import xla` (older code)
    xla, lax = importlib.import_module("jax.interpreters.xla"), importlib.import_module("jax.lax")
    out["has:interpreters.xla"] = [
        sorted(xla.__all__), float(xla.apply_primitive(lax.neg_p, 1.0)), xla.Backend.__name__]
    jnp = importlib.import_module("jax.numpy")
    compiled = jax.jit(lambda v: v).lower(1.0).compile()
    for name, thunk in {
            "compiled_under_jit": lambda: jax.jit(lambda v: compiled(v))(1.0),
            "add_of_a_token_under_jit": lambda: jax.jit(lambda t: jnp.add(1, t))(
                jax.lax.create_token())}.items():
        try:
            thunk()
            out[f"texts:{name}"] = ["ok", None]
        except TypeError as e:
            out[f"texts:{name}"] = [type(e).__name__, str(e)]
    return out
