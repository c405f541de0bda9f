"""A jit pinned to one device (`device=`, or in_shardings/out_shardings that are
SingleDeviceShardings), run alike by real JAX (reference/make_pinned_reference.py records
pinned_reference.json on 8 simulated CPU devices) and by jxkernel
(tests/transforms/test_pinned_jit.py, in a subprocess with as many): `run(jax)` returns plain
JSON data.

- "texts": `jit(...).lower(...).as_text()` of pinned jits and of committed arguments (JAX
  declares `sdy.mesh @empty_mesh` and gives those arguments and results `sdy.sharding`).
- "calls": where a jit pinned to device 3 runs, called directly, under grad, vjp, jvp,
  linearize and vmap, inside another jit, with arguments committed elsewhere: per result
  leaf its sharding's repr, `.committed` and value, or JAX's error (class and message).
- "exported": whether `exp.call`'s results are committed (eagerly and under jit).
- "eager": a jit equation run eagerly by grad or vmap with arguments committed to another
  device than the default one, or to none.
- "inner": the jaxprs of grad, jvp and vmap of a pinned jit (its equations' in_shardings and
  out_shardings) and the module of a jit calling one.
- "unused": a jit whose committed or split arguments it never reads (JAX drops them before
  it places the program).
- "meshes": a pinned jit and arguments over a mesh, or under set_mesh.

    run(jax)["calls"]["in3 grad"]  ->  [["SingleDeviceSharding(device=CpuDevice(id=3), ...", ...

Values are float32 sines and small integers: the test compares them within a few ulp.
"""
import re
import warnings

import numpy as np
from recorded_errors import SOURCE_NOTE, TRACEBACK_NOTE

_THIS_FILE = re.compile(r"\S*pinned_cases\.py")   # errors name its lines: by its name alone


def _leaves(jax, fn):
    """[sharding repr, committed, value] per result leaf of `fn()`, or [error class, message]."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)    # (JAX's, for device=)
            out = fn()
    except Exception as e:                  # the class's name and message are what is compared
        text = str(e).split(SOURCE_NOTE)[0].split(TRACEBACK_NOTE)[0]
        text = _THIS_FILE.sub("pinned_cases.py", text)
        return {"error": [type(e).__name__, text]}
    return {"leaves": [[repr(x.sharding), bool(x.committed), np.asarray(x).tolist()]
                       for x in jax.tree_util.tree_leaves(out)]}


def _jit(jax, f, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)        # (JAX's, for device=)
        return jax.jit(f, **kw)


def texts(jax) -> dict:
    jnp, d = jax.numpy, jax.devices()
    S = jax.sharding.SingleDeviceSharding
    f = lambda x, y: x * 2 + y                       # noqa: E731
    x = jnp.arange(4.0)
    g = lambda a, b, s: {"u": a + s, "v": (b * s, s)}   # noqa: E731
    programs = {
        "in3": (_jit(jax, f, in_shardings=S(d[3])), (x, x)),
        "in3_tuple": (_jit(jax, f, in_shardings=(S(d[3]), None)), (x, x)),
        "out3": (_jit(jax, f, out_shardings=S(d[3])), (x, x)),
        "in0": (_jit(jax, f, in_shardings=S(d[0])), (x, x)),
        "in_out3_committed": (_jit(jax, lambda v: v * 2, in_shardings=S(d[3]),
                                   out_shardings=S(d[3])), (jax.device_put(x, d[3]),)),
        "device3": (_jit(jax, f, device=d[3]), (x, x)),
        "device3_scalar": (_jit(jax, lambda v, s: v * s, device=d[3]), (x, 2.0)),
        "plain": (_jit(jax, f), (x, x)),
        "plain_committed3": (_jit(jax, f), (jax.device_put(x, d[3]), x)),
        "plain_committed0": (_jit(jax, f), (jax.device_put(x, d[0]), x)),
        "pytree_donated": (_jit(jax, g, in_shardings=S(d[3]), donate_argnums=0),
                           (x, jnp.ones((2, 3)), 2.0)),
        "dict_in": (_jit(jax, lambda v, w: v + w["a"], in_shardings=(S(d[3]), {"a": S(d[3])})),
                    (x, {"a": x})),
    }
    out = {}
    for name, (jitted, args) in programs.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # (a donation XLA cannot use on the CPU)
            out[name] = jitted.lower(*args).as_text()
    return out


def calls(jax) -> dict:
    jnp, d = jax.numpy, jax.devices()
    S = jax.sharding.SingleDeviceSharding
    f = lambda x: jnp.sin(x) * 2                     # noqa: E731
    x = jnp.arange(4.0)
    on2 = lambda v: jax.device_put(v, d[2])          # noqa: E731
    out = {}
    for kind, p in [("in3", _jit(jax, f, in_shardings=S(d[3]))),
                    ("out3", _jit(jax, f, out_shardings=S(d[3]))),
                    ("dev3", _jit(jax, f, device=d[3]))]:
        runs = {
            "direct": lambda: p(x),
            "grad": lambda: jax.grad(lambda v: p(v).sum())(x),
            "vjp": lambda: jax.vjp(p, x)[1](jnp.ones(4)),
            "jvp": lambda: jax.jvp(p, (x,), (jnp.ones(4),)),
            "linearize": lambda: jax.linearize(p, x)[1](jnp.ones(4)),
            "vmap": lambda: jax.vmap(p)(jnp.ones((2, 4))),
            "outer jit": lambda: jax.jit(lambda v: p(v) + 1)(x),
            "outer jit grad": lambda: jax.grad(jax.jit(lambda v: p(v).sum()))(x),
            "outer jit committed2": lambda: jax.jit(lambda v: p(v) + 1)(on2(x)),
            "direct committed2": lambda: p(on2(x)),
            "grad committed2": lambda: jax.grad(lambda v: p(v).sum())(on2(x)),
            "vmap committed2": lambda: jax.vmap(p)(on2(jnp.ones((2, 4)))),
            "outer jit pinned2": lambda: _jit(jax, lambda v: p(v) + 1,
                                              in_shardings=S(d[2]))(x),
            "outer jit device2": lambda: _jit(jax, lambda v: p(v) + 1, device=d[2])(x),
            "outer jit lowered": lambda: jax.jit(lambda v: p(v) + 1).lower(x).compile()(x),
        }
        for name, run in runs.items():
            out[f"{kind} {name}"] = _leaves(jax, run)
    return out


def exported(jax) -> dict:
    jnp, d = jax.numpy, jax.devices()
    S = jax.sharding.SingleDeviceSharding
    f = lambda x: (x * 2, x.sum())                   # noqa: E731
    h = np.arange(4.0, dtype=np.float32)
    exp = jax.export.export(jax.jit(f))(h)
    exp3 = jax.export.export(jax.jit(f, in_shardings=S(d[3])))(h)
    runs = {
        "numpy": lambda: exp.call(h),
        "jnp": lambda: exp.call(jnp.asarray(h)),
        "committed3": lambda: exp.call(jax.device_put(h, d[3])),
        "in jit": lambda: jax.jit(exp.call)(h),
        "in jit committed3": lambda: jax.jit(exp.call)(jax.device_put(h, d[3])),
        "grad": lambda: jax.grad(lambda v: exp.call(v)[1])(h),
        "pinned numpy": lambda: exp3.call(h),
        "pinned committed2": lambda: exp3.call(jax.device_put(h, d[2])),
    }
    out = {name: _leaves(jax, run) for name, run in runs.items()}
    for name, kw in [("device3", dict(device=d[3])), ("in3", dict(in_shardings=S(d[3]))),
                     ("out3", dict(out_shardings=S(d[3])))]:
        e = jax.export.export(_jit(jax, f, **kw))(h)     # what the Exported records of it
        out[f"{name} shardings"] = [repr(e._in_named_shardings), repr(e._out_named_shardings),
                                    repr(e.in_shardings_hlo), repr(e.out_shardings_hlo),
                                    e.nr_devices]
    return out


def eager(jax) -> dict:
    jnp, d = jax.numpy, jax.devices()
    g = jax.jit(lambda a, b: (a * b).sum())
    ones = jnp.ones(4)
    on3 = lambda v: jax.device_put(v, d[3])          # noqa: E731
    runs = {
        "grad uncommitted": lambda: jax.grad(g)(ones, ones),
        "grad committed3 second": lambda: jax.grad(g)(ones, on3(ones)),
        "grad committed3 first": lambda: jax.grad(g)(on3(ones), ones),
        "grad both args committed3 first": lambda: jax.grad(g, (0, 1))(on3(ones), ones),
        "vmap committed3 second": lambda: jax.vmap(g)(jnp.ones((2, 4)), on3(jnp.ones((2, 4)))),
        "vmap uncommitted": lambda: jax.vmap(g)(jnp.ones((2, 4)), jnp.ones((2, 4))),
    }
    return {name: _leaves(jax, run) for name, run in runs.items()}


def _double(v):
    return v * 2


def _scale(v, w):
    return v * w


def inner(jax) -> dict:
    """make_jaxpr of transformations of a pinned jit (JAX prints the equations' given
    in_shardings/out_shardings), and the module of a jit calling one (its function's operands
    and results constrained over `@empty_mesh`)."""
    jnp, d = jax.numpy, jax.devices()
    S = jax.sharding.SingleDeviceSharding
    x = jnp.arange(4.0)
    pinned = {"in3": dict(in_shardings=S(d[3])), "out3": dict(out_shardings=S(d[3])),
              "dev3": dict(device=d[3])}
    out = {}
    for kind, kw in pinned.items():
        p = _jit(jax, _double, **kw)
        q = _jit(jax, _scale, **kw) if kind != "in3" else \
            _jit(jax, _scale, in_shardings=(S(d[3]), None))
        runs = {
            "grad jaxpr": lambda: jax.make_jaxpr(jax.grad(lambda v: p(v).sum()))(x),
            "jvp jaxpr": lambda: jax.make_jaxpr(lambda v: jax.jvp(p, (v,), (v,)))(x),
            "vmap jaxpr": lambda: jax.make_jaxpr(jax.vmap(p))(jnp.ones((2, 4))),
            "two operands grad jaxpr": lambda: jax.make_jaxpr(
                jax.grad(lambda v, w: q(v, w).sum(), (0, 1)))(x, x),
            "outer text": lambda: jax.jit(lambda v: p(v) + 1).lower(x).as_text(),
            "outer two operands text": lambda: jax.jit(lambda v: q(v, v) + 1).lower(x).as_text(),
        }
        for name, run in runs.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                out[f"{kind} {name}"] = str(run())
    return out


def unused(jax) -> dict:
    """A jit whose committed or split arguments are unused: JAX drops them before it places
    the program (unless keep_unused), so the used ones decide, else the default device,
    uncommitted (over a mesh starting at device 0 or at device 4)."""
    jnp, d = jax.numpy, jax.devices()
    Mesh, NamedSharding, P = (jax.sharding.Mesh, jax.sharding.NamedSharding,
                              jax.sharding.PartitionSpec)
    y = jnp.ones(3)
    a5 = jax.device_put(y, d[5])
    second = lambda a, b: b * 2                      # noqa: E731
    runs = {
        "committed5": lambda: jax.jit(second)(a5, y),
        # (a function of its own: JAX's jit of one function keeps the first jit's placement
        # for a later one with another keep_unused)
        "committed5 keep_unused": lambda: jax.jit(lambda a, b: b * 2, keep_unused=True)(a5, y),
        # (JAX's error names the arguments and the function, kept or not)
        "committed5, committed2 keep_unused": lambda: jax.jit(
            lambda a, b: b * 2, keep_unused=True)(a5, jax.device_put(y, d[2])),
        "committed5, used committed2": lambda: jax.jit(second)(a5, jax.device_put(y, d[2])),
        "committed5, committed2": lambda: jax.jit(lambda a, b: a + b)(
            a5, jax.device_put(y, d[2])),
        "committed5 lowered": lambda: jax.jit(second).lower(a5, y).compile()(a5, y),
        "committed5 twice": lambda: [jax.jit(second)(a5, y) for _ in range(2)][1],
    }
    for name, devices in [("mesh0", d[:4]), ("mesh4", d[4:]), ("mesh_all", d)]:
        mesh = Mesh(np.array(devices), ("x",))
        xs = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("x")))
        xr = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P()))
        runs.update({
            f"{name} split": lambda xs=xs: jax.jit(second)(xs, y),
            f"{name} split, used committed5": lambda xs=xs: jax.jit(second)(
                xs, jax.device_put(y, d[5])),
            f"{name} split, used committed0": lambda xs=xs: jax.jit(second)(
                xs, jax.device_put(y, d[0])),
            f"{name} replicated": lambda xr=xr: jax.jit(second)(xr, y),
            f"{name} split alone": lambda xs=xs: jax.jit(lambda a: jnp.ones(2))(xs),
            f"{name} grad": lambda xs=xs: jax.grad(lambda a, b: (b * 2).sum(), 1)(xs, y),
        })
    return {name: _leaves(jax, run) for name, run in runs.items()}


def meshes(jax) -> dict:
    """A pinned jit given an argument over a mesh (split: JAX's error; replicated: moved to
    its device), called inside a jit of split arguments, and under set_mesh."""
    jnp, d = jax.numpy, jax.devices()
    S = jax.sharding.SingleDeviceSharding
    mesh = jax.sharding.Mesh(np.array(d), ("x",))
    split = jax.device_put(jnp.arange(8.0), jax.sharding.NamedSharding(
        mesh, jax.sharding.PartitionSpec("x")))
    whole = jax.device_put(jnp.arange(8.0), jax.sharding.NamedSharding(
        mesh, jax.sharding.PartitionSpec()))
    out = {}
    for kind, kw in [("in3", dict(in_shardings=S(d[3]))), ("out3", dict(out_shardings=S(d[3]))),
                     ("dev3", dict(device=d[3]))]:
        p = _jit(jax, lambda v: v * 2, **kw)
        runs = {
            "direct split": lambda: p(split),
            "direct replicated": lambda: p(whole),
            "outer jit split": lambda: jax.jit(lambda v: p(v) + 1)(split),
            "grad split": lambda: jax.grad(lambda v: p(v).sum())(split),
            "vmap replicated": lambda: jax.vmap(p)(split.reshape(2, 4)),
        }
        for name, run in runs.items():
            out[f"{kind} {name}"] = _leaves(jax, run)
        with jax.set_mesh(mesh):
            out[f"{kind} set_mesh direct"] = _leaves(jax, lambda: p(jnp.arange(8.0)))
            out[f"{kind} set_mesh outer"] = _leaves(
                jax, lambda: jax.jit(lambda v: p(v) + 1)(jnp.arange(8.0)))
    return out


def run(jax) -> dict:
    return {"texts": texts(jax), "calls": calls(jax), "exported": exported(jax),
            "eager": eager(jax), "inner": inner(jax), "unused": unused(jax),
            "meshes": meshes(jax)}
