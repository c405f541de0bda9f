"""The persistent (on-disk) compilation cache, within one process; the in-memory one's bounds
(a process compiling without end keeps a bounded set of programs: issue 45), and what a
compile refused memory does.

Across processes: tests/xla/test_runtime_subprocess.py.
"""
import gc
import itertools
import os
import uuid
import weakref

import numpy as np
import pytest

from jxkernel.config import config
from jxkernel.core.avals import ShapedArray
from jxkernel.xla import Executable, compile_module, default_device
from jxkernel.xla import compiler, disk_cache, memory
from jxkernel.core import compile_record as compile_log
import jxkernel as jax
import jxkernel.numpy as jnp
from fresh_process import run_json


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


# Constants counted up from a random start: unique in this process, whose in-memory cache
# the tests share (drawn from 1000 at random, two of ten tests met in one run out of 20 or so)
_constants = itertools.count(uuid.uuid4().int % (1 << 20) + 1)


def unique_module():
    """A module no other test compiles (the constant differs), computing x * c."""
    c = float(next(_constants))              # below 2**21: exact in float32
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


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_a_compiled_module_is_stored_and_loaded_back(cache):
    text, c = unique_module()
    assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])
    assert len(entries(cache)) == 1
    compiler.clear_caches()                             # as if the process restarted
    assert compile_and_run(text) == ("disk", [c, 2 * c, 3 * c])


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_xla_flags_are_part_of_the_key(cache, monkeypatch):
    """XLA_FLAGS change code generation (--xla_cpu_max_isa): another value must not load an
    executable compiled under the first."""
    text, c = unique_module()
    assert compile_and_run(text)[0] == "compiled"
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", "") + " --xla_cpu_max_isa=SSE4_2")
    compiler.clear_caches()
    assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])
    assert len(entries(cache)) == 2


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
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


@pytest.mark.xla_only("XLA compiler")    # XLA's options
def test_base_compiler_options_start_every_compile_and_are_part_of_the_key(cache):
    """set_base_compiler_options (the suite's loop emitters): every compile starts from them, a
    jit's own options go over them, and programs compiled under other ones are not reused."""
    text, c = unique_module()
    assert compile_and_run(text)[0] == "compiled"
    previous = compiler.set_base_compiler_options({"xla_cpu_use_fusion_emitters": False})
    try:
        assert compile_and_run(text) == ("compiled", [c, 2 * c, 3 * c])     # not the first's
        assert compile_and_run(text)[0] == "memory"
        f = jax.jit(lambda v: v * 2.0, compiler_options={"xla_cpu_use_fusion_emitters": True})
        assert f(jnp.ones(2)).tolist() == [2.0, 2.0]
        compiler.set_base_compiler_options({"xla_no_such_option": 1})
        with pytest.raises(jax.errors.JaxRuntimeError, match="No such compile option"):
            compile_and_run(text)
    finally:
        compiler.set_base_compiler_options(previous)
    assert compile_and_run(text)[0] == "memory"         # the first one's program, again
    assert len(entries(cache)) == 3                     # the module under both, and the jit


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
    return disk_cache._MAGIC + hashlib.sha256(payload).digest() + payload


@pytest.mark.parametrize("corrupt", [corrupt_truncate, corrupt_garbage, corrupt_empty,
                                     corrupt_flip_one_payload_byte,
                                     corrupt_valid_digest_bad_payload],
                         ids=lambda f: f.__name__[len("corrupt_"):])
@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
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


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_disabled_cache_writes_nothing(cache):
    text, _ = unique_module()
    with config.override("jax_enable_compilation_cache", False):
        assert disk_cache.cache_dir() is None
        assert compile_and_run(text)[0] == "compiled"
        compiler.clear_caches()
        assert compile_and_run(text)[0] == "compiled"
    assert entries(cache) == []


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_quick_compiles_can_be_left_out(cache):
    text, _ = unique_module()
    with config.override("jax_persistent_cache_min_compile_time_secs", 1e9):
        compile_and_run(text)
    assert entries(cache) == []


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_the_minimum_compile_time_is_for_a_folder_the_user_set(monkeypatch, tmp_path):
    # at JAX's default (1 s), a quick compile is not written to a folder the user set (JAX's
    # persistent cache), and is to jxkernel's default folder (which JAX has not)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    default = tmp_path / "xdg" / "jxkernel" / "xla"
    (tmp_path / "set").mkdir()
    with config.override("jax_persistent_cache_min_compile_time_secs", 1.0), \
            config.override("jax_enable_compilation_cache", True):
        for folder in (str(tmp_path / "set"), None):
            with config.override("jax_compilation_cache_dir", folder):
                compiler.clear_caches()
                compile_and_run(unique_module()[0])
    compiler.clear_caches()
    assert entries(tmp_path / "set") == [] and len(entries(default)) == 1


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
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
        assert disk_cache.cache_dir() == os.path.join(str(tmp_path), "jxkernel", "xla")


def test_the_suite_does_not_write_to_the_users_cache():
    assert disk_cache.cache_dir() == os.environ["JXKERNEL_COMPILATION_CACHE_DIR"]
    assert "jxkernel-test-cache-" in disk_cache.cache_dir()


# ------------------------------------------------------------------ bounds (issue 45)
@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_programs_of_dropped_functions_level_off():
    """Thousands of distinct programs of functions dropped at once: the memory mappings (each
    executable holds ~3) and the RSS stop growing once the by-text cache is full. Unbounded,
    each block of 100 programs added ~300 mappings; the bound allows 30 (the line count of
    /proc/self/maps moves a little as malloc maps and unmaps arenas), the RSS 12 MiB."""
    blocks = run_json("""
        import gc, json
        import jxkernel as jax, jxkernel.numpy as jnp
        from jxkernel.xla import memory
        assert memory._memory_cache.maxsize == 40
        def level():
            gc.collect()
            with open("/proc/self/maps") as f, open("/proc/self/statm") as g:
                return sum(1 for _ in f), int(g.read().split()[1]) * 4096 / 2**20
        x, levels = jnp.ones(3), []
        for block in range(3):
            for i in range(100):
                jax.jit(lambda x, c=float(block * 100 + i): x * 2.5 + c)(x).block_until_ready()
            levels.append(level())
        print(json.dumps({"levels": levels, "kept": len(memory._memory_cache)}))
    """, {"JXKERNEL_MEMORY_CACHE_SIZE": "40",
          "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "1e9"})   # nothing written to disk
    (_, _), (maps_2, rss_2), (maps_3, rss_3) = blocks["levels"]
    assert blocks["kept"] == 40
    assert maps_3 - maps_2 < 30, blocks
    assert rss_3 - rss_2 < 12, blocks


def test_a_dropped_jit_and_its_executables_are_let_go():
    """Neither the compile log (its events name their function weakly) nor jit's caches keep
    a jitted function alive once the user's last reference to it is gone."""
    f = jax.jit(lambda x: x * 4.75 + 1.0)
    f(jnp.ones(3))
    event = compile_log.compile_events()[-1]
    assert event.key is f
    key, held = event.function_key, weakref.ref(f)
    del f
    gc.collect()
    assert held() is None
    assert event.key is None and event.function_key == key      # still names it


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_a_redefined_function_with_the_same_code_finds_its_program():
    """A re-run notebook cell makes a new function object of the same code: the by-text cache
    gives it the executable of the first (no XLA compile), after the first is gone."""
    def cell():
        return jax.jit(lambda x: x * 7.125 - 2.0)
    first = cell()
    first(jnp.ones(3))
    del first
    gc.collect()
    again = cell()
    np.testing.assert_array_equal(np.asarray(again(jnp.ones(3))), [5.125] * 3)
    assert compile_log.compile_events()[-1].cache == "memory"


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_the_memory_cache_drops_the_least_recently_used(cache):
    previous = memory.set_memory_cache_size(2)
    try:
        (a, _), (b, _), (c, _) = unique_module(), unique_module(), unique_module()
        assert compile_and_run(a)[0] == "compiled"
        assert compile_and_run(b)[0] == "compiled"
        assert compile_and_run(a)[0] == "memory"            # a is now the most recent
        assert compile_and_run(c)[0] == "compiled"          # b goes
        assert compile_and_run(a)[0] == "memory"
        assert compile_and_run(b)[0] == "disk"
    finally:
        memory.set_memory_cache_size(previous)
    with pytest.raises(ValueError, match="size must be an int >= 0"):
        memory.set_memory_cache_size(-1)


def test_a_bad_memory_cache_size_in_the_environment_is_named(monkeypatch):
    monkeypatch.setenv("JXKERNEL_MEMORY_CACHE_SIZE", "lots")
    with pytest.raises(ValueError, match="JXKERNEL_MEMORY_CACHE_SIZE must be a whole number"):
        memory._size_from_environment()


# ------------------------------------------------------------------ memory refused
class _RefusingClient:
    """A backend whose compiles fail with jaxlib's out-of-memory message `refusals` times."""
    def __init__(self, refusals, compile_and_load):
        self.refusals, self.real = refusals, compile_and_load

    def compile_and_load(self, *args, **kwargs):
        if self.refusals:
            self.refusals -= 1
            raise _jaxlib_error("RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
                                "4096 bytes.")
        return self.real(*args, **kwargs)


def _jaxlib_error(message):
    from jxkernel.xla.client import JaxRuntimeError
    return JaxRuntimeError(message)


def _refusing_backend(refusals):
    from jxkernel.xla import client
    backend = client.backend_of(default_device())
    client = _RefusingClient(refusals, backend.client.compile_and_load)
    return type("Backend", (), {"platform": backend.platform, "client": client})()


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_a_compile_refused_memory_once_drops_the_cache_and_succeeds(cache):
    text, c = unique_module()
    compile_and_run(unique_module()[0])
    assert len(memory._memory_cache) == 1
    device_list = compiler.xc.DeviceList((default_device(),))
    options = compiler._compile_options([default_device()])
    loaded = compiler.backend_compile_and_load(_refusing_backend(1), text, device_list, options)
    (out,) = Executable(loaded, [ShapedArray((3,), np.float32)], default_device())(
        np.array([1, 2, 3], np.float32))
    assert out.tolist() == [c, 2 * c, 3 * c]
    assert len(memory._memory_cache) == 0                 # let go of, to make room


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_a_compile_refused_memory_twice_raises_a_memory_error_that_says_what_to_do(cache):
    device_list = compiler.xc.DeviceList((default_device(),))
    options = compiler._compile_options([default_device()])
    with pytest.raises(MemoryError) as info:
        compiler.backend_compile_and_load(_refusing_backend(2), unique_module()[0],
                                          device_list, options)
    assert isinstance(info.value, memory.OutOfMemoryError)
    assert isinstance(info.value, compiler._client.JaxRuntimeError)     # what JAX raises
    message = str(info.value)
    assert "Out of memory: XLA could not compile a program" in message
    assert "RESOURCE_EXHAUSTED" in message and "jxkernel.clear_caches()" in message
    assert "vm.max_map_count" in message
    # and the process goes on compiling
    assert compile_and_run(unique_module()[0])[0] == "compiled"


def test_other_compile_errors_are_not_taken_for_memory():
    assert not memory.is_out_of_memory(RuntimeError("INVALID_ARGUMENT: bad shape"))
    assert memory.is_out_of_memory(MemoryError())
    assert memory.is_out_of_memory(RuntimeError("std::bad_alloc"))


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_near_the_mapping_limit_the_cache_is_dropped_then_compiling_refuses(cache, monkeypatch):
    """At vm.max_map_count XLA's compile kills the process from C++; before it gets there,
    compile_module lets go of the cache, and then refuses with a Python error."""
    monkeypatch.setattr(memory, "_MAP_CHECK_EVERY", 1)
    in_use = memory._count_mappings()
    compile_and_run(unique_module()[0])
    monkeypatch.setattr(memory, "_max_map_count", lambda: int(in_use * 1.02))   # past 95 %
    released = []
    monkeypatch.setattr(memory, "release_memory", lambda: released.append(1))
    with pytest.raises(memory.OutOfMemoryError, match="vm.max_map_count"):
        compile_and_run(unique_module()[0])
    assert released == [1]
    monkeypatch.setattr(memory, "_max_map_count", lambda: in_use * 4)           # far below
    assert compile_and_run(unique_module()[0])[0] == "compiled"


@pytest.mark.xla_only("XLA compiler")    # XLA's compilation cache
def test_the_folder_keeps_to_jax_compilation_cache_max_size(cache):
    """JAX's option: past the bound the least recently used entries go (a load counts as a
    use); 0 leaves the folder alone."""
    first, _ = unique_module()
    compile_and_run(first)
    (name,) = entries(cache)
    size = (cache / name).stat().st_size
    second, _ = unique_module()
    compile_and_run(second)
    for entry in entries(cache):       # both long unused (file times are only as fine as the
        os.utime(cache / entry, (1, 1))   # kernel's clock tick: set them, do not race them)
    with config.override("jax_compilation_cache_max_size", int(size * 2.5)):
        compiler.clear_caches()
        assert compile_and_run(first)[0] == "disk"      # used now: second is the oldest
        third, _ = unique_module()
        compile_and_run(third)                          # 3 entries > 2.5: second goes
        assert entries(cache) == sorted(compiler.cache_key(text, [default_device()]) + ".xla"
                                        for text in (first, third))
    with config.override("jax_compilation_cache_max_size", 0):
        compiler.clear_caches()
        assert compile_and_run(first)[0] == "compiled"
        compile_and_run(unique_module()[0])
    assert len(entries(cache)) == 2
