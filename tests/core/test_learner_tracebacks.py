"""A learner's everyday mistakes (tests/data/learner_tracebacks_cases.py: a dot of the wrong
shapes, a reshape to the wrong size, a reduction over an axis that is not there, ...) show
the tracebacks JAX 0.10.2 shows for them (recorded by
reference/make_learner_tracebacks_reference.py): in a script, under
JAX_TRACEBACK_FILTERING=remove_frames and in IPython, the same error type, the learner's own
frames, JAX's note that frames were removed where JAX has it, the same cause's type (under
remove_frames, JAX's UnfilteredStackTrace; an error raised from another, as JAX's
"Incompatible shapes for broadcasting" from lax's TypeError) and no more library frames than
JAX's. JAX leaves the frames of its unregistered files (jax.numpy's, reductions') in; jxkernel
hides its whole package, so it may show fewer of them, never a note that claims frames were
removed where six of its own are still there."""
import json

import pytest
from fresh_process import run_python
import locations
from locations import DATA

JAX = locations.jax_answers("learner_tracebacks_reference.json")
RUN = DATA + "/learner_tracebacks_run.py"
MODES = {"script": ("script", "auto"), "remove_frames": ("script", "remove_frames"),
         "ipython": ("ipython", "auto")}

# (mode, program) -> how many more library frames than JAX's jxkernel's traceback shows (none
# now: each program raises through as many of jxkernel's frames as JAX's own, or fewer)
MORE_FRAMES: dict = {}

# (mode, program) -> the key whose value JAX's answer has and jxkernel's has not (none now: a
# jit's unhashable static argument, which JAX's C++ call raises before any Python boundary,
# comes without the note there, as jxkernel's jit call leaves its frames out without it)
GAPS: dict = {}


def _ours(mode):
    where, filtering = MODES[mode]
    out = run_python([RUN, "jxkernel", where], {"JAX_TRACEBACK_FILTERING": filtering},
                     timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _split(seen):
    frames = seen["frames"]
    return ([f for f in frames if f.startswith("<user>:")],
            sum(not f.startswith("<user>:") for f in frames))


def _differences(mine, theirs, more):
    """What of `mine` differs from JAX's answer `theirs` (an empty list where it matches)."""
    (my_user, my_library), (their_user, their_library) = _split(mine), _split(theirs)
    out = [key for key in ("type", "note", "cause") if mine[key] != theirs[key]]
    if my_user != their_user:
        out.append(f"user frames {my_user} != {their_user}")
    if my_library > their_library + more:
        out.append(f"{my_library} library frames ({mine['frames']}) > JAX's {their_library}"
                   + (f" + {more}" if more else ""))
    return out


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_learners_traceback_is_jaxs(mode):
    ours = _ours(mode)
    assert sorted(ours) == sorted(JAX[mode])
    wrong = {}
    for program, theirs in JAX[mode].items():
        more, mine = MORE_FRAMES.get((mode, program), 0), ours[program]
        gap = GAPS.get((mode, program))
        if gap is not None:      # the gap is still there (else this entry goes)
            assert mine[gap] != theirs[gap], (mode, program)
            mine, theirs = {**mine, gap: None}, {**theirs, gap: None}
        differences = _differences(mine, theirs, more)
        if differences:
            wrong[program] = differences
        elif more:       # still more frames than JAX's (else this entry goes)
            assert _split(mine)[1] > _split(theirs)[1], (mode, program)
    assert not wrong, json.dumps(wrong, indent=1)


def test_the_one_off_trace_ends_and_leaves_a_debuggers_alone(tmp_path):
    """The trace that relinks an eager error's traceback at the learner's frame is gone once
    the error has arrived there (or the frame went on without it), and is never set over
    another tracer (a debugger's, coverage's), which keeps the jnp frames and keeps running."""
    script = tmp_path / "learner.py"
    script.write_text("\n".join([
        "import sys, json, traceback, jxkernel.numpy as jnp",
        "def shown(e):",
        "    return [f.f_code.co_name for f, _ in traceback.walk_tb(e.__traceback__)]",
        "def join(a, b):",        # (eager concatenate: its boundary is dispatch's)
        "    return jnp.concatenate([a, b])",
        "out = {}",
        "try:",
        "    join(jnp.ones((2, 3)), jnp.ones((2, 4)))",
        "except TypeError as e:",
        "    out['plain'] = [shown(e), sys.gettrace() is None]",
        "calls = []",
        "def debugger(frame, event, arg):",
        "    calls.append(event)",
        "sys.settrace(debugger)",
        "try:",
        "    join(jnp.ones((2, 3)), jnp.ones((2, 4)))",
        "except TypeError as e:",
        "    out['debugged'] = [shown(e), sys.gettrace() is debugger]",
        "sys.settrace(None)",
        "out['calls'] = bool(calls)",
        "print(json.dumps(out))"]) + "\n")
    out = run_python([str(script)], {"JAX_TRACEBACK_FILTERING": "auto"})
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [["<module>", "join"], True]
    frames, kept = seen["debugged"]
    assert frames[:3] == ["<module>", "join", "concatenate"] and kept and seen["calls"]


def test_a_samplers_wrapper_leaves_the_traceback_and_its_trace_ends(tmp_path):
    """random's out_sharding wrapper, which JAX's samplers have not, leaves an error's
    traceback at the learner's frame (random.normal's dtype error shows normal's frame alone,
    as JAX's; an initializer calling a sampler loses both wrappers), the one-off trace that does it
    is gone after, and under another tracer (a debugger's) nothing is relinked."""
    script = tmp_path / "learner.py"
    script.write_text("\n".join([
        "import sys, json, traceback, jxkernel as jax, jxkernel.numpy as jnp",
        "def shown(e):",
        "    return [f.f_code.co_name for f, _ in traceback.walk_tb(e.__traceback__)]",
        "def draw(dtype):",
        "    return jax.random.normal(jax.random.key(0), (3,), dtype=dtype)",
        "out = {}",
        "try:",
        "    draw(jnp.int32)",
        "except ValueError as e:",
        "    out['plain'] = [shown(e), sys.gettrace() is None]",
        "try:",                   # (the initializer's wrapper, then random.normal's)
        "    jax.nn.initializers.normal(1.0, jnp.int32)(jax.random.key(0), (3,))",
        "except Exception as e:",
        "    out['other'] = [shown(e), sys.gettrace() is None]",
        "calls = []",
        "def debugger(frame, event, arg):",
        "    calls.append(event)",
        "sys.settrace(debugger)",
        "try:",
        "    draw(jnp.int32)",
        "except ValueError as e:",
        "    out['debugged'] = [shown(e), sys.gettrace() is debugger]",
        "sys.settrace(None)",
        "print(json.dumps(out))"]) + "\n")
    out = run_python([str(script)], {"JAX_TRACEBACK_FILTERING": "auto"})
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [["<module>", "draw", "normal"], True]
    assert seen["other"] == [["<module>", "init", "normal"], True]
    frames, kept = seen["debugged"]
    assert frames == ["<module>", "draw", "sample", "normal"] and kept
