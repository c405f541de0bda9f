"""Gaps JAX 0.10.2's debugging test files showed (debugging_primitives_test.py,
debug_nans_test.py, errors_test.py: conformance/jax_tests), each run the same way by real JAX
(reference/make_debugging_gaps_reference.py writes debugging_gaps_reference.json and, on two
CPU devices, debugging_gaps_devices_reference.json) and by jxkernel
(tests/jax_compat/test_debugging_gaps.py). Errors are [class name, first line]."""
import contextlib
import importlib
import io

import numpy as np


def _printed(fn) -> list:
    """The lines `fn()` writes to stdout (a jax.debug.print's), in order."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue().splitlines()


def _raised(fn) -> list | None:
    """[class, first line of the message, the class of its cause] of what `fn()` raises."""
    try:
        fn()
    except Exception as e:      # the class, message and cause are what is compared
        cause = type(e.__cause__).__name__ if e.__cause__ is not None else None
        return [type(e).__name__, str(e).strip().splitlines()[0], cause]
    return None


def remat_debug_print(jax):
    """How often grad of a checkpointed function prints, per policy: a print the policy does
    not save is recomputed in the backward pass (debugging_primitives_test's
    test_remat_of_debug_print); and how many debug_print equations grad's jaxpr holds."""
    jnp = jax.numpy
    ad = importlib.import_module(f"{jax.__name__}.ad_checkpoint")
    policies = jax.checkpoint_policies

    def all_but_y(prim, *_, **params):     # saves everything but the value named "y"
        return params["name"] != "y" if str(prim) == "name" else True
    out = {}
    for ordered in (False, True):
        def f_(x):
            y = ad.checkpoint_name(x + 1., "y")
            z = ad.checkpoint_name(y * 2., "z")
            jax.debug.print("y: {}, z: {}", y, z, ordered=ordered)
            return ad.checkpoint_name(jnp.exp(z), "w")
        for name, policy in [("everything", policies.everything_saveable),
                             ("nothing", policies.nothing_saveable),
                             ("all_but_z", policies.save_any_names_but_these("z")),
                             ("all_but_y", all_but_y), ("default", None)]:
            f = jax.checkpoint(f_, policy=policy)

            def run():
                jax.grad(f)(2.)
                jax.effects_barrier()
            out[f"{name}, ordered={ordered}"] = [
                _printed(run), str(jax.make_jaxpr(jax.grad(f))(2.)).count("debug_print[")]
    return out


def debug_nans(jax):
    """jax_debug_nans: which error each program raises (debug_nans_test.py), and whether a
    donated argument is still there after (JAX donates nothing then)."""
    jnp = jax.numpy
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",))
    P = jax.sharding.PartitionSpec

    @jax.jit
    def log_square(x):
        return jnp.log(x ** 2)
    shmap = jax.shard_map(log_square, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    eager_shmap = jax.shard_map(lambda x: 0. / x, mesh=mesh, in_specs=P("x"),
                                out_specs=P("x"))
    donated = jnp.array(0.)
    cases = {
        "grad_norm": lambda: jax.grad(jnp.linalg.norm)(jnp.zeros((3, 3), jnp.float32)),
        "vmap_of_jit": lambda: jax.vmap(jax.jit(lambda x: 0. / x))(jnp.zeros(2)),
        "grad_of_jit_forward": lambda: jax.grad(jax.jit(lambda x: jnp.log(x) * 0.))(0.),
        "jit_donating": lambda: jax.jit(lambda x: 0. / x, donate_argnums=0)(donated),
        "pmap": lambda: jax.pmap(lambda x: 0. / x)(jnp.zeros(1)),
        "shard_map": lambda: eager_shmap(jnp.array([0.])),
        "vjp_of_shard_map": lambda: jax.vjp(shmap, jnp.zeros(1))[1](jnp.ones(1)),
        "pmap_of_jit_vjp": lambda: jax.vjp(jax.pmap(log_square), jnp.zeros(1))[1](
            jnp.ones(1)),
    }
    out = {}
    with jax.debug_nans(True):
        for name, fn in cases.items():
            with contextlib.redirect_stdout(io.StringIO()):     # (JAX's notes on stdout)
                out[name] = _raised(fn)
        out["donated_still_there"] = float(donated)
    return out


class _Device:
    """An object standing for a device (JAX's tests draw shardings over such)."""

    def __init__(self, platform, id):
        self.platform, self.id = platform, id


def visualize_fake_devices(jax):
    """visualize_sharding over a mesh of objects standing for devices (VisualizeShardingTest):
    what it prints."""
    out = {}
    for shape, names, spec, array_shape in [((1,), ("x",), ("x",), (5,)),
                                            ((4, 2), ("x", "y"), ("x", "y"), (8, 8)),
                                            ((4, 2), ("x", "y"), ("x",), (8, 8))]:
        devices = np.array([_Device("CPU", i) for i in range(int(np.prod(shape)))])
        mesh = jax.sharding.Mesh(devices.reshape(shape), names)
        sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*spec))
        out[f"{shape} {spec}"] = [sharding.memory_kind, _printed(
            lambda: jax.debug.visualize_sharding(array_shape, sharding))]
    return out


def run(jax):
    return {"remat_debug_print": remat_debug_print(jax),
            "debug_nans": debug_nans(jax),
            "visualize_fake_devices": visualize_fake_devices(jax)}


# ------------------------------------------------------------------ on two CPU devices
def on_two_devices(jax):
    """Host callbacks in programs partitioned over two devices: a print runs once, on the
    first device, a partitioned one once per device on its block; an ordered one is JAX's
    ValueError (debugging_primitives_test's DebugPrintParallelTest and
    PartitionedDebugCallbackTest)."""
    jnp = jax.numpy
    P = jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    split = jax.sharding.NamedSharding(mesh, P("x"))
    whole = jax.sharding.NamedSharding(mesh, P())
    out = {}

    def f(x):
        jax.debug.print("{}", x)
        return x
    g = jax.jit(f, in_shardings=split, out_shardings=whole)
    with jax.set_mesh(mesh):
        out["print"] = _printed(lambda: (g(np.arange(8, dtype=np.int32)),
                                         jax.effects_barrier()))

    def h(x):
        jax.debug.print("block: {}", x, partitioned=True)
    x = jax.device_put(np.arange(8).reshape(2, 4), jax.sharding.NamedSharding(mesh, P(None, "x")))
    with jax.set_mesh(mesh):
        out["partitioned"] = sorted(_printed(lambda: (jax.jit(h)(x), jax.effects_barrier())))

    def seen(v):
        jax.debug.callback(lambda b: print(b.shape), v, partitioned=True)
    with jax.set_mesh(mesh):
        out["partitioned_callback"] = sorted(_printed(
            lambda: (jax.jit(jax.vmap(seen))(x), jax.effects_barrier())))

    def ordered(x):
        jax.debug.print("{}", x, ordered=True)
    out["ordered_over_two"] = _raised(lambda: jax.pmap(ordered)(jnp.arange(2)))
    out["ordered_over_two"][1] = out["ordered_over_two"][1].split(":")[0]    # (then its list)
    return out
