"""The recompilation log: every compile event, live, as a table and a plotly timeline,
with a filter by function and cache hits vs misses per function.

Your functions come first and alone by default, as %jxreport orders them
(compile_report.group_of): your functions only traced inside another (a lax.cond branch, a
loop body: nothing compiled of their own) are folded into one line, and the eager operations
(one primitive run outside jit, compiled per operand types and parameters), jxkernel's own
jitted functions (random's samplers, jnp's helpers) and those of libraries (an installed
package's, named with it, or one registered as not yours: compile_record.whose), which you do
not change, into one line per kind with a count (the
HTML opens it: one row per primitive or function, with the lines of yours that ran them);
the filter's "(all functions)", "(eager operations)", "(jxkernel functions)" and "(library
functions)" list them one by one.

    %jxcompiles                       your functions; the rest counted
    %jxcompiles (eager operations)    the eager operations, one by one

It subscribes to `jxkernel.compile_log` (and the extension refreshes the hit
counts after each cell, since hits produce no event). `close()` unsubscribes.
A recompilation's row is followed by its card: each change (path, kind, old -> new), the
fix and the fix as code; the JSON bundle's events carry it as "explanation": a list of
{"path", "kind", "old", "new", "fix", "snippet"} (see jxkernel/compile_report.py).
"""
from __future__ import annotations

import datetime
import time
import weakref

import ipywidgets as w

from ...core import compile_record, miss_words
from ...core.compile_record import EAGER, INTERNAL, USER
from ...views.recompile_explainer import explanation_text
from ...views.compile_report import INSIDE, changes_html, group_of
from ..notes.compile_notes import (LIBRARY, OTHER_KINDS, grouped, kind_of, packages_text,
                                   reason_said, signature_said)
from ...views.rich_view import esc
from ...views.views_json import compilations_bundle
from ..protocol import mime_type
from ._fallback import TextFallback

YOURS = "(your functions)"
ALL = "(all functions)"
GROUPS = {YOURS: (USER,), ALL: (USER, EAGER, INTERNAL, LIBRARY), "(eager operations)": (EAGER,),
          "(jxkernel functions)": (INTERNAL,), "(library functions)": (LIBRARY,)}
MAX_ROWS = 200
RECENT = 3              # compilations shown in full; the earlier ones open on a click
# A burst of compiles (a loop of eager operations, a sweep of shapes) redraws a live log at
# most this often; the cell's end draws what came after (catch_up, from post_run_cell). Each
# draw rebuilds up to MAX_ROWS rows and the timeline and sends them to the browser, and every
# %jxcompiles output stays subscribed after its cell is run again: drawn per event, the 62 logs
# one test file left open made it and the next, run in one process, take 68 s of CPU, not 11.
DRAW_INTERVAL_S = 0.5
# every log not yet closed, for catch_up (weak: a log nothing else holds may go)
_LIVE: weakref.WeakSet = weakref.WeakSet()
# a first call's reason in the theme's secondary text, a recompile's in its error colour
_FIRST, _AGAIN = "var(--jp-content-font-color2, #555)", "var(--jp-error-color1, #b00020)"


def _ms(s: float) -> str:
    return f"{s * 1e3:.1f}"


def named(e) -> str:
    """An event's function as the log lists it: an installed library's marked with its
    package ("tree_bias_correction (optax)"), as the folded groups name it
    (compile_notes.grouped)."""
    return f"{e.function} ({e.package})" if e.package and kind_of(e) == LIBRARY else e.function


def came_from(e) -> str:
    """Where an event's program came from: its cache ("compiled", "memory", "disk"; "traced"
    on the NumPy backend, miss_words.came_from), or the traced function it was traced inside
    (a lax.cond branch inside jit(relu): nothing compiled of its own, which "compiled" said
    it had)."""
    return miss_words.came_from(e) if e.inlined_into is None else f"inside {e.inlined_into}"


def compilation_count(events) -> str:
    """"3 compilation(s)" of `events` ("3 cache miss(es)" where one ran on the NumPy backend,
    which compiles nothing), and how many were traces inside another."""
    inside = sum(e.inlined_into is not None for e in events)
    more = f" and {inside} trace(s) inside another (nothing compiled of their own)" \
        if inside else ""
    return f"{miss_words.misses(len(events) - inside, miss_words.any_numpy(events))}{more}"


def _phase(events) -> str:
    """The last phase's name for a column of `events`: "compile", or "prepare" where one ran
    on the NumPy backend, which compiles nothing (miss_words.last_phase)."""
    return miss_words.last_phase(miss_words.NUMPY if miss_words.any_numpy(events) else "cpu")


def _counted(events) -> str:
    """A folded group's count: "114 compile(s)", or "114 cache miss(es)" on the NumPy
    backend."""
    return miss_words.misses(len(events), miss_words.any_numpy(events), "compile(s)")


def hit_miss(events) -> list:
    """[(function, misses, hits, total compile seconds)] per jitted function, in first-seen
    order; functions sharing a name (two cells, a redefinition) are added up."""
    by_key: dict = {}
    for e in events:
        row = by_key.setdefault(id(e.key) if e.key is not None else e.function,
                                [e.function, 0, compile_record.cache_hits(e.key), 0.0])
        row[1] += 1
        row[3] += e.total_s
    merged: dict = {}
    for name, misses, hits, seconds in by_key.values():
        m = merged.setdefault(name, [name, 0, 0, 0.0])
        m[1] += misses
        m[2] += hits
        m[3] += seconds
    return [tuple(r) for r in merged.values()]


def by_function_group(events) -> tuple:
    """(events of functions that compiled, events of the user's functions only traced inside
    another: a lax.cond branch, a loop body), compile_report.group_of's rule per function."""
    compiled_keys = {e.function_key for e in events if e.inlined_into is None}
    inside = [e for e in events if e.function_key not in compiled_keys
              and group_of(e.origin, 0) == INSIDE]
    folded = {id(e) for e in inside}
    return [e for e in events if id(e) not in folded], inside


def _inside_line(inside) -> str:
    keys = {e.function_key for e in inside}
    names = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n, _, _ in grouped(
        list({e.function_key: e for e in inside}.values())))
    return (f"{len(keys)} function(s) of yours traced inside another (a lax.cond branch, a "
            f"loop body), nothing compiled of their own: {names}")


# the timeline's two legends and its title, on XLA's backends and (True) on the NumPy backend
_TIMELINE = {False: ("first compile", "recompile",
                     "compilations over time (size: compile time)"),
             True: ("first cache miss", "cache miss again",
                    "cache misses over time (size: trace, lower and prepare time)")}


def catch_up() -> None:
    """Draw every open log that events reached since its last draw (DRAW_INTERVAL_S held
    them back): the extension's post_run_cell, so that a cell's last compiles show at its
    end."""
    for log in list(_LIVE):
        if log._behind:
            log._draw()


class RecompileLog(TextFallback, w.VBox):
    """Compile events as they happen. `function` preselects the filter."""

    def __init__(self, function: str | None = None, timeline: bool = True,
                 label: str | None = None):
        self._closed = False
        self._drawn_at, self._behind = float("-inf"), False    # (see DRAW_INTERVAL_S)
        # `function` a jit's function_key ("<lambda>@file.py:1#140..."): shown by `label`
        # ("grow (<lambda>)"), the key staying the filter's value (what `shown` compares)
        self._extra = [(label, function)] if label and function else []
        self.events = compile_record.compile_events()
        self.filter = w.Dropdown(description="function", options=list(GROUPS),
                                 layout=w.Layout(width="max-content"))
        self.refresh_button = w.Button(description="refresh", icon="refresh",
                                       layout=w.Layout(width="auto", flex="0 0 auto"))
        # plotly's first FigureWidget costs seconds (it imports nbformat, and with it
        # jsonschema's format grammars): without `timeline`, it is made on the first click
        self.timeline_button = w.Button(description="timeline", icon="line-chart",
                                        tooltip="Show the compilations over time (plotly)",
                                        layout=w.Layout(width="auto", flex="0 0 auto"))
        self.summary = w.HTML()
        self.table = w.HTML()
        self.stats = w.HTML()
        self.figure = None
        # the buttons keep their width; a long summary goes to a line of its own
        header = w.HBox([self.filter, self.refresh_button, self.timeline_button, self.summary],
                        layout=w.Layout(flex_flow="row wrap"))
        super().__init__([header, self.stats, self.table])
        self._unsubscribe = compile_record.subscribe(self._on_event)
        _LIVE.add(self)
        self.refresh_button.on_click(lambda _: self.refresh())
        self.timeline_button.on_click(lambda _: self.show_timeline())
        self.filter.observe(lambda _: self._draw(), "value")
        if timeline:
            self.show_timeline()
        self.refresh(select=function)

    def show_timeline(self):
        """Add the plotly timeline below the table (once; plotly missing: the table stays)."""
        if self.figure is None:
            self.figure = self._figure()
            if self.figure is not None:
                self.children = [*self.children, self.figure]
                self._draw()
        self.timeline_button.layout.display = "none" if self.figure is not None else None

    # ------------------------------------------------------------ updates
    def _on_event(self, event):
        self.events.append(event)
        self._sync_options()                # (cheap: the filter's names)
        if time.monotonic() - self._drawn_at < DRAW_INTERVAL_S:
            self._behind = True             # drawn by the next event after it, or catch_up
            return
        self._draw()

    def refresh(self, select: str | None = None):
        """Reread the log (and the hit counts, which change without events)."""
        if self._closed:
            return
        self.events = compile_record.compile_events()
        self._sync_options()
        if select is not None:
            if select not in self._values():
                self.filter.options = list(self.filter.options) + \
                    [(select, select) if self._extra else select]
            self.filter.value = select
        self._draw()

    def _sync_options(self):
        names = list(GROUPS) + sorted({e.function for e in self.events if kind_of(e) == USER})
        if self._extra:      # (label, value) pairs, all of them: ipywidgets reads a mix of
            names = [(n, n) for n in names] + self._extra     # names and pairs as values
        if list(self.filter.options) != names:
            keep = self.filter.value
            self.filter.options = names if keep in self._values(names) else \
                names + [(keep, keep) if self._extra else keep]
            self.filter.value = keep

    def _values(self, options=None) -> list:
        """The filter's values (an option is a name, or a (label, function_key) pair)."""
        return [o[1] if isinstance(o, tuple) else o
                for o in (self.filter.options if options is None else options)]

    def close(self):
        self._closed = True
        self._unsubscribe()
        _LIVE.discard(self)
        super().close()

    def shown(self) -> list:
        """The events the filter lets through."""
        f = self.filter.value
        origins = GROUPS.get(f or YOURS)
        return [e for e in self.events      # (f: a function's name, or one jit's function_key)
                if (kind_of(e) in origins if origins else f in (e.function, e.function_key))]

    def others(self) -> list:
        """The eager, jxkernel and library compiles "(your functions)" leaves out (else
        none)."""
        if (self.filter.value or YOURS) != YOURS:
            return []
        return [e for e in self.events if kind_of(e) != USER]

    # ------------------------------------------------------------ drawing
    def _draw(self):
        self._behind, self._drawn_at = False, time.monotonic()
        shown, others = self.shown(), self.others()
        total = _ms(sum(e.total_s for e in shown))
        more = f"; {len(others)} more of eager operations and jxkernel's or libraries' " \
            "functions" if others else ""
        self.summary.value = (f"<span style='font-size:12px;margin-left:1em'>"
                              f"{compilation_count(shown)}, {total} ms in all{more}</span>")
        self.table.value = self._table_html(shown)
        self.stats.value = self._stats_html(shown, others)
        if self.figure is not None:
            self._plot(shown)

    def _table_html(self, events) -> str:
        """The newest RECENT compilations in full; the earlier ones (up to MAX_ROWS) in a
        table that opens on a click. No box of fixed height: one would cut a line in half at
        its edge (and a card may be taller than the box)."""
        kept = events[-MAX_ROWS:]
        numbered = list(enumerate(kept, len(events) - len(kept) + 1))
        earlier, recent = numbered[:-RECENT], numbered[-RECENT:]
        html = ""
        if earlier:
            html += (f"<details class='jx-log-earlier'><summary style='cursor:pointer;"
                     f"font-size:12px'>{len(earlier)} earlier "
                     f"{'cache miss(es)' if miss_words.any_numpy(events) else 'compilation(s)'}"
                     f"</summary>"
                     f"{self._rows_table(earlier)}</details>")
        if len(events) > MAX_ROWS:
            html = (f"<div style='font-size:12px'><i>{len(events) - MAX_ROWS} older not listed "
                    f"(%jxreport has them all)</i></div>") + html
        return f"<div class='jx-log-rows'>{html}{self._rows_table(recent)}</div>"

    @staticmethod
    def _rows_table(numbered) -> str:
        # (the last phase's column: "prepare ms" on the NumPy backend, which compiles nothing)
        phase = f"{_phase([e for _, e in numbered])} ms"
        head = "".join(f"<th>{h}</th>" for h in ("#", "time", "function", "reason", "signature",
                                                 "trace ms", "lower ms", phase, "from",
                                                 "backend"))
        rows = []
        for i, e in numbered:
            when = datetime.datetime.fromtimestamp(e.timestamp).strftime("%H:%M:%S")
            sig = signature_said(e)        # in the learner's names, as the note's
            first = e.reason == "first call"
            rows.append(
                f"<tr><td>{i}</td><td>{when}</td><td><b>{esc(named(e))}</b></td>"
                f"<td style='color:{_FIRST if first else _AGAIN}'>{esc(reason_said(e))}</td>"
                f"<td><code>{esc(sig)}</code></td><td>{_ms(e.trace_s)}</td>"
                f"<td>{_ms(e.lower_s)}</td>"
                f"<td>{_ms(e.compile_s)}</td><td>{esc(came_from(e))}</td>"
                f"<td>{esc(e.backend)}</td></tr>")
            # the card: what changed, the fix, the fix as code, in the learner's names (an
            # eqx.filter_jit step's: CompileEvent.said_changes, as the note tells them)
            if e.said_changes:
                rows.append(f"<tr><td></td><td colspan=9>{changes_html(e.said_changes)}</td></tr>")
        body = "".join(rows) or "<tr><td colspan=10><i>no compilations yet</i></td></tr>"
        return (f"<table style='font-size:12px;border-collapse:collapse'><tr>{head}</tr>{body}"
                f"</table>")

    def _stats_html(self, events, others=()) -> str:
        compiled, inside = by_function_group(events)
        rows = "".join(f"<tr><td><b>{esc(n)}</b></td><td>{m}</td><td>{h}</td><td>{_ms(s)}</td></tr>"
                       for n, m, h, s in hit_miss(compiled))
        # a miss traced inside another traced function compiled nothing of its own, so the
        # column counts cache misses, not compiles; the time is every phase's (hit_miss), as
        # %jxreport heads it: "compile ms" read 36.8 beside a row of trace 36.8, compile 0.0
        # on the numpy backend
        head = ("<tr><th>function</th><th>cache misses</th><th>cache hits</th>"
                f"<th>ms (trace + lower + {_phase([*events, *others])})</th></tr>")
        folded = ""
        if inside:            # yours traced only inside another: folded apart (group_of)
            folded += (f"<details class='jx-group'><summary style='cursor:pointer'>"
                       f"{esc(_inside_line(inside))}</summary><table style='font-size:12px'>"
                       f"{head}{''.join(self._stat_rows(hit_miss(inside)))}</table></details>")
        for kind, title in OTHER_KINDS.items():     # folded after the user's functions
            mine = [e for e in others if kind_of(e) == kind]
            if mine:
                rows_of = "".join(
                    f"<tr class='jx-group'><td>{esc(name)} <span style='color:{_FIRST}'>"
                    f"{esc(', '.join(sites[:3]))}</span></td><td>{n}</td><td></td>"
                    f"<td>{_ms(s)}</td></tr>" for name, n, sites, s in grouped(mine))
                folded += (f"<details class='jx-group'><summary style='cursor:pointer'><i>"
                           f"{_counted(mine)} of {title} ({len(grouped(mine))} of "
                           f"them{esc(packages_text(mine))})</i></summary><table style='font-size:12px'>{head}{rows_of}"
                           f"</table></details>")
        return f"<table style='font-size:12px'>{head}{rows}</table>{folded}"

    @staticmethod
    def _stat_rows(rows) -> list:
        return [f"<tr><td><b>{esc(n)}</b></td><td>{m}</td><td>{h}</td><td>{_ms(s)}</td></tr>"
                for n, m, h, s in rows]

    def _figure(self):
        try:
            import plotly.graph_objects as go
        except ImportError:              # the table alone still tells everything
            return None
        fig = go.FigureWidget()
        for name, color in zip(_TIMELINE[False], ("#1f77b4", "#d62728")):
            fig.add_scatter(x=[], y=[], mode="markers", name=name, marker={"color": color},
                            hovertemplate="%{text}<extra></extra>", text=[])
        fig.update_layout(height=260, margin={"l": 10, "r": 10, "t": 30, "b": 10},
                          title={"text": _TIMELINE[False][2],
                                 "font": {"size": 12}},
                          xaxis_title=None, yaxis={"type": "category"})
        return fig

    def _plot(self, events):
        numpy = miss_words.any_numpy(events)
        with self.figure.batch_update():
            # named for what happened: on the NumPy backend nothing compiles, each is a miss
            for trace, name in zip(self.figure.data, _TIMELINE[numpy][:2]):
                trace.name = name
            self.figure.layout.title.text = _TIMELINE[numpy][2]
            for trace, first in zip(self.figure.data, (True, False)):
                mine = [e for e in events if (e.reason == "first call") == first]
                trace.x = [datetime.datetime.fromtimestamp(e.timestamp) for e in mine]
                trace.y = [e.function for e in mine]
                trace.text = [f"{esc(e.function)}: {esc(e.reason)}<br>{_ms(e.total_s)} ms"
                              for e in mine]
                trace.marker.size = [min(40, 6 + (e.total_s * 1e3) ** 0.5 * 2) for e in mine]

    # ------------------------------------------------------------ fallbacks
    def text_repr(self) -> str:
        events = self.shown()
        lines = [compilation_count(events)]
        for i, e in enumerate(events[-MAX_ROWS:], 1):
            lines.append(f"{i:3d}. {named(e)}: {reason_said(e)} — trace {_ms(e.trace_s)} ms, lower "
                         f"{_ms(e.lower_s)} ms, {miss_words.last_phase(e.backend)} {_ms(e.compile_s)} ms "
                         f"({came_from(e)}, {e.backend})")
            if e.said_changes:
                lines.append(explanation_text(e.said_changes, "       "))
        compiled, inside = by_function_group(events)
        lines.append("function: misses / hits")
        lines += [f"  {n}: {m} / {h}" for n, m, h, _ in hit_miss(compiled)]
        if inside:
            lines.append(_inside_line(inside))
        lines += self._folded_lines()
        return "\n".join(lines)

    def _folded_lines(self) -> list:
        """The others' one line each, as compile_report.group_of folds them: '114 compile(s)
        of eager operations (29 of them), folded: %jxcompiles (eager operations) lists
        them' (learner6's log listed its 29 primitives under the learner's 23 compilations)."""
        others, lines = self.others(), []
        for kind, title in OTHER_KINDS.items():
            mine = [e for e in others if kind_of(e) == kind]
            if mine:
                group = next(g for g, origins in GROUPS.items() if origins == (kind,))
                lines.append(f"{_counted(mine)} of {title} ({len(grouped(mine))} of "
                             f"them{packages_text(mine)}), folded: %jxcompiles {group} lists "
                             f"them")
        return lines

    def html_repr(self) -> str:
        shown = self.shown()
        return f"<div>{self._stats_html(shown, self.others())}{self._table_html(shown)}</div>"

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, and the log as it is now for a saved notebook (like the HTML)."""
        data, meta = super()._repr_mimebundle_(**kwargs)
        chosen = self.filter.value
        shown = self.shown()
        data[mime_type("CompilationsBundle")] = compilations_bundle(
            shown, title="" if chosen in (None, ALL, YOURS) else chosen)
        return data, meta
