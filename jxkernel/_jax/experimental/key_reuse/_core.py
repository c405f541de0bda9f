"""jax.experimental.key_reuse._core: the checker's names, from jxkernel/random/key_reuse.py."""
from ....random.key_reuse import (DynamicKeyReuseSignature, Forward, KeyReuseError,  # noqa: F401
                                  KeyReuseSignature, Sink, Source, assert_consumed,
                                  assert_consumed_value_p, assert_unconsumed, check_key_reuse,
                                  check_key_reuse_jaxpr, consume, consume_p,
                                  dynamic_key_reuse_signature, function_type_signature,
                                  jaxpr_type_signature, key_reuse_signature_from_eqn,
                                  key_reuse_signatures, unknown_signature)
