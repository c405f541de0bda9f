"""tests/support/forked_kernel.py: a kernel jupyter_client launches is forked from the server,
runs cells as a fresh kernel, is interrupted and killed through its own process group, and a
kernel asking for another start-up environment is started anew."""
import os
import signal
import sys
import time

import pytest

import forked_kernel
import forked_python
import locations  # tests/support: the repository's folders

pytest.importorskip("ipykernel")
manager = pytest.importorskip("jupyter_client.manager")
pytestmark = pytest.mark.skipif(not forked_python.supported(), reason="no pidfds here")

FACTS = ("import os, sys; print(os.getppid(), os.environ['JPY_PARENT_PID'], "
         "os.getpgid(0) == os.getpid(), "
         "'jxkernel' in sys.modules, 'numpy' in sys.modules, "
         "type(get_ipython().kernel).__name__, os.getcwd(), flush=True)")


def _started(env=None):
    km = manager.KernelManager(kernel_name="python3")
    km.start_kernel(cwd=locations.ROOT, env={**os.environ, **(env or {})})
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    return km, kc


def _stdout(kc, code, timeout=120) -> str:
    out = []
    kc.execute_interactive(code, timeout=timeout,
                           output_hook=lambda m: out.append(m["content"].get("text", "")))
    return "".join(out)


def _gone(pid) -> bool:
    try:
        os.kill(pid, 0)
        return False
    except ProcessLookupError:
        return True


def test_a_kernel_is_forked_runs_cells_and_is_interrupted_and_killed():
    with forked_kernel.kernels_forked():
        km, kc = _started()
    try:
        kernel = km.provisioner.process
        assert isinstance(kernel, forked_kernel.ForkedKernel)
        server = forked_python._servers[forked_kernel.PRELOAD][0]
        # its parent the server, which its parent poller watches (it ends the kernel once its
        # parent is another); a group of its own; nothing of jxkernel's; run from the folder
        assert _stdout(kc, FACTS).split() == [str(server.pid), str(server.pid), "True",
                                              "False", "True",
                                              "IPythonKernel", locations.ROOT]
        kc.execute("import time; time.sleep(60)")
        time.sleep(1.0)
        km.interrupt_kernel()                           # SIGINT to its group
        reply = kc.get_shell_msg(timeout=30)
        assert reply["content"]["ename"] == "KeyboardInterrupt", reply["content"]
        # still running: a value read back on the shell channel (the reply's
        # user_expressions), not from its stdout on IOPub, whose stream came back empty once
        # under a whole run's load after the interrupt (stop 107's fresh clone)
        # ipykernel aborts each request that reaches it before it has finished aborting the
        # queue behind the interrupted one (kernelbase._abort_queues clears its flag on the
        # next turn of its loop, after the error reply): under a whole run's load our next
        # request came in first once (stop 112's CI). A client sends again, as we do here.
        for _ in range(5):
            after = kc.execute_interactive("answer = 6 * 7", user_expressions={"a": "answer"},
                                           timeout=120)["content"]
            if after["status"] != "aborted":
                break
            time.sleep(0.5)
        assert after["status"] == "ok", after
        assert after["user_expressions"]["a"]["data"]["text/plain"] == "42"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)                    # SIGKILL to its group
    assert kernel.returncode == -signal.SIGKILL and _gone(kernel.pid)


def test_another_start_up_environment_starts_a_real_kernel():
    with forked_kernel.kernels_forked():
        km, kc = _started({"JUPYTER_PLATFORM_DIRS": "0" if os.environ.get(
            "JUPYTER_PLATFORM_DIRS") == "1" else "1"})
    try:
        assert not isinstance(km.provisioner.process, forked_kernel.ForkedKernel)
        assert _stdout(kc, "import os; print(os.getppid())") == f"{os.getpid()}\n"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_outside_it_kernels_start_anew():
    km, kc = _started()
    try:
        assert not isinstance(km.provisioner.process, forked_kernel.ForkedKernel)
        assert _stdout(kc, "import sys; print('numpy' in sys.modules)") == "False\n"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert sys.modules["jupyter_client.provisioning.local_provisioner"].launch_kernel \
        .__module__ == "jupyter_client.launcher"
