"""The notebooks' git clean filter (jxkernel/notebook/workshop/strip.py): a notebook that was run
(outputs, counts, widget state, a kernel's language_info) is, to git diff and commit, the
committed one, and the room's update (`git stash && git pull`, docs/teaching.md) brings the new
version."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from jxkernel.notebook.workshop.strip import strip
import locations  # tests/support: the repository's folders

ROOT = pathlib.Path(locations.ROOT)
TOUR = ROOT / "demos" / "01_tour.ipynb"


def as_run(text: str) -> str:
    """What JupyterLab saves after running every cell of `text` (a committed notebook)."""
    nb = json.loads(text)
    for n, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        cell["execution_count"] = n + 1
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n"]}]
        cell["metadata"]["execution"] = {"iopub.status.idle": "2026-11-25T01:00:00Z"}
    nb["metadata"]["language_info"] = {"name": "python", "version": "3.11.7",
                                       "mimetype": "text/x-python"}
    nb["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return json.dumps(nb, indent=2)


def test_a_run_notebook_strips_to_the_committed_file():
    committed = TOUR.read_text()
    assert strip(committed) == committed
    assert strip(as_run(committed)) == committed


git = shutil.which("git")


@pytest.mark.skipif(git is None, reason="needs git")
def test_git_sees_a_run_notebook_unchanged_and_pull_updates_it(tmp_path):
    def run(*args, cwd):
        done = subprocess.run([git, *args], cwd=cwd, capture_output=True, text=True,
                              env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"))
        assert done.returncode == 0, done.stderr
        return done.stdout

    origin, room = tmp_path / "origin", tmp_path / "room"
    (origin / "demos").mkdir(parents=True)
    shutil.copy(ROOT / ".gitattributes", origin)
    shutil.copy(TOUR, origin / "demos")
    run("init", "-q", "-b", "main", cwd=origin)
    run("add", ".", cwd=origin)
    run("commit", "-q", "-m", "tour", cwd=origin)
    run("clone", "-q", str(origin), str(room), cwd=tmp_path)
    # what scripts/main.sh configures, with this interpreter
    run("config", "filter.jxkernel-strip.clean",
        f"{sys.executable} {ROOT / 'jxkernel/notebook/workshop/strip.py'}", cwd=room)
    run("config", "filter.jxkernel-strip.smudge", "cat", cwd=room)

    notebook = room / "demos" / "01_tour.ipynb"
    notebook.write_text(as_run(notebook.read_text()))           # a participant ran it
    assert run("diff", "--stat", cwd=room) == ""                # git diff: no change

    updated = json.loads(TOUR.read_text())                      # the teacher fixes a cell
    updated["cells"][0]["source"] = "# A tour of jxkernel (updated)\n"
    (origin / "demos" / "01_tour.ipynb").write_text(strip(json.dumps(updated)))
    run("commit", "-q", "-am", "update", cwd=origin)
    # git status still lists it (its size changed, and git trusts sizes), so a plain pull
    # would stop; what docs/teaching.md tells a room does not
    run("stash", "-q", cwd=room)
    run("pull", "-q", "--no-rebase", cwd=room)
    assert "(updated)" in notebook.read_text()


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.notebook.workshop.strip")
