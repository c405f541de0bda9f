"""Live arrays and the memory view: jxkernel.live_arrays(), jxkernel.memory.memory_report
without IPython, and %jxmemory in a real InteractiveShell, where each row names the cell
that created its arrays."""
import json
import textwrap
import weakref

import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.memory import MAX_SHOWN, MEMORY_MIME, Row, live_arrays, memory_report
from ipython_shell import shell_fixture
from fresh_process import run_code

pytestmark = [pytest.mark.cpu_only("CPU text"),   # the GPU tier skips this file (docs/gpu.md)
              pytest.mark.skipif(jxkernel.default_backend() == "numpy", reason=(
                  "CPU text; %jxmemory on the numpy backend: "
                  "tests/notebook/test_notebook_numpy_views.py"))]


# ------------------------------------------------------------------ without IPython
def test_live_arrays_finds_an_array_until_it_is_deleted():
    x = jnp.ones((19, 2))
    assert jxkernel.live_arrays is live_arrays
    assert sum(a is x for a in live_arrays()) == 1
    assert sum(a is x for a in live_arrays("cpu")) == 1
    x.delete()
    assert not any(a is x for a in live_arrays())


def test_eager_arithmetics_cached_constants_are_not_live_arrays():
    # `x * i` puts the Python scalar on the device, and jxkernel keeps the last 256 of those
    # for the next operation: no user holds them, and JAX's live_arrays() has none (a loop of
    # `x * i` in a cell showed up to 256 scalars in %jxmemory as "made by this cell")
    x = jnp.ones(3)
    y = x * 987654          # an int no other test uses
    assert y.shape == (3,)
    # (another test of this worker may keep a complex scalar or a key alive: compared as
    # numbers of any kind, keys left out)
    scalars = [a for a in live_arrays() if a.shape == () and a.dtype.kind in "biufc" and
               complex(a) == 987654]
    assert scalars == [], scalars


def test_an_array_dropped_is_no_longer_live():
    # counted against those of its shape alive before: another test of this worker may keep one
    count = lambda: sum(a.shape == (23, 1, 7) for a in live_arrays())     # noqa: E731
    before = count()
    x = jnp.zeros((23, 1, 7))
    gone = weakref.ref(x)
    assert count() == before + 1
    del x
    assert gone() is None
    assert count() == before


def _three():
    return [jnp.ones((7, 3)), jnp.zeros((7, 3)), jnp.arange(11, dtype=jnp.int32)]


def _by_dtype(a):
    return "In[1]" if a.dtype == jnp.float32 else "In[2]"


def test_report_rows_and_totals():
    arrays = _three()
    report = memory_report(arrays + [arrays[0]], origin=_by_dtype)    # one buffer counts once
    assert report.rows == (Row("In[1]", (7, 3), "float32", ("cpu:0",), 2, 168),
                           Row("In[2]", (11,), "int32", ("cpu:0",), 1, 44))
    assert report.devices == (("cpu:0", 3, 212),)
    assert (report.total_arrays, report.total_bytes) == (3, 212)


def test_text_rendering():
    assert repr(memory_report(_three(), origin=_by_dtype)) == "\n".join([
        "live arrays on cpu: 3 arrays, 212 bytes",
        "cell   shape   dtype    device  count  bytes",
        "In[1]  (7, 3)  float32  cpu:0       2    168",
        "In[2]  (11,)   int32    cpu:0       1     44",
        "cpu:0: 3 arrays, 212 bytes",
        "allocator (bytes in use, peak, limit): not reported by the cpu backend"])
    assert repr(memory_report([jnp.ones((16, 16, 8))])) == "\n".join([
        "live arrays on cpu: 1 array, 8,192 bytes (8.0 KiB)",
        "shape        dtype    device  count  bytes",
        "(16, 16, 8)  float32  cpu:0       1  8,192",
        "cpu:0: 1 array, 8,192 bytes (8.0 KiB)",
        "allocator (bytes in use, peak, limit): not reported by the cpu backend"])
    assert repr(memory_report([])) == "\n".join(["no live arrays on cpu",
                                                   "allocator (bytes in use, peak, limit): not reported by the cpu backend"])


def test_html_escapes_labels_and_the_json_bundle():
    report = memory_report(_three(), origin=lambda a: "<script>x</script>")
    page = report._repr_html_()
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>" not in page
    bundle = report._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", MEMORY_MIME}
    data = bundle[MEMORY_MIME]
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data == {"version": 1, "platform": "cpu", "by_cell": True, "total_arrays": 3,
                    "total_bytes": 212,
                    "devices": [{"device": "cpu:0", "arrays": 3, "bytes": 212}],
                    "allocator": None,
                    "rows": [{"cell": "<script>x</script>", "shape": [7, 3], "dtype": "float32",
                              "devices": ["cpu:0"], "count": 2, "bytes": 168},
                             {"cell": "<script>x</script>", "shape": [11], "dtype": "int32",
                              "devices": ["cpu:0"], "count": 1, "bytes": 44}]}
    assert list(data)[0] == "version"


class FakeGpu:
    """A device whose backend reports its allocator, as jaxlib's GPU devices do."""
    platform, id = "gpu", 0

    def __init__(self, stats):
        self.stats = stats

    def memory_stats(self):
        return self.stats


GPU_STATS = {"bytes_in_use": 3 * 2 ** 20, "peak_bytes_in_use": 2 ** 30,
             "bytes_limit": 80 * 2 ** 30, "num_allocs": 12, "largest_alloc_size": 2 ** 20}


def test_the_allocator_where_the_backend_reports_it():
    report = memory_report(_three(), devices=[FakeGpu(GPU_STATS)])
    line = ("gpu:0 allocator: 3,145,728 bytes (3.0 MiB) in use, peak 1,073,741,824 bytes "
            "(1.0 GiB), limit 85,899,345,920 bytes (80.0 GiB)")
    assert repr(report).splitlines()[-1] == line
    assert f"<li>{line}</li>" in report._repr_html_()
    assert report.to_json()["allocator"] == [
        {"device": "gpu:0", "bytes_in_use": 3 * 2 ** 20, "peak_bytes_in_use": 2 ** 30,
         "bytes_limit": 80 * 2 ** 30}]
    # a field the backend lacks is said to be missing, never shown as 0
    partial = memory_report([], devices=[FakeGpu({"bytes_in_use": 0})])
    assert repr(partial).splitlines()[-1] == ("gpu:0 allocator: 0 bytes in use, peak not "
                                              "reported by this backend, limit not reported by "
                                              "this backend")
    assert partial.to_json()["allocator"] == [{"device": "gpu:0", "bytes_in_use": 0,
                                               "peak_bytes_in_use": None, "bytes_limit": None}]


def test_the_allocator_where_the_backend_reports_nothing():
    # jaxlib's CPU devices answer None; an empty dict says as little
    for stats in (None, {}):
        report = memory_report([], devices=[FakeGpu(stats)])
        assert report.to_json()["allocator"] is None
        assert repr(report).splitlines()[-1] == ("allocator (bytes in use, peak, limit): not "
                                                 "reported by the cpu backend")
    assert jxkernel.devices("cpu")[0].memory_stats() is None
    assert memory_report([]).to_json()["allocator"] is None


def test_the_status_bar_state_carries_the_selected_devices_allocator(monkeypatch):
    pytest.importorskip("IPython")
    from jxkernel.notebook import comm
    channel = comm.Channel(state=None)
    channel._backends = []                   # not probed: the backends are not the question
    try:
        assert channel.snapshot()["memory"] is None                  # the CPU reports none
        monkeypatch.setattr(comm.client, "default_device", lambda: FakeGpu(GPU_STATS))
        monkeypatch.setattr(comm.client, "devices", lambda platform=None: [FakeGpu(GPU_STATS)])
        assert channel.snapshot()["memory"] == {"bytes_in_use": 3 * 2 ** 20,
                                                "peak_bytes_in_use": 2 ** 30,
                                                "bytes_limit": 80 * 2 ** 30}
    finally:
        channel._unsubscribe()


def test_bytes_per_device_of_split_and_replicated_arrays():
    """In a two-device process: an array split over its devices (as pmap's results are) has a
    block on each, a replicated one all of it on each; the total is the devices' sum."""
    code = textwrap.dedent("""
        import jxkernel, numpy as np
        from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
        from jxkernel.memory import Row, memory_report
        d = jxkernel.devices()
        mesh = Mesh(np.array(d), ("i",))
        stacked = jxkernel.device_put(np.ones((2, 3), np.float32), NamedSharding(mesh, P("i")))
        copies = jxkernel.device_put(np.ones(5, np.float32), NamedSharding(mesh, P()))
        one = jxkernel.device_put(np.ones(2, np.int8), d[1])
        report = memory_report([stacked, copies, one])
        both = ("cpu:0", "cpu:1")
        assert report.rows == (Row(None, (5,), "float32", both, 1, 40),
                               Row(None, (2, 3), "float32", both, 1, 24),
                               Row(None, (2,), "int8", ("cpu:1",), 1, 2)), report.rows
        assert report.devices == (("cpu:0", 2, 32), ("cpu:1", 3, 34)), report.devices
        assert report.total_bytes == 66
        assert {id(a) for a in jxkernel.live_arrays()} >= {id(stacked), id(copies), id(one)}
        """)
    run_code(code, {"JXKERNEL_CPU_DEVICES": "2"})


def test_bad_arrays_are_refused():
    with pytest.raises(TypeError, match="arrays must hold jxkernel Arrays; got int 1"):
        memory_report([jnp.ones(2), 1])


def test_cell_origins_without_a_shell():
    pytest.importorskip("IPython")
    from jxkernel.notebook.cell_origins import BEFORE, RUNNING, UNKNOWN, CellOrigins
    before = jnp.ones(29)
    origins = CellOrigins()
    between = jnp.ones(29)
    assert (origins.origin(before), origins.origin(between)) == (BEFORE, UNKNOWN)
    origins.cell_started()
    during = jnp.ones(29)
    assert origins.origin(during) == RUNNING
    origins.cell_finished("In[9]")
    assert [origins.origin(x) for x in (before, between, during)] == [BEFORE, "In[9]", "In[9]"]


# ------------------------------------------------------------------ %jxmemory
shell = shell_fixture("import jxkernel, jxkernel.numpy as jnp")


def cell(shell, source, **kwargs) -> str:
    """Run `source` as a numbered cell; its label, In[n]."""
    result = shell.run_cell(source, store_history=kwargs.get("store_history", True))
    assert result.success, result.error_in_exec or result.error_before_exec
    return f"In[{result.execution_count}]"


def rows_of(shell, label) -> list:
    report = shell.run_line_magic("jxmemory", "")
    return [r for r in report.rows if r.cell == label]


A = "{p}1 = jnp.ones((7, 3)); {p}2 = jnp.zeros((7, 3)); {p}3 = jnp.arange(11, dtype=jnp.int32)"
B = "{p}1 = jnp.ones((2, 5, 4)); {p}2 = jnp.zeros((7, 3))"


def test_rows_name_the_cells_that_made_the_arrays(shell):
    cell(shell, A.format(p="warm_a") + "; " + B.format(p="warm_b"))   # caches filled
    first, second = cell(shell, A.format(p="a")), cell(shell, B.format(p="b"))
    assert rows_of(shell, first) == [Row(first, (7, 3), "float32", ("cpu:0",), 2, 168),
                                     Row(first, (11,), "int32", ("cpu:0",), 1, 44)]
    assert rows_of(shell, second) == [Row(second, (2, 5, 4), "float32", ("cpu:0",), 1, 160),
                                      Row(second, (7, 3), "float32", ("cpu:0",), 1, 84)]
    report = shell.run_line_magic("jxmemory", "--backend cpu")
    assert report.devices[0][0] == "cpu:0"
    assert report.devices[0][1:] == (report.total_arrays, report.total_bytes)
    assert report.total_bytes == sum(r.bytes for r in report.rows)

    cell(shell, "del a1")                                # deleting removes it from its row
    assert rows_of(shell, first) == [Row(first, (7, 3), "float32", ("cpu:0",), 1, 84),
                                     Row(first, (11,), "int32", ("cpu:0",), 1, 44)]
    cell(shell, "a3.delete()")
    assert rows_of(shell, first) == [Row(first, (7, 3), "float32", ("cpu:0",), 1, 84)]


def test_text_rendering_in_the_shell(shell):
    from IPython.utils.capture import capture_output
    made = cell(shell, "t1 = jnp.ones((3, 31)); t2 = jnp.ones((3, 31))")
    with capture_output():
        result = shell.run_cell("%jxmemory")
    shown, _ = shell.display_formatter.format(result.result)      # the cell's Out, formatted
    assert set(shown) >= {"text/plain", "text/html", MEMORY_MIME}
    lines = shown["text/plain"].splitlines()
    assert lines[0].startswith("live arrays on cpu: ")
    assert lines[1].split() == ["cell", "shape", "dtype", "device", "count", "bytes"]
    # the rows as the table gives them, in its order (arrays other tests in this process keep
    # alive come first, "before %load_ext", and may fill the MAX_SHOWN rows the text shows)
    report = result.result
    table = [" ".join(cells).split() for cells in report.table()]
    assert [ln.split() for ln in lines[2:2 + len(table)]] == table
    assert Row(made, (3, 31), "float32", ("cpu:0",), 2, 744) in report.rows
    if len(report.rows) <= MAX_SHOWN:
        assert [made, "(3,", "31)", "float32", "cpu:0", "2", "744"] in table
    else:
        assert any(ln.startswith(f"… {len(report.rows) - MAX_SHOWN} more rows") for ln in lines)
    assert lines[-2].startswith("cpu:0: ")
    assert lines[-1] == "allocator (bytes in use, peak, limit): not reported by the cpu backend"


def test_a_report_in_the_same_cell_marks_its_arrays_as_running(shell):
    label = cell(shell, "r1 = jnp.ones(37)\nrunning = %jxmemory")
    shown = [r for r in shell.user_ns["running"].rows if r.shape == (37,)]
    assert shown == [Row("this cell (running)", (37,), "float32", ("cpu:0",), 1, 148)]
    assert rows_of(shell, label) == [Row(label, (37,), "float32", ("cpu:0",), 1, 148)]


def test_a_cell_without_history_has_no_number(shell):
    cell(shell, "h1 = jnp.ones(41)", store_history=False)
    report = shell.run_line_magic("jxmemory", "")
    assert [r.cell for r in report.rows if r.shape == (41,)] == ["a cell run without history"]


def test_a_bad_backend_is_refused(shell):
    from IPython.core.error import UsageError
    with pytest.raises(UsageError, match="%jxmemory --backend 'nope'"):
        shell.run_line_magic("jxmemory", "--backend nope")


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.memory", {"jxkernel": jxkernel})
    pytest.importorskip("IPython")
    check_docstring_examples("jxkernel.notebook.cell_origins", {"jxkernel": jxkernel})
