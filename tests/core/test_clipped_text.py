"""clipped (jxkernel/core/clipped_text.py): a value's text cut to fit a line, the one helper of
the compile log, the recompile explanations, the views and the notebook's notes."""
from doc_examples import check_docstring_examples

from jxkernel.core.clipped_text import clipped
from jxkernel.core.compile_record import _short as static_text
from jxkernel.notebook.display import short_repr


def test_docstring_examples():
    check_docstring_examples("jxkernel.core.clipped_text")


def test_a_cut_text_is_limit_characters_long_its_mark_last():
    for limit in (30, 40, 60):
        assert clipped("x" * 100, limit) == "x" * (limit - 1) + "…"
        assert clipped("x" * 100, limit, "...") == "x" * (limit - 3) + "..."
        assert clipped("x" * limit, limit) == "x" * limit        # at the limit: whole


def test_the_log_and_the_notebook_cut_a_long_repr_on_one_line():
    value = {"w": list(range(40)), "b": "a\n  b"}
    one_line = " ".join(repr(value).split())
    assert static_text(value) == short_repr(value) == one_line[:59] + "…"
    assert static_text(value, limit=500) == one_line
