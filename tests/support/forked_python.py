"""`python -c CODE` and `python -m MODULE` for fresh_process, forked from a Python that has
imported NumPy and ml_dtypes already, instead of started anew.

Every fresh interpreter the suite starts imports jxkernel, whose import is mostly NumPy's and
ml_dtypes' (0.53 s of ml_dtypes 0.7.0's 0.8 s of CPU: NumPy compares each ufunc loop it
registers with every loop the ufunc has; OpenBLAS's threads spin a while after NumPy loads);
with ~180 such children a run, that was ~120 s of the suite's CPU. A child forked from this
server starts with those two imported and nothing of jxkernel's, so what it checks (a device
count, the environment jxkernel reads as it imports, the caches, what it prints) is a fresh
jxkernel's. It gets its own environment, working folder, sys.path (as `python -c` builds it
from PYTHONPATH), argv, `__main__`, stdin/stdout/stderr and process group, and
exits as an interpreter does (atexit, finalization), its status the test's to read.

multiprocessing's forkserver is not used: it runs a pickled function in a child that skips
atexit and keeps the server's `__main__`, stdin and argv, where a test wants `python -c`.

What it cannot give, the caller runs as a real process (`run` answers None): other start-up
variables (PYTHON*, LD_*, locale, the BLAS's and NumPy's own), another sitecustomize first on
PYTHONPATH (test_workshop's machine without jaxlib), other arguments than -c/-m, or a
system without pidfds (`supported`: Linux 5.3+, where a container allows the call).
(fresh_process starts every child anew under JXKERNEL_TEST_FORK=0.)
A child whose code puts a finder on sys.meta_path that refuses NumPy or ml_dtypes (a machine
without ml_dtypes, as Pyodide's) stops there, and `run` runs it again as a real process: the
server imported them already, so the finder could not take effect.

>>> run(["-c", "import sys; print(sys.argv)"], ".", dict(os.environ)).stdout  # doctest: +SKIP
"['-c']\\n"
"""
import atexit
import functools
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import warnings

# start-up variables: read by the interpreter, the C library, NumPy or its BLAS as they start
# (in the server already), so a child that asks for other values is a real process
_AT_START = ("PYTHON", "LD_", "MALLOC", "OPENBLAS", "GOTO", "OMP_", "MKL_", "NPY", "NUMPY",
             "LANG", "LC_", "JXKERNEL_AS_JAX")    # (the last: read by jxkernel's .pth hook)
_PRELOAD = ("numpy", "ml_dtypes")
_LENGTH = struct.Struct("!Q")
_REFUSED = 86                 # a forked child's status: its code blocks a preloaded module

_servers = {}   # preload -> (Popen, socket path, the environment it started with); False: failed
_preloaded = _PRELOAD         # (in a server and its children: what that server imported)


def run(args, cwd, env, timeout=None):
    """`python ARGS` in `cwd` with the environment `env`, forked from the server: a
    subprocess.CompletedProcess (stdout and stderr text), as subprocess.run with
    capture_output=True and text=True gives; None where a real process is needed (above)."""
    if not _servable(args):
        return None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(os.devnull, "rb") as stdin:
        started = start(args, cwd, env, [stdin.fileno(), out.fileno(), err.fileno()])
        if started is None:
            return None
        conn, pid = started
        conn.settimeout(timeout)
        try:
            status = _reply(conn)["status"]
        except TimeoutError:
            _kill(pid)
            conn.settimeout(None)
            _reply(conn)                        # the server has reaped it
            raise subprocess.TimeoutExpired([sys.executable, *args], timeout,
                                            _text(out), _text(err)) from None
        finally:
            conn.close()
        code = os.waitstatus_to_exitcode(status)
        if code == _REFUSED and _text(err).startswith("forked_python: "):
            return None                         # (its finder needs a real process)
        return subprocess.CompletedProcess([sys.executable, *args], code, _text(out),
                                           _text(err))


def start(args, cwd, env, fds, preload=_PRELOAD, at_start=()):
    """Fork `python ARGS` from the server that imported `preload`, its stdin, stdout and
    stderr the three file descriptors `fds`: (the connection on which the server's next line
    is its status, `{"status": ...}` as os.waitpid gives it; the child's pid), or None where a
    real process is needed (`at_start`: more prefixes of start-up variables, as `_AT_START`).
    The connection is the caller's to close."""
    server = _ensure_server(tuple(preload))
    if server is None or _differs_at_start(env, server[2], at_start):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(server[1])
        body = json.dumps({"args": list(args), "cwd": os.path.abspath(cwd),
                           "env": dict(env)}).encode()
        socket.send_fds(conn, [_LENGTH.pack(len(body)) + body], list(fds))
        return conn, _reply(conn)["pid"]
    except BaseException:
        conn.close()
        raise


def _reply(conn) -> dict:
    """The server's next line (a JSON object): read a byte at a time, so that a timeout
    leaves nothing half-read."""
    line = b""
    while not line.endswith(b"\n"):
        byte = conn.recv(1)
        if not byte:
            raise ConnectionError("the fork server closed the connection")
        line += byte
    return json.loads(line)


def _servable(args) -> bool:
    return len(args) >= 2 and args[0] in ("-c", "-m") and supported()


@functools.cache
def supported() -> bool:
    """Whether this system gives pidfds, which the server waits on (os.pidfd_open: Linux 5.3+;
    a container's seccomp profile may refuse the call even there)."""
    try:
        os.close(os.pidfd_open(os.getpid()))
        return True
    except (AttributeError, OSError):
        return False


def _differs_at_start(env, started_with, at_start=()) -> bool:
    """Whether `env` asks for what the server's start fixed otherwise: a start-up variable,
    or another sitecustomize first on PYTHONPATH."""
    prefixes = _AT_START + tuple(at_start)
    names = {n for n in (*env, *started_with) if n.startswith(prefixes) and n != "PYTHONPATH"}
    return any(env.get(n) != started_with.get(n) for n in names) or \
        _sitecustomize(env.get("PYTHONPATH", "")) != \
        _sitecustomize(started_with.get("PYTHONPATH", ""))


def _sitecustomize(pythonpath):
    """The sitecustomize.py an interpreter with this PYTHONPATH runs, if one is on it."""
    for folder in filter(None, pythonpath.split(os.pathsep)):
        path = os.path.join(os.path.abspath(folder), "sitecustomize.py")
        if os.path.exists(path):
            return path
    return None


def _text(file) -> str:
    """What the child wrote, read as subprocess's text mode reads a pipe (universal
    newlines)."""
    file.seek(0)
    data = file.read().decode(errors="strict")
    return data.replace("\r\n", "\n").replace("\r", "\n")


def _kill(pid):
    try:
        os.killpg(pid, signal.SIGKILL)          # the child leads its own group (setsid)
    except ProcessLookupError:
        pass


def _ensure_server(preload=_PRELOAD):
    """The running server that imported `preload`, started on first use; None where it could
    not start (then never tried again in this process: each try would cost a start)."""
    server = _servers.get(preload)
    if server is False or server is not None and server[0].poll() is None:
        return server or None
    folder = tempfile.mkdtemp(prefix="jxk-fork-")
    path = os.path.join(folder, "server")
    env = dict(os.environ)
    process = subprocess.Popen([sys.executable, os.path.abspath(__file__), path, *preload],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env,
                               cwd=folder)
    if not _wait_for(path, process):
        process.kill()
        shutil.rmtree(folder, ignore_errors=True)
        _servers[preload] = False
        return None
    _servers[preload] = server = (process, path, env)
    atexit.register(_stop, process, folder)
    return server


def _wait_for(path, process, seconds=60.0) -> bool:
    """Whether the server listens at `path` (it has imported NumPy and ml_dtypes)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if process.poll() is not None:
            return False
        if os.path.exists(path):
            return True
        time.sleep(0.01)
    return False


def _stop(process, folder):
    """The server reads stdin to its end, removes its folder and exits: closing it is its
    stop."""
    try:
        process.stdin.close()
        process.wait(timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        process.kill()
        shutil.rmtree(folder, ignore_errors=True)


# ---- the server's side ----------------------------------------------------------------------

def _serve(path, preload):
    """Fork a child per request until stdin closes; return (request, fds) in a child."""
    global _preloaded
    _preloaded = tuple(preload)
    for name in _preloaded:
        __import__(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)               # the requester waits for this name
    children = {}                               # pidfd -> (pid, connection)
    while True:
        ready, _, _ = select.select([listener, sys.stdin, *children], [], [])
        for source in ready:
            if source is sys.stdin:
                # the test process is gone (an xdist worker ends with os._exit, so this, not
                # its atexit, is how the server learns it): its folder goes with it
                if not os.read(sys.stdin.fileno(), 4096):
                    shutil.rmtree(os.path.dirname(path), ignore_errors=True)
                    return None
            elif source is listener:
                conn, _ = listener.accept()
                request, fds = _receive(conn)
                sys.stdout.flush(), sys.stderr.flush()
                with warnings.catch_warnings():
                    # Python 3.12+ warns of a fork in a process with threads (OpenBLAS's
                    # here); the child has none of them, and its own filters stay as they were
                    warnings.simplefilter("ignore", DeprecationWarning)
                    pid = os.fork()
                if pid == 0:
                    listener.close(), conn.close()
                    for pidfd in children:
                        os.close(pidfd)
                    return request, fds
                for fd in fds:
                    os.close(fd)
                children[os.pidfd_open(pid)] = (pid, conn)
                conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            else:
                pid, conn = children.pop(source)
                os.close(source)
                _, status = os.waitpid(pid, 0)
                try:
                    conn.sendall(json.dumps({"status": status}).encode() + b"\n")
                except OSError:
                    pass
                conn.close()


def _receive(conn):
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    (length,) = _LENGTH.unpack(data[:_LENGTH.size])
    data = data[_LENGTH.size:]
    while len(data) < length:
        data += conn.recv(length - len(data))
    return json.loads(data), fds


def _become(request, fds):
    """This forked child made what `python ARGS` started in the request's folder would be."""
    os.setsid()
    for target, fd in zip((0, 1, 2), fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    server_path = os.environ.get("PYTHONPATH", "")
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[:] = _child_sys_path(sys.path, server_path, request)
    sys.argv = list(request["args"][1:]) if request["args"][0] == "-m" else \
        ["-c", *request["args"][2:]]
    # no seed to renew: `random` reseeds itself in a forked child (os.register_at_fork), and
    # numpy.random is not imported by the server (test_forked_python checks it)
    sys.meta_path = _MetaPath(sys.meta_path)


class _MetaPath(list):
    """A forked child's sys.meta_path: a finder put on it that refuses a module the server
    imported cannot take effect (the module is loaded already), so the child stops there with
    status _REFUSED, and the requester starts it as a real process instead."""

    def insert(self, index, finder):
        _refused_by(finder)
        super().insert(index, finder)

    def append(self, finder):
        _refused_by(finder)
        super().append(finder)


def _refused_by(finder):
    for name in _preloaded:
        try:
            finder.find_spec(name, None)
        except ImportError:
            sys.stderr.write(f"forked_python: the code blocks {name}, imported by the server\n")
            sys.stderr.flush()
            os._exit(_REFUSED)


def _child_sys_path(path, server_pythonpath, request):
    """sys.path as the interpreter builds it for `-c` ('' first) or `-m` (the working folder
    first), then PYTHONPATH's folders, then the installation's (the server's, without its own
    first entry and PYTHONPATH)."""
    own = {os.path.abspath(p) for p in filter(None, server_pythonpath.split(os.pathsep))}
    own.add(os.path.dirname(os.path.abspath(__file__)))     # the server's script's folder
    rest = [p for p in path if p and os.path.abspath(p) not in own]
    wanted = [os.path.abspath(p) for p in
              filter(None, request["env"].get("PYTHONPATH", "").split(os.pathsep))]
    first = "" if request["args"][0] == "-c" else request["cwd"]
    seen, result = set(), []
    for entry in [first, *wanted, *rest]:
        if entry not in seen:
            seen.add(entry)
            result.append(entry)
    return result


def _run_child(request) -> int:
    """Run the request's code as `__main__`; its exit status, the traceback printed as the
    interpreter prints an uncaught error."""
    import types
    try:
        if request["args"][0] == "-m":
            import runpy
            runpy._run_module_as_main(request["args"][1])    # what `python -m` runs
        else:
            main = types.ModuleType("__main__")
            sys.modules["__main__"] = main
            source = request["args"][1]
            if sys.version_info >= (3, 13):     # its `-c` keeps the source for tracebacks
                import linecache
                linecache.cache["<string>"] = (len(source), None, [
                    line + "\n" for line in source.splitlines()], "<string>")
            exec(compile(source, "<string>", "exec"), main.__dict__)
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        print(e.code, file=sys.stderr)
        return 1
    except BaseException as e:                  # printed without this frame, as Python does
        e.__traceback__ = e.__traceback__.tb_next
        sys.excepthook(type(e), e, e.__traceback__)
        return 1
    return 0


if __name__ == "__main__":
    served = _serve(sys.argv[1], sys.argv[2:])
    if served is not None:                      # a child: run, then exit as Python does
        request, fds = served
        _become(request, fds)
        raise SystemExit(_run_child(request))
