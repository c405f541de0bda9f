"""Write tests/data/recompile_cells_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    PYTHONHASHSEED=0 .venv-jax/bin/python reference/make_recompile_cells_reference.py [--print]

(JAX prints a key set, `{'s' 'x'}`, in the set's order, which moves with the hash seed:
seed 0 keeps a rerun from rewriting the recorded programs' texts.)

Runs each program of tests/data/recompile_cells_cases.py cell by cell in an IPython shell
(store_history, as a notebook numbers its cells), each program in names of its own, with
`jax_explain_cache_misses` and `jax_log_compiles` on. Each cell's file is named as ipykernel
names it, after its code (/tmp/ipykernel_<pid>/<hash>.py: a cell's code run again is the same
file, which JAX's "re-defined repeatedly" hint reads). Per program, per cell: "misses" (the
tracing-cache misses of the learner's functions, parsed as make_recompile_reference.parse
does), "messages" (their text, each cell's file named "<cell K>", K the program's first cell
of that code, 1-based, the learner's modules "rc_*.py", ids dropped) and "lowerings" (the
programs of those functions lowered in that cell: pxla's "Compiling jit(<name>)"), as
{"cells": [...], "answer": the value of `answer` where the program sets one}.
"""
import json
import logging
import os
import re
import sys
import tempfile
import zlib

import jax

from make_recompile_reference import DATA, parse   # (puts tests/data on the path)
import recompile_cells_cases as cases  # noqa: E402

FILE = re.compile(r"/tmp/ipykernel_\d+/\d+\.py")
HELPER = re.compile(r"/tmp/[^ :]*/(rc_\w+\.py)")


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.misses, self.compiled = [], []

    def emit(self, record):
        text = record.getMessage()
        if text.startswith("TRACING CACHE MISS"):
            self.misses.append(text)
        elif text.startswith("Compiling "):
            self.compiled.append(text[len("Compiling "):].split(" with global shapes")[0])


# the learner's working folder, on sys.path as a notebook's is: where a cell saves the
# learner's module (recompile_cells_cases.HELPER)
LEARNER_DIR = tempfile.mkdtemp()
sys.path.insert(0, LEARNER_DIR)


def file_of(code: str) -> str:
    return f"/tmp/ipykernel_{os.getpid()}/{zlib.crc32(code.encode())}.py"


def main():
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    # ipykernel's naming (XCachingCompiler.get_code_name): one file per code
    shell.compile.get_code_name = lambda raw_code, code, number: file_of(raw_code)
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)
    collect = Collect()
    for name in ("jax._src.interpreters.partial_eval", "jax._src.interpreters.pxla"):
        logging.getLogger(name).addHandler(collect)
        logging.getLogger(name).propagate = False
    out = {}
    for name, (_, cells) in cases.PROGRAMS.items():
        shell.user_ns.clear()
        shell.init_user_ns()
        shell.user_ns["LEARNER_DIR"] = LEARNER_DIR      # (recompile_cells_cases' HELPER)
        shell.run_cell("import jax\nimport jax.numpy as jnp\nimport numpy as np",
                       store_history=True)
        files = {}
        for k, code in enumerate(cells, 1):
            files.setdefault(file_of(code), f"<cell {k}>")
        mine = tuple(files) + ("<magic-timeit>",)
        runs, names = [], set()
        for code in cells:
            collect.misses.clear(), collect.compiled.clear()
            result = shell.run_cell(code, store_history=True)
            assert result.success, (name, code, result.error_in_exec)
            found = [m for m in collect.misses
                     if any(f"defined at {f}" in m for f in mine) or HELPER.search(m) or
                     (" defined at " not in m and FILE.search(m))]
            texts = [HELPER.sub(r"\1", FILE.sub(
                lambda m: files.get(m.group(0), m.group(0)), re.sub(r" id=\d+", "", m)))
                for m in found]
            misses = [parse(m) for m in texts]
            names |= {f"jit({m['function']})" for m in misses}
            runs.append({"misses": misses, "messages": texts,
                         "lowerings": sum(c in names for c in collect.compiled)})
        out[name] = {"cells": runs}
        if "answer" in shell.user_ns:        # what a program's last cell computed
            out[name]["answer"] = shell.user_ns["answer"]
        if "--print" in sys.argv:
            print(f"=== {name}")
            for k, run in enumerate(runs, 1):
                print(f"  cell {k}: lowerings {run['lowerings']}")
                for m in run["messages"]:
                    print("    " + m.replace("\n", "\n    "))
    path = os.path.join(DATA, "recompile_cells_reference.json")
    with open(path, "w") as f:
        json.dump({"jax_version": jax.__version__, "programs": out}, f, indent=1,
                  sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
