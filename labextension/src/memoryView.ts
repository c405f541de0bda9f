/**
 * The `application/vnd.jxkernel.memory+json` bundle (`%jxmemory`): the live device arrays
 * grouped by cell, shape and dtype, with per-device totals, and the device allocator's bytes
 * in use, peak and limit where the backend reports them (GPU, TPU, the NumPy backend of
 * JupyterLite; else a line saying it does not, and a field it lacks says so too). The
 * bytes column sorts: its header is a button cycling through the kernel's order, largest first
 * and smallest first.
 */
import { bundleOf, each } from './bundle';
import { el, table } from './dom';
import { IMemoryBundle, IMemoryRow, IState } from './protocol';

function read(bundle: unknown): IMemoryBundle {
  const b = bundleOf<IMemoryBundle>(bundle, {
    platform: 'string', total_arrays: 'number', total_bytes: 'number', devices: 'list', rows: 'list',
    allocator: 'list?'
  });
  each(b.devices, 'devices', { device: 'string', arrays: 'number', bytes: 'number' });
  if (b.allocator) {
    each(b.allocator, 'allocator', {
      device: 'string', bytes_in_use: 'number?', peak_bytes_in_use: 'number?', bytes_limit: 'number?'
    });
  }
  each(b.rows, 'rows', { cell: 'string?', shape: 'list', dtype: 'string', devices: 'list', count: 'number', bytes: 'number' });
  return b;
}

/** 262,144 bytes (256.0 KiB): exact, then binary units once it is past a KiB. */
export function bytes(n: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let unit = '';
  for (const u of units) {
    if (v < 1024) {
      break;
    }
    v /= 1024;
    unit = u;
  }
  return `${n.toLocaleString('en-US')} bytes${unit ? ` (${v.toFixed(1)} ${unit})` : ''}`;
}

/** What a field the backend lacks says (as jxkernel/views/memory.py's NOT_REPORTED). */
export const NOT_REPORTED = 'not reported by this backend';

/**
 * "1,024 bytes (1.0 KiB) in use, peak …, limit …"; a field the backend lacks (null, or missing:
 * JupyterLite's copy of an output drops Python's None) says "not reported by this backend".
 */
export function allocatorText(s: {
  bytes_in_use?: number | null;
  peak_bytes_in_use?: number | null;
  bytes_limit?: number | null;
}): string {
  const said = (n: number | null | undefined) => (n === null || n === undefined ? NOT_REPORTED : bytes(n));
  return `${said(s.bytes_in_use)} in use, peak ${said(s.peak_bytes_in_use)}, limit ${said(s.bytes_limit)}`;
}

/** "1.2 GiB": one decimal in the largest binary unit (the status bar is short). */
function short(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(1)} ${units[i]}`;
}

/**
 * The status bar's part for the selected device's allocator, and its tooltip sentence:
 * [" · 3.0 MiB / 80.0 GiB", " gpu:0's allocator: … in use, peak …, limit …."] (" · 44 bytes"
 * on the NumPy backend, which reports no limit); where the backend reports none (XLA's CPU)
 * no part, never zeros, and a tooltip saying so.
 */
export function allocatorStatus(s: IState): [string, string] {
  const m = s.memory;
  if (!m || m.bytes_in_use === null || m.bytes_in_use === undefined) {
    return ['', ` ${s.device}'s allocator: ${NOT_REPORTED}.`];
  }
  const limit = m.bytes_limit === null || m.bytes_limit === undefined ? '' : ` / ${short(m.bytes_limit)}`;
  return [` · ${short(m.bytes_in_use)}${limit}`, ` ${s.device}'s allocator: ${allocatorText(m)}.`];
}

const ORDERS = ['none', 'descending', 'ascending'] as const;

function rowsTable(b: IMemoryBundle, rows: IMemoryRow[]): HTMLTableElement {
  const head = [...(b.by_cell ? ['cell'] : []), 'shape', 'dtype', 'devices', 'count', 'bytes'];
  return table(
    'jx-View-table jx-Memory-rows',
    head,
    rows.map(r => [
      ...(b.by_cell ? [r.cell ?? ''] : []),
      `(${r.shape.join(', ')}${r.shape.length === 1 ? ',' : ''})`,
      r.dtype,
      r.devices.join(', '),
      r.count.toLocaleString('en-US'),
      r.bytes.toLocaleString('en-US')
    ])
  );
}

export function memoryView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const node = el('div', 'jx-Memory');
  const arrays = `${b.total_arrays} array${b.total_arrays === 1 ? '' : 's'}`;
  node.appendChild(el('div', 'jx-View-title', `live arrays on ${b.platform}: ${arrays}, ${bytes(b.total_bytes)}`));
  node.appendChild(table('jx-View-table jx-Memory-devices', ['device', 'arrays', 'bytes'],
    b.devices.map(d => [d.device, d.arrays.toLocaleString('en-US'), bytes(d.bytes)])));
  // the allocator's own count (GPU, TPU, NumPy), or that the backend has none (XLA's CPU):
  // never zeros, never left out. A missing field is said as null is: JupyterLite's copy of an
  // output drops Python's None (and a kernel older than the field reported none either)
  const allocator = el('ul', 'jx-Memory-allocator');
  for (const line of b.allocator === null || b.allocator === undefined
    ? [`allocator (bytes in use, peak, limit): not reported by the ${b.platform} backend`]
    : b.allocator.map(a => `${a.device} allocator: ${allocatorText(a)}`)) {
    allocator.appendChild(el('li', '', line));
  }
  node.appendChild(allocator);
  let order = 0;
  let shown = rowsTable(b, b.rows);
  const draw = () => {
    const sorted = [...b.rows];
    if (ORDERS[order] !== 'none') {
      sorted.sort((x, y) => (ORDERS[order] === 'descending' ? y.bytes - x.bytes : x.bytes - y.bytes));
    }
    const next = rowsTable(b, sorted);
    shown.replaceWith(next);
    shown = next;
    sortable();
  };
  // the bytes header: a button, so the keyboard sorts too; aria-sort says the order
  const sortable = () => {
    const th = shown.tHead!.rows[0].lastElementChild as HTMLTableCellElement;
    const button = el('button', 'jx-Memory-sort', `bytes ${['↕', '↓', '↑'][order]}`);
    button.title = 'sort by bytes';
    button.addEventListener('click', () => {
      order = (order + 1) % ORDERS.length;
      draw();
      (shown.querySelector('.jx-Memory-sort') as HTMLElement).focus();
    });
    th.replaceChildren(button);
    th.setAttribute('aria-sort', ORDERS[order]);
  };
  sortable();
  node.appendChild(shown);
  return node;
}
