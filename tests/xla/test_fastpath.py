"""The compiled fast path (xla/fastpath.py): built on first use where a C compiler and
Python's headers exist, cached, and switched off by JXKERNEL_FASTPATH=0; without it the Python
path runs (tests/xla/test_dispatch.py runs the hot paths' tests under both)."""
import logging
import os
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import jxkernel as jax
from jxkernel.transforms.jit_cache import LAST_HIT
from jxkernel.xla import fastpath


def arr(x, dtype=np.float32):
    return jax.device_put(np.asarray(x, dtype))


def test_without_a_compiler_the_python_path_runs(monkeypatch, tmp_path, caplog):
    monkeypatch.setattr(fastpath, "_module", None)
    monkeypatch.setattr(fastpath, "_tried", False)
    monkeypatch.setenv("JXKERNEL_FASTPATH_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))             # no cc, gcc or clang to be found
    monkeypatch.setattr(sysconfig, "get_config_var", lambda name: None)
    with caplog.at_level(logging.DEBUG, logger="jxkernel.fastpath"):
        assert fastpath.native() is None
    assert "no C compiler" in caplog.text and os.listdir(tmp_path) == []
    f = jax.jit(lambda x: x - 1)
    for _ in range(3):
        assert np.asarray(f(arr([1.0]))).tolist() == [0.0]
    assert f._last[LAST_HIT].native is None


def test_the_environment_variable_switches_the_compiled_path_off():
    code = ("import jxkernel as jax, jxkernel.numpy as jnp, numpy as np\n"
            "from jxkernel.xla import fastpath, dispatch\n"
            "from jxkernel import lax\n"
            "f = jax.jit(lambda x: x * 2); x = jnp.arange(3.0)\n"
            "outs = [np.asarray(f(x)).tolist() + np.asarray(jnp.cos(x * 0)).tolist() "
            "for _ in range(3)]\n"
            "assert outs[-1] == [0.0, 2.0, 4.0, 1.0, 1.0, 1.0], outs\n"
            "assert fastpath.native() is None and f._last['last hit'].native is None\n"
            "assert dispatch._last_run[lax.cos_p].native is None\n"
            "import types; from jxkernel.core.primitive import Primitive\n"
            "assert all(isinstance(c.__dict__[m], types.FunctionType) for c, m in "
            "[(type(f), '__call__'), (Primitive, 'bind'), (type(x), 'block_until_ready'), "
            "(type(x), '__add__')])\n"
            "print('ok')\n")
    env = dict(os.environ, JXKERNEL_FASTPATH="0")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_it_builds_into_the_cache_directory_once(monkeypatch, tmp_path):
    if not fastpath.enabled() or fastpath.native() is None:
        pytest.skip("no C compiler or Python headers here, or JXKERNEL_FASTPATH=0")
    monkeypatch.setenv("JXKERNEL_FASTPATH_CACHE_DIR", str(tmp_path))
    path = fastpath.library_path()
    assert os.path.dirname(path) == str(tmp_path) and sys.implementation.cache_tag in path
    module = fastpath._load()                 # a build: only the library is left behind
    assert os.listdir(tmp_path) == [os.path.basename(path)] and hasattr(module, "Hit")
    built = os.stat(path).st_mtime_ns
    fastpath._load()                          # found: not built again
    assert os.stat(path).st_mtime_ns == built
