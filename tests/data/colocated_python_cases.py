"""The colocated_python cases that reference/make_colocated_python_reference.py runs on JAX
0.10.2 and tests/api/test_colocated_python.py on jxkernel: `run(jax)` takes the `jax` module
(real or jxkernel) and returns each case's answer as JSON data: values, dtypes, shardings (as
text), call counts, and error types with their messages."""
import threading

from recorded_errors import error_record   # tests/data: what a case raised, as recorded


def _array(x):
    return {"value": x.tolist() if x.dtype.kind != "V" else None, "dtype": str(x.dtype),
            "shape": list(x.shape), "sharding": repr(x.sharding)}


def run(jax):
    import numpy as np
    jnp = jax.numpy
    cp = __import__(jax.__name__ + ".experimental.colocated_python", fromlist=["api"])
    out = {}
    devices = jax.devices()
    cpu = cp.colocated_cpu_devices(devices)
    out["cpu_devices"] = {"repr": repr(cpu), "type": type(cpu).__name__}
    mesh = jax.sharding.Mesh(cpu, ("x",))
    out["cpu_mesh"] = repr(cp.colocated_cpu_devices(mesh))
    sharding = jax.sharding.NamedSharding(mesh, jax.P())
    x = jax.device_put(1, sharding)

    add_one = cp.colocated_python(lambda x: x + 1)
    y = add_one(x)
    out["add_one_named"] = {**_array(y), "same_sharding": y.sharding == x.sharding}
    out["add_one_again"] = _array(add_one(y))
    out["add_one_single_device"] = _array(add_one(jnp.arange(3.0)))

    calls = []

    def counted(a, b=None):
        calls.append(1)
        return {"sum": a + b, "pair": (a * 2, b)}
    f = cp.colocated_python(counted)
    r = f(jnp.arange(4), b=jnp.ones(4, jnp.int32))
    out["pytree_kwargs"] = {"sum": _array(r["sum"]), "pair0": _array(r["pair"][0]),
                            "calls": len(calls), "keys": sorted(r)}

    g = cp.colocated_python(lambda x: x * 3).specialize(out_specs_fn=lambda x: x)
    out["out_specs_fn"] = _array(g(x))

    spec = jax.ShapeDtypeStruct(shape=(), dtype=jnp.int32, sharding=sharding)
    h = cp.colocated_python(lambda x: x + 10).specialize(
        in_specs=((spec,), {}), out_specs_fn=lambda x: spec)
    out["in_specs"] = _array(h(x))

    written = []
    noarg = cp.colocated_python(lambda: written.append("called"))
    out["no_input_unspecialized"] = error_record(noarg)
    out["no_input_with_devices"] = {"result": repr(noarg.specialize(devices=cpu)()),
                                    "written": len(written)}
    out["devices_twice"] = error_record(lambda: add_one.specialize(devices=cpu).specialize(devices=cpu))
    out["out_specs_fn_twice"] = error_record(
        lambda: g.specialize(out_specs_fn=lambda x: x))
    out["in_specs_twice"] = error_record(lambda: h.specialize(in_specs=((spec,), {})))
    out["python_scalar_arg"] = error_record(lambda: cp.colocated_python(lambda x: x)(1))
    out["non_array_output"] = error_record(lambda: cp.colocated_python(lambda x: 1)(x))
    out["raises"] = error_record(lambda: cp.colocated_python(
        lambda x: (_ for _ in ()).throw(RuntimeError("inside")))(x))

    keys_seen = []

    def split(k):
        keys_seen.append(str(k.dtype))
        return jax.random.split(k)
    kk = cp.colocated_python(split)(jax.random.key(0))
    out["prng_keys"] = {"seen": keys_seen, "dtype": str(kk.dtype), "shape": list(kk.shape),
                        "data": jax.random.key_data(kk).tolist()}

    log = []

    class Adder:
        def __init__(self, increment):
            log.append("created")
            self.increment = increment

        def __del__(self):
            log.append("destroyed")

        def add(self, x):
            return x + self.increment

        def scale(self, x, factor=2):
            return x * factor
    Wrapped = cp.colocated_python_class(Adder)
    adder = Wrapped(5)
    before = list(log)
    a1 = adder.add(x)
    a2 = adder.scale(x, factor=jax.device_put(3, sharding))
    a3 = adder.add(a1)
    after_calls = list(log)
    del adder
    import gc
    gc.collect()
    out["class"] = {"name": Wrapped.__name__, "before_call": before, "after_calls": after_calls,
                    "after_del": list(log), "add": _array(a1), "scale": _array(a2),
                    "add_again": _array(a3)}

    results = []
    slow = cp.colocated_python(lambda x: x + 1).specialize(out_specs_fn=lambda x: x)
    threads = [threading.Thread(target=lambda: results.append(slow(x).tolist()))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out["threads"] = sorted(results)
    out["np_int"] = _array(add_one(jnp.asarray(np.int8(7))))
    return out
