/**
 * The `application/vnd.jxkernel.report+json` bundle (`%jxreport`): the session's
 * compilations: totals, a table per jitted function (compilations, recompilations, cache
 * hits, time), then each compilation, its recompiles' explanation as change cards (what
 * changed, old → new, the fix and the code for it).
 */
import { bundleOf, each, fields } from './bundle';
import { el, table } from './dom';
import { again, anyNumpy, cacheSaid, compiles, lastPhase, misses, plural } from './missWords';
import { IChange, IReportBundle, IReportEvent } from './protocol';

function read(bundle: unknown): IReportBundle {
  const b = bundleOf<IReportBundle>(bundle, { config: 'object', totals: 'object', functions: 'list', events: 'list' });
  fields(b.config, 'config', { backend: 'string' });
  fields(b.totals, 'totals', {
    compilations: 'number', recompilations: 'number', cache_hits: 'number', functions: 'number',
    trace_ms: 'number', lower_ms: 'number', compile_ms: 'number'
  });
  each(b.functions, 'functions', {
    function: 'string', source: 'string?', compilations: 'number', recompilations: 'number',
    cache_hits: 'number', trace_ms: 'number', lower_ms: 'number', compile_ms: 'number'
  });
  each<IReportEvent>(b.events, 'events', {
    seq: 'number', function: 'string', signature: 'list', reason: 'string', trace_ms: 'number',
    lower_ms: 'number', compile_ms: 'number', cache: 'string', explanation: 'list'
  }).forEach((e, i) => each(e.explanation, `events[${i}].explanation`, {
    path: 'string', kind: 'string', old: 'string?', new: 'string?', fix: 'string', snippet: 'string?'
  }));
  return b;
}

const ms = (v: number) => v.toFixed(1);

/** The kinds said in words alone (the kernel's Change.__str__, kind_word): their keys are the
 * kernel's, not words a learner can look up ("fresh_jit" headed a new jit object's card). */
const UNNAMED_KINDS = new Set(['fresh_jit', 'fresh_body', 'traced_for', 'committed']);

function changeCard(c: IChange): HTMLElement {
  const card = el('div', 'jx-Report-change');
  const head = el('div', 'jx-Report-changeHead');
  if (!UNNAMED_KINDS.has(c.kind)) {
    head.appendChild(el('span', 'jx-Report-kind', c.kind));
  }
  head.appendChild(el('code', '', c.path));
  if (c.old !== null || c.new !== null) {
    head.append(': ');
    head.appendChild(el('code', 'jx-Report-old', String(c.old ?? '–')));
    head.append(' → ');
    head.appendChild(el('code', 'jx-Report-new', String(c.new ?? '–')));
  }
  card.appendChild(head);
  card.appendChild(el('div', 'jx-Report-fix', c.fix));
  if (c.snippet) {
    card.appendChild(el('pre', 'jx-Report-snippet', c.snippet));
  }
  return card;
}

function eventBox(e: IReportEvent): HTMLElement {
  const box = el('div', e.reason === 'first call' ? 'jx-Report-event' : 'jx-Report-event jx-mod-recompile');
  const head = el('div', 'jx-Report-eventHead');
  head.appendChild(el('span', 'jx-Report-seq', `#${e.seq}`));
  head.appendChild(el('code', 'jx-Report-function', e.function));
  head.appendChild(el('span', 'jx-Report-reason', e.reason));
  const total = e.trace_ms + e.lower_ms + e.compile_ms;
  // a retrace inside another traced function compiled nothing (as the kernel's text says):
  // "0.0 ms, compiled" claimed a compile for a lax.cond branch traced inside jit(relu)
  head.appendChild(el('span', 'jx-Report-time', e.inlined_into
    ? `traced inside ${e.inlined_into}, nothing compiled of its own`
    : `${ms(total)} ms, ${cacheSaid(e)}`));
  head.title = `(${e.signature.map(([n, t]) => `${n}: ${t}`).join(', ')}); trace ${ms(e.trace_ms)} ms, lower ${ms(e.lower_ms)} ms, ${lastPhase(e.backend)} ${ms(e.compile_ms)} ms`;
  box.appendChild(head);
  e.explanation.forEach(c => box.appendChild(changeCard(c)));
  return box;
}

/** `numpy`: the report's misses ran on the NumPy backend, which compiles nothing (missWords). */
function functionsTable(functions: IReportBundle['functions'], numpy: boolean): HTMLTableElement {
  const fns = table('jx-View-table', numpy
    ? ['function', 'defined at', 'cache misses', 'again', 'cache hits', 'ms (trace + lower + prepare)']
    : ['function', 'defined at', 'compilations', 'recompilations', 'cache hits', 'ms (trace + lower + compile)'],
    functions.map(f => [f.function, f.source ?? (f.function.endsWith('(eager)') ? '' : '?'), String(f.compilations), String(f.recompilations), String(f.cache_hits), ms(f.trace_ms + f.lower_ms + f.compile_ms)]));
  Array.from(fns.tBodies[0].rows).forEach((tr, i) => tr.cells[3].classList.toggle('jx-CompileLog-recompile', functions[i].recompilations > 0));
  return fns;
}

export function reportView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const t = b.totals;
  const node = el('div', 'jx-Report');
  // the NumPy backend compiles nothing: there its misses are cache misses, traced (missWords)
  // (one of its events ran there; with none, the backend it was made on: compile_report.py's rule)
  const numpy = b.events.length ? anyNumpy(b.events) : !compiles(b.config.backend);
  node.appendChild(el('div', 'jx-View-title',
    `${misses(t.compilations, numpy)} (${again(t.recompilations, numpy)}) of ` +
    `${plural(t.functions, 'function')}, ${plural(t.cache_hits, 'cache hit')} on ${b.config.backend}; ` +
    `trace ${ms(t.trace_ms)} ms, lower ${ms(t.lower_ms)} ms, ${lastPhase(numpy ? 'numpy' : b.config.backend)} ${ms(t.compile_ms)} ms`));
  // Your functions first; yours only traced inside another folded apart; eager operations
  // and jxkernel's or libraries' functions folded below them: the kernel's one rule
  // (compile_report.group_of, which its text, HTML and %jxcompiles follow), sent as `group`.
  // learner6's session listed 118 of the others among its 13 compilations, and ten rows of
  // zeros for lambdas traced inside a lax.cond or a loop. A bundle of an older kernel has no
  // `group`: the same rule, worked out from origin and compilations.
  const originOf = new Map<string, string>();
  b.events.forEach(e => { if (e.origin) { originOf.set(e.function_key, e.origin); } });
  const theirs = (key: string) => (originOf.get(key) ?? 'user') !== 'user';
  const fnGroup = (f: IReportBundle['functions'][number]) =>
    f.group ?? (theirs(f.function_key) ? 'others' : f.compilations > 0 ? 'yours' : 'inside');
  const evGroup = (e: IReportEvent) => e.group ?? ((e.origin ?? 'user') !== 'user' ? 'others' : 'yours');
  const inside = b.functions.filter(f => fnGroup(f) === 'inside');
  const fnsYours = b.functions.filter(f => fnGroup(f) === 'yours');
  const fnsOther = b.functions.filter(f => fnGroup(f) === 'others');
  const evYours = b.events.filter(e => evGroup(e) !== 'others');
  const evOther = b.events.filter(e => evGroup(e) === 'others');
  if (fnsOther.length || evOther.length) {
    const mine = evYours.filter(e => !e.inlined_into).length;
    const recompiled = fnsYours.reduce((n, f) => n + f.recompilations, 0);
    node.appendChild(el('div', 'jx-Report-yours',
      `your functions: ${misses(mine, numpy)} (${again(recompiled, numpy)}) of ` +
      `${plural(fnsYours.length, 'function')}; ${evOther.length} more of eager operations and ` +
      `jxkernel's or libraries' functions, folded below`));
  }
  if (fnsYours.length) {
    node.appendChild(functionsTable(fnsYours, numpy));
  }
  if (inside.length) {
    const folded = el('details', 'jx-Report-others');
    folded.appendChild(el('summary', '', `${plural(inside.length, 'function')} of yours traced ` +
      `inside another (a lax.cond branch, a loop body), nothing compiled of ${inside.length === 1 ? 'its' : 'their'} own`));
    folded.appendChild(functionsTable(inside, numpy));
    node.appendChild(folded);
  }
  evYours.forEach(e => node.appendChild(eventBox(e)));
  if (fnsOther.length || evOther.length) {
    const folded = el('details', 'jx-Report-others');
    folded.appendChild(el('summary', '', `${misses(evOther.length, numpy)} of eager ` +
      `operations and jxkernel's or libraries' functions (${fnsOther.length} of them), for your calls`));
    if (fnsOther.length) {
      folded.appendChild(functionsTable(fnsOther, numpy));
    }
    evOther.forEach(e => folded.appendChild(eventBox(e)));
    node.appendChild(folded);
  }
  return node;
}
