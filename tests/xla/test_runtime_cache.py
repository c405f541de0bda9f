"""The persistent (on-disk) compilation cache, within one process.

Across processes: tests/xla/test_runtime_subprocess.py.
"""
import os
import uuid

import numpy as np
import pytest

from jxkernel.config import config
from jxkernel.core.avals import ShapedArray
from jxkernel.xla import Executable, compile_module, default_device
from jxkernel.xla import compiler


@pytest.fixture
def cache(tmp_path):
    """A fresh cache folder for this test, and a cleared in-memory cache; every compile is
    written (the suite's conftest writes only slow ones)."""
    with config.override("jax_compilation_cache_dir", str(tmp_path)), \
            config.override("jax_enable_compilation_cache", True), \
            config.override("jax_persistent_cache_min_compile_time_secs", 0.0):
        compiler.clear_caches()
        yield tmp_path
    compiler.clear_caches()


def unique_module():
    """A module no other test compiles (the constant differs), computing x * c."""
    c = float(uuid.uuid4().int % 1000 + 1)
    text = f"""module @cached {{
  func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {{
    %c = stablehlo.constant dense<{c}> : tensor<3xf32>
    %0 = stablehlo.multiply %x, %c : tensor<3xf32>
    return %0 : tensor<3xf32>
  }}
}}
"""
    return text, c


def compile_and_run(text):
    loaded, phases = compile_module(text, [default_device()])
    (out,) = Executable(loaded, [ShapedArray((3,), np.float32)], default_device())(
        np.array([1, 2, 3], np.float32))
    return phases.cache, out.tolist()


def entries(folder):
    return sorted(p for p in os.listdir(folder) if p.endswith(".xla"))


def test_a_compiled_module_is_stored_and_loaded_back(cache):
    text, c = unique_module()
    assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])
    assert len(entries(cache)) == 1
    compiler.clear_caches()                             # as if the process restarted
    assert compile_and_run(text) == ("disk", [c, 2 * c, 3 * c])


def test_xla_flags_are_part_of_the_key(cache, monkeypatch):
    """XLA_FLAGS change code generation (--xla_cpu_max_isa): another value must not load an
    executable compiled under the first."""
    text, c = unique_module()
    assert compile_and_run(text)[0] == "compiled"
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", "") + " --xla_cpu_max_isa=SSE4_2")
    compiler.clear_caches()
    assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])
    assert len(entries(cache)) == 2


def test_disabling_most_optimizations_sets_xla_options_and_is_part_of_the_key(cache):
    """jax_disable_most_optimizations (JAX's option) compiles with XLA's backend optimization
    level 0 and no expensive LLVM passes: other code, so not the same cache entry."""
    text, c = unique_module()
    device = [default_device()]
    with config.override("jax_disable_most_optimizations", False):
        debug = compiler._compile_options(device).executable_build_options.debug_options
        assert (debug.xla_backend_optimization_level, debug.xla_llvm_disable_expensive_passes) \
            != (0, True)
        default_key = compiler.cache_key(text, device)
        assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])
    with config.override("jax_disable_most_optimizations", True):
        debug = compiler._compile_options(device).executable_build_options.debug_options
        assert debug.xla_backend_optimization_level == 0
        assert debug.xla_llvm_disable_expensive_passes is True
        assert compiler.cache_key(text, device) != default_key
        assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])
    assert len(entries(cache)) == 2


def test_the_option_reads_jaxs_environment_variable(monkeypatch):
    from jxkernel.config import Config
    monkeypatch.setenv("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")
    assert Config().jax_disable_most_optimizations is True
    monkeypatch.setenv("JAX_DISABLE_MOST_OPTIMIZATIONS", "0")
    assert Config().jax_disable_most_optimizations is False


def corrupt_truncate(blob):
    return blob[:len(blob) // 2]


def corrupt_garbage(blob):
    return b"not an executable" * 10


def corrupt_empty(blob):
    return b""


def corrupt_flip_one_payload_byte(blob):
    i = len(blob) - 100
    return blob[:i] + bytes([blob[i] ^ 0xFF]) + blob[i + 1:]


def corrupt_valid_digest_bad_payload(blob):
    """A well-formed entry whose payload XLA cannot load (e.g. written by another build)."""
    import hashlib
    payload = b"\x08\x01garbage"
    return compiler._MAGIC + hashlib.sha256(payload).digest() + payload


@pytest.mark.parametrize("corrupt", [corrupt_truncate, corrupt_garbage, corrupt_empty,
                                     corrupt_flip_one_payload_byte,
                                     corrupt_valid_digest_bad_payload],
                         ids=lambda f: f.__name__[len("corrupt_"):])
def test_a_corrupted_entry_is_ignored_and_replaced(cache, corrupt):
    text, c = unique_module()
    compile_and_run(text)
    (name,) = entries(cache)
    path = cache / name
    good = path.read_bytes()
    path.write_bytes(corrupt(good))
    compiler.clear_caches()
    assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])
    assert entries(cache) == [name]                      # replaced, not duplicated
    compiler.clear_caches()
    assert compile_and_run(text)[0] == "disk"            # and good again


def test_disabled_cache_writes_nothing(cache):
    text, _ = unique_module()
    with config.override("jax_enable_compilation_cache", False):
        assert compiler.cache_dir() is None
        assert compile_and_run(text)[0] == "compiled"
        compiler.clear_caches()
        assert compile_and_run(text)[0] == "compiled"
    assert entries(cache) == []


def test_quick_compiles_can_be_left_out(cache):
    text, _ = unique_module()
    with config.override("jax_persistent_cache_min_compile_time_secs", 1e9):
        compile_and_run(text)
    assert entries(cache) == []


def test_unwritable_folder_warns_and_compiling_goes_on(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    text, c = unique_module()
    with config.override("jax_compilation_cache_dir", str(blocker / "cache")), \
            config.override("jax_persistent_cache_min_compile_time_secs", 0.0):
        compiler.clear_caches()
        with pytest.warns(RuntimeWarning, match="could not write its compilation cache"):
            assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])
    compiler.clear_caches()


def test_default_folder_is_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with config.override("jax_compilation_cache_dir", None):
        assert compiler.cache_dir() == os.path.join(str(tmp_path), "jxkernel", "xla")


def test_the_suite_does_not_write_to_the_users_cache():
    assert compiler.cache_dir() == os.environ["JXKERNEL_COMPILATION_CACHE_DIR"]
    assert "jxkernel-test-cache-" in compiler.cache_dir()
