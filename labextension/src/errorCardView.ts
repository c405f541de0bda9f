/**
 * The `application/vnd.jxkernel.error+json` bundle (jxkernel/views/error_cards/): an
 * error explained at the user's line: what went wrong, the line, where the offending value
 * came from (the chain of operations from the input), why, the fix, the rewrite as code,
 * JAX's page for the error (a link only when it is http(s)) and, folded, the traceback.
 */
import { bundleOf, each, fields } from './bundle';
import { el, table } from './dom';
import { IErrorBundle, IErrorWhere } from './protocol';

const WHERE = { file: 'string', line: 'number', function: 'string?', code: 'string?' } as const;

function read(bundle: unknown): IErrorBundle {
  const b = bundleOf<IErrorBundle>(bundle, {
    kind: 'string', error: 'string', title: 'string', message: 'string', where: 'object?',
    called_from: 'object?', origin: 'object?', why: 'string', fix: 'string', rewrite: 'string?',
    docs: 'string?', traceback: 'string?'
  });
  for (const key of ['where', 'called_from'] as const) {
    if (b[key]) {
      fields(b[key], key, WHERE);
    }
  }
  return b;
}

function section(label: string, body: string | HTMLElement): HTMLElement {
  const box = el('div', 'jx-ErrorCard-section');
  box.appendChild(el('div', 'jx-ErrorCard-label', label));
  box.append(typeof body === 'string' ? el('div', 'jx-ErrorCard-text', body) : body);
  return box;
}

function whereBox(w: IErrorWhere): HTMLElement {
  const box = el('div', 'jx-ErrorCard-where');
  const fn = w.function ? `, in ${w.function}` : '';
  box.appendChild(el('div', 'jx-ErrorCard-loc', `${w.file}, line ${w.line}${fn}`));
  if (w.code) {
    box.appendChild(el('pre', 'jx-ErrorCard-code', w.code));
  }
  return box;
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The origin in words, as the text card's origin_lines (views/error_cards/card.py) has it,
 * for the kinds whose origin is no value's history: cond's branches, a loop's carry, a static
 * argument. The key/value table drew their fields as they are sent (`api`, `mismatch`,
 * `branches` as JSON: learner6's trial), names no learner should have to read. */
function originWords(kind: string, origin: { [key: string]: unknown }): string[] | null {
  if (kind === 'branch-types' && Array.isArray(origin.branches)) {
    return (origin.branches as unknown[]).map(b =>
      Array.isArray(b) ? `${show(b[0])} (${show(b[1])}) returns ${show(b[2])}` : show(b));
  }
  if (kind === 'loop-carry') {
    const path = origin.path ? show(origin.path) : '';
    return [`${show(origin.body)}: carry${path} came in as ${show(origin.input_type)}, ` +
      `left as ${show(origin.output_type)}`];
  }
  if (kind === 'unhashable-static') {
    return [`static argument ${show(origin.argument)} of ${show(origin.function)}: ` +
      `${show(origin.value_type)} ${show(origin.value)}`];
  }
  return null;
}

/** The value's history: input → each operation (its line) for the tracer kinds; the
 * arguments' sizes for vmap; words for cond's branches, a loop's carry and a static argument;
 * a key/value list for the other kinds. */
/** One operation of a value's origin; `package`: the installed library whose line made it
 * (an older kernel sends none). */
type OriginStep = { primitive: string; where: string | null; code: string | null; type: string;
                    package?: string | null };

/** The steps as the card lists them (the kernel's error_cards.card.folded_steps): each of the
 * learner's alone, each run of one library's steps as one (learner11's card listed ~25 steps
 * through Flax's and Optax's files around their own two). */
export function foldedSteps(steps: OriginStep[]): OriginStep[][] {
  const runs: OriginStep[][] = [];
  for (const s of steps) {
    const last = runs[runs.length - 1];
    if (s.package && last && last[0].package === s.package) {
      last.push(s);
    } else {
      runs.push([s]);
    }
  }
  return runs;
}

function originBox(origin: { [key: string]: unknown }, kind = ''): HTMLElement | null {
  const words = originWords(kind, origin);
  if (words) {
    const list = el('ul', 'jx-ErrorCard-chain');
    for (const line of words) {
      list.appendChild(el('li', 'jx-ErrorCard-step', line));
    }
    return list;
  }
  const steps = Array.isArray(origin.steps) ? each<OriginStep>(
    origin.steps, 'origin.steps',
    { primitive: 'string', where: 'string?', code: 'string?', type: 'string?', package: 'string?' }) : null;
  if (steps && !origin.input_type && steps.length === 0) {
    // a value that depends on no input and no operation made it (a %%jit cell's own
    // constant): nothing to trace back, as the text card says nothing (it drew "input #null")
    return null;
  }
  if (steps) {
    const chain = el('ol', 'jx-ErrorCard-chain');
    if (origin.input_type) {
      const from = origin.argument ? `input ${show(origin.argument)}` : `input #${show(origin.input_index)}`;
      const transform = origin.transformation ? ` (traced by ${show(origin.transformation)})` : '';
      chain.appendChild(el('li', 'jx-ErrorCard-step', `${from}: ${show(origin.input_type)}${transform}`));
    } else {
      // made from constants by jnp operations, traced all the same (JAX: "This value became
      // a tracer due to JAX operations on these lines"): the text card's words
      chain.appendChild(el('li', 'jx-ErrorCard-step', `no argument: made from constants by jnp ` +
        `operations in ${show(origin.function)}, traced for ${show(origin.transformation)}`));
    }
    for (const run of foldedSteps(steps)) {
      const s = run[0];
      if (s.package) {
        // an installed library's steps, one line per run (the text card's words)
        chain.appendChild(el('li', 'jx-ErrorCard-step jx-ErrorCard-library',
          `… ${run.length} step${run.length > 1 ? 's' : ''} inside ${s.package}`));
        continue;
      }
      const item = el('li', 'jx-ErrorCard-step', `${s.primitive} → ${s.type ?? ''}`);
      if (s.where) {
        item.appendChild(el('span', 'jx-ErrorCard-stepWhere', `  ${s.where}`));
      }
      if (s.code) {
        item.appendChild(el('code', 'jx-ErrorCard-stepCode', s.code));
      }
      chain.appendChild(item);
    }
    return chain;
  }
  if (Array.isArray(origin.arguments) && origin.arguments.every(a => typeof a === 'object' && a !== null)) {
    const args = origin.arguments as { [key: string]: unknown }[];
    return table('jx-View-table', ['argument', 'axis', 'size', 'type'],
      args.map(a => [show(a.name), show(a.axis), show(a.size), show(a.type)]));
  }
  return table('jx-View-table', ['', ''], Object.entries(origin)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => [k.replace(/_/g, ' '), show(v)]));
}

export function errorCardView(bundle: unknown): HTMLElement {
  const b = read(bundle);
  const node = el('div', 'jx-ErrorCard');
  node.setAttribute('role', 'group');
  node.setAttribute('aria-label', `${b.error}: ${b.title}`);
  const head = el('div', 'jx-ErrorCard-head');
  head.appendChild(el('span', 'jx-ErrorCard-error', b.error));
  head.appendChild(el('span', 'jx-ErrorCard-title', b.title));
  node.appendChild(head);
  node.appendChild(el('div', 'jx-ErrorCard-message', b.message));
  if (b.where) {
    node.appendChild(section('your line', whereBox(b.where)));
  }
  if (b.called_from) {
    node.appendChild(section('called from', whereBox(b.called_from)));
  }
  const origin = b.origin ? originBox(b.origin, b.kind) : null;
  if (origin) {
    node.appendChild(section('where the value comes from', origin));
  }
  node.appendChild(section('why', b.why));
  node.appendChild(section('fix', b.fix));
  if (b.rewrite) {
    node.appendChild(section('rewrite', el('pre', 'jx-ErrorCard-rewrite', b.rewrite)));
  }
  if (b.docs) {
    node.appendChild(docsLink(b.docs));
  }
  if (b.traceback) {
    // the error is said once, by the card: the traceback and JAX's whole message one click away
    const folded = el('details', 'jx-ErrorCard-traceback');
    folded.append(el('summary', '', 'traceback and the whole message'),
      el('pre', 'jx-ErrorCard-tracebackText', b.traceback));
    node.appendChild(folded);
  }
  return node;
}

/** JAX's page as a link when it is an http(s) URL; anything else stays text. */
function docsLink(docs: string): HTMLElement {
  const box = el('div', 'jx-ErrorCard-docs', 'docs: ');
  let url: URL | null = null;
  try {
    url = new URL(docs);
  } catch {
    url = null;
  }
  if (url && (url.protocol === 'https:' || url.protocol === 'http:')) {
    const a = el('a', '', docs);
    a.href = url.href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    box.appendChild(a);
  } else {
    box.append(docs);
  }
  return box;
}
