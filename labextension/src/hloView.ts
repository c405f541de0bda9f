/**
 * The `application/vnd.jxkernel.hlo+json` bundle (%hlo): XLA's cost analysis as a table and
 * each program text (our StableHLO, XLA's optimized HLO) in a collapsible section, the first
 * open.
 */
import { el, table } from './dom';
import { IHloBundle } from './protocol';
import { collectivesTable } from './shardingView';

// the cost-analysis rows worth showing by default; XLA adds per-operand ones
const MAIN_COSTS = ['flops', 'transcendentals', 'bytes accessed', 'optimal_seconds'];

function formatCost(v: number | string | null): string {
  if (v === null) {
    return '–';
  }
  return typeof v === 'number'
    ? Number.isInteger(v)
      ? v.toLocaleString('en-US')
      : v.toPrecision(4)
    : String(v);
}

export function hloView(bundle: IHloBundle): HTMLElement {
  const node = el('div', 'jx-Hlo');
  const title = el('div', 'jx-View-title', 'HLO of ');
  title.appendChild(el('code', '', String(bundle.title ?? '')));
  node.appendChild(title);
  const cost = (bundle.cost ?? []).filter(([k]) => MAIN_COSTS.includes(k));
  if (cost.length) {
    node.appendChild(
      table(
        'jx-View-table',
        [bundle.cost_title ?? 'XLA cost analysis', ''], // the numpy backend: estimates
        cost.map(([k, v]) => [k, formatCost(v)])
      )
    );
  }
  const communication = collectivesTable(bundle.collectives);
  if (communication) {
    node.appendChild(communication);
  }
  (bundle.sections ?? []).forEach((section, i) => {
    const details = el('details', 'jx-Hlo-section');
    details.open = i === 0;
    details.appendChild(el('summary', '', String(section.title ?? '')));
    details.appendChild(el('pre', 'jx-Hlo-text', String(section.text ?? '')));
    node.appendChild(details);
  });
  return node;
}
