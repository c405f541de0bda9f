"""jxkernel._src.export._export, as jax._src.export._export: the Exported class, export,
deserialize and the safety checks (jxkernel/export/_export.py), and JAX's name for the custom
call targets whose compatibility is guaranteed.

    >>> "lapack_spotrf_ffi" in _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE
    True
"""
from ....export._custom_calls import STABLE_CUSTOM_CALL_TARGETS
from ....export._export import (  # noqa: F401
    Exported,
    call_exported,
    default_export_platform,
    deserialize,
    export,
    maximum_supported_calling_convention_version,
    minimum_supported_calling_convention_version,
)
from ....export._serialization import DisabledSafetyCheck  # noqa: F401

_CUSTOM_CALL_TARGETS_GUARANTEED_STABLE = STABLE_CUSTOM_CALL_TARGETS
