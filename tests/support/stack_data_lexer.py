"""IPython's tracebacks colour each frame's source lines with stack_data, and stack_data 0.6.3
makes a new pygments lexer class for every frame it colours (`_pygmented_with_ranges`'s
`MyLexer`, whose only change is marking the executing node's tokens). pygments compiles a
lexer class's regular expressions when its first instance is made, ~2,500 of them for
Python's: each frame of each traceback paid for that again, a fifth of the CPU of
tests/notebook/test_learner_mistakes.py (252 tests, ~250 tracebacks). `install()` (from
tests/conftest.py, in the test processes only) puts in its place the same function with one
class, the ranges given to each instance: the same tokens, so the same text and colours
(tests/support/test_stack_data_lexer.py compares the two).

Each traceback also made a new pygments style (ultratb's `stack_data.style_with_executing_node`
of the theme's one style) and a Terminal256Formatter for it, whose `_setup_styles` matched
every token colour of the style to the 256 terminal colours again: ~3.6 ms a traceback, 6 % of
test_learner_mistakes.py's CPU. `install()` makes the style once per (style, modifier) and
keeps each formatter set-up's colours by (style, bold, underline, italic): the same escape
sequences, computed once.
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
    if stack_data.__version__.startswith("0.6.") and \
            getattr(stack_data.style_with_executing_node, "__module__", None) == \
            "stack_data.core":
        _STYLE_MAKERS.append(stack_data.style_with_executing_node)
        stack_data.style_with_executing_node = style_with_executing_node
        stack_data.core.style_with_executing_node = style_with_executing_node
    try:
        from pygments.formatters.terminal256 import Terminal256Formatter
    except ImportError:
        return
    if not hasattr(Terminal256Formatter._setup_styles, "remembered"):
        Terminal256Formatter._setup_styles = _remembered_setup(
            Terminal256Formatter, Terminal256Formatter._setup_styles)


_STYLE_MAKERS: list = []           # stack_data's own function, once installed
_STYLES: dict = {}


def style_with_executing_node(style, modifier):
    """stack_data.style_with_executing_node, its class made once per (style, modifier): the
    style (IPython's theme's, made once per theme) and the modifier are all it is made of."""
    try:
        return _STYLES[style, modifier]
    except KeyError:
        made = _STYLES[style, modifier] = _STYLE_MAKERS[0](style, modifier)
        return made
    except TypeError:                  # (unhashable: a style given as something else)
        return _STYLE_MAKERS[0](style, modifier)


_SET_UP: dict = {}


def _remembered_setup(cls, setup):
    """Terminal256Formatter._setup_styles, its result (the escape sequences of each token
    type, and the colours matched on the way) kept by what it reads: the style and the bold,
    underline and italic options (the 256-colour table is the same for every formatter)."""
    def _setup_styles(self):
        if type(self) is not cls:      # (a subclass may build another colour table)
            return setup(self)
        key = (self.style, self.usebold, self.useunderline, self.useitalic)
        if key not in _SET_UP:
            setup(self)
            _SET_UP[key] = (dict(self.style_string), dict(self.best_match))
        style_string, best_match = _SET_UP[key]
        self.style_string.update(style_string)
        self.best_match.update(best_match)
    _setup_styles.remembered = True
    _setup_styles.__wrapped__ = setup            # (the test compares the two)
    return _setup_styles
