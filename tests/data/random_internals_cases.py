"""What JAX 0.10.2's own tests/random_test.py and random_lax_test.py found jxkernel lacked, run by
reference/make_random_internals_reference.py (JAX 0.10.2, into random_internals_reference.json)
and by tests/random/test_random_internals.py (jxkernel), which compares the two.

Recorded: the PRNG implementations threefry4x32, philox2x32 and philox4x32 (keys, split,
fold_in, bits of each width, samples, under jit and vmap), the registry `jax._src.random.prng
.prngs` and an implementation of the user's (`PRNGImpl`, JAX's test's double threefry), the
threefry functions of `jax._src.random.threefry2x32`, `jax_random_seed_offset`, the private
helpers the tests call, key arrays' Array attributes, jnp's creation functions and tile with a
key dtype, tangents of keys (vjp, custom_vjp), jnp.full of wide Python ints, the placement
functions of `jax._src.api` and `jax.make_array_from_*` with keys, multivariate_normal under
rank promotion 'raise', and the errors. An array is recorded as its dtype, shape and values
(floats as bit patterns); an error as its class and first line.
"""
import importlib
import re

import numpy as np

from recorded_bits import array_bits as _array

IMPLS = ("threefry4x32", "philox2x32", "philox4x32")
SEEDS = (0, 42, -1, 2 ** 40 + 5)

# case-name suffix -> ulps: floats through transcendental functions (XLA's vectorized log/sin
# differ by a few ulps between CPUs); uniform and the integers compare bit for bit
FLOAT_BOUNDS = {"normal": 4, "multivariate_normal": 8}




def _said(f):
    try:
        out = f()
        return out if isinstance(out, (dict, list, str, int, bool)) else {"ok": repr(out)}
    except Exception as e:           # the class and JAX's words, an implementation by its name
        said = re.sub(r"PRNGImpl\(.*name='(\w+)', tag='\w+'\)", r"\1", str(e))
        return f"{type(e).__name__}: {said.splitlines()[0] if said else ''}"


def _module(jax, name):
    return importlib.import_module(f"{jax.__name__}.{name}")


def _per_impl(jax, impl):
    r, jnp = _module(jax, "random"), _module(jax, "numpy")
    data = r.key_data
    k = r.key(42, impl=impl)
    out = {}
    for seed in SEEDS:
        out[f"key_data(key({seed}))"] = _array(data(r.key(seed, impl=impl)))
    out["key dtype"] = str(k.dtype)
    out["key_impl"] = str(r.key_impl(k))
    out["split(key, 3)"] = _array(data(r.split(k, 3)))
    out["split(key, (2, 2))"] = _array(data(r.split(k, (2, 2))))
    out["fold_in(key, 7)"] = _array(data(r.fold_in(k, 7)))
    for width in (8, 16, 32):
        out[f"bits uint{width}"] = _array(r.bits(k, (5,), f"uint{width}"))
    with jax.enable_x64(True):
        out["bits uint64 (x64)"] = _array(r.bits(r.key(42, impl=impl), (3,), "uint64"))
    out["uniform"] = _array(r.uniform(k, (6,)))
    out["randint"] = _array(r.randint(k, (6,), 0, 100))
    out["jit uniform"] = _array(jax.jit(lambda k: r.uniform(k, (6,)))(k))
    out["vmap split"] = _array(data(jax.vmap(lambda k: r.split(k, 2))(r.split(k, 3))))
    out["vmap fold_in"] = _array(data(jax.vmap(r.fold_in, (None, 0))(k, jnp.arange(3))))
    out["permutation"] = _array(r.permutation(k, 8))
    out["normal"] = _array(r.normal(k, (6,)))
    return out


def _double_threefry(jax):
    """JAX's random_lax_test's implementation of the user's: two threefry keys per key."""
    jnp, prng = _module(jax, "numpy"), _module(jax, "_src.random.prng")
    fry = _module(jax, "_src.random.threefry2x32")

    def seed(s):
        int_t = s.dtype.type if hasattr(s, "dtype") else type(s)
        return jnp.vstack([fry.threefry_seed(s), fry.threefry_seed(s ^ int_t(3))])

    def split(key, shape):
        return jax.vmap(fry.threefry_split, (0, None), len(shape))(key, shape)

    def random_bits(key, bit_width, shape):
        return fry.threefry_random_bits(key[0], bit_width, shape)

    def fold_in(key, data):
        return jnp.vstack([fry.threefry_fold_in(key[0], data), fry.threefry_fold_in(key[1], data)])

    return prng.PRNGImpl(key_shape=(2, 2), seed=seed, split=split, random_bits=random_bits,
                         fold_in=fold_in, tag="fry2")


def _registry_and_custom(jax):
    r, jnp = _module(jax, "random"), _module(jax, "numpy")
    prng, fry = _module(jax, "_src.random.prng"), _module(jax, "_src.random.threefry2x32")
    impl = _double_threefry(jax)
    k = prng.random_seed(73, impl=impl)
    out = {"prngs": list(prng.prngs),
           "prngs tags": [str(i) for i in prng.prngs.values()],
           "prngs key shapes": [list(i.key_shape) for i in prng.prngs.values()],
           "custom key dtype": str(k.dtype),
           "custom key data": _array(r.key_data(k)),
           "custom split shape": list(r.split(k, 10).shape),
           "custom split data": _array(r.key_data(r.split(k, 3))),
           "custom fold_in data": _array(r.key_data(r.fold_in(k, 5))),
           "custom bits": _array(r.bits(k, (4,))),
           "custom uniform": _array(r.uniform(k, (4,))),
           "custom vmap fold_in shape": list(jax.vmap(r.fold_in, (0, None))(
               r.split(k, 2), 3).shape),
           "custom key_impl": repr(r.key_impl(k)),
           "custom key_impl makes the same keys": _said(lambda: _array(r.key_data(
               r.key(73, impl=r.key_impl(k))))),
           "key(0) is prngs['threefry2x32']": r.key(0)._impl is prng.prngs["threefry2x32"],
           "random_bits_p of random_wrap": _array(prng.random_bits(prng.random_wrap(
               jnp.array([0, 7], jnp.uint32), impl=fry.threefry_prng_impl), bit_width=16,
               shape=(3,)))}
    out["random_unwrap of uint32"] = _said(lambda: prng.random_unwrap(jnp.zeros((3, 4),
                                                                               jnp.uint32)))
    out["register_prng twice"] = _said(lambda: prng.register_prng(prng.prngs["rbg"]))
    return out


def _threefry_functions(jax):
    jnp, fry = _module(jax, "numpy"), _module(jax, "_src.random.threefry2x32")
    key = fry.threefry_seed(np.int32(11))
    return {
        "threefry_2x32 zeros": _array(fry.threefry_2x32(np.uint32([0, 0]), np.uint32([0, 0]))),
        "threefry_2x32 pair of scalars": _array(fry.threefry_2x32(
            (np.uint32(0x13198a2e), np.uint32(0x03707344)), jnp.concatenate([
                jnp.full((3,), 0x243f6a88, jnp.uint32), jnp.full((3,), 0x85a308d3, jnp.uint32)]))),
        "threefry_2x32 odd count": _array(fry.threefry_2x32(key, jnp.arange(5, dtype=jnp.uint32))),
        "threefry_2x32 int32": _said(lambda: fry.threefry_2x32(key, jnp.arange(4))),
        "threefry_seed": _array(key),
        "threefry_split": _array(fry.threefry_split(key, (2, 3))),
        "threefry_fold_in": _array(fry.threefry_fold_in(key, np.uint32(9))),
        "threefry_random_bits 8": _array(fry.threefry_random_bits(key, 8, (7,))),
        "threefry_random_bits bad key": _said(lambda: fry.threefry_random_bits(
            jnp.zeros(3, jnp.uint32), 32, (2,))),
        "threefry_random_bits width 7": _said(lambda: fry.threefry_random_bits(key, 7, (2,))),
    }


def _private_helpers(jax):
    core = _module(jax, "_src.random.core")
    out = {}
    for shift in (0, 17, 40):
        i = ((1 << 24) - 1) << shift
        bits = np.array([i // (1 << 32), i & ((1 << 32) - 1)], dtype=np.uint32)
        out[f"_safe_int_to_float shift {shift}"] = _array(core._safe_int_to_float(bits,
                                                                                  np.float32))
    out["_safe_int_to_float float64"] = _said(lambda: core._safe_int_to_float(
        np.zeros(2, np.uint32), np.float64))
    out["_check_broadcast_shapes (2, 3)"] = list(core._check_broadcast_shapes("t", (2, 3)))
    out["_check_broadcast_shapes None"] = list(core._check_broadcast_shapes("t", None))
    out["_check_broadcast_shapes params"] = list(core._check_broadcast_shapes(
        "t", None, np.ones((2, 1)), np.ones(3)))
    out["_check_broadcast_shapes mismatch"] = _said(lambda: core._check_broadcast_shapes(
        "t", (2,), np.ones(3)))
    out["default_prng_impl"] = str(core.default_prng_impl())
    out["resolve_prng_impl('rbg')"] = str(core.resolve_prng_impl("rbg"))
    return out


def _seed_offset(jax):
    r = _module(jax, "random")
    config = _module(jax, "_src.config")
    with config.random_seed_offset(3):
        return {"key(17) with offset 3": _array(r.key_data(r.key(17))),
                "PRNGKey(17) with offset 3": _array(r.PRNGKey(17)),
                "jit key(17) with offset 3": _array(r.key_data(jax.jit(r.key)(17)))}


def _key_arrays(jax):
    r, jnp = _module(jax, "random"), _module(jax, "numpy")
    keys = r.split(r.key(28), 10)
    k = r.key(123)
    two = r.split(r.key(789543))
    out = {"itemsize": keys.itemsize, "nbytes": keys.nbytes,
           "on_device_size_in_bytes": keys.on_device_size_in_bytes(),
           "is_fully_replicated": keys.is_fully_replicated,
           "is_fully_addressable": keys.is_fully_addressable,
           "addressable shards": len(keys.addressable_shards),
           "global shards": len(keys.global_shards),
           "addressable_data(0)": _array(r.key_data(keys.addressable_data(0))),
           "_base_array": _array(keys._base_array),
           "copy_to_host_async": repr(keys.copy_to_host_async()),
           "tile(key, 3)": _array(r.key_data(jnp.tile(k, 3))),
           "jit tile(key, 3)": _array(r.key_data(jax.jit(lambda k: jnp.tile(k, 3))(k))),
           "array(key, dtype=key.dtype)": _array(r.key_data(jnp.array(k, dtype=k.dtype))),
           "asarray(key, dtype=key.dtype)": _array(r.key_data(jnp.asarray(k, dtype=k.dtype)))}
    for name, make in (("zeros", lambda: jnp.zeros(two.shape, two.dtype)),
                       ("ones", lambda: jnp.ones(two.shape, two.dtype)),
                       ("full 100", lambda: jnp.full(two.shape, 100, two.dtype)),
                       ("full key", lambda: jnp.full(two.shape, r.key(42), two.dtype))):
        out[f"{name} of key dtype"] = _array(r.key_data(make()))
        out[f"jit {name} of key dtype"] = _array(r.key_data(jax.jit(make)()))
    out["empty of key dtype: shape, dtype"] = [list(jnp.empty(two.shape, two.dtype).shape),
                                               str(jnp.empty(two.shape, two.dtype).dtype)]
    return out


def _tangents(jax):
    r, jnp = _module(jax, "random"), _module(jax, "numpy")
    dtypes = _module(jax, "dtypes")
    out = {}
    for ctor in ("key", "PRNGKey"):
        primal, _ = jax.vjp(getattr(r, ctor), 1)
        out[f"vjp({ctor}) primal"] = _array(r.key_data(primal))
    seen = {}

    @jax.custom_vjp
    def f(_, state):
        return state

    def f_fwd(_, state):
        return state, None

    def f_bwd(_, state_bar):
        seen["key cotangent dtype"] = str(state_bar[1].dtype)
        return state_bar[0], state_bar

    f.defvjp(f_fwd, f_bwd)
    out["custom_vjp over a key: grad"] = float(jax.grad(
        lambda theta: f(theta, (8.0, r.key(123)))[0])(3.0))
    out.update(seen)

    @jax.custom_vjp
    def g(x, i):
        return x * 1., i

    def g_fwd(x, i):
        return g(x.value, i.value), None

    def g_bwd(_, ct):
        seen["symbolic zero dtypes"] = [str(c.dtype) for c in ct]
        return ct[0], None

    g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
    out["symbolic zeros: grad"] = float(jax.grad(lambda x: g(x, 3)[0])(1.))
    out["symbolic zero dtypes"] = seen["symbolic zero dtypes"]
    out["float0 is the key tangent dtype"] = seen["key cotangent dtype"] == str(dtypes.float0)
    for impl in ("threefry2x32", "rbg"):
        key = r.PRNGKey(73, impl=impl)
        out[f"grad allow_int of {impl} key"] = _said(lambda: str(jax.grad(
            lambda x: 1., allow_int=True)(key).dtype))
        out[f"grad of {impl} key"] = _said(lambda: jax.grad(lambda x: 1.)(key))
        # jtu's check of it, as JAX's random_lax_test makes it
        case = _module(jax, "_src.test_util").JaxTestCase("run")
        out[f"jtu assertArraysEqual float0 ({impl})"] = _said(lambda: case.assertArraysEqual(
            jax.grad(lambda x: 1., allow_int=True)(key), np.zeros(key.shape, dtypes.float0)))
    return out


def _creation_and_placement(jax):
    r, jnp = _module(jax, "random"), _module(jax, "numpy")
    api, dispatch = _module(jax, "_src.api"), _module(jax, "_src.dispatch")
    lax = _module(jax, "lax")
    devices = jax.devices()[:1]
    keys = r.split(r.key(0), 1)
    mesh = jax.sharding.Mesh(np.array(devices), ("x",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))
    out = {}
    for value, dtype in ((0x85a308d3, "uint32"), (2 ** 40, "int32"), (2 ** 40, None),
                         (2 ** 63, None), (2 ** 64 - 1, "uint32"), (-2 ** 63 - 1, None)):
        out[f"full({value}, {dtype})"] = _said(lambda: _array(jnp.full((2,), value, dtype)))
    out["apply_primitive(add_p)"] = _array(dispatch.apply_primitive(
        lax.add_p, np.float32(1), np.float32(2)))
    sharded = api.device_put_sharded(list(keys), devices)
    out["device_put_sharded keys"] = [_array(r.key_data(sharded)), str(sharded.dtype)]
    out["device_put_sharded arrays"] = _array(api.device_put_sharded(
        [np.arange(3.0, dtype=np.float32)], devices))
    out["device_put_sharded unequal"] = _said(lambda: api.device_put_sharded(
        [np.ones(2), np.ones(3)], devices * 2))
    replicated = api.device_put_replicated(r.key(5), devices)
    out["device_put_replicated key"] = [_array(r.key_data(replicated)), list(replicated.shape)]
    out["device_put_replicated tree"] = {k: _array(v) for k, v in api.device_put_replicated(
        {"a": np.float32(2)}, devices).items()}
    made = jax.make_array_from_callback((1,), sharding, lambda i: jax.vmap(r.key)(
        jnp.arange(1)[i[0]]))
    out["make_array_from_callback keys"] = [_array(r.key_data(made)), str(made.dtype)]
    singles = [jax.device_put(keys[i:i + 1], d) for i, d in enumerate(devices)]
    made = jax.make_array_from_single_device_arrays((1,), sharding, singles)
    out["make_array_from_single_device_arrays keys"] = [_array(r.key_data(made)),
                                                        str(made.dtype)]
    with jax.numpy_rank_promotion("raise"):
        out["multivariate_normal"] = _array(r.multivariate_normal(
            r.key(0), mean=jnp.zeros((4,)), cov=jnp.eye(4), shape=(4,)))
    return out


def _samplers(jax):
    r, jnp = _module(jax, "random"), _module(jax, "numpy")
    key = r.key(0)
    logits = r.normal(r.key(1), (8, 9))
    axis = r.randint(r.key(2), (), -2, 2)           # a 0-d Array as the axis, as JAX's test
    out = {"categorical axis=Array, without replacement": _array(r.categorical(
        key, logits, axis=axis, shape=(3,) + tuple(np.delete((8, 9), int(axis))), replace=False)),
        "categorical too many without replacement": _said(lambda: r.categorical(
            key, logits, axis=axis, shape=(5, 6) + tuple(np.delete((8, 9), int(axis))),
            replace=False))}
    out["jit(permutation)(key, 10)"] = _said(lambda: jax.jit(r.permutation)(key, 10))
    out["jit(choice)(key, 10)"] = _said(lambda: jax.jit(r.choice)(key, 10))
    out["permutation(key, 10.)"] = _said(lambda: r.permutation(key, 10.))
    with jax.numpy_rank_promotion("raise"):
        for method in ("svd", "eigh"):
            out[f"{method} singular multivariate_normal"] = _array(r.multivariate_normal(
                key, mean=jnp.zeros(2), cov=jnp.array([[1., 1.], [1., 1.]]), shape=(4,),
                method=method))
    return out


def run(jax):
    out = {}
    for impl in IMPLS:
        out.update({f"{impl}: {name}": value for name, value in _per_impl(jax, impl).items()})
    for part in (_registry_and_custom, _threefry_functions, _private_helpers, _seed_offset,
                 _key_arrays, _tangents, _creation_and_placement, _samplers):
        out.update(part(jax))
    return out
