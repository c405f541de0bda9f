"""`import jax` that reaches jxkernel: code and libraries written for JAX run on jxkernel's core,
and the notebook's views see inside them.

    >>> import jxkernel
    >>> jxkernel.install_as_jax()          # before anything imports jax
    >>> import jax, jax.numpy as jnp
    >>> type(jnp.arange(3)).__module__, jax.__version__
    ('jxkernel.xla.array', '0.10.2')

`JXKERNEL_AS_JAX=1`, set before the interpreter starts (a kernel's or a script's environment),
does the same through the `.pth` hook the package installs (`jxkernel-as-jax.pth`), which reads
one environment variable and does nothing more when it is unset.

How names map: `jax` is a module of its own that answers as JAX's (its `__version__` is the JAX
release jxkernel matches) and hands every other attribute on to `jxkernel`, but for jxkernel's
own modules (`jax.xla`, `jax.stepper`: JAX's AttributeError, naming jxkernel's); `jax.version` is
the same kind of module; every other `jax.X.Y` is the module `jxkernel._jax.X.Y` itself where
that exists (jxkernel/_jax/ holds the modules that only answer JAX's paths: `jax._src.…`,
`jax.interpreters.…`, `jax.extend.…`, `jax.tree`, ...), else `jxkernel.X.Y` where JAX has
`jax.X.Y` (`jax.numpy is jxkernel.numpy`, `jax.core is jxkernel.core`; `import jax.xla` is
JAX's ModuleNotFoundError); docs/jax_internals.md lists them and what each maps to.
`from jax.X import nope` names `jax.X` in Python's ImportError, as JAX's does. A real JAX
installed beside jxkernel (PyPI's Flax and Optax depend on it) is never imported: the alias's
finder comes first on `sys.meta_path`.
"""
import dis
import importlib
import importlib.abc
import importlib.util
import sys
import types

from .core import errors as _errors
from .tree_util import _REMOVED_IN_0_6 as REMOVED_IN_0_6
from .version import jax_version, jax_version_info

ENVIRONMENT_VARIABLE = "JXKERNEL_AS_JAX"


class JaxModule(types.ModuleType):
    """The alias's `jax`: JAX's version, every other name jxkernel's (but its own modules)."""

    def __getattr__(self, name):
        jxkernel = sys.modules["jxkernel"]     # this module's own package: imported before it
        # jax.version: JAX's; a submodule as `jax.X`, where this is the `jax` imported
        # (not a stand-in made apart: that import would find a real JAX)
        if f"jax.{name}" in _MADE or name in _SUBMODULES and sys.modules.get("jax") is self:
            try:
                return importlib.import_module(f"jax.{name}")
            except ModuleNotFoundError:
                pass
        unloaded = _not_loaded("jax", name, self)
        if unloaded is not None:
            raise unloaded
        if _own_module(name):       # jax.xla, jax.stepper: JAX's `jax` has no such name
            raise AttributeError(
                f"module 'jax' has no attribute {name!r}" + ("" if name.startswith("_") else
                f" (jxkernel.{name} is jxkernel's own module, not JAX's: `import jxkernel`, "
                f"then jxkernel.{name})"), name=name, obj=self)
        try:
            return getattr(jxkernel, name)
        except AttributeError:
            if name in jxkernel.REMOVED:     # JAX's own message for a name it removed
                raise
            if name in REMOVED_IN_0_6:       # not jxkernel's gap: JAX has none either
                raise AttributeError(f"module 'jax' has no attribute {name!r} (JAX 0.6.0 "
                                     f"removed jax.{name}: use {REMOVED_IN_0_6[name]})"
                                     ) from None
            # jxkernel has every public name JAX's `jax` has (test_public_names holds it):
            # a public name missing here is missing in JAX too, and gets JAX's words
            if not name.startswith("_"):
                raise AttributeError(f"module 'jax' has no attribute {name!r}") from None
            raise AttributeError(f"module 'jax' has no attribute {name!r} (jax is jxkernel "
                                 f"here, which lacks some of JAX's private names)") from None

    def __dir__(self):
        names = dir(sys.modules["jxkernel"])
        return sorted({n for n in names if not _own_module(n)} | set(self.__dict__))


def _jax_module() -> JaxModule:
    """The module `import jax` gives."""
    jxkernel = sys.modules["jxkernel"]
    module = JaxModule("jax", jxkernel.__doc__)
    # Python's ImportError of `from jax import nope` names the module's file, as JAX's does
    # ("unknown location" without one); `jax.__file__` already answered jxkernel's. (A real
    # JAX beside jxkernel has a file outside jxkernel: core/source_info.real_jax.)
    module.__file__ = jxkernel.__file__
    # a package whose submodules the alias's finder supplies: an empty search path, so that no
    # other finder ever looks for `jax.X` in a folder (a real JAX's included)
    module.__path__ = []
    module.__version__, module.__version_info__ = jax_version, jax_version_info
    return module


# JAX's names of `jax` that are namespaces of jxkernel's modules (jax.memory.Space)
JAX_NAMESPACES = frozenset(["memory"])


def _own_module(name: str) -> bool:
    """Whether jxkernel's `name` is a module of its own, no name of JAX's `jax` (jxkernel.xla,
    jxkernel.stepper): from jxkernel's tables, importing nothing (dir() asks of every name)."""
    jxkernel = sys.modules["jxkernel"]
    value, lazy = jxkernel.__dict__.get(name), jxkernel._LAZY.get(name)
    if isinstance(value, types.ModuleType):
        path = value.__name__
    elif lazy is not None and lazy[1] is None:
        path = "jxkernel" + lazy[0]
    else:
        return False
    return not (name in _SUBMODULES or name in JAX_NAMESPACES or name == "version"
                or f"jax.{name}" in JAXS_IN_JXKERNEL or path.startswith("jxkernel._jax."))


def _version_module() -> types.ModuleType:
    """`jax.version`, with the names libraries read from it."""
    module = types.ModuleType("jax.version", "The JAX release jxkernel matches.")
    module.__version__ = module._version = jax_version
    module.__version_info__ = jax_version_info
    module._minimum_jaxlib_version = jax_version
    module._minimum_jaxlib_version_info = jax_version_info
    module._version_as_tuple = lambda text: tuple(int(p) for p in text.split(".")[:3])
    return module


_MADE = {"jax": _jax_module, "jax.version": _version_module}
# the submodules JAX 0.10.2's `import jax` loads: `jax.X` of one of them imports it as `jax.X`,
# so that it is in sys.modules as after JAX's import (treescope retrieves its aliases of
# `jax.tree_util.SequenceKey` there, and refused them as "a non-imported module")
_SUBMODULES = frozenset((
    "api_util core custom_batching custom_derivatives debug distributed dlpack dtypes errors "
    "experimental export ffi image interpreters lax lib monitoring nn numpy ops profiler "
    "random ref scipy sharding stages tree tree_util typing").split())

# JAX 0.10.2's modules that its `import jax` does not load, per package: `jax.extend` and
# `jax.scipy.optimize` are JAX's AttributeError until imported (which binds them, here as there)
LOADED_BY_IMPORT_ONLY = {"jax": frozenset(["ad_checkpoint", "extend", "flatten_util", "test_util"]),
                         "jax.scipy": frozenset(["optimize", "spatial"])}


def _not_loaded(package: str, name: str, module) -> AttributeError | None:
    """JAX's AttributeError for `package.name` read before `import package.name`, or None."""
    if name not in LOADED_BY_IMPORT_ONLY.get(package, ()) or f"{package}.{name}" in sys.modules:
        return None
    # code that ran here without the import failed under JAX
    return AttributeError(f"module {package!r} has no attribute {name!r} (`import jax` does "
                          f"not load {package}.{name}: `import {package}.{name}` first)",
                          name=name, obj=module)


class _Loader(importlib.abc.Loader):
    """Hands the import system a module that already exists."""

    def __init__(self, module):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # the import system has just set `module.__spec__` to the alias's spec: give jxkernel's
        # module its own back, so reload, pickling and pytest's rewriting see the real module
        if self.spec is not None:
            module.__spec__ = self.spec


# `jax.*` paths JAX 0.10.2 has no module at though jxkernel has one: `jax.config` is JAX's Config
# object, and JAX 0.4.29 removed the submodule that older tutorials' `from jax.config import
# config` read (JAX's CHANGELOG); the line ran here and failed under JAX
NO_MODULE_IN_JAX = {"jax.config": "JAX 0.4.29 removed it: import jax, then jax.config.update(...)"}


# JAX 0.10.2's modules whose jxkernel module is no module of jxkernel/_jax/ but jxkernel's own
# (`jax.numpy is jxkernel.numpy`); jxkernel's other modules are no JAX path (jxkernel.xla,
# .notebook, .views, jnp's parts: jxkernel.numpy.reductions), and `import jax.xla` ran here
# where JAX says "No module named 'jax.xla'". tests/jax_compat/test_as_jax.py checks this list
# against JAX's modules (recorded) both ways.
JAXS_IN_JXKERNEL = frozenset(["jax." + name for name in (
    "ad_checkpoint core debug distributed example_libraries example_libraries.optimizers "
    "example_libraries.stax export ffi flatten_util image lax lax.linalg monitoring nn "
    "nn.initializers numpy numpy.fft numpy.linalg ops profiler random scipy sharding "
    "test_util tree_util").split()] + ["jax.scipy." + name for name in (
        "cluster cluster.vq fft integrate interpolate linalg ndimage optimize signal sparse "
        "sparse.linalg spatial spatial.transform special stats").split()] + [
    "jax.scipy.stats." + name for name in (
        "bernoulli beta betabinom binom cauchy chi2 dirichlet expon gamma gennorm geom "
        "gumbel_l gumbel_r laplace logistic multinomial multivariate_normal nbinom norm pareto "
        "poisson t truncnorm uniform vonmises wrapcauchy").split()])
# a module of jxkernel/_jax/ that is a helper of the package above it, no JAX module (under the
# plain modules above, its siblings are refused as JAX's are: jax._src.test_util.case).
# jax._src.lib.gpu_solver and jax._src.lib.mlir.dialects.hlo stay: JAX's packages hold them as
# attributes, which `from jax._src.lib import gpu_solver` reaches here by importing them.
NOT_JAXS = frozenset(["jax.interpreters._user_rules"])

# JAX 0.10.2's plain modules whose jxkernel module is a package (its parts as modules): no
# `jax.core.X` imports under JAX
PLAIN_IN_JAX = frozenset(["jax." + name for name in (
    "core export random tree_util lax.linalg _src.lax.linalg _src.shard_map _src.test_util"
    ).split()])


def _served(name: str):
    """jxkernel's module that answers `import name` ('jax.X.Y'): jxkernel._jax.X.Y, JAX's
    paths, else jxkernel.X.Y for a module JAX has; None when jxkernel has neither. A module of
    jxkernel's that JAX has not is refused in JAX's words (returning None would let Python's
    path finder load it from the package's folder a second time, as `jax.numpy.reductions`)."""
    rest = name[len("jax"):]
    module = None if name in NOT_JAXS else _import_jxkernel_module("jxkernel._jax" + rest)
    if module is None and name in JAXS_IN_JXKERNEL:
        module = _import_jxkernel_module("jxkernel" + rest)
    if module is None and (name in NOT_JAXS or _has_module("jxkernel._jax" + rest)
                           or _has_module("jxkernel" + rest)):
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    return module


def _has_module(name: str) -> bool:
    """Whether jxkernel has a module `name`, not importing it (its package is imported)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:         # (its package is no module of jxkernel's)
        return False


class JaxAliasFinder(importlib.abc.MetaPathFinder):
    """Finds `jax` and `jax.*` in jxkernel."""

    def find_spec(self, name, path=None, target=None):
        if name != "jax" and not name.startswith("jax."):
            return None
        if name in NO_MODULE_IN_JAX:      # JAX's words, then what to write instead
            raise ModuleNotFoundError(f"No module named {name!r} ({NO_MODULE_IN_JAX[name]})",
                                      name=name)
        parent = name.rpartition(".")[0]
        if parent in PLAIN_IN_JAX:        # Python's words for a module under a plain one
            raise ModuleNotFoundError(f"No module named {name!r}; {parent!r} is not a package",
                                      name=name)
        if name in _MADE:
            module = _MADE[name]()
        else:
            module = _served(name)
            if module is None:
                return None
            _name_misses_as(module, name)
        return importlib.util.spec_from_loader(name, _Loader(module),
                                               is_package=hasattr(module, "__path__"))


def _name_misses_as(module, alias: str, imported: bool = True) -> None:
    """Give jxkernel's `module`, reached as `alias` ('jax.tree'), Python's AttributeError for
    a name it lacks in JAX's words: "module 'jax.tree' has no attribute 'nope'", where Python
    names the module object's own name ('jxkernel._jax.tree'). Its submodules (`jax.numpy.fft`,
    an attribute: no import reaches them) are named under it (`imported` False), unless an
    import names them itself. A `__getattr__` of the module's own (deprecated names, lazy
    submodules) answers first, and its words stay unless they are Python's default ones."""
    own = module.__dict__.get("__getattr__")
    named = getattr(own, "_jax_alias", None)
    if named is not None:
        if not imported or named[1] or alias == named[0]:
            return          # (the name of the first import that reached it stays)
        own = own._own
    real = module.__name__
    default = f"module {real!r} has no attribute "

    def __getattr__(attr):
        unloaded = _not_loaded(alias, attr, module)
        if unloaded is not None:
            raise unloaded
        if own is not None:
            try:
                value = own(attr)
            except AttributeError as e:
                if not str(e).startswith(default):
                    raise
            else:       # a submodule loaded on first use (jnp.fft)
                if isinstance(value, types.ModuleType) and value.__name__ == f"{real}.{attr}":
                    _name_misses_as(value, f"{alias}.{attr}", imported=False)
                return value
        raise AttributeError(f"module {alias!r} has no attribute {attr!r}", name=attr,
                             obj=module)

    def answered(attr):
        try:
            return __getattr__(attr)
        except AttributeError:
            if not _from_import(sys._getframe(1)):
                raise
            return _imported_from(module, alias, attr)
    answered._jax_alias, answered._own = (alias, imported), own
    module.__getattr__ = answered
    for attr, value in list(vars(module).items()):
        if isinstance(value, types.ModuleType) and value.__name__ == f"{real}.{attr}":
            _name_misses_as(value, f"{alias}.{attr}", imported=False)


_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


def _from_import(frame) -> bool:
    """Whether `frame` is running a `from M import name` line's lookup of the name (CPython's
    IMPORT_FROM instruction; `getattr` and `hasattr` run a CALL)."""
    return frame is not None and frame.f_code.co_code[frame.f_lasti] == _IMPORT_FROM


def _imported_from(module, alias: str, attr: str):
    """`from jax.X import attr` where jxkernel's module lacks `attr`: a submodule only in
    sys.modules (the fallback Python's IMPORT_FROM makes), else Python's ImportError in its
    words, the module named as written ('jax.experimental'), where Python names the module
    object's own name ('jxkernel._jax.experimental')."""
    for name in (f"{module.__name__}.{attr}", f"{alias}.{attr}"):
        if sys.modules.get(name) is not None:
            return sys.modules[name]
    path = getattr(module, "__file__", None)
    where = path if isinstance(path, str) else "unknown location"
    raise ImportError(f"cannot import name {attr!r} from {alias!r} ({where})", name=alias,
                      path=path if isinstance(path, str) else None) from None


def _import_jxkernel_module(name: str):
    """jxkernel's module `name`, or None when jxkernel has no such module. A module that exists
    but fails to import raises as it would have."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and name.startswith(error.name):
            return None    # jxkernel has no such module: `import jax.X` fails as usual
        raise


def _real_jax_modules() -> list:
    return sorted(name for name, module in sys.modules.items()
                  if (name == "jax" or name.startswith("jax."))
                  and not _is_alias(name, module))


def _is_alias(name, module) -> bool:
    """Whether sys.modules' `module` under a `jax` name came from the alias."""
    if module is None:
        return True
    spec_name = getattr(getattr(module, "__spec__", None), "name", None) or ""
    return isinstance(getattr(module, "__loader__", None), _Loader) or \
        spec_name.startswith("jxkernel")


def installed() -> bool:
    """Whether `import jax` reaches jxkernel in this process."""
    return any(isinstance(finder, JaxAliasFinder) for finder in sys.meta_path)


def install_as_jax() -> None:
    """Make `import jax` (and every `jax.X`) resolve to jxkernel in this process.

    Call it before anything imports jax: a real JAX already imported cannot be replaced, and
    this raises ImportError saying so. Calling it again does nothing.
    """
    if installed():
        return
    real = _real_jax_modules()
    if real:
        where = getattr(sys.modules.get(real[0]), "__file__", None) or "?"
        raise ImportError(
            f"jxkernel.install_as_jax(): the real JAX is already imported in this process "
            f"({', '.join(real[:3])}{', ...' if len(real) > 3 else ''} from {where}), and code "
            f"holding it would keep it. Call jxkernel.install_as_jax() before anything imports "
            f"jax: in a notebook, restart the kernel and run it in the first cell (after "
            f"%load_ext jxkernel); for a script or a kernel, set {ENVIRONMENT_VARIABLE}=1 in its "
            f"environment before it starts.")
    sys.meta_path.insert(0, JaxAliasFinder())
    _errors.name_src_paths_as("jax")      # messages name `jax._src...` classes, not jxkernel's


def replace_placeholder() -> types.ModuleType:
    """Called by a package named `jax` while it is imported, one that only stands in for
    jxkernel (the JupyterLite site's, which Pyodide loads on a cell's `import jax`:
    scripts/lite_site.py): installs the alias and puts its `jax` in the placeholder's place in
    `sys.modules`, so that the import that ran the placeholder gives jxkernel's `jax`.

        # jax/__init__.py of such a package
        import jxkernel.as_jax
        jxkernel.as_jax.replace_placeholder()
    """
    sys.modules.pop("jax", None)     # the placeholder: neither a real JAX nor the alias
    install_as_jax()
    return importlib.import_module("jax")


def _install_from_environment() -> None:
    """What the `.pth` hook runs when JXKERNEL_AS_JAX is set to anything but '' or '0'."""
    install_as_jax()
