"""Touching a deleted Array (donated to a jit, or `.delete()`d), each way a learner can, against
what JAX 0.10.2 raises for the same program (tests/data/deleted_arrays_reference.json, recorded
by reference/make_deleted_arrays_reference.py): the class is JAX's (a plain RuntimeError, a
ValueError from a jit that already ran, jaxlib's JaxRuntimeError from block_until_ready), the
message starts with JAX's and adds why, and nothing is logged on stderr (jaxlib's
"Buffer has been deleted or donated" line, which JAX does not print for these)."""

import json

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
import locations  # tests/support: the repository's folders
from deleted_arrays_cases import run  # tests/data
from fresh_process import run_python

JAX = locations.recorded("deleted_arrays_reference.json")

DONATED_WHY = ("It was donated to jit(<lambda>) as its argument 'a': use that call's result "
               "in its place, or do not donate it.")
DELETED_WHY = ".delete() was called on it."


@pytest.fixture(scope="module")
def ours():
    return run(jax)


@pytest.mark.parametrize("case", sorted(JAX))
def test_each_way_raises_jaxs_class_and_message_then_why(ours, case):
    want, got = JAX[case], ours[case]
    if want is None:
        assert got is None, got
        return
    assert got is not None and got["error"] == want["error"], got
    why = DELETED_WHY if case.startswith("delete/") else DONATED_WHY
    # JAX's block_until_ready message has no final stop; ours adds one before the why
    sep = ". " if not want["message"].endswith(".") else " "
    assert got["message"] == want["message"] + sep + why


def test_the_class_is_plain_runtime_error_as_jnp_copys_doctest_compares():
    x = jnp.arange(3.0)
    x.delete()
    with pytest.raises(RuntimeError) as info:
        jnp.copy(x)
    assert type(info.value) is RuntimeError          # IGNORE_EXCEPTION_DETAIL compares the name


def test_no_xla_log_line_on_stderr():
    # Before: every execution handed a deleted buffer made jaxlib log
    # "ExecutePrepareWithOomRetries failed: ... Buffer has been deleted or donated." first
    # (run_python puts tests/data on the child's PYTHONPATH)
    done = run_python(["-c", "import jxkernel as jax\nfrom deleted_arrays_cases import run\n"
                       "out = run(jax)\nprint(len(out))"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert "deleted or donated" not in done.stderr, done.stderr[-2000:]


def test_a_donated_arrays_view_in_a_notebook_says_why():
    f = jax.jit(lambda v: v * 2, donate_argnums=0)
    x = jnp.arange(3.0)
    f(x)
    assert "It was donated to jit(&lt;lambda&gt;) as its argument &#x27;v&#x27;" in x._repr_html_()


def test_a_donated_argument_of_an_executable_names_it():
    x = jnp.ones(4)
    f = jax.jit(lambda a, b: a + b, donate_argnames="b")
    f(jnp.ones(4), x)
    with pytest.raises(RuntimeError, match=r"donated to jit\(<lambda>\) as its argument 'b'"):
        np.asarray(x)


def test_a_registered_librarys_donating_jit_raises_as_the_users(tmp_path):
    """A library that registered its files as excluded (as Flax does) jits with donation: its
    jit is a jax.jit as the user's is, so an Array donated to it and given again raises JAX's
    class for the same jit given its donated Array again (same_jit_again: ValueError), not
    the RuntimeError of jxkernel's own jits."""
    from registered_library import excluded, import_library
    path = str(tmp_path / "donating_lib.py")
    with excluded(path):
        lib = import_library(tmp_path, "donating_lib",
                             "import jxkernel as jax\n"
                             "double = jax.jit(lambda a: a * 2, donate_argnums=0)\n")
        x = jnp.arange(3.0)
        lib.double(x)
        with pytest.raises(Exception) as raised:
            lib.double(x)
    assert type(raised.value).__name__ == JAX["donate/same_jit_again"]["error"] == "ValueError"


def test_each_way_raises_the_same_once_runs_check_layouts():
    """Once a program of another layout than row-major was compiled, every run checks its
    arguments' layouts (xla/relayout.py); a deleted Array's layout is not read (jaxlib's
    `_pjrt_layout` of a deleted buffer crashes the process), so each way still raises what it
    raises without the checks (a child process: the checks stay on for its life)."""
    import json
    from fresh_process import run_json
    theirs = run_json("import json, jxkernel\nfrom jxkernel.xla import relayout\n"
                      "from deleted_arrays_cases import run\nrelayout.watch()\n"
                      "print(json.dumps(run(jxkernel)))")
    assert theirs == json.loads(json.dumps(run(jax)))


def test_no_way_to_a_jaxlib_call_that_crashes_on_a_deleted_buffer_crashes():
    """jaxlib 0.10.2 crashes the process (a segmentation fault, not an error) on `is_ready()`,
    `_pjrt_layout`, `clone()` and batched_copy_array_to_devices_with_sharding of a `.delete()`d
    buffer; jxkernel asks `is_deleted()` first. Each way a learner reaches one (tests/data/
    deleted_buffer_ways.py, on two CPU devices: a child process, where a crash is rc -11, not
    a failed test) raises JAX's class and message (then why), or works as JAX's; `is_ready`
    after `.delete()`, where JAX's crashes, raises as for a donated Array (before: a plain
    RuntimeError of a deleted read, not jaxlib's error)."""
    from fresh_process import run_python
    done = run_python(["-c", "import json, jxkernel as jax\n"
                       "jax.config.update('jax_num_cpu_devices', 2)\n"
                       "from deleted_buffer_ways import run\nfrom deleted_arrays_cases import _said\n"
                       "out = run(jax)\nx = jax.numpy.arange(3.0)\nx.delete()\n"
                       "out['delete/is_ready'] = _said(x.is_ready)\nprint(json.dumps(out))"])
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    ours = json.loads(done.stdout.strip().splitlines()[-1])
    theirs = locations.recorded("deleted_buffer_ways_reference.json")
    theirs["delete/is_ready"] = theirs["donate/is_ready"]   # (JAX's crashes there)
    assert sorted(ours) == sorted(theirs)
    for case, want in theirs.items():
        got = ours[case]
        if want is None:
            assert got is None, (case, got)
            continue
        assert got is not None and got["error"] == want["error"], (case, got)
        assert got["message"].startswith(want["message"] + " "), (case, got)
