"""What a learner sees under JAX's first tutorials in a jxkernel notebook, beside what JAX logs
for the same cells (docs/seeing_inside.md, "JAX's tutorials, cell by cell"). By hand, not CI:

    JAX_MIRROR=... .venv/bin/python scripts/tutorial_notes.py cells OUT  # the pages' cells
    .venv-jax/bin/python scripts/tutorial_notes.py jax OUT [PAGE ...]    # JAX 0.10.2, logged
    PYTHONPATH=$PWD .venv/bin/python scripts/tutorial_notes.py jxkernel OUT [PAGE ...]
    .venv/bin/python scripts/tutorial_notes.py show OUT PAGE             # side by side

`cells` reads the pages from a git mirror or clone of JAX, named by the variable JAX_MIRROR (as
`python -m conformance.jax_tests` takes it), at its jax-v0.10.2 tag (conformance/docs/pages.py).
`jax` runs each page's cells in one IPython shell with jax_explain_cache_misses and
jax_log_compiles on, keeping each cell's log lines, printed text, warnings and exception;
`jxkernel` runs them in a real ipykernel with `%load_ext jxkernel` as JupyterLab does (the
alias kernel, tests/support/real_kernel.py), keeping each cell's displayed notes and cards.
`show` prints, per cell, jxkernel's notes and cards beside JAX's misses (other than a first
trace's) and exceptions.

The libraries' first tutorials (`LIBRARY`: Flax NNX, Optax, Equinox; docs/seeing_inside.md)
are read by `library-cells` from each library's source as conformance/docs/library_pages.py
reads them (a git mirror at the pinned tag, or Flax's unpacked PyPI sdist), added to the same
cells.json under their library_pages names, and run and shown by the same commands:

    .venv/bin/python scripts/tutorial_notes.py library-cells OUT flax PATH/flax-0.12.7
    .venv/bin/python scripts/tutorial_notes.py library-cells OUT optax OPTAX_MIRROR
    PYTHON scripts/tutorial_notes.py jax OUT flax/nnx_basics   # one page per process

where PYTHON has JAX 0.10.2, IPython and the pinned libraries (conformance/libraries'
`.libs/venv-jax` has the libraries but no IPython; `.venv-jax` has IPython but none of them).
"""
import contextlib
import io
import json
import logging
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["key-concepts", "jit-compilation", "automatic-vectorization",
         "automatic-differentiation", "debugging", "notebooks/thinking_in_jax",
         "notebooks/Common_Gotchas_in_JAX", "control-flow", "random-numbers", "pytrees",
         "stateful-computations"]
NEXT = ["gradient-checkpointing", "external-callbacks", "higher-order",   # stop 88, h-docnotes2
        "jacobian-vector-products", "notebooks/vmapped_log_probs", "parallel",
        "notebooks/autodiff_cookbook", "notebooks/Custom_derivative_rules_for_Python_code",
        "jax-primitives"]
DEEPER = ["notebooks/shard_map", "notebooks/Writing_custom_interpreters_in_Jax",  # stop 89,
          "autodidax2_part1", "autodidax"]                                        # h-docnotes4
THIRD = ["tracing", "jaxpr", "jax-101/01-jax-basics", "jax-101/02-jitting",  # stop 89, h-docnotes3
         "jax-101/03-vectorization", "jax-101/04-advanced-autodiff", "jax-101/05-random-numbers",
         "jax-101/05.1-pytrees", "jax-101/06-parallelism", "jax-101/07-state", "custom_pytrees",
         "complex-differentiation", "array_refs", "notebooks/convolutions",
         "notebooks/autodiff_remat"]

# stop 89, h-libnotes: what a learner meets first in each library (flax/mnist_tutorial is left
# out: it downloads MNIST with tensorflow_datasets, settings.PAGE_SKIPS)
LIBRARY = ["flax/nnx_basics", "flax/guides/transforms", "flax/key_concepts",
           "optax/docs/getting_started", "optax/examples/freezing_parameters",
           "equinox/examples/train_rnn"]


def _file(out, side, page):
    return os.path.join(out, f"{side}_{page.replace('/', '_')}.json")


def cells(out, mirror=None):
    mirror = mirror or os.environ.get("JAX_MIRROR")
    if not mirror:
        sys.exit("tutorial_notes.py cells: set JAX_MIRROR to a git mirror or clone of JAX")
    sys.path.insert(0, ROOT)
    from conformance.docs import pages
    source, found = pages.GitSource(mirror), {}
    jax_101 = source.last_tag_with("docs/jax-101")     # gone from 0.10.2: read as pages.py does
    for page in PAGES + NEXT + DEEPER + THIRD:
        tag = jax_101 if page.startswith("jax-101/") else pages.TAG
        found[page] = [{"index": c.index, "code": c.code, "skip": "skip-execution" in c.tags}
                       for c in pages.parse_myst(source.read(tag, f"docs/{page}.md"))]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "cells.json"), "w") as f:
        json.dump(found, f)


def library_cells(out, name, where):
    """Add `LIBRARY`'s pages of library `name` to OUT/cells.json, read from `where` (a git
    mirror of the library, read at library_pages' tag, or a folder such as Flax's sdist)."""
    sys.path.insert(0, ROOT)
    from conformance.docs import library_pages, pages
    library = library_pages.LIBRARIES[name]
    source = (pages.GitSource(where) if library.tag != "local" else pages.FolderSource(where))
    wanted = [p for p in LIBRARY if p.startswith(name + "/")]
    path = os.path.join(out, "cells.json")
    found = json.load(open(path)) if os.path.exists(path) else {}
    for page in library_pages.pages(source, library):
        if page.name in wanted:
            found[page.name] = [{"index": c.index, "code": c.code,
                                 "skip": "skip-execution" in c.tags} for c in page.cells]
    os.makedirs(out, exist_ok=True)
    with open(path, "w") as f:
        json.dump(found, f)


def run_jax(out, page):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from IPython.core.interactiveshell import InteractiveShell
    import jax
    import numpy as np
    import random
    import warnings
    random.seed(0)
    np.random.seed(0)
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)
    shell, logs, records = InteractiveShell.instance(), [], []

    class Kept(logging.Handler):
        def emit(self, record):
            logs.append(record.getMessage())
    logging.getLogger("jax").addHandler(Kept(logging.WARNING))
    for cell in json.load(open(os.path.join(out, "cells.json")))[page]:
        if cell["skip"]:
            continue
        logs.clear()
        printed, errors = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors), \
                warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            result = shell.run_cell(cell["code"], store_history=True)
            jax.effects_barrier()
        error = result.error_in_exec or result.error_before_exec
        records.append({"index": cell["index"], "logs": list(logs),
                        "stdout": printed.getvalue(), "stderr": errors.getvalue(),
                        "warnings": [f"{w.category.__name__}: {w.message}" for w in warned],
                        "error": f"{type(error).__name__}: {error}" if error else None})
    with open(_file(out, "jax", page), "w") as f:
        json.dump(records, f, indent=1)


def run_jxkernel(out, page):
    sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
    from real_kernel import execute, running_alias_kernel
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    records = []
    with running_alias_kernel(ROOT) as client:
        execute(client, "import jax, random, numpy as np\nrandom.seed(0); np.random.seed(0)")
        for cell in json.load(open(os.path.join(out, "cells.json")))[page]:
            if cell["skip"]:
                continue
            reply, messages = execute(client, cell["code"], timeout=300)
            record = {"index": cell["index"], "displays": [], "stdout": "", "stderr": "",
                      "error": None}
            for kind, content in messages:
                if kind == "display_data":
                    record["displays"].append(content["data"].get("text/plain", ""))
                elif kind == "stream":
                    record[content["name"]] += content["text"]
                elif kind == "execute_result":     # as JAX's side prints it: Out[n]: ...
                    record["stdout"] += f"Out: {content['data'].get('text/plain', '')}\n"
                elif kind == "error":
                    record["error"] = f"{content['ename']}: {content['evalue']}"
            records.append(record)
    with open(_file(out, "jxkernel", page), "w") as f:
        json.dump(records, f, indent=1)


def show(out, page):
    jx = json.load(open(_file(out, "jxkernel", page)))
    jax = {c["index"]: c for c in json.load(open(_file(out, "jax", page)))}
    for cell in jx:
        theirs = jax.get(cell["index"], {})
        misses = [line for line in theirs.get("logs", [])
                  if "CACHE MISS" in line and "never seen function" not in line]
        # (a page's own rich displays, Flax's nnx.display through treescope, are no notes:
        # counted, not printed)
        rich = [t for t in cell["displays"] if t.startswith("<IPython.core.display.")]
        shown = [t for t in cell["displays"] if t not in rich]
        if not (shown or cell["error"] or misses or theirs.get("error")):
            continue
        print(f"==== cell {cell['index']}" + (f" ({len(rich)} rich displays)" if rich else ""))
        for text in shown:
            print("  jxkernel:", text.replace("\n", "\n    "))
        if cell["error"]:
            print("  jxkernel raised:", cell["error"].splitlines()[0])
        for line in misses:
            print("  JAX:", line.replace("\n", "\n    "))
        if theirs.get("error"):
            print("  JAX raised:", theirs["error"].splitlines()[0])


if __name__ == "__main__":
    command, out, *pages = sys.argv[1:]
    if command == "cells":
        cells(out)
    elif command == "library-cells":
        library_cells(out, *pages)
    elif command in ("jax", "jxkernel") and len(pages) == 1:
        (run_jax if command == "jax" else run_jxkernel)(out, pages[0])
    elif command in ("jax", "jxkernel"):
        import subprocess          # a process per page: a page starts from a new kernel's state
        for page in pages or PAGES:
            subprocess.run([sys.executable, __file__, command, out, page], check=False)
            print(page, "done", flush=True)
    else:
        show(out, pages[0])
