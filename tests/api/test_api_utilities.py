"""The small top-level utilities: float0, typeof, named_call/named_scope, ensure_compile_time_eval,
custom_gradient, closure_convert, the config context managers (default_matmul_precision too), checkpoint policies and
checkpoint_name (which residuals the backward pass keeps), print_environment_info, Device."""
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import config
from jxkernel.ad_checkpoint import checkpoint_name
from jxkernel.test_util import check_grads
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp

cp = jax.checkpoint_policies


def test_float0_and_typeof():
    assert jax.float0 == np.dtype([("float0", "V")])
    _, t = jax.jvp(lambda x: (x * 2).astype(jnp.int32), (1.5,), (1.0,))
    assert t.dtype == jax.float0
    a = jax.typeof(1.0)
    assert a.shape == () and a.dtype == np.float32 and a.weak_type
    assert jax.typeof(np.ones((2, 3), np.int32)).shape == (2, 3)
    assert not jax.typeof(jnp.ones(3)).weak_type
    seen = []
    jax.jit(lambda x: seen.append(jax.typeof(x)) or x)(jnp.ones((4,), jnp.int32))
    assert seen[0].shape == (4,) and seen[0].dtype == np.int32
    with pytest.raises(TypeError, match=r"^Argument 'text' of type <class 'str'> is not a "
                                        r"valid JAX type$"):          # JAX 0.10.2's words
        jax.typeof("text")


def test_device_put_takes_pytrees_and_a_prefix_of_devices_as_jax_does():
    out = jax.device_put({"a": 1.0, "b": (np.arange(2, dtype=np.int32), None)})
    assert set(out) == {"a", "b"} and out["b"][1] is None
    assert isinstance(out["a"], jax.Array) and out["a"].weak_type and out["a"].dtype == np.float32
    np.testing.assert_array_equal(out["b"][0], [0, 1])
    assert jax.device_put(None) is None
    d = jax.devices()[0]
    pair = jax.device_put([1.0, 2], [d, None])          # a prefix: one device per subtree
    assert [x.device for x in pair] == [d, d] and pair[1].dtype == np.int32
    with pytest.raises(ValueError):                     # a prefix that does not fit the tree
        jax.device_put([1.0, 2.0], [d, d, d])


def test_named_call_and_named_scope_change_no_value_or_jaxpr():
    def f(x):
        return jnp.sin(x) * 2

    def scoped(x):
        with jax.named_scope("block"):
            return f(x)
    named = jax.named_call(f, name="layer")
    assert named.__name__ == "f" and float(named(1.0)) == float(f(1.0))
    plain = str(jax.make_jaxpr(f)(1.0))
    assert str(jax.make_jaxpr(named)(1.0)) == plain == str(jax.make_jaxpr(scoped)(1.0))
    with pytest.raises(TypeError, match="must be a string"):
        with jax.named_scope(3):
            pass
    with pytest.raises(TypeError, match="must be a string"):
        jax.named_call(f, name=3)


def test_ensure_compile_time_eval():
    kinds = []

    @jax.jit
    def f(x):
        with jax.ensure_compile_time_eval():
            y = jnp.arange(3.0) * 2
            kinds.append(isinstance(y, jax.core.Tracer))
            z = x * 2                        # traced: staged as usual
            kinds.append(isinstance(z, jax.core.Tracer))
            if y[1] > 1:                     # a concrete value: Python control flow works
                z = z + 1
        return z + y
    np.testing.assert_array_equal(f(1.0), [3.0, 5.0, 7.0])
    assert kinds == [False, True]
    text = str(jax.make_jaxpr(f)(1.0))
    assert "iota" not in text and "add" in text            # the constant was folded
    # eager outside tracing, and differentiable through the traced part
    with jax.ensure_compile_time_eval():
        assert float(jnp.sin(0.0)) == 0.0

    def g(x):
        with jax.ensure_compile_time_eval():
            c = jnp.cos(0.5)
            return x ** 2 * c
    # float64 closed forms rounded once, XLA's cos per CPU [worst seen 0, all four CPUs]
    assert_allclose_ulp(np.asarray(jax.grad(g)(3.0)), np.float32(6 * np.cos(0.5)), ELEMENTWISE)
    # without it, the same Python branch is a tracer error
    with pytest.raises(jax.TracerBoolConversionError):
        jax.jit(lambda x: x if jnp.arange(3.0)[1] + x > 0 else -x)(1.0)


def test_custom_gradient():
    @jax.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * x,)          # half the true derivative, as JAX's example
    assert float(f(3.0)) == 9.0 and float(jax.grad(f)(3.0)) == 3.0
    assert float(jax.jit(jax.grad(f))(3.0)) == 3.0
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(jnp.arange(3.0)), [0.0, 1.0, 2.0])

    @jax.custom_gradient
    def g(x, y):
        return x * y, lambda ct: (ct * y, ct * x)
    gx, gy = jax.grad(g, argnums=(0, 1))(3.0, 4.0)
    assert (float(gx), float(gy)) == (4.0, 3.0)

    @jax.custom_gradient
    def clip(x):                                   # the rule closes over an intermediate
        s = jnp.sin(x)
        return s, lambda ct: (jnp.clip(ct * jnp.cos(x), -0.1, 0.1),)
    assert_allclose_ulp(np.asarray(jax.grad(lambda x: clip(x).sum())(jnp.array([0.0, 1.5]))),
                        np.float32([0.1, np.cos(1.5)]), ELEMENTWISE)     # [worst seen 0]


def test_closure_convert():
    def f_of(w):
        return lambda x: jnp.sin(x * w)
    converted, consts = jax.closure_convert(f_of(2.0), 1.0)
    assert consts == []
    assert_allclose_ulp(np.asarray(converted(0.5)), np.float32(np.sin(1.0)), ELEMENTWISE)

    def outer(w):
        g, consts = jax.closure_convert(f_of(w), 1.0)
        assert len(consts) == 1                    # the traced w is hoisted
        return g(0.5, *consts)
    # [worst seen 0, all four CPUs]
    assert_allclose_ulp(np.asarray(jax.grad(outer)(2.0)), np.float32(0.5 * np.cos(1.0)),
                        ELEMENTWISE)
    with pytest.raises(TypeError, match="same Pytree structure"):
        converted((0.5, 0.5))


def test_config_context_managers(caplog):
    assert not jax.enable_x64.value
    with jax.enable_x64(True):
        assert jnp.arange(3.0).dtype == np.float64 and config.jax_enable_x64
    assert jnp.arange(3.0).dtype == np.float32 and not jax.enable_x64.value
    with jax.log_compiles(), caplog.at_level("WARNING"):     # (logged, as JAX's)
        jax.jit(lambda x: x * 3 + 1)(jnp.ones(7))
    assert "Compiling" in caplog.text and not jax.log_compiles.value
    device = jax.devices()[-1]
    with jax.default_device(device):
        assert jax.default_device.value is device
        assert jnp.ones(2).devices() == {device}
    assert jax.default_device.value is None
    with pytest.raises(TypeError, match="requires an argument"):
        jax.default_device()


def test_default_matmul_precision_context():
    assert jax.config.jax_default_matmul_precision is None
    with jax.default_matmul_precision("float32"):
        assert jax.config.jax_default_matmul_precision == "float32"
        assert jnp.dot(jnp.ones((2, 2)), jnp.ones((2, 2))).tolist() == [[2, 2], [2, 2]]
    assert jax.config.jax_default_matmul_precision is None


def _backward_eqns(f, *args):
    """Primitive names in the checkpoint equation of grad(f) (its linearized part: as JAX
    0.10.2's, the forward part runs outside any checkpoint), and how many values that forward
    part hands the backward one besides the inputs: the primal output and the saved values."""
    jaxpr = jax.make_jaxpr(jax.grad(f))(*args).jaxpr
    remats = [e for e in jaxpr.eqns if e.primitive.name == "remat2"]
    assert len(remats) == 1
    (remat,) = remats
    # its operands: the known inputs (arguments, constants), the values the policy saved
    # (computed by the forward equations before it), and the linear input last
    computed = {v for e in jaxpr.eqns for v in e.outvars}
    n_saved = sum(v in computed for v in remat.invars[:-1])
    return [e.primitive.name for e in remat.params["jaxpr"].jaxpr.eqns], 1 + n_saved


def test_checkpoint_policies_choose_the_residuals():
    a = np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32)

    def loss(policy):
        block = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x @ a)), policy=policy)
        return lambda x: block(x).sum()
    want = np.asarray(jax.grad(lambda x: jnp.sin(jnp.sin(x @ a)).sum())(a))
    found = {}
    for name in ["nothing_saveable", "dots_saveable", "checkpoint_dots",
                 "dots_with_no_batch_dims_saveable", "everything_saveable"]:
        policy = getattr(cp, name)
        # recomputed or saved residuals, eager or jit: the backward 3-term dots and the sin
        # chain round in another order; REDUCTION at the largest |value| [worst seen 0]
        scale = np.abs(want).max()
        assert_allclose_ulp(np.asarray(jax.grad(loss(policy))(a)), want, REDUCTION, scale=scale)
        assert_allclose_ulp(np.asarray(jax.jit(jax.grad(loss(policy)))(a)), want, REDUCTION,
                            scale=scale)
        found[name] = _backward_eqns(loss(policy), a)
    assert found["nothing_saveable"] == _backward_eqns(loss(None), a)
    prims, n_fwd = found["nothing_saveable"]
    assert prims.count("dot_general") == 2 and "sin" in prims and n_fwd == 1
    prims, n_fwd = found["dots_saveable"]         # the forward product is kept, sins recomputed
    assert prims.count("dot_general") == 1 and "sin" in prims and n_fwd == 2
    assert found["checkpoint_dots"] == found["dots_with_no_batch_dims_saveable"] == \
        found["dots_saveable"]
    prims, n_fwd = found["everything_saveable"]   # nothing recomputed
    assert "sin" not in prims and "cos" not in prims and n_fwd == 3


def test_saved_residuals_name_the_line_inside_the_checkpoint(capsys):
    # JAX 0.10.2 (gradient-checkpointing.md's g, f2, f3): a residual computed inside a
    # checkpointed function is attributed to its own line and function, not to the call
    import inspect
    from jxkernel.ad_checkpoint import print_saved_residuals

    def g(W, x):
        y = jnp.dot(W, x)
        return jnp.sin(y)

    def f2(W1, W2, x):
        x = jax.checkpoint(g)(W1, x)
        return jax.checkpoint(g)(W2, x)

    def f(W1, W2, x):
        return g(W2, g(W1, x))

    first = inspect.getsourcelines(g)[1]
    W1, W2, x = jnp.ones((5, 4)), jnp.ones((6, 5)), jnp.ones(4)
    print_saved_residuals(f2, W1, W2, x)
    f3 = jax.checkpoint(f, policy=cp.dots_with_no_batch_dims_saveable)
    print_saved_residuals(f3, W1, W2, x)
    lines = capsys.readouterr().out.splitlines()
    where = f"{__file__}:{{}} ({g.__qualname__})"
    assert lines[3] == f"f32[5] output of sin from {where.format(f'{first + 2}:15')}"
    assert lines[7:9] == [f"f32[{n}] output of dot_general from "
                          f"{where.format(f'{first + 1}:12')}" for n in (5, 6)]


def test_batch_dims_policy_recomputes_batched_products():
    b = np.ones((2, 3, 3), np.float32)
    f = lambda policy: lambda x: jax.checkpoint(  # noqa: E731
        lambda x: jnp.sin(jnp.einsum("bij,bjk->bik", x, b)), policy=policy)(x).sum()
    assert _backward_eqns(f(cp.dots_saveable), b)[1] == 2
    assert _backward_eqns(f(cp.dots_with_no_batch_dims_saveable), b)[1] == 1


def test_checkpoint_name_and_name_policies():
    def block(x):
        return jnp.sin(checkpoint_name(jnp.sin(x) * 3, "mid"))

    def loss(policy):
        return lambda x: jax.checkpoint(block, policy=policy)(x)
    expected = np.asarray(jax.grad(block)(0.7))
    for policy in [cp.save_only_these_names("mid"), cp.save_any_names_but_these("mid"),
                   cp.save_anything_except_these_names("mid"),
                   cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("mid"))]:
        # (recomputing sin(sin(x) * 3) may round as the plain gradient does not) [worst seen 0]
        assert_allclose_ulp(np.asarray(jax.grad(loss(policy))(0.7)), expected, ELEMENTWISE)
    saved, n_saved = _backward_eqns(loss(cp.save_only_these_names("mid")), 0.7)
    assert "sin" not in saved and n_saved == 2
    other, n_other = _backward_eqns(loss(cp.save_only_these_names("other")), 0.7)
    assert "sin" in other and n_other == 1
    assert _backward_eqns(loss(cp.save_any_names_but_these("mid")), 0.7) == (other, n_other)
    with pytest.raises(ValueError, match="should be a boolean"):
        jax.grad(loss(cp.save_from_both_policies(cp.dots_saveable, lambda *a, **k: None)))(0.7)


def test_checkpoint_name_is_the_identity_under_transformations():
    x = np.array([0.3, -1.2], np.float32)
    assert "name[name=foo]" in str(jax.make_jaxpr(lambda x: checkpoint_name(x * 2, "foo"))(x))
    f = lambda x: jnp.sin(checkpoint_name(x * 2, "foo"))  # noqa: E731
    want = np.sin(2 * x.astype(np.float64)).astype(np.float32)   # rounded once [worst seen 0]
    assert_allclose_ulp(np.asarray(f(x)), want, ELEMENTWISE)
    assert_allclose_ulp(np.asarray(jax.vmap(f)(x)), want, ELEMENTWISE)
    assert_allclose_ulp(np.asarray(jax.jit(f)(x)), want, ELEMENTWISE)
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    tree = checkpoint_name({"a": x, "b": (x, x)}, "t")
    np.testing.assert_array_equal(tree["b"][1], x)


def test_check_grads_takes_array_tolerances_for_complex_inputs_under_strict_promotion():
    # JAX's eigh_test scales eps and atol by jnp.linalg.norm (float32 arrays) for complex
    # matrices under strict promotion; JAX 0.10.2's check_grads passes this very call
    a = np.array([[2., 1 + 1j], [1 - 1j, 3.]], np.complex64)
    norm = jnp.linalg.norm(a)
    with jax.numpy_dtype_promotion("strict"):
        check_grads(lambda a: jnp.linalg.eigh(a)[0], (a,), 2, atol=5e-3 * norm, rtol=0.025,
                    eps=2e-5 * norm)


# jax.Device is jaxlib's device class where jaxlib is installed; the NumPy backend's device is
# a class of its own (jax.Device itself only where jaxlib is absent)
@pytest.mark.xla_only("CPU platform")
def test_devices_are_jax_devices():
    assert all(isinstance(d, jax.Device) for d in jax.devices())


def test_environment_info_and_device(capsys):
    text = jax.print_environment_info(return_string=True)
    assert text.startswith("jxkernel: ") and "jaxlib: " in text and "device info: " in text
    from jxkernel.core.native import STATE
    assert f"\nfast path: {STATE}" in text          # on, or off and why (a bug report says which)
    assert jax.print_environment_info() is None and capsys.readouterr().out.strip() == text
    assert jax.ad_checkpoint.checkpoint is jax.checkpoint
