"""A jit's unused arguments, against JAX 0.10.2's recorded answers (tests/data/kept_args_cases.py,
recorded by reference/make_kept_args_reference.py): JAX drops the arguments a jitted function
never reads from its program (`kept_var_idx`) unless keep_unused=True, and so does jxkernel:
the lowered text and compiler_ir, XLA's parameters, Compiled.input_shardings (None for one
dropped), args_info, donation (an unused donated argument is not deleted, and no warning),
calls on every path (the C fast path, the Python one, Python scalars, NumPy data, containers,
keywords, statics), jax.export's module_kept_var_idx, and pmap."""
import functools
import warnings

import locations  # tests/support: the repository's folders
import kept_args_cases as cases
import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.xla import transfers


def _reference() -> dict:
    return locations.recorded("kept_args_reference.json")


@functools.cache
def _ours(part: str):
    return getattr(cases, f"_{part}")(jxkernel)


def _same_values(got, want) -> None:
    """Results of one multiply or add of small integers: exact in float32 (0 ulp)."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_max_ulp(np.asarray(g, np.float32), np.asarray(w, np.float32),
                                        maxulp=0)


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("name", sorted(_reference()["main"]))
def test_main_takes_the_arguments_jaxs_takes(name):
    assert _ours("main")[name] == _reference()["main"][name]


@pytest.mark.xla_only("XLA compiler")
@pytest.mark.parametrize("name", sorted(_reference()["compiled"]))
def test_compiled_input_shardings_and_args_info_are_jaxs(name):
    mine, ref = dict(_ours("compiled")[name]), dict(_reference()["compiled"][name])
    _same_values(mine.pop("call"), ref.pop("call"))
    assert mine == ref


# (the NumPy backend deletes every donated argument: no XLA aliasing decides it is unusable)
@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xla_only("XLA compiler"))
                                  if name.endswith("unusable") else name
                                  for name in sorted(_reference()["donated"])])
def test_an_unused_donated_argument_is_kept_as_jaxs(name):
    for mine, ref in zip(_ours("donated")[name], _reference()["donated"][name], strict=True):
        _same_values(mine["result"], ref["result"])
        assert (mine["deleted"], mine["warnings"]) == (ref["deleted"], ref["warnings"])


@pytest.mark.parametrize("name", sorted(_reference()["calls"]))
def test_calls_with_unused_arguments_give_jaxs_results(name):
    for mine, ref in zip(_ours("calls")[name], _reference()["calls"][name], strict=True):
        _same_values(mine, ref)


@pytest.mark.xla_only("XLA text")          # (jax.export: refused on NumPy)
@pytest.mark.parametrize("name", sorted(_reference()["exported"]))
def test_export_keeps_the_arguments_jaxs_keeps(name):
    mine, ref = _ours("exported")[name], _reference()["exported"][name]
    if name == "grad_through_call":
        _same_values(mine, ref)
        return
    mine, ref = dict(mine), dict(ref)
    for key in ("call", "jit_call"):
        if key in ref:
            _same_values(mine.pop(key), ref.pop(key))
    assert mine == ref


@pytest.mark.xla_only("XLA text")
def test_pmap_takes_the_arguments_jaxs_takes():
    mine, ref = _ours("pmap"), _reference()["pmap"]
    _same_values(mine["call"], ref["call"])
    assert mine["one_unused"] == ref["one_unused"]


def test_an_unused_argument_is_not_moved_to_the_device(monkeypatch):
    moved = []
    put = transfers.put_on_device
    monkeypatch.setattr(transfers, "put_on_device", lambda x, *a, **k: (moved.append(x),
                                                                          put(x, *a, **k))[1])
    f = jxkernel.jit(lambda x, y: x * 2)
    unused = np.ones(5, np.float32)
    assert float(f(np.float32(1.0), unused)) == 2.0
    assert not any(m is unused for m in moved) and len(moved) == 1


def test_keep_unused_lowers_and_runs_every_argument():
    f = jxkernel.jit(lambda x, y: x * 2, keep_unused=True)
    a, b = jnp.ones(3), jnp.ones(4)
    assert [float(f(a, b)[0]) for _ in range(3)] == [2.0] * 3
    assert f.lower(a, b).compile()._entry.exe.kept is None


def test_a_jit_inside_another_with_an_unused_argument():
    inner = jxkernel.jit(lambda x, y: x + 1)
    outer = jxkernel.jit(lambda x, y: inner(x, y) * inner(y, x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(outer(1.0, 2.0)) == 6.0
        assert float(jxkernel.grad(lambda x: inner(x, 5.0) ** 2)(1.0)) == 4.0
