"""Typed PRNG keys as values (`jax.random.key`: a jax.Array of dtype key<fry>, a pytree leaf),
run by reference/make_typed_keys_reference.py (JAX 0.10.2, into typed_keys_reference.json) and
by tests/random/test_typed_keys_reference.py (jxkernel), which compares the two.

Recorded: tree leaves and structure, shapes, dtypes and types of keys after jnp and lax shape
operations, exact key data, keys through jit, vmap, grad, scan, while, cond and eval_shape, the
jaxpr text of learner programs with keys (typed and legacy), and the errors. An array is
recorded as its dtype, shape and values (key data as uint32 values; floats as bit patterns).
"""
import importlib
import re

import numpy as np


def _array(x):
    x = np.asarray(x)
    kind = x.dtype.kind
    view = x.view(f"u{x.dtype.itemsize}") if kind == "f" else x.astype(np.uint8) \
        if kind == "b" else x
    return {"dtype": str(x.dtype), "shape": list(x.shape), "values": [int(v) for v in view.ravel()]}


def _said(f):
    try:
        out = f()
        return {"ok": out}
    except Exception as e:          # the class and JAX's words, an implementation by its name
        said = re.sub(r"PRNGImpl\(.*name='(\w+)', tag='\w+'\)", r"\1", str(e))
        return {"error": f"{type(e).__name__}: {said.splitlines()[0] if said else ''}"}


def run(jax):
    r = importlib.import_module(f"{jax.__name__}.random")
    jnp = importlib.import_module(f"{jax.__name__}.numpy")
    lax = importlib.import_module(f"{jax.__name__}.lax")
    tu = jax.tree_util
    k = r.key(0)
    ks = r.split(k, 4)
    data = r.key_data

    def keys(x):          # what a key array is: its type and exact data
        return {"type": str(jax.typeof(x)), "data": _array(data(x))}

    out = {}
    # ---- pytrees: a key is one leaf
    out["tree_leaves(key)"] = [str(jax.typeof(v)) for v in tu.tree_leaves(k)]
    out["tree_structure(key)"] = str(tu.tree_structure(k))
    out["tree_structure({'k': keys})"] = str(tu.tree_structure({"k": ks, "x": 1.0}))
    out["tree.map(dtype)"] = str(jax.tree.map(lambda t: t.dtype, {"k": k}))
    out["tree.map(shape)"] = str(jax.tree.map(lambda t: t.shape, [k, ks]))
    out["leaf is key"] = tu.tree_leaves([k])[0] is k
    # ---- attributes
    out["key.shape/ndim/size"] = [list(ks.shape), ks.ndim, ks.size]
    out["str(key.dtype)"] = str(k.dtype)
    out["key.dtype.itemsize"] = k.dtype.itemsize
    out["repr(key)"] = repr(r.key(42))
    out["repr(keys)"] = repr(r.split(r.key(1), 2))
    out["isinstance(key, jax.Array)"] = isinstance(k, jax.Array)
    out["issubdtype(prng_key)"] = bool(jnp.issubdtype(k.dtype, jax.dtypes.prng_key))
    out["issubdtype(extended)"] = bool(jnp.issubdtype(k.dtype, jax.dtypes.extended))
    out["len(keys)"] = len(ks)
    out["key_impl"] = str(r.key_impl(k))
    # ---- exact data
    for seed in (0, 42, -1, 2 ** 31 - 1):
        out[f"key_data(key({seed}))"] = _array(data(r.key(seed)))
    out["split(key, 4)"] = keys(ks)
    out["split(key, (2, 3))"] = keys(r.split(k, (2, 3)))
    out["fold_in(key, 7)"] = keys(r.fold_in(k, 7))
    out["wrap_key_data"] = keys(r.wrap_key_data(np.array([[1, 2], [3, 4]], np.uint32)))
    out["clone"] = keys(r.clone(k))
    # ---- shape operations on keys
    ops = {
        "keys[1]": lambda: ks[1],
        "keys[1:3]": lambda: ks[1:3],
        "keys[::-1]": lambda: ks[::-1],
        "keys[jnp.array([3, 0])]": lambda: ks[jnp.array([3, 0])],
        "keys.reshape(2, 2)": lambda: ks.reshape(2, 2),
        "keys.reshape(2, 2).T": lambda: ks.reshape(2, 2).T,
        "keys.reshape(2, 2)[:, 1]": lambda: ks.reshape(2, 2)[:, 1],
        "keys.ravel()": lambda: ks.reshape(2, 2).ravel(),
        "keys.flatten()": lambda: ks.reshape(2, 2).flatten(),
        "keys[None].squeeze()": lambda: ks[None].squeeze(),
        "keys.swapaxes": lambda: ks.reshape(2, 2).swapaxes(0, 1),
        "keys.transpose": lambda: ks.reshape(2, 2).transpose(1, 0),
        "keys.take": lambda: ks.take(jnp.array([2, 2])),
        "keys.copy()": lambda: ks.copy(),
        "jnp.stack": lambda: jnp.stack([k, r.key(1)]),
        "jnp.concatenate": lambda: jnp.concatenate([ks, ks[:1]]),
        "jnp.reshape": lambda: jnp.reshape(ks, (4, 1)),
        "jnp.where": lambda: jnp.where(jnp.array([True, False, True, False]), ks, ks[::-1]),
        "jnp.expand_dims": lambda: jnp.expand_dims(k, 0),
        "jnp.broadcast_to": lambda: jnp.broadcast_to(k, (3,)),
        "jnp.take": lambda: jnp.take(ks, jnp.array([0, 3])),
        "jnp.take out of bounds": lambda: jnp.take(ks, jnp.array([0, 7])),
        "jnp.swapaxes": lambda: jnp.swapaxes(ks.reshape(2, 2), 0, 1),
        "jnp.flip": lambda: jnp.flip(ks),
        "jnp.asarray": lambda: jnp.asarray(k),
        "lax.dynamic_slice": lambda: lax.dynamic_slice(ks, (1,), (2,)),
        "lax.dynamic_update_slice": lambda: lax.dynamic_update_slice(ks, ks[:1], (2,)),
        "lax.select": lambda: lax.select(jnp.array([True, False, True, False]), ks, ks[::-1]),
        "lax.concatenate": lambda: lax.concatenate([ks, ks], 0),
        "keys.at[1].set": lambda: ks.at[1].set(k),
        "keys.at[1].get()": lambda: ks.at[1].get(),
        "list(keys)[2]": lambda: list(ks)[2],
        "device_put": lambda: jax.device_put(ks),
    }
    for name, f in ops.items():
        out[f"op {name}"] = _said(lambda f=f: keys(f()))
    out["keys == keys[::-1]"] = _said(lambda: _array(ks == ks[::-1]))
    out["key != key"] = _said(lambda: _array(k != r.key(1)))
    out["jnp.array_equal"] = _said(lambda: bool(jnp.array_equal(ks, ks)))
    out["jnp.allclose"] = _said(lambda: bool(jnp.allclose(k, r.key(1))))
    # ---- transformations
    out["jit split"] = _said(lambda: keys(jax.jit(lambda k: r.split(k, 3))(k)))
    out["jit returns key"] = _said(lambda: keys(jax.jit(lambda k: k)(k)))
    out["jit key_data"] = _said(lambda: _array(jax.jit(r.key_data)(ks)))
    out["jit key from seed"] = _said(lambda: keys(jax.jit(r.key)(5)))
    out["vmap normal"] = _said(lambda: _array(jax.vmap(lambda k: r.normal(k))(ks)))
    out["vmap split"] = _said(lambda: keys(jax.vmap(lambda k: r.split(k))(ks)))
    out["vmap fold_in"] = _said(lambda: keys(jax.vmap(r.fold_in)(ks, jnp.arange(4))))
    out["vmap bits"] = _said(lambda: _array(jax.vmap(lambda k: r.bits(k, (2,)))(ks)))
    out["vmap key"] = _said(lambda: keys(jax.vmap(r.key)(jnp.arange(3))))
    out["scan"] = _said(lambda: _array(lax.scan(
        lambda c, x: (r.split(c)[0], r.uniform(x)), k, ks)[1]))
    out["scan carry key"] = _said(lambda: keys(lax.scan(
        lambda c, x: (r.fold_in(c, x), None), k, jnp.arange(3))[0]))
    out["while"] = _said(lambda: keys(lax.while_loop(
        lambda c: c[1] < 3, lambda c: (r.split(c[0])[0], c[1] + 1), (k, 0))[0]))
    out["cond"] = _said(lambda: keys(lax.cond(False, lambda k: k, lambda k: r.split(k)[1], k)))
    out["grad with key"] = _said(lambda: _array(jax.grad(lambda x, k: x * r.normal(k))(1.0, k)))
    out["eval_shape"] = _said(lambda: str(jax.eval_shape(lambda k: r.split(k), k)))
    out["jit(vmap(split))"] = _said(lambda: keys(jax.jit(jax.vmap(r.split))(ks)))
    # ---- jaxpr text of learner programs
    pk = r.PRNGKey(0)
    programs = {
        "normal": (lambda k: r.normal(k), k),
        "normal(legacy)": (lambda k: r.normal(k, (2,)), pk),
        "uniform": (lambda k: r.uniform(k, (3,)), k),
        "bits": (lambda k: r.bits(k, (2,)), k),
        "split": (lambda k: r.split(k), k),
        "split(legacy)": (lambda k: r.split(k), pk),
        "fold_in": (lambda k: r.fold_in(k, 3), k),
        "key_data": (lambda k: r.key_data(k), k),
        "wrap_key_data": (lambda d: r.wrap_key_data(d), data(k)),
        "key": (lambda s: r.key(s), 0),
        "PRNGKey": (lambda s: r.PRNGKey(s), 0),
        "jit(split)": (jax.jit(lambda k: r.split(k, 3)), k),
        "keys[1]": (lambda ks: ks[1], ks),
        "vmap(split)": (jax.vmap(lambda k: r.split(k)), ks),
        "vmap(bits)": (jax.vmap(lambda k: r.bits(k)), ks),
        "scan(split)": (lambda k: lax.scan(lambda c, _: (r.split(c)[0], None), k, None,
                                           length=2)[0], k),
    }
    for name, (f, arg) in programs.items():
        out[f"jaxpr {name}"] = _said(lambda f=f, arg=arg: str(jax.make_jaxpr(f)(arg)))
    # ---- errors
    errors = {
        "split batched": lambda: r.split(ks),
        "normal batched": lambda: r.normal(ks),
        "key(keys)": lambda: r.key(k),
        "key(array)": lambda: r.key(jnp.arange(2)),
        "wrap_key_data(keys)": lambda: r.wrap_key_data(k),
        "wrap_key_data bad shape": lambda: r.wrap_key_data(np.zeros((3,), np.uint32)),
        "wrap_key_data bad dtype": lambda: r.wrap_key_data(np.zeros((2,), np.int32)),
        "jnp.array(key, uint32)": lambda: jnp.array(k, dtype=jnp.uint32),
        "len(key)": lambda: len(k),
    }
    for name, f in errors.items():
        out[f"error {name}"] = _said(lambda f=f: str(f()))
    return out
