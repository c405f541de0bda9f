"""Names of JAX's private modules and old core API that libraries built on JAX reach for
(Equinox, Flax, Optax), with their behaviour over jxkernel's core."""
import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.extend.core import find_top_trace
from jxkernel.interpreters import ad


def test_trace_main_tells_one_transformation_from_another():
    # Equinox's filter_jvp keeps the outputs whose tracer belongs to its own jvp:
    # `tracer._trace.main is main`, with main taken from find_top_trace of its inputs
    seen = {}

    def inner(y):
        seen["inner"] = find_top_trace([y]).main
        return y

    def outer(x):
        main = find_top_trace([x]).main
        out = jxkernel.jvp(inner, (x * 2,), (1.0,))[0]
        seen["outer_is_own"] = isinstance(x, ad.JVPTracer) and x._trace.main is main
        seen["inner_differs"] = seen["inner"] is not main
        return out

    jxkernel.jvp(outer, (1.0,), (1.0,))
    assert seen["outer_is_own"] and seen["inner_differs"]
    assert jxkernel.core.current_trace().main is None        # no transformation at the top


def test_private_dispatch_and_dtypes_names():
    from jxkernel._src import dispatch, dtypes
    assert dispatch.wait_for_tokens() is None     # nothing is ever left pending
    assert issubclass(dtypes.TypePromotionError, ValueError)
    assert dtypes.is_weakly_typed(1.0) and not dtypes.is_weakly_typed(jnp.ones(2))
    assert dtypes.dtype(jnp.ones(2, jnp.int8)) == np.int8


@pytest.mark.xla_only("XLA compiler")     # (the NumPy backend runs no lowering rule)
def test_dispatch_simple_impl_runs_a_primitive_by_its_lowering():
    # JAX's dispatch.simple_impl (its ffi_test defines a primitive so): the impl runs the
    # primitive compiled alone, with the abstract eval and lowering it was given
    from jxkernel._src import dispatch
    from jxkernel._jax.interpreters import mlir
    from jxkernel.extend.core import Primitive
    double_p = Primitive("double_it")
    dispatch.simple_impl(double_p)
    double_p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(double_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
    assert double_p.bind(jnp.arange(3.0)).tolist() == [0.0, 2.0, 4.0]


def test_lib_lapack_is_jaxlibs_lapack_module():
    from jxkernel._src import lib
    assert lib.lapack.__name__ == "jaxlib.lapack" and callable(lib.lapack._lapack.initialize)


def test_lib_jax_jit_and_pytree_are_jaxlibs_modules():
    # jaxlib's C++ jit's argument parsing, as JAX 0.10.2's jax_jit_test.py's testParseArguments
    from jxkernel._src import lib
    assert lib.jax_jit.__name__ == "jaxlib._jax.jax_jit"
    assert lib.pytree.__name__ == "jaxlib._jax.pytree"
    registry = lib.pytree.default_registry()
    sig, args = lib.jax_jit.parse_arguments(
        positional_args=[1, 2, 3], keyword_args=[4, 5], kwnames=("a", "b"),
        static_argnums=[0, 2], static_argnames=["a"], pytree_registry=registry)
    assert args == [2, 5]
    assert sig.static_args == [1, 3, 4] and sig.static_arg_names == ["a"]
    assert sig.dynamic_arg_names == ["b"]
    _, leaf = registry.flatten(0)
    assert sig.dynamic_arg_treedefs == [leaf, leaf]


def test_tangent_avals_and_bfloat16_scalar_type():
    from jxkernel.core import ShapedArray
    assert ShapedArray((2,), np.int32).to_tangent_aval() == ShapedArray((2,), jxkernel.dtypes.float0)
    weak = ShapedArray((), np.float32, weak_type=True)
    assert weak.to_tangent_aval() == weak and weak.at_least_vspace() == weak
    import ml_dtypes
    assert jxkernel.dtypes.bfloat16 is ml_dtypes.bfloat16     # jnp.bfloat16 makes Arrays
    assert type(jxkernel.dtypes.bfloat16(1)) is ml_dtypes.bfloat16


def test_a_failed_callback_raises_jax_runtime_error():
    def fails(x):
        raise KeyError("from the callback")

    f = jxkernel.jit(lambda x: jxkernel.pure_callback(fails, x, x))
    try:
        f(jnp.ones(2))
    except jxkernel.errors.JaxRuntimeError as e:      # as JAX's: libraries catch this class
        assert "KeyError" in str(e) and isinstance(e.__cause__, KeyError)
    else:
        raise AssertionError("the callback's error was not raised")


def test_lib_version_is_jaxlibs():
    import importlib.metadata
    import jxkernel.lib
    assert jxkernel.lib.__version__ == importlib.metadata.version("jaxlib")


def test_jaxpr_interpreter_names():
    # what Equinox's jaxpr interpreters read: jax.core.Atom, eqn.effects, get_bind_params
    from jxkernel.core import Atom, Literal, Var
    closed = jxkernel.make_jaxpr(lambda x: (jxkernel.debug.callback(print, x), x * 2.0)[1])(1.0)
    eqns = closed.jaxpr.eqns
    assert all(isinstance(v, Atom) for e in eqns for v in e.invars)
    assert isinstance(eqns[-1].invars[1], Literal) and isinstance(eqns[-1].invars[0], Var)
    assert [len(e.effects) for e in eqns] == [1, 0]        # the debug callback's effect only
    assert eqns[-1].primitive.get_bind_params(eqns[-1].params) == eqns[-1].params


def test_custom_jvp_call_bind_params_are_jaxs():
    # Equinox's finaliser reads custom_jvp_call's bind params as JAX's: subfuns = (the body,
    # the lifted jvp rule) as WrappedFuns; an interpreter that binds them again gets the call
    f = jxkernel.custom_jvp(lambda x: x * 2.0)
    f.defjvp(lambda p, t: (f(*p), t[0] * 10.0))
    eqn, = jxkernel.make_jaxpr(f)(1.0).jaxpr.eqns
    params = eqn.primitive.get_bind_params(eqn.params)
    assert sorted(params) == ["subfuns", "symbolic_zeros"]
    fun, jvp = params["subfuns"]
    assert [float(v) for v in fun.call_wrapped(0.5) + jvp.call_wrapped(0.5, 1.0)] == [1.0, 1.0, 10.0]
    rebound = lambda x: eqn.primitive.bind(x, **params)[0]
    assert float(jxkernel.jit(rebound)(0.5)) == 1.0
    assert float(jxkernel.grad(rebound)(0.5)) == 10.0          # still the custom rule
    # another's WrappedFuns: the body is traced; the rule takes primals then tangents
    from jxkernel.extend import linear_util as lu
    subfuns = (lu.wrap_init(lambda x: [x * 3.0]), lu.wrap_init(lambda x, t: [x * 3.0, t * 7.0]))
    g = lambda x: eqn.primitive.bind(x, subfuns=subfuns, symbolic_zeros=False)[0]
    assert float(jxkernel.jit(g)(2.0)) == 6.0 and float(jxkernel.grad(g)(2.0)) == 7.0


def test_tracer_types_print_with_their_module_as_jaxs_docs_read_them():
    """JAX's jax-primitives page tells tracers apart by their type's text ("ad.JVPTracer",
    "batching.BatchTracer", "partial_eval.JaxprTracer"): the classes name the modules those
    words end (transforms.ad is a package of modules since stop 70; the page caught it)."""
    seen = []

    def f(x):
        seen.append(str(type(x)))
        return x
    jxkernel.jvp(f, (3.0,), (1.0,))
    assert "ad.JVPTracer" in seen[0], seen
    assert jxkernel.lax.psum.__module__ == "jxkernel.lax.parallel"
