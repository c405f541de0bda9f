"""Gaps JAX's own api_test.py showed (the helper branch h-api), as cases run the same way with
JAX and with jxkernel: reference/make_api_file_gaps_reference.py records JAX 0.10.2's
answers in tests/data/api_file_gaps_reference.json, tests/jax_compat/test_api_file_gaps.py
compares.

`cases(jax)`: name -> a thunk; recorded by `record`: its value as nested lists, or its
error's [class name, message] with object addresses ("at 0x7f...") blanked."""
import collections.abc
import copy
import enum
import functools
import gc
import importlib
import inspect
import operator
import re
import weakref

import numpy as np


def gen(x):                    # a generator function: jit refuses it
    yield x


class BadRepr:
    def __call__(self):
        pass

    def __repr__(self):
        raise ValueError("invalid repr")


class Slotted:                 # no __weakref__: jit of it builds, a call raises
    __slots__ = []

    def __call__(self, x):
        return x + 1


class Foo(enum.IntEnum):
    bar = 1


def _staticmethod_jit(jax):
    class A:
        @jax.jit
        @staticmethod
        def f(x):
            return x + 2
    return A


def _repr_of_jit(jax):
    jitted = jax.jit(BadRepr())
    first = repr(jitted)
    del jitted.__wrapped__
    return [first, repr(jitted)]


def _reference_dropping(jax):
    """A jit closing over an array: gone with the last reference to the jit (no gc)."""
    x = jax.numpy.ones(3)
    f = (lambda x: lambda: x)(x)
    g = jax.jit(f)
    x = weakref.ref(x)
    g()
    g()
    del f
    alive = x() is not None
    del g
    return [alive, x() is None]


def _float0(jax):
    return jax.grad(lambda x: x + 0., allow_int=True)(1)


def _escaped_tracer(jax):
    """A tracer leaked from a jit, passed to another: [class, JAX's first words]."""
    saved = []
    jax.jit(lambda x: saved.append(x) or x)(0.)
    try:
        jax.jit(lambda x: x)(saved[0])
    except Exception as e:     # noqa: BLE001 (its class and words, not where it leaked)
        return [type(e).__name__, str(e).startswith("Encountered an unexpected tracer")]


def _compiled_under_vmap(jax):
    """A compiled jit called under vmap: [class, its words before the tracer's class path]."""
    jnp = jax.numpy
    f = jax.jit(lambda x: x + 4).lower(1.).compile()
    try:
        jax.vmap(lambda x: f(x) + 2)(jnp.ones(3))
    except TypeError as e:
        return [type(e).__name__, str(e).split(" <class")[0], str(e).endswith("BatchTracer'>.")]


def _make_jaxpr_names(jax):
    def foo(x):
        return x
    made = jax.make_jaxpr(foo)
    return [made.__name__, made.__qualname__.split("<locals>.")[-1], made.__module__]


def _conversions(jax):
    """Python's conversions of arrays: each one's error class and words, or its value."""
    jnp, out = jax.numpy, []
    values = [jnp.arange(10), jnp.arange(0, dtype="int32"), jnp.float32(0), jnp.int32(3),
              jnp.arange(1, dtype="float32")]
    for convert in (operator.index, hex, oct, int, float, complex, bool):
        for x in values:
            try:
                out.append(str(convert(x)))
            except (TypeError, ValueError) as e:
                out.append([type(e).__name__, str(e).split("\n")[0]])
    return out


def _args_res(jax):
    """The VJP's inputs kept as residuals (`args_res`): dropped while it waits, handed back
    before the call; NotNeeded for an argument the backward pass never reads."""
    jnp = jax.numpy
    y, f_vjp = jax.vjp(lambda x, y: x * y, 2., 3.)
    f_vjp.args_res = [None, None]
    f_vjp.args_res = [2., 3.]
    basic = f_vjp(1.)
    _, sin_vjp = jax.vjp(jnp.sin, 3.)
    x, w = jnp.ones((3, 4)), jnp.ones((4, 4))
    _, f2_vjp = jax.vjp(lambda x, w: 2. * ((1. * x) @ w), x, w)
    f2_vjp.args_res[1] = None
    f2_vjp.args_res[1] = w
    _, tree_vjp = jax.vjp(lambda d: [d["hi"] * d["bye"]], {"hi": 2., "bye": 3.})
    tree_vjp.args_res = [{"hi": 2., "bye": 3.}]
    return [y, basic, type(sin_vjp.args_res[0]).__name__, bool(sin_vjp.opaque_residuals),
            f2_vjp(jnp.ones((3, 4))), sorted(tree_vjp([1.])[0].items())]


def _returns_itself(x):
    return (2.0, _returns_itself)


def _transpose_through_jit(jax):
    transpose = jax.jit(lambda f, x: jax.linear_transpose(f, x), static_argnums=0)
    transposed = transpose(lambda x: 2. * x, 1.)
    return jax.jit(lambda f, x: f(x))(transposed, 3.)


def _double_donation(jax):
    f = jax.jit(lambda x, y: x + y, donate_argnums=(0,))
    x = jax.numpy.zeros((10,), jax.numpy.float32)
    try:
        f(x, x).block_until_ready()
    except RuntimeError as e:   # [RuntimeError, XLA's first line]
        return ["RuntimeError", str(e).split("\n")[0]]


def _f16_reductions(jax):
    """An eager bfloat16 sum, allowed, then refused under allow_f16_reductions(False) (its
    program compiled before is not reused), then allowed over a size-one axis."""
    x = jax.numpy.ones(3, "bfloat16")
    out = [jax.lax.reduce_sum(x, [0])]
    with jax.allow_f16_reductions(False):
        try:
            jax.lax.reduce_sum(x, [0])
        except ValueError as e:
            out.append(str(e))
        out.append(jax.lax.reduce_sum(jax.numpy.ones((1, 3), "bfloat16"), [0]))
    return out


def _update_inside_block(jax, config):
    """config.update inside a `with` block of the option: the block keeps its value, the
    update is the value after it (JAX's global value under its thread-local one)."""
    name = "jax_default_matmul_precision"
    before = config._read(name)
    try:
        with jax.default_matmul_precision("tensorfloat32"):
            config.update(name, "float32")
            inside = [jax.config.jax_default_matmul_precision, config._read(name)]
        return inside + [jax.config.jax_default_matmul_precision]
    finally:
        config.update(name, before)


class HasJaxArray:             # no pytree: jit refuses it; jnp converts it
    def __init__(self, value):
        self.value = value

    def __jax_array__(self):
        return self.value

    dtype = property(lambda self: self.value.dtype)
    shape = property(lambda self: self.value.shape)


def _jax_array_objects(jax):
    jnp = jax.numpy
    a = HasJaxArray(jnp.array(1))
    return [jnp.isscalar(a), jnp.size(a), list(jnp.shape(a)), str(jnp.result_type(a)),
            jnp.array(((a, a), [a, a]))]


def _eval_shape_sharding(jax):
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    out = jax.jit(lambda x: x * 2, out_shardings=s).eval_shape(np.arange(8))
    return [out.sharding == s, list(out.shape)]


def _int_overflow(jax):
    """A Python int past int32 given to a jit: JAX's OverflowError naming its path, before
    and after the jit has compiled for ints."""
    f = jax.jit(lambda x: x + 0)
    out = []
    for x in (2 ** 31, 2 ** 31 - 1, 2 ** 31):
        try:
            out.append(int(f(x)))
        except OverflowError as e:
            out.append(str(e))
    return out


def _tracer_sharding(jax):
    def f(x):
        try:
            x.sharding
        except AttributeError as e:
            out.append(str(e))
        return x
    out = []
    jax.jit(f)(jax.numpy.arange(2.))
    return out


def _abstract_eval_kinds(jax):
    """A primitive's abstract_eval returning a list for one result, or one aval for several."""
    Primitive, out = importlib.import_module(jax.__name__ + ".extend.core").Primitive, []
    one = Primitive("one_p")
    one.def_abstract_eval(lambda x: [x])
    one.def_impl(lambda x: x)
    many = Primitive("many_p")
    many.multiple_results = True
    many.def_abstract_eval(lambda x: x)
    many.def_impl(lambda x: [x])
    for p in (one, many):
        try:
            jax.jit(lambda x: p.bind(x))(1.0)
        except ValueError as e:
            out.append(str(e))
    return out


def _late_cpu_count(jax):
    jax.devices()
    try:
        jax.config.update("jax_num_cpu_devices", 2)
    except RuntimeError as e:
        return ["RuntimeError", str(e).split(" (")[0]]


def _scan_leak(jax):
    """A scan body appending its carry to a local list, under checking_leaks: a leak."""
    lst = []
    with jax.checking_leaks():
        try:
            jax.lax.scan(lambda c, x: (lst.append(c) or jax.numpy.sin(c), None), 1.,
                         np.arange(3.))
        except Exception as e:    # noqa: BLE001 (JAX's class is Exception itself)
            return [type(e).__name__, str(e).startswith("Leaked trace")]


def _vjp_in_jit_no_leak(jax):
    def apply_fn(x):
        return jax.vjp(jax.checkpoint(lambda x: jax.nn.relu(1.0 * x)), x)
    with jax.check_tracer_leaks():
        y, _ = jax.jit(apply_fn)(1.0)
    return y


def _grad_of_int_input_strict(jax):
    """An integer NumPy input of grad(allow_int=True) passes as given (no tangent): under
    strict promotion `x + 0.` is NumPy's; its cotangent is float0."""
    jnp = jax.numpy
    with jax.numpy_dtype_promotion("strict"):
        g = jax.grad(lambda x: jnp.sum(x + 0.), allow_int=True)(np.ones((2, 4), dtype=int))
    return [str(g.dtype), list(g.shape), list(g.reshape((4, 2)).shape)]


class HashableWithoutEq:
    def __hash__(self):
        return 1

    def __eq__(self, other):
        raise NotImplementedError("A Python error is as is, without stack trace")


def _static_eq_raises(jax):
    """A static argument whose __eq__ raises, compared with one of its type: JAX's ValueError
    (its words up to the error's own text); one of another type is not compared."""
    f = jax.jit(lambda x, y: x + 3, static_argnums=[1])
    f(1, 1)
    out = [int(f(1, HashableWithoutEq()))]
    try:
        f(1, HashableWithoutEq())
    except ValueError as e:
        out.append(str(e).split(" The error was")[0].replace("api_file_gaps_cases.", ""))
    return out


class HashedByFieldUnequalToItself:
    """Hashed by its field, its __eq__ False even for itself."""
    def __init__(self, k):
        self.k = k

    def __hash__(self):
        return hash(self.k)

    def __eq__(self, other):
        return False


class HashedByFieldEqRaises(HashedByFieldUnequalToItself):
    __hash__ = HashedByFieldUnequalToItself.__hash__

    def __eq__(self, other):
        raise NotImplementedError("no equality")


def _static_eq_false_or_raising(jax):
    """What jit's cache meets at a static value of equal hash (the recompile explainer's claims
    about such a class): the traces after the same object twice and then an equal copy, for a
    class unequal to itself; and for one whose __eq__ raises, the same object twice."""
    traces = []

    def g(x, s):
        traces.append(None)
        return x * s.k
    f = jax.jit(g, static_argnums=1)
    s = HashedByFieldUnequalToItself(2)
    f(1.0, s)
    f(1.0, s)
    counts = [len(traces)]
    f(1.0, HashedByFieldUnequalToItself(2))
    counts.append(len(traces))
    r = HashedByFieldEqRaises(2)
    f(1.0, r)
    f(1.0, r)
    return counts + [len(traces)]


def _jit_state(jax):
    """A jit's __getstate__ (JAX's test_fun_name): the function's name for plain and
    partial functions, a named partial's own, and the static arguments' keys."""
    import functools

    def my_function(x, y=1, z=2):
        return x
    named = functools.partial(my_function)
    named.__name__ = "my_partial"
    funs = [my_function, functools.partial(my_function), functools.partial(
        functools.partial(my_function)), named, lambda: my_function(1),
        functools.partial(my_function, y=3)]
    state = jax.jit(my_function, static_argnums=(1,), static_argnames="z").__getstate__()
    return [[jax.jit(f).__getstate__()["function_name"] for f in funs], state["version"],
            state["fun"] is my_function, state["static_argnums"], state["static_argnames"]]


def _python_scalar_primals(jax):
    """vjp of Python-float primals (custom_api_test's test_symbolic_zero_custom_vjp): kept as
    JAX's TypedFloat, so an identity gives it back and a custom_vjp's Python arithmetic a
    float; cotangents pass as given; under enable_x64 it is a float64 one; custom_gradient's
    rule returning a primal or a Python constant gives it carrying its dtype."""
    jnp = jax.numpy

    def kinds(tree):
        return [[type(x).__name__, str(jnp.result_type(x)), np.asarray(x).tolist()]
                for x in jax.tree_util.tree_leaves(tree)]

    @jax.custom_vjp
    def c(x):
        return x + 1.0
    c.defvjp(lambda x: (x + 1.0, x), lambda r, g: (g * 2,))

    @jax.custom_gradient
    def swap(x, y):
        return x * y, lambda g: (y, x)

    @jax.custom_gradient
    def const(x):
        return x * 2, lambda g: (2.0,)
    out = {}
    for name, f, args, ct in (("identity", lambda x: x, (4.0,), 1.0),
                              ("mul", lambda x: x * 2, (4.0,), 1.0),
                              ("pair", lambda x, a: (x, a + 1), (4.0, jnp.ones(2)),
                               (1.0, jnp.ones(2))),
                              ("custom_vjp", c, (4.0,), 1.0),
                              ("custom_gradient", swap, (3.0, 4.0), 1.0)):
        y, f_vjp = jax.vjp(f, *args)
        out[name] = [kinds(y), kinds(f_vjp(ct))]
    with jax.enable_x64(True):
        y, f_vjp = jax.vjp(lambda x: x * 2, 4.0)
        out["x64"] = [kinds(y), kinds(f_vjp(1.0))]
    out["custom_gradient_constant"] = kinds(jax.grad(const)(jnp.float32(3.0)))
    out["grad_custom_gradient"] = kinds(jax.grad(swap, argnums=(0, 1))(3.0, 4.0))
    return out


def _copies_of_a_jit(jax):
    """copy.copy and copy.deepcopy of a jit that has compiled once: a new jit (its type's
    name, not the same object) that runs; the shallow copy shares the cache, the deep copy's
    starts empty."""
    f = jax.jit(lambda x: x * 2)
    f(1.0)
    out = []
    for make in (copy.copy, copy.deepcopy):
        g = make(f)
        out.append([type(g).__name__, g is f, g._cache_size(), float(g(3.0)), g._cache_size()])
    return out


def _custom_gradient_numpy_results(jax):
    """A custom_gradient whose value and rule results are NumPy scalars (a NumPy 0-d array):
    the value stays the NumPy scalar, the gradient is JAX's TypedNdArray of the rule's
    constant (its dtype canonical), under grad, vjp and value_and_grad."""
    def kinds(tree):
        return [[type(x).__name__, str(np.asarray(x).dtype), np.asarray(x).tolist()]
                for x in jax.tree_util.tree_leaves(tree)]
    out = {}
    for name, ct in (("float32", np.float32(3.0)), ("float64", np.float64(3.0)),
                     ("int32", np.int32(3)), ("array0d", np.array(3.0, np.float32))):
        @jax.custom_gradient
        def f(x, ct=ct):
            return np.float32(2.0), lambda g: (ct,)
        out[name] = [kinds(f(1.0)), kinds(jax.grad(f)(1.0)),
                     kinds(jax.vjp(f, 1.0)[1](np.float32(1.0))),
                     kinds(jax.value_and_grad(f)(1.0))]
    return out


def _token_is_a_leaf(jax):
    """A token (lax.create_token()) is a pytree leaf, as JAX's; jit takes and gives one back
    as a Token; make_jaxpr types it Tok; device_put gives a new Token; eval_shape its type."""
    tok = jax.lax.create_token()
    tu = jax.tree_util
    same = jax.jit(lambda t: t)(tok)
    made = jax.jit(lambda: jax.lax.create_token())()
    pair = jax.jit(lambda t, x: (jax.lax.after_all(t), x + 1))(tok, 1.0)
    return [len(tu.tree_leaves(tok)), tu.tree_leaves(tok)[0] is tok, str(tu.tree_structure(tok)),
            str(tu.tree_structure([tok, 1])), type(same).__name__, type(made).__name__,
            [type(v).__name__ for v in pair], str(jax.make_jaxpr(lambda t: t)(tok)),
            str(jax.make_jaxpr(lambda t, x: (jax.lax.after_all(t, t), x))(tok, 1.0)),
            str(tu.tree_map(lambda t: type(t).__name__, [tok])),
            [type(jax.device_put(tok)).__name__, jax.device_put(tok) is tok],
            str(jax.eval_shape(lambda t: t, tok))]


def _jaxprs_lowered(jax):
    """The jaxprs a jit's lowering hands `mlir.jaxpr_subcomp`, collected by a wrapper set on
    JAX's mlir module (api_test's test_nested_jit_hoisting): the outer one (one jit
    equation) and the inner jit's body (mul, add), the same text as the equation's param."""
    mlir = importlib.import_module(jax.__name__ + "._src.interpreters.mlir")

    @jax.jit
    def f(x, y):
        return y + 2 * x, 3

    @jax.jit
    def g(x):
        return f(2, x)
    original, jaxprs = mlir.jaxpr_subcomp, []

    def collect(c, jaxpr, *args, **kwargs):
        jaxprs.append(jaxpr)
        return original(c, jaxpr, *args, **kwargs)
    try:
        mlir.jaxpr_subcomp = collect
        answer = g(3)
    finally:
        mlir.jaxpr_subcomp = original
    return [[int(a) for a in answer], mlir.jaxpr_subcomp is original,
            [[e.primitive.name for e in j.eqns] for j in jaxprs],
            str(jaxprs[0].eqns[0].params["jaxpr"]) == str(jaxprs[1])]


def _custom_remat_under_remat3(jax):
    """custom_remat under checkpoint with jax_remat3 (api_test's Remat3Test
    test_remat_custom_policy_save_cos): f1's residuals are saved, so the linearized function
    recomputes neither sin nor cos, one residual per custom_lin."""
    jnp = jax.numpy
    custom_remat = importlib.import_module(jax.__name__ + "._src.ad_checkpoint").custom_remat
    sin = custom_remat(jnp.sin, lambda x: (jnp.sin(x), jnp.cos(x)),
                       lambda cos_x, x: (jnp.sin(x), cos_x), lambda cos_x, g: (cos_x * g,))

    def eqns(jaxpr):
        for e in jaxpr.eqns:
            yield e
            for p in e.params.values():
                inner = getattr(p, "jaxpr", p)
                if hasattr(inner, "eqns"):
                    yield from eqns(inner)
    before = jax.config.jax_remat3
    jax.config.update("jax_remat3", True)
    try:
        _, f_lin = jax.linearize(jax.remat(lambda x: sin(sin(x))), 1.)
        found = list(eqns(jax.jit(f_lin).trace(1.).jaxpr.jaxpr))
        try:                 # applying it is forward mode through a custom_vjp: JAX's error
            applied = float(f_lin(1.))
        except TypeError as e:
            applied = str(e)
        return [sorted({e.primitive.name for e in found} & {"sin", "cos"}),
                [e.params["num_res"] for e in found if e.primitive.name == "custom_lin"],
                applied]
    finally:
        jax.config.update("jax_remat3", before)


def _cond_forwarding_a_token(jax):
    """A cond whose branches hand back their token operand: JAX's lax.asarray refuses the
    Token (its message names the class by its own module: only its words are compared)."""
    lax = jax.lax
    try:
        lax.cond(jax.numpy.array(True), lambda t: t, lambda t: t, lax.create_token())
    except TypeError as e:
        return [type(e).__name__, str(e).split(" got ")[0], "Token object at" in str(e)]
    return "no error"


def _cond_token_operands(jax):
    """A cond or switch whose branches hand back their token operand, eagerly and traced (jit,
    make_jaxpr, grad of a jit): JAX's lax.asarray refuses the token and the tracer of one
    (`JitTracer(AbstractToken())`, of jit's tracer class by its JAX path; the package's own
    name is made 'jax', addresses blanked). A token the branches take and do not hand back
    is no error."""
    lax = jax.lax
    same = lambda p, t: lax.cond(p, lambda t: t, lambda t: t, t)               # noqa: E731
    pair = lambda p, t, x: lax.cond(p, lambda t, x: (t, x * 2.),               # noqa: E731
                                    lambda t, x: (t, x), t, x)
    runs = [lambda: same(True, lax.create_token()),
            lambda: jax.jit(same)(True, lax.create_token()),
            lambda: jax.jit(lambda t: same(True, t))(lax.create_token()),
            lambda: jax.jit(lambda p: same(p, lax.create_token()))(True),
            lambda: jax.jit(pair)(True, lax.create_token(), 1.),
            lambda: jax.make_jaxpr(same)(True, lax.create_token()),
            lambda: jax.jit(lambda i, t: lax.switch(i, [lambda t: t, lambda t: t], t))(
                0, lax.create_token()),
            lambda: jax.grad(lambda x: jax.jit(pair)(True, lax.create_token(), x)[1])(1.),
            lambda: float(jax.jit(lambda p, t, x: lax.cond(
                p, lambda t, x: x + 1., lambda t, x: x - 1., t, x))(True, lax.create_token(),
                                                                    1.))]
    out = []
    for run in runs:
        try:
            out.append(run())
        except TypeError as e:
            text = _ADDRESS.sub(" at 0x", str(e)).replace(f"{jax.__name__}._src.", "jax._src.")
            out.append([type(e).__name__, text])
    return out


def _custom_vjp_host_residuals(jax):
    """What a custom_vjp's bwd gets for residuals fwd returned as host values (a NumPy array,
    a NumPy scalar, a Python float): JAX's TypedNdArray, TypedNdArray and TypedFloat, under
    grad, jit of grad and vjp (a traced array constant a tracer)."""
    seen = []

    @jax.custom_vjp
    def f(x):
        return x * 3.
    f.defvjp(lambda x: (x * 3., (np.array([3.0, 1.0], np.float32), np.float32(2.0), 2.0)),
             lambda r, g: seen.append(["Tracer" if isinstance(a, jax.core.Tracer) else
                                       type(a).__name__ for a in r]) or (g * 3.,))
    jax.grad(f)(1.0)
    jax.jit(jax.grad(f))(1.0)
    jax.vjp(f, 1.0)[1](1.0)
    return seen


def _override_lowering_rules(jax):
    """`jit(f).trace(x).lower(_private_parameters=mlir.LoweringParameters(
    override_lowering_rules=...))` (api_test's OverrideLoweringTest): the given rules lower
    their primitives in that lowering only, and its compiled program runs them; a call of
    the jit compiles its own program."""
    jnp = jax.numpy
    mlir = importlib.import_module(jax.__name__ + "._src.interpreters.mlir")

    def f(x):
        return jnp.sin(x) * 2
    sin_p = next(e.primitive for e in jax.make_jaxpr(f)(1.0).eqns if e.primitive.name == "sin")

    def as_cos(ctx, x, **params):
        return mlir.lower_fun(jnp.cos, multiple_results=False)(ctx, x)
    params = mlir.LoweringParameters(override_lowering_rules=((sin_p, as_cos),))
    lowered = jax.jit(f).trace(jax.ShapeDtypeStruct((3,), jnp.float32)).lower(
        _private_parameters=params)
    text = lowered.as_text()
    constrained = lambda x: jax.lax.with_sharding_constraint(      # noqa: E731
        x, jax.sharding.SingleDeviceSharding(jax.devices()[0]))
    noop = mlir.LoweringParameters(override_lowering_rules=(
        (jax.lax.sharding_constraint_p, lambda ctx, operand, *a, **k: [operand]),))
    return ["stablehlo.cosine" in text, "stablehlo.sine" in text,
            np.asarray(lowered.compile()(jnp.zeros(3))).tolist(),
            np.asarray(jax.jit(f)(jnp.zeros(3))).tolist(),
            "@Sharding" in jax.jit(constrained).trace(jax.ShapeDtypeStruct(
                (2, 4), jnp.bfloat16)).lower(_private_parameters=noop).as_text()]


_REFUSING = ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "vmap", "pmap",
             "linearize", "vjp", "jvp")


def _refusals(jax):
    """Each transformation given what it cannot transform (an array, a staticmethod object, a
    generator function): JAX's check_callable raises where the transformation is called, before
    any argument is given (grad(f) and vmap(f) too, not only jit(f))."""
    def called(name, fun):
        transform = getattr(jax, name)
        if name in ("linearize", "vjp"):
            return lambda: transform(fun, 1.0)
        if name == "jvp":
            return lambda: transform(fun, (1.0,), (1.0,))
        return lambda: transform(fun)
    refused = {"array": jax.numpy.ones(3), "staticmethod": staticmethod(gen), "generator": gen}
    return {f"{name}_of_a_{what}": called(name, fun)
            for name in _REFUSING for what, fun in refused.items()}


def cases(jax):
    jnp, lax = jax.numpy, jax.lax
    d = jax.devices()[0]
    x = {"a": jnp.arange(2), "b": jnp.arange(3)}
    return {
        "static_argument_eq_raises": lambda: _static_eq_raises(jax),
        "static_argument_eq_false_or_raising": lambda: _static_eq_false_or_raising(jax),
        "jit_getstate": lambda: _jit_state(jax),
        "python_scalar_primals": lambda: _python_scalar_primals(jax),
        "jit_copies": lambda: _copies_of_a_jit(jax),
        "custom_gradient_numpy_results": lambda: _custom_gradient_numpy_results(jax),
        "token_is_a_leaf": lambda: _token_is_a_leaf(jax),
        "cond_forwarding_a_token": lambda: _cond_forwarding_a_token(jax),
        "cond_token_operands": lambda: _cond_token_operands(jax),
        "custom_vjp_host_residuals": lambda: _custom_vjp_host_residuals(jax),
        "jaxprs_lowered_through_jaxpr_subcomp": lambda: _jaxprs_lowered(jax),
        "custom_remat_under_remat3": lambda: _custom_remat_under_remat3(jax),
        "psum_negative_positional_axis": lambda: jax.make_jaxpr(
            lambda v: lax.psum(v, -1))(jnp.ones((2, 3))),
        "override_lowering_rules": lambda: _override_lowering_rules(jax),
        "grad_of_int_input_under_strict_promotion": lambda: _grad_of_int_input_strict(jax),
        "jvp_of_asarray_gives_arrays": lambda: [
            type(v).__name__ for v in jax.jvp(jnp.asarray, (1.,), (2.,))],
        "jvp_of_identity_keeps_python_floats": lambda: [
            type(v).__name__ for v in jax.jvp(lambda x: x, (2.,), (1.,))],
        "leak_checker_scan_leak": lambda: _scan_leak(jax),
        "leak_checker_vjp_returned_from_jit": lambda: _vjp_in_jit_no_leak(jax),
        "jit_int_overflow": lambda: _int_overflow(jax),
        "tracer_sharding_attribute": lambda: _tracer_sharding(jax),
        "abstract_eval_result_kinds": lambda: _abstract_eval_kinds(jax),
        "num_cpu_devices_after_start": lambda: _late_cpu_count(jax),
        "jit_of_a_jax_array_object": lambda: jax.jit(lambda x: x)(HasJaxArray(jnp.arange(4))),
        "jnp_of_jax_array_objects": lambda: _jax_array_objects(jax),
        "eval_shape_of_a_jit_with_out_shardings": lambda: _eval_shape_sharding(jax),
        "device_put_prefix_one_mismatch": lambda: jax.device_put(x, {"a": None, "b": (d, d)}),
        "device_put_prefix_two_mismatches": lambda: jax.device_put(
            x, {"a": [None, None], "b": (None, None)}),
        "device_put_prefix_extra_key": lambda: jax.device_put(x, {"a": d, "b": d, "c": d}),
        "jit_donating_the_same_array_twice": lambda: _double_donation(jax),
        "wsc_single_device_sharding": lambda: jax.jit(
            lambda v: lax.with_sharding_constraint(v, jax.sharding.SingleDeviceSharding(d))
        ).lower(1.).compile()(4.),
        "allow_f16_reductions_false": lambda: _f16_reductions(jax),
        "eval_shape_output_not_a_jax_type": lambda: jax.eval_shape(_returns_itself, 1),
        "jit_output_not_a_jax_type": lambda: jax.jit(_returns_itself)(1),
        "linear_transpose_integer": lambda: jax.linear_transpose(lambda x: 2 * x, 1)(3),
        "linear_transpose_int_to_float": lambda: jax.linear_transpose(lambda x: 2. * x, 1),
        "linear_transpose_through_jit": lambda: _transpose_through_jit(jax),
        "array_is_not_hashable": lambda: [
            isinstance(jnp.ones(1), collections.abc.Hashable)],
        "vjp_args_res": lambda: _args_res(jax),
        "escaped_tracer_into_jit": lambda: _escaped_tracer(jax),
        "compiled_called_under_vmap": lambda: _compiled_under_vmap(jax),
        "device_put_to_a_string": lambda: jax.device_put(jnp.arange(8), "cpu"),
        "make_jaxpr_names": lambda: _make_jaxpr_names(jax),
        "jvp_tuple_primals_list_tangents": lambda: jax.jvp(
            lambda x, y: x * y, (np.float32(2),), [np.float32(2)]),
        "linearize_int_primal_float_tangent": lambda: jax.linearize(
            jnp.sum, jnp.array([1, 2, 3]))[1](jnp.ones((3, 2))),
        "linearize_float_primal_int_tangent": lambda: jax.linearize(lambda x: x, 1.)[1](1),
        "linearize_int_primal_int_tangent": lambda: jax.linearize(
            lambda x: x, np.ones(2, np.int32))[1](np.ones(2, np.int32)),
        "array_conversions": lambda: _conversions(jax),
        **_refusals(jax),
        "jit_of_generator": lambda: jax.jit(gen),
        "jit_of_staticmethod": lambda: _staticmethod_jit(jax),
        "jit_of_noncallable": lambda: jax.jit(3),
        "jit_repr_when_fun_repr_fails": lambda: _repr_of_jit(jax),
        "jit_of_slotted_callable_call": lambda: jax.jit(Slotted())(3),
        "jit_reference_dropping": lambda: _reference_dropping(jax),
        "jit_copy_and_deepcopy": lambda: [jax.jit(copy.copy)(1), jax.jit(copy.deepcopy)(2)],
        "float0_jnp_add": lambda: _float0(jax) + jnp.zeros(()),
        "float0_lax_add": lambda: lax.add(_float0(jax), jnp.zeros(())),
        "int_enum_constant": lambda: jax.jit(lambda: Foo.bar)(),
        "int_enum_under_pmap": lambda: jax.pmap(lambda _: Foo.bar)(jnp.arange(1)),
        "lax_add_string_array": lambda: lax.add(jnp.array(7), np.array("hello")),
        "grad_of_object_array": lambda: jax.grad(lambda x: x)(np.array([1, 2, 3], dtype=object)),
        "device_put_string_array": lambda: jax.device_put(np.array(["a"])),
        "jit_masked_array": lambda: jax.jit(lambda x: x)(
            np.ma.array([1, 2, 3], mask=[True, False, True])),
    }


def _pruned_args_puts(jax, jtu):
    """Host arguments put on the device by a call: only those the program reads (JAX's
    test_jit_with_pruned_args), none for a trace of jnp.array."""
    def f(*args):
        return args[1] + np.array(2)
    counts = []
    for n in (2, 3, 4):
        with jtu.count_device_put() as count:
            jax.jit(f)(*range(n))
        counts.append(count())
    with jtu.count_device_put() as count:
        jax.make_jaxpr(lambda: jax.numpy.array(3))()
    return counts + [count()]


def _jit_call_misses(jax, jtu):
    """A jit's eager calls past every fast path: the first (it compiles), not the next."""
    f = jax.jit(lambda x, y: x, keep_unused=True)
    x = jax.numpy.float32(1)
    with jtu.count_pjit_cpp_cache_miss() as first:
        f(x, x)
    with jtu.count_pjit_cpp_cache_miss() as second:
        f(x, x)
    return [first(), second()]


def _primitive_compiles(jax, jtu):
    with jtu.count_primitive_compiles() as count:
        jax.lax.add(1, 2)
        jax.lax.add(2, 3)
    return count()


def _internal_device_puts(jax, jtu):
    with jtu.count_internal_device_puts() as counts:
        jax.device_put(np.arange(8))
    return sorted(counts().items())


def _kept_arguments(jax):
    out = []
    for f, keep in ((lambda x, y: x + y, False), (lambda x, y: x, False), (lambda x, y: x, True)):
        executable = jax.jit(f, keep_unused=keep).lower(1., 2.).compile()._executable
        out.append([sorted(executable._kept_var_idx), len(executable.in_avals)])
    return out


def _argnums(api_util):
    def f(x, y=1):
        pass

    def g(x, y, *args):
        pass
    sig_f, sig_g = inspect.signature(f), inspect.signature(g)
    infer = api_util.infer_argnums_and_argnames
    return [infer(sig_f, None, None), infer(sig_f, 0, None), infer(sig_f, None, "y"),
            infer(sig_f, 0, "y"), infer(sig_g, (1, 2), None),
            api_util.resolve_argnums(int, None, None, None, None, None),
            api_util.resolve_argnums(f, sig_f, 0, None, None, "y")]


def _eval_shape_traces_once(jax, jtu):
    def f(x):
        return jax.numpy.array(x)
    with jtu.count_jit_tracing_cache_miss() as count:
        jax.eval_shape(f, 1)
        out = jax.eval_shape(f, 1)
        after_eval_shape = count()
        jax.jit(f)(1)               # the call reuses eval_shape's trace (JAX's tracing cache)
    return [after_eval_shape, out.weak_type, count()]


def _token_consuming_primitive(jax, dispatch):
    """A primitive taking a token, run eagerly by apply_primitive under vjp (JAX's issue
    5463): the token's buffer is an operand."""
    core = importlib.import_module(jax.__name__ + ".extend.core")
    mlir = importlib.import_module(jax.__name__ + ".interpreters.mlir")
    ad = importlib.import_module(jax.__name__ + ".interpreters.ad")
    p = core.Primitive("tokentest")
    p.def_impl(functools.partial(dispatch.apply_primitive, p))
    p.def_abstract_eval(lambda x, y: x)
    mlir.register_lowering(p, lambda ctx, x, y: [x])
    ad.defjvp(p, (lambda g, x, token: x), None)
    token = jax.lax.create_token(123)
    arr = jax.numpy.ones((3, 2))
    res, vjp_fun = jax.vjp(lambda x: p.bind(x, token), arr)
    return [res, vjp_fun(arr)]


def _pmap_compiles(jax, jtu):
    """pmap(f) made anew per call, with the same options: one compile (JAX's global cache);
    other in_axes, one more."""
    def f(x, y):
        return x, y
    x = np.ones((1, 1, 1), dtype=np.float32)
    counts = []
    for make in (lambda: jax.pmap(f), lambda: jax.pmap(f, "i"),
                 lambda: jax.pmap(f, "i", in_axes=(1, 0), out_axes=(0, 2))):
        with jtu.count_jit_and_pmap_lowerings() as count:
            for _ in range(2):
                make()(x, x)
        counts.append(count())
    # differentiated: the transformed pmap's program compiles once (vjp: forward, backward)
    for run in (lambda: jax.jvp(jax.pmap(f), (x, x), (x, x)),
                lambda: jax.vjp(jax.pmap(f), x, x)[1]((x, x)),
                lambda: jax.jvp(jax.pmap(lambda a: a * 2), (x,), (x,))):
        with jtu.count_jit_and_pmap_lowerings() as count:
            for _ in range(2):
                run()
        counts.append(count())
    return counts


def _linearization_rule(jax, config):
    """A primitive's linearization rule set in JAX's primitive_linearizations: grad uses it
    (its linear part multiplies by 3, exactly)."""
    core = importlib.import_module(jax.__name__ + ".extend.core")
    ad = importlib.import_module(jax.__name__ + "._src.interpreters.ad")   # (JAX's private)
    p = core.Primitive("triple_lin_p")
    p.def_impl(lambda x: x * 3.0)
    p.def_abstract_eval(lambda x: x)
    ad.primitive_linearizations[p] = lambda is_vjp, nzs, x: (
        p.bind(x), nzs[0], x, lambda x, t: t * 3.0)
    with config.use_direct_linearize(True):
        return [jax.grad(p.bind)(1.0), jax.linearize(p.bind, 2.0)[1](1.0)]


def _close_jaxpr(jax):
    """pe.close_jaxpr: one ClosedJaxpr per jaxpr while it lives, nothing kept after."""
    pe = importlib.import_module(jax.__name__ + "._src.interpreters.partial_eval")
    jaxpr = jax.jit(lambda x: jax.lax.cond(x, lambda: x, lambda: ~x)).trace(True).jaxpr
    first, second = pe.close_jaxpr(jaxpr.jaxpr), pe.close_jaxpr(jaxpr.jaxpr)
    held = [first is second, len(pe.close_jaxpr.cache_keys()) > 0]
    del jaxpr, first, second
    return held + [len(pe.close_jaxpr.cache_keys())]


def _clear_cache_frees(jax):
    """A jit's clear_cache frees its executable: the client's live executables go back.
    Every cache is emptied first: an executable another test left in a bounded cache could
    be evicted meanwhile and count as freed here."""
    f = jax.jit(lambda x, y: x * y + 7.0)
    client = jax.devices()[0].client
    jax.clear_caches()
    gc.collect()
    before = len(client.live_executables())
    f(1., 2.).block_until_ready()
    gc.collect()
    during = len(client.live_executables())
    f.clear_cache()
    gc.collect()
    return [during - before, len(client.live_executables()) - before]


def private(jax, jtu, api_util, config, dispatch):
    """The JAX-private names api_test.py reads: jax._src.test_util's counters, Compiled's
    `_executable`, api_util's argnum helpers."""
    return {
        "api_util_argnums": lambda: _argnums(api_util),
        "jit_clear_cache_frees_its_executable": lambda: _clear_cache_frees(jax),
        "pe_close_jaxpr_holds_nothing": lambda: _close_jaxpr(jax),
        "primitive_linearization_rule": lambda: _linearization_rule(jax, config),
        "pmap_made_anew_compiles_once": lambda: _pmap_compiles(jax, jtu),
        "token_consuming_primitive_under_vjp": lambda: _token_consuming_primitive(jax, dispatch),
        "eval_shape_traces_once": lambda: _eval_shape_traces_once(jax, jtu),
        "config_update_inside_a_block": lambda: _update_inside_block(jax, config),
        "api_util_donate_argnames_without_signature": lambda: api_util.resolve_argnums(
            "fun", None, None, "a", None, None),
        "jtu_count_device_put": lambda: _pruned_args_puts(jax, jtu),
        "jtu_count_pjit_cpp_cache_miss": lambda: _jit_call_misses(jax, jtu),
        "jtu_count_primitive_compiles": lambda: _primitive_compiles(jax, jtu),
        "jtu_count_internal_device_puts": lambda: _internal_device_puts(jax, jtu),
        "compiled_kept_var_idx": lambda: _kept_arguments(jax),
    }


_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
_FOLDERS = re.compile(r"(?<= at )\S*/(?=\w+\.py:)")    # a file's folders (the checkout's)


def record(thunk):
    """A case's answer: its value as nested lists, or [class name, message] of its error
    (JAX's note about its filtered traceback cut off, addresses blanked)."""
    try:
        value = thunk()
    except Exception as e:        # noqa: BLE001 (recording whatever raises)
        text = _ADDRESS.sub(" at 0x", str(e).split("\n--------------------")[0])
        text = _FOLDERS.sub("", text)
        return {"error": [type(e).__name__, text]}
    return {"value": _plain(value)}


def _plain(x):
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, type):
        return x.__name__
    if isinstance(x, (str, int)) and not isinstance(x, bool):
        return x
    return np.asarray(x).tolist()
