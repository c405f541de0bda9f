"""Runtime behaviour that needs a fresh process: device counts, the on-disk cache across
processes, start-up logging, and `python -m jxkernel`."""
import os

import pytest

from fresh_process import NO_JAXLIB, assert_pytest_passes, run_code, run_python

from jxkernel.notebook.workshop.links import jaxlib_pin

pytestmark = pytest.mark.cpu_only("simulated CPU devices")     # the GPU tier skips this file (docs/gpu.md)


@pytest.mark.xla_only("several devices")
def test_multi_device_tests_in_a_four_device_process():
    assert_pytest_passes(["tests/xla/test_runtime_multidevice.py"], {"JXKERNEL_CPU_DEVICES": "4"})


@pytest.mark.xla_only("several devices")
def test_cpu_device_count_is_fixed_at_first_use():
    run_code("""
        from jxkernel.config import config
        from jxkernel.xla import device_count, default_device, devices
        assert device_count() == 2 and default_device() == devices()[0]
        try:
            config.update("jax_num_cpu_devices", 3)
        except RuntimeError as e:
            assert "should be updated before backends are initialized" in str(e), e
        else:
            raise AssertionError("a late device count was accepted")
        """, {"JXKERNEL_CPU_DEVICES": "2"})


CACHED_PROGRAM = """
    import numpy as np
    from jxkernel.core.avals import ShapedArray
    from jxkernel.xla import Executable, compile_module, default_device
    text = '''module @across {
      func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
        %0 = stablehlo.exponential %x : tensor<2xf32>
        return %0 : tensor<2xf32>
      }
    }'''
    loaded, phases = compile_module(text, [default_device()])
    out = Executable(loaded, [ShapedArray((2,), np.float32)], default_device())(
        np.zeros(2, np.float32))[0]
    print(phases.cache, out.tolist())
"""


def cache_env(folder, **more):
    """The environment of a process whose every compile is written to `folder` (the suite's
    conftest writes only slow ones)."""
    return {"JXKERNEL_COMPILATION_CACHE_DIR": str(folder),
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0", **more}


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_compiled_executables_survive_a_new_process(tmp_path):
    env = cache_env(tmp_path)
    first = run_code(CACHED_PROGRAM, env).stdout.split()
    second = run_code(CACHED_PROGRAM, env).stdout.split()
    assert first[0] == "compiled" and second[0] == "disk"
    assert first[1:] == second[1:] == ["[1.0,", "1.0]"]
    assert len([p for p in os.listdir(tmp_path) if p.endswith(".xla")]) == 1


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_a_corrupted_entry_does_not_break_a_new_process(tmp_path):
    env = cache_env(tmp_path)
    run_code(CACHED_PROGRAM, env)
    (entry,) = [tmp_path / p for p in os.listdir(tmp_path) if p.endswith(".xla")]
    entry.write_bytes(entry.read_bytes()[:200])
    assert run_code(CACHED_PROGRAM, env).stdout.split()[0] == "compiled"
    assert run_code(CACHED_PROGRAM, env).stdout.split()[0] == "disk"


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_the_cache_can_be_disabled_from_the_environment(tmp_path):
    env = cache_env(tmp_path, JXKERNEL_COMPILATION_CACHE="0")
    assert run_code(CACHED_PROGRAM, env).stdout.split()[0] == "compiled"
    assert run_code(CACHED_PROGRAM, env).stdout.split()[0] == "compiled"
    assert os.listdir(tmp_path) == []


def test_start_up_is_quiet():
    result = run_code("""
        from jxkernel.xla import device_put
        print(device_put(1.0).block_until_ready())
        """)
    assert result.stdout.strip() == "1.0"
    assert "pjrt_client" not in result.stderr and "I0000" not in result.stderr, result.stderr


@pytest.mark.xla_only("CPU platform")
def test_python_m_jxkernel(tmp_path):
    result = run_python(["-m", "jxkernel"], {"JXKERNEL_COMPILATION_CACHE_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "cpu: 1 device: CpuDevice(id=0)  (default)" in out
    assert "gpu:" in out and "tpu:" in out
    # the exact install line for this machine (issue 46)
    assert 'pip install "jax-cuda1' in out and 'pip install "libtpu==0.0.42.*"' in out, out
    assert "= Array(8., dtype=float32)" in out


@pytest.mark.parametrize("count", ["3"])
@pytest.mark.xla_only("CPU platform")
def test_python_m_jxkernel_lists_every_cpu_device(tmp_path, count):
    result = run_python(["-m", "jxkernel"], {"JXKERNEL_CPU_DEVICES": count,
                                            "JXKERNEL_COMPILATION_CACHE_DIR": str(tmp_path)})
    assert "cpu: 3 devices: CpuDevice(id=0), CpuDevice(id=1), CpuDevice(id=2)" in result.stdout


def assert_numpy_backend_report(out):
    """`python -m jxkernel` on the NumPy backend: its device first, what it is and cannot do,
    and the demo's sum run there (issue 47: it used to fail compiling StableHLO)."""
    lines = out.splitlines()
    assert lines[1] == "numpy: 1 device: NumpyDevice(id=0)  (default)", out
    assert "the numpy backend: jit, grad, vmap and the views work as on XLA" in out
    assert "without XLA: nothing is compiled or fused" in out
    assert "costs are jxkernel's estimates from the jaxpr" in out
    assert lines[-1].startswith("sum(sin(x)**2 + cos(x)**2) = Array(8., dtype=float32)  on "
                                "numpy:0 (jit: traced, and its jaxpr run by NumPy, in "), out
    assert "could not compile" not in out and "StableHLO module" not in out, out


def test_python_m_jxkernel_on_the_numpy_backend():
    result = run_python(["-m", "jxkernel"], {"JAX_PLATFORMS": "numpy"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert_numpy_backend_report(result.stdout)
    assert result.stdout.startswith("jxkernel ") and " on jaxlib " in result.stdout
    assert ("cpu: not started: jax_platforms is 'numpy' (JAX_PLATFORMS), which leaves XLA's "
            "backends out") in result.stdout
    # not `%jxbackend cpu`, which JAX_PLATFORMS=numpy refuses
    assert ("for XLA: set JAX_PLATFORMS=cpu (or unset it) and restart, or "
            "jax.config.update('jax_platforms', 'cpu')") in result.stdout


def test_python_m_jxkernel_without_jaxlib():
    # jaxlib's files are installed, its import fails (as in a venv without it): the header
    # says so rather than the installed version, and the advice is the pinned jaxlib
    main = "import runpy; runpy.run_module('jxkernel', run_name='__main__')"
    result = run_python(["-c", NO_JAXLIB + main], {"JAX_PLATFORMS": ""})
    assert result.returncode == 0, result.stdout + result.stderr
    assert_numpy_backend_report(result.stdout)
    assert result.stdout.splitlines()[0].endswith(" without jaxlib (No module named 'jaxlib')")
    assert "cpu: unavailable: jaxlib cannot be imported" in result.stdout
    assert f'for XLA: pip install "jaxlib=={jaxlib_pin()}" into this Python and restart' in \
        result.stdout


def test_asking_for_a_missing_platform_names_the_package():
    result = run_python(["-c", "import jxkernel.xla as x; x.devices()"], {"JAX_PLATFORMS": "tpu"})
    if result.returncode == 0:
        pytest.skip("a TPU backend is available here")
    assert 'tpu is not installed; to use it: pip install "libtpu==0.0.42.*"' in result.stderr, \
        result.stderr
