/**
 * The `application/vnd.jxkernel.guard+json` bundle (`%jxguard status`): whether every jitted
 * function refuses to recompile, and which functions are guarded one by one (each key
 * `name@source#id` shown as its name and where it was defined).
 */
import { BundleError, bundleOf } from './bundle';
import { el, table } from './dom';
import { IGuardBundle } from './protocol';

function read(bundle: unknown): IGuardBundle {
  const b = bundleOf<IGuardBundle>(bundle, { all: 'boolean', functions: 'list' });
  b.functions.forEach((f, i) => {
    if (typeof f !== 'string') {
      throw new BundleError(`functions[${i}] is ${typeof f}, not a string`);
    }
  });
  return b;
}

/** `name@source#identity` -> [name, source]; a key of another form is its own name. */
function splitKey(key: string): [string, string] {
  const m = /^(.*?)@(.*)#\d+$/.exec(key);
  return m ? [m[1], m[2]] : [key, ''];
}

export function guardView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const node = el('div', 'jx-Guard');
  const state = el('span', b.all ? 'jx-Guard-state jx-mod-on' : 'jx-Guard-state', b.all ? 'on' : 'off');
  const title = el('div', 'jx-View-title', 'recompile guard for every jitted function: ');
  title.appendChild(state);
  node.appendChild(title);
  if (b.functions.length) {
    // the kernel says where as the user knows it (In[2], line 1); an older bundle: the key's
    const where = Array.isArray(b.where) && b.where.length === b.functions.length ? b.where : null;
    const rows = b.functions.map((key, i) => {
      const [name, source] = splitKey(key);
      return [name, where ? String(where[i]) : source];
    });
    const t = table('jx-View-table', ['guarded function', 'defined at'], rows);
    Array.from(t.tBodies[0].rows).forEach((tr, i) => (tr.title = b.functions[i]));
    node.appendChild(t);
  } else {
    node.appendChild(el('div', 'jx-Guard-none', 'no function is guarded one by one (%jxguard on [FUNCTION] turns it on)'));
  }
  return node;
}
