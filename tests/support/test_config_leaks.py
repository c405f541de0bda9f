"""config_leaks: a test file that leaves jxkernel's config changed for the next file fails,
naming the option and the test that changed it, and the next file starts as before; a file
whose fixtures restore what its tests change passes. Run as pytest runs it: a child pytest
over a few small test files, one worker, in their order."""
import subprocess
import sys
import textwrap

from config_leaks import changed
from fresh_process import child_env

LEAKS = """
from jxkernel.config import config

def test_leaves_x64_on():
    config.update("jax_enable_x64", True)

def test_after_it_in_the_same_file_sees_it():
    assert config.jax_enable_x64
"""
NEXT_FILE = """
from jxkernel.config import config

def test_the_next_file_starts_as_before():
    assert not config.jax_enable_x64
"""
RESTORES = """
import pytest
from jxkernel.config import config

@pytest.fixture(autouse=True, scope="module")
def x64_for_this_file():
    config.update("jax_enable_x64", True)
    yield
    config.update("jax_enable_x64", False)

def test_changes_another_option_and_puts_it_back():
    config.update("jax_debug_nans", True)
    config.update("jax_debug_nans", False)
"""
OPEN_BLOCK = """
from jxkernel.config import config

KEPT = []          # (a block dropped unreferenced is closed by the generator's finalizer)

def test_enters_and_never_leaves():
    KEPT.append(config.override("jax_debug_infs", True))
    KEPT[-1].__enter__()
"""


def _pytest(tmp_path, files: dict) -> subprocess.CompletedProcess:
    for name, source in files.items():
        (tmp_path / name).write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "config_leaks", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-p", "no:randomly", "-q", "--rootdir", str(tmp_path), "-c",
         "/dev/null", *files],
        cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=300)


def test_changed_names_each_option_that_differs():
    assert changed({"a": 1, "b": "x"}, {"a": 1, "b": "y"}) == [("b", "x", "y")]
    assert changed({"a": 1}, {"a": 1, ("open", "c"): 1}) == [(("open", "c"), None, 1)]


def test_a_file_leaving_an_option_changed_fails_naming_it_and_the_next_file_starts_clean(tmp_path):
    ran = _pytest(tmp_path, {"test_a_leaks.py": LEAKS, "test_b_next.py": NEXT_FILE})
    assert ran.returncode == 1, ran.stdout
    assert "3 passed, 1 error" in ran.stdout, ran.stdout
    assert ("test_a_leaks.py left jxkernel's config changed: config.jax_enable_x64 = True "
            "(it was False; put back), changed last by test_a_leaks.py::test_leaves_x64_on"
            in ran.stdout), ran.stdout


def test_a_file_whose_fixture_restores_passes(tmp_path):
    ran = _pytest(tmp_path, {"test_a_restores.py": RESTORES, "test_b_next.py": NEXT_FILE})
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_a_with_block_left_open_is_named(tmp_path):
    ran = _pytest(tmp_path, {"test_a_open.py": OPEN_BLOCK})
    assert ran.returncode == 1, ran.stdout
    assert "a `with` block of config.jax_debug_infs entered and not left" in ran.stdout, ran.stdout


def test_global_values_are_the_values_outside_any_with_block():
    from jxkernel.config import config
    with config.override("jax_debug_infs", not config.jax_debug_infs):
        assert config.global_values()["jax_debug_infs"] == config.global_value("jax_debug_infs")
        assert config.global_values()["jax_debug_infs"] != config.jax_debug_infs
