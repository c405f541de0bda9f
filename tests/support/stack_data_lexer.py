"""IPython's tracebacks colour each frame's source lines with stack_data, and stack_data 0.6.3
makes a new pygments lexer class for every frame it colours (`_pygmented_with_ranges`'s
`MyLexer`, whose only change is marking the executing node's tokens). pygments compiles a
lexer class's regular expressions when its first instance is made, ~2,500 of them for
Python's: each frame of each traceback paid for that again, a fifth of the CPU of
tests/notebook/test_learner_mistakes.py (252 tests, ~250 tracebacks). `install()` (from
tests/conftest.py, in the test processes only) puts in its place the same function with one
class, the ranges given to each instance: the same tokens, so the same text and colours
(tests/support/test_stack_data_lexer.py compares the two).
"""
from __future__ import annotations


def pygmented_with_ranges(formatter, code, ranges):
    """stack_data.utils._pygmented_with_ranges, with one lexer class for every call."""
    import pygments
    lexer = _lexer_class()(stripnl=False)
    lexer.ranges = ranges
    try:
        highlighted = pygments.highlight(code, lexer, formatter)
    except Exception:
        # (as stack_data: when pygments fails, the code without highlighting)
        highlighted = code
    return highlighted.splitlines()


_CLASSES: dict = {}


def _lexer_class():
    from pygments.lexers import get_lexer_by_name
    base = type(get_lexer_by_name("python3"))
    if base not in _CLASSES:
        class MyLexer(base):
            def get_tokens(self, text):
                length = 0
                for ttype, value in super().get_tokens(text):
                    if any(start <= length < end for start, end in self.ranges):
                        ttype = ttype.ExecutingNode
                    length += len(value)
                    yield ttype, value
        _CLASSES[base] = MyLexer
    return _CLASSES[base]


def install() -> None:
    """Where stack_data is 0.6.x (the version whose function this copies) and installed."""
    try:
        import stack_data
        import stack_data.core
    except ImportError:
        return
    if stack_data.__version__.startswith("0.6.") and \
            hasattr(stack_data.core, "_pygmented_with_ranges"):
        stack_data.core._pygmented_with_ranges = pygmented_with_ranges
