"""Exercises for the workshop notebooks in demos/: check an answer, get a hint, see a solution.

    from jxkernel.notebook.workshop import check, hint, solution
    check("jit-where", my_relu)       # ✓ correct, or "not yet" and what is wrong, in words
    hint("jit-where")                 # the next hint: the first nudges, the last nearly answers
    solution("jit-where")             # a solution, also put in a new cell below

An exercise is a test function registered with `@exercise(id, hints=..., solution=...)` in a
module of this package named for its notebook; it raises `NotYet("what is wrong")` for a wrong
answer. The learners' notebooks leave each answer as `...` (check says "not yet"), the
instructors' versions (demos/solutions/, written by `python -m
jxkernel.notebook.workshop.solutions`) hold the solutions.
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import os
import pathlib
import pkgutil
import textwrap
import traceback
from typing import Callable

import numpy as np

from ...core import errors as jx_errors
from ...core.source_info import is_user_filename
from ...views.rich_view import esc
from ..display import cell_name


class NotYet(Exception):
    """Raised by an exercise's test: the answer is not right yet; the message says why."""


@dataclasses.dataclass
class Exercise:
    id: str
    test: Callable
    hints: tuple
    solution: str
    shown_hints: int = 0


_EXERCISES: dict[str, Exercise] = {}


def exercise(id: str, *, hints=(), solution: str = ""):
    """Register the decorated test(answer) as exercise `id`."""
    def register(test):
        _EXERCISES[id] = Exercise(id, test, tuple(hints), solution.strip("\n"))
        return test
    return register


# what a learner's function raises under jit when Python asks for a traced value
TRACER_ERRORS = (jx_errors.ConcretizationTypeError, jx_errors.TracerIntegerConversionError)


def describe(value) -> str:
    """A learner's answer in a few words: "a str ('hello')", "an array of shape (3,)"."""
    if isinstance(value, str):
        return f"a str ({value[:30]!r}{'...' if len(value) > 30 else ''})"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (int, float, complex, np.number)):
        return f"the number {value!r}"
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"an array of shape {tuple(value.shape)} and dtype {value.dtype}"
    if callable(value):
        return f"a function ({getattr(value, '__name__', type(value).__name__)})"
    return f"a {type(value).__name__}"


def expected(want) -> str:
    """What an answer like `want` is, said to a learner: "an array of shape (3, 3)"."""
    shape = np.shape(want)
    return "a number" if shape == () else f"an array of shape {shape}"


def expect_close(got, want, what: str, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    """For exercises answered with numbers: the same shape, and values within a few float32
    roundings of the reference (the exercises' computations are short and well-conditioned)."""
    want = np.asarray(want, np.float64)
    try:
        got = np.asarray(got, np.float64)
    except (TypeError, ValueError):             # a str, a function, a ragged list...
        raise NotYet(f"{what} should be {expected(want)} of numbers; it is {describe(got)}.") \
            from None
    if got.shape != want.shape:
        raise NotYet(f"{what} has shape {got.shape}; it should be {want.shape}.")
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        raise NotYet(f"{what} is {np.round(got, 4).tolist()}, not {np.round(want, 4).tolist()}.")


def expect_whole_number(answer) -> None:
    """For exercises answered with a count: anything else is not yet an answer."""
    if not isinstance(answer, (int, np.integer)) or isinstance(answer, bool):
        raise NotYet(f"Answer with a whole number (you gave {answer!r}).")


def find(id: str) -> Exercise:
    if not _EXERCISES:                      # the notebooks' modules register on import
        for module in pkgutil.iter_modules(__path__):
            if module.name not in ("solutions", "links", "strip", "program_checks"):   # no exercises
                importlib.import_module(f"{__name__}.{module.name}")
    try:
        return _EXERCISES[id]
    except KeyError:
        raise KeyError(f"no workshop exercise {id!r}; known: {', '.join(sorted(_EXERCISES))}") \
            from None


def data_path(name: str) -> pathlib.Path:
    """A data file the notebooks use (workshop/data/), read from the installed package so that a
    notebook runs from any folder, or alone on Colab: `np.load(data_path("digits.npz"))`."""
    path = pathlib.Path(__file__).parent / "data" / name
    if not path.exists():
        known = sorted(p.name for p in path.parent.iterdir() if p.name != "README.md")
        raise FileNotFoundError(f"no workshop data file {name!r}; there are: {', '.join(known)}")
    return path


def is_unanswered(answer) -> bool:
    """`...` (the learners' placeholder), None, or a function whose body is only `...`."""
    if answer is ... or answer is None:
        return True
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(answer))))
    except (TypeError, OSError, SyntaxError):   # not a function, or no source to read
        return False
    body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
    return bool(body) and all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                              for s in body) and body[-1].value.value is ...


class Result:
    """What `check` found; shows as a coloured line in a notebook, as text elsewhere."""

    def __init__(self, ex: Exercise, passed: bool, message: str):
        self.exercise, self.passed, self.message = ex, passed, message

    @property
    def status(self) -> str:
        return "correct" if self.passed else "not yet"

    def _advice(self) -> str:
        if self.passed:
            return ""
        left = len(self.exercise.hints) - self.exercise.shown_hints
        hints = (f"hint({self.exercise.id!r}) gives a hint ({left} left); " if left else "")
        return f"Stuck? {hints}solution({self.exercise.id!r}) shows a solution."

    def __repr__(self):
        head = "✓ correct" if self.passed else "✗ not yet"
        return "\n".join(s for s in (f"{self.exercise.id}: {head}", self.message, self._advice())
                         if s)

    def _repr_html_(self):
        color = "var(--jp-success-color1, #2e7d32)" if self.passed else \
            "var(--jp-warn-color1, #b26a00)"
        head = "✓ correct" if self.passed else "✗ not yet"
        return (f"<div class='jx-check' style='border-left:4px solid {color};padding:2px 8px'>"
                f"<b style='color:{color}'>{esc(self.exercise.id)}: {head}</b>"
                + (f"<div>{esc(self.message)}</div>" if self.message else "")
                + (f"<div style='color:var(--jp-content-font-color2, #666)'>"
                   f"{esc(self._advice())}</div>" if self._advice() else "")
                + "</div>")


# NumPy's folder, ending in a separator (a learner's numpy_answer.py beside it is theirs)
_NUMPY_DIR = os.path.join(str(pathlib.Path(np.__file__).resolve().parent), "")


def _learners(filename: str) -> bool:
    """Whether a traceback's file is the learner's code: a user's file to source_info (not
    jxkernel's, the standard library's or a library's registered as excluded, as Flax and
    Equinox register theirs), and not NumPy's."""
    return is_user_filename(filename) and \
        not str(pathlib.Path(filename).resolve()).startswith(_NUMPY_DIR)


def check(id: str, answer) -> Result:
    """Test `answer` for exercise `id`: correct, or not yet with what is wrong."""
    ex = find(id)
    if is_unanswered(answer):
        return Result(ex, False, "Write your answer in place of the `...` and run the cell again.")
    try:
        ex.test(answer)
    except NotYet as e:
        return Result(ex, False, str(e))
    except Exception as e:  # noqa: BLE001  the learner's code failed: say how, in one line
        frames = traceback.extract_tb(e.__traceback__)
        if not callable(answer) and not any(_learners(f.filename) for f in frames):
            # no line of the learner's ran: the answer is not the kind of thing asked for
            asked = "a function" if isinstance(e, TypeError) and "callable" in str(e) \
                else "something else"
            return Result(ex, False, f"This exercise asks for {asked}; your answer is "
                                     f"{describe(answer)}. The text above the cell says what to "
                                     f"write.")
        # where: the learner's innermost line, as the notebook names it (In[7], line 3), not
        # the last frame, which is jxkernel's own where it raised (an in-place `x[i] = 0` was
        # said at "line 73: raise TypeError(...)" of jxkernel's indexing code)
        mine = [f for f in frames if _learners(f.filename)]
        where = ""
        if mine:
            cell = cell_name(mine[-1].filename)
            place = f"{cell}, line {mine[-1].lineno}" if cell else \
                f"{os.path.basename(mine[-1].filename)}, line {mine[-1].lineno}"
            where = f" ({place}: {mine[-1].line})" if mine[-1].line else f" ({place})"
        return Result(ex, False, f"Your answer raised {type(e).__name__}: {e}{where}")
    return Result(ex, True, "")


class Text:
    """A hint or a solution: plain text, or a small box in a notebook."""

    def __init__(self, title: str, body: str, code: bool = False):
        self.title, self.body, self.code = title, body, code

    def __repr__(self):
        return f"{self.title}\n{self.body}"

    def _repr_html_(self):
        body = (f"<pre style='margin:2px 0'>{esc(self.body)}</pre>" if self.code
                else f"<div>{esc(self.body)}</div>")
        return (f"<div class='jx-hint' style='border-left:4px solid var(--jp-brand-color1, "
                f"#1976d2);padding:2px 8px'><b>{esc(self.title)}</b>{body}</div>")


def hint(id: str) -> Text:
    """The next hint of exercise `id` (each call one more; the last repeats)."""
    ex = find(id)
    if not ex.hints:
        return Text(f"{id}: no hints", "This one has no hints: try solution() if you are stuck.")
    ex.shown_hints = min(ex.shown_hints + 1, len(ex.hints))
    return Text(f"{id}: hint {ex.shown_hints} of {len(ex.hints)}", ex.hints[ex.shown_hints - 1])


def solution(id: str, insert: bool = True) -> Text:
    """A solution of exercise `id`; in IPython it is also put in a new cell below to run."""
    ex = find(id)
    if insert:
        try:
            from IPython import get_ipython
            shell = get_ipython()
            if shell is not None:
                shell.set_next_input(ex.solution, replace=False)
        except ImportError:
            pass
    return Text(f"{id}: a solution", ex.solution, code=True)
