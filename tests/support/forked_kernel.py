"""ipykernel's kernels for nbclient and jupyter_client, forked from a Python that has imported
NumPy, ml_dtypes and ipykernel (tests/support/forked_python.py's server with those), instead
of started anew: each of those imports is the same in every kernel, and was most of one's
fixed CPU (ml_dtypes 0.8 s, ipykernel and IPython 0.4 s of about 2 s before the first cell).

    with kernels_forked():          # around NotebookClient(...).execute() or running_kernel()
        ...

Within it, jupyter_client's launch of `python -m ipykernel_launcher ...` (the `python3`
kernel's command) forks it from the server; any other command, or an environment asking for
what the server's start fixed (forked_python's start-up variables, JUPYTER* and IPYTHON*, or
another sitecustomize), is started anew as before. What the kernel runs is a fresh kernel's
(nothing of jxkernel's is imported, and no kernel or shell exists in the server): it gets its
own environment, folder, argv, stdin/stdout/stderr and process group (which jupyter_client
signals to interrupt and to kill it), and its parent poller watches the server, which exits
with the test process.
"""
import contextlib
import os
import select
import signal
import subprocess
import sys
import time

import forked_python  # tests/support

PRELOAD = ("numpy", "ml_dtypes", "ipykernel.kernelapp", "ipykernel.ipkernel")
AT_START = ("JUPYTER", "IPYTHON")      # read as IPython and jupyter_core import: the server's


class ForkedKernel:
    """What jupyter_client's LocalProvisioner uses of the Popen it launched: pid, poll, wait,
    send_signal, terminate and kill. The status comes from the fork server (the child's
    parent), on the connection `start` opened."""

    def __init__(self, args, conn, pid):
        self.args, self.pid, self.returncode = args, pid, None
        self._conn = conn
        self.stdin = self.stdout = self.stderr = None

    def poll(self):
        if self.returncode is None and select.select([self._conn], [], [], 0)[0]:
            self._read_status()
        return self.returncode

    def wait(self, timeout=None):
        if self.returncode is None:
            if not select.select([self._conn], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._read_status()
        return self.returncode

    def _read_status(self):
        try:
            status = forked_python._reply(self._conn)["status"]
            self.returncode = os.waitstatus_to_exitcode(status)
        except (ConnectionError, OSError):       # the server is gone, and the child with it
            self.returncode = -signal.SIGKILL
        self._conn.close()

    def send_signal(self, sig):
        if self.returncode is None:               # (once reaped, its pid may be another's)
            os.kill(self.pid, sig)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


def _is_ipykernel(cmd) -> bool:
    return len(cmd) >= 3 and os.path.realpath(cmd[0]) == os.path.realpath(sys.executable) \
        and cmd[1:3] == ["-m", "ipykernel_launcher"]


def launch(original, cmd, stdin=None, stdout=None, stderr=None, env=None, cwd=None,
           independent=False, **kwargs):
    """jupyter_client.launcher.launch_kernel's signature: a ForkedKernel for ipykernel's
    command, else what `original` (the real launch_kernel) starts."""
    env = dict(os.environ if env is None else env)
    if not _is_ipykernel(cmd) or independent or kwargs or not forked_python.supported() \
            or any(s not in (None, subprocess.PIPE) for s in (stdin, stdout, stderr)):
        return original(cmd, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd,
                        independent=independent, **kwargs)
    server = forked_python._ensure_server(PRELOAD)
    if server is None:
        return original(cmd, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd,
                        independent=independent, **kwargs)
    # ipykernel's parent poller ends the kernel when its parent is not JPY_PARENT_PID: the
    # forked kernel's parent is the server (which exits with this process, stdin closed)
    env["JPY_PARENT_PID"] = str(server[0].pid)
    with open(os.devnull, "rb") as devnull:
        fds = [devnull.fileno(), 1, 2]   # (as Popen's inherited stdout and stderr)
        started = forked_python.start(cmd[1:], cwd or os.getcwd(), env, fds, PRELOAD,
                                      AT_START)
    if started is None:
        return original(cmd, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd,
                        independent=independent, **kwargs)
    conn, pid = started
    kernel = ForkedKernel(cmd, conn, pid)
    # jupyter_client reads the kernel's process group as it returns, to signal the group: the
    # child's own once it has called setsid, not the server's (this process's own group)
    deadline = time.monotonic() + 30
    while _group(pid) != pid and kernel.poll() is None:
        if time.monotonic() > deadline:
            kernel.kill()
            raise RuntimeError(f"the forked kernel {pid} made no process group of its own")
        time.sleep(0.001)
    return kernel


def _group(pid):
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


@contextlib.contextmanager
def kernels_forked():
    """Within it, ipykernel's kernels that jupyter_client launches are forked (above)."""
    from jupyter_client.provisioning import local_provisioner
    original = local_provisioner.launch_kernel
    local_provisioner.launch_kernel = lambda cmd, **kw: launch(original, cmd, **kw)
    try:
        yield
    finally:
        local_provisioner.launch_kernel = original
