/**
 * The `application/vnd.jxkernel.jaxprdiff+json` bundle (`%jaxpr --diff f(x) grad(f)(x)`):
 * two jaxprs side by side, aligned row by row, added / removed / changed equations tinted,
 * the counts in the header and an "only changes" box that hides the rows both share.
 */
import { bundleOf, each, fields } from './bundle';
import { el } from './dom';
import { IJaxprDiffBundle } from './protocol';

const MARK: { [kind: string]: string } = { same: '', added: '+', removed: '−', changed: '~' };

function read(bundle: unknown): IJaxprDiffBundle {
  const b = bundleOf<IJaxprDiffBundle>(bundle, { left: 'object', right: 'object', rows: 'list', counts: 'object' });
  fields(b.left, 'left', { title: 'string' });
  fields(b.right, 'right', { title: 'string' });
  each(b.rows, 'rows', { kind: 'string', left: 'string?', right: 'string?' });
  fields(b.counts, 'counts', { same: 'number', added: 'number', removed: 'number', changed: 'number' });
  return b;
}

function diffTable(b: IJaxprDiffBundle): HTMLTableElement {
  const t = el('table', 'jx-Diff-table');
  const head = t.createTHead().insertRow();
  head.appendChild(el('th', 'jx-Diff-mark', ''));
  head.appendChild(el('th', '', b.left.title));
  head.appendChild(el('th', '', b.right.title));
  const body = t.createTBody();
  for (const row of b.rows) {
    const tr = body.insertRow();
    tr.className = `jx-Diff-row jx-mod-${MARK[row.kind] === undefined ? 'same' : row.kind}`;
    tr.title = row.kind;
    tr.appendChild(el('td', 'jx-Diff-mark', MARK[row.kind] ?? ''));
    tr.appendChild(el('td', 'jx-Diff-left', row.left ?? ''));
    tr.appendChild(el('td', 'jx-Diff-right', row.right ?? ''));
  }
  return t;
}

export function jaxprDiffView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const node = el('div', 'jx-Diff');
  const head = el('div', 'jx-View-title jx-Diff-head');
  head.appendChild(el('code', '', b.left.title));
  head.append(' → ');
  head.appendChild(el('code', '', b.right.title));
  head.append(': ');
  for (const kind of ['added', 'removed', 'changed', 'same'] as const) {
    head.appendChild(el('span', `jx-Diff-count jx-mod-${kind}`, `${b.counts[kind]} ${kind}`));
  }
  node.appendChild(head);
  const toggle = el('label', 'jx-Diff-toggle');
  const box = el('input', '');
  box.type = 'checkbox';
  box.addEventListener('change', () => node.classList.toggle('jx-mod-onlyChanges', box.checked));
  toggle.append(box, ' only changes');
  node.appendChild(toggle);
  node.appendChild(diffTable(b));
  return node;
}
