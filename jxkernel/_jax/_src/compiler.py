"""jxkernel._src.compiler, as jax._src.compiler: `backend_compile_and_load`, the one call into
XLA's compiler, which libraries wrap to watch or forbid compiles (Chex's `restrict_backends`
replaces it for the time of a `with` block).

This module is a view of `jxkernel.xla.compiler`, where compiles happen: reading a name reads
it there, and setting one sets it there, so a wrapper set here is the one every compile calls.

    >>> import jxkernel._src.compiler as compiler
    >>> compiler.backend_compile_and_load.__module__
    'jxkernel.xla.compiler'
"""
import sys
import types

from ...xla import compiler as _compiler


class _CompilerView(types.ModuleType):
    def __getattr__(self, name):
        return getattr(_compiler, name)

    def __setattr__(self, name, value):
        if name.startswith("__"):           # the module's own (__doc__, __spec__, ...)
            super().__setattr__(name, value)
        else:
            setattr(_compiler, name, value)

    def __dir__(self):
        return sorted(set(dir(_compiler)) | set(self.__dict__))


sys.modules[__name__].__class__ = _CompilerView
