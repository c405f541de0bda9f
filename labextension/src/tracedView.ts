/**
 * The `application/vnd.jxkernel.traced+json` bundle (%jxtraced, %%jit's errors): the source
 * with each input marked traced (its type) or static (its value), hovering a name highlights
 * all its uses, the line where tracing failed marked with the message and what to do.
 */
import { el, table } from './dom';
import { ITracedBundle } from './protocol';

const KIND_HELP: { [kind: string]: string } = {
  traced: 'traced: an abstract value (shape and dtype only) while tracing',
  static: 'static: a Python value baked into the compiled code; a new value recompiles',
  global: 'global: looked up (a module), not an argument'
};

/** One source line, the [start, end) byte spans of input names wrapped in marked spans. */
function markedLine(
  text: string,
  spans: [number, number, string][],
  kinds: Map<string, string>,
  details: Map<string, string>
): HTMLElement {
  const line = el('span', 'jx-Traced-code');
  const bytes = new TextEncoder().encode(text);
  const decode = (a: number, b: number) => new TextDecoder().decode(bytes.slice(a, b));
  let pos = 0;
  for (const [start, end, name] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (start < pos) {
      continue;
    }
    line.append(decode(pos, start));
    const kind = kinds.get(name) ?? '';
    const mark = el('span', `jx-Traced-name jx-Traced-${kind}`, decode(start, end));
    mark.dataset.name = name;
    mark.title = `${name}: ${kind} ${details.get(name) ?? ''}`.trim();
    line.append(mark);
    pos = end;
  }
  line.append(decode(pos, bytes.length));
  return line;
}

export function tracedView(bundle: ITracedBundle): HTMLElement {
  const inputs = bundle.inputs ?? [];
  const kinds = new Map(inputs.map(i => [i.name, i.kind]));
  const details = new Map(inputs.map(i => [i.name, i.detail]));
  const byLine = new Map<number, [number, number, string][]>();
  for (const [name, spans] of Object.entries(bundle.positions ?? {})) {
    for (const [line, start, end] of spans) {
      byLine.set(line, [...(byLine.get(line) ?? []), [start, end, name]]);
    }
  }
  const error = bundle.error;
  const node = el('div', 'jx-Traced');
  node.appendChild(el('div', 'jx-View-title', `${bundle.label}: traced vs static`));
  const source = el('div', 'jx-Traced-source');
  const message = () => {
    const box = el('div', 'jx-Traced-error', error?.message ?? '');
    if (error?.hint) {
      box.appendChild(el('div', 'jx-Traced-hint', error.hint));
    }
    return box;
  };
  String(bundle.source ?? '')
    .split('\n')
    .forEach((text, i, all) => {
      if (i === all.length - 1 && text === '') {
        return; // the source's final newline
      }
      const n = i + 1;
      const bad = !!error && error.line === n;
      const row = el('div', bad ? 'jx-Traced-line jx-mod-error' : 'jx-Traced-line');
      row.appendChild(el('span', 'jx-Traced-lineno', String(n + (bundle.first_line ?? 1) - 1)));
      row.appendChild(markedLine(text, byLine.get(n) ?? [], kinds, details));
      source.appendChild(row);
      if (bad) {
        source.appendChild(message());
      }
    });
  node.appendChild(source);
  if (error && !error.line) {
    node.appendChild(message());
  }
  const legend = table(
    'jx-View-table',
    ['input', 'kind', 'type / value'],
    inputs.map(i => [i.name, i.kind, i.detail])
  );
  Array.from(legend.tBodies[0].rows).forEach((tr, i) => {
    tr.cells[0].classList.add('jx-Traced-name', `jx-Traced-${inputs[i].kind}`);
    tr.cells[0].dataset.name = inputs[i].name;
    tr.cells[1].title = KIND_HELP[inputs[i].kind] ?? '';
  });
  node.appendChild(legend);
  const outs = (bundle.outputs ?? []).map(o => (o.detail ? `${o.name}: ${o.detail}` : o.name));
  node.appendChild(el('div', 'jx-Traced-outputs', `outputs: ${outs.join(', ') || 'none'}`));

  // hovering a name highlights every mark of it (source and legend)
  const highlight = (name: string | undefined, on: boolean) => {
    node.querySelectorAll<HTMLElement>('.jx-Traced-name').forEach(m => {
      m.classList.toggle('jx-mod-highlight', on && m.dataset.name === name);
    });
  };
  node.addEventListener('mouseover', e => {
    const target = (e.target as HTMLElement).closest<HTMLElement>('.jx-Traced-name');
    highlight(target?.dataset.name, !!target);
  });
  node.addEventListener('mouseleave', () => highlight(undefined, false));
  return node;
}
