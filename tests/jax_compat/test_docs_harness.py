"""The docs harness's own machinery (conformance/docs/) on a tiny synthetic page: reading
MyST cells and their tags, IPython magics, what a cell shows, and the comparison. JAX's
pages are not fetched here (the harness reads them from a JAX mirror when it is run)."""
import json
import os
import subprocess
import sys

from conformance.docs import compare_cells, pages, worker

PAGE = '''---
jupytext:
  formats: ipynb,md:myst
---

# A page

```{code-cell} ipython3
:id: abc

import jax.numpy as jnp
x = jnp.arange(3.0)
print("sum", x.sum())
```

Some text.

```{code-cell}
:tags: [raises-exception]

jnp.ones(3)[None, "a"]
```

```{code-cell}
---
tags: [skip-execution]
---
%timeit x.sum().block_until_ready()
x * 2
```
'''


def test_cells_and_their_tags_are_read_in_order(tmp_path):
    (tmp_path / "docs" / "notebooks").mkdir(parents=True)
    (tmp_path / "docs" / "notebooks" / "tiny.md").write_text(PAGE)
    found = pages.pages(pages.FolderSource(str(tmp_path)))
    assert [p.name for p in found] == ["notebooks/tiny"]
    cells = found[0].cells
    assert [c.index for c in cells] == [0, 1, 2]
    assert cells[0].code.startswith("import jax.numpy as jnp") and cells[0].tags == ()
    assert cells[1].expects_error and cells[2].tags == ("skip-execution",)


def test_a_cell_shows_what_it_prints_and_its_last_expression():
    namespace = {}
    lines, error = worker.run_cell("y = 2\nprint('y', y)\ny + 1", namespace, "<cell 0>")
    assert (lines, error) == (["y 2", "3"], None)
    assert worker.run_cell("y + 1;", namespace, "<cell 1>") == ([], None)
    lines, error = worker.run_cell("%timeit y + 1\n!ls\n[y]", namespace, "<cell 2>")
    assert (lines, error) == (["[2]"], None)
    lines, error = worker.run_cell("print('before')\n1 / 0", namespace, "<cell 3>")
    assert lines == ["before"] and error.startswith("ZeroDivisionError: division by zero")


def test_the_worker_runs_a_page_in_one_namespace(tmp_path):
    cells = tmp_path / "cells.json"
    cells.write_text(json.dumps({"name": "tiny", "cells": [
        {"index": 0, "code": "a = [1, 2]"}, {"index": 1, "code": "a + [3]"},
        {"index": 2, "code": "raise KeyError('k')"}]}))
    out = tmp_path / "out.jsonl"
    # the worker imports jax first (as the page would): jxkernel's, through the alias
    env = dict(os.environ, JXKERNEL_AS_JAX="1")
    subprocess.run([sys.executable, "-m", "conformance.docs.worker", str(cells), str(out)],
                   check=True, timeout=120, env=env)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["out"] for r in records] == [[], ["[1, 2, 3]"], []]
    assert records[2]["error"].startswith("KeyError: 'k'")


def test_cells_agree_up_to_addresses_timings_and_digits():
    assert compare_cells.normalize(["<f at 0x7f00aa11> in 1.25 sec", "Var(id=140652819336384)"],
                                   "/tmp/w") == ["<f at 0x…> in <time>", "Var(id=…)"]
    cells = [{"index": 0, "code": "print(x)", "expects_error": False},
             {"index": 1, "code": "x[None, 'a']", "expects_error": True}]
    jax = {"records": [{"index": 0, "out": ["[0.25  0.19661197]"], "error": None},
                       {"index": 1, "out": [], "error": "IndexError: JAX's words"}]}
    same = {"records": [{"index": 0, "out": ["[0.25 0.19661198]"], "error": None},
                        {"index": 1, "out": [], "error": "IndexError: other words"}]}
    result = compare_cells.compare_page("tiny", cells, jax, same, {})
    assert result["status"] == "pass" and result["raised_in_both"] == [1]
    other = {"records": [{"index": 0, "out": ["[0.25 0.3]"], "error": None},
                         {"index": 1, "out": [], "error": "TypeError: no"}]}
    result = compare_cells.compare_page("tiny", cells, jax, other, {})
    assert result["status"] == "fail" and len(result["disagreements"]) == 2
    assert result["reason"].startswith("cell 0 (`print(x)`): printed '0.3' where JAX printed")
    assert "TypeError" in result["disagreements"][1]["reason"]


def test_printed_buffer_addresses_are_compared_by_sameness():
    # array_refs prints a Ref's buffer address before and after an in-place update: the
    # numbers differ between runs, that they stay the same is what the cell shows
    cells = [{"index": 0, "code": "print(r.unsafe_buffer_pointer(), r)", "expects_error": False}]
    def run(*addresses):
        return {"records": [{"index": 0, "error": None,
                             "out": [f"{a} Ref([{i}.])" for i, a in enumerate(addresses)]}]}
    jax = run(94537639565824, 94537639565824)
    assert compare_cells.compare_page("p", cells, jax, run(94815968150848, 94815968150848),
                                      {})["status"] == "pass"
    moved = compare_cells.compare_page("p", cells, jax, run(94815968150848, 94815968150912), {})
    assert moved["status"] == "fail"
    # elsewhere a large integer is a value, compared as printed
    plain = [dict(cells[0], code="print(n, r)")]
    assert compare_cells.compare_page("p", plain, jax, run(94815968150848, 94815968150848),
                                      {})["status"] == "fail"


def test_accepted_differences_are_read_past_on_both_sides_and_named():
    # settings.ACCEPTED: a repr of JAX's internals replaced on both sides; the rest of the
    # cell (here: how often the rule was called) is still compared
    accepted = [("JAX's context", r"Ctx\(module=[^)]*\)|<jax\.Ctx object at 0x…>", "<ctx>")]
    cells = [{"index": 0, "code": "f(1)", "expects_error": False},
             {"index": 1, "code": "g(1)", "expects_error": False}]
    jax = {"records": [{"index": 0, "out": ["rule(Ctx(module=<M at 0x7f01aa22>), 1)"],
                        "error": None},
                       {"index": 1, "out": ["2"], "error": None}]}
    ours = {"records": [{"index": 0, "out": ["rule(<jxkernel.Ctx object at 0x7f00bb1234>, 1)"],
                         "error": None},
                        {"index": 1, "out": ["2"], "error": None}]}
    result = compare_cells.compare_page("p", cells, jax, ours, {}, accepted)
    assert result["status"] == "pass"
    assert result["accepted"] == [{"cell": 0, "why": ["JAX's context"]}]
    assert "accepted differences (settings.ACCEPTED) in cells 0" in compare_cells.table(
        [dict(result, name="p", cells=2)])
    assert compare_cells.compare_page("p", cells, jax, ours, {})["status"] == "fail"
    twice = {"records": [dict(ours["records"][0], out=ours["records"][0]["out"] * 2),
                         ours["records"][1]]}
    assert compare_cells.compare_page("p", cells, jax, twice, {}, accepted)["status"] == "fail"


def test_the_accepted_differences_of_jax_primitives_keep_what_a_rule_sees():
    # JAX's LoweringRuleContext and MLIR values, as the primitives guide prints them: the
    # avals and argument indices stay in the text compared
    from conformance.docs import settings
    jax_line = ("call rule(LoweringRuleContext(module_context=ModuleContext(platforms=('cpu',)"
                ", lowering_cache={LoweringCacheKey(avals_in=(ShapedArray(float32[]),), "
                "effects=frozenset())}), primitive=p, avals_in=(ShapedArray(float32[], "
                "weak_type=True),), avals_out=[ShapedArray(float32[])], tokens_in=<T at 0x…>,"
                " jaxpr_eqn_ctx=JaxprEqnContext(xla_metadata=None), platforms=None), "
                "BlockArgument(<block argument> of type 'tensor<f32>' at index: 0))")
    ours = ("call rule(LoweringRuleContext(avals_in=(ShapedArray(float32[], weak_type=True),),"
            " avals_out=[ShapedArray(float32[])]), %arg0)")
    lines, whys = compare_cells.accept([jax_line], settings.ACCEPTED["jax-primitives"])
    assert lines == [ours] and len(whys) == 2
    assert compare_cells.accept([ours], settings.ACCEPTED["jax-primitives"]) == ([ours], [])


NOTEBOOK = {"cells": [
    {"cell_type": "markdown", "source": ["# A tutorial"], "metadata": {}},
    {"cell_type": "code", "source": ["import jax.numpy as jnp\n", "jnp.arange(3)"],
     "metadata": {}},
    {"cell_type": "code", "source": "1/0", "metadata": {"tags": ["raises-exception"]}}]}


def test_a_librarys_notebooks_are_read_as_pages(tmp_path):
    # Flax's sdist layout: notebooks below docs_nnx/, found at any depth, named without it
    from conformance.docs import library_pages
    (tmp_path / "docs_nnx" / "guides").mkdir(parents=True)
    (tmp_path / "docs_nnx" / "guides" / "tiny.ipynb").write_text(json.dumps(NOTEBOOK))
    (tmp_path / "docs_nnx" / "basics.ipynb").write_text(json.dumps(NOTEBOOK))
    (tmp_path / "docs_nnx" / "empty.ipynb").write_text(json.dumps({"cells": []}))
    found = library_pages.pages(pages.FolderSource(str(tmp_path)),
                                library_pages.LIBRARIES["flax"])
    assert [p.name for p in found] == ["flax/basics", "flax/guides/tiny"]
    cells = found[1].cells
    assert [c.code for c in cells] == ["import jax.numpy as jnp\njnp.arange(3)", "1/0"]
    assert not cells[0].expects_error and cells[1].expects_error


def test_a_librarys_table_counts_both_sides_and_keeps_the_other_sections(tmp_path):
    from conformance.docs import library_pages
    path = tmp_path / "LIBRARIES.md"
    path.write_text("# head\n<!-- optax results -->\nold\n<!-- end optax results -->\ntail\n")
    results = [{"name": "flax/a", "cells": 2, "status": "pass", "reason": ""},
               {"name": "flax/b", "cells": 3, "status": "fail", "reason": "cell 1: x",
                "jax_unexpected": [2]},
               {"name": "flax/c", "status": "skip", "reason": "downloads"}]
    compare_cells.write_library_report(str(path), library_pages.LIBRARIES["flax"], results,
                                       "abc1234", "2026-11-27")
    text = path.read_text()
    assert "<!-- optax results -->\nold\n<!-- end optax results -->\ntail" in text
    assert "### flax 0.12.7 (at `abc1234`, 2026-11-27)" in text
    assert ("1 of 2 pages run agree under jxkernel (50%); JAX runs 1 of 2 without an unexpected"
            " error; 1 skipped") in text
    assert "| flax/b | 3 | fail | cell 1: x |" in text


def test_the_numpy_backend_run_is_jxkernels_side_only_and_kept_apart(tmp_path):
    # --backend numpy: jxkernel's side on JAX_PLATFORMS=numpy (what JupyterLite runs), JAX's
    # side on XLA's CPU as always; its table sits between its own markers, the CPU's stays
    from conformance.docs import __main__ as harness, settings
    assert harness._environment("jxkernel", 8, "/w", "numpy")["JAX_PLATFORMS"] == "numpy"
    assert harness._environment("jxkernel", 8, "/w", "numpy")["JXKERNEL_CPU_DEVICES"] == "8"
    assert harness._environment("jax", 1, "/w", "numpy")["JAX_PLATFORMS"] == "cpu"
    assert harness._environment("jxkernel", 1, "/w")["JAX_PLATFORMS"] == "cpu"
    # NumPy's BLAS on one thread there, as JupyterLite's (no threads in Pyodide)
    assert harness._environment("jxkernel", 1, "/w", "numpy")["OPENBLAS_NUM_THREADS"] == "1"
    assert "OPENBLAS_NUM_THREADS" not in harness._environment("jxkernel", 1, "/w")
    cpu_only = settings.accepted("jax-primitives")
    assert cpu_only == settings.ACCEPTED["jax-primitives"]
    assert settings.accepted("jax-primitives", "numpy") == (
        cpu_only + settings.NUMPY_ACCEPTED + settings.NUMPY_PAGE_ACCEPTED["jax-primitives"])
    path = tmp_path / "README.md"
    path.write_text("# head\n<!-- numpy results -->\nold\n<!-- end numpy results -->\nmid\n"
                    "<!-- results -->\ncpu table\n")
    results = [{"name": "a", "cells": 2, "status": "pass", "reason": ""},
               {"name": "b", "cells": 3, "status": "fail", "reason": "cell 1: x"}]
    compare_cells.write_report(str(path), results, "numpy")
    assert path.read_text() == (
        "# head\n<!-- numpy results -->\n1 of 2 pages run pass (50%); 0 pages skipped.\n\n"
        "| page | cells | status | first disagreement, or why skipped |\n|---|---:|---|---|\n"
        "| a | 2 | pass |  |\n| b | 3 | fail | cell 1: x |\n<!-- end numpy results -->\nmid\n"
        "<!-- results -->\ncpu table\n")


def test_on_the_numpy_backend_device_names_are_read_past_and_xla_only_cells_named():
    from conformance.docs import settings
    jax_lines = ["[CpuDevice(id=0), CpuDevice(id=1)]", "On cpu:1 at mesh coordinates (i,) = (1,):",
                 "AbstractMesh('i': 2, device_kind=cpu, num_cores=None, platform=cpu)",
                 "┌───────┬───────┐", "│ CPU 0 │ CPU 1 │"]
    ours = ["[NumpyDevice(id=0), NumpyDevice(id=1)]", "On numpy:1 at mesh coordinates (i,) = (1,):",
            "AbstractMesh('i': 2, device_kind=numpy, num_cores=None, platform=numpy)",
            "┌───────┬───────┐", "│NUMPY 0│NUMPY 1│"]
    read = settings.accepted("p", "numpy")
    assert compare_cells.accept(jax_lines, read)[0] == compare_cells.accept(ours, read)[0]
    # only the device's name: its id, coordinates and the mesh are still compared
    assert compare_cells.accept(["On cpu:1"], read)[0] != compare_cells.accept(["On numpy:0"],
                                                                               read)[0]
    assert compare_cells.accept(ours, settings.accepted("p"))[0] == ours     # not on the CPU
    # an XLA-only cell: JAX ran it, the NumPy backend refused it with its own error
    cells = [{"index": 0, "code": "c.as_text()", "expects_error": False},
             {"index": 1, "code": "1 + 1", "expects_error": False}]
    jax = {"records": [{"index": 0, "out": ["True"], "error": None},
                       {"index": 1, "out": ["2"], "error": None}]}
    refused = {"index": 0, "out": [], "error": "NotImplementedError: the optimized HLO is not "
                                               "available on the 'numpy' backend (...)\n..."}
    ours = {"records": [refused, {"index": 1, "out": ["2"], "error": None}]}
    result = compare_cells.compare_page("p", cells, jax, ours, {}, (), "reads XLA's HLO")
    assert result["status"] == "xla-only" and result["xla_only"] == [0]
    assert result["reason"] == "XLA-only cells 0: reads XLA's HLO"
    assert compare_cells.pass_rate([dict(result, name="p")]) == \
        "0 of 1 pages run pass (0%), 1 more agree but for their XLA-only cells; 0 pages skipped"
    # not on a page that says why, nor for another error
    assert compare_cells.compare_page("p", cells, jax, ours, {})["status"] == "fail"
    other = {"records": [dict(refused, error="NotImplementedError: no rule"), ours["records"][1]]}
    assert compare_cells.compare_page("p", cells, jax, other, {}, (), "why")["status"] == "fail"
    # JAX printed what XLA gave and raised further on (host-offloading's cell 9): XLA-only;
    # where JAX raised having printed no more than jxkernel, a disagreement
    later = {"records": [dict(jax["records"][0], error="ValueError: later"), jax["records"][1]]}
    assert compare_cells.compare_page("p", cells, later, ours, {}, (), "why")["xla_only"] == [0]
    early = {"records": [{"index": 0, "out": [], "error": "ValueError: at once"},
                         jax["records"][1]]}
    assert compare_cells.compare_page("p", cells, early, ours, {}, (), "why")["status"] == "fail"


def test_on_the_numpy_backend_a_jitted_primitives_impl_stands_for_its_lowering():
    # jax-primitives: under jit XLA calls the guide's lowering rule (once per input types),
    # the NumPy backend its impl (once per equation); the run of those calls ending a cell is
    # read as one line, what comes before is compared, a nested (eager) impl call is kept
    from conformance.docs import settings
    traced = ["call square_add_prim(JitTracer(~float32[]), 10.0)",
              "|<- square_add_prim = JitTracer(float32[])"]
    jax_lines = traced + ["call multiply_add_lowering(LoweringRuleContext(avals_in=(...), "
                          "avals_out=[...]), %arg0, %arg1, %arg2)",
                          "|<- multiply_add_lowering = [<OpResult>]"]
    ours = traced + ["call multiply_add_impl(2.0, 2.0, 10.0)", "|<- multiply_add_impl = 14.0",
                     "call multiply_add_impl(2.0, 1.0, 1.0)", "|<- multiply_add_impl = 3.0"]
    read = settings.accepted("jax-primitives", "numpy")
    assert compare_cells.accept(jax_lines, read)[0] == compare_cells.accept(ours, read)[0]
    assert compare_cells.accept(ours, settings.accepted("jax-primitives"))[0] == ours  # (CPU)
    other = ["call square_add_prim(JitTracer(~float32[]), 20.0)"] + ours[1:]
    assert compare_cells.accept(other, read)[0] != compare_cells.accept(jax_lines, read)[0]
    eager = ["call square_add_prim(2.0, 10.0)", "  call multiply_add_impl(2.0, 2.0, 10.0)",
             "  |<- multiply_add_impl = 14.0", "|<- square_add_prim = 14.0"]
    assert compare_cells.accept(eager, read)[0] == eager
    assert "jax-primitives" not in settings.NUMPY_XLA_ONLY      # it runs: nothing is refused


def test_a_numpy_backend_tolerance_widens_that_backend_only():
    from conformance import compare
    from conformance.docs import settings
    assert settings.tolerance("examples/advi") == {}
    assert settings.tolerance("examples/advi", "numpy") == {"atol": 1e-3}
    assert settings.tolerance("complex-differentiation", "numpy") == {"atol": 4e-6}
    row = compare_cells.table([{"name": "examples/advi", "cells": 1, "status": "pass",
                                "widened": {"atol": 1e-3}}]).splitlines()[-1]
    assert row == ("| examples/advi | 1 | pass | numbers within atol 0.001 on this backend "
                   "(settings.NUMPY_TOLERANCE) |")
    assert compare.compare_text(["lower bound 14.404474"], ["lower bound 14.404446"],
                                **settings.tolerance("examples/advi", "numpy")) is None
