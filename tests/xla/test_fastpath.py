"""The compiled fast path (core/_fastpath.c, loaded by core/native.py): built at install by
hatch_build.py where a C compiler exists, chosen in the class bodies, reported by `python -m
jxkernel`, and switched off by JXKERNEL_FASTPATH=0, where the Python path gives the same
results (tests/xla/test_dispatch.py runs the hot paths' tests under both, in one process)."""
import copy
import hashlib
import importlib.util
import inspect
import json
import os
import subprocess
import types

import numpy as np
import pytest

import locations  # tests/support: the repository's folders
from fresh_process import run_python
from jxkernel.core import native as native_module
from jxkernel.core.native import STATE, native
from jxkernel.core.primitive import Primitive
from jxkernel.transforms.jit import Jitted, jit
from jxkernel.xla.array import Array

ROOT = locations.ROOT
HATCH_BUILD = os.path.join(ROOT, "hatch_build.py")
ENTRY_POINTS = [(Primitive, "bind", "_python_bind"),
                (Array, "block_until_ready", "_python_block_until_ready")]
needs_native = pytest.mark.skipif(native is None, reason=f"the fast path is {STATE}")


def hatch_build():
    spec = importlib.util.spec_from_file_location("hatch_build", HATCH_BUILD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python(code: str, **env) -> subprocess.CompletedProcess:
    return run_python(["-c", code], env, timeout=300)


def test_the_state_says_on_or_off_and_why():
    assert (native is not None) == STATE.startswith("on (compiled: ")
    if native is None:
        assert STATE.startswith("off (") and "the Python path runs" in STATE


@needs_native
def test_each_entry_point_is_the_class_bodys_own_with_its_python_method_behind_it():
    for cls, name, fallback in ENTRY_POINTS:
        entry = cls.__dict__[name]
        assert type(entry) is native.EntryPoint and entry.__wrapped__ is cls.__dict__[fallback]
        assert entry.__name__ == name and entry.__qualname__.endswith(f".{name}")
        assert f"else {cls.__dict__[fallback].__qualname__}" in repr(entry)
    assert list(inspect.signature(Primitive.bind).parameters) == ["self", "args", "params"]
    from jxkernel.numpy.array_methods import _OPERATORS       # jnp's operators behind +-*/
    for name in ("__add__", "__sub__", "__mul__", "__truediv__"):
        assert Array.__dict__[name].__wrapped__ is _OPERATORS[name]
    with pytest.raises(TypeError, match="fallback must be callable"):
        native.bind(3)


@needs_native
def test_a_jitted_function_is_an_instance_of_the_c_base_called_by_vectorcall():
    # Jitted's base is the C type whose call tries the last hit (no keyword dict on the way:
    # the flag that 3.12 inherits, set on 3.11 by its __init_subclass__); a miss calls the
    # class's `_python_call` with the very arguments
    assert Jitted.__bases__ == (native.JitFunction,) and "__call__" not in Jitted.__dict__
    assert Jitted.__flags__ & (1 << 11)                      # Py_TPFLAGS_HAVE_VECTORCALL

    class Recording(native.JitFunction):
        def __init__(self):
            self._last, self._static_at = {}, (1,)

        def _python_call(self, *args, **kwargs):
            return args, kwargs
    f = Recording()
    assert f(1, 2, n=3) == ((1, 2), {"n": 3}) and f() == ((), {})
    assert f(*range(40), a=1) == (tuple(range(40)), {"a": 1})    # (past its C stack array)
    f._last["last hit"] = object()                  # no Hit there: the Python method
    assert f(1) == ((1,), {}) and f(1, 2, n=3) == ((1, 2), {"n": 3})
    assert f._static_argnames == frozenset()                # (until set: no static name)
    f._static_argnames = frozenset({"n"})
    assert f._static_argnames == {"n"} and f(1, 2, n=3) == ((1, 2), {"n": 3})
    Recording.__call__ = lambda self, *args, **kwargs: ("reassigned", args, kwargs)
    assert f(1, n=2) == ("reassigned", (1,), {"n": 2})       # (3.11 keeps the flag: seen)
    with pytest.raises(TypeError, match="takes no arguments"):
        class Bad(native.JitFunction, option=1):
            pass


def test_copy_of_a_jit_keeps_the_fields_of_its_c_base():
    # (Jitted's __getstate__ is JAX's dict, jit.cache.jit_getstate, with the C base's fields)
    g = jit(lambda x, n: x * n, static_argnames="n")
    g(np.ones(2, np.float32), n=2)
    twin = copy.copy(g)
    assert twin is not g and twin._last is g._last and twin._static_at == g._static_at
    assert twin._static_argnames == {"n"} and twin._fun is g._fun
    assert twin(np.ones(2, np.float32), n=3).tolist() == [3.0, 3.0]


@needs_native
def test_the_extension_was_built_from_the_source_beside_it():
    with open(native_module.SOURCE, "rb") as f:
        assert native.SOURCE_SHA256 == hashlib.sha256(f.read()).hexdigest()
    assert native_module._stale(types.SimpleNamespace(SOURCE_SHA256="0" * 64))


def test_the_c_source_builds_without_a_warning(tmp_path):
    build = hatch_build()
    output = str(tmp_path / build.extension_name())
    try:
        warnings = build.build(output, extra=["-Werror"])    # -Wall -Wextra, as at install
    except build.CannotBuild as e:
        pytest.skip(f"cannot build here: {e}")
    assert warnings == ""
    assert "-Wall" in build.build_command("x.so")
    spec = importlib.util.spec_from_file_location("jxkernel.core._fastpath", output)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.SOURCE_SHA256 == build.source_sha256() and os.listdir(tmp_path) == [
        os.path.basename(output)]                           # no temporary file left behind


def test_without_a_compiler_the_hook_says_so_and_builds_nothing(tmp_path, monkeypatch):
    build = hatch_build()
    monkeypatch.setenv("PATH", str(tmp_path))             # no cc, gcc or clang to be found
    monkeypatch.setattr(build.sysconfig, "get_config_var", lambda name: None)
    with pytest.raises(build.CannotBuild, match="no C compiler"):
        build.build(str(tmp_path / "x.so"))
    assert os.listdir(tmp_path) == []


# The same program with the fast path on, off by the variable, and absent (an install without
# a compiler): its results are compared exactly, since the same XLA programs run in each and
# only the Python or C around them differs.
PROGRAM = """
import json, types
import numpy as np
import jxkernel as jax, jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core.native import STATE, native
from jxkernel.core.primitive import Primitive
f = jax.jit(lambda x, y: (x * y + 1, {"s": jnp.sin(x)}))
g = jax.jit(lambda x, a: x * a)
s = jax.jit(lambda x, n, flag=False: x * n if flag else x + n, static_argnums=1,
            static_argnames="flag")
k = jax.jit(lambda x, y: x - y)
t = jax.jit(lambda d, s: jax.tree_util.tree_map(lambda v: v * s, d))
dn = jax.jit(lambda x, y: x * 2 + y, donate_argnums=0)
x, y, i = jnp.arange(4.0), jnp.ones(4) * 3, jnp.arange(4)
w = jnp.zeros(4)
out = []
for _ in range(3):                      # the first call compiles, later ones hit
    a, d = f(x, y)
    out += [a.tolist(), d["s"].tolist(), g(x, 2.5).tolist(), g(x, 2).tolist(), g(i, 3).tolist()]
    out += [s(x, 2).tolist(), s(x, 2, flag=True).tolist(), str(s(i, 2.0).dtype),
            s(i, True, flag=1).tolist(), s(i, 1, flag=True).tolist(),
            s(x, n=2, flag=True).tolist(), s(flag=True, n=3, x=i).tolist()]
    out += [k(x=x, y=y).tolist(), k(y=y, x=i).tolist(), k(x, y=i).tolist(),
            t({"a": x, "b": [i, None]}, 2.0)["b"][0].tolist(), t(d={"a": y}, s=3)["a"].tolist()]
    old, w = w, dn(w, y)
    out += [w.tolist(), old.is_deleted()]
    out += [(x + y).tolist(), (x - y).tolist(), (x * y).tolist(), (x / y).tolist(),
            (i + i).tolist(), str((i / i).dtype), (x + 1.5).tolist(), jnp.cos(x).tolist(),
            lax.integer_pow(x, 3).tolist(), x.block_until_ready() is x, str((x * y).dtype)]
z = jnp.ones(2)
z.delete()
try:
    z.block_until_ready()
except RuntimeError as e:
    out.append(f"{type(e).__name__}: {e}")
plain = all(isinstance(c.__dict__.get(m), types.FunctionType) for c, m in
            [(type(f), "__call__"), (Primitive, "bind"), (type(x), "block_until_ready"),
             (type(x), "__add__")])
print(json.dumps({"out": out, "state": STATE, "on": native is not None, "plain": plain,
                  "base": type(f).__bases__[0].__name__}))
"""

# an install without the extension: the import of the module fails, as where it was not built
WITHOUT = """
import importlib.abc, sys
class NotBuilt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "jxkernel.core._fastpath":
            raise ImportError("No module named 'jxkernel.core._fastpath'")
sys.meta_path.insert(0, NotBuilt())
"""


def run_program(prefix="", **env) -> dict:
    done = python(prefix + PROGRAM, **env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_python_path_gives_the_same_results_as_the_compiled_one():
    on = run_program()
    off = run_program(JXKERNEL_FASTPATH="0")
    absent = run_program(WITHOUT)
    assert off["out"] == on["out"] == absent["out"]
    assert on["out"][-1] == ("JaxRuntimeError: INVALID_ARGUMENT: BlockHostUntilReady() called on "
                             "deleted or donated buffer. .delete() was called on it.")
    assert on["on"] == (native is not None) and not off["on"] and not absent["on"]
    assert off["state"] == "off (JXKERNEL_FASTPATH=0): the Python path runs"
    assert absent["state"].startswith("off (not built at install")
    assert off["plain"] and absent["plain"] and on["plain"] == (native is None)
    assert off["base"] == absent["base"] == "object"    # (where it is on: the C JitFunction)
    assert on["base"] == ("object" if native is None else "JitFunction")


def test_in_the_browser_the_state_gives_no_advice_it_cannot_follow():
    # Pyodide's sys.platform; %jxbackend there said "to build it: uv pip install -e . ... with
    # a C compiler", which a learner in JupyterLite has neither a checkout nor a compiler for
    done = python('import sys, sysconfig\nsysconfig.get_paths()\nsys.platform = "emscripten"\n' +
                  WITHOUT +
                  "from jxkernel.core.native import STATE, native\nprint(STATE, native)")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == ("off (in the browser, whose Python is WebAssembly: jxkernel's "
                                   "wheel there is pure Python): the Python path runs None")


@pytest.mark.xla_only("XLA compiler")    # python -m jxkernel compiles StableHLO
def test_python_m_jxkernel_reports_the_fast_path():
    done = run_python(["-m", "jxkernel"], {"JXKERNEL_FASTPATH": "0"}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "fast path: off (JXKERNEL_FASTPATH=0): the Python path runs" in done.stdout


@pytest.mark.parametrize("module", ["jxkernel.core.native", "jxkernel.xla.fastpath",
                                    "jxkernel.xla.scalars", "jxkernel.xla.host_values"])
def test_docstring_examples(module):
    from doc_examples import check_docstring_examples
    check_docstring_examples(module)
