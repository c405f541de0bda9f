"""Names of a package that load on first access, through PEP 562's module `__getattr__`:
`import jxkernel` loads only what a first program needs (benchmarks/startup.py).

    >>> __getattr__, __dir__ = lazy_names("jxkernel.numpy", {}, {"fft": (".fft", None)})
    >>> __getattr__("fft").__name__
    'jxkernel.numpy.fft'
"""
import importlib
import importlib.util
import sys
import types


def lazy_names(package: str, namespace: dict, table: dict) -> tuple:
    """`__getattr__` and `__dir__` for the package `package` whose globals are `namespace`.
    `table` maps each lazy name to (module, attribute): the module to import (relative to
    the package if it starts with a dot) and the attribute to take from it (None: the module
    itself). A loaded value is kept in `namespace`, so the next access is a plain lookup."""

    def __getattr__(name):
        try:
            module, attribute = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = importlib.import_module(module, package)
        if attribute is not None:
            value = getattr(value, attribute)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__


def names_of(package: str, homes: tuple, namespace: dict) -> tuple:
    """`__getattr__` and `__dir__` for a module that is JAX's one module over several of
    jxkernel's (`homes`, modules): a name is looked up in them in that order (private names
    too: `from X import *` brings only the public ones into `namespace`).

        >>> import types
        >>> a, b = types.SimpleNamespace(x=1), types.SimpleNamespace(x=2, _y=3)
        >>> get, _ = names_of("m", (a, b), {})
        >>> get("x"), get("_y")
        (1, 3)
    """
    def __getattr__(name):
        for home in homes:
            if hasattr(home, name):
                return getattr(home, name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted({n for home in homes for n in dir(home)} | set(namespace))

    return __getattr__, __dir__


def attributes_of(package: str, source, aliases: dict):
    """`__getattr__` for a private package of JAX's that answers its public module's names
    (jax._src.numpy answers jnp.take): `source`'s attribute `name`, never one of its
    submodules, so that the package's own submodules are the ones imported by name; a name
    in `aliases` (module_aliases', read as an attribute before any import) is imported."""
    def __getattr__(name):
        if name in aliases:
            return importlib.import_module(f"{package}.{name}")
        value = getattr(source, name, None)
        if value is None or isinstance(value, types.ModuleType) or name.startswith("__"):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return value

    return __getattr__


class _Aliases:
    """Import `old` as the module `new` names, and `old.X.Y` as `new.X.Y`: the module is loaded
    once, under its own name, and `sys.modules[old]` is that same module (a finder first on
    sys.meta_path, so that a submodule of an old name is never loaded a second time from the
    folder of the module it names; it answers only names under its package)."""

    def __init__(self, package: str, table: dict):
        self.prefix, self.table = package + ".", table

    def _new_name(self, name: str):
        """The module `name` (an old path, or a submodule of one) is now, or None."""
        head = name
        while head.startswith(self.prefix):
            if head in self.table:
                return self.table[head] + name[len(head):]
            head = head.rpartition(".")[0]
        return None

    def find_spec(self, name, path=None, target=None):
        new = self._new_name(name)
        if new is None or not _exists(new):
            return None             # not an alias, or none there: the usual ModuleNotFoundError
        return importlib.util.spec_from_loader(name, self, is_package=None)

    def create_module(self, spec):
        module = importlib.import_module(self._new_name(spec.name))
        spec.loader_state = module.__spec__       # its own, which the import system replaces
        return module

    def exec_module(self, module):
        # loaded already, under its own name: give it back its own spec
        module.__spec__ = module.__spec__.loader_state


def _exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:         # a package on its path is missing
        return False


def module_aliases(package: str, table: dict) -> dict:
    """Keep old module paths importable after a module moved: `table` maps a name in `package`
    to the module it is now (`{"compile_log": "jxkernel.views.recompile_explainer"}`), so that
    `import jxkernel.compile_log`, `from jxkernel.compile_log import X` and
    `jxkernel.compile_log.X` all reach the module itself (its state, not a copy), and so do the
    submodules of a package that moved (`import jxkernel.extend.core`). Returns
    lazy_names' table entries for attribute access, which load it on first use.

    >>> entries = module_aliases("jxkernel", {"compile_log": "jxkernel.views.recompile_explainer"})
    >>> importlib.import_module("jxkernel.compile_log").__name__
    'jxkernel.views.recompile_explainer'
    """
    for name, new in table.items():      # loaded already: the old name is the same module
        if new in sys.modules:
            sys.modules.setdefault(f"{package}.{name}", sys.modules[new])
    sys.meta_path.insert(0, _Aliases(package, {f"{package}.{name}": new
                                               for name, new in table.items()}))
    return {name: (new, None) for name, new in table.items()}
