"""The session's compilations as one report: every compile event with what changed and the
fix, cache hits and misses per jitted function, and where the time went. Plain Python (no
IPython), so scripts use it too; `%jxreport` shows it or writes it to a file.

    >>> data = report()                      # a dict; report("json") / report("html"): text
    >>> data["totals"]["compilations"] + data["totals"]["retraces"] == len(data["events"])
    True

The JSON (`application/vnd.jxkernel.report+json` in the notebook, the file of
`report("json", file)`) is a dict:

    version       1
    generated     seconds since the epoch
    config        {"jax_enable_x64": bool, "backend": "cpu"}
    totals        {"compilations", "recompilations", "retraces", "cache_hits", "functions",
                   "trace_ms", "lower_ms", "compile_ms"}
    functions     per jitted function (a redefined function is a new one), first seen first
                  (source: where it was defined, "In[3]:1" for a notebook cell's line
                  (views/source.defined_at); for jxkernel's own (jax.random.normal's
                  `_normal`) the user's lines that called it: "called at In[11]:21"):
                  {"function", "function_key", "source", "compilations", "recompilations",
                   "retraces", "cache_hits", "trace_ms", "lower_ms", "compile_ms", "group"}
                  (group: "yours", "inside" or "others", group_of: where the views put it)
    events        oldest first (source: null for jxkernel's own function):
                  {"seq", "time", "function", "function_key", "source",
                   "signature": [[path, type]], "reason", "trace_ms", "lower_ms",
                   "compile_ms", "cache", "backend", "explanation": [change], "inlined_into",
                   "origin", "library", "group"}
                  (origin: "user", "internal" (jxkernel's or a registered library's own
                  function; library: true for the latter) or "eager" (an operation outside
                  jit), CompileEvent.origin;
                  inlined_into: null for a compilation; for a retrace, a jitted function
                  traced anew inside another traced function that compiled nothing of its
                  own, that function: "jit(outer)", or a control-flow body traced anew, the
                  loop or traced function it is part of: "lax.scan", "jit(f)")
    change        {"path", "kind", "old", "new", "fix", "snippet"}: kind is one of shape,
                  dtype, weak_type, static, traced, structure, constant, config, fresh_jit,
                  fresh_body, traced_for (recompile_explainer.KINDS); a first call has none,
                  unless a jit or body of the same code was made before (fresh_jit,
                  fresh_body)

The HTML is one self-contained page (no script: readable in any browser and in a static
export), everything user-controlled escaped.
"""
from __future__ import annotations

import json
import time

from . import recompile_explainer
from ..core import compile_record, miss_words
from ..core.compile_record import INTERNAL, LIBRARY, USER
from ..core.config import config
from ..xla import client
from .rich_view import RichView, esc
from .schema import mime_type
from .signature_changes.change import Change, kind_word
from .source import defined_at, label

REPORT_MIME = mime_type("ReportBundle")
VERSION = 1
FORMATS = ("dict", "json", "html", "text")


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 3)


def change_json(change) -> dict:
    return change.to_json() if hasattr(change, "to_json") else dict(change)


def event_json(event) -> dict:
    """One compile event with its explanation."""
    return {"seq": event.seq, "time": event.timestamp, "function": event.function,
            "function_key": event.function_key, "source": _defined_at(event),
            "signature": [[str(path), str(aval)] for path, aval in event.signature],
            "reason": event.reason, "trace_ms": _ms(event.trace_s),
            "lower_ms": _ms(event.lower_s), "compile_ms": _ms(event.compile_s),
            "cache": event.cache, "backend": event.backend,
            "explanation": [change_json(c) for c in miss_words.fixes_said(event, event.changes)],
            "inlined_into": event.inlined_into,
            # whose work (compile_record.whose, as the notes and the status bar count it): the
            # user's function, jxkernel's or a library's own (library: true: an installed
            # package's or a registered library's), or an eager operation, as the panel's
            # groups tell them apart
            "origin": _origin(event), "library": compile_record.whose(event) == LIBRARY,
            "group": group_of(_origin(event))}


def _origin(event) -> str:
    """The origin a report and the panel group `event` by: compile_record.whose's, a
    library's told as INTERNAL with `library` (the protocol's field) set."""
    kind = compile_record.whose(event)
    return INTERNAL if kind == LIBRARY else kind


# Where a report puts a function or a compilation, one rule for every view of it: the text and
# HTML here, %jxcompiles (widgets/recompiles.py) and the lab's %jxreport view (reportView.ts
# reads the same two fields: origin, compilations). learner6's session had 13 compilations of
# the learner's among 118 of eager operations and jxkernel's functions, and ten of the
# learner's lambdas traced only inside a lax.cond or a loop (rows of zeros): listed alike,
# they drowned the learner's own.
YOURS, INSIDE, OTHERS = "yours", "inside", "others"


def group_of(origin, compilations: int = 1) -> str:
    """YOURS (the user's function, compiled), INSIDE (the user's, only traced inside another
    traced function: a lax.cond branch, a loop body, nothing compiled of its own) or OTHERS
    (eager operations, jxkernel's or libraries' functions): shown first, folded apart, folded
    with a count. An event is YOURS or OTHERS (a trace inside another says so itself).

        >>> group_of("user", 2), group_of("user", 0), group_of("eager", 5), group_of(None)
        ('yours', 'inside', 'others', 'yours')
    """
    if (origin or USER) != USER:          # a report written before origin was kept: the user's
        return OTHERS
    return YOURS if compilations else INSIDE


def grouped_report(data: dict) -> dict:
    """report_data's functions and events by group_of: {group: {"functions", "events"}}."""
    origin = {e["function_key"]: e.get("origin") for e in data["events"]}
    out = {g: {"functions": [], "events": []} for g in (YOURS, INSIDE, OTHERS)}
    for f in data["functions"]:       # a report written before "group" was kept: worked out
        group = f.get("group") or group_of(origin.get(f["function_key"]), f["compilations"])
        out[group]["functions"].append(f)
    for e in data["events"]:
        out[e.get("group") or group_of(e.get("origin"))]["events"].append(e)
    return out


def yours_line(groups: dict) -> str:
    """The line counting the user's compilations and what is folded ('' when nothing is)."""
    yours, inside, others = (groups[g] for g in (YOURS, INSIDE, OTHERS))
    if not (others["functions"] or others["events"]):
        return ""
    mine = sum(e["inlined_into"] is None for e in yours["events"])
    again = sum(f["recompilations"] for f in yours["functions"])
    numpy = _on_numpy(None, yours["events"] + others["events"])
    return (f"your functions: {miss_words.misses(mine, numpy)} "
            f"({miss_words.again(again, numpy)}) of "
            f"{len(yours['functions'])} function(s); {len(others['events'])} more of eager "
            f"operations and jxkernel's or libraries' functions, folded below")


def _jxkernels_own(event) -> bool:
    return event.origin == INTERNAL and not event.library


def _defined_at(event) -> str | None:
    """Where the report says `event`'s function was defined: defined_at, but none for
    jxkernel's own (jax.random.normal's `_normal`): our file is no place a learner can act
    on, and JAX 0.10.2 logs that program by its name alone ("Compiling jit(_normal) with
    global shapes and types (ShapedArray(key<fry>[]),)", tests/data)."""
    return None if _jxkernels_own(event) else defined_at(event.source)


def _called_at(events) -> str | None:
    """'called at In[11]:21, In[11]:22': the user's lines that ran jxkernel's own function
    (the first three), what a function row says in place of its file."""
    sites = []
    for e in events:
        site = label(e.call_site) if e.call_site is not None else ""
        if site and site not in sites:
            sites.append(site)
    more = f" and {len(sites) - 3} more" if len(sites) > 3 else ""
    return f"called at {', '.join(sites[:3])}{more}" if sites else None


def function_rows(events) -> list:
    """Per jitted function (by function_key): the user's functions first, then eager
    operations and jxkernel's or libraries' own functions (CompileEvent.origin), each in
    first-seen order. jxkernel's own function's source is where the user called it
    (_called_at), not its file."""
    rows: dict = {}
    theirs = set()
    own: dict = {}
    for e in events:
        if _origin(e) != USER:
            theirs.add(e.function_key)
        if _jxkernels_own(e):
            own.setdefault(e.function_key, []).append(e)
        row = rows.get(e.function_key)
        if row is None:
            row = rows[e.function_key] = {
                "function": e.function, "function_key": e.function_key,
                "source": _defined_at(e),
                "compilations": 0, "recompilations": 0, "retraces": 0,
                "cache_hits": compile_record.cache_hits(e.key) if e.key is not None else 0,
                "trace_ms": 0.0, "lower_ms": 0.0, "compile_ms": 0.0}
        row["compilations"] += e.compiled
        row["recompilations"] += e.compiled and e.reason != "first call"
        row["retraces"] += not e.compiled         # inlined into another program
        for part in ("trace", "lower", "compile"):
            row[f"{part}_ms"] = round(row[f"{part}_ms"] + getattr(e, f"{part}_s") * 1e3, 3)
    for key, mine in own.items():
        rows[key]["source"] = _called_at(mine)
    for row in rows.values():
        row["group"] = group_of(INTERNAL if row["function_key"] in theirs else USER,
                                row["compilations"])
    return sorted(rows.values(), key=lambda row: row["function_key"] in theirs)


def report_data(events=None) -> dict:
    """The report as a dict (the JSON's fields); `events` defaults to the whole log."""
    events = compile_record.compile_events() if events is None else list(events)
    functions = function_rows(events)
    totals = {"compilations": sum(e.compiled for e in events),
              "recompilations": sum(f["recompilations"] for f in functions),
              "retraces": sum(f["retraces"] for f in functions),
              "cache_hits": sum(f["cache_hits"] for f in functions),
              "functions": len(functions)}
    for part in ("trace", "lower", "compile"):
        totals[f"{part}_ms"] = round(sum(f[f"{part}_ms"] for f in functions), 3)
    return {"version": VERSION, "generated": time.time(),
            "config": {"jax_enable_x64": bool(config.jax_enable_x64),
                       "backend": _backend_name()},
            "totals": totals, "functions": functions,
            "events": [event_json(e) for e in events]}


def _backend_name() -> str:
    return client.platform_of(client.default_device())


# what the report says in place of an empty table of the user's functions
NONE_OF_YOURS = "No function of yours compiled yet."


# ------------------------------------------------------------------ text
def to_text(data: dict) -> str:
    """The report for a terminal: totals, your functions and their compilations with their
    changes, then (group_of) yours traced only inside another and the rest, each counted."""
    t = data["totals"]
    groups = grouped_report(data)
    numpy = _on_numpy(data)
    lines = [f"{miss_words.misses(t['compilations'], numpy)} "
             f"({miss_words.again(t['recompilations'], numpy)}) of "
             f"{t['functions']} function(s), {t['cache_hits']} cache hit(s); trace "
             f"{t['trace_ms']:.1f} ms, lower {t['lower_ms']:.1f} ms, "
             f"{miss_words.last_phase('numpy' if numpy else 'cpu')} {t['compile_ms']:.1f} ms"]
    mine = yours_line(groups)
    lines += [mine] if mine else []
    if groups[YOURS]["functions"] or groups[YOURS]["events"]:
        lines += [f"function: {'cache misses' if numpy else 'compilations'} / cache hits"] + \
            _function_lines(
            groups[YOURS]["functions"])
        lines += _event_lines(groups[YOURS]["events"])
    elif not mine:
        lines.append(NONE_OF_YOURS)
    inside = groups[INSIDE]["functions"]
    if inside:
        lines.append(f"{len(inside)} function(s) of yours traced inside another (a lax.cond "
                     f"branch, a loop body), nothing compiled of their own:")
        lines += _function_lines(inside)
    others = groups[OTHERS]
    if others["functions"] or others["events"]:
        lines.append(f"{miss_words.misses(len(others['events']), numpy)} of eager operations and "
                     f"jxkernel's or libraries' functions ({len(others['functions'])} of "
                     f"them), for your calls:")
        lines += _function_lines(others["functions"])
        lines += _event_lines(others["events"])
    return "\n".join(lines)


def _on_numpy(data, events=None) -> bool:
    """Whether the report's misses are the NumPy backend's, which compiles nothing (its words
    are miss_words'): one of its events ran there (`events`: of these), or, with none, it was
    made with that backend selected."""
    events = data["events"] if events is None else events
    if events:
        return any(not miss_words.compiles(e["backend"]) for e in events)
    return data is not None and not miss_words.compiles(data["config"]["backend"])


def _function_lines(functions) -> list:
    # an eager operation is defined nowhere (as the lab's view leaves its cell empty)
    return [f"  {f['function']}"
            f"{'' if f['function'].endswith(' (eager)') else ' (' + (f['source'] or '?') + ')'}"
            f": {f['compilations']} / {f['cache_hits']}" for f in functions]


def _event_lines(events) -> list:
    lines = []
    for e in events:
        total = e["trace_ms"] + e["lower_ms"] + e["compile_ms"]
        how = f"{total:.1f} ms, {miss_words.cache_said(e['cache'], e['backend'])}" \
            if e.get("inlined_into") is None else \
            f"traced inside {e['inlined_into']}, nothing compiled of its own"
        lines.append(f"#{e['seq']} {e['function']}: {e['reason']} ({how})")
        text = recompile_explainer.explanation_text([_AsChange(c) for c in e["explanation"]],
                                                    "    ")
        if text:
            lines.append(text)
    return lines


class _AsChange:
    """A change's JSON dict read like a Change (for explanation_text)."""

    def __init__(self, d):
        self.__dict__.update(d)

    def __str__(self):
        return str(Change(self.path, self.kind, self.old, self.new))


# ------------------------------------------------------------------ HTML
def changes_html(changes) -> str:
    """A card per change: what changed, the fix, and the fix as code (no script needed)."""
    cards = []
    for c in map(change_json, changes):
        snippet = f"<pre class='jx-fix-code'>{esc(c['snippet'])}</pre>" if c["snippet"] else ""
        word = kind_word(c["kind"])
        cards.append(
            f"<div class='jx-change' style='border-left:3px solid var(--jp-warn-color0, "
            f"#8a5a00);margin:4px 0;padding:2px 8px'><div><code>{esc(c['path'])}</code>"
            f"{f' <b>{esc(word)}</b>' if word else ''}: <code>{esc(c['old'])}</code> → "
            f"<code>{esc(c['new'])}</code></div><div>{esc(c['fix'])}</div>{snippet}</div>")
    return "".join(cards)


_STYLE = ("body{font-family:sans-serif;font-size:13px;margin:1em}table{border-collapse:"
          "collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
          "pre{background:#f5f5f5;padding:4px;margin:2px 0}.jx-recompile{color:#b00020}"
          "summary{cursor:pointer;margin:.5em 0}")


def to_html(data: dict, page: bool = True) -> str:
    """The report as HTML: a whole page, or (page=False) a fragment for the notebook."""
    t = data["totals"]
    numpy = _on_numpy(data)
    head = (f"<p>{miss_words.misses(t['compilations'], numpy)}, "
            f"{miss_words.again(t['recompilations'], numpy)}, "
            f"{t['cache_hits']} cache hit(s) over {t['functions']} function(s); trace "
            f"{t['trace_ms']:.1f} ms, lower {t['lower_ms']:.1f} ms, "
            f"{miss_words.last_phase('numpy' if numpy else 'cpu')} {t['compile_ms']:.1f} ms. "
            f"x64 {esc(data['config']['jax_enable_x64'])}, backend "
            f"{esc(data['config']['backend'])}.</p>")
    groups = grouped_report(data)
    mine = yours_line(groups)
    yours = groups[YOURS]
    # (on the NumPy backend, a report of cache misses: nothing compiles there)
    body = (f"<h2>jxkernel {'cache miss' if numpy else 'compilation'} report</h2>{head}"
            f"{f'<p><b>{esc(mine)}</b></p>' if mine else ''}")
    if yours["functions"] or yours["events"]:
        body += _functions_html(yours["functions"], numpy) + _events_html(yours["events"])
    elif not mine:          # no empty table: one sentence (the folded line counts them else)
        body += f"<p><i>{NONE_OF_YOURS}</i></p>"
    inside = groups[INSIDE]["functions"]
    if inside:
        body += _folded(f"{len(inside)} function(s) of yours traced inside another (a lax.cond "
                        f"branch, a loop body), nothing compiled of their own",
                        _functions_html(inside, numpy))
    others = groups[OTHERS]
    if others["functions"] or others["events"]:
        body += _folded(f"{miss_words.misses(len(others['events']), numpy)} of eager "
                        f"operations and jxkernel's or libraries' functions "
                        f"({len(others['functions'])} of them), for your calls",
                        _functions_html(others["functions"], numpy) +
                        _events_html(others["events"]))
    if not page:
        return f"<div class='jx-report'>{body}</div>"
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>jxkernel compilation "
            f"report</title><style>{_STYLE}</style></head><body>{body}</body></html>")


def _folded(summary: str, inner: str) -> str:
    """Closed until clicked (a <details>: no script needed)."""
    return f"<details class='jx-folded'><summary>{esc(summary)}</summary>{inner}</details>"


def _functions_html(functions, numpy: bool = False) -> str:
    """The functions' table; `numpy`: headed in the NumPy backend's words (cache misses,
    again, prepare ms: nothing compiles there), as the report view's (reportView.ts)."""
    cols = ("function", "source", "compilations", "recompilations", "cache_hits", "trace_ms",
            "lower_ms", "compile_ms")
    said = {"compilations": "cache misses", "recompilations": "again",
            "compile_ms": "prepare ms"} if numpy else {}
    rows = "".join("<tr>" + "".join(f"<td>{esc(f[c] if f[c] is not None else '')}</td>"
                                    for c in cols) + "</tr>" for f in functions)
    head = "".join(f"<th>{said.get(c, c.replace('_', ' '))}</th>" for c in cols)
    return f"<h3>Functions</h3><table><tr>{head}</tr>{rows}</table>"


def _events_html(events) -> str:
    items = []
    for e in events:
        sig = ", ".join(f"{p}: {a}" for p, a in e["signature"])
        again = " class='jx-recompile'" if e["reason"] != "first call" else ""
        # a retrace inside another traced function compiled nothing: said so, as to_text does
        how = f"trace {e['trace_ms']:.1f} ms, lower {e['lower_ms']:.1f} ms, " \
            f"{miss_words.last_phase(e['backend'])} {e['compile_ms']:.1f} ms " \
            f"({esc(miss_words.cache_said(e['cache'], e['backend']))}, {esc(e['backend'])})" \
            if e.get("inlined_into") is None else \
            f"traced inside {esc(e['inlined_into'])}, nothing compiled of its own"
        items.append(
            f"<li><b>{esc(e['function'])}</b> <span{again}>{esc(e['reason'])}</span> — "
            f"<code>({esc(sig)})</code>; {how}{changes_html(e['explanation'])}</li>")
    # (each a cache miss on the NumPy backend, which compiles nothing)
    title = "Cache misses" if any(not miss_words.compiles(e["backend"]) for e in events) \
        else "Compilations"
    return f"<h3>{title}</h3><ol>{''.join(items)}</ol>" if items else \
        "<h3>Compilations</h3><p><i>none yet</i></p>"


class ReportView(RichView):
    """The report as the notebook shows it: text for a terminal, HTML, and its JSON."""
    MIME = REPORT_MIME

    def __init__(self, data: dict | None = None):
        self.data = report_data() if data is None else data

    def __repr__(self):
        return to_text(self.data)

    def _repr_html_(self):
        return to_html(self.data, page=False)

    def to_json(self) -> dict:
        return self.data


# ------------------------------------------------------------------ entry point
def render(data: dict, format: str):
    """`data` (report_data's dict) in `format`: dict, json, html (a page) or text."""
    if format not in FORMATS:
        raise ValueError(f"report: `format` must be one of {', '.join(FORMATS)}; got "
                         f"{format!r}")
    return {"dict": lambda: data, "json": lambda: json.dumps(data, indent=1),
            "html": lambda: to_html(data), "text": lambda: to_text(data)}[format]()


def report(format: str = "dict", file=None):
    """The session's compilations (with their explanations), cache hits per function and
    timings in `format` (see render): a dict, or the text of a "json" / "html" report; with
    `file` (a path), also written there (as JSON for "dict"). Returns what it rendered.

        >>> json.loads(report("json"))["version"]
        1
    """
    if format not in FORMATS:
        raise ValueError(f"report: `format` must be one of {', '.join(FORMATS)}; got "
                         f"{format!r}")
    if file is not None and not isinstance(file, (str, bytes)) and not hasattr(file, "__fspath__"):
        raise TypeError(f"report: `file` must be a path (str or os.PathLike); got "
                        f"{type(file).__name__} {file!r}")
    data = report_data()
    out = render(data, format)
    if file is not None:
        text = out if isinstance(out, str) else json.dumps(out, indent=1)
        with open(file, "w", encoding="utf-8") as f:
            f.write(text)
    return out
