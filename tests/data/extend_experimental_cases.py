"""Programs using jax.extend.core, jax.experimental.io_callback, jax.ad_checkpoint's
print_saved_residuals, shardings, typed keys and ShapeDtypeStruct, written as JAX's tutorials
write them. Shared by reference/make_extend_experimental_reference.py (run with real JAX) and
tests/_jax/extend/test_extend_experimental.py (run with jxkernel).

`run(jax)` runs every program with the package `jax` (JAX or jxkernel) and returns
{program: {name: value}}. Values are JSON data: text, ints and booleans are compared exactly,
lists of floats (under a key ending in "_values") in ulps. Each program compiles little: the
suite's time budget is tight.
"""
import contextlib
import importlib
import io
import re

import numpy as np
from recorded_errors import error_of  # tests/data


def _module(jax, name):
    return importlib.import_module(f"{jax.__name__}.{name}")


def _error(fn) -> list | None:
    """[exception class, first line of its message] of `fn()`, or None if it returns."""
    return error_of(fn, "\n")


def _floats(x) -> list:
    return np.asarray(x, np.float64).ravel().tolist()


def _printed(fn) -> list:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue().splitlines()


def _eval_jaxpr(core, jaxpr, consts, *args):
    """The evaluator of JAX's "Writing custom Jaxpr interpreters" tutorial, as written there."""
    env = {}

    def read(var):
        if type(var) is core.Literal:
            return var.val
        return env[var]

    def write(var, val):
        env[var] = val

    list(map(write, jaxpr.invars, args))
    list(map(write, jaxpr.constvars, consts))
    for eqn in jaxpr.eqns:
        invals = list(map(read, eqn.invars))
        outvals = eqn.primitive.bind(*invals, **eqn.params)
        if not eqn.primitive.multiple_results:
            outvals = [outvals]
        list(map(write, eqn.outvars, outvals))
    return list(map(read, jaxpr.outvars))


def custom_interpreter(jax):
    jnp, lax, core = jax.numpy, jax.lax, _module(jax, "extend.core")

    def f(x):
        y = jnp.exp(jnp.tanh(x)) * 2.0 + 1
        z = jax.jit(lambda a: a * 3)(y)
        return jnp.sum(z) + jnp.arange(3.0)[1], z.astype(jnp.int32)

    x = jnp.arange(5.0, dtype=jnp.float32) / 4
    closed = jax.make_jaxpr(f)(x)
    eqns = closed.jaxpr.eqns
    run = lambda v: _eval_jaxpr(core, closed.jaxpr, closed.literals, v)     # noqa: E731
    total, ints = run(x)
    return {
        "jaxpr": str(closed),
        "types": [type(closed).__name__, type(closed.jaxpr).__name__, type(eqns[0]).__name__],
        "isinstance": [isinstance(closed, core.ClosedJaxpr), isinstance(closed.jaxpr, core.Jaxpr),
                       isinstance(eqns[0], core.JaxprEqn), isinstance(eqns[2].invars[0], core.Var),
                       type(eqns[2].invars[1]) is core.Literal,
                       isinstance(eqns[0].primitive, core.Primitive)],
        "invar_types": [[type(v).__name__ for v in e.invars] for e in eqns],
        "primitives": [str(e.primitive) for e in eqns],
        "multiple_results": [e.primitive.multiple_results for e in eqns],
        "literal": [repr(eqns[2].invars[1]), str(eqns[2].invars[1].val), repr(eqns[2].invars[1].aval)],
        "eqn_str": str(eqns[0]),
        "avals": [repr(closed.in_avals[0]), [repr(a) for a in closed.out_avals]],
        "consts": [len(closed.literals), len(closed.consts)],
        "same_primitives": [core.primitives.exp_p is lax.exp_p, core.primitives.tanh_p is lax.tanh_p,
                            str(core.primitives.jit_p), str(core.primitives.mul_p)],
        "ints": np.asarray(ints).tolist(),
        "eval_values": _floats(total),
        "jaxpr_as_fun_values": _floats(core.jaxpr_as_fun(closed)(x)[0]),
        "jit_values": _floats(jax.jit(lambda v: run(v)[0])(x)),
        "grad_values": _floats(jax.grad(lambda v: run(v)[0])(x)),
        "vmap_values": _floats(jax.vmap(lambda v: run(v)[0])(jnp.stack([x, -x]))),
        "f_values": _floats(f(x)[0]),
    }


def inverse_interpreter(jax):
    """The inverse interpreter of the same tutorial, with its `jax._src.util.safe_map`."""
    jnp, lax, core = jax.numpy, jax.lax, _module(jax, "extend.core")
    safe_map = _module(jax, "_src.util").safe_map
    inverse_registry = {lax.exp_p: jnp.log, lax.tanh_p: jnp.arctanh}

    def inverse_jaxpr(jaxpr, consts, *args):
        env = {}

        def read(var):
            return var.val if type(var) is core.Literal else env[var]

        def write(var, val):
            env[var] = val
        safe_map(write, jaxpr.outvars, args)
        safe_map(write, jaxpr.constvars, consts)
        for eqn in jaxpr.eqns[::-1]:
            invals = safe_map(read, eqn.outvars)
            if eqn.primitive not in inverse_registry:
                raise NotImplementedError(f"{eqn.primitive} does not have registered inverse.")
            safe_map(write, eqn.invars, [inverse_registry[eqn.primitive](*invals)])
        return safe_map(read, jaxpr.invars)

    def inverse(fun):
        def wrapped(*args, **kwargs):
            closed = jax.make_jaxpr(fun)(*args, **kwargs)
            out = inverse_jaxpr(closed.jaxpr, closed.literals, *args)
            return out[0]
        return wrapped

    f = lambda x: jnp.exp(jnp.tanh(x))                             # noqa: E731
    x = jnp.linspace(-0.5, 0.5, 4, dtype=jnp.float32)
    return {
        "jaxpr": str(jax.make_jaxpr(inverse(f))(f(x))),
        "roundtrip_values": _floats(inverse(f)(f(x))),
        "jit_values": _floats(jax.jit(inverse(f))(f(x))),
        "vmap_values": _floats(jax.vmap(inverse(f))(f(x))),
        "missing": _error(lambda: inverse(jnp.sin)(x)),
        "safe_map_error": _error(lambda: safe_map(lambda a, b: a, [1, 2], [3])),
    }


def user_primitive(jax):
    """A primitive made with jax.extend.core.Primitive, rule by rule, and the errors JAX
    gives for each rule still missing."""
    jnp, core = jax.numpy, _module(jax, "extend.core")
    p = core.Primitive("multiply_add")
    x = jnp.float32(2.0)
    out = {"repr": repr(p), "multiple_results": p.multiple_results,
           "eager_no_impl": _error(lambda: p.bind(x, x, x))}
    p.def_impl(lambda a, b, c: a * b + c)
    out["eager_values"] = _floats(p.bind(x, jnp.float32(3.0), jnp.float32(1.0)))
    out["jit_no_abstract_eval"] = _error(lambda: jax.jit(lambda a: p.bind(a, a, a))(x))
    p.def_abstract_eval(lambda a, b, c: jax.core.ShapedArray(a.shape, a.dtype))
    out["jaxpr"] = str(jax.make_jaxpr(lambda a: p.bind(a, a, 1.0))(x))
    out["jit_no_lowering"] = _error(lambda: jax.jit(lambda a: p.bind(a, a, a))(x))
    out["grad_no_jvp"] = _error(lambda: jax.grad(lambda a: p.bind(a, a, a))(x))
    out["vmap_no_batching"] = _error(lambda: jax.vmap(lambda a: p.bind(a, a, a))(jnp.ones(2)))
    return out


def io_callbacks(jax):
    jnp, io_callback = jax.numpy, _module(jax, "experimental").io_callback
    log = []

    def record(v):
        log.append(float(np.asarray(v)))
        return np.asarray(v, np.float32) * 2

    s = jax.ShapeDtypeStruct((), jnp.float32)
    f = jax.jit(lambda v: io_callback(record, s, v) + 1)
    results = [io_callback(record, s, 2.0), f(3.0), f(4.0)]
    batched = jax.vmap(lambda v: io_callback(record, s, v))(jnp.arange(3.0))
    seen = []
    # called for its side effect alone: the call must not be dropped
    jax.jit(lambda v: (io_callback(lambda a: seen.append(int(a)), None, v), v + 1)[1])(5)
    return {
        "jaxpr": str(jax.make_jaxpr(lambda v: io_callback(record, s, v, ordered=True))(1.0)),
        "vmap_jaxpr": str(jax.make_jaxpr(jax.vmap(lambda v: io_callback(record, s, v)))(
            jnp.arange(3.0))),
        "results_values": [float(r) for r in results],
        "vmap_values": _floats(batched),
        "log": log, "side_effect_only": seen,
        "types": [type(results[0]).__name__ in ("Array", "ArrayImpl")],
        "vmap_ordered": _error(lambda: jax.vmap(
            lambda v: io_callback(record, s, v, ordered=True))(jnp.arange(3.0))),
        "grad": _error(lambda: jax.grad(lambda v: io_callback(record, s, v))(1.0)),
        "not_callable": [_error(lambda: io_callback(3, s, 1.0))[0] in ("TypeError", "JaxRuntimeError")],
    }


def saved_residuals(jax):
    jnp, ad_checkpoint = jax.numpy, _module(jax, "ad_checkpoint")

    def f(W, x):
        y = jnp.sin(jnp.dot(W, x))
        z = ad_checkpoint.checkpoint_name(jnp.cos(y), "c")
        return jnp.sum(z * 2.0)

    W, x = jnp.ones((3, 3)), jnp.ones(3)
    policies = jax.checkpoint_policies
    programs = {
        "plain": (f, (W, x)),
        "checkpoint": (jax.checkpoint(f), (W, x)),
        "dots_saveable": (jax.checkpoint(f, policy=policies.dots_saveable), (W, x)),
        "names": (jax.checkpoint(f, policy=policies.save_only_these_names("c")), (W, x)),
        "jit_inside": (lambda p: jnp.sum(jax.jit(lambda a: jnp.sin(a) * a)(p["a"])), ({"a": x},)),
        "scalars": (lambda a, b: a * b, (1.0, 2.0)),
    }
    return {name: [re.sub(r" from \S+:\d+(:\d+)? \(\S+\)$", " from <source>", line)
                   for line in _printed(lambda: ad_checkpoint.print_saved_residuals(fn, *args))]
            for name, (fn, args) in programs.items()}


def shardings(jax):
    jnp = jax.numpy
    x = jnp.ones((2, 3))
    s = x.sharding
    key = jax.random.key(0)
    moved = jax.device_put(jnp.arange(3), s)
    return {
        "repr": repr(s), "type": type(s).__name__, "device_set": sorted(map(repr, s.device_set)),
        "flags": [s.is_fully_replicated, s.is_fully_addressable, s.num_devices],
        "memory_kind": s.memory_kind, "shard_shape": list(s.shard_shape((2, 3))),
        "indices": repr(s.devices_indices_map((2, 3))),
        "equal": [s == jnp.zeros(1).sharding, hash(s) == hash(jnp.zeros(1).sharding)],
        "pinned": repr(s.with_memory_kind("pinned_host")),
        "bad_memory_kind": _error(lambda: s.with_memory_kind("bogus")),
        "device_put": [repr(moved.sharding), np.asarray(moved).tolist()],
        "jit_result": repr(jax.jit(lambda a: a + 1)(x).sharding),
        "key": [repr(key.sharding), isinstance(key, jax.Array),
                bool(jax.jit(lambda k: isinstance(k, jax.Array))(key))],
        "prng_key": [jnp.issubdtype(key.dtype, jax.dtypes.prng_key),
                     jnp.issubdtype(key.dtype, jax.dtypes.extended),
                     jnp.issubdtype(key.dtype, jnp.integer),
                     jnp.issubdtype(jnp.float32, jax.dtypes.prng_key),
                     jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key),
                     [c.__name__ for c in jax.dtypes.prng_key.__mro__]],
    }


def shape_dtype_structs(jax):
    jnp = jax.numpy
    x = jnp.ones(3)
    s = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    placed = jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding)
    key = jax.random.key(0)
    return {
        "reprs": [repr(s), repr(placed), repr(jax.ShapeDtypeStruct((), jnp.float32, weak_type=True)),
                  repr(s.update(dtype=jnp.int32, weak_type=True)),
                  repr(jax.ShapeDtypeStruct([2], "float32"))],
        "fields": [s.ndim, s.size, len(s), s.weak_type, s.sharding is None, str(placed.sharding)],
        "equal": [s == jax.ShapeDtypeStruct((2, 3), jnp.float32),
                  placed == jax.ShapeDtypeStruct(x.shape, x.dtype)],
        "eval_shape": [repr(jax.eval_shape(lambda a: a * 2, placed)),
                       repr(jax.eval_shape(lambda a: a * 2, 1.0)),
                       repr(jax.eval_shape(lambda k: (jax.random.split(k), k), key))],
        "lower_values": _floats(jax.jit(lambda a: a + 1).lower(placed).compile()(x)),
        "no_dtype": _error(lambda: jax.ShapeDtypeStruct((2,), None)),
        "bad_sharding": [_error(lambda: jax.ShapeDtypeStruct((2,), jnp.float32, sharding="x"))[0]],
        "unsized": _error(lambda: len(jax.ShapeDtypeStruct((), jnp.float32))),
    }


PROGRAMS = [custom_interpreter, inverse_interpreter, user_primitive, io_callbacks, saved_residuals, shardings,
            shape_dtype_structs]


def run(jax) -> dict:
    return {program.__name__: program(jax) for program in PROGRAMS}
