/**
 * The `application/vnd.jxkernel.compilations+json` bundle (%jxcompiles): the recompilation
 * log as it was when the cell ran, one row per compilation, recompiles' reasons marked.
 */
import { el, table } from './dom';
import { anyNumpy, cacheSaid, lastPhase, misses, plural } from './missWords';
import { ICompilationsBundle, IReportEvent } from './protocol';

const ms = (v: number) => (typeof v === 'number' ? v.toFixed(1) : '–');

/** Where an event's program came from: its cache ("compiled", "memory", "disk"; "traced" on
 * the NumPy backend, missWords.cacheSaid), or, for a function traced anew inside another
 * traced function (a lax.cond branch inside jit(relu)), that function: it compiled nothing of
 * its own, and "compiled" said it had. */
export function cameFrom(e: IReportEvent): string {
  return e.inlined_into ? `inside ${e.inlined_into}` : cacheSaid(e);
}

/** "3 compilations" of `events` ("3 cache misses" where one ran on the NumPy backend, which
 * compiles nothing), and how many were traces inside another (none compiled). */
export function compilationCount(events: IReportEvent[]): string {
  const inside = events.filter(e => e.inlined_into).length;
  const n = events.length - inside;
  return misses(n, anyNumpy(events)) +
    (inside ? ` and ${plural(inside, 'trace')} inside another (nothing compiled of ${inside === 1 ? 'its' : 'their'} own)` : '');
}

export function compilationsView(bundle: ICompilationsBundle): HTMLElement {
  const events = bundle.events ?? [];
  const node = el('div', 'jx-CompileLog');
  const total = events.reduce((s, e) => s + e.trace_ms + e.lower_ms + e.compile_ms, 0);
  const what = bundle.title ? ` of ${bundle.title}` : '';
  node.appendChild(
    el(
      'div',
      'jx-View-title',
      `${compilationCount(events)}${what}, ${ms(total)} ms in all`
    )
  );
  const rows = events.map((e, i) => [
    String(i + 1),
    new Date(e.time * 1000).toLocaleTimeString(),
    e.function,
    e.reason,
    (e.signature ?? []).map(([n, t]) => `${n}: ${t}`).join(', '),
    ms(e.trace_ms),
    ms(e.lower_ms),
    ms(e.compile_ms),
    cameFrom(e),
    e.backend
  ]);
  const t = table(
    'jx-View-table',
    ['#', 'time', 'function', 'reason', 'signature', 'trace ms', 'lower ms',
      anyNumpy(events) && events.every(e => e.backend === events[0].backend)
        ? `${lastPhase(events[0].backend)} ms` : 'compile ms', 'from', 'backend'],
    rows
  );
  Array.from(t.tBodies[0].rows).forEach((tr, i) => {
    if (events[i].reason !== 'first call') {
      tr.cells[3].classList.add('jx-CompileLog-recompile');
    }
  });
  node.appendChild(t);
  return node;
}
