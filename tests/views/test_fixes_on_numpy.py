"""The recompile fixes on the NumPy backend (JupyterLite's, `%jxbackend numpy`), which compiles
nothing: every fix template says what a new cache key costs there, a new trace
(core/miss_words.traced_said), and says the same as before on XLA's backends."""
import importlib
import pkgutil
import re

import pytest

import jxkernel.views.signature_changes as signature_changes
from jxkernel.compile_log import Change
from jxkernel.core import compile_record, miss_words
from jxkernel.views import body_retraces, recompile_explainer
from jxkernel.views.signature_changes.fixes import _FIXES, _fixed
from jxkernel.xla import Phases


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _templates():
    """(module.NAME, text) of each fix template that speaks of compiling: the module-level
    strings of views/signature_changes and of the explainer's own fixes (a pmap's layout)."""
    modules = [importlib.import_module(f"{signature_changes.__name__}.{m.name}")
               for m in pkgutil.iter_modules(signature_changes.__path__)]
    found = {}
    for module in modules + [recompile_explainer, body_retraces]:
        for name, value in vars(module).items():
            if name.startswith("__") or not isinstance(value, (str, tuple, dict)):
                continue
            for text in _strings(value):
                # a sentence (not a regex's pattern nor a word), of compiling
                if re.search(r"\bcompil", text) and text.count(" ") > 8:
                    found[f"{module.__name__.rpartition('.')[2]}.{name}"] = text
    return sorted(found.items())


TEMPLATES = _templates()


def test_the_templates_are_found():
    # every kind's plain fix and the fresh-function fixes are among them (a rename that hid
    # them from _templates would leave this file checking nothing)
    names = {name for name, _ in TEMPLATES}
    assert {"fixes._FIXES", "fixes._STATIC_TRACED", "input_types._BUCKET_FIX",
            "fresh_functions._HOIST_FIX", "statics._BOOL_STATIC_FIX",
            "recompile_explainer.PMAP_LAYOUT"} <= names
    assert len(TEMPLATES) > 60


@pytest.mark.parametrize("name, template", TEMPLATES, ids=[n for n, _ in TEMPLATES])
def test_each_fix_template_says_traced_on_numpy(name, template):
    said = miss_words.traced_said(template)
    # JAX's own compiling, said of JAX, is all that stays
    rest = said
    for words in miss_words.JAX_COMPILES:
        rest = rest.replace(words, "")
    assert not re.search(r"(?<![.\w])compil", rest), said
    assert "traces and traces" not in said and "traced and traced" not in said


def test_fix_words_on_numpy_read_as_a_trace():
    said = miss_words.traced_said
    assert said(_FIXES["shape"][0]).startswith("Every new shape traces anew. Pad or bucket")
    assert said("so each one traces and compiles again. Jit it once.") == \
        "so each one traces again. Jit it once."
    assert said("a compiled program runs on one device, or expect one compile per device.") \
        == "a program runs on one device, or expect one trace per device."
    assert said("each of its two values compiles once, so at most two compiles.") == \
        "each of its two values traces once, so at most two traces."
    # code and names in a fix stay: `.compile()`, compiler_options, a quoted value
    assert said("then lowered.compile() with compiler_options") == \
        "then lowered.compile() with compiler_options"
    assert said("static mode: 'compile' -> 'run'") == "static mode: 'compile' -> 'run'"
    # the explainer's reasons where the trace was reused: no new trace, a program run
    assert said(recompile_explainer.REUSED_TRACE).endswith(
        ": run now, without tracing again")
    assert said("compiled again for its arguments' layout: " +
                recompile_explainer.PMAP_LAYOUT).startswith(
        "prepared again for its arguments' layout: a pmap's output")


def _event(backend, changes, **more):
    return compile_record.CompileEvent("f", "a.py:1", (("x", "f32[4]"),), "x: f32[3] -> f32[4]",
                                       Phases(0.001, 0.001, 0.002, "compiled"), backend,
                                       seq=2, nth=2, changes=changes, **more)


def test_an_events_fixes_say_traced_on_numpy_and_compiled_on_xla():
    static = _fixed("n", "static", 2, 3)
    bucket = Change("x", "shape", "f32[3]", "f32[4]", "Every new shape compiles anew. Pad it: "
                    "at most 5 compiles for lengths up to 64 (not one: a length past the last "
                    "bucket compiles again).")
    on_numpy = _event("numpy", (static, bucket)).said_changes
    assert on_numpy[0].fix.startswith("Each new value of a static argument traces anew.")
    assert on_numpy[1].fix == ("Every new shape traces anew. Pad it: at most 5 traces for "
                               "lengths up to 64 (not one: a length past the last bucket "
                               "traces again).")
    assert on_numpy[0].snippet == static.snippet        # the code is the same
    # on XLA's backends nothing changes
    assert _event("cpu", (static, bucket)).said_changes == (static, bucket)


def _refused(backend):
    """The RecompileError of a jit on `backend` under fail_on_recompile, called with f32[3]
    then f32[4]."""
    import jxkernel
    import jxkernel.numpy as jnp
    from jxkernel import compile_log
    from jxkernel.errors import RecompileError

    guarded = jxkernel.jit(lambda x: x + 1, backend=backend)
    guarded(jnp.ones(3))
    compile_log.fail_on_recompile(guarded)
    try:
        with pytest.raises(RecompileError) as raised:
            guarded(jnp.ones(4))
    finally:
        compile_log.fail_on_recompile(guarded, False)
    return raised.value


def test_the_guards_refusal_on_numpy_is_of_a_new_trace():
    # a jit on the NumPy backend under fail_on_recompile said it "would recompile",
    # "compiled for", its fix "at most 5 compiles": there nothing compiles, a miss traces
    refused = _refused("numpy")
    text = refused.args[0]
    assert text.startswith("jit(<lambda>) would trace again because x: f32[3] -> f32[4], and "
                           "fail_on_recompile is on for it.\n  traced for:  (x: f32[3])\n"
                           "  called with: (x: f32[4])\n"), text
    assert "Call it with the traced signature, or allow a new trace with " in text, text
    (note,) = [n for n in refused.__notes__ if n.startswith("What changed")]
    assert "fix: Every new shape traces anew." in note and "at most 5 traces" in note, note
    # (the API's names, jxkernel.compile_log.fail_on_recompile, stay)
    words = (text + note).replace("compile_log.fail_on_recompile", "").replace(
        "fail_on_recompile is on", "")
    assert "compil" not in words, words


@pytest.mark.xla_only("CPU platform")
def test_the_guards_refusal_on_the_cpu_is_of_a_compile():
    refused = _refused("cpu")
    assert refused.args[0].startswith("jit(<lambda>) would recompile because x: f32[3] -> "
                                           "f32[4], and fail_on_recompile is on for it.\n"
                                           "  compiled for: (x: f32[3])\n")
    assert "Every new shape compiles anew." in "".join(refused.__notes__)
