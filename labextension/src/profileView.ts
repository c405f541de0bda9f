/**
 * The `application/vnd.jxkernel.profile+json` bundle (`%timeit --phases`,
 * jxkernel.timing.profile): where a jitted call's time goes, one row per phase (trace,
 * lower, compile, dispatch, device) with its median and spread, and a bar of the median
 * over a lighter band from the fastest to the slowest sample (a log scale).
 */
import { bundleOf, each } from './bundle';
import { el, table } from './dom';
import { freshCompiles } from './missWords';
import { IPhase, IProfileBundle } from './protocol';

function read(bundle: unknown): IProfileBundle {
  const b = bundleOf<IProfileBundle>(bundle, {
    function: 'string', runs: 'number', compiles: 'number', compile_source: 'string',
    backend: 'string?', phases: 'list', notes: 'list'
  });
  each(b.phases, 'phases', {
    name: 'string', kind: 'string', samples_s: 'list', min_s: 'number?', median_s: 'number?',
    max_s: 'number?', std_s: 'number?'
  });
  return b;
}

/** Seconds in the unit that keeps 3 significant digits readable: 12.3 µs, 4.56 ms, 1.20 s. */
export function duration(s: number | null): string {
  if (s === null) {
    return '–';
  }
  const [scale, unit] = s >= 1 ? [1, 's'] : s >= 1e-3 ? [1e3, 'ms'] : s >= 1e-6 ? [1e6, 'µs'] : [1e9, 'ns'];
  return `${(s * scale).toPrecision(3)} ${unit}`;
}

/** A log scale from the decade under the fastest sample to the one over the slowest: compile
 * phases take 1000x the run phases, so a linear scale would leave those without a bar. */
function logScale(phases: IPhase[]): [number, number] | null {
  const times = phases.flatMap(p => [p.min_s, p.max_s]).filter((s): s is number => s !== null && s > 0);
  if (!times.length) {
    return null;
  }
  const lo = Math.floor(Math.log10(Math.min(...times)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...times))));
  return [lo, hi];
}

function bar(p: IPhase, scale: [number, number] | null): HTMLElement {
  const track = el('span', 'jx-Profile-track');
  if (p.median_s === null || p.min_s === null || p.max_s === null || !scale) {
    return track;
  }
  const at = (s: number) => Math.max(0, (100 * (Math.log10(s) - scale[0])) / (scale[1] - scale[0]));
  const band = el('span', 'jx-Profile-spread');
  band.style.left = `${at(p.min_s)}%`;
  band.style.width = `${Math.max(0.5, at(p.max_s) - at(p.min_s))}%`;
  const median = el('span', `jx-Profile-median jx-mod-${p.kind === 'compile' ? 'compile' : 'run'}`);
  median.style.width = `${at(p.median_s)}%`;
  track.append(band, median);
  track.title = `median ${duration(p.median_s)}, from ${duration(p.min_s)} to ${duration(p.max_s)}`;
  return track;
}

export function profileView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const node = el('div', 'jx-Profile');
  const compiles = b.compile_source === 'fresh' ? freshCompiles(b.compiles, b.backend) : `compile phases: ${b.compile_source}`;
  node.appendChild(el('div', 'jx-View-title', `phases of ${b.function}: ${b.runs} runs, ${compiles}`));
  const scale = logScale(b.phases);
  const axis = scale ? `, log scale ${duration(10 ** scale[0])} to ${duration(10 ** scale[1])}` : '';
  const t = table(
    'jx-View-table jx-Profile-table',
    ['phase', 'median', 'min', 'max', 'std', 'samples', `median (bar), min–max (band)${axis}`],
    b.phases.map(p => [p.name, duration(p.median_s), duration(p.min_s), duration(p.max_s), duration(p.std_s), String(p.samples_s.length), ''])
  );
  Array.from(t.tBodies[0].rows).forEach((tr, i) => {
    tr.cells[6].className = 'jx-Profile-barCell';
    tr.cells[6].appendChild(bar(b.phases[i], scale));
  });
  node.appendChild(t);
  const notes = el('ul', 'jx-Profile-notes');
  b.notes.forEach(n => notes.appendChild(el('li', '', String(n))));
  node.appendChild(notes);
  return node;
}
