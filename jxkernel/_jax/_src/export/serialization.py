"""jxkernel._src.export.serialization, as jax._src.export.serialization: the version of the
format that `Exported.serialize()` writes. jxkernel writes its own format
(jxkernel/export/_serialization.py), not JAX's flatbuffer: neither reads the other's, so the
version is jxkernel's (JAX 0.10.2's flatbuffer is its version 11).

    >>> _SERIALIZATION_VERSION
    1
"""
from ....export._serialization import FORMAT_VERSION as _SERIALIZATION_VERSION  # noqa: F401
