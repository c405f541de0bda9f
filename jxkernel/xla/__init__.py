"""The runtime: the only package that imports jaxlib.

Backends and devices, the Array class, the StableHLO emitter, lowering of
jaxprs, compiling (with in-memory and on-disk caches) and executing. The rest of
jxkernel compiles through one pipeline (pipeline.py: lower, compile, compile_jaxpr).
"""
from . import client, stablehlo
from .array import Array, Shard
from .transfers import device_get
from .put import device_put
from .client import (backends, default_backend, default_device, device_count, devices,
                     get_backend, local_device_count, local_devices, process_count,
                     process_index)
from .compiler import CompileError, ExecutionError, Phases, compile_module
from .disk_cache import cache_dir
from .executable import Executable
from .memory import OutOfMemoryError, clear_caches, set_memory_cache_size
from .lowering import LoweringRuleContext, lower_module
from .pipeline import compile_jaxpr
from . import dispatch  # installs the eager-execution hook
