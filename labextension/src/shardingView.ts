/**
 * The `application/vnd.jxkernel.sharding+json` bundle (a displayed sharded Array,
 * `jxkernel.notebook.show_sharding(x)`): which device holds which block of the array, as a
 * grid of blocks coloured per block (a replicated block lists all its devices), under the
 * mesh's axes, the spec, the shard's shape and its bytes per device. Also the
 * communication table (`collectivesTable`) that the explain and HLO views show for a
 * partitioned program.
 */
import { bundleOf, each, fields } from './bundle';
import { el, table } from './dom';
import { ICollective, IShardingBlock, IShardingBundle } from './protocol';

function read(bundle: unknown): IShardingBundle {
  const b = bundleOf<IShardingBundle>(bundle, {
    title: 'string', spec: 'string', mesh: 'object', dims: 'list', replicated_over: 'list',
    shard_shape: 'list', bytes_per_device: 'number', num_devices: 'number', rows: 'number',
    cols: 'number', blocks: 'list', array: 'string?'
  });
  fields(b.mesh, 'mesh', { axis_names: 'list', axis_sizes: 'list' });
  each(b.blocks, 'blocks', { row: 'number', col: 'number', labels: 'list', index: 'list', color: 'string' });
  return b;
}

// only a plain colour from the bundle reaches a style; anything else gets the neutral one
const COLOR = /^#[0-9a-fA-F]{6}$/;

function blockCell(block: IShardingBlock): HTMLElement {
  const cell = el('div', 'jx-Sharding-block');
  cell.style.gridRow = String(block.row + 1);
  cell.style.gridColumn = String(block.col + 1);
  cell.style.backgroundColor = COLOR.test(block.color) ? block.color : '#d9d9d9';
  const index = `[${block.index.map(([a, b]) => `${a}:${b}`).join(', ')}]`;
  cell.appendChild(el('div', 'jx-Sharding-devices', block.labels.join(', ')));
  cell.appendChild(el('div', 'jx-Sharding-index', index));
  cell.title = `${block.labels.join(', ')} hold${block.labels.length === 1 ? 's' : ''} ${index}`;
  return cell;
}

function dimsText(b: IShardingBundle): string {
  return b.dims.map((axes, d) => (axes.length ? `dim ${d} over ${axes.map(a => `'${a}'`).join(' × ')}` : `dim ${d} whole`)).join('; ');
}

export function shardingView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const node = el('div', 'jx-Sharding');
  if (b.array !== null && b.array !== undefined) {
    node.appendChild(el('pre', 'jx-Sharding-array', b.array));
  }
  const mesh = b.mesh.axis_names.map((n, i) => `${n}=${b.mesh.axis_sizes[i]}`).join(' × ');
  node.appendChild(el('div', 'jx-View-title', `${b.title} on mesh ${mesh} as ${b.spec}`));
  const copies = b.num_devices / Math.max(b.blocks.length, 1);
  const shard = `(${b.shard_shape.join(', ')}${b.shard_shape.length === 1 ? ',' : ''})`;
  const parts = [
    `shard ${shard}`,
    `${b.bytes_per_device.toLocaleString('en-US')} bytes per device`,
    `${b.num_devices} device${b.num_devices === 1 ? '' : 's'}`,
    ...(b.dims.length ? [dimsText(b)] : []),
    ...(copies > 1 ? [`replicated over ${b.replicated_over.map(a => `'${a}'`).join(', ')} (${copies} copies of each block)`] : [])
  ];
  node.appendChild(el('div', 'jx-Sharding-summary', parts.join(' · ')));
  const grid = el('div', 'jx-Sharding-grid');
  grid.style.gridTemplateColumns = `repeat(${Math.max(1, Math.min(b.cols, 64))}, minmax(4.5em, auto))`;
  grid.setAttribute('role', 'img');
  grid.setAttribute('aria-label', `${b.rows} by ${b.cols} blocks: ` + b.blocks.map(k => k.labels.join(' ')).join('; '));
  grid.append(...b.blocks.map(blockCell));
  node.appendChild(grid);
  return node;
}

function groupsText(c: ICollective): string {
  if (!c.groups) {
    return c.replica_groups || '–';
  }
  if (!c.groups.length) {
    return 'all devices';
  }
  return c.opcode === 'collective-permute'
    ? c.groups.map(([s, t]) => `${s}→${t}`).join(' ')
    : c.groups.map(g => `{${g.join(',')}}`).join(' ');
}

/** The collectives XLA inserted as a table with a one-line summary; null when none. */
export function collectivesTable(collectives: unknown): HTMLElement | null {
  if (!Array.isArray(collectives) || !collectives.length) {
    return null;
  }
  const list = each<ICollective>(collectives, 'collectives', { opcode: 'string', operands: 'list', bytes: 'number', source: 'string?' });
  const total = list.reduce((sum, c) => sum + c.bytes, 0);
  const node = el('details', 'jx-Collectives');
  node.open = true;
  node.appendChild(el('summary', '', `communication: ${list.length} collective${list.length === 1 ? '' : 's'} XLA inserted, ${total.toLocaleString('en-US')} bytes sent in per device`));
  node.appendChild(
    table(
      'jx-View-table jx-Collectives-table',
      ['collective', 'operands', 'bytes/device', 'device groups', 'source'],
      list.map(c => [c.opcode, c.operands.join(', ') || '–', c.bytes.toLocaleString('en-US'), groupsText(c), c.source ?? '–'])
    )
  );
  return node;
}
