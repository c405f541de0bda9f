"""tests/support/stack_data_lexer.py: IPython's tracebacks in the test processes colour frames
as stack_data does, with one lexer class."""
import pytest

stack_data = pytest.importorskip("stack_data")

import stack_data_lexer  # tests/support


def test_frames_are_coloured_as_stack_datas_own_function_colours_them():
    import stack_data.core
    import stack_data.utils
    from pygments.formatters.terminal256 import Terminal256Formatter
    from pygments.styles import get_style_by_name
    assert stack_data.core._pygmented_with_ranges is stack_data_lexer.pygmented_with_ranges
    formatter = Terminal256Formatter(style=stack_data.style_with_executing_node(
        get_style_by_name("default"), "bg:ansiyellow"))
    code = "def f(x):\n    y = {'a': x}\n    return y['b'] + 1  # the line\n"
    for ranges in ([], [(33, 39)], [(0, 3), (45, 51)]):
        assert stack_data_lexer.pygmented_with_ranges(formatter, code, ranges) == \
            stack_data.utils._pygmented_with_ranges(formatter, code, ranges), ranges
    assert len(stack_data_lexer._CLASSES) == 1


def test_an_ipython_traceback_makes_no_lexer_class():
    """Two tracebacks of a cell's error colour their frames with the one class (stack_data's
    own function made one per frame)."""
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from pygments.lexer import RegexLexerMeta
    made = []
    process = RegexLexerMeta.process_tokendef
    try:
        RegexLexerMeta.process_tokendef = lambda cls, *a, **k: made.append(cls) or \
            process(cls, *a, **k)
        shell = InteractiveShell.instance()
        for _ in range(2):
            with capture_output():
                assert not shell.run_cell("def g():\n    return {}['b']\ng()").success
    finally:
        RegexLexerMeta.process_tokendef = process
    assert [c for c in made if c.__name__ == "MyLexer" and
            c not in stack_data_lexer._CLASSES.values()] == []


def test_styles_and_formatters_are_made_once_with_the_same_escape_sequences():
    """The style of the executing node, made once per (style, modifier), holds what stack_data's
    own function makes; a formatter's escape sequences, kept from the first one set up for the
    style, are those a formatter set up afresh computes (with bold off too)."""
    import stack_data.core
    from pygments.formatters.terminal256 import Terminal256Formatter
    from pygments.styles import get_style_by_name
    assert stack_data.style_with_executing_node is stack_data_lexer.style_with_executing_node
    base = get_style_by_name("default")
    own = stack_data_lexer._STYLE_MAKERS[0](base, "bg:ansiyellow")
    style = stack_data.style_with_executing_node(base, "bg:ansiyellow")
    assert style is stack_data.style_with_executing_node(base, "bg:ansiyellow")
    assert style is not own and style.styles == own.styles
    setup = Terminal256Formatter._setup_styles
    assert setup.remembered
    for options in ({}, {"nobold": True}):
        kept = [Terminal256Formatter(style=style, **options) for _ in range(2)]
        try:
            Terminal256Formatter._setup_styles = setup.__wrapped__
            afresh = Terminal256Formatter(style=style, **options)
        finally:
            Terminal256Formatter._setup_styles = setup
        for formatter in kept:
            assert formatter.style_string == afresh.style_string, options
            assert formatter.best_match == afresh.best_match, options
    assert Terminal256Formatter(style=style).style_string is not kept[0].style_string
