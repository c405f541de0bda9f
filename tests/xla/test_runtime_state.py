"""Runtime state as JAX 0.10.2 has it: transfer guards, checking_leaks, clear_caches,
live_arrays, jax.dlpack. Device-to-device guards run in one 2-device subprocess."""
import contextlib
import json
import logging
import re

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from fresh_process import run_code
import gpu_tier

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.config import config
from jxkernel.errors import JaxRuntimeError
from jxkernel.transforms.jit import cache as jit_cache, primitive as jit_primitive
from jxkernel.core import partial_eval
from jxkernel.xla import compiler, dispatch, transfer_guard
import locations  # tests/support: the repository's folders

# the device as JAX prints it: CpuDevice(id=0) under XLA, NumpyDevice(id=0) on the NumPy backend
DEVICE = repr(jax.devices()[0])
H2D_TEXT = "host-to-device transfer: aval=ShapedArray(float32[3]), dst_sharding=" \
           f"SingleDeviceSharding(device={DEVICE}, memory_kind=device)"
H2D = re.escape("Disallowed " + H2D_TEXT)

LEAKED = []


# ------------------------------------------------------------------ transfer guards
@pytest.mark.cpu_only("CPU text")
def test_disallow_refuses_implicit_host_to_device_transfers_only():
    f = jax.jit(lambda v: v * 2)
    x = jnp.arange(3.0)
    f(x)                                          # compiled outside the guard
    host = np.ones(3, np.float32)
    with jax.transfer_guard("disallow"):
        assert config._transfer_guarded
        for implicit in (lambda: f(host), lambda: jnp.add(x, host), lambda: jnp.asarray(host)):
            with pytest.raises(JaxRuntimeError, match="INVALID_ARGUMENT: " + H2D) as e:
                implicit()
            assert "jax.device_put(x)" in str(e.value)
        with pytest.raises(JaxRuntimeError, match=r"aval=ShapedArray\(float32\[\], weak_type"):
            f(1.0)                                # a Python scalar is host data too
        np.testing.assert_array_equal(f(jax.device_put(host)), [2, 2, 2])   # explicit
        np.testing.assert_array_equal(np.asarray(f(x)), [0, 2, 4])   # CPU memory is host memory
        assert jax.device_get(x).tolist() == [0.0, 1.0, 2.0]
    assert not config._transfer_guarded
    np.testing.assert_array_equal(f(host), [2, 2, 2])


@pytest.mark.cpu_only("CPU text")
def test_disallow_explicit_refuses_device_put_too_but_not_reading_cpu_arrays():
    x = jnp.arange(3.0)
    with jax.transfer_guard("disallow_explicit"):
        with pytest.raises(JaxRuntimeError, match=H2D) as e:
            jax.device_put(np.zeros(3, np.float32))
        assert "transfer_guard_host_to_device('allow')" in str(e.value)
        assert x.tolist() == [0.0, 1.0, 2.0] and float(jax.device_get(x)[2]) == 2.0


def test_log_levels_log_implicit_or_every_transfer(caplog):
    host = np.ones(3, np.float32)
    with caplog.at_level(logging.WARNING, logger="jxkernel.transfer_guard"):
        with jax.transfer_guard("log"):
            jnp.asarray(host)
            jax.device_put(host)
        logged_for_log = [r.getMessage() for r in caplog.records]
        caplog.clear()
        with jax.transfer_guard("log_explicit"):
            jax.device_put(host)
        logged_for_explicit = [r.getMessage() for r in caplog.records]
    assert logged_for_log == [H2D_TEXT]         # device_put's was explicit: not logged
    assert logged_for_explicit == [H2D_TEXT]


@pytest.mark.cpu_only("CPU text")
def test_each_direction_has_its_own_option_and_it_wins_over_the_general_one():
    host = np.ones(3, np.float32)
    with jax.transfer_guard_device_to_host("disallow_explicit"):
        assert transfer_guard.level("host_to_device") == "allow"
        jnp.asarray(host)
    with jax.transfer_guard_host_to_device("disallow"):
        with pytest.raises(JaxRuntimeError, match=H2D):
            jnp.asarray(host)
    config.update("jax_transfer_guard", "disallow")
    try:
        assert transfer_guard.level("device_to_device") == "disallow"
        with jax.transfer_guard_host_to_device("allow"):
            jnp.asarray(host)
        with pytest.raises(JaxRuntimeError, match=H2D):
            jnp.asarray(host)
    finally:
        config.update("jax_transfer_guard", None)
    assert not config._transfer_guarded
    aval = jnp.ones(3).aval
    with jax.transfer_guard("disallow"):          # what reading a GPU array would check
        with pytest.raises(JaxRuntimeError, match=re.escape(
                "Disallowed device-to-host transfer: aval=ShapedArray(float32[3]), src_sharding"
                f"=SingleDeviceSharding(device={DEVICE}")):
            transfer_guard.check("device_to_host", aval, jax.devices()[0])
    with pytest.raises(ValueError, match="new enum value must be None or in .*got nope of type"):
        config.update("jax_transfer_guard_device_to_host", "nope")


TWO_DEVICES = """
    import json, sys
    import numpy as np
    import jxkernel as jax
    lazy = ("jxkernel.profiler", "jxkernel.api.runtime_state", "jxkernel.xla.transfer_guard",
            "jxkernel.core.tracer_errors.leaks", "jaxlib._profiler")
    loaded_by_import = [m for m in lazy if m in sys.modules]
    import runtime_state_cases as cases
    out = cases.run(jax)
    out["loaded_by_import"] = loaded_by_import
    print(json.dumps(out))
"""


@pytest.mark.cpu_only("CPU text")
@pytest.mark.xla_only("several devices")
def test_transfer_guards_refuse_what_jaxs_refuse_on_two_devices():
    """tests/data/runtime_state_cases.py, recorded with JAX by
    reference/make_runtime_state_reference.py, run with jxkernel on two CPU devices."""
    out = json.loads(run_code(TWO_DEVICES, {"JXKERNEL_CPU_DEVICES": "2"}).stdout)
    reference = locations.jax_answers("runtime_state_reference.json")
    for level in ("allow", "disallow", "disallow_explicit"):
        assert out[level] == reference[level], level
    assert out["loaded_by_import"] == []        # `import jxkernel` loads none of them
    assert reference["disallow_explicit"]["device_put_array_to_d1"].startswith(
        "Disallowed device-to-device transfer")
    assert reference["disallow"]["default_device_d1_moves_array"] == [1]   # moved, unguarded
    assert "dst_sharding=NamedSharding(" in reference["disallow_explicit"]["device_put_numpy_split"]


# ------------------------------------------------------------------ leaks
def keep_a_tracer(v):
    LEAKED.append(v * 2)
    return v + 1


def test_checking_leaks_names_the_leaked_tracer_and_who_holds_it():
    f = jax.jit(keep_a_tracer)
    f(jnp.ones(()))                        # unchecked: the leak goes unnoticed
    LEAKED.clear()
    with jax.checking_leaks():
        # compiled before: a hit, nothing traced, nothing checked (JAX 0.10.2 keys no trace
        # on the check: the same program, recorded as tests/data/recompile_cases.py's
        # checking_leaks_around_a_call)
        f(jnp.ones(()))
        LEAKED.clear()
        with pytest.raises(Exception, match="^Leaked trace DynamicJaxprTrace. Leaked tracer") as e:
            f(jnp.ones(2))                 # a new shape: traced, and checked
        LEAKED.clear()
        jit_text = str(e.value)
        with pytest.raises(Exception, match="^Leaked trace BatchTrace") as e:
            jax.vmap(keep_a_tracer)(jnp.ones(2))
        LEAKED.clear()
        vmap_text = str(e.value)
        np.testing.assert_array_equal(jax.vmap(lambda v: v * 3)(jnp.ones(2)), [3, 3])
        carry, ys = jax.lax.scan(lambda c, a: (c + a, c), 0.0, jnp.ones(3))
        assert float(carry) == 3.0 and ys.tolist() == [0.0, 1.0, 2.0]
        assert float(jax.grad(keep_a_tracer)(1.0)) == 1.0          # autodiff is not checked
        LEAKED.clear()
    assert "JitTracer(float32[2])" in jit_text
    # JAX's words for a jit's tracer (pe.DynamicJaxprTracer._origin_msg)
    assert "The error occurred while tracing the function keep_a_tracer at" in jit_text
    assert "is referred to by <list" in jit_text and f"{__name__}.LEAKED" in jit_text
    assert "VmapTracer(aval=float32[], batched=float32[2])" in vmap_text
    assert f"{__name__}.LEAKED" in vmap_text
    assert config.jax_check_tracer_leaks is False


def test_a_tracer_held_by_an_object_attribute_is_found_through_it():
    class Box:
        pass
    box = Box()
    LEAKED.append(box)

    def keep_in_attribute(v):
        box.kept = {"value": v}
        return v

    with jax.check_tracer_leaks(True):
        with pytest.raises(Exception) as e:
            jax.jit(keep_in_attribute)(jnp.ones(()))
    LEAKED.clear()
    assert "['value']\n<dict " in str(e.value) and "is referred to by <Box " in str(e.value)


def test_a_trace_nothing_holds_costs_no_search(monkeypatch):
    """A finished trace that nothing holds is freed at once, and then none of its tracers can
    be alive: the checker neither collects garbage nor scans the heap (slow in a big heap).
    A tracer that only a garbage cycle holds is collected first, and is not a leak."""
    import gc
    collections = []
    collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: collections.append(a) or collect(*a))
    gc.disable()            # the cycle below stays until the checker collects it
    try:
        with jax.checking_leaks():
            assert float(jax.jit(lambda v: jnp.sin(v) * 2)(jnp.zeros(())) + 1) == 1.0
            np.testing.assert_array_equal(jax.vmap(lambda v: v * 3)(jnp.ones(2)), [3, 3])
            assert collections == []

            def in_a_cycle(v):
                cycle = [v * 2]
                cycle.append(cycle)
                return v
            jax.jit(in_a_cycle)(jnp.ones(()))
            assert len(collections) == 1
    finally:
        gc.enable()

# ------------------------------------------------------------------ caches, arrays, dlpack
@contextlib.contextmanager
def caches_put_back():
    """clear_caches empties what later tests in this worker would reuse (every jit's and
    eager operation's executables): put it back afterwards, so they need not compile again."""
    caches = [dispatch._executables, dispatch._fast, dispatch._last_run,
              jit_primitive._impl_cache,
              partial_eval._split_cache, compiler._memory_cache]
    caches += [part for state in list(jit_cache.FUN_STATES.values())
               for parts in state.caches.values() for part in parts]
    saved = [(cache, cache.copy()) for cache in caches]
    try:
        yield
    finally:
        for cache, content in saved:
            cache.clear()
            cache.extend(content) if isinstance(cache, list) else cache.update(content)


def test_clear_caches_makes_jit_trace_and_compile_again():
    with caches_put_back():
        check_clear_caches()


def check_clear_caches():
    f = jax.jit(lambda v: v * 5)
    f(1.0), f(jnp.ones(2))
    jnp.sin(jnp.ones(2)), jnp.sin(jnp.ones(2))          # the second is the primitive's last run
    assert f._cache_size() == 2 and dispatch._executables and dispatch._last_run
    jax.clear_caches()
    assert f._cache_size() == 0 and not dispatch._executables and not dispatch._last_run
    assert float(f(2.0)) == 10.0 and f._cache_size() == 1
    assert jax.compile_events()[-1].reason == "first call"


def test_live_arrays_dlpack_and_the_runtime_names_are_jaxs():
    x = jnp.arange(4)
    y = x + 1
    assert any(a is y for a in jax.live_arrays()) and \
        any(a is x for a in jax.live_arrays(jax.default_backend()))     # cpu, or numpy
    y.delete()
    assert not any(a is y for a in jax.live_arrays())
    if gpu_tier.ON_GPU:           # the GPU is the default backend: its arrays are x's
        assert any(a is x for a in jax.live_arrays("gpu"))
    else:
        with pytest.raises(RuntimeError, match="gpu"):
            jax.live_arrays("gpu")
    assert jax.dlpack.__all__ == ["from_dlpack", "is_supported_dtype"]      # no to_dlpack
    back = jax.dlpack.from_dlpack(np.arange(4, dtype=np.int32))
    assert back.tolist() == [0, 1, 2, 3] and back.dtype == x.dtype
    for name in ("transfer_guard", "transfer_guard_host_to_device", "checking_leaks",
                 "transfer_guard_device_to_device", "transfer_guard_device_to_host",
                 "check_tracer_leaks", "clear_caches"):
        assert callable(getattr(jax, name)), name


def test_docstring_examples():
    with caches_put_back():                         # runtime_state's calls clear_caches()
        for module in ("jxkernel.api.runtime_state", "jxkernel.xla.transfer_guard",
                       "jxkernel.core.tracer_errors.leaks"):
            check_docstring_examples(module)
