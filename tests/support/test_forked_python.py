"""forked_python: a child forked from the server is what `python -c`/`-m` started anew is, as
far as a test can see (compared with a real interpreter here), and what it cannot be it leaves
to a real process."""
import json
import os
import subprocess
import sys

import pytest

import forked_python
from fresh_process import ROOT, child_env, run_python

pytestmark = pytest.mark.skipif(not forked_python.supported(),
                                reason="the fork server needs pidfds (os.pidfd_open, Linux 5.3+)")


def both(args, env=None):
    """(forked, real) CompletedProcess of `python ARGS` in the repository root."""
    env = child_env(env)
    forked = forked_python.run(args, ROOT, env, timeout=120)
    assert forked is not None, "the fork server declined a plain child"
    real = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    return forked, real


def test_a_child_sees_what_a_fresh_interpreter_sees():
    code = ("import json, os, sys\n"
            "print(json.dumps([sys.argv, sys.path, os.getcwd(), os.environ.get('JXK_PROBE'),\n"
            "                  __name__, sys.modules['__main__'].__dict__.get('__file__')]))")
    forked, real = both(["-c", code, "a", "b"], {"JXK_PROBE": "seen"})
    assert forked.returncode == real.returncode == 0, forked.stderr
    assert json.loads(forked.stdout) == json.loads(real.stdout)
    assert json.loads(forked.stdout)[3] == "seen"


def test_nothing_of_jxkernel_or_jaxlib_is_imported_before_the_childs_code():
    # what the fresh processes are for: a jxkernel, its config and its devices made anew
    code = ("import json, sys\n"
            "print(json.dumps(sorted({m.partition('.')[0] for m in sys.modules})),\n"
            "      'numpy.random' in sys.modules)")
    forked, _ = both(["-c", code])
    _, server = both(["-c", "import forked_python, numpy, ml_dtypes\n" + code])
    listed, random_loaded = forked.stdout.rsplit(" ", 1)
    loaded = set(json.loads(listed))
    # (a module with a seed of its own would give every child the same numbers: `random`
    # reseeds itself at a fork, numpy.random would not)
    assert random_loaded.strip() == "False"
    assert not loaded & {"jxkernel", "jaxlib", "scipy", "IPython", "pytest"}, loaded
    assert {"numpy", "ml_dtypes"} <= loaded           # what the server is for
    assert loaded <= set(json.loads(server.stdout.rsplit(" ", 1)[0]))   # nothing more


@pytest.mark.parametrize("code", [
    "raise ValueError('bad')",
    "import sys; sys.exit(3)",
    "import sys; sys.exit('bye')",
    "import atexit; atexit.register(print, 'at exit'); print('body')",
    "import sys; sys.stdout.write('no newline'); sys.stderr.write('err\\r\\n')",
    "import os, signal; os.kill(os.getpid(), signal.SIGTERM)",
], ids=["error", "exit-3", "exit-text", "atexit", "newlines", "signal"])
def test_exit_status_and_output_are_a_fresh_interpreters(code):
    forked, real = both(["-c", code])
    assert (forked.returncode, forked.stdout, forked.stderr) == \
        (real.returncode, real.stdout, real.stderr)


def test_dash_m_runs_the_module_as_main():
    forked, real = both(["-m", "platform", "terse"])
    assert (forked.returncode, forked.stdout) == (real.returncode, real.stdout)
    assert forked.stdout.strip()


def test_a_child_past_its_timeout_is_killed():
    with pytest.raises(subprocess.TimeoutExpired):
        forked_python.run(["-c", "import os, time; print(os.getpid(), flush=True); "
                                 "time.sleep(60)"], ROOT, child_env(), timeout=2)
    done = forked_python.run(["-c", "print('next')"], ROOT, child_env())
    assert done.stdout == "next\n"          # the server goes on


@pytest.mark.parametrize("change", [
    {"PYTHONHASHSEED": "12345"},            # read as the interpreter starts
    {"OPENBLAS_NUM_THREADS": "3"},          # read as NumPy's BLAS loads
    {"JXKERNEL_AS_JAX": "1"},               # read by jxkernel's .pth hook as it starts
], ids=lambda change: next(iter(change)))
def test_what_the_servers_start_fixed_is_left_to_a_real_process(change):
    assert forked_python.run(["-c", "pass"], ROOT, child_env(change)) is None


@pytest.mark.parametrize("switch", ["0", "1"])
def test_fresh_process_forks_unless_told_not_to(switch, monkeypatch):
    monkeypatch.setenv("JXKERNEL_TEST_FORK", switch)
    done = run_python(["-c", "import sys; print('numpy' in sys.modules)"])
    assert done.stdout == ("False\n" if switch == "0" else "True\n")


def test_another_sitecustomize_is_left_to_a_real_process(tmp_path):
    (tmp_path / "sitecustomize.py").write_text("")
    env = child_env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    assert forked_python.run(["-c", "pass"], ROOT, env) is None
    assert forked_python.run(["script.py"], ROOT, child_env()) is None   # no -c or -m


def test_a_child_that_blocks_a_preloaded_module_runs_as_a_real_process():
    # a machine without ml_dtypes (Pyodide's), as test_optional_dependencies makes one: in a
    # forked child ml_dtypes is imported already, and its block would change nothing
    code = ("import importlib.abc, sys\n"
            "class Block(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.partition('.')[0] == 'ml_dtypes':\n"
            "            raise ImportError(name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "try:\n"
            "    import ml_dtypes\n"
            "except ImportError:\n"
            "    print('blocked')\n"
            "else:\n"
            "    print('imported')\n")
    env = child_env()
    assert forked_python.run(["-c", code], ROOT, env) is None
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert done.stdout == "blocked\n"
    # a finder of other names is taken as it is
    forked = forked_python.run(["-c", code.replace("'ml_dtypes'", "'tensorstore'")], ROOT, env)
    assert forked.stdout == "imported\n"
