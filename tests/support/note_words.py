"""The compile notes' words on the backend the tests run on (`pytest --backend numpy`): the NumPy
backend compiles nothing, so its notes, %jxcompiles and %jxreport say traced, a cache miss
(jxkernel/core/miss_words.py; their text there is tested in
tests/notebook/test_notebook_numpy_views.py), over the same logic the note tests check. A test
writes its expectation in XLA's words and reads it through `here`:

    assert title.startswith(here("⚙ f compiled again (compile #2, at In["))
"""
import re

import jxkernel

# XLA's words -> the NumPy backend's, in the order they are replaced
NUMPY_WORDS = (("would recompile because", "would trace again because"),   # the guard's
               ("compiled for: (", "traced for:  ("), ("called with:  (", "called with: ("),
               ("compiled again", "traced again"), ("(compile #", "(cache miss #"),
               ("recompile(s) in this cell", "cache miss(es) in this cell"),
               ("compiled (first compile,", "traced again (first program of its own,"),
               ("compiles anew", "traces anew"), ("recompilation(s)", "again"),
               ("compilation(s)", "cache miss(es)"), ("compiled for", "traced for"),
               ("arguments compiles this trace", "arguments runs this trace"),
               ("⚙ <lambda> compiled (", "⚙ <lambda> traced ("),
               ("earlier compile", "earlier trace"),
               ("function: compilations /", "function: cache misses /"),
               # the groups not yours (eager operations, jxkernel's and libraries' own), as
               # text and as a regex's source
               ("each compiled once per operand", "each traced once per operand"),
               ("compile(s) of", "cache miss(es) of"), (r"compile\(s\) of", r"cache miss\(es\) of"),
               ("logged) compiled now", "logged) run now"),
               # %%jit cells' notes, %timeit's lines
               ("recompiled cell[", "traced cell["), ("compiled cell[", "traced cell["),
               ("Compiled on the first run", "Traced on the first run"),
               ("The timed runs compiled too", "The timed runs traced too"),
               ("includes compiling", "includes tracing"),
               ("compiled (cell", "traced (cell"),
               ("compile one program each", "make one program each"),
               ("each compile is expected", "each trace is expected"),
               ("a compile per edit is expected", "a trace per edit is expected"),
               ("rows compiled before", "rows traced before"),
               # a value read from outside changed since the trace (the stale note)
               ("its compiled program", "its program"),
               ("every call of the compiled program", "every call of the program"),
               ("a compile for each is expected", "a trace for each is expected"),
               ("the program compiled at that trace", "the program made at that trace"),
               # the explainer's own reasons (a pmap's layout, a trace made before), %timeit's
               ("compiled again for its arguments' layout", "prepared again for its arguments' "
                "layout"),
               ("compiled now, without tracing again", "run now, without tracing again"),
               ("compiles on every", "traces on every"),
               ("compile(s) over", "cache miss(es) over"),
               (r"compile\(s\) over", r"cache miss\(es\) over"))


# ... and where the words move: %%jit's "recompiled cell[3] because" is "traced cell[3] again
# because" there
NUMPY_PATTERNS = ((re.compile(r"recompiled (cell\[\d+\]) because"), r"traced \1 again because"),)


def here(text: str) -> str:
    """`text`, in the notes' words on XLA's backends, as the backend the tests run on says it."""
    if jxkernel.default_backend() != "numpy":
        return text
    for pattern, numpy in NUMPY_PATTERNS:
        text = pattern.sub(numpy, text)
    for xla, numpy in NUMPY_WORDS:
        text = text.replace(xla, numpy)
    return text
