"""jxkernel.extend.sharding, as jax.extend.sharding: XLA's sharding protos to and from bytes
(an `OpSharding`, an `HloSharding`), and `GSPMDSharding`, a sharding as XLA's HloSharding over
devices (jxkernel/xla/sharding.py).

    >>> from jxkernel._src.lib import xla_client
    >>> hlo = xla_client.HloSharding.replicate()
    >>> get_hlo_sharding_from_serialized_proto(get_serialized_proto_from_hlo_sharding(hlo))
    {replicated}
"""
from ...xla.sharding import GSPMDSharding  # noqa: F401
from .._src import lib      # (its xla_client, jaxlib's, loads on first access)


def _xla_client():
    return lib.xla_client


def get_op_sharding_from_serialized_proto(sharding: bytes):
    """The `OpSharding` proto serialized in `sharding`."""
    proto = _xla_client().OpSharding()
    proto.ParseFromString(sharding)
    return proto


def get_hlo_sharding_from_serialized_proto(sharding: bytes):
    """The `HloSharding` of the `OpSharding` proto serialized in `sharding`."""
    return _xla_client().HloSharding.from_proto(get_op_sharding_from_serialized_proto(sharding))


def get_serialized_proto_from_hlo_sharding(sharding) -> bytes:
    """`sharding` (an `HloSharding`) as its serialized `OpSharding` proto."""
    return sharding.to_proto().SerializeToString()
