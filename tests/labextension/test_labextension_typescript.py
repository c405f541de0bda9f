"""The extension's TypeScript unit tests (labextension/test/*.test.ts, vitest): the bundle
checks, the views' pure functions, every view drawing the kernel's bundles (jsdom) and the comm
kept off kernel subshells with JupyterLab's own comm class (connection.test.ts), after
`node scripts/gen-protocol.mjs --check` (the generated protocol types are what the schema gives).
`npm test` in labextension/ runs the same; it needs Node >= 18 and the packages of
package-lock.json (`cd labextension && npm ci`), and this test skips, saying which, without them.
"""
import os
import shutil
import subprocess
from pathlib import Path

import locations
import pytest

LAB = Path(locations.ROOT) / "labextension"


def test_typescript_unit_tests_pass():
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node/npm are not on PATH")
    if not (LAB / "node_modules" / ".bin" / "vitest").exists():
        pytest.skip("labextension/node_modules has no vitest: run `cd labextension && npm ci`")
    env = dict(os.environ, CI="1", NO_COLOR="1")        # CI: vitest runs once, plain output
    done = subprocess.run([npm, "test", "--silent"], cwd=LAB, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert " failed" not in done.stdout and "passed" in done.stdout, done.stdout[-3000:]
