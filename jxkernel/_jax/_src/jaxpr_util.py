"""jxkernel._src.jaxpr_util, as jax._src.jaxpr_util: counts over a jaxpr's equations, its
nested jaxprs' included (a jit's, a cond's branches): by primitive, by primitive and source
line, by primitive and result types, by source line; and the equations that read a variable.
Each equation with the frames that made it (`_all_eqns_with_traceback`), as a pprof profile
of where a program's equations come from (`pprof_equation_profile`) or a page showing the
jaxpr with each equation's frames (`jaxpr_to_html`).

    >>> import jxkernel as jax, jxkernel.numpy as jnp
    >>> jaxpr = jax.make_jaxpr(lambda x: jnp.sin(jax.jit(jnp.sin)(x)) + 1.0)(1.0).jaxpr
    >>> sorted(primitives(jaxpr).items())
    [('add', 1), ('jit', 1), ('sin', 2)]
    >>> primitives_by_shape(jaxpr)["sin :: float32[]"], count_eqns(jaxpr)
    (2, 4)
"""
from __future__ import annotations

import base64
import gzip
import html
import itertools
import json
from collections import Counter, defaultdict

from ...core.ir import ClosedJaxpr, DropVar, Literal, pp_toplevel
from ...core.source_info import Traceback
from ...xla import portable
from ..extend.core import jaxprs_in_params, subjaxprs
from ..extend.source_info_util import is_user_filename, raw_frame_to_frame, summarize


def _plain(jaxpr):
    return jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr


def all_eqns(jaxpr, revisit_inner_jaxprs: bool = True):
    """(the jaxpr holding it, equation) for every equation, nested jaxprs' after their
    holder's; a jaxpr nested twice is visited once unless `revisit_inner_jaxprs`."""
    seen = None if revisit_inner_jaxprs else set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            yield jaxpr, eqn
        for inner in subjaxprs(jaxpr):
            if seen is None:
                yield from walk(inner)
            elif inner not in seen:
                seen.add(inner)
                yield from walk(inner)
    return walk(_plain(jaxpr))


def count_eqns(jaxpr, revisit_inner_jaxprs: bool = True) -> int:
    """How many equations `jaxpr` has, its nested jaxprs' included."""
    return sum(1 for _ in all_eqns(jaxpr, revisit_inner_jaxprs))


def collect_eqns(jaxpr, key) -> dict:
    """key(eqn) -> the equations with that key."""
    found = defaultdict(list)
    for _, eqn in all_eqns(jaxpr):
        found[key(eqn)].append(eqn)
    return dict(found)


def histogram(jaxpr, key, key_fmt=lambda k: k) -> dict:
    """key_fmt(key(eqn)) -> how many equations have that key."""
    return {key_fmt(k): len(v) for k, v in collect_eqns(jaxpr, key).items()}


def primitives(jaxpr) -> dict:
    """primitive name -> how many equations bind it."""
    return histogram(jaxpr, lambda eqn: eqn.primitive.name)


def primitives_by_source(jaxpr) -> dict:
    """"name @ file:line (function)" -> count."""
    return histogram(jaxpr, lambda eqn: (eqn.primitive.name, summarize(eqn.source_info)),
                     " @ ".join)


def primitives_by_shape(jaxpr) -> dict:
    """"name :: result types" -> count, each type as JAX's `aval.str_short()` writes it by
    default (`float32[2]`; a dropped result is `*`)."""
    def types(eqn):
        return " ".join("*" if isinstance(v, DropVar) else v.aval.str_short()
                        for v in eqn.outvars)
    return histogram(jaxpr, lambda eqn: (eqn.primitive.name, types(eqn)), " :: ".join)


def source_locations(jaxpr) -> dict:
    """"file:line (function)" -> how many equations that line made."""
    return histogram(jaxpr, lambda eqn: summarize(eqn.source_info))


def eqns_using_var(jaxpr, invar):
    """The innermost equations that read `invar`: an equation whose params hold jaxprs (a
    jit, a cond) is looked into, at the binder its operand is bound to."""
    for eqn in _plain(jaxpr).eqns:
        index = next((i for i, atom in enumerate(eqn.invars)
                      if not isinstance(atom, Literal) and atom is invar), None)
        if index is None:
            continue
        inner = list(jaxprs_in_params(eqn.params))
        if not inner:
            yield eqn
        for sub in inner:
            if index >= len(sub.invars):
                raise RuntimeError(f"Failed to find index {index} in jaxpr.invars while "
                                   f"building report")
            yield from eqns_using_var(sub, sub.invars[index])


def _traceback(eqn) -> Traceback | None:
    info = eqn.source_info
    return None if info is None or info.code is None else info.traceback


def _all_eqns_with_traceback(jaxpr, caller_tb: Traceback | None, visited: set):
    """(traceback, equation) for every equation, each nested jaxpr's once (`visited`), its
    equations' tracebacks followed by that of the equation holding it (JAX's `tb + caller`:
    an inner jit's equation is made at its line, under the line that called the jit)."""
    for eqn in _plain(jaxpr).eqns:
        tb = _traceback(eqn)
        if caller_tb is not None:
            tb = caller_tb if tb is None else tb + caller_tb
        yield tb, eqn
        for inner in jaxprs_in_params(eqn.params):
            if inner not in visited:
                visited.add(inner)
                yield from _all_eqns_with_traceback(inner, tb, visited)


def _strip_workspace_root(filename: str, workspace_root: str) -> str:
    i = filename.rfind(workspace_root)
    return filename[i + len(workspace_root):] if i >= 0 else filename


def pprof_equation_profile(jaxpr, *, workspace_root: str | None = None) -> bytes:
    """A gzipped pprof profile (protocol buffer) of where `jaxpr`'s equations were made: a
    sample per (traceback, primitive), valued by how many equations share it, so `pprof`
    shows which lines of Python made most of a program (JAX's)."""
    counts = Counter((tb, eqn.primitive) for tb, eqn in
                     _all_eqns_with_traceback(jaxpr, None, set()))
    strings = defaultdict(itertools.count(1).__next__)
    functions = defaultdict(itertools.count(1).__next__)
    locations = defaultdict(itertools.count(1).__next__)
    strings[""] = 0
    primitive_key = strings["primitive"]
    samples = []
    for (tb, primitive), count in counts.items():
        codes, lastis = tb.raw_frames() if tb is not None else ([], [])
        frames = [locations[(c, i)] for c, i in zip(codes, lastis)
                  if is_user_filename(c.co_filename)]
        samples.append({"location_id": frames, "value": [count],
                        "label": [{"key": primitive_key, "str": strings[primitive.name]}]})
    location_list = [{"id": loc_id, "line": [{"function_id": functions[code],
                                              "line": Traceback.code_addr2line(code, lasti)}]}
                     for (code, lasti), loc_id in locations.items()]
    function_list = []
    for code, func_id in functions.items():
        filename = code.co_filename
        if workspace_root is not None:
            filename = _strip_workspace_root(filename, workspace_root)
        name = f"{filename.removesuffix('.py').replace('/', '.')}.{code.co_qualname}"
        function_list.append({"id": func_id, "name": strings[name],
                              "filename": strings[filename], "start_line": code.co_firstlineno})
    comment = _comment(jaxpr, workspace_root)
    sample_type = {"type": strings["equations"], "unit": strings["count"]}
    comment_id = strings[comment]
    profile = json.dumps({"string_table": list(strings), "location": location_list,
                          "function": function_list, "sample_type": [sample_type],
                          "sample": samples, "comment": comment_id})
    return gzip.compress(portable.pprof_profile(profile))


def _comment(jaxpr, workspace_root) -> str:
    """The profile's comment, JAX's "f at file:line" of the traced function, where the jaxpr
    knows it (jxkernel's jaxprs keep no debug info: empty then)."""
    info = getattr(jaxpr, "debug_info", None)
    if info is None:
        return ""
    comment = info.func_name
    filename = getattr(info, "func_filename", None)
    if filename:
        if workspace_root is not None:
            filename = _strip_workspace_root(filename, workspace_root)
        comment += f" at {filename}"
    lineno = getattr(info, "func_lineno", None)
    return comment + (f":{lineno}" if lineno else "")


def jaxpr_to_html(jaxpr) -> str:
    """A page showing `jaxpr` as text, each equation clickable to list the frames that made
    it (its traceback), with the data JAX's page embeds: a gzipped, base64 JSON of `lines`
    (the text, an equation's line wrapped in a span naming its traceback's node), `frames`
    (file, function, line and column, as indices into `strings`), `dag` (each traceback a
    path of nodes, outermost first) and `string_to_lines` (a file or function -> the lines
    it made, for searching)."""
    marks: list = []

    def note(info) -> str:            # each equation's line marked with its SourceInfo
        marks.append(info)
        return f"@{len(marks) - 1}"
    text = pp_toplevel(_plain(jaxpr), note)
    frame_ids: dict = {}
    dag: list = []
    node_ids: dict = {}
    strings: dict = {}
    line_nodes = defaultdict(set)

    def node_of(tb: Traceback) -> int | None:
        codes, lastis = tb.raw_frames()
        parent = None
        for code, lasti in zip(reversed(codes), reversed(lastis)):     # outermost first
            frame = frame_ids.setdefault((code, lasti), len(frame_ids))
            key = (frame, parent)
            if key not in node_ids:
                node_ids[key] = len(dag)
                dag.append({"frame_idx": frame, "parent": parent})
            parent = node_ids[key]
        return parent

    lines = []
    for number, line in enumerate(text.split("\n")):
        shown, sep, mark = line.rpartition(" # @")
        info = marks[int(mark)] if sep else None
        if info is None or info.code is None:
            lines.append(html.escape(shown.rstrip() if sep else line))
            continue
        node = node_of(info.traceback)
        if node is None:                # (no frame of the user's)
            lines.append(html.escape(shown.rstrip()))
            continue
        shown = shown.rstrip()
        body = shown.lstrip()
        indent = shown[:len(shown) - len(body)]
        lines.append(f'{indent}<span class="traceable" data-tb-idx="{node}">'
                     f'{html.escape(body)}</span>')
        line_nodes[number].add(node)
    frames = []
    for code, lasti in frame_ids:
        frame = raw_frame_to_frame(code, lasti)
        frames.append({"file_idx": strings.setdefault(frame.file_name, len(strings)),
                       "func_idx": strings.setdefault(frame.function_name, len(strings)),
                       "line": frame.start_line, "col": frame.start_column})
    string_to_lines = defaultdict(set)
    for number, nodes in line_nodes.items():
        for node in nodes:
            while node is not None:
                frame = frames[dag[node]["frame_idx"]]
                string_to_lines[frame["file_idx"]].add(number)
                string_to_lines[frame["func_idx"]].add(number)
                node = dag[node]["parent"]
    data = {"frames": frames, "dag": dag, "strings": list(strings), "lines": lines,
            "string_to_lines": {str(k): sorted(v) for k, v in string_to_lines.items()}}
    encoded = base64.b64encode(gzip.compress(json.dumps(data).encode())).decode()
    return _PAGE.replace("@DATA@", encoded)


# jaxpr_to_html's page: the jaxpr on the left, the clicked equation's frames on the right
_PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<style>
  body { display: flex; font-family: monospace; margin: 0; height: 100vh; }
  #jaxpr-container { flex: 7; overflow: auto; padding: 10px; background: #f5f5f5; }
  .line { white-space: pre; line-height: 18px; }
  .traceable { cursor: pointer; background: #e8f0fe; }
  .traceable:hover, .selected { background: #aecbfa; }
  #side-pane { flex: 3; overflow: auto; padding: 10px; border-left: 1px solid #ccc; }
  .frame { margin-bottom: 8px; }
  .frame-func { color: #1a73e8; font-weight: bold; }
  .frame-file { color: #5f6368; }
</style>
</head>
<body>
<div id="jaxpr-container"></div>
<div id="side-pane">Click an equation to see the frames that made it.</div>
<script>
const base64Data = "@DATA@";
const esc = s => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
async function load() {
  const bytes = Uint8Array.from(atob(base64Data), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const data = JSON.parse(await new Response(stream).text());
  const container = document.getElementById("jaxpr-container");
  container.innerHTML = data.lines.map(l => `<div class="line">${l}</div>`).join("");
  container.addEventListener("click", event => {
    const span = event.target.closest(".traceable");
    if (!span) return;
    document.querySelectorAll(".selected").forEach(e => e.classList.remove("selected"));
    span.classList.add("selected");
    const rows = [];
    for (let node = Number(span.dataset.tbIdx); node !== null; node = data.dag[node].parent) {
      const frame = data.frames[data.dag[node].frame_idx];
      rows.push(`<div class="frame"><div class="frame-func">${esc(data.strings[frame.func_idx])}` +
                `</div><div class="frame-file">${esc(data.strings[frame.file_idx])}:` +
                `${frame.line}:${frame.col}</div></div>`);
    }
    document.getElementById("side-pane").innerHTML = rows.join("");
  });
}
load();
</script>
</body>
</html>
"""
