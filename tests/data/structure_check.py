"""Run the cases of structure_cases.py with jxkernel and compare with what JAX recorded
(structure_reference.json): printed jaxprs token for token; values by dtype, weak type,
shape and value exactly (NaNs equal), also under jit where the result has a static shape. Used by
test_numpy_products.py, test_numpy_manipulation.py and test_numpy_setops.py.
"""
import functools
import re

import numpy as np

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core import check_jaxpr

from compiled import jit_together
from structure_cases import JAXPRS, VALUES, load_reference, namespace

NS = namespace(jax, jnp, lax)
REF = load_reference()


def names(prefix: str, table) -> list:
    return sorted(n for n in table if n.startswith(prefix))


def _tokens(text: str) -> str:
    # JAX breaks a long equation over lines by its printed width; compare the tokens
    return re.sub(r"\[\s+", "[", re.sub(r"\s+\]", "]", " ".join(text.split())))


def check_printed_jaxpr(name: str) -> None:
    fun, args = JAXPRS[name]
    closed = jax.make_jaxpr(eval(fun, NS))(*eval(args, NS))
    check_jaxpr(closed)
    # the reference writes JAX's `np.int64(3)` params as `3` (reference/gen_structure_reference.py);
    # jxkernel prints them as JAX does, so its text is read the same way
    ours = re.sub(r"np\.int64\((-?\d+)\)", r"\1", str(closed))
    assert _tokens(ours) == _tokens(REF["jaxprs"][name]), \
        f"{name}\nours:\n{closed}\nJAX:\n{REF['jaxprs'][name]}"


def _compare(got, want, where):
    if "seq" in want:
        assert isinstance(got, (tuple, list)) and len(got) == len(want["seq"]), where
        for g, w in zip(got, want["seq"]):
            _compare(g, w, where)
        return
    assert str(got.dtype) == want["dtype"], (where, got.dtype, want["dtype"])
    assert bool(got.weak_type) == want["weak"], (where, "weak_type")
    assert list(got.shape) == want["shape"], (where, got.shape, want["shape"])
    value = np.asarray(got)
    if value.dtype.kind == "c":
        value = np.stack([value.real, value.imag], -1)
    # exact on every CPU: the float inputs are multiples of 1/4 below 2 (structure_cases.f),
    # so every product and sum of them is exact in any order; the rest are integers, selections
    # and comparisons (NaNs equal)
    np.testing.assert_array_equal(value.astype(np.float64), np.array(want["value"], np.float64),
                                  err_msg=where)


def check_value(name: str, jit: bool = True, together=None) -> None:
    """The case's value eagerly and (with `jit`) under jit against JAX's. `together`: the
    names of the test's jitted cases, whose jit programs then compile as one (_jitted)."""
    fun, args = VALUES[name]
    fun, args, want = eval(fun, NS), eval(args, NS), REF["values"][name]
    if "error" in want:
        raise AssertionError(f"{name}: JAX raised {want['error']}: {want['message']}")
    _compare(fun(*args), want, f"{name} (eager)")
    if jit:
        got = _jitted(tuple(together))[name] if together and name in together else \
            jax.jit(fun)(*args)
        _compare(got, want, f"{name} (jit)")


@functools.cache
def _jitted(names):
    """jit(fun)(*args) of the named cases, one program per 64 (compiled.jit_together: a
    chunk that fails runs case by case)."""
    calls = {}
    for name in names:
        if "error" not in REF["values"][name]:
            fun, args = VALUES[name]
            calls[name] = (eval(fun, NS), list(eval(args, NS)))
    return jit_together(jax, calls)
