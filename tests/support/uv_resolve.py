"""What uv would install for a list of requirements, without installing it (tests/release/).

    >>> pinned = resolve(["numpy==2.0.2"], "3.11", tmp_path)      # doctest: +SKIP
    >>> pinned["numpy"]
    '2.0.2'
"""
import re
import subprocess
import sys

import pytest

# what uv prints when no registry answered (then the test skips: it checks the registry, not us)
OFFLINE = re.compile(r"dns error|failed to lookup address|connection refused|timed out|"
                     r"error sending request|network is unreachable", re.I)


def resolve(requirements, python_version, tmp_path) -> dict:
    """{name: version} of `uv pip compile` for manylinux x86_64 and `python_version`: from uv's
    cache first, else from the registry; skips saying why when neither has them."""
    pytest.importorskip("uv")
    wanted = tmp_path / "requirements.in"
    wanted.write_text("\n".join(requirements))
    command = [sys.executable, "-m", "uv", "pip", "compile", "-q", "--python-version",
               python_version, "--python-platform", "x86_64-manylinux_2_35", str(wanted)]
    ran = subprocess.run([*command, "--offline"], capture_output=True, text=True)
    if ran.returncode != 0:
        ran = subprocess.run(command, capture_output=True, text=True)
        if ran.returncode != 0 and OFFLINE.search(ran.stderr):
            pytest.skip(f"no registry answered and uv's cache lacks them: {ran.stderr[-300:]}")
    assert ran.returncode == 0, ran.stderr
    return dict(line.split("==", 1) for line in ran.stdout.splitlines()
                if "==" in line and not line.startswith("#"))
