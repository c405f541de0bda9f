"""Run every conformance program with ``jax`` aliased to jxkernel and compare with JAX.

    python -m conformance.run                 # table of results; exit 1 on a surprise
    python -m conformance.run 05_lax 12_cond  # only these programs
    python -m conformance.run --report        # also rewrite conformance/README.md
    python -m conformance.run --json out.json # also write the results as JSON
    python -m conformance.run --backend numpy # on the NumPy backend (JAX_PLATFORMS=numpy)
                                              # (by default: the one JAX_PLATFORMS names)
    python -m conformance.run --compiler-options '{"xla_cpu_use_fusion_emitters": false}'
                                              # XLA options every compile starts from

Programs run in one worker process per device count (``# conformance: devices=4`` in a
program's header), in sequence, each in a fresh namespace; the options changed by a
program (``jax_enable_x64``, ...) are put back after it. A surprise is a program that
fails and is not in ``known_failures.py``, or one listed there that passes (on the NumPy
backend, KNOWN_FAILURES and NUMPY_BACKEND_DIFFERENCES together).
"""
import json
import os
import subprocess
import sys
import time

from conformance import capture, compare
from conformance.known_failures import KNOWN_FAILURES, NUMPY_BACKEND_DIFFERENCES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "conformance", "README.md")


def install_alias():
    """`import jax` gives jxkernel from here on (jxkernel.as_jax, the users' own alias)."""
    import jxkernel
    jxkernel.install_as_jax()


def _config_snapshot():
    from jxkernel import config
    return config, dict(config.values())


def _restore(config, before):
    for name, value in before.items():
        if config.values().get(name) != value:
            try:
                config.update(name, value)
            except Exception:   # noqa: BLE001 -- options fixed after start stay as they are
                pass


def run_one(name, compiler_options=None):
    """{"name", "status": pass | fail | error | no-reference, "reason", "seconds"}.
    `compiler_options`: the XLA options the worker's compiles start from (see `worker`)."""
    expected_path = os.path.join(capture.EXPECTED, name + ".json")
    if not os.path.exists(expected_path):
        return {"name": name, "status": "no-reference", "reason": "no recorded JAX output",
                "seconds": 0.0}
    with open(expected_path) as f:
        expected = json.load(f)
    config, before = _config_snapshot()
    optimized = capture.read_options(name).get("optimized")
    if optimized:
        # the program's numbers move with XLA's optimization level under JAX itself: compare
        # at the default level and code, where JAX's record was made, whatever the suite's
        config.update("jax_disable_most_optimizations", False)
        if compiler_options:
            _set_base_options({})
    start = time.process_time()     # CPU seconds: what the CI budget counts
    actual = capture.run_program(name)
    seconds = round(time.process_time() - start, 3)
    _restore(config, before)
    if optimized and compiler_options:
        _set_base_options(compiler_options)
    if actual["error"]:
        return {"name": name, "status": "error", "reason": actual["error"].splitlines()[0],
                "detail": actual["error"], "seconds": seconds}
    reason = compare.compare_record(expected, actual, capture.read_options(name))
    return {"name": name, "status": "fail" if reason else "pass", "reason": reason or "",
            "seconds": seconds}


def _set_base_options(options):
    from jxkernel.xla import compiler, dispatch     # (XLA's: only where options are asked for)
    compiler.set_base_compiler_options(options)
    # eager operations keep the executables compiled before (their cache does not key on the
    # options; jit's does): they compile again, under these (or load them from memory)
    dispatch.clear_primitive_cache()


def worker(argv):
    """Run the programs `argv` names, after `--compiler-options JSON` if given: XLA's options
    every compile of the worker starts from (jxkernel.xla.compiler.set_base_compiler_options;
    the test suite passes the loop emitters its own processes compile with, about half the CPU
    of a compile here: tests/conftest.py)."""
    install_alias()
    options = None
    if argv[:1] == ["--compiler-options"]:
        options, argv = json.loads(argv[1]), argv[2:]
        _set_base_options(options)
    print(json.dumps([run_one(name, options) for name in argv]))


def expected_failures(backend: str) -> dict:
    """Programs known to fail on `backend` ("xla" or "numpy"), with why."""
    return KNOWN_FAILURES if backend == "xla" else {**KNOWN_FAILURES, **NUMPY_BACKEND_DIFFERENCES}


def run_all(names, backend="xla", compiler_options=None):
    """Every program's result, each device count's programs in one worker process (with
    JAX_PLATFORMS=numpy for the NumPy backend; `compiler_options`: see `worker`)."""
    groups = {}
    for name in names:
        groups.setdefault(capture.read_options(name).get("devices", 1), []).append(name)
    results = []
    for devices, group in sorted(groups.items()):
        env = dict(os.environ, JXKERNEL_CPU_DEVICES=str(devices))
        if backend == "numpy":
            env["JAX_PLATFORMS"] = "numpy"
        elif env.get("JAX_PLATFORMS", "").startswith("numpy"):    # XLA's, asked for by name
            env["JAX_PLATFORMS"] = "cpu"
        options = ["--compiler-options", json.dumps(compiler_options)] \
            if compiler_options else []
        done = subprocess.run([sys.executable, "-m", "conformance.run", "--worker", *options,
                               *group], env=env, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"conformance worker crashed:\n{done.stderr[-3000:]}")
        results += json.loads(done.stdout.splitlines()[-1])
    return sorted(results, key=lambda r: r["name"])


def surprises(results, known_failures=KNOWN_FAILURES):
    """Programs whose outcome is not the one known_failures.py expects, with why."""
    out = []
    for r in results:
        known = r["name"] in known_failures
        if r["status"] != "pass" and not known:
            out.append(f"{r['name']} now fails: {r['reason']}")
        elif r["status"] == "pass" and known:
            out.append(f"{r['name']} now passes: remove it from conformance/known_failures.py")
    return out


def table(results, known_failures=KNOWN_FAILURES):
    rows = ["| program | status | reason |", "|---|---|---|"]
    for r in results:
        reason = (r["reason"] or known_failures.get(r["name"], "")).replace("|", "\\|")
        known = known_failures.get(r["name"])
        if known and r["status"] != "pass":
            reason = f"{known} ({reason})" if reason and reason != known else known
        reason = reason.replace(ROOT + os.sep, "").replace("\n", " ")
        rows.append(f"| {r['name']} | {r['status']} | {reason[:200]} |")
    return "\n".join(rows)


def pass_rate(results):
    passed = sum(r["status"] == "pass" for r in results)
    return f"{passed} of {len(results)} programs pass ({100 * passed / len(results):.0f}%)"


def write_report(results):
    with open(README) as f:
        text = f.read()
    head = text.split("<!-- results -->")[0]
    with open(README, "w") as f:
        f.write(f"{head}<!-- results -->\n{pass_rate(results)}.\n\n{table(results)}\n")


def main(argv):
    if argv[:1] == ["--worker"]:
        return worker(argv[1:])
    report = "--report" in argv
    json_path = argv[argv.index("--json") + 1] if "--json" in argv else None
    # (by default the backend JAX_PLATFORMS names, as the programs would see it)
    default = "numpy" if os.environ.get("JAX_PLATFORMS", "").startswith("numpy") else "xla"
    backend = argv[argv.index("--backend") + 1] if "--backend" in argv else default
    options_text = argv[argv.index("--compiler-options") + 1] \
        if "--compiler-options" in argv else None
    if backend not in ("xla", "numpy") or (report and backend != "xla"):
        raise SystemExit("--backend is xla or numpy; --report rewrites the README's XLA table")
    if options_text is not None and (backend != "xla" or report):
        raise SystemExit("--compiler-options are XLA's, and --report records the default code")
    names = [a for a in argv if not a.startswith("--")
             and a not in (json_path, backend, options_text)] or capture.program_names()
    results = run_all(names, backend, json.loads(options_text) if options_text else None)
    known = expected_failures(backend)
    print(table(results, known))
    print(pass_rate(results))
    if report:
        write_report(results)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)
    found = surprises(results, known)
    for line in found:
        print("SURPRISE:", line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
