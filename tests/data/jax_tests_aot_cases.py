"""What JAX 0.10.2 answers where JAX's aot_test.py and python_callback_test.py found jxkernel
different: a failing host callback's log line, io_callback's effects and the transformations
they rule out, and `Lowered.as_text("hlo", debug_info=...)`. `run(jax)` takes JAX or jxkernel;
reference/make_jax_tests_aot_reference.py records JAX's answers."""
import logging

import numpy as np


def _logged(fn):
    """(logger level, message, with a traceback) of each record `fn` logs at ERROR or above,
    and the class of what it raised."""
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append([record.levelname, record.getMessage(), record.exc_info is not None])
    handler, root = Keep(level=logging.ERROR), logging.getLogger()
    root.addHandler(handler)
    try:
        fn()
        raised = None
    except Exception as e:                      # noqa: BLE001 (its class is the answer)
        raised = "raised"
    finally:
        root.removeHandler(handler)
    return {"records": records, "raised": raised}


def _error(fn):
    try:
        fn()
    except Exception as e:                      # noqa: BLE001
        return [type(e).__name__, str(e).split("\n")[0]]
    return None


def run(jax):
    import importlib
    jnp, lax = jax.numpy, jax.lax
    io_callback = importlib.import_module(jax.__name__ + ".experimental").io_callback

    def fail(*args):
        raise RuntimeError("Ooops")
    aval = jax.ShapeDtypeStruct((), np.float32)
    out = {"logs": {
        "pure_callback jit": _logged(lambda: jax.block_until_ready(
            jax.jit(lambda x: jax.pure_callback(fail, aval, x))(0.0))),
        "io_callback jit": _logged(lambda: jax.block_until_ready(
            jax.jit(lambda x: io_callback(fail, aval, x))(0.0))),
        "io_callback ordered jit": _logged(lambda: jax.block_until_ready(
            jax.jit(lambda x: io_callback(fail, aval, x, ordered=True))(0.0))),
        "pure_callback eager": _logged(lambda: jax.block_until_ready(
            jax.pure_callback(fail, aval, 0.0))),
        "debug.callback jit": _logged(lambda: jax.effects_barrier() or jax.block_until_ready(
            jax.jit(lambda x: jax.debug.callback(fail, x) or x)(0.0))),
    }}
    out["effects"] = {      # (str: JAX's repr of an effect is an object's address)
        "unordered": [str(e) for e in jax.make_jaxpr(
            lambda x: io_callback(print, None, x))(1.).effects],
        "ordered": [str(e) for e in jax.make_jaxpr(
            lambda x: io_callback(print, None, x, ordered=True))(1.).effects],
    }

    def cond_f(pred):
        return lax.cond(pred, lambda: io_callback(lambda: None, None),
                        lambda: io_callback(lambda: None, None))

    def cond_unbatched_pred(x):
        return lax.cond(True, lambda x: io_callback(lambda v: None, None, x) or x,
                        lambda x: x, x)

    def while_f(i):
        def body(i):
            io_callback(lambda v: None, None, i)
            return i + 1
        return lax.while_loop(lambda i: i < 5, body, i)

    def while_unbatched_pred(x):
        def body(c):
            i, x = c
            io_callback(lambda v: None, None, x)
            return i + 1, x + 1
        return lax.while_loop(lambda c: c[0] < 3, body, (0, x))[1]

    @jax.checkpoint
    def remat_f(x, y):
        io_callback(lambda x: x, y, y)
        return x
    out["errors"] = {
        "vmap of cond, batched predicate": _error(
            lambda: jax.vmap(cond_f)(jnp.array([True, True]))),
        "vmap of cond, unbatched predicate": _error(
            lambda: jax.vmap(cond_unbatched_pred)(jnp.arange(2.))),
        "vmap of while, batched predicate": _error(
            lambda: jax.vmap(while_f)(jnp.array([0, 4]))),
        "vmap of while, unbatched predicate": _error(
            lambda: jax.block_until_ready(jax.vmap(while_unbatched_pred)(jnp.arange(2.)))),
        "grad of checkpoint": _error(lambda: jax.grad(remat_f)(2., 3.)),  # (its effects' repr)
        "jvp of checkpoint": _error(lambda: jax.jvp(lambda x: remat_f(x, 3.), (2.,), (1.,))),
    }
    def my_function(x):
        return jnp.sin(x)
    lowered = jax.jit(my_function).lower(np.float32(42.))
    plain, debug = lowered.as_text("hlo"), lowered.as_text("hlo", debug_info=True)
    out["hlo"] = {"plain has metadata": "metadata=" in plain,
                  "debug sine has metadata": any(       # (JAX's: a stack_frame_id)
                      "sine(" in line and "metadata=" in line for line in debug.splitlines()),
                  "plain first line": plain.splitlines()[0],
                  "plain ops": [line.split("=", 1)[1].split("(")[0].strip()
                                for line in plain.splitlines() if " = " in line]}
    out["export calling convention"] = _calling_conventions(jax)
    out["constants"] = _constants(jax)
    return out


def _constants(jax):
    """A jit's closed-over arrays, written into its module (JAX's default): its Lowered's and
    Compiled's `const_args` (none), the arguments its executable takes, the values, and
    `count_aot_jit_cpp_cache_miss` over a Compiled's first two calls and a third."""
    import importlib
    jnp = jax.numpy
    jtu = importlib.import_module("jax._src.test_util" if jax.__name__ == "jax" else
                                  jax.__name__ + "._jax._src.test_util")
    const = jnp.arange(16.) + 42.
    c64 = np.arange(3.)
    answers = {}
    for name, fn, args in (
            ("array", lambda x: const[0:8] + x, (jnp.arange(8.),)),
            ("numpy float64, an unused argument", lambda x, y: x * c64, (np.ones(3), 2.)),
            ("none", lambda x: x * 2, (np.ones(2, np.float32),))):
        lowered = jax.jit(fn).lower(*args)
        compiled = lowered.compile()
        with jtu.count_aot_jit_cpp_cache_miss() as first:
            outs = [compiled(*args), compiled(*args)]
        with jtu.count_aot_jit_cpp_cache_miss() as third:
            compiled(*args)
        answers[name] = {
            "lowered const_args": len(lowered._lowering.const_args),
            "compiled const_args": len(compiled._params.const_args),
            "executable in_avals": [str(a) for a in compiled._executable.in_avals],
            "values": [np.asarray(o).tolist() for o in outs],
            "aot misses": [first(), third()]}
    return answers


def _calling_conventions(jax):
    """jax.export under each `jax_export_calling_convention_version`: the version the
    Exported records, or JAX's error."""
    export = __import__(jax.__name__ + ".export", fromlist=["export"])
    kept = jax.config.jax_export_calling_convention_version
    answers = {"default": kept}
    try:
        for version in (8, 9, 10, 11):
            jax.config.update("jax_export_calling_convention_version", version)
            try:
                exp = export.export(jax.jit(lambda x: x + 1))(np.float32(1))
                answers[str(version)] = [exp.calling_convention_version,
                                         float(exp.call(np.float32(1)))]
            except Exception as e:              # noqa: BLE001
                answers[str(version)] = [type(e).__name__, str(e)]
    finally:
        jax.config.update("jax_export_calling_convention_version", kept)
    return answers


def run_devices(jax):
    """On 2 CPU devices: host callbacks in a jit partitioned over a mesh (each call run once,
    on one device: a maximal sharding), and in a shard_map over one device's mesh."""
    import re
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    io_callback = __import__(jax.__name__ + ".experimental", fromlist=["io_callback"]).io_callback
    devices = jax.devices()
    mesh = jax.sharding.Mesh(np.array(devices), ("dev",))
    seen = []

    def f(x):
        io_callback(lambda v: seen.append(int(v.sum())), None, x)
        io_callback(lambda v: seen.append(int(v.sum())), None, x + 1, ordered=True)
        return jax.pure_callback(lambda v: v * 2, x, x, sharding=jax.sharding.SingleDeviceSharding(
            devices[-1]))
    g = jax.jit(f, in_shardings=jax.sharding.NamedSharding(mesh, P("dev")),
                out_shardings=jax.sharding.NamedSharding(mesh, P()))
    x = jnp.arange(len(devices))
    text = g.lower(x).as_text()
    out = {"partitioned": {
        "callback shardings": re.findall(r"custom_call @xla_ffi_python_cpu_callback.*"
                                         r"(sdy.sharding = [^}]*\]>)", text),
        "maximal meshes": [line.strip() for line in text.splitlines()
                           if "@maximal_mesh" in line and "sdy.mesh" in line],
        "result": g(x).tolist(), "seen": seen}}
    debugged = []

    def d(x):
        jax.debug.callback(lambda v: debugged.append(v.tolist()), x)
        return x * 2
    dj = jax.jit(d, in_shardings=jax.sharding.NamedSharding(mesh, P("dev")),
                 out_shardings=jax.sharding.NamedSharding(mesh, P()))
    out["debug.callback, partitioned jit"] = {"result": dj(x).tolist(), "seen": debugged}
    one = jax.sharding.Mesh(np.array(devices[:1]), ("x",))
    calls = []

    def body(x):
        io_callback(lambda v: calls.append(v.tolist()), None, x, ordered=True)
        return x * 2
    shard_map = getattr(jax, "shard_map")
    h = jax.jit(shard_map(body, mesh=one, in_specs=P("x"), out_specs=P("x")))
    xs = np.arange(4.0, dtype=np.float32)
    out["shard_map on one device"] = {
        "manual computation": "manual_computation" in h.lower(xs).as_text(),
        "result": h(xs).tolist(), "calls": calls}
    return out
