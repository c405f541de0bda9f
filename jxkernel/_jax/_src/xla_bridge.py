"""jxkernel._src.xla_bridge, as jax._src.xla_bridge for what libraries reach for in it: the
backends started so far, and the functions that start and name them.

`_backends` is the very dict jxkernel's client fills as backends start (platform -> Backend),
so a library can tell whether any computation has run yet (Chex's `set_n_cpu_devices` refuses
to change the CPU device count once the CPU backend is up):

    >>> _ = devices()
    >>> "cpu" in _backends
    True

JAX's registry of backend factories is here too (`register_backend_factory`, `register_plugin`,
`register_pjrt_plugin_factories_from_env`, `_backend_factories`): a platform registered there
starts, as in JAX, where code has put its own `_backends` dict in the module (JAX's tests of
the registry do: `xb._backends = {}`), which `backends()` and `get_backend()` then fill by
JAX's rules (priorities, JAX_PLATFORMS, its errors). While `_backends` is jxkernel's client's
own dict, jxkernel's client starts the backends (`cpu`, `gpu`, `tpu`) as it does for every
computation, and a registered plugin is only recorded.
"""
import dataclasses
import functools
import json
import logging
import os
from typing import Any, Callable

from ...core.config import config as _config
from . import lib as _lib
from ...xla import client as _client
from ...xla import distributed as _distributed
from ...xla.client import xc as _xc
from ...xla.client import (_backends, default_backend, device_count, devices,  # noqa: F401
                          local_device_count, local_devices, process_count, process_index)


def backends_are_initialized() -> bool:
    """Whether a backend has started (JAX's): Flax's sharding guide asks it before setting
    `jax_num_cpu_devices`, which only counts before the CPU backend starts.

    >>> backends_are_initialized()
    True
    """
    return len(_backends) != 0


logger = logging.getLogger("jax._src.xla_bridge")      # (JAX's name: its tests ask for it)


@dataclasses.dataclass
class BackendRegistration:
    """JAX's record of a registered backend factory."""
    factory: Callable
    priority: int                   # the default backend is the highest's
    fail_quietly: bool = False      # a failing start is logged, not raised
    experimental: bool = False      # starting it warns that JAX may not fully support it
    c_api: Any | None = None        # a plugin's PJRT C API


def _jxkernel_factory(platform):
    return lambda: _client.get_backend(platform).client


# JAX's priorities: TPU over GPU over the CPU
_backend_factories: dict[str, BackendRegistration] = {
    "cpu": BackendRegistration(_jxkernel_factory("cpu"), 0),
    "cuda": BackendRegistration(_jxkernel_factory("gpu"), 200, fail_quietly=True),
    "tpu": BackendRegistration(_jxkernel_factory("tpu"), 300, fail_quietly=True)}
_backend_errors: dict[str, str] = {}
_default_backend = None
_topology_factories: dict[str, Callable] = {}
_nonexperimental_plugins = {"cuda", "rocm"}
_platform_aliases = {"cuda": "gpu", "rocm": "gpu"}


def register_backend_factory(name: str, factory, *, priority: int = 0,
                             fail_quietly: bool = True, experimental: bool = False,
                             make_topology=None, c_api=None) -> None:
    """JAX's: register `factory` (no arguments, a jaxlib Client or None) for platform `name`."""
    if name in _backends:
        raise RuntimeError(f"Backend {name} already initialized")
    _backend_factories[name] = BackendRegistration(factory, priority, fail_quietly,
                                                   experimental, c_api)
    if make_topology is not None:
        _topology_factories[name] = make_topology


def make_pjrt_c_api_client(plugin_name: str, options=None):
    """JAX's: a PJRT plugin's client with `options` (a dict, or a function giving one, called
    now); after jax.distributed.initialize, one spanning the processes. (jxkernel has no
    jax_pjrt_client_create_options to add to them.)"""
    if not _xc.pjrt_plugin_initialized(plugin_name):
        _xc.initialize_pjrt_plugin(plugin_name)
    updated = {}
    if options is not None:
        updated.update(options() if callable(options) else options)
    state = _distributed.state
    if state.client is None:
        return _xc.make_c_api_client(plugin_name, updated, None)
    return _xc.make_c_api_client(plugin_name, {"node_id": state.process_id,
                                               "num_nodes": state.num_processes, **updated},
                                 state.client)


def register_plugin(plugin_name: str, *, priority: int = 400, library_path: str | None = None,
                    options=None, c_api=None, factory=None, make_topology=None):
    """JAX's: load a PJRT plugin (from `library_path`, or its `c_api`) and register its
    backend factory (experimental unless it is CUDA's or ROCm's); returns its C API."""
    if library_path and c_api:
        logger.error("Both library_path and c_api are provided when registering PJRT plugin "
                     "%s", plugin_name)
        return None
    if not library_path and not c_api:
        logger.error("Neither library_path nor c_api provided when registering PJRT plugin "
                     "%s", plugin_name)
        return None
    if factory is not None and options is not None:
        raise ValueError("Cannot provide both 'factory' and 'options' when registering PJRT "
                         "plugin. When providing a custom factory, the factory's must handle "
                         "its own options.")
    if factory is None:
        factory = functools.partial(make_pjrt_c_api_client, plugin_name, options=options)
    logger.debug("registering PJRT plugin %s from %s", plugin_name, library_path)
    if library_path is not None:
        c_api = _xc.load_pjrt_plugin_dynamically(plugin_name, library_path)
        _lib._profiler.register_plugin_profiler(c_api)    # (jaxlib's, loaded on first use)
    else:
        _xc.load_pjrt_plugin_with_c_api(plugin_name, c_api)
    make_topology = make_topology or functools.partial(_xc.make_c_api_device_topology, c_api)
    register_backend_factory(plugin_name, factory, priority=priority, fail_quietly=False,
                             experimental=plugin_name not in _nonexperimental_plugins,
                             make_topology=make_topology, c_api=c_api)
    return c_api


def _get_pjrt_plugin_names_and_library_paths(plugins_from_env: str) -> dict:
    plugins = {}
    for plugin in filter(None, plugins_from_env.split(",")):
        try:
            name, library_path = plugin.split(os.path.pathsep)
            plugins[name] = library_path
        except ValueError:
            logger.warning("invalid value %s in env var PJRT_NAMES_AND_LIBRARY_PATHS %s",
                           plugin, plugins_from_env)
    return plugins


def _get_pjrt_plugin_config(json_path: str) -> tuple:
    with open(json_path) as f:
        plugin_config = json.load(f)
    if "library_path" not in plugin_config:
        raise ValueError('PJRT plugin config file should contain "library_path" field.')
    return plugin_config["library_path"], plugin_config.get("create_options")


def register_pjrt_plugin_factories_from_env() -> None:
    """JAX's: register each PJRT plugin PJRT_NAMES_AND_LIBRARY_PATHS names
    ('name1:path1,name2:path2'; a path ending .json is a config file naming the library and
    its `create_options`)."""
    plugins = _get_pjrt_plugin_names_and_library_paths(
        os.getenv("PJRT_NAMES_AND_LIBRARY_PATHS", ""))
    for name, path in plugins.items():
        library_path, options = _get_pjrt_plugin_config(path) if path.endswith(".json") \
            else (path, None)
        register_plugin(name, library_path=library_path, options=options)


def expand_platform_alias(platform: str) -> list:
    """JAX's: the platforms an alias stands for ('gpu': 'cuda' and 'rocm'), else itself."""
    found = [p for p, alias in _platform_aliases.items() if alias == platform]
    return found or [platform]


def _jxkernels_own() -> bool:
    """Is `_backends` jxkernel's client's dict (no code put its own registry's in place)?"""
    return _backends is _client._backends


def _init_backend(platform: str):
    registration = _backend_factories.get(platform)
    if registration is None:
        raise RuntimeError(f"Backend '{platform}' is not in the list of known backends: "
                           f"{list(_backend_factories)}.")
    if registration.experimental:
        logger.warning(f"Platform '{platform}' is experimental and not all JAX "
                       "functionality may be correctly supported!")
    backend = registration.factory()
    if backend is None:
        raise RuntimeError(f"Could not initialize backend '{platform}'")
    if backend.device_count() == 0 and len(backend._get_all_devices()) == 0:
        raise RuntimeError(f"Backend '{platform}' provides no devices.")
    return backend


def _registered_backends() -> dict:
    """JAX's `backends()` over `_backend_factories`, filling this module's `_backends`."""
    global _default_backend
    if _backends:
        return _backends
    if _config.jax_platforms:
        platforms = [q for p in str(_config.jax_platforms).split(",")
                     for q in expand_platform_alias(p)]
        registrations = [(p, len(platforms) - i, False) for i, p in enumerate(platforms)]
    else:
        registrations = [(p, r.priority, r.fail_quietly) for p, r in _backend_factories.items()]
    best = -1000
    for platform, priority, fail_quietly in registrations:
        try:
            backend = _init_backend(platform)
        except Exception as err:
            message = f"Unable to initialize backend '{platform}': {err}"
            if fail_quietly:
                _backend_errors[platform] = str(err)
                logger.info(message)
                continue
            if _config.jax_platforms:
                message += " (set JAX_PLATFORMS='' to automatically choose an available backend)"
            else:
                message += (" (you may need to uninstall the failing plugin package, or set "
                            "JAX_PLATFORMS=cpu to skip this backend.)")
            raise RuntimeError(message) from None
        _backends[platform] = backend
        if priority > best:
            _default_backend, best = backend, priority
    return _backends


def get_backend(platform=None):
    """The started backend's PJRT client (jaxlib's `Client`), as JAX's `get_backend` returns:
    programs compile MLIR on it themselves (`compile_and_load(text, devices)`), as autodidax does.

    >>> get_backend().platform
    'cpu'
    """
    if platform is not None and not isinstance(platform, str):     # a Client: itself
        return platform
    if _jxkernels_own():
        return _client.get_backend(platform).client
    platform = platform or _config.jax_platform_name or None
    found = _registered_backends()
    if platform is None:
        return _default_backend
    platform = canonicalize_platform(platform)
    backend = found.get(platform)
    if backend is None:
        if platform in _backend_errors:
            raise RuntimeError(f"Backend '{platform}' failed to initialize: "
                               f"{_backend_errors[platform]}. Available backends are "
                               f"{list(found)}")
        raise RuntimeError(f"Unknown backend {platform}. Available backends are {list(found)}")
    return backend


# JAX's get_backend is cached (`get_backend.cache_clear()` after its registry changes); this
# one asks the client or the registry at each call, so there is nothing to clear
get_backend.cache_clear = lambda: None


def backends() -> dict:
    """Each started platform's PJRT client, as JAX's `backends()`."""
    if _jxkernels_own():
        return {name: b.client for name, b in _client.backends().items()}
    return _registered_backends()


def backend_xla_version(platform=None) -> int | None:
    """The XLA version a backend's plugin states (JAX's: its client's `xla_version`), None
    where it states none, as jaxlib's built-in CPU client: what a library asks before using a
    feature a plugin's older XLA may lack.

    >>> backend_xla_version("cpu") is None or isinstance(backend_xla_version("cpu"), int)
    True
    """
    return getattr(get_backend(platform), "xla_version", None)


def canonicalize_platform(platform: str) -> str:
    """JAX's platform name for `platform`: "gpu" is the GPU backend present ("cuda"; a
    RuntimeError naming the platforms present without one); any other name is kept as it is
    (JAX lowercases nothing here: "CPU" stays "CPU").

    >>> canonicalize_platform("cpu"), canonicalize_platform("tpu")
    ('cpu', 'tpu')
    """
    return _client.jax_platform(platform) if platform == "gpu" else platform
