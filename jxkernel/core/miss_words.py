"""What a jit's cache miss did, in the words every view says it with (the cell notes, %jxcompiles,
the status bar's state, the compile report's JSON): one helper per idea, each choosing its word
from the event's backend.

On XLA's backends a miss traces the function, lowers and compiles it. The NumPy backend
(JupyterLite's, or `%jxbackend numpy`) compiles nothing: a miss traces the function and NumPy
runs its jaxpr, so there it is told as traced, a cache miss (JAX's own word for a new trace and
compile, jax_explain_cache_misses' "TRACING CACHE MISS"). A jit traced by jax.eval_shape or
jax.make_jaxpr compiles nothing either, on any backend: its call compiles that trace later.
The facts are the same otherwise (what changed, the fix, the times). The Compilations panel and
the compile report say the same in labextension/src/missWords.ts.
"""
import dataclasses
import re

NUMPY = "numpy"

# traces that compile nothing, around a jit traced inside them: what each is for
STAGE_ONLY = {"eval_shape": "for shapes only", "make_jaxpr": "for its jaxpr only"}

# the words of the fixes (views/signature_changes) for what a new key costs on XLA's backends
ANEW = "compiles anew"


def compiles(backend: str) -> bool:
    """Whether a miss on `backend` compiles a program (the NumPy backend's traces only).

        >>> compiles("cpu"), compiles("numpy")
        (True, False)
    """
    return backend != NUMPY


def any_numpy(events) -> bool:
    """Whether one of `events` ran on the NumPy backend (their count is of cache misses)."""
    return any(not compiles(e.backend) for e in events)


def did(backend: str) -> str:
    """What a miss did, past tense: "compiled", or "traced" where nothing compiles.

        >>> did("gpu"), did("numpy")
        ('compiled', 'traced')
    """
    return "compiled" if compiles(backend) else "traced"


def a_miss(backend: str) -> str:
    """One miss, as the notes number it ("compile #2", "cache miss #2").

        >>> a_miss("cpu"), a_miss("numpy")
        ('compile', 'cache miss')
    """
    return "compile" if compiles(backend) else "cache miss"


def misses(count: int, numpy: bool, noun: str = "compilation(s)") -> str:
    """`count` misses as %jxcompiles and the notes count them: "3 compilation(s)" (`noun`),
    or "3 cache miss(es)" where one of them ran on the NumPy backend (`numpy`).

        >>> misses(2, False), misses(2, True), misses(1, False, "compile(s)")
        ('2 compilation(s)', '2 cache miss(es)', '1 compile(s)')
    """
    return f"{count} cache miss(es)" if numpy else f"{count} {noun}"


def again(count: int, numpy: bool) -> str:
    """How many of them were again: "1 recompilation(s)", or "1 again" on the NumPy backend,
    where nothing recompiles.

        >>> again(1, False), again(1, True)
        ('1 recompilation(s)', '1 again')
    """
    return f"{count} again" if numpy else f"{count} recompilation(s)"


def counted(numpy: bool) -> str:
    """What the status bar's counts count (the state's `counted` field): "cache misses" where
    the NumPy backend is selected or one of the events ran there, else "compiles"."""
    return "cache misses" if numpy else "compiles"


def cache_said(cache: str, backend: str) -> str:
    """Where a program came from: its cache ("compiled", "memory", "disk"), "traced" for a
    miss on the NumPy backend (its cache says "compiled" of a program NumPy runs).

        >>> (cache_said("compiled", "cpu"), cache_said("compiled", "numpy"),
        ...  cache_said("disk", "cpu"))
        ('compiled', 'traced', 'disk')
    """
    return "traced" if cache == "compiled" and not compiles(backend) else cache


def came_from(event) -> str:
    """cache_said of a CompileEvent."""
    return cache_said(event.cache, event.backend)


def last_phase(backend: str) -> str:
    """The name of a miss's phase after trace and lower: "compile" (XLA's), or "prepare" on
    the NumPy backend (making the program that runs the jaxpr with NumPy: nothing compiles).

        >>> last_phase("tpu"), last_phase("numpy")
        ('compile', 'prepare')
    """
    return "compile" if compiles(backend) else "prepare"


def stage_only(event) -> str | None:
    """"eval_shape" or "make_jaxpr" where `event` is a jit traced inside the trace one of
    them makes (event.inlined_into "eval_shape(f)"), which nothing compiles; else None."""
    name = (event.inlined_into or "").partition("(")[0]
    return name if name in STAGE_ONLY else None


def anew(backend: str, staged: bool = False) -> str:
    """What a new cache key costs, as a fix says it where it stands: "compiles anew" on XLA's
    backends; on the NumPy backend, which compiles nothing, "traces anew"; in a trace
    jax.eval_shape or make_jaxpr made (`staged`), "traces anew" too, and the call that follows
    compiles it.

        >>> anew("cpu"), anew("numpy"), anew("cpu", staged=True)
        ('compiles anew', 'traces anew', 'traces anew (and compiles anew when called)')
    """
    if not compiles(backend):
        return "traces anew"
    return "traces anew (and compiles anew when called)" if staged else ANEW


# a fix's words for compiling, said on the NumPy backend (what a new key costs there is a new
# trace: `traced`): whole phrases first, where a word for word change would misread ("traces
# and compiles again" is one trace there; "a compiled program" is a program), then each word.
# What JAX itself does stays JAX's ("JAX compiles a program for each (its log's "Compiling
# jit(...)" line ...)"; "(JAX traces once, and lowers and compiles twice)").
_TRACED_PHRASES = (("traces and compiles", "traces"), ("traced and compiled", "traced"),
                   ("a compiled program", "a program"),
                   ("the same trace, compiled again", "the same trace, prepared as a program "
                    "again"), ("compile one program each", "make one program each"),
                   ("options compiles a program of its own",
                    "options makes a program of its own"),
                   ("each device compiles one of its own", "each device has one of its own"),
                   ("default device compile apart", "default device get programs apart"),
                   ("without compiling", "without a new trace"),
                   # (reasons of the explainer's: a trace reused, no new one)
                   ("compiled now, without tracing again", "run now, without tracing again"),
                   ("compiled again for its arguments' layout", "prepared again for its "
                    "arguments' layout"))
# JAX's own compiling, said of JAX (kept as it is: only these may say "compil" on NumPy)
JAX_COMPILES = ("JAX compiles a program for each", "\"Compiling jit(...)\"",
                "JAX traces once, and lowers and compiles twice")
# a word, not code (`.compile()`, compiler_options) nor a quoted value ('compile', a static
# argument's value in a reason)
_COMPILE_WORD = re.compile(r"(?<![.\w'\"])compil(e|es|ed|ing)\b(?!\")")
_TRACE_WORD = {"e": "trace", "es": "traces", "ed": "traced", "ing": "tracing"}


def traced_said(fix: str) -> str:
    """`fix` (a Change's sentence, in XLA's words) as the NumPy backend, which compiles nothing,
    says it: what a new cache key costs there is a new trace.

        >>> traced_said("Every new shape compiles anew. Pad it.")
        'Every new shape traces anew. Pad it.'
        >>> traced_said("so each one traces and compiles again: at most 5 compiles.")
        'so each one traces again: at most 5 traces.'
    """
    kept = {}
    for i, words in enumerate(JAX_COMPILES):     # JAX's own words: back as they were, below
        if words in fix:
            kept[f"\0{i}\0"] = words
            fix = fix.replace(words, f"\0{i}\0")
    for xla, numpy in _TRACED_PHRASES:
        fix = fix.replace(xla, numpy)
    fix = _COMPILE_WORD.sub(lambda m: _TRACE_WORD[m.group(1)], fix)
    for mark, words in kept.items():
        fix = fix.replace(mark, words)
    return fix


def fixes_said(event, changes) -> tuple:
    """`changes` (the event's) with each fix said where `event` stands: on the NumPy backend,
    which compiles nothing, in its words (traced_said: "traces anew", "at most 5 traces"),
    and a jit made anew's earlier one "jit(f) traced for (...)"; in eval_shape's trace, its
    ANEW as "traces anew (and compiles anew when called)" (anew); the same tuple elsewhere."""
    if not compiles(event.backend):
        return tuple(_traced_change(c) for c in changes)
    words = anew(event.backend, event.inlined_into is not None and stage_only(event) is not None)
    if words == ANEW:
        return changes
    return tuple(dataclasses.replace(c, fix=c.fix.replace(ANEW, words))
                 if isinstance(getattr(c, "fix", None), str) and ANEW in c.fix else c
                 for c in changes)


# the earlier jit object of a jit made anew, as recompile_explainer names it: "jit(f) compiled
# for (x: f32[3])"
_JIT_COMPILED_FOR = re.compile(r"^(jit\(.*\)) compiled for \(")


def _traced_change(change):
    """`change` as the NumPy backend says it (its fix traced_said; a jit made anew's earlier
    jit "traced for"); a change's values are the learner's otherwise, kept as they are."""
    fix = getattr(change, "fix", None)
    if not isinstance(fix, str):
        return change
    old = change.old
    if change.kind == "fresh_jit":
        old = _JIT_COMPILED_FOR.sub(r"\1 traced for (", old)
    said = traced_said(fix)
    return change if (said, old) == (fix, change.old) else \
        dataclasses.replace(change, fix=said, old=old)
