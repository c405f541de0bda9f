"""jxkernel.errors and jxkernel.dtypes, the jax.errors / jax.dtypes modules: their names, the
error hierarchy as JAX's, and dtype helpers against values recorded from JAX 0.10.2."""
import doctest

import ml_dtypes
import numpy as np
import pytest
from fresh_process import run_code

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import dtypes, errors


@pytest.mark.parametrize("module", [dtypes, errors])
def test_docstring_examples(module):
    globs = {"jax": jax, "jit": jax.jit, "errors": errors, "dtypes": dtypes, "np": np}
    assert doctest.testmod(module, extraglobs=globs).failed == 0


def test_errors_are_the_ones_raised_with_jaxs_hierarchy():
    assert issubclass(errors.TracerBoolConversionError, errors.ConcretizationTypeError)
    assert issubclass(errors.ConcretizationTypeError, errors.JAXTypeError)
    assert issubclass(errors.JAXTypeError, TypeError)
    assert issubclass(errors.NonConcreteBooleanIndexError, errors.JAXIndexError)
    assert issubclass(errors.JAXIndexError, IndexError)
    assert errors.JaxRuntimeError.__name__ == "JaxRuntimeError"
    with pytest.raises(errors.TracerIntegerConversionError):
        jax.jit(lambda x: [1, 2][x])(0)
    with pytest.raises(errors.NonConcreteBooleanIndexError):
        jax.jit(lambda x: x[x > 0])(jnp.arange(3.0))
    with pytest.raises(errors.TracerArrayConversionError):
        jax.jit(lambda x: np.asarray(x))(1.0)


def test_dtype_helpers_as_jax():
    # JAX 0.10.2: canonicalize_dtype(float64) is float32 without x64 and float64 with it
    assert dtypes.canonicalize_dtype(np.float64) == np.float32
    assert dtypes.canonicalize_dtype("int64") == np.int32
    with jax.config.override("jax_enable_x64", True):
        assert dtypes.canonicalize_dtype(np.float64) == np.float64
    with pytest.raises(TypeError, match="not understood"):
        dtypes.canonicalize_dtype("foo")
    assert [dtypes.scalar_type_of(x) for x in (np.float32(1), np.array([1], np.uint8),
                                               np.bool_(True), np.complex64(1))] == \
        [float, int, bool, complex]
    assert [dtypes.itemsize_bits(d) for d in (np.float32, np.bool_, ml_dtypes.bfloat16)] == \
        [32, 8, 16]
    assert dtypes.result_type(1, np.float16) == np.float16
    assert dtypes.result_type(1.0, np.int8, return_weak_type_flag=True) == (np.float32, True)
    assert dtypes.issubdtype(dtypes.bfloat16, np.floating)
    assert dtypes.float0 == jax.float0 and dtypes.finfo(np.float32).eps == np.float32(2 ** -23)


def test_scipy_subpackages_are_attributes_as_in_jax():
    import jxkernel.scipy as jsp
    assert float(jsp.stats.norm.logpdf(0.0)) == pytest.approx(-0.9189385, abs=1e-7)
    assert callable(jsp.optimize.minimize) and callable(jsp.sparse.linalg.cg)
    np.testing.assert_allclose(jsp.linalg.expm(jnp.zeros((2, 2))), np.eye(2))


def test_custom_derivatives_module_symbolic_zeros():
    from jxkernel import custom_derivatives as cd
    seen = []

    @cd.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append([isinstance(t, cd.SymbolicZero) for t in tangents])
        if isinstance(ty, cd.SymbolicZero):
            assert ty.shape == () and ty.dtype == np.float32
        out = sum(t * o for t, o in ((tx, y), (ty, x)) if not isinstance(t, cd.SymbolicZero))
        return f(x, y), out
    f.defjvp(f_jvp, symbolic_zeros=True)
    assert float(jax.grad(f)(2.0, 3.0)) == 3.0
    assert seen[-1] == [False, True]              # y is not differentiated: a symbolic zero
    zeros = cd.zero_from_primal({"a": 1.0, "b": 2})
    assert float(zeros["a"]) == 0.0 and zeros["b"].dtype == jax.float0
    assert isinstance(cd.zero_from_primal(1.0, symbolic_zeros=True), cd.SymbolicZero)
    assert doctest.testmod(cd, extraglobs={"jax": jax, "grad": jax.grad}).failed == 0


def test_effects_barrier_after_debug_print(capfd):
    jax.jit(lambda x: jax.debug.print("x={x}", x=x))(1.0)
    jax.effects_barrier()                        # callbacks are done by now
    assert "x=1.0" in capfd.readouterr().out


def test_jaxs_private_paths_of_the_roots_utilities_hold_the_same_objects():
    # jax._src.config's state of each option is the one jax.<name> is (`with
    # jax.enable_x64(True)` and `config.enable_x64.value` agree), wherever the states live
    from jxkernel._src import api, config, core, dispatch
    for name in ("enable_x64", "log_compiles", "default_device", "numpy_rank_promotion",
                 "thread_guard", "legacy_prng_key"):
        state = getattr(jax, name)
        assert config.config_states[state.option] is state and getattr(config, name) is state
    assert api.fwd_and_bwd is jax.fwd_and_bwd and core.typeof is jax.typeof
    assert dispatch.wait_for_tokens is jax.effects_barrier


def test_the_views_load_on_first_use():
    code = ("import sys, jxkernel\n"
            "lazy = ('jxkernel.views.timing', 'jxkernel.views.memory', 'jxkernel.views.call_explanation')\n"
            "print([m in sys.modules for m in lazy])\n"
            "print([m in sys.modules for m in ('jxkernel.stages', 'jxkernel.export')])\n"
            "print(jxkernel.explain.__module__, 'jxkernel.views.timing' in sys.modules)\n"
            "print(jxkernel.live_arrays.__module__, jxkernel.timing.__name__)\n")
    out = run_code(code).stdout.splitlines()
    # explain loads without timing (their one shared helper, jit_for_call, is its own module)
    assert out == ["[False, False, False]", "[False, False]",
                   "jxkernel.views.call_explanation False",
                   "jxkernel.views.memory jxkernel.views.timing"]


LAZY_AT_IMPORT = ("jxkernel.nn.initializers", "jxkernel.scipy", "jxkernel.random", "jxkernel.debug",
                  "jxkernel.api.pmap", "jxkernel.api.remat", "jxkernel.lax.linalg",
                  "jxkernel.lax.convolution", "jxkernel.lax.special", "jxkernel.numpy.linalg",
                  "jxkernel.numpy.fft", "jxkernel.numpy.polynomial", "jxkernel.numpy.setops",
                  # DLPack (both ways) and the mesh machinery: their imports point down, and wait
                  "jxkernel.xla.dlpack", "jxkernel.xla.dlpack_export", "jxkernel.xla.sharded",
                  "opt_einsum", "importlib.metadata")


def test_import_and_a_first_op_leave_the_rarely_used_modules_unloaded():
    code = ("import sys, jxkernel, jxkernel.numpy as jnp\n"
            "(jnp.ones(3) + 1).block_until_ready()\n"
            f"print([m for m in {LAZY_AT_IMPORT!r} if m in sys.modules])\n"
            "from jxkernel import random\n"        # as `from jax import random`
            "print(jxkernel.random.PRNGKey(0).tolist(), float(jxkernel.nn.relu(-1.0)),\n"
            "      round(float(jxkernel.scipy.special.erf(0.5)), 6), random is jxkernel.random,\n"
            "      jxkernel.nn.initializers.zeros.__name__)\n")
    out = run_code(code).stdout.splitlines()
    assert out == ["[]", "[0, 0] 0.0 0.5205 True zeros"]


@pytest.mark.parametrize("package", ["jxkernel", "jxkernel.numpy", "jxkernel.lax"])
def test_every_lazy_name_is_listed_and_resolves_to_its_modules_object(package):
    import importlib
    module = importlib.import_module(package)
    assert set(module._LAZY) <= set(dir(module))
    for name, (source, attribute) in module._LAZY.items():
        target = importlib.import_module(source, package)     # (a leading dot: relative)
        expected = target if attribute is None else getattr(target, attribute)
        assert getattr(module, name) is expected, name


@pytest.mark.parametrize("package", ["jxkernel.numpy", "jxkernel.lax"])
def test_lazy_tables_hold_each_modules_public_names(package):
    # a name added to a lazily loaded module must be added to its package's table
    import importlib
    module = importlib.import_module(package)
    for source, names in module._LAZY_MODULES.items():
        target = importlib.import_module(f"{package}.{source}")
        public = getattr(target, "__all__", None)
        if public is not None:
            assert sorted(names) == sorted(public), source
        for name in names:
            assert getattr(module, name) is getattr(target, name)
    assert set(module._LAZY) <= set(module.__all__)


def test_zero_from_primal_of_narrow_ints_and_keys_is_float0():
    """int4's NumPy kind is 'V' and a typed key's dtype has none: zero_from_primal gave int4
    zeros (JAX 0.10.2: float0) and raised AttributeError for a key (JAX: float0)."""
    from jxkernel import custom_derivatives as cd
    for x in (jnp.ones(2, jnp.int4), jnp.ones(2, jnp.uint2), jax.random.key(0)):
        assert cd.zero_from_primal(x).dtype == jax.float0
        assert cd.zero_from_primal(x, symbolic_zeros=True).aval.dtype == jax.float0
    assert cd.zero_from_primal(jnp.ones(2, jnp.bfloat16)).dtype == jnp.bfloat16
