"""views/signature_changes/made_once.py reads a learner's file once per text: every compile
of a jit made anew (one per pass of a loop) asks which names the file rebinds, and parsing a
file of 1,000 lines at each of them was a fifth of tests/core/test_numpy_eval.py's CPU."""
import ast
import linecache

from jxkernel.views.signature_changes import made_once


def test_a_files_rebound_names_are_parsed_once_per_text(tmp_path, monkeypatch):
    file = tmp_path / "learner.py"
    # (the folder's name in a comment: a text no other test parsed before)
    file.write_text(f"# {tmp_path}\nfor fn in fs:\n    g = fn\ndel h\n")
    linecache.checkcache(str(file))
    parses = []
    parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: parses.append(text) or
                        parse(text, *a, **k))
    assert made_once._rebound(str(file)) == {"fn", "g", "h"}
    assert made_once._rebound(str(file)) == {"fn", "g", "h"}
    assert len(parses) == 1
    file.write_text(f"# {tmp_path}\nk = 1\n")           # the file changed: read again
    linecache.checkcache(str(file))
    assert made_once._rebound(str(file)) == {"k"}
    assert len(parses) == 2
