"""Write tests/data/recompile_audit_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_recompile_audit_reference.py [--print] [--only a,b]

The scenarios of tests/data/recompile_audit_cases.py (a learner's audit of the recompile
notes: programs recompile_cases.py does not hold, and each fix the notes offer for them,
applied), recorded as reference/make_recompile_reference.py records its own (its `record`:
per scenario the misses JAX logs with `jax_explain_cache_misses` on, parsed, their messages
without ids and addresses, the programs lowered, the error's class), and for a scenario that
raises its error's text ("error_text"). With `--only a,b` those scenarios alone are recorded
again, the others kept from the file (a run of each is in a file of its own: none sees another).
"""
import json
import os
import sys

import jax

from make_recompile_reference import DATA, record   # (puts tests/data on the path)
import recompile_audit_cases as cases  # noqa: E402


def main():
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)
    path = os.path.join(DATA, "recompile_audit_reference.json")
    out, names = {}, list(cases.SCENARIOS)
    if "--only" in sys.argv:
        with open(path) as f:
            out = json.load(f)["scenarios"]
        names = sys.argv[sys.argv.index("--only") + 1].split(",")
    for name in names:
        out[name] = record(name, cases.run, cases.RAISES)
        if name in cases.RAISES:
            out[name]["error_text"] = str(cases.run(jax, name))
        if "--print" in sys.argv:
            print(f"=== {name}: {len(out[name]['misses'])} misses, error {out[name]['error']}, "
                  f"lowerings {out[name]['lowerings']}")
            for m in out[name]["messages"]:
                print(m)
    out = {name: out[name] for name in cases.SCENARIOS}    # (the scenarios' order)
    with open(path, "w") as f:
        json.dump({"jax_version": jax.__version__, "scenarios": out}, f, indent=1,
                  sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
