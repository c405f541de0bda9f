"""Write tests/data/learner_tracebacks_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    sh scripts/jax_venv.sh --docs     # once: .venv-jax with IPython beside JAX
    PYTHONPATH= .venv-jax/bin/python reference/make_learner_tracebacks_reference.py

What the tracebacks of the learner's mistakes in tests/data/learner_tracebacks_cases.py show
(tests/data/learner_tracebacks_run.py), each mode in a fresh process: "script" (a plain
script, JAX_TRACEBACK_FILTERING unset), "remove_frames" and "ipython" (a cell of IPython's
InteractiveShell, JAX_TRACEBACK_FILTERING unset), with the IPython that `--docs` installs."""
import json
import os
import subprocess
import sys

import jax

try:
    import IPython  # noqa: F401  (the ipython mode's shell)
except ImportError:
    sys.exit("IPython is missing from this venv: make it with `sh scripts/jax_venv.sh --docs`")
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
RUN = os.path.join(DATA, "learner_tracebacks_run.py")
MODES = {"script": ("script", None), "remove_frames": ("script", "remove_frames"),
         "ipython": ("ipython", None)}

answers = {"jax_version": jax.__version__}
for mode, (where, filtering) in MODES.items():
    env = {k: v for k, v in os.environ.items() if k != "JAX_TRACEBACK_FILTERING"}
    env.update(JAX_PLATFORMS="cpu", PYTHONPATH=DATA)
    if filtering:
        env["JAX_TRACEBACK_FILTERING"] = filtering
    start = (f"import sys, runpy; "
             f"sys.argv = [{RUN!r}, 'jax', {where!r}]; "
             f"runpy.run_path({RUN!r}, run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", start], env=env, cwd=DATA, capture_output=True,
                         text=True, check=True).stdout
    answers[mode] = json.loads(out.strip().splitlines()[-1])
with open(os.path.join(DATA, "learner_tracebacks_reference.json"), "w") as f:
    json.dump(answers, f, indent=1, sort_keys=True)
    f.write("\n")
