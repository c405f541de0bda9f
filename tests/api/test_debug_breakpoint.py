"""jax.debug.breakpoint: a (jdb) prompt on the user's frames with the runtime values, as
JAX's text debugger (the debugging guide's breakpoint_if_nonfinite runs it under cond)."""
import io
import sys

import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from numerics import ELEMENTWISE, UlpOutputChecker  # tests/support
from registered_library import excluded, import_library
import locations  # tests/support


def _run_with_input(monkeypatch, capsys, text, fun, *args):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    result = fun(*args)
    jax.effects_barrier()
    return result, capsys.readouterr().out.splitlines()


def test_breakpoint_shows_runtime_values_and_frames(monkeypatch, capsys):
    @jax.jit
    def f(x):
        y, z = jnp.sin(x), jnp.cos(x)
        jax.debug.breakpoint()
        return y * z

    result, out = _run_with_input(monkeypatch, capsys, "p y\nz\npp x + 1\nw\nnope\nc\n", f, 2.0)
    assert float(result) == pytest.approx(-0.37840125)
    assert out[0] == "Entering jdb:"
    # sin(2) and cos(2) printed in full: XLA's approximations move a last bit per CPU
    printed = UlpOutputChecker(ELEMENTWISE).check_output
    assert printed("(jdb) Array(0.9092974, dtype=float32)", out[1], 0), out[1]
    assert printed("(jdb) Array(-0.41614684, dtype=float32)", out[2], 0), out[2]
    assert out[3] == "(jdb) Array(3., dtype=float32)"
    assert out[4] == "(jdb) Traceback:" and "jax.debug.breakpoint()" in out[-3]
    assert out[-2] == "(jdb) *** NameError: name 'nope' is not defined"


def test_breakpoint_in_a_branch_runs_only_when_taken(monkeypatch, capsys):
    def breakpoint_if_nonfinite(x):
        jax.lax.cond(jnp.isfinite(x).all(), lambda x: None,
                     lambda x: jax.debug.breakpoint(), x)

    @jax.jit
    def f(x, y):
        z = x / y
        breakpoint_if_nonfinite(z)
        return z

    _, out = _run_with_input(monkeypatch, capsys, "p x\nc\n", f, 2.0, 1.0)
    assert out == []
    _, out = _run_with_input(monkeypatch, capsys, "p x\nc\n", f, 2.0, 0.0)
    assert out == ["Entering jdb:", "(jdb) Array(inf, dtype=float32)", "(jdb) "]


def test_breakpoint_arguments():
    token = jnp.ones(2)
    with pytest.raises(ValueError, match="backend='colab'"):
        jax.debug.breakpoint(backend="colab")
    monkey_input = io.StringIO("c\n")
    old, sys.stdin = sys.stdin, monkey_input
    try:
        assert jax.debug.breakpoint(token=token) is token
    finally:
        sys.stdin = old


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.debugger")


STOPPING_LIBRARY = ("import jxkernel\n"
                    "def stop(x):\n"
                    "    jxkernel.debug.breakpoint()\n"
                    "    return x\n")


def test_a_library_registered_with_traceback_util_is_not_listed(monkeypatch, capsys, tmp_path):
    # JAX 0.10.2 (the same program under .venv-jax, `w` at the prompt): the library's frame
    # is listed until it is registered with jax._src.traceback_util.register_exclusion, then
    # only the user's two are; its debugger asks traceback_util.include_frame.
    lib = import_library(tmp_path, "stopping_library_mod", STOPPING_LIBRARY)

    def files() -> list:       # this file's frames and the library's (pytest's are listed too)
        def f(x):              # a new function each time: the frames are taken when it traces
            return lib.stop(x) * 2
        _, out = _run_with_input(monkeypatch, capsys, "w\nc\n", jax.jit(f), 1.0)
        listed = [line.split('"')[1] for line in out if line.strip().startswith("File ")]
        return [name for name in listed if name in (__file__, lib.__file__)]   # outermost 1st

    assert files()[-2:] == [__file__, lib.__file__]           # f's line, then the library's
    with excluded(lib.__file__, user_line=False):
        listed = files()
    assert lib.__file__ not in listed and listed[-1] == __file__, listed


def test_a_frame_whose_file_name_has_other_lines_shows_no_source(monkeypatch):
    # on 3.13 linecache holds `python -c`'s text as '<string>', the file name of every exec'd
    # string too (pytest-xdist's worker runs in one): `w` raised IndexError past its one line.
    # JAX 0.10.2's debugger gives up there alike ("<no source>")
    import linecache
    from jxkernel.views.debugger import user_frames
    monkeypatch.setitem(linecache.cache, "<one line>", (9, None, ["first = 1\n"], "<one line>"))
    code = compile("first = 1\n\nframes = user_frames(sys._getframe(), None, 1)\n",
                   "<one line>", "exec")
    space = {"user_frames": user_frames, "sys": sys}
    exec(code, space)
    (frame,) = space["frames"]
    assert (frame.filename, frame.lineno, frame.source, frame.offset) == ("<one line>", 3, [], None)


def test_jdb_sessions_as_jax():
    # JAX 0.10.2's text debugger fed the same commands (tests/data/jdb_cases.py, recorded by
    # reference/make_jdb_reference.py): the function's source at `l`, locals but no module
    # globals, `<cant_flatten>` for a local that is no pytree, SystemExit(0) at `q` and at the
    # end of input (under jit a JaxRuntimeError naming it), ordered breakpoints in program order
    import json
    import jdb_cases
    import locations
    recorded = locations.jax_answers("jdb_reference.json")
    got = jdb_cases.run(jax)
    for name, expected in recorded.items():
        assert got[name] == expected, name
