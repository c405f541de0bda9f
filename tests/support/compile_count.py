"""`pytest --count-compiles`: how many programs XLA compiled for each test file (issue 45).

XLA's compiles are ~90 % of the suite's CPU time (~14,000 small programs at 30-40 ms of fixed
cost each), and unlike seconds on a shared machine, their number is the same on every run. So
a change that is meant to make the suite faster is measured by counting them:

    pytest -p no:cacheprovider --count-compiles tests/numpy tests/lax
    pytest --count-compiles --count-compiles-json=compiles.json tests/lax/test_fft.py

At the end the files are listed by compiles, most first, with the CPU seconds their tests took
(a hint only: other processes slow it), the part of those spent in XLA's compiler (the rest
is tracing, lowering, running and the tests' own Python), and the total. `--count-compiles-json=PATH` also
writes every test's count and CPU seconds ({"files": {file: n}, "tests": {nodeid: n},
"cpu_s": {file: s}, "cpu_s_tests": {nodeid: s}, "compile_cpu_s": {file: s}}). Under xdist each worker
counts its own tests and the controller adds them up.

What counts is a real compile: a call of XLA's compiler (`jxkernel.xla.compiler._compile`,
wrapped in the test process only; jxkernel itself is not changed). Programs found in the
in-memory or on-disk cache are not counted. A compile outside any test (a fixture of module
or session scope, in its setup) counts for the test whose setup ran it.
"""
from __future__ import annotations

import collections
import json
import os
import time

import pytest


def add_options(parser) -> None:
    group = parser.getgroup("compile-count", "counting XLA compiles (issue 45)")
    group.addoption("--count-compiles", action="store_true", default=False,
                    help="print the number of XLA compiles per test file at the end")
    group.addoption("--count-compiles-json", default=None, metavar="PATH",
                    help="with --count-compiles: write the counts per file and per test to PATH")
    group.addoption("--count-compiles-top", type=int, default=40, metavar="N",
                    help="with --count-compiles: list the N files with most compiles (default 40)")


def configure(config) -> None:
    config.pluginmanager.register(CollectionCompiles(), "jxkernel-collection-compiles")
    if config.getoption("--count-compiles") or config.getoption("--count-compiles-json"):
        config.pluginmanager.register(CompileCounter(config), "jxkernel-compile-counter")


class CollectionCompiles:
    """Collecting the suite compiles nothing: every xdist worker collects every file, so a
    program a test file makes at import (or in its parametrize lists) is compiled in each
    worker, whether or not it runs that file's tests (stop 82 found 77 such compiles, 7 s of
    CPU per worker). A file (or conftest, or folder) whose collection compiles fails to
    collect, naming itself and what to do; the run then stops as for any collection error."""

    def __init__(self, install: bool = True):
        self.compiles = 0
        self.collecting = True
        if install:
            from jxkernel.xla import compiler
            compiler._compile = self.counting(compiler._compile)

    def counting(self, real):
        """`real` (XLA's compile), counting its calls while pytest collects."""
        def compile_while_counting(*args, **kwargs):
            if self.collecting:
                self.compiles += 1
            return real(*args, **kwargs)
        compile_while_counting.__wrapped__ = real
        return compile_while_counting

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        before = self.compiles
        outcome = yield
        made = self.compiles - before
        report = outcome.get_result()
        if made and report.passed:
            report.outcome = "failed"
            report.longrepr = (
                f"collecting {collector.nodeid or collector.name} compiled {made} XLA "
                f"program{'s' if made > 1 else ''} (in every xdist worker, whether or not it runs "
                "these tests): make the values it computes at import on first use, "
                "functools.cache as tests/lax/test_lax_loops.py does; "
                "`pytest --collect-only --count-compiles` counts them under <collection>")

    def pytest_collection_finish(self, session):
        self.collecting = False


class CompileCounter:
    def __init__(self, config):
        self.config = config
        self.per_test = collections.Counter()
        self.cpu_per_file = collections.Counter()
        self.cpu_per_test = collections.Counter()
        self.compile_cpu_per_test = collections.Counter()
        self.current = "<collection>"
        self._installed = False
        self._install()

    # ---------------------------------------------------------------- counting
    def _install(self):
        if self._installed:
            return
        from jxkernel.xla import compiler
        real = compiler._compile
        counter = self

        def counting_compile(*args, **kwargs):
            counter.per_test[counter.current] += 1
            start = time.process_time()
            try:
                return real(*args, **kwargs)
            finally:
                counter.compile_cpu_per_test[counter.current] += time.process_time() - start

        counting_compile.__wrapped__ = real
        compiler._compile = counting_compile
        self._installed = True

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._install()
        self.current = item.nodeid
        start = time.process_time()
        yield
        spent = time.process_time() - start
        self.cpu_per_file[_file_of(item.nodeid)] += spent
        self.cpu_per_test[item.nodeid] += spent
        self.current = "<outside any test>"

    # ---------------------------------------------------------------- xdist
    def pytest_sessionfinish(self, session):
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:              # an xdist worker: the controller adds up
            workeroutput["jxkernel_compiles"] = json.dumps(
                {"tests": dict(self.per_test), "cpu": dict(self.cpu_per_file),
                 "cpu_tests": dict(self.cpu_per_test),
                 "compile_cpu": dict(self.compile_cpu_per_test)})

    def pytest_testnodedown(self, node, error):
        data = getattr(node, "workeroutput", {}).get("jxkernel_compiles")
        if data:
            data = json.loads(data)
            self.per_test.update(data["tests"])
            self.cpu_per_file.update(data["cpu"])
            self.cpu_per_test.update(data["cpu_tests"])
            self.compile_cpu_per_test.update(data["compile_cpu"])

    # ---------------------------------------------------------------- report
    def per_file(self) -> collections.Counter:
        files = collections.Counter()
        for nodeid, n in self.per_test.items():
            files[_file_of(nodeid)] += n
        return files

    def compile_cpu_per_file(self) -> collections.Counter:
        files = collections.Counter()
        for nodeid, s in self.compile_cpu_per_test.items():
            files[_file_of(nodeid)] += s
        return files

    def pytest_terminal_summary(self, terminalreporter):
        if hasattr(self.config, "workeroutput"):
            return
        files, compiling = self.per_file(), self.compile_cpu_per_file()
        write = terminalreporter.write_line
        terminalreporter.section("XLA compiles per test file")
        top = self.config.getoption("--count-compiles-top")
        for name, n in files.most_common(top):
            write(f"{n:7d}  {self.cpu_per_file.get(name, 0.0):7.1f} s cpu "
                  f"({compiling.get(name, 0.0):5.1f} s compiling)  {name}")
        if len(files) > top:
            rest = files.most_common()[top:]
            write(f"{sum(n for _, n in rest):7d}  in {len(rest)} more files")
        write(f"{sum(files.values()):7d}  compiles in all, in {len(files)} files "
              f"({sum(self.cpu_per_file.values()):.1f} s cpu in tests, "
              f"{sum(compiling.values()):.1f} s of it compiling)")
        path = self.config.getoption("--count-compiles-json")
        if path:
            with open(path, "w") as f:
                json.dump({"files": dict(files.most_common()),
                           "tests": dict(self.per_test.most_common()),
                           "cpu_s": {k: round(v, 2) for k, v in self.cpu_per_file.items()},
                           "cpu_s_tests": {k: round(v, 2)
                                           for k, v in self.cpu_per_test.most_common()},
                           "compile_cpu_s": {k: round(v, 2)
                                             for k, v in compiling.most_common()}},
                          f, indent=1)
            write(f"counts per test written to {os.path.abspath(path)}")


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]
