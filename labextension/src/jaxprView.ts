/**
 * Renders a structured jaxpr (the `application/vnd.jxkernel.jaxpr+json` bundle) as the familiar
 * text, one line per equation, with:
 * - sub-jaxprs (pjit, cond branches, scan/while bodies, ...) in collapsible <details>;
 * - every variable linked to its definition and uses by the `id` the bundle gives it (Python
 *   resolves which variable a name means; `_`, an unused result, has none): hover highlights
 *   them, click pins the highlight (click again, or Escape, to unpin);
 * - each equation's source location as its tooltip and, dimmed, at the end of the line.
 * Keyboard: the view is one tab stop; ArrowUp/ArrowDown move between visible lines and
 * highlight the variables the line defines; summaries (sub-jaxprs) are reachable with Tab.
 * All text is set with textContent: nothing from the bundle is parsed as HTML.
 */
import { Atom, IEqn, IJaxpr, IJaxprBundle, IVar } from './protocol';

function span(className: string, text: string, title?: string): HTMLSpanElement {
  const s = document.createElement('span');
  s.className = className;
  s.textContent = text;
  if (title) {
    s.title = title;
  }
  return s;
}

function isJaxpr(v: unknown): v is IJaxpr {
  return typeof v === 'object' && v !== null && Array.isArray((v as IJaxpr).eqns);
}

export class JaxprView {
  readonly node: HTMLElement;

  constructor(bundle: IJaxprBundle) {
    this.node = document.createElement('div');
    this.node.className = 'jx-Jaxpr';
    this.node.tabIndex = 0;
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', String(bundle.name || 'jaxpr'));
    if (isJaxpr(bundle.jaxpr)) {
      this.node.appendChild(this._block(bundle.jaxpr, 0));
    } else {
      const pre = document.createElement('pre');
      pre.textContent = String(bundle.text ?? '');
      this.node.appendChild(pre);
    }
    this.node.addEventListener('mouseover', e => this._hover(e, true));
    this.node.addEventListener('mouseout', e => this._hover(e, false));
    this.node.addEventListener('click', e => this._click(e));
    this.node.addEventListener('keydown', e => this._key(e));
    this.node.addEventListener('focusin', e => this._focus(e));
  }

  /** `{ lambda consts ; ins. let  eqns  in (outs) }` */
  private _block(jaxpr: IJaxpr, depth: number): HTMLElement {
    const block = document.createElement('div');
    block.className = 'jx-Jaxpr-block';

    const head = this._line(depth);
    head.append(span('jx-kw', '{ lambda '));
    this._defs(head, jaxpr.constvars ?? []);
    head.append(span('jx-punct', (jaxpr.constvars ?? []).length ? ' ; ' : '; '));
    this._defs(head, jaxpr.invars ?? []);
    head.append(span('jx-punct', '. '), span('jx-kw', 'let'));
    block.appendChild(head);

    for (const eqn of jaxpr.eqns ?? []) {
      block.appendChild(this._eqn(eqn, depth + 1));
    }

    const tail = this._line(depth);
    tail.append(span('jx-kw', 'in '), span('jx-punct', '('));
    this._uses(tail, jaxpr.outvars ?? [], ', ');
    tail.append(span('jx-punct', ') }'));
    block.appendChild(tail);
    return block;
  }

  private _eqn(eqn: IEqn, depth: number): HTMLElement {
    const wrap = document.createElement('div');
    const line = this._line(depth);
    const outs = eqn.outvars ?? [];
    if (outs.length) {
      // an equation with no results (debug_print, a check) has no " = ", as JAX prints it
      this._defs(line, outs);
      line.append(span('jx-punct', ' = '));
    }
    line.append(span('jx-prim', eqn.primitive));

    const simple: [string, string][] = [];
    const subs: [string, IJaxpr][] = [];
    for (const [name, value] of Object.entries(eqn.params ?? {})) {
      if (isJaxpr(value)) {
        subs.push([name, value]);
      } else if (Array.isArray(value) && value.length && value.every(isJaxpr)) {
        value.forEach((v, i) => subs.push([`${name}[${i}]`, v]));
      } else {
        simple.push([name, typeof value === 'string' ? value : JSON.stringify(value)]);
      }
    }
    if (simple.length || subs.length) {
      line.append(span('jx-punct', '['));
      const parts = simple.map(([k, v]) => `${k}=${v}`).concat(subs.map(([k]) => `${k}={…}`));
      line.append(span('jx-param', parts.join(' ')));
      line.append(span('jx-punct', '] '));
    } else {
      line.append(' ');
    }
    this._uses(line, eqn.invars ?? [], ' ');
    if (eqn.source) {
      line.title = eqn.source + (eqn.source_line ? `\n${eqn.source_line}` : '');
      line.append(span('jx-source', `  # ${eqn.source}`));
    }
    line.dataset.defines = (eqn.outvars ?? []).map(v => v.id ?? '').join(' ');
    wrap.appendChild(line);

    for (const [name, sub] of subs) {
      const details = document.createElement('details');
      details.className = 'jx-Jaxpr-sub';
      const summary = document.createElement('summary');
      summary.style.paddingLeft = `${depth + 1}em`;
      summary.textContent = `${eqn.primitive} · ${name}`;
      summary.title = `the ${name} of this ${eqn.primitive}`;
      details.append(summary, this._block(sub, depth + 1));
      wrap.appendChild(details);
    }
    return wrap;
  }

  private _line(depth: number): HTMLElement {
    const line = document.createElement('div');
    line.className = 'jx-Jaxpr-line';
    line.tabIndex = -1;
    line.style.paddingLeft = `${depth * 2}ch`;
    return line;
  }

  private _defs(line: HTMLElement, vars: IVar[]): void {
    vars.forEach((v, i) => {
      if (i > 0) {
        line.append(' ');
      }
      const s = this._var(v, 'jx-var jx-def');
      line.append(s, span('jx-aval', `:${v.aval}`));
    });
  }

  private _uses(line: HTMLElement, atoms: Atom[], sep: string): void {
    atoms.forEach((a, i) => {
      if (i > 0) {
        line.append(sep);
      }
      if ('literal' in a) {
        line.append(span('jx-lit', a.literal, a.aval));
      } else {
        line.append(this._var(a, 'jx-var'));
      }
    });
  }

  private _var(v: IVar, className: string): HTMLElement {
    const s = span(className, v.name, v.aval);
    if (v.id === undefined) {
      s.className = 'jx-unused'; // an unused result (or a version 1 bundle): nothing to link
      return s;
    }
    const key = String(v.id);
    s.dataset.var = key;
    const list = this._byKey.get(key) ?? [];
    list.push(s);
    this._byKey.set(key, list);
    return s;
  }

  private _highlight(keys: string[]): void {
    for (const s of this._lit) {
      s.classList.remove('jx-hl');
    }
    this._lit = keys.flatMap(k => this._byKey.get(k) ?? []);
    for (const s of this._lit) {
      s.classList.add('jx-hl');
    }
  }

  private _hover(e: MouseEvent, entering: boolean): void {
    if (this._pinned) {
      return;
    }
    const v = (e.target as HTMLElement).closest?.('.jx-var') as HTMLElement | null;
    if (v) {
      this._highlight(entering ? [v.dataset.var!] : []);
    }
  }

  private _click(e: MouseEvent): void {
    const v = (e.target as HTMLElement).closest?.('.jx-var') as HTMLElement | null;
    if (!v) {
      return;
    }
    const key = v.dataset.var!;
    this._pinned = this._pinned === key ? null : key;
    this._highlight(this._pinned ? [key] : []);
  }

  private _focus(e: FocusEvent): void {
    const line = e.target as HTMLElement;
    if (line.classList?.contains('jx-Jaxpr-line') && !this._pinned) {
      this._highlight((line.dataset.defines ?? '').split(' ').filter(Boolean));
    }
  }

  private _key(e: KeyboardEvent): void {
    if (e.key === 'Escape' && this._pinned) {
      this._pinned = null;
      this._highlight([]);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const lines = Array.from(this.node.querySelectorAll<HTMLElement>('.jx-Jaxpr-line')).filter(
        l => l.offsetParent !== null // hidden inside a closed <details>
      );
      const at = lines.indexOf(document.activeElement as HTMLElement);
      const next = e.key === 'ArrowDown' ? at + 1 : at < 0 ? lines.length - 1 : at - 1;
      lines[Math.max(0, Math.min(lines.length - 1, next))]?.focus();
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  }

  private _byKey = new Map<string, HTMLElement[]>();
  private _lit: HTMLElement[] = [];
  private _pinned: string | null = null;
}
