"""What the libraries' tutorials (python -m conformance.docs --library) ask of JAX that
jxkernel answered differently, run by JAX (reference/make_library_tutorial_reference.py records
library_tutorial_reference.json) and by jxkernel (tests/jax_compat/test_library_tutorials.py),
each in a fresh process that asks for 8 CPU devices as Flax's sharding guide does."""


def run(jax):
    out = {}
    # flax_gspmd's first cell: ask before any computation, then ask for 8 CPU devices
    out["backends_before"] = jax._src.xla_bridge.backends_are_initialized()
    if not out["backends_before"]:
        jax.config.update("jax_num_cpu_devices", 8)
    out["device_count"] = jax.device_count()
    out["backends_after"] = jax._src.xla_bridge.backends_are_initialized()
    out["reshard"] = _reshard(jax)
    out["make_mesh"] = _make_mesh(jax)
    out["class_param"] = _class_param(jax)
    out["iterable"] = _iterable(jax)
    out["ordered_prints"] = _ordered_prints(jax)
    return out


def _ordered_prints(jax):
    """Optax's verbose zoom linesearch: `jax.debug.print(..., ordered=True)` inside
    `lax.cond`s, before and after ordered prints outside them, in a loop: program order."""
    import contextlib
    import io

    def cond_print(c, message, **values):
        jax.lax.cond(c, lambda _: jax.debug.print(message, **values, ordered=True),
                     lambda _: None, None)

    def diagnose(x):
        jax.debug.print("unordered")
        cond_print(x > 0, "c {x}", x=x)
        cond_print(x > 1, "d {x}", x=x)
        cond_print(x > 2, "e")

    def step(x):
        jax.debug.print("a {x}", x=x, ordered=True)
        cond_print(x > 0, "b {x}", x=x)
        jax.lax.cond(x > 100, lambda x: jax.debug.print("never"), diagnose, x)
        jax.debug.print("f", ordered=True)
        return x + 1

    def around(x):      # ordered prints before, in and after a loop, a scan and an inner jit
        jax.debug.print("before {x}", x=x, ordered=True)
        x = jax.lax.fori_loop(0, 2, lambda i, v: (jax.debug.print("in {i}", i=i, ordered=True),
                                                  v + 1)[1], x)
        jax.debug.print("after", ordered=True)
        x = jax.lax.scan(lambda c, _: (jax.debug.print("scan {c}", c=c, ordered=True),
                                       (c + 1, None))[1], x, length=2)[0]
        jax.jit(lambda v: jax.debug.print("inner", ordered=True))(x)
        jax.debug.print("last", ordered=True)
        return x

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        jax.jit(step)(5.0)
        jax.jit(lambda x: jax.lax.fori_loop(0, 2, lambda i, v: step(v), x))(3.0)
        jax.jit(around)(1.0)
        jax.effects_barrier()
    return text.getvalue().splitlines()


def _iterable(jax):
    """Optax's ogda example: `ax.scatter(*params)`; matplotlib asks `np.iterable` of each
    0-d coordinate, which is False only if `iter(x)` itself refuses."""
    import numpy as np
    jnp, seen = jax.numpy, []
    jax.jit(lambda v: seen.append(np.iterable(v)) or v)(1.0)
    return {"array_0d": np.iterable(jnp.float32(1)), "array_1d": np.iterable(jnp.arange(2.0)),
            "tracer_0d": seen[0], "rows": [float(r) for r in jnp.arange(2.0)]}


def _make_mesh(jax):
    """key_concepts: `jax.make_mesh((jax.device_count(),), 'model')`, one name as a string."""
    got = {}
    cases = {"one_name": lambda: jax.make_mesh((8,), "model"),
             "names_in_a_list": lambda: jax.make_mesh([2, 4], ["a", "b"]),
             "string_of_two_names": lambda: jax.make_mesh((2, 4), "xy")}
    for name, make in cases.items():
        try:
            mesh = make()
            got[name] = [list(mesh.axis_names), list(mesh.axis_sizes)]
        except Exception as e:  # noqa: BLE001 -- JAX's class and words are the answer
            got[name] = [type(e).__name__, str(e)]
    return got


class Box:
    """A class handed to a primitive as a parameter (Flax's hijax Variables pass `var_type`)."""


def _class_param(jax):
    """hijax: a jaxpr shows a class parameter as str() shows it, `<class '...Box'>`."""
    import importlib
    p = importlib.import_module(jax.__name__ + ".extend.core").Primitive("tagged")
    p.def_impl(lambda x, **_: x)
    p.def_abstract_eval(lambda x, **_: x)
    jaxpr = jax.make_jaxpr(lambda x: p.bind(x, var_type=Box, kind=int))(1.0)
    return str(jaxpr)


def _reshard(jax):
    """optimization_cookbook: `reshard(model, P(None, None))` over a model with 1-d biases."""
    jnp, sharding = jax.numpy, jax.sharding
    AxisType, NamedSharding, P, reshard = (sharding.AxisType, sharding.NamedSharding,
                                           sharding.PartitionSpec, sharding.reshard)
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    got = {}
    with jax.set_mesh(mesh):
        tree = {"kernel": jnp.ones((2, 8)), "bias": jnp.arange(8.0), "scale": jnp.float32(2)}
        split = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("y")))
        cases = {"tree_none_none": (tree, P(None, None)),
                 "split_none_none_none": (split, P(None, None, None)),
                 "split_y_none": (jnp.arange(8.0), P("y", None))}
        for name, (value, spec) in cases.items():
            result = reshard(value, spec)
            got[name] = [[str(leaf.sharding.spec), str(jax.typeof(leaf))]
                         for leaf in jax.tree_util.tree_leaves(result)]
        jitted = jax.jit(lambda t: reshard(t, P(None, None)))(tree)
        got["jit_tree_none_none"] = [[str(leaf.sharding.spec), str(jax.typeof(leaf))]
                                     for leaf in jax.tree_util.tree_leaves(jitted)]
    return got
