"""The staleness stamp of the prebuilt extension (jxkernel/labextension/).

The built assets are committed so that installing jxkernel needs no Node. `npm run build`
(and build:prod) end with `python3 stamp.py write`, which records a hash of everything the build
reads; tests/labextension/test_labextension_build.py fails when the sources no longer match that hash, i.e.
someone changed src/, style/ or the package files without rebuilding.

    python3 stamp.py write     record the current sources' hash next to the build output
    python3 stamp.py check     exit 1 (and say why) if the committed build is stale

Standard library only: it runs before any environment is set up.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE.parent / "jxkernel" / "labextension"      # package.json's jupyterlab.outputDir
STAMP = OUTPUT / "sources.json"
SOURCES = ("src", "style", "package.json", "package-lock.json", "tsconfig.json")


def source_files(root: Path = HERE) -> list[Path]:
    files = []
    for name in SOURCES:
        path = root / name
        files.extend(sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir()
                     else [path])
    return files


def sources_hash(root: Path = HERE) -> str:
    """sha256 over (path, content) of every source, line endings normalized (a Windows
    checkout with autocrlf hashes the same)."""
    h = hashlib.sha256()
    for path in source_files(root):
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes().replace(b"\r\n", b"\n")
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def read_stamp(stamp: Path = STAMP) -> dict | None:
    try:
        return json.loads(stamp.read_text())
    except (OSError, ValueError):
        return None


def write(root: Path = HERE, stamp: Path = STAMP) -> str:
    digest = sources_hash(root)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({"sources_sha256": digest, "files": [
        p.relative_to(root).as_posix() for p in source_files(root)]}, indent=1) + "\n")
    return digest


def problem(root: Path = HERE, stamp: Path = STAMP) -> str | None:
    """None when the build matches the sources, else what is wrong."""
    recorded = read_stamp(stamp)
    if recorded is None:
        return f"{stamp} is missing: run `npm run build:prod` in labextension/"
    if not (stamp.parent / "package.json").is_file() or not (stamp.parent / "static").is_dir():
        return f"{stamp.parent} has no built extension: run `npm run build:prod` in labextension/"
    if recorded.get("sources_sha256") != sources_hash(root):
        return ("the prebuilt extension in jxkernel/labextension/ is stale (labextension/ sources "
                "changed since it was built): run `npm ci && npm run build:prod` in labextension/ "
                "and commit jxkernel/labextension/")
    return None


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    if command == "write":
        print(f"stamp {write()} -> {STAMP}")
    elif command == "check":
        why = problem()
        print(why or "prebuilt extension is up to date")
        sys.exit(1 if why else 0)
    else:
        sys.exit(f"usage: {sys.argv[0]} write|check")
