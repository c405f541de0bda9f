"""jxkernel._src.lazy_loader, as jax._src.lazy_loader: `attach`, a package's submodules loaded
on first access (PEP 562), which JAX's test-support package `lazy_loader_module` uses.

    >>> __getattr__, __dir__, __all__ = attach("jxkernel.numpy", ["fft"])
    >>> __all__, __dir__(), __getattr__("fft").__name__
    (['fft'], ['fft'], 'jxkernel.numpy.fft')
"""
import importlib


def attach(package_name: str, submodules) -> tuple:
    """(`__getattr__`, `__dir__`, `__all__`) for the package `package_name` whose only public
    names are the submodules `submodules`, each imported when first read."""
    names = list(submodules)
    allowed = set(names)

    def __getattr__(name):
        if name not in allowed:
            raise AttributeError(f"module {package_name!r} has no attribute {name!r}")
        return importlib.import_module(f"{package_name}.{name}")

    def __dir__():
        return list(names)

    return __getattr__, __dir__, list(names)
