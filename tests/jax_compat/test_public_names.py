"""JAX 0.10.2's public names in jxkernel's corresponding modules.

tests/data/jax_public_names.json is what reference/make_public_names_reference.py recorded
from JAX; conformance/public_names.py looks each name up as `jxkernel.X`. The ratio only goes
up (RATCHET), every missing name is listed below, and conformance/README.md shows the counts.
When you add a name: delete it from MISSING, raise RATCHET to the new ratio (printed by the
failure) and run `python -m conformance.public_names --report`.
"""
import json

import numpy as np
import pytest

import jxkernel
from jxkernel.core.dtypes import MISSING_NARROW_NAMES
import public_names_cases
from doc_examples import check_docstring_examples
from conformance import public_names
import locations  # tests/support: the repository's folders

# JAX 0.10.2 answered with int1 and uint1, which ml_dtypes has from 0.6 on (0.5 is inside
# pyproject's range: jxkernel then leaves them out)
NEEDS_INT1 = pytest.mark.skipif(bool(MISSING_NARROW_NAMES),
                                reason="ml_dtypes before 0.6 has no int1, uint1")

# The ratio of JAX's names present, over the recorded modules; raised as names are added.
RATCHET = 1323 / 1323

# The names still missing, per module. A name found here that jxkernel has fails the test
# too (take it off), as does a name missing that is not here (a regression).
MISSING = {
}


@NEEDS_INT1
def test_missing_names_are_exactly_the_listed_ones():
    missing = public_names.missing()
    for module in public_names.jax_names():
        listed = set(MISSING.get(module, "").split())
        now = set(missing[module])
        assert not now - listed, (
            f"{module}: JAX's names {sorted(now - listed)} went missing from "
            f"jxkernel{module[3:]}")
        assert not listed - now, (
            f"{module}: {sorted(listed - now)} are present now: delete them from MISSING in "
            f"tests/jax_compat/test_public_names.py, raise RATCHET and run "
            f"`python -m conformance.public_names --report`")


# Public names jxkernel's modules have that JAX 0.10.2's lack, at most, per module: under
# `import jax` code that reads one runs here and fails under JAX. Most are imports of jxkernel's
# own (jax.lax's `batching_rules`, jnp.linalg's `vmap`) or jxkernel's features (`jax.explain`);
# the learner's ones went (jnp.product, alltrue, sometrue, jax.random.KeyArray,
# jax.stop_gradient). A count only goes down: lower it when a name goes.
EXTRA_AT_MOST = {
    "jax": 15, "jax.lax": 46, "jax.tree_util": 13, "jax.numpy.linalg": 14, "jax.numpy.fft": 6,
    "jax.scipy.special": 6, "jax.lax.linalg": 6, "jax.debug": 10, "jax.sharding": 8,
    "jax.experimental.layout": 7, "jax.custom_derivatives": 5,
    "jax.experimental.custom_partitioning": 34, "jax.experimental.serialize_executable": 24,
    "jax.interpreters.ad": 5, "jax.api_util": 18, "jax.extend.core": 21, "jax.core": 36}


def test_names_jax_lacks_only_go_down():
    extra = public_names.extra()
    for module, names in extra.items():
        assert len(names) <= EXTRA_AT_MOST.get(module, 0), (
            f"jxkernel{module[3:]} has {len(names)} public names JAX's {module} lacks, more than "
            f"{EXTRA_AT_MOST.get(module, 0)}: make the new one private ({names})")
    assert sum(map(len, extra.values())) == sum(EXTRA_AT_MOST.values()), (
        "fewer names JAX lacks: lower EXTRA_AT_MOST to", {m: len(n) for m, n in extra.items()})


@NEEDS_INT1
def test_coverage_only_goes_up():
    have, total = public_names.coverage(public_names.missing())
    print(f"{have} of {total} JAX public names ({have / total:.4f})")
    assert have / total >= RATCHET, f"{have}/{total} = {have / total:.4f} < {RATCHET}"


@NEEDS_INT1
def test_readme_counts_are_current():
    assert public_names.readme_section() == public_names.table(public_names.missing()), (
        "conformance/README.md's public names are stale: run "
        "`python -m conformance.public_names --report`")


def _reference():
    return locations.jax_answers("public_names_reference.json")


@pytest.mark.parametrize("group", ["api", "lax", "custom_batching", "config", "ops_monitoring",
                                   "state", "dot", "config_more", "lax_more", "smap",
                                   pytest.param("ffi", marks=pytest.mark.xla_only("XLA compiler")),
                                   "api_mesh", "smap_explicit",
                                   pytest.param("documented_modules",
                                                marks=pytest.mark.xla_only("XLA compiler")),
                                   "linear_call", "interpreters_ad", "api_util",
                                   pytest.param("extend_core",
                                                marks=pytest.mark.xla_only("XLA compiler"))])
def test_added_names_answer_as_jax(group):
    """The cases of tests/data/public_names_cases.py, run with jxkernel, against JAX's answers."""
    got = json.loads(json.dumps(getattr(public_names_cases, f"{group}_cases")(jxkernel)))
    want = _reference()[group]
    assert got.keys() == want.keys()
    for case in want:
        assert got[case] == want[case], case


@pytest.mark.parametrize("module", ["jxkernel.typing", "jxkernel.lax.rng", "jxkernel.lax.creation",
                                    "jxkernel.custom_batching",
                                    "jxkernel.transforms.custom_batching", "jxkernel.ops",
                                    "jxkernel.monitoring", "jxkernel.lax.sorting", "jxkernel.lax.cond",
                                    "jxkernel.lib", "jxkernel.numpy.dslice", "jxkernel.ref",
                                    "jxkernel._src.indexing", "jxkernel.lax.ragged",
                                    "jxkernel.export._serialization",
                                    "jxkernel.experimental.compilation_cache.compilation_cache",
                                    "jxkernel.xla.disk_cache",
                                    "jxkernel.transforms.custom_derivatives",
                                    "jxkernel.transforms.custom_derivatives.jvp",
                                    "jxkernel.transforms.custom_derivatives.vjp",
                                    "jxkernel.transforms.custom_derivatives.vjp_rules",
                                    "jxkernel.transforms.custom_derivatives.linear_call",
                                    "jxkernel.transforms.custom_gradient",
                                    "jxkernel.transforms.make_jaxpr",
                                    "jxkernel._jax.interpreters.ad", "jxkernel._jax.api_util"])
def test_docstring_examples(module):
    # (lax.cond's and export's serialization module docstrings sketch, with an `x` and an
    # `exp` they never define)
    check_docstring_examples(module, skip_module_docstring=module in (
        "jxkernel.lax.cond", "jxkernel.export._serialization"))


def test_rng_bit_generator_names_a_bad_key():
    key = jxkernel.numpy.zeros(3, jxkernel.numpy.uint32)
    with pytest.raises(TypeError, match=r"key must be uint32\[4\] \(or uint64\[2\]\), got u32\[3\]"):
        jxkernel.lax.rng_bit_generator(key, (2,))


def test_enable_checks_type_checks_every_traced_jaxpr(monkeypatch):
    from jxkernel.core import staging
    checked = []
    monkeypatch.setattr(staging, "check_jaxpr", checked.append)
    jxkernel.make_jaxpr(lambda x: x * 2)(1.0)
    assert checked == []
    with jxkernel.enable_checks(True):
        jaxpr = jxkernel.make_jaxpr(lambda x: x * 2)(1.0)
    assert [str(c) for c in checked] == [str(jaxpr)]


def test_ragged_dot_vmaps_over_any_operand_as_a_loop():
    # (JAX 0.10.2's batching rule raises for these; jxkernel's ragged_dot is dot_general over
    # masks, which vmap batches like any other program)
    jnp, lax = jxkernel.numpy, jxkernel.lax
    lhs = jnp.arange(24.0).reshape(2, 4, 3) % 5 - 2
    rhs = jnp.arange(36.0).reshape(2, 3, 3, 2) % 4
    sizes = jnp.array([[1, 0, 3], [2, 2, 0]], jnp.int32)
    got = jxkernel.jit(jxkernel.vmap(lax.ragged_dot))(lhs, rhs, sizes)
    want = [lax.ragged_dot(lhs[i], rhs[i], sizes[i]) for i in range(2)]
    np.testing.assert_array_equal(np.asarray(got), np.stack(want))


def test_pbroadcast_is_a_psum_masked_to_the_source():
    # (JAX 0.10.2's pbroadcast has no CPU lowering and its vmap rule fails: jxkernel's is
    # JAX's documented definition, checked here under vmap, grad and pmap)
    jnp, lax = jxkernel.numpy, jxkernel.lax
    x = jnp.arange(6.0).reshape(3, 2)
    got = jxkernel.vmap(lambda v: lax.pbroadcast({"f": v, "i": v.astype(jnp.int32)}, "i", 2),
                        axis_name="i")(x)
    assert got["f"].tolist() == [[4.0, 5.0]] * 3 and got["i"].tolist() == [[4, 5]] * 3
    weights = jnp.arange(3.0)[:, None]
    grad = jxkernel.grad(lambda v: (jxkernel.vmap(lambda r: lax.pbroadcast(r, "i", 1),
                                                  axis_name="i")(v) * weights).sum())(x)
    assert grad.tolist() == [[0.0, 0.0], [3.0, 3.0], [0.0, 0.0]]
    assert jxkernel.pmap(lambda v: lax.pbroadcast(v, "i", 0), axis_name="i")(x[:1]).tolist() == \
        [[0.0, 1.0]]


@pytest.mark.xla_only("XLA compiler")    # foreign functions are XLA's custom calls
def test_ffi_registers_targets_and_names_a_missing_one():
    import ctypes
    S, jnp = jxkernel.ShapeDtypeStruct, jxkernel.numpy
    # jaxlib's JaxRuntimeError as it is, as JAX's (tests/core/test_jax_error_texts.py)
    with pytest.raises(jxkernel.errors.JaxRuntimeError,
                       match="^NOT_FOUND: No FFI handler registered for not_a_target"):
        jxkernel.jit(jxkernel.ffi.ffi_call("not_a_target", S((2,), jnp.float32)))(1.0)
    # a capsule of a C function; registering it under a new name is jaxlib's (the handler is
    # never called: it is no FFI handler)
    capsule = jxkernel.ffi.pycapsule(ctypes.cast(ctypes.pythonapi.Py_IncRef, ctypes.c_void_p).value)
    assert type(capsule).__name__ == "PyCapsule"
    assert jxkernel.ffi.register_ffi_target("jxkernel_test_target", capsule, api_version=0) is None
