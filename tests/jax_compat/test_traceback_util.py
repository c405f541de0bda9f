"""jxkernel._src.traceback_util (jax._src.traceback_util): api_boundary filters jxkernel's
frames, and those of registered paths, out of the tracebacks that leave it."""
import traceback

import pytest
from fresh_process import run_code

from jxkernel import config
from jxkernel._src import traceback_util as tu


@pytest.fixture
def filtering():
    """Set jax_traceback_filtering for one test: filtering("off")."""
    before = config.jax_traceback_filtering
    yield lambda mode: config.update("jax_traceback_filtering", mode)
    config.update("jax_traceback_filtering", before)


def _files(tb):
    return [f.f_code.co_filename for f, _ in traceback.walk_tb(tb)]


def test_api_boundary_drops_jxkernel_and_registered_frames(tmp_path, monkeypatch, filtering):
    filtering("quiet_remove_frames")
    library = tmp_path / "library.py"
    library.write_text("def inner(f):\n    return f()\n")
    namespace = {}
    exec(compile(library.read_text(), str(library), "exec"), namespace)
    monkeypatch.setattr(tu, "_exclude_paths", list(tu._exclude_paths))
    tu.register_exclusion(str(tmp_path))

    def user():
        raise KeyError("user")

    wrapped = tu.api_boundary(lambda: namespace["inner"](user))
    with pytest.raises(KeyError) as info:
        wrapped()
    files = _files(info.value.__traceback__)
    assert __file__ in files
    assert str(library) not in files and tu.__file__ not in files
    assert "JAX_TRACEBACK_FILTERING=off" in info.value.__notes__[-1]
    assert not tu.include_filename(str(library))
    assert tu.include_filename(__file__)


def test_nested_boundaries_filter_once_and_off_keeps_everything(filtering):
    filtering("quiet_remove_frames")

    def fail():
        raise ValueError("x")

    inner = tu.api_boundary(fail)
    outer = tu.api_boundary(lambda: inner())
    with pytest.raises(ValueError) as info:
        outer()
    assert len(info.value.__notes__) == 1
    filtering("off")
    with pytest.raises(ValueError) as info:
        outer()
    assert tu.__file__ in _files(info.value.__traceback__)
    assert not getattr(info.value, "__notes__", None)


def test_remove_frames_keeps_the_full_traceback_as_cause(filtering):
    filtering("remove_frames")

    def fail():
        raise ValueError("x")

    with pytest.raises(ValueError) as info:
        tu.api_boundary(fail)()
    cause = info.value.__cause__
    assert isinstance(cause, tu.UnfilteredStackTrace) and "ValueError: x" in str(cause)
    assert tu.__file__ in _files(cause.__traceback__)
    with pytest.raises(ValueError, match=r"^new enum value must be in \['off', 'tracebackhide', "
                       r"'remove_frames', 'quiet_remove_frames', 'auto'\], got sometimes"):
        filtering("sometimes")                                  # JAX's words


def test_the_environment_sets_the_mode_at_start_up():
    out = run_code("""
        import jxkernel
        print(jxkernel.config.jax_traceback_filtering)
    """, {"JAX_TRACEBACK_FILTERING": "remove_frames"})
    assert out.stdout.split() == ["remove_frames"]


def test_docstring_examples(filtering):
    from doc_examples import check_docstring_examples
    # the example shows the mode outside IPython; "auto" would pick tracebackhide in a worker
    # where an earlier test started an IPython shell
    filtering("quiet_remove_frames")
    check_docstring_examples("jxkernel._src.traceback_util")
