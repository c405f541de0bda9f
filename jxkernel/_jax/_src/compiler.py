"""jxkernel._src.compiler, as jax._src.compiler: `backend_compile_and_load`, the one call into
XLA's compiler, which libraries wrap to watch or forbid compiles (Chex's `restrict_backends`
replaces it for the time of a `with` block).

This module is a view of `jxkernel.xla.compiler`, where compiles happen: reading a name reads
it there, and setting one sets it there, so a wrapper set here is the one every compile calls.
Its own names are JAX's `get_compile_options` (jaxlib's CompileOptions as JAX builds them,
which jxkernel's compiles do not use) and its profile-version hook, `get_latest_profile_version`,
which a deployment replaces here.

    >>> import jxkernel._src.compiler as compiler
    >>> compiler.backend_compile_and_load.__module__
    'jxkernel.xla.compiler'
"""
import logging
import sys
import types

import numpy as np

from ...core.config import config as _config
from ...xla import compiler as _compiler
from ...xla.client import xc as _xc


# JAX's XLA-AutoFDO hook: a deployment replaces it (JAX's tests mock it) with the function that
# names the latest profile version for a backend; -1: none, and none to retrieve later
_NO_PROFILE_DONT_RETRIEVE = -1
logger = logging.getLogger("jax._src.compiler")      # (JAX's name)


def get_latest_profile_version(backend) -> int:
    del backend
    return _NO_PROFILE_DONT_RETRIEVE


def get_compile_options(num_replicas: int, num_partitions: int, device_assignment=None,
                        env_options_overrides: dict | None = None, fdo_profile: bytes | None = None,
                        detailed_logging: bool = True, backend=None):
    """JAX's `compiler.get_compile_options`: jaxlib's CompileOptions for `num_replicas` x
    `num_partitions` (SPMD partitioning by Shardy, as jxkernel's own compiles), with
    `device_assignment` (ids or devices, one row per replica; a 1-D list where there is one
    partition), `env_options_overrides` (XLA options by name; the effort levels go on the
    build options, as JAX's), an `fdo_profile` and JAX's profile version (jax_xla_profile_version,
    else `get_latest_profile_version(backend)`, -1 where it answers 0 or no backend is given).

    >>> options = get_compile_options(2, 2, device_assignment=[[0, 1], [2, 3]])
    >>> options.device_assignment.replica_count(), options.device_assignment.computation_count()
    (2, 2)
    """
    options = _xc.CompileOptions()
    options.num_replicas, options.num_partitions = num_replicas, num_partitions
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = _config.jax_use_shardy_partitioner
    if fdo_profile is not None:
        build.fdo_profile = fdo_profile
    if device_assignment is not None:
        assignment = np.array(device_assignment)
        if assignment.ndim == 1 and num_partitions == 1:      # JAX allows 1-D then
            assignment = assignment[:, None]
        if num_replicas != assignment.shape[0]:
            raise ValueError(f"device_assignment does not match num_replicas: {assignment} "
                             f"vs {num_replicas}.")
        if num_partitions != assignment.shape[1]:
            raise ValueError(f"device_assignment does not match num_partitions: {assignment} "
                             f"vs {num_partitions}.")
        if assignment.dtype == object:
            assignment = np.vectorize(lambda d: d.id, otypes=[int])(assignment)
        options.device_assignment = _xc.DeviceAssignment.create(assignment)
    if env_options_overrides is not None:
        overrides = dict(env_options_overrides)
        for name in _compiler._BUILD_OPTION_NAMES:
            if name in overrides:
                setattr(build, name, overrides.pop(name))
        options.env_option_overrides = list(overrides.items())
    debug = build.debug_options
    if _config.jax_disable_most_optimizations:         # the three debug options JAX sets for it
        debug.xla_backend_optimization_level = 0
        debug.xla_llvm_disable_expensive_passes = True
        debug.xla_test_all_input_layouts = False
    version = _config.jax_xla_profile_version
    if version > 0:
        options.profile_version = version
    else:
        options.profile_version = _NO_PROFILE_DONT_RETRIEVE
        if backend is not None:
            latest = get_latest_profile_version(backend)
            if latest != 0:
                options.profile_version = latest
            else:
                logger.error("get_compile_options XLA-AutoFDO profile: XLA-AutoFDO profile "
                             "version is 0; this should not happen")
    debug.xla_detailed_logging = detailed_logging
    return options


class _CompilerView(types.ModuleType):
    def __getattr__(self, name):
        return getattr(_compiler, name)

    def __setattr__(self, name, value):
        # the module's own (__doc__, __spec__, ..., get_compile_options' hook)
        if name.startswith("__") or name in self.__dict__:
            super().__setattr__(name, value)
        else:
            setattr(_compiler, name, value)

    def __delattr__(self, name):
        # (mock.patch.object ends so: it deletes the name, then sets the original back
        # where the module no longer has it)
        if name in self.__dict__:
            super().__delattr__(name)
        else:
            delattr(_compiler, name)

    def __dir__(self):
        return sorted(set(dir(_compiler)) | set(self.__dict__))


# Kept, by design: Python gives a module no `__setattr__` hook (PEP 562 gives `__getattr__` and
# `__dir__` only), and a library sets `compiler.backend_compile_and_load` on the module object it
# imported (Chex, mock.patch.object), which must reach xla/compiler.py. The language reference's
# way to customize a module's attribute setting ("Customizing module attribute access") is this
# assignment of a ModuleType subclass; a module made anew would not be the one importers hold.
sys.modules[__name__].__class__ = _CompilerView
