"""One `jupyter lab` server on localhost for the browser tests (tests/labextension/test_labextension_browser.py).

    with JupyterServer(root_dir, env={"JXKERNEL_CPU_DEVICES": "2"}) as server:
        server.url                       # http://127.0.0.1:PORT/
        server.put_notebook("a.ipynb", cells)
        server.get_json("api/contents/a.ipynb")

No token, no password, no XSRF check, no network (news and update checks off). The server's
config, data, runtime, settings and workspace directories are private temporary folders (the
prefix's own, where jxkernel's extension is installed, still count), so a person's JupyterLab
settings or saved layout change nothing here. `labextensions={name: folder}` serves built
extensions from those folders, ahead of the installed copies (as `jupyter labextension develop`
links them). `kernels={name: env}` adds Python kernels (kernelspecs in the server's data folder)
whose processes see `env` on top of the server's, and `put_notebook(..., kernel=name)` makes a
notebook use one: notebooks that need different device counts (JXKERNEL_CPU_DEVICES, fixed when
a process starts) share one server. Its log goes to `log_path`.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterServer:
    def __init__(self, root_dir: Path, env: dict | None = None, settings: dict | None = None,
                 labextensions: dict | None = None, kernels: dict | None = None,
                 startup_timeout: float = 60.0):
        self.root_dir = Path(root_dir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.extra_env = dict(env or {})
        self.settings = dict(settings or {})   # {"@scope/pkg:plugin": {setting: value}}
        self.labextensions = dict(labextensions or {})   # {name: built extension folder}
        self.kernels = dict(kernels or {})               # {kernelspec name: extra env}
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None
        self.home = self.root_dir.parent / (self.root_dir.name + "-jupyter")
        self.log_path = self.home / "server.log"

    # ---------------------------------------------------------------- lifetime
    def start(self) -> "JupyterServer":
        self.home.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                         ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                         ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"), ("IPYTHONDIR", "ipython")]:
            (self.home / sub).mkdir(exist_ok=True)
            env[var] = str(self.home / sub)
        env.update(self.extra_env)
        # no "is the build up to date" check on each page load (it walks every extension and
        # costs seconds of CPU): the extensions here are prebuilt
        labconfig = self.home / "config" / "labconfig"
        labconfig.mkdir(parents=True, exist_ok=True)
        (labconfig / "page_config.json").write_text(json.dumps({"buildCheck": False,
                                                                "buildAvailable": False}))
        # the server's own data folder first in Jupyter's search path (in a virtualenv the
        # prefix's comes first otherwise), so a link there serves these folders instead of the
        # copies an install put in the environment's prefix
        env["JUPYTER_PREFER_ENV_PATH"] = "0"
        for name, folder in self.labextensions.items():
            link = self.home / "data" / "labextensions" / name
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.is_symlink():
                link.symlink_to(Path(folder).resolve(), target_is_directory=True)
        for name, kernel_env in self.kernels.items():
            spec = self.home / "data" / "kernels" / name / "kernel.json"
            spec.parent.mkdir(parents=True, exist_ok=True)
            spec.write_text(json.dumps({
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": f"Python 3 ({name})", "language": "python",
                "env": {k: str(v) for k, v in kernel_env.items()}}))
        for plugin, values in self.settings.items():
            package, _, name = plugin.partition(":")
            path = self.home / "settings" / package / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser",
               "--ip=127.0.0.1", f"--port={self.port}", "--ServerApp.port_retries=0",
               "--IdentityProvider.token=", "--ServerApp.password=",
               "--ServerApp.disable_check_xsrf=True",
               f"--ServerApp.root_dir={self.root_dir}",
               "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--LabApp.extension_manager=readonly",     # no PyPI queries
               "--ServerApp.terminals_enabled=False"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")             # CI containers run as root
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, cwd=self.root_dir, env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}:\n{self.log()}")
            try:
                self.get_json("api/status")
                return self
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"jupyter lab did not answer /api/status in "
                                   f"{self.startup_timeout:.0f} s:\n{self.log()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            # jupyter_server shuts its kernels down on SIGTERM
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.proc = None
        self._log.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def log(self, tail: int = 6000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except OSError:
            return ""

    # ---------------------------------------------------------------- REST
    def request(self, method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            raw = r.read()
        return json.loads(raw) if raw else None

    def get_json(self, path: str):
        return self.request("GET", path)

    def put_notebook(self, name: str, cells: list[str | dict], kernel: str = "python3") -> str:
        """Creates `name` (a notebook with these code cells, no outputs, run by kernelspec
        `kernel`) via the contents API."""
        nb_cells = []
        for i, cell in enumerate(cells):
            if isinstance(cell, str):
                cell = {"cell_type": "code", "source": cell}
            cell = {"metadata": {}, "id": f"cell-{i}", **cell}
            if cell["cell_type"] == "code":
                cell.setdefault("outputs", [])
                cell.setdefault("execution_count", None)
            nb_cells.append(cell)
        content = {"cells": nb_cells, "nbformat": 4, "nbformat_minor": 5,
                   "metadata": {"kernelspec": {"name": kernel, "language": "python",
                                               "display_name": "Python 3 (ipykernel)"
                                               if kernel == "python3" else f"Python 3 ({kernel})"},
                                "language_info": {"name": "python"}}}
        self.request("PUT", f"api/contents/{name}", {"type": "notebook", "format": "json",
                                                      "content": content})
        return name

    def sessions(self) -> list:
        return self.get_json("api/sessions")
