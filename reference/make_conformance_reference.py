"""Record real JAX 0.10.2's output for every conformance program (run by hand, not by CI):

    .venv-jax/bin/python reference/make_conformance_reference.py            # all programs
    .venv-jax/bin/python reference/make_conformance_reference.py 03_grad    # some

Each program runs in its own subprocess (so a config change or a device count stays in
it), with ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` when its header says
``# conformance: devices=N``. What it prints and its ``RESULTS`` arrays go to
``conformance/expected/<name>.json``. A program that raises under JAX is an error in the
program: nothing is written for it and the script says so.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
from conformance import capture  # noqa: E402


def record_one(name):
    """In the child: run the program under real JAX and print its record as JSON."""
    import jax  # noqa: F401 -- the programs import it too; this checks it is the real one
    assert "jxkernel" not in jax.__file__
    print(json.dumps(capture.run_program(name)))


def run_child(name):
    env = dict(os.environ)
    devices = capture.read_options(name).get("devices")
    if devices:
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    env["JAX_PLATFORMS"] = "cpu"
    done = subprocess.run([sys.executable, __file__, "--one", name], env=env,
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        return {"error": done.stderr[-2000:]}
    return json.loads(done.stdout.splitlines()[-1])


def main(names):
    failed = []
    for name in names or capture.program_names():
        record = run_child(name)
        if record.get("error"):
            failed.append(name)
            print(f"{name}: ERROR under JAX\n{record['error']}")
            continue
        with open(os.path.join(capture.EXPECTED, name + ".json"), "w") as f:
            json.dump({"stdout": record["stdout"], "results": record["results"]}, f, indent=1)
            f.write("\n")
        print(f"{name}: {len(record['stdout'])} lines, {len(record['results'])} arrays")
    if failed:
        sys.exit(f"{len(failed)} programs failed under JAX: {' '.join(failed)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        record_one(sys.argv[2])
    else:
        main(sys.argv[1:])
