"""Which public functions are jit objects, as in JAX (where `export(jnp.sin)`,
`jnp.dot.lower(a, b)` and `jnp.sin.eval_shape(x)` work): here the functions stay plain
for eager speed and carry the jit as `as_jit`, with `lower`, `trace` and `eval_shape`.
Compared with JAX's recorded list and answers (tests/data/jitted_names_reference.json,
made by reference/make_jitted_names_reference.py from tests/data/jitted_names_cases.py)."""
import importlib

import numpy as np
import pytest

import jxkernel as jax
from jxkernel import export
from jxkernel.transforms.jit import Jitted

from doc_examples import check_docstring_examples
from jitted_names_cases import MODULES, samples
from numerics import LAPACK, assert_allclose_ulp
import locations  # tests/support: the repository's folders

REF = locations.jax_answers("jitted_names_reference.json")

# JAX's jit objects that are plain functions here still, by module, and why
NOT_YET: dict = {}                  # a jit object of JAX's jxkernel lacks: none


def _public(mod) -> set:
    return {n for n in dir(mod) if not n.startswith("_")}


def _has_jit(fn) -> bool:
    """A jit object itself (lax.fft), or a plain function carrying one (jnp.sin)."""
    return isinstance(fn, Jitted) or (callable(fn) and hasattr(fn, "as_jit") and
                                      hasattr(fn, "lower"))


@pytest.mark.parametrize("module", MODULES)
def test_jit_objects_are_jaxs(module):
    """Exactly JAX's jit objects carry `as_jit` (not jnp.sum or nn.relu, plain in JAX)."""
    mod = importlib.import_module("jxkernel." + module)
    want = set(REF["modules"][module]) - set(NOT_YET.get(module, ()))
    shared = _public(mod) & set(REF["public"][module])    # (jxkernel's extras aside)
    got = {n for n in shared | want if _has_jit(getattr(mod, n, None))}
    assert got == want, (f"jxkernel.{module}: missing {sorted(want - got)}, "
                         f"not jitted in JAX {sorted(got - want)}")


@pytest.mark.parametrize("module", MODULES)
def test_static_arguments_are_jaxs(module):
    """`as_jit`'s name (export's fun_name), static arguments and inline flag are those of
    JAX's jit object."""
    mod = importlib.import_module("jxkernel." + module)
    for name, info in REF["modules"][module].items():
        fn = getattr(mod, name, None)
        if not _has_jit(fn):
            continue
        jitted = getattr(fn, "as_jit", fn)
        assert jitted.__name__ == info["fun_name"], name    # (nn.swish is silu, in JAX too)
        assert set(jitted._static_argnames) == set(info["static_argnames"]), name
        assert bool(jitted._inline) == info["inline"], name


def _cases():
    return {(m, n): (args, kwargs) for m, n, args, kwargs in samples()}


def _sample(case):
    """The sample's function, args and kwargs."""
    args, kwargs = _cases()[case["module"], case["name"]]
    return getattr(importlib.import_module("jxkernel." + case["module"]), case["name"]), args, kwargs


def _is_jaxs_result(got, case):
    want = np.asarray(case["result"], dtype=case["dtype"])
    got = np.asarray(got)
    assert got.dtype == want.dtype
    if want.dtype.kind == "f":      # (linalg's det, inv, expm: LAPACK's bound)
        assert_allclose_ulp(got, want, LAPACK)
    else:
        np.testing.assert_array_equal(got, want)


def _sample_id(case) -> str:
    return f"{case['module']}.{case['name']}"


@pytest.mark.xla_only("XLA text")       # jax.export: StableHLO, which the NumPy backend refuses
@pytest.mark.parametrize("case", REF["samples"], ids=_sample_id)
def test_export_matches_jax(case):
    fn, args, kwargs = _sample(case)
    exp = export.export(fn)(*args, **kwargs)
    assert exp.fun_name == case["fun_name"]
    assert [str(a) for a in exp.in_avals] == case["in_avals"]
    assert [str(a) for a in exp.out_avals] == case["out_avals"]
    info = REF["modules"][case["module"]][case["name"]]
    _is_jaxs_result(exp.call(*args, **{k: v for k, v in kwargs.items()
                                       if k not in info["static_argnames"]}), case)


@pytest.mark.parametrize("case", REF["samples"], ids=_sample_id)
def test_lower_eval_shape_and_calls_match_jax(case):
    fn, args, kwargs = _sample(case)
    assert ("func.func public @main" in fn.lower(*args, **kwargs).as_text()) == case["has_main"]
    shape = fn.eval_shape(*args, **kwargs)
    assert [list(shape.shape), str(shape.dtype)] == case["eval_shape"]
    for got in (fn(*args, **kwargs), fn.as_jit(*args, **kwargs)):
        _is_jaxs_result(got, case)


def test_plain_function_stays_on_the_call_path():
    """The name is the plain function, not the jit: eager calls skip jit's dispatch."""
    import jxkernel.numpy as jnp
    assert type(jnp.sin).__name__ == "function" and type(jnp.dot).__name__ == "function"
    assert jnp.sin.as_jit is not jnp.sin
    assert not hasattr(jnp.sum, "as_jit") and not hasattr(jax.nn.relu, "as_jit")


def test_aliases_are_jits_of_their_own_at_the_same_speed():
    """JAX's jnp.abs and acos are jit objects of their own, named so; here copies of
    absolute's and arccos's code (no extra call eagerly), each with its own jit. (JAX's around,
    acosh and atan2 call the original inside their jits: so do these, tests/data/
    jaxpr_text_cases.py compares their jaxprs.)"""
    import jxkernel.numpy as jnp
    for alias, name in ((jnp.abs, jnp.absolute), (jnp.acos, jnp.arccos)):
        # (the same bytecode: a code object of its own, named for the alias, so that a
        # call's frame tells them apart, as jit_argument_error needs)
        assert alias is not name and alias.__code__.co_code == name.__code__.co_code
        assert alias.__code__.co_name == alias.__name__
        assert alias.as_jit is not name.as_jit and alias.as_jit.__name__ == alias.__name__


def test_docstring_examples():
    check_docstring_examples("jxkernel.transforms.jit.namesakes")


def test_wrappers_do_not_take_the_jit():
    """grad(jnp.sin) or jit(jnp.dot) copy jnp.sin's fields (functools.wraps), but not its jit:
    `grad(jnp.sin).lower` would lower sin, and on a jit object `lower` would shadow its own.
    As in JAX, exporting grad(jnp.sin) is refused (it is no jit)."""
    import jxkernel.numpy as jnp
    g = jax.grad(jnp.sin)
    assert not any(hasattr(g, a) for a in ("as_jit", "lower", "trace", "eval_shape"))
    assert "lower" not in vars(jax.jit(jnp.dot)) and "lower" not in vars(jax.custom_jvp(jnp.sin))
    assert "cos" in str(jax.jit(g).trace(1.0).jaxpr)
    with pytest.raises(ValueError, match="Function to be exported must be the result of `jit`"):
        export.export(g)
