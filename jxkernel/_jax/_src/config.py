"""jxkernel._src.config, as jax._src.config: the option table (`config`), `update` and
`_read`, and a state object per option (`enable_x64.value` reads it, `enable_x64(True)` sets
it for a block), as JAX's own test files and test_util reach for them.

    >>> _read("jax_enable_x64") == config_states["jax_enable_x64"].value
    True
    >>> with config_states["jax_numpy_rank_promotion"]("raise"):
    ...     _read("jax_numpy_rank_promotion")
    'raise'
"""
from ...api.config_states import _ConfigState
from ...api import config_states as _states
from ...core.config import EffortLevel, ExplicitX64Mode, config  # noqa: F401
from ...core.mesh import abstract_mesh_context_manager, device_context  # noqa: F401

update = config.update
parse_flags_with_absl = config.parse_flags_with_absl


def _read(name: str):
    """The option's current value (JAX's private reader, used by its test_util)."""
    return config.read(name)


# every option has a state object; the ones jax exports (enable_x64, ...) are the same objects,
# so `with jax.enable_x64(True)` and `config.enable_x64.value` agree
_EXPORTED = {state.option: state for state in vars(_states).values()
             if isinstance(state, _ConfigState)}
config_states = {name: _EXPORTED.get(name) or _ConfigState(name) for name in config._options}


def __getattr__(name):
    """`config.numpy_dtype_promotion` and the like: the state of option `jax_<name>`."""
    state = config_states.get(f"jax_{name}") or config_states.get(name)
    if state is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return state
