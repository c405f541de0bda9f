"""Names of a package that load on first access, through PEP 562's module `__getattr__`:
`import jxkernel` loads only what a first program needs (benchmarks/startup.py).

    >>> __getattr__, __dir__ = lazy_names("jxkernel.numpy", {}, {"fft": (".fft", None)})
    >>> __getattr__("fft").__name__
    'jxkernel.numpy.fft'
"""
import importlib


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
