"""jax.experimental.checkify's user checks (jxkernel/_src/checkify.py): check collected by
checkify eagerly and under an enclosing jit, Error's get/throw, check outside checkify, and
the clear errors for what jxkernel does not do (automatic checks, checks in nested traces)."""
import pytest
from doc_examples import check_docstring_examples

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.errors import JaxRuntimeError
from jxkernel.experimental import checkify as ck


@pytest.mark.parametrize("module", ["jxkernel._src.checkify", "jxkernel.experimental.checkify"])
def test_docstring_examples(module):
    check_docstring_examples(module)


def f(x):
    ck.check(jnp.all(x > 0), "all positive, got min {}", jnp.min(x))
    ck.check(x.sum() < 10, "sum below 10")
    return jnp.log(x)


def test_first_failed_check_wins_eagerly_and_under_jit():
    for g in (ck.checkify(f), jxkernel.jit(ck.checkify(f))):
        err, out = g(jnp.array([1.0, 2.0]))
        assert err.get() is None and out.shape == (2,)
        err.throw()
        err, _ = g(jnp.array([-1.0, 20.0]))
        assert err.get() == "all positive, got min -1.0 (`check` failed)"
        with pytest.raises(JaxRuntimeError, match="all positive"):
            err.throw()
        assert g(jnp.array([5.0, 6.0]))[0].get() == "sum below 10 (`check` failed)"


def test_check_outside_checkify():
    ck.check(True, "fine")
    with pytest.raises(JaxRuntimeError, match="broken 3"):
        ck.check(jnp.array(False), "broken {}", 3)
    with pytest.raises(ValueError, match="not functionalized"):
        jxkernel.jit(lambda x: ck.check(x > 0, "x"))(1.0)


def test_what_jxkernel_does_not_check_says_so():
    with pytest.raises(NotImplementedError, match="NaNError"):
        ck.checkify(f, errors=ck.float_checks)
    with pytest.raises(NotImplementedError, match="nested in the checkified function"):
        ck.checkify(jxkernel.jit(f))(jnp.ones(2))
