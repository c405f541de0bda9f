"""The prebuilt JupyterLab extension (jxkernel/labextension/, committed so installing needs no
Node) is built from the current labextension/ sources: labextension/stamp.py hashes them at build
time, and a mismatch means someone changed the TypeScript/CSS/package files without rebuilding.

With JXKERNEL_REBUILD_LABEXTENSION=1 and npm on PATH (and jupyterlab in the environment), the
extension is also rebuilt from scratch (`npm ci && npm run build:prod`, which rewrites
jxkernel/labextension/) and checked again.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import locations  # tests/support: the repository's folders

ROOT = Path(locations.ROOT)
LAB = ROOT / "labextension"


def _stamp():
    spec = importlib.util.spec_from_file_location("jxkernel_labextension_stamp", LAB / "stamp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check_build(stamp):
    why = stamp.problem()
    assert why is None, why
    built = json.loads((stamp.OUTPUT / "package.json").read_text())
    assert built["name"] == json.loads((LAB / "package.json").read_text())["name"]
    load = built["jupyterlab"]["_build"]["load"]
    assert (stamp.OUTPUT / load).is_file(), f"{load} is not in {stamp.OUTPUT}"
    assert {"extension", "mimeExtension", "style"} <= set(built["jupyterlab"]["_build"])


def test_prebuilt_labextension_matches_its_sources():
    _check_build(_stamp())


def test_stamp_changes_with_the_sources(tmp_path):
    stamp = _stamp()
    copy = tmp_path / "labextension"
    for name in stamp.SOURCES:
        src = LAB / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, copy / name)
    assert stamp.sources_hash(copy) == stamp.sources_hash(LAB)
    (copy / "src" / "index.ts").write_text((copy / "src" / "index.ts").read_text() + "\n// x\n")
    assert stamp.sources_hash(copy) != stamp.sources_hash(LAB)


@pytest.mark.skipif(os.environ.get("JXKERNEL_REBUILD_LABEXTENSION") != "1",
                    reason="set JXKERNEL_REBUILD_LABEXTENSION=1 to rebuild the extension")
def test_rebuild_labextension():
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not on PATH")
    env = dict(os.environ)
    # `jupyter labextension build` must come from this environment's jupyterlab
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    for args in (["ci", "--no-audit", "--no-fund"], ["run", "build:prod"]):
        subprocess.run([npm, *args], cwd=LAB, env=env, check=True, timeout=600)
    _check_build(_stamp())
