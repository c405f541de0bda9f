"""Build jxkernel's compiled fast path (jxkernel/core/_fastpath.c) at install.

A hatchling build hook (pyproject.toml: [tool.hatch.build.targets.wheel.hooks.custom]): a
wheel gets the extension for this interpreter (and a platform tag), an editable install
(`uv pip install -e .`, as scripts/test.sh does) gets it beside its source in the checkout.
Where it cannot be built (no C compiler, no Python.h, Windows, a free-threaded Python) or
JXKERNEL_FASTPATH=0 is set, the hook says so and the install goes on pure Python: jxkernel
then runs its Python paths, and `python -m jxkernel` says the fast path is off and why.

Run by hand after editing the C file, for a checkout installed in editable mode:

    python hatch_build.py          # builds jxkernel/core/_fastpath<EXT_SUFFIX> in place
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:            # run as a script, or read by the tests, without hatchling
    BuildHookInterface = object

ROOT = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join("jxkernel", "core", "_fastpath.c")
PACKAGE = "jxkernel/core"          # where the extension goes
# CPython's own build uses -Wextra with these two off: a C-API function's unused `self` or
# `kwds` is the API's shape, and {NULL} ends a table
WARNINGS = ["-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"]


class CannotBuild(Exception):
    """Why the extension is not built here (the install goes on without it)."""


def source_sha256(root: str = ROOT) -> str:
    with open(os.path.join(root, SOURCE), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def extension_name() -> str:
    """`_fastpath.cpython-311-x86_64-linux-gnu.so` for this interpreter."""
    return "_fastpath" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def compiler() -> list:
    """The interpreter's C compiler (sysconfig's CC, as setuptools uses), else cc/gcc/clang."""
    configured = shlex.split(sysconfig.get_config_var("CC") or "")
    if configured and shutil.which(configured[0]):
        return configured
    for cc in ("cc", "gcc", "clang"):
        found = shutil.which(cc)
        if found:
            return [found]
    raise CannotBuild("no C compiler found (sysconfig's CC "
                      f"{sysconfig.get_config_var('CC')!r}, cc, gcc, clang)")


def build_command(output: str, root: str = ROOT, extra=()) -> list:
    """The compiler line that builds the extension into `output`."""
    if sys.platform == "win32":
        raise CannotBuild("not built on Windows (the Python path runs)")
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        raise CannotBuild("not built for a free-threaded Python: its C assumes the GIL")
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        raise CannotBuild(f"no Python.h in {include} (install Python's development headers)")
    link = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else \
        ["-shared"]
    return [*compiler(), "-O2", "-fPIC", *WARNINGS, *extra, f"-I{include}",
            f'-DJXKERNEL_FASTPATH_SHA256="{source_sha256(root)}"', *link,
            os.path.join(root, SOURCE), "-o", output]


def build(output: str, root: str = ROOT, extra=()) -> str:
    """Compile the extension into `output` (through a temporary file, so that a process
    importing it meanwhile sees the old file or the new one whole); returns the compiler's
    warnings (empty when there are none)."""
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=os.path.dirname(output) or ".")
    os.close(fd)
    try:
        cmd = build_command(tmp, root, extra)
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise CannotBuild(f"{cmd[0]} did not run: {e}") from None
        if done.returncode:
            raise CannotBuild(f"{shlex.join(cmd)} failed:\n{done.stderr[-3000:]}")
        os.replace(tmp, output)
        return done.stderr
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _say(message: str) -> None:
    print(f"jxkernel fast path: {message}", file=sys.stderr)


class FastPathHook(BuildHookInterface):
    """Puts the compiled fast path into the wheel (or, editable, beside its source)."""
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data) -> None:
        if self.target_name != "wheel":
            return
        if os.environ.get("JXKERNEL_FASTPATH", "1").strip().lower() in ("0", "false", "no",
                                                                        "off"):
            _say("not built (JXKERNEL_FASTPATH=0); the Python path runs")
            return
        editable = version == "editable"
        where = os.path.join(self.root, *PACKAGE.split("/")) if editable else \
            tempfile.mkdtemp(prefix="jxkernel-fastpath-")
        output = os.path.join(where, extension_name())
        try:
            warnings = build(output, self.root)
        except CannotBuild as e:
            _say(f"not built ({e}); jxkernel runs its Python path instead")
            return
        if warnings:
            _say(f"built with compiler warnings:\n{warnings}")
        # tagged for this Python and platform, editable too: else an installer that caches
        # builds (uv) reuses a py3-none-any editable wheel for another Python, whose
        # extension the hook then never builds
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if not editable:        # (an editable install finds it in the checkout)
            build_data["force_include"][output] = f"{PACKAGE}/{extension_name()}"
            self._built_in = where

    def finalize(self, version, build_data, artifact_path) -> None:
        built_in = getattr(self, "_built_in", None)
        if built_in is not None:              # the wheel holds its copy now
            shutil.rmtree(built_in, ignore_errors=True)


if __name__ == "__main__":
    target = os.path.join(ROOT, *PACKAGE.split("/"), extension_name())
    try:
        print(build(target) or "", end="")
    except CannotBuild as e:
        sys.exit(f"jxkernel fast path: not built: {e}")
    print(f"built {os.path.relpath(target, ROOT)}")
