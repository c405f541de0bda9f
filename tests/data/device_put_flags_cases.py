"""jax.device_put's keyword arguments (`src=`, `donate=`, `may_alias=`, and `copy=`, which it
does not take), run alike by JAX 0.10.2 (reference/make_device_put_flags_reference.py, into
device_put_flags_reference.json) and by jxkernel (tests/xla/test_put_traced.py), on one CPU
device.

`run(jax)`: name -> the result's repr, or [exception class, message], memory addresses
written as 0x0; "same" cases say whether the result is the argument itself; jaxpr cases
give `make_jaxpr`'s text (what `srcs` and `copy_semantics` the equation records).
"""
import re

import numpy as np


def _text(s: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "0x0", s)


def run(jax) -> dict:
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    d0 = jax.devices()[0]
    x = jnp.arange(3.0)
    out = {}

    def case(name, thunk):
        try:
            out[name] = _text(repr(thunk()))
        except Exception as e:          # (what each raises is what is compared)
            out[name] = [type(e).__name__, _text(str(e))]

    case("copy_keyword", lambda: jax.device_put(x, copy=True))
    case("src_device", lambda: jax.device_put(x, src=d0))
    case("src_device_and_device", lambda: jax.device_put(x, d0, src=d0))
    case("src_of_numpy", lambda: jax.device_put(np.ones(2, np.float32), src=d0))
    case("src_sharding", lambda: jax.device_put(x, src=x.sharding))
    case("src_spec_outside_mesh", lambda: jax.device_put(x, src=P()))
    case("src_tree", lambda: jax.device_put({"a": x, "b": 1.0}, src={"a": d0, "b": d0}))
    case("src_tree_not_a_prefix", lambda: jax.device_put({"a": x, "b": 1.0}, src={"a": d0}))
    case("src_list_with_none", lambda: jax.device_put([x, x], src=[d0, None]))
    case("src_text", lambda: jax.device_put(x, src="cpu"))      # (unchecked, as JAX's)
    case("donate_and_may_alias", lambda: jax.device_put(x, donate=True, may_alias=True))
    case("donate", lambda: jax.device_put(jnp.arange(3.0), donate=True))
    y = jnp.arange(3.0)
    moved = jax.device_put(y, d0, donate=True)
    case("donated_is_kept", lambda: (y.is_deleted(), moved is y))   # (best effort: CPU keeps)
    case("may_alias_false_same", lambda: jax.device_put(x, may_alias=False) is x)
    case("may_alias_true_same", lambda: jax.device_put(x, may_alias=True) is x)
    case("default_same", lambda: jax.device_put(x) is x)
    case("tree_may_alias_false_same",
         lambda: [a is x for a in jax.device_put([x, x], may_alias=[False, True])])
    case("donate_tree", lambda: jax.device_put([jnp.ones(2), jnp.ones(2)], donate=[True, False]))
    case("donate_tree_not_a_prefix", lambda: jax.device_put([jnp.ones(2), jnp.ones(2)],
                                                            donate=[True]))
    case("may_alias_tree_not_a_prefix",
         lambda: jax.device_put([x, x], may_alias=(False, True, True)))
    case("donate_int", lambda: jax.device_put(jnp.ones(2), donate=1))
    case("may_alias_int_same", lambda: jax.device_put(x, may_alias=0) is x)
    case("tree_donate_and_may_alias",
         lambda: jax.device_put([x, x], donate=[True, False], may_alias=[True, True]))
    # the spec's error comes before the flags' (JAX's order)
    case("spec_before_flags",
         lambda: jax.device_put([x, x], src=P(), donate=True, may_alias=True))
    case("jaxpr_src", lambda: str(jax.make_jaxpr(lambda v: jax.device_put(v, src=d0))(x)))
    case("jaxpr_plain", lambda: str(jax.make_jaxpr(lambda v: jax.device_put(v))(x)))
    case("jaxpr_donate", lambda: str(jax.make_jaxpr(lambda v: jax.device_put(v, donate=True))(x)))
    case("jaxpr_no_alias",
         lambda: str(jax.make_jaxpr(lambda v: jax.device_put(v, may_alias=False))(x)))
    case("jaxpr_tree_flags", lambda: str(jax.make_jaxpr(
        lambda a, b: jax.device_put((a, b), donate=(True, False), src=(None, d0)))(x, x)))
    case("jit_donate", lambda: jax.jit(lambda v: jax.device_put(v, donate=True))(x))
    case("grad_src", lambda: jax.grad(lambda v: jax.device_put(v, src=d0).sum())(x))
    with jax.sharding.set_mesh(jax.make_mesh((1,), ("x",))):
        case("src_spec_in_mesh", lambda: jax.device_put(x, src=P()))
        case("jaxpr_src_spec_in_mesh",
             lambda: str(jax.make_jaxpr(lambda v: jax.device_put(v, src=P("x")))(x)))
    return out
