"""The config options as JAX's top-level state objects (JAX's config.py names them the same):
``with enable_x64(True):`` sets an option in the block only, ``enable_x64.value`` reads it,
`set_global` sets it for the process. The options themselves are core/config.py's.
Re-exported by jxkernel/__init__ (the rarely used ones on first use); jax._src.config
(jxkernel/_jax/_src/config.py) finds each state here by its option's name.

    >>> with enable_x64(True):
    ...     jnp.arange(3.0).dtype
    dtype('float64')
"""
from __future__ import annotations

from ..core.config import config

__all__ = ["debug_infs", "debug_nans", "default_device", "default_matmul_precision",
           "enable_x64", "log_compiles", "numpy_dtype_promotion", "numpy_rank_promotion"]


class _ConfigState:
    """A config option as JAX's top-level state objects: ``with enable_x64(True):`` sets it in
    the block only, ``enable_x64.value`` reads it."""

    _NO_DEFAULT = object()

    def __init__(self, option: str, default_arg=_NO_DEFAULT):
        self.option, self._default_arg = option, default_arg
        self.__doc__ = config._options[option].help

    @property
    def value(self):
        return getattr(config, self.option)

    def __call__(self, new_value=_NO_DEFAULT):
        if new_value is self._NO_DEFAULT:
            if self._default_arg is self._NO_DEFAULT:
                raise TypeError(f"Context manager for {self.option.removeprefix('jax_')} "
                                "config option requires an argument representing the new value "
                                "for the config option.")
            new_value = self._default_arg
        return config.override(self.option, new_value)

    def get_global(self):
        """The option's value outside any `with` block of it in this thread."""
        return config.global_value(self.option)

    def set_global(self, value) -> None:
        """Set the option for the whole process, as `config.update` does."""
        config.update(self.option, value)

    def __repr__(self):
        return f"<config state {self.option}={self.value!r}>"


enable_x64 = _ConfigState("jax_enable_x64", True)
log_compiles = _ConfigState("jax_log_compiles", True)
default_device = _ConfigState("jax_default_device")
debug_nans = _ConfigState("jax_debug_nans", True)
debug_infs = _ConfigState("jax_debug_infs", True)
numpy_dtype_promotion = _ConfigState("jax_numpy_dtype_promotion")
numpy_rank_promotion = _ConfigState("jax_numpy_rank_promotion")
default_matmul_precision = _ConfigState("jax_default_matmul_precision")
explain_cache_misses = _ConfigState("jax_explain_cache_misses", True)
enable_checks = _ConfigState("jax_enable_checks", True)
no_tracing = _ConfigState("jax_no_tracing", True)
allow_f16_reductions = _ConfigState("jax_allow_f16_reductions", True)
legacy_prng_key = _ConfigState("jax_legacy_prng_key")
default_prng_impl = _ConfigState("jax_default_prng_impl")
enable_custom_prng = _ConfigState("jax_enable_custom_prng", True)
debug_key_reuse = _ConfigState("jax_debug_key_reuse", True)
softmax_custom_jvp = _ConfigState("jax_softmax_custom_jvp", True)
no_execution = _ConfigState("jax_no_execution", True)
jax2tf_associative_scan_reductions = _ConfigState("jax2tf_associative_scan_reductions", True)
threefry_partitionable = _ConfigState("jax_threefry_partitionable", True)
thread_guard = _ConfigState("jax_thread_guard", True)
auto_pcast = _ConfigState("jax_auto_pcast", True)
array_garbage_collection_guard = _ConfigState("jax_array_garbage_collection_guard")
remove_size_one_mesh_axis_from_type = _ConfigState("jax_remove_size_one_mesh_axis_from_type", True)
disable_vmap_shmap_error = _ConfigState("jax_disable_vmap_shmap_error", True)
