/**
 * The `application/vnd.jxkernel.explain+json` bundle (`%explain f(x)`, jxkernel.explain):
 * f's source lines beside three linked panes (jaxpr equations, StableHLO ops, XLA's
 * optimized HLO instructions). Selecting a source line (click, or Enter/Space on the
 * focused line; Up/Down move between lines) highlights that line's items in every pane and
 * scrolls the first of each into view; clicking an item selects its line, so its siblings
 * light up too. Each line has a bar by its estimated flops and its counts.
 */
import { bundleOf, each, fields } from './bundle';
import { el } from './dom';
import { plural } from './missWords';
import { IExplainBundle, IExplainInstruction, IExplainItem } from './protocol';
import { collectivesTable } from './shardingView';

type Line = IExplainBundle['lines'][number];
type Counts = IExplainBundle['per_line'][number];

const ITEM = { index: 'number', text: 'string', line_id: 'string?' } as const;

function read(bundle: unknown): IExplainBundle {
  const b = bundleOf<IExplainBundle>(bundle, {
    title: 'string', function: 'object', lines: 'list', equations: 'list',
    stablehlo: 'object', hlo: 'object', per_line: 'list', cost: 'object'
  });
  fields(b.function, 'function', { label: 'string' });
  each(b.lines, 'lines', { id: 'string', label: 'string', line: 'number', text: 'string' });
  each(b.equations, 'equations', ITEM);
  each(fields<IExplainBundle['stablehlo']>(b.stablehlo, 'stablehlo', { ops: 'list' }).ops, 'ops', ITEM);
  each(fields<IExplainBundle['hlo']>(b.hlo, 'hlo', { instructions: 'list' }).instructions, 'instructions', ITEM);
  each(b.per_line, 'per_line', {
    line_id: 'string', equations: 'number', stablehlo_ops: 'number',
    hlo_instructions: 'number', flops: 'number', transcendentals: 'number', bytes: 'number'
  });
  fields(b.cost, 'cost', { method: 'string?', xla: 'object?' });
  return b;
}

// XLA keeps the source location as metadata on every instruction: noise once it is linked
const withoutMetadata = (text: string) => text.replace(/,?\s*metadata=\{[^}]*\}/, '');

function lineRow(line: Line, counts: Counts | undefined, maxFlops: number): HTMLElement {
  const row = el('div', 'jx-Explain-line');
  row.dataset.lineId = line.id;
  row.tabIndex = -1;
  row.setAttribute('role', 'option');
  row.setAttribute('aria-selected', 'false');
  const where = line.in_function === false ? `${line.label}:${line.line}` : String(line.line);
  row.appendChild(el('span', 'jx-Explain-lineno', where));
  row.appendChild(el('span', 'jx-Explain-code', line.text));
  const meter = el('span', 'jx-Explain-meter');
  if (counts) {
    const bar = el('span', 'jx-Explain-bar');
    bar.style.width = `${maxFlops > 0 ? (100 * counts.flops) / maxFlops : 0}%`;
    meter.appendChild(bar);
    // flops make the bar; a line of sin/exp/log has transcendentals instead, said beside it
    const shown = [
      counts.flops ? plural(counts.flops, 'flop') : '',
      counts.transcendentals ? plural(counts.transcendentals, 'transcendental') : ''
    ];
    meter.appendChild(el('span', 'jx-Explain-counts', shown.filter(Boolean).join(' · ')));
    row.title = [
      plural(counts.equations, 'equation'),
      plural(counts.stablehlo_ops, 'StableHLO op'),
      plural(counts.hlo_instructions, 'HLO instruction'),
      plural(counts.flops, 'flop') + ' (estimated)',
      plural(counts.transcendentals, 'transcendental'),
      plural(counts.bytes, 'byte') + ' accessed'
    ].join(', ');
  }
  row.appendChild(meter);
  return row;
}

function pane(title: string, items: IExplainItem[], label: (item: IExplainItem) => string): HTMLElement {
  const box = el('section', 'jx-Explain-pane');
  box.appendChild(el('div', 'jx-Explain-paneTitle', `${title} (${items.length})`));
  const list = el('div', 'jx-Explain-items');
  let computation: string | undefined;
  for (const item of items) {
    if (item.computation !== undefined && item.computation !== computation) {
      computation = item.computation;
      list.appendChild(el('div', 'jx-Explain-group', `${computation}:`));
    }
    const row = el('div', item.line_id ? 'jx-Explain-item' : 'jx-Explain-item jx-mod-unlinked', label(item));
    row.title = item.line_id ? item.text : `${item.text}\n(no source line)`;
    if (item.line_id) {
      row.dataset.lineId = item.line_id;
    }
    row.style.paddingLeft = `${0.5 + 1.5 * (item.depth ?? 0)}em`;
    list.appendChild(row);
  }
  box.appendChild(list);
  return box;
}

/**
 * What the lines' counts leave out: instructions with costs whose source line XLA's optimizer
 * dropped (on the CPU a dot it rewrote into bitcasts and a dot; on a GPU a reduce fused into a
 * loop). Their costs are in the module's totals but on no line, so without this a one-line
 * function showed 8 of its 112 flops (the text view's "on no line"). Which ones the kernel
 * says (the bundle's `cost.unattributed`, the indices of `Explanation.unattributed`), so the
 * rule lives in Python alone. '' when none.
 *
 *     unattributedText([{index: 0, name: 'dot', opcode: 'dot', flops: 48, ...}], [0])
 *     // 'on no source line (XLA's optimizer dropped their lines): 48 flops: dot (dot, 48 flops)'
 */
export function unattributedText(
  instructions: Pick<IExplainInstruction, 'index' | 'name' | 'opcode' | 'flops' | 'transcendentals'>[],
  unattributed: number[]
): string {
  const lost = instructions.filter(i => unattributed.includes(i.index));
  if (!lost.length) {
    return '';
  }
  const sum = (key: 'flops' | 'transcendentals') => lost.reduce((total, i) => total + (i[key] || 0), 0);
  const counts = (flops: number, transcendentals: number) =>
    [flops ? plural(flops, 'flop') : '', transcendentals ? plural(transcendentals, 'transcendental') : '']
      .filter(Boolean).join(', ');
  const each = lost.map(i => `${i.name} (${i.opcode}, ${counts(i.flops, i.transcendentals)})`);
  const total = counts(sum('flops'), sum('transcendentals'));
  return `on no source line (XLA's optimizer dropped their lines): ${total}: ${each.join(', ')}`;
}

/** Puts `item` in the middle of its scrolling list without scrolling the page. */
function reveal(item: HTMLElement): void {
  const list = item.parentElement as HTMLElement;
  list.scrollTop = item.offsetTop - (list.clientHeight - item.offsetHeight) / 2; // list: position relative
}

export function explainView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const perLine = new Map(b.per_line.map(c => [c.line_id, c]));
  const maxFlops = Math.max(0, ...b.per_line.map(c => c.flops));
  const node = el('div', 'jx-Explain');
  const title = el('div', 'jx-View-title', 'explain ');
  title.appendChild(el('code', '', b.title));
  title.append(` · ${b.function.label}`);
  node.appendChild(title);
  const xla = b.cost.xla ?? {};
  const totals = ['flops', 'transcendentals', 'bytes accessed']
    .filter(k => typeof xla[k] === 'number')
    .map(k => `${(xla[k] as number).toLocaleString('en-US')} ${k}`);
  if (totals.length) {
    node.appendChild(el('div', 'jx-Explain-summary', `XLA's cost analysis of the module: ${totals.join(', ')}`));
  }

  const grid = el('div', 'jx-Explain-grid');
  const source = el('div', 'jx-Explain-source');
  source.setAttribute('role', 'listbox');
  source.setAttribute('aria-label', `source of ${b.title}: select a line to see its equations, ops and instructions`);
  const lines = b.lines.map(line => lineRow(line, perLine.get(line.id), maxFlops));
  source.append(...lines);
  if (lines.length) {
    lines[0].tabIndex = 0;
  }
  const lost = unattributedText(b.hlo.instructions, b.cost.unattributed);
  if (lost) {
    source.appendChild(el('div', 'jx-Explain-note', lost));
  }
  grid.appendChild(source);
  const panes = el('div', 'jx-Explain-panes');
  panes.appendChild(pane('jaxpr equations', b.equations, e => e.text));
  panes.appendChild(pane('StableHLO ops', b.stablehlo.ops, o => o.text));
  panes.appendChild(pane('optimized HLO', b.hlo.instructions, i => withoutMetadata(i.text)));
  grid.appendChild(panes);
  node.appendChild(grid);
  const communication = collectivesTable(b.collectives);
  if (communication) {
    node.appendChild(communication);
  }
  if (b.cost.method) {
    node.appendChild(el('div', 'jx-Explain-note', `Per-line counts: ${b.cost.method}.`));
  }

  const select = (lineId: string | undefined, clicked?: HTMLElement) => {
    for (const line of lines) {
      const on = line.dataset.lineId === lineId;
      line.classList.toggle('jx-mod-selected', on);
      line.setAttribute('aria-selected', String(on));
    }
    node.querySelectorAll<HTMLElement>('.jx-Explain-item').forEach(item => {
      item.classList.toggle('jx-mod-linked', !!lineId && item.dataset.lineId === lineId);
      item.classList.toggle('jx-mod-current', item === clicked);
    });
    if (!clicked) {
      panes.querySelectorAll<HTMLElement>('.jx-Explain-items').forEach(list => {
        const first = list.querySelector<HTMLElement>('.jx-mod-linked');
        if (first) {
          reveal(first);
        }
      });
    }
  };
  const focusLine = (line: HTMLElement) => {
    lines.forEach(l => (l.tabIndex = l === line ? 0 : -1));
    line.focus();
  };
  source.addEventListener('click', e => {
    const line = (e.target as HTMLElement).closest<HTMLElement>('.jx-Explain-line');
    if (line) {
      focusLine(line);
      select(line.dataset.lineId);
    }
  });
  source.addEventListener('keydown', e => {
    const at = lines.indexOf(e.target as HTMLElement);
    if (at < 0) {
      return;
    }
    const step = { ArrowUp: -1, ArrowDown: 1 }[e.key];
    if (step !== undefined) {
      focusLine(lines[Math.min(lines.length - 1, Math.max(0, at + step))]);
    } else if (e.key === 'Enter' || e.key === ' ') {
      select(lines[at].dataset.lineId);
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation(); // the notebook's own Up/Down/Enter would leave the output
  });
  panes.addEventListener('click', e => {
    const item = (e.target as HTMLElement).closest<HTMLElement>('.jx-Explain-item');
    if (item?.dataset.lineId) {
      select(item.dataset.lineId, item);
      const line = lines.find(l => l.dataset.lineId === item.dataset.lineId);
      if (line) {
        line.scrollIntoView({ block: 'nearest' });
      }
    }
  });
  return node;
}
