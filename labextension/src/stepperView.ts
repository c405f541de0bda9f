/**
 * The `application/vnd.jxkernel.stepper+json` bundle (jxkernel.notebook.step): the jaxpr
 * with a gutter (▶ the next equation, ● a breakpoint, ! the first NaN), the equations not
 * run yet dimmed, then a table of every value computed so far with its statistics and an
 * 8-bin histogram drawn as small bars.
 */
import { bundleOf, each, fields } from './bundle';
import { el, table } from './dom';
import { IStepperBundle, IStepperVariable } from './protocol';

function read(bundle: unknown): IStepperBundle {
  const b = bundleOf<IStepperBundle>(bundle, {
    name: 'string', position: 'number', n_equations: 'number', done: 'boolean',
    head: 'string', tail: 'string', equations: 'list', variables: 'list', nan: 'object?'
  });
  each(b.equations, 'equations', {
    index: 'number', text: 'string', source: 'string?', ran: 'boolean', current: 'boolean',
    breakpoint: 'boolean'
  });
  each(b.variables, 'variables', {
    name: 'string', aval: 'string', origin: 'string', min: 'number?', max: 'number?',
    mean: 'number?', nan: 'number', inf: 'number', hist: 'list', hist_range: 'list?'
  });
  // the finding, then where inside a called body or a loop's iteration it was made
  for (let nan = b.nan, path = 'nan'; nan; nan = nan.inside, path += '.inside') {
    fields(nan, path, {
      index: 'number?', primitive: 'string?', vars: 'list', source: 'string?', inside: 'object?',
      step: 'string?'
    });
    each(nan.vars, `${path}.vars`, { name: 'string', nan: 'number' });
  }
  return b;
}

// null, or missing: in JupyterLite Python's None arrives as undefined and JupyterLab's copy of
// the output's data drops such fields
const stat = (v: number | null | undefined) =>
  v === null || v === undefined ? '–' : Number.isInteger(v) ? String(v) : v.toPrecision(4);

function histogram(v: IStepperVariable): HTMLElement {
  const box = el('span', 'jx-Stepper-hist');
  const top = Math.max(0, ...v.hist.map(Number));
  v.hist.forEach(n => {
    const bar = el('span', 'jx-Stepper-histBar');
    bar.style.height = `${top > 0 ? Math.max(n > 0 ? 8 : 0, (100 * Number(n)) / top) : 0}%`;
    box.appendChild(bar);
  });
  const range = v.hist_range ? ` between ${stat(v.hist_range[0])} and ${stat(v.hist_range[1])}` : '';
  box.title = v.hist.length ? `${v.hist.join(', ')}: finite elements in ${v.hist.length} bins${range}` : 'no finite element';
  return box;
}

type Nan = NonNullable<IStepperBundle['nan']>;

// one finding's words: what made the NaN, where, in which values
function nanWords(nan: Nan): string {
  const vars = nan.vars.map(v => `${v.name} (${v.nan} NaN)`).join(', ');
  const what = nan.index === null ? 'an input holds NaN' : `NaN made by ${nan.primitive}`;
  const where = nan.source ? ` at ${nan.source}` : '';
  return `${what}${where}: ${vars}`;
}

// the finding, then one line per body it was made inside (a jit, a scan's iteration 3, a
// cond's branch 1), as the text view's "inside scan (iteration 3): ..."
function nanLine(b: IStepperBundle): HTMLElement | null {
  if (!b.nan) {
    return null;
  }
  const box = el('div', 'jx-Stepper-nan', `! first ${nanWords(b.nan)}`);
  if (b.nan.source_line) {
    box.appendChild(el('code', 'jx-Stepper-nanCode', b.nan.source_line));
  }
  for (let outer = b.nan, inner = b.nan.inside; inner; outer = inner, inner = inner.inside) {
    const step = outer.step ? ` (${outer.step})` : '';
    const line = el('div', 'jx-Stepper-nanInside', `inside ${outer.primitive}${step}: ${nanWords(inner)}`);
    if (inner.source_line) {
      line.appendChild(el('code', 'jx-Stepper-nanCode', inner.source_line));
    }
    box.appendChild(line);
  }
  return box;
}

function program(b: IStepperBundle): HTMLElement {
  const box = el('div', 'jx-Stepper-jaxpr');
  box.appendChild(el('div', 'jx-Stepper-row', `   ${b.head}`));
  for (const eqn of b.equations) {
    const isNan = !!b.nan && b.nan.index === eqn.index;
    const mods = [eqn.current && 'jx-mod-current', !eqn.ran && 'jx-mod-pending', isNan && 'jx-mod-nan'];
    const row = el('div', ['jx-Stepper-row', ...mods.filter(Boolean)].join(' '));
    const gutter = `${eqn.current ? '▶' : ' '}${eqn.breakpoint ? '●' : ' '}${isNan ? '!' : ' '}`;
    row.appendChild(el('span', 'jx-Stepper-gutter', gutter));
    row.appendChild(el('span', 'jx-Stepper-eqn', `  ${eqn.text}`));
    if (eqn.source) {
      row.appendChild(el('span', 'jx-Stepper-source', `  ${eqn.source}`));
      row.title = eqn.source_line ? `${eqn.source}: ${eqn.source_line}` : eqn.source;
    }
    box.appendChild(row);
  }
  box.appendChild(el('div', 'jx-Stepper-row', `   ${b.tail}`));
  return box;
}

export function stepperView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const node = el('div', 'jx-Stepper');
  const at = b.done ? 'done' : `next: equation ${b.position + 1} of ${b.n_equations}`;
  node.appendChild(el('div', 'jx-View-title', `stepper: ${b.name} · ${at}`));
  const nan = nanLine(b);
  if (nan) {
    node.appendChild(nan);
  }
  node.appendChild(program(b));
  const vars = table(
    'jx-View-table jx-Stepper-vars',
    ['name', 'type', 'from', 'min', 'max', 'mean', 'NaN', 'inf', 'histogram'],
    b.variables.map(v => [v.name, v.aval, v.origin, stat(v.min), stat(v.max), stat(v.mean), String(v.nan), String(v.inf), ''])
  );
  Array.from(vars.tBodies[0].rows).forEach((tr, i) => {
    const v = b.variables[i];
    tr.cells[8].appendChild(histogram(v));
    tr.classList.toggle('jx-mod-nan', v.nan > 0);
  });
  node.appendChild(vars);
  return node;
}
