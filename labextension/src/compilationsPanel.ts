/**
 * The Compilations panel: a filterable, virtualized list of the compilations of the user's
 * functions, newest first, then the eager operations, jxkernel's own functions and registered
 * libraries' functions the kernel grouped (`others` of the compilations message: one row per
 * primitive or function, with a count and the user's lines that ran it), under a heading per
 * kind. Only the rows in view exist in the DOM (fixed heights per kind of row in a scroll
 * container), so 10,000 events cost what 40 do. Keyboard: Tab to the filter, the buttons and the list; in the list
 * ArrowUp/ArrowDown/PageUp/PageDown/Home/End select, Enter shows the event's cell,
 * Space toggles "fail on recompile" for its function.
 */
import { Widget } from '@lumino/widgets';

import { cameFrom } from './compilationsView';
import { el } from './dom';
import { NUMPY, anyNumpy, compileCount, did, lastPhase, misses } from './missWords';
import { ICompileEvent, IOtherGroup } from './protocol';

// Three lines per event (function and cache; what changed; the timings), so each stays readable
// in JupyterLab's default-width sidebar instead of being squeezed into a column of a table.
export const ROW_HEIGHT = 58; // px; style/base.css sets the same height
export const HEADING_HEIGHT = 26; // px: a heading above the grouped rows of one kind
export const GROUP_HEIGHT = 40; // px: two lines per group (name and count; where and how long)
const OVERSCAN = 8;

/** The headings of the groups the user cannot change, by kind (groupKind; short: the sidebar
 * is narrow), in the kernel's order, and what they are (the heading's tooltip). */
export const OTHER_TITLES: { [kind: string]: string } = {
  eager: 'eager operations',
  internal: "jxkernel's own functions",
  library: "libraries' own functions"
};
/** What each kind is (its heading's tooltip), saying what its misses did: `done` "compiled",
 * or "traced" on the NumPy backend (missWords.did), which compiles nothing. */
export function otherHint(kind: string, done: string): string {
  const hints: { [kind: string]: string } = {
    eager: `one primitive run outside jit, ${done} once per operand types and parameters`,
    internal: `jxkernel's jitted helpers (random's samplers, jnp's functions), ${done} for your calls`,
    library:
      "jitted functions of libraries registered as not yours (as Flax and Equinox register " +
      `theirs with register_exclusion), ${done} for your calls`
  };
  return hints[kind] ?? '';
}

/** " · +N not yours" after the user's count (none for 0): the compilations of eager operations,
 * jxkernel's own functions and libraries' (Flax's, Equinox's), as NOT_YOURS_HINT says (it was
 * "eager/internal", which left the libraries out). */
export function notYours(count: number): string {
  return count > 0 ? ` · +${count} not yours` : '';
}
export const NOT_YOURS_HINT =
  "not yours: eager operations, jxkernel's own functions and libraries' (Flax's, Equinox's, " +
  'any registered as not yours), grouped below your functions';

/** A row of the list: an event of the user's, a heading, or a group of work not the user's. */
export type Item =
  | { kind: 'event'; event: ICompileEvent }
  | { kind: 'heading'; origin: string; count: number }
  | { kind: 'group'; group: IOtherGroup };

/** A group's heading: its origin, or 'library' for a registered library's function (the
 * kernel's compile_notes.kind_of; an older kernel sends no `library`). */
export function groupKind(g: IOtherGroup): string {
  return g.origin === 'internal' && g.library ? 'library' : g.origin;
}

const HEIGHTS = { event: ROW_HEIGHT, heading: HEADING_HEIGHT, group: GROUP_HEIGHT };

/** Whether an event is the user's (an event without `origin`, from an older kernel, is). */
export function isUsers(e: ICompileEvent): boolean {
  return (e.origin ?? 'user') === 'user';
}

/**
 * The list's rows: the user's events (given newest first), then per origin a heading and its
 * groups, as the kernel sent them.
 */
export function items(events: readonly ICompileEvent[], others: readonly IOtherGroup[]): Item[] {
  const out: Item[] = events.map(event => ({ kind: 'event' as const, event }));
  for (const origin of Object.keys(OTHER_TITLES)) {
    const groups = others.filter(g => groupKind(g) === origin);
    if (groups.length) {
      const count = groups.reduce((n, g) => n + g.count, 0);
      out.push({ kind: 'heading', origin, count });
      out.push(...groups.map(group => ({ kind: 'group' as const, group })));
    }
  }
  return out;
}

export interface IPanelCallbacks {
  open(event: ICompileEvent): void;
  setFail(event: ICompileEvent, enabled: boolean): void;
  clear(): void;
  exportAs(format: 'json' | 'csv', events: readonly ICompileEvent[]): void;
}

function button(label: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', 'jx-Compilations-button jp-mod-styled', label);
  b.type = 'button';
  b.title = title;
  b.setAttribute('aria-label', title);
  b.addEventListener('click', onClick);
  return b;
}

const ms = (v: number) => (typeof v === 'number' ? v.toFixed(1) : '–');

export class CompilationsPanel extends Widget {
  constructor(private _callbacks: IPanelCallbacks) {
    super();
    this.addClass('jx-Compilations');

    const toolbar = el('div', 'jx-Compilations-toolbar');
    this._filter = el('input', 'jx-Compilations-filter jp-mod-styled');
    this._filter.type = 'search';
    this._filter.placeholder = 'Filter compilations';
    this._filter.title = 'Shows the compilations whose function, reason, cache or backend has this text';
    this._filter.setAttribute('aria-label', 'Filter compilations');
    this._filter.addEventListener('input', () => this._refilter());
    // the filter has the first line to itself, the buttons the second
    const actions = el('div', 'jx-Compilations-actions');
    actions.append(
      button('JSON', 'Export the listed compilations as JSON', () =>
        this._callbacks.exportAs('json', this._shown)
      ),
      button('CSV', 'Export the listed compilations as CSV', () =>
        this._callbacks.exportAs('csv', this._shown)
      ),
      button('Clear', 'Forget the compilations so far (in the kernel too)', () =>
        this._callbacks.clear()
      )
    );
    toolbar.append(this._filter, actions);

    this._summary = el('div', 'jx-Compilations-summary');
    this._summary.setAttribute('aria-live', 'polite');
    const legend = el(
      'div',
      'jx-Compilations-legend',
      "Check a function's box to make its next recompile raise instead."
    );

    this._list = el('div', 'jx-Compilations-list');
    this._list.tabIndex = 0;
    this._list.setAttribute('role', 'listbox');
    this._list.setAttribute('aria-label', 'Compilations, newest first');
    this._spacer = el('div', 'jx-Compilations-spacer');
    this._list.appendChild(this._spacer);
    this._list.addEventListener('scroll', () => this._schedule());
    this._list.addEventListener('keydown', e => this._onKey(e));

    this.node.append(toolbar, this._summary, legend, this._list);
  }

  /** The events (oldest first, as received), the kernel's grouped work not the user's, the
   * function keys that fail on recompile. */
  setData(
    events: readonly ICompileEvent[],
    others: readonly IOtherGroup[],
    failKeys: readonly string[],
    note: string,
    counted?: string
  ): void {
    // the state's `counted` (as the status bar's): cache misses where the NumPy backend is
    // selected, whatever the events listed
    this._counted = counted;
    this._events = events;
    this._others = others;
    this._failKeys = new Set(failKeys);
    this._note = note;
    this._refilter();
  }

  protected onResize(): void {
    this._schedule();
  }

  protected onAfterShow(): void {
    this._schedule();
  }

  private _refilter(): void {
    const needle = this._filter.value.trim().toLowerCase();
    const shown: ICompileEvent[] = [];
    const mine: ICompileEvent[] = [];
    let users = 0;
    for (let i = this._events.length - 1; i >= 0; i--) {
      const e = this._events[i];
      if (!needle || this._haystack(e).includes(needle)) {
        shown.push(e);
        if (isUsers(e)) {
          mine.push(e);
        }
      }
      users += isUsers(e) ? 1 : 0;
    }
    const others = this._others.filter(
      g => !needle || `${g.name}\u0000${groupKind(g)}\u0000${g.sites.join(' ')}`.toLowerCase().includes(needle)
    );
    this._shown = shown;
    this._items = items(mine, others);
    this._tops = [];
    let top = 0;
    for (const item of this._items) {
      this._tops.push(top);
      top += HEIGHTS[item.kind];
    }
    if (this._selected >= this._items.length) {
      this._selected = this._items.length - 1;
    }
    const total = this._others.reduce((n, g) => n + g.count, 0);
    const apart = notYours(total);
    // the NumPy backend compiles nothing: its misses are counted as cache misses (missWords)
    const numpy = this._counted === 'cache misses' || anyNumpy(this._events.filter(isUsers));
    // ... and the groups not yours, where any event ran there (their headings said "compiles")
    this._numpy = numpy || anyNumpy(this._events);
    const what = `${misses(users, numpy)} of your functions`;
    this._summary.textContent =
      this._note || (needle ? `${mine.length} of ${what}${apart}` : `${what}${apart}`);
    this._summary.title = !this._note && total ? `+${total} ${NOT_YOURS_HINT}` : '';
    this._spacer.style.height = `${top}px`;
    this._schedule();
  }

  private _haystack(e: ICompileEvent): string {
    let h = this._haystacks.get(e);
    if (h === undefined) {
      h = [e.function, e.reason, e.cache, e.backend, e.source ?? '', e.function_key]
        .join('\u0000')
        .toLowerCase();
      this._haystacks.set(e, h);
    }
    return h;
  }

  private _schedule(): void {
    if (this._frame === 0) {
      this._frame = requestAnimationFrame(() => {
        this._frame = 0;
        this._render();
      });
    }
  }

  /** The index of the row at `y` px from the list's top. */
  private _at(y: number): number {
    let lo = 0;
    let hi = this._tops.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this._tops[mid] <= y) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return Math.max(0, lo);
  }

  /** Draws the rows in view (and a few around them). */
  private _render(): void {
    const top = this._list.scrollTop;
    const height = this._list.clientHeight || ROW_HEIGHT * 20;
    const first = Math.max(0, this._at(top) - OVERSCAN);
    const last = Math.min(this._items.length, this._at(top + height) + 1 + OVERSCAN);
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      rows.push(this._row(i));
    }
    this._spacer.replaceChildren(...rows);
    if (this._selected >= first && this._selected < last) {
      this._list.setAttribute('aria-activedescendant', this._rowId(this._selected));
    } else {
      this._list.removeAttribute('aria-activedescendant');
    }
  }

  private _rowId(index: number): string {
    const item = this._items[index];
    return item.kind === 'event' ? `${this.id}-row-${item.event.seq}` : `${this.id}-item-${index}`;
  }

  private _row(index: number): HTMLElement {
    const item = this._items[index];
    if (item.kind === 'event') {
      return this._eventRow(index, item.event);
    }
    let row: HTMLElement;
    if (item.kind === 'heading') {
      const compiles = compileCount(item.count, this._numpy);
      const hint = otherHint(item.origin, did(this._numpy ? NUMPY : null));
      row = el('div', 'jx-Compilations-heading', `${OTHER_TITLES[item.origin]} · ${compiles}`);
      row.title = `${compiles} of ${OTHER_TITLES[item.origin]}: ${hint}. Not yours to change; grouped per primitive or function, with the lines of yours that ran them.`;
    } else {
      row = this._groupRow(item.group);
    }
    row.id = this._rowId(index);
    row.setAttribute('role', 'option');
    row.setAttribute('aria-selected', String(index === this._selected));
    row.style.top = `${this._tops[index]}px`;
    row.addEventListener('click', () => this._select(index));
    return row;
  }

  private _groupRow(g: IOtherGroup): HTMLElement {
    const row = el('div', 'jx-Compilations-group');
    row.dataset.origin = groupKind(g);
    const where = g.sites.length ? `at ${g.sites.join(', ')}` : 'outside your cells';
    row.title =
      `${g.name}: ${misses(g.count, this._numpy)} of ` +
      `${OTHER_TITLES[groupKind(g)] ?? g.origin}, ${where}; ${ms(g.compile_ms)} ms in all`;
    row.append(
      el('span', 'jx-col-function', g.name),
      el('span', 'jx-col-count', `×${g.count}`),
      el('span', 'jx-col-ms', `${where} · ${ms(g.compile_ms)} ms`)
    );
    return row;
  }

  private _eventRow(index: number, e: ICompileEvent): HTMLElement {
    const row = el('div', 'jx-Compilations-row');
    row.id = this._rowId(index);
    row.setAttribute('role', 'option');
    row.setAttribute('aria-selected', String(index === this._selected));
    row.style.top = `${this._tops[index]}px`;
    row.dataset.cache = e.cache;
    row.title =
      `${e.function_key}\n${e.source ?? 'no source'}` +
      (e.execution_count !== null ? ` · cell [${e.execution_count}]` : '') +
      `\n${(e.signature ?? []).map(([n, t]) => `${n}: ${t}`).join(', ')}` +
      `\n${new Date(e.time * 1000).toLocaleString()} on ${e.backend}` +
      `\ntrace / lower / ${lastPhase(e.backend)}: ${ms(e.trace_ms)} / ${ms(e.lower_ms)} / ${ms(e.compile_ms)} ms, ` +
      `cache: ${cameFrom(e)}`;

    const fail = el('input', 'jx-col-fail');
    fail.type = 'checkbox';
    fail.checked = this._failKeys.has(e.function_key);
    fail.tabIndex = -1; // Space on the selected row toggles it
    fail.setAttribute('aria-label', `Fail on recompile of ${e.function}`);
    fail.title = `Raise instead of recompiling ${e.function} (fail on recompile)`;
    fail.addEventListener('click', ev => ev.stopPropagation());
    fail.addEventListener('change', () => this._callbacks.setFail(e, fail.checked));

    row.append(
      fail,
      el('span', 'jx-col-function', e.function),
      el('span', 'jx-col-cache', cameFrom(e)),
      el('span', 'jx-col-reason', e.reason),
      el(
        'span',
        'jx-col-ms',
        `trace ${ms(e.trace_ms)} · lower ${ms(e.lower_ms)} · ${lastPhase(e.backend)} ${ms(e.compile_ms)} ms`
      )
    );
    row.addEventListener('click', () => {
      this._select(index);
      this._callbacks.open(e);
    });
    return row;
  }

  private _select(index: number): void {
    if (this._items.length === 0) {
      return;
    }
    this._selected = Math.max(0, Math.min(this._items.length - 1, index));
    const rowTop = this._tops[this._selected];
    const rowHeight = HEIGHTS[this._items[this._selected].kind];
    const list = this._list;
    if (rowTop < list.scrollTop) {
      list.scrollTop = rowTop;
    } else if (rowTop + rowHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = rowTop + rowHeight - list.clientHeight;
    }
    this._schedule();
  }

  private _onKey(e: KeyboardEvent): void {
    const page = Math.max(1, Math.floor(this._list.clientHeight / ROW_HEIGHT) - 1);
    const moves: { [key: string]: number } = {
      ArrowDown: this._selected + 1,
      ArrowUp: this._selected - 1,
      PageDown: this._selected + page,
      PageUp: this._selected - page,
      Home: 0,
      End: this._items.length - 1
    };
    const item = this._items[this._selected];
    const event = item?.kind === 'event' ? item.event : undefined;
    if (e.key in moves) {
      this._select(moves[e.key]);
    } else if (e.key === 'Enter' && event) {
      this._callbacks.open(event);
    } else if (e.key === ' ' && event) {
      this._callbacks.setFail(event, !this._failKeys.has(event.function_key));
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  }

  private _filter: HTMLInputElement;
  private _summary: HTMLElement;
  private _list: HTMLElement;
  private _spacer: HTMLElement;
  private _events: readonly ICompileEvent[] = [];
  private _counted: string | undefined;
  private _others: readonly IOtherGroup[] = [];
  private _numpy = false; // one of the events ran on the NumPy backend, or it is selected
  private _shown: ICompileEvent[] = []; // every origin's, for the export
  private _items: Item[] = [];
  private _tops: number[] = [];
  private _failKeys = new Set<string>();
  private _note = '';
  private _selected = -1;
  private _frame = 0;
  private _haystacks = new WeakMap<ICompileEvent, string>();
}
