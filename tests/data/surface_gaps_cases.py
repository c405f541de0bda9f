"""Small differences from JAX 0.10.2 users meet at the surface, run the same way with JAX and
with jxkernel on one CPU device (reference/make_surface_gaps_reference.py records JAX's answers
in tests/data/surface_gaps_reference.json; tests/random/test_random.py,
tests/numpy/test_numpy_ufuncs.py and tests/sharding/test_sharding.py compare).

`run_mistakes(jax)`: per case, the exception's class name and its whole message, memory
addresses written as 0x0 (`text_of`), or "ok" and the result's sharding repr.
`class_paths(jax)`: what `type(...)`, reprs and pickles show of the sharding classes.
`meshless_args(jax)`: the mesh `jax.typeof` gives jit's arguments under `set_mesh`, by where
each argument came from.
"""
import functools
import json
import os
import pickle
import pickletools
import re

import numpy as np


def text_of(e) -> list:
    """[class name, message] of an exception, memory addresses (`<function sin at 0x7f..>`)
    written as 0x0."""
    return [type(e).__name__, re.sub(r"0x[0-9a-f]+", "0x0", str(e))]


def outcome(thunk) -> list:
    try:
        out = thunk()
    except Exception as e:            # noqa: BLE001 (recording whatever the library raises)
        return text_of(e)
    return ["ok", repr(getattr(out, "sharding", out))]


def _samplers(jax):
    r, n = jax.random, np.int32(3)
    key = r.key(0)
    return {                          # a NumPy integer as the shape
        "normal": lambda: r.normal(key, n), "uniform": lambda: r.uniform(key, np.int64(3)),
        "randint": lambda: r.randint(key, n, 0, 5), "bits": lambda: r.bits(key, n),
        "bernoulli": lambda: r.bernoulli(key, 0.5, n), "gamma": lambda: r.gamma(key, 1.0, n),
        "beta": lambda: r.beta(key, 1.0, 2.0, n), "exponential": lambda: r.exponential(key, n),
        "truncated_normal": lambda: r.truncated_normal(key, -1.0, 1.0, n),
        "categorical": lambda: r.categorical(key, np.zeros(4), shape=n),
        "poisson": lambda: r.poisson(key, 2.0, n), "laplace": lambda: r.laplace(key, n),
        "cauchy": lambda: r.cauchy(key, n), "gumbel": lambda: r.gumbel(key, n),
        "rademacher": lambda: r.rademacher(key, n), "logistic": lambda: r.logistic(key, n),
        "t": lambda: r.t(key, 3.0, n), "dirichlet": lambda: r.dirichlet(key, np.ones(2), n),
        "binomial": lambda: r.binomial(key, 5.0, 0.5, n),
        "chisquare": lambda: r.chisquare(key, 2.0, n), "maxwell": lambda: r.maxwell(key, n),
        "choice": lambda: r.choice(key, 5, n),
        "multivariate_normal": lambda: r.multivariate_normal(key, np.zeros(2), np.eye(2), n),
        "one_size_int": lambda: r.normal(key, 3),                      # (JAX takes these)
        "tuple_of_numpy": lambda: r.normal(key, (n,)),
        "zero_d_array": lambda: r.normal(key, np.array(3)),
        # categorical's axis out of the logits' bounds: JAX's np.delete IndexError (it drew
        # along axis % ndim, and a 0-d logits divided by zero)
        "categorical_axis_past_the_rank": lambda: r.categorical(key, np.zeros((2, 3)), axis=3),
        "categorical_axis_before_the_first": lambda: r.categorical(key, np.zeros((2, 3)),
                                                                   axis=-3),
        "categorical_axis_past_under_jit": lambda: jax.jit(
            lambda logits: r.categorical(key, logits, axis=2))(np.zeros((2, 3))),
        "categorical_0d_logits": lambda: r.categorical(key, np.float32(0.0)),
    }


def _partition_specs(jax):
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    x, a = np.arange(4.0, dtype=np.float32), jnp.arange(4.0)
    return {                          # a bare PartitionSpec where a mesh is needed
        "device_put": lambda: jax.device_put(x, P("x")),
        "device_put_array": lambda: jax.device_put(a, P()),
        "device_put_list": lambda: jax.device_put([x], [P("x")]),
        "to_device": lambda: a.to_device(P()),
        "jit_in_shardings": lambda: jax.jit(lambda v: v, in_shardings=P("x"))(x),
        "jit_out_shardings": lambda: jax.jit(lambda v: v, out_shardings=P("x"))(x),
        "with_sharding_constraint": lambda: jax.lax.with_sharding_constraint(x, P("x")),
        "reshard": lambda: jax.sharding.reshard(x, P("x")),
        "zeros_out_sharding": lambda: jnp.zeros(4, out_sharding=P("x")),
        "make_array_from_callback":
            lambda: jax.make_array_from_callback((4,), P("x"), lambda i: x[i]),
        "make_array_from_single_device_arrays":
            lambda: jax.make_array_from_single_device_arrays((4,), P("x"), [a]),
        "zeros": lambda: jnp.zeros(4, device=P()),
        "full": lambda: jnp.full(4, 1.0, device=P()),
        "zeros_like": lambda: jnp.zeros_like(a, device=P("x")),
        "ones_like": lambda: jnp.ones_like(a, shape=(2,), device=P()),
        "full_like": lambda: jnp.full_like(a, 2, dtype=np.int32, device=P()),
        "empty_like": lambda: jnp.empty_like(a, device=P()),
        "arange": lambda: jnp.arange(4, device=P()),
        "eye": lambda: jnp.eye(2, device=P()),
        "array": lambda: jnp.array([1, 2], device=P()),
        "asarray": lambda: jnp.asarray(x, device=P("x")),
        "asarray_array": lambda: jnp.asarray(a, device=P("x")),
        "linspace": lambda: jnp.linspace(0, 1, 3, device=P()),
        "astype": lambda: jnp.astype(a, np.int32, device=P()),
        # device= with out_sharding=: that refusal comes first, whatever device= is
        "zeros_device_out_sharding": lambda: jnp.zeros(4, device=P(), out_sharding=P("x")),
        "ones_device_out_sharding":
            lambda: jnp.ones(4, device=jax.devices()[0], out_sharding=P("x")),
        "full_like_device_out_sharding":
            lambda: jnp.full_like(a, 2, device=P(), out_sharding=P()),
        "array_device_out_sharding": lambda: jnp.array([1, 2], device=P(), out_sharding=P()),
    }


def _ufunc_arity(jax):
    jnp = jax.numpy
    return {                          # jnp ufuncs given too many or too few arguments
        "sin_two": lambda: jnp.sin(1, 2), "sin_object_one": lambda: jnp.sin(object(), 1),
        "sin_one_object": lambda: jnp.sin(1, object()), "sin_text_one": lambda: jnp.sin("a", 1),
        "sin_list_one": lambda: jnp.sin([1], 1), "sin_none_one": lambda: jnp.sin(None, 1),
        "sin_none": lambda: jnp.sin(), "sin_object": lambda: jnp.sin(object()),
        "sin_keyword_object": lambda: jnp.sin(x=object()),
        "add_one": lambda: jnp.add(1), "add_three": lambda: jnp.add(1, 2, 3),
        "add_none": lambda: jnp.add(), "add_object_three": lambda: jnp.add(object(), 1, 2),
        "add_keyword_y": lambda: jnp.add(1, y=2),
    }


def _operand_types(jax):
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    o = np.ones(4, np.float32)

    def typed(f):                     # f(split, replicated, numpy) jitted under set_mesh
        def run():
            with jax.sharding.set_mesh(mesh):
                x = jax.device_put(np.arange(4.0, dtype=np.float32), P("x"))
                r = jax.device_put(np.arange(4.0, dtype=np.float32), P())
                return jax.jit(f)(x, r, o)
        return run
    return {                          # operands of concatenate, stack, select_n typed apart
        "concat": typed(lambda x, r, o: jnp.concatenate([x, r])),
        "concat_same": typed(lambda x, r, o: jnp.concatenate([x, x])),
        "concat_numpy": typed(lambda x, r, o: jnp.concatenate([x, o])),
        "stack": typed(lambda x, r, o: jnp.stack([x, x, r])),
        "stack_numpy": typed(lambda x, r, o: jnp.stack([o, x])),
        "where": typed(lambda x, r, o: jnp.where(x > 0, x, r)),
        "where_scalar": typed(lambda x, r, o: jnp.where(x > 0, x, 0.0)),
        "where_numpy": typed(lambda x, r, o: jnp.where(x > 0, x, o)),
        "select_n_which": typed(lambda x, r, o: jax.lax.select_n(r > 0, x, x)),
        "add": typed(lambda x, r, o: x + r),
    }


GROUPS = {"random": _samplers, "spec": _partition_specs, "arity": _ufunc_arity,
          "operands": _operand_types}


def run_mistakes(jax, group=None) -> dict:
    """name -> outcome of each case of `group` ("random", "spec", "arity", "operands"; None:
    all): the "spec" cases both outside a mesh ("spec_...") and under `set_mesh` of one
    device's mesh ("in_mesh_spec_...")."""
    out = {}
    for name, cases in GROUPS.items():
        if group in (None, name):
            out.update({f"{name}_{k}": outcome(v) for k, v in cases(jax).items()})
    if group in (None, "spec"):
        with jax.sharding.set_mesh(jax.make_mesh((1,), ("x",))):
            out.update({f"in_mesh_spec_{k}": outcome(v)
                        for k, v in _partition_specs(jax).items()})
    return out


def _pickled_class(obj) -> list:
    """[module, name] of the first global a pickle of `obj` names: its class (or the function
    that rebuilds it), which unpickling imports first."""
    strings = []
    for op, arg, _ in pickletools.genops(pickle.dumps(obj, protocol=4)):
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE"):
            strings.append(arg)
        elif op.name == "STACK_GLOBAL":
            return strings[-2:]
        elif op.name == "GLOBAL":
            return arg.split(" ")
    return []


def class_paths(jax):
    """The names the sharding classes show: their module and qualified name, `repr` of the
    class and of an instance, and what pickling writes and reads back."""
    sh = jax.sharding
    mesh = jax.make_mesh((1,), ("x",))
    spec = sh.PartitionSpec("x", None)
    out = {"P_is_PartitionSpec": jax.P is sh.PartitionSpec,
           "has_use_mesh": hasattr(sh, "use_mesh")}          # (JAX 0.10.2 has set_mesh only)
    for name, obj in {"P": spec, "Mesh": mesh, "AbstractMesh": mesh.abstract_mesh,
                      "AxisType": sh.AxisType.Explicit,
                      "NamedSharding": sh.NamedSharding(mesh, spec),
                      "UNCONSTRAINED": sh.PartitionSpec.UNCONSTRAINED}.items():
        t = type(obj)
        entry = {"module": t.__module__, "qualname": t.__qualname__, "name": t.__name__,
                 "type_repr": repr(t), "repr": repr(obj), "str": str(obj)}
        try:
            back = pickle.loads(pickle.dumps(obj, protocol=4))
            entry["pickle"] = [_pickled_class(obj), back == obj]
        except Exception as e:        # noqa: BLE001 (a Mesh holds devices: not picklable)
            entry["pickle"] = text_of(e)
        out[name] = entry
    return out


def meshless_args(jax):
    """Under `set_mesh` of a mesh with an Explicit axis: the mesh axis names `jax.typeof`
    gives a jitted function's arguments, and values made from them, for NumPy data, a Python
    scalar and Arrays made outside and inside the mesh (and the result's sharding and type);
    then the same names of NumPy arguments under make_jaxpr, vmap, jvp and eval_shape."""
    jnp, lax, P = jax.numpy, jax.lax, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    outside = jnp.arange(4.0)
    seen = []

    def f(a, s):
        made = {"a": a, "s": s, "a*s": a * s, "sin": jnp.sin(a), "neg": -a, "T": a.T,
                "sum": a.sum(), "reshape": a.reshape(2, 2), "astype": a.astype(np.int32),
                "arange": jnp.arange(3), "iota": lax.broadcasted_iota(np.int32, (2, 3), 1),
                "stack": jnp.stack([a]), "unstack": jnp.unstack(jnp.stack([a, a]))[0],
                "zeros": jnp.zeros(2), "zeros_like": jnp.zeros_like(a),
                "where": jnp.where(a > 0, a, 0.0)}
        seen.append({k: list(jax.typeof(v).sharding.mesh.axis_names) for k, v in made.items()})
        return a * s

    out = {}
    with jax.sharding.set_mesh(mesh):
        inside, split = jnp.arange(4.0), jax.device_put(np.arange(4.0, dtype=np.float32), P("x"))
        numpy = (np.ones(4, np.float32), 2.0)
        for name, args in {"numpy": numpy, "outside_mesh": (outside, np.float32(2)),
                           "inside_mesh": (inside, jnp.float32(2)),
                           "split": (split, 2.0)}.items():
            seen.clear()
            result = jax.jit(f)(*args)
            out[name] = [seen[0], repr(result.sharding), str(jax.typeof(result))]
        rows = np.ones((3, 4), np.float32)
        for name, run in {"make_jaxpr": lambda g: jax.make_jaxpr(g)(*numpy),
                          "vmap": lambda g: jax.vmap(g, (0, None))(rows, 2.0),
                          "jvp": lambda g: jax.jvp(g, numpy, numpy),
                          "eval_shape": lambda g: jax.eval_shape(g, *numpy)}.items():
            seen.clear()
            # (a new function each time: JAX's make_jaxpr and eval_shape find jit's traces)
            run(lambda a, s: f(a, s))
            out[name] = {k: seen[0][k] for k in ("a", "s", "a*s", "T", "zeros")}
    return out


def out_sharding_jaxprs(jax):
    """make_jaxpr's text of jnp's contractions given an out_sharding= under set_mesh, of an
    operand split over the mesh: their dot_general typed so, no constraint after it."""
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    b = np.ones((2, 4), np.float32)
    cases = {"einsum": lambda x, y: jnp.einsum("ij,jk->ik", x, y, out_sharding=P("x")),
             "einsum_transposed": lambda x, y: jnp.einsum("ij,jk->ki", x, y,
                                                          out_sharding=P(None, "x")),
             "matmul": lambda x, y: jnp.matmul(x, y, out_sharding=P(None, "x")),
             "dot": lambda x, y: jnp.dot(x, y, out_sharding=P("x")),
             "zeros": lambda x, y: jnp.zeros((4, 4), out_sharding=P("x"))}
    with jax.sharding.set_mesh(mesh):
        a = jax.device_put(np.ones((4, 2), np.float32), P("x", None))     # (typed: 4@x)
        return {k: str(jax.make_jaxpr(f)(a, b)) for k, f in cases.items()}


def as_jxkernel(value):
    """JAX's recorded answer with jxkernel's names for JAX's modules (`jax._src.mesh` is
    `jxkernel._src.mesh`, `<class 'jax.P'>` is `<class 'jxkernel.P'>`); messages that name
    the public API in prose (`jax.set_mesh`) keep JAX's words."""
    if isinstance(value, dict):
        return {k: as_jxkernel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_jxkernel(v) for v in value]
    if isinstance(value, str):
        if value == "jax" or value.startswith("jax."):        # a module's name
            return "jxkernel" + value[3:]
        return value.replace("jax._src.", "jxkernel._src.").replace("'jax.", "'jxkernel.")
    return value


@functools.cache
def _reference() -> dict:
    with open(os.path.join(os.path.dirname(__file__), "surface_gaps_reference.json")) as f:
        return json.load(f)


def recorded(part: str, group=None):
    """JAX's recorded answers of `part` ("mistakes", "class_paths", "meshless_args"), in
    jxkernel's names (`as_jxkernel`); of the mistakes, those of `group` only."""
    answers = as_jxkernel(_reference()[part])
    if group is None:
        return answers
    prefixes = (f"{group}_", f"in_mesh_{group}_")
    return {k: v for k, v in answers.items() if k.startswith(prefixes)}
